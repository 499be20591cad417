"""A file's findings under every rule, from which the report of any ``--select``/``--ignore`` is
read without running the rules again (:func:`Findings.select`): what the results cache of ``check``
stores (:mod:`ndd_migrate.app.cache`). Standard library only: a run answered from the cache
never imports libcst.

``check`` runs every rule whatever the selection (conversion rules depend on each other) and
filters the report, so the findings themselves do not depend on it. Two things do:

* a pipeline kept in pipeline mode whose every reason was deselected says so once at the
  pipeline (``Dispatcher._report_silenced``): that finding is stored with the codes of those
  reasons (``unless``), and shown only when none of them is selected;
* whether a finding is marked fixable: ``safe`` when ``check --fix`` would fix it, ``unsafe``
  when only ``--unsafe-fixes`` would (``engine.transform``). Those are passes of the rules at a
  fix level, whose rewrites depend on the selection through one question, "may rule X fix this",
  asked of the selection. Each pass is stored with the answers it was given (:class:`Pass`); a
  pass run under a selection that gives every one of those questions the same answers asks the
  same questions and does the same (the rules are deterministic), so its result is reused. A
  selection that answers one differently needs the pass run again: :meth:`Findings.select` says
  which (:class:`Missing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ndd_migrate.io.diagnostics import Diagnostic, FixSafety

#: A finding's identity when passes are compared (the fix level does not change it).
Key = tuple[str, int, int, str]


def key(diagnostic: Diagnostic) -> Key:
    return (diagnostic.code, diagnostic.line, diagnostic.column, diagnostic.message)


@dataclass
class Pass:
    """One pass of the rules at ``level`` ("safe" or "all"): the answers the selection gave to
    "may this rule fix" (code → answer), and the findings it fixed (as indexes into
    :attr:`Findings.keys`)."""

    level: str
    answers: dict[str, bool]
    fixed: frozenset[int]

    def holds_for(self, enabled: Callable[[str], bool]) -> bool:
        return all(enabled(code) == answer for code, answer in self.answers.items())


@dataclass(frozen=True)
class Missing:
    """The pass at ``level`` that :meth:`Findings.select` needs and has not got."""

    level: str


@dataclass
class Findings:
    """Every finding of the reporting pass (``fixed`` as that pass, which applies every rule, had
    it; ``fix`` the rule's own safety or manual), in the order the report lists them, with the
    conditions above."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Per finding, the index of its :func:`key` in :attr:`keys`.
    key_ids: list[int] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)
    #: Finding index → codes: shown only when none of them is selected.
    unless: dict[int, tuple[str, ...]] = field(default_factory=dict)
    passes: list[Pass] = field(default_factory=list)

    @classmethod
    def of(cls, diagnostics: Sequence[Diagnostic], unless: dict[int, tuple[str, ...]]) -> Findings:
        found = cls(unless=dict(unless))
        ids: dict[Key, int] = {}
        for diagnostic in diagnostics:
            found.diagnostics.append(diagnostic)
            found.key_ids.append(ids.setdefault(key(diagnostic), len(ids)))
        found.keys = list(ids)
        return found

    def fixed_ids(self, diagnostics: Sequence[Diagnostic]) -> frozenset[int]:
        """The :attr:`keys` among the fixed findings of a pass."""
        ids = {k: i for i, k in enumerate(self.keys)}
        return frozenset(ids[key(d)] for d in diagnostics if d.fixed and key(d) in ids)

    def select(self, enabled: Callable[[str], bool], codes: Sequence[str]) -> list[Diagnostic] | Missing:
        """The report under the selection ``enabled`` (code → selected here?; ``codes``: every
        rule's), each finding marked with the fix ``check --fix`` would really apply, as the
        engine marks them; or the pass that it takes and this has not got."""
        shown = [i for i, d in enumerate(self.diagnostics) if enabled(d.code) and self._unless_holds(i, enabled)]
        reported = {self.key_ids[i] for i in shown if self.diagnostics[i].fixed}
        safe: frozenset[int] | set[int] = set()
        if any(self.diagnostics[i].fix is FixSafety.SAFE and self.key_ids[i] in reported for i in shown):
            found = self._pass("safe", enabled)
            if found is None:
                return Missing("safe")
            safe = found.fixed
        every: frozenset[int] | set[int] = reported
        if any(self.diagnostics[i].fix is not FixSafety.MANUAL for i in shown) and not all(map(enabled, codes)):
            found = self._pass("all", enabled)
            if found is None:
                return Missing("all")
            every = found.fixed
        out: list[Diagnostic] = []
        seen: set[Diagnostic] = set()
        for i in shown:
            d, k = self.diagnostics[i], self.key_ids[i]
            if d in seen:  # a finding said twice is reported once (Context.report)
                continue
            seen.add(d)
            if d.fix is FixSafety.SAFE and k in safe:
                fix = FixSafety.SAFE
            elif d.fix is not FixSafety.MANUAL and k in every:
                fix = FixSafety.UNSAFE
            else:
                fix = FixSafety.MANUAL
            out.append(replace(d, fix=fix, fixed=False))
        return out

    def remapped(self, where: Callable[[Diagnostic], Diagnostic], order) -> Findings:
        """The findings moved by ``where`` (a notebook's lines to its cells) and sorted by
        ``order``, each keeping its conditions."""
        moved = sorted(
            ((where(d), k, self.unless.get(i)) for i, (d, k) in enumerate(zip(self.diagnostics, self.key_ids))),
            key=lambda item: order(item[0]),
        )
        return Findings(
            diagnostics=[d for d, _, _ in moved],
            key_ids=[k for _, k, _ in moved],
            keys=self.keys,
            unless={i: codes for i, (_, _, codes) in enumerate(moved) if codes is not None},
            passes=self.passes,
        )

    def _unless_holds(self, index: int, enabled: Callable[[str], bool]) -> bool:
        return not any(enabled(code) for code in self.unless.get(index, ()))

    def _pass(self, level: str, enabled: Callable[[str], bool]) -> Pass | None:
        return next((p for p in self.passes if p.level == level and p.holds_for(enabled)), None)

    def merged(self, other: Findings | None) -> Findings:
        """These findings with the passes of ``other`` (the same file's, stored before) added."""
        if other is not None and other.keys == self.keys:  # the same findings, in the same order
            known = {(p.level, tuple(sorted(p.answers.items()))) for p in self.passes}
            for extra in other.passes:
                if (extra.level, tuple(sorted(extra.answers.items()))) not in known:
                    self.passes.append(extra)
        return self

    def to_dict(self) -> dict:
        return {
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "key_ids": self.key_ids,
            "keys": [list(k) for k in self.keys],
            "unless": [[i, list(codes)] for i, codes in sorted(self.unless.items())],
            "passes": [[p.level, p.answers, sorted(p.fixed)] for p in self.passes],
        }

    @classmethod
    def from_dict(cls, data: dict, path: str) -> Findings:
        diagnostics = [Diagnostic(**dict(item, path=path, fix=FixSafety(item["fix"]))) for item in data["diagnostics"]]
        found = cls(
            diagnostics=diagnostics,
            key_ids=[int(i) for i in data["key_ids"]],
            keys=[(str(c), int(line), int(column), str(m)) for c, line, column, m in data["keys"]],
            unless={int(i): tuple(map(str, codes)) for i, codes in data["unless"]},
        )
        if len(found.key_ids) != len(diagnostics) or any(not 0 <= k < len(found.keys) for k in found.key_ids):
            raise ValueError("findings out of step with their keys")
        found.passes = [
            Pass(str(level), {str(c): bool(a) for c, a in answers.items()}, frozenset(map(int, fixed)))
            for level, answers, fixed in data["passes"]
        ]
        return found

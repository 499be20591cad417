"""NDD801 (``unused-noqa``, ruff's RUF100): the ``# noqa`` directives that silenced nothing.

It is not a rule of the traversal: whether a directive silenced something is known only once every
rule has reported, so the engine hands over the pass's :class:`~ndd_migrate.io.noqa.Suppressor`
(which remembers what each directive silenced) and :func:`settle` turns the idle directives into
findings, and with a fix removes them from the text the run writes. The fix is a comment edit, so
it needs no further pass of the rules.

``check`` looks at the last pass (the findings of the file as it is, or as ``--fix`` left it);
``migrate`` at its one pass, and finds the directives again in the rewritten text.
"""

from __future__ import annotations

from ndd_migrate.io import noqa
from ndd_migrate.io.diagnostics import Diagnostic, FileResult, FixSafety
from ndd_migrate.io.policy import Policy

CODE = "NDD801"


def settle(result: FileResult, policy: Policy) -> FileResult:
    """``result`` with a finding for each idle directive of its pass, when NDD801 is selected for
    the file, and those the run's fix level allows removed from its new text. The suppressor is
    dropped from the result either way (it stays in the engine)."""
    found, result.suppressor = result.suppressor, None
    if found is None or result.error or not policy.is_enabled(CODE, result.path):
        return result
    idle = [item for item in noqa.unused(found) if not found.silences(CODE, item)]
    if not idle:
        return result
    fixing = [item for item in idle if _applied(item, policy)]
    seen = found.source
    text = result.new_source if result.changed else seen
    new_text, _ = noqa.without_unused(text, fixing, seen)
    if new_text != text:
        result.changed = new_text != result.old_source
        result.new_source = new_text if result.changed else None
    result.diagnostics = result.diagnostics + [_finding(item, result.path, item in fixing) for item in idle]
    return result


def _safety(item: noqa.Unused) -> FixSafety:
    """Removing a blanket line directive is unsafe: it may be there for another linter (ruff's
    E501, flake8); directives naming our codes, and our file-level ones, are ours alone."""
    return FixSafety.UNSAFE if not item.codes and not item.directive.file_level else FixSafety.SAFE


def _applied(item: noqa.Unused, policy: Policy) -> bool:
    if not policy.fix:
        return False
    return policy.mode == "migrate" or policy.unsafe_fixes or _safety(item) is FixSafety.SAFE


def _finding(item: noqa.Unused, path: str, fixed: bool) -> Diagnostic:
    directive = item.directive
    if item.codes:
        what = f"Unused `noqa` directive (unused: {', '.join(f'`{c}`' for c in item.codes)})"
    elif directive.file_level:
        what = "Unused file-level `noqa` directive"
    else:
        what = "Unused blanket `noqa` directive"
    kept = f"`{item.comment}`" if item.comment else "nothing"
    return Diagnostic(
        code=CODE,
        message=what,
        path=path,
        line=directive.row,
        column=directive.column,
        end_line=directive.row,
        end_column=directive.column + len(directive.comment),
        fix=_safety(item),
        fixed=fixed,
        hint=f"remove it (the comment becomes {kept})",
    )

"""The rule catalogue: every rule's code, name, documentation and examples, found from its code alone.

Each rule lives in one module under :mod:`ndd_migrate.rules`, named after its code
(``ndd103_mixed_device.py`` holds NDD103). The module defines ``RULE``, a :class:`Rule` carrying the
documentation in ruff's format (what it does / why is this bad / example / fix safety) and
Fixit-style examples that the test suite runs, and, for rules that act on code, the implementation
the engine runs.

Numbering scheme (``NDD`` + 3 digits, the first digit is the family; ``--select NDD1`` picks one):

* ``NDD0xx`` pipeline structure: ``@pipeline_def`` functions, ``build()``/``run()``, pipeline arguments
* ``NDD1xx`` operators and their arguments: ``fn.*`` → ``ndd.*``, devices, batch size, seeds
* ``NDD2xx`` pipeline outputs: ``TensorList`` methods → ``Batch``
* ``NDD3xx`` imports
* ``NDD4xx`` legacy APIs and integrations: ``Pipeline`` subclasses, ``ops.*``, framework iterators,
  external sources, python operators, conditionals, checkpointing
* ``NDD5xx`` mistakes in hand-written dynamic-mode code
* ``NDD8xx`` ndd-migrate's own comments: ``# noqa`` directives that silence nothing
* ``NDD9xx`` constructs with no dynamic-mode form (always manual)
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import re
from dataclasses import dataclass, field

from ndd_migrate.io.diagnostics import FixSafety

CODE_RE = re.compile(r"^NDD\d{3}$")

FAMILIES = {
    "NDD0": "pipeline structure",
    "NDD1": "operators and arguments",
    "NDD2": "pipeline outputs",
    "NDD3": "imports",
    "NDD4": "legacy APIs and integrations",
    "NDD5": "dynamic-mode mistakes",
    "NDD8": "suppression comments",
    "NDD9": "no dynamic-mode form",
}


@dataclass(frozen=True)
class Example:
    """A before/after pair. ``after`` is the exact expected output of ``migrate``; for a manual rule
    it is the input with the ``# TODO(ndd-migrate)`` comment added. ``path`` names the file the
    example is checked as (some rules look at call sites or notebooks)."""

    before: str
    after: str
    title: str = ""


@dataclass(frozen=True)
class Rule:
    """Documentation and examples of one rule code.

    ``valid`` holds code the rule must stay silent on (correct dynamic-mode code, look-alikes,
    shadowed names): the test suite checks that it yields no finding of this code and is left
    byte-for-byte unchanged.
    """

    code: str
    name: str
    summary: str
    what: str
    why: str
    fix_safety: FixSafety
    fix: str
    examples: tuple[Example, ...] = ()
    valid: tuple[str, ...] = ()
    since: str = "0.1.0"
    extra: dict = field(default_factory=dict)
    #: Its findings are what other rules' rewrites need (the imports they use): a pass fixes one
    #: exactly when it makes such a rewrite, whatever this rule's own fix safety.
    follows_rewrites: bool = False

    def __post_init__(self) -> None:
        if not CODE_RE.match(self.code):
            raise ValueError(f"bad rule code {self.code!r}")

    @property
    def family(self) -> str:
        return FAMILIES[self.code[:4]]


#: The package that holds one module per rule, ``nddNNN_<name>.py``.
RULES_PACKAGE = "ndd_migrate.rules"


@functools.cache
def _rule_module_names() -> tuple[str, ...]:
    """Names of the rule modules (``ndd103_mixed_device``), sorted, found without importing them.

    The catalogue is a registry: it finds the rules by name (:data:`RULES_PACKAGE`) and imports them
    with :mod:`importlib`, so the engine never imports a rule module, and a new rule needs no list."""
    spec = importlib.util.find_spec(RULES_PACKAGE)
    found = (info.name for info in pkgutil.iter_modules(spec.submodule_search_locations))
    return tuple(sorted(name for name in found if re.match(r"^ndd\d{3}_", name)))


@functools.cache
def rule_modules() -> tuple:
    return tuple(importlib.import_module(f"{RULES_PACKAGE}.{name}") for name in _rule_module_names())


def rule_codes() -> tuple[str, ...]:
    """Every rule code, in order, read from the rule modules' names without importing them (they
    import libcst): the CLI checks ``--select`` against these before it knows whether any file
    needs the rules. :func:`all_rules` makes sure each module's name and code agree."""
    return tuple(name[:6].upper() for name in _rule_module_names())


@functools.cache
def all_rules() -> tuple[Rule, ...]:
    """Every rule, in code order. Raises if two modules claim one code or a module's name and
    code disagree, so the catalogue cannot drift."""
    rules: dict[str, Rule] = {}
    for mod in rule_modules():
        rule = mod.RULE
        expected = mod.__name__.rsplit(".", 1)[1][:6].upper()
        if rule.code != expected:
            raise RuntimeError(f"{mod.__name__} defines {rule.code}, its name says {expected}")
        if rule.code in rules:
            raise RuntimeError(f"duplicate rule code {rule.code}")
        rules[rule.code] = rule
    return tuple(rules[c] for c in sorted(rules))


def get_rule(code: str) -> Rule | None:
    code = code.upper()
    return next((r for r in all_rules() if r.code == code), None)


def rule_module(code: str):
    """The module that holds rule ``code`` (its docs, examples and implementation)."""
    for mod in rule_modules():
        if mod.RULE.code == code.upper():
            return mod
    return None

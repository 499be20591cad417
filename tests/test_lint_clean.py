"""Migrated code leaves nothing a linter flags: no import the migration made unused (pyflakes' F401)
and no local it binds and never reads (F841), in the golden fixtures, the rule examples and the
migrated whole programs. The check is a small ``ast`` pass (no linter is a project dependency),
tested on code that has both defects."""

from __future__ import annotations

import ast

import pytest

from ndd_migrate.engine.catalog import all_rules
from tests.conftest import FIXTURES, ROOT, migrate_text

CONVERTED = sorted(
    p for p in (ROOT / "tests" / "programs").glob("*.py") if "# expect: converted" in p.read_text(encoding="utf-8")
)


def leftovers(source: str) -> list[str]:
    """``line: message`` for each import nothing reads and each function local assigned by a plain
    ``name = ...`` and never read (what pyflakes reports as F401 and F841)."""
    tree = ast.parse(source)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    read |= _exported(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name != "*" and bound not in read:
                    found.append(f"{node.lineno}: `{bound}` imported but unused")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _unused_locals(node)
    return sorted(found, key=lambda s: int(s.split(":")[0]))


def _exported(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names |= {e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)}
    return names


def _unused_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    declared = {n for node in ast.walk(fn) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    out = []
    for node in _own_statements(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name not in read and name not in declared and name != "_":
                out.append(f"{node.lineno}: local `{name}` is assigned to but never used")
    return out


def _own_statements(fn):
    """The statements of ``fn``'s body, nested blocks included, nested functions and classes not."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        todo += [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]


def test_the_check_finds_both_defects():
    source = (
        "import numpy as np\n"
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy\n\n"
        "def p(seed):\n"
        "    rng = ndd.random.RNG(seed=seed)\n"
        "    return DALIGenericIterator\n"
    )
    assert leftovers(source) == [
        "1: `np` imported but unused",
        "3: `LastBatchPolicy` imported but unused",
        "6: local `rng` is assigned to but never used",
    ]


@pytest.mark.parametrize("name", sorted(p.parent.name for p in FIXTURES.glob("*/migrated.py")))
def test_golden_has_no_leftovers(name):
    assert leftovers((FIXTURES / name / "migrated.py").read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "before, after",
    [(e.before, e.after) for r in all_rules() for e in r.examples],
    ids=[f"{r.code}-{i}" for r in all_rules() for i, _ in enumerate(r.examples)],
)
def test_rule_example_has_no_new_leftovers(before, after):
    """What an example's migration leaves unused was unused before it (an example may show a
    pipeline kept as it is, imports included)."""
    assert set(_messages(after)) <= set(_messages(before))


def _messages(source: str) -> list[str]:
    try:
        return [line.split(": ", 1)[1] for line in leftovers(source)]
    except SyntaxError:  # a fragment, not a module
        return []


@pytest.mark.parametrize("program", CONVERTED, ids=[p.stem for p in CONVERTED])
def test_migrated_program_has_no_leftovers(program):
    migrated, _ = migrate_text(program.read_text(encoding="utf-8"), f"tests/programs/{program.name}")
    assert leftovers(migrated) == []

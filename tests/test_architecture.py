"""Imports point one way (docs/architecture.md): rules use the engine, the model and the code
builders; nothing else imports a rule, and no rule imports another. The catalogue finds rule modules
by name (importlib), which is how the engine and the CLI reach them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "ndd_migrate"
RULE_MODULE = re.compile(r"^ndd_migrate\.rules\.ndd\d{3}_\w+$")
MODEL = {
    "ndd_migrate.analysis", "ndd_migrate.plan", "ndd_migrate.legacy", "ndd_migrate.crossfile", "ndd_migrate.graph_code",
    "ndd_migrate.manual_uses", "ndd_migrate.iterators", "ndd_migrate.checkpoints", "ndd_migrate.outputs",
    "ndd_migrate.returns", "ndd_migrate.hand_built", "ndd_migrate.constructs", "ndd_migrate.external_source",
    "ndd_migrate.attributes", "ndd_migrate.expected_errors", "ndd_migrate.subclasses", "ndd_migrate.graph_methods",
    "ndd_migrate.twin_readers",
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (``from a import b`` counts ``a`` and ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


MODULES = {_module_name(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_the_scan_sees_the_package():
    assert "ndd_migrate.engine" in MODULES and "ndd_migrate.plan" in MODULES
    assert any(RULE_MODULE.match(name) for name in MODULES)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not RULE_MODULE.match(m)))
def test_no_module_outside_the_rules_imports_a_rule(module):
    assert sorted(i for i in MODULES[module] if RULE_MODULE.match(i)) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if RULE_MODULE.match(m)))
def test_no_rule_imports_another_rule(module):
    assert sorted(i for i in MODULES[module] if RULE_MODULE.match(i) and i != module) == []


@pytest.mark.parametrize("module", sorted(MODEL | {m for m in MODULES if m.startswith("ndd_migrate.codegen")}))
def test_model_and_code_builders_do_not_import_the_engine(module):
    assert sorted(i for i in MODULES[module] if i.startswith(("ndd_migrate.engine", "ndd_migrate.context"))) == []


def _code_literals(path: Path) -> list[str]:
    """Rule codes written as string values in a module (docstrings and comments aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
        and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        and re.search(r"NDD\d{3}", node.value)
    ]


@pytest.mark.parametrize("module", sorted(MODEL))
def test_the_model_holds_facts_and_no_rule_codes(module):
    """The analysis records what blocks a pipeline by construct (ndd_migrate.constructs); the rules
    say which constructs they report, so a rule code is written in its own module only."""
    path = ROOT / (module.replace(".", "/") + ".py")
    assert _code_literals(path) == []
    assert "report(" not in path.read_text(encoding="utf-8")


def test_core_does_not_import_dali():
    for module, imports in MODULES.items():
        if module.startswith("ndd_migrate.verify") or module == "ndd_migrate.rules.tables.generate_ops":
            continue  # the equivalence check, and the script that regenerates the op table from DALI
        assert not any(i == "nvidia" or i.startswith("nvidia.") for i in imports), module

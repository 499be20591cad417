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
MODEL = {"ndd_migrate.analysis", "ndd_migrate.plan", "ndd_migrate.legacy", "ndd_migrate.crossfile", "ndd_migrate.graph_code"}


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


def test_the_model_holds_no_rule_state():
    """The plan's module is facts only: no diagnostics are made there."""
    text = (PACKAGE / "plan.py").read_text(encoding="utf-8")
    assert re.search(r"NDD\d{3}", text.replace("NDD008", "")) is None
    assert "report(" not in text


def test_core_does_not_import_dali():
    for module, imports in MODULES.items():
        if module.startswith("ndd_migrate.verify") or module == "ndd_migrate.rules.tables.generate_ops":
            continue  # the equivalence check, and the script that regenerates the op table from DALI
        assert not any(i == "nvidia" or i.startswith("nvidia.") for i in imports), module

"""The layers of docs/architecture.md, checked over every import of every module: module level,
inside functions and under ``TYPE_CHECKING``. A new module is covered by the folder it is put in;
only a new top-level package needs a line here (and in docs/architecture.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "ndd_migrate"

#: The packages from the bottom up: a module may import its own package and those before it.
LAYERS = ("io", "support", "syntax", "dali", "model", "plan", "codegen", "engine", "rules", "app", "report", "cli")

#: ``verify`` stands beside the codemod: it reads files and source (and desugars hand-built graphs),
#: and nothing but the command line starts it.
VERIFY_MAY_IMPORT = {"io", "support", "syntax", "dali", "model"}

#: Inside ``model``, from the bottom up: the vocabulary (``types``, ``kinds``, ``constructs``,
#: ``crossfile``), what values are, what pipelines use, the forms pipelines are written in, the
#: analysis that reads a module with all of them.
MODEL_LAYERS = ("model", "model.values", "model.features", "model.sources", "model.analysis")

#: Imports that point down-to-up inside ``model`` on purpose, each with its reason.
MODEL_EXCEPTIONS = {
    ("ndd_migrate.model.types", "ndd_migrate.model.values.outputs"): "annotation of PipelineFunction.outputs",
    ("ndd_migrate.model.types", "ndd_migrate.model.values.returns"): "annotation of PipelineFunction.returns",
    ("ndd_migrate.model.types", "ndd_migrate.model.values.external_source"): "annotation of PipelineFunction.source",
}

RULE_MODULE = re.compile(r"^ndd_migrate\.rules\.ndd\d{3}_\w+$")
MAX_TOP_LEVEL_MODULES = 12


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


MODULE_PATHS = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in it. ``from a import b`` is an import
    of ``a.b`` when that is a module, else of ``a``; relative imports are resolved."""
    path = MODULE_PATHS[name]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if _is_package(path) else name.split(".")[:-1]
                base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULE_PATHS else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULE_PATHS and "." in target:
                target = target.rsplit(".", 1)[0]  # `import a.b.c` where only `a.b` is ours
            if target in MODULE_PATHS and target != name:
                found.add(target)
    return found


IMPORTS = {name: _imports(name) for name in MODULE_PATHS}
EDGES = sorted((a, b) for a, targets in IMPORTS.items() for b in targets)


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "package"
    top = parts[1]
    return "cli" if top in ("cli", "docs") else top


def _model_layer(module: str) -> str:
    parts = module.split(".")
    if parts[2] in ("values", "features", "sources"):
        return f"model.{parts[2]}"
    return "model.analysis" if parts[2] == "analysis" else "model"


def test_the_scan_sees_the_package():
    assert {"ndd_migrate.engine.transform", "ndd_migrate.plan.uses", "ndd_migrate.model.analysis"} <= set(IMPORTS)
    assert any(RULE_MODULE.match(name) for name in IMPORTS)
    assert ("ndd_migrate.engine.transform", "ndd_migrate.model.analysis") in EDGES


def test_the_top_of_the_package_is_small_and_every_folder_is_a_layer():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert [f for f in folders if f not in LAYERS and f != "verify"] == []


@pytest.mark.parametrize("edge", [e for e in EDGES if _layer(e[0]) != _layer(e[1])], ids="->".join)
def test_imports_point_down_the_layers(edge):
    importer, imported = edge
    low, high = _layer(imported), _layer(importer)
    if low == "package":
        return  # the package's own __init__ (the version)
    if high == "verify":
        assert low in VERIFY_MAY_IMPORT, f"verify may import only {sorted(VERIFY_MAY_IMPORT)}"
        return
    if low == "verify":
        assert high == "cli", "only the command line starts verify"
        return
    assert LAYERS.index(low) < LAYERS.index(high), f"{high} is below {low}: move the code, or invert the call"


@pytest.mark.parametrize(
    "edge",
    [e for e in EDGES if _layer(e[0]) == "model" == _layer(e[1]) and _model_layer(e[0]) != _model_layer(e[1])],
    ids="->".join,
)
def test_model_imports_point_down_its_layers(edge):
    importer, imported = edge
    if edge in MODEL_EXCEPTIONS:
        return
    assert MODEL_LAYERS.index(_model_layer(imported)) < MODEL_LAYERS.index(_model_layer(importer))


def test_every_exception_is_still_an_import():
    assert set(MODEL_EXCEPTIONS) <= set(EDGES)


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), every import counted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(IMPORTS[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(IMPORTS):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_anywhere():
    assert _cycles() == []


def test_the_cycle_check_finds_a_cycle(monkeypatch):
    monkeypatch.setitem(
        IMPORTS, "ndd_migrate.syntax.names", {*IMPORTS["ndd_migrate.syntax.names"], "ndd_migrate.model.analysis"}
    )
    assert any("ndd_migrate.syntax.names" in cycle for cycle in _cycles())


def test_the_rules_package_holds_rules_only():
    names = sorted(m for m in IMPORTS if m.startswith("ndd_migrate.rules."))
    assert [m for m in names if not RULE_MODULE.match(m)] == []


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if not RULE_MODULE.match(m)))
def test_no_module_outside_the_rules_imports_a_rule(module):
    assert sorted(i for i in IMPORTS[module] if RULE_MODULE.match(i)) == []


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if RULE_MODULE.match(m)))
def test_no_rule_imports_another_rule(module):
    assert sorted(i for i in IMPORTS[module] if RULE_MODULE.match(i) and i != module) == []


def _private_reads(name: str) -> list[str]:
    """``from ndd_migrate.x import _y`` and ``x._y`` of a module ``x`` imported from the package."""
    tree = ast.parse(MODULE_PATHS[name].read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ndd_migrate"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in MODULE_PATHS:
                    aliases[alias.asname or alias.name] = full
                elif alias.name.startswith("_") and not alias.name.startswith("__") and node.module != name:
                    found.append(f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr.startswith("_"):
            module = aliases.get(node.value.id)
            if module is not None and not node.attr.startswith("__"):
                found.append(f"{module}.{node.attr}")
    return found


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if not m.startswith("ndd_migrate.verify")))
def test_no_module_reads_another_modules_private_names(module):
    assert _private_reads(module) == []


def _code_literals(path: Path) -> list[str]:
    """Rule codes written as string values in a module (docstrings and comments aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.search(r"NDD\d{3}", node.value)
    ]


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if _layer(m) in ("model", "plan")))
def test_the_model_holds_facts_and_no_rule_codes(module):
    """The analysis records what blocks a pipeline by construct (ndd_migrate.model.constructs); the rules
    say which constructs they report, so a rule code is written in its own module only."""
    path = MODULE_PATHS[module]
    assert _code_literals(path) == []
    assert "report(" not in path.read_text(encoding="utf-8")


def test_core_does_not_import_dali():
    for module in IMPORTS:
        if module.startswith("ndd_migrate.verify") or module == "ndd_migrate.dali.tables.generate_ops":
            continue  # the equivalence check, and the script that regenerates the op table from DALI
        if module == "ndd_migrate.support.template.ndd_support":
            continue  # read as text, written into migrated programs, which run with DALI
        tree = ast.parse(MODULE_PATHS[module].read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            assert not any(n == "nvidia" or n.startswith("nvidia.") for n in names), module

"""Shared test helpers: run the engine on text, and on real files through the CLI."""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression
from typer.testing import CliRunner

from ndd_migrate import support
from ndd_migrate.cli import app
from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# The smallest pipeline-mode module: one `@pipeline_def` with a reader (tests of files and the CLI).
SMALL_PIPELINE = (
    "from nvidia.dali import pipeline_def, fn\n"
    "\n"
    "\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data\n"
)

# Migrated code run in the test process imports the project's support module
# (`from ndd_support import prefetching`), which `migrate` writes beside it in a user's project.
if str(support.TEMPLATE.parent) not in sys.path:
    sys.path.append(str(support.TEMPLATE.parent))

HAS_DALI = importlib.util.find_spec("nvidia") is not None and importlib.util.find_spec("nvidia.dali") is not None

# First on the PYTHONPATH of the programs a `-m "not dali"` run starts: an `nvidia.dali` whose import fails.
DALI_BLOCKED = Path(__file__).resolve().parent / "dali_blocked"


class _DaliBlocked(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """First on ``sys.meta_path`` in a run that leaves the ``dali`` tests out: DALI is found (the
    ``HAS_DALI`` probe still holds) but importing it is an error, and not an ``ImportError``, which
    ``pytest.importorskip`` would quietly turn into a skip."""

    def find_spec(self, name, path=None, target=None):
        if name == "nvidia.dali" or name.startswith("nvidia.dali."):
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def exec_module(self, module):
        raise RuntimeError(
            f"`import {module.__name__}` under `-m 'not dali'`: mark the test that runs DALI @pytest.mark.dali"
        )


def _leaves_out_dali(config) -> bool:
    expression = config.getoption("markexpr")
    return bool(expression) and not Expression.compile(expression).evaluate(lambda name, **_: name == "dali")


def pytest_configure(config):
    """Where the mark expression leaves the ``dali`` tests out (``pytest -m "not dali"``, the fast
    loop), a test that starts DALI without the marker fails, in this process and in any Python
    program it starts (through ``PYTHONPATH``), rather than making the loop slow unnoticed."""
    if not _leaves_out_dali(config):
        return
    assert "nvidia.dali" not in sys.modules, "DALI was imported before the tests were collected"
    sys.meta_path.insert(0, _DaliBlocked())
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(DALI_BLOCKED), os.environ.get("PYTHONPATH")) if p)


def _marked_dali_as_a_whole(path: Path) -> bool:
    """Whether the test module at ``path`` says ``pytestmark = pytest.mark.dali`` (or a list with it)."""
    for node in ast.parse(path.read_bytes()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            marks = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            return any(ast.unparse(mark) == "pytest.mark.dali" for mark in marks)
    return False


def pytest_ignore_collect(collection_path, config):
    """A module marked ``dali`` as a whole is not even imported by a run that leaves those tests out
    (it may import DALI at its top)."""
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_") and _leaves_out_dali(config):
        return _marked_dali_as_a_whole(collection_path) or None
    return None


def pytest_collection_modifyitems(config, items):
    """A test marked ``dali`` is skipped where DALI is not installed (``pip install .``: lint and
    migrate only)."""
    if not HAS_DALI:
        for item in items:
            if item.get_closest_marker("dali"):
                item.add_marker(pytest.mark.skip(reason="needs DALI: pip install -e '.[verify]'"))


def calls_of(monkeypatch, owner, name: str) -> list[tuple]:
    """Replace ``owner.name`` (a module function or class) for this test by a wrapper that records
    the positional arguments of each call; the list of them. The cost tests count work with it."""
    seen: list[tuple] = []
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        seen.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return seen


def write_tree(root, files: dict[str, str]) -> list:
    """``files`` (relative name → text) written under ``root``, folders made as needed: a project
    for the tests that run ``migrate`` over several modules. The paths written, in order."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [root / name for name in files]


def migrate_text(
    source: str, path: str = "example.py", *, expect_error: bool = False, line_length: int | None = None, policy=None
):
    """(new text or the input when unchanged, result) of ``migrate`` on a source text.

    An engine error fails the calling test (a crash must never pass for "nothing to change"),
    unless ``expect_error``: then the error is required. ``line_length``: the one the command line
    would give (TODOs wrap, long rewritten lines are split); by default none, as for the library.
    ``policy``: another than the default (e.g. one selecting the opt-in rules)."""
    if policy is None:
        policy = Policy.migrate() if line_length is None else Policy(line_length=lambda _path: line_length)
    result = transform(source, path, policy)
    if expect_error:
        assert result.error is not None, "expected the engine to refuse this input"
    else:
        assert result.error is None, f"engine error: {result.error}"
    return (result.new_source if result.changed else source), result


@pytest.fixture
def cli():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    return invoke


def kept_with_one_finding(source: str, text: str, diagnostics, code: str) -> None:
    """A pipeline kept because what blocks it is suppressed where it is: the file is the source
    plus one ``code`` TODO above the pipeline, and the run says so in one finding (not silence)."""
    (diag,) = diagnostics
    assert diag.code == code and "not migrated: at line" in diag.message, diag.message
    todo = [line for line in text.splitlines() if line.lstrip().startswith("# TODO(ndd-migrate):")]
    assert len(todo) == 1 and todo[0].lstrip().startswith(f"# TODO(ndd-migrate): {code} "), text
    assert "\n".join(line for line in text.splitlines() if line not in todo) == source.rstrip("\n"), text


@pytest.fixture(scope="session", autouse=True)
def _verify_workers_from_the_zygote():
    """``verify``'s worker processes, in the tests that run ``verify`` in this process, are forked
    from the zygote (tests/harness.py): each still a process of its own, without DALI's import."""
    from ndd_migrate.verify import runner
    from tests import harness

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "subprocess", harness.VERIFY_SUBPROCESS)
        yield


@pytest.fixture(scope="session")
def data_folder(request, tmp_path_factory) -> Path:
    """Where :func:`tests.harness.dataset` makes the data programs read: pytest's cache, so that a
    later run reads the same paths (tests/harness.py, ``Originals``), else a temporary folder."""
    cache = getattr(request.config, "cache", None)
    return cache.mkdir("ndd-data") if cache is not None else tmp_path_factory.mktemp("ndd-data")


@pytest.fixture(scope="session")
def originals(request):
    """The results of original programs, kept by content in pytest's cache (tests/harness.py)."""
    from tests import harness

    cache = getattr(request.config, "cache", None)
    return harness.Originals(cache.mkdir("ndd-originals") if cache is not None else None)


@pytest.fixture
def programs(request, originals, data_folder, tmp_path):
    """Runs the programs of a test that starts DALI (``tests.harness.Programs``); such a test must
    carry the ``dali`` marker."""
    from tests import harness

    assert request.node.get_closest_marker("dali"), (
        f"{request.node.nodeid} runs DALI programs: mark it @pytest.mark.dali"
    )
    return harness.Programs(originals, data_folder, tmp_path)

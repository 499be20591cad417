"""Pipelines of project modules that the run was not given, read from disk (crossfile.ProjectImports).

pre-commit passes only the staged files: ``main.py`` (no DALI in it) runs a pipeline that
``pkg/pipes.py`` defines, and only ``main.py`` is staged. Its ``build()``/``run()`` must still be
seen: reported while ``pkg/pipes.py`` is in pipeline mode (and left as they are), reported with
their fixes once it is migrated. A file importing no such module must stay on the fast path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from ndd_migrate.app import runner
from ndd_migrate.io.policy import Policy
from ndd_migrate.model import crossfile, importers, migrated_shape
from tests.conftest import ROOT

PIPES = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def train_pipe():\n"
    "    return fn.random.uniform()\n"
)
USE = "pipe.build()\nout = pipe.run()\n"
USED = "out = next(pipe)\n"
MAIN = "from pkg.pipes import train_pipe\n\npipe = train_pipe()\n" + USE


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project on disk: ``pyproject.toml``, ``pkg/__init__.py``, ``pkg/pipes.py``, ``main.py``;
    the current directory is its root, as for pre-commit."""
    monkeypatch.chdir(tmp_path)

    def make(files: dict[str, str] | None = None):
        tree = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/pipes.py": PIPES, "main.py": MAIN}
        tree.update(files or {})
        for name, text in tree.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return make


def codes(result):
    return [d.code for d in result.diagnostics]


def migrate_pipes_on_disk(cli):
    """``pkg/pipes.py`` migrated before ``main.py`` (by an earlier run, before ``main.py`` imported
    it, or by hand): migrated as a copy outside the project, where nothing imports it, and put back.
    (Migrating it alone inside the project keeps it: ``main.py`` imports it; see below.)"""
    outside = os.path.join(os.path.dirname(os.getcwd()), "elsewhere")
    os.makedirs(outside, exist_ok=True)
    copy = os.path.join(outside, "pipes.py")
    with open("pkg/pipes.py", encoding="utf-8") as source, open(copy, "w", encoding="utf-8") as target:
        target.write(source.read())
    result = cli("migrate", copy)
    assert result.exit_code == 0, result.output
    with open(copy, encoding="utf-8") as source, open("pkg/pipes.py", "w", encoding="utf-8") as target:
        target.write(source.read())
    assert "def train_pipe(*, batch_size=2" in open("pkg/pipes.py").read()


def test_migrating_the_module_alone_keeps_a_pipeline_an_unstaged_file_imports(project, cli):
    """Converting `train_pipe` with only `pkg/pipes.py` staged would break `main.py` (exit 0 and a
    program that fails): it stays, and the finding names the file to migrate with it."""
    project()
    result = cli("migrate", "pkg/pipes.py")
    assert result.exit_code == 1
    assert "@pipeline_def(batch_size=2)" in open("pkg/pipes.py").read()
    assert "main.py imports it, and this run does not migrate that file" in result.stderr


def test_outside_any_project_the_scripts_beside_the_module_are_importers(tmp_path, monkeypatch, cli):
    """No `pyproject.toml`, `setup.py`, `setup.cfg` or `.git` up the tree: the folder of the module
    given is still searched (not the folders below it), so `main.py` beside it keeps its pipeline."""
    monkeypatch.chdir(tmp_path)
    assert crossfile.PROJECT_MARKERS and importers.project_root(str(tmp_path)) is None
    (tmp_path / "pipes.py").write_text(PIPES, encoding="utf-8")
    (tmp_path / "main.py").write_text(MAIN.replace("pkg.pipes", "pipes"), encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "other.py").write_text("from pipes import train_pipe\n\ntrain_pipe().build()\n")
    result = cli("migrate", "pipes.py")
    assert result.exit_code == 1
    assert "main.py imports it, and this run does not migrate that file" in result.stderr
    assert "other.py" not in result.stderr  # below the folder: not searched


@pytest.mark.parametrize("size", [100, 3_000_000])  # saved outputs (images) make notebooks large
def test_an_unstaged_notebook_importing_it_keeps_it_too(project, cli, size):
    """pre-commit passes notebooks to a hook of `types: [python]` only when asked to: a notebook of
    the project running the pipeline is an importer outside the run like `main.py`."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    cell["source"] = MAIN.splitlines(keepends=True)  # as Jupyter saves a cell: a list of lines
    padding = {"cell_type": "markdown", "metadata": {}, "source": "x" * size}
    notebook = {"cells": [padding, cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    project({"main.py": "", "demo.ipynb": json.dumps(notebook, indent=1)})
    result = cli("migrate", "pkg/pipes.py")
    assert result.exit_code == 1
    assert "demo.ipynb imports it, and this run does not migrate that file" in result.stderr


# -- the defining module still in pipeline mode ------------------------------------------------------


def test_check_of_the_importing_file_alone_reports_the_uses(project, cli):
    project()
    result = cli("check", "main.py")
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("main.py:")]
    assert lines == [
        "main.py:4:1: NDD007 `pipe` comes from `train_pipe` of `pkg.pipes` (pkg/pipes.py), still in "
        "pipeline mode and not in this run: left as it is",
        "main.py:5:7: NDD007 `pipe` comes from `train_pipe` of `pkg.pipes` (pkg/pipes.py), still in "
        "pipeline mode and not in this run: left as it is",
    ]


def test_the_hint_says_what_changes_once_the_module_is_migrated(project):
    project()
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert [d.hint for d in result.diagnostics] == [
        "remove `pipe.build()` once `pkg/pipes.py` is migrated; migrate it and this file in one run to have it done",
        "`pipe.run()` → `next(pipe)` once `pkg/pipes.py` is migrated; migrate it and this file in one run to "
        "have it done",
    ]


def test_migrate_of_both_files_rewrites_both(project, cli):
    project()
    result = cli("migrate", "main.py", "pkg/pipes.py")
    assert result.exit_code == 0, result.output
    assert open("main.py").read() == MAIN.replace(USE, USED)
    assert "yield ndd.random.uniform" in open("pkg/pipes.py").read()


def test_migrate_of_the_importing_file_alone_leaves_it_and_says_why(project, cli):
    project()
    result = cli("migrate", "main.py")
    assert open("main.py").read() == MAIN  # no rewrite, and no TODO that would go stale
    assert open("pkg/pipes.py").read() == PIPES
    assert result.exit_code == 1
    assert "0 changed" in result.output
    assert "`train_pipe` of `pkg.pipes` (pkg/pipes.py), still in pipeline mode" in result.output
    assert "migrate it and this file in one run" in result.output


def test_a_pipeline_that_stays_in_pipeline_mode_is_not_reported(project):
    project({"pkg/pipes.py": PIPES + "\n\ntrain_pipe().serialize()\n"})  # NDD902 keeps it a pipeline
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert codes(result) == [] and result.skipped


def test_a_lone_build_or_run_is_reported_when_the_module_is_known(project):
    project({"main.py": "from pkg.pipes import train_pipe\n\npipe = train_pipe()\nout = pipe.run()\n"})
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert codes(result) == ["NDD007"]


# -- the defining module already migrated ------------------------------------------------------------


def test_check_after_the_module_was_migrated_reports_build_and_run_with_the_fix(project, cli):
    project()
    migrate_pipes_on_disk(cli)
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert [(d.code, d.line, d.message) for d in result.diagnostics] == [
        ("NDD002", 4, "`pipe.build()` removed"),
        ("NDD003", 5, "`pipe.run()` → `next(pipe)`"),
    ]
    out = cli("check", "--fix", "--unsafe-fixes", "main.py")
    assert out.exit_code == 0, out.output
    assert open("main.py").read() == MAIN.replace(USE, USED)


def test_migrate_after_the_module_was_migrated_rewrites_the_importing_file_alone(project, cli):
    project()
    migrate_pipes_on_disk(cli)
    result = cli("migrate", "main.py")
    assert result.exit_code == 0, result.output
    assert open("main.py").read() == MAIN.replace(USE, USED)


def test_a_migrated_module_given_in_the_run_counts_too(project, cli):
    project()
    migrate_pipes_on_disk(cli)
    summary = runner.run(["main.py", "pkg/pipes.py"], Policy.check())
    assert codes(summary.results[0]) == ["NDD002", "NDD003"]
    assert codes(summary.results[1]) == []


def test_a_factory_of_a_migrated_module_is_followed(project, cli):
    factory = "\n\ndef make(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n"
    project({"pkg/pipes.py": PIPES + factory})
    migrate_pipes_on_disk(cli)
    main = "from pkg.pipes import make\n\npipe = make(4)\n" + USE
    project({"pkg/pipes.py": open("pkg/pipes.py").read(), "main.py": main})
    cli("migrate", "main.py")
    assert open("main.py").read() == main.replace(USE, USED)


# -- spellings of the import -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "where,imports,call",
    [
        ("main.py", "import pkg.pipes as p\n", "p.train_pipe()"),
        ("main.py", "from pkg import pipes\n", "pipes.train_pipe()"),
        ("pkg/main.py", "from .pipes import train_pipe\n", "train_pipe()"),
        ("pkg/sub/main.py", "from ..pipes import train_pipe\n", "train_pipe()"),
        ("pkg/sub/main.py", "from pkg.pipes import (\n    train_pipe,\n)\n", "train_pipe()"),  # a parent's module
    ],
)
def test_import_spellings_are_resolved(project, cli, where, imports, call):
    main = imports + "\npipe = " + call + "\n" + USE
    project({where: main, "pkg/sub/__init__.py": ""})
    (result,) = runner.run([where], Policy.check()).results
    assert codes(result) == ["NDD007", "NDD007"]
    migrate_pipes_on_disk(cli)
    assert cli("migrate", where).exit_code == 0
    assert open(where).read() == main.replace(USE, USED)


def test_a_src_layout_is_searched(project):
    project({"pkg/pipes.py": "", "src/lib/__init__.py": "", "src/lib/pipes.py": PIPES})
    project({"tests/test_x.py": "from lib.pipes import train_pipe\n\npipe = train_pipe()\n" + USE})
    (result,) = runner.run(["tests/test_x.py"], Policy.check()).results
    assert codes(result) == ["NDD007", "NDD007"]


def test_modules_above_the_project_root_are_not_searched(tmp_path, monkeypatch):
    (tmp_path / "pipes.py").write_text(PIPES)
    inner = tmp_path / "proj"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("")
    (inner / "main.py").write_text("from pipes import train_pipe\n\npipe = train_pipe()\n" + USE)
    monkeypatch.chdir(inner)
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert result.skipped


def test_the_given_directories_are_searched(tmp_path, monkeypatch):
    """No project root: the file's directory and the run's roots only."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "pipes.py").write_text(PIPES)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.py").write_text("from pipes import train_pipe\n\npipe = train_pipe()\n" + USE)
    monkeypatch.chdir(tmp_path)
    assert runner.run(["app/main.py"], Policy.check()).results[0].skipped
    (result,) = runner.run(["app/main.py"], Policy.check(), roots=["app/main.py", "lib"]).results
    assert codes(result) == ["NDD007", "NDD007"]


def test_a_file_importing_other_names_of_the_module_is_not_parsed(project):
    project({"pkg/pipes.py": PIPES + "\n\ndef helper():\n    return 1\n", "main.py": "from pkg.pipes import helper\n"})
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert result.skipped


# -- the fast path -----------------------------------------------------------------------------------


def run_in_fresh_interpreter(directory, paths) -> dict:
    """``runner.run`` over ``paths`` in a new interpreter: whether it imported libcst."""
    code = textwrap.dedent(
        f"""
        import json, sys
        from ndd_migrate.app import runner
        from ndd_migrate.io.policy import Policy
        summary = runner.run({paths!r}, Policy.check(), roots=["."])
        print(json.dumps({{"libcst": "libcst" in sys.modules, "skipped": [r.skipped for r in summary.results]}}))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=directory, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_files_importing_no_pipeline_module_stay_on_the_fast_path(project):
    root = project(
        {
            "plain.py": "import os\nimport json as j\nfrom collections import OrderedDict\n",
            "uses_helper.py": "from pkg import helpers\nfrom pkg.helpers import util\n",
            "pkg/helpers.py": "def util():\n    return 1\n",
        }
    )
    found = run_in_fresh_interpreter(root, ["plain.py", "uses_helper.py"])
    assert found == {"libcst": False, "skipped": [True, True]}


def test_a_file_importing_a_pipeline_module_leaves_the_fast_path(project):
    root = project()
    found = run_in_fresh_interpreter(root, ["main.py"])
    assert found["libcst"] is True and found["skipped"] == [False]


# -- units -------------------------------------------------------------------------------------------


def test_imported_modules_reads_every_import_spelling():
    raw = (
        b"import os, pkg.pipes as p\n"
        b"from ..a.b import c as d, e  # comment\n"
        b"from . import (\n    x,\n    y,\n)\n"
        b"    from pkg import *\n"
        b"text = 'import'\n"
    )
    assert crossfile.imported_modules(raw) == [
        (0, "os", ()),
        (0, "pkg.pipes", ()),
        (2, "a.b", ("c", "e")),
        (1, "", ("x", "y")),
        (0, "pkg", (crossfile.STAR,)),  # every name `pkg` exports
    ]


def test_migrated_pipelines_knows_the_emitted_shape_and_nothing_else():
    migrated = (
        "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
        "def train_pipe(*, batch_size=2):\n"
        "    while True:\n"
        "        yield ndd.random.uniform(batch_size=batch_size),\n\n\n"
        "def make(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n\n\n"
        "def make_or_none(flag):\n    if flag:\n        return train_pipe()\n\n\n"
        "def counter():\n    while True:\n        yield 1\n\n\n"
        "def epochs(*, batch_size):\n"
        "    def batches():\n        while True:\n            yield ndd.zeros(shape=[1]),\n"
        "    return {}, batches()\n"
    )
    assert migrated_shape.migrated_pipelines(migrated.encode()) == {"train_pipe", "make"}
    assert (
        migrated_shape.migrated_pipelines(
            migrated.replace("import nvidia.dali.experimental.dynamic as ndd", "import ndd").encode()
        )
        == set()
    )
    assert migrated_shape.migrated_pipelines(b"def broken(:\n  dynamic while yield dali\n") == set()


def test_fixture_migrations_are_recognised():
    raw = (ROOT / "fixtures" / "train_val" / "migrated.py").read_bytes()
    assert migrated_shape.migrated_pipelines(raw) == {"train_pipe", "val_pipe", "make_train_pipe"}


# -- more shapes of a project --------------------------------------------------------------------------


def test_a_notebook_importing_a_migrated_module_is_rewritten(project, cli):
    project()
    migrate_pipes_on_disk(cli)
    cells = [MAIN.split("\n\n")[0] + "\n", "pipe = train_pipe()\n" + USE]
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c.splitlines(True)}
            for c in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    with open("nb.ipynb", "w") as stream:
        json.dump(notebook, stream, indent=1)
    (result,) = runner.run(["nb.ipynb"], Policy.check()).results
    assert [(d.code, d.cell) for d in result.diagnostics] == [("NDD002", 2), ("NDD003", 2)]


def test_a_factory_in_the_run_of_a_migrated_module_not_in_it_is_followed(project, cli):
    factory = (
        "from pkg.pipes import train_pipe\n\n\ndef make(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n"
    )
    main = "from pkg.factory import make\n\npipe = make(4)\n" + USE
    project({"pkg/factory.py": factory, "main.py": main})
    migrate_pipes_on_disk(cli)
    summary = runner.run(["main.py", "pkg/factory.py"], Policy.migrate())
    assert summary.results[0].new_source == main.replace(USE, USED)


def test_two_modules_claiming_one_short_name_rewrite_nothing_on_a_guess(project, cli):
    """``from .pipes import`` in a package whose ``pipes`` is migrated, while another imported
    ``pipes`` module is not: the relative name is ambiguous between them."""
    project({"other/__init__.py": "", "other/pipes.py": PIPES})
    migrate_pipes_on_disk(cli)
    main = "import other.pipes\nfrom .pipes import train_pipe\n\npipe = train_pipe()\n" + USE
    project({"pkg/pipes.py": open("pkg/pipes.py").read(), "pkg/main.py": main})
    (result,) = runner.run(["pkg/main.py"], Policy.migrate()).results
    assert not result.changed
    assert codes(result) == ["NDD007", "NDD007"]


def test_code_already_using_the_migrated_generator_is_clean(project, cli):
    """Once both files are migrated, `next(pipe)`, passing the generator on, `.close()` are no
    findings: only pipeline methods on it are."""
    main = (
        "from pkg.pipes import train_pipe\n\n\n"
        "def consume(p):\n    return next(p)\n\n\n"
        "pipe = train_pipe()\n(out,) = next(pipe)\nconsume(pipe)\npipes = [pipe]\npipe.close()\n"
    )
    project({"main.py": main})
    migrate_pipes_on_disk(cli)
    for given in (["main.py"], ["main.py", "pkg/pipes.py"]):
        (result, *_) = runner.run(given, Policy.check()).results
        assert codes(result) == [], given
    project({"pkg/pipes.py": open("pkg/pipes.py").read(), "main.py": main + "n = pipe.epoch_size('Reader')\n"})
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert codes(result) == ["NDD008"]  # reported where it is: the pipeline was migrated elsewhere


def test_the_fix_says_the_function_is_a_generator_function_now(project, cli):
    project()
    migrate_pipes_on_disk(cli)
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert {d.hint for d in result.diagnostics} == {
        f"`pkg.pipes.train_pipe` ({os.path.join('pkg', 'pipes.py')}) is a generator function now"
    }


def test_a_git_checkout_is_a_project_root(tmp_path, monkeypatch):
    """pre-commit runs in a git checkout, which need not have a pyproject.toml."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "pkg").mkdir()
    (tmp_path / "repo" / "pkg" / "pipes.py").write_text(PIPES)
    (tmp_path / "repo" / "main.py").write_text(MAIN)
    monkeypatch.chdir(tmp_path / "repo")
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert codes(result) == ["NDD007", "NDD007"]


def test_a_factory_of_a_pipeline_mode_module_not_in_the_run_is_known(project):
    factory = "\n\ndef make(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n"
    project(
        {"pkg/pipes.py": PIPES + factory, "main.py": "from pkg.pipes import make\n\npipe = make(4)\npipe.build()\n"}
    )
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert [d.message.split(",")[0] for d in result.diagnostics] == [
        "`pipe` comes from `make` of `pkg.pipes` (pkg/pipes.py)"
    ]


@pytest.mark.parametrize(
    "init,imports,call",
    [
        ("from .pipes import train_pipe, val_pipe\n", "from pkg import train_pipe\n", "train_pipe()"),
        ("from pkg.pipes import train_pipe\n", "import pkg\n", "pkg.train_pipe()"),
        ("from .inner import train_pipe\n", "from pkg import train_pipe\n", "train_pipe()"),  # two links
    ],
)
def test_a_pipeline_re_exported_by_a_package_is_followed(project, cli, init, imports, call):
    main = imports + "\npipe = " + call + "\n" + USE
    two = PIPES + "\n\n" + PIPES.split("\n\n\n", 1)[1].replace("train_pipe", "val_pipe")
    project(
        {
            "pkg/__init__.py": init,
            "pkg/inner.py": "from .pipes import train_pipe\n",
            "main.py": main,
            "pkg/pipes.py": two,
        }
    )
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert [d.message for d in result.diagnostics][:1] == [
        f"`pipe` comes from `train_pipe` of `pkg` ({os.path.join('pkg', 'pipes.py')}), still in pipeline mode "
        "and not in this run: left as it is"
    ]
    migrate_pipes_on_disk(cli)
    assert cli("migrate", "main.py").exit_code == 0
    assert open("main.py").read() == main.replace(USE, USED)


def test_an_import_cycle_ends(project):
    project(
        {"pkg/a.py": "from pkg.b import x\n", "pkg/b.py": "from pkg.a import x\n", "main.py": "from pkg.a import x\n"}
    )
    assert runner.run(["main.py"], Policy.check()).results[0].skipped


READER_PIPES = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def train_pipe():\n"
    '    jpegs, labels = fn.readers.file(file_root="/data", name="Reader")\n'
    "    return labels\n"
)


def test_a_module_migrated_before_with_a_reader_is_known_to_check_and_migrate(project, cli):
    """The migrated shape with a reader spells `ndd` only above its loop (the reader created once):
    a file using the pipeline is still found, by `check` and by `migrate`, when the module was
    migrated in an earlier run (pre-commit runs on the staged files only)."""
    project({"pkg/pipes.py": READER_PIPES})
    migrate_pipes_on_disk(cli)
    assert migrated_shape.migrated_pipelines(open("pkg/pipes.py", "rb").read()) == {"train_pipe"}
    (result,) = runner.run(["main.py"], Policy.check()).results
    assert codes(result) == ["NDD002", "NDD003"]
    out = cli("migrate", "main.py")
    assert out.exit_code == 0, out.output
    assert open("main.py").read() == MAIN.replace(USE, USED)


def test_check_of_the_module_alone_says_what_migrate_would(project, cli):
    """`check pkg/pipes.py` (the hook with only that file staged) reports what `migrate` would do:
    keep `train_pipe`, because `main.py` imports it, not "→ dynamic-mode generator"."""
    project()
    (result,) = runner.run(["pkg/pipes.py"], Policy.check()).results
    assert [d.code for d in result.diagnostics if d.needs_human] == ["NDD008"]
    assert "main.py imports it, and this run does not migrate that file" in result.diagnostics[0].message

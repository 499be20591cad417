"""Several pipelines per file, pipeline factories, and pipelines run in another module than the
one that defines them (NDD006, NDD007, ndd_migrate/model/crossfile.py)."""

from __future__ import annotations

import re

import pytest

from ndd_migrate.app import runner
from ndd_migrate.io.policy import Policy
from ndd_migrate.model import crossfile
from tests.conftest import migrate_text, write_tree

PIPE = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def train_pipe():\n"
    "    return fn.random.uniform()\n"
)
MIGRATED_PIPE = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "from pkg.ndd_support import prefetching\n\n\n"
    "@prefetching\n"
    "def train_pipe(*, batch_size=2):\n"
    "    while True:\n"
    "        yield ndd.random.uniform(batch_size=batch_size).evaluate(),\n"
)
USE = "pipe.build()\nout = pipe.run()\n"
USED = "out = next(pipe)\n"


def needs_human(result):
    return sorted(d.code for d in result.diagnostics if d.needs_human)


# -- factories in one file -------------------------------------------------------------------


def test_a_factory_that_returns_the_call_is_followed():
    out, result = migrate_text(PIPE + "\n\ndef make():\n    return train_pipe()\n\n\npipe = make()\n" + USE)
    assert out.endswith("pipe = make()\n" + USED)
    assert needs_human(result) == []


def test_a_factory_of_a_factory_is_followed():
    source = (
        PIPE
        + (
            "\n\ndef make(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n"
            "\n\ndef make_default():\n    return make(8)\n\n\npipe = make_default()\n"
        )
        + USE
    )
    out, _ = migrate_text(source)
    assert out.endswith("pipe = make_default()\n" + USED)


def test_a_factory_choosing_between_two_pipelines_is_followed():
    source = (
        PIPE
        + PIPE.split("\n\n\n", 1)[1].replace("train_pipe", "val_pipe")
        + (
            "\n\ndef make(train):\n    if train:\n        return train_pipe()\n    return val_pipe()\n"
            "\n\npipe = make(False)\n"
        )
        + USE
    )
    out, result = migrate_text(source)
    assert out.endswith("pipe = make(False)\n" + USED)
    assert [d.line for d in result.diagnostics if d.code == "NDD006"] == [12]  # reported at the factory


@pytest.mark.parametrize(
    "factory",
    [
        "def make(flag):\n    if flag:\n        return train_pipe()\n    return None\n",
        "def make(flag):\n    if flag:\n        return train_pipe()\n",  # falls off the end: None
        "def make(flag):\n    yield 1\n    return train_pipe()\n",  # a generator
    ],
)
def test_a_pipeline_returned_on_some_paths_only_keeps_its_pipeline(factory):
    """Its callers cannot be followed, so the pipeline is not converted (NDD008 at the `return`)."""
    source = PIPE + "\n\n" + factory + "\n\npipe = make(True)\n" + USE
    out, result = migrate_text(source)
    assert re.sub(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n", "", out) == source
    assert needs_human(result) == ["NDD008"]


def test_a_factory_of_a_kept_pipeline_changes_nothing():
    source = (
        PIPE.replace("def train_pipe():", "def train_pipe():  # noqa: NDD001")
        + ("\n\ndef make():\n    return train_pipe()\n\n\npipe = make()\n")
        + USE
    )
    out, result = migrate_text(source)
    assert out == source and "NDD006" not in needs_human(result)


# -- several pipelines in one file ------------------------------------------------------------


def test_batches_of_two_pipelines_under_one_name_are_rewritten_when_both_are_migrated():
    two = PIPE + PIPE.split("\n\n\n", 1)[1].replace("train_pipe", "val_pipe")
    tail = "\n\nt = train_pipe()\nv = val_pipe()\n(x,) = t.run()\n(x,) = v.run()\nn = len(x)\n"
    out, _ = migrate_text(two + tail)
    assert out.endswith("(x,) = next(t)\n(x,) = next(v)\nn = x.batch_size\n")
    kept = two.replace("def val_pipe():", "def val_pipe():  # noqa: NDD001")
    out, result = migrate_text(kept + tail)
    # `x` holds outputs of both: converting only `train_pipe` would leave `len(x)` wrong for one of
    # them, so neither converts (the plan), and NDD008 says why
    at_use = out.rsplit("(x,) = v.run()\n", 1)[1]
    assert at_use.startswith("# TODO(ndd-migrate): NDD008 `train_pipe` stays in pipeline mode: ")
    assert at_use.endswith("\nn = len(x)\n") and out.count("@pipeline_def") == 2
    blocked = [d for d in result.diagnostics if d.code == "NDD008"]
    assert len(blocked) == 1 and "convert together or not at all" in blocked[0].message


# -- across modules ---------------------------------------------------------------------------


FACTORY = (
    "from pkg.train import train_pipe\n\n\ndef make_pipe(bs):\n    pipe = train_pipe(batch_size=bs)\n    return pipe\n"
)


@pytest.mark.parametrize(
    "imports,call",
    [
        ("from train import train_pipe\n", "train_pipe()"),
        ("import pkg.train as t\n", "t.train_pipe()"),
        ("from pkg import train\n", "train.train_pipe()"),
        ("from pkg.factory import make_pipe\n", "make_pipe(4)"),  # a factory that imports the pipeline
    ],
)
def test_call_sites_in_another_module_follow_the_migration(tmp_path, cli, imports, call):
    main = imports + "\npipe = " + call + "\n" + USE
    write_tree(tmp_path, {"pkg/train.py": PIPE, "pkg/factory.py": FACTORY, "pkg/main.py": main})
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.output
    # no `pkg/__init__.py`: the support module is beside the module; `pkg.factory` imports it as a
    # member of the namespace package `pkg` (relatively), `from train import` by its bare name too
    relative = "from .ndd_support import prefetching\n"
    either = (
        "try:\n    from .ndd_support import prefetching\nexcept ImportError:  # run as a script: its folder is on "
        "sys.path\n    from ndd_support import prefetching\n"
    )
    written = either if imports.startswith("from train ") else relative
    assert (tmp_path / "pkg/train.py").read_text() == MIGRATED_PIPE.replace(
        "from pkg.ndd_support import prefetching\n", written
    )
    assert (tmp_path / "pkg/main.py").read_text() == main.replace(USE, USED)


def test_relative_imports_inside_a_package_are_followed(tmp_path):
    main = "from .train import train_pipe\n\npipe = train_pipe()\n" + USE
    paths = write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/train.py": PIPE, "pkg/main.py": main})
    summary = runner.run(paths, Policy.migrate())
    assert summary.results[2].new_source == main.replace(USE, USED)
    assert summary.results[2].old_source == main


def test_without_the_defining_module_the_call_sites_are_reported(tmp_path):
    main = "from train import train_pipe\n\npipe = train_pipe()\n" + USE
    (path,) = write_tree(tmp_path, {"main.py": "import nvidia.dali  # noqa: F401\n" + main})
    (result,) = runner.run([path], Policy.check()).results
    hints = [d.hint for d in result.diagnostics if d.code == "NDD007"]
    assert hints == [
        "if `train_pipe` of `train` is migrated (a generator function), remove `pipe.build()`; migrate "
        "both files in one run to have it done",
        "if `train_pipe` of `train` is migrated (a generator function), `pipe.run()` → `next(pipe)`; "
        "migrate both files in one run to have it done",
    ]


def test_an_imported_pipeline_that_stays_in_pipeline_mode_changes_nothing(tmp_path):
    train = PIPE + "\n\ntrain_pipe().serialize()\n"  # NDD902 keeps it a pipeline
    main = "from train import train_pipe\n\npipe = train_pipe()\n" + USE
    paths = write_tree(tmp_path, {"train.py": train, "main.py": main})
    summary = runner.run(paths, Policy.check())
    assert [d.code for d in summary.results[1].diagnostics] == []  # neither rewritten nor NDD007


def test_a_name_two_files_define_differently_is_not_rewritten(tmp_path):
    kept = PIPE + "\n\ntrain_pipe().serialize()\n"
    main = "from train import train_pipe\n\npipe = train_pipe()\n" + USE
    paths = write_tree(tmp_path, {"a/train.py": PIPE, "b/train.py": kept, "main.py": main})
    summary = runner.run(paths, Policy.migrate())
    assert not summary.results[2].changed


def test_module_names_are_every_importable_suffix_of_the_path():
    assert crossfile.module_names("/src/my-repo/pkg/sub/train.py")[:3] == ["train", "sub.train", "pkg.sub.train"]
    assert "my-repo.pkg.sub.train" not in crossfile.module_names("/src/my-repo/pkg/sub/train.py")
    assert crossfile.module_names("/src/pkg/__init__.py")[0] == "pkg"


def test_lookup_accepts_relative_qualified_names():
    assert crossfile.lookup({"train.train_pipe": True}, "..train.train_pipe") is True
    assert crossfile.lookup({"train.train_pipe": True}, "other.train_pipe") is None


def test_only_files_importing_a_module_that_migrated_a_pipeline_are_run_again():
    modules = {"train"}
    assert crossfile.import_test(modules)(b"import os\nfrom pkg.train import train_pipe\n")
    assert crossfile.import_test(modules)(b"from pkg import train, val\n")
    assert crossfile.import_test(modules)(b'   "from .train import make\\n",\n')  # a notebook's JSON
    assert not crossfile.import_test(modules)(b"from pkg import training\n")
    assert not crossfile.import_test(modules)(b"x = train_pipe()  # from train import\n")
    assert not crossfile.import_test(set())(b"import train\n")


def test_an_epoch_aware_pipeline_is_exported_with_its_shape(tmp_path):
    """Its migrated function returns (metadata, batches): importers unpack each call."""
    reader = "    data, _ = fn.readers.file(file_root='d', name='R')\n    return data"
    train = PIPE.replace("    return fn.random.uniform()", reader) + (
        "\n\npipe = train_pipe()\nn = pipe.epoch_size('R')\n"
    )
    main = "import nvidia.dali  # noqa: F401\nfrom train import train_pipe\n\npipe = train_pipe()\n" + USE
    paths = write_tree(tmp_path, {"train.py": train, "main.py": main})
    defined, used = runner.run(paths, Policy.migrate()).results
    assert defined.pipelines == {"train_pipe": True} and defined.epochs == ("train_pipe",)
    assert used.new_source == main.replace("pipe = train_pipe()\n" + USE, "pipe_meta, pipe = train_pipe()\n" + USED)


# -- a module that uses the pipeline in a way the migration does not follow --------------------

WRAPPER = (
    "class Wrapper:\n"
    "    def __init__(self, pipe):\n"
    "        self.pipe = pipe\n"
    "        self.pipe.build()\n\n"
    "    def batch(self):\n"
    "        return self.pipe.run()\n"
)


def test_a_use_another_module_cannot_follow_keeps_the_pipeline_where_it_is_defined(tmp_path):
    """Converting `train_pipe` would hand `Wrapper` a generator it calls `build()` on: the run keeps
    the pipeline in pipeline mode, says why at its definition, and leaves the importer as it was."""
    main = "from pkg.train import train_pipe\nfrom pkg.wrap import Wrapper\n\nw = Wrapper(train_pipe())\nprint(w.batch())\n"
    paths = write_tree(tmp_path, {"pkg/train.py": PIPE, "pkg/wrap.py": WRAPPER, "main.py": main})
    train, _, used = runner.run(paths, Policy.migrate()).results
    assert not used.changed and not used.diagnostics
    (found,) = [d for d in train.diagnostics if d.needs_human]
    assert found.code == "NDD008" and found.message == (
        f"`train_pipe` not migrated: {paths[2]}:4 (`train_pipe()`) uses it as a pipeline in a way the "
        "migration does not follow (another module of the run)"
    )
    assert "@pipeline_def(batch_size=2)\ndef train_pipe():" in train.new_source
    assert "# TODO(ndd-migrate): NDD008" in train.new_source


def test_settings_another_module_gives_become_parameters_and_executor_ones_go(tmp_path, cli):
    """`seed=` at a call in another module: the migrated function takes it; `prefetch_queue_depth`
    has no dynamic-mode counterpart and is dropped there (before, both raised TypeError)."""
    main = "from train import train_pipe\n\npipe = train_pipe(seed=5, prefetch_queue_depth=3)\n" + USE
    write_tree(tmp_path, {"train.py": PIPE, "main.py": main})
    result = cli("migrate", tmp_path)
    assert result.exit_code == 0, result.output
    assert "def train_pipe(*, batch_size=2, seed=None):\n" in (tmp_path / "train.py").read_text()
    assert (tmp_path / "main.py").read_text() == main.replace(USE, USED).replace(", prefetch_queue_depth=3", "")


# -- importers the run was not given (pre-commit: only the staged files) ------------------------


@pytest.mark.parametrize(
    "main",
    [
        "from pkg.train import train_pipe\n\npipe = train_pipe()\n" + USE,
        "import pkg.train as t\n\npipe = t.train_pipe()\n" + USE,
        "from pkg import train\n\npipe = train.train_pipe()\n" + USE,
    ],
)
def test_a_pipeline_a_file_outside_the_run_imports_stays(tmp_path, cli, monkeypatch, main):
    """`main.py` is not staged: converting `train_pipe` would break it while `migrate` exits 0."""
    write_tree(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": PIPE, "main.py": main})
    monkeypatch.chdir(tmp_path)
    result = cli("migrate", "pkg/train.py")
    assert result.exit_code == 1
    assert (tmp_path / "pkg/train.py").read_text().count("@pipeline_def") == 1
    assert "main.py imports it, and this run does not migrate that file (give both to one run)" in result.stderr
    (tmp_path / "pkg/train.py").write_text(PIPE, encoding="utf-8")  # without the TODO of that run
    both = cli("migrate", "pkg/train.py", "main.py")
    assert both.exit_code == 0, both.stderr
    assert (tmp_path / "pkg/train.py").read_text() == MIGRATED_PIPE


def test_a_file_outside_the_run_that_does_not_import_it_changes_nothing(tmp_path, cli, monkeypatch):
    other = "from pkg.other import train_pipe\n\npipe = train_pipe()\n" + USE  # another module's name
    write_tree(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/train.py": PIPE, "main.py": other})
    monkeypatch.chdir(tmp_path)
    assert cli("migrate", "pkg/train.py").exit_code == 0
    assert (tmp_path / "pkg/train.py").read_text() == MIGRATED_PIPE


def test_every_pipeline_another_module_cannot_follow_stays(tmp_path):
    """Two pipelines of one module, each handed to a class the migration does not follow: both stay
    (the second was converted while the first was kept: a name shared with the loop over them)."""
    two = PIPE + PIPE.split("\n\n\n", 1)[1].replace("train_pipe", "val_pipe")
    main = (
        "from pkg.train import train_pipe, val_pipe\nfrom pkg.wrap import Wrapper\n\n"
        "train = Wrapper(train_pipe())\nval = Wrapper(val_pipe())\n"
    )
    paths = write_tree(tmp_path, {"pkg/train.py": two, "pkg/wrap.py": WRAPPER, "main.py": main})
    train, _, used = runner.run(paths, Policy.migrate()).results
    assert train.pipelines == {"train_pipe": False, "val_pipe": False}
    assert not used.changed and not [d for d in used.diagnostics if d.needs_human]
    assert [d.code for d in train.diagnostics if d.needs_human] == ["NDD008", "NDD008"]

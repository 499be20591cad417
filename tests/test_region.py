"""``check`` on a module's DALI region (ndd_migrate.syntax.region) finds exactly what it finds on the whole
module: the region is chosen right, and findings land on the module's own lines."""

from __future__ import annotations

import ast
import textwrap

import pytest

from ndd_migrate.engine.catalog import all_rules
from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform
from ndd_migrate.syntax import region
from tests.conftest import FIXTURES, ROOT


def region_of(source: str) -> region.Region | None:
    return region.dali_region(source, ast.parse(source))


def kept_text(source: str) -> list[str]:
    """The non-empty lines the region keeps."""
    found = region_of(source)
    assert found is not None, "nothing was cut"
    return [line for line in found.text.split("\n") if line.strip()]


# Plain code of the kind that surrounds DALI code in a real module: functions, a class, module-level
# state. `rng`, `reader` and `types` are fresh names the migration would otherwise pick.
PLAIN_BEFORE = textwrap.dedent('''\
    import json
    import os

    rng = {"seed": 3}
    reader = None


    def load_config(path):
        """Read one JSON file."""
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)


    class Registry:
        types = ("a", "b")

        def add(self, key, value):
            self.items = getattr(self, "items", {})
            self.items[key] = value
            return os.path.join(key, str(value))


    ''')
PLAIN_AFTER = textwrap.dedent("""\


    def summarize(values):
        total = 0
        for value in values:
            if value % 2:
                total += value
        return total


    class Timer:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False
    """)


# ------------------------------------------------------------------------------ what is kept


def test_unrelated_functions_and_classes_are_cut_and_lines_map_back():
    source = PLAIN_BEFORE + "import nvidia.dali.fn as fn\n\n\ndef prep(x):\n    return fn.cast(x)\n" + PLAIN_AFTER
    kept = kept_text(source)
    assert "    return fn.cast(x)" in kept and "import nvidia.dali.fn as fn" in kept
    assert "import json" in kept  # imports always stay: names in the region may resolve to them
    assert not any("summarize" in line or "Timer" in line or "load_config" in line for line in kept)
    found = region_of(source)
    lines = source.split("\n")
    for number, text in enumerate(found.text.split("\n"), start=1):
        if text:
            assert lines[found.original_line(number) - 1] == text


def test_closure_follows_names_both_ways():
    source = (
        textwrap.dedent("""\
        from nvidia.dali import pipeline_def, fn

        BATCH = 8


        def unrelated():
            return 1


        def train(pipe):
            pipe.build()
            return pipe.run()


        @pipeline_def(batch_size=BATCH)
        def my_pipe():
            return fn.random.uniform()


        def uses_it():
            return train(made)


        made = my_pipe()
        """)
        + PLAIN_AFTER
    )
    kept = "\n".join(kept_text(source))
    assert "BATCH = 8" in kept  # a constant the DALI code uses
    assert "def train(pipe):" in kept  # a helper that gets the pipeline
    assert "def uses_it():" in kept and "made = my_pipe()" in kept  # uses of what DALI code binds
    assert "unrelated" not in kept


def test_local_variables_do_not_connect_functions():
    source = (
        textwrap.dedent("""\
        import nvidia.dali.fn as fn

        for i in range(3):
            x = fn.cast(i)


        def counts(values):
            total = 0
            for i, v in enumerate(values):  # a local `i`, not the module's
                total += [i for i in range(v)][-1]
            return total


        def reads_global():
            return [v for v in x]


        class Holder:
            x = x  # the module's `x`
        """)
        + PLAIN_AFTER
    )
    kept = "\n".join(kept_text(source))
    assert "def counts(values):" not in kept
    assert "def reads_global():" in kept and "class Holder:" in kept


def test_free_names_of_scopes():
    tree = ast.parse(
        textwrap.dedent("""\
        def f(a, b=DEFAULT) -> Ret:
            global g
            c = a + b + seen
            g = [y for y in outer if y > limit]
            def inner():
                return c + deeper
            return lambda q: q + c + lam
        """)
    )
    fn = tree.body[0]
    assert region._free_names(fn) == {"seen", "outer", "limit", "deeper", "lam", "g"}
    assert region._outer_names(fn) == {"DEFAULT", "Ret"}


def test_build_and_run_calls_seed_the_region_without_any_dali_name():
    source = "import mylib\n\n\ndef main():\n    p = mylib.make()\n    p.build()\n    p.run()\n\n\n" + PLAIN_AFTER
    assert "    p.build()" in kept_text(source)


def test_pipeline_only_api_seeds_the_region():
    """``x.schedule_run()`` on a name the module never binds: NDD008 keeps a pipeline made outside
    the module for it, so ``check`` must see it as ``migrate`` does (the fuzzer found them apart)."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, device_id=None)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\n" + PLAIN_AFTER + "\n\npipe.schedule_run()\n"
    )
    assert "pipe.schedule_run()" in kept_text(source)
    policy = Policy.check()
    narrow, whole = transform(source, "m.py", policy), transform(source, "m.py", policy, narrow=False)
    assert [d.code for d in narrow.diagnostics] == [d.code for d in whole.diagnostics]
    assert "NDD008" in {d.code for d in whole.diagnostics}


def test_numpy_import_anywhere_keeps_its_statement():
    source = "import nvidia.dali.fn as fn\n\n\ndef f():\n    import numpy as np\n    return np.zeros(3)\n" + PLAIN_AFTER
    assert "    import numpy as np" in kept_text(source)


def test_decorators_and_semicolons_stay_with_their_statements():
    source = (
        textwrap.dedent("""\
        import functools
        import nvidia.dali.fn as fn
        x = 1; y = fn.cast(x)


        @functools.cache
        def plain():
            return 2
        """)
        + PLAIN_AFTER
    )
    kept = kept_text(source)
    assert "x = 1; y = fn.cast(x)" in kept
    assert "@functools.cache" not in kept and "def plain():" not in kept


@pytest.mark.parametrize(
    "source",
    [
        "from nvidia.dali.fn import *\n" + PLAIN_AFTER,  # any name may be DALI's
        "import nvidia.dali.fn as fn\r" + PLAIN_AFTER.replace("\n", "\r"),  # lone CR line breaks
        "import nvidia.dali.fn as fn\n\n\ndef f():\n    return fn.cast(1)\n",  # nothing to cut
    ],
    ids=["star-import", "lone-cr", "all-dali"],
)
def test_not_narrowed(source):
    assert region.dali_region(source, ast.parse(source)) is None


def test_first_and_last_lines_stay_for_module_level_findings():
    source = PLAIN_AFTER.lstrip("\n") + "\nimport nvidia.dali.fn as fn\nx = fn.cast(1)"
    found = region_of(source)
    assert found.original_line(1) == 1
    assert found.original_line(len(found.lines)) == len(source.split("\n"))


def test_module_level_names_skip_function_bodies():
    tree = ast.parse("import a.b as c\nx = y.z\nclass K:\n    w = 1\n    def m(self, q):\n        inner = 1\n")
    assert {"a", "b", "c", "x", "y", "z", "K", "w"} <= region.module_level_names(tree)
    assert not {"m", "q", "inner", "self"} & region.module_level_names(tree)


# ------------------------------------------------------------------ same findings as the module


def _corpus() -> list[tuple[str, str]]:
    """Every DALI module the project has at hand: rule examples (both sides), valid snippets,
    fixtures with their goldens, the verify test cases."""
    out = []
    for rule in all_rules():
        for i, example in enumerate(rule.examples):
            out += [(f"{rule.code}-ex{i}-before", example.before), (f"{rule.code}-ex{i}-after", example.after)]
        out += [(f"{rule.code}-valid{i}", snippet) for i, snippet in enumerate(rule.valid)]
    for path in sorted([*FIXTURES.glob("*/pipeline.py"), *FIXTURES.glob("*/migrated.py")]):
        out.append((f"{path.parent.name}/{path.name}", path.read_text(encoding="utf-8")))
    for path in sorted((ROOT / "tests" / "verify_cases").glob("*.py")):
        out.append((f"verify_cases/{path.name}", path.read_text(encoding="utf-8")))
    return [(name, text) for name, text in out if "dali" in text]


def _padded(text: str) -> str:
    """``text`` with plain code before (unless a ``__future__`` import must come first) and after."""
    head = "" if "from __future__" in text else PLAIN_BEFORE
    return head + text + PLAIN_AFTER


CORPUS = _corpus()


@pytest.mark.parametrize("name,text", CORPUS, ids=[name for name, _ in CORPUS])
def test_region_finds_what_the_whole_module_finds(name, text):
    """``check`` only: with findings, ``check --fix`` leaves the region for the whole module
    (engine/transform.py), and without any it returns the region's empty report, which this already
    compares with the whole module's."""
    source = _padded(text)
    policy = Policy.check()
    narrow = transform(source, "m.py", policy)
    whole = transform(source, "m.py", policy, narrow=False)
    assert narrow.error == whole.error
    assert narrow.diagnostics == whole.diagnostics
    assert (narrow.new_source, narrow.pipelines) == (whole.new_source, whole.pipelines)


def test_the_corpus_is_really_narrowed():
    narrowed = sum(region_of(_padded(text)) is not None for _, text in CORPUS)
    assert len(CORPUS) > 100 and narrowed > 0.9 * len(CORPUS)


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_crlf_aliases_and_non_ascii_text_give_the_same_findings(newline):
    body = textwrap.dedent("""\
        from nvidia.dali import fn as dfn, pipeline_def as pdef

        LABEL = "données"  # non-ASCII text before the findings on the same lines


        @pdef(batch_size=2)
        def pipe():
            images = dfn.random.uniform(range=[0, 1])  # é
            return dfn.cast(images, dtype=None)


        p = pipe()
        p.build()
        """)
    source = (PLAIN_BEFORE + body + PLAIN_AFTER).replace("\n", newline)
    assert region_of(source) is not None
    narrow = transform(source, "m.py", Policy.check())
    whole = transform(source, "m.py", Policy.check(), narrow=False)
    assert narrow.error is None and narrow.diagnostics == whole.diagnostics
    assert {d.code for d in narrow.diagnostics} >= {"NDD001", "NDD002"}


def test_unparsable_file_is_reported_by_check_and_left_alone():
    source = PLAIN_BEFORE + "import nvidia.dali.fn as fn\ndef broken(:\n    pass\n"
    result = transform(source, "m.py", Policy.check(fix=True))
    assert result.error is not None and "cannot parse" in result.error.message
    assert result.error.line == PLAIN_BEFORE.count("\n") + 2
    assert not result.changed and result.new_source is None

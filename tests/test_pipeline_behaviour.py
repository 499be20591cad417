"""NDD905: programs that test pipeline mode itself keep their pipeline, with one finding naming the
construct; an expected error a dynamic-mode program raises too is no reason to keep one."""

from __future__ import annotations

import re

import pytest

from tests.conftest import migrate_text

FED = """\
import numpy as np
from nose.tools import assert_raises
from nvidia.dali import ops
from nvidia.dali.pipeline import Pipeline


class Fed(Pipeline):
    def __init__(self, size):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.source = ops.ExternalSource()
        self.size = size

    def define_graph(self):
        self.data = self.source()
        return self.data

    def iter_setup(self):
        self.feed_input(self.data, np.zeros([self.size, 4]))


def test_too_many():
    pipe = Fed(3)
    pipe.build()
    {check}
"""


def _human(text):
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    return out, found


@pytest.mark.parametrize("check", ["assert_raises(RuntimeError, pipe.run)", "pytest.raises(RuntimeError, pipe.run)"])
def test_an_error_expected_from_a_fed_pipeline_keeps_it(check):
    out, found = _human(FED.format(check=check))
    assert [d.code for d in found] == ["NDD905"], found
    assert f"kept in pipeline mode: the program expects `pipe.run` to raise (`{check}`) on data fed" in found[0].message
    assert "class Fed(Pipeline)" in out and out.count("TODO(ndd-migrate)") == 1


def test_an_error_expected_from_a_pipeline_not_fed_is_no_keep():
    """A reader's or an operator's error comes in dynamic mode too: not NDD905 (an NDD008 for the
    use of `pipe.run` it cannot rewrite)."""
    text = (
        "from nose.tools import assert_raises\n"
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def bad():\n"
        "    jpegs, _ = fn.readers.file(file_root='/missing')\n"
        "    return fn.decoders.image(jpegs)\n\n\n"
        "pipe = bad()\n"
        "assert_raises(RuntimeError, pipe.run)\n"
    )
    _, found = _human(text)
    assert [d.code for d in found] == ["NDD008"], found


def test_the_api_check_keeps_the_pipeline():
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p():\n"
        "    return fn.random.uniform(range=[0, 1])\n\n\n"
        "pipe = p()\n"
        "pipe.build()\n"
        "pipe.schedule_run()\n"
        "pipe.outputs()\n"
        "pipe.enable_api_check(False)\n"
        "pipe.run()\n"
    )
    out, found = _human(text)
    assert [d.code for d in found] == ["NDD905"], found
    assert "pipeline mode's API check (`pipe.enable_api_check(False)`" in found[0].message
    assert "@pipeline_def" in out and out.count("TODO(ndd-migrate)") == 1
    # Without the check it is work left (`schedule_run` could become `next(pipe)`), not a keep.
    _, found = _human(text.replace("pipe.enable_api_check(False)\n", ""))
    assert found and "NDD905" not in {d.code for d in found}, found


def test_each_same_named_local_class_reports_its_own_use():
    """Two tests each define `class Fed`: each is kept at its own `assert_raises`."""
    body = FED.split("class Fed")[1].split("\n\n\ndef test_too_many")[0]
    text = FED.split("class Fed")[0] + "".join(
        f"def test_{n}():\n    class Fed{body.replace(chr(10), chr(10) + '    ')}\n\n"
        f"    pipe = Fed({n})\n    pipe.build()\n    assert_raises(RuntimeError, pipe.run)\n\n\n"
        for n in (3, 4)
    )
    _, found = _human(text)
    assert [d.code for d in found] == ["NDD905", "NDD905"], found
    lines = text.splitlines()
    assert ["Fed(3)" in lines[d.line - 3] for d in found] == [True, False], found
    assert ["Fed(4)" in lines[d.line - 3] for d in found] == [False, True], found


@pytest.mark.dali
def test_dali_refuses_a_large_fed_batch_only_in_pipeline_mode(programs):
    """The fact NDD905 rests on, on the installed DALI: pipeline mode raises on a fed batch larger
    than `batch_size`; the migrated generator (fed with `ndd.batch`) runs on."""
    from tests.conftest import HAS_DALI

    if not HAS_DALI:
        pytest.skip("needs DALI")
    program = FED.split("\n\ndef test_too_many")[0].replace("from nose.tools import assert_raises\n", "")
    program += "\n\npipe = Fed(3)\npipe.build()\ntry:\n    print(len(pipe.run()[0]))\nexcept RuntimeError as e:\n    print('refused')\n"
    migrated, _ = migrate_text(program)
    assert "ndd.batch(" in migrated and "next(pipe)" in migrated, migrated
    runs = programs.both(program, migrated.replace("len(next(pipe)[0])", "next(pipe)[0].batch_size"))
    assert [ran.stdout.strip() for ran in runs] == ["refused", "3"], runs


# -- a build (or creation) expected to raise ------------------------------------------------------

HEADER = """\
import unittest

import pytest
from nose.tools import assert_raises, raises
from nvidia.dali import fn, ops, pipeline_def
from nvidia.dali.pipeline import Pipeline


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def crop_1d():
    return fn.crop(fn.random.uniform(range=[0, 1], shape=[3]), crop=(1, 1))


class Crop1d(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None)
        self.values = ops.random.Uniform(range=[0, 1], shape=[3])
        self.crop = ops.Crop(crop=(1, 1))

    def define_graph(self):
        return self.crop(self.values())


"""

BUILD_CHECKS = {
    "nose decorator": (
        "@raises(ValueError)\ndef test_it():\n    pipe = {make}\n    pipe.build()\n",
        "@raises(ValueError)",
    ),
    "pytest.raises block": (
        "def test_it():\n    pipe = {make}\n    with pytest.raises(ValueError, match='dimensions'):\n        pipe.build()\n",
        "with pytest.raises(ValueError, match='dimensions')",
    ),
    "assert_raises": (
        "def test_it():\n    pipe = {make}\n    assert_raises(ValueError, pipe.build)\n",
        "assert_raises(ValueError, pipe.build)",
    ),
    "assert_raises lambda": (
        "def test_it():\n    pipe = {make}\n    assert_raises(ValueError, lambda: pipe.build())\n",
        "assert_raises(ValueError, lambda: pipe.build())",
    ),
    "assertRaises": (
        "class TestCrop(unittest.TestCase):\n    def test_it(self):\n        pipe = {make}\n"
        "        self.assertRaises(ValueError, pipe.build)\n",
        "self.assertRaises(ValueError, pipe.build)",
    ),
    "try, assert False": (
        "def test_it():\n    pipe = {make}\n    try:\n        pipe.build()\n        assert False\n"
        "    except ValueError:\n        pass\n",
        "try: pipe.build() ... except ValueError",
    ),
    "try, self.fail": (
        "class TestCrop(unittest.TestCase):\n    def test_it(self):\n        pipe = {make}\n        try:\n"
        "            pipe.build()\n            self.fail('built')\n        except ValueError:\n            pass\n",
        "try: pipe.build() ... except ValueError",
    ),
    "assertRaises block": (
        "class TestCrop(unittest.TestCase):\n    def test_it(self):\n        pipe = {make}\n"
        "        with self.assertRaises(ValueError):\n            pipe.build()\n",
        "with self.assertRaises(ValueError)",
    ),
}


@pytest.mark.parametrize("make", ["crop_1d()", "Crop1d()"])
@pytest.mark.parametrize("check", sorted(BUILD_CHECKS))
def test_a_build_expected_to_raise_keeps_the_pipeline(check, make):
    test, code = BUILD_CHECKS[check]
    text = HEADER + test.format(make=make)
    out, found = _human(text)
    assert [d.code for d in found] == ["NDD905"], found
    name = "TestCrop.test_it" if "TestCrop" in test else "test_it"
    assert (
        f"the test `{name}` expects `pipe.build()` to raise `ValueError` (`{code}`) and never runs it: dynamic mode "
        "has no build step: the generator runs nothing until it is iterated, so the error never comes"
    ) in found[0].message
    assert out.count("TODO(ndd-migrate)") == 1
    kept = HEADER.split("\n\n\n")[1 if make == "crop_1d()" else 2]
    assert kept in out, out
    assert test.format(make=make) in re.sub(r"\n *# (TODO\(ndd-migrate\)|  ).*", "", out), out
    # The other pipeline, which no test expects to raise, converts.
    assert ("@pipeline_def" in out) != ("class Crop1d(Pipeline)" in out)


def test_a_build_expected_to_raise_in_a_loop_over_pipelines():
    test = (
        "def test_it():\n    pipes = [crop_1d() for _ in range(2)]\n    for pipe in pipes:\n"
        "        with pytest.raises(ValueError):\n            pipe.build()\n"
    )
    _, found = _human(HEADER + test)
    assert [d.code for d in found] == ["NDD905"], found
    assert "the test `test_it` expects `pipe.build()` to raise `ValueError`" in found[0].message


def test_a_build_expected_to_raise_outside_a_test_names_the_program():
    out, found = _human(HEADER + "pipe = crop_1d()\nwith pytest.raises(ValueError):\n    pipe.build()\n")
    assert [d.code for d in found] == ["NDD905"], found
    assert (
        "the program expects `pipe.build()` to raise `ValueError` (`with pytest.raises(ValueError)`)"
        in found[0].message
    )


@pytest.mark.parametrize(
    "test, code",
    [
        ("def test_it():\n    with pytest.raises(KeyError):\n        crop_1d()\n", "with pytest.raises(KeyError)"),
        ("@raises(KeyError)\ndef test_it():\n    pipe = crop_1d()\n", "@raises(KeyError)"),
        ("def test_it():\n    assert_raises(KeyError, crop_1d)\n", "assert_raises(KeyError, crop_1d)"),
    ],
)
def test_a_creation_expected_to_raise_keeps_the_pipeline(test, code):
    out, found = _human(HEADER.replace("crop=(1, 1))\n\n\nclass", "crop=(1, 1), no_such=1)\n\n\nclass") + test)
    assert [d.code for d in found] == ["NDD905"], found
    assert "the test `test_it` expects creating the pipeline (`crop_1d" in found[0].message
    assert f"to raise `KeyError` (`{code}`) and never runs it" in found[0].message
    assert "@pipeline_def" in out


@pytest.mark.parametrize(
    "test",
    [
        "def test_it():\n    pipe = crop_1d()\n    pipe.build()\n    print(pipe.run())\n",  # nothing expects an error
        # The test runs it: an operator's error comes in dynamic mode too (NDD008 for the `run` it cannot follow).
        "@raises(RuntimeError)\ndef test_it():\n    pipe = crop_1d()\n    pipe.build()\n    pipe.run()\n",
        "def test_it():\n    pipe = crop_1d()\n    with pytest.raises(ValueError):\n        pipe.build()\n    pipe.run()\n",
        "@raises(ValueError)\ndef test_other():\n    int('x')\n\n\ndef test_it():\n    pipe = crop_1d()\n    pipe.build()\n",
        # a build in a `try` that nothing after it fails: no error expected
        "def test_it():\n    pipe = crop_1d()\n    try:\n        pipe.build()\n    except ValueError:\n        print('no')\n",
    ],
)
def test_a_pipeline_the_test_runs_or_expects_nothing_of_is_no_build_keep(test):
    out, found = _human(HEADER.split("\n\n\nclass Crop1d")[0].replace("import unittest\n\n", "") + "\n\n\n" + test)
    assert "NDD905" not in {d.code for d in found}, found


# -- a Python operator's run expected to raise ----------------------------------------------------

PYTHON = """\
from nose.tools import assert_raises, raises
from nvidia.dali import fn, ops, pipeline_def
from nvidia.dali.pipeline import Pipeline


def boom(x):
    raise ValueError("boom")


@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)
def p():
    values = fn.random.uniform(range=[0, 1], shape=[3])
    return {graph}


{test}"""
RUN = "@raises({expected})\ndef test_it():\n    pipe = p()\n    pipe.build()\n    pipe.run()\n"


@pytest.mark.parametrize(
    "expected, graph, kept",
    [
        ("RuntimeError", "fn.python_function(values, function=boom)", True),
        ("RuntimeError, ValueError", "fn.python_function(values, function=boom)", True),
        ("Exception", "fn.python_function(values, function=boom)", False),  # both modes satisfy it
        ("Exception", "tuple(fn.python_function(values, function=boom, num_outputs=2))", True),
        ("RuntimeError", "fn.cast(values, dtype=7)", False),  # no Python operator: alike in both modes
    ],
)
def test_a_python_operator_run_expected_to_raise(expected, graph, kept):
    out, found = _human(PYTHON.format(graph=graph, test=RUN.format(expected=expected)))
    ours = [d for d in found if d.code == "NDD905"]
    assert len(ours) == kept, found
    assert ("@pipeline_def" in out) == kept
    if kept:
        assert (
            f"the test `test_it` expects `pipe.run()` to raise `{expected}` (`@raises({expected})`)" in ours[0].message
        )
        several = "num_outputs=2" in graph
        assert ("Python operator of several outputs" in ours[0].message) == several, ours[0].message
        assert several or 'pipeline mode raises `RuntimeError` ("Critical error in pipeline")' in ours[0].message


def test_a_python_operator_run_expected_to_raise_in_a_block():
    test = (
        "def test_it():\n    pipe = p()\n    pipe.build()\n    with pytest.raises(RuntimeError):\n        pipe.run()\n"
    )
    text = "import pytest\n" + PYTHON.format(graph="fn.python_function(values, function=boom)", test=test)
    out, found = _human(text)
    assert [d.code for d in found] == ["NDD905"], found
    assert "expects `pipe.run()` to raise `RuntimeError` (`with pytest.raises(RuntimeError)`)" in found[0].message


def test_a_legacy_python_operator_run_expected_to_raise_is_kept_once():
    """`assert_raises(E, pipe.run)` on a fed pipeline with a Python operator: one finding, the fed one."""
    legacy = (
        "class L(Pipeline):\n"
        "    def __init__(self):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"
        "        self.values = ops.random.Uniform(range=[0, 1], shape=[3])\n"
        "        self.f = ops.PythonFunction(function=boom)\n\n"
        "    def define_graph(self):\n"
        "        return self.f(self.values())\n\n\n"
        "def test_it():\n    pipe = L()\n    pipe.build()\n    assert_raises(RuntimeError, pipe.run)\n"
    )
    out, found = _human(PYTHON.split("@pipeline_def")[0] + legacy)
    assert [d.code for d in found] == ["NDD905"], found
    assert "expects `pipe.run()` to raise `RuntimeError` (`assert_raises(RuntimeError, pipe.run)`)" in found[0].message
    fed = legacy.replace(
        "        return self.f(self.values())", "        self.data = self.source()\n        return self.f(self.data)"
    )
    fed = fed.replace("        self.f =", "        self.source = ops.ExternalSource()\n        self.f =")
    fed = fed.replace(
        "\n\n\ndef test_it",
        "\n\n    def iter_setup(self):\n        self.feed_input(self.data, [[1.0]] * 3)\n\n\ndef test_it",
    )
    _, found = _human(PYTHON.split("@pipeline_def")[0] + fed)
    assert [d.code for d in found] == ["NDD905"] and "on data fed with `feed_input`" in found[0].message, found


@pytest.mark.dali
def test_dali_wraps_a_python_operator_error_only_in_pipeline_mode(programs):
    """The facts the Python-operator keep rests on, on the installed DALI (CPU, exec_async=False,
    exec_pipelined=False): pipeline mode raises `RuntimeError` when the function raises or returns
    a list for two outputs; the migrated plain Python raises the function's `ValueError`, and takes
    the list."""
    from tests.conftest import HAS_DALI

    if not HAS_DALI:
        pytest.skip("needs DALI")
    program = PYTHON.split("@pipeline_def")[0].replace("from nose.tools import assert_raises, raises\n", "") + (
        "def listed(x):\n    return [x, x]\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"
        "def single():\n    return fn.python_function(fn.random.uniform(range=[0, 1], shape=[3]), function=boom)\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"
        "def pair():\n"
        "    a, b = fn.python_function(fn.random.uniform(range=[0, 1], shape=[3]), function=listed, num_outputs=2)\n"
        "    return a, b\n\n\n"
        + "".join(
            f"pipe = {make}()\npipe.build()\n"
            "try:\n    pipe.run()\n    print('none')\nexcept Exception as e:\n    print(type(e).__name__)\n"
            for make in ("single", "pair")
        )
    )
    migrated, result = migrate_text(program)
    assert "@pipeline_def" not in migrated and not [d for d in result.diagnostics if d.needs_human], migrated
    runs = programs.both(program, migrated)
    assert [ran.stdout.split() for ran in runs] == [["RuntimeError", "RuntimeError"], ["ValueError", "none"]], runs


def test_a_module_naming_no_checker_is_not_walked_for_expectations(monkeypatch):
    """The walk for expected errors runs only where a checker (`raises`, `assertRaises`,
    `assert_raises`) is named: on a large module without one it cost a tenth of `check`."""
    import libcst as cst

    from ndd_migrate.model.features import expected_errors

    walked = []
    original = cst.Module.visit

    def visit(self, visitor):
        walked.append(type(visitor).__name__)
        return original(self, visitor)

    monkeypatch.setattr(cst.Module, "visit", visit)
    _, result = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "def p():\n    return fn.random.uniform(shape=[2])\n\n\npipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    assert result.diagnostics and "Scan" not in walked, walked
    module = cst.parse_module(
        "import pytest\n\n\ndef test():\n    with pytest.raises(RuntimeError):\n        pipe.build()\n"
    )
    names = [cst.Name("pytest"), cst.Name("test")]
    assert expected_errors.uses(module, names) == []  # no checker among the nodes: not walked
    found = expected_errors.uses(module)
    assert len(found) == 1 and found[0][1] == "build raises"
    assert expected_errors.uses(module, [*names, cst.Name("raises")]) == found

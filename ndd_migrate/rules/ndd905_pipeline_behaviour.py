"""NDD905 pipeline-behaviour: a program that tests pipeline mode's own API or checks."""

from __future__ import annotations

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs

_API = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p():\n"
    "    return fn.random.uniform(range=[0, 1])\n\n\n"
    "pipe = p()\n"
    "pipe.build()\n"
    "{todo}"
    "pipe.enable_api_check(False)\n"
    "pipe.schedule_run()\n"
    "pipe.run()\n"
)

_FED = (
    "import numpy as np\n"
    "from nose.tools import assert_raises\n"
    "from nvidia.dali import ops\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Fed(Pipeline):\n"
    "    def __init__(self):\n"
    "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
    "        self.source = ops.ExternalSource()\n\n"
    "    def define_graph(self):\n"
    "        self.data = self.source()\n"
    "        return self.data\n\n"
    "    def iter_setup(self):\n"
    "        self.feed_input(self.data, np.zeros([3, 4]))\n\n\n"
    "pipe = Fed()\n"
    "pipe.build()\n"
    "{todo}"
    "assert_raises(RuntimeError, pipe.run)\n"
)

_BUILD = (
    "from nose.tools import raises\n"
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def crop_of_a_vector():\n"
    "    return fn.crop(fn.random.uniform(range=[0, 1], shape=[3]), crop=(1, 1))\n\n\n"
    "@raises(ValueError)\n"
    "def test_crop_needs_an_image():\n"
    "    pipe = crop_of_a_vector()\n"
    "{todo}"
    "    pipe.build()\n"
)

_PYTHON_RUN = (
    "from nose.tools import raises\n"
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "def reject(values):\n"
    '    raise ValueError("rejected")\n\n\n'
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None, exec_async=False, exec_pipelined=False)\n"
    "def checked():\n"
    "    return fn.python_function(fn.random.uniform(range=[0, 1], shape=[3]), function=reject)\n\n\n"
    "@raises(RuntimeError)\n"
    "def test_the_function_raises():\n"
    "    pipe = checked()\n"
    "    pipe.build()\n"
    "{todo}"
    "    pipe.run()\n"
)

RULE = Rule(
    code="NDD905",
    name="pipeline-behaviour",
    summary="a program that tests pipeline mode's own API or checks stays in pipeline mode",
    what=(
        "Keeps in pipeline mode, with one finding, a pipeline on which the program calls "
        "`enable_api_check(...)`, and a `Pipeline` subclass fed with `feed_input` whose `run` the "
        "program expects to raise (`assert_raises(E, pipe.run)`, `pytest.raises(E, pipe.run)`, "
        "`self.assertRaises(E, pipe.run)`); a pipeline whose build or creation a test expects to raise "
        "(`@raises(E)` of nose, `with pytest.raises(E):`, `with self.assertRaises(E):`, "
        "`assert_raises(E, pipe.build)`, `assert_raises(E, MyPipeline)`, `try: pipe.build()` then `assert False` "
        "(`raise`, `self.fail(...)`) before `except E:`) when the test never runs it; and a "
        "pipeline with a Python operator (`fn.python_function`, `ops.PythonFunction`) whose run a test "
        "expects to raise a given type (`@raises(RuntimeError)` around `pipe.build(); pipe.run()`)."
    ),
    why=(
        "These programs test pipeline mode itself. `enable_api_check` governs whether `run()` may be "
        "mixed with `schedule_run()`, `share_outputs()`, `release_outputs()` and `outputs()`: dynamic "
        "mode has no pipeline object and none of these methods. Pipeline mode refuses a batch fed with "
        "more than `batch_size` samples (DALI 2.4: `RuntimeError: The external source callback returned "
        "an unexpected batch size`) and data fed to a source the graph dropped (`KeyError`); in dynamic "
        "mode the fed data is an `ndd.batch(...)` of any size, so the migrated generator would run on "
        "where the test expects an error. Dynamic mode has no build step: the migration drops "
        "`pipe.build()` and the pipeline becomes a generator function, whose body runs nothing until it "
        "is iterated, so an error expected from the build or the creation (DALI 2.4: `fn.crop` of 1-D "
        "data raises `ValueError` at `build()`, an unknown argument `KeyError` at creation) never comes. "
        "Pipeline mode raises `RuntimeError: Critical error in pipeline` when a Python operator's "
        "function raises or returns the wrong outputs (DALI 2.4, CPU, `exec_async=False, "
        "exec_pipelined=False`); the migrated plain Python raises the function's own error (`ValueError`), "
        "and takes a list where pipeline mode wants a tuple of several outputs: `@raises(Exception)` "
        "keeps only a pipeline with such a several-output operator. An expected error of another operator "
        "(a decoder on bad data) is raised when the test runs the pipeline, in both modes: it keeps nothing."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "None: what the program tests has no dynamic-mode form. Keep it in pipeline mode (a test of "
        "DALI's pipeline mode belongs there)."
    ),
    examples=(
        Example(
            title="the API check",
            before=_API.format(todo=""),
            after=_API.format(
                todo=(
                    "# TODO(ndd-migrate): NDD905 kept in pipeline mode: the program tests pipeline mode's API "
                    "check (`pipe.enable_api_check(False)`: whether `run()` may be mixed with `schedule_run()`, "
                    "`share_outputs()`, `release_outputs()` and `outputs()`), and dynamic mode has none of these "
                    "methods; keep it in pipeline mode: what it tests is pipeline mode's own behaviour\n"
                )
            ),
        ),
        Example(
            title="an error expected from a fed batch",
            before=_FED.format(todo=""),
            after=_FED.format(
                todo=(
                    "# TODO(ndd-migrate): NDD905 kept in pipeline mode: the program expects `pipe.run` to raise "
                    "(`assert_raises(RuntimeError, pipe.run)`) on data fed with `feed_input`: pipeline mode checks "
                    "what is fed (at most `batch_size` samples, into a source the graph uses) and dynamic mode "
                    "takes any batch, so the error it tests for never comes; keep it in pipeline mode: what it "
                    "tests is pipeline mode's own behaviour\n"
                )
            ),
        ),
        Example(
            title="a build expected to raise",
            before=_BUILD.format(todo=""),
            after=_BUILD.format(
                todo=(
                    "    # TODO(ndd-migrate): NDD905 kept in pipeline mode: the test `test_crop_needs_an_image` expects "
                    "`pipe.build()` to raise `ValueError` (`@raises(ValueError)`) and never runs it: dynamic mode has no "
                    "build step: the generator runs nothing until it is iterated, so the error never comes; keep it in "
                    "pipeline mode: what it tests is pipeline mode's own behaviour\n"
                )
            ),
        ),
        Example(
            title="a Python operator's error expected from a run",
            before=_PYTHON_RUN.format(todo=""),
            after=_PYTHON_RUN.format(
                todo=(
                    "    # TODO(ndd-migrate): NDD905 kept in pipeline mode: the test `test_the_function_raises` expects "
                    "`pipe.run()` to raise `RuntimeError` (`@raises(RuntimeError)`) and the pipeline has a Python "
                    'operator: pipeline mode raises `RuntimeError` ("Critical error in pipeline") for what the '
                    "function raises or returns wrongly, the migrated plain Python raises the function's own error "
                    "(a `ValueError`), or none; keep it in pipeline mode: what it tests is pipeline mode's own "
                    "behaviour\n"
                )
            ),
        ),
    ),
    valid=(
        "import pytest\n\n\ndef test_div():\n    pytest.raises(ZeroDivisionError, lambda: 1 / 0)\n",
        "import pytest\n\n\ndef test_build():\n    with pytest.raises(RuntimeError):\n        make().build()\n",
    ),
)


class Impl(RuleImpl):
    """The engine reports the kept pipeline (the analysis records the construct, see
    :mod:`ndd_migrate.model.features.manual_uses`); a pipeline it cannot tie to a definition of this module is
    not this module's to keep."""

    rule = RULE
    reports = (
        constructs.API_CHECK,
        constructs.FED_RUN_RAISES,
        constructs.BUILD_RAISES,
        constructs.PYTHON_RUN_RAISES,
        constructs.PYTHON_OUTPUTS_RAISE,
    )

"""A pipeline passed to a call of a parameter (ndd_migrate/model/values/called_parameters.py): `compare(pipe)` in
`def run(compare)` is followed into each function of the module the callers of `run` pass, and
blocked, naming the parameter and why, when those functions are not known."""

from __future__ import annotations

import re

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from ndd_migrate.model.analysis import Analyzer
from ndd_migrate.model.values import called_parameters
from ndd_migrate.syntax import scopes
from tests.conftest import migrate_text

PIPE = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root, name='Reader')\n"
    "    return data\n\n\n"
)
TODO = re.compile(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n")

FIRST = "def first(pipe):\n    (x,) = pipe.run()\n    print(x.at(0))\n\n\n"
COUNT = "def count(pipe):\n    print(len(pipe.run()[0]))\n\n\n"
RUN = "def run(root, compare):\n    pipe = p(root)\n    pipe.build()\n    compare(pipe)\n\n\n"

CONVERTED = [
    FIRST + COUNT + RUN + "run('/d', first)\nrun('/e', compare=count)\n",
    # the parameter's default is one of the functions
    FIRST + COUNT + "def run(root, compare=first):\n    pipe = p(root)\n    pipe.build()\n    compare(pipe)\n\n\n"
    "run('/d')\nrun('/e', count)\n",
    # a candidate also called by name, with a pipeline
    FIRST + COUNT + RUN + "run('/d', first)\nrun('/e', count)\nq = p('/f')\nq.build()\nfirst(q)\n",
    # called in a function nested in the runner
    FIRST
    + "def run(root, compare):\n    def go():\n        pipe = p(root)\n        pipe.build()\n        compare(pipe)\n\n"
    "    go()\n\n\nrun('/d', first)\n",
]


@pytest.mark.parametrize("source", CONVERTED)
def test_a_pipeline_given_to_a_parameter_holding_known_functions_converts(source):
    out, result = migrate_text(PIPE + source)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "@pipeline_def" not in out and ".run()" not in out and ".at(" not in out and ".build()" not in out
    assert "next(pipe)" in out and "compare(pipe)" in out
    assert migrate_text(out)[0] == out


# (the code after the pipeline, what the NDD008 message says)
BLOCKING = [
    (
        FIRST + RUN + "run('/d', first)\nrun('/e', lambda q: q.run())\n",
        "(`compare` is a parameter of `run`, and a call of `run` passes it `lambda q: q.run()`, not the name of a "
        "function of this module)",
    ),
    ("from viz import first\n\n\n" + RUN + "run('/d', first)\n", "a call of `run` passes it `first`, not the name"),
    (FIRST + RUN + "__all__ = ['run']\nrun('/d', first)\n", "`run` is exported through `__all__`"),
    (
        FIRST + RUN + "__all__ = [n for n in dir() if n.startswith('r')]\nrun('/d', first)\n",
        "exported through `__all__`",
    ),
    (
        FIRST + RUN + "runners = {'a': run}\nrun('/d', first)\n",
        "`run` is used other than by calling it (`runners = {'a': run}`)",
    ),
    (FIRST + RUN + "run('/d', first)\nrun = print\n", "`run` is used other than by calling it (`run = print`)"),
    (FIRST + RUN + "args = ('/d', first)\nrun(*args)\n", "`run(*args)` passes `*args` or `**kwargs`"),
    (FIRST + RUN + "run('/d', first)\nrun('/e')\n", "`run('/e')` does not pass it"),
    (
        FIRST
        + "def run(root, compare):\n    pipe = p(root)\n    pipe.build()\n    print(compare.__name__)\n    compare(pipe)\n\n\n"
        "run('/d', first)\n",
        "`run` also uses it other than by calling it (`print(compare.__name__)`)",
    ),
    (
        FIRST
        + "def run(root, compare):\n    compare = compare or first\n    pipe = p(root)\n    pipe.build()\n    compare(pipe)\n\n\n"
        "run('/d', first)\n",
        "`run` also",
    ),
    (FIRST + RUN, "`run` is not called in this module"),
    (
        FIRST + "import functools\n\n\n@functools.lru_cache\n" + RUN + "run('/d', first)\n",
        "`run` is decorated (`@functools.lru_cache`)",
    ),
    (
        FIRST
        + "class Runner:\n    def run(self, compare):\n        pipe = p('/d')\n        pipe.build()\n        compare(pipe)\n\n\n"
        "Runner().run(first)\n",
        "`run` is a method or a nested function",
    ),
    # known functions, but one of them also gets something else at that parameter
    (
        FIRST + RUN + "run('/d', first)\nfirst([1])\n",
        "`compare` is a parameter of `run` that holds `first`, and not each",
    ),
    # known functions, but one of them is also used otherwise
    (FIRST + RUN + "run('/d', first)\ntable = [first]\n", "`compare` is a parameter of `run` that holds `first`"),
]


@pytest.mark.parametrize("use, said", BLOCKING)
def test_a_parameter_whose_functions_are_not_known_blocks_naming_it(use, said):
    source = PIPE + use
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"], [d.message for d in human]
    assert "passed to `compare()`" in human[0].message and said in human[0].message, human[0].message
    assert TODO.sub("", out) == source
    assert migrate_text(out)[0] == out


def test_a_use_no_rule_rewrites_in_one_of_the_functions_blocks_there():
    source = (
        PIPE + FIRST + "def later(pipe):\n    pipe.schedule_run()\n\n\n" + RUN + "run('/d', first)\nrun('/e', later)\n"
    )
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"] and "`.schedule_run()` is called on `pipe`" in human[0].message
    assert TODO.sub("", out) == source


class _Reading(Analyzer):
    """The analysis, with what :class:`CalledParameters` reads of it while its metadata is there."""

    def leave_Module(self, original_node: cst.Module) -> None:
        super().leave_Module(original_node)
        self.called = called_parameters.CalledParameters(self)


def _analysed(source: str) -> _Reading:
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    scopes.resolve(wrapper)
    analyzer = _Reading()
    wrapper.visit(analyzer)
    return analyzer


def test_the_functions_a_parameter_holds_are_read_from_every_call_of_its_function():
    source = FIRST + COUNT + RUN + "run('/d', first)\nrun('/e', compare=count)\nrun('/f', first)\n"
    analyzer = _analysed(PIPE + source)
    found = analyzer.called
    call = next(c for c, _ in analyzer.calls if isinstance(c.func, cst.Name) and c.func.value == "compare")
    held = found.of(call)
    assert (held.parameter, held.owner, held.functions, held.unknown) == ("compare", "run", ("first", "count"), "")
    assert found.through("first") == found.through("count") == {id(call)}
    run_call = next(c for c, _ in analyzer.calls if isinstance(c.func, cst.Name) and c.func.value == "run")
    assert found.passes(run_call.args[1].value)
    assert not found.passes(run_call.args[0].value)
    assert found.of(run_call) is None  # `run` is no parameter

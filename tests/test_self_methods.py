"""A method that builds and returns a pipeline, called only as `self.make()` in its class, is followed
like a module-level factory (ndd_migrate.model.values.self_methods); any other way of reaching it is not."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

BASE = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def noise():\n"
    "    return fn.random.uniform(shape=[2])\n\n\n"
    "class Loader:\n"
    "    def _make(self):\n"
    "        pipe = noise()\n"
    "        return pipe\n\n"
    "    def first(self):\n"
    "        pipe = self._make()\n"
    "        pipe.build()\n"
    "        (out,) = pipe.run()\n"
    "        return out.at(0).shape\n"
)

HAND_BUILT = (
    "from nvidia.dali import fn\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Loader:\n"
    "    def __init__(self, size):\n"
    "        self.size = size\n\n"
    "    def _create_pipeline(self):\n"
    "        pipe = Pipeline(batch_size=self.size, num_threads=1, device_id=None)\n"
    "        with pipe:\n"
    "            pipe.set_outputs(fn.random.uniform(shape=[2]))\n"
    "        return pipe\n\n"
    "    def first(self):\n"
    "        pipe = self._create_pipeline()\n"
    "        pipe.build()\n"
    "        (out,) = pipe.run()\n"
    "        return out.at(0).shape\n"
)


def _blocking(text_and_result):
    _, result = text_and_result
    return [d.message for d in result.diagnostics if d.needs_human]


def test_method_returning_a_pipeline_def_call_is_followed():
    text, result = migrate_text(BASE)
    assert not _blocking((text, result)), _blocking((text, result))
    assert "        pipe = self._make()\n        (out,) = next(pipe)\n" in text


def test_method_returning_a_hand_built_graph_is_followed():
    text, result = migrate_text(HAND_BUILT)
    assert not _blocking((text, result)), _blocking((text, result))
    assert "            def pipe_batches(" not in text  # nested once, in the method
    assert "        def pipe_batches(*, batch_size=self.size, num_threads=1, device_id=None):\n" in text
    assert "        (out,) = next(pipe)\n" in text
    assert migrate_text(text)[0] == text


def test_returned_from_another_method_is_followed_through_both():
    source = (
        BASE + "\n    def again(self):\n        return self._make()\n\n    def second(self):\n"
        "        pipe = self.again()\n        pipe.build()\n        (out,) = pipe.run()\n        return out.at(0).shape\n"
    )
    text, result = migrate_text(source)
    assert not _blocking((text, result)), _blocking((text, result))
    assert text.count("(out,) = next(pipe)") == 2


NOT_FOLLOWED = {
    "called from outside": BASE + "\n\nLoader()._make()\n",
    "called on another object": BASE + "\n    def other(self, peer):\n        return peer._make()\n",
    "a subclass may override it": BASE + "\n\nclass Special(Loader):\n    pass\n",
    "decorated": BASE.replace("    def _make(self):", "    @staticmethod\n    def _make(self):"),
    "aliased in the class body": BASE + "\n    make = _make\n",
    "self rebound": BASE.replace(
        "        pipe = self._make()\n", "        self = Loader()\n        pipe = self._make()\n"
    ),
    "in a nested function": BASE.replace(
        "        pipe = self._make()\n", "        get = lambda: self._make()\n        pipe = get()\n"
    ),
}


@pytest.mark.parametrize("name", NOT_FOLLOWED)
def test_method_reached_otherwise_is_not_followed(name):
    text, result = migrate_text(NOT_FOLLOWED[name])
    assert "@pipeline_def" in text
    assert [d for d in result.diagnostics if d.code == "NDD008" and d.needs_human], _blocking((text, result))


def test_graph_code_storing_on_self_blocks():
    """The method ran `self.steps = ...` when it built the graph; the generator would run it at its
    first batch, after callers (`__len__`) may have read it."""
    source = HAND_BUILT.replace(
        "            pipe.set_outputs(", "            self.steps = 10 // self.size\n            pipe.set_outputs("
    )
    text, result = migrate_text(source)
    todos = [d.message for d in result.diagnostics if d.code == "NDD001" and d.needs_human]
    assert todos and "`self.steps = ...` runs when `_create_pipeline` builds the graph" in todos[0], todos
    assert "with pipe:" in text


def test_graph_code_storing_on_its_own_objects_is_converted():
    source = HAND_BUILT.replace(
        "            pipe.set_outputs(",
        "            sizes = {}\n            sizes['n'] = self.size\n            pipe.set_outputs(",
    )
    text, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human]


HELPER = (
    "import numpy as np\n"
    "from nvidia.dali import fn\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Loader:\n"
    "    def __init__(self, size):\n"
    "        self.size = size\n\n"
    "    def _edge(self, x):\n"
    "        return x[1:3]\n\n"
    "    def _noisy(self, x):\n"
    "        return x + fn.random.uniform(range=[0.0, 0.0])\n\n"
    "    def _create_pipeline(self):\n"
    "        pipe = Pipeline(batch_size=self.size, num_threads=1, device_id=None)\n"
    "        with pipe:\n"
    "            data = fn.external_source(lambda: [np.zeros(4, np.float32)] * self.size)\n"
    "            pipe.set_outputs(self._edge(data), self._noisy(data))\n"
    "        return pipe\n\n"
    "    def first(self):\n"
    "        pipe = self._create_pipeline()\n"
    "        pipe.build()\n"
    "        edge, noisy = pipe.run()\n"
    "        return edge.at(0).shape\n"
)


def test_graph_helper_methods_are_converted_with_the_graph():
    text, result = migrate_text(HELPER)
    assert not [d for d in result.diagnostics if d.needs_human]
    assert "        return x.slice[1:3]\n" in text  # a DataNode subscript (NDD108)
    assert "    def _noisy(self, x, *, batch_size, rng=None):\n" in text
    assert "self._noisy(data, batch_size=batch_size)" in text
    assert migrate_text(text)[0] == text


def test_graph_helper_method_reached_otherwise_blocks():
    """Not followed, its `x[1:3]` would stay a subscript of a `Batch`, which fails at run time."""
    text, result = migrate_text(HELPER + "\n\nLoader(2)._edge(np.arange(4))\n")
    todos = [d.message for d in result.diagnostics if d.code == "NDD108" and d.needs_human]
    assert todos and "`self._edge(...)` may run the method `_edge`" in todos[0], todos
    assert "with pipe:" in text and "x[1:3]" in text


def test_method_of_a_python_object_given_no_datanode_is_python_code():
    source = (
        HELPER.replace("class Loader:\n", "class Shape:\n    def width(self):\n        return 4\n\n\nclass Loader:\n")
        .replace("np.zeros(4, np.float32)", "np.zeros(Shape().width(), np.float32)")
        .replace(
            "            data = fn.external_source(",
            "            shape = Shape()\n            data = fn.external_source(",
        )
        .replace("Shape().width()", "shape.width()")
    )
    text, result = migrate_text(source)
    assert not [d.message for d in result.diagnostics if d.needs_human], result.diagnostics


def test_each_method_is_read_once_per_name_not_once_per_mention(monkeypatch):
    """A method that mentions `self.x` fifty times is not searched for a rebinding of `self` at
    every mention (a long method cost the square of its length), nor once more per name: the
    bindings are found in the same traversal as the mentions, each node visited once."""
    import libcst as cst

    from ndd_migrate.model.values import self_methods

    body = "".join(f"        self.value_{i} = self.step({i})\n" for i in range(50))
    module = cst.parse_module(f"class Loader:\n    def run(self):\n{body}\n    def step(self, i):\n        return i\n")
    visited: list[cst.CSTNode] = []
    original = cst.CSTVisitor.on_visit
    monkeypatch.setattr(cst.CSTVisitor, "on_visit", lambda self, node: visited.append(node) or original(self, node))
    found = self_methods.calls(module, lambda node: {f"Loader.{node.value}"})
    assert len(found) == 50 and set(found.values()) == {"Loader.step"}
    assert len(visited) == len(set(map(id, visited)))  # no node twice

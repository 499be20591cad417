"""Graph-helper methods of a ``Pipeline`` subclass (ndd_migrate.model.sources.graph_methods): each call in
``define_graph`` replaced by the helper's body, or the class left with its methods and a finding."""

from __future__ import annotations

import libcst as cst
import pytest

from ndd_migrate.model.sources import graph_methods
from tests.conftest import migrate_text

HEADER = "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"


def pipeline(methods: str, graph: str, after: str = "") -> str:
    return (
        HEADER + "class P(Pipeline):\n"
        "    def __init__(self, root):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
        "        self.files = ops.readers.File(file_root=root)\n"
        "        self.decode = ops.decoders.Image(device='cpu')\n\n"
        + methods
        + "    def define_graph(self):\n"
        + graph
        + "\n\npipe = P('/data')\npipe.build()\nimages, labels = pipe.run()\nprint(len(images))\n"
        + after
    )


def inlined_graph(source: str) -> str | None:
    """The ``define_graph`` of ``P`` after inlining, or None when the class is left as it is."""
    module = cst.parse_module(source)
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef))
    new = graph_methods.inline(cls, graph_methods.helper_names(module))
    if new is None:
        return None
    graph = next(s for s in new.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "define_graph")
    assert not any(
        isinstance(s, cst.FunctionDef) and s.name.value not in graph_methods.PIPELINE_METHODS for s in new.body.body
    )
    return "".join("    " + line for line in cst.Module([]).code_for_node(graph.body).splitlines(keepends=True)[1:])


LOAD = (
    "    def load(self):\n"
    "        '''One batch, decoded.'''\n"
    "        jpegs, labels = self.files()\n"
    "        # decoded on the CPU\n"
    "        decoded = self.decode(jpegs)\n"
    "        return decoded, labels\n\n"
)


def test_a_call_statement_becomes_the_helper_body_and_its_return_the_assignment():
    body = inlined_graph(pipeline(LOAD, "        images, labels = self.load()\n        return images, labels\n"))
    assert body == (
        "        jpegs, labels = self.files()\n"
        "        # decoded on the CPU\n"
        "        decoded = self.decode(jpegs)\n"
        "        images = decoded\n"
        "        return images, labels\n"
    )


def test_return_of_a_call_binds_parameters_to_arguments():
    helper = "    def finish(self, data, labels, scale=3):\n        out = data * scale\n        return out, labels\n\n"
    body = inlined_graph(
        pipeline(
            helper, "        jpegs, labels = self.files()\n        return self.finish(self.decode(jpegs), labels)\n"
        )
    )
    assert body == (
        "        jpegs, labels = self.files()\n"
        "        data = self.decode(jpegs)\n"
        "        out = data * 3\n"
        "        return out, labels\n"
    )


def test_a_call_inside_an_expression_becomes_the_returned_expression_in_parentheses():
    helper = "    def scaled(self, data, k):\n        return data * k + 1\n\n"
    body = inlined_graph(
        pipeline(
            helper,
            "        jpegs, labels = self.files()\n        return self.scaled(self.decode(jpegs), 2) * 2, labels\n",
        )
    )
    assert body is None, "an argument that is not a name or a literal would be evaluated where the parameter is"
    body = inlined_graph(
        pipeline(
            helper,
            "        jpegs, labels = self.files()\n        images = self.decode(jpegs)\n        return self.scaled(images, 2) * 2, labels\n",
        )
    )
    assert "return (images * 2 + 1) * 2, labels\n" in body


def test_the_same_helper_called_twice_is_inlined_twice():
    body = inlined_graph(
        pipeline(LOAD, "        a, la = self.load()\n        b, lb = self.load()\n        return a, lb\n")
    )
    # The second call's values get names of their own: a loop over both readers then binds
    # `(jpegs, labels), (jpegs_2, labels_2)`, not the same names twice.
    assert "jpegs, labels = self.files()" in body and "jpegs_2, labels_2 = self.files()" in body
    assert "a = decoded\n" in body and "lb = labels_2\n" in body
    assert "decoded_2 = self.decode(jpegs_2)" in body
    # One name per result; those the graph never reads (`la`, `b`) go: a linter's unused locals.
    bound = [line.split(" = ")[0].strip() for line in body.splitlines() if " = " in line]
    assert "la" not in bound and "b" not in bound and "a, la" not in bound


def test_a_result_named_on_both_sides_stays_one_tuple_assignment():
    methods = "    def load(self, x, y):\n        return y, x\n\n"
    body = inlined_graph(
        pipeline(methods, "        x, y = self.files()\n        x, y = self.load(x, y)\n        return x, y\n")
    )
    assert "x, y = y, x" in body  # `x = y; y = x` would give x twice


def test_a_fresh_name_taken_by_the_graph_is_skipped():
    graph = "        jpegs_2 = None\n        a, la = self.load()\n        b, lb = self.load()\n        return a, lb\n"
    body = inlined_graph(pipeline(LOAD, graph))
    assert "jpegs_3, labels_2 = self.files()" in body and "lb = labels_2" in body


@pytest.mark.parametrize(
    "methods, graph, after",
    [
        pytest.param(
            LOAD,
            "        images, labels = self.load()\n        return images, labels\n",
            "pipe.load()\n",
            id="called-from-outside",
        ),
        pytest.param(
            "    def load(self, flip):\n        jpegs, labels = self.files()\n        while flip:\n            return jpegs, labels\n"
            "        return self.decode(jpegs), labels\n\n",
            "        images, labels = self.load(False)\n        return images, labels\n",
            "",
            id="return-in-a-loop",
        ),
        pytest.param(
            "    def load(self, flip):\n        jpegs, labels = self.files()\n        if flip:\n            return jpegs, labels\n"
            "        elif flip is None:\n            jpegs = jpegs\n"
            "        return self.decode(jpegs), labels\n\n",
            "        images, labels = self.load(False)\n        return images, labels\n",
            "",
            id="early-return-with-two-branches-falling-through",
        ),
        pytest.param(
            "    def load(self):\n        jpegs, labels = self.files()\n        return self.decode(jpegs), labels + offset\n\n",
            "        offset = 1\n        images, labels = self.load()\n        return images, labels\n",
            "",
            id="reads-a-name-the-caller-binds",
        ),
        pytest.param(
            "    def load(self, *args):\n        jpegs, labels = self.files()\n        return self.decode(jpegs), labels\n\n",
            "        images, labels = self.load()\n        return images, labels\n",
            "",
            id="star-args",
        ),
        pytest.param(
            LOAD + "    def reset(self):\n        return 0\n\n",
            "        images, labels = self.load()\n        return images, labels\n",
            "class Meter:\n    def __init__(self):\n        self.reset()\n\n    def reset(self):\n        self.n = 0\n",
            id="another-class-calls-its-own-method-of-that-name",
        ),
        pytest.param(
            "    def twice(self):\n        return self.twice()\n\n",
            "        images, labels = self.twice()\n        return images, labels\n",
            "",
            id="helper-calls-itself",
        ),
        pytest.param(
            LOAD + "    @staticmethod\n    def unused(x):\n        return x\n\n",
            "        images, labels = self.load()\n        return images, labels\n",
            "print(P.unused(1))\n",
            id="static-method-named-outside",
        ),
        pytest.param(
            "    def load(self, data):\n        data = self.decode(data)\n        return data\n\n",
            "        jpegs, labels = self.files()\n        images = self.load(jpegs)\n        return images, labels\n",
            "",
            id="keeps-a-rebound-parameter-apart",
        ),
    ],
)
def test_what_cannot_stand_in_for_the_call_is_left(methods, graph, after):
    source = pipeline(methods, graph, after)
    body = inlined_graph(source)
    if body is not None:  # a rebound parameter is assigned, not substituted: still faithful
        assert "data = jpegs\n" in body and "data = self.decode(data)" in body
        return
    out, result = migrate_text(source)
    assert any(d.code == "NDD401" and d.needs_human for d in result.diagnostics), [
        d.message for d in result.diagnostics
    ]
    assert "class P(Pipeline):" in out


def test_helpers_calling_helpers_are_inlined_into_each_other():
    """``load`` calls ``decoded`` (named like DALI's ``fn`` operator ``fn.crop``, which is no use
    of the method), which calls ``crop``; a static method the module names nowhere leaves with
    them. Each helper's calls are inlined into it first, then it into ``define_graph``."""
    source = "import nvidia.dali.fn as fn\n" + pipeline(
        "    def crop(self, images):\n        return fn.crop(images, crop=(4, 4))\n\n"
        "    def decoded(self, jpegs):\n        images = self.decode(jpegs)\n        return self.crop(images)\n\n"
        "    def load(self):\n        jpegs, labels = self.files()\n        images = self.decoded(jpegs)\n"
        "        return images, labels\n\n"
        "    @staticmethod\n    def unused(x):\n        return x\n\n",
        "        images, labels = self.load()\n        return images, labels\n",
    )
    body = inlined_graph(source)
    assert body is not None and "self.load" not in body and "self.crop" not in body and "self.decoded" not in body
    assert "images = self.decode(jpegs)" in body and "fn.crop(images, crop=(4, 4))" in body
    out, result = migrate_text(source)
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert "def P(root):" in out and "unused" not in out and "ndd.crop(" in out


def test_a_helper_local_named_like_a_name_of_the_caller_or_init_is_renamed():
    """``load``'s ``decoded`` is also a name of ``define_graph``, and ``pick``'s ``root`` one of
    ``__init__`` (one generator holds both bodies): the helper's own locals are renamed, the
    caller's keep their names."""
    body = inlined_graph(
        pipeline(
            LOAD + "    def pick(self, images):\n        root = images\n        return root\n\n",
            "        decoded = 1\n        images, labels = self.load()\n        images = self.pick(images)\n"
            "        return images, decoded\n",
        )
    )
    assert body is not None
    assert "decoded_2 = self.decode(jpegs)\n" in body and "images = decoded_2\n" in body
    assert "root_2 = images\n" in body and "return images, decoded\n" in body


def test_a_helper_returning_in_a_loop_is_named_in_each_method_finding():
    """``load`` returns in a loop: the class keeps its methods, and the finding of every other
    helper (``get_reader``, inlinable) names ``load`` and why, so the TODO points at what to fix."""
    source = pipeline(
        "    def get_reader(self, root):\n        return ops.readers.File(file_root=root)\n\n"
        "    def load(self, flip):\n        jpegs, labels = self.files()\n        for _ in range(2):\n"
        "            if flip:\n                return jpegs, labels\n        return self.decode(jpegs), labels\n\n",
        "        images, labels = self.load(False)\n        return images, labels\n",
    )
    out, result = migrate_text(source)
    said = sorted(d.message for d in result.diagnostics if d.code == "NDD401" and d.needs_human)
    assert any("`load` has no counterpart in a generator function (`load` returns inside a loop" in m for m in said)
    assert any(
        "`get_reader` has no counterpart in a generator function (it is not inlined as a graph helper while "
        "`load` stays: `load` returns inside a loop, a `with` or a `try`" in m
        for m in said
    ), said


EARLY = (
    "    def load(self, flip):\n"
    "        jpegs, labels = self.files()\n"
    "        if flip:\n"
    "            # undecoded\n"
    "            return jpegs, labels\n"
    "        elif flip is None:\n"
    "            return\n"
    "        images = self.decode(jpegs)\n"
    "        return images, labels\n\n"
)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        (
            "        images, labels = self.load(False)\n        return images, labels\n",
            "        jpegs, labels = self.files()\n"
            "        if False:\n"
            "            # undecoded\n"
            "            images = jpegs\n"
            "        elif False is None:\n"
            "            images, labels = None\n"
            "        else:\n"
            "            images = self.decode(jpegs)\n"
            "        return images, labels\n",
        ),
        (
            "        return self.load(True)\n",
            "        jpegs, labels = self.files()\n"
            "        if True:\n"
            "            # undecoded\n"
            "            return jpegs, labels\n"
            "        elif True is None:\n"
            "            return\n"
            "        else:\n"
            "            images = self.decode(jpegs)\n"
            "            return images, labels\n",
        ),
    ],
    ids=["assigned", "returned"],
)
def test_a_helper_returning_early_from_if_branches_puts_the_call_statement_in_each(graph, expected):
    """Every ``return`` of ``load`` ends an ``if`` branch (the statements after the ``if`` are the
    branch that falls through): each path binds (or returns) what that path returned, as the
    call did; ``return`` alone is ``None``."""
    assert inlined_graph(pipeline(EARLY, graph)) == expected


def test_a_lone_class_converts_end_to_end():
    out, result = migrate_text(pipeline(LOAD, "        images, labels = self.load()\n        return images, labels\n"))
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert "def P(root):" in out and "def load" not in out and "self." not in out
    assert "images = decoded\n" in out and "labels = labels" not in out
    again, _ = migrate_text(out)
    assert again == out


def test_a_parameter_the_call_binds_again_is_the_callers_name():
    """`img, lbl = self.crop(img, lbl)`: the body works on the caller's names, no `img_2 = img`."""
    methods = (
        "    def crop(self, img, lbl):\n"
        "        img = self.decode(img)\n"
        "        lbl = lbl + 1\n"
        "        return img, lbl\n\n"
    )
    body = inlined_graph(
        pipeline(
            methods,
            "        img, lbl = self.files()\n        img, lbl = self.crop(img, lbl)\n        return img, lbl\n",
        )
    )
    assert body == (
        "        img, lbl = self.files()\n"
        "        img = self.decode(img)\n"
        "        lbl = lbl + 1\n"
        "        return img, lbl\n"
    )


def test_a_parameter_another_argument_reads_keeps_its_own_name():
    """`x, y = self.f(x, x)` with `f` rebinding `x`: `y` is the caller's `x` as it was."""
    methods = "    def f(self, x, y):\n        x = self.decode(x)\n        return x, y\n\n"
    body = inlined_graph(
        pipeline(methods, "        x, y = self.files()\n        x, y = self.f(x, x)\n        return x, y\n")
    )
    assert body is None or "x, y = x, x" not in body, body  # kept as it is, or `y` reads the old `x`

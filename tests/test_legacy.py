"""Legacy ``Pipeline`` subclasses (NDD401/NDD402) and hand-built pipelines (NDD403).

The fixture ``fixtures/legacy_classification`` is proven equal by ``verify`` in
``test_verify_fixtures.py``; here: each piece of the rewrite, and each reason to leave a class alone.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, migrate_text

HEADER = "import nvidia.dali.fn as fn\nimport nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"


def legacy(init: str, graph: str, extra: str = "", signature: str = "batch_size, num_threads, device_id") -> str:
    def indent(text: str) -> str:
        return "".join(f"        {line}\n" for line in text.strip("\n").splitlines())

    return (
        f"{HEADER}class P(Pipeline):\n    def __init__(self, {signature}):\n{indent(init)}\n"
        f"    def define_graph(self):\n{indent(graph)}{extra}"
    )


def migrate(source: str) -> tuple[str, list]:
    out, result = migrate_text(source)
    assert result.error is None
    again, _ = migrate_text(out)
    assert again == out, "a second run must change nothing"
    return out, result.diagnostics


def todos(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if "TODO(ndd-migrate)" in line]


def test_fixture_golden_is_engine_output():
    source = (ROOT / "fixtures/legacy_classification/pipeline.py").read_text(encoding="utf-8")
    out, diagnostics = migrate(source)
    assert out == (ROOT / "fixtures/legacy_classification/migrated.py").read_text(encoding="utf-8")
    assert not [d for d in diagnostics if d.needs_human]


def test_docs_example_is_engine_output():
    text = (ROOT / "docs/target-shape.md").read_text(encoding="utf-8")
    section = text[text.index("## Legacy `Pipeline` subclasses") : text.index("## How `verify`")]
    before, after = re.findall(r"```python\n(.*?)```", section, re.DOTALL)[:2]
    out, _ = migrate(before)
    assert _non_blank(out) == _non_blank(after)  # the page separates definitions by one blank line


def _non_blank(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_settings_positional_and_executor_only_dropped():
    out, diagnostics = migrate(
        legacy(
            "Pipeline.__init__(self, batch_size, num_threads, device_id, 5, True, 3)\nself.u = ops.random.Uniform()",
            "return self.u()",
        )
    )
    assert "@prefetching(depth=3)\ndef P(batch_size, num_threads, device_id):" in out  # the depth kept
    assert "ndd.set_num_threads(num_threads)" in out
    assert "ctx = ndd.EvalContext(device_id=device_id)" in out
    assert "rng = ndd.random.RNG(seed=5)" in out
    # Ops in the returned expression run inside the context; the yield stays outside it.
    assert (
        "with ctx:\n            outputs = ndd.random.uniform(batch_size=batch_size, rng=rng).evaluate(),\n        yield outputs\n"
        in out
    )
    dropped = sorted(d.message for d in diagnostics if d.code == "NDD004")
    assert dropped == ["`exec_pipelined` has no dynamic-mode counterpart: dropped"]


def test_literal_settings_and_batch_size_binding():
    out, _ = migrate(
        legacy(
            "super(P, self).__init__(batch_size=16, num_threads=None, device_id=0)\nself.u = ops.Uniform(range=[0, 1])",
            "return self.u()",
            signature="root",
        )
    )
    assert "def P(root):\n    batch_size = 16\n    while True:" in out
    assert "set_num_threads" not in out and "EvalContext" not in out and "RNG" not in out
    assert "ndd.random.uniform(range=[0, 1], batch_size=batch_size).evaluate()," in out


@pytest.mark.parametrize(
    "ops_class,ndd_class",
    [
        ("FileReader", "readers.File"),
        ("CaffeReader", "readers.Caffe"),
        ("MXNetReader", "readers.MXNet"),
        ("COCOReader", "readers.COCO"),
        ("TFRecordReader", "readers.TFRecord"),
        ("readers.File", "readers.File"),
    ],
)
def test_pre_1_0_reader_names(ops_class, ndd_class):
    out, _ = migrate(
        legacy(
            f"super().__init__(batch_size, num_threads, device_id)\nself.input = ops.{ops_class}(path='x')",
            "data, labels = self.input(name='Reader')\nreturn data, labels",
        )
    )
    assert f"reader = ndd.{ndd_class}(path='x', name='Reader')" in out
    assert "for data, labels in reader.next_epoch(batch_size=batch_size):" in out


def test_op_objects_keep_call_order_and_get_their_own_rng():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id, seed=1)\n"
            "self.flip = ops.CoinFlip(probability=0.3, seed=9)\n"
            "self.angle = ops.Uniform(range=[-10.0, 10.0])\n"
            "self.rotate = ops.Rotate(device='gpu')\n"
            "self.decode = ops.ImageDecoder(device='mixed')\n",
            "images = self.decode(fn.random.uniform(shape=[4]))\n"
            "b = self.flip()\n"
            "a = self.flip()\n"
            "return self.rotate(images, angle=self.angle()), a, b",
        )
    )
    body = out[out.index("def P") :]
    assert "    rng = ndd.random.RNG(seed=1)\n    flip_rng = ndd.random.RNG(seed=9)\n" in body
    expected = [
        # an fn.* call in define_graph gets the @pipeline_def rewrites (batch_size, the pipeline's rng)
        "images = ndd.decoders.image(ndd.random.uniform(shape=[4], batch_size=batch_size, rng=rng), device='gpu')",
        # one ndd call per call of the object, in define_graph's order, from the object's own RNG
        "b = ndd.random.coin_flip(probability=0.3, batch_size=batch_size, rng=flip_rng)",
        "a = ndd.random.coin_flip(probability=0.3, batch_size=batch_size, rng=flip_rng)",
        # with a batch input no batch_size; the argument call first, as Python evaluates it
        (
            "outputs = ndd.rotate(images, device='gpu', angle=ndd.random.uniform(range=[-10.0, 10.0], "
            "batch_size=batch_size, rng=rng)).evaluate(), a.evaluate(), b.evaluate()"
        ),
    ]
    lines = [line.strip() for line in body.splitlines()]
    assert [line for line in lines if line in expected] == expected


def test_values_on_self_become_locals():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.root = root\n"
            "self.mean = [1.0, 2.0]\n"
            "self.input = ops.readers.Numpy(file_root=self.root)",
            "self.data = self.input()\nreturn fn.normalize(self.data, mean=self.mean[0])",
            signature="batch_size, num_threads, device_id, root",
        )
    )
    assert "self" not in out
    assert "    mean = [1.0, 2.0]\n    reader = ndd.readers.Numpy(file_root=root)\n" in out
    assert "root = root" not in out
    assert "for (data,) in reader.next_epoch(" in out
    assert "outputs = ndd.normalize(data, mean=mean[0]).evaluate()," in out


def test_multiline_constructor_gives_multiline_call():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.norm = ops.Normalize(\n    mean=1.0,\n    stddev=2.0,\n)",
            "return self.norm(fn.random.normal(shape=[3]))",
        )
    )
    assert (
        "            outputs = ndd.normalize(\n"
        "                ndd.random.normal(shape=[3], batch_size=batch_size),\n"
        "                mean=1.0,\n"
        "                stddev=2.0,\n"
        "            ).evaluate(),\n"
    ) in out


def test_call_sites_rewritten():
    source = (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.u = ops.Uniform(range=[0, 1])",
            "return self.u()",
        )
        + "\n\npipe = P(8, 2, 0)\npipe.build()\nout = pipe.run()\nprint(len(out[0]))\n"
    )
    out, diagnostics = migrate(source)
    assert "pipe = P(8, 2, 0)\n" in out and "pipe.build()" not in out
    assert "out = next(pipe)" in out and "out[0].batch_size" in out
    assert not [d for d in diagnostics if d.needs_human]
    assert "import nvidia.dali.ops" not in out and "Pipeline" not in out.replace("NDD", "")


def test_epoch_size_of_a_legacy_pipeline_blocks_it():
    # Not epoch-aware (no `pipe = P(...)` feeding an epoch loop): `epoch_size()` has no counterpart
    # in the plain generator, so the class stays (the migration plan, docs/architecture.md).
    source = (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.u = ops.Uniform(range=[0, 1])",
            "return self.u()",
        )
        + "\n\npipe = P(8, 2, 0)\npipe.build()\nout = pipe.run()\nprint(len(out[0]), pipe.epoch_size())\n"
    )
    out, diagnostics = migrate(source)
    assert "class P(Pipeline)" in out and "pipe.build()" in out and "out = pipe.run()" in out
    assert [d.code for d in diagnostics if d.needs_human] == ["NDD008"]


def test_operators_chosen_by_a_condition_of_init():
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.cpu = cpu\n"
            "if SHARDED:\n"
            "    self.input = ops.FileReader(file_root='x', shard_id=0, num_shards=2)\n"
            "else:\n"
            "    self.input = ops.FileReader(file_root='x')\n"
            "if self.cpu:\n"
            "    device = 'cpu'\n"
            "    self.decode = ops.ImageDecoder(device='cpu')\n"
            "elif big:\n"
            "    device = 'gpu'\n"
            "    self.decode = ops.ImageDecoder(device='mixed', device_memory_padding=1)\n"
            "else:\n"
            "    self.decode = ops.ImageDecoder(device='mixed')\n"
            "if flip:\n"
            "    self.coin = ops.CoinFlip(probability=0.5)\n",
            "jpegs, labels = self.input(name='Reader')\n"
            "images = self.decode(jpegs, output_type=0)\n"
            "if self.cpu:\n"
            "    images = fn.flip(images, horizontal=self.coin())\n"
            "return images, labels",
            signature="batch_size, num_threads, device_id, cpu, big, flip",
        )
    )
    body = out[out.index("def P") :]
    # The `if` stays in the prologue, run once; each constructor becomes the dict of its arguments.
    assert (
        "    if SHARDED:\n"
        "        input_args = dict(file_root='x', shard_id=0, num_shards=2)\n"
        "    else:\n"
        "        input_args = dict(file_root='x')\n"
        "    if cpu:\n"
        "        device = 'cpu'\n"
        "        decode_args = dict(device='cpu')\n"
        "    elif big:\n"
        "        device = 'gpu'\n"
        "        decode_args = dict(device='gpu', device_memory_padding=1)\n"
        "    else:\n"
        "        decode_args = dict(device='gpu')\n"
        "    if flip:\n"
        "        coin_args = dict(probability=0.5)\n"
        "    reader = ndd.readers.File(**input_args, name='Reader')\n"
    ) in body
    assert "images = ndd.decoders.image(jpegs, **decode_args, output_type=0)" in body
    assert "ndd.flip(images, horizontal=ndd.random.coin_flip(**coin_args, batch_size=batch_size))" in body
    assert not [d for d in diagnostics if d.needs_human]


def test_mixed_device_in_a_conditional_expression():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.decode = ops.ImageDecoder(device='cpu' if cpu else 'mixed')",
            "return self.decode(fn.random.uniform(shape=[2]))",
            signature="batch_size, num_threads, device_id, cpu",
        )
    )
    assert (
        "ndd.decoders.image(ndd.random.uniform(shape=[2], batch_size=batch_size), device='cpu' if cpu else 'gpu')"
        in out
    )


def test_a_different_operator_in_each_branch_and_keyword_dicts():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id, seed=3)\n"
            "hints = {'hw_decoder_load': 0.5}\n"
            "if fuse:\n"
            "    self.decode = ops.ImageDecoderRandomCrop(device='mixed', **hints)\n"
            "else:\n"
            "    self.decode = ops.ImageDecoder(device='mixed', **hints)\n"
            "self.flip = ops.Flip(**hints)\n",
            "return self.flip(self.decode(fn.random.uniform(shape=[2])))",
            signature="batch_size, num_threads, device_id, fuse",
        )
    )
    assert (
        "    if fuse:\n"
        "        decode_op, decode_args = ndd.decoders.image_random_crop, dict(device='gpu', **hints, rng=rng)\n"
        "    else:\n"
        "        decode_op, decode_args = ndd.decoders.image, dict(device='gpu', **hints)\n"
    ) in out
    assert (
        "ndd.flip(decode_op(ndd.random.uniform(shape=[2], batch_size=batch_size, rng=rng), **decode_args), **hints)"
        in out
    )


def test_an_operator_or_none_tested_in_define_graph():
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.resize = ops.Resize(resize_shorter=size) if size else None\n"
            "self.flip = None if cpu else ops.Flip(device='gpu')\n",
            "images = fn.random.uniform(shape=[2])\n"
            "if self.resize:\n    images = self.resize(images)\n"
            "if self.flip is not None:\n    images = self.flip(images)\n"
            "return images",
            signature="batch_size, num_threads, device_id, size, cpu",
        )
    )
    assert (
        "    resize_args = dict(resize_shorter=size) if size else None\n    flip_args = None if cpu else dict(device='gpu')\n"
        in out
    )
    assert "if resize_args is not None:\n                images = ndd.resize(images, **resize_args)\n" in out
    assert "if flip_args is not None:\n                images = ndd.flip(images, **flip_args)\n" in out
    assert not [d for d in diagnostics if d.needs_human]


def test_a_device_name_holding_mixed_becomes_gpu():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "if cpu:\n    dev = 'cpu'\nelse:\n    dev = 'mixed'\n"
            "self.decode = ops.ImageDecoder(device=dev)",
            "return self.decode(fn.random.uniform(shape=[2]), device=dev)".replace(", device=dev", ""),
            signature="batch_size, num_threads, device_id, cpu",
        )
    )
    assert "    if cpu:\n        dev = 'cpu'\n    else:\n        dev = 'gpu'\n" in out
    assert "device=dev" in out


def _conditional(branches: str) -> str:
    return legacy(
        "super().__init__(batch_size, num_threads, device_id)\nif cpu:\n" + branches,
        "return self.op(fn.random.uniform(shape=[2]))",
        signature="batch_size, num_threads, device_id, cpu",
    )


def _fed(
    setup: str,
    *,
    graph: str = "self.x = self.s()\nreturn self.x",
    init: str = "self.parts = parts",
    source: str = "ops.ExternalSource()",
) -> str:
    """A class with an external source ``self.s`` whose output ``self.x`` ``iter_setup`` feeds."""
    body = "".join(f"        {line}\n" for line in setup.splitlines())
    return legacy(
        f"super().__init__(batch_size, num_threads, device_id)\nself.s = {source}\n{init}",
        graph,
        extra=f"\n    def iter_setup(self):\n{body}",
        signature="batch_size, num_threads, device_id, parts",
    )


BLOCKED = {
    "a reader and an operator in the branches": (
        _conditional("    self.op = ops.readers.Numpy(file_root='x')\nelse:\n    self.op = ops.Flip()\n"),
        "`self.op` is `ops.readers.Numpy` in one branch and `ops.Flip` in another, with different outputs",
    ),
    "different operators without an input": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nif cpu:\n"
            "    self.op = ops.random.Uniform(range=[0, 1])\nelse:\n    self.op = ops.random.Normal()\n",
            "return self.op()",
            signature="batch_size, num_threads, device_id, cpu",
        ),
        "`self.op()` without an input is a different operator in each branch",
    ),
    "seeded random operator in a branch": (
        _conditional("    self.op = ops.Uniform(seed=3)\n"),
        "`self.op` created in an `if` with its own `seed=`",
    ),
    "operator in a branch and outside": (
        _conditional("    self.op = ops.Flip(horizontal=1)\nself.op = ops.Flip()\n"),
        "`self.op` is assigned more than one operator",
    ),
    "operator and value": (
        _conditional("    self.op = ops.Flip(horizontal=1)\nelse:\n    self.op = flip_by_hand\n"),
        "`self.op` is an operator in one place and a value in another",
    ),
    "an operator or none used otherwise": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.op = ops.Flip() if cpu else None\n",
            "x = fn.random.uniform(shape=[2])\nreturn self.op(x) if self.op else x",
            signature="batch_size, num_threads, device_id, cpu",
        ),
        "operator `self.op` used other than by calling it",
    ),
    "self called in a condition": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nif self.check():\n    self.op = ops.Flip()\n",
            "return self.op(fn.random.uniform(shape=[2]))",
        ),
        "this use of `self` in `__init__`",
    ),
    "iter_setup": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.u = ops.Uniform()",
            "return self.u()",
            extra="\n    def iter_setup(self):\n        self.advance()\n",
        ),
        "NDD421 not migrated: `self.advance(...)` in `iter_setup`: the pipeline object no longer exists",
    ),
    "two readers": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.Numpy(file_root='a')\n"
            "self.b = ops.readers.Numpy(file_root='b', random_shuffle=True)",
            "x = self.a()\ny = self.b()\nreturn x, y",
        ),
        "a shuffling one without a `seed=N` literal",
    ),
    "reader in an expression": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')",
            "return fn.cast(self.a(), dtype=1)",
        ),
        "a reader called inside an expression",
    ),
    "reader in a loop": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')",
            "for _ in range(2):\n    x = self.a()\nreturn x",
        ),
        "a reader called inside a `for` loop cannot be created once",
    ),
    "reader in branches without else": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')\n"
            "self.on = True",
            "x = fn.random.uniform()\nif self.on:\n    x = self.a()\nreturn x",
        ),
        "only when every branch (an `else` included) assigns its outputs",
    ),
    "reader in branches with other arguments": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')\n"
            "self.on = True",
            "if self.on:\n    x = self.a(name='A')\nelse:\n    x = self.a()\nreturn x",
        ),
        "with different arguments",
    ),
    "reader in branches of a test that calls": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')",
            "if check():\n    x = self.a()\nelse:\n    (x,) = self.a()\nreturn x",
        ),
        "whose test calls a function",
    ),
    "reader outputs bound whole in a branch": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.File(file_root='a')\n"
            "self.on = True",
            "if self.on:\n    x = self.a()\nelse:\n    x, y = self.a()\nreturn x",
        ),
        "`x` holds all 2 outputs of the reader",
    ),
    "name in both methods": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nx = 1\nself.u = ops.Uniform(range=[0, x])",
            "x = self.u()\nreturn x",
        ),
        "`x` is bound in both `__init__` and `define_graph`",
    ),
    "self passed on": (
        legacy("super().__init__(batch_size, num_threads, device_id)", "return helper(self)"),
        "`self` passed on",
    ),
    "unknown attribute": (
        legacy("super().__init__(batch_size, num_threads, device_id)", "return self.missing"),
        "`self.missing` is not set in this class",
    ),
    "repeated argument": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.u = ops.Uniform(range=[0, 1])",
            "return self.u(range=[0, 2])",
        ),
        "repeats constructor arguments: range",
    ),
    "external source": (
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.s = ops.ExternalSource()", "return self.s()"
        ),
        "NDD402 not migrated: `ops.ExternalSource` that `iter_setup` does not feed (none, or created in an `if`) has no "
        "dynamic-mode form",
    ),
    "external source fed in a loop": (
        _fed("for part in self.parts:\n    self.feed_input(self.x, part)"),
        "NDD421 not migrated: `feed_input` in a loop, `with`, `try` or an expression",
    ),
    "external source fed twice": (
        _fed("self.feed_input(self.x, self.parts)\nself.feed_input(self.x, self.parts)"),
        "`self.x` is fed more than once in `iter_setup`: each `feed_input` queues a batch",
    ),
    "external source never fed": (
        _fed("print(self.parts)"),
        "`self.x` (an external source's output) is not fed in `iter_setup`",
    ),
    "feed_input of another node": (
        _fed("self.feed_input(self.parts, self.parts)"),
        "`feed_input` of something else than `self.<name>` bound to an external source's output",
    ),
    "feed_input by name": (
        _fed("self.feed_input('x', self.parts)"),
        "`feed_input` of something else than `self.<name>` bound to an external source's output",
    ),
    "iter_setup returns": (
        _fed("if not self.parts:\n    return\nself.feed_input(self.x, self.parts)"),
        "a `return` in `iter_setup`",
    ),
    "iter_setup sets a new value": (
        _fed("self.last = self.parts\nself.feed_input(self.x, self.parts)"),
        "`self.last` is assigned in `iter_setup` but not set in `__init__`: set it there first",
    ),
    "iter_setup changes a value the graph reads": (
        _fed(
            "self.scale += 1\nself.feed_input(self.x, self.parts)",
            graph="self.x = self.s()\nreturn self.x * self.scale",
            init="self.parts = parts\nself.scale = 2",
        ),
        "`self.scale` is changed in `iter_setup` and read in `define_graph`, which read it once when the pipeline was built",
    ),
    "iter_setup changes in place a value the graph reads": (
        _fed(
            "self.parts[0] = 1\nself.feed_input(self.x, self.parts)",
            graph="self.x = self.s()\nreturn self.x * self.parts[0]",
        ),
        "`self.parts` is changed in `iter_setup` and read in `define_graph`",
    ),
    "iter_setup reads a value define_graph sets": (
        _fed(
            "self.feed_input(self.x, self.parts * self.k)",
            graph="self.x = self.s()\nself.k = 2\nreturn self.x * self.k",
            init="self.parts = parts\nself.k = 1",
        ),
        "`self.k` in `iter_setup` is not a value `__init__` sets (`define_graph` sets it)",
    ),
    "iter_setup reads a graph node": (
        _fed(
            "self.feed_input(self.x, self.parts)\nprint(self.y)",
            graph="self.x = self.s()\nself.y = self.x + 1\nreturn self.y",
        ),
        "`self.y` in `iter_setup` is not a value `__init__` sets",
    ),
    "iter_setup local and value of the class": (
        _fed("parts = self.parts[:1]\nself.feed_input(self.x, parts)", init="self.parts = parts\nparts = 2"),
        "`parts` is a local of `iter_setup` and `self.parts` a value of the class",
    ),
    "external source with a source": (
        _fed("self.feed_input(self.x, self.parts)", source="ops.ExternalSource(source=self.parts)"),
        "`ops.ExternalSource` with `source=`: only an external source fed by `feed_input` in `iter_setup` is rewritten",
    ),
    "external source inside an expression": (
        _fed("self.feed_input(self.x, self.parts)", graph="self.x = self.s()\nreturn self.s() + 1"),
        "`self.s()` (`ops.ExternalSource`) is not the value of a statement `self.<name> = self.s()`",
    ),
    "layout given twice": (
        _fed("self.feed_input(self.x, self.parts, layout='HW')", source="ops.ExternalSource(layout='HW')"),
        "`self.x` is given a layout both by its external source and by `feed_input`: keep one",
    ),
    "subclassed, with class-level statements": (
        legacy("super().__init__(batch_size, num_threads, device_id)", "return 1") + "\n\nclass Q(P):\n    size = 3\n",
        "`Q` has class-level statements",
    ),
    "subclassed in a function": (
        legacy("super().__init__(batch_size, num_threads, device_id)", "return 1")
        + "\n\ndef make():\n    class Q(P):\n        pass\n    return Q\n",
        "subclassed by `Q`: a function cannot be",
    ),
    "no super call": (
        legacy("self.u = ops.Uniform()", "return self.u()"),
        "does not call `super().__init__",
    ),
    "batch_size names something else": (
        legacy(
            "super().__init__(32, num_threads, device_id)\nself.u = ops.Uniform()",
            "return self.u()",
            signature="batch_size, num_threads, device_id",
        ),
        "`batch_size` names something else",
    ),
}


def test_reader_in_branches_is_created_once():
    """The same reader in every branch of an ``if`` fixed at build time: created once, before the
    loop; each branch unpacks the tuple ``next_epoch`` yields (one name: the reader's only output)."""
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.Caffe(path='db', label_available=labels)\nself.labels = labels",
            "if not self.labels:\n    jpegs = self.a()\nelse:\n    jpegs, _ = self.a()\nreturn jpegs",
            signature="batch_size, num_threads, device_id, labels",
        )
    )
    assert todos(out) == [], todos(out)
    assert "    reader = ndd.readers.Caffe(path='db', label_available=labels)\n" in out
    assert "for reader_outputs in reader.next_epoch(batch_size=batch_size" in out
    assert "jpegs, = reader_outputs" in out and "jpegs, _ = reader_outputs" in out
    assert out.count("ndd.readers.Caffe") == 1


def test_second_reader_gets_one_todo():
    """Two readers: one TODO, at the second call, not one per reason."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.a = ops.readers.Numpy(file_root='a')\nself.b = ops.readers.Numpy(file_root='b')",
            "x = self.a()\nreturn x, fn.cast(self.b(), dtype=1)",
        )
    )
    found = todos(out)
    assert len(found) == 1 and "a reader call that is not a statement" in found[0], found


@pytest.mark.parametrize("case", sorted(BLOCKED))
def test_left_for_a_human(case):
    source, reason = BLOCKED[case]
    out, diagnostics = migrate(source)
    assert "class P(Pipeline):" in out, "the class must stay"
    assert any(reason in line for line in todos(out)), todos(out)
    assert any(d.needs_human for d in diagnostics)
    assert "ndd." not in out.split("class P")[1], "nothing inside the class may be rewritten"


def test_unconverted_class_keeps_mixed_device():
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.d = ops.ImageDecoder(device='mixed')",
            "return self.d(fn.random.uniform())",
            extra="\n    def iter_setup(self):\n        self.advance()\n",
        )
    )
    assert "ops.ImageDecoder(device='mixed')" in out
    assert "fn.random.uniform()" in out


def test_noqa_on_the_class_keeps_it():
    source = legacy(
        "super().__init__(batch_size, num_threads, device_id)\nself.u = ops.Uniform()", "return self.u()"
    ).replace("class P(Pipeline):", "class P(Pipeline):  # noqa: NDD401")
    out, _ = migrate(source)
    assert out == source


HAND_BUILT = (
    "import sys\n\n"
    "from nvidia.dali import Pipeline, fn\n\n"
    "pipe = Pipeline(8, 2, None,\n"
    "                seed=5)  # the graph\n"
    "with pipe:  # defined here\n"
    "    data = fn.random.uniform(range=[0, 1], shape=[2])\n"
    "    # both outputs\n"
    "    pipe.set_outputs(data, fn.cast(data, dtype=1))\n"
    "pipe.build()\n"
    "for step in range(2):\n"
    "    data, ints = pipe.run()\n"
    "    print(len(data), ints.at(0))\n"
)


def test_hand_built_pipeline_becomes_a_generator_function():
    out, diagnostics = migrate(HAND_BUILT)
    assert (
        "\n\n# the graph\n@prefetching\ndef pipe_batches(*, batch_size=8, num_threads=2, device_id=None, seed=5):  # defined here\n"
        "    ndd.set_num_threads(num_threads)\n"
        "    rng = ndd.random.RNG(seed=seed)\n"
        "    while True:\n"
        "        data = ndd.random.uniform(range=[0, 1], shape=[2], batch_size=batch_size, rng=rng)\n"
        "        # both outputs\n"
        "        yield data.evaluate(), ndd.cast(data, dtype=1).evaluate()\n"
        "\n\n"
        "pipe = pipe_batches()\n"
        "for step in range(2):\n"
        "    data, ints = next(pipe)\n"
        "    print(data.batch_size, np.asarray(ints.tensors[0]))\n"
    ) in out
    assert "Pipeline" not in out and "import nvidia.dali.fn" not in out and "from nvidia.dali import" not in out
    assert not [d for d in diagnostics if d.needs_human]
    lines = {(d.code, d.line) for d in diagnostics}
    # Findings keep the lines of the original text: the graph at `Pipeline(...)`, the uses after it.
    assert {("NDD403", 5), ("NDD002", 11), ("NDD003", 13), ("NDD201", 14)} <= lines


def test_hand_built_graphs_are_found_the_same_from_the_parsed_text():
    # The engine hands `desugar` the text it parsed instead of having the module's code generated
    # again; the graphs found, and the module made of them, must be the same either way.
    import libcst as cst

    from ndd_migrate.model.sources import hand_built

    module = cst.parse_module(HAND_BUILT)
    given, done_given = hand_built.desugar(module, HAND_BUILT)
    generated, done_generated = hand_built.desugar(cst.parse_module(HAND_BUILT))
    assert len(done_given.graphs) == len(done_generated.graphs) == 1
    assert given.code == generated.code != HAND_BUILT


def test_hand_built_pipeline_with_an_unclaimed_use_stays_as_it_was():
    source = (
        HAND_BUILT.replace("import sys\n", "import sys\nimport other\n")
        + "other.consume(pipe)\nx = fn.random.uniform()\n"
    )
    out, diagnostics = migrate(source)
    assert [line for line in out.splitlines() if "TODO" not in line] == source.splitlines()
    assert todos(out)[0].startswith(
        "# TODO(ndd-migrate): NDD008 `pipe = Pipeline(...)` stays in pipeline mode: `pipe` (a `pipe = Pipeline(...)` "
        "pipeline)"
    )
    assert out.index("NDD008") < out.index("other.consume(pipe)")  # at the use
    assert [(d.code, d.line) for d in diagnostics if d.needs_human] == [("NDD008", 16)]
    assert "example.py:16" in next(d.message for d in diagnostics if d.code == "NDD008")


def test_noqa_keeps_a_hand_built_pipeline():
    source = HAND_BUILT.replace("seed=5)  # the graph", "seed=5)  # noqa: NDD403")
    source = source.replace("pipe = Pipeline(8, 2, None,\n", "pipe = Pipeline(8, 2, None, seed=5)  # noqa: NDD403\n")
    source = source.replace("                seed=5)  # noqa: NDD403\n", "")
    out, diagnostics = migrate(source)
    assert out == source
    assert not [d for d in diagnostics if d.needs_human]


def test_two_hand_built_pipelines_and_an_imported_pipeline_def():
    source = (
        "from nvidia.dali import Pipeline, fn, pipeline_def\n\n"
        "a = Pipeline(batch_size=2, num_threads=1, device_id=None)\n"
        "with a:\n"
        "    a.set_outputs(fn.random.uniform(range=[0, 1]))\n"
        "b = Pipeline(batch_size=3, num_threads=1, device_id=None)\n\n"
        "with b:\n"
        "    b.set_outputs(fn.random.normal())\n"
        "print(len(a.run()[0]), len(b.run()[0]))\n"
    )
    out, diagnostics = migrate(source)
    assert "def a_batches(*, batch_size=2, num_threads=1, device_id=None):" in out
    assert "def b_batches(*, batch_size=3, num_threads=1, device_id=None):" in out
    assert "a = a_batches()\n" in out and "b = b_batches()\n" in out
    assert "print(next(a)[0].batch_size, next(b)[0].batch_size)" in out
    assert {(d.code, d.line) for d in diagnostics if d.code in ("NDD403", "NDD003")} == {
        ("NDD403", 3),
        ("NDD403", 6),
        ("NDD003", 10),
    }


def test_comments_on_a_removed_decorator_are_kept():
    out, _ = migrate(
        "from nvidia.dali import pipeline_def, fn\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)  # the graph\n"
        "def p():\n    return fn.random.normal(shape=[2])\n"
    )
    assert "\n\n\n# the graph\n@prefetching\ndef p(*, batch_size=2, num_threads=1, device_id=None):\n" in out


def test_one_graph_converted_and_one_kept():
    source = (
        "from nvidia.dali import Pipeline, fn\n\n"
        "a = Pipeline(batch_size=2, num_threads=1, device_id=None)\n"
        "with a:\n    a.set_outputs(fn.random.uniform(range=[0, 1]))\n"
        "b = Pipeline(batch_size=3, num_threads=1, device_id=None)\n"
        "with b:\n    b.set_outputs(fn.random.normal())\n"
        "a.build()\nprint(len(a.run()[0]))\nkeep = {'b': b}\n"
    )
    out, diagnostics = migrate(source)
    assert out.startswith("import nvidia.dali.experimental.dynamic as ndd\nfrom nvidia.dali import Pipeline, fn\n")
    assert "a = a_batches()\n" in out and "print(next(a)[0].batch_size)\n" in out
    assert (
        "b = Pipeline(batch_size=3, num_threads=1, device_id=None)\nwith b:\n    b.set_outputs(fn.random.normal())\n"
        in out
    )
    assert [d.code for d in diagnostics if d.needs_human] == ["NDD008"]


def test_starred_outputs():
    source = (
        "from nvidia.dali import Pipeline, fn\n\n"
        "pipe = Pipeline(batch_size=2, num_threads=1, device_id=None)\n"
        "with pipe:\n"
        "    outs = [fn.random.normal(shape=[2]), fn.random.uniform(shape=[1])]\n"
        "    pipe.set_outputs(*outs)\n"
        "pipe.build()\na, b = pipe.run()\n"
    )
    out, diagnostics = migrate(source)
    assert "        yield tuple(batch.evaluate() for batch in outs)\n" in out and "a, b = next(pipe)\n" in out
    assert not [d for d in diagnostics if d.needs_human]


def test_a_second_graph_under_the_same_name():
    graph = (
        "pipe = Pipeline(batch_size={n}, num_threads=1, device_id=None)\n"
        "with pipe:\n"
        "    x = fn.random.normal(shape=[2])\n"
        "    pipe.set_outputs(x)\n"
        "pipe.build()\n"
        "(out,) = pipe.run()\n"
    )
    source = "from nvidia.dali import Pipeline, fn\n\n" + graph.format(n=2) + "\n" + graph.format(n=3)
    out, diagnostics = migrate(source)
    assert "def pipe_batches(*, batch_size=2" in out and "def pipe_batches_2(*, batch_size=3" in out
    assert out.count("(out,) = next(pipe)\n") == 2
    assert not [d for d in diagnostics if d.needs_human]


def test_hand_built_pipeline_in_a_factory():
    source = (
        "from nvidia.dali import Pipeline, fn\n\n\n"
        "def build(batch_size, device_id=None):\n"
        "    pipe = Pipeline(batch_size=batch_size, num_threads=1, device_id=device_id)\n"
        "    with pipe:\n"
        "        pipe.set_outputs(fn.random.uniform(shape=[2]))\n"
        "    return pipe\n\n\n"
        "p = build(2)\np.build()\n(out,) = p.run()\n"
    )
    out, diagnostics = migrate(source)
    assert (
        "def build(batch_size, device_id=None):\n"
        "    @prefetching\n"
        "    def pipe_batches(*, batch_size=batch_size, num_threads=1, device_id=device_id):\n"
    ) in out
    assert (  # the op runs in the pipeline's own context; the yield stays outside it
        "            with ctx:\n"
        "                outputs = ndd.random.uniform(shape=[2], batch_size=batch_size).evaluate(),\n"
        "            yield outputs\n\n    pipe = pipe_batches()\n    return pipe\n"
    ) in out
    assert "p = build(2)\n(out,) = next(p)\n" in out
    assert not [d for d in diagnostics if d.needs_human]


REFUSED = {
    "inside an if": (
        "if True:\n"
        "    pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
        "    with pipe:\n"
        "        pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n",
        "the graph is not `pipe = Pipeline(...)` + `with pipe:` in the body of a module or a function",
    ),
    "statements between": (
        "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\nk = 1\n"
        "with pipe:\n    pipe.set_outputs(fn.random.uniform(range=[0, k]))\n",
        "`with pipe:` does not follow `pipe = Pipeline(...)`",
    ),
    "set_outputs not last": (
        "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
        "with pipe:\n    pipe.set_outputs(fn.random.uniform(range=[0, 1]))\n    k = 1\n",
        "the block does not end with `pipe.set_outputs(<outputs>)`",
    ),
    "pipe used in the block": (
        "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
        "with pipe:\n    n = pipe.batch_size\n    pipe.set_outputs(fn.random.uniform(range=[0, n]))\n",
        "`pipe` is used inside its own `with` block",
    ),
    "a name of the block read after it": (
        "pipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
        "with pipe:\n    k = 3\n    pipe.set_outputs(fn.random.uniform(range=[0, k]))\n"
        "print(k)\n",
        "`k` is bound in the `with pipe:` block and used outside it",
    ),
    "a name the block reads rebound after it": (
        "k = 3\npipe = Pipeline(batch_size=8, num_threads=2, device_id=0)\n"
        "with pipe:\n    pipe.set_outputs(fn.random.uniform(range=[0, k]))\n"
        "k = 4\n",
        "`k` is read by the graph and bound again after it",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_hand_built_pipeline_left_for_a_human(case):
    code, reason = REFUSED[case]
    source = "from nvidia.dali import Pipeline, fn\n\n" + code + "pipe_run = 1\n"
    out, diagnostics = migrate(source)
    assert [line for line in out.splitlines() if "TODO" not in line] == source.splitlines()
    assert [d.code for d in diagnostics if d.needs_human] == ["NDD403"], [d.message for d in diagnostics]
    assert reason in todos(out)[0], todos(out)


def test_fed_to_a_framework_iterator_gets_the_epoch_shape():
    source = legacy(
        "super().__init__(batch_size, num_threads, device_id)\nself.input = ops.readers.Numpy(file_root='x')",
        "(data,) = self.input(name='Reader')\nreturn data",
    ).replace(HEADER, HEADER.replace("\n\n\n", "\nfrom nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"))
    source += "\n\npipe = P(8, 2, 0)\npipe.build()\nit = DALIGenericIterator(pipe, ['data'], reader_name='Reader')\n"
    out, _ = migrate(source)
    assert "    reader = ndd.readers.Numpy(file_root='x', name='Reader', max_batch_size=batch_size)\n" in out
    assert "    def batches():\n" in out and "    return reader.get_metadata(), batches()\n" in out
    assert "pipe_meta, pipe = P(8, 2, 0)\n" in out


def test_comments_on_removed_op_objects_are_kept():
    source = (
        "from nvidia.dali.pipeline import Pipeline\n"
        "import nvidia.dali.ops as ops\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        # the reader\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        "        self.flip = ops.Flip(vertical=1)  # flip it\n"
        "        self.x = 3\n\n"
        "    def define_graph(self):\n"
        "        jpegs, labels = self.input()\n"
        "        return self.flip(jpegs), labels\n"
    )
    out, _ = migrate(source)
    assert "# the reader" in out and "# flip it" in out
    assert "ndd.flip(jpegs, vertical=1)" in out


def test_external_source_fed_in_iter_setup():
    """`iter_setup` nested in the generator and called at the head of each batch, beside a reader;
    the fed outputs are op arguments; a value of `__init__` it assigns is `nonlocal`; a module-level
    iterator is read where it was; the source's `device`/`dtype` and the feed's `layout` go to `ndd.batch`."""
    source = (
        "import nvidia.dali.types as types\n"
        "import nvidia.dali.ops as ops\n"
        "from nvidia.dali.pipeline import Pipeline\n"
        "\n"
        "windows = iter(load_windows())\n"
        "\n"
        "\n"
        "class Crops(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root):\n"
        "        super().__init__(batch_size, num_threads, device_id, seed=3)\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        "        self.anchors_in = ops.ExternalSource()\n"
        '        self.shapes_in = ops.ExternalSource(device="gpu", dtype=types.FLOAT)\n'
        '        self.decode = ops.decoders.Image(device="mixed")\n'
        '        self.slice = ops.Slice(device="gpu")\n'
        "        self.steps = 0\n"
        "\n"
        "    def define_graph(self):\n"
        '        jpegs, labels = self.input(name="Reader")\n'
        "        self.anchors = self.anchors_in()\n"
        '        self.shapes = self.shapes_in(name="shapes")\n'
        "        images = self.decode(jpegs)\n"
        "        return self.slice(images, self.anchors, self.shapes), labels\n"
        "\n"
        "    def iter_setup(self):\n"
        "        anchors, shapes = next(windows)\n"
        "        self.steps += 1\n"
        '        self.feed_input(self.anchors, anchors, layout="A")\n'
        "        self.feed_input(self.shapes, shapes)\n"
    )
    out, diagnostics = migrate(source)
    assert out == (
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "import nvidia.dali.types as types\n"
        "\n"
        "from ndd_support import prefetching\n"
        "\n"
        "windows = iter(load_windows())\n"
        "\n"
        "\n"
        "@prefetching\n"
        "def Crops(batch_size, num_threads, device_id, root):\n"
        "    ndd.set_num_threads(num_threads)\n"
        "    ctx = ndd.EvalContext(device_id=device_id)\n"
        "    steps = 0\n"
        '    reader = ndd.readers.File(file_root=root, name="Reader")\n'
        "\n"
        "    def iter_setup():\n"
        "        nonlocal steps\n"
        "        anchors, shapes = next(windows)\n"
        "        steps += 1\n"
        '        fed_anchors = ndd.batch(anchors, layout="A")\n'
        '        fed_shapes = ndd.batch(shapes, dtype=types.FLOAT, device="gpu")\n'
        "        return fed_anchors, fed_shapes\n"
        "\n"
        "    while True:\n"
        "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
        "            with ctx:\n"
        "                try:\n"
        "                    anchors, shapes = iter_setup()\n"
        "                except StopIteration:\n"
        "                    return\n"
        '                images = ndd.decoders.image(jpegs, device="gpu")\n'
        '                outputs = ndd.slice(images, anchors, shapes, device="gpu").evaluate(), labels.evaluate()\n'
        "            yield outputs\n"
    )
    assert not [d for d in diagnostics if d.needs_human]


def test_iter_setup_in_epoch_shape_is_left():
    """The epoch-aware shape cuts epochs by the reader's size: a `StopIteration` of `iter_setup` has no
    place in it."""
    source = (
        "import nvidia.dali.ops as ops\n"
        "from nvidia.dali.pipeline import Pipeline\n"
        "\n"
        "\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, root, extra):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.File(file_root=root)\n"
        "        self.s = ops.ExternalSource()\n"
        "        self.extra = extra\n"
        "\n"
        "    def define_graph(self):\n"
        '        jpegs, labels = self.input(name="Reader")\n'
        "        self.x = self.s()\n"
        "        return jpegs, self.x\n"
        "\n"
        "    def iter_setup(self):\n"
        "        self.feed_input(self.x, next(self.extra))\n"
        "\n"
        "\n"
        'pipe = P(2, 1, None, "/data", iter([]))\n'
        'print(pipe.epoch_size("Reader"))\n'
    )
    out, diagnostics = migrate(source)
    assert "class P(Pipeline):" in out
    assert todos(out) == [
        "# TODO(ndd-migrate): NDD421 not migrated: `iter_setup` (which may end the pipeline with `StopIteration`) "
        "in a pipeline given to a framework iterator or asked for its epoch size: the epochs would be cut by the "
        "reader's size only; write the epoch loop by hand"
    ]


@pytest.mark.parametrize("case", sorted(k for k, (source, _) in BLOCKED.items() if "iter_setup" in source))
def test_iter_setup_blockers_say_it_once(case):
    out, _ = migrate(BLOCKED[case][0])
    assert len(todos(out)) == 1, todos(out)


def test_iter_setup_reads_the_batch_size():
    """`self.batch_size` in `iter_setup` is the `Pipeline` property: the generator's `batch_size`; a
    GPU external source gives `device="gpu"` to `ndd.batch`; the class nested in a function stays there."""
    source = (
        "import numpy as np\n"
        "import nvidia.dali.ops as ops\n"
        "from nvidia.dali.pipeline import Pipeline\n"
        "\n"
        "\n"
        "def test_gpu():\n"
        "    class Fed(Pipeline):\n"
        "        def __init__(self, batch_size, num_threads, device_id, use_list):\n"
        "            super().__init__(batch_size, num_threads, device_id)\n"
        '            self.input = ops.ExternalSource(device="gpu")\n'
        "            self.use_list = use_list\n"
        "\n"
        "        def define_graph(self):\n"
        "            self.batch = self.input()\n"
        "            return self.batch\n"
        "\n"
        "        def iter_setup(self):\n"
        "            if self.use_list:\n"
        "                data = [np.random.rand(10, 10, 3) for _ in range(self.batch_size)]\n"
        "            else:\n"
        "                data = np.random.rand(self.batch_size, 10, 10, 3)\n"
        "            self.feed_input(self.batch, data)\n"
        "\n"
        "    pipe = Fed(2, 1, 0, True)\n"
        "    pipe.build()\n"
        "    pipe.run()\n"
    )
    out, diagnostics = migrate(source)
    assert out == (
        "import numpy as np\n"
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "\n"
        "from ndd_support import prefetching\n"
        "\n"
        "\n"
        "def test_gpu():\n"
        "    @prefetching\n"
        "    def Fed(batch_size, num_threads, device_id, use_list):\n"
        "        ndd.set_num_threads(num_threads)\n"
        "        ctx = ndd.EvalContext(device_id=device_id)\n"
        "\n"
        "        def iter_setup():\n"
        "            if use_list:\n"
        "                data = [np.random.rand(10, 10, 3) for _ in range(batch_size)]\n"
        "            else:\n"
        "                data = np.random.rand(batch_size, 10, 10, 3)\n"
        '            fed_batch = ndd.batch(data, device="gpu")\n'
        "            return fed_batch\n"
        "\n"
        "        while True:\n"
        "            with ctx:\n"
        "                try:\n"
        "                    batch = iter_setup()\n"
        "                except StopIteration:\n"
        "                    return\n"
        "                outputs = batch.evaluate(),\n"
        "            yield outputs\n"
        "\n"
        "    pipe = Fed(2, 1, 0, True)\n"
        "    next(pipe)\n"
    )
    assert not [d for d in diagnostics if d.needs_human]


def test_iter_setup_docstring_keywords_and_branches():
    """`nonlocal` goes after `iter_setup`'s docstring; `feed_input` by keywords; without a context the
    call heads the loop, and returns in branches of `define_graph` follow it."""
    source = (
        "import nvidia.dali.ops as ops\n"
        "from nvidia.dali.pipeline import Pipeline\n"
        "\n"
        "\n"
        "class P(Pipeline):\n"
        "    def __init__(self, batch_size, data, flip=False):\n"
        "        super().__init__(batch_size, 1, None)\n"
        "        self.source = ops.ExternalSource()\n"
        "        self.flip = ops.Flip(horizontal=1)\n"
        "        self.data = data\n"
        "        self.seen = 0\n"
        "        self.use_flip = flip\n"
        "\n"
        "    def define_graph(self):\n"
        "        self.x = self.source()\n"
        "        if self.use_flip:\n"
        "            return self.flip(self.x)\n"
        "        return self.x\n"
        "\n"
        "    def iter_setup(self):\n"
        '        """Feeds the next batch."""\n'
        "        self.seen += 1\n"
        '        self.feed_input(data_node=self.x, data=next(self.data), layout="HWC")\n'
    )
    out, diagnostics = migrate(source)
    assert out == (
        "import nvidia.dali.experimental.dynamic as ndd\n"
        "\n"
        "from ndd_support import prefetching\n"
        "\n"
        "\n"
        "@prefetching\n"
        "def P(batch_size, data, flip=False):\n"
        "    ndd.set_num_threads(1)\n"
        "    seen = 0\n"
        "    use_flip = flip\n"
        "\n"
        "    def iter_setup():\n"
        '        """Feeds the next batch."""\n'
        "        nonlocal seen\n"
        "        seen += 1\n"
        '        fed_x = ndd.batch(next(data), layout="HWC")\n'
        "        return fed_x\n"
        "\n"
        "    while True:\n"
        "        try:\n"
        "            x = iter_setup()\n"
        "        except StopIteration:\n"
        "            return\n"
        "        if use_flip:\n"
        "            yield ndd.flip(x, horizontal=1).evaluate(),\n"
        "            continue\n"
        "        yield x.evaluate(),\n"
    )
    assert not [d for d in diagnostics if d.needs_human]


def test_feed_input_by_keywords_in_any_order():
    out, diagnostics = migrate(_fed("self.feed_input(data=self.parts, data_node=self.x)"))
    assert "        fed_x = ndd.batch(parts)\n        return fed_x\n" in out
    assert "            x = iter_setup()\n" in out
    assert not [d for d in diagnostics if d.needs_human]


LEGACY_SEEDED = """\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class P(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None, seed=12)
        self.input = ops.readers.File(file_root=root, random_shuffle=True, seed=4)
        self.flip = ops.Flip()
        self.coin = ops.random.CoinFlip({coin_seed})

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.flip(jpegs){coin_call}, labels
"""


@pytest.mark.parametrize(
    "coin_seed, coin_call, rng",
    [
        ("", "", False),  # created, never called: no draws
        ("seed=3", ", self.coin()", False),  # draws from its own RNG
        ("", ", self.coin()", True),
    ],
)
def test_pipeline_rng_only_when_a_random_op_draws_from_it(coin_seed, coin_call, rng):
    out, _ = migrate_text(LEGACY_SEEDED.format(coin_seed=coin_seed, coin_call=coin_call))
    assert ("ndd.random.RNG(seed=12)" in out) == rng, out
    assert ("ndd.random.RNG(seed=3)" in out) == bool(coin_seed)
    compile(out, "migrated.py", "exec")


def test_attribute_named_like_a_local_gets_a_fresh_local():
    """``self.device = device * 2`` beside the parameter ``device``, which ``define_graph`` reads too:
    the attribute becomes a fresh local (``self_device`` is taken), the parameter keeps its value."""
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.device = device * 2\nself_device = 0",
            "return fn.zeros(shape=[len(device), len(self.device), self_device])",
            signature="batch_size, num_threads, device_id, device",
        )
    )
    assert todos(out) == [], todos(out)
    assert "    self_device_2 = device * 2\n" in out
    assert "ndd.zeros(shape=[len(device), len(self_device_2), self_device]" in out


def test_attribute_copied_from_a_parameter_keeps_its_assignment_when_renamed():
    """``self.scale = scale`` is dropped when the parameter is the local; when ``__init__`` sets the
    attribute again, it is renamed and both assignments stay (the parameter keeps its value)."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.scale = scale\nself.scale = self.scale * 2\n"
            "self.u = ops.Uniform()",
            "return self.u() * self.scale + scale",
            signature="batch_size, num_threads, device_id, scale",
        )
    )
    assert todos(out) == [], todos(out)
    assert "    self_scale = scale\n    self_scale = self_scale * 2\n" in out
    assert "ndd.random.uniform(batch_size=batch_size) * self_scale + scale" in out


def test_a_base_class_gets_one_todo():
    """A base without ``define_graph``, subclassed, one subclass of which cannot become a generator:
    one TODO at the class, naming that subclass and why (not also "without both `__init__` and
    `define_graph`", nor one TODO per subclass); that subclass and the base stay as they are, the
    other subclass converts."""
    source = (
        HEADER
        + "class Base(Pipeline):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None)\n\n\n"
        "class A(Base):\n    def define_graph(self):\n        return fn.random.uniform()\n\n    def __len__(self):\n"
        "        return 1\n\n\n"
        "class B(Base):\n    def define_graph(self):\n        return fn.random.normal()\n"
    )
    out, _ = migrate(source)
    found = todos(out)
    assert len(found) == 1, found
    assert (
        "its subclass `A`: `__len__` has no counterpart" in found[0]
        and "until then `A` stays a subclass of `Base`" in found[0]
    )
    assert "without both" not in found[0]
    assert "class Base(Pipeline):" in out and "class A(Base):" in out and "def B(batch_size):" in out
    kept = source[source.index("class Base") : source.index("class B(Base)")]
    assert (
        kept
        in "\n".join(line for line in out.splitlines() if "ndd-migrate" not in line and not line.startswith("#   "))
        + "\n"
    )


def test_a_base_class_with_two_subclasses_becomes_two_generators():
    """Each subclass of a base gets the base's ``__init__`` and its own ``define_graph``: two
    generator functions; the base, used only as a base, is gone."""
    out, diagnostics = migrate(
        HEADER
        + "class Base(Pipeline):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None)\n\n\n"
        "class A(Base):\n    def define_graph(self):\n        return fn.random.uniform()\n\n\n"
        "class B(Base):\n    def define_graph(self):\n        return fn.random.normal()\n\n\n"
        "a = A(2)\nb = B(3)\n"
    )
    assert todos(out) == [], todos(out)
    assert "class " not in out
    assert "def A(batch_size):" in out and "def B(batch_size):" in out
    assert "ndd.random.uniform(batch_size=batch_size" in out and "ndd.random.normal(batch_size=batch_size" in out
    fixed = sorted((d.line, d.message) for d in diagnostics if d.code == "NDD401")
    assert fixed == [
        (11, "`Pipeline` subclass `A` → dynamic-mode generator"),
        (16, "`Pipeline` subclass `B` → dynamic-mode generator"),
    ]


def test_a_reader_with_other_outputs_in_each_branch_is_reported_once():
    """``self.input`` is a 2-output reader in one branch of ``__init__`` and a TFRecord reader in
    another, and ``define_graph`` unpacks each its way: the TODO is the branch's, not also one
    about the name bound to the outputs."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nif kind == 'file':\n"
            "    self.input = ops.readers.File(file_root='a')\nelse:\n"
            "    self.input = ops.readers.TFRecord(path='a', index_path='b', features={})\nself.kind = kind",
            "if self.kind == 'file':\n    jpegs, _ = self.input()\nelse:\n    inputs = self.input()\n"
            "    jpegs = inputs['image']\nreturn jpegs",
            signature="batch_size, num_threads, device_id, kind",
        )
    )
    found = todos(out)
    assert len(found) == 1 and "in one branch and `ops.readers.TFRecord` in another" in found[0], found


def test_a_reader_or_none_by_condition_is_left_for_a_human():
    """``self.input = ops.readers.X(...)`` in one branch, ``None`` in the other: the generator
    needs its reader before the loop, so the class is reported, once."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nif on:\n    self.input = ops.readers.Numpy(file_root='a')\n"
            "else:\n    self.input = None",
            "x = self.input()\nreturn x",
            signature="batch_size, num_threads, device_id, on",
        )
    )
    found = todos(out)
    assert len(found) == 1 and "`self.input` is an operator in one place and a value in another" in found[0], found


def test_a_reader_or_none_by_a_conditional_expression_is_created_so():
    """``self.input = ops.readers.X(...) if c else None``, tested (``if self.input is not None``) in
    ``define_graph``, beside a first reader: created under the same condition, read as a stream only
    in the branch (was: one TODO naming the reader-or-``None``)."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, None)\nself.x = ops.readers.Numpy(file_root='a')\n"
            "self.input = ops.readers.Numpy(file_root='b') if on else None",
            "x = self.x()\nif self.input is not None:\n    y = self.input()\n    return x, y\nreturn x",
            signature="batch_size, num_threads, device_id, on",
        )
    )
    assert todos(out) == []
    assert "input_args = dict(file_root='b') if on else None" in out
    assert "ndd.readers.Numpy(**input_args) if input_args is not None else None" in out
    assert "if input_args is not None:\n                (y,) = next(stream_2)" in out


def test_readers_of_their_own_in_a_pipeline_given_a_device_id_hold_its_context():
    """A generator with an `EvalContext` of its own evaluates each batch in it; a stream reader's
    epoch iterator, first advanced there, keeps it entered, so the first reader's iterator is given
    the same context (DALI 2.4.0 asserts that a context left is the last one entered)."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.x = ops.readers.Numpy(file_root='a')\n"
            "self.y = ops.readers.Numpy(file_root='b')",
            "x = self.x()\ny = self.y()\nreturn x, y",
        )
    )
    assert todos(out) == []
    assert "reader.next_epoch(batch_size=batch_size, ctx=ctx)" in out
    assert "reader_2.next_epoch(batch_size=batch_size, ctx=ctx)" in out


@pytest.mark.parametrize(
    "extra",
    ["kwargs['prefetch_queue_depth'] = 2\n", "print(kwargs)\n", "kwargs = {'seed': 1}\n"],
)
def test_a_settings_dict_holding_more_than_a_seed_is_left_for_a_human(extra):
    out, _ = migrate(
        legacy(
            "kwargs = dict()\nkwargs['seed'] = 3\n"
            + extra
            + "super().__init__(batch_size, num_threads, device_id, **kwargs)\n"
            "self.u = ops.random.Uniform()",
            "return self.u()",
        )
    )
    assert any("`*args`/`**kwargs` passed to `Pipeline.__init__` cannot be read" in t for t in todos(out)), todos(out)


# -- a reader of another kind in each branch of `__init__` -------------------------------------------

_READER_BY_KIND = (
    "import nvidia.dali.ops as ops\n"
    "from nvidia.dali.pipeline import Pipeline\n\n\n"
    "class Loader(Pipeline):\n"
    "    def __init__(self, batch_size, root, lmdb, flag):\n"
    "        super().__init__(batch_size, num_threads=1, device_id=None)\n"
    "        if lmdb:\n"
    "            self.input = ops.readers.Caffe(path=root{caffe})\n"
    "        else:\n"
    "            self.input = ops.readers.File(file_root=root)\n\n"
    "    def define_graph(self):\n"
    "        jpegs, labels = self.input()\n"
    "        return jpegs, labels\n"
)


def test_readers_whose_arguments_give_the_same_outputs_convert():
    text, result = migrate_text(_READER_BY_KIND.format(caffe=""))
    assert "input_op, input_args = ndd.readers.Caffe, dict(path=root)" in text and "input_op(**input_args)" in text
    assert not [d for d in result.diagnostics if d.needs_human]


@pytest.mark.parametrize("caffe", [", label_available=False", ", label_available=flag"])
def test_readers_whose_arguments_give_other_outputs_block(caffe):
    text, result = migrate_text(_READER_BY_KIND.format(caffe=caffe))
    found = [d for d in result.diagnostics if d.code == "NDD402" and d.needs_human]
    assert found and "`ops.readers.File` in another, with different outputs" in found[0].message
    assert "class Loader(Pipeline)" in text


SEEDED_READER = """\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class P(Pipeline):
    def __init__(self, batch_size, root):
        super().__init__(batch_size, 1, None, seed={seed})
        self.input = ops.FileReader(file_root=root, random_shuffle=True{reader_seed})
        self.uniform = ops.Uniform(range=[0.0, 1.0])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        {body}
"""


@pytest.mark.parametrize(
    "seed, reader_seed, body, expected, human",
    [
        ("12", "", "return [labels]", "seed=dali_op_seed(12, 0)", False),
        ("12 + 1", "", "return [labels, self.uniform()]", "seed=dali_op_seed(12 + 1, 0)", False),
        ("12", "", "return [self.uniform(), labels]", "seed=12", True),  # the walk meets `uniform` first
        ("12", ", seed=5", "return [labels]", "seed=5", False),  # its own seed, as it was
        ("-1", "", "return [labels]", None, False),  # an unseeded pipeline: the reader's own default
    ],
)
def test_a_shuffling_reader_of_a_seeded_subclass_keeps_the_pipelines_order(seed, reader_seed, body, expected, human):
    """Pipeline mode seeds the reader from the pipeline's seed; an unseeded dynamic-mode reader
    shuffles in one fixed order. The derived seed is passed when it can be read from the graph, and
    a changed order is reported at the reader when it cannot."""
    out, result = migrate_text(SEEDED_READER.format(seed=seed, reader_seed=reader_seed, body=body))
    reader = next(line for line in out.splitlines() if "ndd.readers.File(" in line)
    if expected is None:
        assert "seed" not in reader
    else:
        assert expected in reader
    assert ("dali_op_seed" in expected if expected else False) == ("dali_op_seed" in result.support)
    assert "def dali_op_seed(" not in out
    needs = [d for d in result.diagnostics if d.needs_human]
    assert bool(needs) == human, [d.message for d in needs]
    if human:
        assert "sample order is not the pipeline's" in needs[0].message


CONDITIONAL_DEVICE = """\
import nvidia.dali.ops as ops
from nvidia.dali.pipeline import Pipeline


class P(Pipeline):
    def __init__(self, batch_size, root, dali_cpu=False):
        super().__init__(batch_size, 1, None)
        self.input = ops.FileReader(file_root=root)
        decoder_device = "cpu" if dali_cpu else "mixed"
        self.decode = ops.ImageDecoder(device=decoder_device)
        {more}

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return [self.decode(jpegs), labels]
"""


def test_a_device_name_bound_to_a_conditional_with_mixed_becomes_gpu():
    """The shape of DALI's ImageNet example: `"cpu" if dali_cpu else "mixed"` in `__init__`."""
    out, result = migrate_text(CONDITIONAL_DEVICE.format(more=""))
    assert 'decoder_device = "cpu" if dali_cpu else "gpu"' in out
    assert [d for d in result.diagnostics if d.needs_human] == []


def test_a_device_name_with_mixed_read_for_more_than_device_keeps_its_value_and_is_mapped():
    """The ResNet-50 example: `padding = 211025920 if decoder_device == "mixed" else 0` reads it too."""
    more = 'padding = 211025920 if decoder_device == "mixed" else 0'
    out, result = migrate_text(CONDITIONAL_DEVICE.format(more=more))
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert 'decoder_device = "cpu" if dali_cpu else "mixed"' in out
    assert 'device="gpu" if decoder_device == "mixed" else decoder_device' in out


@pytest.mark.parametrize(
    "statement, converts",
    [
        ("print('DALI {} variant'.format(self.dali_device))", True),  # a value set above: read as the local
        ("print(self.later)", False),  # not set yet
        ("self.log(self.dali_device)", False),  # a method of the pipeline object
        ("register(self)", False),  # the object itself
    ],
)
def test_init_statements_that_only_read_values_set_above_convert(statement, converts):
    """The ResNet-50 example's lineage prints `self.dali_device` in `__init__`: that reads a value,
    which the generator keeps in a local; `self` itself has no counterpart."""
    out, diagnostics = migrate(
        legacy(
            f"super().__init__(batch_size, num_threads, device_id)\nself.dali_device = 'cpu'\n{statement}\n"
            "self.later = 1\nself.flip = ops.Flip(device=self.dali_device)",
            "return self.flip(fn.random.uniform(shape=[2, 2, 3]))",
        )
    )
    assert ("class P(Pipeline):" not in out) == converts, out
    if converts:
        assert "print('DALI {} variant'.format(dali_device))" in out
        assert not [d for d in diagnostics if d.needs_human]


def test_a_branch_of_init_that_only_reads_values_set_above_converts():
    """DALI's 3-D crop test: `if self.layout == "DHWC": D, H, W, _ = self.shape` in `__init__`
    (four branches gave four identical TODOs for one cause)."""
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.layout = 'HWC'\nself.shape = (4, 4, 3)\n"
            "if self.layout == 'HWC':\n    H, W, _ = self.shape\nelse:\n    _, H, W = self.shape\n"
            "self.crop = ops.Crop(crop=(H // 2, W // 2))",
            "return self.crop(fn.random.uniform(shape=[4, 4, 3]))",
        )
    )
    assert "class P(Pipeline):" not in out and not [d for d in diagnostics if d.needs_human]
    assert "H, W, _ = shape" in out


def test_an_operator_object_created_in_define_graph_keeps_the_class():
    """`rng = ops.random.Uniform(...)` in `define_graph` was copied into the generator: called outside
    a pipeline it gives a `DataNode`, which the `ndd` calls refuse (`ValueError`)."""
    out, diagnostics = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.decode = ops.decoders.Image(device='cpu')",
            "rng = ops.random.Uniform(range=[100, 128])\nreturn self.decode(rng())",
        )
    )
    assert "class P(Pipeline)" in out
    found = [d for d in diagnostics if d.needs_human]
    assert [d.code for d in found] == ["NDD402"]
    assert "`ops.random.Uniform` is created in `define_graph`, not in `__init__`" in found[0].message


def test_an_attribute_named_like_a_builtin_becomes_a_local_that_does_not_hide_it():
    """`self.iter = 0` became a local `iter = 0` in the generator, hiding the builtin `iter` that
    generated code calls (`feed = iter(source)`)."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\n"
            "self.input = ops.readers.File(file_root='/d')\nself.iter = 0\nself.len = 3",
            "jpegs, labels = self.input()\nprint(self.iter, self.len)\nreturn labels",
        )
    )
    assert "self_iter = 0" in out and "self_len = 3" in out
    assert "\n    iter = 0" not in out and "\n    len = 3" not in out


@pytest.mark.parametrize(
    "init, gone",
    [
        pytest.param("self.iter = 0", "self_iter = 0", id="an-attribute-nothing-reads"),
        pytest.param("self.size_ = batch_size", "size_ = batch_size", id="an-attribute-copying-a-parameter"),
        pytest.param(
            "device = 'cpu'\nself.unused = ops.Flip(device=device)", "device = 'cpu'", id="a-local-read-by-what-is-gone"
        ),
    ],
)
def test_a_local_the_class_made_and_nothing_reads_goes(init, gone):
    out, _ = migrate(
        legacy(
            f"super().__init__(batch_size, num_threads, device_id)\nself.input = ops.readers.File(file_root='/d')\n{init}",
            "jpegs, labels = self.input()\nreturn labels",
        )
    )
    assert gone not in out
    compile(out, "migrated.py", "exec")


@pytest.mark.parametrize(
    "init, kept",
    [
        pytest.param("mine = 1", "mine = 1", id="the-users-own-unread-local"),
        pytest.param("self.files = sorted(os.listdir('/d'))", "files = sorted(os.listdir('/d'))", id="a-call"),
        pytest.param("self.iter = 0  # steps", "self_iter = 0  # steps", id="with-a-comment"),
    ],
)
def test_a_local_that_may_mean_something_stays(init, kept):
    out, _ = migrate(
        legacy(
            f"super().__init__(batch_size, num_threads, device_id)\nself.input = ops.readers.File(file_root='/d')\n{init}",
            "jpegs, labels = self.input()\nreturn labels",
        )
    )
    assert kept in out


def test_a_base_classs_parameter_the_generator_never_reads_goes():
    source = (
        HEADER + "class Base(Pipeline):\n    def __init__(self, batch_size, num_threads=1):\n"
        "        super().__init__(batch_size, num_threads, None)\n\n\n"
        "class Fed(Base):\n    def __init__(self, batch):\n        super().__init__(len(batch))\n"
        "        self.batch = batch\n        self.source = ops.ExternalSource()\n\n"
        "    def define_graph(self):\n        self.data = self.source()\n        return self.data\n\n"
        "    def iter_setup(self):\n        self.feed_input(self.data, self.batch)\n"
    )
    out, _ = migrate(source)
    assert "def Fed(batch):" in out and "batch_size = len(batch)" not in out


@pytest.mark.parametrize(
    "params, expected",
    [
        (
            "\n        self,\n        batch_size,\n        num_threads,\n        device_id,\n        root,\n    ",
            "def P(\n    batch_size,\n    num_threads,\n    device_id,\n    root,\n):\n",
        ),
        (
            "\n        self, batch_size, num_threads, device_id, root\n    ",
            "def P(\n    batch_size, num_threads, device_id, root\n):\n",
        ),
        (
            "self,\n                 batch_size, num_threads, device_id, root",
            "def P(batch_size, num_threads, device_id, root):\n",
        ),
        ("self, batch_size, num_threads, device_id, root", "def P(batch_size, num_threads, device_id, root):\n"),
    ],
)
def test_the_parameters_keep_their_lines_without_self(params, expected):
    """`__init__(self, ...)` laid out one parameter per line (the ResNet-50 example's lineage) becomes
    a function whose parameters are laid out the same, not `def P(batch_size,` with the rest under it."""
    text = (
        "from nvidia.dali.pipeline import Pipeline\nimport nvidia.dali.ops as ops\n\n\n"
        f"class P(Pipeline):\n    def __init__({params}):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.input = ops.readers.File(file_root=root)\n\n"
        "    def define_graph(self):\n        jpegs, labels = self.input()\n        return [jpegs, labels]\n\n\n"
        "pipe = P(2, 1, None, '/data')\npipe.build()\nprint(pipe.run())\n"
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], out
    assert expected in out, out


def test_a_graph_constant_made_in_init_is_left_for_a_human():
    """``types.Constant(...)`` in ``__init__`` is a constant node made outside any graph: in the
    generator's prologue it would reach an ndd op as a pipeline-mode ``DataNode``. Reported, as in
    ``define_graph`` (was: converted, and the program failed at its first batch)."""
    out, _ = migrate(
        legacy(
            "super().__init__(batch_size, num_threads, device_id)\nself.a = ops.readers.Numpy(file_root='a')\n"
            "self.shift = types.Constant(2.0)",
            "x = self.a()\nreturn x * self.shift",
        ).replace(
            "import nvidia.dali.ops as ops\n", "import nvidia.dali.ops as ops\nimport nvidia.dali.types as types\n"
        )
    )
    found = todos(out)
    assert len(found) == 1 and "`types.Constant(...)` made in `__init__` (a graph constant" in found[0], found


def test_a_random_op_seeded_from_self_draws_from_an_rng_seeded_from_the_local():
    """``fn.random.coin_flip(seed=self.kwargs["seed"])`` in ``define_graph``: the generator's RNG
    for that op is created in its prologue, where ``self`` is gone and the attribute is a local."""
    source = legacy(
        "super().__init__(batch_size, num_threads, device_id)\nself.kwargs = kwargs\n"
        "self.input = ops.readers.File(file_root='d')",
        "jpegs, labels = self.input()\n"
        "flip = fn.random.coin_flip(probability=0.5, seed=self.kwargs['seed'])\n"
        "return jpegs, labels, flip",
        signature="batch_size, num_threads, device_id, **kwargs",
    )
    out, _ = migrate(source)
    assert "coin_flip_rng = ndd.random.RNG(seed=kwargs['seed'])" in out
    assert "self" not in out.split("def P(", 1)[1]
    compile(out, "migrated.py", "exec")


def test_an_external_source_in_define_graph_says_what_is_migrated_instead():
    """`fn.external_source` does have a dynamic form where the migration writes one (a function's, or
    `ops.ExternalSource` fed in `iter_setup`): the reason says so, not "no dynamic-mode form"."""
    text = (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class P(Pipeline):\n"
        "    def __init__(self, data):\n"
        "        super().__init__(batch_size=2, num_threads=1, device_id=None)\n"
        "        self.data = data\n\n"
        "    def define_graph(self):\n"
        "        return fn.external_source(source=self.data)\n"
    )
    _, result = migrate_text(text)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert "an `fn.external_source` call inside `define_graph` is not migrated" in found.message
    assert "no dynamic-mode form" not in found.message

"""The migration plan (ndd_migrate/plan/uses.py): every use of every value a conversion changes is
claimed by a rule, or the pipeline stays as it is with one NDD008 naming the use."""

from __future__ import annotations

import re

import pytest

from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from tests.conftest import migrate_text

PIPE = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root, name='Reader')\n"
    "    return data\n\n\n"
)
TODO = re.compile(r"(?m)^[ \t]*# TODO\(ndd-migrate\): .*\n")

# (use, what the NDD008 message says) — each a use no rule can rewrite.
BLOCKING = [
    (
        "pipe = p('/d')\npipe.build()\nscheduled = pipe.schedule_run()\nout = pipe.outputs()\n",
        "`.schedule_run()` is called on `pipe` (a `p` pipeline) (`schedule_run()` used as a value)",
    ),
    (
        "pipe = p('/d')\npipe.build()\npipe.schedule_run()\nout = pipe.outputs(cuda_stream=0)\n",
        "(`outputs()` with arguments)",
    ),
    (
        "pipe = p('/d')\npipe.build()\npipe.schedule_run()\npipe.outputs()\nout = pipe.run()\n",
        "`run()` is mixed with the scheduled API",
    ),
    ("pipe = p('/d')\npipe.build()\nprint(pipe.max_batch_size)\n", "`.max_batch_size` of `pipe`"),
    (
        "class It:\n    def __init__(self, pipe):\n        self.pipe = pipe\n        self.pipe.build()\n\n"
        "    def _prefetch(self):\n        return self.pipe.run()\n\n\nit = It(p('/d'))\n",
        "passed to `It()`",
    ),
    (
        "pipes = [p('/d', shard_id=i) for i in range(2)]\nfor q in pipes:\n    q.build()\nkept = {'all': pipes}\n",
        "`pipes` (a list of `p` pipelines) is put in a container",
    ),
    ("pipes = [p('/d', shard_id=i) for i in range(2)]\npipes.append(p('/d'))\n", "`.append()` is called on `pipes`"),
    ("pipe = p('/d')\npipe.build()\nimages = pipe.run()\nimages = 3\n", "also holds other values"),
    ("import functools\n\nmake = functools.partial(p, '/d')\n", "used other than by calling it"),
    ("pipe = p('/d')\npipe.build()\n(x,) = pipe.run()\ndata = {'x': x}\n", "put in a container"),
    ("pipe = p('/d')\npipe.build()\n(x,) = pipe.run()\nprint(type(x))\n", "passed to `type()`"),
    (
        "def f(pipe):\n    return pipe.run()\n\n\npipe = p('/d')\npipe.build()\nf(pipe)[0].at(0)\nf([1])\n",
        "passed to `f()`",
    ),
]


@pytest.mark.parametrize("use, said", BLOCKING)
def test_an_unclaimed_use_keeps_the_pipeline(use, said):
    source = PIPE + use
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"], [d.message for d in human]
    assert said in human[0].message and "example.py:" in human[0].message
    assert TODO.sub("", out) == source  # the pipeline and every use left as they are
    assert migrate_text(out)[0] == out


CLAIMED = [
    "pipe = p('/d')\npipe.build()\n(x,) = pipe.run()\nprint(x.at(0), len(x), x[0])\n",
    "pipe = p('/d')\npipe.build()\nout = pipe.run()\nprint(len(out), out[0].shape())\n",
    "def show(batch):\n    print(batch.at(0))\n\n\npipe = p('/d')\npipe.build()\n(x,) = pipe.run()\nshow(x)\n",
    "def first(pipe):\n    out = pipe.run()\n    return out[0].at(0)\n\n\npipe = p('/d')\npipe.build()\nfirst(pipe)\n",
    "import numpy as np\n\npipe = p('/d')\npipe.build()\n(x,) = pipe.run()\nprint([np.asarray(s) for s in x])\n",
    # a list of pipelines: its items followed through loops, comprehensions and indexing
    "pipes = [p('/d') for _ in range(2)]\nfor q in pipes:\n    q.build()\nprint([q.run()[0].at(0) for q in pipes], len(pipes))\n",
    "a = p('/d')\npipes = (a, p('/e'))\n[q.build() for q in pipes]\nfirst = pipes[0]\n(x,) = first.run()\nprint(x.at(0))\n",
    # the scheduled API: `outputs()` / `share_outputs()` give the next step, the rest goes
    "pipes = [p('/d') for _ in range(2)]\nfor q in pipes:\n    q.build()\n    q.schedule_run()\n"
    "[q.schedule_run() for q in pipes]\nfor q in pipes:\n    (x,) = q.outputs()\n    print(x.at(0))\n",
    "pipe = p('/d')\npipe.schedule_run()\nout = pipe.share_outputs()\nprint(out[0].at(0))\npipe.release_outputs()\n",
]


@pytest.mark.parametrize("use", CLAIMED)
def test_claimed_uses_convert(use):
    out, result = migrate_text(PIPE + use)
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert "@pipeline_def" not in out and ".run()" not in out and ".at(" not in out


def test_check_reports_the_blocking_use_of_a_file_migrate_left():
    out, _ = migrate_text(PIPE + BLOCKING[0][0])
    found = transform(out, "example.py", Policy.check())
    assert [d.code for d in found.diagnostics] == ["NDD008"]


def test_fixes_of_rules_not_selected_are_not_applied():
    """``check --fix --select NDD502`` applies NDD502's fix only (the engine decides, not the rule)."""
    source = (
        "import nvidia.dali.experimental.dynamic as ndd\n\n"
        "reader = ndd.readers.File(file_root='/d')\n"
        "for batch, labels in reader.next_epoch(batch_size=2):\n"
        "    print(len(batch), batch[0])\n"
    )
    everything = transform(source, "example.py", Policy.check(fix=True, unsafe_fixes=True))
    assert "batch.batch_size" in everything.new_source and "batch.tensors[0]" in everything.new_source
    only = transform(
        source, "example.py", Policy.check(fix=True, unsafe_fixes=True, is_enabled=lambda code, path: code == "NDD502")
    )
    assert "batch.batch_size" in only.new_source and "batch[0]" in only.new_source
    assert {d.code for d in only.diagnostics if d.fixed} == {"NDD502"}


# -- a name rebound to the numpy array of the output it held (values/name_kinds._split_at_conversion) --
REBOUND_LOOP = (
    "pipe = p('/d')\npipe.build()\n"
    "for i in range(2):\n"
    "    (x,) = pipe.run()\n"
    "    print(len(x))\n"
    "{between}"
    "    x = {convert}\n"
    "    print(x.shape, x[0])\n"
    "print(x[0][0])\n"
)


@pytest.mark.parametrize("convert", ["x.as_cpu().as_array()", "x.as_array()", "x.at(0)", "np.asarray(x.as_array())"])
def test_a_name_rebound_to_the_array_of_its_output_converts(convert):
    source = "import numpy as np\n" + PIPE + REBOUND_LOOP.format(between="", convert=convert)
    out, result = migrate_text(source)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "next(pipe)" in out and "x.batch_size" in out  # a read before the rebinding: an output
    assert "print(x.shape, x[0])" in out and "print(x[0][0])" in out  # after it: the numpy array, as written
    assert ".as_array()" not in out and ".at(" not in out


@pytest.mark.parametrize(
    "between, convert",
    [
        ("    if i:\n        break\n", "x.as_array()"),  # may leave the loop holding the output
        ("    if i:\n        continue\n", "x.as_array()"),
        ("", "x.as_tensor()"),  # a TensorCPU in pipeline mode, not a numpy array
        ("", "np.asarray(x)"),  # a TensorList to numpy: not the same value in dynamic mode
        ("", "y.as_array() if False else x.as_array()"),
    ],
)
def test_a_rebinding_that_does_not_convert_in_straight_line_code_blocks(between, convert):
    source = "import numpy as np\n" + PIPE + "y = None\n" + REBOUND_LOOP.format(between=between, convert=convert)
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"] and "also holds other values" in human[0].message
    assert TODO.sub("", out) == source


def test_a_rebinding_read_by_a_nested_function_or_in_a_try_blocks():
    nested = PIPE + "pipe = p('/d')\npipe.build()\n(x,) = pipe.run()\nshow = lambda: x\nx = x.as_array()\n"
    tried = (
        PIPE
        + "pipe = p('/d')\npipe.build()\ntry:\n    (x,) = pipe.run()\n    x = x.as_array()\nexcept ValueError:\n    print(x)\n"
    )
    for source in (nested, tried):
        human = [d for d in migrate_text(source)[1].diagnostics if d.needs_human]
        assert [d.code for d in human] == ["NDD008"], source


# -- a pipeline kept in an attribute of `self` (ndd_migrate.model.values.attributes) ---------------------------------
LOADER = (
    "class Loader:\n"
    "    def __init__(self, root):\n"
    "        self.pipe = p(root)\n"
    "        self.pipe.build()\n\n"
    "    def __len__(self):\n"
    "        return 3\n\n"
    "    def first(self):\n"
    "        (x,) = self.pipe.run()\n"
    "        return x.at(0)\n\n"
    "    def both(self):\n"
    "        return [self.pipe.run()[0].at(0) for _ in range(len(self))]\n"
    "{more}\n\n"
    "loader = Loader('/d')\n"
    "{outside}"
)


def test_an_attribute_set_once_in_init_and_used_in_methods_is_followed():
    out, result = migrate_text(PIPE + LOADER.format(more="", outside="print(loader.first(), len(loader))\n"))
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "self.pipe = p(root)" in out and ".build()" not in out
    assert "(x,) = next(self.pipe)" in out and "next(self.pipe)[0].tensors[0]" in out


def test_an_attribute_set_once_in_another_method_is_followed():
    """Lightning's `setup()` stores the pipeline; `__init__` does not: one store is one value."""
    source = PIPE + LOADER.format(more="", outside="loader.setup('/e')\nprint(loader.first())\n").replace(
        "    def __init__(self, root):\n        self.pipe = p(root)\n        self.pipe.build()\n",
        "    def setup(self, root):\n        self.pipe = p(root)\n        self.pipe.build()\n",
    ).replace("loader = Loader('/d')", "loader = Loader()")
    out, result = migrate_text(source)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "def setup(self, root):\n        self.pipe = p(root)\n" in out and "(x,) = next(self.pipe)" in out


@pytest.mark.parametrize(
    "more, outside",
    [
        ("", "loader.pipe.run()\n"),  # read on the object, outside the class
        ("\n    def reset(self):\n        self.pipe = p('/e')\n", ""),  # stored twice
        ("\n    def later(self):\n        return lambda: self.pipe.run()\n", ""),  # a nested function reads it
        ("\n    def named(self):\n        return getattr(self, 'pipe')\n", ""),  # spelled as a string
        ("\n    @staticmethod\n    def other(self):\n        return self.pipe.run()\n", ""),  # not an instance method
        ("\n    def rebind(self, other):\n        self = other\n        return self.pipe.run()\n", ""),
        ("", "\n\nclass Child(Loader):\n    pass\n"),  # a subclass could use it too
        # deleted in a nested function (a `del` directly in a method ends it in both versions alike)
        ("\n    def drop(self):\n        def go():\n            del self.pipe\n\n        go()\n", ""),
        ("", "\n\nloader = Loader()\ndel loader.pipe\n"),  # deleted on another object
    ],
)
def test_an_attribute_not_surely_one_value_blocks(more, outside):
    source = PIPE + LOADER.format(more=more, outside=outside)
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"], [d.message for d in human]
    assert "stored in an attribute" in human[0].message and "set `self.pipe` once, by one method," in human[0].hint
    assert TODO.sub("", out) == source


def test_an_unfollowed_use_of_an_attribute_names_it():
    source = PIPE + LOADER.format(more="\n    def show(self):\n        register(self.pipe)\n", outside="")
    human = [d for d in migrate_text(source)[1].diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"]
    assert "`self.pipe` (a `p` pipeline) is passed to `register()`" in human[0].message


def test_a_pipeline_function_put_in_a_table_says_so():
    source = PIPE + "TABLE = [[p, (0, 1)]]\nfor make, _ in TABLE:\n    pipe = make('/d')\n"
    human = [d for d in migrate_text(source)[1].diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"]
    assert "`p` itself (not a pipeline made by it) is put in a container" in human[0].message
    assert "call `p(...)` by its name where each pipeline is made" in human[0].hint


SIZED = (
    "class Sized:\n"
    "    def __init__(self):\n"
    "        self.pipe = p('/d')\n"
    "        self.pipe.build()\n"
    "        self.n = self.pipe.epoch_size('Reader')\n"
    "{more}\n"
    "    def __len__(self):\n"
    "        return self.n\n"
)


def test_the_epoch_size_of_an_attribute_is_read_from_the_metadata_beside_it():
    out, result = migrate_text(PIPE + SIZED.format(more=""))
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "self.pipe_meta, self.pipe = p('/d')" in out and "self.n = self.pipe_meta['epoch_size']" in out


def test_the_epoch_size_of_an_attribute_whose_meta_name_is_taken_blocks():
    source = PIPE + SIZED.format(more="        self.pipe_meta = None\n")
    human = [d for d in migrate_text(source)[1].diagnostics if d.needs_human]
    assert [d.code for d in human] == ["NDD008"] and "`.epoch_size()` is called on `self.pipe`" in human[0].message


def test_two_loader_classes_each_with_its_own_attribute_convert():
    other = (
        "\n\nclass Other:\n    def __init__(self):\n        self.pipe = p('/e')\n        self.pipe.build()\n\n"
        "    def get(self):\n        return self.pipe.run()[0].at(0)\n"
    )
    out, result = migrate_text(PIPE + LOADER.format(more="", outside="print(loader.first())\n") + other)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "next(self.pipe)[0].tensors[0]" in out and "(x,) = next(self.pipe)" in out and ".build()" not in out


# Pipeline functions used as values: a display of them followed through the loops that give them
# out, each name called to make pipelines (followed as `pipe = p(...)`) or read as `__name__`.
TWO = PIPE.replace("def p(root)", "def q(root)") + PIPE.split("\n\n\n", 1)[1]
HELD_CLAIMED = [
    "for make in (p, q):\n    pipe = make('/d')\n    pipe.build()\n    print(make.__name__, pipe.run()[0].at(0))\n",
    "HELD = {p: ['/d'], q: ['/e']}\nfor make in HELD:\n    for root in HELD[make]:\n        pipe = make(root)\n"
    "        pipe.build()\n        print(pipe.run()[0].at(0))\n",
    "HELD = {p: '/d', q: '/e'}\nfor make in HELD.keys():\n"
    "    pipes = [make(HELD[make], seed=i) for i in range(2)]\n    [x.build() for x in pipes]\n"
    "    print(make.__name__, [x.run()[0].at(0) for x in pipes])\n",
    "HELD = {'a': p, 'b': q}\nfor label, make in HELD.items():\n    pipe = make('/d')\n    pipe.build()\n"
    "    print(label, pipe.run()[0].at(0))\nfor make in HELD.values():\n    print(make.__name__)\n",
    # a name bound in a loop over the display, then to one of them: one group of both
    "for make in [p, q]:\n    pipe = make('/d')\n    pipe.build()\n    print(pipe.run()[0].at(0))\n"
    "pipe = p('/e')\npipe.build()\nprint(pipe.run()[0].at(0))\n",
    # a value looked up by its key: the function it maps to, called there or through a name
    "HELD = {'a': p, 'b': q}\npipe = HELD['a']('/d')\npipe.build()\nprint(pipe.run()[0].at(0))\n"
    "make = HELD['b']\nother = make('/e')\nother.build()\nprint(other.run()[0].at(0))\n",
]


@pytest.mark.parametrize("use", HELD_CLAIMED)
def test_pipeline_functions_held_in_a_display_convert(use):
    out, result = migrate_text(TWO + use)
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "@pipeline_def" not in out and ".run()" not in out and ".build()" not in out and ".at(" not in out
    assert migrate_text(out)[0] == out


def test_a_setting_given_through_the_held_name_becomes_a_parameter():
    out, _ = migrate_text(
        TWO + "for make in [p, q]:\n    pipe = make('/d', seed=5)\n    pipe.build()\n    pipe.run()\n"
    )
    assert (
        out.count("def p(root, *, batch_size=2, seed=None)") == 1
        and out.count("def q(root, *, batch_size=2, seed=None)") == 1
    )


HELD_BLOCKING = [
    (
        "for make in (p, q):\n    kept.append(make)\n",
        "`make` (one of `p`/`q` itself, not a pipeline made by it) is passed to `kept.append()`",
    ),
    ("HELD = [p, q]\nprint(HELD)\n", "`HELD` (holding `p`/`q` themselves) is passed to `print()`"),
    ("HELD = [p, q]\npipe = HELD[0]('/d')\n", "`HELD` (holding `p`/`q` themselves) is indexed"),
    (
        "HELD = {p: 1, q: 2}\nfor item in HELD.items():\n    print(item)\n",
        "iterated into a target that is not one plain name",
    ),
    ("for i, make in enumerate([p, q]):\n    make('/d')\n", "passed to `enumerate()`"),
    # bound in a loop over the display, then to one of them: the group is of both functions
    ("for make in [p, q]:\n    pipe = make('/d')\npipe = p('/e')\nkept.append(pipe)\n", "passed to `kept.append()`"),
    ("for make in (p, q):\n    make('/d', prefetch_queue_depth=3)\n", "it passes `prefetch_queue_depth`"),
    ("for make in (p, q):\n    make(**{'root': '/d'})\n", "it passes `**{'root': '/d'}`"),
    ("for make in (p, q):\n    make('/d')\n    make = None\n", ""),  # rebound: no longer surely a pipeline function
]


@pytest.mark.parametrize("use, said", HELD_BLOCKING)
def test_pipeline_functions_held_otherwise_stay(use, said):
    source = TWO + "kept = []\n" + use
    out, result = migrate_text(source)
    human = [d for d in result.diagnostics if d.needs_human]
    # one finding at the use, naming both pipelines it keeps
    assert [d.code for d in human] == ["NDD008"], [d.message for d in human]
    assert human[0].message.startswith("`p`, `q` not migrated: ") and said in human[0].message
    assert TODO.sub("", out) == source


SHOWN = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p():\n"
    "    return fn.random.uniform()\n\n\n"
    "pipe = p()\n"
    "pipe.build()\n"
    "out = pipe.run()\n"
    "{use}\n"
)


@pytest.mark.parametrize("use", ["print(out)", "print(out[0])", "print(repr(pipe))", "del pipe", "del out"])
def test_showing_or_deleting_a_value_does_not_block_its_pipeline(use):
    """`print`, `repr` and `del` mean the same for the migrated value (only its text differs)."""
    out, result = migrate_text(SHOWN.format(use=use))
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "out = next(pipe)\n" + use + "\n" in out


def test_a_shadowed_print_is_not_taken_for_the_builtin():
    """A callee of the module named like the builtin is followed as any other."""
    text = "def print(x):\n    x.build()\n\n\n" + SHOWN.format(use="print(pipe)")
    out, result = migrate_text(text)
    assert "def print(x):\n    pass\n" in out and "print(pipe)\n" in out  # followed in: `build()` goes
    assert [d for d in result.diagnostics if d.needs_human] == []


MADE_ELSEWHERE = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p():\n"
    "    return fn.random.uniform()\n\n\n"
    "{consumer}"
)
CONSUMER = (
    "class Loader:\n"
    "    def __init__(self, pipelines):\n"
    "        self.pipes = pipelines\n"
    "        self.batch = pipelines[0].max_batch_size\n\n"
    "    def __next__(self):\n"
    "        return [pipe.share_outputs() for pipe in self.pipes]\n"
)


def test_a_pipeline_made_elsewhere_stays_beside_code_that_consumes_pipelines():
    """DLE SSD's shape: a pipeline only other modules make, and a hand-written iterator that calls
    pipeline-only API on the pipelines it is given: they may be this one."""
    text = MADE_ELSEWHERE.format(consumer=CONSUMER)
    out, result = migrate_text(text)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert found.code == "NDD008" and "`Loader` calls `.max_batch_size`" in found.message
    assert re.sub(r"(?m)^[ \t]*# (TODO\(ndd-migrate\):|  ).*\n", "", out) == text


@pytest.mark.parametrize(
    "consumer",
    [
        "",  # nothing consumes pipelines here
        CONSUMER + "\n\npipe = p()\npipe.build()\n(x,) = pipe.run()\n",  # made here: its values are followed
    ],
)
def test_a_pipeline_without_such_code_or_made_here_converts(consumer):
    out, result = migrate_text(MADE_ELSEWHERE.format(consumer=consumer))
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "@pipeline_def" not in out


def test_a_second_run_beside_code_consuming_pipelines_changes_nothing():
    """The consumer reported is the same in every run: the first in the file that no TODO of
    another finding marks (a use a first run left for a human does not move the report)."""
    marked = "def size(pipe):\n    # TODO(ndd-migrate): NDD005 use `pipe_meta`\n    return pipe.epoch_size()\n\n\n"
    text = MADE_ELSEWHERE.format(consumer=marked + CONSUMER)
    out, result = migrate_text(text)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert "`Loader` calls `.max_batch_size`" in found.message
    assert migrate_text(out)[0] == out


def test_a_todo_at_a_pipeline_blocked_elsewhere_quotes_the_code_not_the_line():
    """Two pipelines blocked by one consumer: the second's reason is said at its definition, and
    quoting a line number there would change when the first run adds its TODOs."""
    builders = "".join(
        f"class {name}:\n"
        "    @pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "    def pipeline(self):\n"
        "        return fn.random.uniform()\n\n\n"
        for name in ("Train", "Val")
    )
    out, _ = migrate_text("from nvidia.dali import fn, pipeline_def\n\n\n" + builders + CONSUMER)
    assert "not migrated: at `" in out and "at line" not in out
    assert migrate_text(out)[0] == out


SIZED_CLASS = (
    "class Sized{bases}:\n"
    "{new}"
    "    def __init__(self, n):\n"
    "        self.n = n\n\n"
    "    def epoch_size(self, name):\n"
    "        return self.n\n\n\n"
    "def report(given):\n"
    "    sized = {value}\n"
    '    return sized.epoch_size("Reader")\n'
)


def test_a_consumer_of_an_instance_of_a_class_of_the_module_does_not_keep_a_pipeline_made_elsewhere():
    """atlas_sr's shape: `.epoch_size("Reader")` on a name bound only by a call of a class the
    module defines, which neither is the pipeline nor derives from it: that value is not the
    pipeline, wherever the pipeline is made."""
    out, result = migrate_text(MADE_ELSEWHERE.format(consumer=SIZED_CLASS.format(bases="", new="", value="Sized(4)")))
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "@pipeline_def" not in out and 'return sized.epoch_size("Reader")' in out


@pytest.mark.parametrize(
    ("bases", "new", "value"),
    [
        ("", "", "given"),  # a parameter: it may be the pipeline
        ("", "", "Sized(4) if given else given"),  # not only a call of the class
        ("", "    def __new__(cls, n):\n        return n\n\n", "Sized(4)"),  # a call may give anything
        ("(Base)", "", "Sized(4)"),  # a base from elsewhere
        ("(metaclass=Meta)", "", "Sized(4)"),
    ],
)
def test_a_consumer_of_a_value_that_may_be_the_pipeline_keeps_it(bases, new, value):
    head = "from elsewhere import Base, Meta\n"
    text = head + MADE_ELSEWHERE.format(consumer=SIZED_CLASS.format(bases=bases, new=new, value=value))
    _, result = migrate_text(text)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert found.code == "NDD008" and "`report` calls `.epoch_size`" in found.message


def test_the_item_of_the_epoch_sizes_by_reader_name_is_the_one_readers_metadata():
    """`pipe.epoch_size()` is a dict by reader name: its item for the one reader's name is
    `pipe.epoch_size("Reader")` (DALI 2.4 `Pipeline.epoch_size`)."""
    out, result = migrate_text(PIPE + "pipe = p('/d')\nn = pipe.epoch_size()['Reader'] // 2\n")
    assert [d for d in result.diagnostics if d.needs_human] == [], [d.message for d in result.diagnostics]
    assert "n = pipe_meta['epoch_size'] // 2\n" in out


@pytest.mark.parametrize("item", ["['Other']", "[name]", ".get('Reader')"])
def test_another_use_of_the_epoch_sizes_by_reader_name_is_marked(item):
    _, result = migrate_text(PIPE + f"name = 'Reader'\npipe = p('/d')\nn = pipe.epoch_size(){item}\n")
    human = [d for d in result.diagnostics if d.needs_human]
    assert human and "without one reader name gives a dict by reader name" in human[0].message


WRAPS_DALI = (
    "from nvidia.dali.plugin.pytorch import DALIClassificationIterator\n\n\n"
    "class DaliIterator:\n"
    "    def __init__(self, pipelines, size):\n"
    "        self._it = DALIClassificationIterator(pipelines=pipelines, size=size)\n\n"
    "    def __iter__(self):\n"
    "        return (batch[0]['data'] for batch in self._it)\n"
)
DERIVES_FROM_DALI = (
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n\n"
    "class DALIDataloader(DALIGenericIterator):\n"
    "    def __init__(self, pipeline):\n"
    "        self.n = pipeline.iterator.size  # an attribute of the user's Pipeline subclass\n"
    "        super().__init__(pipelines=pipeline, size=self.n, output_map=['data'])\n"
)


def test_a_pipeline_made_elsewhere_stays_beside_code_that_runs_dalis_iterator_on_what_it_is_given():
    """A module of pipelines only other modules make, and a subclass of DALI's iterator that keeps
    DALI's base and hands it what it is given: they may be these pipelines, which DALI's iterator
    needs as `Pipeline`s."""
    text = MADE_ELSEWHERE.format(consumer=DERIVES_FROM_DALI)
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human and d.code == "NDD008"]
    said = "`DALIDataloader` runs, as its base, DALI's `DALIGenericIterator` on a pipeline it is given"
    assert found and said in found[0].message
    assert "@pipeline_def" in out and migrate_text(out)[0] == out


def test_a_pipeline_made_elsewhere_converts_beside_a_wrapper_of_dalis_iterator():
    """The same beside a class wrapping DALI's iterator: the iterator it makes becomes the support
    module's, which takes these pipelines migrated and hands pipeline-mode ones to DALI's class.
    Before, the pipeline stayed: "`DaliIterator` runs DALI's `DALIClassificationIterator` on a
    pipeline it is given"."""
    out, result = migrate_text(MADE_ELSEWHERE.format(consumer=WRAPS_DALI))
    assert [d.message for d in result.diagnostics if d.needs_human] == []
    assert "from ndd_support import DALIClassificationIterator" in out and "@pipeline_def" not in out
    assert migrate_text(out)[0] == out

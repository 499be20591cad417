"""``*args``/``**kwargs`` passed up a family of ``Pipeline`` subclasses
(ndd_migrate.model.sources.init_binding): each flattened class's ``__init__`` must do what Python
did, the parent's ``**kw`` a fresh dict where anything could tell. Each case runs the original and
the flattened classes over a stand-in ``Pipeline`` that records its settings, and compares what
the objects hold."""

from __future__ import annotations

import copy

import libcst as cst
import pytest

from ndd_migrate.model.sources import subclasses
from tests.conftest import migrate_text

STAND_IN = (
    "class Pipeline:\n"
    "    def __init__(self, *args, **kwargs):\n"
    "        self.settings = (args, kwargs)\n\n\n"
    "class Op:\n"
    "    def __init__(self, **kwargs):\n"
    "        self.kwargs = kwargs\n\n"
    "    def __eq__(self, other):\n"
    "        return vars(self) == vars(other)\n\n\n"
)


def flattened(source: str) -> subclasses.Flattened:
    return subclasses.flatten(cst.parse_module(source))


def objects(code: str, calls: str) -> list[dict]:
    """``vars()`` of each object the expressions of ``calls`` (one a line) make, run in ``code``."""
    scope: dict = {}
    exec(STAND_IN, scope)
    exec(code, scope)
    return [copy.deepcopy(vars(eval(line, scope))) for line in calls.strip().splitlines()]


def same_objects(source: str, calls: str) -> str:
    """The flattened module's code, once its objects are checked to be the original's."""
    flat = flattened(source)
    assert flat.families and not flat.refused, flat.refused
    assert objects(flat.module.code, calls) == objects(source, calls)
    return flat.module.code


def init_of(code: str, name: str) -> str:
    module = cst.parse_module(code)
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == name)
    return module.code_for_node(next(s for s in cls.body.body if s.name.value == "__init__"))


BASE_KWARGS = (
    "class Base(Pipeline):\n"
    "    def __init__(self, batch_size, num_threads, device_id, **kwargs):\n"
    "        super().__init__(batch_size, num_threads, device_id, seed=kwargs['seed'])\n"
    "        self.kwargs = kwargs\n"
    "        self.dim = kwargs['dim']\n"
    "        self.input = self.reader(kwargs['root'])\n\n"
    "    def reader(self, root):\n"
    "        return Op(root=root, seed=self.kwargs['seed'], shuffle=self.kwargs.get('shuffle', False))\n\n"
    "    def define_graph(self):\n"
    "        return self.input()\n\n\n"
)


def test_kwargs_passed_up_and_only_read_are_the_subclass_own():
    """The base keeps the dict (``self.kwargs = kwargs``) and reads it, the subclass reads it after
    the call: nothing changes it, so the base's ``kwargs`` is the subclass's, without a copy; the
    reader made by a method is made in ``__init__``, where the call was."""
    code = same_objects(
        BASE_KWARGS + "class A(Base):\n"
        "    def __init__(self, batch_size, num_threads, device_id, **kwargs):\n"
        "        super().__init__(batch_size, num_threads, device_id, **kwargs)\n"
        "        self.extra = kwargs['extra']\n\n\n",
        "A(2, 1, 0, seed=3, dim=2, root='/r', extra=5)\nA(4, 2, None, seed=1, dim=3, root='/s', extra=1, shuffle=True)",
    )
    init = init_of(code, "A")
    assert "\n        kwargs = " not in init and "self.reader" not in code
    assert "self.input = Op(root=kwargs['root'], seed=self.kwargs['seed']" in init


def test_extra_keywords_make_a_fresh_dict():
    """``super().__init__(..., dim=2, **kwargs)``: the base's ``kwargs`` holds ``dim`` and the
    subclass's entries, in that order; the subclass's own dict does not get ``dim``."""
    code = same_objects(
        BASE_KWARGS + "class A(Base):\n"
        "    def __init__(self, batch_size, num_threads, device_id, **kwargs):\n"
        "        self.before = kwargs\n"
        "        super().__init__(batch_size, num_threads, device_id, dim=2, **kwargs)\n\n\n",
        "A(2, 1, 0, seed=3, root='/r')",
    )
    assert 'kwargs = {"dim": 2, **kwargs}' in init_of(code, "A")


def test_a_base_changing_its_kwargs_gets_a_copy():
    """The base pops an entry: its ``kwargs`` is a copy, under the subclass's name where the
    subclass no longer reads its own, under the base's own name where the names differ."""
    base = (
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, **opts):\n"
        "        super().__init__(batch_size, seed=opts.pop('seed'))\n"
        "        self.opts = opts\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n\n"
    )
    code = same_objects(
        base + "class A(Base):\n"
        "    def __init__(self, batch_size, **kwargs):\n"
        "        super().__init__(batch_size, **kwargs)\n"
        "        self.mine = kwargs\n\n\n",
        "A(2, seed=3, root='/r')",
    )
    assert "opts = {**kwargs}" in init_of(code, "A")


def test_a_dict_changed_through_its_alias_in_a_method_is_copied():
    """``self.kwargs = kwargs`` in the base, ``self.kwargs['seen'] = True`` in ``define_graph``:
    the subclass's dict must not see it, so the base's is a copy."""
    source = (
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, **kwargs):\n"
        "        super().__init__(batch_size)\n"
        "        self.kwargs = kwargs\n\n"
        "    def define_graph(self):\n"
        "        self.kwargs['seen'] = True\n"
        "        return self.input()\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, batch_size, **kwargs):\n"
        "        self.mine = kwargs\n"
        "        super().__init__(batch_size, **kwargs)\n\n\n"
    )
    assert "kwargs = {**kwargs}" in init_of(same_objects(source, "A(2, x=1)"), "A")


def test_a_subclass_reading_its_kwargs_after_a_base_changed_them_is_refused():
    source = (
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, **kwargs):\n"
        "        super().__init__(batch_size, seed=kwargs.pop('seed'))\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, batch_size, **kwargs):\n"
        "        super().__init__(batch_size, **kwargs)\n"
        "        self.seed = kwargs['seed']\n\n\n"
    )
    flat = flattened(source)
    assert not flat.families
    assert "`A.__init__` reads `kwargs` after the call" in flat.refused["Base"].message


def test_named_parameters_come_out_of_kwargs():
    """``def __init__(self, **kwargs): super().__init__(**kwargs)`` into named parameters: each
    is the dict's entry, or its default where the dict may lack it."""
    code = same_objects(
        "class Base(Pipeline):\n"
        "    def __init__(self, data_paths, batch_size, num_threads, device_id, prefetch=2):\n"
        "        super().__init__(batch_size, num_threads, device_id, prefetch_queue_depth=prefetch)\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, **kwargs):\n"
        "        super(A, self).__init__(**kwargs)\n"
        "        self.input = Op(path=kwargs['data_paths'][0], shard=kwargs['device_id'])\n\n\n",
        "A(batch_size=2, num_threads=1, device_id=0, data_paths=['/a'])\n"
        "A(batch_size=2, num_threads=1, device_id=0, data_paths=['/a'], prefetch=3)",
    )
    init = init_of(code, "A")
    assert 'batch_size = kwargs["batch_size"]' in init and 'prefetch = kwargs.get("prefetch", 2)' in init


@pytest.mark.parametrize(
    ("passed", "expected"),
    [
        ("super().__init__(batch_size, *args)", None),
        ("super().__init__(batch_size, 7, *args)", "rest = (7, *args)"),
        ("super().__init__(batch_size, 7)", "rest = (7,)"),
    ],
)
def test_star_args_passed_up(passed, expected):
    code = same_objects(
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, *rest):\n"
        "        super().__init__(batch_size)\n"
        "        self.rest = rest\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, batch_size, *args):\n"
        f"        {passed}\n\n\n",
        "A(2)\nA(2, 'x', 'y')",
    )
    init = init_of(code, "A")
    assert (expected in init) if expected else ("\n        rest = " not in init and "self.rest = args" in init)


def test_the_family_converts_with_kwargs_in_the_generator_signature():
    """Migrated: each subclass a generator keeping ``**kwargs``; the base gone."""
    source = (
        "import sys\nimport nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, num_threads, device_id, **kwargs):\n"
        "        super().__init__(batch_size, num_threads, device_id)\n"
        "        self.kwargs = kwargs\n"
        "        self.files = self.reader(kwargs['root'])\n\n"
        "    def reader(self, root):\n"
        "        return ops.readers.Numpy(file_root=root, seed=self.kwargs['seed'])\n\n"
        "    def define_graph(self):\n"
        "        data = self.files()\n"
        "        return data\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, batch_size, num_threads, device_id, **kwargs):\n"
        "        super().__init__(batch_size, num_threads, device_id, **kwargs)\n\n\n"
        "pipe = A(2, 1, None, root=sys.argv[1], seed=3)\npipe.build()\nout = pipe.run()\n"
    )
    out, result = migrate_text(source)
    assert "TODO(ndd-migrate)" not in out, out
    assert "def A(batch_size, num_threads, device_id, **kwargs):" in out
    assert "ndd.readers.Numpy(file_root=kwargs['root'], seed=kwargs['seed'])" in out and "class " not in out


REBINDING_BASE = (
    "class Base(Pipeline):\n"
    "    def __init__(self, batch_size, crop, factor=2):\n"
    "        super().__init__(batch_size)\n"
    "        crop = crop - crop % factor\n"
    "        self.resize = Op(size=crop // factor)\n\n"
    "    def define_graph(self):\n"
    "        return self.resize(self.input())\n\n\n"
)


def test_a_parameter_the_base_assigns_again_is_handed_over_or_assigned_first():
    """``crop = crop - crop % factor`` in the base: the subclass's own ``crop``, passed as it is
    and not read after the call, is the base's to change; another argument is assigned first
    (``crop = size``), never put in place of a name the base assigns."""
    same = same_objects(
        REBINDING_BASE + "class A(Base):\n"
        "    def __init__(self, batch_size, crop):\n"
        "        super().__init__(batch_size, crop)\n"
        "        self.input = Op(name='files')\n\n\n",
        "A(2, 33)\nA(2, 64)",
    )
    assert "crop = crop - crop % 2" in init_of(same, "A")
    other = same_objects(
        REBINDING_BASE + "class B(Base):\n"
        "    def __init__(self, batch_size, size):\n"
        "        super().__init__(batch_size, size, 4)\n"
        "        self.input = Op(name='files', size=size)\n\n\n",
        "B(2, 33)",
    )
    assert "crop = size\n" in init_of(other, "B") and "crop = crop - crop % 4" in init_of(other, "B")


def test_a_parameter_the_base_assigns_again_and_the_subclass_reads_after_is_refused():
    flat = flattened(
        REBINDING_BASE + "class A(Base):\n"
        "    def __init__(self, batch_size, crop):\n"
        "        super().__init__(batch_size, crop)\n"
        "        self.input = Op(name='files', crop=crop)\n\n\n"
    )
    assert not flat.families
    assert "assigns its parameter `crop` again, and `A.__init__` reads its own after the call" in (
        flat.refused["Base"].message
    )


def test_a_name_the_subclass_takes_itself_is_never_in_its_kwargs():
    """``size`` is a parameter of the subclass, which does not pass it up: its ``**kwargs`` cannot
    hold it, so the base's ``size`` is its default, whatever the call gave the subclass."""
    code = same_objects(
        "class Base(Pipeline):\n"
        "    def __init__(self, batch_size, size=None, seed=1):\n"
        "        super().__init__(batch_size, seed=seed)\n"
        "        self.size = size\n\n"
        "    def define_graph(self):\n"
        "        return self.input()\n\n\n"
        "class A(Base):\n"
        "    def __init__(self, batch_size, size=None, **kwargs):\n"
        "        super().__init__(batch_size, **kwargs)\n"
        "        self.input = Op(size=size)\n\n\n",
        "A(2, size=4, seed=3)\nA(2)",
    )
    init = init_of(code, "A")
    assert "self.size = None" in init and 'seed = kwargs.get("seed", 1)' in init

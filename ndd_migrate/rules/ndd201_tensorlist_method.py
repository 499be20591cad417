"""NDD201 tensorlist-method: ``TensorList`` methods on pipeline outputs become ``Batch`` equivalents."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider, ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses

#: The numpy calls that convert an ndd ``Tensor`` themselves (``Tensor.__array__``).
_NUMPY_CONVERSIONS = frozenset({"numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"})
#: The torch calls that read a ``TensorCPU`` and a numpy array alike (through the array interface).
_TENSOR_READERS = frozenset({"torch.tensor", "torch.as_tensor"})

RULE = Rule(
    code="NDD201",
    name="tensorlist-method",
    summary="`TensorList` methods on `pipe.run()` outputs have `Batch` counterparts",
    what=(
        "On outputs of a migrated pipeline: `out.at(i)` → `np.asarray(out.tensors[i])`, "
        "`out.as_array()` / `out.as_tensor()` → `np.asarray(ndd.as_tensor(out))` (and "
        "`out.as_tensor().shape()` → `list(ndd.as_tensor(out).shape)`, on either device), `out.as_cpu()` → "
        '`out.cpu()`, `out.shape()` → the property `out.shape`, `out.layout()` → `(out.layout or "")` '
        '(a `Batch` without a layout has `None`, a `TensorList` `""`), `out.is_dense_tensor()` → '
        "`(len(set(out.shape)) <= 1)`. Other `TensorList` methods are marked where they are; other uses of "
        "the tensor `as_tensor()` gives keep the pipeline unconverted (NDD008). Given to numpy already "
        "(`np.asarray(out.at(i))`, `np.array(out.as_array())`), the value is converted once: "
        "`np.asarray(out.tensors[i])`, `np.array(ndd.as_tensor(out))`."
    ),
    why="A dynamic-mode `Batch` has none of these methods; the calls would raise `AttributeError`.",
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Equivalent values. `ndd.as_tensor` of a ragged batch raises, as `as_array()` did; "
        "`ndd.as_tensor(out, pad=True)` pads instead."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[3])\n\n\n"
                "pipe = p()\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
                "print(x.at(0), x.as_array().mean(), x.layout(), x.shape())\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[3], batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "(x,) = next(pipe)\n"
                'print(np.asarray(x.tensors[0]), np.asarray(ndd.as_tensor(x)).mean(), (x.layout or ""), x.shape)\n'
            ),
        ),
        Example(
            title="already given to numpy",
            before=(
                "import numpy as np\n"
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[3])\n\n\n"
                "pipe = p()\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
                "print(np.asarray(x.at(0)), np.array(x.as_array(), dtype=np.float64))\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def p(*, batch_size=2):\n"
                "    while True:\n"
                "        yield ndd.random.uniform(shape=[3], batch_size=batch_size).evaluate(),\n\n\n"
                "pipe = p()\n"
                "(x,) = next(pipe)\n"
                "print(np.asarray(x.tensors[0]), np.array(ndd.as_tensor(x), dtype=np.float64))\n"
            ),
        ),
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def claims(self, use):
        """Every method call on an output: rewritten, kept (``cpu()``/``gpu()`` exist on ``Batch``),
        or marked where it would fail."""
        if use.kind is not Kind.BATCH or use.context != uses.METHOD:
            return None
        if use.detail == "as_tensor" and not self._tensor_use_rewritten(use.holder):
            return (
                "the `TensorCPU` that `.as_tensor()` gives is used where the numpy array it becomes behaves otherwise"
            )
        return self.ctx.applies(self.code, use.holder) or None

    def _tensor_use_rewritten(self, call: cst.Call) -> bool:
        """What ``out.as_tensor()`` gives (a ``TensorCPU``) is used only where the numpy array it
        becomes behaves the same: read by numpy or ``torch.tensor``/``torch.as_tensor``, or its
        ``.shape()`` (rewritten). Bound to one plain name, every read of the name is such a use:
        ``t.shape()`` would call the array's shape tuple, ``feed_ndarray(t, ...)`` reads DALI's
        type of ``t``, ``print(t)`` shows another text."""
        above = self.ctx.model.parents.get(call)
        if isinstance(above, cst.Assign) and above.value is call:
            reads = self._reads_of_target(above)
            return reads is not None and all(self._array_use(read, shape_call=False) for read in reads)
        return self._array_use(call, shape_call=True)

    def _array_use(self, node: cst.BaseExpression, shape_call: bool) -> bool:
        """Is ``node`` (a ``TensorCPU`` in pipeline mode) read as an array: an argument of numpy,
        the first of ``torch.tensor``/``torch.as_tensor``, or (``shape_call``) ``node.shape()``?"""
        parents = self.ctx.model.parents
        above = parents.get(node)
        if isinstance(above, cst.Attribute) and above.value is node:
            call = parents.get(above)
            return (
                shape_call
                and above.attr.value == "shape"
                and isinstance(call, cst.Call)
                and call.func is above
                and not call.args
            )
        outer = parents.get(above)
        if not (isinstance(above, cst.Arg) and above.keyword is None and not above.star):
            return False
        if not isinstance(outer, cst.Call) or above not in outer.args:
            return False
        quals = {q.name for q in self.ctx.resolver.get_metadata(QualifiedNameProvider, outer.func, None) or ()}
        first = outer.args[0] is above
        return bool(quals) and all(q.startswith("numpy.") or (first and q in _TENSOR_READERS) for q in quals)

    def _reads_of_target(self, assign: cst.Assign) -> list[cst.CSTNode] | None:
        """The reads of the one plain name ``assign`` binds (None: another target)."""
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
            return None
        target = assign.targets[0].target
        scope = self.ctx.resolver.get_metadata(ScopeProvider, assign, None)
        if scope is None:
            return None
        return [
            access.node
            for assignment in scope.assignments[target.value]
            if getattr(assignment, "node", None) is target
            for access in assignment.references
        ]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not isinstance(func, cst.Attribute) or not isinstance(updated, cst.Call):
            return updated
        if self._tensor_shape(original):
            # `out.as_tensor().shape()`: the inner call is already `np.asarray(ndd.as_tensor(out))`;
            # the shape is read from the ndd tensor itself, which works on either device
            tensor = updated.func.value.args[0].value
            return cst.Call(cst.Name("list"), [cst.Arg(cst.Attribute(tensor, cst.Name("shape")))])
        if self.ctx.converted_kind(func.value, Kind.BATCH) is None:
            return updated
        method = func.attr.value
        receiver = updated.func.value
        new = self._replacement(
            method, receiver, updated, self._empty_string(original), wrap=not self._in_numpy(original)
        )
        if new is None:
            if method not in ("cpu", "gpu"):
                self.ctx.report(
                    self.code,
                    original,
                    f"`TensorList.{method}()` has no `Batch` counterpart here",
                    hint=f"rewrite `.{method}()` for an ndd Batch (see docs/target-shape.md)",
                    fixed=False,
                )
            return updated
        fixed = self.ctx.applies(self.code, original)
        self.ctx.report(self.code, original, f"`.{method}()` on a pipeline output rewritten for `Batch`", fixed=fixed)
        return new if fixed else updated

    def _empty_string(self, node: cst.CSTNode) -> str:
        """``""``, or ``''`` inside an f-string quoted with ``"`` (where ``""`` would end it)."""
        parents = self.ctx.model.parents
        current = parents.get(node)
        while current is not None and not isinstance(current, cst.FormattedString):
            current = parents.get(current)
        return "''" if current is not None and '"' in current.start else '""'

    def _in_numpy(self, call: cst.Call) -> bool:
        """``np.asarray(out.at(i))``, ``np.array(out.as_array())``: the call is the array argument
        of a numpy conversion, which converts the ndd tensor itself (no second ``np.asarray``)."""
        parents = self.ctx.model.parents
        arg = parents.get(call)
        outer = parents.get(arg)
        if not (isinstance(arg, cst.Arg) and isinstance(outer, cst.Call) and outer.args and outer.args[0] is arg):
            return False
        if arg.keyword is not None or arg.star:
            return False
        quals = self.ctx.resolver.get_metadata(QualifiedNameProvider, outer.func, None) or ()
        return len(quals) == 1 and next(iter(quals)).name in _NUMPY_CONVERSIONS

    def _replacement(
        self, method: str, receiver: cst.BaseExpression, call: cst.Call, empty: str = '""', wrap: bool = True
    ) -> cst.BaseExpression | None:
        def array(value: cst.BaseExpression) -> cst.BaseExpression:
            return cst.Call(self.ctx.numpy("asarray"), [cst.Arg(value)]) if wrap else value

        if method == "at" and len(call.args) == 1 and call.args[0].keyword is None:
            item = cst.Subscript(
                value=cst.Attribute(receiver, cst.Name("tensors")),
                slice=[cst.SubscriptElement(cst.Index(call.args[0].value))],
            )
            return array(item)
        if method in ("as_array", "as_tensor") and not call.args:
            return array(cst.Call(self.ctx.ndd("as_tensor"), [cst.Arg(receiver)]))
        if method == "as_cpu" and not call.args:
            return call.with_changes(func=cst.Attribute(receiver, cst.Name("cpu")))
        if method == "shape" and not call.args:
            return cst.Attribute(receiver, cst.Name(method))
        if method == "layout" and not call.args:
            layout = cst.Attribute(receiver, cst.Name("layout"))
            return cst.BooleanOperation(
                layout, cst.Or(), cst.SimpleString(empty), lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
            )
        if method == "is_dense_tensor" and not call.args:
            shapes = cst.Call(cst.Name("set"), [cst.Arg(cst.Attribute(receiver, cst.Name("shape")))])
            dense = [cst.ComparisonTarget(cst.LessThanEqual(), cst.Integer("1"))]
            # parenthesised: it may stand inside another comparison (`x.is_dense_tensor() == flag`)
            return cst.Comparison(
                cst.Call(cst.Name("len"), [cst.Arg(shapes)]), dense, lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
            )
        return None

    def _tensor_shape(self, call: cst.Call) -> bool:
        """``out.as_tensor().shape()`` on an output of a converted pipeline."""
        func = call.func
        inner = func.value if isinstance(func, cst.Attribute) and func.attr.value == "shape" and not call.args else None
        return (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Attribute)
            and inner.func.attr.value == "as_tensor"
            and not inner.args
            and self.ctx.converted_kind(inner.func.value, Kind.BATCH) is not None
            and self.ctx.applies(self.code, inner)
        )

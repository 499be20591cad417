"""NDD512 default-argument: an operator argument spelled out at its schema default is dropped.

This rule alone owns default values: it acts on ``ndd.*`` calls in hand-written code and on the
``fn.*`` calls a migration rewrites, so ``migrate``'s output is already clean and a second run (or
``check`` on it) finds nothing.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate import cstutil, legacy, names
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.ndd_flow import ndd_op_info, ndd_path
from ndd_migrate.rules.base import RuleImpl
from ndd_migrate.rules.tables import OpInfo, op_info

RULE = Rule(
    code="NDD512",
    name="default-argument",
    summary="an operator argument spelled out at its default value",
    what=(
        "Finds keyword arguments of ndd operator calls, and of the `fn.*` calls a migration rewrites into "
        "them, whose value is a literal (number, string, bool, a list/tuple of them) or a "
        "`nvidia.dali.types` enum constant equal to the dynamic-mode operator's schema default (from the "
        "operator table), and removes them. Reader constructors are left alone (they run once, so a "
        "spelled-out default costs nothing and documents intent). The table lists only arguments the ndd "
        "callable accepts, so arguments NDD105/NDD106 drop are never compared."
    ),
    why=(
        "A default spelled out says nothing the operator does not already do; in pipeline code it is mostly "
        "boilerplate copied from examples, and the dynamic-mode guide lists it as a slow path. Measured with "
        "DALI 2.4.0 on a shared 2-core CPU (tiny `ndd.resize` with four defaults, `ndd.flip` with two, 15 "
        "rounds, eager and deferred): no difference beyond the ±10% noise, so the gain is shorter, clearer "
        "code more than speed."
    ),
    fix_safety=FixSafety.SAFE,
    fix="Safe: the operator uses the same value when the argument is omitted. Types are compared strictly "
    "(`True` never matches `1`, `1.0` never matches an integer default; an integer matches a float default, "
    "which DALI converts), enum constants by their resolved name (`types.FLOAT` is `DALIDataType.FLOAT`). "
    "A migrated call is compared with its dynamic-mode operator's default, which for a deprecated operator "
    "may differ from the pipeline one.",
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\nfrom nvidia.dali import types\n\n\n"
                "def shrink(images):\n"
                "    return ndd.resize(images, size=[64, 64], antialias=True, interp_type=types.INTERP_LINEAR)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def shrink(images):\n"
                "    return ndd.resize(images, size=[64, 64])\n"
            ),
        ),
        Example(
            before=(
                "import nvidia.dali.fn as fn\nimport nvidia.dali.types as types\n\n\n"
                "def normalize(images):\n"
                "    return fn.crop_mirror_normalize(images, dtype=types.DALIDataType.FLOAT, mirror=0, std=[58.0])\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
                "def normalize(images):\n"
                "    return ndd.crop_mirror_normalize(images, std=[58.0])\n"
            ),
            title="a migrated call comes out without its defaults",
        ),
    ),
    valid=(
        ("import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(x):\n"
        "    return ndd.resize(x, size=[64, 64], antialias=False)\n"),
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(x, aa):\n    return ndd.resize(x, antialias=aa)\n",
        # `True` is not the integer default 1, `1.0` not the integer default 0
        ("import nvidia.dali.experimental.dynamic as ndd\n\n\ndef f(x):\n"
        "    return ndd.flip(x, horizontal=True, vertical=0.0)\n"),
        # a reader constructor runs once: its arguments stay
        "import nvidia.dali.experimental.dynamic as ndd\n\nr = ndd.readers.File(file_root='/d', random_shuffle=False)\n",
        # a shadowed ndd is not DALI
        "import mylib as ndd\n\n\ndef f(x):\n    return ndd.resize(x, antialias=True)\n",
    ),
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Call(self, original: cst.Call, updated: cst.BaseExpression) -> cst.BaseExpression:
        found = self._target(original)
        if found is None:
            return updated
        info, source, shown, args = found
        renamed = source.renamed_args if source else {}
        drop: set[str] = set()
        for arg in args:
            if arg.keyword is None or arg.star:
                continue
            name = renamed.get(arg.keyword.value, arg.keyword.value)
            if not self._is_default(info, name, arg.value):
                continue
            fixed = self.ctx.applies(self.code, arg) and isinstance(updated, cst.Call)
            self.ctx.report(self.code, arg, f"`{name}=` repeats the default of `{shown}`",
                            hint=f"drop `{name}=` (its default)", fixed=fixed)
            if fixed:
                drop.add(name)
        return cstutil.remove_kwargs(updated, drop) if drop else updated

    def _target(self, call: cst.Call) -> tuple[OpInfo, OpInfo | None, str, list[cst.Arg]] | None:
        """The dynamic-mode operator the call is (an ``ndd.*`` call) or becomes (an ``fn.*`` call, or
        a legacy ``ops`` object's call, that this run migrates), the pipeline-mode operator it comes
        from (None for an ndd call), the name to show, and the original arguments that end up in the
        ndd call."""
        path = ndd_path(self.ctx, call.func)
        source, shown, args = None, f"ndd.{path}", list(call.args)
        if path is None:
            migrated = self._migrated(call)
            if migrated is None:
                return None
            source, shown, args = migrated
            path = source.ndd
        info = ndd_op_info(path)
        if info is None or info.reader:
            return None
        return info, source, shown, args

    def _migrated(self, call: cst.Call) -> tuple[OpInfo, str, list[cst.Arg]] | None:
        """The operator of an ``fn.*`` call, or of a legacy ``self.<op>(...)`` call (its constructor's
        arguments come first), that this run rewrites to ndd; else None."""
        fn = names.fn_path(self.dali_name(call.func))
        if fn is not None:
            source = op_info(fn)
            if source is None or source.ndd is None or not self.ctx.may_rewrite_dali_calls():
                return None
            return source, f"fn.{fn}", list(call.args)
        owner = legacy.owner(self.ctx.model, self.ctx.function_stack)
        op = owner.op_calls.get(call) if owner is not None and owner.convert else None
        if op is None or op.info.ndd is None:
            return None
        return op.info, f"ops.{op.ops_path}", [*op.ctor.args, *call.args]

    def _is_default(self, info: OpInfo, name: str, value: cst.BaseExpression) -> bool:
        if name in info.defaults:
            return _same(_value(value), info.defaults[name])
        if name in info.enum_defaults:
            enum, _, member = info.enum_defaults[name].rpartition(".")
            return self.dali_name(value) in (f"{names.TYPES}.{member}", f"{names.TYPES}.{enum}.{member}")
        return False


def _value(expr: cst.BaseExpression):
    """The Python value of a literal, lists and tuples of literals included (as lists)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        items = [_value(e.value) for e in expr.elements if not isinstance(e, cst.StarredElement)]
        if len(items) != len(expr.elements) or any(i is cstutil.NOT_LITERAL for i in items):
            return cstutil.NOT_LITERAL
        return items
    return cstutil.literal_value(expr)


def _same(given, default) -> bool:
    """Would DALI see the same value? Strict about types, except that an int is a valid float."""
    if given is cstutil.NOT_LITERAL:
        return False
    if isinstance(default, bool) or isinstance(given, bool):
        return type(given) is type(default) and given == default
    if isinstance(default, float):
        return type(given) in (int, float) and given == default
    if isinstance(default, list):
        return isinstance(given, list) and len(given) == len(default) and all(map(_same, given, default))
    return type(given) is type(default) and given == default

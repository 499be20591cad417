"""A user class deriving from DALI's PyTorch iterator (``class Loader(DALIGenericIterator)``): may the
support module's iterator of the same name be its base, and what does a call of it give DALI's?

The support module's ``DALIGenericIterator``/``DALIClassificationIterator`` take the same arguments as
DALI's over migrated pipelines and keep the state subclasses read (``_first_batch``, ``_size``,
``batch_size``, ``_counter``...). A class whose body touches only that state, overrides only the
methods whose calls the support module makes where DALI made them, and hands its pipelines straight
to ``super().__init__`` gets the support module's class as its base (NDD411), and the pipelines given
to it migrate as if given to the iterator: a call of the class is read as the call of the base it
makes (:func:`base_call`). Anything else (an attribute the support module does not model, a
pipeline parameter read by the class itself, a class that is handed on) keeps DALI's base, and the
pipelines given to the class stay in pipeline mode (:func:`subclass_uses`).

A class another module of the run calls (``from base import DALIDataloader``) is read there from its
source (``Policy.imported_iterator_classes``); the modules agree on its base through the run's passes
(ndd_migrate.model.importers.settle_iterator_classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate import support
from ndd_migrate.model import constructs, crossfile
from ndd_migrate.model.features import iterators, wrapper_family
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import ReadsValues

#: What DALI 2.4's PyTorch iterators (plugin/base_iterator.py, plugin/pytorch) and the support
#: module's keep on ``self``: a subclass that touches one of these outside :data:`MODELLED` sees a
#: different object once its base is the support module's.
DALI_STATE = frozenset(
    {
        *("_advance_and_check_drop_last", "_auto_reset", "_calculate_shard_sizes", "_check_batch_size"),
        *("_checkpointed_fields", "_counter", "_counter_per_gpu", "_deserialize_value", "_enable_checkpointing"),
        *("_end_iteration", "_ever_consumed", "_ever_scheduled", "_extract_from_reader_and_validate"),
        *("_first_batch", "_get_outputs", "_initial_checkpoints", "_is_stick_to_shard", "_last_batch_padded"),
        *("_last_batch_policy", "_num_gpus", "_output_categories", "_pipes", "_prepare_first_batch"),
        *("_reader_name", "_remove_padded", "_report_no_data_in_pipeline", "_restore_state", "_save_state"),
        *("_schedule_runs", "_serialize_value", "_shard_sizes_per_gpu", "_shard_sizes_per_gpu_initial"),
        *("_shards_id", "_shards_num", "_size", "_size_no_pad", "batch_size", "output_map", "checkpoints"),
        *("reset", "next", "size", "__init__", "__iter__", "__len__", "__next__"),
        # the support module's own helpers
        *("_check_size", "_from_reader", "_next_shards"),
    }
)
#: The state the support module's iterators keep as DALI's do (same values, same moments).
MODELLED = frozenset(
    {
        *("_first_batch", "_size", "batch_size", "_counter", "_num_gpus", "output_map", "_reader_name"),
        *("_auto_reset", "size", "reset", "next", "__init__", "__iter__", "__len__", "__next__"),
    }
)
#: The methods a subclass may override: the support module calls them where DALI did (``__iter__``
#: and the epoch's end call ``reset()``, ``next()`` calls ``__next__()``, the first batch is taken
#: with the base's own ``__next__``).
OVERRIDABLE = frozenset({"__init__", "__next__", "next", "__iter__", "__len__", "reset"})


@dataclass(eq=False)
class IteratorSubclass:
    """A class deriving directly from DALI's PyTorch iterator ``base`` (its DALI name) through the
    import bound to ``base_name``; ``blocker`` says why the support module's class cannot be its base."""

    node: cst.ClassDef
    base: str
    base_name: str | None
    blocker: str | None = None
    init: cst.FunctionDef | None = None
    super_call: cst.Call | None = None
    calls: list = field(default_factory=list)  # the calls of the class in the module
    rebased: bool = False  # its base is the support module's (decided by NDD411)
    imported: str = ""  # a class of another module of the run: its name as imported here
    # A class that does not derive from the iterator but wraps one: the `self` attribute its
    # `__init__` stores DALI's iterator in (`self.it = DALIGenericIterator(pipelines, ...)`), made by
    # `super_call`; the support module's class is called there instead (NDD411).
    wrapper: str | None = None


def examine(node: cst.ClassDef, base: str, base_expr: cst.BaseExpression) -> IteratorSubclass:
    """The class ``node`` deriving from DALI's iterator ``base`` (written ``base_expr``)."""
    found = IteratorSubclass(node, base, base_expr.value if isinstance(base_expr, cst.Name) else None)
    found.blocker = _shape_blocker(node, base_expr) or _body_blocker(node)
    if found.blocker is None:
        init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
        found.init = init
        if init is not None:
            found.super_call, found.blocker = _forwarding(node, init)
    return found


def _shape_blocker(node: cst.ClassDef, base_expr: cst.BaseExpression) -> str | None:
    if not isinstance(base_expr, cst.Name):
        return f"its base is written `{cst.Module([]).code_for_node(base_expr)}`, not the name of an import"
    if len(node.bases) != 1 or node.keywords or node.decorators:
        return "it has other bases, keywords or decorators"
    for stmt in node.body.body:
        if isinstance(stmt, cst.FunctionDef):
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Pass, cst.Expr)) and not isinstance(getattr(s, "value", None), cst.Call)
            for s in stmt.body
        ):
            continue  # a docstring, `pass`
        return "its body holds more than methods"
    return None


def _body_blocker(node: cst.ClassDef) -> str | None:
    """What the class touches of the iterator's state that the support module does not model."""
    for method in (s for s in node.body.body if isinstance(s, cst.FunctionDef)):
        name = method.name.value
        if name in DALI_STATE and name not in OVERRIDABLE:
            return f"it overrides `{name}`, which the support module's iterator does not call as DALI's does"
        if method.decorators:
            return f"its method `{name}` is decorated"
        params = method.params.params
        own = params[0].name.value if params else None
        finder = _Touches(own)
        tree.visit(method.body, finder)
        if finder.blocker:
            return finder.blocker
    return None


class _Touches(cst.CSTVisitor):
    """The first use of ``self`` (the method's first parameter) or ``super()`` that reaches the
    iterator's state beyond :data:`MODELLED`."""

    def __init__(self, own: str | None) -> None:
        self.own, self.blocker = own, None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        value, attr = node.value, node.attr.value
        if self.blocker is not None:
            return
        if isinstance(value, cst.Name) and value.value == self.own and attr in DALI_STATE and attr not in MODELLED:
            self.blocker = f"it uses `self.{attr}`, which the support module's iterator does not keep as DALI's does"
        if _is_super(value) and attr not in OVERRIDABLE:
            self.blocker = (
                f"it calls `super().{attr}`, which the support module's iterator does not give as DALI's does"
            )

    def visit_Name(self, node: cst.Name) -> None:
        if self.blocker is None and node.value in ("vars", "getattr", "setattr", "__dict__"):
            self.blocker = f"it uses `{node.value}`, which may reach any of the iterator's state"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return True


def _is_super(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _forwarding(node: cst.ClassDef, init: cst.FunctionDef) -> tuple[cst.Call | None, str | None]:
    """``(super().__init__(...) call, None)``, or ``(None, why)`` when ``__init__`` does not hand its
    pipelines straight to the base: one ``super().__init__(...)`` (``super(Cls, self)``) statement,
    arguments that are parameters (``*args``/``**kwargs`` included) or constants, and the pipelines
    parameter read nowhere else."""
    calls = [
        s.body[0].value
        for s in init.body.body
        if isinstance(s, cst.SimpleStatementLine)
        and len(s.body) == 1
        and isinstance(s.body[0], cst.Expr)
        and _is_base_init(s.body[0].value)
    ]
    if len(calls) != 1:
        return None, "its `__init__` does not call `super().__init__(...)` once, as a statement of its own"
    why = _forwarded(calls[0], init, "the base")
    return (None, why) if why else (calls[0], None)


def _forwarded(call: cst.Call, init: cst.FunctionDef, who: str) -> str | None:
    """Why ``call`` (of the iterator, in ``init``) is not given its arguments straight from
    ``init``'s parameters, or None: arguments that are parameters (``*args``/``**kwargs``
    included) or constants, and the pipelines parameter read nowhere else. ``who``: the iterator,
    as the message names it."""
    for arg in call.args:
        if "self" in _names(arg.value):
            return f"its `__init__` gives {who} a value of `self`"
    pipes = _pipelines_arg(call, init)
    if pipes is None:
        return f"its `__init__` does not give {who} its pipelines as a parameter"
    if _reads(init.body, pipes) != 1:
        return f"its `__init__` reads `{pipes}` beside giving it to {who}"
    return None


def wrapping(resolver, node: cst.ClassDef, module: cst.Module) -> IteratorSubclass | None:
    """The class ``node`` as a wrapper of DALI's PyTorch iterator, or None: its ``__init__`` stores
    the one call of such an iterator in the class, ``self.<attr> = DALIGenericIterator(pipelines,
    ...)`` (a statement of its own), given a parameter as its pipelines. Its ``blocker`` says why
    the support module's iterator cannot be the one it stores: arguments not handed straight from
    ``__init__``'s parameters, or ``self.<attr>`` used other than as DALI's iterator is
    (:func:`_wrapper_blocker`)."""
    calls = [
        call
        for call in tree.walk(node)
        if isinstance(call, cst.Call)
        and _spelled(call.func).endswith("Iterator")  # cheap, before the qualified name
        and _iterator_called(resolver, call.func) is not None
    ]
    init = next((s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if len(calls) != 1 or init is None:
        return None
    call, base = calls[0], _iterator_called(resolver, calls[0].func)
    attr = next((attr for attr in (_self_store(stmt, init, call) for stmt in init.body.body) if attr), None)
    if attr is None or base not in iterators.TORCH_ITERATORS:
        return None
    short = f"`{base.rsplit('.', 1)[-1]}`"
    found = IteratorSubclass(node, base, call.func.value if isinstance(call.func, cst.Name) else None, wrapper=attr)
    found.init, found.super_call = init, call
    found.blocker = (
        _forwarded(call, init, short)
        or _wrapper_blocker(node, attr, module)
        or _read_otherwise(resolver, node, lambda derived: _wrapper_blocker(derived, attr, module, stores=0))
    )
    return found


#: DALI's PyTorch iterator that each class of the support module stands for.
_STOOD_FOR = {cls: dali for dali, cls in iterators.SUPPORT_CLASSES.items() if dali in iterators.TORCH_ITERATORS}


def _iterator_called(resolver, func: cst.BaseExpression) -> str | None:
    """DALI's iterator class ``func`` names: DALI's own, or the support module's class standing in for
    it (``from ndd_support import DALIGenericIterator``: a wrapper migrated before, which a later run
    must read as it read it then)."""
    dali = names.dali_name(resolver, func)
    if dali in iterators.REWRITTEN:
        return dali
    for qualified in resolver.get_metadata(QualifiedNameProvider, func, None) or ():
        name = support.imported_name(qualified.name)
        if name in _STOOD_FOR:
            return _STOOD_FOR[name]
    return None


def _spelled(func: cst.BaseExpression) -> str:
    """The last name of a callee as written (``DALIGenericIterator`` of ``pytorch.DALIGenericIterator``)."""
    if isinstance(func, cst.Name):
        return func.value
    return func.attr.value if isinstance(func, cst.Attribute) else ""


def _wrapper_of_source(node: cst.ClassDef, base: str) -> IteratorSubclass:
    """A wrapper class of another module (:func:`wrapping` found it there, without a blocker), read
    from its source alone: the iterator call is the one its ``__init__`` stores whose callee ends
    with the name of DALI's class ``base``."""
    short = base.rsplit(".", 1)[-1]
    init = next(s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__")
    for stmt in init.body.body:
        value = getattr(stmt.body[0], "value", None) if isinstance(stmt, cst.SimpleStatementLine) else None
        func = value.func if isinstance(value, cst.Call) else None
        attr = _self_store(stmt, init, value) if func is not None and _spelled(func) == short else None
        if attr is not None:
            found = IteratorSubclass(node, base, func.value if isinstance(func, cst.Name) else None, wrapper=attr)
            found.init, found.super_call = init, value
            return found
    return IteratorSubclass(node, base, None, f"its `__init__` does not store DALI's `{short}`")


def _self_store(stmt: cst.CSTNode, init: cst.FunctionDef, call: cst.Call) -> str | None:
    """``attr`` when ``stmt`` is ``self.attr = call`` (``self``: ``init``'s first parameter)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    assign = stmt.body[0]
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    own = init.params.params[0].name.value if init.params.params else None
    if assign.value is call and isinstance(target, cst.Attribute) and _is_name(target.value, own):
        return target.attr.value
    return None


def _is_name(node: cst.CSTNode, name: str | None) -> bool:
    return isinstance(node, cst.Name) and node.value == name


#: Where a wrapper may read the iterator it keeps, beside the attributes DALI's iterator and the
#: support module's share (:data:`MODELLED`): given to these builtins, or iterated.
_ITERATOR_BUILTINS = frozenset({"next", "iter", "len"})


def _as_iterator(node: cst.CSTNode, parent, grand) -> bool:
    """Is ``node`` (the iterator a wrapper keeps; ``parent`` and ``grand`` above it) used as both
    DALI's and the support module's iterators allow: an attribute of :data:`MODELLED`, given to
    ``next``/``iter``/``len``, or iterated?"""
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return parent.attr.value in MODELLED
    if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and isinstance(grand.func, cst.Name):
        return grand.func.value in _ITERATOR_BUILTINS and len(grand.args) == 1 and not parent.keyword
    return isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node


def _wrapper_blocker(node: cst.ClassDef, attr: str, module: cst.Module, stores: int = 1) -> str | None:
    """Why ``self.<attr>`` of the class ``node`` may not hold the support module's iterator, or
    None: set again (``stores``: how many times ``__init__`` sets it), read for state the support
    module does not keep as DALI's does, or handed on to code that does (a function of ``module``
    given it is read too: :func:`wrapper_family.handoff_blocker`; anything else may ask anything of
    it); ``return self.<attr>`` in ``__iter__`` is the iterator protocol's."""
    for method in (s for s in node.body.body if isinstance(s, cst.FunctionDef)):
        params = method.params.params
        own = params[0].name.value if params else None
        finder = _WrapperReads(own, attr, method.name.value == "__iter__")
        tree.visit(method.body, finder)
        if finder.stores > (stores if method.name.value == "__init__" else 0):
            return f"`self.{attr}` is set again"
        if finder.blocker:
            return finder.blocker
        for handed in finder.handed:
            why = wrapper_family.handoff_blocker(module, handed, _as_iterator)
            if why:
                return f"`self.{attr}`, DALI's iterator: {why}"
    return None


class _WrapperReads(cst.CSTVisitor):
    """The uses of ``self.<attr>`` in a method: stores counted, the first read a DALI iterator's
    uses do not cover kept as ``blocker``."""

    def __init__(self, own: str | None, attr: str, in_iter: bool) -> None:
        self.own, self.attr, self.in_iter = own, attr, in_iter
        self.stores, self.blocker = 0, None
        self.handed: list[tuple[str, int | str]] = []  # (function, position or parameter name)
        self._parents: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name) and node.value in ("vars", "getattr", "setattr", "__dict__"):
            self.blocker = self.blocker or f"it uses `{node.value}`, which may reach `self.{self.attr}`"
        if isinstance(node, cst.Attribute) and _is_name(node.value, self.own) and node.attr.value == self.attr:
            self._use(node, self._parents[-1] if self._parents else None)
        self._parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._parents.pop()

    def _use(self, node: cst.Attribute, parent) -> None:
        grand = self._parents[-2] if len(self._parents) > 1 else None
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
            isinstance(parent, (cst.Tuple, cst.List, cst.Element)) and isinstance(grand, cst.AssignTarget)
        ):
            self.stores += 1
            return
        if _as_iterator(node, parent, grand) or (isinstance(parent, cst.Return) and self.in_iter):
            return
        handed = wrapper_family.handed_to(node, self._parents)
        if handed is not None:  # followed into the function (wrapper_family.handoff_blocker)
            self.handed.append(handed)
            return
        what = (
            f"its `.{parent.attr.value}` has no counterpart on the support module's iterator"
            if isinstance(parent, cst.Attribute)
            else "it is handed on, and what is asked of it there is not followed"
        )
        self.blocker = self.blocker or f"`self.{self.attr}`, DALI's iterator: {what}"


def _is_base_init(call: cst.BaseExpression) -> bool:
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "__init__"
        and _is_super(call.func.value)
    )


class _Names(ReadsValues, cst.CSTVisitor):
    """The names read in a node, each time (not an attribute's or a keyword's name)."""

    def __init__(self) -> None:
        self.found: list[cst.Name] = []

    def visit_Name(self, found: cst.Name) -> None:
        self.found.append(found)


def _read_names(node: cst.CSTNode) -> list[cst.Name]:
    finder = _Names()
    tree.visit(node, finder)
    return finder.found


def _names(node: cst.CSTNode) -> set[str]:
    return {name.value for name in _read_names(node)}


def _reads(node: cst.CSTNode, name: str) -> int:
    return [found.value for found in _read_names(node)].count(name)


class _Bound(cst.CSTTransformer):
    """An expression with the parameters it reads (``reads``: their nodes) replaced by what a call
    binds them to (``values``)."""

    def __init__(self, reads: set[int], values: dict) -> None:
        self.reads, self.values = reads, values

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.values[original_node.value] if id(original_node) in self.reads else updated_node


def _bound_expression(expr: cst.BaseExpression, values: dict) -> cst.BaseExpression | None:
    """``expr`` (an argument ``__init__`` gives the iterator: ``DROP if train else PARTIAL``) as
    the call site binds the parameters it reads; None where one of them is not bound."""
    reads = [name for name in _read_names(expr) if name.value in values]
    if any(values[name.value] is None for name in reads):
        return None
    return expr.visit(_Bound({id(name) for name in reads}, values)) if reads else expr


def _pipelines_arg(call: cst.Call, init: cst.FunctionDef) -> str | None:
    """The parameter whose value the base gets as its pipelines: the first positional argument or
    ``pipelines=``, or the ``*args``/``**kwargs`` that carry it."""
    for arg in call.args:
        if isinstance(arg.value, cst.Name) and (
            (arg.keyword is None and arg is call.args[0]) or (arg.keyword and arg.keyword.value == "pipelines")
        ):
            return arg.value.value
    star = [a for a in call.args if a.star]
    return star[0].value.value if star and isinstance(star[0].value, cst.Name) else None


def base_call(found: IteratorSubclass, call: cst.Call) -> cst.Call | None:
    """The call of DALI's iterator that ``call`` (of the class) makes through ``super().__init__``:
    its arguments are the nodes given at ``call`` (or the defaults and constants of ``__init__``),
    so that what is read of it is the call site's. None when the call site cannot be bound
    (``*``/``**`` arguments, an unknown keyword)."""
    if any(a.star for a in call.args):
        return None
    if found.init is None:
        return call
    bound = _bind(found.init, call)
    if bound is None:
        return None
    values, extra_positional, extra_keywords = bound
    args: list[cst.Arg] = []
    for arg in found.super_call.args:
        name = arg.value.value if isinstance(arg.value, cst.Name) else None
        if arg.star == "*":
            args.extend(cst.Arg(v) for v in extra_positional)
        elif arg.star == "**":
            args.extend(extra_keywords)
        elif name in values:
            if values[name] is None:
                return None
            args.append(cst.Arg(values[name], keyword=arg.keyword, equal=arg.equal))
        else:
            bound = _bound_expression(arg.value, values)
            if bound is None:
                return None
            args.append(arg.with_changes(value=bound))
    return call.with_changes(args=args)


def _bind(init: cst.FunctionDef, call: cst.Call):
    """``(parameter → value node or None, extra positional values, extra keyword args)`` of
    ``call`` bound to ``init``'s parameters after ``self``, as Python binds them; None when Python
    would raise."""
    p = init.params
    positional = [param for param in [*p.posonly_params, *p.params][1:]]
    values = {param.name.value: (param.default if param.default is not None else None) for param in positional}
    values.update({param.name.value: param.default for param in p.kwonly_params})
    given_pos = [a for a in call.args if a.keyword is None]
    extra_pos = []
    for index, arg in enumerate(given_pos):
        if index < len(positional):
            values[positional[index].name.value] = arg.value
        elif isinstance(p.star_arg, cst.Param):
            extra_pos.append(arg.value)
        else:
            return None
    extra_kw = []
    for arg in (a for a in call.args if a.keyword is not None):
        if arg.keyword.value in values and arg.keyword.value not in {x.name.value for x in p.posonly_params}:
            values[arg.keyword.value] = arg.value
        elif p.star_kwarg is not None:
            extra_kw.append(arg)
        else:
            return None
    return values, extra_pos, extra_kw


def subclass_message(node: cst.ClassDef, base: str, blocker: str | None = None) -> tuple[str, str]:
    """``(message, hint)`` of the TODO at a class deriving from a DALI iterator that keeps DALI's
    base: why (``blocker``, for a PyTorch iterator), what breaks and what to write instead, naming
    the methods it overrides, whose work has to move."""
    name, short = node.name.value, base.rsplit(".", 1)[-1]
    methods = [s.name.value for s in node.body.body if isinstance(s, cst.FunctionDef)]
    torch = base in iterators.TORCH_ITERATORS
    convert = "with `.torch()` (`pad=True` if ragged)" if torch else "for the framework (e.g. via DLPack)"
    moved = ", and does what " + ", ".join(f"`{m}`" for m in methods) + " did" if methods else ""
    why = f" (the support module's `{short}` cannot be its base: {blocker})" if blocker else ""
    message = (
        f"`{name}` derives from `{short}`, which needs a DALI `Pipeline`{why}; a migrated pipeline is a "
        "generator of batches"
    )
    hint = (
        f"`{name}` derives from `{short}`, which runs a DALI `Pipeline` (`build()`, `run()`, `reset()`, the reader's "
        f"epoch size){why}, and the migration turns pipelines into generators of batches: the pipelines given to "
        f"`{name}` stay unmigrated until it is replaced by a generator over the migrated pipeline that converts "
        f"each output {convert}, ends each epoch at `reader.get_metadata()['epoch_size']` as `last_batch_policy` "
        f'did{moved} (docs/target-shape.md, "Framework iterators")'
    )
    return message, hint


def find(resolver, module: cst.Module, calls) -> dict[str, IteratorSubclass]:
    """The classes of ``module`` deriving from a DALI iterator (directly or through another such
    class), by qualified name, each with its calls among ``calls`` (``(call, qualified name)``s)
    and why the support module's iterator cannot be its base (``blocker``, see :func:`examine`;
    also: the class is read other than by calling it, or derives from another such class)."""
    classes: dict[str, IteratorSubclass] = {}
    local: dict[str, str] = {}
    for node in _classes(module.body):
        base = iterators.iterator_base(node, lambda expr: names.dali_name(resolver, expr), local)
        if base is None:
            wrapper = wrapping(resolver, node, module)
            if wrapper is not None:
                for q in resolver.get_metadata(QualifiedNameProvider, node.name, None) or ():
                    classes[q.name] = wrapper
            continue
        local[node.name.value] = base
        base_expr = node.bases[0].value
        if base in iterators.TORCH_ITERATORS and names.dali_name(resolver, base_expr) == base:
            found = examine(node, base, base_expr)
            found.blocker = found.blocker or _read_otherwise(resolver, node)
        else:
            found = IteratorSubclass(node, base, None, "it derives from another subclass of a DALI iterator")
        for q in resolver.get_metadata(QualifiedNameProvider, node.name, None) or ():
            classes[q.name] = found
    for call, qual in calls:
        if qual not in classes and qual.lstrip(".") in resolver.model.crossfile.iterator_classes:
            classes[qual] = _imported(resolver, call, qual)
        if qual in classes and call not in classes[qual].calls:
            classes[qual].calls.append(call)
    return classes


def _imported(resolver, call: cst.Call, qual: str) -> IteratorSubclass:
    """The class of another module of the run (``Policy.imported_iterator_classes``) that ``call``
    makes, read from its source; called by the name its import binds, read only by calls."""
    base, source = resolver.model.crossfile.iterator_classes[qual.lstrip(".")]
    node = next(s for s in cst.parse_module(source).body if isinstance(s, cst.ClassDef))
    found = examine(node, base, node.bases[0].value) if node.bases else _wrapper_of_source(node, base)
    found.imported = qual.lstrip(".")
    if not isinstance(call.func, cst.Name):
        found.blocker = found.blocker or f"`{qual}` is called other than by the name its import binds"
        return found
    scope = resolver.scope_of(call.func)
    for assignment in scope[call.func.value] if scope is not None else ():
        for access in assignment.references:
            parent = resolver.parents.get(access.node)
            if not (isinstance(parent, cst.Call) and parent.func is access.node):
                found.blocker = found.blocker or f"`{call.func.value}` is used other than by calling it"
    return found


def _read_otherwise(resolver, node: cst.ClassDef, derived_blocker=None) -> str | None:
    """Why the class may be given pipelines the module does not see: its name read other than by
    calling it (handed on, derived from), or bound again. ``derived_blocker``, for a wrapper: a
    class of the module deriving from it is allowed where this says nothing against it (what the
    subclass does with the wrapper's iterator; what its callers give it stays in pipeline mode,
    and the iterator hands such pipelines to DALI's own class)."""
    scope = resolver.scope_of(node)
    assignments = list(scope.assignments[node.name.value]) if scope is not None else []
    if len(assignments) != 1:
        return f"`{node.name.value}` is bound more than once"
    for access in assignments[0].references:
        parent = resolver.parents.get(access.node)
        if isinstance(parent, cst.Call) and parent.func is access.node:
            continue
        derived = resolver.parents.get(parent) if isinstance(parent, cst.Arg) else None
        if derived_blocker is not None and isinstance(derived, cst.ClassDef) and parent in derived.bases:
            why = derived_blocker(derived)
            if why is None:
                continue
            return f"its subclass `{derived.name.value}`: {why}"
        return f"`{node.name.value}` is used other than by calling it"
    return None


def subclass_uses(resolver, module: cst.Module, calls) -> list[tuple]:
    """Every argument of a call of a class deriving from a DALI iterator whose base stays DALI's
    (:func:`find`), as a use that needs a real pipeline (``(call, code, expression, (message,
    hint))``, see :mod:`ndd_migrate.model.features.manual_uses`): whatever such a class is given ends
    up in the iterator's constructor, which runs a ``Pipeline``. The others are recorded in
    ``model.iterator_subclasses`` (call → class): NDD411 reads their calls as calls of the base.

    ``resolver`` is the analysis (metadata of ``module``); ``calls`` its ``(call, qualified name)``s."""
    uses = []
    for found in {id(c): c for c in find(resolver, module, calls).values()}.values():
        resolver.model.iterator_classes[found.node] = found
        if found.blocker is None:
            resolver.model.iterator_subclasses.update((call, found) for call in found.calls)
            continue
        name, short = found.node.name.value, found.base.rsplit(".", 1)[-1]
        advice = (
            f"its pipeline is given to `{name}`, a subclass of `{short}`, which needs a real `Pipeline`",
            f"replace `{name}` first (see the TODO at the class), then migrate this pipeline",
        )
        if found.wrapper:
            advice = (
                f"its pipeline is given to `{name}`, which runs DALI's `{short}` on it, and the support "
                f"module's cannot stand in: {found.blocker}",
                f"make `{name}` use its iterator as DALI's and the support module's both allow, or migrate "
                "this use by hand",
            )
        for call in found.calls:
            for arg in call.args:
                values = arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else (arg,)
                uses.extend((call, constructs.ITERATOR_SUBCLASS, value.value, advice) for value in values)
    return uses


def epoch_uses(model) -> list[cst.BaseExpression]:
    """The pipelines given to calls of the classes in ``model.iterator_subclasses`` whose base call
    names a reader (``reader_name=``): they need the reader's metadata, as given to the iterator."""
    found = []
    for call, sub in model.iterator_subclasses.items():
        view = base_call(sub, call)
        if view is not None and cstutil.kwarg(iterators.keyworded(view, sub.base), "reader_name") is not None:
            given = iterators.epoch_aware(view, sub.base)
            if given is not None:
                found.append(given)
    return found


def _classes(statements):
    """The class definitions among ``statements`` and in the blocks of any of them, in source order
    (statements only: no expression is entered)."""
    for stmt in statements:
        if isinstance(stmt, cst.ClassDef):
            yield stmt
        for block in cstutil.blocks(stmt):
            yield from _classes(block.body)


def names_of(sub: IteratorSubclass, model, path: str) -> list[str]:
    """``module.name`` of the class ``sub`` as other modules import it: a top-level class of the
    module at ``path`` under each name of the module, or the imported one's."""
    if sub.imported:
        return [sub.imported]
    if not isinstance(model.parents.get(sub.node), cst.Module):
        return []
    return [f"{module}.{sub.node.name.value}" for module in crossfile.module_names(path)]


def instance_blocker(parents: dict, reads) -> str | None:
    """Why the support module's iterator cannot be the base of a class whose instance is read at
    ``reads`` (the first in the text first), or None: one of them reaches the iterator's state
    beyond :data:`MODELLED` (``loader._pipes``)."""
    for read in reads:
        parent = parents.get(read)
        attr = parent.attr.value if isinstance(parent, cst.Attribute) and parent.value is read else None
        if attr in DALI_STATE and attr not in MODELLED:
            return f"`.{attr}` of the iterator has no counterpart on the support module's iterator"
    return None


def wrapped_blocker(parents: dict, reads, attr: str) -> str | None:
    """Why a wrapper class whose instance is read at ``reads`` may not keep the support module's
    iterator in ``attr``, or None: a read reaching it (``loader.<attr>``) for what DALI's and the
    support module's iterators do not share, or handing it on."""
    for read in reads:
        parent = parents.get(read)
        if not (isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value == attr):
            continue
        use = parents.get(parent)
        if _as_iterator(parent, use, parents.get(use)):
            continue
        return f"`.{attr}`, DALI's iterator, is used where the support module's iterator may differ"
    return None


def with_metadata(pipe, streams, metas, several: bool) -> cst.BaseExpression:
    """The pipelines ``pipe`` given to a class whose base is the support module's iterator, each
    with its reader's metadata, as the support module's iterator takes them: ``(pipe_meta, pipe)``,
    ``[(pipe_meta, pipe)]``, ``list(zip(pipes_meta, pipes))``. ``streams``, ``metas``,
    ``several``: the pipelines and their metadata as NDD411 reads them."""
    if isinstance(pipe, cst.Name) and several:  # a list bound to a name
        return cst.Call(
            cst.Name("list"), [cst.Arg(cst.Call(cst.Name("zip"), cstutil.commas([cst.Arg(metas), cst.Arg(streams)])))]
        )
    if several or isinstance(pipe, cst.List):
        pairs = [_pair(iterators.meta_of(item), item) for item in iterators.listed(pipe)]
        return cst.List(cstutil.commas([cst.Element(p) for p in pairs]))
    return _pair(metas, streams)


def _pair(meta: cst.BaseExpression, pipe: cst.BaseExpression) -> cst.Tuple:
    return cst.Tuple(cstutil.commas([cst.Element(meta), cst.Element(pipe)]))

"""The arguments of a ``super().__init__(...)`` call bound to the parameters of the ``__init__`` it
calls, for a subclass flattened into one class (:mod:`ndd_migrate.model.sources.subclasses`).

Besides named parameters, a family of legacy pipelines often passes its settings through
``**kwargs`` (``def __init__(self, batch_size, num_threads, device_id, **kwargs):
super().__init__(batch_size, num_threads, device_id, **kwargs)``) or ``*args``. Python's meaning:

- the parent's ``**kw`` is a *fresh* dict: the keywords of the call that name none of its
  parameters, then the entries of the ``**d`` passed. It is written as the child's ``d`` where
  nothing mutates either after the call (no ``d["k"] = ...``, ``d.pop(...)``, nor through an alias
  ``self.opts = d``), else as a copy (``kw = {"extra": 1, **d}``), which may replace the child's
  own only where the child no longer reads it;
- the parent's named parameters that the call does not name come out of ``**d``: ``d["p"]``, or
  ``d.get("p", default)``;
- the parent's ``*a`` is the positional arguments past its parameters, then those of ``*t``: the
  child's own ``*args`` (a tuple: it cannot change) as it is, anything else as ``tuple(...)``.

Anything else (``*t`` filling named parameters, several ``**``, a non-name) is refused: the
flattened class would guess what Python decides at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import ScopeNames, SkipsTrivia

READ_METHODS = frozenset({"get", "keys", "items", "values", "copy", "__getitem__", "__contains__"})
READ_FUNCTIONS = frozenset({"len", "dict", "list", "tuple", "set", "sorted", "iter"})


class Refused(Exception):
    """Why a family cannot be flattened."""


@dataclass
class Call:
    """A ``super().__init__(...)`` call in context: what the child is and does around it."""

    child: cst.FunctionDef  # the ``__init__`` holding the call
    owner: str  # its class
    after: list  # the child's statements after the call
    methods: list = field(default_factory=list)  # every other method of the classes flattened together


def bind(init: cst.FunctionDef, args: list[cst.Arg], owner: str, call: Call) -> tuple[list, set[str]]:
    """``init``'s parameters (``self`` left out) → the arguments of the call, or their defaults;
    and the parameters whose value may replace a name of the child (a copy of its ``**kw`` it no
    longer reads)."""
    params = init.params
    if params.posonly_params:
        raise Refused(f"`{owner}.__init__` takes positional-only parameters")
    positional = list(params.params[1:])
    every = {p.name.value: p for p in [*positional, *params.kwonly_params]}
    given, extra_positional, into_kw, star, double = _sort_args(args, positional, every, params, owner)
    out = []
    for name, param in every.items():
        out.append((name, _named_value(name, param, given, double, params, owner, call)))
    rebinds: set[str] = set()
    if isinstance(params.star_arg, cst.Param):
        out.append((params.star_arg.name.value, _star_value(extra_positional, star, call)))
    elif star is not None:
        out.append(("", star))  # `*t` past the parameters: must be empty, as Python checks
    if isinstance(params.star_kwarg, cst.Param):
        name = params.star_kwarg.name.value
        value = _double_value(init, name, into_kw, double, call, owner)
        out.append((name, value))
        if not isinstance(value, cst.Name) and double is not None and double.value == name:
            rebinds.add(name)
    return [(n, v) for n, v in out if n], rebinds


def _sort_args(args, positional, every, params, owner):
    """The call's arguments: those naming a parameter, the positional ones past the parameters,
    what goes into the parent's ``**kw`` (keywords naming no parameter, and ``**d``, in the
    call's order), and its ``*t`` and ``**d`` (names; None where absent)."""
    given: dict[str, cst.BaseExpression] = {}
    extra_positional: list[cst.BaseExpression] = []
    into_kw: list[cst.Arg] = []
    star = double = None
    for arg in args:
        if arg.star:
            _starred(arg, star if arg.star == "*" else double, positional, given, owner)
            if arg.star == "**":
                double = arg.value
                into_kw.append(arg)
            else:
                star = arg.value
        elif arg.keyword is None:
            if star is not None or double is not None:
                raise Refused(f"a positional argument after `*` passed to `{owner}.__init__` cannot be bound")
            if len(given) < len(positional) and not extra_positional:
                given[positional[len(given)].name.value] = arg.value
            elif isinstance(params.star_arg, cst.Param):
                extra_positional.append(arg.value)
            else:
                raise Refused(f"too many arguments passed to `{owner}.__init__`")
        elif arg.keyword.value in every and arg.keyword.value not in given:
            given[arg.keyword.value] = arg.value
        elif isinstance(params.star_kwarg, cst.Param) and arg.keyword.value not in every:
            into_kw.append(arg)
        else:
            raise Refused(f"`{arg.keyword.value}=` does not name one parameter of `{owner}.__init__`")
    return given, extra_positional, into_kw, star, double


def _starred(arg: cst.Arg, before, positional, given, owner) -> None:
    """Refuses a ``*t``/``**d`` that cannot be bound: a second one, not a name, or a ``*t`` that
    would fill named parameters."""
    if before is not None or not isinstance(arg.value, cst.Name):
        raise Refused(f"the `{arg.star}` argument passed to `{owner}.__init__` must be one name")
    if arg.star == "*" and sum(1 for p in positional if p.name.value in given) < len(positional):
        raise Refused(
            f"`*{arg.value.value}` passed to `{owner}.__init__` fills parameters the call does not name: "
            "which ones, Python decides at run time"
        )


def _named_value(name, param, given, double, params, owner, call: Call) -> cst.BaseExpression:
    """The value of the named parameter ``name``: its argument, the entry of ``**d``, or its default.
    The child's own ``**kwargs`` never holds a name the child takes as a parameter of its own."""
    if name in given:
        return given[name]
    if param.default is not None and not _constant(param.default):
        raise Refused(f"the default of `{name}` in `{owner}.__init__` is evaluated once, not at each call")
    child = call.child.params
    own = isinstance(child.star_kwarg, cst.Param) and double is not None and double.value == child.star_kwarg.name.value
    if own and name in {p.name.value for p in [*child.params, *child.kwonly_params]}:
        double = None  # `batch_size_2d` taken by the child: its `**kwargs` cannot give it
    if double is None:
        if param.default is None:
            raise Refused(f"`{name}` of `{owner}.__init__` is not given")
        return param.default
    if isinstance(params.star_kwarg, cst.Param):
        raise Refused(
            f"`{name}` of `{owner}.__init__` would come out of `**{double.value}`, "
            f"and the rest of it into `**{params.star_kwarg.name.value}`"
        )
    key = cst.SimpleString(f'"{name}"')
    if param.default is None:
        return cst.Subscript(double, [cst.SubscriptElement(cst.Index(key))])
    return cst.Call(cst.Attribute(double, cst.Name("get")), [cst.Arg(key), cst.Arg(param.default)])


def _star_value(extra: list[cst.BaseExpression], star: cst.Name | None, call: Call) -> cst.BaseExpression:
    """The parent's ``*a``: the positional arguments past its parameters, then ``*t``."""
    own = isinstance(call.child.params.star_arg, cst.Param) and call.child.params.star_arg.name.value
    if star is not None and not extra and star.value == own:
        return star  # the child's own tuple
    elements = [cst.Element(value) for value in extra]
    if star is not None:
        elements.append(cst.StarredElement(star))
    if len(elements) == 1 and isinstance(elements[0], cst.Element):
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements)


def _double_value(init, name, into_kw: list[cst.Arg], double: cst.Name | None, call: Call, owner):
    """The parent's ``**kw``: the child's ``d`` where nothing mutates it after the call, else a
    fresh dict (``{"extra": 1, **d}``, in the call's order)."""
    if double is not None and len(into_kw) == 1 and _unchanged_after(init, name, double.value, call):
        return double
    elements = [
        cst.StarredDictElement(arg.value)
        if arg.star
        else cst.DictElement(cst.SimpleString(f'"{arg.keyword.value}"'), arg.value)
        for arg in into_kw
    ]
    if double is not None and double.value == name and _reads(call.after, name):
        raise Refused(
            f"`{call.owner}.__init__` reads `{name}` after the call that gives `{owner}.__init__` "
            f"a copy of it to change: one body cannot hold both"
        )
    return cst.Dict(elements)


def _unchanged_after(init: cst.FunctionDef, param: str, passed: str, call: Call) -> bool:
    """Whether the dict passed as ``**passed`` and its parent's copy ``param`` are only read
    from the call on: in the parent's body, in the child's statements after it, and through an
    alias kept on ``self`` (``self.opts = kwargs``) in every method."""
    aliases: set[str] = set()
    for names, where in (({param}, [init.body]), ({passed}, [call.child.body])):
        found = _DictUse(names, set())
        for node in where:
            tree.visit(node, found)
        aliases |= found.aliases
    for names, where in (({param}, [init.body]), ({passed}, call.after), (set(), call.methods)):
        use = _DictUse(names, aliases)
        for node in where:
            tree.visit(node, use)
        if use.changed:
            return False
    return True


def _reads(stmts: list, name: str) -> bool:
    names = ScopeNames()
    for stmt in stmts:
        tree.visit(stmt, names)
    return name in names.all


class _DictUse(SkipsTrivia, cst.CSTVisitor):
    """Whether a dict, named ``names`` or kept as ``self.<attrs>``, may change: any use but a read
    (``d[k]``, ``d.get(k)``, ``**d``, ``k in d``, ``len(d)``, ``for k in d``) counts;
    ``self.x = d`` is read as an alias (``aliases``)."""

    def __init__(self, names: set[str], attrs: set[str]) -> None:
        self.names, self.attrs = names, attrs
        self.allowed: set[cst.CSTNode] = set()
        self.skip: set[cst.Name] = set()
        self.aliases: set[str] = set()
        self.changed = False

    def _is_dict(self, node) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.names
        return isinstance(node, cst.Attribute) and _is_self(node.value) and node.attr.value in self.attrs

    def _allow(self, node) -> None:
        if self._is_dict(node):
            self.allowed.add(node)

    def _target(self, target) -> None:
        """``d[k] = ...``, ``del d[k]``: a change."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value)
        elif isinstance(target, cst.Subscript) and self._is_dict(target.value):
            self.changed = True

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._allow(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in READ_METHODS:
            self._allow(func.value)
        elif isinstance(func, cst.Name) and func.value in READ_FUNCTIONS and len(node.args) == 1:
            if not node.args[0].star:
                self._allow(node.args[0].value)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(node.keyword)
        if node.star == "**":
            self._allow(node.value)

    def visit_StarredDictElement(self, node: cst.StarredDictElement) -> None:
        self._allow(node.value)

    def visit_ComparisonTarget(self, node: cst.ComparisonTarget) -> None:
        if isinstance(node.operator, (cst.In, cst.NotIn)):
            self._allow(node.comparator)

    def visit_For(self, node: cst.For) -> None:
        self._allow(node.iter)
        self._target(node.target)

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [t.target for t in node.targets]
        for target in targets:
            self._target(target)
        on_self = [t for t in targets if isinstance(t, cst.Attribute) and _is_self(t.value)]
        self.allowed.update(on_self)  # `self.opts = ...` rebinds the attribute, changes no dict
        if self._is_dict(node.value) and len(on_self) == len(targets):
            self.allowed.add(node.value)
            self.aliases.update(t.attr.value for t in on_self)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(node.attr)
        if self._is_dict(node) and node not in self.allowed:
            self.changed = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and node not in self.skip and node not in self.allowed:
            self.changed = True


def _is_self(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def bound_parameters(
    bindings: list,
    rebinds: set[str],
    child_names: ScopeNames,
    owners: tuple[str, str],
    assigned: set[str],
    read: set[str],
) -> tuple[list, dict]:
    """The parameters of the ``__init__`` taken in, as written in its body: a name or a literal in
    place of the parameter, anything else (and a parameter in ``assigned``, which its body assigns
    again) assigned to it first (``param = value``). A parameter its body never mentions (``read``:
    the names it does) is left out where its value only reads the dict passed up
    (``kwargs["data_dir"]``, ``kwargs.get("shard", 0)``): the assignment would do nothing."""
    owner, upper_owner = owners
    stmts, substitutions = [], {}
    for param, value in bindings:
        if isinstance(value, cst.Name) and value.value == param:
            continue
        if param not in read and _dict_read(value):
            continue
        if isinstance(value, (cst.Name, cst.SimpleString, cst.Integer, cst.Float)) and param not in assigned:
            substitutions[param] = value
        elif param in child_names.all and param not in rebinds:
            raise Refused(f"`{param}` of `{upper_owner}.__init__` is also a name of `{owner}.__init__`")
        else:
            stmts.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(param))], value)]))
    return stmts, substitutions


def _constant(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)) or (
        isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")
    )


def _dict_read(expr: cst.BaseExpression) -> bool:
    """``d["key"]`` or ``d.get("key"[, constant])``: a read of the dict passed up, nothing more."""
    if isinstance(expr, cst.Subscript):
        return (
            isinstance(expr.value, cst.Name)
            and len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.slice[0].slice.value, cst.SimpleString)
        )
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and isinstance(expr.func.value, cst.Name)
        and expr.func.attr.value == "get"
        and 1 <= len(expr.args) <= 2
        and not any(a.star or a.keyword for a in expr.args)
        and all(_constant(a.value) for a in expr.args)
    )

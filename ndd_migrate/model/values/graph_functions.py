"""Which functions of a module are graph code: each pipeline's own graph function and the
module's functions that graph code calls, transitively, each walked once.

A ``@pipeline_def`` body and a legacy ``define_graph`` (the roots) run while a graph is defined, and
so does every function of the module they call by name (an undecorated ``def``, a lambda bound to a
name once) or as ``self.name()`` (:mod:`ndd_migrate.model.values.self_methods`), and every function
those call. :class:`GraphFunctions` finds them from the roots, with what the walk saw in each
(:class:`Function`: its parameters, returns, subscripts, calls, stores on ``self``), the calls that
reach each and the pipelines whose graph runs it. The kinds of their expressions are
:class:`ndd_migrate.model.values.graph_code.Graph`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.syntax import tree
from ndd_migrate.syntax.cstutil import SkipsTrivia


@dataclass(eq=False)
class Function:
    """A function (or lambda) of the module, as the walk saw it."""

    node: cst.CSTNode
    params: list[cst.Param] = field(default_factory=list)
    returns: list[cst.Return] = field(default_factory=list)
    subscripts: list[cst.Subscript] = field(default_factory=list)  # read, not assigned to
    current_calls: list[cst.Call] = field(default_factory=list)  # `<something>.current()`
    calls: list[cst.Call] = field(default_factory=list)  # `name(...)`: maybe a helper
    # `self.x = value` ("value"), `self.x, y = value` ("unpack"), other stores ("unknown", None)
    self_assigns: dict[str, list[tuple[str, cst.BaseExpression | None]]] = field(default_factory=dict)


class _Walk(SkipsTrivia, cst.CSTVisitor):
    """Walks functions (each one once): what each holds directly, not what its nested ones do."""

    def __init__(self) -> None:
        self.functions: dict[cst.CSTNode, Function] = {}
        self.param_owner: dict[cst.Param, Function] = {}
        self.comp_targets: dict[cst.Name, tuple[cst.CompFor, bool]] = {}
        self.aug_assigns: dict[cst.Name, cst.AugAssign] = {}
        self._stack: list[Function] = []
        self._stores: set[cst.CSTNode] = set()

    def _function(self, node: cst.CSTNode, params: cst.Parameters, body: cst.CSTNode) -> bool:
        """Decorators and default values belong to the enclosing code; only the body to the function."""
        function = Function(node)
        self.functions[node] = function
        for kind in (params.posonly_params, params.params, params.kwonly_params):
            function.params.extend(kind)
        for extra in (params.star_arg, params.star_kwarg):
            if isinstance(extra, cst.Param):
                function.params.append(extra)
        for param in function.params:
            self.param_owner[param] = function
        for decorator in getattr(node, "decorators", ()):
            tree.visit(decorator, self)
        tree.visit(params, self)
        self._stack.append(function)
        tree.visit(body, self)
        self._stack.pop()
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self._function(node, node.params, node.body)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return self._function(node, node.params, node.body)

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            tree.visit(node.default, self)
        return False  # annotations are not run

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._stack.append(Function(node))  # a class body is not the enclosing function's code

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._stack.pop()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._stores.add(node.target)
        if not self._stack:
            return
        targets = node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else None
        for target in [el.value for el in targets] if targets is not None else [node.target]:
            attr = self_attr(target)
            if attr is None:
                continue
            value = self._assigned_value
            how = "value" if targets is None else "unpack"
            if value is None or (targets is not None and any(isinstance(el, cst.StarredElement) for el in targets)):
                how = "unknown"
            self._stack[-1].self_assigns.setdefault(attr, []).append((how, value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._assigned_value = node.value if len(node.targets) == 1 else None

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._self_store(node.target)

    def visit_For(self, node: cst.For) -> None:
        for target in node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]:
            self._self_store(getattr(target, "value", target))

    def _self_store(self, target: cst.CSTNode) -> None:
        attr = self_attr(target)
        if attr is not None and self._stack:
            self._stack[-1].self_assigns.setdefault(attr, []).append(("unknown", None))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._stores.add(node.target)
        if isinstance(node.target, cst.Name):
            self.aug_assigns[node.target] = node
        self._self_store(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._stores.add(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        target = node.target
        if isinstance(target, cst.Name):
            self.comp_targets[target] = (node, False)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if isinstance(el.value, cst.Name) and not isinstance(el, cst.StarredElement):
                    self.comp_targets[el.value] = (node, True)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._stack and node not in self._stores:
            self._stack[-1].subscripts.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        if self._stack:
            self._stack[-1].returns.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._stack:
            return
        func = node.func
        if isinstance(func, cst.Name) or (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            self._stack[-1].calls.append(node)  # a function, or a method called as `self.name()`
        if isinstance(func, cst.Attribute) and func.attr.value == "current" and not node.args:
            self._stack[-1].current_calls.append(node)

    _assigned_value: cst.BaseExpression | None = None


def self_attr(node: cst.CSTNode) -> str | None:
    """``X`` of ``self.X``; None for anything else."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


class GraphFunctions:
    """The graph functions of one module (see the module docstring), found from the roots."""

    def __init__(self, resolver: cst.MetadataDependent, model) -> None:
        self.resolver = resolver
        self.model = model
        # Only the graph code is walked: the roots, then each function they call, as found.
        self._walk = _Walk()
        self.functions = self._walk.functions
        self._param_owner = self._walk.param_owner
        self._comp_targets = self._walk.comp_targets
        self._aug_assigns = self._walk.aug_assigns
        # Roots: each pipeline's own graph function (a @pipeline_def body, a legacy define_graph).
        self.roots: dict[cst.CSTNode, object] = {}
        self.legacy: dict[cst.CSTNode, object] = {}  # define_graph → its LegacyPipeline
        for pipe_def in model.pipelines.values():
            graph = getattr(pipe_def, "graph", None)
            if graph is not None:
                self.roots[graph] = pipe_def
                self.legacy[graph] = pipe_def
            elif isinstance(pipe_def.node, cst.FunctionDef):
                self.roots[pipe_def.node] = pipe_def
        # Calls of the module's own functions from graph code, by callee. A function also named
        # elsewhere (called from other code, passed as a value) has parameters of unknown kind.
        self.call_sites: dict[cst.CSTNode, list[cst.Call]] = {}
        self.callee: dict[cst.Call, Function] = {}
        self._references: dict[cst.CSTNode, object] = {}
        self._follow_calls()
        # The functions named other than by those calls (passed on, called from other code).
        self.escapes = {
            node
            for node, references in self._references.items()
            if {id(r.node) for r in references} - {id(c.func) for c in self.call_sites.get(node, ())}
        }
        self.reached_by = self._reach()  # graph function → pipelines whose graph runs it

    def _follow_calls(self) -> None:
        """Walks the roots, then each function of the module their calls run, as found (each once),
        filling :attr:`callee` and :attr:`call_sites`."""
        todo, seen = list(self.roots), set()
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            if node not in self.functions:
                tree.visit(node, self._walk)
            for call in self.functions[node].calls:
                callee = self._resolve_function(call.func, call)
                if callee is not None and callee not in self.roots:
                    self.callee[call] = self.functions[callee]
                    self.call_sites.setdefault(callee, []).append(call)
                    todo.append(callee)

    def _reach(self) -> dict[cst.CSTNode, set]:
        """Each graph function → the pipelines whose graph runs it (from their roots, through
        :attr:`callee`)."""
        reached_by: dict[cst.CSTNode, set] = {}
        for root, pipeline in self.roots.items():
            todo = [root]
            while todo:
                node = todo.pop()
                owners = reached_by.setdefault(node, set())
                if pipeline in owners:
                    continue
                owners.add(pipeline)
                todo.extend(self.callee[c].node for c in self.functions[node].calls if c in self.callee)
        return reached_by

    def graph_functions(self):
        """``(Function, pipelines whose graph runs it, is a root)`` for every graph function."""
        for node, owners in self.reached_by.items():
            yield self.functions[node], owners, node in self.roots

    def _resolve_function(self, func: cst.BaseExpression, call: cst.Call | None = None) -> cst.CSTNode | None:
        """The module's undecorated function (or a lambda bound to the name once) a called name is,
        or the method a ``self.name()`` call runs (ndd_migrate.model.values.self_methods), walked; None for
        anything else."""
        method = self.model.self_calls.get(call) if call is not None else None
        if method is not None:
            node = self.model.functions.get(method)
            if isinstance(node, cst.FunctionDef) and node not in self.functions:
                tree.visit(node, self._walk)
            return node if isinstance(node, cst.FunctionDef) else None
        if not isinstance(func, cst.Name):
            return None
        scope = self.resolver.get_metadata(ScopeProvider, func, None)
        if scope is None:
            return None
        assignments = list(scope[func.value])
        if len(assignments) != 1:
            return None
        node = getattr(assignments[0], "node", None)
        binding = self.model.bindings.get(node) if isinstance(node, cst.Name) else None
        if binding is not None and binding[0] == "value" and isinstance(binding[1], cst.Lambda):
            node = binding[1]  # `norm = lambda x: ...`, then `norm(images)`
        elif not isinstance(node, cst.FunctionDef) or node.decorators:
            return None
        if node not in self.functions:
            tree.visit(node, self._walk)
        self._references[node] = assignments[0].references
        return node

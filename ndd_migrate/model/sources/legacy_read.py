"""Reading a legacy ``Pipeline`` subclass (:mod:`ndd_migrate.model.sources.legacy`): its methods,
each read by a module of its own (``legacy_init``, ``legacy_graph``, ``legacy_feeds`` for
``iter_setup``), the names both methods bind, and the problem a subclass of it gives."""

from __future__ import annotations

import builtins

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from ndd_migrate.model import constructs
from ndd_migrate.model.sources import graph_methods
from ndd_migrate.model.sources.legacy import LegacyPipeline
from ndd_migrate.model.sources.legacy_feeds import FeedReader
from ndd_migrate.model.sources.legacy_graph import GraphReader
from ndd_migrate.model.sources.legacy_init import InitReader
from ndd_migrate.model.sources.legacy_syntax import MethodReader, bound_names, self_assignment
from ndd_migrate.model.types import Problem
from ndd_migrate.syntax import cstutil, names, tree
from ndd_migrate.syntax.cstutil import SkipsTrivia

_INCOMPLETE = "a `Pipeline` subclass without both `__init__` and `define_graph`"
#: Python's builtins (`iter`, `len`, `input`, ...): an attribute named so becomes ``self_<name>``.
_BUILTINS = frozenset(dir(builtins))


def _subclassed(parent: LegacyPipeline, node: cst.ClassDef, refused=None) -> None:
    """One problem for all the subclasses of ``parent``, naming each (not one TODO per subclass).
    It replaces "without both `__init__` and `define_graph`" at the class: a base class that
    leaves a method to its subclasses is what it is for (one TODO at the class, not two).

    ``refused``: why the family could not be flattened into one generator per subclass, or why one
    of its classes did not convert once flattened (:mod:`ndd_migrate.model.sources.subclasses`): that is the problem."""
    name = node.name.value
    if refused is not None:
        if not any(getattr(p, "family", False) and p.node is parent.node for p in parent.problems):
            root = parent.node.name.value
            problem = Problem(
                refused.about,
                parent.node,
                refused.message,
                refused.hint
                or f"fix this (or write `{root}` as one `Pipeline` subclass of its own), then run ndd-migrate again",
                keeps=refused.keeps,
            )
            problem.family = True
            # The base's own problems are not what keeps the family; its classes' own reasons are.
            parent.problems[:] = [problem, *(p for p in parent.problems if getattr(p, "family", False))]
        if name in refused.reasons:  # a class left for a reason of its own, said at it
            parent.problems.append(_own_reason(node, refused.reasons[name]))
        return
    if any(p.message.startswith("subclassed by ") for p in parent.problems):
        for problem in parent.problems:
            if problem.message.startswith("subclassed by "):
                problem.message = problem.message.replace(": a function cannot be", f", `{name}`: a function cannot be")
        return
    parent.problems[:] = [p for p in parent.problems if not (p.node is parent.node and p.message == _INCOMPLETE)]
    parent.problems.append(
        Problem(
            constructs.PIPELINE_SUBCLASS,
            parent.node,
            f"subclassed by `{name}`: a function cannot be",
            f"write each subclass as one `Pipeline` subclass of its own, with the `__init__` and methods of "
            f"`{parent.node.name.value}` it uses, then run ndd-migrate again",
        )
    )


def _own_reason(node: cst.ClassDef, reason: tuple) -> Problem:
    """Why a class of a family left in part stays as it is, at the class (reported with its base)."""
    code, why, keeps, hint = reason
    problem = Problem(code, node, f"its subclass `{node.name.value}`: {why}", hint, keeps=keeps)
    problem.family = True
    return problem


def read_class(resolver: cst.MetadataDependent, node: cst.ClassDef, qualname: str, model) -> LegacyPipeline | None:
    """The legacy pipeline a class defines, or None when it does not derive from ``Pipeline``.

    A class deriving from a legacy pipeline of ``model`` keeps that one as it is: a function cannot
    be subclassed."""
    for base in node.bases:
        for qual in resolver.get_metadata(QualifiedNameProvider, base.value, None) or ():
            parent = model.pipelines.get(qual.name)
            if isinstance(parent, LegacyPipeline):
                _subclassed(parent, node, model.refused_families.get(parent.node.name.value))
            # A class further down a family left in part: its own reason, at it, reported with the base.
            for root, refused in model.refused_families.items():
                if (
                    node.name.value in refused.reasons
                    and isinstance(model.pipelines.get(root), LegacyPipeline)
                    and root != qual.name
                ):
                    model.pipelines[root].problems.append(_own_reason(node, refused.reasons[node.name.value]))
    if not any(names.dali_name(resolver, base.value) == names.PIPELINE for base in node.bases):
        return None
    pipeline = LegacyPipeline(qualname=qualname, node=node, decorator=None)
    pipeline.local_names = _names_in(node)
    _ClassReader(resolver, pipeline, model.names.module_level).read()
    return pipeline


class _ClassReader(MethodReader):
    """Finds the class's methods and reads them in order: ``__init__``, ``define_graph`` (with the
    external sources' calls), ``iter_setup``; then the names both methods bind."""

    def __init__(self, resolver: cst.MetadataDependent, pipeline: LegacyPipeline, module_names: set[str]) -> None:
        super().__init__(resolver, pipeline)
        self.module_names = module_names

    def read(self) -> None:
        pipeline = self.pipeline
        self.find_methods()
        if pipeline.node.decorators:
            self.problem(pipeline.node, "a decorated `Pipeline` subclass: the decorator expects a class")
        if pipeline.init is None or pipeline.graph is None:
            self.problem(pipeline.node, _INCOMPLETE)
            return
        init = InitReader(self.resolver, pipeline)
        init.read(pipeline.init)
        init_attrs = set(pipeline.data_attrs)
        feeds = FeedReader(self.resolver, pipeline)
        GraphReader(self.resolver, pipeline, feeds).read(pipeline.graph)
        feeds.read_setup(init_attrs)
        self.check_names()
        init.read_device_names()

    def find_methods(self) -> None:
        """``__init__``, ``define_graph`` and ``iter_setup``; any other statement of the class is a problem."""
        pipeline = self.pipeline
        body = pipeline.node.body.body if isinstance(pipeline.node.body, cst.IndentedBlock) else ()
        for index, stmt in enumerate(body):
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__" and not stmt.decorators:
                pipeline.init = stmt
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "define_graph" and not stmt.decorators:
                pipeline.graph = stmt
            elif isinstance(stmt, cst.FunctionDef) and stmt.name.value == "iter_setup" and not stmt.decorators:
                pipeline.setup = stmt
            elif isinstance(stmt, cst.FunctionDef) and _epoch_size_length(stmt) is not None:
                pipeline.length_reader = _epoch_size_length(stmt)
            elif not (index == 0 and cstutil.is_docstring(stmt)):
                name = stmt.name.value if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else None
                self.problem(
                    stmt,
                    f"`{name}` has no counterpart in a generator function{_why_kept(stmt, body)}"
                    if name
                    else "class-level statements have no counterpart in a generator function",
                )

    def check_names(self) -> None:
        """Both methods become one function: a name bound in both would change meaning."""
        pipeline = self.pipeline
        init_bound = bound_names(pipeline.init) | {p.name.value for p in cstutil.all_params(pipeline.init.params)[1:]}
        graph_bound = bound_names(pipeline.graph)
        for name in sorted(init_bound & graph_bound):
            self.problem(pipeline.graph, f"`{name}` is bound in both `__init__` and `define_graph`: rename one")
        for attr in sorted(pipeline.data_attrs & (init_bound | graph_bound)):
            trivial = attr in init_bound and attr not in graph_bound and _is_trivial_attr(pipeline.init, attr)
            if not trivial:  # a fresh local: `self.device` beside the parameter `device` → `self_device`
                pipeline.renamed[attr] = cstutil.fresh(f"self_{attr}", pipeline.local_names | self.module_names)
                pipeline.local_names.add(pipeline.renamed[attr])
                pipeline.init_dropped -= {
                    i for i, stmt in enumerate(pipeline.init.body.body) if self_assignment(stmt)[0] == attr
                }
        for attr in sorted(pipeline.data_attrs - pipeline.renamed.keys()):
            if attr in _BUILTINS:  # `self.iter` as a local `iter` would hide the builtin the generator calls
                pipeline.renamed[attr] = cstutil.fresh(f"self_{attr}", pipeline.local_names | self.module_names)
                pipeline.local_names.add(pipeline.renamed[attr])
                pipeline.init_dropped -= {
                    i for i, stmt in enumerate(pipeline.init.body.body) if self_assignment(stmt)[0] == attr
                }
        batch = pipeline.settings.get("batch_size")  # None: no `super().__init__` (reported on its own)
        if "batch_size" in (init_bound | graph_bound) and batch is not None and not _is_name(batch, "batch_size"):
            self.problem(pipeline.init, "`batch_size` names something else than the pipeline's batch size: rename it")


def _is_name(expr, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _is_trivial_attr(init: cst.FunctionDef, attr: str) -> bool:
    """Every ``self.<attr> = ...`` in ``__init__`` is ``self.<attr> = <attr>``."""
    values = [v for t, v in map(self_assignment, init.body.body) if t == attr]
    return bool(values) and all(_is_name(v, attr) for v in values)


class _Names(SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _names_in(node: cst.CSTNode) -> set[str]:
    finder = _Names()
    tree.visit(node, finder)
    return finder.names


def _epoch_size_length(method: cst.FunctionDef) -> str | None:
    """The reader name of ``def __len__(self): return self.epoch_size("Reader")`` (a docstring
    before the ``return`` allowed), or None for any other method. DALI 2.4's
    ``Pipeline.epoch_size(name)`` is that reader's padded epoch size, which the reader's metadata
    gives after the conversion: ``len(pipe)`` keeps its value (NDD005)."""
    params = cstutil.all_params(method.params)
    if method.name.value != "__len__" or method.decorators or len(params) != 1 or not method.params.params:
        return None
    call = _returned(method)
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "epoch_size"
        and _is_name(call.func.value, params[0].name.value)
        and len(call.args) == 1
        and (call.args[0].keyword is None or call.args[0].keyword.value == "name")
    ):
        return None
    arg = call.args[0]
    name = arg.value.evaluated_value if isinstance(arg.value, cst.SimpleString) and not arg.star else None
    return name if isinstance(name, str) else None


def _returned(method: cst.FunctionDef) -> cst.BaseExpression | None:
    """What a method whose body is one ``return`` (after a docstring) returns, else None."""
    if not isinstance(method.body, cst.IndentedBlock):
        return None
    body = [stmt for i, stmt in enumerate(method.body.body) if not (i == 0 and cstutil.is_docstring(stmt))]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    returned = body[0].body[0]
    return returned.value if isinstance(returned, cst.Return) else None


def _why_kept(stmt, body) -> str:
    """Why the class's methods were not inlined as graph helpers, where a method's shape says it
    (``graph_methods.not_inlinable``): its own, or the first other method's."""
    if not isinstance(stmt, cst.FunctionDef) or stmt.name.value.startswith("__"):
        return ""  # `__len__`: no helper, whatever its shape
    own = graph_methods.not_inlinable(stmt)
    if own is not None:
        return f" ({own})"
    for other in body:
        if (
            isinstance(other, cst.FunctionDef)
            and other.name.value not in graph_methods.PIPELINE_METHODS
            and not other.name.value.startswith("__")
        ):
            why = graph_methods.not_inlinable(other)
            if why is not None:
                return f" (it is not inlined as a graph helper while `{other.name.value}` stays: {why})"
    return ""

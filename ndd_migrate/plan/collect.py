"""Collecting the migration plan's uses (:mod:`ndd_migrate.plan.uses`) from a finished analysis.

Uses are found from three seeds:

* the calls of a pipeline function or factory (each gives a pipeline object);
* every reference to a name the analysis gave a :class:`~ndd_migrate.model.analysis.Kind` (through
  libcst's scope analysis, so uses in nested functions count);
* references to the pipeline function itself that are not calls (``partial(train_pipe, ...)``).

From each, the value is followed upwards through the expressions that give a value of a known
kind again (``pipe.run()``, ``out[0]``, ``images.cpu()``), each step being a use of its own.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ndd_migrate.dali import pipeline_args
from ndd_migrate.model import kinds
from ndd_migrate.model.kinds import chosen_kind, expr_kind, loop_parts
from ndd_migrate.model.sources.legacy import LegacyPipeline
from ndd_migrate.model.types import ITEM_KIND, Kind, ModuleModel, own_context, reads_on_gpu
from ndd_migrate.model.types import one_of as _one_of
from ndd_migrate.model.values.called_parameters import CalledParameters, bound_parameter
from ndd_migrate.plan.uses import (
    ARGUMENT,
    ATTRIBUTE,
    BOUND,
    CALLED,
    CHOSEN,
    DISCARDED,
    ELEMENT,
    ITERATED,
    LEN,
    METHOD,
    NONE_TEST,
    OTHER,
    OWN_CONTEXTS,
    PASSED,
    READ_BACK,
    REBOUND,
    REFERENCED,
    RETURNED,
    SAMPLES,
    STORED,
    SUBSCRIPT,
    UNPACKED,
    YIELDED,
    Use,
)
from ndd_migrate.syntax import names
from ndd_migrate.syntax.scopes import references


def collect(analyzer) -> list[Use]:
    """Every use of a value that converting a pipeline of the module changes (see the module
    docstring), from a finished :class:`~ndd_migrate.model.analysis.Analyzer`.

    Values passed to a function of the module are followed into it: when a walk finds parameters
    that hold such a value at every call, they are given that kind, the names bound from them
    inside the function are resolved again (``out = pipe.run()`` in a helper taking ``pipe``), and
    the uses are collected anew, until no new parameter is found. A call of a parameter that holds
    one of known functions of the module (ndd_migrate.model.values.called_parameters) is a call of each of them."""
    model: ModuleModel = analyzer.model
    called = CalledParameters(analyzer)
    for _ in range(_MAX_DEPTH):
        walk = _Walk(analyzer, called)
        for call, _ in analyzer.calls:
            found = expr_kind(model, call, analyzer.scope_of, analyzer.qualnames)
            if found and found[0] is Kind.PIPELINE:
                walk.follow(call, Kind.PIPELINE, found[1])
        for (scope, name), (kind, pipeline) in list(model.kinds.items()):
            for access in references(scope, name):
                if access.node not in model.converted_reads:  # the name holds a numpy array there
                    walk.follow(access.node, kind, pipeline)
        for found, (kind, pipeline) in list(
            model.attributes.kinds.items()
        ):  # `self.pipe` (ndd_migrate.model.values.attributes)
            for read in found.reads:
                walk.follow(read, kind, pipeline)
        for pipeline in [*model.pipelines.values(), *model.factories.values()]:
            walk.references_of(pipeline)
        walk.imported_references()
        new = walk.parameters_to_follow()
        if not new:
            return walk.uses
        analyzer.parameter_kinds.update(new)
        analyzer.resolve_kinds()
    return walk.uses


#: Helpers passing a value on to helpers, at most this deep (each level is one more walk).

#: Where a name is not a reference to what it names: an import (its names, `as` target, module).
_NOT_REFERENCES = (cst.ImportAlias, cst.AsName, cst.ImportFrom, cst.Import)
_MAX_DEPTH = 5


class _Walk:
    def __init__(self, analyzer, called: CalledParameters) -> None:
        self.analyzer = analyzer
        self.called = called
        self.model: ModuleModel = analyzer.model
        self.parents = analyzer.parents
        self.uses: list[Use] = []
        self._seen: set[int] = set()
        self._functions: set[int] = set()

    def follow(self, node: cst.CSTNode, kind: Kind, pipeline) -> None:
        """Record the use made of ``node`` (a value of ``kind``), and go on with the value it gives
        when that is of a known kind again."""
        while node is not None and id(node) not in self._seen:
            self._seen.add(id(node))
            use, derived = self._use_of(node, kind, pipeline)
            self.uses.append(use)
            if derived is None:
                return
            node, (kind, pipeline) = derived

    def parameters_to_follow(self) -> dict:
        """Parameters of the module's functions that every call gives a value of the same kind
        (``show(images)`` with ``def show(batch): batch.at(0)``), not yet followed: (scope, name) →
        (kind, pipeline). A call through a parameter known to hold some of the module's functions
        (``compare(pipe)``) counts as a call of each. The argument uses become :data:`PASSED` once
        they are."""
        passed: dict[tuple, list[Use]] = {}
        for use in self.uses:
            if use.context == ARGUMENT and use.kind not in (None, Kind.FUNCTION, Kind.FUNCTIONS):
                for target in self._parameters(use) or ():
                    passed.setdefault(target, []).append(use)
        new = {}
        for (qual, function, param), uses in passed.items():
            calls = {id(call) for call, q in self.analyzer.calls if q == qual} | self.called.through(qual)
            kinds = {use.kind for use in uses}
            scope = self.analyzer.scope_of(param)
            if (
                len(kinds) != 1
                or {id(use.holder) for use in uses} != calls
                or len(uses) != len(calls)
                or scope is None
                or len(scope.assignments[param.value]) != 1
                or self._referenced_otherwise(function)
                or (scope, param.value) in self.analyzer.parameter_kinds
                or qual in self.model.crossfile.shared  # another module calls it too: its values are not seen
            ):
                continue
            new[(scope, param.value)] = (kinds.pop(), _one_of(use.pipeline for use in uses))
            self.model.followed_functions.add(qual)
        return new

    def _parameters(self, use: Use) -> list[tuple] | None:
        """``(qualname, function, parameter name node)`` of each parameter an argument use binds: of
        the callee, when it is a plain function of the module, or of each function a parameter
        called as the callee holds (``use.callees``); None when one of them is not known."""
        call, arg = use.holder, self.parents.get(use.node)
        if not isinstance(call.func, cst.Name) or not isinstance(arg, cst.Arg) or arg.star:
            return None
        if use.callees is not None:
            quals = use.callees.functions
            if not quals:
                return None
        else:
            quals = [
                q
                for q in self.analyzer.qualnames(call.func)
                if q in self.model.functions and not self._inside(call, self.model.functions[q])
            ][:1]
        found = []
        for qual in quals:
            function = self.model.functions[qual]
            if self._inside(call, function):
                return None
            param = bound_parameter(call, arg, function)
            if param is None:
                return None
            found.append((qual, function, param))
        return found or None

    def _referenced_otherwise(self, function: cst.FunctionDef) -> bool:
        scope = self.analyzer.scope_of(function)
        if scope is None:
            return True
        for assignment in scope.assignments[function.name.value]:
            for access in assignment.references:
                parent = self.parents.get(access.node)
                if not (isinstance(parent, cst.Call) and parent.func is access.node) and not self.called.passes(
                    access.node
                ):
                    return True
        return False

    def references_of(self, pipeline) -> None:
        """Uses of the pipeline function's (or factory's, or class's) own name other than calls."""
        node = getattr(pipeline, "node", None)
        if node is None or id(node) in self._functions:
            return
        self._functions.add(id(node))
        scope = self.analyzer.scope_of(node)
        if scope is None:
            return
        for assignment in scope.assignments[node.name.value]:
            if getattr(assignment, "node", None) is not node:
                continue
            for access in assignment.references:
                ref = access.node
                parent = self.parents.get(ref)
                if isinstance(parent, cst.Call) and parent.func is ref:
                    continue  # a call: its result is followed from the call
                if isinstance(parent, cst.ClassDef) or isinstance(self.parents.get(parent), cst.ClassDef):
                    continue  # a base class: the legacy analysis decides about subclasses
                if self._inside(ref, node):
                    continue  # `super(Pipe, self)`, recursion: rewritten with the pipeline itself
                held = self._held_in(ref)
                if held is not None:  # `{Pipe: args, ...}`: the display is followed
                    display = self.parents.get(parent)
                    self.uses.append(
                        Use(
                            None, pipeline, ref, ELEMENT, node.name.value, display, self._statement(ref), Kind.FUNCTIONS
                        )
                    )
                    self.follow(display, Kind.FUNCTIONS, held)
                    continue
                self.uses.append(Use(None, pipeline, ref, REFERENCED, node.name.value, parent, self._statement(ref)))

    def imported_references(self) -> None:
        """Uses of the name of a pipeline another module of the run converts other than calls
        (``for make in (train, val)``, a callback, a base class): the calls they lead to are not
        followed here, so each is a use no rule claims, and keeps the pipeline where it is defined
        (NDD008 at the use). Before, such a pipeline converted and this module broke."""
        model = self.model
        if not model.crossfile.imported:
            return
        for node, parent in model.parents.items():
            if isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
                self._star_imported(node)
                continue
            if not isinstance(node, (cst.Name, cst.Attribute)) or isinstance(parent, _NOT_REFERENCES):
                continue  # the import itself (`mod` of `mod.val` names a module, not a pipeline)
            if isinstance(parent, cst.Call) and parent.func is node:
                continue  # a call: its result is followed from the call
            for qualified in self.analyzer.qualnames(node):
                pipeline = kinds.imported(model, qualified)
                if pipeline is not None and pipeline.convert:
                    self.uses.append(
                        Use(
                            None,
                            pipeline,
                            node,
                            REFERENCED,
                            qualified.rpartition(".")[2],
                            parent,
                            self._statement(node),
                        )
                    )
                    break

    def _star_imported(self, statement: cst.ImportFrom) -> None:
        """``from pkg.pipes import *``: the names it binds are not seen here (no qualified name
        leads to them), so each pipeline of that module the run converts that this module reads
        by name is a use no rule claims, and stays where it is defined. Before, it converted and
        this module, calling ``build()`` on what the star gave it, broke with exit 0."""
        prefix = f"{names.dotted(statement.module)}." if statement.module is not None else ""
        for qualified in self.model.crossfile.imported:
            name = qualified[len(prefix) :] if prefix and qualified.startswith(prefix) else ""
            if not name.isidentifier() or name not in self.model.names.read:
                continue  # a name this module never reads: whatever it binds, nothing here uses it
            pipeline = kinds.imported(self.model, qualified)
            if pipeline is not None and pipeline.convert:
                self.uses.append(
                    Use(None, pipeline, statement, REFERENCED, name, statement, self._statement(statement))
                )

    def _held_in(self, ref: cst.Name):
        """The :class:`~ndd_migrate.model.analysis.HeldFunctions` of the display that names ``ref`` in a
        place that names only pipeline functions (a key of ``{Pipe: args}``), or None."""
        element = self.parents.get(ref)
        display = self.parents.get(element)
        found = self._kind_of(display) if isinstance(display, (cst.List, cst.Tuple, cst.Set, cst.Dict)) else None
        if found is None or found[0] is not Kind.FUNCTIONS:
            return None
        if isinstance(element, cst.DictElement):
            place = "keys" if element.key is ref else "values"
        else:
            place = "items"
        return found[1] if place in found[1].positions else None

    def _use_of(self, node: cst.CSTNode, kind: Kind, pipeline) -> tuple[Use, tuple | None]:
        """The use the expression holding ``node`` (a value of ``kind``) makes of it, and the value
        that use gives when it is of a known kind again (``(node, (kind, pipeline))``, followed on),
        else None. Each part below reads one family of holders; the first that knows the holder
        answers."""
        parent = self.parents.get(node)
        statement = self._statement(node)

        def use(context: str, detail: str = "", holder: cst.CSTNode | None = None, gives=None) -> Use:
            holder = holder if holder is not None else parent
            return Use(kind, pipeline, node, context, detail, holder, statement, gives[0] if gives else None)

        return (
            self._accessed(node, parent, use)
            or self._function_used(node, kind, pipeline, parent, use)
            or self._passed(node, parent, use)
            or self._stored(node, parent, use)
            or self._looped_over(node, kind, pipeline, parent, use)
            or self._contained(node, parent, use)
            or self._chosen(node, parent, use)
            or self._none_test(node, parent, use)
            or self._left(parent, use)
        )

    def _accessed(self, node, parent, use) -> tuple | None:
        """``value.name``, ``value.name(...)``, ``value[...]``."""
        if isinstance(parent, cst.Attribute) and parent.value is node:
            above = self.parents.get(parent)
            if isinstance(above, cst.Call) and above.func is parent:
                derived = self._kind_of(above)
                return use(METHOD, parent.attr.value, above, derived), (above, derived) if derived else None
            return use(ATTRIBUTE, parent.attr.value), None
        if isinstance(parent, cst.Subscript) and parent.value is node:
            derived = self._kind_of(parent)
            return use(SUBSCRIPT, gives=derived), (parent, derived) if derived else None
        return None

    def _function_used(self, node, kind: Kind, pipeline, parent, use) -> tuple | None:
        """A name holding a pipeline function called, or looking its value up in a dict keyed by
        such functions; a display of them looped over."""
        if kind is Kind.FUNCTION and isinstance(parent, cst.Call) and parent.func is node:
            derived = self._kind_of(parent)
            return use(CALLED, _unfollowed_call(parent, pipeline, self.model.paired_calls), gives=derived), (
                parent,
                derived,
            ) if derived else None
        if kind is Kind.FUNCTION and isinstance(parent, cst.Index) and self._key_of_held(parent):
            return use(READ_BACK), None  # `held[cls]`: the dict's own key looks its value up
        if kind is Kind.FUNCTIONS and isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
            return use(READ_BACK if self._read_back(parent, node, pipeline) else ITERATED), None
        return None

    def _passed(self, node, parent, use) -> tuple | None:
        """An argument of a call: ``len(value)``, or given to a function — :data:`PASSED` when every
        parameter it binds is already followed."""
        call = self.parents.get(parent) if isinstance(parent, cst.Arg) and parent.value is node else None
        if not isinstance(call, cst.Call):
            return None
        if self._is_len(call) and len(call.args) == 1 and not parent.keyword and not parent.star:
            return use(LEN, holder=call), None
        found = replace(
            use(ARGUMENT, _spelled(call.func), call),
            callees=self.called.of(call),
            callee_kind=self._callee_kind(call),
        )
        targets = self._parameters(found)
        if targets and all(
            (self.analyzer.scope_of(param), param.value) in self.analyzer.parameter_kinds for _, _, param in targets
        ):
            return replace(found, context=PASSED, detail="/".join(f.name.value for _, f, _ in targets)), None
        return found, None

    def _callee_kind(self, call: cst.Call) -> str:
        """``Use.callee_kind`` of an argument of ``call``."""
        if names.dali_name(self.analyzer, call.func) is not None:
            return "dali"
        model = self.analyzer.model
        sub = model.iterator_subclasses.get(call) or next(
            (sub for sub in model.iterator_classes.values() if call in sub.calls), None
        )
        if sub is None:
            return ""
        return "wrapper" if sub.wrapper else "subclass"

    def _stored(self, node, parent, use) -> tuple | None:
        """An assignment's value or target, or a statement of its own."""
        if isinstance(parent, cst.Assign) and parent.value is node:
            return self._assigned(parent, use), None
        if isinstance(parent, (cst.AnnAssign, cst.AugAssign, cst.AssignTarget)):
            return use(STORED), None
        if isinstance(parent, cst.Expr):
            return use(DISCARDED), None
        return None

    def _looped_over(self, node, kind: Kind, pipeline, parent, use) -> tuple | None:
        """``for x in value``, ``[... for x in value]``: each item, or each sample of a batch."""
        if not (isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node):
            return None
        if kind in ITEM_KIND:  # `for p in pipes`, `for out in outs`: the item is followed when the analysis tracks it
            target = parent.target
            tracked = isinstance(target, cst.Name) and self._tracked(self.analyzer.scope_of(target), target.value)
            return use(ITERATED, gives=(ITEM_KIND[kind], pipeline) if tracked else None), None
        return use(SAMPLES if kind is Kind.BATCH and self._samples_as_arrays(parent) else ITERATED), None

    def _contained(self, node, parent, use) -> tuple | None:
        """An item of a display, or the element of a comprehension."""
        if isinstance(parent, (cst.Element, cst.DictElement, cst.StarredElement, cst.StarredDictElement)):
            return self._element(use, self.parents.get(parent))
        if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)) and node is not getattr(
            parent.for_in, "iter", None
        ):
            return self._element(use, parent)  # `[p(shard_id=i) for i in ...]`: one value per item, in a container
        return None

    def _chosen(self, node, parent, use) -> tuple | None:
        """A side of ``a if test else b`` whose other side holds the same kind of value."""
        if isinstance(parent, cst.IfExp) and node is not parent.test:
            derived = chosen_kind(self.model, parent, self.analyzer.scope_of, self.analyzer.qualnames)
            if derived is not None:
                return use(CHOSEN, gives=derived), (parent, derived)
        return None

    @staticmethod
    def _none_test(node, parent, use) -> tuple | None:
        """``value is None`` or ``value is not None``."""
        if not (isinstance(parent, cst.Comparison) and parent.left is node and len(parent.comparisons) == 1):
            return None
        target = parent.comparisons[0]
        none = isinstance(target.comparator, cst.Name) and target.comparator.value == "None"
        if isinstance(target.operator, (cst.Is, cst.IsNot)) and none:
            return use(NONE_TEST), None
        return None

    @staticmethod
    def _left(parent, use) -> tuple:
        """Returned, yielded, or anything else (:data:`OTHER`, with the holder's type)."""
        if isinstance(parent, cst.Return):
            return use(RETURNED), None
        if isinstance(parent, cst.Yield):
            return use(YIELDED), None
        return use(OTHER, type(parent).__name__ if parent is not None else ""), None

    def _element(self, use, container: cst.CSTNode) -> tuple[Use, tuple | None]:
        """An item of a container: followed on with the container when that is a list of
        pipelines (:data:`Kind.PIPELINES`), whose own uses are then collected — unless it may hold
        several pipelines that each make an ``EvalContext`` of their own and read on the GPU
        (:data:`OWN_CONTEXTS`; codegen.shape.epoch_args)."""
        derived = self._kind_of(container) if isinstance(container, cst.BaseExpression) else None
        if derived is not None and derived[0] is Kind.BATCHES:  # `[out1, out2]`, `[o.cpu() for o in outs]`
            return use(ELEMENT, holder=container, gives=derived), (container, derived)
        if derived is None or derived[0] is not Kind.PIPELINES:
            return use(ELEMENT, holder=container), None
        several = not (isinstance(container, (cst.List, cst.Tuple)) and len(container.elements) == 1)
        if several and any(own_context(m) and reads_on_gpu(m) for m in getattr(derived[1], "members", (derived[1],))):
            return use(ELEMENT, OWN_CONTEXTS, container), None
        return use(ELEMENT, holder=container, gives=derived), (container, derived)

    def _key_of_held(self, index: cst.Index) -> bool:
        """Is ``index`` the one index of a subscript of a dict whose keys are pipeline functions?"""
        element = self.parents.get(index)
        subscript = self.parents.get(element)
        if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
            return False
        found = self._kind_of(subscript.value)
        return bool(found) and found[0] is Kind.FUNCTIONS and "keys" in found[1].positions

    def _read_back(self, loop, iterated: cst.BaseExpression, held) -> bool:
        """Does each pipeline function a loop over ``held`` gives go to a name the analysis follows?"""
        scope = self.analyzer.scope_of(loop.target)
        return all(
            not holds or (isinstance(part, cst.Name) and self._tracked(scope, part.value))
            for part, holds in loop_parts(held, iterated, loop.target)
        )

    def _assigned(self, assign: cst.Assign, use) -> Use:
        if len(assign.targets) != 1:
            return use(STORED)
        target = assign.targets[0].target
        if (
            isinstance(target, cst.Attribute)
            and self.model.attributes.stores.get(target) in self.model.attributes.kinds
        ):
            return use(BOUND, _spelled(target))  # `self.pipe = p(...)`, followed like a name
        if isinstance(target, cst.Name):
            scope = self.analyzer.scope_of(assign)
            return use(BOUND if self._tracked(scope, target.value) else REBOUND, target.value)
        if isinstance(target, (cst.Tuple, cst.List)):
            scope = self.analyzer.scope_of(assign)
            for element in target.elements:
                if not isinstance(element, cst.Element) or not isinstance(element.value, cst.Name):
                    return use(STORED)
                if not self._tracked(scope, element.value.value):
                    return use(REBOUND, element.value.value)
            return use(UNPACKED)
        return use(STORED)

    def _samples_as_arrays(self, loop) -> bool:
        """``for sample in batch`` where each sample is only given to ``np.asarray``/``np.array``,
        which read a pipeline-mode tensor and a dynamic-mode one alike."""
        target = loop.target
        scope = self.analyzer.scope_of(target)
        if not isinstance(target, cst.Name) or scope is None:
            return False
        found = references(scope, target.value)
        for access in found:
            arg = self.parents.get(access.node)
            call = self.parents.get(arg)
            if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and len(call.args) == 1):
                return False
            if not self.analyzer.qualnames(call.func) & {"numpy.asarray", "numpy.array"}:
                return False
        return bool(found)

    def _tracked(self, scope, name: str) -> bool:
        return scope is not None and (scope, name) in self.model.kinds

    def _kind_of(self, expr: cst.BaseExpression) -> tuple | None:
        return expr_kind(self.model, expr, self.analyzer.scope_of, self.analyzer.qualnames)

    def _is_len(self, call: cst.Call) -> bool:
        return isinstance(call.func, cst.Name) and "builtins.len" in self.analyzer.qualnames(call.func)

    def _inside(self, node: cst.CSTNode, container: cst.CSTNode) -> bool:
        current = self.parents.get(node)
        while current is not None:
            if current is container:
                return True
            current = self.parents.get(current)
        return False

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode | None:
        current = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.parents.get(current)
        return current


def _unfollowed_call(call: cst.Call, held, paired: set) -> str:
    """Why a pipeline made through a name that holds its function (``cls(...)``) cannot be left as
    it is written, or ``""``: what the call-site rewrites of a call by name would change there
    (dropped executor or conditionals arguments, checkpoint or epoch-aware creation) is not done
    through such a name — but for the epoch-aware creation of a call in ``paired``, bound to a
    name alone or as an item of a list (``pipes_meta, pipes = zip(*[cls(...) for ...])``, NDD411),
    when every pipeline the name may be has that shape."""
    members = getattr(held, "members", (held,))
    starred = next((a for a in call.args if a.star), None)
    # A legacy class's arguments are its `__init__`'s, which the generator keeps: a `**d` cannot
    # carry pipeline settings there.
    if starred is not None and not all(isinstance(pipeline, LegacyPipeline) for pipeline in members):
        return f"it passes `{starred.star}{cst.Module([]).code_for_node(starred.value)}`, which may carry pipeline settings"
    special = {*pipeline_args.EXECUTOR_ONLY, *pipeline_args.CHECKPOINTING, "enable_conditionals"}
    given = sorted(a.keyword.value for a in call.args if a.keyword is not None and a.keyword.value in special)
    if given:
        return f"it passes `{given[0]}`, which a call by name would drop or rewrite"
    paired = call in paired and all(getattr(pipeline, "epochs", False) for pipeline in members)
    for pipeline in members:
        if (getattr(pipeline, "epochs", False) and not paired) or getattr(pipeline, "checkpointing", False):
            what = "reader metadata (the epoch-aware shape)" if pipeline.epochs else "checkpointing"
            return f"`{pipeline.qualname}` is made with {what}, which a call by name gets at its creation"
    return ""


def _spelled(func: cst.BaseExpression) -> str:
    """The callee as the user wrote it (``show_images``, ``self.helper``, ``np.asarray``)."""
    parts = []
    current = func
    while isinstance(current, cst.Attribute):
        parts.append(current.attr.value)
        current = current.value
    if isinstance(current, cst.Name):
        parts.append(current.value)
        return ".".join(reversed(parts))
    return "a call"

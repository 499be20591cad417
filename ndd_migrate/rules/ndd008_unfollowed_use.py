"""NDD008 unfollowed-use: a pipeline is left unconverted because one of its values goes where the
migration cannot follow it."""

from __future__ import annotations

import functools

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model.features import instances, iterators
from ndd_migrate.model.types import Kind
from ndd_migrate.model.values import called_parameters
from ndd_migrate.plan import uses
from ndd_migrate.syntax import cstutil
from ndd_migrate.syntax.region import PIPELINE_ONLY_API

#: The example of a loop over a dict of pipeline functions (its TODO goes above the last line).
_DICT_OF_PIPELINES = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def small():\n"
    "    return fn.random.uniform(shape=[2])\n\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def large():\n"
    "    return fn.random.uniform(shape=[4])\n\n\n"
    "SHAPES = {small: 2, large: 4}\n"
    "for make in SHAPES:\n"
)


RULE = Rule(
    code="NDD008",
    name="unfollowed-use",
    summary="a pipeline's value is used where no rule can rewrite it, so the pipeline stays as it is",
    what=(
        "Converting a pipeline changes the type of the pipeline function, of the pipeline object (now a "
        "generator), of what `pipe.run()` returns and of each output (`Batch`, not `TensorList`). Before "
        "rewriting, ndd-migrate follows each of these values to every use in the module — attributes, "
        "arguments, containers, returns, comprehensions — and a pipeline is converted only when a rule "
        "rewrites every one of them. Otherwise the pipeline and its uses are left unchanged and this rule "
        "reports, at the first use that blocks it, that the pipeline stays in pipeline mode, why and what to do. A value passed to a call "
        "of a parameter (`compare(pipe)` in `def run(compare)`) is followed into each function of the module the "
        "calls of `run` pass for it; when they cannot be known (a lambda, a function of another module), the "
        "finding says why. A use of a "
        "pipeline that another module of the run converts is reported where it is. Pipeline functions held by "
        "name in a list or dict are followed when it is only iterated, each name it gives only called or read "
        "as `__name__`. A graph helper (a function "
        "of `fn.*` ops) that the graphs of several pipelines call converts with all of them or none: while one "
        "stays in pipeline mode, so do the others, each reported at its call of the helper."
    ),
    why=(
        "A rewrite that stops at the uses it recognises leaves a program that fails later, at a line "
        "with no TODO: `self.pipe.build()` on a generator, `show(images)` calling `.at(i)` on a `Batch`. "
        "Exit 0 from `migrate` promises that every changed value was followed and rewritten."
    ),
    fix_safety=FixSafety.MANUAL,
    fix=(
        "None: rewrite the named use so that the migration can follow it (a plain local name for the "
        "pipeline, outputs consumed where `run()` is called), or migrate that code by hand, then run "
        "ndd-migrate again."
    ),
    examples=(
        Example(
            title="a pipeline kept in an attribute that code outside the class reads",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "class Loader:\n"
                "    def __init__(self):\n"
                "        self.pipe = p()\n"
                "        self.pipe.build()\n\n\n"
                "out = Loader().pipe.run()\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "class Loader:\n"
                "    def __init__(self):\n"
                "        # TODO(ndd-migrate): NDD008 `p` stays in pipeline mode: the `p` pipeline is stored in "
                "an attribute or an item, not in a plain name; bind it to a local name where it is built and "
                "run (`pipe = p(...)`), or set `self.pipe` once, by one method, and use it only in the "
                "class's own methods, or migrate this use by hand; then run ndd-migrate again\n"
                "        self.pipe = p()\n"
                "        self.pipe.build()\n\n\n"
                "out = Loader().pipe.run()\n"
            ),
        ),
        Example(
            title="an output passed to a function of another package",
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "from viz import show\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[2])\n\n\n"
                "pipe = p()\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
                "show(x)\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n"
                "from viz import show\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform(shape=[2])\n\n\n"
                "pipe = p()\n"
                "pipe.build()\n"
                "(x,) = pipe.run()\n"
                "# TODO(ndd-migrate): NDD008 `p` stays in pipeline mode: `x` (an output of `p`) is passed to "
                "`show()`, which the migration does not follow; make `show()` take a dynamic-mode `Batch` (or "
                "give it what it needs, e.g. `np.asarray(x.tensors[i])`), or migrate this use by hand; then run "
                "ndd-migrate again\n"
                "show(x)\n"
            ),
        ),
        Example(
            title="a pipeline given to a parameter that a caller passes a lambda",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "def run(check):\n"
                "    pipe = p()\n"
                "    pipe.build()\n"
                "    check(pipe)\n\n\n"
                "run(lambda pipe: pipe.run())\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "def run(check):\n"
                "    pipe = p()\n"
                "    pipe.build()\n"
                "    # TODO(ndd-migrate): NDD008 `p` stays in pipeline mode: `pipe` (a `p` pipeline) is passed "
                "to `check()` (`check` is a parameter of `run`, and a call of `run` passes it `lambda pipe: "
                "pipe.run()`, not the name of a function of this module), which the migration does not follow; "
                "pass `run()` the name of a function of this module for `check` at every call, and call `check` "
                "only, or migrate this use by hand; then run ndd-migrate again\n"
                "    check(pipe)\n\n\n"
                "run(lambda pipe: pipe.run())\n"
            ),
        ),
        Example(
            title="a pipeline returned on some paths only",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "def maybe_pipe(enabled):\n"
                "    if enabled:\n"
                "        return p()\n"
                "    return None\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=2)\n"
                "def p():\n"
                "    return fn.random.uniform()\n\n\n"
                "def maybe_pipe(enabled):\n"
                "    if enabled:\n"
                "        # TODO(ndd-migrate): NDD008 `p` stays in pipeline mode: the `p` pipeline is returned "
                "(`maybe_pipe` does not return a pipeline on every path, so its callers are not followed); "
                "return it on every path of the function (a factory, whose callers are followed), or migrate "
                "the callers by hand; then run ndd-migrate again\n"
                "        return p()\n"
                "    return None\n"
            ),
        ),
        Example(
            title="a pipeline function taken out of a dict of them and passed on",
            before=_DICT_OF_PIPELINES + "    register(make)\n",
            after=(
                _DICT_OF_PIPELINES
                + "    # TODO(ndd-migrate): NDD008 `small`, `large` stay in pipeline mode: `make` (one of "
                "`small`/`large` itself, not a pipeline made by it) is passed to `register()`, which the "
                "migration does not follow; call the pipeline functions where the loop over them is, instead of "
                "giving them to `register()` (the pipelines it would make are not followed), or migrate this "
                "use by hand; then run ndd-migrate again\n"
                "    register(make)\n"
            ),
        ),
    ),
)

#: What to use instead of a pipeline object's methods and attributes.
PIPELINE_HINTS = {
    "epoch_size": "use `reader.get_metadata()['epoch_size']` of the reader inside the migrated function",
    "reader_meta": "use `reader.get_metadata()` of the reader inside the migrated function",
    "reset": "create a new generator by calling the migrated function again (NDD005 does it where that is exact)",
    "schedule_run": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "share_outputs": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "outputs": "call `next(pipe)`; dynamic mode has no separate scheduling",
    "release_outputs": "nothing to release: drop the call",
    "max_batch_size": "use the batch size the pipeline is called with",
    "batch_size": "use the batch size the pipeline is called with",
    "checkpoint": "use ndd.checkpoint.Checkpoint with the reader and RNG registered",
}

_AGAIN = "then run ndd-migrate again"

#: Pipeline-mode API that only a pipeline has: code calling it on a value it was given consumes
#: pipelines (a hand-written DALI iterator: DLE SSD's `DALICOCOIterator`).
_CONSUMER = "on a pipeline it is given"
#: DALI's own framework iterators, which run a `Pipeline`.
_DALI_ITERATORS = frozenset({*iterators.SUPPORT_CLASSES, *iterators.OTHER_ITERATORS})


class Impl(RuleImpl):
    rule = RULE

    def blockers(self, pipeline):
        """A pipeline with no call site in the module is made elsewhere; when code of the module uses
        pipeline-only API (``.share_outputs()``, ``.max_batch_size``, ...) on values it is given,
        those may be this pipeline's, and a generator would fail there: it stays, with the reason
        at that code. A pipeline method called through an object other than ``self``
        (``builder.pipeline(...)``) makes pipelines the analysis does not follow: it stays too."""
        through = self._through_instance(pipeline)
        if through is not None:
            return [through]
        if self.ctx.model.sites_of(pipeline):
            return []
        consumers = [(node, attr) for node, attr in self._consumers if not self._not_of(node.value, pipeline)]
        if not consumers:
            return self._handed_to_dali(pipeline)
        node, attr = consumers[0]
        owner = self._definition_of(node)
        where = f"`{owner}` calls" if owner else "the module calls"
        return [
            (
                node,
                f"{where} `.{attr}` {_CONSUMER}, and `{pipeline.display}` is made only outside "
                "this module, where it may be given to it",
                f"migrate {f'`{owner}`' if owner else 'the code that does'} with the code that makes the pipeline "
                "(a generator has no "
                f"`.{attr}`: {PIPELINE_HINTS.get(attr, 'see docs/target-shape.md')}), or keep both in pipeline mode",
            )
        ]

    def _handed_to_dali(self, pipeline) -> list[tuple[cst.CSTNode, str, str]]:
        """For a pipeline made only outside the module: the first code of the module that runs one of
        DALI's own iterators on a pipeline it is given (:attr:`_dali_iterator_runs`), where this
        pipeline may end up, as a blocker; else none."""
        if not self._dali_iterator_runs:
            return []
        node, where, cls = self._dali_iterator_runs[0]
        return [
            (
                node,
                f"{where} DALI's `{cls}` {_CONSUMER}, and `{pipeline.display}` is made only outside this module, "
                "where it may be given to it",
                f"migrate {where.split(' ')[0]} with the code that makes the pipeline (DALI's `{cls}` needs a "
                "`Pipeline`), or keep both in pipeline mode",
            )
        ]

    @functools.cached_property
    def _dali_iterator_runs(self) -> list[tuple[cst.CSTNode, str, str]]:
        """``(node, who, iterator class)`` for the code of the module that runs DALI's own iterators on
        values the analysis does not know: a class deriving from one that keeps it as its base
        (NDD411's blocker: its ``super().__init__`` call), and a call of one given such a value
        (``DALIClassificationIterator(pipelines=pipelines)`` in a wrapper class)."""
        found = []
        for sub in self.ctx.model.iterator_classes.values():
            if sub.blocker and not sub.imported:
                short = sub.base.rsplit(".", 1)[-1]
                who = f"`{sub.node.name.value}` runs" + ("" if sub.wrapper else ", as its base,")
                found.append((sub.super_call or sub.node, who, short))
        wrapped = {id(sub.super_call) for sub in self.ctx.model.iterator_classes.values() if self._takes_migrated(sub)}
        for node in self.ctx.model.parents:
            if not isinstance(node, cst.Call) or self.ctx.dali_name(node.func) not in _DALI_ITERATORS:
                continue
            if id(node) in wrapped:
                continue  # a wrapper class's, given migrated pipelines only: its calls are read as the iterator's
            given = cstutil.kwarg(node, "pipelines") or next((a for a in node.args if a.keyword is None), None)
            if given is not None and self.ctx.kind(given.value) is None and not self._marked(node):
                owner = self._definition_of(node)
                who = f"`{owner}` runs" if owner else "the module runs"
                found.append((node, who, self.ctx.dali_name(node.func).rsplit(".", 1)[-1]))
        return sorted(found, key=lambda item: self.ctx.line_of(item[0])[:2])

    @staticmethod
    def _takes_migrated(sub) -> bool:
        """Is ``sub`` a wrapper class of DALI's iterator (iterator_subclasses.wrapping) whose iterator
        may become the support module's? That iterator takes migrated pipelines and hands
        pipeline-mode ones to DALI's own class: a pipeline of this module, made here or elsewhere,
        may be given to the wrapper migrated, whatever its other callers give it."""
        return sub.wrapper is not None and sub.blocker is None

    def _through_instance(self, pipeline) -> tuple[cst.CSTNode, str, str] | None:
        """The first ``obj.method`` naming the pipeline method ``pipeline`` (a ``@pipeline_def``
        function of a class body) that is not a call site the analysis follows, or None. Such a
        reference, ``builder.pipeline(...)`` or ``self.pipeline(...)``, makes pipelines whose uses
        (``.build()``, ``.run()``, an iterator) would be left in pipeline mode while the method
        became a generator function: exit 0 and a broken program."""
        node = pipeline.node
        if not isinstance(self.ctx.model.parents.get(self.ctx.model.parents.get(node)), cst.ClassDef):
            return None
        name, parents = node.name.value, self.ctx.model.parents
        sites = {id(call.func) for call in self.ctx.model.sites_of(pipeline) if isinstance(call, cst.Call)}
        found = [
            ref for ref in parents if isinstance(ref, cst.Attribute) and ref.attr.value == name and id(ref) not in sites
        ]
        if not found:
            return None
        ref = min(found, key=lambda item: self.ctx.line_of(item)[:2])
        return (
            ref,
            f"`{cstutil.code(ref)}` reaches the pipeline method `{pipeline.qualname}` through an object: "
            "the pipelines a method makes are not followed to their uses (`.build()`, `.run()`, iterators)",
            f"migrate `{pipeline.qualname}` and every use of what it makes by hand, or keep it in pipeline mode",
        )

    def _not_of(self, value: cst.BaseExpression, pipeline) -> bool:
        """Is ``value`` surely not a ``pipeline`` object: a name bound only by calls of classes of
        this module that are not the pipeline's class, nor derive from it (:mod:`instances`)?"""
        if not isinstance(value, cst.Name):
            return False
        scope = self.ctx.resolver.get_metadata(ScopeProvider, value, None)
        found = instances.instantiated(value, scope, self.ctx.model.parents, self._classes)
        target = pipeline.node.name.value if isinstance(pipeline.node, cst.ClassDef) else None
        return found is not None and not any(
            instances.may_be(cls, target, self._classes, self.ctx.dali_name) for cls in found
        )

    @functools.cached_property
    def _classes(self) -> dict[str, cst.ClassDef]:
        """The module's top-level classes, by name."""
        module = next(iter(self.ctx.model.parents.values()), None)
        while module is not None and not isinstance(module, cst.Module):
            module = self.ctx.model.parents.get(module)
        body = module.body if module is not None else ()
        return {stmt.name.value: stmt for stmt in body if isinstance(stmt, cst.ClassDef)}

    @functools.cached_property
    def _consumers(self) -> list[tuple[cst.CSTNode, str]]:
        """``(node, attribute)`` for each use of :data:`PIPELINE_ONLY_API` on a value the analysis does
        not know (a parameter, an attribute, a loop variable), in the order of the file; not on
        ``self``, a ``Pipeline`` subclass's own."""
        found = []
        for node in self.ctx.model.parents:
            if (
                isinstance(node, cst.Attribute)
                and node.attr.value in PIPELINE_ONLY_API
                and not (isinstance(node.value, cst.Name) and node.value.value == "self")
                and self.ctx.kind(node.value) is None
                and not self._marked(node)
            ):
                found.append((node, node.attr.value))
        return sorted(found, key=lambda item: self.ctx.line_of(item[0])[:2])

    def _marked(self, node: cst.CSTNode) -> bool:
        """Is the statement ``node`` is in marked by a TODO of an earlier run (a use left on a value
        that run converted, already for a human)? Then it says nothing of this run's pipelines."""
        current = node
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            current = self.ctx.model.parents.get(current)
        comments = [line.comment.value for line in getattr(current, "leading_lines", ()) if line.comment is not None]
        todos = [c for c in comments if "TODO(ndd-migrate)" in c]
        # this blocker's own TODO (its text runs on over the next lines) marks the same consumer again
        text = " ".join(c.lstrip("#").strip() for c in comments)
        return bool(todos) and _CONSUMER not in text

    def _definition_of(self, node: cst.CSTNode) -> str | None:
        """The name of the top-level class or function ``node`` is in."""
        parents, top = self.ctx.model.parents, None
        current = parents.get(node)
        while current is not None:
            if isinstance(current, (cst.ClassDef, cst.FunctionDef)):
                top = current.name.value
            current = parents.get(current)
        return top

    def visit_Module(self, node: cst.Module) -> None:
        found = self.ctx.model.plan
        # One finding per blocking use: pipelines kept by the same use (taken from one dict, bound
        # to one name) are named together there.
        at_use: dict[int, list] = {}
        for pipeline, blocking in found.blocked.items():
            # The first in the file first, by line and column, then wording: uses come in the order of
            # libcst's reference sets, which differs from run to run, and the TODO must not (a second
            # run would add a second one).
            blocking = sorted(blocking, key=lambda item: (self.ctx.line_of(item[0].node)[:2], describe(*item)))
            at_use.setdefault(id(blocking[0][0].node), []).append((pipeline, blocking))
        for kept in sorted(at_use.values(), key=lambda group: self.ctx.line_of(group[0][1][0][0].node)[:2]):
            use, reason = kept[0][1][0]
            what, todo = describe(use, reason)
            where = self._where(use)
            more = sorted({self._line(u) for _, blocking in kept for u, _ in blocking[1:]})
            others = f" (and {len(more)} more: lines {', '.join(map(str, more))})" if more else ""
            names = ", ".join(f"`{pipeline.display}`" for pipeline, _ in kept)
            verb = "stays" if len(kept) == 1 else "stay"
            # At the use, where the reason is (the pipeline's definition may be far away, or in
            # another function): the TODO names the pipeline that stays.
            self.ctx.report(
                self.code,
                use.node,
                f"{names} not migrated: at {where}{others}, {what}",
                hint=f"{names} {verb} in pipeline mode: {what}; {todo}; {_AGAIN}",
                fixed=False,
            )
        for use, reason in found.unfollowed:
            what, todo = describe(use, reason)
            self.ctx.report(
                self.code,
                use.node,
                f"{what}, converted in another module of the run",
                hint=f"{what}: {todo}",
                fixed=False,
            )

    def _line(self, use: uses.Use) -> int:
        return self.ctx.line_of(use.node)[0]

    def _where(self, use: uses.Use) -> str:
        return f"{self.ctx.path}:{self._line(use)}"


def describe(use: uses.Use, reason: str = "") -> tuple[str, str]:
    """(what the use does, what to do instead) in the user's own spelling."""
    subject = _subject(use)
    context, detail = use.context, use.detail
    if reason == uses.TOGETHER:
        names = " and ".join(f"`{m.qualname}`" for m in use.members)
        return (
            f"{subject} holds values of {names}, which convert together or not at all",
            "give each pipeline's values their own names",
        )
    if context == uses.SHARED_HELPER:
        return (
            f"`{detail}()` also builds part of the graph of `{reason}`, which stays in pipeline mode, and so "
            f"does `{detail}`",
            f"give {subject} its own copy of `{detail}`",
        )
    if context == uses.KEPT_HELPER:
        return (
            f"`{detail}()` builds part of the graph and stays pipeline-mode code: {reason}",
            "migrate the modules that use it in one run, or give each side its own copy",
        )
    because = f" ({reason})" if reason else ""
    if context in (uses.METHOD, uses.ATTRIBUTE, uses.SUBSCRIPT, uses.LEN):
        return _read(use, subject, because)
    if context in (uses.ARGUMENT, uses.RETURNED):
        return _handed_on(use, subject, because)
    if context in (uses.REBOUND, uses.STORED, uses.ELEMENT, uses.ITERATED):
        return _held(use, subject, because)
    if context in (uses.CALLED, uses.REFERENCED):
        return _function_used(use, subject)
    return (f"{subject} is used in {_construct(detail or context)}{because}", "rewrite this use by hand")


#: How a use names the syntax around a value (libcst's class names, uses.OTHER's detail), in words.
_CONSTRUCTS = {
    "Return": "a `return`",
    "Element": "a list, tuple or set display",
    "DictElement": "a dict display",
    "StarredElement": "a starred element (`*x`)",
    "Arg": "a call's arguments",
    "Yield": "a `yield`",
    "Await": "an `await`",
    "Lambda": "a `lambda`",
    "Comparison": "a comparison",
    "BinaryOperation": "arithmetic",
    "BooleanOperation": "an `and`/`or`",
    "UnaryOperation": "a unary operation",
    "IfExp": "a conditional expression",
    "FormattedStringExpression": "an f-string",
    "AugAssign": "an augmented assignment",
    "With": "a `with` statement",
    "WithItem": "a `with` statement",
    "Assert": "an `assert`",
    "Raise": "a `raise`",
}


def _construct(name: str) -> str:
    return _CONSTRUCTS.get(name, f"`{name}`")


def _read(use: uses.Use, subject: str, because: str) -> tuple[str, str]:
    """``describe`` for something read from the value: a method called, an attribute, an item, its length."""
    context, detail = use.context, use.detail
    if context == uses.METHOD:
        return (
            f"`.{detail}()` is called on {subject}{because}",
            PIPELINE_HINTS.get(detail, f"the migrated value has no `.{detail}()`: rewrite this call by hand")
            if use.kind is Kind.PIPELINE
            else "rewrite this call for a dynamic-mode `Batch`",
        )
    if context == uses.ATTRIBUTE:
        return (
            f"`.{detail}` of {subject} is read{because}",
            PIPELINE_HINTS.get(detail, f"the migrated value has no `.{detail}`: rewrite this use by hand"),
        )
    if context == uses.SUBSCRIPT:
        return (f"{subject} is indexed{because}", "rewrite this use by hand")
    return (f"`len()` of {subject} is taken{because}", "rewrite this use by hand")


def _handed_on(use: uses.Use, subject: str, because: str) -> tuple[str, str]:
    """``describe`` for the value handed to code the migration does not follow: passed to a call, returned."""
    if use.context == uses.ARGUMENT and use.callees is not None:
        held = use.callees
        return (
            f"{subject} is passed to `{use.detail}()` ({_callees(held)}), which the migration does not follow",
            f"pass `{held.owner}()` the name of a function of this module for `{held.parameter}` at every call, "
            f"and call `{held.parameter}` only, or migrate this use by hand",
        )
    if use.context == uses.ARGUMENT:
        return (
            f"{subject} is passed to `{use.detail}()`{because}, which the migration does not follow",
            _argument_hint(use, use.detail),
        )
    return (
        f"{subject} is returned{because}",
        "return it on every path of the function (a factory, whose callers are followed), or migrate the "
        "callers by hand",
    )


def _held(use: uses.Use, subject: str, because: str) -> tuple[str, str]:
    """``describe`` for where the value is kept (a name that holds other values too, an attribute or
    item, a container) and for a container of them iterated."""
    context, detail = use.context, use.detail
    if context == uses.REBOUND:
        return (
            f"{subject} is bound to `{detail}`, which also holds other values",
            f"give the pipeline's value a name of its own instead of reusing `{detail}`",
        )
    if context == uses.STORED:
        target = _self_target(use)
        return (
            f"{subject} is stored in an attribute or an item, not in a plain name",
            "bind it to a local name where it is built and run (`pipe = p(...)`), "
            + (f"or set `{target}` once, by one method, and use it only in the class's own methods, " if target else "")
            + "or migrate this use by hand",
        )
    if context == uses.ELEMENT and detail == uses.OWN_CONTEXTS:
        return (
            f"{subject} is put in a list with other pipelines that each get an `EvalContext` of their own "
            "(`device_id` at the call) and read on the GPU: DALI's dynamic-mode readers keep it entered "
            "between batches, so pipelines advanced in turn fail at the end of the first epoch",
            "keep them in pipeline mode; pipelines with CPU readers, or given no `device_id` at the call, convert",
        )
    if context == uses.ELEMENT:
        return (
            f"{subject} is put in a container{because}",
            "keep one name per pipeline (`pipe = p(...)`) and use it directly, or migrate the code that "
            "reads the container by hand",
        )
    if use.kind is Kind.FUNCTIONS:
        return (
            f"{subject} is iterated into a target that is not one plain name per pipeline function",
            "iterate it as `for cls in ...` (or `for cls, args in ....items()`) and only call `cls(...)` or read "
            "`cls.__name__`, or migrate this loop by hand",
        )
    return (f"{subject} is iterated", "take the values by name (`images, labels = ...`), or migrate this loop by hand")


def _function_used(use: uses.Use, subject: str) -> tuple[str, str]:
    """``describe`` for the pipeline function itself: called where the pipeline it makes is not
    followed, or used other than by calling it."""
    detail = use.detail
    if use.context == uses.CALLED:
        return (
            f"a pipeline is made by calling {subject}, and {detail}",
            "make that pipeline by calling the pipeline function by its name, or drop that argument, or migrate "
            "this use by hand",
        )
    if isinstance(use.holder, (cst.Element, cst.DictElement)):
        return (
            f"`{detail}` itself (not a pipeline made by it) is put in a container, and the pipelines made by calling "
            "it through the container are not followed",
            f"call `{detail}(...)` by its name where each pipeline is made, or keep only names of pipeline "
            "functions in that place of the container and only iterate it (`for cls in d`, `d.items()`), each "
            "name only called or read as `__name__`, or migrate this use by hand",
        )
    return (
        f"`{detail}` is used other than by calling it",
        f"call `{detail}(...)` directly where the pipeline is made, or migrate this use by hand",
    )


#: Why what a parameter called as a function holds is not known (ndd_migrate.model.values.called_parameters).
_UNKNOWN = {
    called_parameters.NESTED: "`{owner}` is a method or a nested function, whose calls are not all seen",
    called_parameters.DECORATED: "`{owner}` is decorated (`{at}`), and the decorator decides what its calls pass",
    called_parameters.REBOUND: "`{owner}` also assigns it (`{at}`)",
    called_parameters.USED: "`{owner}` also uses it other than by calling it (`{at}`)",
    called_parameters.EXPORTED: "`{owner}` is exported through `__all__`, so other modules may call it",
    called_parameters.REFERENCED: "`{owner}` is used other than by calling it (`{at}`)",
    called_parameters.UNCALLED: "`{owner}` is not called in this module",
    called_parameters.STARRED: "`{at}` passes `*args` or `**kwargs`",
    called_parameters.OMITTED: "`{at}` does not pass it",
    called_parameters.NOT_A_FUNCTION: "a call of `{owner}` passes it `{at}`, not the name of a function of this module",
}


def _callees(held) -> str:
    """Why a call of the parameter ``held`` describes is not followed."""
    prefix = f"`{held.parameter}` is a parameter of `{held.owner}`"
    if held.unknown:
        shown = cstutil.snippet(held.at) if held.at is not None else ""
        return f"{prefix}, and " + _UNKNOWN[held.unknown].format(owner=held.owner, at=shown)
    names = " or ".join(f"`{qual.rsplit('.', 1)[-1]}`" for qual in held.functions)
    return (
        f"{prefix} that holds {names}, and not each of them is called only with a value of this kind "
        "there (and used only by its calls)"
    )


def _self_target(use: uses.Use) -> str | None:
    """``self.pipe`` of ``self.pipe = p(...)``: an attribute of the instance (ndd_migrate.model.values.attributes)."""
    holder = use.holder
    if isinstance(holder, cst.Assign) and len(holder.targets) == 1:
        target = holder.targets[0].target
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            return f"self.{target.attr.value}"
    return None


def _snippet(use: uses.Use, limit: int = 60) -> str:
    """The code of the statement (or expression) that makes the use, on one line, shortened."""
    node = use.holder if isinstance(use.holder, cst.BaseExpression) else use.node
    if isinstance(use.statement, cst.SimpleStatementLine):
        node = use.statement.body[0]
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _subject(use: uses.Use) -> str:
    """``the `p` pipeline``, ```pipe` (a `p` pipeline)``, ```x` (an output of `p`)``."""
    owner = "/".join(f"`{getattr(m, 'label', None) or m.qualname.rsplit('.', 1)[-1]}`" for m in use.members)
    if isinstance(use.node, cst.Name):
        named = f"`{use.node.value}` "
    elif isinstance(use.node, cst.Attribute):  # `self.pipe`, followed like a name (ndd_migrate.model.values.attributes)
        named = f"`{cst.Module([]).code_for_node(use.node)}` "
    else:
        named = ""
    if use.kind is None:
        return owner
    if use.kind is Kind.PIPELINE:
        return f"{named}(a {owner} pipeline)" if named else f"the {owner} pipeline"
    if use.kind is Kind.PIPELINES:
        return f"{named}(a list of {owner} pipelines)" if named else f"a list of {owner} pipelines"
    if use.kind is Kind.FUNCTIONS:
        return f"{named}(holding {owner} themselves)" if named else f"a display holding {owner} themselves"
    if use.kind is Kind.FUNCTION:
        one = f"one of {owner}" if len(use.members) > 1 else owner
        return f"{named}({one} itself, not a pipeline made by it)" if named else f"{one} itself"
    if use.kind is Kind.BATCHES:
        return f"{named}(the outputs of {owner})" if named else f"what `run()` of {owner} returns"
    return f"{named}(an output of {owner})" if named else f"an output of {owner}"


def _argument_hint(use: uses.Use, callee: str) -> str:
    if use.kind in (Kind.FUNCTION, Kind.FUNCTIONS):
        return (
            f"call the pipeline functions where the loop over them is, instead of giving them to `{callee}()` "
            "(the pipelines it would make are not followed), or migrate this use by hand"
        )
    if use.kind is Kind.PIPELINES:
        return (
            f"make `{callee}()` take what the migrated pipelines give (generators: `next(pipe)` gives one "
            "batch tuple), or migrate this use by hand"
        )
    if use.kind in (Kind.PIPELINE, Kind.PIPELINES) and use.callee_kind == "subclass":
        return (
            f"`{callee}` derives from DALI's iterator, which runs a pipeline: see the TODO at the class for "
            "what keeps its base DALI's, or keep this pipeline in pipeline mode"
        )
    if use.kind in (Kind.PIPELINE, Kind.PIPELINES) and use.callee_kind == "wrapper":
        return (
            f"`{callee}` makes DALI's iterator over it, which runs a pipeline: use that iterator only as DALI's "
            "and the support module's both allow (its reset, size, length, next batch), or keep this pipeline in "
            "pipeline mode"
        )
    if use.kind in (Kind.PIPELINE, Kind.PIPELINES) and use.callee_kind == "dali":
        return (
            f"`{callee}` is DALI's and runs a pipeline: bind the pipeline to a name where it is made "
            f"(`pipe = p(...)`) and pass that name to `{callee}(...)` in the same function, so the migration "
            "follows both, or keep this pipeline in pipeline mode"
        )
    if use.kind is Kind.PIPELINE:
        return (
            f"make `{callee}()` take what the migrated pipeline gives (a generator: `next(pipe)` gives one "
            "batch tuple), or migrate this use by hand"
        )
    example = (
        f"np.asarray({use.node.value}.tensors[i])" if isinstance(use.node, cst.Name) else "np.asarray(out.tensors[i])"
    )
    return f"make `{callee}()` take a dynamic-mode `Batch` (or give it what it needs, e.g. `{example}`), or migrate this use by hand"

"""The migration plan: every use of every value whose meaning changes when a pipeline is converted.

Converting a ``@pipeline_def`` function (or a ``Pipeline`` subclass) changes the type of several
values at once: the function itself, the pipeline object each call returns (now a generator), what
``pipe.run()`` returns (a tuple of ``Batch``, no longer of ``TensorList``) and each output in it. A
rule rewrites the uses it recognises; a use that no rule rewrites would break at run time. So,
before anything is rewritten, this module lists **every** use of each such value in the module —
where it goes (an argument, a container, an attribute, a return, a comprehension, ...) — as a
:class:`Use`. The engine then asks the rules which of them they claim
(:meth:`ndd_migrate.engine.rule_base.RuleImpl.claims`); a pipeline is converted only when every use of
its values is claimed, and otherwise left as it is with one diagnostic that names the first
blocking use (NDD008). docs/architecture.md describes the whole flow.

This module holds facts only: no rule codes, no messages; :mod:`ndd_migrate.plan.collect` finds the
uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from ndd_migrate.model.types import Kind

if TYPE_CHECKING:
    from ndd_migrate.model.values.called_parameters import Callees

#: What a use does with the value; ``detail`` says more for some of them.
METHOD = "method"  # value.name(...): detail = name; holder = the Call
ATTRIBUTE = "attribute"  # value.name, not called: detail = name
SUBSCRIPT = "subscript"  # value[...]; holder = the Subscript
LEN = "len"  # len(value)
ARGUMENT = "argument"  # f(value): detail = the callee as written; holder = the Call
BOUND = "bound"  # name = value, where the analysis follows the name: detail = the name
REBOUND = "rebound"  # name = value, where the name also holds other values: detail = the name
UNPACKED = "unpacked"  # a, b = value
STORED = "stored"  # obj.attr = value, d[k] = value, several targets, augmented assignment
ELEMENT = "element"  # [value], (value, x), {k: value}
ITERATED = "iterated"  # for x in value, [... for x in value]
RETURNED = "returned"  # return value: holder = the Return
YIELDED = "yielded"
DISCARDED = "discarded"  # a statement of its own: value computed and dropped
REFERENCED = "referenced"  # the pipeline function named other than in a call: detail = the name
CHOSEN = "chosen"  # a side of `a if test else b` whose other side holds the same kind of value
PASSED = "passed"  # f(value), f a function of the module whose parameter is followed: detail = f
SAMPLES = "samples"  # for sample in value, each sample only given to np.asarray / np.array
CALLED = "called"  # name(...) of a name holding a pipeline function: detail = why its call sites cannot take it, if so
READ_BACK = "read back"  # a display of pipeline functions iterated, each one bound to a followed name; a key of it looking its value up
SHARED_HELPER = "shared helper"  # the pipeline's graph calls a helper another pipeline's graph keeps: detail = its name
KEPT_HELPER = "kept helper"  # ... a helper another module keeps in pipeline mode (library_helpers): detail = its name
NONE_TEST = "none test"  # value is None, value is not None
OTHER = "other"  # anything else: detail = the enclosing node's type

#: The ``detail`` of an item of a list of pipelines that each create an ``EvalContext`` (a
#: ``device_id`` at the call): a DALI 2.4 dynamic-mode reader keeps its context entered between the
#: batches of an epoch, so such pipelines advanced in turn fail at the first epoch's end.
OWN_CONTEXTS = "own contexts"


@dataclass(frozen=True, eq=False)
class Use:
    """One use of a value whose meaning the conversion of ``pipeline`` changes.

    ``kind`` is what the value is (None: the pipeline function itself); ``node`` the (original)
    expression that holds it; ``context`` one of the constants above; ``holder`` the node that
    makes the use (the call, subscript, assignment, ...); ``statement`` the statement it is in."""

    kind: Kind | None
    pipeline: object  # PipelineFunction, PipelineGroup or ImportedPipeline
    node: cst.CSTNode
    context: str
    detail: str = ""
    holder: cst.CSTNode | None = None
    statement: cst.CSTNode | None = None
    gives: Kind | None = None  # the kind of the value this use makes (`pipe.run()`: BATCHES), if known
    # An argument of a call of a parameter (`compare(pipe)` in `def run(compare)`): the functions it
    # may run, or why they are not known (ndd_migrate.model.values.called_parameters).
    callees: Callees | None = None
    # An argument of a call of a DALI class or function (``DALIGenericIterator(pipe)``): "dali"; of
    # a class of the module deriving from DALI's iterator (``DALIDataloader(pipe)``): "subclass"; of
    # one that makes DALI's iterator in its ``__init__`` (``self.it = DALIGenericIterator(...)``): "wrapper".
    callee_kind: str = ""

    @property
    def members(self) -> tuple:
        """The pipelines that convert or stay together because of this use."""
        return tuple(getattr(self.pipeline, "members", (self.pipeline,)))


#: Uses that keep their meaning after the conversion, so no rule needs to rewrite them: binding
#: to a name the analysis follows, unpacking or indexing the tuple of outputs, counting the outputs,
#: dropping the value.
NEUTRAL = frozenset(
    {
        (Kind.PIPELINE, BOUND),
        (Kind.PIPELINE, DISCARDED),
        (Kind.BATCHES, BOUND),
        (Kind.BATCHES, UNPACKED),
        (Kind.BATCHES, LEN),
        (Kind.BATCHES, DISCARDED),
        (Kind.BATCH, BOUND),
        (Kind.BATCH, DISCARDED),
        (Kind.BATCH, SAMPLES),
        (Kind.PIPELINE, PASSED),
        (Kind.BATCHES, PASSED),
        (Kind.BATCH, PASSED),
        (Kind.PIPELINES, BOUND),
        (Kind.PIPELINES, LEN),
        (Kind.PIPELINES, DISCARDED),
        (Kind.PIPELINES, PASSED),
        (Kind.BATCHES, CHOSEN),
        (Kind.BATCH, CHOSEN),
    }
)


#: Builtins that only show a value: the migrated value is shown instead (its text differs, what
#: the program does with it does not).
SHOWN = frozenset({"print", "repr"})


def neutral(use: Use) -> bool:
    """Does ``use`` keep its meaning without a rewrite? (A tuple of outputs indexed by a number
    gives an output: the index keeps its meaning, and the output is followed on; likewise a list
    of pipelines.) ``print(x)``, ``repr(x)``, ``del x`` and ``x is None`` do for any value: the
    migrated value is never None where the original was not."""
    if use.context == NONE_TEST:
        return True
    if use.kind is None or use.kind is Kind.FUNCTIONS or use.kind is Kind.FUNCTION:
        return _neutral_for_functions(use)
    if (use.context == ARGUMENT and use.detail in SHOWN) or (use.context == OTHER and use.detail == "Del"):
        return True
    if use.kind is Kind.BATCHES and use.context == SUBSCRIPT:
        return use.gives is Kind.BATCH
    # A list of pipelines: its items are followed as pipelines (indexed, or the target of a loop),
    # and the pipelines put in it are followed with the list.
    if use.kind is Kind.PIPELINES and use.context in (SUBSCRIPT, ITERATED):
        return use.gives is Kind.PIPELINE
    if use.kind is Kind.PIPELINE and use.context == ELEMENT:
        return use.gives is Kind.PIPELINES
    # A list (or tuple display) of outputs is read like the tuple `run()` gave; iterating either
    # gives each output, followed on as one.
    if use.kind is Kind.BATCHES and use.context == ITERATED:
        return use.gives is Kind.BATCH
    if use.kind is Kind.BATCH and use.context == ELEMENT:
        return use.gives is Kind.BATCHES
    return (use.kind, use.context) in NEUTRAL


def _neutral_for_functions(use: Use) -> bool:
    """:func:`neutral` for a use of a pipeline function itself (``use.kind`` None), of a name
    holding one (:data:`Kind.FUNCTION`) or of a display of them (:data:`Kind.FUNCTIONS`)."""
    # Pipeline functions (or classes) held in a display: each named there, the display bound to a
    # followed name, iterated into followed names (or its dict views), indexed for the values that
    # are no pipeline function; each name it gives called, and read as `__name__` (the migrated
    # function keeps the name).
    if use.kind is None:
        return use.context == ELEMENT and use.gives is Kind.FUNCTIONS
    if use.kind is Kind.FUNCTIONS:
        if use.context == METHOD:
            return use.gives is Kind.FUNCTIONS
        if use.context == SUBSCRIPT:  # a value looked up by its key, or the one a key maps to
            return use.pipeline.positions == {"keys"} or (
                use.pipeline.positions == {"values"} and use.gives is Kind.FUNCTION
            )
        return use.context in (BOUND, READ_BACK)
    if use.context == CALLED:
        return use.gives is Kind.PIPELINE and not use.detail
    if use.context in (READ_BACK, BOUND):  # `pipeline = PIPELINES[mode]`: the name is followed
        return True
    return use.context == ATTRIBUTE and use.detail == "__name__"


#: The reason recorded for a use of a name that holds values of several pipelines, some of which
#: stay in pipeline mode: they convert together or not at all.
TOGETHER = "together"


@dataclass
class Plan:
    """The uses of a module, and what the engine decided about them: ``blocked`` holds, for each
    pipeline left unconverted because of them, its uses that no rule claimed (with the reason a
    rule gave, if any); ``unfollowed`` the unclaimed uses of pipelines another module converts
    (they cannot be unconverted from here, so they are reported where they are)."""

    uses: list[Use] = field(default_factory=list)
    blocked: dict = field(default_factory=dict)  # pipeline → [(use, reason or "")]
    unfollowed: list = field(default_factory=list)  # [(use, reason or "")]
    # The names a conversion gives the RNGs it creates: chosen by the rule that converts the
    # pipeline, used by the rules that pass them to random ops (shared through the plan, not
    # through the per-file context).
    pipeline_rng: dict = field(default_factory=dict)  # pipeline qualname → its RNG's name
    op_rngs: dict = field(default_factory=dict)  # random op (call, or legacy op attribute) → its own RNG
    _mixing: set | None = field(default=None, repr=False)

    def mixes_run_apis(self, pipeline) -> bool:
        """Is a pipeline of ``pipeline`` given both ``run()`` and a method of the scheduled API
        (:data:`SCHEDULED`)? DALI 2.4 raises ``RuntimeError: Mixing pipeline API type`` there (unless
        the API check is off, which NDD905 keeps), and ``next(pipe)`` for both would not: such uses
        of the scheduled API are not rewritten. Decided for the pipeline function, not each object."""
        if self._mixing is None:
            seen: dict[int, set] = {}
            for use in self.uses:
                if use.kind is Kind.PIPELINE and use.context == METHOD and use.detail in ("run", *SCHEDULED):
                    for member in use.members:
                        seen.setdefault(id(member), set()).add("run" if use.detail == "run" else "scheduled")
            self._mixing = {key for key, apis in seen.items() if len(apis) == 2}
        return any(id(member) in self._mixing for member in getattr(pipeline, "members", (pipeline,)))


#: The scheduled API of a pipeline: `schedule_run()`, then `outputs()` (or `share_outputs()` and
#: `release_outputs()`); `run()` is `schedule_run()` then `outputs()` (DALI 2.4 `Pipeline.run`).
SCHEDULED = ("schedule_run", "outputs", "share_outputs", "release_outputs")

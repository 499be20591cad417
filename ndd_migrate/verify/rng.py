"""Same random states on both sides: record them on the ndd side, feed them to the pipeline.

What DALI 2.4.0 does (read from ``experimental/dynamic/_ops.py`` and ``random.py``, and checked by
the tests):

* A dynamic-mode random op (schema ``HasRandomStateArg()``) draws **7 uint32 words** from its
  ``RNG`` once per call, in ``Operator._process_params``::

      rng = random._resolve_rng(raw_kwargs.pop("rng", None))
      raw_kwargs["_random_state"] = random._state_tensor(random._draw_state(rng))

  i.e. one CPU ``uint32`` tensor of shape ``(7,)``, which ``_to_batch`` then *broadcasts*: every
  sample of the batch gets the same 7 words (the op mixes in the sample index itself).
* A pipeline-mode random op accepts the same hidden argument ``_random_state`` as an *argument
  input*: a CPU ``uint32`` batch with one ``(7,)`` tensor per sample. Given that, it ignores its
  seed (also an explicit ``seed=``) and produces exactly the ndd op's output for those words.

So the ndd side runs first with :class:`NddRandomRecorder`: it wraps ``_process_params`` and, before
each random call draws, reads the 7 words the call is about to draw from a *clone* of its RNG (the
clone has the same state, so the call itself draws the same words, untouched). Calls are grouped by
step (one ``next()``).

The pipeline side then runs with :class:`PipelineRandomFeeder`: it wraps
``nvidia.dali.ops._OperatorInstance.__init__`` (every ``fn.*``/``ops.*`` call creates one instance
per input set) and gives every random op instance, in creation order, an ``_random_state`` argument
input fed by its own ``external_source``. The source is a callable taking the iteration number
(``batch=True``), so prefetching (the executor asks ahead) cannot shift it: iteration *k* of random
op *i* gets the words the *i*-th random call of step *k* drew on the ndd side, repeated for every
sample. Iterations beyond the recorded ones (prefetch past the last compared step) get zeros.

Random ops are matched by *position*, as the docs promise the migration keeps creation order;
names are compared as well and every difference in number, kind or order is reported with both
lists. Random ops whose result is unused still count on both sides (the pipeline creates them,
then prunes them; the ndd code calls them).

Known limit: ops inside ``enable_conditionals`` branches are fed as if they ran on the whole batch;
the migration's per-sample selection (§2) is not modelled.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ndd_migrate.verify.patching import Patches, canonical_op, fn_name

STATE_WORDS = 7


@dataclass
class RandomCall:
    """One random op call on the ndd side."""

    op: str  # canonical schema name
    display: str  # fn-style name, e.g. random.coin_flip
    words: tuple[int, ...]
    batched: bool  # False: called without batch_size and without a batch input → one Tensor
    rng: str = "explicit"  # "default": no rng= given, the thread's default generator
    seeded: bool = True  # the generator was created with seed=/state= (or set_seed / .seed =)
    rng_index: int = 0  # which generator, in order of first use

    def to_dict(self) -> dict:
        return asdict(self)


class NddRandomRecorder:
    """Context manager recording the states the ndd side's random ops draw, step by step."""

    def __init__(self) -> None:
        self.steps: list[list[RandomCall]] = [[]]
        self._patches = Patches()
        self.generators: list = []  # every RNG drawn from, in order of first use

    def _generator_index(self, rng) -> int:
        for i, g in enumerate(self.generators):
            if g is rng:
                return i
        self.generators.append(rng)
        return len(self.generators) - 1

    def next_step(self) -> None:
        """Start recording the calls of the next ``next()``."""
        self.steps.append([])

    def drop_last_step(self) -> None:
        """Forget the calls of the step just taken (``--epochs``: it belongs to epoch N+1)."""
        if self.steps:
            self.steps.pop()

    def __enter__(self) -> NddRandomRecorder:
        from nvidia.dali.experimental.dynamic import _ops
        from nvidia.dali.experimental.dynamic import random as ndd_random

        original = _ops.Operator.__dict__["_process_params"].__func__
        recorder = self
        track_seeding(self._patches, ndd_random)

        def process_params(cls, backend, op_device, batch_size, *raw_args, **raw_kwargs):
            if cls._has_random_state_arg:
                given = raw_kwargs.get("rng")
                rng = ndd_random._resolve_rng(given)
                words = tuple(ndd_random._draw_state(rng.clone()))
                recorder.steps[-1].append(
                    RandomCall(
                        canonical_op(cls._schema_name),
                        fn_name(cls._schema_name),
                        words,
                        batch_size is not None,
                        "default" if given is None else "explicit",
                        bool(getattr(rng, SEEDED_FLAG, True)),
                        recorder._generator_index(rng),
                    )
                )
            return original(cls, backend, op_device, batch_size, *raw_args, **raw_kwargs)

        self._patches.set(_ops.Operator, "_process_params", classmethod(process_params))
        return self

    def __exit__(self, *exc) -> None:
        self._patches.undo()


SEEDED_FLAG = "_ndd_verify_seeded"


def track_seeding(patches: Patches, ndd_random) -> None:
    """Mark every ``RNG`` with whether it was seeded: ``RNG(seed=...)``/``RNG(state=...)``, a
    later ``rng.seed = x`` or ``ndd.random.set_seed(x)`` (the default generator). An ``RNG()``
    without either draws its seed from Python's ``random`` — a different stream every run."""
    RNG = ndd_random.RNG
    if getattr(RNG.__init__, "_ndd_verify", False):
        return
    original_init = RNG.__init__
    seed_prop = RNG.__dict__["seed"]

    def rng_init(rng, seed=None, state=None):
        original_init(rng, seed, state)
        setattr(rng, SEEDED_FLAG, seed is not None or state is not None)

    def set_seed_value(rng, value):
        seed_prop.fset(rng, value)
        setattr(rng, SEEDED_FLAG, True)

    rng_init._ndd_verify = True
    patches.set(RNG, "__init__", rng_init)
    patches.set(RNG, "seed", property(seed_prop.fget, set_seed_value, seed_prop.fdel))
    default = getattr(ndd_random._thread_local, "default_rng", None)
    if default is not None and not hasattr(default, SEEDED_FLAG):
        setattr(default, SEEDED_FLAG, False)


def default_rng_state(ndd_random):
    """The default generator's state (to replay a run from the same default stream)."""
    return ndd_random.get_default_rng().state


def restore_default_rng(ndd_random, state) -> None:
    """Put the default generator back where a previous run started; keeps its seeded flag."""
    rng = ndd_random.get_default_rng()
    flag = getattr(rng, SEEDED_FLAG, None)
    rng.state = state
    if flag is not None:
        setattr(rng, SEEDED_FLAG, flag)


@dataclass
class RandomOp:
    """One random op instance created on the pipeline side."""

    op: str
    display: str
    fed: bool

    def to_dict(self) -> dict:
        return asdict(self)


class PipelineRandomFeeder:
    """Context manager giving the pipeline's random ops the recorded states (see module doc).

    With ``states=None`` it only records which random ops the pipeline creates (alignment off).
    """

    def __init__(self, states: list[list[tuple[int, ...]]] | None) -> None:
        self.states = states
        self.ops: list[RandomOp] = []
        self._patches = Patches()

    def _source(self, index: int, batch_size: int):
        import numpy as np

        states = self.states or []
        zeros = np.zeros(STATE_WORDS, dtype=np.uint32)

        def source(iteration):
            step = states[iteration] if iteration < len(states) else ()
            words = np.asarray(step[index], dtype=np.uint32) if index < len(step) else zeros
            return [words] * batch_size

        return source

    def __enter__(self) -> PipelineRandomFeeder:
        import nvidia.dali.ops as ops
        from nvidia.dali import fn, types
        from nvidia.dali.pipeline import Pipeline

        original = ops._OperatorInstance.__init__
        feeder = self

        def instance_init(instance, inputs, arg_inputs, arguments, processed_arguments, op):
            schema = op.schema
            pipe = Pipeline.current()
            if schema.HasRandomStateArg() and pipe is not None:
                name = schema.Name()
                fed = feeder.states is not None and "_random_state" not in arg_inputs
                if fed:
                    node = fn.external_source(
                        source=feeder._source(len(feeder.ops), pipe.max_batch_size),
                        batch=True,
                        dtype=types.UINT32,
                        ndim=1,
                        device="cpu",
                    )
                    # A fresh dict: one dict is shared by the instances of all input sets.
                    arg_inputs = {**arg_inputs, "_random_state": node}
                feeder.ops.append(RandomOp(canonical_op(name), fn_name(name), fed))
            original(instance, inputs, arg_inputs, arguments, processed_arguments, op)

        self._patches.set(ops._OperatorInstance, "__init__", instance_init)
        return self

    def __exit__(self, *exc) -> None:
        self._patches.undo()


def alignment_findings(
    pipeline_ops: list[dict], ndd_steps: list[list[dict]], aligned: bool
) -> tuple[list[tuple[str, str]], bool]:
    """Compare the pipeline's random ops with the ndd calls of each step: ``(findings, mismatch)``
    with findings as (severity, message) and ``mismatch`` when number, kind or order differ in
    some step (each distinct mismatch is reported once, with both lists)."""
    findings: list[tuple[str, str]] = []
    p_names = [o["display"] for o in pipeline_ops]
    p_ops = [o["op"] for o in pipeline_ops]

    def listing(names: list[str]) -> str:
        return " → ".join(names) if names else "(none)"

    reported_kinds: set = set()
    for step, calls in enumerate(ndd_steps):
        n_ops = [c["op"] for c in calls]
        n_names = [c["display"] for c in calls]
        if n_ops == p_ops:
            continue
        if len(n_ops) != len(p_ops):
            kind = ("count", tuple(n_ops))
            msg = (
                f"step {step}: the migrated code made {len(n_ops)} random call(s), the original "
                f"pipeline has {len(p_ops)} random op(s)"
            )
        elif sorted(n_ops) == sorted(p_ops):
            kind = ("order", tuple(n_ops))
            msg = f"step {step}: random calls in a different order than the pipeline created them"
        else:
            kind = ("kind", tuple(n_ops))
            msg = f"step {step}: different random ops"
        if kind in reported_kinds:
            continue
        reported_kinds.add(kind)
        findings.append(
            (
                "error",
                f"{msg}\noriginal: {listing(p_names)}\nmigrated: {listing(n_names)}"
                + ("\n(states were fed by position)" if aligned else ""),
            )
        )
    unbatched = sorted({c["display"] for calls in ndd_steps for c in calls if not c["batched"]})
    if unbatched:
        findings.append(
            (
                "error",
                f"migrated random op(s) called without batch_size=: {', '.join(unbatched)} — "
                "each returns ONE Tensor that later ops broadcast to every sample; "
                "pass batch_size=batch_size",
            )
        )
    return findings, bool(reported_kinds)


def seeding_findings(
    ndd_steps: list[list[dict]],
    rerun_steps: list[list[dict]] | None,
    pipeline_seed: int | None,
    rerun_failures: list[str],
) -> list[tuple[str, str]]:
    """Lost seeding. Alignment feeds the pipeline whatever the migrated code drew, so outputs are
    equal even when the migrated code ignores its seed; what proves the seed is kept:

    * every random call draws from a seeded generator (an ``RNG(seed=...)``, or the default one
      after ``set_seed``) — an unseeded one is named, with its call;
    * a second run from scratch draws the same states and gives the same outputs.

    Both matter only when the original is seeded (an unseeded pipeline is not reproducible
    either): then they are errors, otherwise one informational line."""
    if not any(ndd_steps):
        return []
    severity = "error" if pipeline_seed is not None else "info"
    why = (
        f"the original is seeded (seed={pipeline_seed}), the migration is not reproducible"
        if pipeline_seed is not None
        else "the original has no seed either, so this is not a difference"
    )
    findings = _unseeded_findings(_unseeded_calls(ndd_steps), severity, why)
    generators = {c.get("rng_index", 0) for calls in ndd_steps for c in calls}
    if len(generators) > 1:
        findings.append(
            (
                "warning",
                f"the migrated random ops draw from {len(generators)} different generators; "
                "the target shape has one RNG(seed=seed) for all of them",
            )
        )
    if rerun_steps is not None:
        findings += _rerun_findings(ndd_steps, rerun_steps, rerun_failures, severity, why)
    return findings


def _unseeded_calls(ndd_steps: list[list[dict]]) -> dict[str, list[str]]:
    """The random calls that draw from an unseeded generator, once each, by the generator they
    draw from: the ``default`` one (no ``rng=``) or an ``explicit`` ``RNG()``."""
    unseeded: dict[str, list[str]] = {"default": [], "explicit": []}
    for calls in ndd_steps:
        for position, c in enumerate(calls):
            if c.get("seeded", True):
                continue
            where = f"{c['display']} (random call #{position + 1})"
            group = unseeded["default" if c.get("rng") == "default" else "explicit"]
            if where not in group:
                group.append(where)
    return unseeded


def _unseeded_findings(unseeded: dict[str, list[str]], severity: str, why: str) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    if unseeded["default"]:
        findings.append(
            (
                severity,
                f"random op(s) {', '.join(unseeded['default'])} have no rng= and draw from the "
                f"default generator, which is not seeded; pass rng=rng (the RNG seeded with the "
                f"pipeline seed) — {why}",
            )
        )
    if unseeded["explicit"]:
        findings.append(
            (
                severity,
                f"random op(s) {', '.join(unseeded['explicit'])} draw from an "
                f"ndd.random.RNG() created without seed=; create it as "
                f"ndd.random.RNG(seed=seed) — {why}",
            )
        )
    return findings


def _rerun_findings(
    ndd_steps: list[list[dict]],
    rerun_steps: list[list[dict]],
    rerun_failures: list[str],
    severity: str,
    why: str,
) -> list[tuple[str, str]]:
    """A second run from scratch that drew other states, or gave other outputs."""
    differs = [
        f"step {k}"
        for k, (a, b) in enumerate(zip(ndd_steps, rerun_steps))
        if [c["words"] for c in a] != [c["words"] for c in b]
    ]
    if not (differs or rerun_failures):
        return []
    detail = f"random states differ from {differs[0]}" if differs else "; ".join(rerun_failures)
    return [
        (
            severity,
            f"the migrated code is not deterministic: a second run with the same "
            f"arguments and seed gives different results ({detail}) — {why}",
        )
    ]

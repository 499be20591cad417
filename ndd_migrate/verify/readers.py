"""Same data in the same order: reader seeds on both sides, and epoch tracking on the ndd side.

A shuffling reader's order comes from its own ``seed`` (readers draw nothing from an ``RNG``). A
pipeline reader without ``seed=`` gets one derived from the pipeline seed by the C++ pipeline
(``std::seed_seq`` indexed by op order after ``build()``); a dynamic-mode reader without ``seed=``
behaves as ``seed=-1``, which in DALI 2.4.0 is one fixed order, the same in every process (and not
the order of any pipeline seed). The migration reproduces the derivation only for a reader that
comes first in the graph (NDD105, ``dali_op_seed``), so ``verify`` gives every reader that lacks a
seed an explicit one, the same on both sides, matched by order of construction:

* the migrated side runs first; each of its readers keeps its explicit seed, or gets the verify
  reader seed (``--seed`` or a fixed default);
* the pipeline side's reader *i* keeps its explicit seed, or gets the seed the migrated reader *i*
  used.

Where exactly one side had an explicit seed the report says so: an explicit seed in the original
that the migration dropped is an error (the migrated reader silently shuffles in DALI's default
order instead); a seed only the migration gives is fine, the original's was derived from the
pipeline seed.

On the ndd side ``Reader.next_epoch`` is also wrapped to count epochs — that is how
``--epochs N`` knows exactly which step starts epoch N+1 — and, for ``capture``, to request
``next_epoch(capture=True)`` even when the migrated function has no way to ask for it.
"""

from __future__ import annotations

import functools
import os
from dataclasses import asdict, dataclass

from ndd_migrate.verify.patching import ConstructionHooks, Patches, canonical_op, fn_name, schema_of


@dataclass
class ReaderRecord:
    index: int
    op: str
    explicit_seed: int | None
    #: the seed the reader ran with; None: the one its pipeline derived (not known here)
    used_seed: int | None
    name: str | None = None
    #: the arguments that decide which samples come in which order (READER_ARGS), as text, the
    #: schema's default when not given
    args: dict | None = None
    #: why a pipeline reader without ``seed=`` was given the migrated reader's seed: ``"option"``
    #: (``align_order``), ``"unseeded"`` (its pipeline has no seed: its order changes every run)
    aligned: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


#: Reader arguments that decide the samples and their order, beyond seeds and shards (which the
#: metadata covers).
READER_ARGS = (
    "random_shuffle",
    "shuffle_after_epoch",
    "initial_fill",
    "file_root",
    "file_list",
    "files",
    "file_filter",
)


def _text(value) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return repr([_text(v) for v in value])
    return str(value)


def reader_args(schema, kwargs: dict) -> dict:
    """READER_ARGS of one reader as text: what the code gave, or the schema's default."""
    out = {}
    for name in READER_ARGS:
        try:
            if not schema.HasArgument(name):
                continue
            if name in kwargs and kwargs[name] is not None:
                value = kwargs[name]
                if name in ("file_root", "file_list") and isinstance(value, str):
                    value = os.path.normpath(os.path.abspath(value))  # same place, same text
                out[name] = _text(value)
            elif schema.HasArgumentDefaultValue(name):
                out[name] = schema.GetArgumentDefaultValueString(name)
            else:
                out[name] = None
        except Exception:  # informational; never fail a run over it
            continue
    return out


def _explicit(seed) -> int | None:
    if seed is None:
        return None
    seed = int(seed)
    return None if seed == -1 else seed  # -1 is DALI's "pick one for me"


def _is_reader_schema(schema) -> bool:
    return "readers" in schema.ModulePath() or schema.Name().endswith("Reader")


class PipelineReaderSeeds:
    """Context manager for the pipeline side: a reader without ``seed=`` keeps the seed its pipeline
    derives for it, so that the sample order is compared as the original gives it; it gets the
    migrated reader's seed (``planned``, else ``default``) only with ``align_order``, or when its
    pipeline has no seed (DALI then picks one at random: the original has no order to keep)."""

    def __init__(self, planned: list[int], default: int, align_order: bool = False) -> None:
        self.planned = list(planned)
        self.default = default
        self.align_order = align_order
        self.records: list[ReaderRecord] = []
        self._pipeline = None  # the last `Pipeline` created: the one whose operators follow
        self._patches = Patches()

    def _transform(self, op_cls: type, kwargs: dict) -> dict:
        schema = schema_of(op_cls)
        if schema is None or not _is_reader_schema(schema):
            return kwargs
        index = len(self.records)
        explicit = _explicit(kwargs.get("seed"))
        used, aligned = explicit, None
        if explicit is None:
            seeded = _explicit(getattr(self._pipeline, "_seed", None)) is not None
            if self.align_order or not seeded:
                used = self.planned[index] if index < len(self.planned) else self.default
                aligned = "option" if seeded else "unseeded"
                kwargs = {**kwargs, "seed": used}
        self.records.append(
            ReaderRecord(
                index,
                fn_name(canonical_op(schema.Name())),
                explicit,
                used,
                kwargs.get("name"),
                reader_args(schema, kwargs),
                aligned,
            )
        )
        return kwargs

    def __enter__(self) -> PipelineReaderSeeds:
        from nvidia.dali.pipeline import Pipeline

        original_init = Pipeline.__init__
        tracker = self

        @functools.wraps(original_init)  # `pipeline_def` reads the signature
        def pipeline_init(pipe, *args, **kwargs):
            original_init(pipe, *args, **kwargs)
            tracker._pipeline = pipe

        self._patches.set(Pipeline, "__init__", pipeline_init)
        ConstructionHooks.add(self._transform)
        return self

    def __exit__(self, *exc) -> None:
        ConstructionHooks.remove(self._transform)
        self._patches.undo()


class NddReaders:
    """Context manager for the ndd side: seeds readers, counts epochs, decides capture.

    ``capture``: False runs every loop eagerly, whatever the code asks (the runs that record the
    random draws step by step, which a captured loop makes ahead, in its pipeline); True captures
    every loop (``--capture``); None leaves each as written. ``asked_capture`` tells whether the
    code asked for ``capture=True``: then verify proves the captured run equal too."""

    def __init__(self, default_seed: int, *, capture: bool | None = False) -> None:
        self.default_seed = default_seed
        self.capture = capture
        self.asked_capture = False
        self.records: list[ReaderRecord] = []
        self.readers: list[object] = []
        self.epochs_started: list[int] = []
        self.step = 0  # set by the worker before each next()
        self.created_at: list[int] = []  # the step each reader was created in
        self._patches = Patches()

    def created_in_loop(self) -> list[tuple[int, str]]:
        """(step, op) of readers created after the first step: inside the loop."""
        return [(s, r.op) for s, r in zip(self.created_at, self.records) if s > 0]

    @property
    def primary_epochs(self) -> int:
        """Epochs started by the first reader created (0 without readers)."""
        return self.epochs_started[0] if self.epochs_started else 0

    def metadata(self) -> list[dict]:
        out = []
        for reader in self.readers:
            try:
                out.append(dict(reader.get_metadata()))
            except Exception:  # metadata is informational; a captured reader may refuse it
                out.append({})
        return out

    def __enter__(self) -> NddReaders:
        from nvidia.dali.experimental.dynamic import _ops

        Reader = _ops.Reader
        original_init = Reader.__init__
        original_next_epoch = Reader.next_epoch
        tracker = self

        def reader_init(reader, *args, **kwargs):
            explicit = _explicit(kwargs.get("seed"))
            used = explicit if explicit is not None else tracker.default_seed
            kwargs["seed"] = used
            original_init(reader, *args, **kwargs)
            tracker.records.append(
                ReaderRecord(
                    len(tracker.records),
                    fn_name(canonical_op(type(reader)._schema_name)),
                    explicit,
                    used,
                    kwargs.get("name") if "name" in kwargs else (args[1] if len(args) > 1 else None),
                    _ndd_reader_args(type(reader), kwargs),
                )
            )
            tracker.readers.append(reader)
            tracker.epochs_started.append(0)
            tracker.created_at.append(tracker.step)

        def next_epoch(reader, batch_size=None, ctx=None, capture=False):
            for i, r in enumerate(tracker.readers):
                if r is reader:
                    tracker.epochs_started[i] += 1
            tracker.asked_capture |= bool(capture)
            if tracker.capture is not None:
                capture = tracker.capture
            return original_next_epoch(reader, batch_size, ctx, capture)

        self._patches.set(Reader, "__init__", reader_init)
        self._patches.set(Reader, "next_epoch", next_epoch)
        return self

    def __exit__(self, *exc) -> None:
        self._patches.undo()


def in_loop_finding(created: list) -> list[tuple[str, str]]:
    if not created:
        return []
    step, op = created[0]
    return [
        (
            "error",
            f"reader {op} is created inside the loop: a new one at step {step} "
            f"({len(created)} in all) — each restarts the data from its first sample instead of "
            "continuing the epoch; create the reader once, before `while True:`",
        )
    ]


def _ndd_reader_args(reader_cls, kwargs: dict) -> dict:
    from nvidia.dali import backend as _b

    try:
        schema = _b.TryGetSchema(reader_cls._schema_name, follow_aliases=True)
    except Exception:
        return {}
    return reader_args(schema, kwargs) if schema is not None else {}


def argument_findings(pipeline: list[dict], ndd: list[dict]) -> list[tuple[str, str]]:
    """Reader arguments that decide which samples come, in which order (READER_ARGS)."""
    findings = []
    for p, n in zip(pipeline, ndd):
        pa, na = p.get("args") or {}, n.get("args") or {}
        diffs = [
            f"{k}={pa[k]} in the original, {k}={na[k]} migrated"
            for k in READER_ARGS
            if k in pa and k in na and pa[k] != na[k]
        ]
        if diffs:
            findings.append(("error", f"reader #{p['index']} ({p['op']}): arguments differ — " + "; ".join(diffs)))
    return findings


def seed_findings(pipeline: list[dict], ndd: list[dict]) -> list[tuple[str, str]]:
    """(severity, message) about reader seeds and reader counts of the two sides."""
    findings: list[tuple[str, str]] = []
    if len(pipeline) != len(ndd):
        findings.append(
            (
                "error",
                f"the original creates {len(pipeline)} reader(s) "
                f"({', '.join(r['op'] for r in pipeline) or 'none'}), the migrated code "
                f"{len(ndd)} ({', '.join(r['op'] for r in ndd) or 'none'})",
            )
        )
    for p, n in zip(pipeline, ndd):
        where = f"reader #{p['index']} ({p['op']} / {n['op']})"
        if p["op"] != n["op"]:
            findings.append(("error", f"{where}: different reader ops"))
        pe, ne = p["explicit_seed"], n["explicit_seed"]
        if pe is not None and ne is None:
            findings.append(
                (
                    "error",
                    f"{where}: the original gives seed={pe}, the migrated reader has no seed= "
                    "(it shuffles in DALI's default order instead); keep seed=",
                )
            )
        elif pe is not None and ne is not None and pe != ne:
            findings.append(("error", f"{where}: seed={pe} in the original, seed={ne} migrated"))
        elif pe is None:
            findings.extend(_derived_seed_finding(where, p, n))
    return findings


def _derived_seed_finding(where: str, original: dict, migrated: dict) -> list[tuple[str, str]]:
    """What is said of an original reader without ``seed=`` (its seed derived from the pipeline's);
    nothing for a reader that does not shuffle, whose order no seed decides."""
    ne, aligned = migrated["explicit_seed"], original.get("aligned")
    args = original.get("args") or {}
    if not any(
        str(args.get(name, "")).strip("'\"").lower() in ("true", "1")
        for name in ("random_shuffle", "shuffle_after_epoch")
    ):
        return []
    given = f"seed={migrated['used_seed']}"
    if aligned == "unseeded":
        return [
            (
                "info",
                f"{where}: the original pipeline has no seed, so its reader shuffles in a new order in every "
                f"run: there is no order to keep; both readers given {given} to compare the values",
            )
        ]
    if aligned == "option":
        return [("info", f"{where}: --align-order: the original reader given the migrated {given}; order not proven")]
    if ne is None:
        return [
            (
                "info",
                f"{where}: the original's reader seed is derived from its pipeline seed, the migrated reader has "
                "no seed=: the sample order is compared as each gives it",
            )
        ]
    return [
        (
            "info",
            f"{where}: the original's reader seed is derived from its pipeline seed, the migrated reader has "
            f"seed={ne}: the sample order is compared as each gives it",
        )
    ]


#: The reader metadata that defines the epoch contract (pipeline ``reader_meta()`` and ndd
#: ``Reader.get_metadata()`` use the same keys).
EPOCH_KEYS = (
    "epoch_size",
    "epoch_size_padded",
    "number_of_shards",
    "shard_id",
    "stick_to_shard",
    "pad_last_batch",
)


def shard_batches(meta: dict, batch_size: int | None) -> int | None:
    """Batches in the first epoch of a reader: ``ceil(shard size / batch size)``.

    With ``pad_last_batch`` DALI pads every shard to the size of the largest
    (``epoch_size_padded / number_of_shards``; measured on DALI 2.4: 10 samples in 3 shards read
    4, 4 and 4, so 2 batches of 3 each, not 1, 1 and 2)."""
    try:
        n, shards, shard = (int(meta[k]) for k in ("epoch_size", "number_of_shards", "shard_id"))
    except (KeyError, TypeError, ValueError):
        return None
    if not batch_size or shards < 1:
        return None
    if _flag(meta.get("pad_last_batch")) and _flag(meta.get("epoch_size_padded")):
        size = int(meta["epoch_size_padded"]) // shards
    else:
        size = (shard + 1) * n // shards - shard * n // shards
    return -(-size // batch_size)


def _flag(value) -> int:
    """A metadata number, 0 where it is missing or not a number."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def epoch_findings(
    original: list[dict],
    migrated: list[dict],
    batch_size: int | None,
    observed_per_epoch: int | None,
) -> list[tuple[str, str]]:
    """The epoch contract: each reader's metadata on both sides, and the batches per epoch.

    Aligned seeds and fed states do not hide a changed shard layout, but a short run may: with
    ``num_shards=2`` instead of 1 the first steps can still agree. The metadata says it at once."""
    findings: list[tuple[str, str]] = []
    for i, (o, m) in enumerate(zip(original, migrated)):
        if not o or not m:
            continue
        diffs = [
            f"{k}: original {int(o[k])}, migrated {int(m[k])}"
            for k in EPOCH_KEYS
            if k in o and k in m and int(o[k]) != int(m[k])
        ]
        if diffs:
            findings.append(
                (
                    "error",
                    f"reader #{i} ({o.get('name', '?')}): the epoch contract differs — " + "; ".join(diffs),
                )
            )
    if original and original[0] and observed_per_epoch is not None:
        expected = shard_batches(original[0], batch_size)
        if expected is not None and expected != observed_per_epoch:
            findings.append(
                (
                    "error",
                    f"batches per epoch: the original reader gives {expected} "
                    f"(ceil(shard size / batch {batch_size})), the migrated loop {observed_per_epoch}",
                )
            )
    return findings

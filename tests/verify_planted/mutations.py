"""The planted mistakes: one text substitution in base_ndd.py each.

``Mutation(id, pipeline, old, new, expect, ...)``: inside the function ``pipeline`` of
base_ndd.py, ``old`` (which must occur exactly once there) becomes ``new``. ``expect`` is a text
the report must contain (the cause, named) and ``code`` its exit code (1 different; 2 when DALI
itself refuses the wrong code, with its message); ``None`` marks a *correct* variant, which must
stay EQUAL. ``data`` is the dataset the pair runs on, ``run`` the verify options.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mutation:
    id: str
    pipeline: str
    old: str
    new: str
    expect: str | None
    category: str = ""
    data: str = "npy"
    run: dict = field(default_factory=lambda: {"iterations": 2})
    code: int = 1


EPOCHS = {"epochs": 2}

U = "ndd.random.uniform(range=(0.5, 1.5), batch_size=batch_size, rng=rng)"
N = "ndd.random.normal(x, stddev=0.25, rng=rng)"
C = "ndd.random.coin_flip(probability=0.5, batch_size=batch_size, rng=rng)"
UNUSED = "ndd.random.uniform(range=(5, 6), batch_size=batch_size, rng=rng)\n"
READER = 'random_shuffle=True, seed=3, name="Reader"'
LOOP = "    while True:\n        for (data,) in reader.next_epoch"


def _m(category, id, pipeline, old, new, expect, **kw):
    return Mutation(id, pipeline, old, new, expect, category, **kw)


MUTATIONS = [
    # --- seeding -------------------------------------------------------------------------
    _m("seeding", "rng-without-seed", "aug_pipe", "RNG(seed=seed)", "RNG()", "created without seed="),
    _m("seeding", "uniform-without-rng", "aug_pipe", U, U.replace(", rng=rng", ""),
       "random.uniform (random call #1) have no rng="),
    _m("seeding", "normal-without-rng", "aug_pipe", N, N.replace(", rng=rng", ""),
       "random.normal (random call #2) have no rng="),
    _m("seeding", "coin-flip-without-rng", "aug_pipe", C, C.replace(", rng=rng", ""),
       "random.coin_flip (random call #3) have no rng="),
    _m("seeding", "unused-op-without-rng", "aug_pipe", UNUSED, UNUSED.replace(", rng=rng", ""),
       "random.uniform (random call #4) have no rng="),
    _m("seeding", "seed-from-the-clock", "aug_pipe", "RNG(seed=seed)",
       'RNG(seed=__import__("time").time_ns())', "not deterministic"),
    _m("seeding", "image-rng-without-seed", "image_pipe", "RNG(seed=seed)", "RNG()",
       "created without seed=", data="jpg"),
    _m("seeding", "reader-seed-dropped", "aug_pipe", READER, READER.replace(" seed=3,", ""),
       "the original gives seed=3"),
    _m("seeding", "reader-seed-changed", "aug_pipe", READER, READER.replace("=3", "=4"),
       "seed=3 in the original, seed=4 migrated"),
    _m("seeding", "image-reader-seed-dropped", "image_pipe", ", seed=9)", ")",
       "the original gives seed=9", data="jpg"),
    # --- epochs and shards -----------------------------------------------------------------
    _m("epochs", "num-shards-added", "aug_pipe", READER, READER + ", num_shards=2",
       "number_of_shards: original 1, migrated 2", run=EPOCHS),
    _m("epochs", "pad-last-batch-added", "aug_pipe", READER, READER + ", pad_last_batch=True",
       "pad_last_batch: original 0, migrated 1", run=EPOCHS),
    _m("epochs", "stick-to-shard-added", "aug_pipe", READER, READER + ", stick_to_shard=True",
       "stick_to_shard: original 0, migrated 1"),
    _m("epochs", "shard-id-changed", "shard_pipe", "shard_id=1", "shard_id=0",
       "shard_id: original 1, migrated 0", run=EPOCHS),
    _m("epochs", "num-shards-changed", "shard_pipe", "num_shards=2", "num_shards=3",
       "number_of_shards: original 2, migrated 3", run=EPOCHS),
    _m("epochs", "pad-dropped", "shard_pipe", ", pad_last_batch=True", "",
       "pad_last_batch: original 1, migrated 0", run=EPOCHS),
    _m("epochs", "shard-stick-added", "shard_pipe", "pad_last_batch=True",
       "pad_last_batch=True, stick_to_shard=True", "stick_to_shard: original 0, migrated 1",
       run=EPOCHS),
    _m("epochs", "shuffle-dropped", "aug_pipe", READER, READER.replace("random_shuffle=True, ", ""),
       "random_shuffle=True in the original, random_shuffle=False migrated"),
    _m("epochs", "image-shuffle-added", "image_pipe", "File(file_root=data_dir, seed=9)",
       "File(file_root=data_dir, seed=9, random_shuffle=True)",
       "random_shuffle=False in the original, random_shuffle=True migrated", data="jpg"),
    _m("epochs", "initial-fill-changed", "aug_pipe", READER, READER + ", initial_fill=16",
       "initial_fill=1024 in the original, initial_fill=16 migrated"),
    _m("epochs", "batch-size-hard-coded", "aug_pipe", "next_epoch(batch_size=batch_size",
       "next_epoch(batch_size=2", "Inconsistent batch size: 3 != 2", code=2),
    _m("epochs", "reader-in-the-loop-epochs", "aug_pipe", LOOP,
       "    while True:\n        reader = ndd.readers.Numpy(file_root=data_dir, " + READER + ")\n"
       "        for (data,) in reader.next_epoch", "created inside the loop", run=EPOCHS),
    _m("epochs", "reader-in-the-loop-iterations", "aug_pipe", LOOP,
       "    while True:\n        reader = ndd.readers.Numpy(file_root=data_dir, " + READER + ")\n"
       "        for (data,) in reader.next_epoch", "created inside the loop",
       run={"iterations": 5}),
    _m("epochs", "shard-batch-hard-coded", "shard_pipe", "next_epoch(batch_size=batch_size",
       "next_epoch(batch_size=3", "batch size", run=EPOCHS),
    # --- devices ---------------------------------------------------------------------------
    _m("devices", "decoder-moved-to-gpu", "image_pipe", 'device="cpu", output_type',
       'device="gpu", output_type', "decoders.image: device='cpu' in the original, "
       "device='gpu' migrated", data="jpg"),
    _m("devices", "resize-moved-to-gpu", "image_pipe", "resize_x=12, resize_y=10",
       'resize_x=12, resize_y=10, device="gpu"',
       "resize: device='cpu' in the original, device='gpu' migrated",
       data="jpg"),
    _m("devices", "cast-moved-to-gpu", "aug_pipe", "x = ndd.cast(data, dtype=types.FLOAT)",
       'x = ndd.cast(data, dtype=types.FLOAT, device="gpu")',
       "cast: device='cpu' in the original, device='gpu' migrated"),
    # --- op arguments ----------------------------------------------------------------------
    _m("arguments", "transpose-perm", "aug_pipe", "perm=[1, 0]", "perm=[0, 1]", "values — "),
    _m("arguments", "sum-axes", "aug_pipe", "axes=[0]", "axes=[1]", "values — "),
    _m("arguments", "normal-stddev", "aug_pipe", "stddev=0.25", "stddev=0.5", "values — "),
    _m("arguments", "uniform-range", "aug_pipe", "range=(0.5, 1.5)", "range=(0.5, 2.0)",
       "values — "),
    _m("arguments", "cast-dtype", "aug_pipe", "x = ndd.cast(data, dtype=types.FLOAT)",
       "x = ndd.cast(data, dtype=types.FLOAT64)", "Unsupported input type: double", code=2),
    _m("arguments", "flip-cast-dtype", "aug_pipe", "ndd.cast(flip, dtype=types.FLOAT)",
       "ndd.cast(flip, dtype=types.FLOAT16)",
       "Right operand data type not supported, DALIDataType: float16", code=2),
    _m("arguments", "arithmetic-sign", "aug_pipe", "x * scale + noise", "x * scale - noise",
       "values — "),
    _m("arguments", "resize-width", "image_pipe", "resize_x=12", "resize_x=14", "values — ",
       data="jpg"),
    _m("arguments", "crop-window", "image_pipe", "crop=(8, 8)", "crop=(8, 6)", "shape — ",
       data="jpg"),
    _m("arguments", "normalize-mean", "image_pipe", "mean=[128.0]", "mean=[127.0]", "values — ",
       data="jpg"),
    _m("arguments", "decoder-output-type", "image_pipe", "output_type=types.RGB",
       "output_type=types.BGR", "values — ", data="jpg"),
    _m("arguments", "shard-offset", "shard_pipe", "types.INT64) + 1", "types.INT64) + 2",
       "values — ", run=EPOCHS),
    _m("arguments", "shard-dtype", "shard_pipe", "types.INT64", "types.INT32", "dtype — "),
    _m("arguments", "unseeded-range", "unseeded_pipe", "range=(0, 1)", "range=(0, 2)",
       "values — "),
    # --- op order --------------------------------------------------------------------------
    _m("order", "uniform-after-normal", "aug_pipe",
       f"scale = {U}\n                noise = {N}",
       f"noise = {N}\n                scale = {U}", "random calls in a different order"),
    _m("order", "coin-flip-first", "aug_pipe",
       f"scale = {U}\n                noise = {N}\n                flip = {C}",
       f"flip = {C}\n                scale = {U}\n                noise = {N}",
       "random calls in a different order"),
    _m("order", "unused-op-before-coin-flip", "aug_pipe", f"flip = {C}\n                {UNUSED}",
       f"{UNUSED}                flip = {C}\n", "random calls in a different order"),
    _m("order", "noise-before-scale", "aug_pipe", "x * scale + noise", "(x + noise) * scale",
       "values — "),
    _m("order", "transpose-after-sum", "aug_pipe", "total = ndd.reductions.sum(y, axes=[0])",
       "total = ndd.reductions.sum(ndd.transpose(y, perm=[1, 0]), axes=[0])", "values — "),
    _m("order", "outputs-swapped", "aug_pipe", "yield y, out, data", "yield y, data, out",
       "dtype — "),
    # --- dropped / added ops -----------------------------------------------------------------
    _m("dropped", "unused-random-op-dropped", "aug_pipe", "                " + UNUSED, "",
       "made 3 random call(s), the original pipeline has 4 random op(s)"),
    _m("dropped", "transpose-dropped", "aug_pipe", "ndd.transpose(x * scale + noise, perm=[1, 0])",
       "x * scale + noise", "values — "),
    _m("dropped", "noise-dropped", "aug_pipe", "x * scale + noise", "x * scale", "values — "),
    _m("dropped", "output-dropped", "aug_pipe", "yield y, out, data", "yield y, out",
       "missing output"),
    _m("dropped", "random-op-added", "aug_pipe", "                " + UNUSED,
       ("                " + UNUSED) * 2,
       "made 5 random call(s), the original pipeline has 4 random op(s)"),
    _m("dropped", "random-op-kind-changed", "aug_pipe", N,
       "ndd.random.uniform(x, range=(-0.25, 0.25), rng=rng)", "different random ops"),
    _m("dropped", "random-op-without-batch-size", "aug_pipe", U,
       U.replace(", batch_size=batch_size", ""), "called without batch_size=: random.uniform"),
    _m("dropped", "mirror-dropped", "image_pipe", "mirror=mirror", "mirror=0", "values — ",
       data="jpg"),
    _m("dropped", "resize-dropped", "image_pipe",
       "images = ndd.resize(images, resize_x=12, resize_y=10)", "", "values — ", data="jpg"),
    _m("dropped", "image-coin-flip-dropped", "image_pipe",
       "mirror = ndd.random.coin_flip(batch_size=batch_size, rng=rng)", "mirror = 0",
       "made 0 random call(s), the original pipeline has 1 random op(s)", data="jpg"),
    _m("dropped", "unseeded-random-dropped", "unseeded_pipe",
       "u = ndd.random.uniform(range=(0, 1), batch_size=batch_size)", "u = 0.5",
       "made 0 random call(s), the original pipeline has 1 random op(s)"),
    # --- checkpointing: saved mid-epoch, restored, compared with the uninterrupted run --------
    _m("checkpoint", "ckpt-reader-unregistered", "ckpt_pipe", 'checkpoint.register(reader, "Reader")\n        ',
       "", "reader #0 (readers.numpy 'Reader') is not registered in the checkpoint", run=EPOCHS),
    _m("checkpoint", "ckpt-rng-unregistered", "ckpt_pipe", '\n        checkpoint.register(rng, "rng")', "",
       "the RNG random.uniform draws from is not registered in the checkpoint", run=EPOCHS),
    _m("checkpoint", "ckpt-read-ahead", "ckpt_pipe", "in reader.next_epoch(batch_size=batch_size, ctx=ctx)",
       "in read_ahead(reader.next_epoch(batch_size=batch_size, ctx=ctx))",
       "saved after 5 step(s) and restored, the migrated generator does not continue where it stopped",
       run=EPOCHS),
    # --- correct variants: must stay EQUAL ---------------------------------------------------
    _m("correct", "default-rng-after-set-seed", "aug_pipe", "rng = ndd.random.RNG(seed=seed)",
       "ndd.random.set_seed(seed)\n    rng = None", None),
    _m("correct", "decoder-device-inferred", "image_pipe", 'device="cpu", output_type',
       "output_type", None, data="jpg"),
    _m("correct", "rng-from-state", "aug_pipe", "rng = ndd.random.RNG(seed=seed)",
       "rng = ndd.random.RNG(state=ndd.random.RNG(seed=seed).state)", None),
]


def function_span(text: str, name: str) -> tuple[int, int]:
    start = text.index(f"\ndef {name}(") + 1
    end = text.find("\ndef ", start)
    return start, len(text) if end == -1 else end + 1


def apply(text: str, m: Mutation) -> str:
    """base_ndd.py with ``m`` planted (in its function only)."""
    start, end = function_span(text, m.pipeline)
    body = text[start:end]
    count = body.count(m.old)
    if count != 1:
        raise AssertionError(f"{m.id}: {m.old!r} occurs {count} times in {m.pipeline}")
    return text[:start] + body.replace(m.old, m.new) + text[end:]

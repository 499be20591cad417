"""Throughput of every verify fixture: pipeline mode vs. its migration, eager and captured.

For each fixture with a ``case.json`` and each batch size (8, 32, 128 by default) this measures,
with :mod:`ndd_migrate.verify.timing` (warm-up, then the median of several timed runs), samples/s of

* ``pipeline`` — the original ``@pipeline_def`` function: ``pipe.build()``, then ``pipe.run()``;
* ``eager`` — the migrated generator as written: ``next(g)`` plus ``evaluate()`` of every output;
* ``capture`` — the same generator with every ``reader.next_epoch(...)`` forced to
  ``capture=True`` (verify's :class:`~ndd_migrate.verify.readers.NddReaders` does it, so the
  migrated code needs no change),
* ``captured`` — the generator as ``migrate --capture`` writes it (migrated here, from the
  fixture's pipeline): ``capture=True`` where the whole loop can be captured, its invariant
  arguments marked (``ndd.capture.invariant``); a fixture it leaves eager times as ``eager``,

each with the consumer of ``--consumer``: ``none`` (the loop only), ``cpu`` (a fixed amount of
numpy matrix work per batch, as a CPU-side training step), ``wait`` (a sleep as long as the
pipeline's own batch time, as a training step that waits for the GPU while the CPU is idle; the
pipeline is timed alone first to know it), and
prints a table with the migrated/pipeline ratios and writes it into the section
``## Throughput (pipeline mode vs migrated code)`` of ``docs/benchmarks.md`` — only between the
markers of the device measured (``--device cpu`` and ``--device gpu`` keep one block each), so the
hand-written explanation around them and the other sections of the file stay as they are.

Why its own datasets: the fixture datasets are a dozen tiny files, which measure per-call overhead
only. ``--scale 1`` writes 192 JPEGs of 224–500 px (ImageNet-like), 128 COCO images of the same
sizes, 128 WAV clips of 1–4 s and 256 feature arrays of 32–256 × 40, in the layouts the fixtures
read; the fixtures also get realistic arguments (224 px crops, 300 px SSD input).

Why one process per fixture and mode: ``ndd.set_num_threads`` and the capture loop are global to a
process, and a pipeline's thread pool must not compete with the dynamic mode's for the cores while
being timed. The three modes of one fixture run back to back, so they share the machine's state.

Usage::

    python benchmarks/bench_verify_throughput.py [--device auto|cpu|gpu] [--batch-sizes 8 32 128]
        [--fixtures NAME ...] [--modes MODE ...] [--consumer none|cpu|wait] [--scale S] [--runs N]
        [--rounds N (the modes alternate N times; medians of the rounds)]
        [--samples-per-run N] [--data DIR]
        [--docs docs/benchmarks.md | --no-docs] [--json FILE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `fixtures` is a package of the checkout, not installed
FIXTURES = ROOT / "fixtures"
SUPPORT = ROOT / "ndd_migrate" / "support" / "template"  # ndd_support.py
DOCS = ROOT / "docs" / "benchmarks.md"
MODES = ("pipeline", "eager", "capture", "captured")
CONSUMERS = ("none", "cpu", "wait")
SECTION = "## Throughput (pipeline mode vs migrated code)"
DOC_INTRO = "# Benchmarks\n\nMeasured figures for ndd-migrate; each section says how it was measured.\n"

#: Arguments that make a fixture do realistic work on the larger datasets (both sides take them).
BENCH_ARGS = {
    "image_classification": {"crop": 224},
    "coco_detection": {"size": 300},
    "numpy_features": {"max_len": 256},
}


# --------------------------------------------------------------------------------------------------
# Datasets: the fixture layouts, larger


def make_bench_data(root: Path, scale: float) -> dict[str, Path]:
    """Datasets in the layouts of :mod:`fixtures.datasets`, with realistic sizes; deterministic and
    idempotent like those (a second call rewrites nothing)."""
    import numpy as np

    from fixtures import datasets as ds

    def count(n: int) -> int:
        return max(1, round(n * scale))

    out: dict[str, Path] = {}
    rng = np.random.default_rng(7001)
    jpeg = root / "jpeg"
    for cls in ds.JPEG_CLASSES:
        for i in range(count(64)):
            h, w = (int(v) for v in rng.integers(224, 501, size=2))
            ds._write_bytes(jpeg / cls / f"{cls}_{i}.jpg", ds._jpeg_bytes(ds._synthetic_image(rng, h, w)))
    out["jpeg"] = jpeg

    coco = root / "coco"
    images, annotations = [], []
    for img_id in range(1, count(128) + 1):
        h, w = (int(v) for v in rng.integers(224, 501, size=2))
        for _ in range(int(rng.integers(1, 4))):
            bw, bh = int(rng.integers(16, w // 2)), int(rng.integers(16, h // 2))
            x, y = int(rng.integers(0, w - bw)), int(rng.integers(0, h - bh))
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": img_id,
                    "category_id": int(rng.integers(1, 4)),
                    "bbox": [float(x), float(y), float(bw), float(bh)],
                    "area": float(bw * bh),
                    "iscrowd": 0,
                }
            )
        name = f"{img_id:012d}.jpg"
        ds._write_bytes(coco / "images" / name, ds._jpeg_bytes(ds._synthetic_image(rng, h, w)))
        images.append({"id": img_id, "file_name": name, "width": w, "height": h})
    doc = {"images": images, "annotations": annotations, "categories": list(ds.COCO_CATEGORIES)}
    ds._write_text(coco / "annotations.json", json.dumps(doc) + "\n")
    out["coco"] = coco

    audio = root / "audio"
    lines = []
    for i in range(count(128)):
        n = int(rng.integers(ds.AUDIO_SAMPLE_RATE, 4 * ds.AUDIO_SAMPLE_RATE))
        t = np.arange(n) / ds.AUDIO_SAMPLE_RATE
        signal = np.sin(2 * np.pi * rng.uniform(180, 2000) * t) * np.hanning(n) + rng.normal(0, 0.05, n)
        name = f"wav/clip_{i:03d}.wav"
        ds._write_bytes(audio / name, ds._wav_bytes(np.clip(signal * 0.5 * 32767, -32768, 32767), ds.AUDIO_SAMPLE_RATE))
        lines.append(f"{name} {i % 3}\n")
    ds._write_text(audio / "file_list.txt", "".join(lines))
    out["audio"] = audio

    numpy_dir = root / "numpy"
    for i in range(count(256)):
        arr = rng.normal(0.0, 3.0, size=(int(rng.integers(32, 257)), 40)).astype(np.float32)
        path = numpy_dir / f"sample_{i:03d}.npy"
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, arr, allow_pickle=False)
    out["numpy"] = numpy_dir
    return out


# --------------------------------------------------------------------------------------------------
# Cases


def load_cases(names: list[str] | None, data: dict[str, Path], scratch: Path) -> list[dict]:
    """One case per fixture with a case.json (``{data}`` replaced, :data:`BENCH_ARGS` added), and
    its migration by ``migrate --capture`` written in ``scratch``."""
    cases = []
    for case_file in sorted(FIXTURES.glob("*/case.json")):
        name = case_file.parent.name
        if names and name not in names:
            continue
        case = json.loads(case_file.read_text(encoding="utf-8"))
        root = str(data[case["dataset"]])
        args = {k: v.replace("{data}", root) if isinstance(v, str) else v for k, v in case["args"].items()}
        args.update(BENCH_ARGS.get(name, {}))
        cases.append(
            {
                "name": name,
                "function": case["function"],
                "kwargs": args,
                "pipeline": str(case_file.parent / "pipeline.py"),
                "migrated": str(case_file.parent / "migrated.py"),
                "captured": str(migrate_captured(case_file.parent / "pipeline.py", scratch / f"{name}_captured.py")),
            }
        )
    missing = set(names or ()) - {c["name"] for c in cases}
    if missing:
        raise SystemExit(f"no fixture with a case.json named {', '.join(sorted(missing))}")
    return cases


def migrate_captured(pipeline: Path, out: Path) -> Path:
    """``out``: ``pipeline`` as ``migrate --capture`` writes it (its support module is the template,
    on the workers' path)."""
    from ndd_migrate.engine.transform import transform
    from ndd_migrate.io.policy import Policy

    result = transform(pipeline.read_text(encoding="utf-8"), str(out), Policy(capture=lambda _path: True))
    if result.error:
        raise SystemExit(f"migrate --capture failed on {pipeline}: {result.error}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.new_source, encoding="utf-8")
    return out


def bench_config(batch_size: int, samples_per_run: int, runs: int):
    """Timed runs of about ``samples_per_run`` samples whatever the batch size (so small batches,
    where per-call overhead shows, get as many samples as large ones); the warm-up is one such
    run and at least 3 steps: thread pools, operator instances, prefetch fill, and for ``capture``
    the traced first step and the pipeline build."""
    from ndd_migrate.verify.model import BenchConfig

    iterations = max(2, math.ceil(samples_per_run / batch_size))
    return BenchConfig(warmup=max(3, iterations), runs=runs, iterations=iterations)


# --------------------------------------------------------------------------------------------------
# Worker: one fixture, one mode, every batch size (runs in its own process)


def run_worker(job: dict) -> dict:
    """Time one fixture in one mode at every batch size; CPU-lowered as ``verify`` does when
    ``--device cpu`` (or ``auto`` without a GPU). A fresh pipeline or generator per batch size."""
    import contextlib

    from ndd_migrate.verify.ending import close_generator
    from ndd_migrate.verify.loading import find_function, load_module
    from ndd_migrate.verify.lowering import NddLowering, PipelineLowering
    from ndd_migrate.verify.model import Settings
    from ndd_migrate.verify.readers import NddReaders
    from ndd_migrate.verify.side import call_kwargs, resolve_device
    from ndd_migrate.verify.timing import measure, ndd_stepper, pipeline_stepper

    mode = job["mode"]
    lowered = resolve_device(Settings(device=job["device"]))
    side = {"pipeline": "pipeline", "captured": "captured"}.get(mode, "migrated")
    lowering = (PipelineLowering() if side == "pipeline" else NddLowering()) if lowered else None
    results = {}
    with lowering or contextlib.nullcontext():
        # the migrated side as it runs for users: `@prefetching` ahead of the consumer
        kind = "migrated" if side == "captured" else side
        func = find_function(load_module(job[side], prefetch_lockstep=False), job["function"], kind=kind)
        for batch_size in job["batch_sizes"]:
            consume = consumer(job.get("consumer", "none"), job.get("waits", {}).get(str(batch_size)))
            settings = Settings(kwargs=job["kwargs"], batch_size=batch_size, device_id=job["device_id"])
            kwargs, _ = call_kwargs(func, settings, None if lowered else job["device_id"], kind)
            config = bench_config(batch_size, job["samples_per_run"], job["runs"])
            if side == "pipeline":
                pipe = func(**kwargs)
                results[batch_size] = measure(consumed(pipeline_stepper(pipe), consume), config).to_dict()
                del pipe
            else:
                capture = {"capture": True, "captured": None}.get(mode, False)  # None: as written
                with NddReaders(job["reader_seed"], capture=capture) as readers:
                    gen = func(**kwargs)
                    results[batch_size] = measure(consumed(ndd_stepper(gen), consume), config).to_dict()
                    if mode in ("capture", "captured"):
                        results[batch_size]["captured_ops"] = captured_ops(readers.readers)
                    close_generator(gen)
    return {"lowered": lowered, "results": results}


def consumer(kind: str, wait_s: float | None):
    """What the training loop does with each batch: nothing, CPU work, or a wait (``wait_s``)."""
    if kind == "none":
        return None
    if kind == "wait":
        return lambda: time.sleep(wait_s)
    import numpy as np

    matrix = np.random.default_rng(0).standard_normal((192, 192)).astype(np.float32)

    def work() -> None:
        for _ in range(8):
            matrix @ matrix

    return work


def consumed(step, consume):
    """``step`` followed by the consumer's work on its batch."""
    if consume is None:
        return step

    def step_and_consume() -> int:
        samples = step()
        consume()
        return samples

    return step_and_consume


def captured_ops(readers: list) -> list[str] | None:
    """Ops the capture-mode loop of the first reader runs in its pipeline (the others run
    eagerly); None when nothing was captured (no reader, or DALI fell back to dynamic mode).

    DALI 2.4.0 captures an op only when each argument is a captured batch, a literal, or a name
    its source analysis proves invariant: a generator's parameters and module globals are not,
    unless wrapped in ``ndd.capture.invariant`` (docs/benchmarks.md). This reads DALI internals,
    hence the guard."""
    try:
        nodes = readers[0]._captured_iter._capture_ctx.nodes
        return [node.op_class.__name__ for node in nodes] or None
    except (AttributeError, IndexError):
        return None


def spawn_worker(job: dict, timeout: float) -> dict:
    """Run :func:`run_worker` in a fresh interpreter; its result is the last stdout line."""
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        # the goldens import the support module `migrate` writes beside them: here, its template
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), str(SUPPORT), os.environ.get("PYTHONPATH")])),
        },
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        return {"error": f"exit {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def bench_case(case: dict, args: argparse.Namespace, lowered: bool | None) -> tuple[list[dict], dict, bool | None]:
    """One fixture in every mode, ``args.rounds`` times alternating: its table rows, the workers'
    results by mode, and whether the device was lowered."""
    base = dict(
        case,
        device=args.device,
        device_id=args.device_id,
        batch_sizes=args.batch_sizes,
        samples_per_run=args.samples_per_run,
        runs=args.runs,
        reader_seed=args.reader_seed,
        consumer=args.consumer,
    )
    if args.consumer == "wait":  # the pipeline's own batch time, measured alone first
        base["waits"] = pipeline_batch_times(dict(base, mode="pipeline", consumer="none"), args.timeout)
    rounds: dict[str, list[dict]] = {mode: [] for mode in args.modes}
    for _ in range(args.rounds):  # the modes alternate: the machine's load falls on each
        for mode in args.modes:
            res = timed_worker(dict(base, mode=mode), case["name"], args.timeout)
            rounds[mode].append(res)
            lowered = res.get("lowered", lowered)
    rows = []
    for b in args.batch_sizes:
        row = {"fixture": case["name"], "batch": b}
        for mode, results in rounds.items():
            measured = [res.get("results", {}).get(str(b), {}) for res in results]
            rates = [m.get("samples_per_s") for m in measured]
            row[mode] = None if None in rates else statistics.median(rates)
            row[f"{mode}_rounds"] = rates
            if mode in ("capture", "captured"):  # `captured` is listed last: it wins
                row["captured_ops"] = measured[-1].get("captured_ops")
        rows.append(row)
    return rows, rounds, lowered


def timed_worker(job: dict, name: str, timeout: float) -> dict:
    """:func:`spawn_worker`, its time and status printed."""
    t0 = time.perf_counter()
    try:
        res = spawn_worker(job, timeout)
    except subprocess.TimeoutExpired:
        res = {"error": f"timed out after {timeout:.0f} s"}
    status = res.get("error") or "ok"
    print(f"  {name:<22} {job['mode']:<8} {time.perf_counter() - t0:6.1f} s  {status}", flush=True)
    return res


def pipeline_batch_times(job: dict, timeout: float) -> dict[str, float]:
    """Seconds per batch of the pipeline with no consumer, by batch size (as a string)."""
    res = spawn_worker(job, timeout)
    rates = {b: r.get("samples_per_s") for b, r in res.get("results", {}).items()}
    if not rates or not all(rates.values()):
        raise SystemExit(f"cannot time the pipeline for --consumer wait: {res.get('error')}")
    return {b: int(b) / rate for b, rate in rates.items()}


# --------------------------------------------------------------------------------------------------
# Table and docs


def ratio(a, b) -> str:
    return f"{a / b:.2f}×" if a and b and _NOT_RUN not in (a, b) else "–"


def fmt(rate: float | None) -> str:
    """A rate; "–" for a mode not asked for (absent), "failed" for one that gave none."""
    if rate is _NOT_RUN:
        return "–"
    return f"{rate:,.0f}" if rate else "failed"


_NOT_RUN = object()


def render_table(rows: list[dict]) -> str:
    """Markdown table: one row per fixture and batch size."""
    out = [
        "| fixture | batch | pipeline (samples/s) | eager (samples/s) | capture=True (samples/s) "
        "| migrate --capture (samples/s) | eager / pipeline | capture / pipeline | --capture / pipeline "
        "| ops captured |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        p, e, c, w = (r.get(m, _NOT_RUN) for m in MODES)
        ops = r.get("captured_ops")
        captured = ", ".join(ops) if ops else "none (eager)"
        out.append(
            f"| {r['fixture']} | {r['batch']} | {fmt(p)} | {fmt(e)} | {fmt(c)} | {fmt(w)} | {ratio(e, p)} "
            f"| {ratio(c, p)} | {ratio(w, p)} | {captured} |"
        )
    return "\n".join(out)


def block_markers(device: str) -> tuple[str, str]:
    return f"<!-- throughput:{device} begin -->", f"<!-- throughput:{device} end -->"


def update_docs(text: str, device: str, block: str) -> str:
    """``text`` with the ``device`` block of the Throughput section replaced by ``block``.

    Creates the file's intro, the section and the block as needed; leaves everything outside the
    block (other sections, the section's hand-written prose, the other device's block) untouched.
    """
    begin, end = block_markers(device)
    body = f"{begin}\n{block.strip()}\n{end}"
    if not text.strip():
        text = DOC_INTRO
    if begin in text and end in text:
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        return pattern.sub(lambda _: body, text, count=1)
    if SECTION not in text:
        return text.rstrip("\n") + f"\n\n{SECTION}\n\n{body}\n"
    start = text.index(SECTION) + len(SECTION)
    nxt = re.search(r"^## ", text[start:], re.M)
    cut = start + nxt.start() if nxt else len(text)
    head, tail = text[:cut].rstrip("\n"), text[cut:]
    return f"{head}\n\n{body}\n" + (f"\n{tail}" if tail else "")


def extract_block(text: str, device: str) -> str | None:
    """The content of ``device``'s block in a docs text (None without one)."""
    begin, end = block_markers(device)
    match = re.search(re.escape(begin) + r"\n(.*?)\n" + re.escape(end), text, re.S)
    return match.group(1) if match else None


def describe(args: argparse.Namespace, lowered: bool, command: str) -> str:
    """The block for the docs: when, where, how, and the table."""
    import nvidia.dali as dali

    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    if lowered:
        where = (
            f"CPU-lowered (`--device cpu`), {os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}"
        )
    else:
        where = f"native GPU (`--device gpu`, device {args.device_id}): {gpu_name()}, {os.cpu_count()} CPU cores"
    load = ", ".join(f"{x:.1f}" for x in args.load)
    return (
        f"**{'CPU' if lowered else 'GPU'} — {when}**, DALI {dali.__version__}, Python "
        f"{platform.python_version()}; {where}; load average before/after {load}. Median of "
        f"{args.runs} timed runs of about {args.samples_per_run} samples after a warm-up run; "
        f"dataset scale {args.scale}; consumer: {CONSUMER_TEXT[args.consumer]}.\n\n"
        f"```\n{command}\n```\n\n{args.table}\n"
    )


CONSUMER_TEXT = {
    "none": "none (the loop alone)",
    "cpu": "CPU work per batch (8 numpy 192×192 matrix products)",
    "wait": "a wait per batch as long as the pipeline's own batch time (a GPU-bound training step)",
}


def gpu_name() -> str:
    try:
        out = (
            subprocess.run(
                ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            .stdout.strip()
            .splitlines()
        )
        return out[0] if out else "GPU"
    except (OSError, subprocess.SubprocessError):
        return "GPU"


# --------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    p.add_argument("--device-id", type=int, default=0)
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 32, 128])
    p.add_argument("--fixtures", nargs="+", metavar="NAME", help="only these fixtures")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--rounds", type=int, default=1, help="run the modes this many times, alternating")
    p.add_argument("--consumer", choices=CONSUMERS, default="none", help="what the loop does per batch")
    p.add_argument("--scale", type=float, default=1.0, help="dataset size factor (default 1)")
    p.add_argument("--runs", type=int, default=5, help="timed runs; the median is reported")
    p.add_argument("--samples-per-run", type=int, default=192)
    p.add_argument("--reader-seed", type=int, default=1234)
    p.add_argument("--data", type=Path, help="dataset directory (kept; default: a temporary one)")
    p.add_argument("--docs", type=Path, default=DOCS, help="markdown file to update")
    p.add_argument("--no-docs", action="store_true", help="print only")
    p.add_argument("--json", type=Path, help="also write the raw results as JSON")
    p.add_argument("--timeout", type=float, default=600, help="seconds per worker process")
    p.add_argument(
        "--import-block",
        type=Path,
        metavar="FILE",
        help="measure nothing: copy the GPU block of FILE (the benchmarks.md that gpu_checks.sh "
        "wrote on the GPU machine) into --docs",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if any(b < 1 for b in args.batch_sizes) or args.runs < 1 or args.samples_per_run < 1 or args.scale <= 0:
        p.error("batch sizes, --runs, --samples-per-run and --scale must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(json.loads(args.worker))))
        sys.stdout.flush()
        os._exit(0)  # DALI's pools may take long to tear down; the result is printed
    if args.import_block:
        block = extract_block(args.import_block.read_text(encoding="utf-8"), "gpu")
        if block is None:
            print(f"{args.import_block} has no GPU block", file=sys.stderr)
            return 1
        old = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        args.docs.write_text(update_docs(old, "gpu", block), encoding="utf-8")
        print(f"updated {args.docs} (gpu block from {args.import_block})")
        return 0
    command = "python benchmarks/bench_verify_throughput.py " + " ".join(argv if argv is not None else sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="ndd-bench-") as tmp:
        root = args.data or Path(tmp)
        started = time.perf_counter()
        args.load = [os.getloadavg()[0]]  # a shared machine's other work shows in the figures
        data = make_bench_data(root, args.scale)
        print(f"datasets in {root} ({time.perf_counter() - started:.1f} s)", flush=True)
        rows, raw, lowered = [], {}, None
        for case in load_cases(args.fixtures, data, root / "captured"):
            case_rows, raw[case["name"]], lowered = bench_case(case, args, lowered)
            rows += case_rows
    args.load.append(os.getloadavg()[0])
    args.table = render_table(rows)
    print(args.table)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "raw": raw}, indent=1) + "\n", encoding="utf-8")
    if lowered is None:
        print("no measurement succeeded", file=sys.stderr)
        return 1
    if not args.no_docs:
        old = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        device = "cpu" if lowered else "gpu"
        args.docs.write_text(update_docs(old, device, describe(args, lowered, command)), encoding="utf-8")
        print(f"updated {args.docs} ({device} block)")
    failed = any(r.get(m) is None for r in rows for m in args.modes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

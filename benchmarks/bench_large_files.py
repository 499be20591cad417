"""Cost per file size: ``check`` and ``migrate --diff`` on one generated file of 50 KB to 2 MB.

The work on a file must grow linearly with its size: doubling the file may at most double the
time. This writes DALI-heavy Python files of the sizes asked for (``--sizes``, in KB): repeated
units, each made of a ``@pipeline_def`` function, a legacy ``Pipeline`` subclass with ``ops``
objects, their call sites and consumer loops (``pipe.build()``, ``pipe.run()``, batch methods,
subscripts and ``len``), a factory that returns a pipeline, and ordinary code around them. Every
unit has names of its own, so the file is one module with many pipelines, as a large notebook or a
concatenated training script would be.

Each command runs on each size in a process of its own (``python -c "from ndd_migrate.cli
import main; main()"``, ``-j 1``), with a time limit per run so the benchmark always finishes; the
wall time is the parent's clock, the peak memory the child's ``ru_maxrss`` (from ``os.wait4``).
Rounds alternate between sizes, commands and trees; the medians count (the machines are shared).

``--tree LABEL=DIR`` (repeatable) runs the CLI of another checkout side by side (``PYTHONPATH=DIR``),
for before/after figures in one run; the default is this checkout, labelled ``this``.

Usage::

    python benchmarks/bench_large_files.py [--sizes 50,100,200,500,1000,2000] [--rounds 3]
        [--large-rounds 1] [--timeout 300] [--tree before=/tmp/base --tree after=.] [--keep DIR]
        [--docs docs/benchmarks.md | --no-docs]

It is run on demand, not by the test suite.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_section import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Cost per file size (check and migrate --diff)"
COMMANDS = {"check": ["check", "-j", "1"], "migrate --diff": ["migrate", "--diff", "-j", "1", "-q"]}
CLI = "from ndd_migrate.cli import main; main()"

# --------------------------------------------------------------------------------- the generator

_WORDS = "image label frame crop scale mean shift tile mask depth flow score audio clip batch".split()


def _plain(rng: random.Random, serial: int) -> list[str]:
    """Ordinary code: a helper function and a small class, no DALI."""
    a, b = rng.sample(_WORDS, 2)
    n = rng.randint(2, 97)
    return [
        f"def {a}_{b}_stats_{serial}(values, limit={n}):",
        f'    """Summarise the {a} values, at most {n} of them."""',
        "    total = 0",
        "    seen = []",
        "    for i, value in enumerate(values):",
        "        if i >= limit:",
        "            break",
        f"        total += value * {n}",
        "        seen.append(value)",
        "    squares = [v * v for v in seen if v % 2 == 0]",
        "    try:",
        "        ratio = total / len(seen)",
        "    except ZeroDivisionError:",
        "        ratio = 0.0",
        f"    return {{'total': total, 'ratio': ratio, 'squares': squares, 'tag': '{a}-{b}'}}",
        "",
        "",
        f"class {a.capitalize()}{b.capitalize()}Log{serial}:",
        f'    """Keeps the last {n} {b} records."""',
        "",
        "    def __init__(self, size):",
        "        self.size = size",
        "        self.items = []",
        "",
        "    def add(self, item):",
        "        self.items.append(item)",
        "        if len(self.items) > self.size:",
        "            self.items.pop(0)",
        "        return len(self.items)",
        "",
        "",
    ]


def _unit(rng: random.Random, serial: int) -> list[str]:
    """One group of DALI code with names of its own (about 4.5 KB)."""
    s = serial
    crop = rng.choice((64, 96, 128, 224))
    batch = rng.choice((2, 4, 8, 16))
    seed = rng.randint(1, 9999)
    prob = rng.choice(("0.5", "0.25", "0.75"))
    return [
        f"@pipeline_def(num_threads=2, device_id=0, seed={seed})",
        f"def train_pipe_{s}(data_dir, crop={crop}):",
        f'    """Training input {s}: decode, crop, flip, normalise."""',
        "    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name='Reader')",
        "    images = fn.decoders.image(jpegs, device='mixed', output_type=types.RGB)",
        "    images = fn.random_resized_crop(images, size=[crop, crop], random_area=[0.25, 1.0])",
        f"    mirror = fn.random.coin_flip(probability={prob})",
        "    images = fn.crop_mirror_normalize(",
        "        images, dtype=types.FLOAT, output_layout='CHW', mean=MEAN, std=STD, mirror=mirror",
        "    )",
        "    return images, labels.gpu()",
        "",
        "",
        "@pipeline_def",
        f"def eval_pipe_{s}(data_dir, size={crop + 32}):",
        "    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=False)",
        "    images = fn.decoders.image(jpegs, device='cpu')",
        "    images = fn.resize(images, resize_shorter=size)",
        f"    images = fn.crop(images, crop=[{crop}, {crop}])",
        "    return images, labels",
        "",
        "",
        f"class LegacyPipe{s}(Pipeline):",
        f"    def __init__(self, batch_size, num_threads, device_id, data_dir, crop={crop}):",
        f"        super(LegacyPipe{s}, self).__init__(batch_size, num_threads, device_id, seed={seed})",
        "        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)",
        "        self.decode = ops.ImageDecoder(device='cpu', output_type=types.RGB)",
        "        self.rrc = ops.RandomResizedCrop(size=crop, random_area=[0.25, 1.0])",
        "        self.cmnp = ops.CropMirrorNormalize(dtype=types.FLOAT, output_layout=types.NCHW, mean=MEAN, std=STD)",
        f"        self.coin = ops.CoinFlip(probability={prob})",
        "",
        "    def define_graph(self):",
        "        rng = self.coin()",
        "        self.jpegs, self.labels = self.input(name='Reader')",
        "        images = self.decode(self.jpegs)",
        "        images = self.rrc(images)",
        "        output = self.cmnp(images, mirror=rng)",
        "        return [output, self.labels]",
        "",
        "",
        f"def make_eval_{s}(data_dir, batch_size={batch}):",
        f"    pipe = eval_pipe_{s}(data_dir, batch_size=batch_size, num_threads=2, device_id=0)",
        "    return pipe",
        "",
        "",
        f"def run_train_{s}(data_dir, iters=3):",
        f"    pipe = train_pipe_{s}(data_dir, batch_size={batch})",
        "    pipe.build()",
        "    shapes = []",
        "    for step in range(iters):",
        "        images, labels = pipe.run()",
        "        labels = labels.as_cpu()",
        "        first = images.as_cpu().at(0)",
        "        shapes.append(first.shape)",
        f"        print(f'train {s} step {{step}}: {{len(images)}} images, labels {{labels.as_array().ravel().tolist()}}')",
        "    return shapes",
        "",
        "",
        f"def run_legacy_{s}(data_dir, iters=2):",
        f"    pipe = LegacyPipe{s}({batch}, 2, 0, data_dir)",
        "    pipe.build()",
        "    for step in range(iters):",
        "        images, labels = pipe.run()",
        f"        print(f'legacy {s} step {{step}}: {{len(images)}} images')",
        "",
        "",
        f"def run_eval_{s}(data_dir):",
        f"    pipe = make_eval_{s}(data_dir)",
        "    pipe.build()",
        "    out = pipe.run()",
        "    images = out[0]",
        "    return len(images), images[0].shape()",
        "",
        "",
    ] + _plain(rng, s)


HEADER = '''"""A large generated module: many pipelines, legacy pipelines, their loops, other code."""

import os
import sys

import nvidia.dali.ops as ops
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.pipeline import Pipeline

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


'''


def generate(size_bytes: int, seed: int = 0) -> str:
    """A DALI-heavy module of about ``size_bytes`` bytes (whole units; never less than asked)."""
    rng = random.Random(seed)
    parts, total, serial = [HEADER], len(HEADER), 0
    while total < size_bytes:
        block = "\n".join(_unit(rng, serial)) + "\n"
        parts.append(block)
        total += len(block)
        serial += 1
    main = ['if __name__ == "__main__":', "    data = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()"]
    main += [f"    run_train_{i}(data)" for i in range(0, serial, max(1, serial // 8))]
    parts.append("\n".join(main) + "\n")
    text = "".join(parts)
    compile(text, "<generated>", "exec")  # the generator must write valid Python
    return text


# ---------------------------------------------------------------------------------------- timing


def timed(argv: list[str], env: dict, cwd: Path, timeout: float) -> tuple[float | None, float, float, int]:
    """(wall seconds or None past ``timeout``, CPU seconds, peak RSS in MB, exit status) of one
    run. On a shared machine the wall time depends on the other load, the CPU time much less."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline, status, usage, timed_out = start + timeout, None, None, False
    while status is None:
        pid, status_, usage_ = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            status, usage = status_, usage_
            break
        if time.perf_counter() > deadline and not timed_out:
            os.killpg(proc.pid, signal.SIGKILL)
            timed_out = True
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return (None if timed_out else elapsed), cpu, usage.ru_maxrss / 1024, proc.returncode


def run_all(
    files: dict[int, Path], trees: dict[str, Path], rounds: int, large_rounds: int, timeout: float, workdir: Path
) -> dict:
    """{(tree, command, size): [(wall, rss), ...]}; files of 1 MB and more run in the first
    ``large_rounds`` rounds only. A size past the timeout is not run again on that tree and
    command (the larger ones neither)."""
    results: dict = {}
    given_up: dict = {}  # (tree, command) -> the smallest size that timed out
    for round_ in range(rounds):
        for size, path in files.items():
            if size >= 1000 and round_ >= large_rounds:
                continue
            for command, args in COMMANDS.items():
                for label, tree in trees.items():
                    key = (label, command, size)
                    if size >= given_up.get((label, command), float("inf")):
                        continue
                    env = dict(os.environ, PYTHONPATH=str(tree), NO_COLOR="1")
                    argv = [sys.executable, "-c", CLI, *args, *_no_cache(command, env, workdir), str(path)]
                    wall, cpu, rss, rc = timed(argv, env, workdir, timeout)
                    results.setdefault(key, []).append((wall, cpu, rss))
                    shown = f"{wall:7.2f} s" if wall is not None else f">{timeout:.0f} s"
                    print(
                        f"round {round_ + 1} {label:>8} {command:<15} {size:>5} KB: {shown} (CPU {cpu:7.2f} s), {rss:7.0f} MB, exit {rc}",
                        flush=True,
                    )
                    if wall is None:
                        given_up[label, command] = min(size, given_up.get((label, command), size))
    return results


def _no_cache(command: str, env: dict, cwd: Path) -> list[str]:
    """``--no-cache`` where the checkout's ``check`` has a cache: every round must do the work."""
    if command != "check":
        return []
    key = env["PYTHONPATH"]
    if key not in _HAS_CACHE:
        shown = subprocess.run(
            [sys.executable, "-c", CLI, "check", "--help"], cwd=cwd, env=env, capture_output=True, text=True
        ).stdout
        _HAS_CACHE[key] = "--no-cache" in shown
    return ["--no-cache"] if _HAS_CACHE[key] else []


_HAS_CACHE: dict = {}


# ------------------------------------------------------------------------------------------ docs


def _cell(runs: list, timeout: float) -> tuple[str, str, float | None]:
    """Median wall and CPU time as shown, and the CPU time the ratios are taken of (None past the
    time limit)."""
    if any(wall is None for wall, _, _ in runs):
        return f"> {timeout:.0f} s", "", None
    wall = statistics.median(w for w, _, _ in runs)
    cpu = statistics.median(c for _, c, _ in runs)
    return f"{wall:.2f} s", f"{cpu:.2f} s", cpu


def table(results: dict, files: dict[int, Path], trees: dict[str, Path], timeout: float) -> str:
    lines = [
        "| tree | command | size | lines | wall time | CPU time | peak memory | CPU time ratio to the size before |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label in trees:
        for command in COMMANDS:
            before = None
            for size, path in files.items():
                runs = results.get((label, command, size))
                if runs is None:
                    lines.append(
                        f"| {label} | `{command}` | {size:,} KB | | not run (a smaller size timed out) | | | |"
                    )
                    before = None
                    continue
                wall, cpu, taken = _cell(runs, timeout)
                rss = statistics.median(r for _, _, r in runs)
                ratio = ""
                if taken is not None and before is not None:
                    ratio = f"{taken / before[1]:.2f}x for {size / before[0]:.1f}x the size"
                n_lines = path.read_bytes().count(b"\n")
                lines.append(
                    f"| {label} | `{command}` | {size:,} KB | {n_lines:,} | {wall} | {cpu} | {rss:,.0f} MB | {ratio} |"
                )
                before = (size, taken) if taken is not None else None
    return "\n".join(lines)


#: The smallest size the growth exponent is fitted from (KB).
FIT_FROM_KB = 200


def growth(results: dict, files: dict[int, Path], trees: dict[str, Path], timeout: float) -> str:
    """The exponent ``k`` of ``CPU time ~ size**k`` per tree and command, fitted by least squares
    to the logarithms of every size's median, and what a doubling then costs (``2**k``).

    One ratio between two neighbouring sizes moves by 10% between runs on a shared machine; the
    fit reads every size from :data:`FIT_FROM_KB` on at once, so one slow run counts for what it
    is. (Below that, start-up and the work that does not depend on the file weigh, and would pull
    ``k`` under 1.)"""
    lines = []
    for label in trees:
        for command in COMMANDS:
            points, fitted = [], []
            for size in (s for s in files if s >= FIT_FROM_KB):
                runs = results.get((label, command, size))
                taken = _cell(runs, timeout)[2] if runs else None
                if taken:
                    points.append((math.log(size), math.log(taken)))
                    fitted.append(size)
            if len(points) < 3:
                continue
            mx = sum(x for x, _ in points) / len(points)
            my = sum(y for _, y in points) / len(points)
            k = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
            sizes = f"{min(fitted):,}–{max(fitted):,} KB"
            lines.append(
                f"- {label}, `{command}`: CPU time ~ size^{k:.3f} over {sizes} ({len(points)} sizes): "
                f"a doubling costs {2**k:.2f}x"
            )
    return "\n".join(lines)


def report(args, results: dict, files: dict[int, Path], trees: dict[str, Path]) -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"""{SECTION}

Measured {datetime.date.today().isoformat()} by `benchmarks/bench_large_files.py` on {cpus} CPU cores
({platform.machine()}, Python {platform.python_version()}; load average at the end {load}).
One generated DALI-heavy module per size; each run a process of its own (start-up included),
median of {args.rounds} alternating rounds ({args.large_rounds} for 1 MB and more), time limit
{args.timeout:.0f} s per run. Peak memory is
the process's maximum resident set size; CPU time is user + system of the process, which on a
shared machine depends much less on the other load than the wall time: the ratios are of CPU time.

{table(results, files, trees, args.timeout)}

{growth(results, files, trees, args.timeout)}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="50,100,200,500,1000,2000", help="file sizes in KB")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--large-rounds", type=int, default=1, help="rounds for files of 1 MB and more")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--tree", action="append", default=[], help="LABEL=DIR: a checkout to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="write the generated files here and keep them")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--no-docs", action="store_true")
    parser.add_argument("--generate-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_into:
        for size in (int(s) for s in args.sizes.split(",")):
            (args.generate_into / f"large_{size}kb.py").write_text(generate(size * 1000, args.seed), encoding="utf-8")
        return
    trees = dict(t.split("=", 1) for t in args.tree) if args.tree else {"this": str(ROOT)}
    trees = {label: Path(d).resolve() for label, d in trees.items()}

    workdir = Path(tempfile.mkdtemp(prefix="ndd-large-files-"))
    out = args.keep or workdir
    out.mkdir(parents=True, exist_ok=True)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        # Written by a process of its own: a child's peak memory starts from its parent's (fork),
        # and this one would have held the largest file and its compiled code.
        subprocess.run(
            [sys.executable, __file__, "--generate-into", str(out), "--sizes", args.sizes, "--seed", str(args.seed)],
            check=True,
        )
        files = {size: out / f"large_{size}kb.py" for size in sizes}
        results = run_all(files, trees, args.rounds, args.large_rounds, args.timeout, workdir)
        text = report(args, results, files, trees)
        print(text)
        if not args.no_docs:
            write_section(args.docs, text, SECTION)
            print(f"wrote {args.docs}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Lint speed: ``ndd-migrate check`` against ``ruff check --select E9`` on one synthetic repository.

A pre-commit hook must feel instant. This builds a repository of 10,000 Python files (by default)
in a temporary directory and times both linters on the same tree, several rounds alternating
between them (the median counts), then writes the result into the section
``## Lint speed (ndd-migrate check vs ruff)`` of ``docs/benchmarks.md``, before its ``###``
subsections (earlier measurements, kept; other sections belong to other benchmarks and are left as
they are: ``docs_section.py``).

The tree: module sizes are mixed like a real code base's (60 % small, 20-120 lines; 32 % medium,
120-500; 8 % large, 500-2,000), made of functions, classes, loops, comprehensions, ``try`` and
``with`` blocks. 1 % of the files use DALI: each is one of the fixtures (``fixtures/*/pipeline.py``,
pipeline mode, and ``migrated.py``, dynamic mode) with its functions renamed, its constants varied
and other code around it, so no two are alike. ruff's ``E9`` rules are syntax errors only: it
parses every file, which is the least a linter does, and what ``ndd-migrate check`` is held to.

Each round also times a warm run of each tool: its second run over the unchanged tree with its own
cache (``.ruff_cache``, ``.ndd_migrate_cache``), filled by a first run in the same round. Our runs
are of this checkout (``PYTHONPATH``), not of the ``ndd-migrate`` installed.

Besides the two wall times and their ratio it reports where our time goes: the interpreter and CLI
start-up (``check`` on a directory with one file), the byte prefilter (discover, read and test
every file, in this process), and our own work per DALI file (``process_source`` on each
DALI file alone, serially, best of three runs, after the engine is imported; the import is
reported separately).

Usage::

    python benchmarks/bench_check_speed.py [--files 10000] [--dali-share 0.01] [--rounds 5]
        [--seed 0] [--keep DIR] [--docs docs/benchmarks.md | --no-docs]

``--rounds`` defaults to 5; the machines are shared, so the medians of alternating rounds count.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from docs_section import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Lint speed (ndd-migrate check vs ruff)"
#: Runs of the engine on each DALI file; the best counts (the machines are shared and noisy).
REPEATS = 3
INTRO = "# Benchmarks\n\nMeasured figures; each section is written by the script it names.\n"

# ------------------------------------------------------------------------------ the synthetic tree

_WORDS = (
    "alpha beta gamma delta record batch item value index count total buffer result config path "
    "name label score weight offset shape frame token entry cache state queue limit target source"
).split()


def _name(rng: random.Random) -> str:
    return "_".join(rng.sample(_WORDS, 2))


def _statement(rng: random.Random, indent: str) -> list[str]:
    """One statement (a few lines) of ordinary application code."""
    a, b, c = _name(rng), _name(rng), _name(rng)
    n = rng.randint(1, 99)
    choices = (
        [f"{a} = {b} * {n} + len({c})"],
        [f"{a} = [x * {n} for x in {b} if x % 3 != 0]"],
        [f"for i, {a} in enumerate({b}):", f"    {c}[i] = {a} + {n}"],
        [f"if {a} > {n}:", f"    {b} = {a} // 2", "else:", f"    {b} = -{a}"],
        [f"{a} = {{'{b}': {n}, '{c}': [{n}, {n + 1}], 'ok': True}}"],
        ["try:", f"    {a} = int({b})", "except (TypeError, ValueError):", f"    {a} = {n}"],
        [f"with open({b}, encoding='utf-8') as stream:", f"    {a} = stream.read().splitlines()"],
        [f"# keep {a} in step with {b}: {c} depends on both", f"{a} = sorted({b}, key=lambda v: (v, {n}))"],
        [f'{a} = f"{{{b}}}-{{{c}!r}}-{n}"'],
    )
    return [indent + line for line in rng.choice(choices)]


def _function(rng: random.Random, name: str, indent: str = "", method: bool = False) -> list[str]:
    params = ", ".join(dict.fromkeys((["self"] if method else []) + [_name(rng) for _ in range(rng.randint(0, 3))]))
    lines = [f"{indent}def {name}({params}):", f'{indent}    """{" ".join(rng.sample(_WORDS, 6)).capitalize()}."""']
    for _ in range(rng.randint(2, 9)):
        lines += _statement(rng, indent + "    ")
    lines.append(f"{indent}    return {_name(rng)}")
    return lines


def _block(rng: random.Random, serial: int) -> list[str]:
    """A top-level function or class, with blank lines after it."""
    if rng.random() < 0.3:
        lines = [f"class {''.join(w.capitalize() for w in rng.sample(_WORDS, 2))}{serial}:"]
        lines.append(f'    """{" ".join(rng.sample(_WORDS, 8)).capitalize()}."""')
        lines.append("")
        for m in range(rng.randint(1, 5)):
            lines += _function(rng, f"{_name(rng)}_{m}", "    ", method=True) + [""]
        return lines + [""]
    return _function(rng, f"{_name(rng)}_{serial}") + ["", ""]


def plain_code(rng: random.Random, lines: int) -> str:
    """Ordinary Python code of about ``lines`` lines."""
    out = [f'"""{" ".join(rng.sample(_WORDS, 7)).capitalize()}."""', ""]
    out += [f"import {m}" for m in sorted(rng.sample(["os", "re", "sys", "json", "math", "itertools", "logging"], 3))]
    out += ["", ""]
    serial = 0
    while len(out) < lines:
        out += _block(rng, serial)
        serial += 1
    return "\n".join(out) + "\n"


def module_size(rng: random.Random) -> int:
    """Lines of one module: mostly small, some medium, a few large, as in real code bases."""
    bucket = rng.random()
    if bucket < 0.60:
        return rng.randint(20, 120)
    if bucket < 0.92:
        return rng.randint(120, 500)
    return rng.randint(500, 2000)


def dali_code(rng: random.Random, base: str, serial: int) -> str:
    """A fixture varied: functions renamed, small integer arguments changed, other code around it."""
    names = re.findall(r"^def (\w+)\(", base, flags=re.M)
    for name in names:
        base = re.sub(rf"\b{name}\b", f"{name}_{serial}", base)
    base = re.sub(
        r"\b(batch_size|num_threads|nfilter|max_len)=(\d+)", lambda m: f"{m[1]}={rng.choice((2, 4, 8, 16, 32))}", base
    )
    extra = plain_code(rng, rng.randint(0, 300)).split("\n", 2)[2]  # without the docstring
    head, main, tail = base.partition('if __name__ == "__main__":')
    return f"{head.rstrip()}\n\n\n{extra.strip()}\n\n\n{main}{tail}" if main else f"{base.rstrip()}\n\n\n{extra}"


def build_tree(root: Path, files: int, dali_share: float, seed: int) -> list[Path]:
    """Write the repository under ``root``; return the DALI files."""
    rng = random.Random(seed)
    fixtures = sorted(ROOT.glob("fixtures/*/pipeline.py")) + sorted(ROOT.glob("fixtures/*/migrated.py"))
    bases = [p.read_text(encoding="utf-8") for p in fixtures]
    dali_count = max(1, round(files * dali_share))
    dali_at = set(rng.sample(range(files), dali_count))
    dali_files = []
    for i in range(files):
        package = root / f"pkg{i % 40:02d}" / f"sub{i % 7}"
        package.mkdir(parents=True, exist_ok=True)
        path = package / f"module_{i:05d}.py"
        if i in dali_at:
            path.write_text(dali_code(rng, bases[len(dali_files) % len(bases)], i), encoding="utf-8")
            dali_files.append(path)
        else:
            path.write_text(plain_code(rng, module_size(rng)), encoding="utf-8")
    for path in dali_files:  # the variations must stay valid Python, or E9 would report them
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    return dali_files


# ---------------------------------------------------------------------------------------- timing


def _tool(name: str) -> list[str]:
    """The tool's own executable next to this interpreter (not a pyenv shim, which adds ~0.1 s)."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return [str(beside)]
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} is not installed")
    return [found]


#: ndd-migrate of this checkout (not whatever the console script on the PATH imports).
OURS = [sys.executable, "-c", "from ndd_migrate.cli import main; main()"]


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU counts the command's worker processes too. On a shared
    machine the wall time depends on the other load, the CPU time much less."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def check_tree_is_valid(ruff_cmd: list[str], tree: Path) -> None:
    """ruff's E9 finds no syntax error in the tree, or the comparison would be of broken files."""
    done = subprocess.run(ruff_cmd, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the generated tree has syntax errors:\n{done.stdout[-2000:]}")


def own_work(tree: Path, dali_files: list[Path]) -> dict:
    """In-process figures: prefilter over the tree, engine import, engine time per DALI file."""
    sys.path.insert(0, str(ROOT))  # this checkout's ndd_migrate, as the timed runs use
    from ndd_migrate.io import discovery, files
    from ndd_migrate.io.diagnostics import FileResult
    from ndd_migrate.io.policy import Policy
    from ndd_migrate.model import crossfile, importers

    start = time.perf_counter()
    found = discovery.discover([tree])
    read = {str(p): Path(p).read_bytes() for p in found}  # the run keeps the bytes for the cross-file pass
    kept = [p for p in found if files.mentions_dali(read[str(p)])]
    prefilter = time.perf_counter() - start
    # The runner's look at every file's imports of the project's own modules (crossfile.py).
    start = time.perf_counter()
    project = crossfile.ProjectImports([str(p) for p in found], [tree], read=read.get)
    for path in found:
        project.scan(str(path), read[str(path)])
    project_imports = time.perf_counter() - start
    start = time.perf_counter()
    from ndd_migrate.app import pool
    from ndd_migrate.engine.dispatch import rule_impls
    from ndd_migrate.engine.source_file import process_source

    rule_impls()
    engine_import = time.perf_counter() - start
    policy = Policy.check()
    per_file, by_path = [], {}
    for path in dali_files:
        raw = path.read_bytes()
        best = float("inf")
        for _ in range(REPEATS):
            start = time.process_time()
            by_path[str(path)] = process_source(str(path), raw, policy)
            best = min(best, time.process_time() - start)
        per_file.append(best)
    # The runner's second pass: files that may import a pipeline another file defines.
    results = [by_path.get(str(p)) or FileResult(path=str(p), skipped=True) for p in found]
    start = time.perf_counter()
    importers.follow_imports(
        results, policy, lambda sources, known, done=None: pool.process_sources(sources, known, 1), read=read.get
    )
    cross = time.perf_counter() - start
    return {
        "files": len(found),
        "kept": len(kept),
        "prefilter": prefilter,
        "project_imports": project_imports,
        "engine_import": engine_import,
        "per_file": per_file,
        "crossfile": cross,
    }


# ------------------------------------------------------------------------------------------ docs


def report(args, tree_stats: dict, ours: list, ruff: list, startup: list, work: dict, warm: dict) -> str:
    def ms(seconds):
        return f"{seconds * 1000:,.0f} ms"

    def median(runs, i):
        return statistics.median(run[i] for run in runs)

    ours_wall, ruff_wall = median(ours, 0), median(ruff, 0)
    ours_cpu, ruff_cpu = median(ours, 1), median(ruff, 1)
    per = sorted(work["per_file"])
    p90 = per[min(len(per) - 1, int(len(per) * 0.9))]
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ruff_version = subprocess.run(_tool("ruff") + ["--version"], capture_output=True, text=True).stdout.strip()
    verdict = "met" if ours_wall <= 2.5 * ruff_wall else "missed"
    budget = "met" if statistics.median(per) <= 0.050 else "missed"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"""{SECTION}

Measured {datetime.date.today().isoformat()} by `benchmarks/bench_check_speed.py` on {cpus} CPU cores
({platform.machine()}, Python {platform.python_version()}, {ruff_version}; load average at the end {load}).
Tree: {tree_stats["files"]:,} Python files, {tree_stats["lines"]:,} lines, {tree_stats["mb"]:.0f} MB;
{tree_stats["dali"]} files use DALI (varied copies of the fixtures, pipeline mode and dynamic mode,
with other code around them: {tree_stats["dali_lines"]:,} lines in all).
Median of {args.rounds} alternating rounds, page cache warm, output discarded. CPU time is user +
system of the command and its worker processes.

| command | wall time | CPU time |
|---|---|---|
| `ruff check --select E9 --no-cache` | {ms(ruff_wall)} | {ms(ruff_cpu)} |
| `ndd-migrate check --no-cache` | {ms(ours_wall)} | {ms(ours_cpu)} |
| ratio (ours / ruff) | **{ours_wall / ruff_wall:.2f}x** (target 2.5x: {verdict}) | {ours_cpu / ruff_cpu:.2f}x |

Warm: each tool's second run over the unchanged tree with its own cache (`.ruff_cache`,
`.ndd_migrate_cache`), the cache filled by a first run in the same round.

| command | wall time | CPU time |
|---|---|---|
| `ruff check --select E9` (cache warm) | {ms(median(warm["ruff"], 0))} | {ms(median(warm["ruff"], 1))} |
| `ndd-migrate check` (cache warm) | {ms(median(warm["ours"], 0))} | {ms(median(warm["ours"], 1))} |
| ratio (ours / ruff) | **{median(warm["ours"], 0) / median(warm["ruff"], 0):.2f}x** (target 1.0x) | {median(warm["ours"], 1) / median(warm["ruff"], 1):.2f}x |

Where our time goes:

| part | time |
|---|---|
| interpreter + CLI start-up (`check` on a one-file directory), wall / CPU | {ms(median(startup, 0))} / {ms(median(startup, 1))} |
| discover + read + byte prefilter of all {work["files"]:,} files (in process, wall) | {ms(work["prefilter"])} |
| imports of the project's own modules, found in every file's bytes and resolved on disk (in process, wall) | {ms(work["project_imports"])} |
| importing the engine, libcst and the rules (once per process, wall) | {ms(work["engine_import"])} |
| engine per DALI file, CPU (best of {REPEATS} runs): median / p90 / max | {ms(statistics.median(per))} / {ms(p90)} / {ms(per[-1])} (target 50 ms: {budget}) |
| engine on all {len(per)} DALI files, CPU (split over the worker processes in a run) | {ms(sum(per))} |
| cross-file pass (searches the bytes of every file for imports of pipelines other files define), wall | {ms(work["crossfile"])} |

Files without DALI cost only their bytes: nothing is parsed before the byte prefilter, and libcst,
the rules and the catalogue are not even imported unless some file mentions DALI. A file that does
is first parsed with the stdlib `ast` (C, a few milliseconds), which finds its DALI region: the
top-level statements that import or use DALI, closed over the names that connect them
(`ndd_migrate/syntax/region.py`). libcst, pure Python, parses and analyses only that region: its scopes
without the whole-tree passes libcst's wrapper adds, every visitor skipping whitespace and
punctuation, positions computed only when a finding needs one. What is left grows with the DALI
code itself: a parse, scope analysis, the analysis pre-pass and one rule traversal.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--dali-share", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="build the tree here and keep it")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="ndd-check-speed-"))
    tree = args.keep or workdir / "repo"
    tree.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        dali_files = build_tree(tree, args.files, args.dali_share, args.seed)
        all_files = list(tree.rglob("*.py"))
        sizes = [p.stat().st_size for p in all_files]
        tree_stats = {
            "files": len(all_files),
            "dali": len(dali_files),
            "mb": sum(sizes) / 1e6,
            "lines": sum(p.read_bytes().count(b"\n") for p in all_files),
            "dali_lines": sum(p.read_bytes().count(b"\n") for p in dali_files),
        }
        print(
            f"built {tree_stats['files']} files ({tree_stats['dali']} with DALI) in {time.perf_counter() - start:.1f} s"
        )
        lone = workdir / "lone"
        lone.mkdir()
        (lone / "m.py").write_text("x = 1\n")

        ours_cmd = OURS + ["check", "--no-cache", "."]  # as ruff: every file checked
        ruff_cmd = _tool("ruff") + ["check", "--select", "E9", "--no-cache", "."]
        check_tree_is_valid(ruff_cmd, tree)  # also warms the page cache
        ours, ruff, startup = [], [], []
        warm: dict[str, list] = {"ours": [], "ruff": []}
        for round_ in range(args.rounds):
            ruff.append(timed(ruff_cmd, tree))
            ours.append(timed(ours_cmd, tree))
            startup.append(timed(ours_cmd, lone))
            for name, cached, cache in (
                ("ruff", _tool("ruff") + ["check", "--select", "E9", "."], ".ruff_cache"),
                ("ours", OURS + ["check", "."], ".ndd_migrate_cache"),
            ):
                shutil.rmtree(tree / cache, ignore_errors=True)
                timed(cached, tree)  # fills the cache
                warm[name].append(timed(cached, tree))
            print(
                f"round {round_ + 1}: ruff {ruff[-1][0]:.3f} s (CPU {ruff[-1][1]:.3f} s), "
                f"ndd-migrate {ours[-1][0]:.3f} s (CPU {ours[-1][1]:.3f} s); warm: ruff {warm['ruff'][-1][0]:.3f} s, "
                f"ndd-migrate {warm['ours'][-1][0]:.3f} s"
            )
        work = own_work(tree, dali_files)
        text = report(args, tree_stats, ours, ruff, startup, work, warm)
        print(text)
        if not args.no_docs:
            write_section(args.docs, text, SECTION, INTRO)
            print(f"wrote {args.docs}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

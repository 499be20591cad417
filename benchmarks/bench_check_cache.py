"""The results cache of ``check``: a first run over a repository (cache empty) against a second
one over the same, unchanged tree (every result read from ``.ndd_migrate_cache``).

The tree is :mod:`bench_check_speed`'s synthetic repository (mixed module sizes, 1 % of the files
using DALI, each a varied fixture). Each round starts with no cache, runs ``check`` twice and
checks that both print the same report; the medians count. Also timed: ``check --no-cache``, and
``check`` on a directory with one file (the interpreter and CLI start-up, which no cache saves).
The result goes into the section ``## Check results cache (first vs second run)`` of
``docs/benchmarks.md``, before its ``###`` subsections, which are kept (``docs_section.py``).

Usage::

    python benchmarks/bench_check_cache.py [--files 2000] [--dali-share 0.01] [--rounds 3]
        [--seed 0] [--docs docs/benchmarks.md | --no-docs]

It runs the ndd-migrate of this checkout (``PYTHONPATH``), whatever is installed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_check_speed import INTRO, ROOT, build_tree  # noqa: E402
from docs_section import write_section  # noqa: E402

SECTION = "## Check results cache (first vs second run)"
CLI = [sys.executable, "-c", "from ndd_migrate.cli import main; main()"]


def timed(args: list[str], cwd: Path) -> tuple[float, bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, env=env)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2_000)
    parser.add_argument("--dali-share", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "benchmarks.md")
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="ndd-check-cache-"))
    tree = workdir / "repo"
    tree.mkdir()
    lone = workdir / "lone"
    lone.mkdir()
    (lone / "m.py").write_text("x = 1\n")
    try:
        dali = build_tree(tree, args.files, args.dali_share, args.seed)
        first, second, uncached, startup, other = [], [], [], [], []
        for round_ in range(args.rounds):
            shutil.rmtree(tree / ".ndd_migrate_cache", ignore_errors=True)
            cold, report = timed(["check", "."], tree)
            warm, again = timed(["check", "."], tree)
            if again != report:
                sys.exit("the second run printed another report than the first")
            first.append(cold)
            second.append(warm)
            # Another selection after the first run: read from the entries of every rule.
            selected, narrowed = timed(["check", "--select", "NDD1", "."], tree)
            if narrowed != timed(["check", "--no-cache", "--select", "NDD1", "."], tree)[1]:
                sys.exit("--select NDD1 from the cache printed another report than without it")
            other.append(selected)
            uncached.append(timed(["check", "--no-cache", "."], tree)[0])
            startup.append(timed(["check", "--no-cache", "."], lone)[0])
            print(
                f"round {round_ + 1}: first {cold:.2f} s, second {warm:.2f} s, --select NDD1 {selected:.2f} s, "
                f"--no-cache {uncached[-1]:.2f} s"
            )
        med = statistics.median
        ms = lambda seconds: f"{seconds * 1000:,.0f} ms"  # noqa: E731
        text = (
            f"{SECTION}\n\n"
            f"Written by `benchmarks/bench_check_cache.py` on {datetime.date.today().isoformat()} "
            f"({platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, shared).\n"
            f"The synthetic repository of the lint-speed benchmark: {args.files:,} files, {len(dali)} with DALI. "
            f"Median of {args.rounds} rounds, each starting with no cache; both runs print the same report.\n\n"
            "| run | wall time |\n| --- | --- |\n"
            f"| `check .`, first run (cache empty, results stored) | {ms(med(first))} |\n"
            f"| `check .`, second run (every result from the cache) | {ms(med(second))} |\n"
            f"| `check --select NDD1 .` after the first run (another selection) | {ms(med(other))} |\n"
            f"| `check --no-cache .` | {ms(med(uncached))} |\n"
            f"| `check` on a directory with one file (start-up) | {ms(med(startup))} |\n\n"
            f"The second run costs {med(second) / med(first):.1%} of the first: it reads and hashes every "
            "file and starts the interpreter, but imports neither libcst nor the rules. Another selection "
            f"costs {med(other) / med(first):.1%} of the first run: an entry holds every rule's findings, and "
            "a file is checked again only where whether a finding is fixable depends on the rules it "
            "changes.\n"
        )
        print(text)
        if not args.no_docs:
            write_section(args.docs, text, SECTION, INTRO)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

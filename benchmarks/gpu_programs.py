"""Whole programs whose GPU path only a GPU machine runs, migrated and run before and after there.

Some of our programs (``tests/programs/*.py`` with a ``# gpu: VARIABLE`` line) take a GPU path when
the environment variable is ``1`` — the arithmetic of CPU random numbers with GPU images that NDD111
moves, say. The test suite runs them on the CPU only; this runs each on the GPU: the program is
copied into a temporary folder, migrated there by ``ndd-migrate migrate`` (which writes the support
module beside it), and the original and the migrated program are run with the variable set, on the
datasets of ``fixtures/datasets.py``. They must both exit 0 and print the same.

    python benchmarks/gpu_programs.py [--out FILE] [--cpu]

``--cpu`` runs them without the variable (their CPU path): how the tests check this script itself.
Run by ``benchmarks/gpu_checks.sh``. Exit 0 all the same, 1 a difference or a failed run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "programs"


def gpu_programs() -> list[tuple[Path, str, str]]:
    """``(program, its variable, its dataset kind)`` for each program with a ``# gpu:`` line."""
    found = []
    for path in sorted(PROGRAMS.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        gpu = re.search(r"^# gpu: (\w+)$", text, re.MULTILINE)
        data = re.search(r"^# data: (\w+)$", text, re.MULTILINE)
        if gpu and data:
            found.append((path, gpu.group(1), data.group(1)))
    return found


def _run(script: Path, data: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, script.name, str(data)],
        cwd=script.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def check(program: Path, variable: str, data: Path, folder: Path, on_gpu: bool) -> str | None:
    """None when the original and the migrated program print the same; else what differs."""
    original = folder / "original" / program.name
    migrated = folder / "migrated" / program.name
    for copy in (original, migrated):
        copy.parent.mkdir(parents=True)
        shutil.copyfile(program, copy)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "ndd_migrate.cli", "migrate", str(migrated)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        return f"migrate exited {done.returncode}: {done.stderr.strip()[-500:]}"
    env = {**os.environ, variable: "1" if on_gpu else "0"}
    before, after = _run(original, data, env), _run(migrated, data, env)
    for side, ran in (("original", before), ("migrated", after)):
        if ran.returncode != 0:
            return f"the {side} program exited {ran.returncode}: {ran.stderr.strip()[-800:]}"
    if before.stdout != after.stdout:
        return f"printed differently:\n--- original\n{before.stdout}--- migrated\n{after.stdout}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the report here too")
    parser.add_argument("--cpu", action="store_true", help="the programs' CPU path (a check of this script)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from fixtures import datasets

    lines, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="ndd-gpu-programs-") as scratch:
        made = datasets.make_all(Path(scratch) / "data")
        for program, variable, kind in gpu_programs():
            folder = Path(scratch) / program.stem
            problem = check(program, variable, made[kind], folder, on_gpu=not args.cpu)
            failed += problem is not None
            where = "CPU" if args.cpu else "GPU"
            lines.append(f"{program.name} ({where}): {'the same' if problem is None else problem}")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    return 1 if failed or not lines else 0


if __name__ == "__main__":
    sys.exit(main())

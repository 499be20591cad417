"""What a reviewer would send back in `migrate`'s output, on a copy of a tree of real code.

Migrates a copy of the tree (default: ../shared/corpus-dev) in one run, as a user would, then runs
ruff over the input and the output and lists what the output has that the input had not: unused or
duplicate imports (F401, F811), unused locals (F841), undefined names (F821), trailing whitespace
(W291); and the lines the migration created (not in the input) that are longer than 88 columns or
than the file's own longest line, whichever is more. Messages are compared with their line numbers
blanked (the migration moves lines). Exit 1 when anything is found.

    python benchmarks/output_lint.py
    python benchmarks/output_lint.py --tree my_repo
    python benchmarks/output_lint.py --migrated /tmp/migrated   # a copy migrated already (silent_breakage --keep)
"""

from __future__ import annotations

import argparse
import collections
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TREE = ROOT.parent / "shared" / "corpus-dev"
CODES = "F401,F811,F841,F821,W291"
LINE_LENGTH = 88


def findings(tree: Path) -> dict[str, collections.Counter]:
    done = subprocess.run(
        ["ruff", "check", "--isolated", "--select", CODES, "--output-format", "json", "--exit-zero", str(tree)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in json.loads(done.stdout):
        rel = str(Path(finding["filename"]).relative_to(tree))
        found[rel][(finding["code"], re.sub(r"\d+", "N", finding["message"]))] += 1
    return found


def long_created_lines(original: Path, migrated: Path) -> list[tuple[str, int, str]]:
    """``(file, length, line)`` of each line the migration created past the limit."""
    out = []
    for path in sorted(migrated.rglob("*.py")):
        rel = path.relative_to(migrated)
        source = original / rel
        if not source.exists():
            continue  # a support module migrate wrote
        before = source.read_text(encoding="utf-8", errors="replace").splitlines()
        after = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if before == after:
            continue
        limit = max(LINE_LENGTH, max((len(line) for line in before), default=0))
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, _, _, start, end in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                out.extend((str(rel), len(line), line.strip()) for line in after[start:end] if len(line) > limit)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=DEFAULT_TREE, help="the tree to migrate a copy of")
    parser.add_argument("--migrated", type=Path, help="a migrated copy of --tree to read instead of migrating")
    args = parser.parse_args(argv)
    args.tree = args.tree.resolve()  # ruff names files by absolute path
    args.migrated = args.migrated.resolve() if args.migrated else None
    with tempfile.TemporaryDirectory() as tmp:
        migrated = args.migrated
        if migrated is None:
            migrated = Path(tmp) / "migrated"
            shutil.copytree(args.tree, migrated, ignore=shutil.ignore_patterns(".git"))
            subprocess.run(
                [sys.executable, "-m", "ndd_migrate.cli", "migrate", "--quiet", str(migrated)],
                capture_output=True,
                check=False,
            )
        before, after = findings(args.tree), findings(migrated)
        added = collections.Counter()
        for rel, counts in sorted(after.items()):
            for (code, message), count in counts.items():
                more = count - before.get(rel, collections.Counter())[(code, message)]
                if more > 0:
                    added[code] += more
                    print(f"{rel}: {code} {message} (+{more})")
        long = long_created_lines(args.tree, migrated)
        for rel, length, line in long:
            print(f"{rel}: E501 created line of {length} columns: {line[:100]}")
    summary = ", ".join(f"{n} {code}" for code, n in sorted(added.items()))
    print(f"\n{summary or 'no new ruff finding'}; {len(long)} long created lines")
    return 1 if added or long else 0


if __name__ == "__main__":
    sys.exit(main())

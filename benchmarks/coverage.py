"""How many pipelines ``migrate`` converts, keeps on purpose, or leaves with a TODO, on a tree of files.

Run on demand (not in the test suite), on a copy it makes itself, so the files given are never
written::

    python benchmarks/coverage.py ../shared/corpus-dev fixtures

and paste the printed Markdown into docs/coverage.md. A pipeline is a ``@pipeline_def`` function, a
``Pipeline`` subclass or a hand-built ``pipe = Pipeline(...)`` graph; it is counted from the
findings ``migrate`` gives: converted (NDD001 / NDD401 / NDD403 fixed), kept in pipeline mode on
purpose (NDD902-NDD904), or not migrated, by the code of its first blocking finding.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ndd_migrate import runner  # noqa: E402
from ndd_migrate.files import discover  # noqa: E402
from ndd_migrate.policy import Policy  # noqa: E402

CONVERTED = re.compile(r"^(`@pipeline_def` function|`Pipeline` subclass) `([^`]+)` → dynamic-mode generator|→ generator function `([^`]+)`")
BLOCKED = re.compile(r"^`([^`]+)` (not migrated|kept in pipeline mode): (.*)$")


def measure(root: Path) -> dict:
    """Counts for the ``.py`` and ``.ipynb`` files under ``root`` (migrated in a temporary copy)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / root.name
        shutil.copytree(root, copy)
        paths = [str(p) for p in discover([str(copy)])]
        summary = runner.run(paths, Policy.migrate())
    converted: set[tuple[str, str]] = set()
    kept: dict[tuple[str, str], str] = {}
    blocked: dict[tuple[str, str], tuple[str, str]] = {}
    failed = 0
    for result in summary.results:
        if result.error:
            failed += 1
            continue
        for d in sorted(result.diagnostics, key=lambda d: d.line):
            found = CONVERTED.search(d.message)
            if found and d.fixed:
                converted.add((result.path, found.group(2) or found.group(3)))
                continue
            found = BLOCKED.match(d.message)
            if found:
                key = (result.path, found.group(1))
                if found.group(2) == "kept in pipeline mode":
                    kept.setdefault(key, d.code)
                else:
                    blocked.setdefault(key, (d.code, found.group(3)))
    return {
        "files": len(summary.results),
        "failed": failed,
        "converted": len(converted),
        "kept": collections.Counter(kept.values()),
        "blocked": collections.Counter(code for code, _ in blocked.values()),
        "reasons": collections.Counter(f"{code}: {_short(why)}" for code, why in blocked.values()),
    }


def _short(why: str) -> str:
    why = re.sub(r"^at [^,]*, ", "", why.split(";")[0])  # NDD008 names the use's place first
    return re.sub(r"`[^`]*`", "`…`", why)[:90]


def markdown(name: str, found: dict) -> str:
    migratable = found["converted"] + sum(found["blocked"].values())
    share = f"{100 * found['converted'] / migratable:.0f}%" if migratable else "n/a"
    lines = [
        f"### {name}",
        "",
        "| files | pipelines | converted | kept in pipeline mode on purpose | left with a TODO | converted of migratable |",
        "|---|---|---|---|---|---|",
        f"| {found['files']} | {migratable + sum(found['kept'].values())} | {found['converted']} | "
        f"{sum(found['kept'].values())} | {sum(found['blocked'].values())} | {share} |",
        "",
    ]
    if found["kept"]:
        lines.append("Kept on purpose: " + ", ".join(f"{c} ×{n}" for c, n in sorted(found["kept"].items())) + ".")
        lines.append("")
    if found["reasons"]:
        lines += ["| blocked by | pipelines |", "|---|---|"]
        lines += [f"| {reason} | {n} |" for reason, n in found["reasons"].most_common()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for root in args.roots:
        print(markdown(str(root), measure(root)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

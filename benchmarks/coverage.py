"""How many pipelines ``migrate`` converts, keeps on purpose, or leaves with a TODO, on a tree of files.

Run on demand (not in the test suite), on a copy it makes itself, so the files given are never
written::

    python benchmarks/coverage.py ../shared/corpus-dev fixtures

and paste the printed Markdown into docs/coverage.md. A pipeline is a ``@pipeline_def`` function, a
``Pipeline`` subclass or a hand-built ``pipe = Pipeline(...)`` graph; it is counted from the
findings ``migrate`` gives: converted (NDD001 / NDD401 / NDD403 fixed), kept in pipeline mode on
purpose (NDD411, NDD902-NDD905), or not migrated, by the code of its first blocking finding. Pipelines
are found by their definitions (a name defined twice in a file counts twice: a finding about a name
belongs to the definition it is in, else to the one of the innermost function around it, see
:func:`owner`); hand-built graphs count only when converted.
"""

from __future__ import annotations

import argparse
import ast
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
    """Counts for the ``.py`` files under ``root`` (migrated in a temporary copy)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / root.name
        shutil.copytree(root, copy)
        paths = [str(p) for p in discover([str(copy)]) if p.suffix == ".py"]
        sources = {path: Path(path).read_text(encoding="utf-8", errors="replace") for path in paths}
        summary = runner.run(paths, Policy.migrate())
    total = converted = failed = 0
    kept: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    listing: list[str] = []  # one line per pipeline, for --list
    for result in summary.results:
        if result.error:
            failed += 1
            continue
        defined = pipelines(sources[result.path])  # (line, name) of each pipeline the file defines
        total += len(defined)
        done = {d.line for d in result.diagnostics if d.fixed and CONVERTED.search(d.message)}
        first: dict[int, tuple[str, str, bool]] = {}  # definition line → the first finding that keeps it
        for d in sorted(result.diagnostics, key=lambda d: d.line):
            found = BLOCKED.match(d.message)
            at = found and owner(defined, found.group(1), d.line)
            if at:
                why = found.group(3).replace(str(copy.parent) + "/", "")  # the copy's place, not the tree's
                first.setdefault(at, (d.code, why, found.group(2) != "not migrated"))
        for line, name, *_ in defined:
            where = f"{Path(result.path).relative_to(copy.parent)}:{line} {name}"
            if line in done:
                converted += 1
                listing.append(f"converted  {where}")
            elif line in first and first[line][2]:
                kept[first[line][0]] += 1
                listing.append(f"kept       {where}: {first[line][0]}")
            else:
                code, why, _ = first.get(line, ("?", "no finding names it", False))
                reasons[f"{code}: {_short(why)}"] += 1
                listing.append(f"TODO       {where}: {code} {why[:160]}")
    converted += sum(1 for r in summary.results for d in r.diagnostics if d.fixed and "→ generator function" in d.message)
    return {"files": len(summary.results), "failed": failed, "total": total, "converted": converted,
            "kept": kept, "reasons": reasons, "listing": listing}


def pipelines(source: str) -> list[tuple[int, str, tuple[int, int], tuple[int, int]]]:
    """``(line, name, its lines, the lines of the function it is defined in)`` of the
    ``@pipeline_def`` functions and ``Pipeline`` subclasses of a file (the module's lines for a
    top-level one; hand-built graphs are counted from the findings when converted)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []

    def walk(node: ast.AST, scope: tuple[int, int]) -> None:
        for child in ast.iter_child_nodes(node):
            span = (getattr(child, "lineno", 0), getattr(child, "end_lineno", 0) or 0)
            if isinstance(child, ast.FunctionDef) and any(_last(d) == "pipeline_def" for d in child.decorator_list):
                found.append((child.lineno, child.name, span, scope))
            elif isinstance(child, ast.ClassDef) and any(_last(b) == "Pipeline" for b in child.bases):
                found.append((child.lineno, child.name, span, scope))
            walk(child, span if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else scope)

    walk(tree, (1, len(source.splitlines()) or 1))
    return found


def owner(defined: list, name: str, line: int) -> int | None:
    """The definition line of the pipeline called ``name`` that a finding at ``line`` is about.

    Test files define a same-named class in several functions (``class P(Pipeline)`` in each test);
    each is its own pipeline, with its own findings: the one the finding is in, else the one of
    the innermost function around the finding (its uses are there), else the last one before it."""
    named = [d for d in defined if d[1] == name]
    inside = [d for d in named if d[2][0] <= line <= d[2][1]]
    if not inside:
        around = [d for d in named if d[3][0] <= line <= d[3][1]]
        inner = min((d[3][1] - d[3][0] for d in around), default=None)
        inside = [d for d in around if d[3][1] - d[3][0] == inner]
    if not inside:
        return None
    before = [d for d in inside if d[0] <= line]
    return (before[-1] if before else inside[0])[0]


def _last(expr: ast.expr) -> str:
    if isinstance(expr, ast.Call):
        expr = expr.func
    return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")


def _short(why: str) -> str:
    why = re.sub(r"^at [^,(]*(?: \(and [^)]*\))?, ", "", why.split(";")[0])  # NDD008 names the use's place first
    return re.sub(r"`[^`]*`", "`…`", why)[:90]


def markdown(name: str, found: dict) -> str:
    blocked = sum(found["reasons"].values())
    migratable = found["converted"] + blocked
    share = f"{100 * found['converted'] / migratable:.0f}%" if migratable else "n/a"
    lines = [
        f"### {name}",
        "",
        "| files | pipelines | converted | kept in pipeline mode on purpose | left with a TODO | converted of migratable |",
        "|---|---|---|---|---|---|",
        f"| {found['files']} | {migratable + sum(found['kept'].values())} | {found['converted']} | "
        f"{sum(found['kept'].values())} | {blocked} | {share} |",
        "",
    ]
    if found["kept"]:
        lines.append("Kept on purpose: " + ", ".join(f"{c} ×{n}" for c, n in sorted(found["kept"].items())) + ".")
        lines.append("")
    if found["reasons"]:
        lines += ["| left with a TODO, by first finding | pipelines |", "|---|---|"]
        lines += [f"| {reason} | {n} |" for reason, n in found["reasons"].most_common()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--list", action="store_true", help="also print one line per pipeline")
    args = parser.parse_args(argv)
    for root in args.roots:
        found = measure(root)
        print(markdown(str(root), found))
        if args.list:
            print("\n".join(sorted(found["listing"])) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

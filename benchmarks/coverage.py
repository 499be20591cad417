"""How many pipelines ``migrate`` converts, keeps on purpose, or leaves with a TODO, on a tree of files.

Run on demand (not in the test suite), on a copy it makes itself, so the files given are never
written::

    python benchmarks/coverage.py ../shared/corpus-dev fixtures

and paste the printed Markdown into docs/coverage.md. A tree with a ``SOURCES.tsv`` (the dev corpus)
is measured as its repositories were laid out (``--layout repositories``, the default; see
``corpus_layout.py``): one run per repository, so a file's imports of its siblings resolve as they do
for a user. ``--layout flat`` takes the tree as it is. A pipeline is a ``@pipeline_def`` function, a
``Pipeline`` subclass or a hand-built ``pipe = Pipeline(...)`` graph; it is counted from the
findings ``migrate`` gives: converted (NDD001 / NDD401 / NDD403 fixed), kept in pipeline mode on
purpose (NDD411, NDD902-NDD905), or not migrated, by the code of its first blocking finding. Pipelines are
found by their definitions (a name defined twice in a file counts twice); a hand-built graph by the
finding that converts it or keeps it (one per graph: one TODO per construct).

A ``Pipeline`` base class with subclasses in its file: each subclass is a pipeline (it is what the
program instantiates), and the base is one only when the file uses it otherwise than as a base
(``--count concrete``, the default). A subclass without a finding of its own has the base's finding
about it (``its subclass `Name`: ...``), or else the base's first. ``--count direct`` counts as before: only the classes that name
``Pipeline`` as their base.
"""

from __future__ import annotations

import argparse
import ast
import collections
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus_layout import rebuild, repository_paths  # noqa: E402
from ndd_migrate.app import runner  # noqa: E402
from ndd_migrate.io.discovery import discover  # noqa: E402
from ndd_migrate.io.policy import Policy  # noqa: E402

CONVERTED = re.compile(
    r"^(`@pipeline_def` function|`Pipeline` subclass) `([^`]+)` → dynamic-mode generator|→ generator function `([^`]+)`"
)
BLOCKED = re.compile(r"^`([^`]+)` (not migrated|kept in pipeline mode): (.*)$")


def measure(root: Path, count: str = "concrete", layout: str = "repositories") -> dict:
    """Counts for the ``.py`` files under ``root`` (migrated in a temporary copy: by default with
    each file at its path in its repository when the tree has a ``SOURCES.tsv``, else as it is)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / root.name
        if layout == "repositories" and repository_paths(root):
            projects, original = rebuild(root, copy)
            runs = [(paths, [str(project)]) for project, paths in projects.items()]
        else:
            shutil.copytree(root, copy)
            paths = [str(p) for p in discover([str(copy)]) if str(p).endswith(".py")]
            runs, original = [(paths, [])], {path: str(Path(path).relative_to(copy)) for path in paths}
        sources = {path: Path(path).read_text(encoding="utf-8", errors="replace") for path in original}
        results = [r for paths, roots in runs for r in runner.run(paths, Policy.migrate(), roots=roots).results]
    failed = 0
    records: list[Record] = []  # one per pipeline
    for result in results:
        if result.error:
            failed += 1
            continue
        # (line, name) of each pipeline the file defines; a subclass → its base (for its finding)
        defined, base_of = pipelines(sources[result.path], count)
        rel = original[result.path]
        done = {d.line for d in result.diagnostics if d.fixed and CONVERTED.search(d.message)}
        where_copy = str(copy.parent) + "/"  # findings name the copy's places, not the tree's
        blocking = [
            (d.line, found.group(1), (d.code, found.group(3).replace(where_copy, ""), found.group(2) != "not migrated"))
            for d in sorted(result.diagnostics, key=lambda d: d.line)
            if (found := BLOCKED.match(d.message))
        ]
        # A hand-built graph (`pipe = Pipeline(...)` with `with pipe:`) is found by the finding that
        # keeps it (its name is the assignment); a converted one is counted below.
        # Several findings of one code for one name are one graph (a helper it runs, blocked at two lines).
        first_of: dict = {}
        for d in sorted(result.diagnostics, key=lambda d: d.line):
            if (found := BLOCKED.match(d.message)) and found.group(1).endswith("Pipeline(...)"):
                first_of.setdefault((found.group(1), d.code), (d.line, found.group(1)))
        hand_built = sorted(first_of.values())
        for line, name in hand_built:
            code, why, keeps = next(
                (d.code, m.group(3), m.group(2) != "not migrated")
                for d in result.diagnostics
                if d.line == line and (m := BLOCKED.match(d.message)) and m.group(1) == name
            )
            where = f"{root.name}/{rel}:{line} {name}"
            if keeps:
                records.append(Record(rel, "kept", code, f"kept       {where}: {code}"))
            else:
                records.append(Record(rel, "todo", f"{code}: {_short(why)}", f"TODO       {where}: {code} {why[:160]}"))
        for line, name in defined:
            where = f"{root.name}/{rel}:{line} {name}"
            # The first finding that keeps it. A name defined twice (local classes of several test
            # functions) owns the findings from its definition up to the next one of that name.
            after = min((other for other, n in defined if n == name and other > line), default=None)
            named = [f for at, n, f in blocking if n == name]
            first = next(
                (f for at, n, f in blocking if n == name and line <= at and (after is None or at < after)),
                named[0] if named else None,
            )
            if first is None and name in base_of:  # a subclass: the base's finding about it, else the base's
                about = [f for at, n, f in blocking if n == base_of[name]]
                first = next(
                    (f for f in about if f[1].startswith(f"its subclass `{name}`:")), about[0] if about else None
                )
            if line in done:
                records.append(Record(rel, "converted", "", f"converted  {where}"))
            elif first is not None and first[2]:
                records.append(Record(rel, "kept", first[0], f"kept       {where}: {first[0]}"))
            else:
                code, why, _ = first or ("?", "no finding names it", False)
                records.append(Record(rel, "todo", f"{code}: {_short(why)}", f"TODO       {where}: {code} {why[:160]}"))
        for d in result.diagnostics:
            if d.fixed and "→ generator function" in d.message:  # a hand-built graph, converted
                records.append(Record(rel, "converted", "", f"converted  {root.name}/{rel}:{d.line}"))
    return summarize(records, _repositories(root), files=len(results), failed=failed)


@dataclass(frozen=True)
class Record:
    """One pipeline: its file (relative to the tree), what became of it (converted, kept, todo),
    the code kept by or the blocking finding in short, and its line for ``--list``."""

    file: str
    status: str
    why: str
    line: str


def summarize(records: list[Record], repositories: dict[str, str], files: int, failed: int = 0) -> dict:
    """The counts of ``records``; each blocking finding with its pipelines, files and repositories
    (``repositories``: file → repository, else the file's own name stands for one)."""
    reasons: dict[str, list[Record]] = collections.defaultdict(list)
    for record in records:
        if record.status == "todo":
            reasons[record.why].append(record)
    ranked = sorted(reasons.items(), key=lambda item: (-len(item[1]), item[0]))
    return {
        "files": files,
        "failed": failed,
        "total": len(records),
        "converted": sum(r.status == "converted" for r in records),
        "kept": collections.Counter(r.why for r in records if r.status == "kept"),
        "reasons": [
            (why, len(found), len({r.file for r in found}), len({repositories.get(r.file, r.file) for r in found}))
            for why, found in ranked
        ],
        "listing": [r.line for r in records],
        "records": records,
    }


def _repositories(root: Path) -> dict[str, str]:
    """File (relative to ``root``) → repository, from the tree's ``SOURCES.tsv`` when it has one."""
    return {file: repository for file, (repository, _) in repository_paths(root).items()}


#: The parts of a tree reported apart, by the folder a file is in: user code first; DALI's own
#: unit tests stress the legacy API, but nobody migrates DALI's test suite.
GROUPS = (
    ("user code (`wild/`, `dali_examples/`)", ("wild", "dali_examples")),
    ("DALI's own tests (`dali_tests/`)", ("dali_tests",)),
)


def grouped(found: dict, root: Path) -> list[tuple[str, dict]]:
    """``found`` split by :data:`GROUPS` when the tree has those folders, else whole."""
    records = found["records"]
    folders = {r.file.split("/", 1)[0] for r in records}
    if not folders & {f for _, group in GROUPS for f in group}:
        return [(str(root), found)]
    repositories = _repositories(root)
    out = []
    for title, group in GROUPS:
        part = [r for r in records if r.file.split("/", 1)[0] in group]
        files = sum(1 for p in root.rglob("*.py") if p.relative_to(root).parts[0] in group)
        out.append((f"{root}: {title}", summarize(part, repositories, files=files)))
    return out


def pipelines(source: str, count: str = "concrete") -> tuple[list[tuple[int, str]], dict[str, str]]:
    """``(line, name)`` of the ``@pipeline_def`` functions and ``Pipeline`` subclasses of a file
    (hand-built graphs are counted from the findings), and each subclass of a ``Pipeline``
    subclass → the class deriving from ``Pipeline`` it descends from."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], {}
    found, classes = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_last(d) == "pipeline_def" for d in node.decorator_list):
            found.append((node.lineno, node.name))
        elif isinstance(node, ast.ClassDef):
            classes.append(node)
    roots = {c.name for c in classes if any(_last(b) == "Pipeline" for b in c.bases)}
    base_of: dict[str, str] = {}
    changed = True
    while changed and count == "concrete":
        changed = False
        for c in classes:
            if c.name in roots or c.name in base_of:
                continue
            for b in c.bases:
                name = b.id if isinstance(b, ast.Name) else None
                if name in roots or name in base_of:
                    base_of[c.name] = base_of.get(name, name)
                    changed = True
                    break
    family = roots | set(base_of)
    bases = {b.id for c in classes if c.name in base_of for b in c.bases if isinstance(b, ast.Name)}
    used = collections.Counter(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in bases)
    as_base = collections.Counter(
        b.id for c in classes if c.name in family for b in c.bases if isinstance(b, ast.Name) and b.id in bases
    )
    for c in classes:
        if c.name not in family:
            continue
        if c.name in bases and used[c.name] <= as_base[c.name] + _super_mentions(c.name, tree):
            continue  # a base, used only as one: not a pipeline of its own
        found.append((c.lineno, c.name))
    return found, base_of


def _super_mentions(name: str, tree: ast.AST) -> int:
    """``super(<name>, self)`` and ``<name>.__init__(self, ...)``: reads of a base that are not uses."""
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and node.args:
            found += isinstance(node.args[0], ast.Name) and node.args[0].id == name
        elif isinstance(node, ast.Attribute) and node.attr == "__init__" and isinstance(node.value, ast.Name):
            found += node.value.id == name
    return found


def _last(expr: ast.expr) -> str:
    if isinstance(expr, ast.Call):
        expr = expr.func
    return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")


def _short(why: str) -> str:
    why = re.sub(r"^at [^,(]*(?: \(and [^)]*\))?, ", "", why.split(";")[0])  # NDD008 names the use's place first
    return re.sub(r"`[^`]*`", "`…`", why)[:90]


def markdown(name: str, found: dict) -> str:
    blocked = sum(n for _, n, _, _ in found["reasons"])
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
        lines += ["| left with a TODO, by first finding | pipelines | files | repositories |", "|---|---|---|---|"]
        lines += [f"| {reason} | {n} | {files} | {repos} |" for reason, n, files, repos in found["reasons"]]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--list", action="store_true", help="also print one line per pipeline")
    parser.add_argument(
        "--count",
        choices=("concrete", "direct"),
        default="concrete",
        help="concrete: each subclass of a `Pipeline` base is a pipeline, a base used only as one is not "
        "(default); direct: only the classes naming `Pipeline` as their base",
    )
    parser.add_argument(
        "--layout",
        choices=("flat", "repositories"),
        default="repositories",
        help="repositories (default): each file put back at its path in its repository (from the "
        "tree's SOURCES.tsv; see corpus_layout.py), one run per repository, as a user runs migrate; "
        "flat: the tree as it is (its files' imports of one another do not resolve)",
    )
    args = parser.parse_args(argv)
    for root in args.roots:
        found = measure(root, args.count, args.layout)
        for title, part in grouped(found, root):
            print(markdown(title, part))
        if args.list:
            print("\n".join(sorted(found["listing"])) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

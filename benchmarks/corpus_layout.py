"""A corpus's files put back where they were in their repositories.

The dev corpus keeps each file under a flattened name (``wild/<owner>__<repo>__<path>.py``), so a
file's ``from base import DALIDataloader`` finds nothing and a pipeline handed to a class of a sibling
module looks handed to the unknown. A user runs ``migrate`` on a checkout, where those imports resolve;
this rebuilds that shape from the tree's ``SOURCES.tsv`` (file, repository, path, commit)::

    python benchmarks/corpus_layout.py ../shared/corpus-dev /tmp/repositories
    python benchmarks/silent_breakage.py --tree /tmp/repositories

Each repository becomes ``<owner>__<repo>/`` with an empty ``setup.cfg`` (a project root, as a
checkout has one), each file lands at its path there, and a notebook kept in the tree as its code
(``x.ipynb`` → ``x.ipynb.py``) stays a ``.py`` file.
"""

from __future__ import annotations

import argparse
import collections
import shutil
from pathlib import Path


def repository_paths(root: Path) -> dict[str, tuple[str, str]]:
    """File (relative to ``root``) → (repository, the file's path in it), from ``SOURCES.tsv``."""
    sources = root / "SOURCES.tsv"
    if not sources.is_file():
        return {}
    rows = [line.split("\t") for line in sources.read_text(encoding="utf-8").splitlines()[1:]]
    return {row[0]: (row[1], row[2]) for row in rows if len(row) > 2}


def rebuild(root: Path, target: Path) -> tuple[dict[Path, list[str]], dict[str, str]]:
    """Copy the ``.py`` files of ``root`` into ``target`` at their repositories' paths (a file the
    table does not name at its own). Returns each repository's folder (``target`` for the unnamed
    files) → its files, and each copied file → its name in ``root``."""
    projects: dict[Path, list[str]] = collections.defaultdict(list)
    original: dict[str, str] = {}
    listed = repository_paths(root)
    for file in sorted(str(p.relative_to(root)) for p in root.rglob("*.py")):
        if file not in listed:  # a file SOURCES.tsv does not name keeps its place, in a run of its own
            (target / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / file, target / file)
            projects[target].append(str(target / file))
            original[str(target / file)] = file
    for file, (repository, path) in sorted(listed.items()):
        if not file.endswith(".py") or not (root / file).is_file():
            continue
        project = target / repository.replace("/", "__")
        path = path if path.endswith(".py") else path + ".py"
        # A repository may be in the tree twice (DALI's examples and DALI's tests of one fork) with
        # the same path: the second copy goes under the tree folder it came from.
        copy = project / file.split("/", 1)[0] / path if (project / path).exists() else project / path
        copy.parent.mkdir(parents=True, exist_ok=True)
        (project / "setup.cfg").touch()
        shutil.copyfile(root / file, copy)
        projects[project].append(str(copy))
        original[str(copy)] = file
    return dict(projects), original


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="a tree with a SOURCES.tsv")
    parser.add_argument("target", type=Path, help="an empty or missing folder to rebuild it in")
    args = parser.parse_args(argv)
    if not repository_paths(args.tree):
        parser.error(f"{args.tree}: no SOURCES.tsv naming each file's repository and path")
    if args.target.exists() and any(args.target.iterdir()):
        parser.error(f"{args.target}: not empty")
    projects, original = rebuild(args.tree, args.target)
    print(f"{len(original)} files in {len(projects)} repositories under {args.target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

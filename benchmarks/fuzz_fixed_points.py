"""Fuzz `migrate` with mutants of real DALI code: a second run must change nothing.

Takes a corpus of real files (default: ../shared/corpus-dev), makes seeded mutants of them — lines
deleted and duplicated, statements wrapped in `match`, `async`, nested functions, comprehensions,
walrus conditions, star-args, annotations, guarded imports — and keeps those CPython accepts. Each
original file and mutant is then migrated, migrated again, and the migrated text checked; a
failure is one of:

- ``internal-error``: the engine stopped on the file (its frame names the class);
- ``unparsable``: the migrated text does not compile;
- ``second-run-changes``: migrating the output again changes it (the class: what the second run adds);
- ``todo-quotes-todo``: a TODO whose snippet holds another TODO;
- ``duplicate-todo``: the same TODO twice above one statement;
- ``check-flags-output``: `check` of the output reports a fixable finding (what `migrate` wrote
  is not clean under the conversion rules).

The smallest file of each class is reduced, line by line, to a minimal reproducer written to
``--out``. Exit 1 when any class was found.

    python benchmarks/fuzz_fixed_points.py --mutants 1500 --seed 1 --out /tmp/fuzz
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import random
import re
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ndd_migrate.engine.source_file import process_source  # noqa: E402
from ndd_migrate.io.diagnostics import FixSafety  # noqa: E402
from ndd_migrate.io.policy import Policy  # noqa: E402

# The files are real code: their own SyntaxWarnings say nothing about the tool.
warnings.filterwarnings("ignore", category=SyntaxWarning)

TODO = "# TODO(ndd-migrate):"
LINE_LENGTH = 88


def line_length(path: str) -> int:
    """The line length the command line gives a project without configuration (module level: a
    Policy pickles to the worker processes)."""
    return LINE_LENGTH


# ----------------------------------------------------------------------------------------- mutants


def _indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + line if line.strip() else line for line in lines]


def _block_at(lines: list[str], start: int) -> int:
    """The end (exclusive) of the statement that starts at ``start``: the following lines indented
    deeper than it (a compound statement's body), or continuation lines of brackets."""
    head = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > head):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _statement_starts(lines: list[str], pattern: str = r"\S") -> list[int]:
    return [
        i
        for i, line in enumerate(lines)
        if re.match(r"\s*" + pattern, line) and not line.lstrip().startswith(("#", ")", "]", "}"))
    ]


def delete_line(lines, rng):
    i = rng.randrange(len(lines))
    return lines[:i] + lines[i + 1 :]


def duplicate_line(lines, rng):
    i = rng.randrange(len(lines))
    return lines[: i + 1] + [lines[i]] + lines[i + 1 :]


def wrap_in_match(lines, rng):
    """``match <subject>: case _:`` around a statement and its block."""
    starts = _statement_starts(lines, r"(def |class |@|for |with |if |[A-Za-z_][\w.]* = )")
    if not starts:
        return lines
    i = rng.choice(starts)
    end = _block_at(lines, i)
    pad = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    return lines[:i] + [f"{pad}match __name__:", f"{pad}    case _:"] + _indent(lines[i:end], "        ") + lines[end:]


def make_async(lines, rng):
    starts = _statement_starts(lines, r"def ")
    if not starts:
        return lines
    i = rng.choice(starts)
    return lines[:i] + [lines[i].replace("def ", "async def ", 1)] + lines[i + 1 :]


def nest_in_function(lines, rng):
    """A top-level def or class moved inside a function that defines it and returns it."""
    starts = [i for i in _statement_starts(lines, r"(def |class |@)") if not lines[i].startswith(" ")]
    if not starts:
        return lines
    i = rng.choice(starts)
    end = _block_at(lines, i)
    return lines[:i] + ["def _outer():"] + _indent(lines[i:end]) + ["    return None", ""] + lines[end:]


def call_in_comprehension(lines, rng):
    """``x = f(...)`` → ``x = [f(...) for _ in range(1)][0]`` (one line calls only)."""
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*[A-Za-z_]\w* = [A-Za-z_][\w.]*\(.*\)\s*$", line)]
    if not starts:
        return lines
    i = rng.choice(starts)
    target, value = lines[i].split(" = ", 1)
    return lines[:i] + [f"{target} = [{value.strip()} for _ in range(1)][0]"] + lines[i + 1 :]


def walrus_condition(lines, rng):
    """A statement under ``if (_w := True):``."""
    starts = _statement_starts(lines, r"[A-Za-z_][\w.]*(\[.*\])? = ")
    if not starts:
        return lines
    i = rng.choice(starts)
    end = _block_at(lines, i)
    pad = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    return lines[:i] + [f"{pad}if (_w := True):"] + _indent(lines[i:end]) + lines[end:]


def star_args(lines, rng):
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*(async )?def \w+\((.*)\):\s*$", line)]
    if not starts:
        return lines
    i = rng.choice(starts)
    line = lines[i]
    inner = line[line.index("(") + 1 : line.rindex(")")]
    if "*" in inner:
        return lines
    new = inner + (", " if inner.strip() else "") + "*args, **kwargs"
    return lines[:i] + [line[: line.index("(") + 1] + new + line[line.rindex(")") :]] + lines[i + 1 :]


def annotate(lines, rng):
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*(async )?def \w+\(.*\):\s*$", line)]
    if not starts:
        return lines
    i = rng.choice(starts)
    line = lines[i].rstrip()
    if "->" in line:
        return lines
    return lines[:i] + [line[:-1] + " -> object:"] + lines[i + 1 :]


def guard_import(lines, rng):
    starts = [
        i
        for i, line in enumerate(lines)
        if re.match(r"(import nvidia|from nvidia)\S* ", line) and not line.rstrip().endswith(("(", "\\"))
    ]
    if not starts:
        return lines
    i = rng.choice(starts)
    return lines[:i] + ["try:", "    " + lines[i], "except ImportError:", "    pass"] + lines[i + 1 :]


MUTATIONS = (
    delete_line,
    duplicate_line,
    wrap_in_match,
    make_async,
    nest_in_function,
    call_in_comprehension,
    walrus_condition,
    star_args,
    annotate,
    guard_import,
)


def mutants(corpus: list[tuple[str, str]], count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` mutants that CPython accepts, each of a random file with one to three mutations."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        name, text = rng.choice(corpus)
        lines = text.splitlines()
        if not lines:
            continue
        applied = []
        for _ in range(rng.randint(1, 3)):
            mutation = rng.choice(MUTATIONS)
            lines = mutation(lines, rng)
            applied.append(mutation.__name__)
        new = "\n".join(lines) + "\n"
        if new == text or not _compiles(new):
            continue
        out.append((f"{name}~{len(out)}~{'+'.join(applied)}", new))
    return out


def _compiles(text: str) -> bool:
    try:
        compile(ast.parse(text), "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# ---------------------------------------------------------------------------------------- checking


def failures(name: str, text: str, only: str | None = None) -> list[tuple[str, str]]:
    """``(class, detail)`` of each way ``migrate`` fails on ``text`` (see the module docstring);
    ``only``: just the runs that class needs (the reducer asks about one class many times)."""
    path = name.split("~", 1)[0]
    migrate = Policy(line_length=line_length)
    first = process_source(path, text.encode(), migrate)
    if first.error is not None:
        if first.error.message.startswith("internal error"):
            where = re.search(r"at (\S+:\d+)", first.error.message)
            kind = re.search(r"\((\w+):", first.error.message)
            return [("internal-error", f"{kind.group(1) if kind else '?'} at {where.group(1) if where else '?'}")]
        return []  # a file the tool refuses with a reason is not a failure of the fixed point
    out = first.new_source if first.changed else text
    found: list[tuple[str, str]] = []
    if first.changed and not _compiles(out):
        return [("unparsable", "")]
    for line in out.splitlines():
        stripped = line.strip()
        if stripped.startswith(TODO) and stripped.count("TODO(ndd-migrate)") > 1:
            found.append(("todo-quotes-todo", re.sub(r"\s+", " ", stripped)[:60]))
            break
    found += _duplicate_todos(out)
    if only in (None, "second-run-changes"):
        second = process_source(path, out.encode(), migrate)
        if second.error is None and second.changed:
            found.append(("second-run-changes", _what_changed(out, second.new_source)))
    if only in (None, "check-flags-output"):
        checked = process_source(path, out.encode(), Policy.check(line_length=line_length))
        fixable = sorted({d.code for d in checked.diagnostics if d.fix in (FixSafety.SAFE, FixSafety.UNSAFE)})
        if fixable:
            found.append(("check-flags-output", ",".join(fixable)))
    return found


def _duplicate_todos(text: str) -> list[tuple[str, str]]:
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith(TODO):
            if stripped in run:
                return [("duplicate-todo", stripped[len(TODO) :].split()[0])]
            run.append(stripped)
        elif not stripped.startswith("#   "):
            run = []
    return []


def _what_changed(before: str, after: str) -> str:
    old, new = set(before.splitlines()), after.splitlines()
    added = [line.strip() for line in new if line not in old]
    todo = next((line for line in added if line.startswith(TODO)), None)
    if todo is not None:
        return "adds TODO " + todo[len(TODO) :].split()[0]
    return "rewrites code" if added else "removes lines"


def _check_one(item: tuple[str, str]) -> tuple[str, str, list[tuple[str, str]]]:
    name, text = item
    try:
        return name, text, failures(name, text)
    except Exception as exc:  # the harness itself must not hide a failure
        return name, text, [("harness-error", f"{type(exc).__name__}: {exc}"[:80])]


# ---------------------------------------------------------------------------------------- reducing


def reduce(name: str, text: str, failure: tuple[str, str], budget: float = 60.0) -> str:
    """The smallest text found that still compiles and still fails with the same class and detail:
    first whole statements are removed (the module's, then those of each body, from the last),
    then chunks of lines, halving the chunk size down to one line."""
    deadline = time.monotonic() + budget

    def still_fails(lines: list[str]) -> bool:
        source = "\n".join(lines) + "\n"
        return bool(lines) and _compiles(source) and failure in failures(name, source, only=failure[0])

    lines = text.splitlines()
    shrunk = True
    while shrunk and time.monotonic() < deadline:
        shrunk = False
        spans = _statement_spans("\n".join(lines) + "\n")
        for start, end in sorted(spans, key=lambda span: span[0] - span[1]):  # the largest first
            if time.monotonic() >= deadline:
                break
            candidate = lines[:start] + lines[end:]
            if still_fails(candidate):
                lines, shrunk = candidate, True
                break
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i, shrunk = 0, False
        while i < len(lines) and time.monotonic() < deadline:
            candidate = lines[:i] + lines[i + chunk :]
            if still_fails(candidate):
                lines, shrunk = candidate, True
            else:
                i += chunk
        if not shrunk:
            chunk //= 2
    return "\n".join(lines) + "\n"


def _statement_spans(text: str) -> list[tuple[int, int]]:
    """``(first line, end line)`` (0-based, end exclusive) of every statement, nested ones too."""
    spans = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            spans.append((first - 1, node.end_lineno))
    return spans


# ------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus-dev"))
    parser.add_argument("--mutants", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=None, help="folder for the reduced reproducers")
    parser.add_argument("--reduce-seconds", type=float, default=60.0)
    args = parser.parse_args(argv)

    root = Path(args.corpus)
    corpus = [
        (str(p.relative_to(root)), p.read_text(encoding="utf-8", errors="replace")) for p in sorted(root.rglob("*.py"))
    ]
    corpus = [(name, text) for name, text in corpus if _compiles(text)]
    items = [*corpus, *mutants(corpus, args.mutants, args.seed)]
    started = time.monotonic()
    classes: dict[tuple[str, str], list[tuple[str, str]]] = collections.defaultdict(list)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for name, text, found in pool.map(_check_one, items, chunksize=4):
            for failure in found:
                classes[failure].append((name, text))
    elapsed = time.monotonic() - started
    print(
        f"{len(corpus)} real files and {len(items) - len(corpus)} mutants (seed {args.seed}), "
        f"3 runs each, in {elapsed:.0f} s: {len(classes)} failure classes"
    )
    out = Path(args.out) if args.out else None
    for number, (failure, cases) in enumerate(sorted(classes.items(), key=lambda kv: -len(kv[1])), 1):
        real = sum(1 for name, _ in cases if "~" not in name)
        name, text = min(cases, key=lambda case: len(case[1]))
        print(f"  {failure[0]}: {failure[1]} — {len(cases)} files ({real} real), smallest: {name}")
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            reduced = reduce(name, text, failure, args.reduce_seconds)
            target = out / f"{number:02d}-{failure[0]}.py"
            target.write_text(f"# {failure[0]}: {failure[1]}\n# from {name}\n" + reduced, encoding="utf-8")
            print(f"    reduced to {len(reduced.splitlines())} lines: {target}")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())

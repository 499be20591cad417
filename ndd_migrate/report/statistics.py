"""``--statistics``: how many findings of each code remain, how many ``--fix`` would fix, which rule.

For sizing a migration before starting it. Counts cover findings still in the code (not those this
run fixed). ``json`` gets a JSON list; every other format gets the text table, since a table of
counts has no place in SARIF or in annotations.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.report._common import (
    Options,
    file_errors,
    indent_continuation,
    is_fixable,
    plural,
    relative_path,
    remaining,
)


@dataclass(frozen=True)
class CodeCount:
    code: str
    name: str | None
    count: int
    fixable: int


def count(results: list[FileResult], opts: Options) -> list[CodeCount]:
    """Per code, most frequent first (ties by code), as ruff orders its statistics."""
    total: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    for diagnostic in remaining(results, opts.root):
        total[diagnostic.code] += 1
        fixable[diagnostic.code] += is_fixable(diagnostic, opts.unsafe_fixes)
    order = sorted(total, key=lambda code: (-total[code], code))
    return [CodeCount(code, opts.rules.name(code), total[code], fixable[code]) for code in order]


def render_text(results: list[FileResult], opts: Options) -> str:
    rows = [("count", "code", "fixable", "rule")]
    rows += [(str(c.count), c.code, str(c.fixable), c.name or "-") for c in count(results, opts)]
    lines = []
    if len(rows) > 1:
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for n, code, fixable, name in rows:
            lines.append(f"{n:>{widths[0]}}  {code:<{widths[1]}}  {fixable:>{widths[2]}}  {name}")
    errors = file_errors(results, opts.root)
    if errors:
        lines.append(f"{plural(len(errors), 'file')} could not be checked:")
        lines += [indent_continuation(f"  {relative_path(e.path, opts.root)}: {e.message}") for e in errors]
    return "".join(line + "\n" for line in lines)


def render_json(results: list[FileResult], opts: Options) -> str:
    items = [
        {"code": c.code, "name": c.name, "count": c.count, "fixable_count": c.fixable} for c in count(results, opts)
    ]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"

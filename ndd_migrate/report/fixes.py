"""``check --fix --show-fixes``: what this run fixed, per file and code, as ruff enumerates it.

Fixed 3 errors:
- pipeline.py:
    2 × NDD101 (fn-call)
    1 × NDD103 (mixed-device)
"""

from __future__ import annotations

from collections import Counter

from ndd_migrate.io.diagnostics import FileResult
from ndd_migrate.report._common import Options, plural, relative_path


def render(results: list[FileResult], opts: Options) -> str:
    """The enumeration, or nothing when this run fixed nothing."""
    lines = []
    total = 0
    for result in sorted(results, key=lambda r: r.path):
        fixed = Counter(d.code for d in result.diagnostics if d.fixed)
        if not fixed:
            continue
        total += sum(fixed.values())
        lines.append(f"- {relative_path(result.path, opts.root)}:")
        for code, n in sorted(fixed.items(), key=lambda item: (-item[1], item[0])):
            name = opts.rules.name(code)
            lines.append(f"    {n} × {code}" + (f" ({name})" if name else ""))
    if not total:
        return ""
    return "".join(line + "\n" for line in [f"Fixed {plural(total, 'error')}:", *lines])

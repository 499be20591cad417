"""``json``: the complete record of a run, for scripts. Field names follow ruff's JSON output where
the two tools mean the same thing, so existing consumers need little change.

The document is a JSON list. Every finding is in it, including those this run fixed (``fix.applied``
is then true), followed by one object per file that could not be checked (``kind: "file-error"``,
``code: null`` like ruff's syntax errors). Rows and columns are 1-based; ``end_location`` points
one past the last character, as in ruff. The field reference is ``docs/output-formats.md``.
"""

from __future__ import annotations

import json

from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult, FixSafety
from ndd_migrate.report._common import (
    Options,
    display_path,
    posix_path,
    rule_url,
    sorted_diagnostics,
    sorted_results,
)


def diagnostic_object(diagnostic: Diagnostic, opts: Options) -> dict:
    end = None
    if diagnostic.end_line is not None:
        end = {
            "row": diagnostic.end_line,
            "column": diagnostic.end_column + 1 if diagnostic.end_column is not None else None,
        }
    fix = None
    if diagnostic.fix is not FixSafety.MANUAL:
        fix = {"applicability": diagnostic.fix.value, "applied": diagnostic.fixed}
    rule = opts.rules.get(diagnostic.code)
    return {
        "kind": "diagnostic",
        "code": diagnostic.code,
        "name": rule.name if rule is not None else None,
        "message": diagnostic.message,
        "filename": posix_path(display_path(diagnostic.path, opts.root)),
        "location": {"row": diagnostic.line, "column": diagnostic.column + 1},
        "end_location": end,
        "cell": diagnostic.cell,  # notebooks: rows count within this cell, as in ruff's output
        "fix": fix,
        "hint": diagnostic.hint or None,
        "url": rule_url(diagnostic.code, rule.name) if rule is not None else None,
    }


def error_object(error: FileError, opts: Options) -> dict:
    return {
        "kind": "file-error",
        "code": None,
        "name": None,
        "message": error.message,
        "filename": posix_path(display_path(error.path, opts.root)),
        "location": {"row": error.line, "column": 1} if error.line else None,
        "end_location": None,
        "cell": None,
        "fix": None,
        "hint": None,
        "url": None,
    }


def render(results: list[FileResult], opts: Options) -> str:
    ordered = sorted_results(results, opts.root)
    items = [diagnostic_object(d, opts) for r in ordered for d in sorted_diagnostics(r.diagnostics)]
    items += [error_object(r.error, opts) for r in ordered if r.error is not None]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"

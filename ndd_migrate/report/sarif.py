"""``sarif``: SARIF 2.1.0 (OASIS, errata 01), for GitHub code scanning and other SARIF viewers.

One run; ``tool.driver.rules`` describes every code that has a finding (from the rule catalogue
when the code is known there), each result points at its rule by ``ruleId``/``ruleIndex``. Paths
are relative to the ``%SRCROOT%`` base (the render root) so the upload matches the repository's
files; a path outside the root is given as an absolute ``file:`` URI. Files that could not be
checked are ``toolExecutionNotifications`` of the invocation: they are failures of the tool, not
findings in the code. Only findings still in the code are results: a fix applied by this run needs
no review.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from ndd_migrate import __version__
from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult
from ndd_migrate.report._common import (
    DOCS_URL,
    Options,
    file_errors,
    posix_path,
    relative_path,
    remaining,
    rule_url,
)

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _artifact(path: str, opts: Options) -> dict:
    # The name's bytes, percent-encoded: a URI names the file even when its name is not UTF-8.
    shown = relative_path(path, opts.root)
    if os.path.isabs(shown) or shown == os.pardir or shown.startswith(os.pardir + os.sep):
        return {"uri": Path(os.path.abspath(path)).as_uri()}  # outside the root: an absolute URI
    return {"uri": quote(os.fsencode(posix_path(shown))), "uriBaseId": SRCROOT}


def _region(diagnostic: Diagnostic) -> dict:
    region = {"startLine": diagnostic.line, "startColumn": diagnostic.column + 1}
    if diagnostic.end_line is not None:
        region["endLine"] = diagnostic.end_line
        if diagnostic.end_column is not None:
            region["endColumn"] = diagnostic.end_column + 1  # SARIF: the column after the region
    return region


def rule_descriptor(code: str, opts: Options) -> dict:
    rule = opts.rules.get(code)
    if rule is None:
        return {"id": code, "shortDescription": {"text": code}}
    help_text = "\n\n".join(p for p in (rule.why, f"Fix: {rule.fix}" if rule.fix else "") if p)
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what or rule.summary},
        "help": {"text": help_text or rule.summary},
        "helpUri": rule_url(code, rule.name),
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixSafety": rule.fix_safety.value},
    }


def _result(diagnostic: Diagnostic, index: int, opts: Options) -> dict:
    text = diagnostic.message + (f"\n\n{diagnostic.hint}" if diagnostic.hint else "")
    physical = {"artifactLocation": _artifact(diagnostic.path, opts)}
    if diagnostic.cell is None:
        physical["region"] = _region(diagnostic)
    else:  # a notebook: a region would count lines of the JSON file
        text = f"cell {diagnostic.cell}, line {diagnostic.line}: {text}"
    return {
        "ruleId": diagnostic.code,
        "ruleIndex": index,
        "level": "error",
        "message": {"text": text},
        "locations": [{"physicalLocation": physical}],
        "properties": {"fixSafety": diagnostic.fix.value},
    }


def _notification(error: FileError, opts: Options) -> dict:
    physical: dict = {"artifactLocation": _artifact(error.path, opts)}
    if error.line:
        physical["region"] = {"startLine": error.line}
    return {"level": "error", "message": {"text": error.message}, "locations": [{"physicalLocation": physical}]}


def document(results: list[FileResult], opts: Options) -> dict:
    findings = list(remaining(results, opts.root))
    codes = sorted({d.code for d in findings})
    index = {code: i for i, code in enumerate(codes)}
    errors = file_errors(results, opts.root)
    root_uri = Path(os.path.abspath(opts.root)).as_uri()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "ndd-migrate",
                        "version": __version__,
                        "informationUri": DOCS_URL,
                        "rules": [rule_descriptor(code, opts) for code in codes],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not errors,
                        "toolExecutionNotifications": [_notification(e, opts) for e in errors],
                    }
                ],
                "originalUriBaseIds": {SRCROOT: {"uri": root_uri.rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code], opts) for d in findings],
            }
        ],
    }


def render(results: list[FileResult], opts: Options) -> str:
    return json.dumps(document(results, opts), indent=2, ensure_ascii=False) + "\n"

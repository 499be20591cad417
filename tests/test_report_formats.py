"""Output formats of ``check``: snapshots of every format on one fixed set of results, SARIF checked
against the OASIS schema, GitHub escaping checked by parsing the commands back.

Snapshots live in ``tests/data/snapshots/``; after an intended change, regenerate them with
``NDD_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_report_formats.py`` and review the diff.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate.engine.catalog import Rule
from ndd_migrate.io.diagnostics import Diagnostic, FileError, FileResult, FixSafety
from ndd_migrate.report import FORMATS, exit_code, render
from ndd_migrate.report import sarif as sarif_module
from ndd_migrate.report.github import escape_data, escape_property

jsonschema = pytest.importorskip("jsonschema")

DATA = Path(__file__).parent / "data"
SNAPSHOTS = DATA / "snapshots"
REPO = Path(__file__).parent.parent
ROOT = Path("/proj")

RULE = Rule(
    code="NDD103",
    name="mixed-device",
    summary="An operator's inputs and `device=` disagree.",
    what="Finds operators whose `device=` does not match where their inputs live.",
    why="Dynamic mode does not move data between devices implicitly.",
    fix_safety=FixSafety.SAFE,
    fix="Moves the input with `.gpu()` before the call.",
)

SOURCE = (
    "import nvidia.dali.fn as fn\n"
    "from nvidia.dali import pipeline_def\n"
    "\n"
    "@pipeline_def\n"
    "def train(path):\n"
    "\timages = fn.resize(fn.readers.file(file_root=path), device='gpu')\n"
    "    return images\n"
)
TRAIN = "/proj/src/train.py"
ODD = "/proj/odd dir/a,b:c%.py"


def lookup(code: str):
    return RULE if code == "NDD103" else None


def results() -> list[FileResult]:
    """One of each kind of finding: safe (not applied), safe (applied), unsafe, manual with a
    multi-line span and a hint, a path that needs escaping, and a file that could not be checked."""
    return [
        FileResult(
            path=TRAIN,
            old_source=SOURCE,
            diagnostics=[
                Diagnostic(
                    "NDD103",
                    "`fn.resize` runs on the GPU but its input is on the CPU",
                    TRAIN,
                    6,
                    10,
                    6,
                    67,
                    FixSafety.SAFE,
                    hint="call `.gpu()` on the input",
                ),
                Diagnostic(
                    "NDD301",
                    "import `nvidia.dali.experimental.dynamic as ndd`",
                    TRAIN,
                    1,
                    0,
                    1,
                    27,
                    FixSafety.SAFE,
                    fixed=True,
                ),
                Diagnostic("NDD001", "`@pipeline_def` function", TRAIN, 4, 0, 7, 17, FixSafety.UNSAFE),
                Diagnostic(
                    "NDD902",
                    "no dynamic-mode form",
                    TRAIN,
                    5,
                    0,
                    7,
                    17,
                    FixSafety.MANUAL,
                    hint="rewrite by hand;\nsee the guide",
                ),
            ],
        ),
        FileResult(
            path=ODD,
            diagnostics=[Diagnostic("NDD902", "100% manual: a, b", ODD, 2, 4, 2, 9, FixSafety.MANUAL)],
        ),
        FileResult(path="/proj/broken.py", error=FileError("/proj/broken.py", "cannot parse:\nunexpected indent", 3)),
    ]


def assert_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("NDD_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing snapshot {path}; run with NDD_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def fixed_version(monkeypatch):
    """Snapshots must not change with every release."""
    monkeypatch.setattr(sarif_module, "__version__", "0.0.0-test")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_snapshot(fmt):
    ext = {"json": "json", "sarif": "sarif.json"}.get(fmt, "txt")
    assert_snapshot(f"{fmt}.{ext}", render(fmt, results(), root=ROOT, rule_lookup=lookup))


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_statistics_snapshot(fmt):
    ext = "json" if fmt == "json" else "txt"
    text = render(fmt, results(), root=ROOT, statistics=True, rule_lookup=lookup)
    assert_snapshot(f"statistics.{ext}", text)


def test_statistics_counts_only_remaining_and_orders_by_count():
    text = render("concise", results(), root=ROOT, statistics=True, rule_lookup=lookup)
    rows = [line.split() for line in text.splitlines()[1:] if line.strip()[0].isdigit()]
    assert rows[0][:3] == ["2", "NDD902", "0"]  # most frequent first
    assert ["1", "NDD103", "1", "mixed-device"] in rows
    assert not any(row[1] == "NDD301" for row in rows)  # fixed by this run
    assert render("sarif", results(), root=ROOT, statistics=True, rule_lookup=lookup) == text


# --- concise / full -------------------------------------------------------------------------------


def test_concise_marks_and_summary():
    text = render("concise", results(), root=ROOT, rule_lookup=lookup)
    assert "src/train.py:6:11: NDD103 [*] `fn.resize`" in text
    assert "src/train.py:4:1: NDD001 [unsafe] " in text
    assert "src/train.py:5:1: NDD902 no dynamic-mode form" in text
    assert "NDD301" not in text  # fixed findings are not listed ...
    assert "Found 5 errors (1 fixed, 4 remaining)." in text  # ... but counted
    hidden = "(1 hidden fix can be enabled with the `--unsafe-fixes` option)"
    assert f"[*] 1 fixable with the `--fix` option {hidden}." in text
    assert "broken.py:3: error: cannot parse:\n  unexpected indent" in text
    assert text.endswith("1 file could not be checked.\n")


def test_concise_with_unsafe_fixes():
    text = render("concise", results(), root=ROOT, unsafe_fixes=True, rule_lookup=lookup)
    assert "NDD001 [*] " in text
    assert "[*] 2 fixable with the `--fix` option." in text
    assert "hidden" not in text


@pytest.mark.parametrize(
    ("diagnostics", "expected"),
    [
        ([], "All checks passed!\n"),
        (
            [Diagnostic("NDD301", "m", TRAIN, 1, fix=FixSafety.SAFE, fixed=True)],
            "Found 1 error (1 fixed, 0 remaining).\n",
        ),
        (
            [Diagnostic("NDD001", "m", TRAIN, 1, fix=FixSafety.UNSAFE)] * 2,
            "Found 2 errors.\nNo fixes available (2 hidden fixes can be enabled with the `--unsafe-fixes` option).\n",
        ),
    ],
)
def test_concise_summary_cases(diagnostics, expected):
    text = render("concise", [FileResult(TRAIN, diagnostics=diagnostics)], root=ROOT, rule_lookup=lookup)
    assert text.endswith(expected)


def test_full_reads_the_file_when_the_engine_kept_no_source(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = fn.resize(y)\n", encoding="utf-8")
    diag = Diagnostic("NDD103", "m", str(path), 1, 4, 1, 13, FixSafety.SAFE)
    text = render("full", [FileResult(str(path), diagnostics=[diag])], root=tmp_path, rule_lookup=lookup)
    assert "1 | x = fn.resize(y)\n  |     ^^^^^^^^^ NDD103\n" in text
    # a rewritten file no longer holds the text the positions refer to: no snippet rather than a wrong one
    changed = FileResult(str(path), diagnostics=[diag], changed=True)
    assert "|" not in render("full", [changed], root=tmp_path, rule_lookup=lookup)


def test_full_without_source_or_rule_still_reports():
    diag = Diagnostic("NDD555", "m", "/nowhere/x.py", 3, 0)
    text = render("full", [FileResult("/nowhere/x.py", diagnostics=[diag], changed=True)], rule_lookup=lookup)
    assert text.startswith("/nowhere/x.py:3:1: NDD555 m\n")


def test_paths_relative_to_cwd_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    diag = Diagnostic("NDD103", "m", str(tmp_path / "pkg" / "a.py"), 1)
    text = render("concise", [FileResult(diag.path, diagnostics=[diag])], rule_lookup=lookup)
    assert text.startswith(f"pkg{os.sep}a.py:1:1: NDD103")


# --- json -----------------------------------------------------------------------------------------

JSON_KEYS = {"kind", "code", "name", "message", "filename", "location", "end_location", "cell", "fix", "hint", "url"}


def test_json_fields():
    items = json.loads(render("json", results(), root=ROOT, rule_lookup=lookup))
    assert all(set(item) == JSON_KEYS for item in items)
    by_code = {item["code"]: item for item in items}
    ndd103 = by_code["NDD103"]
    assert ndd103["location"] == {"row": 6, "column": 11}
    assert ndd103["end_location"] == {"row": 6, "column": 68}
    assert ndd103["fix"] == {"applicability": "safe", "applied": False}
    assert ndd103["name"] == "mixed-device"
    assert ndd103["url"].endswith("#ndd103-mixed-device")
    assert by_code["NDD301"]["fix"] == {"applicability": "safe", "applied": True}  # json keeps fixed ones
    assert by_code["NDD001"]["fix"]["applicability"] == "unsafe"
    error = items[-1]
    assert error["kind"] == "file-error" and error["code"] is None and error["filename"] == "broken.py"


def test_json_fields_are_documented():
    doc = (REPO / "docs" / "output-formats.md").read_text(encoding="utf-8")
    for key in JSON_KEYS | {"row", "column", "applicability", "applied", "fixable_count"}:
        assert f"`{key}`" in doc, key


def test_empty_outputs():
    assert render("json", [], root=ROOT) == "[]\n"
    assert render("github", [], root=ROOT) == ""
    assert render("concise", [], root=ROOT) == "All checks passed!\n"
    assert render("concise", [], root=ROOT, statistics=True) == ""


def test_unknown_format():
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", [])


# --- sarif ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validator():
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def test_sarif_is_valid(validator):
    document = json.loads(render("sarif", results(), root=ROOT, rule_lookup=lookup))
    errors = list(validator.iter_errors(document))
    assert not errors, [e.message for e in errors]
    empty = json.loads(render("sarif", [], root=ROOT, rule_lookup=lookup))
    assert not list(validator.iter_errors(empty))


def _break_level(d):
    d["runs"][0]["results"][0]["level"] = "fatal"


def _break_line(d):
    d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0


def _break_tool(d):
    del d["runs"][0]["tool"]


def _break_extra(d):
    d["runs"][0]["results"][0]["bogus"] = 1


def _break_version(d):
    d["version"] = "2.0.0"


@pytest.mark.parametrize("breakage", [_break_level, _break_line, _break_tool, _break_extra, _break_version])
def test_sarif_validation_rejects_broken_documents(validator, breakage):
    document = json.loads(render("sarif", results(), root=ROOT, rule_lookup=lookup))
    broken = copy.deepcopy(document)
    breakage(broken)
    assert list(validator.iter_errors(broken)), "the schema check would not catch this"


def test_sarif_content():
    run = json.loads(render("sarif", results(), root=ROOT, rule_lookup=lookup))["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ndd-migrate"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["NDD001", "NDD103", "NDD902"]  # NDD301 was fixed
    ndd103 = rules[1]
    assert ndd103["name"] == "mixed-device"
    assert ndd103["shortDescription"]["text"] == RULE.summary
    assert ndd103["helpUri"].endswith("#ndd103-mixed-device")
    assert ndd103["properties"]["fixSafety"] == "safe"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    first = next(r for r in run["results"] if r["ruleId"] == "NDD103")
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 6, "startColumn": 11, "endLine": 6, "endColumn": 68}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == "file:///proj/"
    odd = next(r for r in run["results"] if "100%" in r["message"]["text"])
    assert odd["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "odd%20dir/a%2Cb%3Ac%25.py"
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["message"]["text"].startswith("cannot parse")
    assert note["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}


def test_sarif_path_outside_root_is_absolute_uri(validator):
    diag = Diagnostic("NDD103", "m", "/elsewhere/x.py", 1)
    document = json.loads(render("sarif", [FileResult(diag.path, diagnostics=[diag])], root=ROOT, rule_lookup=lookup))
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "file:///elsewhere/x.py"}
    assert not list(validator.iter_errors(document))


# --- github ---------------------------------------------------------------------------------------


def test_github_escaping():
    assert escape_data("100%\r\ndone: a,b") == "100%25%0D%0Adone: a,b"
    assert escape_property("a b,c:d%\n") == "a b%2Cc%3Ad%25%0A"


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Parse a workflow command as the Actions runner does, undoing its escapes."""

    def unescape(value: str, prop: bool) -> str:
        pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
        for escaped, raw in pairs + [("%25", "%")]:
            value = value.replace(escaped, raw)
        return value

    match = re.fullmatch(r"::(\w+) (.*?)::(.*)", line)
    assert match, line
    props = dict(item.split("=", 1) for item in match.group(2).split(","))
    return match.group(1), {k: unescape(v, True) for k, v in props.items()}, unescape(match.group(3), False)


def test_github_commands_parse_back():
    lines = render("github", results(), root=ROOT, rule_lookup=lookup).splitlines()
    parsed = [_parse_command(line) for line in lines]
    assert all(command == "error" for command, _, _ in parsed)
    odd = next(props for _, props, message in parsed if props.get("file") == "odd dir/a,b:c%.py")
    assert odd == {
        "title": "ndd-migrate (NDD902)",
        "file": "odd dir/a,b:c%.py",
        "line": "2",
        "col": "5",
        "endLine": "2",
        "endColumn": "10",
    }
    messages = [message for _, _, message in parsed]
    assert "odd dir/a,b:c%.py:2:5: NDD902 100% manual: a, b" in messages
    assert "src/train.py:5:1: NDD902 no dynamic-mode form\nhint: rewrite by hand;\nsee the guide" in messages
    assert not any("NDD301" in m for m in messages)
    error = next(props for _, props, _ in parsed if props["file"] == "broken.py")
    assert error["line"] == "3"


# --- exit codes and weight ------------------------------------------------------------------------


def test_exit_code():
    assert exit_code([]) == 0
    assert exit_code([FileResult(TRAIN, skipped=True)]) == 0
    fixed = Diagnostic("NDD301", "m", TRAIN, 1, fix=FixSafety.SAFE, fixed=True)
    assert exit_code([FileResult(TRAIN, diagnostics=[fixed])]) == 0
    assert exit_code([FileResult(TRAIN, diagnostics=[fixed, Diagnostic("NDD902", "m", TRAIN, 2)])]) == 1
    assert exit_code(results()) == 2  # a file could not be checked


def test_clean_run_imports_no_rules():
    """A pre-commit run with nothing to report must not import the rule catalogue or libcst."""
    code = (
        "import sys\n"
        "from ndd_migrate.report import render\n"
        "from ndd_migrate.io import config, noqa\n"
        "render('concise', [])\n"
        "render('github', [])\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('libcst', 'ndd_migrate.engine.catalog', 'ndd_migrate.rules')))\n"
        "assert not bad, bad\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=REPO)


def test_sarif_names_a_file_outside_the_root_by_an_absolute_uri(validator, tmp_path):
    """A file outside the current folder was `../x.py` against %SRCROOT%: a path above the root,
    which code-scanning uploads cannot place."""
    inside, outside = tmp_path / "proj", tmp_path / "other"
    result = FileResult(path=str(outside / "x.py"), error=FileError(str(outside / "x.py"), "cannot read", None))
    document = json.loads(render("sarif", [result], root=inside, rule_lookup=lookup))
    assert not list(validator.iter_errors(document))
    text = json.dumps(document)
    assert (outside / "x.py").as_uri() in text and '"../' not in text


def test_statistics_name_the_files_that_could_not_be_checked():
    """`--statistics` said "1 file could not be checked" without naming it."""
    broken = FileResult(path="/proj/broken.py", error=FileError("/proj/broken.py", "cannot parse: bad indent", 3))
    text = render("concise", [broken], root=ROOT, statistics=True, rule_lookup=lookup)
    assert "1 file could not be checked:\n  broken.py: cannot parse: bad indent\n" in text

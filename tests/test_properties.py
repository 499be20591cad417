"""Property-based: generated programs with DALI pipelines, their line endings, encodings,
indentation and nesting varied, and the promises of docs/safety.md checked on each:

- the run never dies (no exception, no internal error);
- a file is either unchanged or replaced by output that parses;
- a second run changes nothing;
- newlines and encoding are kept;
- ``migrate --diff`` prints exactly the change ``migrate`` writes.

The DALI part of each program is one of the rules' own examples or of the whole programs of
``tests/programs/``; hypothesmith writes other Python around it. Bounded for CI: the ``ci``
profile (the default) runs a fixed, small set of examples (``derandomize``); set
``NDD_HYPOTHESIS_PROFILE=dev`` to search longer.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, Phase, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ndd_migrate.cli import app  # noqa: E402
from ndd_migrate.engine.catalog import all_rules  # noqa: E402
from ndd_migrate.engine.source_file import process_source  # noqa: E402
from ndd_migrate.io import files, writing  # noqa: E402
from ndd_migrate.io.policy import Policy  # noqa: E402
from ndd_migrate.report.summary import unified_diff  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# No shrinking in CI: a failure is reported as found (shrinking a program can take minutes).
settings.register_profile(
    "ci",
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=_SLOW,
)
settings.register_profile("dev", max_examples=500, deadline=None, suppress_health_check=_SLOW)
PROFILE = settings.get_profile(os.environ.get("NDD_HYPOTHESIS_PROFILE", "ci"))
#: The CLI runs cost more (two runs, files on disk): fewer of them.
CLI_PROFILE = settings(PROFILE, max_examples=max(4, PROFILE.max_examples // 4))


def _compiles(source: str | bytes) -> bool:
    try:
        compile(source, "<generated>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _dali_programs() -> list[str]:
    found = [example.before for rule in all_rules() for example in rule.examples]
    found += [path.read_text() for path in sorted((ROOT / "tests" / "programs").glob("*.py"))]
    return sorted({text for text in found if "nvidia" in text and _compiles(text)})


DALI = _dali_programs()
NEWLINES = ("\n", "\r\n", "\r", "mixed")
ENCODINGS = ("utf-8", "utf-8-sig", "latin-1")


def _indent(text: str, style: str) -> str:
    """Every line's leading spaces in another style: tabs, two spaces per level, or as they are."""
    if style == "spaces":
        return text
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        levels, rest = divmod(len(line) - len(stripped), 4)
        unit = "\t" if style == "tabs" else "  "
        out.append(unit * levels + " " * rest + stripped)
    return "\n".join(out)


def _nest(text: str, depth: int) -> str:
    """The program inside ``depth`` blocks (``if True:``, ``def main():``, ...)."""
    heads = ("if True:", "def main():", "for _ in range(1):", "with open(__file__):")
    for level in range(depth):
        body = "\n".join(("    " + line) if line.strip() else line for line in text.split("\n"))
        text = f"{heads[level % len(heads)]}\n{body}"
    return text


def _newlines(text: str, style: str) -> str:
    if style == "mixed":  # CRLF and LF alternating
        lines = text.split("\n")
        return "".join(line + ("\r\n" if i % 2 else "\n") for i, line in enumerate(lines[:-1])) + lines[-1]
    return text.replace("\n", style)


@st.composite
def programs(draw) -> tuple[bytes, str, str]:
    """(file bytes, newline style, encoding) of a generated program with a DALI pipeline."""
    text = draw(st.sampled_from(DALI))
    other = draw(st.one_of(st.just(""), hypothesmith.from_grammar(auto_target=False)))
    if other.strip():
        text = text + "\n\n" + other if draw(st.booleans()) else other + "\n\n" + text
    text = _nest(text, draw(st.sampled_from((0, 0, 1, 2))))
    text = _indent(text, draw(st.sampled_from(("spaces", "tabs", "two"))))
    newline = draw(st.sampled_from(NEWLINES))
    encoding = draw(st.sampled_from(ENCODINGS))
    if encoding == "latin-1":
        text = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + text
    text = _newlines(text, newline)
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        assume(False)
    assume(_compiles(raw))
    return raw, newline, encoding


def _written(raw: bytes, result) -> bytes | None:
    """The bytes ``migrate`` writes for ``result`` (None: it leaves the file as it is)."""
    if result.error or not result.changed:
        return None
    try:
        return writing.encode_source("prop.py", result.new_source, files.decode_source(raw, "prop.py"))
    except files.SourceError:  # a character the encoding cannot hold: an error, file left alone
        return None


def _no_internal_error(result) -> None:
    assert result.error is None or "internal error" not in result.error.message, result.error


@PROFILE
@given(programs())
def test_a_run_never_dies_and_leaves_each_file_unchanged_or_parsing_and_at_its_fixed_point(program):
    raw, newline, encoding = program
    checked = process_source("prop.py", raw, Policy.check())
    _no_internal_error(checked)
    result = process_source("prop.py", raw, Policy.migrate())
    _no_internal_error(result)
    new = _written(raw, result)
    if new is None:
        return
    assert _compiles(new), "the rewrite does not compile"
    again = process_source("prop.py", new, Policy.migrate())
    assert again.error is None and not again.changed, again.error or "a second run changed the file"
    # Encoding and newlines kept.
    assert new.startswith(b"\xef\xbb\xbf") == (encoding == "utf-8-sig")
    style = _newline_style(files.decode_source(raw, "prop.py").text)
    if style is not None:  # generated code may hold other breaks (in a comment): only a uniform file
        assert _newline_style(files.decode_source(new, "prop.py").text) == style


def _newline_style(text: str) -> str | None:
    """The one line break ``text`` uses, None when it mixes them."""
    crlf, cr, lf = text.count("\r\n"), text.count("\r"), text.count("\n")
    if cr == 0:
        return "\n"
    if crlf == cr == lf:
        return "\r\n"
    return "\r" if lf == 0 else None


@CLI_PROFILE
@given(programs())
def test_migrate_diff_prints_exactly_what_migrate_writes(program):
    raw, _, _ = program
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "prop.py"
        path.write_bytes(raw)
        shown = runner.invoke(app, ["migrate", "--diff", "--quiet", str(path)], catch_exceptions=False)
        assert shown.exit_code in (0, 1, 2), shown.output
        assert path.read_bytes() == raw  # --diff writes nothing
        done = runner.invoke(app, ["migrate", "--quiet", str(path)], catch_exceptions=False)
        written = path.read_bytes()
        # the same verdict, but that a diff is itself a reason for 1 (as `ruff format --diff`)
        assert shown.exit_code == (1 if done.exit_code == 0 and written != raw else done.exit_code)
        expected = unified_diff(str(path), raw, written) if written != raw else b""
        beside = Path(folder) / "ndd_support.py"  # the support module, written first when needed
        if beside.exists():
            expected = unified_diff(str(beside), b"", beside.read_bytes()) + expected
        assert shown.stdout_bytes == expected

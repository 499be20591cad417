"""How ``migrate`` lays out what it writes: TODO comments wrap at the project's line length
(``line-length`` of ``[tool.ndd-migrate]``, else the formatter's, ruff's or black's, else 88),
and with ``format`` on (``--format`` or the key) the configured formatter runs on rewritten files."""

from __future__ import annotations

import json
import sys

from ndd_migrate.config import formatter_line_length
from tests.test_cli_contract import LEFTOVER, err, ndd, write

# Two TODOs of about 120 characters, one at two levels of indentation, one at three.
LOOP = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train(files, epochs):\n"
    "    for epoch in range(epochs):\n"
    "        reader = ndd.readers.File(files=files)\n"
    "        for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "            if epoch > 3:\n"
    "                break\n"
)


def migrated(tmp_path, config: str | None, *options) -> str:
    if config is not None:
        write(tmp_path / "pyproject.toml", config)
    path = write(tmp_path / "src" / "train.py", LOOP)
    ndd("migrate", *options, path, cwd=tmp_path)
    return path.read_text()


def todo_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def test_todos_wrap_at_ruffs_line_length_and_are_not_repeated(tmp_path):
    text = migrated(tmp_path, "[tool.ruff]\nline-length = 60\n")
    lines = todo_lines(text)
    assert len(lines) > 2 and all(len(line) <= 60 for line in lines), lines
    assert lines[0].strip().startswith("# TODO(ndd-migrate): NDD506") and lines[1].strip().startswith("#   ")
    ndd("migrate", tmp_path / "src" / "train.py", cwd=tmp_path)
    assert (tmp_path / "src" / "train.py").read_text() == text  # a wrapped TODO is recognised


def test_line_length_from_black_from_ours_and_the_default(tmp_path):
    assert max(map(len, todo_lines(migrated(tmp_path / "b", "[tool.black]\nline-length = 70\n")))) <= 70
    ours = "[tool.ruff]\nline-length = 60\n\n[tool.ndd-migrate]\nline-length = 100\n"
    lines = todo_lines(migrated(tmp_path / "o", ours))
    assert max(map(len, lines)) <= 100 and max(map(len, lines)) > 60
    lines = todo_lines(migrated(tmp_path / "d", None))
    assert max(map(len, lines)) <= 88 and len(lines) == 4


def test_ruff_toml_comes_before_pyproject(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path / "ruff.toml", "line-length = 72\n")
    (tmp_path / "sub").mkdir()
    assert formatter_line_length(tmp_path / "sub") == 72
    write(tmp_path / "sub" / "pyproject.toml", "[tool.ruff]\nselect = ['E']\n")  # configured, default length
    assert formatter_line_length(tmp_path / "sub") is None


# A "formatter" that quotes with double quotes, and one that fails.
QUOTES = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().replace(\"'\", '\"'))"]
FAILS = [sys.executable, "-c", "import sys; sys.exit('no such style')"]


def formatter_config(command, extra="") -> str:
    return "[tool.ndd-migrate]\nformatter = " + json.dumps(command) + "\n" + extra  # JSON strings are TOML strings


def test_the_formatter_runs_only_when_asked(tmp_path):
    write(tmp_path / "pyproject.toml", formatter_config(QUOTES))
    path = write(tmp_path / "a.py", LEFTOVER)
    ndd("migrate", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()  # off by default
    path.write_text(LEFTOVER)
    ndd("migrate", "--format", path, cwd=tmp_path)
    assert 'device="gpu"' in path.read_text()
    path.write_text(LEFTOVER)
    ndd("check", "--fix", "--format", path, cwd=tmp_path)
    assert 'device="gpu"' in path.read_text()


def test_the_format_key_and_a_failing_formatter(tmp_path):
    write(tmp_path / "pyproject.toml", formatter_config(FAILS, "format = true\n"))
    path = write(tmp_path / "a.py", LEFTOVER)
    done = ndd("migrate", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()  # the migration is written, unformatted
    assert "formatter" in err(done) and "no such style" in err(done) and done.returncode == 0
    path.write_text(LEFTOVER)
    ndd("migrate", "--no-format", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()

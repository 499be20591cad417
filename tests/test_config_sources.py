"""Configuration from `ndd-migrate.toml` / `.ndd-migrate.toml` (ruff's `ruff.toml`), and
`--config KEY=VALUE` (ruff's inline overrides), on real files in temporary folders."""

from __future__ import annotations

import json
import os

import pytest

from ndd_migrate.io.config_sources import ConfigArgumentError, config_arguments
from tests.conftest import SMALL_PIPELINE

RUN = "pipe = p('/data')\npipe.build()\nout = pipe.run()\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder, the current directory, with a pipeline module."""
    (tmp_path / "loader.py").write_text(SMALL_PIPELINE + "\n\n" + RUN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes(result) -> set[str]:
    assert result.exit_code in (0, 1), result.output
    return {d["code"] for d in json.loads(result.stdout)}


def check(cli, *args):
    return cli("check", "--no-cache", "--output-format", "json", *args, "loader.py")


def test_a_standalone_file_is_found_and_wins_over_pyproject(cli, project):
    """As ruff's `.ruff.toml` > `ruff.toml` > `pyproject.toml` in one folder: keys at the top level."""
    everything = codes(check(cli))
    assert {"NDD001", "NDD002", "NDD003"} <= everything
    (project / "pyproject.toml").write_text('[tool.ndd-migrate]\nselect = ["NDD001"]\n')
    assert codes(check(cli)) == {"NDD001"}
    (project / "ndd-migrate.toml").write_text('select = ["NDD002"]\n')
    assert codes(check(cli)) == {"NDD002"}
    (project / ".ndd-migrate.toml").write_text('select = ["NDD003"]\n')
    assert codes(check(cli)) == {"NDD003"}
    shown = cli("check", "--show-settings", "loader.py")
    assert str(project / ".ndd-migrate.toml") in shown.stdout


def test_a_standalone_file_with_a_bad_key_names_itself(cli, project):
    (project / "ndd-migrate.toml").write_text('selct = ["NDD002"]\n')
    result = check(cli)
    assert result.exit_code == 2 and "ndd-migrate.toml" in result.output and "'select'" in result.output


def test_inline_settings_override_every_file(cli, project):
    """`--config KEY=VALUE` is applied over the configuration file found (ruff's precedence);
    repeated, each adds one setting; an option given on the command line beside it wins."""
    (project / "pyproject.toml").write_text('[tool.ndd-migrate]\nselect = ["NDD001"]\n')
    assert codes(check(cli, "--config", "select = ['NDD002']")) == {"NDD002"}
    assert codes(check(cli, "--config", "select=['NDD0']", "--config", 'ignore=["NDD001"]')) == {"NDD002", "NDD003"}
    assert codes(check(cli, "--config", "select=['NDD0']", "--select", "NDD003")) == {"NDD003"}


def test_inline_line_length_reaches_the_todo_comments(cli, project):
    """`migrate --config line-length=40` wraps what it writes at 40 columns."""
    (project / "loader.py").write_text(SMALL_PIPELINE + "\n\n" + RUN + "blob = pipe.serialize()\n")
    result = cli("migrate", "--config", "line-length = 40", "loader.py")
    assert result.exit_code == 1, result.output
    todo = [line for line in (project / "loader.py").read_text().splitlines() if line.startswith("#")]
    assert todo and max(map(len, todo)) <= 40, todo


def test_config_file_and_inline_settings_together(cli, project, tmp_path_factory):
    """`--config FILE` (a standalone file anywhere) replaces discovery; an inline setting still
    goes over it; `--isolated` takes inline settings but no file."""
    elsewhere = tmp_path_factory.mktemp("conf") / "ndd-migrate.toml"
    elsewhere.write_text('select = ["NDD002"]\n')
    (project / "pyproject.toml").write_text('[tool.ndd-migrate]\nselect = ["NDD001"]\n')
    assert codes(check(cli, "--config", elsewhere)) == {"NDD002"}
    assert codes(check(cli, "--config", elsewhere, "--config", "extend-select=['NDD003']")) == {"NDD002", "NDD003"}
    assert codes(check(cli, "--isolated", "--config", "select=['NDD003']")) == {"NDD003"}
    assert check(cli, "--isolated", "--config", elsewhere).exit_code == 2


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("line-length = 'long'", "line-length: expected a number"),
        ("selekt = ['NDD1']", "did you mean 'select'"),
        ("lint.select = ['NDD1']", "write 'select' alone"),
        ("select = [", "neither a file nor a TOML"),
    ],
)
def test_bad_inline_settings_are_usage_errors(cli, project, value, says):
    result = check(cli, "--config", value)
    assert result.exit_code == 2 and says in result.output, result.output


def test_config_arguments_sorts_files_from_settings(tmp_path):
    file = tmp_path / "conf.toml"
    file.write_text("")
    assert config_arguments([str(file), "line-length=9", "format = true"]) == (
        file,
        {"line-length": 9, "format": True},
    )
    with pytest.raises(ConfigArgumentError, match="one configuration file at most"):
        config_arguments([str(file), os.fspath(file)])


def test_inline_per_file_ignores_are_relative_to_the_current_directory(cli, project):
    """A table value (`per-file-ignores`) is a setting too; its patterns, given on the command
    line, are relative to the current directory."""
    (project / "pkg").mkdir()
    (project / "pkg" / "loader.py").write_text((project / "loader.py").read_text())
    result = cli(
        "check",
        "--no-cache",
        "--output-format",
        "json",
        "--config",
        'per-file-ignores = {"pkg/*" = ["ALL"]}',
        ".",
    )
    assert {d["filename"] for d in json.loads(result.stdout)} == {"loader.py"}

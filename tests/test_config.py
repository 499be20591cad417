"""``[tool.ndd-migrate]``: ruff's selection semantics, discovery by walking up, path patterns, and
errors that name the file to fix."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ndd_migrate.io import config
from ndd_migrate.io.config import ConfigError, Configuration, Overrides, PathGlob, Settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def settings(cli: Overrides | None = None, **file) -> Settings:
    table = Overrides(**file).validated("test") if file else None
    return Settings.build(table, path=Path("/proj/pyproject.toml") if file else None, cli=cli, cwd=Path("/proj"))


# --- selection ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("select", "ignore", "code", "expected"),
    [
        (None, (), "NDD103", True),  # default: everything
        (["ALL"], ["NDD1"], "NDD103", False),
        (["ALL"], ["NDD1"], "NDD203", True),
        (["NDD1"], (), "NDD203", False),
        (["NDD1"], ["NDD103"], "NDD103", False),  # more specific ignore wins
        (["NDD1"], ["NDD103"], "NDD104", True),
        (["NDD103"], ["NDD1"], "NDD103", True),  # more specific select wins
        (["NDD103"], ["NDD1"], "NDD104", False),
        (["NDD10"], ["NDD10"], "NDD103", False),  # a tie goes to ignore
        (["NDD"], ["ALL"], "NDD103", True),
        ([], (), "NDD103", False),  # an empty select selects nothing
    ],
)
def test_selection(select, ignore, code, expected):
    assert settings(select=select, ignore=ignore).is_enabled(code) is expected


def test_extend_select_adds_to_select():
    s = settings(select=["NDD1"], extend_select=["NDD301"])
    assert s.is_enabled("NDD103") and s.is_enabled("NDD301") and not s.is_enabled("NDD302")


def test_command_line_layers_on_the_file():
    file = {"select": ["NDD1"], "ignore": ["NDD103"]}
    # --select starts afresh: the file's selection no longer applies
    s = settings(Overrides(select=["NDD2"]), **file)
    assert s.is_enabled("NDD201") and not s.is_enabled("NDD104")
    # --extend-select / --ignore adjust it
    s = settings(Overrides(extend_select=["NDD103", "NDD301"], ignore=["NDD104"]), **file)
    assert s.is_enabled("NDD103") and s.is_enabled("NDD301") and s.is_enabled("NDD105")
    assert not s.is_enabled("NDD104") and not s.is_enabled("NDD201")
    # a command-line --select of a code the file ignores brings it back
    assert settings(Overrides(select=["NDD103"]), **file).is_enabled("NDD103")


def test_per_file_ignores_win_over_select(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        '[tool.ndd-migrate]\nselect = ["NDD103", "NDD2"]\n'
        "[tool.ndd-migrate.per-file-ignores]\n"
        '"tests/*" = ["NDD1"]\n"__init__.py" = ["ALL"]\n"src/**/gen_*.py" = ["NDD201"]\n',
    )
    conf = Configuration(cwd=tmp_path)
    assert conf.is_enabled("NDD103", tmp_path / "src" / "a.py")
    assert not conf.is_enabled("NDD103", tmp_path / "tests" / "unit" / "test_a.py")
    assert conf.is_enabled("NDD201", tmp_path / "tests" / "test_a.py")
    assert not conf.is_enabled("NDD201", tmp_path / "src" / "pkg" / "__init__.py")
    assert not conf.is_enabled("NDD201", tmp_path / "src" / "x" / "y" / "gen_ops.py")
    assert conf.is_enabled("NDD202", tmp_path / "src" / "x" / "y" / "gen_ops.py")
    assert conf.is_enabled("NDD201", tmp_path / "srcgen_ops.py")


def test_command_line_per_file_ignores_are_relative_to_cwd(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate.per-file-ignores]\n"a.py" = ["ALL"]\n')
    conf = Configuration(Overrides(per_file_ignores={"sub/*": ["NDD1"]}), cwd=tmp_path)
    assert conf.is_enabled("NDD103", tmp_path / "a.py")  # replaced by the command line's
    assert not conf.is_enabled("NDD103", tmp_path / "sub" / "b.py")


# --- path patterns --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("build", "build/lib/a.py", True),
        ("build", "src/build/a.py", True),  # no slash: any component
        ("build", "src/builder.py", False),
        ("*_pb2.py", "proto/x_pb2.py", True),
        ("src/legacy", "src/legacy/a.py", True),  # a directory covers what is below it
        ("src/legacy/", "src/legacy/a.py", True),
        ("./src/legacy", "src/legacy/a.py", True),
        ("src/legacy", "lib/src/legacy/a.py", False),  # with a slash: anchored at the base
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),  # `*` does not cross `/`
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/sub/deep/a.py", True),
        ("**/gen/*.py", "x/y/gen/a.py", True),
        ("a?.py", "ab.py", True),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "b.py", False),
        ("tests/*", "tests/unit/test_a.py", True),
        ("legacy", "../outside/legacy/a.py", False),  # outside the base directory
    ],
)
def test_path_patterns(pattern, path, expected):
    base = Path("/proj")
    assert PathGlob.compile(pattern, base).matches(base / path) is expected


def test_absolute_pattern():
    assert PathGlob.compile("/proj/vendor", "/elsewhere").matches("/proj/vendor/a.py")
    assert not PathGlob.compile("/proj/vendor", "/elsewhere").matches("/other/proj/vendor/a.py")


def test_default_exclude_and_replacement(tmp_path):
    assert settings().is_excluded("/proj/.venv/lib/site-packages/x.py")
    assert settings().is_excluded("/proj/build")
    assert not settings().is_excluded("/proj/src/x.py")
    s = settings(exclude=["legacy/"])
    assert s.is_excluded("/proj/legacy/a.py") and not s.is_excluded("/proj/.venv/x.py")  # replaces defaults
    s = settings(extend_exclude=["legacy/"])
    assert s.is_excluded("/proj/legacy/a.py") and s.is_excluded("/proj/.venv/x.py")  # adds to them
    s = settings(Overrides(exclude=["other"]), exclude=["legacy"])
    assert s.is_excluded("/proj/other/a.py") and not s.is_excluded("/proj/legacy/a.py")


def test_default_excludes_are_relative_to_the_project(tmp_path):
    """A project that itself lives under a directory called `build` is still checked."""
    project = tmp_path / "build" / "proj"
    write(project / "pyproject.toml", "[tool.ndd-migrate]\n")
    conf = Configuration(cwd=project)
    assert not conf.is_excluded(project / "src" / "a.py")
    assert conf.is_excluded(project / "build" / "a.py")


# --- discovery ------------------------------------------------------------------------------------


def test_nearest_table_wins_and_tables_are_required(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate]\nignore = ["NDD1"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')  # no table: keep walking
    write(tmp_path / "pkg" / "sub" / "pyproject.toml", '[tool.ndd-migrate]\nignore = ["NDD2"]\n')
    conf = Configuration(cwd=tmp_path)
    assert conf.for_path(tmp_path / "pkg" / "a.py").path == tmp_path / "pyproject.toml"
    assert not conf.is_enabled("NDD103", tmp_path / "pkg" / "a.py")
    deep = tmp_path / "pkg" / "sub" / "x" / "b.py"
    assert conf.for_path(deep).path == tmp_path / "pkg" / "sub" / "pyproject.toml"
    assert conf.is_enabled("NDD103", deep) and not conf.is_enabled("NDD201", deep)


def test_no_config_anywhere_means_defaults(tmp_path, monkeypatch):
    monkeypatch.setattr(config.Configuration, "find_config", lambda self, directory: None)
    conf = Configuration(Overrides(ignore=["NDD9"]), cwd=tmp_path)
    s = conf.for_path(tmp_path / "a.py")
    assert s.path is None and s.root == tmp_path
    assert s.is_enabled("NDD103") and not s.is_enabled("NDD901")


def test_each_pyproject_is_read_once(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", "[tool.ndd-migrate]\n")
    write(tmp_path / "a" / "pyproject.toml", "[project]\nname='a'\n")
    reads: list[Path] = []
    real = config.read_table
    monkeypatch.setattr(config, "read_table", lambda path: reads.append(path) or real(path))
    conf = Configuration(cwd=tmp_path)
    for i in range(50):
        conf.for_path(tmp_path / "a" / "b" / f"f{i}.py")
        conf.for_path(tmp_path / "a" / f"g{i}.py")
        conf.for_path(tmp_path / f"h{i}.py")
    assert sorted(reads) == sorted({tmp_path / "pyproject.toml", tmp_path / "a" / "pyproject.toml"})
    assert len(reads) == 2


def test_explicit_config_file_applies_everywhere(tmp_path):
    explicit = write(tmp_path / "conf" / "pyproject.toml", '[tool.ndd-migrate]\nselect = ["NDD2"]\n')
    write(tmp_path / "src" / "pyproject.toml", '[tool.ndd-migrate]\nselect = ["NDD1"]\n')
    conf = Configuration(config_file=explicit, cwd=tmp_path)
    assert conf.is_enabled("NDD201", tmp_path / "src" / "a.py")
    assert not conf.is_enabled("NDD103", tmp_path / "src" / "a.py")


def test_explicit_config_file_without_table(tmp_path):
    path = write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: no \[tool\.ndd-migrate\] table"):
        Configuration(config_file=path)


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('selct = ["NDD1"]', r"unknown key 'selct' in \[tool.ndd-migrate\]; did you mean 'select'\?"),
        ('extend_select = ["NDD1"]', r"did you mean 'extend-select'"),
        ("frobnicate = 1", r"unknown key 'frobnicate'.*known keys: select"),
        ('select = ["E501"]', r"select: bad rule selector 'E501'"),
        ('select = ["ndd103"]', r"bad rule selector 'ndd103'"),
        ('select = ["NDD1034"]', r"bad rule selector 'NDD1034'"),
        ('ignore = "NDD1"', r"ignore: expected a list of rule codes"),
        ("exclude = [1]", r"exclude: bad path pattern 1"),
        ('per-file-ignores = ["a"]', r"per-file-ignores: expected a table"),
        ('per-file-ignores = { "a.py" = ["X1"] }', r"per-file-ignores\.'a\.py': bad rule selector 'X1'"),
        ("select = [", r"invalid TOML"),
    ],
)
def test_bad_config_names_the_file(tmp_path, body, message):
    path = write(tmp_path / "pyproject.toml", f"[tool.ndd-migrate]\n{body}\n")
    with pytest.raises(ConfigError, match=message) as info:
        Configuration(cwd=tmp_path).for_path(tmp_path / "a.py")
    assert info.value.source == str(path)
    assert str(info.value).startswith(f"{path}: ")


def test_malformed_toml_without_our_table_is_still_an_error(tmp_path):
    """We cannot know whether a broken pyproject.toml was meant to configure us."""
    path = write(tmp_path / "pyproject.toml", "[project\n")
    with pytest.raises(ConfigError, match="invalid TOML") as info:
        Configuration(cwd=tmp_path).for_path(tmp_path / "a.py")
    assert info.value.source == str(path)


def test_table_must_be_a_table(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool]\nndd-migrate = "yes"\n')
    with pytest.raises(ConfigError, match=r"\[tool.ndd-migrate\] must be a table"):
        Configuration(cwd=tmp_path).for_path(tmp_path / "a.py")


def test_bad_command_line_option():
    with pytest.raises(ConfigError, match=r"^command line: extend-select: bad rule selector 'F401'"):
        Configuration(Overrides(extend_select=["F401"]))


def test_unmatched_selectors_are_reported_for_warnings():
    s = settings(
        Overrides(extend_select=["NDD7"]),
        select=["NDD1", "NDD193"],
        per_file_ignores={"a.py": ["NDD55"]},
    )
    assert s.unmatched_selectors(["NDD101", "NDD103", "NDD501"]) == ["NDD193", "NDD55", "NDD7"]


def test_relative_paths_are_relative_to_the_current_directory(tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", '[tool.ndd-migrate.per-file-ignores]\n"tests/*" = ["ALL"]\n')
    monkeypatch.chdir(tmp_path)
    conf = Configuration()
    assert not conf.is_enabled("NDD103", os.path.join("tests", "a.py"))
    assert conf.is_enabled("NDD103", "a.py")


def test_relative_parts_is_lexical_like_relpath():
    from ndd_migrate.io.path_globs import relative_parts

    assert relative_parts("/proj/src/a.py", "/proj") == ["src", "a.py"]
    assert relative_parts("/proj", "/proj") == ["."]
    assert relative_parts("/project/a.py", "/proj") is None  # a sibling with a longer name
    assert relative_parts("/other/a.py", "/proj") is None
    assert relative_parts("/a.py", "/") == ["a.py"]


def test_isolated_reads_no_configuration(cli, tmp_path, monkeypatch):
    """`--isolated` (ruff's): the project's `[tool.ndd-migrate]` (here ignoring NDD002) and a
    formatter's line length are not read; with `--config` it is a usage error."""
    (tmp_path / "pyproject.toml").write_text('[tool.ndd-migrate]\nignore = ["NDD002", "NDD001", "NDD008"]\n')
    (tmp_path / "a.py").write_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\n"
        "def p():\n    return fn.random.uniform(range=[0, 1])\n\n\npipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    monkeypatch.chdir(tmp_path)
    assert "NDD002" not in cli("check", "--no-cache", "a.py").stdout
    assert "NDD002" in cli("check", "--no-cache", "--isolated", "a.py").stdout
    assert cli("check", "--isolated", "--config", "pyproject.toml", "a.py").exit_code == 2
    settings = Configuration(cwd=tmp_path, isolated=True)
    assert settings.find_config(tmp_path) is None and settings.line_length(tmp_path / "a.py") == 88


def test_show_settings_prints_what_governs_the_file(cli, tmp_path, monkeypatch):
    """`check --show-settings` (ruff's): the configuration found, the rules on and off after the file
    and the command line, the cache, the line length; nothing is checked."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ndd-migrate]\nignore = ["NDD5"]\nline-length = 100\ncache-dir = "build/cache"\n'
    )
    (tmp_path / "a.py").write_text("from nvidia.dali import fn\n")
    monkeypatch.chdir(tmp_path)
    done = cli("check", "--show-settings", "--extend-select", "NDD501", "a.py")
    assert done.exit_code == 0, done.stderr
    rows = dict(re.match(r"(\S+(?: \S+)?)\s{2,}(.*)$", line).groups() for line in done.stdout.splitlines())
    assert rows["configuration"] == str(tmp_path / "pyproject.toml")
    assert "NDD501" in rows["rules on"] and "NDD502" in rows["rules off"] and "NDD501" not in rows["rules off"]
    assert rows["line-length"] == "100" and rows["cache-dir"] == str(tmp_path / "build" / "cache")
    assert not (tmp_path / "build").exists()  # nothing ran

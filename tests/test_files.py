"""Discovery, the byte prefilter, and reading/writing files without losing a byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ndd_migrate.io import files
from ndd_migrate.io.config import Configuration
from ndd_migrate.io.diagnostics import FileError
from ndd_migrate.io.discovery import discover
from ndd_migrate.io.files import (
    SourceError,
    SourceText,
    decode_source,
    mentions_dali,
    read_source,
)
from ndd_migrate.io.writing import write_source


def make_tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("import nvidia.dali.fn as fn\n")


def relative(paths: list[str], root: Path) -> list[str]:
    return [Path(path).relative_to(root).as_posix() for path in paths]


def no_temporary_files(directory: Path) -> bool:
    return not [path for path in directory.iterdir() if path.name.endswith(".ndd-tmp")]


# --------------------------------------------------------------------------------------- discovery


def test_discover_walks_nested_directories_sorted(tmp_path):
    make_tree(
        tmp_path,
        ["b.py", "a/z.py", "a/b/c/deep.py", "a/nb.ipynb", "notes.txt", "a/setup.cfg", "a/stub.pyi"],
    )
    assert relative(discover([tmp_path], root=tmp_path), tmp_path) == [
        "a/b/c/deep.py",
        "a/nb.ipynb",
        "a/z.py",
        "b.py",
    ]


@pytest.mark.parametrize("given", [".", "./", "src", "src/", "./src//", "ABS", "ABS/src"])
def test_discover_shows_and_orders_paths_as_pathlib_does(tmp_path, monkeypatch, given):
    """The walk builds plain strings; they are what ``Path(top, *names)`` shows, in the order of
    its parts (not of the strings: ``a/z.py`` comes before ``a-b.py`` and ``a/b/c.py`` after
    ``a.py``... as pathlib orders them)."""
    make_tree(tmp_path, ["src/a.py", "src/a-b.py", "src/a/z.py", "src/a/b/c.py", "src/a.b/d.py", "src/A.py"])
    monkeypatch.chdir(tmp_path)
    top = given.replace("ABS", str(tmp_path))
    expected = sorted(
        (Path(folder, name) for folder, _, names in os.walk(top) for name in names), key=lambda path: path.parts
    )
    assert discover([top]) == [str(path) for path in expected]


def test_discover_skips_tool_and_environment_directories(tmp_path):
    skipped = [
        ".git/hooks/x.py",
        ".hg/x.py",
        ".venv/lib/x.py",
        "venv/x.py",
        "pkg/__pycache__/x.py",
        "node_modules/x.py",
        "build/lib/x.py",
        "dist/x.py",
        ".tox/py311/x.py",
        ".eggs/x.py",
        "lib/python3.11/site-packages/x.py",
        "nbs/.ipynb_checkpoints/nb-checkpoint.ipynb",
    ]
    make_tree(tmp_path, ["pkg/keep.py", "nbs/nb.ipynb", *skipped])
    assert relative(discover([tmp_path], root=tmp_path), tmp_path) == [
        "nbs/nb.ipynb",
        "pkg/keep.py",
    ]


def test_discover_excludes_by_name_relative_path_and_glob(tmp_path):
    make_tree(
        tmp_path,
        [
            "src/app.py",
            "src/legacy/old.py",
            "src/gen/x_pb2.py",
            "src/gen/keep.py",
            "src/proto_pb2.py",
            "tests/fixtures/f.py",
            "fixtures/top.py",
            "third_party/lib/t.py",
        ],
    )
    found = discover(
        [tmp_path],
        exclude=["legacy", "*_pb2.py", "src/gen/keep.py", "**/fixtures", "./third_party/"],
        root=tmp_path,
    )
    assert relative(found, tmp_path) == ["src/app.py"]


def test_discover_matches_relative_patterns_against_root(tmp_path, monkeypatch):
    make_tree(tmp_path, ["proj/src/gen/a.py", "proj/src/b.py"])
    monkeypatch.chdir(tmp_path / "proj")
    assert discover(["src"], exclude=["src/gen"]) == ["src/b.py"]


@pytest.mark.parametrize("given", ["./", "src/", "."])
def test_excludes_hold_below_a_folder_given_with_a_trailing_slash(tmp_path, monkeypatch, given):
    """`check ./` (a shell completes folders so) walked `./src/gen` as `<root>src/gen`: the
    patterns missed every folder two levels down, and `src/gen` was checked."""
    make_tree(tmp_path, ["src/gen/deep/a.py", "src/ok/b.py"])
    (tmp_path / "pyproject.toml").write_text('[tool.ndd-migrate]\nextend-exclude = ["src/gen"]\n')
    monkeypatch.chdir(tmp_path)
    configuration = Configuration()
    for names_excluded in (None, configuration.names_excluded):
        found = discover([given], is_excluded=configuration.is_excluded, names_excluded=names_excluded)
        assert found == ["src/ok/b.py"]
    found = discover([given], exclude=["src/gen"])
    assert found == ["src/ok/b.py"]


def test_discover_uses_the_project_configuration(tmp_path):
    make_tree(tmp_path, ["src/a.py", "src/legacy/old.py", ".venv/x.py", "vendor/v.py"])
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.ndd-migrate]\nextend-exclude = ["legacy"]\n')
    configuration = Configuration(cwd=tmp_path)
    found = discover([tmp_path], ["vendor"], root=tmp_path, is_excluded=configuration.is_excluded)
    assert relative(found, tmp_path) == ["src/a.py"]

    # A project's own `exclude` replaces the default list, as in ruff: nothing is skipped unasked.
    pyproject.write_text('[tool.ndd-migrate]\nexclude = ["legacy"]\n')
    found = discover([tmp_path], root=tmp_path, is_excluded=Configuration(cwd=tmp_path).is_excluded)
    assert relative(found, tmp_path) == [".venv/x.py", "src/a.py", "vendor/v.py"]


def test_discover_extensions(tmp_path):
    make_tree(tmp_path, ["a.py", "b.ipynb", "c.pyi"])
    assert relative(discover([tmp_path], extensions=(".pyi",)), tmp_path) == ["c.pyi"]


def test_explicit_files_are_included_whatever_their_extension_or_excludes(tmp_path):
    make_tree(tmp_path, ["script", "legacy/old.py", ".venv/x.py"])
    named = [tmp_path / "script", tmp_path / "legacy/old.py", tmp_path / ".venv/x.py"]
    found = discover(named, exclude=["legacy"], root=tmp_path)
    assert relative(found, tmp_path) == [".venv/x.py", "legacy/old.py", "script"]


def test_force_exclude_applies_excludes_to_explicit_files(tmp_path):
    make_tree(tmp_path, ["keep.py", "legacy/old.py", "legacy/sub/deeper.py", ".venv/x.py"])
    named = ["keep.py", "legacy/old.py", "legacy/sub/deeper.py", ".venv/x.py", "legacy"]
    found = discover([tmp_path / name for name in named], exclude=["legacy"], root=tmp_path, force_exclude=True)
    assert relative(found, tmp_path) == ["keep.py"]


def test_discover_returns_each_file_once(tmp_path):
    make_tree(tmp_path, ["pkg/a.py"])
    (tmp_path / "pkg/link.py").symlink_to(tmp_path / "pkg/a.py")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    found = discover([tmp_path / "pkg", tmp_path / "pkg/a.py", tmp_path], root=tmp_path)
    assert relative(found, tmp_path) == ["pkg/a.py"]


def test_discover_returns_a_missing_path_for_its_read_to_fail(tmp_path):
    """A missing path is that path's error when read, not the end of the run (ruff's E902)."""
    missing = tmp_path / "nope.py"
    (tmp_path / "a.py").write_text("x = 1\n")
    assert discover([missing, tmp_path / "a.py"]) == [str(tmp_path / "a.py"), str(missing)]


def test_real_path_is_realpath_with_each_directory_resolved_once(tmp_path, monkeypatch):
    """files.real_path (discovery, and the cross-file passes over a whole project) gives what
    os.path.realpath gives: through a symlinked directory, for a symlinked file, for a path that
    does not exist, relative or absolute."""
    make_tree(tmp_path, ["real/a.py", "real/sub/b.py", "other/c.py", "real/sub/other/d.py"])
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    (tmp_path / "deep").symlink_to(tmp_path / "real" / "sub", target_is_directory=True)
    (tmp_path / "real" / "to_c.py").symlink_to(tmp_path / "other" / "c.py")
    monkeypatch.chdir(tmp_path)
    paths = ["real/a.py", "linked/a.py", "linked/sub/b.py", "real/to_c.py", "linked/to_c.py", "linked/gone.py"]
    paths += ["deep/../other/d.py", "deep/../other/c.py", "./real/../other/c.py", "a.py", "./real//a.py", "real/."]
    paths += [str(tmp_path / p) for p in paths]
    real_dirs: dict[str, str] = {}
    for _ in range(2):  # the second time from the directories remembered
        assert [files.real_path(p, real_dirs) for p in paths] == [os.path.realpath(p) for p in paths]


# --------------------------------------------------------------------------------------- prefilter


@pytest.mark.parametrize(
    "source",
    [
        b"import nvidia.dali.fn as fn\n",
        b"from nvidia import dali\n",
        b"from nvidia.dali import pipeline_def, Pipeline\n",
        b"from nvidia.dali.plugin.pytorch import DALIGenericIterator\n",
        b"import nvidia.dali.experimental.dynamic as ndd\n",
        b"from nvidia.dali.experimental import dynamic as ndd\n",
        b"from nvidia . dali import fn\n",
        b"fn = __import__('nvidia.dali.fn', fromlist=['fn'])\n",
        b"# -*- coding: latin-1 -*-\nimport nvidia.dali as d  # caf\xe9\n",
        b'{"cells": [{"source": ["import nvidia.dali.fn as fn\\n"]}]}',
    ],
)
def test_prefilter_catches_every_import_form(source):
    assert mentions_dali(source)


def test_prefilter_skips_files_without_dali():
    assert not mentions_dali(b"import numpy as np\nprint('DALI')\n")
    assert not mentions_dali(b"")


# ------------------------------------------------------------------------------- reading, writing


def test_crlf_and_mixed_newlines_round_trip_byte_for_byte(tmp_path):
    path = tmp_path / "crlf.py"
    raw = b"import nvidia.dali.fn as fn\r\n\r\nx = 1\ry = 2\nz = 3\r\n"
    path.write_bytes(raw)
    source = read_source(path)
    assert source.text == raw.decode()
    assert (source.encoding, source.bom) == ("utf-8", False)
    write_source(path, source.text.replace("x = 1", "x = 10"), source)
    assert path.read_bytes() == raw.replace(b"x = 1", b"x = 10")


def test_latin1_cookie_round_trips_non_ascii_text(tmp_path):
    path = tmp_path / "latin.py"
    raw = "# -*- coding: latin-1 -*-\r\n# Größe: café\r\nx = 'é'\r\n".encode("latin-1")
    path.write_bytes(raw)
    source = read_source(path)
    assert source.encoding == "iso-8859-1"
    assert "café" in source.text
    write_source(path, source.text.replace("x = ", "y = "), source)
    assert path.read_bytes() == raw.replace(b"x = ", b"y = ")


def test_bom_is_kept(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbfx = '\xc3\xa9'\n")
    source = read_source(path)
    assert source.bom and source.text == "x = 'é'\n"
    write_source(path, "y = 'é'\n", source)
    assert path.read_bytes() == b"\xef\xbb\xbfy = '\xc3\xa9'\n"


def test_notebooks_are_utf8_whatever_a_cell_says(tmp_path):
    raw = '{"cells": [], "x": "# -*- coding: latin-1 -*-é"}\n'.encode()
    assert decode_source(raw, tmp_path / "nb.ipynb").text == raw.decode()


def test_permission_bits_are_kept(tmp_path):
    path = tmp_path / "tool.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o755)
    write_source(path, "x = 2\n", read_source(path))
    assert path.stat().st_mode & 0o7777 == 0o755
    assert path.read_bytes() == b"x = 2\n"
    assert no_temporary_files(tmp_path)


def test_symlink_is_written_through_and_kept(tmp_path):
    target = tmp_path / "real.py"
    target.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    write_source(link, "x = 2\n", read_source(link))
    assert link.is_symlink()
    assert target.read_bytes() == b"x = 2\n"


def test_failure_mid_write_leaves_original_and_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    raw = b"import nvidia.dali.fn as fn\r\nx = 1\r\n"
    path.write_bytes(raw)
    source = read_source(path)

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(SourceError) as error:
        write_source(path, "x = 2\r\n", source)
    assert error.value.path == str(path)
    assert "No space left" in error.value.message
    assert path.read_bytes() == raw
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_interrupt_mid_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_source(path, "x = 2\n", source)
    assert path.read_bytes() == b"x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_unencodable_new_text_raises_and_leaves_file(tmp_path):
    path = tmp_path / "latin.py"
    raw = b"# coding: latin-1\nx = 1\n"
    path.write_bytes(raw)
    with pytest.raises(SourceError) as error:
        write_source(path, "# coding: latin-1\nx = 1\ny = '\u2192'\n", read_source(path))
    assert error.value.line == 3
    assert "iso-8859-1" in error.value.message
    assert path.read_bytes() == raw
    assert no_temporary_files(tmp_path)


def test_file_changed_on_disk_is_not_overwritten(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    path.write_bytes(b"x = 1  # edited meanwhile\n")
    with pytest.raises(SourceError, match="changed on disk"):
        write_source(path, "x = 2\n", source)
    assert path.read_bytes() == b"x = 1  # edited meanwhile\n"


def test_unchanged_text_is_not_written(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    source = read_source(path)
    os.utime(path, (1_000_000, 1_000_000))
    write_source(path, source.text, source)
    assert path.stat().st_mtime == 1_000_000


def test_undecodable_file_raises_with_path_and_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = 1\r\ny = 2\r\nz = '\xff'\n")
    with pytest.raises(SourceError) as error:
        read_source(path)
    assert (error.value.path, error.value.line) == (str(path), 3)
    assert "0xff" in error.value.message
    assert error.value.to_file_error() == FileError(str(path), error.value.message, 3)


def test_unknown_codec_raises_at_the_cookie_line(tmp_path):
    path = tmp_path / "odd.py"
    path.write_bytes(b"#!/usr/bin/env python\n# coding: no-such-codec\nx = 1\n")
    with pytest.raises(SourceError) as error:
        read_source(path)
    assert (error.value.path, error.value.line) == (str(path), 2)


def test_unreadable_path_raises_with_path(tmp_path):
    with pytest.raises(SourceError) as error:
        read_source(tmp_path)
    assert error.value.path == str(tmp_path)


def test_source_text_is_frozen():
    source = SourceText("x", "utf-8", False, b"x")
    with pytest.raises(AttributeError):
        source.text = "y"


def test_discovery_modules_do_not_import_libcst():
    code = (
        "import sys, ndd_migrate.io.discovery, ndd_migrate.io.files, ndd_migrate.io.indentation,"
        " ndd_migrate.io.newlines, ndd_migrate.io.notebooks, ndd_migrate.io.writing\n"
        "assert 'libcst' not in sys.modules, 'libcst imported'\n"
    )
    root = Path(files.__file__).parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)

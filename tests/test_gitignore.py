"""What a directory walk leaves out: what ``.gitignore`` files ignore (inside a git repository,
read by ndd_migrate/io/gitignore.py, no git needed), and files marked ``@generated`` in their header,
both on by default and both with a flag and a configuration key to turn them off."""

from __future__ import annotations

import json
import os

from ndd_migrate.io import files
from ndd_migrate.io.gitignore import Ignored, parse
from tests.test_cli_contract import LEFTOVER, ndd, out, write

MARK = "@" + "generated"


def ignored(patterns: str, path: str, is_dir: bool = False) -> bool:
    decision = False
    for pattern in parse(patterns):
        if pattern.directories_only and not is_dir:
            continue
        if pattern.regex.match(path):
            decision = not pattern.negated
    return decision


def test_gitignore_pattern_syntax():
    assert ignored("*.py", "a.py") and ignored("*.py", "deep/er/a.py")
    assert ignored("/top.py", "top.py") and not ignored("/top.py", "sub/top.py")
    assert ignored("sub/a.py", "sub/a.py") and not ignored("sub/a.py", "x/sub/a.py")
    assert ignored("gen/", "gen", is_dir=True) and not ignored("gen/", "gen")
    assert ignored("*.py\n!keep.py", "a.py") and not ignored("*.py\n!keep.py", "keep.py")
    assert (
        ignored("**/out", "a/b/out", is_dir=True)
        and ignored("a/**/z.py", "a/z.py")
        and ignored("a/**/z.py", "a/b/c/z.py")
    )
    assert ignored("build/**", "build/x/y.py") and not ignored("build/**", "build")
    assert ignored("data?.py", "data1.py") and ignored("[ab].py", "b.py") and not ignored("[!ab].py", "a.py")
    assert not ignored("# comment\n\n", "# comment") and ignored("\\#hash.py", "#hash.py")
    assert ignored("trailing.py   ", "trailing.py")


def test_nested_files_and_info_exclude_outside_a_repository_nothing(tmp_path):
    (tmp_path / ".git" / "info").mkdir(parents=True)
    write(tmp_path / ".git" / "info" / "exclude", "local.py\n")
    write(tmp_path / ".gitignore", "*_gen.py\n")
    write(tmp_path / "pkg" / ".gitignore", "!keep_gen.py\nsecret/\n")
    check = Ignored(str(tmp_path / "pkg"))
    assert check(str(tmp_path / "pkg" / "x_gen.py"), False) and not check(str(tmp_path / "pkg" / "keep_gen.py"), False)
    assert check(str(tmp_path / "pkg" / "secret"), True) and check(str(tmp_path / "local.py"), False)
    assert not Ignored(str(tmp_path.parent / "elsewhere"))(str(tmp_path.parent / "elsewhere" / "a_gen.py"), False)


def test_files_asked_by_name_are_ignored_as_by_path(tmp_path):
    """Discovery asks about a directory's files by name (Ignored.names_in): the same answers as
    the whole path gives, with nested files, negations, anchored and directory-only patterns."""
    (tmp_path / ".git" / "info").mkdir(parents=True)
    write(tmp_path / ".git" / "info" / "exclude", "local.py\n")
    write(tmp_path / ".gitignore", "*_gen.py\n/top.py\nsub/deep.py\n**/out/x.py\ndirs/\n..odd.py\n")
    write(tmp_path / "sub" / ".gitignore", "!keep_gen.py\ninner/*.py\n!inner/kept.py\n")
    write(tmp_path / "sub" / "inner" / ".gitignore", "*.pyx\nlast.py\n")
    directories = ["", "sub", "sub/inner", "sub/inner/more", "other/out", "dirs", "..x"]
    names = ["a.py", "x_gen.py", "keep_gen.py", "top.py", "deep.py", "x.py", "kept.py", "last.py", "local.py"]
    names += ["dirs", "..odd.py", "inner"]
    check = Ignored(str(tmp_path / "sub"))
    seen = set()
    for directory in directories:
        absolute = os.path.normpath(os.path.join(tmp_path, directory))
        by_name = check.names_in(absolute)
        for name in names:
            expected = check(os.path.join(absolute, name), False)
            assert by_name(name) == expected, (directory, name)
            seen.add(expected)
    assert seen == {True, False}
    assert not Ignored(str(tmp_path.parent)).names_in(str(tmp_path.parent))("a_gen.py")


def tree(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".gitignore", "scratch/\nold_*.py\n")
    for name in ("a.py", "scratch/b.py", "old_c.py"):
        write(tmp_path / name, LEFTOVER)
    write(tmp_path / "gen.py", f"# {MARK} by protoc; do not edit\n" + LEFTOVER)
    return tmp_path


def checked(tmp_path, *options, paths=(".",)):
    done = ndd("check", "--no-cache", "--output-format", "json", *options, *paths, cwd=tmp_path)
    return sorted({f["filename"] for f in json.loads(out(done))})


def test_check_and_migrate_skip_ignored_and_generated_files_by_default(tmp_path):
    tree(tmp_path)
    assert checked(tmp_path) == ["a.py"]
    assert checked(tmp_path, "--no-respect-gitignore") == ["a.py", "old_c.py", "scratch/b.py"]
    assert checked(tmp_path, "--include-generated") == ["a.py", "gen.py"]
    assert checked(tmp_path, paths=["old_c.py"]) == ["old_c.py"]  # named explicitly: taken all the same
    done = ndd("migrate", ".", cwd=tmp_path)
    assert "device='gpu'" in (tmp_path / "a.py").read_text(), done.stderr
    assert all("device='mixed'" in (tmp_path / n).read_text() for n in ("scratch/b.py", "old_c.py", "gen.py"))


def test_configuration_keys_turn_both_off(tmp_path):
    tree(tmp_path)
    write(tmp_path / "pyproject.toml", "[tool.ndd-migrate]\nrespect-gitignore = false\ninclude-generated = true\n")
    assert checked(tmp_path) == ["a.py", "gen.py", "old_c.py", "scratch/b.py"]
    assert checked(tmp_path, "--respect-gitignore") == ["a.py", "gen.py"]
    write(tmp_path / "pyproject.toml", "[tool.ndd-migrate]\nrespect-gitignore = 1\n")
    done = ndd("check", ".", cwd=tmp_path)
    assert done.returncode == 2 and "respect-gitignore: expected true or false" in done.stderr.decode()


def test_the_generated_mark_counts_only_in_the_header():
    assert files.is_generated(f'"""{MARK} file."""\n'.encode())
    assert not files.is_generated(("x = 1\n" * 20 + f"# mentions {MARK}\n").encode())

"""``[tool.ndd-migrate]`` in ``pyproject.toml`` (or ``ndd-migrate.toml``), merged with command-line
options, ruff-style.

Keys::

    [tool.ndd-migrate]
    select = ["ALL"]              # codes or prefixes to report (default: every rule)
    extend-select = []            # added to select (useful when select comes from elsewhere)
    ignore = ["NDD9"]             # codes or prefixes not to report
    exclude = ["legacy/"]         # paths not to check; replaces the default list
    extend-exclude = []           # paths not to check, on top of exclude
    per-file-ignores = { "tests/*" = ["NDD5"] }
    respect-gitignore = true      # leave out what .gitignore files ignore when walking directories
    include-generated = false     # check and migrate files marked @generated in their header
    cache-dir = ".ndd_migrate_cache"  # where `check` keeps results (relative to this file)
    line-length = 88              # TODO comments wrap here (default: ruff's or black's, else 88)
    format = false                # run `formatter` on the files migrate/--fix rewrite
    formatter = ["ruff", "format", "-"]  # reads the code on stdin, writes it formatted on stdout
    support-module = "src/pkg/ndd_support.py"  # where migrated modules import their support from
    capture = false               # migrate writes captured loops (next_epoch(capture=True)) where proven

Why ruff's semantics: users of the lint already know them from ruff, and they make project-wide
settings overridable without restating them. In particular:

* A selector is ``ALL``, ``NDD``, or ``NDD`` and up to three digits; it selects every code it
  prefixes (``NDD1`` → all operator rules).
* For a code, the most specific matching selector among select/extend-select/ignore decides; on a
  tie, ignore wins. So ``select = ["NDD1"], ignore = ["NDD103"]`` drops NDD103 only, and
  ``select = ["NDD103"], ignore = ["NDD1"]`` keeps it.
* Sources are layered: built-in default (``select = ["ALL"]`` but the opt-in rules,
  :data:`~ndd_migrate.io.policy.OPT_IN`: a layer that selects them, by name, prefix or ``ALL``,
  turns them on), then the file, then the command
  line. A layer that sets ``select`` starts afresh; one that only extends or ignores adjusts the
  layer below. ``per-file-ignores`` applies last and always wins.
* The settings for a file come from the first configuration file walking up from the file's
  directory: ``.ndd-migrate.toml`` or ``ndd-migrate.toml`` (the keys at the top level, as ruff's
  ``ruff.toml``), else a ``pyproject.toml`` with a ``[tool.ndd-migrate]`` table, in that order of
  precedence within one directory (lookups are cached per directory, so a large tree
  reads each ``pyproject.toml`` once). Path patterns in a file are relative to that file's
  directory; patterns given on the command line are relative to the current directory.

Path patterns are globs over ``/``-separated paths: ``*`` and ``?`` stay within one path component,
``**`` spans any number of them. A pattern without ``/`` matches any single component (``build``
excludes every ``build`` directory, ``*_pb2.py`` every such file); a pattern with ``/`` matches from
the base directory, and matching a directory covers everything below it (``tests/*`` covers
``tests/unit/test_a.py``).

This module is on the pre-commit path: it imports only the standard library.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ndd_migrate.io.config_sources import formatter_line_length
from ndd_migrate.io.path_globs import Excludes, PathGlob
from ndd_migrate.io.policy import OPT_IN

TABLE = "ndd-migrate"
#: The configuration files of a directory, the first found winning (ruff's order: ``.ruff.toml``,
#: ``ruff.toml``, ``pyproject.toml``). The first two hold the keys at the top level.
CONFIG_FILES = (".ndd-migrate.toml", "ndd-migrate.toml", "pyproject.toml")
KEYS = (
    "select",
    "extend-select",
    "ignore",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "respect-gitignore",
    "include-generated",
    "cache-dir",
    "line-length",
    "format",
    "formatter",
    "support-module",
    "capture",
)
#: The line length when no configuration gives one: ruff's and black's default.
DEFAULT_LINE_LENGTH = 88
#: The formatter when ``format`` is on and no ``formatter`` is given.
DEFAULT_FORMATTER = ("ruff", "format", "-")
SELECTOR_RE = re.compile(r"^(?:ALL|NDD\d{0,3})$")

#: Excluded unless ``exclude`` replaces them: tool caches, environments and build output, where
#: DALI code is vendored or generated rather than written.
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".ndd_migrate_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


class ConfigError(Exception):
    """Configuration that cannot be used. ``source`` names the file (or ``command line``) so the
    user knows what to edit; the CLI prints the message and exits with status 2."""

    def __init__(self, source: str | os.PathLike, message: str) -> None:
        self.source = str(source)
        self.message = message
        super().__init__(f"{self.source}: {message}")


# --------------------------------------------------------------------------------------------------
# Selectors


def specificity(selector: str) -> int:
    """``ALL`` < ``NDD`` < ``NDD1`` < ``NDD10`` < ``NDD103``."""
    return 0 if selector == "ALL" else len(selector)


def selector_matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def _selectors(value: object, key: str, source: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(source, f"{key}: expected a list of rule codes, got {value!r}")
    for selector in value:
        if not isinstance(selector, str) or not SELECTOR_RE.match(selector):
            raise ConfigError(
                source,
                f"{key}: bad rule selector {selector!r} "
                "(expected ALL, or NDD followed by up to 3 digits, e.g. NDD1 or NDD103)",
            )
    return tuple(value)


def _patterns(value: object, key: str, source: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(source, f"{key}: expected a list of path patterns, got {value!r}")
    for pattern in value:
        if not isinstance(pattern, str) or not pattern.strip():
            raise ConfigError(source, f"{key}: bad path pattern {pattern!r}")
    return tuple(value)


@dataclass(frozen=True)
class Selection:
    """One layer's select/extend-select/ignore. ``select is None``: the layer did not set it."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def decide(self, code: str, below: bool) -> bool:
        """Whether ``code`` is on after this layer, given whether it was on in the layers below."""
        best: tuple[int, bool] | None = None  # (specificity, is_ignore): max wins, ignore on ties
        for selector in (*(self.select or ()), *self.extend_select):
            if selector_matches(selector, code):
                best = max(best or (-1, False), (specificity(selector), False))
        for selector in self.ignore:
            if selector_matches(selector, code):
                best = max(best or (-1, False), (specificity(selector), True))
        if best is None:
            return below if self.select is None else False
        return not best[1]

    def selectors(self) -> tuple[str, ...]:
        return (*(self.select or ()), *self.extend_select, *self.ignore)


# --------------------------------------------------------------------------------------------------
# Layers and settings


@dataclass(frozen=True)
class Overrides:
    """The options of one source: a ``[tool.ndd-migrate]`` table or the command line.

    ``None`` means "not given": ``select``, ``exclude`` and ``per_file_ignores`` then come from the
    layer below; when given, they replace it (``extend_*`` and ``ignore`` add to it).
    """

    select: Sequence[str] | None = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    exclude: Sequence[str] | None = None
    extend_exclude: Sequence[str] = ()
    per_file_ignores: Mapping[str, Sequence[str]] | None = None
    respect_gitignore: bool | None = None
    include_generated: bool | None = None
    cache_dir: str | None = None
    line_length: int | None = None
    format: bool | None = None
    formatter: Sequence[str] | None = None
    support_module: str | None = None
    capture: bool | None = None

    def validated(self, source: str) -> Overrides:
        """A copy with every value checked and turned into tuples; raises :class:`ConfigError`."""
        per_file = None
        if self.per_file_ignores is not None:
            table = self.per_file_ignores
            if not isinstance(table, Mapping):
                raise ConfigError(source, f"per-file-ignores: expected a table of pattern = [codes], got {table!r}")
            per_file = {}
            for pattern, codes in table.items():
                _patterns([pattern], "per-file-ignores", source)
                per_file[pattern] = _selectors(codes, f"per-file-ignores.{pattern!r}", source)
        return Overrides(
            select=None if self.select is None else _selectors(self.select, "select", source),
            extend_select=_selectors(self.extend_select, "extend-select", source),
            ignore=_selectors(self.ignore, "ignore", source),
            exclude=None if self.exclude is None else _patterns(self.exclude, "exclude", source),
            extend_exclude=_patterns(self.extend_exclude, "extend-exclude", source),
            per_file_ignores=per_file,
            respect_gitignore=_flag(self.respect_gitignore, "respect-gitignore", source),
            include_generated=_flag(self.include_generated, "include-generated", source),
            cache_dir=_directory(self.cache_dir, "cache-dir", source),
            line_length=_line_length(self.line_length, "line-length", source),
            format=_flag(self.format, "format", source),
            formatter=_command(self.formatter, "formatter", source),
            support_module=_python_file(self.support_module, "support-module", source),
            capture=_flag(self.capture, "capture", source),
        )

    def selection(self) -> Selection:
        return Selection(
            None if self.select is None else tuple(self.select), tuple(self.extend_select), tuple(self.ignore)
        )


def _flag(value: object, key: str, source: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ConfigError(source, f"{key}: expected true or false, got {value!r}")
    return value


def _directory(value: object, key: str, source: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigError(source, f"{key}: expected a directory name, got {value!r}")
    return value


def _under(relative: str | None, base: Path) -> str | None:
    return None if relative is None else os.path.normpath(os.path.join(base, relative))


def _python_file(value: object, key: str, source: str) -> str | None:
    if value is not None and (not isinstance(value, str) or not value.endswith(".py") or not value[:-3].strip("/")):
        raise ConfigError(source, f"{key}: expected the path of a .py file, got {value!r}")
    return value


def _line_length(value: object, key: str, source: str) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 320):
        raise ConfigError(source, f"{key}: expected a number of characters (1 to 320), got {value!r}")
    return value


def _command(value: object, key: str, source: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if (
        isinstance(value, str)
        or not isinstance(value, (list, tuple))
        or not value
        or not all(isinstance(arg, str) and arg for arg in value)
    ):
        raise ConfigError(
            source, f'{key}: expected a command as a list of arguments, e.g. ["black", "-"], got {value!r}'
        )
    return tuple(value)


def parse_table(table: object, source: str) -> Overrides:
    """Validate a ``[tool.ndd-migrate]`` table (already parsed from TOML)."""
    if not isinstance(table, dict):
        raise ConfigError(source, f"[tool.{TABLE}] must be a table")
    for key in table:
        if key not in KEYS:
            import difflib  # only on the error path: this module is on every run's start-up path

            close = difflib.get_close_matches(key.replace("_", "-"), KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(KEYS)})"
            raise ConfigError(source, f"unknown key {key!r} in [tool.{TABLE}]{hint}")
    return Overrides(
        select=table.get("select"),
        extend_select=table.get("extend-select", ()),
        ignore=table.get("ignore", ()),
        exclude=table.get("exclude"),
        extend_exclude=table.get("extend-exclude", ()),
        per_file_ignores=table.get("per-file-ignores"),
        respect_gitignore=table.get("respect-gitignore"),
        include_generated=table.get("include-generated"),
        cache_dir=table.get("cache-dir"),
        line_length=table.get("line-length"),
        format=table.get("format"),
        formatter=table.get("formatter"),
        support_module=table.get("support-module"),
        capture=table.get("capture"),
    ).validated(source)


def with_inline(flags: Overrides, table: dict) -> Overrides:
    """The command line's layer: its options (``flags``) over its ``--config KEY=VALUE`` settings
    (``table``, checked as a ``[tool.ndd-migrate]`` table is): an option given wins, and the
    lists that add (``extend-select``, ``ignore``, ``extend-exclude``) take both."""
    if not table:
        return flags
    inline = parse_table(table, "--config")
    merged = {}
    for name in Overrides.__dataclass_fields__:
        mine, theirs = getattr(flags, name), getattr(inline, name)
        if name in ("extend_select", "ignore", "extend_exclude"):
            merged[name] = (*theirs, *mine)
        else:
            merged[name] = theirs if mine is None else mine
    return Overrides(**merged)


def read_table(pyproject: Path) -> Overrides | None:
    """The validated ``[tool.ndd-migrate]`` table of a ``pyproject.toml``, or ``None`` if it has
    none; of any other file (``ndd-migrate.toml``, as ruff reads ``ruff.toml``), the whole file."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(pyproject, f"invalid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(pyproject, f"cannot read: {exc}") from None
    if pyproject.name != "pyproject.toml":
        return parse_table(data, str(pyproject))
    tool = data.get("tool")
    if not isinstance(tool, dict) or TABLE not in tool:
        return None
    return parse_table(tool[TABLE], str(pyproject))


@dataclass
class Settings:
    """The effective settings for the files governed by one configuration file.

    ``path`` is that ``pyproject.toml`` (``None`` when no file was found and only defaults and
    command-line options apply); ``root`` is the directory its patterns are relative to.
    """

    path: Path | None
    root: Path
    layers: tuple[Selection, ...]
    exclude: tuple[PathGlob, ...]
    per_file_ignores: tuple[tuple[PathGlob, tuple[str, ...]], ...]
    respect_gitignore: bool = True
    include_generated: bool = False
    cache_dir: Path | None = None  # absolute; None: the default, in ``root``
    line_length: int | None = None  # ours; None: the formatter's configuration decides
    format: bool = False
    formatter: tuple[str, ...] = DEFAULT_FORMATTER
    support_module: str | None = None  # absolute; None: beside the migrated modules' package
    capture: bool = False  # migrate writes captured loops where proven (ndd_migrate.codegen.capture)
    _selected: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)
    _file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    _excludes: Excludes | None = field(default=None, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        file: Overrides | None = None,
        *,
        path: Path | None = None,
        cli: Overrides | None = None,
        cwd: Path | None = None,
    ) -> Settings:
        """Layer defaults, the file's table (patterns relative to ``path``'s directory) and the
        command line (patterns relative to ``cwd``). Both layers must already be validated."""
        cwd = Path(os.path.abspath(cwd or os.getcwd()))
        root = Path(os.path.abspath(path)).parent if path is not None else cwd
        file = file or Overrides()
        cli = cli or Overrides()
        layers = (Selection(select=("ALL",), ignore=OPT_IN), file.selection(), cli.selection())
        # The command line wins; a directory it names is relative to the current directory.
        return cls(
            path,
            root,
            layers,
            _exclude(file, cli, root, cwd),
            _per_file_ignores(file, cli, root, cwd),
            respect_gitignore=_first_given(cli.respect_gitignore, file.respect_gitignore, True),
            include_generated=_first_given(cli.include_generated, file.include_generated, False),
            cache_dir=_cache_dir(file, cli, root, cwd),
            line_length=_first_given(cli.line_length, file.line_length, None),
            format=_first_given(cli.format, file.format, False),
            formatter=_first_given(cli.formatter, file.formatter, DEFAULT_FORMATTER),
            support_module=_under(file.support_module, root) or _under(cli.support_module, cwd),
            capture=_first_given(cli.capture, file.capture, False),
        )

    def is_selected(self, code: str) -> bool:
        """Whether ``code`` is on by select/extend-select/ignore, before per-file ignores."""
        try:
            return self._selected[code]
        except KeyError:
            on = True
            for layer in self.layers:
                on = layer.decide(code, on)
            self._selected[code] = on
            return on

    def ignored_for(self, path: str | os.PathLike) -> tuple[str, ...]:
        """The per-file-ignores selectors that apply to ``path``."""
        key = os.path.abspath(path)
        if key not in self._file_ignores:
            self._file_ignores[key] = tuple(
                selector for glob, codes in self.per_file_ignores if glob.matches(key) for selector in codes
            )
        return self._file_ignores[key]

    def is_enabled(self, code: str, path: str | os.PathLike | None = None) -> bool:
        """Whether findings of ``code`` in ``path`` are reported."""
        if not self.is_selected(code):
            return False
        if path is None or not self.per_file_ignores:
            return True
        return not any(selector_matches(s, code) for s in self.ignored_for(path))

    def is_excluded(self, path: str | os.PathLike) -> bool:
        """Whether ``path`` (a file or a directory) is excluded from checking."""
        return self._exclude_matcher().matches(path)

    def names_excluded(self, directory: str) -> Callable[[str], bool]:
        """:meth:`is_excluded` for the entries directly in ``directory``, asked by name
        (:meth:`Excludes.names_in`)."""
        return self._exclude_matcher().names_in(directory)

    def _exclude_matcher(self) -> Excludes:
        if self._excludes is None:
            self._excludes = Excludes(self.exclude)
        return self._excludes

    def unmatched_selectors(self, known_codes: Iterable[str]) -> list[str]:
        """Selectors (from the file and the command line) that match no known rule: almost always a
        typo, which the CLI should warn about. Not checked at load time because that would import
        the whole rule catalogue on the pre-commit path."""
        known = tuple(known_codes)
        used = {s for layer in self.layers[1:] for s in layer.selectors()}
        used |= {s for _, codes in self.per_file_ignores for s in codes}
        return sorted(s for s in used if not any(selector_matches(s, code) for code in known))


def _first_given(cli, file, default):
    """The command line's value, else the file's, else ``default``."""
    return next((v for v in (cli, file) if v is not None), default)


def _exclude(file: Overrides, cli: Overrides, root: Path, cwd: Path) -> tuple[PathGlob, ...]:
    """The exclude patterns: the command line's ``exclude`` (relative to ``cwd``), else the file's or
    the default list (relative to ``root``); then each layer's ``extend-exclude``."""
    if cli.exclude is not None:
        exclude = [PathGlob.compile(p, cwd) for p in cli.exclude]
    else:
        exclude = [PathGlob.compile(p, root) for p in (DEFAULT_EXCLUDE if file.exclude is None else file.exclude)]
    exclude += [PathGlob.compile(p, root) for p in file.extend_exclude]
    exclude += [PathGlob.compile(p, cwd) for p in cli.extend_exclude]
    return tuple(exclude)


def _per_file_ignores(
    file: Overrides, cli: Overrides, root: Path, cwd: Path
) -> tuple[tuple[PathGlob, tuple[str, ...]], ...]:
    """The command line's per-file ignores (patterns relative to ``cwd``), else the file's (relative
    to ``root``)."""
    if cli.per_file_ignores is not None:
        per_file, base = cli.per_file_ignores, cwd
    else:
        per_file, base = file.per_file_ignores or {}, root
    return tuple((PathGlob.compile(p, base), tuple(codes)) for p, codes in per_file.items())


def _cache_dir(file: Overrides, cli: Overrides, root: Path, cwd: Path) -> Path | None:
    """The cache directory, absolute: the command line's (relative to ``cwd``), else the file's
    (relative to ``root``); None for the default."""
    if cli.cache_dir is not None:
        return Path(os.path.abspath(os.path.join(cwd, cli.cache_dir)))
    if file.cache_dir is not None:
        return Path(os.path.abspath(os.path.join(root, file.cache_dir)))
    return None


class Configuration:
    """Finds the settings for each file: explicit ``config_file`` if given, else the nearest
    ``pyproject.toml`` with a ``[tool.ndd-migrate]`` table, with ``cli`` on top; ``isolated``
    (ruff's ``--isolated``): no file at all, neither ours nor a formatter's line length.

    One instance per run; it caches which configuration governs each directory and the settings
    built from each file, so checking thousands of files reads each ``pyproject.toml`` once.
    """

    def __init__(
        self,
        cli: Overrides | None = None,
        *,
        config_file: str | os.PathLike | None = None,
        cwd: str | os.PathLike | None = None,
        isolated: bool = False,
    ) -> None:
        self.cwd = Path(os.path.abspath(cwd or os.getcwd()))
        self.isolated = isolated
        self.cli = (cli or Overrides()).validated("command line")
        self._dirs: dict[str, Path | None] = {}
        self._paths: dict[str | os.PathLike, Settings] = {}  # for_path
        self._settings: dict[Path | None, Settings] = {}
        self._explicit: Path | None = None
        self._line_lengths: dict[str, int | None] = {}
        if config_file is not None:
            path = Path(os.path.abspath(config_file))
            table = read_table(path)
            if table is None:
                raise ConfigError(path, f"no [tool.{TABLE}] table")
            self._explicit = path
            self._settings[path] = Settings.build(table, path=path, cli=self.cli, cwd=self.cwd)

    def find_config(self, directory: str | os.PathLike) -> Path | None:
        """The nearest configuration file at or above ``directory`` (:meth:`_config_in`)."""
        if self.isolated:
            return None
        start = os.path.abspath(directory)
        visited: list[str] = []
        current = start
        found: Path | None = None
        while True:
            if current in self._dirs:
                found = self._dirs[current]
                break
            visited.append(current)
            found = self._config_in(current)
            if found is not None:
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for directory in visited:
            self._dirs[directory] = found
        return found

    def _config_in(self, directory: str) -> Path | None:
        """The configuration file of ``directory``, its settings built: the first of
        :data:`CONFIG_FILES` there (a ``pyproject.toml`` only with our table), or None."""
        for name in CONFIG_FILES:
            candidate = Path(directory, name)
            if candidate.is_file():
                table = read_table(candidate)
                if table is not None:
                    self._settings.setdefault(
                        candidate, Settings.build(table, path=candidate, cli=self.cli, cwd=self.cwd)
                    )
                    return candidate
        return None

    def for_path(self, path: str | os.PathLike) -> Settings:
        """The settings that govern ``path`` (a file, or a directory met during discovery); known
        once asked (a run asks about each file once per rule)."""
        if self._explicit is not None:
            return self._settings[self._explicit]
        found = self._paths.get(path)
        if found is None:
            absolute = os.path.abspath(path)
            directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
            config = self.find_config(directory)
            if config is None and None not in self._settings:
                self._settings[None] = Settings.build(None, cli=self.cli, cwd=self.cwd)
            found = self._paths[path] = self._settings[config]
        return found

    def is_enabled(self, code: str, path: str | os.PathLike) -> bool:
        return self.for_path(path).is_enabled(code, path)

    def line_length(self, path: str | os.PathLike) -> int:
        """The line length for ``path``: ``line-length`` of our settings, else that of the nearest
        formatter configuration above the file (:func:`formatter_line_length`), else
        :data:`DEFAULT_LINE_LENGTH`."""
        own = self.for_path(path).line_length
        if own is not None:
            return own
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in self._line_lengths:
            self._line_lengths[directory] = None if self.isolated else formatter_line_length(directory)
        return self._line_lengths[directory] or DEFAULT_LINE_LENGTH

    def support_module(self, path: str | os.PathLike) -> str | None:
        """The configured support module of the project ``path`` belongs to (absolute), or None."""
        return self.for_path(path).support_module

    def capture(self, path: str | os.PathLike) -> bool:
        """Does ``migrate`` write captured loops in ``path`` (``capture``, ``--capture``)?"""
        return self.for_path(path).capture

    def is_excluded(self, path: str | os.PathLike) -> bool:
        absolute = os.path.abspath(path)
        return self.for_path(absolute).is_excluded(absolute)

    def names_excluded(self, directory: str) -> Callable[[str], bool]:
        """:meth:`is_excluded` for the files directly in ``directory``, asked by name; their
        settings are the directory's, found once for all of them (discovery asks about every file
        of a tree)."""
        return self.for_path(directory).names_excluded(directory)

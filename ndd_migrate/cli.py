"""The ``ndd-migrate`` command line: thin wrappers over the engine, the lint and verify.

``migrate`` and ``check`` import nothing that needs libcst (the engine, the rules, the
catalogue's rule modules) up front: :mod:`ndd_migrate.app.runner` reads the files, skips those that
never mention DALI, and imports the engine only for the rest, so a pre-commit run over files
without DALI stays fast.
"""

from __future__ import annotations

import functools
from pathlib import Path

import typer

from ndd_migrate.report import results
from ndd_migrate.report.console import console, isatty, progress

app = typer.Typer(
    name="ndd-migrate",
    help="Migrate NVIDIA DALI pipeline-mode code to dynamic mode (ndd): codemod, lint, equivalence check.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: ``check --output-format`` values (the keys of :data:`ndd_migrate.report.FORMATS`, kept here so
#: a bad value is rejected before anything is imported or written).
CHECK_FORMATS = ("concise", "full", "json", "sarif", "github")
TEXT_JSON = ("text", "json")


def _version(value: bool) -> None:
    if value:
        from ndd_migrate import __version__

        typer.echo(f"ndd-migrate {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Migrate NVIDIA DALI pipeline-mode code to dynamic mode (ndd): codemod, lint, equivalence check."""


def _split(values: list[str] | None) -> tuple | None:
    """Repeated options accumulate, and each value may be a comma-separated list (ruff's syntax):
    ``--select NDD1 --select NDD2,NDD3`` is ``(NDD1, NDD2, NDD3)``. ``None`` when not given."""
    if not values:
        return None
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def _error(message: str) -> None:
    """``error <message>`` on stderr; the message is user or rule text, never rich markup."""
    from rich.markup import escape

    console(stderr=True).print(f"[red]error[/] {escape(message)}", soft_wrap=True)


def _usage_error(message: str) -> typer.Exit:
    _error(message)
    return typer.Exit(2)


def _choice(option: str, value: str, choices: tuple) -> None:
    if value not in choices:
        raise _usage_error(f"invalid value {value!r} for {option} (choose from {', '.join(choices)})")


def _configuration(select, extend_select, ignore, exclude, extend_exclude, config, isolated=False, **more):
    """The project's configuration with the command line on top (``isolated``: the defaults
    instead of the project's): the same for ``migrate`` and ``check`` (``more``: the other
    :class:`~ndd_migrate.io.config.Overrides`, None when not given; ``config``: the ``--config``
    values, a file or ``KEY = VALUE`` settings). Warns about selectors that select no rule; exits 2
    on bad configuration."""
    from ndd_migrate.engine.catalog import rule_codes
    from ndd_migrate.io.config import ConfigError, Configuration, Overrides, with_inline
    from ndd_migrate.io.config_sources import ConfigArgumentError, config_arguments

    try:
        config_file, inline = config_arguments(config)
    except ConfigArgumentError as exc:
        raise _usage_error(str(exc)) from None
    if isolated and config_file is not None:
        raise _usage_error("--isolated and --config FILE: choose one")
    flags = Overrides(
        select=_split(select),
        extend_select=_split(extend_select) or (),
        ignore=_split(ignore) or (),
        exclude=_split(exclude),
        extend_exclude=_split(extend_exclude) or (),
        **more,
    )
    try:
        conf = Configuration(with_inline(flags, inline), config_file=config_file, isolated=isolated)
        for selector in conf.for_path(Path.cwd()).unmatched_selectors(rule_codes()):
            from rich.markup import escape

            console(stderr=True).print(f"[yellow]warning[/] `{escape(selector)}` selects no rule", soft_wrap=True)
    except ConfigError as exc:
        raise _usage_error(str(exc)) from None
    return conf


def _discover(paths, conf, force_exclude):
    from ndd_migrate.io import discovery, files
    from ndd_migrate.io.config import ConfigError

    try:
        return discovery.discover(
            paths,
            is_excluded=conf.is_excluded,
            names_excluded=conf.names_excluded,
            force_exclude=force_exclude,
            respect_gitignore=lambda top: conf.for_path(top).respect_gitignore,
        )
    except (ConfigError, files.SourceError) as exc:
        raise _usage_error(str(exc)) from None


def _not_looked_at(paths, targets, summary, err) -> None:
    """The warnings of :func:`~ndd_migrate.report.summary.print_not_looked_at`; ``err`` makes the
    console (rich is imported only when there is something to say)."""
    if targets and not any(result.generated for result in summary.results):
        return
    from ndd_migrate.report.summary import print_not_looked_at

    print_not_looked_at(paths, targets, summary.results, err())


def _is_stdin(paths) -> bool:
    """``-`` names standard input (alone: it cannot be mixed with files)."""
    given = [str(p) for p in paths or []]
    if "-" not in given:
        return False
    if len(given) > 1:
        raise _usage_error("`-` (standard input) cannot be combined with other paths")
    return True


def _run_stdin(name: str, policy):
    """Standard input as one file named ``name`` (``--stdin-filename``, default ``-``)."""
    import sys

    from ndd_migrate.app import pool
    from ndd_migrate.app.runner import RunSummary
    from ndd_migrate.io import files

    raw = sys.stdin.buffer.read()
    result = pool.process_sources([(name, raw)], policy, 1)[0]
    try:
        original = files.decode_source(raw, name)
    except files.SourceError:
        original = None
    return raw, original, RunSummary([result])


SELECT_HELP = "Codes or prefixes (NDD1, ALL); comma-separated, repeatable."
EXCLUDE_HELP = "Path patterns to skip, replacing the default excludes; comma-separated, repeatable."
EXTEND_EXCLUDE_HELP = "Path patterns to skip, on top of the configured excludes; comma-separated, repeatable."
STDIN_HELP = "The name of the file read from standard input (`-`): for messages and per-file settings."
CONFIG_HELP = (
    "A configuration file to use instead of discovery (pyproject.toml or ndd-migrate.toml), or a `KEY = VALUE` "
    "setting over every file's (`line-length = 100`, \"select = ['NDD2']\"); repeatable."
)
ISOLATED_HELP = "Read no configuration file: the defaults and the command line only."
JOBS_HELP = "Parallel worker processes (default: CPU count)."
GITIGNORE_HELP = "Leave out what .gitignore files ignore when walking directories (default: on)."
GENERATED_HELP = "Also process files marked @generated in their first lines (skipped by default)."
FORMAT_HELP = "Run the configured formatter (`formatter`, default `ruff format -`) on the files rewritten."
CAPTURE_HELP = (
    "Write next_epoch(capture=True) where the whole loop can be captured, its invariant arguments "
    "marked (docs/target-shape.md; prove it with `verify`)."
)


@app.command()
def migrate(
    paths: list[Path] = typer.Argument(
        ..., help="Files and directories (searched recursively); `-` reads standard input."
    ),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff; write nothing; exit 1 if there is one."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 if any file would change."),
    todo_fails: bool = typer.Option(
        False, "--exit-non-zero-on-todo", help="With --check/--diff: exit 1 also when only TODOs remain."
    ),
    output_format: str = typer.Option("text", "--output-format", help="text (summary on stderr) or json (stdout)."),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help=JOBS_HELP),
    select: list[str] | None = typer.Option(None, "--select", help=SELECT_HELP),
    extend_select: list[str] | None = typer.Option(None, "--extend-select", help=SELECT_HELP),
    ignore: list[str] | None = typer.Option(None, "--ignore", help=SELECT_HELP),
    exclude: list[str] | None = typer.Option(None, "--exclude", help=EXCLUDE_HELP),
    extend_exclude: list[str] | None = typer.Option(None, "--extend-exclude", help=EXTEND_EXCLUDE_HELP),
    force_exclude: bool = typer.Option(
        False, "--force-exclude", help="Apply excludes to files named explicitly (pre-commit)."
    ),
    config: list[str] | None = typer.Option(None, "--config", help=CONFIG_HELP),
    isolated: bool = typer.Option(False, "--isolated", help=ISOLATED_HELP),
    stdin_filename: str | None = typer.Option(None, "--stdin-filename", help=STDIN_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no counts line."),
    respect_gitignore: bool | None = typer.Option(
        None, "--respect-gitignore/--no-respect-gitignore", help=GITIGNORE_HELP
    ),
    include_generated: bool | None = typer.Option(None, "--include-generated", help=GENERATED_HELP),
    format_code: bool | None = typer.Option(None, "--format/--no-format", help=FORMAT_HELP),
    capture: bool | None = typer.Option(None, "--capture/--no-capture", help=CAPTURE_HELP),
) -> None:
    """Rewrite pipeline-mode code into dynamic-mode code, in place (`-`: print it to stdout)."""
    import sys

    from ndd_migrate.app import formatter, runner
    from ndd_migrate.io.policy import Policy
    from ndd_migrate.report.summary import print_summary

    _choice("--output-format", output_format, TEXT_JSON)
    as_json = output_format == "json"
    if as_json and (diff or _is_stdin(paths)):
        raise _usage_error("--output-format json writes the report on stdout: not with --diff or `-`")
    err = console(stderr=True)
    conf = _configuration(
        select,
        extend_select,
        ignore,
        exclude,
        extend_exclude,
        config,
        isolated=isolated,
        respect_gitignore=respect_gitignore,
        include_generated=include_generated,
        format=format_code,
        capture=capture,
    )
    policy = Policy(
        is_enabled=conf.is_enabled,
        line_length=conf.line_length,
        support_module=conf.support_module,
        capture=conf.capture,
    )
    if _is_stdin(paths):
        _migrate_stdin(stdin_filename or "-", policy, diff=diff, check=check, quiet=quiet, todo_fails=todo_fails)
        return
    targets = _discover(paths, conf, force_exclude)
    project = conf.for_path(Path.cwd())
    with progress(len(targets), quiet) as advance:
        summary = runner.run(
            targets, policy, jobs, roots=paths, progress=advance, include_generated=project.include_generated
        )
    _not_looked_at(paths, targets, summary, lambda: err)
    write = not (diff or check)
    formatter.run(summary, conf, lambda: console(stderr=True))
    results.support_modules(summary, diff=diff, write=write)
    for result in summary.changed:
        if diff:
            results.print_diff(result)
        if write:
            results.write(result, summary)
    if as_json:
        from ndd_migrate.report.migrate_output import render_json

        sys.stdout.write(render_json(summary, wrote=write, root=Path.cwd()))
    else:
        print_summary(summary, err, wrote=write, quiet=quiet)
    _migrate_exit(summary, check or diff, todo_fails)


def _migrate_exit(summary, dry_run: bool, todo_fails: bool) -> None:
    """:func:`~ndd_migrate.report.migrate_output.exit_status`: 2 a file failed; writing, 1 when a
    place needs a human; with ``--check``/``--diff``, 1 when a file would change (or only TODOs
    remain and ``--exit-non-zero-on-todo`` was given); else 0."""
    from ndd_migrate.report.migrate_output import exit_status

    raise typer.Exit(exit_status(summary, dry_run=dry_run, todo_fails=todo_fails))


def _migrate_stdin(name: str, policy, *, diff: bool, check: bool, quiet: bool, todo_fails: bool) -> None:
    """``migrate -``: the migrated text on stdout (the input as it was when nothing changes or the
    text cannot be migrated, so ``migrate - < a.py > b.py`` never loses code); ``--diff`` prints the
    diff instead, ``--check`` nothing. The summary goes to stderr."""
    import sys

    from ndd_migrate.io import files, writing
    from ndd_migrate.report.summary import print_summary, unified_diff

    raw, original, summary = _run_stdin(name, policy)
    result = summary.results[0]
    out = raw
    if result.changed and not result.error and original is not None:
        try:
            out = writing.encode_source(name, result.new_source, original)
        except files.SourceError as exc:
            from ndd_migrate.io.diagnostics import FileError

            result.error, result.changed = FileError(name, exc.message, exc.line), False
    if diff:
        if out is not raw:
            sys.stdout.buffer.write(results.colour_diff(unified_diff(name, raw, out)))
    elif not check:
        sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    err = console(stderr=True)
    print_summary(summary, err, wrote=not (diff or check), quiet=quiet)
    if result.changed and result.support:
        from rich.markup import escape

        err.print(
            f"note: the output imports {escape(', '.join(result.support))} from the project's support module, "
            "which `migrate -` does not write: `ndd-migrate migrate` on the file writes both",
            soft_wrap=True,
        )
    _migrate_exit(summary, check or diff, todo_fails)


@app.command()
def check(
    paths: list[Path] = typer.Argument(
        None, help="Files and directories (default: the current directory); `-` reads standard input."
    ),
    fix: bool = typer.Option(False, "--fix", help="Apply safe fixes."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="With --fix, also apply unsafe fixes."),
    diff: bool = typer.Option(
        False, "--diff", help="Print the diff --fix would write, write nothing (exit 1 when there is one)."
    ),
    add_noqa: bool = typer.Option(False, "--add-noqa", help="Add `# noqa: CODES` to the lines with findings."),
    show_fixes: bool = typer.Option(False, "--show-fixes", help="With --fix, list what was fixed, per file and code."),
    show_settings: bool = typer.Option(
        False, "--show-settings", help="Print the settings that govern the first path, and stop."
    ),
    select: list[str] | None = typer.Option(None, "--select", help=SELECT_HELP),
    extend_select: list[str] | None = typer.Option(None, "--extend-select", help=SELECT_HELP),
    ignore: list[str] | None = typer.Option(None, "--ignore", help=SELECT_HELP),
    exclude: list[str] | None = typer.Option(None, "--exclude", help=EXCLUDE_HELP),
    extend_exclude: list[str] | None = typer.Option(None, "--extend-exclude", help=EXTEND_EXCLUDE_HELP),
    force_exclude: bool = typer.Option(
        False, "--force-exclude", help="Apply excludes to files named explicitly (pre-commit)."
    ),
    output_format: str = typer.Option("concise", "--output-format", help="concise, full, json, sarif or github."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even with findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Counts per rule code."),
    watch: bool = typer.Option(False, "--watch", "-w", help="Run again whenever a file changes, until Ctrl-C."),
    config: list[str] | None = typer.Option(None, "--config", help=CONFIG_HELP),
    isolated: bool = typer.Option(False, "--isolated", help=ISOLATED_HELP),
    jobs: int | None = typer.Option(None, "--jobs", "-j", help=JOBS_HELP),
    stdin_filename: str | None = typer.Option(None, "--stdin-filename", help=STDIN_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    respect_gitignore: bool | None = typer.Option(
        None, "--respect-gitignore/--no-respect-gitignore", help=GITIGNORE_HELP
    ),
    include_generated: bool | None = typer.Option(None, "--include-generated", help=GENERATED_HELP),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the results cache."),
    cache_dir: str | None = typer.Option(
        None, "--cache-dir", help="The results cache (default: .ndd_migrate_cache in the project root)."
    ),
    format_code: bool | None = typer.Option(None, "--format/--no-format", help="With --fix: " + FORMAT_HELP),
) -> None:
    """Lint: pipeline-mode leftovers and dynamic-mode mistakes, with rule codes."""
    import sys

    _choice("--output-format", output_format, CHECK_FORMATS)
    fix = fix or diff  # as ruff's: the fixes computed, shown as a diff instead of written
    from ndd_migrate.io.policy import Policy, no_line_length
    from ndd_migrate.report import exit_code, write_report

    configure = functools.partial(
        _configuration,
        select,
        extend_select,
        ignore,
        exclude,
        extend_exclude,
        config,
        isolated=isolated,
        respect_gitignore=respect_gitignore,
        include_generated=include_generated,
        cache_dir=cache_dir,
        format=format_code,
    )
    conf = configure()
    # What --fix writes wraps and splits at the line length, as `migrate` does; findings do not depend on it.
    policy_of = lambda conf: Policy.check(  # noqa: E731
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        is_enabled=conf.is_enabled,
        line_length=conf.line_length if fix else no_line_length,
        support_module=conf.support_module,
    )
    policy = policy_of(conf)
    report_to = sys.stdout
    if show_settings:
        raise typer.Exit(_show_settings(conf, paths))
    if add_noqa:
        options = dict(jobs=jobs, quiet=quiet, cache=False, force_exclude=force_exclude)
        raise typer.Exit(_add_noqa(paths, conf, policy, **options))
    options = dict(fix=fix, diff=diff, jobs=jobs, quiet=quiet, cache=not no_cache, force_exclude=force_exclude)
    show = functools.partial(
        write_report, fmt=output_format, statistics=statistics, unsafe_fixes=unsafe_fixes, show_fixes=show_fixes and fix
    )
    if watch:
        if _is_stdin(paths) or diff:
            raise _usage_error("--watch runs again when files change: not with `-` or --diff")
        run = lambda conf: show(_check_files(paths, conf, policy_of(conf), **options).results, stream=sys.stdout)  # noqa: E731
        raise typer.Exit(_watch(paths, configure, conf, force_exclude, run))
    if _is_stdin(paths):
        summary, report_to = _check_stdin(stdin_filename or "-", policy, fix=fix, diff=diff)
    else:
        summary = _check_files(paths, conf, policy, **options)
    if diff:  # as ruff's: the diff alone; 1 when there is one
        raise typer.Exit(2 if summary.failed else 1 if summary.changed else 0)
    show(summary.results, stream=report_to)
    code = exit_code(summary.results)
    raise typer.Exit(0 if exit_zero and code == 1 else code)


def _watch(paths, configure, conf, force_exclude: bool, run) -> int:
    """``check --watch``, as ruff's: ``run(conf)`` (the check and its report), then again, the
    screen cleared first on a terminal, whenever a file of the run or a configuration file changes,
    appears or goes, with the configuration read again (``configure()``, ``conf`` the first: one
    that has become bad is reported, and the next change tried); 0 on Ctrl-C."""
    import sys
    import time

    from ndd_migrate.app import watch

    err = console(stderr=True)
    roots = paths or [Path(".")]
    current = [conf]

    def files() -> list:
        conf = current[0]
        own = [s.path for s in (conf.for_path(root) for root in roots) if s.path is not None]
        return [*_discover(roots, conf, force_exclude), *own, *watch.configuration_files(roots)]

    def again(changed: bool) -> None:
        if isatty(sys.stdout):
            sys.stdout.write("\x1b[2J\x1b[H")  # clear the screen, cursor home
        what = "File change detected..." if changed else "Starting linter in watch mode..."
        err.print(f"[{time.strftime('%H:%M:%S')}] {what}", highlight=False, markup=False)
        try:
            current[0] = configure() if changed else current[0]
        except typer.Exit:  # said on stderr: wait for the fix
            return
        run(current[0])
        err.print(f"[{time.strftime('%H:%M:%S')}] Watching for file changes.", highlight=False, markup=False)

    return watch.watch(files, again)


def _check_files(paths, conf, policy, *, fix: bool, diff: bool, jobs, quiet: bool, cache: bool, force_exclude: bool):
    """``check`` over files and folders: the run (with the results cache, unless fixing), then with
    ``fix`` the formatter and the files written, or with ``diff`` their diffs printed."""
    from ndd_migrate.app import formatter, runner

    roots = paths or [Path(".")]
    targets = _discover(roots, conf, force_exclude)
    project = conf.for_path(Path.cwd())
    with progress(len(targets), quiet) as advance:
        summary = runner.run(
            targets,
            policy,
            jobs,
            roots=roots,
            progress=advance,
            cache=_cache(project) if cache and not fix else None,
            include_generated=project.include_generated,
        )
    _not_looked_at(roots, targets, summary, lambda: console(stderr=True))
    if fix:
        formatter.run(summary, conf, lambda: console(stderr=True))
        results.support_modules(summary, diff=diff, write=not diff)
        for result in summary.changed:
            results.print_diff(result) if diff else results.write(result, summary)
    return summary


def _check_stdin(name: str, policy, *, fix: bool, diff: bool):
    """``check -``: the summary, and where the report goes. As ruff: with --fix the fixed text goes
    to stdout (the input when nothing was fixed) and the report to stderr; with --diff the diff;
    without either the report goes to stdout."""
    import sys

    raw, original, summary = _run_stdin(name, policy)
    if diff:
        results.fixed_stdin(summary.results[0], raw, original, diff_name=name)
    elif fix:
        results.fixed_stdin(summary.results[0], raw, original)
        return summary, sys.stderr
    return summary, sys.stdout


def _show_settings(conf, paths) -> int:
    """``check --show-settings``: what governs the first path, on stdout."""
    import sys

    from ndd_migrate.engine.catalog import rule_codes
    from ndd_migrate.report import settings

    where = (paths or [Path(".")])[0]
    sys.stdout.write(settings.render(conf, where, list(rule_codes()), _cache_dir(conf.for_path(Path.cwd()))))
    return 0


def _add_noqa(paths, conf, policy, **options) -> int:
    """``check --add-noqa``, as ruff's: each line with findings gets ``# noqa: CODES`` (merged into
    one there), until a run finds nothing new (a suppressed rewrite can report at its pipeline:
    docs/output-formats.md); says how many it added. 2 when a file failed, else 0."""
    from ndd_migrate.engine import unused_noqa
    from ndd_migrate.io import noqa

    if _is_stdin(paths):
        raise _usage_error("--add-noqa needs files: it writes them")
    total = 0
    for _ in range(10):
        summary = _check_files(paths, conf, policy, fix=False, diff=False, **options)
        added = 0
        for result in summary.results:
            codes: dict[int, set[str]] = {}
            for d in result.diagnostics if not result.error else ():
                if d.code != unused_noqa.CODE:  # a directive that silences nothing wants removing, not silencing
                    codes.setdefault(d.line, set()).add(d.code)
            result.new_source, count = noqa.with_directives(result.old_source, codes)
            if count:
                results.write(result, summary)
                added += count if not result.error else 0
        total += added
        if not added:
            break
    err = console(stderr=True)
    err.print(f"Added {total} noqa directive{'' if total == 1 else 's'}.")
    return 2 if summary.failed else 0


def _cache(settings):
    """The results cache of ``check`` (never used by ``--fix``, which writes files)."""
    from ndd_migrate.app.cache import Cache

    return Cache(_cache_dir(settings))


def _cache_dir(settings) -> Path:
    """Where ``check`` keeps its results: the configured directory, else ``.ndd_migrate_cache`` in
    the project root — the directory of the configuration, or without one the nearest above
    holding ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git`` (not wherever the command
    was started)."""
    from ndd_migrate.app.cache import DEFAULT_DIR
    from ndd_migrate.model.importers import project_root

    root = settings.root if settings.path is not None else Path(project_root(str(settings.root)) or settings.root)
    return settings.cache_dir or root / DEFAULT_DIR


@app.command()
def clean(
    paths: list[Path] = typer.Argument(None, help="Folders to clean (default: the current directory)."),
) -> None:
    """Remove the results caches of `check` in these folders and below, and the configured one."""
    from ndd_migrate.app import cache
    from ndd_migrate.io.config import ConfigError, Configuration

    roots = paths or [Path(".")]
    try:
        configured = [d for d in (Configuration().for_path(root).cache_dir for root in roots) if d is not None]
    except ConfigError as exc:
        raise _usage_error(str(exc)) from None
    err = console(stderr=True)
    for directory in cache.clean(roots, configured):
        err.print(f"Removing cache at: {directory}", soft_wrap=True, markup=False)


@app.command()
def verify(
    paths: list[str] = typer.Argument(..., help="ORIGINAL.py MIGRATED.py, or with --base the migrated files."),
    base: str | None = typer.Option(None, "--base", help="CI mode: the original is each file at this git revision."),
    pipeline: str | None = typer.Option(None, "--pipeline", help="The function to compare (default: every pair)."),
    args: str | None = typer.Option(
        None, "--args", help='JSON: list = positional, object = keyword, or {"args": [...], "kwargs": {...}}.'
    ),
    args_file: str | None = typer.Option(None, "--args-file", help="A JSON file of keyword arguments."),
    batch_size: int | None = typer.Option(None, "--batch-size"),
    iterations: int | None = typer.Option(None, "--iterations"),
    epochs: int | None = typer.Option(None, "--epochs"),
    seed: int | None = typer.Option(None, "--seed"),
    device: str = typer.Option("auto", "--device", help="auto, cpu (lower both sides) or gpu."),
    device_id: int = typer.Option(0, "--device-id"),
    rtol: float | None = typer.Option(None, "--rtol"),
    atol: float | None = typer.Option(None, "--atol"),
    tolerance: list[str] = typer.Option([], "--tolerance", help="OUT:RTOL:ATOL for one output (repeatable)."),
    bench: bool = typer.Option(False, "--bench", help="Also time both sides."),
    capture: bool = typer.Option(False, "--capture", help="Also run the migrated side with next_epoch(capture=True)."),
    no_align: bool = typer.Option(False, "--no-align", help="Do not align random states."),
    align_order: bool = typer.Option(
        False,
        "--align-order",
        help="Give readers without seed= the migrated reader's seed: prove the values, not the sample order.",
    ),
    exec_module: bool = typer.Option(False, "--exec-module", help="Run the files' top-level code too."),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds per side."),
    synthetic: bool = typer.Option(
        False, "--synthetic", help="Generate the data the readers read (no --args needed) instead of reading yours."
    ),
    output_format: str = typer.Option("text", "--output-format", help="text or json"),
    report: str | None = typer.Option(None, "--report", help="Write the JSON report to this file."),
) -> None:
    """Prove a migrated loader gives the same outputs as its pipeline (exit 0 equal, 1 different, 2 error)."""
    _choice("--output-format", output_format, TEXT_JSON)
    from ndd_migrate.verify.command import verify_command

    raise typer.Exit(
        verify_command(
            paths,
            base=base,
            pipeline=pipeline,
            args_json=args,
            args_file=args_file,
            batch_size=batch_size,
            iterations=iterations,
            epochs=epochs,
            seed=seed,
            device=device,
            device_id=device_id,
            rtol=rtol,
            atol=atol,
            tolerance=tolerance,
            bench=bench,
            capture=capture,
            no_align=no_align,
            align_order=align_order,
            exec_module=exec_module,
            timeout=timeout,
            synthetic=synthetic,
            output_format=output_format,
            report_file=report,
        )
    )


@app.command()
def rules(
    output_format: str = typer.Option("text", "--output-format", help="text or json"),
) -> None:
    """List the rule catalogue."""
    _choice("--output-format", output_format, TEXT_JSON)
    from ndd_migrate.engine.catalog import all_rules

    if output_format == "json":
        import json

        typer.echo(
            json.dumps(
                [
                    {"code": r.code, "name": r.name, "summary": r.summary, "fix_safety": r.fix_safety.value}
                    for r in all_rules()
                ],
                indent=2,
            )
        )
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title="ndd-migrate rules")
    for col in ("code", "name", "fix", "summary"):
        table.add_column(col)
    for r in all_rules():  # Text, not str: a summary such as `.tensors[i]` is not markup
        table.add_row(Text(r.code), Text(r.name), Text(r.fix_safety.value), Text(r.summary))
    console(highlight=True).print(table)


@app.command()
def explain(code: str = typer.Argument(..., help="A rule code, e.g. NDD103.")) -> None:
    """Print one rule's documentation and examples."""
    from ndd_migrate.docs import rule_markdown
    from ndd_migrate.engine.catalog import get_rule

    rule = get_rule(code)
    if rule is None:
        raise _usage_error(f"unknown rule code {code!r}; `ndd-migrate rules` lists them")
    typer.echo(rule_markdown(rule))


def main() -> None:
    import sys

    # A file name that is not UTF-8 reaches a message as surrogates, which a strict stream cannot
    # write: such a character is written as an escape rather than ending the run.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    app()


if __name__ == "__main__":
    main()

"""What a run may change: a plain value, standard library only.

It lives apart from :mod:`ndd_migrate.engine.context` (which needs libcst) so that the command line can
build it before knowing whether any file mentions DALI: a run over files that do not pays nothing
for libcst (see :mod:`ndd_migrate.app.runner`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: Rules a run reports only when asked for by name, a prefix or ``ALL``, as ruff's RUF100 is:
#: NDD801, unused noqa directives, which would fight another linter's blanket ones.
OPT_IN = ("NDD801",)


def every_rule(code: str, path: str | None = None) -> bool:
    """The default selection: every rule but the :data:`OPT_IN` ones (a module-level function, so a
    Policy pickles to workers)."""
    return code not in OPT_IN


def no_line_length(path: str) -> int | None:
    """The default line length: none, TODO comments stay on one line. The command line gives the
    project's (:meth:`ndd_migrate.io.config.Configuration.line_length`)."""
    return None


def default_support_module(path: str) -> str | None:
    """The default place of the support module: none configured, :func:`ndd_migrate.support.location`
    chooses (the module's top-level package, or beside it)."""
    return None


def no_capture(path: str) -> bool:
    """The default: loops stay eager (``migrate --capture`` or ``capture = true`` turn capture on)."""
    return False


@dataclass
class Policy:
    """What a run may change. ``is_enabled(code)`` is the --select/--ignore/config decision."""

    mode: str = "migrate"  # "migrate" or "check"
    fix: bool = True
    unsafe_fixes: bool = True
    is_enabled: Callable[[str, str], bool] = every_rule  # (code, path) -> selected?
    line_length: Callable[[str], int | None] = no_line_length  # path -> where TODO comments wrap
    support_module: Callable[[str], str | None] = default_support_module  # path -> configured support file
    capture: Callable[[str], bool] = no_capture  # path -> write captured loops (ndd_migrate.codegen.capture)?
    # Modules of namespace packages that other files import from their folder, as absolute path ->
    # how they import their support module ("relative" or "either": ndd_migrate.model.namespaces).
    support_imports: dict[str, str] = field(default_factory=dict)
    # Pipelines that other files of the run define, as ``module.name`` -> migrated? (crossfile.py)
    imported_pipelines: dict[str, bool] = field(default_factory=dict)
    # Pipelines that project modules outside the run define, still in pipeline mode, as
    # ``module.name`` -> the defining file: their call sites are reported (NDD007), not rewritten.
    outside_pipelines: dict[str, str] = field(default_factory=dict)
    # Of ``imported_pipelines``, those already migrated in a file on disk (``module.name`` -> the
    # file): their call sites may be dynamic mode already, so only pipeline methods are findings.
    migrated_on_disk: dict[str, str] = field(default_factory=dict)
    # Pipelines this run must keep in pipeline mode because another module of the run uses them in
    # a way the migration does not follow, as ``module.name`` -> that use (ndd_migrate.model.importers).
    kept_pipelines: dict[str, str] = field(default_factory=dict)
    # The pipeline settings (`seed`, `device_id`, ...) other modules of the run pass by keyword to
    # a pipeline function defined here, as ``module.name`` -> names: its signature takes them too.
    imported_call_args: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The epoch-aware shape across modules (ndd_migrate.model.importers): the pipeline functions of
    # this module whose reader metadata another module of the run asks for (a framework iterator
    # given `reader_name=`, `epoch_size()`), as ``module.name`` -> that use; and the imported ones
    # converted in that shape (a call gives ``(metadata, batches)``), as ``module.name``.
    epoch_requests: dict[str, str] = field(default_factory=dict)
    imported_epochs: frozenset[str] = frozenset()
    # Graph helpers across modules (ndd_migrate.model.features.library_helpers), as ``module.name``
    # -> why: those of this module another module runs in a graph that stays (kept here in
    # pipeline mode), and those of other modules that stay pipeline-mode code (a pipeline here
    # whose graph runs one stays too).
    kept_helpers: dict[str, str] = field(default_factory=dict)
    imported_helpers: dict[str, str] = field(default_factory=dict)
    # Functions of this run's modules taking a pipeline that another module imports, as
    # ``module.name`` -> that importer: their parameters are not followed (that module may pass
    # them pipelines it keeps), so the pipelines passed to them here stay (importers.shared_functions).
    shared_functions: dict[str, str] = field(default_factory=dict)
    # Classes of this run deriving from DALI's PyTorch iterator that another module imports, as
    # ``module.name`` -> why (ndd_migrate.model.importers): their base stays DALI's (NDD411).
    kept_iterator_classes: dict[str, str] = field(default_factory=dict)
    # Classes deriving from DALI's PyTorch iterator that a module of the run defines, as
    # ``module.name`` -> (DALI's class, the class's source): a module importing one reads its calls
    # as calls of the base (NDD411); and those whose importers all give it migrated pipelines, which
    # take the support module's base where they are defined.
    imported_iterator_classes: dict[str, tuple[str, str]] = field(default_factory=dict)
    rebased_iterator_classes: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def migrate(cls) -> Policy:
        return cls()

    @classmethod
    def check(
        cls,
        fix=False,
        unsafe_fixes=False,
        is_enabled=every_rule,
        line_length=no_line_length,
        support_module=default_support_module,
    ) -> Policy:
        return cls("check", fix, unsafe_fixes, is_enabled, line_length, support_module)

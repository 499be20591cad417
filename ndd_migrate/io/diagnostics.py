"""What a rule reports: a :class:`Diagnostic` at a source position, and how safe its fix is.

``check`` prints diagnostics; ``migrate`` prints the ones that still need a human. Both come from the
same rule code, so a finding always carries the rule code, the place and the advice.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field


class FixSafety(str, enum.Enum):
    """How far an automatic fix can be trusted (ruff's "fix safety", plus ``manual``).

    * ``safe``: the rewrite keeps the program's meaning; ``check --fix`` applies it.
    * ``unsafe``: the rewrite is right for the code we have seen but can change meaning in corner
      cases (e.g. restructuring a pipeline function); applied by ``migrate`` and by
      ``check --fix --unsafe-fixes``.
    * ``manual``: no automatic rewrite; ``migrate`` leaves a ``# TODO(ndd-migrate): CODE ...`` comment.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    MANUAL = "manual"


@dataclass(frozen=True)
class Diagnostic:
    """One finding of one rule in one file.

    ``line``/``column`` are 1-based line and 0-based column (libcst's convention). ``fixed`` tells
    whether this run applied the fix; a diagnostic with ``fix == MANUAL`` or ``fixed == False`` is
    work left for a human, and ``hint`` says what to do.
    """

    code: str
    message: str
    path: str
    line: int
    column: int = 0
    end_line: int | None = None
    end_column: int | None = None
    fix: FixSafety = FixSafety.MANUAL
    fixed: bool = False
    hint: str = ""
    cell: int | None = None  # in a notebook: the cell (1-based, markdown counted); lines are the cell's

    @property
    def needs_human(self) -> bool:
        return not self.fixed

    def position(self) -> str:
        """``line:column``, or ``cell N:line:column`` in a notebook (ruff's spelling)."""
        where = f"{self.line}:{self.column + 1}"
        return f"cell {self.cell}:{where}" if self.cell is not None else where

    def location(self) -> str:
        return f"{self.path}:{self.position()}"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["fix"] = self.fix.value
        return data


@dataclass
class FileError:
    """A file that could not be processed at all (unreadable, unparsable, a rule crashed).

    The file is left byte-for-byte unchanged; the run goes on with the other files.
    """

    path: str
    message: str
    line: int | None = None

    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass
class FileResult:
    """The outcome of one file: its diagnostics, and the new text when it changed."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed: bool = False
    new_source: str | None = None
    old_source: str | None = None
    error: FileError | None = None
    skipped: bool = False  # the byte prefilter found nothing DALI-related
    pipelines: dict[str, bool] = field(default_factory=dict)  # top-level pipeline functions → migrated?
    support: tuple[str, ...] = ()  # what the new text imports from the project's support module
    support_at: tuple[str, str] | None = None  # that module's (file, import name): ndd_migrate.support.location
    # Imported pipelines another file of the run converts, used here in a way the migration does
    # not follow: ``module.name`` as imported -> the first such use (``path:line``).
    kept_imports: dict[str, str] = field(default_factory=dict)
    # Pipeline settings given by keyword to imported pipelines another file converts: ``module.name``
    # as imported -> names (that file's signature must take them; ndd_migrate.model.importers).
    imported_call_args: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The epoch-aware shape across modules: the imported pipelines whose reader metadata this module
    # asks for, ``module.name`` as imported -> the first such use (``path:line``); and this module's
    # top-level pipelines converted in that shape (ndd_migrate.model.importers).
    epoch_requests: dict[str, str] = field(default_factory=dict)
    epochs: tuple[str, ...] = ()
    # Graph helpers across modules (ndd_migrate.model.features.library_helpers): this module's
    # top-level functions holding `fn.*` calls → converted?, and the imported names its pipelines'
    # graphs call (as imported) → does every pipeline calling it convert?
    # Top-level functions taking a pipeline as a parameter (ndd_migrate.model.importers.shared_functions).
    followed_functions: tuple[str, ...] = ()
    # Values a conversion changes that other modules may import: name -> (attributes holding it,
    # the pipelines behind it) (ndd_migrate.model.exported_values).
    exported_values: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    helpers: dict[str, bool] = field(default_factory=dict)
    helper_calls: dict[str, bool] = field(default_factory=dict)
    # This module's top-level classes deriving from DALI's PyTorch iterator → does each take the
    # support module's iterator as its base (NDD411)? A module importing one keeps it DALI's.
    iterator_classes: dict[str, bool] = field(default_factory=dict)
    # Of them, those another module may derive its calls from: name -> (DALI's class, its source);
    # and the imported ones this module calls (as imported) -> is every call given migrated pipelines?
    iterator_class_sources: dict[str, tuple[str, str]] = field(default_factory=dict)
    iterator_class_calls: dict[str, bool] = field(default_factory=dict)
    generated: bool = False  # skipped: marked @generated (and --include-generated not given)
    # The noqa directives of the engine's last pass and what each silenced (an
    # ndd_migrate.io.noqa.Suppressor): NDD801 reads it, then the engine drops it (ndd_migrate.engine.unused_noqa).
    suppressor: object | None = field(default=None, repr=False, compare=False)
    # ``check``: every rule's findings, from which another selection's are read without the rules
    # (an ndd_migrate.io.findings.Findings; None where the findings depend on the selection).
    findings: object = None

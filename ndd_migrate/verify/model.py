"""Plain data shared by the parent process and the two worker processes.

Everything here is picklable and stdlib-only: the parent writes a job file, a worker reads it,
and neither needs DALI to understand the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEVICES = ("auto", "cpu", "gpu")
LOAD_MODES = ("definitions", "module")

#: Reader seed used on both sides when neither side gives one and ``--seed`` is not set.
DEFAULT_READER_SEED = 1234


@dataclass(frozen=True)
class SideSpec:
    """Where one side's function lives.

    ``path`` is the file the module is loaded from (its directory goes on ``sys.path`` and it is
    the module's ``__file__``, so relative data paths and sibling imports keep working).
    ``source`` overrides the file's content: ``--base REV`` runs the text of the file at a git
    revision under the file's real path. ``display`` is how the report names the file
    (``pipes.py@HEAD~1``), and the filename tracebacks carry.
    """

    path: str
    function: str
    source: str | None = None
    display: str | None = None
    #: the text as written when ``source`` is derived from it (hand-built graphs read as
    #: functions): call sites are looked up, and their lines reported, there
    written: str | None = None

    @property
    def label(self) -> str:
        return f"{self.display or self.path}:{self.function}"


@dataclass(frozen=True)
class BenchConfig:
    """Throughput measurement: ``warmup`` untimed steps, then ``runs`` timed runs of
    ``iterations`` steps each; the reported figure is the median run."""

    warmup: int = 3
    runs: int = 5
    iterations: int = 10

    def __post_init__(self) -> None:
        if self.warmup < 0 or self.runs < 1 or self.iterations < 1:
            raise ValueError("bench needs warmup >= 0, runs >= 1 and iterations >= 1")


@dataclass(frozen=True)
class Settings:
    """How both sides are driven. ``None`` for ``batch_size``/``seed`` means "not passed": each
    function then uses its own default (the decorator's value, kept by the migration).

    ``iterations`` and ``epochs`` are exclusive; with neither, :data:`DEFAULT_ITERATIONS` steps are
    compared. ``epochs`` counts the epochs of the migrated side's first reader, which tells exactly
    where each epoch ends; the pipeline then runs the same number of steps.
    """

    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    batch_size: int | None = None
    seed: int | None = None
    device: str = "auto"
    device_id: int = 0
    iterations: int | None = None
    epochs: int | None = None
    align_random: bool = True
    #: give a reader of a seeded pipeline without ``seed=`` the migrated reader's seed (values
    #: proven, not the sample order); a reader of an unseeded pipeline is aligned in any case
    align_order: bool = False
    reader_seed: int | None = None
    bench: BenchConfig | None = None
    capture: bool = False
    load_mode: str = "definitions"
    timeout: float = 300.0
    #: generate the readers' data instead of reading the user's (:mod:`~ndd_migrate.verify.synthetic`)
    synthetic: bool = False
    max_iterations: int = 100_000
    #: ``epochs`` without a reader: the steps a feed (a legacy ``iter_setup``) gets to end in, the
    #: end of its one epoch (:mod:`~ndd_migrate.verify.ending`)
    max_feed_steps: int = 1000
    #: Arguments for parameters the migrated function requires and nobody gave, passed to both
    #: sides under the user's own (:mod:`~ndd_migrate.verify.callargs`).
    defaults: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, not {self.device!r}")
        if self.load_mode not in LOAD_MODES:
            raise ValueError(f"load_mode must be one of {', '.join(LOAD_MODES)}")
        if self.iterations is not None and self.epochs is not None:
            raise ValueError("give either iterations or epochs, not both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("iterations must be >= 1")
        if self.epochs is not None and self.epochs < 1:
            raise ValueError("epochs must be >= 1")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")

    @property
    def effective_reader_seed(self) -> int:
        if self.reader_seed is not None:
            return self.reader_seed
        return self.seed if self.seed is not None else DEFAULT_READER_SEED


DEFAULT_ITERATIONS = 4

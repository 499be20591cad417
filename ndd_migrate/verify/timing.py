"""Throughput of one side: samples per second, median of several timed runs after a warm-up.

Reusable outside ``verify`` (``benchmarks/bench_verify_throughput.py``): :func:`measure` times any
step function; :func:`pipeline_stepper` and :func:`ndd_stepper` make step functions from a built
pipeline or a migrated generator. They run in the caller's process, so the caller imports DALI.

Why the median of runs and not a mean of steps: the first steps of either side pay for thread
pools, operator instantiation and (pipeline) prefetch fill, and a 2-core CI machine is noisy; the
warm-up absorbs the former, the median the latter. A step counts as done when its outputs exist:
``pipe.run()`` returns finished outputs; an ndd step is forced with ``evaluate()`` (dynamic mode is
asynchronous), without copying anything to the host, which would bias the comparison.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ndd_migrate.verify.model import BenchConfig


@dataclass
class Throughput:
    samples_per_s: float  # median over runs
    run_samples_per_s: list[float] = field(default_factory=list)
    warmup: int = 0
    iterations_per_run: int = 0
    batch_size: int = 0
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def measure(step: Callable[[], int], config: BenchConfig | None = None) -> Throughput:
    """Time ``step`` (one batch; returns the number of samples it produced)."""
    config = config or BenchConfig()
    for _ in range(config.warmup):
        step()
    rates = []
    batch = 0
    for _ in range(config.runs):
        samples = 0
        start = time.perf_counter()
        for _ in range(config.iterations):
            samples += step()
        elapsed = time.perf_counter() - start
        batch = samples // config.iterations
        rates.append(samples / elapsed if elapsed > 0 else float("inf"))
    return Throughput(
        samples_per_s=statistics.median(rates),
        run_samples_per_s=rates,
        warmup=config.warmup,
        iterations_per_run=config.iterations,
        batch_size=batch,
    )


def pipeline_stepper(pipe: Any) -> Callable[[], int]:
    """Step function over a pipeline (built on first use)."""
    pipe.build()

    def step() -> int:
        outputs = pipe.run()
        return len(outputs[0]) if outputs else 0

    return step


def ndd_stepper(generator: Any) -> Callable[[], int]:
    """Step function over a migrated generator."""
    from ndd_migrate.verify.outputs import ensure_ndd_complete

    def step() -> int:
        return ensure_ndd_complete(next(generator))

    return step


def ratio(original: Throughput | None, migrated: Throughput | None) -> float | None:
    """migrated / original throughput (1.0 = as fast as the pipeline)."""
    if not original or not migrated or not original.samples_per_s:
        return None
    return migrated.samples_per_s / original.samples_per_s

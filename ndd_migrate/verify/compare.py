"""Output by output, sample by sample: dtype, shape, layout and values.

Values are compared exactly unless a tolerance is given for that output (``rtol``/``atol``, opt-in
per output): the point of aligning data, order and random states is that a faithful translation
gives *identical* bytes, so any difference is evidence, not noise. Tolerances exist for what
alignment cannot remove, such as a native GPU pipeline compared with code that decodes on the CPU.

For every output the comparison keeps: how many samples were compared and equal, the largest
absolute and relative error and the number of differing elements over all samples, and the
first failing sample (step and index) with a short excerpt — the first differing elements with
both values, or the two dtypes / shapes / layouts.
"""

from __future__ import annotations

import collections
import hashlib
import math
from dataclasses import asdict, dataclass, field

import numpy as np

EXCERPT_ELEMENTS = 5


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0

    @property
    def exact(self) -> bool:
        return self.rtol == 0 and self.atol == 0


@dataclass
class Failure:
    """The first failing sample of an output."""

    iteration: int
    sample: int | None
    reason: str  # batch size / dtype / shape / layout / values / missing output
    detail: str
    excerpt: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class OutputComparison:
    index: int
    tolerance: Tolerance = Tolerance()
    dtype: tuple[str, str] = ("", "")
    layout: tuple[str, str] = ("", "")
    device: tuple[str, str] = ("", "")
    shape: tuple[str, str] = ("", "")  # first sample's shape, or "varies"
    samples_compared: int = 0
    samples_equal: int = 0  # bit-identical
    samples_within_tolerance: int = 0  # not identical, but within the tolerance
    elements_compared: int = 0
    elements_differing: int = 0
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    first_failure: Failure | None = None
    _shapes: tuple[set, set] = field(default_factory=lambda: (set(), set()), repr=False)

    @property
    def ok(self) -> bool:
        return self.first_failure is None

    @property
    def exact(self) -> bool:
        return self.ok and self.samples_within_tolerance == 0

    def to_dict(self) -> dict:
        d = {
            "index": self.index,
            "rtol": self.tolerance.rtol,
            "atol": self.tolerance.atol,
            "dtype": {"original": self.dtype[0], "migrated": self.dtype[1]},
            "layout": {"original": self.layout[0], "migrated": self.layout[1]},
            "device": {"original": self.device[0], "migrated": self.device[1]},
            "shape": {"original": self.shape[0], "migrated": self.shape[1]},
            "samples_compared": self.samples_compared,
            "samples_equal": self.samples_equal,
            "samples_within_tolerance": self.samples_within_tolerance,
            "elements_compared": self.elements_compared,
            "elements_differing": self.elements_differing,
            "max_abs_error": _json_float(self.max_abs_error),
            "max_rel_error": _json_float(self.max_rel_error),
            "ok": self.ok,
            "first_failure": self.first_failure.to_dict() if self.first_failure else None,
        }
        return d


def _json_float(x: float):
    if math.isinf(x):
        return "inf"
    if math.isnan(x):
        return "nan"
    return x


def _scalar(x) -> float | int | bool | str:
    v = x.item() if hasattr(x, "item") else x
    return v if isinstance(v, (int, float, bool)) else str(v)


def _shape_text(shapes: set) -> str:
    if not shapes:
        return ""
    if len(shapes) == 1:
        return str(next(iter(shapes)))
    return "varies"


def compare_arrays(a: np.ndarray, b: np.ndarray, tol: Tolerance):
    """(identical, within_tolerance, n_differing, max_abs, max_rel, differing_mask)."""
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        identical = np.array_equal(a, b, equal_nan=True)
    else:
        identical = np.array_equal(a, b)
    if identical:
        return True, True, 0, 0.0, 0.0, None
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if b.dtype.kind == "b":
        b = b.astype(np.int64)
    a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    b64 = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
    both_nan = np.isnan(a64) & np.isnan(b64)
    differing = (a64 != b64) & ~both_nan
    diff = np.abs(a64 - b64)
    diff = np.where(both_nan, 0.0, diff)
    max_abs = float(np.nanmax(diff)) if diff.size else 0.0
    if np.isnan(diff).any():
        max_abs = float("inf")
    ref = np.abs(a64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(differing, np.where(ref > 0, diff / np.where(ref > 0, ref, 1), np.inf), 0.0)
    max_rel = float(np.nanmax(rel)) if rel.size else 0.0
    if tol.exact:
        within = False
    else:
        within = bool(np.all(np.isclose(b64, a64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)))
    return False, within, int(differing.sum()), max_abs, max_rel, differing


def _excerpt(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None) -> list[dict]:
    if mask is None:
        return []
    idx = np.argwhere(mask)[:EXCERPT_ELEMENTS]
    return [
        {
            "index": [int(i) for i in pos],
            "original": _scalar(a[tuple(pos)]),
            "migrated": _scalar(b[tuple(pos)]),
        }
        for pos in idx
    ]


class Comparator:
    """Accumulates comparisons step by step (the parent streams step files through it)."""

    def __init__(self, tolerances: dict[int, Tolerance] | None = None, default: Tolerance = Tolerance()):
        self.tolerances = tolerances or {}
        self.default = default
        self.outputs: dict[int, OutputComparison] = {}
        self.structure_findings: list[str] = []
        self.steps = 0
        self._seen: set[tuple[int, int]] = set()
        # each output's samples on both sides, as digests: same samples in another order?
        self._digests: dict[int, tuple[collections.Counter, collections.Counter]] = {}

    def _output(self, index: int) -> OutputComparison:
        if index not in self.outputs:
            self.outputs[index] = OutputComparison(index, self.tolerances.get(index, self.default))
        return self.outputs[index]

    def add_step(self, iteration: int, original: list[dict], migrated: list[dict]) -> None:
        self.steps += 1
        if len(original) != len(migrated) and (len(original), len(migrated)) not in self._seen:
            self._seen.add((len(original), len(migrated)))
            self.structure_findings.append(
                f"step {iteration}: the original returns {len(original)} output(s), the migrated "
                f"code yields {len(migrated)}"
            )
        for index in range(max(len(original), len(migrated))):
            cmp = self._output(index)
            if index >= len(original) or index >= len(migrated):
                if cmp.first_failure is None:
                    side = "original" if index >= len(original) else "migrated code"
                    cmp.first_failure = Failure(iteration, None, "missing output", f"the {side} has no output {index}")
                continue
            self._compare_batch(cmp, iteration, original[index], migrated[index])

    def _fail(self, cmp: OutputComparison, failure: Failure) -> None:
        if cmp.first_failure is None:
            cmp.first_failure = failure

    def _compare_batch(self, cmp: OutputComparison, iteration: int, o: dict, m: dict) -> None:
        if not cmp.dtype[0]:
            cmp.dtype = (o["dtype"], m["dtype"])
            cmp.layout = (o["layout"], m["layout"])
            cmp.device = (o["device"], m["device"])
        os_, ms = o["samples"], m["samples"]
        if len(os_) != len(ms):
            extra = " (the migrated output is one Tensor, not a Batch)" if m["kind"] == "Tensor" else ""
            self._fail(
                cmp,
                Failure(
                    iteration,
                    None,
                    "batch size",
                    f"{len(os_)} samples in the original, {len(ms)} migrated{extra}",
                ),
            )
        if o["dtype"] != m["dtype"]:
            self._fail(
                cmp,
                Failure(iteration, 0, "dtype", f"original {o['dtype']}, migrated {m['dtype']}"),
            )
        if o["layout"] != m["layout"]:
            self._fail(
                cmp,
                Failure(
                    iteration,
                    0,
                    "layout",
                    f"original {o['layout'] or '(none)'!s}, migrated {m['layout'] or '(none)'!s}",
                ),
            )
        original_seen, migrated_seen = self._digests.setdefault(
            cmp.index, (collections.Counter(), collections.Counter())
        )
        original_seen.update(map(_digest, os_))
        migrated_seen.update(map(_digest, ms))
        for s, (a, b) in enumerate(zip(os_, ms)):
            cmp.samples_compared += 1
            cmp._shapes[0].add(tuple(a.shape))
            cmp._shapes[1].add(tuple(b.shape))
            cmp.shape = (_shape_text(cmp._shapes[0]), _shape_text(cmp._shapes[1]))
            if a.shape != b.shape:
                self._fail(
                    cmp,
                    Failure(
                        iteration,
                        s,
                        "shape",
                        f"original {tuple(a.shape)}, migrated {tuple(b.shape)}",
                    ),
                )
                continue
            cmp.elements_compared += a.size
            identical, within, n_diff, max_abs, max_rel, mask = compare_arrays(a, b, cmp.tolerance)
            cmp.elements_differing += n_diff
            cmp.max_abs_error = max(cmp.max_abs_error, max_abs)
            cmp.max_rel_error = max(cmp.max_rel_error, max_rel)
            if identical:
                cmp.samples_equal += 1
            elif within:
                cmp.samples_within_tolerance += 1
            else:
                tol = (
                    "" if cmp.tolerance.exact else (f" beyond rtol={cmp.tolerance.rtol:g}, atol={cmp.tolerance.atol:g}")
                )
                self._fail(
                    cmp,
                    Failure(
                        iteration,
                        s,
                        "values",
                        f"{n_diff} of {a.size} elements differ{tol} (max abs {max_abs:.6g})",
                        _excerpt(a, b, mask),
                    ),
                )

    def results(self) -> list[OutputComparison]:
        return [self.outputs[i] for i in sorted(self.outputs)]

    def order_findings(self) -> list[str]:
        """For each output whose values differ while both sides gave the same samples over the steps
        compared, that the sample order is what differs, and where it first does."""
        found = []
        for index, cmp in sorted(self.outputs.items()):
            failure = cmp.first_failure
            seen = self._digests.get(index)
            if failure is None or failure.reason != "values" or seen is None or seen[0] != seen[1]:
                continue
            found.append(
                f"output {index}: the same samples in another order: the sample order differs from step "
                f"{failure.iteration}, sample {failure.sample} on"
            )
        return found


def _digest(sample: np.ndarray) -> bytes:
    array = np.ascontiguousarray(sample)
    return hashlib.blake2b(array.tobytes() + repr((array.shape, array.dtype.str)).encode(), digest_size=16).digest()

"""``verify --synthetic`` for an ``external_source`` whose ``source`` is a parameter of the
pipeline function (or a module-level name): arrays of the dtype and layout it declares.

The source is Python data, not files: the parameter gets an :class:`ExternalData`, which both
sides receive (it travels to each worker pickled). DALI takes an iterable source as an iterable,
a migration may call it or iterate over it, so it is both, and every sample depends on its index
alone (its own seeded generator): DALI's prefetching, which calls ahead, and a migrated loop that
calls on demand get the same arrays. A source that is user code (``NpyFiles(data_dir)``) loads
what it wants from where it wants: it is not generated, and the report says so.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import numpy as np

from ndd_migrate.verify.synthetic_source import Reader, Scope, chain, key_of, literal, path_names

#: DALI type name → numpy dtype of the generated arrays
DTYPES = {
    "UINT8": "uint8",
    "UINT16": "uint16",
    "UINT32": "uint32",
    "UINT64": "uint64",
    "INT8": "int8",
    "INT16": "int16",
    "INT32": "int32",
    "INT64": "int64",
    "FLOAT": "float32",
    "FLOAT16": "float16",
    "FLOAT64": "float64",
    "BOOL": "bool",
}


@dataclass(frozen=True)
class OutputSpec:
    """One output of the source: numpy dtype and layout (or just a number of dimensions)."""

    dtype: str = "float32"
    layout: str = ""
    ndim: int = 1

    def extents(self, rng: np.random.Generator) -> tuple[int, ...]:
        """A sample's shape: 3 channels for ``C``, 8–24 for ``H``/``W``/``D``, 2–9 otherwise."""
        dims = self.layout or "?" * self.ndim
        out = []
        for d in dims:
            if d == "C":
                out.append(3)
            elif d in "HWD":
                out.append(int(rng.integers(8, 25)))
            else:
                out.append(int(rng.integers(2, 10)))
        return tuple(out)

    def array(self, rng: np.random.Generator) -> np.ndarray:
        shape = self.extents(rng)
        if self.dtype == "bool":
            return rng.integers(0, 2, size=shape).astype(bool)
        if self.dtype.startswith("float"):
            return rng.normal(0.0, 2.0, size=shape).astype(self.dtype)
        high = 256 if self.dtype == "uint8" else 100
        return rng.integers(0, high, size=shape).astype(self.dtype)

    def describe(self) -> str:
        return f"{self.dtype} {self.layout}".strip() if self.layout else f"{self.dtype} {self.ndim}-D"


class ExternalData:
    """The data of one external source: per sample (``batch=False``) or per batch, iterable (from
    the first sample or batch on, without end) and callable (``SampleInfo``, ``BatchInfo`` or the
    iteration number)."""

    def __init__(self, outputs: list[OutputSpec], *, batch: bool, batch_size: int, seed: int, tuple_out: bool):
        self.outputs, self.batch, self.batch_size, self.seed = outputs, batch, batch_size, seed
        self.tuple_out = tuple_out

    def sample(self, index: int) -> Any:
        rng = np.random.default_rng([self.seed, index])
        arrays = tuple(o.array(rng) for o in self.outputs)
        return arrays if self.tuple_out else arrays[0]

    def batch_at(self, iteration: int) -> Any:
        samples = [self.sample(iteration * self.batch_size + i) for i in range(self.batch_size)]
        if not self.tuple_out:
            return samples
        return tuple([s[k] for s in samples] for k in range(len(self.outputs)))

    def __call__(self, info: Any) -> Any:
        if self.batch:
            return self.batch_at(int(getattr(info, "iteration", info)))
        return self.sample(int(getattr(info, "idx_in_epoch", info)))

    def __iter__(self):
        index = 0
        while True:
            yield self.batch_at(index) if self.batch else self.sample(index)
            index += 1

    def describe(self) -> str:
        kind = f"batches of {self.batch_size}" if self.batch else "samples"
        return f"{kind} of {', '.join(o.describe() for o in self.outputs)} arrays (numpy, seeded per sample)"


def _per_output(value: Any, count: int) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value] * count


def output_specs(reader: Reader, scope: Scope) -> tuple[list[OutputSpec], bool]:
    """The outputs ``external_source(..., dtype=, layout=, ndim=, num_outputs=)`` declares, and
    whether a sample is a tuple (``num_outputs`` given)."""
    count = literal(reader.args.get("num_outputs"), scope)
    tuple_out = isinstance(count, int)
    count = count if tuple_out else 1
    dtype_expr = reader.args.get("dtype")
    dtype_nodes = dtype_expr.elts if isinstance(dtype_expr, (ast.List, ast.Tuple)) else [dtype_expr] * count
    dtypes = [(chain(n)[-1:] or ["FLOAT"])[0] if n is not None else "FLOAT" for n in dtype_nodes]
    layouts = _per_output(literal(reader.args.get("layout"), scope, ""), count)
    ndims = _per_output(literal(reader.args.get("ndim"), scope, 1), count)
    specs = [
        OutputSpec(DTYPES.get(str(d).upper(), "float32"), str(lay or ""), int(n if isinstance(n, int) else 1))
        for d, lay, n in zip(dtypes, layouts, ndims)
    ]
    return specs, tuple_out


def plan_external(
    reader: Reader, scope: Scope, env: dict[str, Any], given: set[str], batch_size: int, seed: int
) -> tuple[str, ExternalData] | str:
    """(the parameter, its data) for an external source fed by a parameter or module-level name;
    otherwise a note saying why nothing was generated for it."""
    where = f"external_source (line {reader.call.lineno})"
    source = reader.args.get("source")
    if source is None:
        return f"--synthetic: {where} has no source= (fed from outside the graph): nothing generated for it"
    key = key_of(source)
    if key is None or key not in path_names(source, scope) or not isinstance(source, ast.Name):
        return (
            f"--synthetic: {where}: its source {ast.unparse(source)} is code of its own: it reads its data "
            "itself, nothing generated for it (give its arguments with --args)"
        )
    if key in given or key in env:
        return f"--synthetic: {where}: its source `{key}` is given"
    specs, tuple_out = output_specs(reader, scope)
    batch = literal(reader.args.get("batch"), scope, True)
    data = ExternalData(specs, batch=bool(batch), batch_size=batch_size, seed=seed, tuple_out=tuple_out)
    return key, data

"""Regenerate ``ops.json``, the table of DALI operators that the codemod and the lint consult.

Why this script exists: the codemod and the lint run in a pre-commit hook and must not import DALI
(a large wheel with CUDA libraries that takes seconds to import). Everything they need to know about
DALI's operators — the dynamic-mode (``ndd``) name of each ``fn.*`` operator, which ones are readers
or random, which arguments ``ndd`` does not accept, schema defaults — is therefore extracted here,
once per DALI release, from the installed DALI's operator schemas and from the ``ndd`` callables
themselves, and committed as JSON. This is the only module of ndd-migrate that imports DALI at
module level; :mod:`ndd_migrate.dali.tables` reads the JSON without it.

Usage::

    python -m ndd_migrate.dali.tables.generate_ops           # rewrite ops.json
    python -m ndd_migrate.dali.tables.generate_ops --check   # exit 1 if ops.json is stale

An entry of ``ops`` (key: the operator's path relative to ``nvidia.dali.fn``) is documented in
:class:`ndd_migrate.dali.tables.OpInfo`.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import math
import sys
import types as pytypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nvidia.dali.backend as _b
import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.math as dali_math
from nvidia import dali
from nvidia.dali import fn, ops, types
from nvidia.dali.fn import _to_snake_case

OPS_JSON = Path(__file__).with_name("ops.json")

# DALI files the Sphinx-hidden copy of an operator under a `hidden` submodule and also exposes it
# in the parent module; only the parent spelling is public API.
_HIDDEN = "hidden"

# Enumerations whose schema defaults are stored under `enum_defaults` as "Enum.MEMBER" (every
# member is also a constant of nvidia.dali.types: types.FLOAT, types.RGB, types.INTERP_LINEAR).
_ENUMS = (types.DALIDataType, types.DALIImageType, types.DALIInterpType)


def _walk(module: pytypes.ModuleType, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(dotted path, object)`` for the public attributes of ``module`` and its submodules,
    staying inside the package of ``module`` and skipping the ``hidden`` duplicates."""
    for name in sorted(vars(module)):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if isinstance(obj, pytypes.ModuleType):
            if name != _HIDDEN and obj.__name__.startswith(module.__name__ + "."):
                yield from _walk(obj, f"{prefix}{name}.")
        else:
            yield prefix + name, obj


def _fn_path(schema) -> str:
    """The ``fn`` path DALI gives the operator of ``schema`` (``readers__MXNet`` → ``readers.mxnet``)."""
    return ".".join([*schema.ModulePath(), _to_snake_case(schema.OperatorName())])


def _current(schema):
    """The schema of the operator that replaces ``schema`` (following aliases and deprecations),
    or ``schema``'s own target when it is current."""
    while schema.IsDeprecated() and schema.DeprecatedInFavorOf():
        schema = _b.GetSchema(schema.DeprecatedInFavorOf())
    return _b.GetSchema(schema.Name(), follow_aliases=True)


def _ndd_callables() -> dict[str, tuple[str, Any]]:
    """Map a schema name to the public ``ndd`` callable generated for it and that callable's path.

    Readers are classes (``readers.File``), the other operators functions (``resize``); DALI
    generates both from the schemas, so the names are read from the module, never derived."""
    found: dict[str, tuple[str, Any]] = {}
    for path, obj in _walk(ndd):
        if not getattr(obj, "_generated", False) or not hasattr(obj, "_schema_name"):
            continue
        if obj._schema_name in found:
            raise RuntimeError(f"two ndd callables for {obj._schema_name}: {found[obj._schema_name][0]}, {path}")
        found[obj._schema_name] = (path, obj)
    return found


def _legacy_classes() -> dict[str, type]:
    """Map a legacy ``nvidia.dali.ops`` class path (``readers.File``) to the class."""
    return {path: obj for path, obj in _walk(ops) if isinstance(obj, type)}


def _impl_schema(schema, legacy: dict[str, type]):
    """The schema that really runs the operator of ``schema``.

    A few operators implemented in Python (``readers.tfrecord``, ``python_function``) have a
    documentation-only schema with no backends and no output function; their ops class names the
    internal schema that does the work."""
    legacy_class = legacy.get(".".join([*schema.ModulePath(), schema.OperatorName()]))
    internal = getattr(legacy_class, "_internal_schema_name", None)
    return _b.GetSchema(internal or schema.Name(), follow_aliases=True)


def _keyword_params(callable_: Any) -> set[str]:
    """Names the callable accepts as keywords (inputs are positional-only in ``ndd``)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {
        p.name
        for p in inspect.signature(callable_).parameters.values()
        if p.kind in kinds and not p.name.startswith("_")
    }


def _num_outputs(impl, pipeline_args: set[str]) -> int | None:
    if impl.HasOutputFn() or "num_outputs" in pipeline_args:
        return None
    return impl.CalculateOutputs(_b.OpSpec(""))


def _json_value(value: Any) -> bool:
    """Whether ``value`` survives a JSON round trip unchanged (no NaN/inf, no enums, no objects)."""
    if isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_value(v) for v in value)
    return False


def _default(schema, arg: str) -> tuple[str, Any] | None:
    """The schema default of ``arg`` as ``("defaults", JSON value)`` or, for an enum argument,
    ``("enum_defaults", "Enum.MEMBER")``; ``None`` when it has no default that JSON can hold."""
    if not schema.HasArgumentDefaultValue(arg):
        return None
    try:
        raw = ast.literal_eval(schema.GetArgumentDefaultValueString(arg))
        value = types._type_convert_value(schema.GetArgumentType(arg), raw)
    except (ValueError, SyntaxError, RuntimeError, TypeError):
        return None
    if isinstance(value, _ENUMS):
        return "enum_defaults", f"{type(value).__name__}.{value.name}"
    return ("defaults", value) if _json_value(value) else None


def _deprecated_args(schema) -> tuple[dict[str, str], list[str]]:
    """Return ``({old: new} renames, [removed arguments])`` from the schema's argument deprecations."""
    renamed, removed = {}, []
    for arg in schema.GetArgumentNames():
        if not schema.IsDeprecatedArg(arg):
            continue
        info = schema.DeprecatedArgInfo(arg)
        if info["renamed_to"]:
            renamed[arg] = info["renamed_to"]
        elif info["removed"]:
            removed.append(arg)
    return renamed, sorted(removed)


def _op_entry(fn_path: str, fn_obj: Any, ndd_index: dict, legacy: dict[str, type]) -> dict[str, Any]:
    own, schema = _b.GetSchemaAndTarget(fn_obj._schema_name)
    current = _current(own)
    replaced = current.Name() != schema.Name()
    impl = _impl_schema(own, legacy)

    # The fn signature lists `device`, `name` and (for external_source, written in Python) the
    # arguments no schema has; the schema adds the deprecated arguments the signature leaves out.
    pipeline_args = set(schema.GetArgumentNames()) | _keyword_params(fn_obj)
    # Every operator of a pipeline takes `seed` (an argument of each op's spec, filled from the
    # pipeline's seed when not given), random or not; in ndd only readers and random ops do (these
    # draw from an `rng=` instead): elsewhere it is dropped, as it changed nothing.
    pipeline_args.add("seed")
    num_outputs = _num_outputs(impl, pipeline_args)

    # A deprecated operator is rewritten to its replacement only when the replacement takes the
    # same inputs and gives the same outputs (fn.ssd_random_crop has 3 inputs, its replacement
    # random_bbox_crop at most 2: no dynamic-mode form).
    ndd_path, ndd_obj = ndd_index.get(current.Name(), (None, None))
    if replaced and not (
        current.MinNumInput() <= schema.MinNumInput()
        and schema.MaxNumInput() <= current.MaxNumInput()
        and _num_outputs(_impl_schema(current, legacy), set(current.GetArgumentNames())) == num_outputs
    ):
        ndd_path = ndd_obj = None

    ndd_args = _keyword_params(ndd_obj) if ndd_obj is not None else set()
    dropped = sorted(pipeline_args - ndd_args) if ndd_obj is not None else []
    renamed, removed = _deprecated_args(schema)

    # Defaults, split by kind; a default that the replacement of a deprecated operator changed
    # goes to `changed_defaults` instead: the rewrite must spell it out, never drop it.
    defaults: dict[str, dict[str, Any]] = {
        "defaults": {},
        "enum_defaults": {},
        "changed_defaults": {},
    }
    for arg in schema.GetArgumentNames():
        if arg in dropped or arg in renamed or arg in removed:
            continue
        found = _default(schema, arg)
        if found is None:
            continue
        kind, value = found
        if ndd_obj is not None and replaced and _default(current, arg) != found:
            kind = "changed_defaults"
        defaults[kind][arg] = value

    deprecated_for = _fn_path(current) if own.IsDeprecated() else None
    return {
        "ndd": ndd_path,
        "reader": "readers" in current.ModulePath(),
        "random": schema.HasRandomStateArg(),
        "min_inputs": schema.MinNumInput(),
        "max_inputs": schema.MaxNumInput(),
        "num_outputs": num_outputs,
        "backends": sorted(impl.GetSupportedBackends()),
        "deprecated_for": deprecated_for if deprecated_for != fn_path else None,
        "dropped_args": dropped,
        "renamed_args": renamed,
        "removed_args": removed,
        **defaults,
        "batch_size_arg": "batch_size" in ndd_args,
    }


def _math_functions() -> list[str]:
    """Functions of ``nvidia.dali.math`` that ``ndd.math`` has with the same parameters."""
    names = []
    for name, obj in vars(dali_math).items():
        if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != dali_math.__name__:
            continue
        twin = getattr(ndd.math, name, None)
        if twin is not None and list(inspect.signature(twin).parameters) == list(inspect.signature(obj).parameters):
            names.append(name)
    return sorted(names)


def build_table() -> dict[str, Any]:
    """Build the table from the installed DALI (see the module docstring)."""
    ndd_index = _ndd_callables()
    legacy = _legacy_classes()
    op_entries = {
        path: _op_entry(path, obj, ndd_index, legacy)
        for path, obj in _walk(fn)
        if callable(obj) and hasattr(obj, "_schema_name")
    }
    legacy_ops = {}
    for path in legacy:
        module, _, name = path.rpartition(".")
        fn_path = f"{module}.{_to_snake_case(name)}" if module else _to_snake_case(name)
        if fn_path in op_entries:
            legacy_ops[path] = fn_path
    return {
        "dali_version": dali.__version__,
        "legacy_ops": legacy_ops,
        "math": _math_functions(),
        "ops": op_entries,
    }


def render(table: dict[str, Any]) -> str:
    """Serialise deterministically, so that a regenerated table diffs cleanly."""
    return json.dumps(table, sort_keys=True, indent=1, allow_nan=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if ops.json differs from the installed DALI")
    args = parser.parse_args(argv)
    text = render(build_table())
    if args.check:
        if not OPS_JSON.exists() or OPS_JSON.read_text(encoding="utf-8") != text:
            print(
                f"{OPS_JSON} is stale for DALI {dali.__version__}; "
                "run `python -m ndd_migrate.dali.tables.generate_ops`",
                file=sys.stderr,
            )
            return 1
        return 0
    OPS_JSON.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

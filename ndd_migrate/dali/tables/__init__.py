"""What the rules know about DALI's operators, read from ``ops.json`` without importing DALI.

The codemod and the lint run in a pre-commit hook, where importing DALI is too slow and may be
impossible. ``ops.json`` is generated from the installed DALI by :mod:`.generate_ops` (see there
for how to regenerate and check it); this module only reads it, once, on first use.

Operator paths are dotted and relative to ``nvidia.dali.fn`` (``"readers.file"``, ``"resize"``,
``"coin_flip"``); ``ndd`` paths are relative to ``nvidia.dali.experimental.dynamic``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = ["OpInfo", "fn_path_of_legacy_op", "has_expression_form", "load_table", "math_functions", "op_info"]


@dataclass(frozen=True)
class OpInfo:
    """One ``fn.*`` operator, as the installed DALI's schema and ``ndd`` module describe it.

    * ``fn_path``: the key, e.g. ``"readers.file"``.
    * ``ndd``: path of the dynamic-mode callable to use instead (``"readers.File"``,
      ``"random.coin_flip"`` for the deprecated ``coin_flip``), or ``None`` when dynamic mode has
      no form for it (``python_function``, ``external_source``, ``ssd_random_crop``, ...).
    * ``reader``: a reader; its ``ndd`` form is a class, created once and iterated with
      ``next_epoch(batch_size=...)``.
    * ``random``: draws random state (schema ``HasRandomStateArg``); ``ndd`` takes ``rng=``, not
      ``seed=``.
    * ``min_inputs`` / ``max_inputs``: positional data inputs the schema allows.
    * ``num_outputs``: the number of outputs, ``None`` when it depends on the arguments
      (``readers.coco``, ``resize`` with ``save_attrs``, ``python_function``...).
    * ``backends``: sorted subset of ``cpu``, ``gpu``, ``mixed`` (``mixed`` is spelled ``"gpu"``
      in ``ndd``).
    * ``deprecated_for``: the current ``fn`` path when this name is deprecated in favour of it
      (set even when ``ndd`` is ``None`` because the replacement is not a drop-in).
    * ``dropped_args``: arguments pipeline mode accepts that the ``ndd`` callable rejects
      (``bytes_per_sample_hint``, ``preserve``, ``name`` on non-readers, ``seed`` on random ops).
      Empty when ``ndd`` is ``None``.
    * ``renamed_args``: ``{deprecated name: current name}``.
    * ``removed_args``: deprecated arguments that no longer do anything (DALI ignores them with a
      warning in both modes).
    * ``defaults``: ``{argument: default}`` for JSON-representable schema defaults that the
      ``ndd`` callable shares, so an argument spelled out at this value can be dropped.
    * ``enum_defaults``: the same for enum arguments, as ``"DALIInterpType.INTERP_LINEAR"``
      (the member is also the ``nvidia.dali.types`` constant ``types.INTERP_LINEAR``).
    * ``changed_defaults``: defaults of this deprecated operator that its ``ndd`` replacement
      changed (``fast_resize_crop_mirror``: ``antialias=False``); a rewrite must pass them
      explicitly when the call does not.
    * ``batch_size_arg``: the ``ndd`` callable accepts ``batch_size=`` (operator functions do,
      reader constructors do not).
    """

    fn_path: str
    ndd: str | None
    reader: bool
    random: bool
    min_inputs: int
    max_inputs: int
    num_outputs: int | None
    backends: tuple[str, ...]
    deprecated_for: str | None
    dropped_args: frozenset[str]
    renamed_args: Mapping[str, str] = field(hash=False)
    removed_args: frozenset[str]
    defaults: Mapping[str, Any] = field(hash=False)
    enum_defaults: Mapping[str, str] = field(hash=False)
    changed_defaults: Mapping[str, Any] = field(hash=False)
    batch_size_arg: bool


@functools.cache
def load_table() -> dict[str, Any]:
    """The parsed ``ops.json`` (``dali_version``, ``ops``, ``math``, ``legacy_ops``); shared, do
    not modify it."""
    return json.loads(resources.files(__name__).joinpath("ops.json").read_text(encoding="utf-8"))


@functools.cache
def _infos() -> dict[str, OpInfo]:
    return {
        path: OpInfo(
            fn_path=path,
            ndd=entry["ndd"],
            reader=entry["reader"],
            random=entry["random"],
            min_inputs=entry["min_inputs"],
            max_inputs=entry["max_inputs"],
            num_outputs=entry["num_outputs"],
            backends=tuple(entry["backends"]),
            deprecated_for=entry["deprecated_for"],
            dropped_args=frozenset(entry["dropped_args"]),
            renamed_args=MappingProxyType(entry["renamed_args"]),
            removed_args=frozenset(entry["removed_args"]),
            defaults=MappingProxyType(entry["defaults"]),
            enum_defaults=MappingProxyType(entry["enum_defaults"]),
            changed_defaults=MappingProxyType(entry["changed_defaults"]),
            batch_size_arg=entry["batch_size_arg"],
        )
        for path, entry in load_table()["ops"].items()
    }


def op_info(fn_path: str) -> OpInfo | None:
    """The operator ``nvidia.dali.fn.<fn_path>``, or ``None`` when DALI has no such operator."""
    return _infos().get(fn_path)


@functools.cache
def math_functions() -> frozenset[str]:
    """Names of the ``nvidia.dali.math`` functions; each is available as ``ndd.math.<name>``
    with the same parameters."""
    return frozenset(load_table()["math"])


#: Operators with no ``ndd`` callable (``ndd`` is ``None`` in the table) whose result a public
#: dynamic-mode expression gives: ``fn.shapes(x)`` is ``ndd.as_batch(x.shape, dtype=..., device=...)``
#: (written by ``ndd_migrate/codegen/sample_shapes.py``; checked against DALI in
#: tests/test_sample_shapes.py). Kept by hand: the generator reads only DALI's callables.
_EXPRESSION_FORMS = frozenset({"shapes"})


def has_expression_form(fn_path: str | None) -> bool:
    """``fn.<fn_path>`` has no ``ndd`` callable but is rewritten as an expression (see above)."""
    return fn_path in _EXPRESSION_FORMS


def fn_path_of_legacy_op(ops_path: str) -> str | None:
    """The ``fn`` path of a legacy ``nvidia.dali.ops`` class (``"readers.File"`` →
    ``"readers.file"``, ``"TFRecordReader"`` → ``"tfrecord_reader"``), or ``None``."""
    return load_table()["legacy_ops"].get(ops_path)

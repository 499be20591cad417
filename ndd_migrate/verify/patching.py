"""Reversible monkey-patches and the one hook on pipeline-mode operator construction.

``verify`` runs the user's code unmodified and changes DALI around it instead: lowering devices,
seeding readers, feeding random states. Each change is a :class:`Patches` entry that is undone on
exit, so the same worker can build an aligned pipeline for the comparison and a plain one for the
timing.

Every pipeline-mode operator object — ``fn.*`` wrappers and legacy ``ops.*`` classes alike — is
created by calling a class whose metaclass is ``nvidia.dali.ops._DaliOperatorMeta`` (DALI 2.4.0,
``ops/__init__.py``; ``ExternalSource`` is the one plain class). Defining ``__call__`` on that
metaclass therefore sees every constructor call with its keyword arguments (``device``, ``seed``)
before DALI turns them into an ``OpSpec`` — after that, an argument can no longer be replaced
(``OpSpec.AddArg`` refuses duplicates). :class:`ConstructionHooks` installs that ``__call__`` once
and runs the active transformers in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MISSING = object()


class Patches:
    """A stack of ``setattr`` changes, undone in reverse order by :meth:`undo` / ``__exit__``."""

    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        self._undo.append((owner, name, owner.__dict__.get(name, _MISSING)))
        setattr(owner, name, value)

    def undo(self) -> None:
        while self._undo:
            owner, name, old = self._undo.pop()
            if old is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, old)

    def __enter__(self) -> Patches:
        return self

    def __exit__(self, *exc) -> None:
        self.undo()


#: A transformer gets the operator class and its constructor kwargs and returns the kwargs to use.
Transformer = Callable[[type, dict], dict]


class ConstructionHooks:
    """Runs transformers on the keyword arguments of every pipeline-mode operator constructor."""

    _active: list[Transformer] = []
    _patches: Patches | None = None

    @classmethod
    def add(cls, transformer: Transformer) -> None:
        if not cls._active:
            cls._install()
        cls._active.append(transformer)

    @classmethod
    def remove(cls, transformer: Transformer) -> None:
        cls._active.remove(transformer)
        if not cls._active and cls._patches is not None:
            cls._patches.undo()
            cls._patches = None

    @classmethod
    def _install(cls) -> None:
        import nvidia.dali.ops as ops
        from nvidia.dali.external_source import ExternalSource

        patches = Patches()

        def meta_call(op_cls, *args, **kwargs):
            for t in list(cls._active):
                kwargs = t(op_cls, kwargs)
            return type.__call__(op_cls, *args, **kwargs)

        patches.set(ops._DaliOperatorMeta, "__call__", meta_call)

        es_init = ExternalSource.__init__

        def external_source_init(self, *args, **kwargs):
            for t in list(cls._active):
                kwargs = t(ExternalSource, kwargs)
            es_init(self, *args, **kwargs)

        patches.set(ExternalSource, "__init__", external_source_init)
        cls._patches = patches


def schema_of(op_cls: type):
    """The (alias-followed) schema of a pipeline-mode operator class, or ``None`` for classes
    without one (``ExternalSource``, ``Compose``)."""
    from nvidia.dali import backend as _b

    name = getattr(op_cls, "schema_name", None)
    if not name:
        return None
    return _b.TryGetSchema(name, follow_aliases=True)


def fn_name(schema_name: str) -> str:
    """``random__CoinFlip`` → ``random.coin_flip``: how users spell the op (fn and ndd alike)."""
    from nvidia.dali.ops import _names

    try:
        return _names._op_name(schema_name, "fn")
    except Exception:  # pragma: no cover - defensive, name formatting only
        return schema_name


def canonical_op(schema_name: str) -> str:
    """The schema an op stands for: deprecated spellings (``Uniform``, ``CoinFlip``,
    ``ImageDecoderRandomCrop``) map to the op that replaced them, so ``fn.coin_flip`` in the
    pipeline and ``ndd.random.coin_flip`` in the migration count as the same random op."""
    from nvidia.dali import backend as _b

    schema = _b.TryGetSchema(schema_name)
    if schema is None:
        return schema_name
    target = schema.AliasFor() or schema.DeprecatedInFavorOf()
    return target or schema_name

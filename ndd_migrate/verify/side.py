"""What both sides of a worker share: their step files and status, loading the user's function
with the arguments ``verify`` passes, and the device they run on.

The migrated side (:mod:`~ndd_migrate.verify.migrated_side`) and the original side
(:mod:`~ndd_migrate.verify.original_side`) are loaded, called and report problems the same way;
:mod:`~ndd_migrate.verify.worker` is the process that runs one of them.
"""

from __future__ import annotations

import inspect
import os
import pickle
from typing import Any

from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.loading import find_function, load_module
from ndd_migrate.verify.model import Settings


def step_path(directory: str, tag: str, index: int) -> str:
    return os.path.join(directory, f"{tag}_{index:05d}.pkl")


def write_pickle(path: str, obj: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


class Status:
    """The phase the worker is in, readable by the parent after a timeout or crash."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.phase = "starting"

    def __call__(self, phase: str) -> None:
        self.phase = phase
        with open(self.path, "w") as f:
            f.write(phase)


# --------------------------------------------------------------------------------------------
# Calling the user's function


def _accepts(func: Any, name: str) -> bool:
    if getattr(func, "_is_pipeline_def", False):
        return True  # create_pipeline(*args, **kwargs) passes Pipeline arguments through
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return True
    params = sig.parameters
    if name in params and params[name].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    ):
        return True
    return any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())


def call_kwargs(func: Any, settings: Settings, device_id: int | None, label: str):
    """The keyword arguments ``verify`` passes (docs/target-shape.md: ``batch_size``,
    ``device_id``, ``seed`` on top of the user's own), minus those the function cannot take —
    a migrated function without randomness has no ``seed`` parameter. Returns (kwargs, notes)."""
    kwargs = {**settings.defaults, **settings.kwargs}
    notes = []
    wanted = {"device_id": device_id}
    if settings.batch_size is not None:
        wanted["batch_size"] = settings.batch_size
    if settings.seed is not None:
        wanted["seed"] = settings.seed
    for name, value in wanted.items():
        if _accepts(func, name):
            kwargs[name] = value
        elif name != "device_id" or value is not None:
            notes.append(f"{label} takes no `{name}` parameter; {name}={value!r} not passed")
    return kwargs, notes


def load_side(spec, settings, device_id, kind: str, result: dict):
    """Load one side's module and function and its call arguments; record the file and notes.

    Shared by both sides so they are loaded, and report problems, the same way."""
    loaded = load_module(spec.path, source=spec.source, display=spec.display, mode=settings.load_mode)
    result["user_files"].append(loaded.filename)
    func = find_function(loaded, spec.function, kind=kind)
    kwargs, notes = call_kwargs(func, settings, device_id, f"{kind} `{spec.function}`")
    kwargs = _module_globals(loaded.module, func, kwargs, notes, kind)
    result["notes"].extend(notes)
    return func, kwargs


def _module_globals(module: Any, func: Any, kwargs: dict, notes: list, kind: str) -> dict:
    """``kwargs`` minus those naming no parameter of ``func``. One naming a top-level name of its
    module sets the module's global instead: a graph built by hand in a script reads its data from
    module globals (``image_dir = sys.argv[1]``); the generator it migrates to takes no
    parameters and reads the same global. Any other is not passed, with a note: the pipelines of
    one file share the ``--args`` given, and one pipeline's parameter must not stop another's
    check ("unexpected keyword argument")."""
    from nvidia.dali.pipeline import Pipeline

    try:
        params = dict(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return kwargs
    if getattr(func, "_is_pipeline_def", False):
        params.update(inspect.signature(Pipeline.__init__).parameters)
    elif any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return kwargs
    out = {}
    for name, value in kwargs.items():
        if name in params:
            out[name] = value
        elif name in vars(module) and not callable(vars(module)[name]):
            setattr(module, name, value)
            notes.append(f"{kind}: the module global `{name}` set to {value!r}")
        else:
            notes.append(f"{kind} `{getattr(func, '__name__', func)}` takes no `{name}`; not passed")
    return out


# --------------------------------------------------------------------------------------------
# Running


def resolve_device(settings: Settings) -> bool:
    """True when the run is CPU-lowered."""
    from nvidia.dali import backend

    try:
        gpus = backend.GetCUDADeviceCount()
    except Exception:
        gpus = 0
    if settings.device == "gpu" and gpus == 0:
        raise SetupError("no-gpu", "--device gpu was requested but no GPU is visible; use --device cpu or auto")
    return settings.device == "cpu" or (settings.device == "auto" and gpus == 0)


#: --bench on a side that ends (a feed of iter_setup): the timed steps must all exist.
BENCH_END = (
    "--bench: the generator ended (StopIteration) before the {0.warmup} warm-up and "
    "{0.runs} × {0.iterations} timed steps; time a feed at least that long"
)

"""Values a conversion changes that other modules can reach by name: a module-level pipeline object
(``shared = train_pipe(...)``), a module-level container of pipeline functions (``PIPES = {"train":
train_pipe}``), and a class storing one in ``self.<name>`` (``self.pipe = train_pipe(...)``).

The module's own uses of them are followed and rewritten; another module's are not. ``main.py`` doing
``from pipes import shared`` then ``shared.build()``, or ``loader.pipe.epoch_size("Reader")`` on a
``Loader`` of ``pipes.py``, broke while ``migrate`` exited 0. The run keeps the pipelines behind such
a value when another file imports it (:func:`ndd_migrate.model.importers.exported_values_kept`).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope

from ndd_migrate.model.types import ModuleModel


def exported_values(model: ModuleModel) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Name → (the attributes that hold the value, empty for the name itself; the converted
    pipelines behind it, as the run keeps them: a pipeline of this module by its name, an imported
    one by its qualified name), for each such value of the module (``FileResult.exported_values``)."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for (scope, name), (_, pipeline) in model.kinds.items():
        if isinstance(scope, GlobalScope):
            _add(found, name, None, pipeline)
    for attribute, (_, pipeline) in model.attributes.kinds.items():
        if isinstance(model.parents.get(attribute.cls), cst.Module):  # importable by its name
            _add(found, attribute.cls.name.value, attribute.name, pipeline)
    return {
        name: (tuple(sorted(attrs)), tuple(sorted(pipes))) for name, (attrs, pipes) in sorted(found.items()) if pipes
    }


def _add(found: dict, name: str, attribute: str | None, pipeline) -> None:
    attrs, pipes = found.setdefault(name, (set(), set()))
    if attribute is not None:
        attrs.add(attribute)
    for member in getattr(pipeline, "members", (pipeline,)):
        if member.convert and (getattr(member, "migrated_in", None) is None):
            pipes.add(member.qualname.lstrip("."))

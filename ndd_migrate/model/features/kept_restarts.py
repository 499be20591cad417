"""One generator per epoch for a pipeline a datapipe class keeps: a method builds it and returns it
(``_create_pipeline``), ``__init__`` stores what that method returns (``self.pipe =
self._create_pipeline()``), and the class's other methods only reset it and give it to a PyTorch
iterator without ``reader_name`` or ``size=`` (``self.pipe.reset()`` then ``return
DALIGenericIterator([self.pipe], [...])`` in ``__iter__``), as weather datapipes do.

DALI 2.4 (``Pipeline.reset()``): the external source's ``StopIteration`` ends the epoch, and a
``reset()`` after it starts the next one (the iteration from 0, the epoch index one higher); before
it, ``reset()`` does nothing and the next iterator goes on with the epoch. The per-epoch function
(``fn.restarts``) counts both across its generators and moves to the next epoch at the source's
``StopIteration``, so each new iterator's generator starts where DALI's next run did: the reset
has nothing left to do (NDD005 drops it), and the support module's iterator, made anew for each
pass, takes one generator from the function as DALI's took the pipeline."""

from __future__ import annotations

import libcst as cst


def mark(model, pipeline, bound: list, given: dict, parents: dict) -> str | None:
    """Why ``pipeline`` (made by a factory: ``bound`` are the ``(scope, target)``s of its call
    sites) is not such a kept pipeline, or None; ``given`` are the items given to iterators without
    ``reader_name`` or ``size=`` (by id)."""
    method = _factory_method(model, pipeline, bound, parents)
    if method is None:
        return "it is made by a function that returns it (a factory)"
    stores = _stores_of(model, method, parents)
    if stores is None:
        return (
            f"`{method.name.value}`, which returns it, is used other than by `self.X = self.{method.name.value}()` "
            "in `__init__`"
        )
    for found in stores:
        if not found.reads or not all(id(read) in given or _reset_or_build(read, parents) for read in found.reads):
            return (
                f"`self.{found.name}` is used other than by `reset()`, `build()` and iterators without "
                "`reader_name` or `size=`"
            )
    return None


def _factory_method(model, pipeline, bound: list, parents: dict) -> cst.FunctionDef | None:
    """The method of a class body whose one call site of ``pipeline`` binds a name read only by
    ``return name``, or None."""
    if len(bound) != 1 or not isinstance(bound[0][1], cst.Name):
        return None
    scope, target = bound[0]
    if scope is None or len(scope.assignments[target.value]) != 1:
        return None
    reads = [access.node for assignment in scope.assignments[target.value] for access in assignment.references]
    if not reads or not all(isinstance(parents.get(read), cst.Return) for read in reads):
        return None
    method = parents.get(target)
    while method is not None and not isinstance(method, cst.FunctionDef):
        method = parents.get(method)
    if method is None or not isinstance(parents.get(parents.get(method)), cst.ClassDef):
        return None
    name = method.name.value
    if not any(made is pipeline and qual.rsplit(".", 1)[-1] == name for qual, made in model.factories.items()):
        return None
    return method


def _stores_of(model, method: cst.FunctionDef, parents: dict) -> list | None:
    """The followed ``self`` attributes (ndd_migrate.model.values.attributes) whose one store is
    ``self.X = self.method()``, when every mention of ``.method`` in the module is such a call;
    else None."""
    name = method.name.value
    by_value = {id(found.value): found for found in model.attributes.stores.values()}
    stores = []
    for node in parents:
        if not (isinstance(node, cst.Attribute) and node.attr.value == name):
            continue
        call = parents.get(node)
        found = by_value.get(id(call))
        if not (
            isinstance(node.value, cst.Name)
            and node.value.value == "self"
            and isinstance(call, cst.Call)
            and call.func is node
            and found is not None
            and found.cls is _class_of(method, parents)
        ):
            return None
        stores.append(found)
    return stores or None


def _class_of(method: cst.FunctionDef, parents: dict) -> cst.CSTNode | None:
    return parents.get(parents.get(method))


def _reset_or_build(read: cst.Attribute, parents: dict) -> bool:
    """Is ``read`` (``self.X``) ``self.X.reset()`` or ``self.X.build()``, a statement of its own?"""
    method = parents.get(read)
    call = parents.get(method)
    return (
        isinstance(method, cst.Attribute)
        and method.attr.value in ("reset", "build")
        and isinstance(call, cst.Call)
        and call.func is method
        and not call.args
        and isinstance(parents.get(call), cst.Expr)
    )

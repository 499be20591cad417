"""Attributes of ``self`` that can be followed like plain names: a loader class that keeps its
pipeline in ``self.pipe``, set once (in ``__init__``, or in one other method such as a Lightning
``setup()``) and used only by the class's own methods.

A wrapper class around a DALI pipeline (a ``Dataset``, a ``Loader``) is the most common real-world
home of a pipeline object::

    class Loader:
        def __init__(self, root):
            self.pipe = train(root)
            self.pipe.build()

        def __len__(self):
            return self.size

        def batch(self):
            return self.pipe.run()

Such an attribute holds only what its one store made, so it can be followed as a name bound
once: every ``self.pipe`` read is a use of the pipeline, rewritten by the rules that rewrite
a name's uses (``next(self.pipe)``). This module finds the attributes for which that is sure, from
the syntax alone (facts, no kinds: ``Analyzer`` gives them one):

* the class is a plain class of the module: no base class of the module, no subclass in it (whose
  methods could read or set the attribute too);
* the attribute is stored exactly once in the whole module, by ``self.X = value`` as a statement of
  its own directly in the body of one method of the class (not under an ``if`` or in a loop):
  ``__init__``, or another method such as Lightning's ``setup()``. Stored in one place, the
  attribute holds what that store made whenever it holds a pipeline at all: a read before the
  method ran reads a class-level default (unchanged) or fails in both versions alike;
* every other mention of ``.X`` in the module is a read ``self.X`` directly in a method of the
  class (``self`` its first parameter, not rebound, not in a nested function or lambda), or
  ``self.X`` in a method of another class of the module (that class's own attribute: ``cls`` has no
  subclass in the module);
* the module never spells ``"X"`` as a string (``getattr(self, "X")``, ``setattr``).

A ``del self.X`` in a method of the class ends the attribute in both versions alike (a later read
fails in both): it is no use of the value, and the statement stays as written. A read on another
object (``loader.pipe.run()`` outside the class), a second store, a ``del`` elsewhere, or a read in a
nested function makes the attribute not followed: its uses are then ``STORED`` uses (NDD008), as
before. As for a module-level name, reads from modules that import the class are not
seen here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ndd_migrate.syntax import tree


@dataclass(eq=False)
class SelfAttribute:
    """``self.<name>`` of ``cls``: its one store and every read (original nodes)."""

    cls: cst.ClassDef
    name: str
    target: cst.Attribute  # `self.name` in `self.name = value`
    value: cst.BaseExpression
    method: cst.FunctionDef  # the method whose body stores it (`__init__`, `setup`, ...)
    reads: list[cst.Attribute] = field(default_factory=list)
    # `self.<name>_meta` is free (not mentioned in the module): the epoch-aware shape may store the
    # reader's metadata there (ndd_migrate.model.features.iterators.meta_of).
    meta_free: bool = False


def find(parents: dict, skip: set) -> list[SelfAttribute]:
    """The followable ``self`` attributes of the module's classes (``skip``: class nodes handled
    elsewhere, such as ``Pipeline`` subclasses). ``parents`` maps each node of the module (but its
    whitespace and punctuation) to its parent, in source order: it is walked instead of the tree."""
    classes, strings, mentions = _spelled(parents)
    own = _by_owner(classes, mentions, parents)
    found = []
    for cls in _plain_classes(classes, skip):
        found.extend(_followed(cls, own, strings, mentions, parents))
    return found


def _spelled(parents: dict) -> tuple[list[cst.ClassDef], set, dict[str, list[cst.Attribute]]]:
    """What the module spells, in source order: its classes, its strings, and each ``<x>.X`` by
    ``X``."""
    classes, strings, mentions = [], set(), {}
    for node in parents:
        if isinstance(node, cst.ClassDef):
            classes.append(node)
        elif isinstance(node, cst.SimpleString):
            strings.add(_string(node))
        elif isinstance(node, cst.Attribute):
            mentions.setdefault(node.attr.value, []).append(node)
    return classes, strings, mentions


def _by_owner(
    classes: list[cst.ClassDef], mentions: dict, parents: dict
) -> dict[tuple[str, cst.ClassDef | None], list[cst.Attribute]]:
    """Each ``<x>.X`` sorted once by the class whose ``self`` it is (None: no class's), in source
    order: a class's ``self.X = ...`` is then checked against its own mentions and the unowned ones,
    not against every class's (which made a module of many classes cost its square)."""
    # Each method of every class → its instance parameter: `self.X` there is that class's own.
    owners = {m: (c, _self_name(m)) for c in classes for m in _methods(c)}
    own: dict[tuple[str, cst.ClassDef | None], list[cst.Attribute]] = {}
    for name, nodes in mentions.items():
        for node in nodes:
            if not _in_import(node, parents):
                own.setdefault((name, _owner(node, parents, owners)), []).append(node)
    return own


def _plain_classes(classes: list[cst.ClassDef], skip: set) -> list[cst.ClassDef]:
    """The classes with no base class of the module and no subclass in it (whose methods could
    read or set the attribute too), less those in ``skip``."""
    local = {c.name.value for c in classes}
    based = {b.value.value for c in classes for b in c.bases if isinstance(b.value, cst.Name)}
    return [
        cls
        for cls in classes
        if not (
            cls in skip
            or cls.name.value in based
            or any(isinstance(b.value, cst.Name) and b.value.value in local for b in cls.bases)
        )
    ]


def _followed(cls: cst.ClassDef, own: dict, strings: set, mentions: dict, parents: dict) -> list[SelfAttribute]:
    """The attributes of ``cls`` stored once by one of its methods and only read, by its methods,
    everywhere else (``own``: the mentions by owner, :func:`_by_owner`)."""
    methods = {m: _self_name(m) for m in _methods(cls)}
    found = []
    for method, self_name in methods.items():
        if self_name is None or not isinstance(method.body, cst.IndentedBlock):
            continue
        for stmt in method.body.body:
            store = _store(stmt, self_name)
            if store is None or store[0].attr.value in strings:
                continue
            target, value = store
            name = target.attr.value
            if own.get((name, None)):
                continue  # read outside the methods of any class: another object's, or `self` escaped
            reads = _reads(own.get((name, cls), ()), target, parents, methods)
            if reads is not None:
                free = f"{name}_meta" not in mentions and f"{name}_meta" not in strings
                found.append(SelfAttribute(cls, name, target, value, method, reads, free))
    return found


def _reads(mentions, target: cst.Attribute, parents: dict, methods: dict) -> list[cst.Attribute] | None:
    """The class's own mentions of the attribute but its store ``target``, when each is a read in
    one of its ``methods``; None when one is not."""
    reads = []
    for node in mentions:
        if node is target or (_deleted(node, parents) and _in_method(node, parents, methods)):
            continue
        if not _read_in_method(node, parents, methods):
            return None
        reads.append(node)
    return reads


def _deleted(node: cst.Attribute, parents: dict) -> bool:
    """Is ``node`` deleted, ``del self.X`` or ``del self.Y, self.X``?"""
    parent = parents.get(node)
    if isinstance(parent, cst.Element):
        parent = parents.get(parents.get(parent))  # the tuple (or list), then what holds it
    return isinstance(parent, cst.Del)


def _string(node: cst.SimpleString) -> str | None:
    try:
        value = node.evaluated_value
    except Exception:  # noqa: BLE001 - an odd literal is simply not a name
        return None
    return value if isinstance(value, str) else None


def _methods(cls: cst.ClassDef) -> list[cst.FunctionDef]:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return [stmt for stmt in body if isinstance(stmt, cst.FunctionDef)]


def _self_name(method: cst.FunctionDef) -> str | None:
    """The name of ``method``'s instance parameter, when it has one that is never rebound."""
    if any(_decorator(d) in ("staticmethod", "classmethod") for d in method.decorators):
        return None
    params = [*method.params.posonly_params, *method.params.params]
    if not params:
        return None
    name = params[0].name.value
    for node in tree.walk(method.body):
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.CompFor)):
            target = getattr(node, "target", None) or getattr(getattr(node, "asname", None), "name", None)
            if target is not None and name in _bound_names(target):
                return None
        if isinstance(node, (cst.Global, cst.Nonlocal, cst.NamedExpr)):
            return None
    return name


def _bound_names(target: cst.CSTNode) -> set[str]:
    """The names an assignment target binds (``a``, ``a, *b``; not ``a.x`` or ``a[i]``)."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _bound_names(e.value)}
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return set()


def _decorator(decorator: cst.Decorator) -> str | None:
    expr = decorator.decorator
    return expr.value if isinstance(expr, cst.Name) else None


def _store(stmt: cst.CSTNode, self_name: str) -> tuple[cst.Attribute, cst.BaseExpression] | None:
    """``self.X = value`` as a statement of its own."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
        return None
    assign = stmt.body[0]
    if len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == self_name:
        return target, assign.value
    return None


def _read_in_method(node: cst.Attribute, parents: dict, methods: dict) -> bool:
    """Is ``node`` a read ``self.X`` directly in one of ``methods`` (no nested function between)?"""
    if not (isinstance(node.value, cst.Name)):
        return False
    parent = parents.get(node)
    if isinstance(parent, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.Del)) or (
        isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node
    ):
        return False
    if isinstance(parent, cst.Element) and _in_target(parent, parents):
        return False
    return _in_method(node, parents, methods)


def _in_method(node: cst.Attribute, parents: dict, methods: dict) -> bool:
    """Is ``node``, ``self.X``, directly in one of ``methods`` (no nested function between), on
    that method's ``self``?"""
    current = parents.get(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        current = parents.get(current)
    return (
        isinstance(current, cst.FunctionDef)
        and methods.get(current) is not None
        and isinstance(node.value, cst.Name)
        and node.value.value == methods[current]
    )


def _owner(node: cst.Attribute, parents: dict, owners: dict) -> cst.ClassDef | None:
    """The class whose ``self`` ``node`` is read or stored on: ``self.X`` directly in a method of
    that class (no nested function between). ``self.X`` of another class than the one followed is
    another attribute of the same name (that class is not it nor derives from it: a followed class
    has no subclass in the module)."""
    current = parents.get(node)
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        current = parents.get(current)
    owner = owners.get(current)
    if owner is not None and owner[1] is not None and isinstance(node.value, cst.Name) and node.value.value == owner[1]:
        return owner[0]
    return None


def _in_import(node: cst.CSTNode, parents: dict) -> bool:
    """Is ``node`` a part of a module path (``from nvidia.dali.pipeline import ...``)?"""
    current = parents.get(node)
    while isinstance(current, (cst.Attribute, cst.ImportAlias)):
        current = parents.get(current)
    return isinstance(current, (cst.Import, cst.ImportFrom))


def _in_target(node: cst.CSTNode, parents: dict) -> bool:
    """Is ``node`` part of an assignment target (``a, self.X = ...``)?"""
    current = node
    while current is not None and not isinstance(current, cst.BaseSmallStatement):
        parent = parents.get(current)
        if (
            isinstance(parent, (cst.AssignTarget, cst.For, cst.CompFor, cst.WithItem))
            and getattr(parent, "target", None) is current
        ):
            return True
        if isinstance(parent, cst.WithItem) and parent.asname is not None and parent.asname.name is current:
            return True
        current = parent
    return False

"""``self.<attr>`` values followed within their class (ndd_migrate.model.values.attributes.find): which
attributes are followable, and that the module's mentions are sorted once, not once per class."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.values import attributes
from tests.conftest import calls_of


def _parents(module: cst.Module) -> dict:
    found: dict = {}

    def walk(node):
        for child in node.children:
            found[child] = node
            walk(child)

    found[module] = None
    walk(module)
    return {node: parent for node, parent in found.items() if node is not module}


def _classes(count: int, reader_outside: bool = False) -> cst.Module:
    text = "".join(
        f"class Log{i}:\n    def __init__(self, size):\n        self.size = size\n\n"
        f"    def grow(self):\n        return self.size + {i}\n\n\n"
        for i in range(count)
    )
    return cst.parse_module(text + ("other = Log0(3)\nprint(other.size)\n" if reader_outside else ""))


def test_each_class_follows_its_own_attribute_of_a_shared_name():
    found = attributes.find(_parents(_classes(3)), set())
    assert [(f.cls.name.value, f.name, len(f.reads)) for f in found] == [
        ("Log0", "size", 1),
        ("Log1", "size", 1),
        ("Log2", "size", 1),
    ]


def test_an_attribute_read_outside_every_class_is_not_followed():
    assert attributes.find(_parents(_classes(3, reader_outside=True)), set()) == []


def test_each_mention_is_looked_at_once_not_once_per_class(monkeypatch):
    """Twenty classes with `self.size`: the forty mentions of `.size` (a store and a read each) are
    placed once; a pass over all of them for each class made the module cost its square."""
    looked = calls_of(monkeypatch, attributes, "_in_import")
    found = attributes.find(_parents(_classes(20)), set())
    assert len(found) == 20 and len(looked) == 40


def test_a_del_in_a_method_of_the_class_ends_the_attribute_a_del_elsewhere_does_not():
    """`del self.size` in a method (a release) is no use of the value: the attribute is followed, its
    reads only counted. Deleted in a nested function or on another object, it is not followed."""
    released = (
        "class Log:\n    def __init__(self, size):\n        self.size = size\n\n"
        "    def release(self):\n        del self.size, self.other\n"
    )
    found = attributes.find(_parents(cst.parse_module(released)), set())
    assert [(f.name, len(f.reads)) for f in found] == [("size", 0)]
    nested = released.replace(
        "        del self.size, self.other\n", "        def go():\n            del self.size\n\n        go()\n"
    )
    assert attributes.find(_parents(cst.parse_module(nested)), set()) == []
    outside = released + "\n\nlog = Log(3)\ndel log.size\n"
    assert attributes.find(_parents(cst.parse_module(outside)), set()) == []

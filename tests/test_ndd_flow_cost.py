"""The kinds of dynamic-mode values (``model/values/ndd_flow.py``) are found in time linear in the
bindings, not once per path: a name bound twice from a name bound twice, eighteen deep, made
``check`` explore 2^18 paths (a mutant of a real file made the fixed-point fuzzer wait minutes).
Counted in calls, not timed."""

from __future__ import annotations

from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform
from ndd_migrate.model.values import ndd_flow


def _chain(depth: int) -> str:
    lines = ["import nvidia.dali.experimental.dynamic as ndd", "", "", "def loop(reader):"]
    lines.append(f"    for (v{depth},) in reader.next_epoch(batch_size=4):")
    for i in range(depth):
        lines.append(f"        v{i} = ndd.flip(v{i + 1})")
        lines.append(f"        v{i} = ndd.flip(v{i + 1}, horizontal=1)")
    lines.append("        print(len(v0))")
    return "\n".join(lines) + "\n"


def test_kinds_of_names_bound_many_times_are_found_once_each(monkeypatch):
    calls = []
    original = ndd_flow.Flow._binding_kind

    def counted(self, binding):
        calls.append(binding)
        return original(self, binding)

    monkeypatch.setattr(ndd_flow.Flow, "_binding_kind", counted)
    depth = 12
    result = transform(_chain(depth), "loop.py", Policy.check())
    assert result.error is None
    assert calls, "the NDD5xx rules asked for no kind: the test measures nothing"
    assert len(calls) < 10 * depth * depth, len(calls)  # each question explored 2 ** depth paths before

"""Outputs of `pipe.run()` put in a list or tuple display (ndd_migrate.plan.uses): the list is read like
the tuple `run()` gave (`Kind.BATCHES`), so an item read back by index or by iteration is an output
again, followed on and rewritten; a list that holds anything else, or is changed, keeps the
pipeline (NDD008)."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

PIPE = (
    "import numpy as np\n"
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p(root):\n"
    "    data = fn.readers.numpy(file_root=root)\n"
    "    return data, data * 2\n\n\n"
    "pipe = p('/data')\n"
    "pipe.build()\n"
    "a, b = pipe.run()\n"
)


def _human(result):
    return [d for d in result.diagnostics if d.needs_human]


@pytest.mark.parametrize(
    "tail, expected",
    [
        ("outs = [a, b]\nprint(outs[1].at(0))\n", "print(np.asarray(outs[1].tensors[0]))"),
        ("for out in (a, b):\n    print(len(out))\n", "    print(out.batch_size)"),
        ("for out in pipe.run():\n    print(len(out))\n", "    print(out.batch_size)"),
        (
            "outs = [o.as_cpu() for o in [a, b]]\nfirst, second = outs\nprint(first.at(1))\n",
            "outs = [o.cpu() for o in [a, b]]\nfirst, second = outs\nprint(np.asarray(first.tensors[1]))",
        ),
        (
            "on_gpu = False\nouts = [o.as_cpu() if on_gpu else o for o in [a, b]]\nprint(len(outs[0]), len(outs))\n",
            "outs = [o.cpu() if on_gpu else o for o in [a, b]]\nprint(outs[0].batch_size, len(outs))",
        ),
    ],
)
def test_an_item_read_back_from_a_list_of_outputs_is_rewritten_as_an_output(tail, expected):
    out, result = migrate_text(PIPE + tail)
    assert not _human(result), _human(result)
    assert expected in out, out


@pytest.mark.parametrize(
    "tail, why",
    [
        ("outs = [a, np.zeros(2)]\nprint(len(outs[1]))\n", "`a` (an output of `p`) is put in a container"),
        ("outs = [a, b]\nouts.append(np.zeros(2))\n", "`.append()` is called on `outs`"),
        ("outs = [a, b]\nprint(outs[:1])\n", "`outs` (the outputs of `p`) is indexed"),
        ("flag = False\nx = a.as_cpu() if flag else None\n", "an output of `p` is used in a conditional expression"),
        ("flag = False\nx = a if flag else pipe\n", "`a` (an output of `p`) is used in a conditional expression"),
        ("outs = [a, b]\nsave(outs)\n", "is passed to `save()`"),
    ],
)
def test_a_list_of_outputs_used_otherwise_keeps_the_pipeline(tail, why):
    out, result = migrate_text(PIPE + tail)
    found = _human(result)
    assert [d.code for d in found] == ["NDD008"], found
    assert why in found[0].message, found[0].message
    assert "@pipeline_def" in out

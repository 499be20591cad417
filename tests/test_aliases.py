"""Every import spelling users really write is recognised; look-alikes and shadowed names are not."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

BODY = (
    "{deco}\n"
    "def p(root):\n"
    "    data = {fn}.readers.numpy(file_root=root)\n"
    "    noise = {fn}.random.uniform(range=[0.0, 1.0])\n"
    "    return data + noise\n"
    "\n"
    "\n"
    "pipe = p('x', batch_size=4, device_id=None, exec_async=False)\n"
    "pipe.build()\n"
    "out, = pipe.run()\n"
    "print(out.at(0), len(out))\n"
)

EXPECTED_TAIL = (
    "def p(root, *, batch_size, device_id=None):\n"
    "    ctx = ndd.EvalContext(device_id=device_id)\n"
    "    reader = ndd.readers.Numpy(file_root=root)\n"
    "    while True:\n"
    "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
    "            with ctx:\n"
    "                noise = ndd.random.uniform(range=[0.0, 1.0], batch_size=batch_size)\n"
    "            yield (data + noise).evaluate(),\n"
    "\n"
    "\n"
    "pipe = p('x', batch_size=4, device_id=None)\n"
    "out, = next(pipe)\n"
    "print(np.asarray(out.tensors[0]), out.batch_size)\n"
)

ALIASES = {
    "from-nvidia-dali": ("from nvidia.dali import pipeline_def, fn\n\n\n", "@pipeline_def", "fn"),
    "import-fn-as": (
        "import nvidia.dali.fn as fn\nfrom nvidia.dali.pipeline import pipeline_def\n\n\n",
        "@pipeline_def()",
        "fn",
    ),
    "dali-module": ("import nvidia.dali as dali\n\n\n", "@dali.pipeline_def", "dali.fn"),
    "renamed": ("from nvidia.dali import fn as F\nfrom nvidia.dali import pipeline_def as pdef\n\n\n", "@pdef", "F"),
    "full-path": (
        "import nvidia.dali.fn\nimport nvidia.dali.pipeline\n\n\n",
        "@nvidia.dali.pipeline.pipeline_def",
        "nvidia.dali.fn",
    ),
}


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_alias_is_migrated(name):
    header, deco, fn = ALIASES[name]
    got, result = migrate_text(header + BODY.format(deco=deco, fn=fn))
    assert result.error is None
    assert [d for d in result.diagnostics if d.needs_human] == []
    assert got.endswith(EXPECTED_TAIL), got
    assert "import nvidia.dali.experimental.dynamic as ndd\n" in got
    assert "import numpy as np\n" in got
    assert "pipeline_def" not in got


def test_existing_ndd_and_numpy_aliases_are_reused():
    source = (
        "import numpy as onp\n"
        "from nvidia.dali.experimental import dynamic as D\n"
        "from nvidia.dali import pipeline_def, fn\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p():\n"
        "    return fn.random.uniform()\n\n\n"
        "pipe = p()\n"
        "(x,) = pipe.run()\n"
        "y = x.as_array()\n"
    )
    got, _ = migrate_text(source)
    assert "import nvidia.dali.experimental.dynamic as ndd" not in got
    assert "import numpy as np" not in got
    assert "D.random.uniform(batch_size=batch_size)" in got
    assert "y = onp.asarray(D.as_tensor(x))" in got


def test_shadowed_fn_is_not_touched():
    source = "import nvidia.dali.fn as fn\n\n\ndef helper(fn):\n    return fn.resize(3)\n"
    got, result = migrate_text(source)
    assert got == source
    assert result.diagnostics == []


def test_pipeline_variable_rebound_to_something_else_is_not_rewritten():
    source = (
        "from nvidia.dali import pipeline_def, fn\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p():\n"
        "    return fn.random.uniform()\n\n\n"
        "pipe = p()\n"
        "pipe = other_thing()\n"
        "pipe.run()\n"
    )
    got, _ = migrate_text(source)
    assert "pipe.run()" in got

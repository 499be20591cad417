"""NDD423: every data-dependent conditional of an ``enable_conditionals`` pipeline gets a TODO that
says exactly what a copy would do wrong and what to rewrite."""

from __future__ import annotations

import pytest

from tests.conftest import HAS_DALI, migrate_text

HEAD = "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=4, enable_conditionals=True)\n"


def _ndd423(body: str, params: str = "root, flip=True") -> list[str]:
    _, result = migrate_text(HEAD + f"def pipe({params}):\n    (x,) = fn.readers.numpy(file_root=root)\n" + body)
    return [d.message for d in result.diagnostics if d.code == "NDD423"]


def test_if_else_names_merged_names_and_branch_random_ops():
    (message,) = _ndd423(
        "    m = fn.reductions.mean(x)\n"
        "    if m > 0:\n        y = fn.flip(x, horizontal=fn.random.coin_flip())\n        z = x\n"
        "    else:\n        y = x * fn.random.uniform(range=[0.0, 1.0])\n        z = x\n"
        "    return y, z\n"
    )
    assert "`if m > 0` is decided per sample" in message
    assert "merge `y`, `z` back in sample order" in message
    assert "`fn.random.coin_flip`, `fn.random.uniform`" in message and "rng.advance(7 * k)" in message


def test_if_on_a_python_parameter_is_not_reported():
    assert _ndd423("    if flip:\n        x = fn.flip(x)\n    return x\n") == []


def test_conditional_expression_and_boolean_operators_on_data():
    found = _ndd423(
        "    y = x if fn.reductions.max(x) > 1 else x * 2\n    ok = (x > 0) and (x < 5)\n    return y, ok\n"
    )
    assert any("always picks the first value" in m for m in found)
    assert any("use `&`/`|`" in m for m in found)


def test_data_reaches_the_test_through_assignments():
    (message,) = _ndd423(
        "    a = x * 2\n    b = a + 1\n    if b:\n        x = x + 1\n        x = fn.random.uniform()\n    return x\n"
    )
    assert "`if b`" in message and "merge `x`" in message
    assert message.endswith("(not rewritten automatically: random ops inside a branch)")


# -- the simple case, rewritten: compared with real DALI ---------------------------------------------

FEED = (
    "import numpy as np\nfrom nvidia.dali import fn, pipeline_def, types\n\n\n"
    "def batches():\n"
    "    for i in range(3):  # all samples below, mixed, all above the threshold\n"
    "        yield [np.full((2, 2), i * 4 + k, dtype=np.float32) for k in range(4)]\n\n\n"
    "@pipeline_def(batch_size=4, num_threads=1, device_id=None, enable_conditionals=True)\n"
    "def pipe():\n"
    "    x = fn.external_source(source=batches, layout='HW')\n"
)
SIMPLE = {
    "if/else, a name from before, a name read after its assignment": (
        "    y = x\n"
        "    if fn.reductions.max(x) > 5:\n        y = x * 2.0\n        z = fn.reductions.sum(y, axes=[0], keep_dims=True)\n"
        "    else:\n        z = x - 1.0\n"
        "    return y, z\n"
    ),
    "if without else, predicate in a name": (
        "    big = fn.reductions.min(x) >= 6\n"
        "    if big:\n        x = fn.cast(x * 0.5, dtype=types.INT32)\n"
        "    else:\n        x = fn.cast(x, dtype=types.INT32)\n"
        "    y = x\n"
        "    if big:\n        y = y + 100\n"
        "    return x, y\n"
    ),
}


def _import(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # AutoGraph reads the pipeline's source from the file
    return module


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
@pytest.mark.parametrize("name", SIMPLE)
def test_simple_if_rewritten_gives_the_pipeline_batches(name, tmp_path):
    from tests.test_external_source import _collect

    source = FEED + SIMPLE[name]
    migrated, result = migrate_text(source)
    assert result.error is None and not [d for d in result.diagnostics if d.needs_human], migrated
    assert "enable_conditionals" not in migrated and "if then_idx:" in migrated
    assert migrate_text(migrated)[0] == migrated
    (tmp_path / "orig_case.py").write_text(source)
    (tmp_path / "ndd_case.py").write_text(migrated)
    pipe = _import(tmp_path / "orig_case.py", "orig_case").pipe()
    pipe.build()
    original = _collect(pipe.run)
    assert _collect(_import(tmp_path / "ndd_case.py", "ndd_case").pipe().__next__) == original


def test_call_site_enable_conditionals_dropped():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=4)\n"
        "def pipe(root):\n    (x,) = fn.readers.numpy(file_root=root)\n"
        "    if fn.reductions.max(x) > 0:\n        x = x * 2\n    return x\n\n\np = pipe('/d', enable_conditionals=True)\n"
    )
    text, _ = migrate_text(source)
    assert "p = pipe('/d')" in text
    assert "taken = [bool(np.asarray(t)) for t in (ndd.reductions.max(x) > 0).tensors]" in text


def test_not_simple_if_says_why_it_is_not_rewritten():
    message = _ndd423("    if x > 0:\n        x = x * 2\n    elif x < -1:\n        x = x * 3\n    return x\n")[0]
    assert message.endswith("(not rewritten automatically: `elif` chains)")
    (message,) = _ndd423("    if x > 0:\n        y = x * 2\n    return x\n")
    assert "a name assigned in one branch only is not bound before the `if`" in message

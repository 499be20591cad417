"""Helpers that build part of a graph (``fn.*`` ops in a function the pipeline calls) are converted
with the pipeline: ops that need the batch size or the pipeline's RNG get them through keyword
parameters the callers pass (graph_helpers.threaded_helpers, NDD104, NDD105)."""

from __future__ import annotations

from tests.conftest import migrate_text

HELPER = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "def jitter(images):\n"
    "    return fn.flip(images, horizontal=fn.random.coin_flip())\n\n\n"
    "def augment(images):\n"
    "    images = jitter(images)\n"
    "    return images * fn.random.uniform(range=(0.5, 1.5))\n\n\n"
)


def _todos(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if "TODO(ndd-migrate)" in line]


def test_helpers_take_batch_size_and_rng_from_their_callers():
    out, result = migrate_text(
        HELPER + "@pipeline_def(batch_size=2, seed=5)\ndef p():\n    return augment(fn.random.normal(shape=[3]))\n"
    )
    assert _todos(out) == [], _todos(out)
    assert "def jitter(images, *, batch_size, rng=None):" in out
    assert "def augment(images, *, batch_size, rng=None):" in out
    assert "ndd.random.coin_flip(batch_size=batch_size, rng=rng)" in out
    assert "images = jitter(images, batch_size=batch_size, rng=rng)" in out
    assert "ndd.random.uniform(range=(0.5, 1.5), batch_size=batch_size, rng=rng)" in out
    assert (
        "augment(ndd.random.normal(shape=[3], batch_size=batch_size, rng=rng), batch_size=batch_size, rng=rng)" in out
    )
    assert not any(d.needs_human for d in result.diagnostics)


def test_without_a_pipeline_rng_the_helper_draws_from_the_default():
    out, _ = migrate_text(
        HELPER + "@pipeline_def(batch_size=2)\ndef p():\n    return augment(fn.random.normal(shape=[3]))\n"
    )
    assert _todos(out) == [], _todos(out)
    assert "augment(ndd.random.normal(shape=[3], batch_size=batch_size), batch_size=batch_size)" in out
    assert "def augment(images, *, batch_size, rng=None):" in out


def test_a_legacy_define_graph_passes_its_settings_too():
    out, _ = migrate_text(
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n"
        + HELPER
        + "class P(Pipeline):\n    def __init__(self, batch_size):\n        super().__init__(batch_size, 1, None, seed=3)\n"
        "        self.u = ops.random.Uniform()\n\n    def define_graph(self):\n        return augment(self.u())\n"
    )
    assert _todos(out) == [], _todos(out)
    assert "augment(ndd.random.uniform(batch_size=batch_size, rng=rng), batch_size=batch_size, rng=rng)" in out


def test_a_helper_used_otherwise_is_reported_not_threaded():
    out, _ = migrate_text(
        HELPER
        + "@pipeline_def(batch_size=2)\ndef p():\n    return augment(fn.random.normal(shape=[3]))\n\n\nSTEPS = [augment]\n"
    )
    assert "def augment(images):" in out
    assert any("NDD104" in t and "to `ndd.random.uniform(...)`" in t for t in _todos(out)), _todos(out)


def test_a_helper_with_its_own_batch_size_is_reported_not_threaded():
    out, _ = migrate_text(
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "def noise(batch_size):\n    return fn.random.uniform(shape=[batch_size])\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    return noise(4)\n"
    )
    assert "def noise(batch_size):" in out
    assert any("NDD104" in t for t in _todos(out)), _todos(out)


def test_a_helper_of_a_pipeline_that_stays_gets_no_todo():
    """The pipeline is left in pipeline mode (its object goes into a dict): its helper stays
    pipeline-mode code, where no `batch_size=` is needed."""
    out, _ = migrate_text(
        HELPER
        + "@pipeline_def(batch_size=2)\ndef p():\n    return augment(fn.random.normal(shape=[3]))\n\n\nkeep = {'p': p()}\n"
    )
    assert "def augment(images):" in out and "fn.random.uniform(range=(0.5, 1.5))" in out
    assert not any("NDD104" in t for t in _todos(out)), _todos(out)


def test_helpers_of_a_converted_pipeline_convert_when_another_pipeline_stays():
    """One pipeline converted, another left in pipeline mode: the helpers only the converted one
    runs are converted with it (left as `fn.*` they would fail on its batches)."""
    out, _ = migrate_text(
        HELPER + "@pipeline_def(batch_size=2)\ndef p():\n    return augment(fn.random.normal(shape=[3]))\n\n\n"
        "def noise():\n    return fn.random.normal(shape=[3])\n\n\n"
        "@pipeline_def(batch_size=2)\ndef q():\n    return noise()\n\n\nkeep = {'q': q()}\n"
    )
    assert "def augment(images, *, batch_size, rng=None):" in out
    assert "ndd.flip(images, horizontal=ndd.random.coin_flip(batch_size=batch_size, rng=rng))" in out
    assert "def noise():\n    return fn.random.normal(shape=[3])" in out, "the other pipeline's helper stays"
    assert not any("NDD104" in t for t in _todos(out)), _todos(out)


SHARED = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "def augment(images):\n"
    "    return fn.flip(images, horizontal=1)\n\n\n"
    "@pipeline_def(batch_size=2)\ndef a():\n    return augment(fn.random.normal(shape=[3]))\n\n\n"
    "@pipeline_def(batch_size=2)\ndef b():\n    return augment(fn.random.normal(shape=[4]))\n\n\n"
)


def test_a_helper_shared_by_two_converted_pipelines_converts_with_them():
    out, result = migrate_text(SHARED)
    assert _todos(out) == [], _todos(out)
    assert "return ndd.flip(images, horizontal=1)" in out
    assert not any(d.needs_human for d in result.diagnostics)


def test_a_helper_shared_with_a_kept_pipeline_keeps_the_other_one_too():
    # `b` is serialized, so `augment` stays `fn.*` code: `a` cannot call it on dynamic-mode batches.
    out, result = migrate_text(SHARED + "pipe = b()\npipe.build()\nprint(pipe.serialize())\n")
    assert "ndd." not in out and "def a():" in out
    blocked = [d for d in result.diagnostics if d.code == "NDD008"]
    message = (
        "`a` not migrated: at example.py:10, `augment()` also builds part of the graph of `b`, which stays in "
        "pipeline mode, and so does `augment`"
    )
    assert [d.message for d in blocked] == [message]


def test_a_shared_helper_unconverts_in_a_chain():
    # `c` is kept by a use; `b` shares `scale` with it, and `a` shares `augment` with `b`.
    out, result = migrate_text(
        SHARED.replace(
            "return augment(fn.random.normal(shape=[4]))", "return scale(augment(fn.random.normal(shape=[4])))"
        )
        + "def scale(images):\n    return images * fn.random.uniform(range=(0.5, 1.5))\n\n\n"
        "@pipeline_def(batch_size=2)\ndef c():\n    return scale(fn.random.normal(shape=[5]))\n\n\n"
        "pipe = c()\npipe.build()\nprint(pipe.serialize())\n"
    )
    assert "ndd." not in out
    assert sorted(d.message.split("`")[1] for d in result.diagnostics if d.code == "NDD008") == ["a", "b"]

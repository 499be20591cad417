"""Checkpointing (NDD415): ``enable_checkpointing``/``checkpoint=``/``pipe.checkpoint()`` become an
``ndd.checkpoint.Checkpoint`` with the reader and RNGs registered by name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import HAS_DALI, ROOT, migrate_text

PROGRAM = """\
import json
import sys

import numpy as np
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=5)
def train_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=7, name="Reader")
    flip = fn.random.coin_flip()
    images = fn.decoders.image(jpegs)
    return labels, flip, fn.resize(images, size=[8, 8])


def dump(batch):
    return [np.asarray(sample).tolist() for sample in batch]


mode, root, path = sys.argv[1:4]
if mode == "save":
    pipe = train_pipe(root, enable_checkpointing=True)
    pipe.build()
    for _ in range(5):  # mid-epoch: 20 samples of 13, in the second epoch
        pipe.run()
    state = pipe.checkpoint()
    with open(path, "wb") as f:  # pipeline checkpoints are bytes
        f.write(state)
else:
    with open(path, "rb") as f:
        state = f.read()
    pipe = train_pipe(root, enable_checkpointing=True, checkpoint=state)
    pipe.build()
rest = []
for _ in range(4):
    labels, flip, images = pipe.run()
    rest.append([dump(labels), dump(flip), dump(images)])
print(json.dumps(rest))
"""


def test_checkpointing_is_migrated():
    out, _ = migrate_text(PROGRAM)
    assert "TODO" not in out, out
    assert "def train_pipe(root, *, batch_size=4, num_threads=1, device_id=None, seed=5, checkpoint=None):" in out
    assert 'checkpoint.register(reader, "Reader")\n        checkpoint.register(rng, "rng")' in out
    assert "    pipe_checkpoint = ndd.checkpoint.Checkpoint()\n    pipe = train_pipe(root, checkpoint=pipe_checkpoint)" in out
    assert "    pipe_checkpoint.collect()\n    state = pipe_checkpoint.serialize().encode()" in out
    assert "pipe_checkpoint.deserialize(state)\n    pipe = train_pipe(root, checkpoint=pipe_checkpoint)" in out
    assert "build()" not in out
    assert migrate_text(out)[0] == out


@pytest.mark.parametrize(
    "text, why",
    [
        ("pipes = [p('/d', enable_checkpointing=True)]\n", "not `name = f(...)`"),
        ("pipe = p('/d', enable_checkpointing=True)\npipe.checkpoint('file.json')\n", "`pipe.checkpoint(...)` not rewritten"),
        ("pipe = p('/d')\nstate = pipe.checkpoint()\nother = p('/d', enable_checkpointing=True)\n", "`pipe.checkpoint(...)` not rewritten"),
    ],
)
def test_unsupported_checkpoint_uses_are_reported(text, why):
    head = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2)\ndef p(root):\n"
        "    (x,) = fn.readers.numpy(file_root=root)\n    return x\n\n\n"
    )
    _, result = migrate_text(head + text)
    assert any(d.code == "NDD415" and not d.fixed and why in d.message + d.hint for d in result.diagnostics)


def test_decorator_checkpoint_blocks_conversion():
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, checkpoint=STATE)\ndef p(root):\n"
        "    (x,) = fn.readers.numpy(file_root=root)\n    return x\n"
    )
    out, result = migrate_text(text)
    assert "@pipeline_def" in out and any(d.code == "NDD415" for d in result.diagnostics)


@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_restored_in_a_fresh_process_gives_the_uninterrupted_batches(tmp_path):
    from fixtures.datasets import make_jpeg

    root = str(make_jpeg(tmp_path))
    migrated, _ = migrate_text(PROGRAM)
    script = tmp_path / "migrated.py"
    script.write_text(migrated)
    state = tmp_path / "state.json"

    def run(mode):
        done = subprocess.run(
            [sys.executable, str(script), mode, root, str(state)], capture_output=True, text=True, cwd=ROOT, check=True
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    uninterrupted = run("save")
    assert json.loads(state.read_text())["states"].keys() == {"Reader", "rng"}
    assert run("restore") == uninterrupted
    state.write_text(state.read_text().replace('"Reader"', '"Other"'))
    with pytest.raises(subprocess.CalledProcessError):
        run("restore")  # a state that does not match the registered names is refused, not ignored

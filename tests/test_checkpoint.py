"""Checkpointing (NDD415): ``enable_checkpointing``/``checkpoint=``/``pipe.checkpoint()`` become an
``ndd.checkpoint.Checkpoint`` with the reader and RNGs registered by name."""

from __future__ import annotations

import json

import pytest

from ndd_migrate.app import runner
from ndd_migrate.io.policy import Policy
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
    assert (
        "    pipe_checkpoint = ndd.checkpoint.Checkpoint()\n    pipe = train_pipe(root, checkpoint=pipe_checkpoint)"
        in out
    )
    assert "    pipe_checkpoint.collect()\n    state = pipe_checkpoint.serialize().encode()" in out
    assert (
        "if state is not None:\n        pipe_checkpoint.deserialize(state)\n    pipe = train_pipe(root, checkpoint=pipe_checkpoint)"
        in out
    )
    assert "build()" not in out
    assert migrate_text(out)[0] == out


HEAD = (
    "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2{decorator})\ndef p(root):\n"
    "    (x,) = fn.readers.numpy(file_root=root, name='R')\n    return x\n\n\n"
)
MIGRATED = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def p(root, *, batch_size=2, checkpoint=None):\n"
    "    reader = ndd.readers.Numpy(file_root=root, name='R')\n"
    "    if checkpoint is not None:\n"
    '        checkpoint.register(reader, "R")\n'
    "    while True:\n"
    "        for (x,) in reader.next_epoch(batch_size=batch_size):\n"
    "            yield x.evaluate(),\n\n\n"
)
ENABLE = ", enable_checkpointing=True"
CREATED = "pipe_checkpoint = ndd.checkpoint.Checkpoint()\npipe = p('/d', checkpoint=pipe_checkpoint)\n"
SAVE_TO_FILE = 'with open({path}, "wb") as checkpoint_file:\n    checkpoint_file.write({data})\n'


# Each spelling with checkpointing enabled at the call site, in the decorator, or both.
@pytest.mark.parametrize("where", ["call site", "decorator", "both"])
@pytest.mark.parametrize(
    "use, after",
    [
        ("", ""),
        (
            "state = pipe.checkpoint()\n",
            "pipe_checkpoint.collect()\nstate = pipe_checkpoint.serialize().encode()\n",
        ),
        (
            "store(pipe.checkpoint())\n",
            "pipe_checkpoint.collect()\nstore(pipe_checkpoint.serialize().encode())\n",
        ),
        (
            "pipe.checkpoint('ck.bin')\n",
            "pipe_checkpoint.collect()\n"
            + SAVE_TO_FILE.format(path="'ck.bin'", data="pipe_checkpoint.serialize().encode()"),
        ),
        (
            "state = pipe.checkpoint(filename=path)\n",
            "pipe_checkpoint.collect()\nstate = pipe_checkpoint.serialize().encode()\n"
            + SAVE_TO_FILE.format(path="path", data="state"),
        ),
    ],
)
def test_each_spelling_is_migrated(where, use, after):
    call_site = "" if where == "decorator" else ", enable_checkpointing=True"
    decorator = "" if where == "call site" else ENABLE
    out, result = migrate_text(HEAD.format(decorator=decorator) + f"pipe = p('/d'{call_site})\n" + use)
    assert out == MIGRATED + CREATED + after
    assert not any(d.needs_human for d in result.diagnostics)
    assert migrate_text(out)[0] == out


@pytest.mark.parametrize(
    "decorator, call, after",
    [
        # the decorator enables, the call site restores
        (
            ENABLE,
            "pipe = p('/d', checkpoint=saved)\n",
            "if saved is not None:\n    pipe_checkpoint.deserialize(saved)\n",
        ),
        # restoring at the call site enables
        ("", "pipe = p('/d', checkpoint=saved)\n", "if saved is not None:\n    pipe_checkpoint.deserialize(saved)\n"),
        # the decorator restores a module-level state every call site sees
        (
            ENABLE + ", checkpoint=SAVED",
            "pipe = p('/d')\n",
            "if SAVED is not None:\n    pipe_checkpoint.deserialize(SAVED)\n",
        ),
        # the call site's state wins over the decorator's
        (
            ENABLE + ", checkpoint=SAVED",
            "pipe = p('/d', checkpoint=mine)\n",
            "if mine is not None:\n    pipe_checkpoint.deserialize(mine)\n",
        ),
        # a literal state needs no guard; a call is not evaluated twice
        (ENABLE, "pipe = p('/d', checkpoint=b'{}')\n", "pipe_checkpoint.deserialize(b'{}')\n"),
        (ENABLE, "pipe = p('/d', checkpoint=load())\n", "pipe_checkpoint.deserialize(load())\n"),
        # `checkpoint=None` restores nothing
        (ENABLE + ", checkpoint=None", "pipe = p('/d')\n", ""),
        (ENABLE, "pipe = p('/d', checkpoint=None)\n", ""),
    ],
)
def test_restoring_is_migrated(decorator, call, after):
    head = HEAD.format(decorator=decorator)
    if "SAVED" in decorator:
        head = head.replace("\n\n\n@", "\n\nSAVED = open('ck.bin', 'rb').read()\n\n\n@", 1)
    out, result = migrate_text(head + call)
    expected = MIGRATED + CREATED.replace("pipe = ", after + "pipe = ")
    if "SAVED" in decorator:
        expected = expected.replace("\n\n\ndef", "\n\nSAVED = open('ck.bin', 'rb').read()\n\n\ndef", 1)
    assert out == expected
    assert not any(d.needs_human for d in result.diagnostics)


def test_a_call_site_may_turn_the_decorators_checkpointing_off():
    out, _ = migrate_text(
        HEAD.format(decorator=ENABLE) + "pipe = p('/d', enable_checkpointing=False)\nnext_batch = pipe.run()\n"
    )
    assert out == MIGRATED + "pipe = p('/d')\nnext_batch = next(pipe)\n"


# What cannot be rewritten faithfully leaves the pipeline as it is, with one finding at the function
# that says what blocks and what to write; nothing is half rewritten, no TODO names a missing name.
@pytest.mark.parametrize("where", ["call site", "decorator"])
@pytest.mark.parametrize(
    "text, why, hint",
    [
        ("pipes = [p('/d'{on})]\n", "a call site that is not `name = f(...)`", "`pipe = p(...)`"),
        (
            "pipe = p('/d'{on})\nprint(pipe.checkpoint('ck.bin'))\n",
            "`pipe.checkpoint('ck.bin')` inside a larger",
            "`state = pipe.checkpoint('ck.bin')`",
        ),
        (
            "pipe = p('/d'{on})\nif pipe.checkpoint():\n    pass\n",
            "`pipe.checkpoint()` inside a larger",
            "`state = pipe.checkpoint()`",
        ),
        (
            "pipe = p('/d'{on})\nnext(pipe); s = pipe.checkpoint()\n",
            "inside a larger statement",
            "on a line of its own",
        ),
        ("pipe = p('/d'{on})\nsave = lambda: pipe.checkpoint()\n", "inside a lambda", "a `def`"),
        ("pipe = p('/d'{on})\npipe.checkpoint(*args)\n", "other than a file name", "`pipe.checkpoint(filename)`"),
        (
            "def make():\n    pipe = p('/d'{on})\n    return pipe\n\n\npipe = make()\nstate = pipe.checkpoint()\n",
            "on a pipeline created elsewhere",
            "`pipe = p(..., enable_checkpointing=True)`",
        ),
        (  # the decorator does not enable (in both runs); another call site does
            "pipe = p('/d')\nstate = pipe.checkpoint()\nother = p('/d', enable_checkpointing=True)\n",
            "`pipe` is created without checkpointing",
            "`pipe = p(..., enable_checkpointing=True)`",
        ),
        (
            "pipe = p('/d', enable_checkpointing=False)\nstate = pipe.checkpoint()\nother = p('/d'{on})\n",
            "`pipe` is created without checkpointing",
            "`pipe = p(..., enable_checkpointing=True)`",
        ),
    ],
)
def test_unsupported_checkpointing_blocks_the_pipeline(where, text, why, hint):
    decorator = ENABLE if where == "decorator" and "{on}" in text else ""
    source = HEAD.format(decorator=decorator) + text.format(
        on="" if where == "decorator" else ", enable_checkpointing=True"
    )
    out, result = migrate_text(source)
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and "pipe_checkpoint" not in out, out
    assert [(d.code, d.line) for d in found] == [("NDD415", 5)], [d.message for d in found]
    assert why in found[0].message and hint in found[0].hint


@pytest.mark.parametrize(
    "prefix, decorator",
    [
        ("", ", checkpoint=load()"),  # evaluated once, at decoration
        ("SAVED = 1\nSAVED = 2\n\n", ", checkpoint=SAVED"),  # rebound
        ("SAVED = 1\n\n", ", checkpoint=SAVED"),  # shadowed where the pipeline is created (below)
    ],
)
def test_a_state_restored_in_the_decorator_that_call_sites_may_not_see_blocks(prefix, decorator):
    text = (
        prefix
        + HEAD.format(decorator=ENABLE + decorator)
        + "def make(SAVED):\n    pipe = p('/d')\n    return next(pipe.run())\n"
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and "pipe_checkpoint" not in out
    assert [d.code for d in found] == ["NDD415"] and "give it at each call site" in found[0].hint


def test_a_checkpoint_of_a_pipeline_never_created_with_checkpointing_blocks():
    out, result = migrate_text(HEAD.format(decorator="") + "pipe = p('/d')\nstate = pipe.checkpoint()\n")
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and [(d.code, d.line) for d in found] == [("NDD415", 5)]
    assert "never created with checkpointing" in found[0].message
    assert "`pipe = p(..., enable_checkpointing=True)`" in found[0].hint


def test_checkpointing_an_external_source_blocks():
    text = (
        "import numpy as np\nfrom nvidia.dali import fn, pipeline_def\n\n\ndef sample(info):\n    return np.full([2], info.idx_in_epoch)\n\n\n"
        "@pipeline_def(batch_size=2, enable_checkpointing=True)\n"
        "def p():\n    x = fn.external_source(source=sample, batch=False)\n    return x\n\n\n"
        "pipe = p()\nstate = pipe.checkpoint()\n"
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and [d.code for d in found] == ["NDD415"] and "external source" in found[0].message


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="needs DALI")
def test_restored_in_a_fresh_process_gives_the_uninterrupted_batches(programs, tmp_path):
    from fixtures.datasets import make_jpeg

    root = str(programs.dataset(make_jpeg))
    migrated, _ = migrate_text(PROGRAM)
    script = tmp_path / "migrated.py"
    script.write_text(migrated)
    state = tmp_path / "state.json"

    def run(mode):
        return programs.run(script, [mode, root, state], cwd=ROOT)  # each run a fresh process

    saved = run("save")
    assert saved.returncode == 0, saved.stderr[-3000:]
    uninterrupted = json.loads(saved.stdout.strip().splitlines()[-1])
    assert json.loads(state.read_text())["states"].keys() == {"Reader", "rng"}
    restored = run("restore")
    assert restored.returncode == 0, restored.stderr[-3000:]
    assert json.loads(restored.stdout.strip().splitlines()[-1]) == uninterrupted
    state.write_text(state.read_text().replace('"Reader"', '"Other"'))
    assert run("restore").returncode != 0  # a state that does not match the registered names is refused, not ignored


def test_checkpointing_a_pipeline_without_state_blocks():
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(batch_size=2, enable_checkpointing=True)\n"
        "def p():\n    x = fn.zeros(shape=[2])\n    return x\n\n\npipe = p()\nstate = pipe.checkpoint()\n"
    )
    out, result = migrate_text(text)
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and [d.code for d in found] == ["NDD415"] and "no state to save" in found[0].message


def test_checkpointing_without_a_call_site_in_the_module_blocks():
    out, result = migrate_text(HEAD.format(decorator=ENABLE).rstrip() + "\n")
    found = [d for d in result.diagnostics if d.needs_human]
    assert "@pipeline_def" in out and [d.code for d in found] == ["NDD415"]
    assert "no pipeline is created in this module" in found[0].message


def test_checkpointing_a_pipeline_migrated_in_another_module_is_reported(tmp_path):
    (tmp_path / "pipes.py").write_text(HEAD.format(decorator="").rstrip() + "\n")
    main = "from pipes import p\n\npipe = p('/d', enable_checkpointing=True)\npipe.build()\nbatch = pipe.run()\n"
    (tmp_path / "main.py").write_text(main)
    summary = runner.run([tmp_path / "pipes.py", tmp_path / "main.py"], Policy.migrate())
    found = [d for d in summary.results[1].diagnostics if d.needs_human]
    assert [(d.code, d.line) for d in found] == [("NDD415", 3)]
    assert "`p` is migrated in its own module" in found[0].message and "module that defines `p`" in found[0].hint

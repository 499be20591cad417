"""Run every fixture on real DALI: the original pipeline against its hand-written migrated golden.

The goldens in ``fixtures/<name>/migrated.py`` are what the migration engine will be held to, so
they must themselves be right. This module proves it on a CPU-only machine:

* deterministic fixtures: the original pipeline and the migrated generator, fed the same data, give
  byte-identical samples (dtype, shape, layout, bytes) for more than two epochs — the dataset sizes
  are not multiples of the batch size, so the wrap of the last batch into the next epoch is covered;
* random fixtures: both sides run and give the same structure (outputs, batch size, dtype, ndim,
  layout); equal values would need the random states aligned, which is ``verify``'s job;
* ``case.json`` agrees with the pipeline (the random ops it lists are the ones created, in order);
* the ``__main__`` part of both files runs, so the rewritten call sites are exercised too.

Both sides are lowered to the CPU (fixtures decode with ``device="mixed"``/``"gpu"`` and call
``.gpu()``): see :func:`lower_to_cpu`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import math
import runpy
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import nvidia.dali.experimental.dynamic  # noqa: F401  (the migrated side needs it)
    import nvidia.dali.ops as dali_ops
    from nvidia.dali import backend as dali_backend
    from nvidia.dali import pipeline as dali_pipeline
    from nvidia.dali.data_node import DataNode
    from nvidia.dali.experimental.dynamic import _device as ndd_device
except (ImportError, OSError) as exc:  # OSError: DALI installed but its native libraries fail
    pytest.skip(
        f"DALI cannot be imported ({exc}); install the verify extra: pip install -e .[verify]",
        allow_module_level=True,
    )

ROOT = Path(__file__).resolve().parents[1]
# `fixtures` is not an installed package: plain `pytest` (unlike `python -m pytest`) lacks the root.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fixtures import datasets  # noqa: E402

pytestmark = pytest.mark.dali

FIXTURES = ROOT / "fixtures"
CASES = sorted(p.parent.name for p in FIXTURES.glob("*/case.json"))
CASE_KEYS = {"function", "args", "dataset", "batch_size", "deterministic", "random_ops"}
OPTIONAL_KEYS = {"iterations"}  # steps to compare, for a pipeline without a reader (external source)


# --------------------------------------------------------------------------------------------------
# CPU lowering


def _fn_name(processed_arguments: dict) -> str:
    """``nvidia.dali.fn.random`` + ``coin_flip`` → ``random.coin_flip`` (the name case.json uses)."""
    module = processed_arguments["_module"]
    prefix = module.removeprefix("nvidia.dali.fn").removeprefix("nvidia.dali.ops").lstrip(".")
    return f"{prefix}.{processed_arguments['_display_name']}".lstrip(".")


@contextlib.contextmanager
def lower_to_cpu(monkeypatch: pytest.MonkeyPatch, created: list[tuple[str, bool]] | None = None):
    """Make both programming models run GPU/mixed code on the CPU, the same CPU kernels on each side.

    Pipeline mode: every ``fn.*``/``ops.*`` call ends in ``_OperatorInstance.__init__`` with the
    operator object whose ``device`` was fixed when it was constructed (the ``OpSpec`` already holds
    it and refuses a second ``device`` argument). So a GPU/mixed operator is rebuilt from its own
    ``_init_args`` with ``device="cpu"``; its outputs are then CPU nodes, and ``DataNode.gpu()``
    becomes the identity. The pipeline itself must be created with ``device_id=None``.

    Dynamic mode: devices are ``Device`` objects built from names (``device="gpu"`` on an op,
    ``Batch.gpu()``, ``EvalContext(device_id=K)``), so ``Device("gpu"[, k])`` is made to build the
    CPU device: ops resolve to their CPU backend and ``.gpu()`` returns the batch itself.

    ``created`` (optional) receives ``(fn name, is random)`` for every pipeline operator, in creation
    order. Operators without a CPU backend (``jitter``, ``optical_flow``, video readers, ...) cannot
    be lowered: they fail here with their name rather than later in the backend.
    """
    cpu_ops = set(dali_backend.RegisteredCPUOps())
    original_instance_init = dali_ops._OperatorInstance.__init__

    def instance_init(self, inputs, arg_inputs, arguments, processed_arguments, op):
        if op.device in ("gpu", "mixed"):
            schema_name = op.schema.Name()
            if schema_name not in cpu_ops:
                raise NotImplementedError(f"{schema_name} has no CPU backend: cannot lower it")
            preserve = op.preserve
            op = type(op)(device="cpu", **op._init_args)
            op._preserve = preserve
        if created is not None:
            created.append((_fn_name(processed_arguments), op.schema.HasRandomStateArg()))
        original_instance_init(self, inputs, arg_inputs, arguments, processed_arguments, op)

    original_device_init = ndd_device.Device.__init__

    def device_init(self, name, device_id=None):
        if name.split(":")[0] in ("gpu", "cuda"):
            name, device_id = "cpu", None
        original_device_init(self, name, device_id)

    with monkeypatch.context() as m:
        m.setattr(dali_ops._OperatorInstance, "__init__", instance_init)
        m.setattr(DataNode, "gpu", lambda self: self)
        m.setattr(ndd_device.Device, "__init__", device_init)
        yield


# --------------------------------------------------------------------------------------------------
# helpers


@pytest.fixture(scope="session")
def data_dirs(tmp_path_factory) -> dict[str, Path]:
    return datasets.make_all(tmp_path_factory.mktemp("datasets"))


def load_case(name: str) -> dict:
    return json.loads((FIXTURES / name / "case.json").read_text())


def load_module(name: str, which: str):
    """Import ``fixtures/<name>/<which>.py`` under a unique module name (not as ``__main__``)."""
    path = FIXTURES / name / f"{which}.py"
    spec = importlib.util.spec_from_file_location(f"_fixture_{name}_{which}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case_args(case: dict, data_dir: Path) -> dict:
    """``case["args"]`` with ``{data}`` replaced by the directory of the case's dataset."""
    return {
        key: value.replace("{data}", str(data_dir)) if isinstance(value, str) else value
        for key, value in case["args"].items()
    }


def pipeline_samples(out) -> list[np.ndarray]:
    out = out.as_cpu() if hasattr(out, "as_cpu") else out
    return [np.array(out.at(i)) for i in range(len(out))]


def batch_samples(out) -> list[np.ndarray]:
    out = out.cpu()
    return [np.asarray(out.tensors[i]) for i in range(out.batch_size)]


def run_both(name: str, data_dirs, monkeypatch):
    """Run the original pipeline and the migrated generator side by side, lowered to the CPU, for
    two epochs and one batch more (the pipeline's reader is named ``"Reader"`` in every fixture).

    Returns ``(case, pipeline ops, [(pipeline outputs, migrated outputs) per step])`` where each
    outputs entry is a list (one per output) of ``(layout, [samples])``.
    """
    case = load_case(name)
    kwargs = case_args(case, data_dirs[case["dataset"]])
    batch_size = case["batch_size"]
    original = getattr(load_module(name, "pipeline"), case["function"])
    migrated = getattr(load_module(name, "migrated"), case["function"])
    created: list[tuple[str, bool]] = []
    with lower_to_cpu(monkeypatch, created):
        pipe = original(**kwargs, batch_size=batch_size, device_id=None)
        pipe.build()  # a legacy Pipeline subclass creates its graph here, in define_graph
        # ndd operators also instantiate legacy operators (for their specs): keep the graph's only.
        pipeline_ops = list(created)
        steps = case.get("iterations")
        if steps is None:
            epoch = pipe.epoch_size("Reader")
            assert epoch % batch_size, "dataset size should not be a multiple of the batch size"
            steps = math.ceil(2 * epoch / batch_size) + 1
        gen = migrated(**kwargs, batch_size=batch_size, device_id=None)
        results = []
        # Close the generator here, not at some later garbage collection: ndd's reader keeps its
        # EvalContext entered across its own `yield` (Reader._batches), and finalizing it while
        # another context is on top of the thread's context stack fails an assertion.
        with contextlib.closing(gen):
            for _ in range(steps):
                p_out, m_out = pipe.run(), next(gen)
                results.append(
                    (
                        [(o.layout() or "", pipeline_samples(o)) for o in p_out],
                        [(o.layout or "", batch_samples(o)) for o in m_out],
                    )
                )
    return case, pipeline_ops, results


# --------------------------------------------------------------------------------------------------
# tests


def test_fixtures_present():
    assert set(CASES) >= {"image_classification", "numpy_features", "coco_detection", "audio"}
    for name in CASES:
        case = load_case(name)
        assert CASE_KEYS <= set(case) <= CASE_KEYS | OPTIONAL_KEYS, name
        assert case["dataset"] in datasets.KINDS, name
        assert case["deterministic"] == (not case["random_ops"]), name


@pytest.mark.parametrize("name", CASES)
def test_fixture_runs_and_matches(name, data_dirs, monkeypatch):
    case, created, results = run_both(name, data_dirs, monkeypatch)

    assert [op for op, is_random in created if is_random] == case["random_ops"]
    batch_size = case["batch_size"]
    for step, (p_outs, m_outs) in enumerate(results):
        assert len(p_outs) == len(m_outs), f"step {step}: number of outputs"
        for k, ((p_layout, p_samples), (m_layout, m_samples)) in enumerate(zip(p_outs, m_outs)):
            where = f"step {step}, output {k}"
            assert len(p_samples) == len(m_samples) == batch_size, where
            assert p_layout == m_layout, where
            for i, (p, m) in enumerate(zip(p_samples, m_samples)):
                assert p.dtype == m.dtype, f"{where}, sample {i}"
                assert p.ndim == m.ndim, f"{where}, sample {i}"
                if case["deterministic"]:
                    assert p.shape == m.shape, f"{where}, sample {i}"
                    assert p.tobytes() == m.tobytes(), f"{where}, sample {i}: values differ"


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("which", ["pipeline", "migrated"])
def test_fixture_script_runs(name, which, data_dirs, monkeypatch):
    """The ``__main__`` part (argparse, build, the loop over outputs) runs as a user would run it.

    The scripts pass ``--device-id`` style integers, so the pipeline's device id is dropped where it
    reaches the backend (``Pipeline._get_params``) — the one place it is used by ``build()``.
    """
    case = load_case(name)
    args = case_args(case, data_dirs[case["dataset"]])
    positional = [value for value in args.values() if isinstance(value, str)]  # paths, in order
    original_get_params = dali_pipeline.Pipeline._get_params

    def cpu_params(self):
        params = original_get_params(self)
        params.device_id = None
        return params

    path = FIXTURES / name / f"{which}.py"
    stdout = io.StringIO()
    with lower_to_cpu(monkeypatch):
        monkeypatch.setattr(dali_pipeline.Pipeline, "_get_params", cpu_params)
        monkeypatch.setattr(sys, "argv", [str(path), *positional, "--iters", "4"])
        with contextlib.redirect_stdout(stdout):
            namespace = runpy.run_path(str(path), run_name="__main__")
        if hasattr(namespace.get("pipe"), "close"):  # see run_both: close it while on top
            namespace["pipe"].close()
    assert stdout.getvalue().count("step ") == 4, stdout.getvalue()


def test_tfrecord_dataset_reads(data_dirs):
    """The hand-encoded TFRecord (framing, CRCs, Example protobuf, index) is what DALI expects."""
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali import tfrecord as tfrec

    root = data_dirs["tfrecord"]

    @pipeline_def(batch_size=datasets.TFRECORD_COUNT, num_threads=1, device_id=None)
    def read():
        out = fn.readers.tfrecord(
            path=str(root / "train.tfrecord"),
            index_path=str(root / "train.idx"),
            features={
                "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
                "image/class/text": tfrec.FixedLenFeature((), tfrec.string, ""),
                "features": tfrec.FixedLenFeature([3], tfrec.float32, 0.0),
            },
        )
        images = fn.decoders.image(out["image/encoded"])
        return images, out["image/class/label"], out["image/class/text"], out["features"]

    pipe = read()
    pipe.build()
    images, labels, texts, features = pipe.run()
    for i in range(datasets.TFRECORD_COUNT):
        label = int(labels.at(i)[0])
        assert 0 <= label < 3
        assert bytes(texts.at(i)) == f"class_{label}".encode()
        assert images.at(i).ndim == 3 and images.at(i).shape[2] == 3
        assert features.at(i).dtype == np.float32 and features.at(i).shape == (3,)


def test_datasets_deterministic_and_idempotent(tmp_path):
    """Same bytes in two fresh directories; a second run over one of them rewrites nothing."""
    first = datasets.make_all(tmp_path / "a")
    again = datasets.make_all(tmp_path / "b")

    def snapshot(root: Path) -> dict:
        return {
            p.relative_to(root): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()
        }

    before = snapshot(tmp_path / "a")
    assert datasets.make_all(tmp_path / "a") == first
    assert snapshot(tmp_path / "a") == before
    assert {k: v[0] for k, v in before.items()} == {k: v[0] for k, v in snapshot(tmp_path / "b").items()}
    assert set(first) == set(again) == set(datasets.KINDS)
    assert len(list(first["jpeg"].rglob("*.jpg"))) == sum(datasets.JPEG_CLASSES.values())
    assert len(list(first["numpy"].glob("*.npy"))) == datasets.NUMPY_COUNT
    assert len(list(first["audio"].rglob("*.wav"))) == datasets.AUDIO_COUNT
    assert len(list((first["coco"] / "images").glob("*.jpg"))) == datasets.COCO_COUNT


def test_tfrecord_framing(data_dirs):
    """Every index line points at a record whose length and data CRCs check out."""
    assert datasets.crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value
    root = data_dirs["tfrecord"]
    blob = (root / "train.tfrecord").read_bytes()
    entries = [tuple(map(int, line.split())) for line in (root / "train.idx").read_text().splitlines()]
    assert len(entries) == datasets.TFRECORD_COUNT
    assert sum(size for _, size in entries) == len(blob)
    for offset, size in entries:
        record = blob[offset : offset + size]
        (length,) = struct.unpack("<Q", record[:8])
        assert size == 8 + 4 + length + 4
        assert struct.unpack("<I", record[8:12])[0] == datasets.masked_crc32c(record[:8])
        data = record[12 : 12 + length]
        assert struct.unpack("<I", record[12 + length :])[0] == datasets.masked_crc32c(data)

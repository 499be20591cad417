"""benchmarks/bench_verify_throughput.py (docs update, table, run sizes, one real run) and
benchmarks/gpu_checks.sh (its CPU-machine path)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess

import pytest

from tests.conftest import HAS_DALI, ROOT

SCRIPT = ROOT / "benchmarks" / "bench_verify_throughput.py"
_spec = importlib.util.spec_from_file_location("bench_verify_throughput", SCRIPT)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

LINT = "## Lint speed\n\nOwned by someone else.\n"


def test_update_docs_creates_file_section_and_block():
    text = bench.update_docs("", "cpu", "table 1")
    assert text.startswith("# Benchmarks\n")
    assert f"{bench.SECTION}\n\n<!-- throughput:cpu begin -->\ntable 1\n<!-- throughput:cpu end -->\n" in text


def test_update_docs_replaces_only_its_block():
    prose = "Why the migrated code is slower: ...\n"
    doc = (
        f"# B\n\n{LINT}\n{bench.SECTION}\n\n{prose}\n"
        + bench.update_docs("", "cpu", "old").split(bench.SECTION)[1].lstrip()
    )
    doc = bench.update_docs(doc, "cpu", "new")
    assert "old" not in doc and "\nnew\n" in doc
    assert LINT in doc and prose in doc
    with_gpu = bench.update_docs(doc, "gpu", "gpu table")
    assert "\nnew\n" in with_gpu and bench.extract_block(with_gpu, "gpu") == "gpu table"
    assert bench.update_docs(with_gpu, "gpu", "gpu table") == with_gpu  # idempotent


def test_update_docs_inserts_block_before_the_next_section():
    doc = f"# B\n\n{bench.SECTION}\n\nprose\n\n{LINT}"
    out = bench.update_docs(doc, "gpu", "g")
    assert out.index("<!-- throughput:gpu begin -->") < out.index("## Lint speed")
    assert out.endswith(LINT)


def test_table_ratios_and_failures():
    rows = [{"fixture": "f", "batch": 8, "pipeline": 200.0, "eager": 100.0, "capture": None}]
    table = bench.render_table(rows)
    assert "| f | 8 | 200 | 100 | failed | – | 0.50× | – | – | none (eager) |" in table


def test_the_captured_mode_times_what_migrate_capture_writes(tmp_path):
    out = bench.migrate_captured(ROOT / "fixtures" / "image_classification" / "pipeline.py", tmp_path / "c.py")
    text = out.read_text(encoding="utf-8")
    assert "next_epoch(batch_size=batch_size, capture=True)" in text
    assert "crop = ndd.capture.invariant(crop)" in text


@pytest.mark.parametrize("batch,iterations", [(8, 32), (32, 8), (128, 2), (1000, 2)])
def test_runs_have_the_same_samples_whatever_the_batch(batch, iterations):
    config = bench.bench_config(batch, 256, 5)
    assert (config.iterations, config.runs, config.warmup) == (iterations, 5, max(3, iterations))


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        bench.parse_args(["--batch-sizes", "0"])


def test_import_block_copies_only_the_gpu_block(tmp_path):
    docs = tmp_path / "benchmarks.md"
    docs.write_text(bench.update_docs("", "cpu", "cpu here"), encoding="utf-8")
    remote = tmp_path / "remote.md"
    remote.write_text(bench.update_docs(bench.update_docs("", "cpu", "cpu there"), "gpu", "gpu there"))
    assert bench.main(["--import-block", str(remote), "--docs", str(docs)]) == 0
    text = docs.read_text(encoding="utf-8")
    assert bench.extract_block(text, "cpu") == "cpu here"
    assert bench.extract_block(text, "gpu") == "gpu there"


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed")
def test_one_fixture_measured_in_every_mode(tmp_path):
    out = tmp_path / "bench.json"
    docs = tmp_path / "benchmarks.md"
    code = bench.main(
        [
            "--device",
            "cpu",
            "--fixtures",
            "numpy_features",
            "--batch-sizes",
            "4",
            "--runs",
            "1",
            "--samples-per-run",
            "8",
            "--scale",
            "0.05",
            "--json",
            str(out),
            "--docs",
            str(docs),
        ]
    )
    assert code == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert all(row[mode] > 0 for mode in bench.MODES)
    assert "CPU-lowered" in bench.extract_block(docs.read_text(encoding="utf-8"), "cpu")


def test_gpu_checks_script_parses():
    subprocess.run(["bash", "-n", str(ROOT / "benchmarks" / "gpu_checks.sh")], check=True)


@pytest.mark.dali
@pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed")
def test_gpu_checks_stops_cleanly_without_a_gpu(tmp_path):
    from nvidia.dali import backend

    if backend.GetCUDADeviceCount():
        pytest.skip("a GPU is visible")
    proc = subprocess.run(
        ["bash", str(ROOT / "benchmarks" / "gpu_checks.sh")],
        env={**os.environ, "OUT": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "DALI sees no GPU" in proc.stdout
    assert "GPUs 0" in (tmp_path / "env.txt").read_text()


@pytest.mark.parametrize("consumer", ["cpu", "wait"])
def test_a_consumer_works_on_each_batch_and_the_docs_say_which(tmp_path, consumer):
    out = tmp_path / "bench.json"
    docs = tmp_path / "benchmarks.md"
    argv = ["--device", "cpu", "--fixtures", "numpy_features", "--batch-sizes", "4", "--runs", "1"]
    argv += ["--samples-per-run", "8", "--scale", "0.05", "--modes", "pipeline", "eager"]
    code = bench.main([*argv, "--consumer", consumer, "--json", str(out), "--docs", str(docs)])
    assert code == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["pipeline"] > 0 and row["eager"] > 0
    assert bench.CONSUMER_TEXT[consumer] in bench.extract_block(docs.read_text(encoding="utf-8"), "cpu")

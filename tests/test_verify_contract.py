"""The loader's whole contract, without DALI processes: the findings for lost seeding, the epoch
contract, readers made inside the loop, device placement hidden by lowering; swapped arguments
and a lint-only install. The real-DALI side of each is in test_verify_planted.py."""

from __future__ import annotations

import os

from ndd_migrate.verify.readers import epoch_findings, in_loop_finding, shard_batches
from ndd_migrate.verify.rng import seeding_findings

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "verify_cases")


def call(display, *, rng="explicit", seeded=True, index=0, words=(1,) * 7):
    return {
        "op": display,
        "display": display,
        "words": list(words),
        "batched": True,
        "rng": rng,
        "seeded": seeded,
        "rng_index": index,
    }


def test_unseeded_generator_and_missing_rng_are_named_when_the_original_is_seeded():
    steps = [[call("random.uniform", seeded=False), call("random.coin_flip", rng="default", seeded=False, index=1)]]
    found = seeding_findings(steps, steps, 12, [])
    text = "\n".join(m for _, m in found)
    assert [s for s, _ in found] == ["error", "error", "warning"]
    assert "random.coin_flip (random call #2) have no rng=" in text
    assert "random.uniform (random call #1) draw from an ndd.random.RNG() created without" in text
    assert "seed=12" in text


def test_unseeded_original_makes_it_information_only():
    steps = [[call("random.uniform", rng="default", seeded=False)]]
    rerun = [[call("random.uniform", rng="default", seeded=False, words=(2,) * 7)]]
    found = seeding_findings(steps, rerun, None, [])
    assert {s for s, _ in found} == {"info"}
    assert any("not deterministic" in m for _, m in found)


def test_second_run_with_other_states_is_not_deterministic():
    steps = [[call("random.normal")]]
    rerun = [[call("random.normal", words=(3,) * 7)]]
    ((sev, msg),) = seeding_findings(steps, rerun, 5, [])
    assert sev == "error" and "not deterministic" in msg and "step 0" in msg
    assert seeding_findings(steps, steps, 5, []) == []
    assert seeding_findings([[]], None, 5, []) == []


META = {
    "epoch_size": 7,
    "epoch_size_padded": 7,
    "number_of_shards": 1,
    "shard_id": 0,
    "pad_last_batch": 0,
    "stick_to_shard": 0,
    "name": "Reader",
}


def test_epoch_contract_names_each_differing_field():
    migrated = {**META, "number_of_shards": 2, "pad_last_batch": 1}
    ((sev, msg),) = epoch_findings([META], [migrated], 3, None)
    assert sev == "error" and "reader #0 (Reader)" in msg
    assert "number_of_shards: original 1, migrated 2" in msg
    assert "pad_last_batch: original 0, migrated 1" in msg
    assert epoch_findings([META], [dict(META)], 3, 3) == []


def test_batches_per_epoch():
    assert shard_batches(META, 3) == 3
    assert shard_batches({**META, "number_of_shards": 2, "shard_id": 1}, 2) == 2  # 4 samples
    ((sev, msg),) = epoch_findings([META], [META], 3, 4)
    assert "batches per epoch: the original reader gives 3" in msg and "migrated loop 4" in msg


def test_padded_shards_all_read_the_largest_shard():
    # DALI 2.4, 10 samples in 3 shards, batch 3: without padding 1, 1, 2 batches; padded 2 each.
    meta = {**META, "epoch_size": 10, "epoch_size_padded": 10, "number_of_shards": 3}
    assert [shard_batches({**meta, "shard_id": i}, 3) for i in range(3)] == [1, 1, 2]
    padded = {**meta, "epoch_size_padded": 12, "pad_last_batch": 1}
    assert [shard_batches({**padded, "shard_id": i}, 3) for i in range(3)] == [2, 2, 2]
    assert epoch_findings([padded], [padded], 3, 2) == []


def test_reader_created_in_the_loop():
    ((sev, msg),) = in_loop_finding([(3, "readers.numpy"), (6, "readers.numpy")])
    assert sev == "error" and "created inside the loop: a new one at step 3 (2 in all)" in msg
    assert in_loop_finding([]) == []


def test_device_findings():
    from ndd_migrate.verify.lowering import device_findings

    orig = [("decoders__Image", "decoders.image", "mixed"), ("Resize", "resize", None), ("Cast", "cast", None)]
    same = [("decoders__Image", "decoders.image", "gpu"), ("Resize", "resize", None), ("Cast", "cast", "cpu")]
    assert device_findings(orig, same) == []
    moved = [("decoders__Image", "decoders.image", "cpu"), ("Resize", "resize", "gpu"), ("Cast", "cast", None)]
    (s1, m1), (s2, m2) = device_findings(orig, moved)
    assert s1 == "error" and "decoders.image: device='gpu' in the original, device='cpu'" in m1
    assert s2 == "warning" and 'resize: device="gpu" only in the migration' in m2


def test_swapped_files_are_named():
    from ndd_migrate.verify import verify_files

    report = verify_files(os.path.join(CASES, "numpy_ndd.py"), os.path.join(CASES, "numpy_pipes.py"))
    assert report.exit_code == 2
    assert report.error.kind == "swapped" and "look swapped" in report.error.message


def test_lint_only_install_exits_2_with_the_hint(monkeypatch, capsys):
    from ndd_migrate.verify import api
    from ndd_migrate.verify.command import verify_command

    real = api._find_spec
    monkeypatch.setattr(api, "_find_spec", lambda n: None if n == "numpy" else real(n))
    code = verify_command([os.path.join(CASES, "numpy_pipes.py"), os.path.join(CASES, "numpy_ndd.py")])
    out = capsys.readouterr().out
    assert code == 2
    assert "numpy not installed" in out and "pip install -e '.[verify]'" in out


def test_uses_outside_the_function_are_listed():
    from ndd_migrate.verify.scope import uses_outside

    source = (
        "def train(d):\n"
        "    return train(d)\n"  # recursion inside: the function itself, not a use
        "\n"
        "def main():\n"
        "    for batch in train('/data'):\n"
        "        pass\n"
        "loader = mod.train\n"
    )
    assert uses_outside(source, "t.py", "train") == [
        "t.py:5: for batch in train('/data'):",
        "t.py:7: loader = mod.train",
    ]


def test_reader_arguments_that_decide_the_order():
    from ndd_migrate.verify.readers import argument_findings

    orig = [{"index": 0, "op": "readers.file", "args": {"random_shuffle": "True", "initial_fill": "1024"}}]
    mig = [{"index": 0, "op": "readers.file", "args": {"random_shuffle": "False", "initial_fill": "1024"}}]
    ((sev, msg),) = argument_findings(orig, mig)
    assert sev == "error" and "random_shuffle=True in the original, random_shuffle=False" in msg
    assert argument_findings(orig, orig) == []

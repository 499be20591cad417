"""``check`` and ``check --fix`` through the real console script: what is marked fixable is what
``--fix`` applies, ``--fix`` runs to a fixed point, and findings are placed where they are about."""

from __future__ import annotations

import json
import shutil

from tests.conftest import ROOT
from tests.test_cli_contract import ndd, out, write

PIPELINE_FIXTURE = ROOT / "fixtures" / "image_classification" / "pipeline.py"
# Hand-written dynamic-mode code calling `fn.*` on ndd data: once NDD101 turns the calls into
# `ndd.*` calls, their results are batches, and NDD507 (the random op) and NDD502 (`len`) apply.
FN_ON_NDD_DATA = (
    "import nvidia.dali.experimental.dynamic as ndd\n"
    "from nvidia.dali import fn\n\n\n"
    "def train(files):\n"
    "    reader = ndd.readers.File(files=files)\n"
    "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "        images = fn.decoders.image(jpegs)\n"
    "        flip = fn.random.coin_flip(probability=0.5)\n"
    "        n = len(images)\n"
)


def findings(path, *options, cwd):
    done = ndd("check", "--output-format", "json", *options, path, cwd=cwd)
    return json.loads(out(done))


def test_pipeline_code_marks_no_safe_fix_that_fix_would_not_apply(tmp_path):
    path = tmp_path / "pipeline.py"
    shutil.copyfile(PIPELINE_FIXTURE, path)
    for finding in findings(path, cwd=tmp_path):  # device="mixed", the imports: only with the conversion
        assert finding["fix"] is None or finding["fix"]["applicability"] == "unsafe", finding
    done = ndd("check", path, cwd=tmp_path)
    assert "fixable with the `--fix` option" not in out(done) and "No fixes available" in out(done)
    fixed = ndd("check", "--fix", "--output-format", "json", path, cwd=tmp_path)
    assert path.read_bytes() == PIPELINE_FIXTURE.read_bytes()
    assert not [f for f in json.loads(out(fixed)) if f["fix"] and f["fix"]["applicability"] == "safe"]


def test_what_is_marked_safe_is_applied_and_what_is_unsafe_with_unsafe_fixes(tmp_path):
    path = write(tmp_path / "pipeline.py", PIPELINE_FIXTURE.read_text())
    before = findings(path, cwd=tmp_path)
    unsafe = [f for f in before if f["fix"] and f["fix"]["applicability"] == "unsafe"]
    assert unsafe
    done = ndd("check", "--fix", "--unsafe-fixes", "--output-format", "json", path, cwd=tmp_path)
    applied = [f for f in json.loads(out(done)) if f["fix"] and f["fix"]["applied"]]
    assert len(applied) >= len(unsafe) and done.returncode == 0
    assert findings(path, cwd=tmp_path) == []


def test_a_selection_that_cannot_fix_marks_nothing_fixable(tmp_path):
    """``device="mixed"`` in a pipeline is fixed with the conversion (NDD001): not selected, never."""
    path = write(tmp_path / "pipeline.py", PIPELINE_FIXTURE.read_text())
    [mixed] = findings(path, "--select", "NDD103", cwd=tmp_path)
    assert mixed["fix"] is None
    ndd("check", "--fix", "--unsafe-fixes", "--select", "NDD103", path, cwd=tmp_path)
    assert path.read_text() == PIPELINE_FIXTURE.read_text()


def test_fix_reaches_the_fixed_point_in_one_run(tmp_path):
    path = write(tmp_path / "train.py", FN_ON_NDD_DATA)
    done = ndd("check", "--fix", "--unsafe-fixes", "--output-format", "json", path, cwd=tmp_path)
    once = path.read_text()
    assert {f["code"] for f in json.loads(out(done))} == {"NDD101", "NDD502", "NDD507"}
    assert "ndd.random.coin_flip(probability=0.5, batch_size=8)" in once and "images.batch_size" in once
    assert findings(path, cwd=tmp_path) == []
    ndd("check", "--fix", "--unsafe-fixes", path, cwd=tmp_path)
    assert path.read_text() == once


def test_safe_fixes_of_hand_written_code_are_applied(tmp_path):
    source = (
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n"
        "    x = ndd.readers.file(files=jpegs)\n"
        "    return ndd.decoders.image(jpegs, device='mixed'), x\n"
    )
    path = write(tmp_path / "a.py", source)
    done = ndd("check", "--fix", "--output-format", "json", path, cwd=tmp_path)
    report = json.loads(out(done))
    assert {f["code"] for f in report if f["fix"] and f["fix"]["applied"]} == {"NDD103", "NDD504"}
    assert done.returncode == 0


def test_the_missing_import_finding_is_on_the_dali_import_not_the_whole_file(tmp_path):
    path = write(tmp_path / "pipeline.py", PIPELINE_FIXTURE.read_text())
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines, 1) if line.startswith("from nvidia.dali import"))
    imports = [f for f in findings(path, cwd=tmp_path) if f["code"] == "NDD301"]
    assert imports
    for finding in imports:
        assert finding["location"] == {"row": at, "column": 1}
        assert finding["end_location"] == {"row": at, "column": len(lines[at - 1]) + 1}
    sarif = json.loads(out(ndd("check", "--output-format", "sarif", path, cwd=tmp_path)))
    regions = [
        r["locations"][0]["physicalLocation"]["region"] for r in sarif["runs"][0]["results"] if r["ruleId"] == "NDD301"
    ]
    assert regions and all(r["startLine"] == r["endLine"] == at for r in regions)


def test_diff_shows_what_fix_would_write_and_writes_nothing(tmp_path):
    """As ruff's `check --diff`: the diff of the fixes alone on stdout, exit 1 when there is one,
    0 when there is none; the file is left as it is. From standard input too."""
    source = "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n    return ndd.decoders.image(jpegs, device='mixed')\n"
    path = write(tmp_path / "a.py", source)
    done = ndd("check", "--diff", path, cwd=tmp_path)
    assert done.returncode == 1 and path.read_text() == source
    assert f"--- a/{path}" in out(done) and "-    return ndd.decoders.image(jpegs, device='mixed')" in out(done)
    assert "+    return ndd.decoders.image(jpegs, device='gpu')" in out(done)
    assert "NDD103" not in out(done)  # no report: the diff alone
    piped = ndd("check", "--diff", "--stdin-filename", "a.py", "-", cwd=tmp_path, stdin=source.encode())
    assert piped.returncode == 1 and "--- a/a.py" in out(piped)
    clean = write(tmp_path / "b.py", "x = 1\n")
    nothing = ndd("check", "--diff", clean, cwd=tmp_path)
    assert nothing.returncode == 0 and out(nothing) == ""
    unsafe = write(tmp_path / "pipeline.py", PIPELINE_FIXTURE.read_text())
    assert ndd("check", "--diff", unsafe, cwd=tmp_path).returncode == 0  # its fixes are unsafe
    shown = ndd("check", "--diff", "--unsafe-fixes", unsafe, cwd=tmp_path)
    assert shown.returncode == 1 and "+import nvidia.dali.experimental.dynamic as ndd" in out(shown)
    assert unsafe.read_text() == PIPELINE_FIXTURE.read_text()


def test_show_fixes_enumerates_what_fix_fixed(tmp_path):
    """As ruff's `--show-fixes`: per file and code, above the usual summary; nothing without --fix."""
    source = (
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef decode(jpegs):\n"
        "    x = ndd.readers.file(files=jpegs)\n"
        "    return ndd.decoders.image(jpegs, device='mixed'), x\n"
    )
    path = write(tmp_path / "a.py", source)
    listed = ndd("check", "--show-fixes", path, cwd=tmp_path)
    assert "Fixed" not in out(listed) and path.read_text() == source
    done = ndd("check", "--fix", "--show-fixes", path, cwd=tmp_path)
    assert out(done).startswith(
        "Fixed 2 errors:\n- a.py:\n    1 × NDD103 (mixed-device)\n    1 × NDD504 (lowercase-reader)\n"
    ), out(done)
    assert done.returncode == 0 and "Found 2 errors (2 fixed, 0 remaining)." in out(done)


HELPER_WITH_MIXED_DECODER = (
    'import nvidia.dali.fn as fn\n\n\ndef decode(jpegs):\n    return fn.decoders.image(jpegs, device="mixed")\n'
)


def test_a_decoder_that_stays_an_fn_call_keeps_mixed(tmp_path):
    """`device="mixed"` → `"gpu"` (NDD103, safe) rides on NDD101's rewrite of the `fn.*` call: an
    `fn.decoders.image(..., device="gpu")` fails in pipeline mode (the decoder has no "gpu" backend)."""
    path = write(tmp_path / "helpers.py", HELPER_WITH_MIXED_DECODER)
    (mixed,) = [f for f in findings(path, cwd=tmp_path) if f["code"] == "NDD103"]
    assert mixed["fix"]["applicability"] == "unsafe", mixed
    ndd("check", "--fix", path, cwd=tmp_path)
    assert path.read_text() == HELPER_WITH_MIXED_DECODER
    ndd("check", "--fix", "--unsafe-fixes", "--select", "NDD103", path, cwd=tmp_path)
    assert path.read_text() == HELPER_WITH_MIXED_DECODER
    ndd("check", "--fix", "--unsafe-fixes", path, cwd=tmp_path)
    assert 'ndd.decoders.image(jpegs, device="gpu")' in path.read_text()

"""A pass of the rules frees what it built before the next pass starts (issue: cost per size).

The collector is off while a file is processed, and a pass leaves its trees in reference cycles
(libcst's scopes): unless the engine collects them after each pass, ``check``'s later pass runs
beside the whole of the earlier one, and peak memory on a large module is both passes together.
"""

from __future__ import annotations

import gc

from ndd_migrate.engine import source_file, transform
from ndd_migrate.io.policy import Policy

SOURCE = """from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=4, num_threads=1, device_id=0)
def images(root):
    jpegs, labels = fn.readers.file(file_root=root, name="Reader")
    return fn.decoders.image(jpegs, device="mixed"), labels


pipe = images("/data")
pipe.build()
out = pipe.run()
"""


# With a safe fix of its own (NDD502, in hand-written dynamic-mode code) beside the conversion,
# ``check`` takes a second pass to sort the fixes (a pipeline-mode module alone takes one).
TWO_PASSES = SOURCE + (
    "\n\nimport nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def count(files):\n"
    "    reader = ndd.readers.File(files=files)\n"
    "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "        print(len(jpegs))\n"
)


def test_checks_second_pass_starts_without_the_first_passs_objects(monkeypatch):
    young: list[int] = []  # objects of the youngest generation as each pass starts its analysis
    parsed: list[str] = []
    original, parse = transform._model, transform.cstparse.parse_module

    def counted(*args, **kwargs):
        young.append(len(gc.get_objects(generation=0)))
        return original(*args, **kwargs)

    monkeypatch.setattr(transform, "_model", counted)
    monkeypatch.setattr(transform.cstparse, "parse_module", lambda *a, **k: parsed.append("") or parse(*a, **k))
    result = source_file.process_source("m.py", TWO_PASSES.encode(), Policy.check())
    assert result.error is None and result.diagnostics
    assert len(young) == 2, young  # the reporting pass, then the one that sorts the fixes
    assert young[1] < 200, young  # 26,000 when the first pass's trees were still there
    assert len(parsed) == 1  # the second pass analyses the module the first one parsed (transform._prepared)


def test_a_pass_leaves_no_cyclic_garbage_behind():
    gc.disable()
    try:
        gc.collect()
        result = transform._run(SOURCE, "m.py", Policy.check(), "report", set(), todos=False, rewrite=False)
        left = gc.collect(0)
    finally:
        gc.enable()
    assert result.error is None and result.diagnostics
    assert left == 0  # 1,408 unreachable objects in cycles before the pass collected them

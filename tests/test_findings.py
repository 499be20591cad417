"""Every rule's findings of a file, and the report of a selection read from them
(ndd_migrate/io/findings.py): what ``check``'s results cache stores, so that another
``--select``/``--ignore`` needs no new run of the rules where it changes nothing they asked."""

from __future__ import annotations

from ndd_migrate.io.diagnostics import Diagnostic, FixSafety
from ndd_migrate.io.findings import Findings, Missing, Pass

CODES = ("NDD001", "NDD101", "NDD103", "NDD108")


def finding(code, line, fix=FixSafety.UNSAFE, fixed=True, message="m"):
    return Diagnostic(code=code, message=f"{message} {line}", path="a.py", line=line, fix=fix, fixed=fixed)


def selection(*codes):
    return lambda code: code in codes


def stored():
    """A pipeline (NDD001) with a call (NDD101) and a device (NDD103, safe), and the finding said at
    the pipeline only when its reason (NDD108) is deselected."""
    diagnostics = [
        finding("NDD001", 1),
        finding("NDD001", 1, FixSafety.MANUAL, False, "silenced"),
        finding("NDD101", 2),
        finding("NDD103", 3, FixSafety.SAFE),
        finding("NDD108", 4, FixSafety.MANUAL, False),
    ]
    found = Findings.of(diagnostics, {1: ("NDD108",)})
    found.passes.append(Pass("all", dict.fromkeys(("NDD001", "NDD101", "NDD103"), True), found.fixed_ids(diagnostics)))
    return found


def test_every_rule_selected_reads_the_reporting_pass_and_asks_for_the_safe_one():
    found = stored()
    assert found.select(selection(*CODES), CODES) == Missing("safe")
    fixed = found.fixed_ids([finding("NDD103", 3, FixSafety.SAFE)])
    found.passes.append(Pass("safe", {"NDD103": True}, fixed))
    report = found.select(selection(*CODES), CODES)
    assert [(d.code, d.fix, d.fixed) for d in report] == [
        ("NDD001", FixSafety.UNSAFE, False),
        ("NDD101", FixSafety.UNSAFE, False),
        ("NDD103", FixSafety.SAFE, False),
        ("NDD108", FixSafety.MANUAL, False),
    ]


def test_a_finding_said_when_its_reasons_are_deselected():
    found = stored()
    found.passes.append(Pass("all", {"NDD001": True, "NDD101": True, "NDD103": False}, frozenset({0, 2})))
    report = found.select(selection("NDD001", "NDD101"), CODES)
    assert [d.message for d in report] == ["m 1", "silenced 1", "m 2"]


def test_a_pass_is_reused_only_where_the_selection_answers_its_questions_alike():
    found = stored()
    found.passes.append(Pass("safe", {"NDD103": True}, frozenset()))
    # without NDD001 the pass that fixes with every selected rule asked "NDD001?" and was told yes
    assert found.select(selection("NDD101", "NDD103", "NDD108"), CODES) == Missing("all")
    found.passes.append(Pass("all", {"NDD001": False, "NDD101": True, "NDD103": True}, frozenset({3})))
    report = found.select(selection("NDD101", "NDD103", "NDD108"), CODES)
    assert [(d.code, d.fix) for d in report] == [
        ("NDD101", FixSafety.MANUAL),  # not fixed without the conversion
        ("NDD103", FixSafety.UNSAFE),  # the safe pass did not fix it
        ("NDD108", FixSafety.MANUAL),
    ]


def test_the_stored_form_gives_the_same_reports():
    found = stored()
    found.passes.append(Pass("safe", {"NDD103": True}, frozenset({3})))
    again = Findings.from_dict(found.to_dict(), "a.py")
    for codes in (CODES, ("NDD001", "NDD101"), ("NDD103",)):
        assert again.select(selection(*codes), CODES) == found.select(selection(*codes), CODES)


def test_passes_of_the_same_findings_are_merged():
    first, second = stored(), stored()
    second.passes.append(Pass("safe", {"NDD103": False}, frozenset()))
    merged = first.merged(second)
    assert [p.answers for p in merged.passes if p.level == "safe"] == [{"NDD103": False}]
    assert len([p for p in merged.passes if p.level == "all"]) == 1


HAND_WRITTEN_SAFE_ONLY = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train(files):\n"
    "    reader = ndd.readers.File(files=files)\n"
    "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "        n = len(jpegs)\n"
    "        print(n, len(labels))\n"
)


def test_a_file_whose_fixes_are_all_safe_is_checked_in_one_pass(monkeypatch):
    """The pass at "safe" is read off the reporting pass when that applied no unsafe fix: the same
    report as a pass of its own gives, for one pass less."""
    from ndd_migrate.engine import transform
    from ndd_migrate.io.policy import Policy

    runs = []
    real_run = transform._run
    monkeypatch.setattr(transform, "_run", lambda *a, **k: runs.append(a[3]) or real_run(*a, **k))
    one = transform.transform(HAND_WRITTEN_SAFE_ONLY, "train.py", Policy.check())
    assert runs == ["report"]
    assert {d.code for d in one.diagnostics} == {"NDD502"} and all(d.fix is FixSafety.SAFE for d in one.diagnostics)
    runs.clear()
    monkeypatch.setattr(transform, "_safe_pass_of_report", lambda findings: None)
    two = transform.transform(HAND_WRITTEN_SAFE_ONLY, "train.py", Policy.check())
    assert runs == ["report", "safe"]
    assert [d.to_dict() for d in one.diagnostics] == [d.to_dict() for d in two.diagnostics]


PIPELINE_MODE = (
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def\n"
    "def train_pipe(files):\n"
    "    jpegs, labels = fn.readers.file(files=files)\n"
    '    images = fn.decoders.image(jpegs, device="mixed")\n'
    "    return images, labels\n\n\n"
    "pipe = train_pipe(files=['a.jpg'], batch_size=8, num_threads=2, device_id=0)\n"
    "pipe.build()\n"
    "images, labels = pipe.run()\n"
)

# The same module with a function written for dynamic mode by hand, and a safe fix in it.
MIXED = PIPELINE_MODE + (
    "\n\nimport nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def count(files):\n"
    "    reader = ndd.readers.File(files=files)\n"
    "    for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "        print(len(jpegs))\n"
)


def _passes_and_report(monkeypatch, source, *, derived=True, is_enabled=None):
    from ndd_migrate.engine import transform
    from ndd_migrate.io.policy import Policy

    runs = []
    real_run = transform._run
    monkeypatch.setattr(transform, "_run", lambda *a, **k: runs.append(a[3]) or real_run(*a, **k))
    if not derived:
        monkeypatch.setattr(transform, "_safe_pass_of_report", lambda findings: None)
    policy = Policy.check() if is_enabled is None else Policy.check(is_enabled=is_enabled)
    result = transform.transform(source, "train.py", policy)
    monkeypatch.undo()
    return runs, [d.to_dict() for d in result.diagnostics]


def test_a_file_whose_only_safe_fixes_are_the_imports_is_checked_in_one_pass(monkeypatch):
    """Pipeline-mode code: every fix is the conversion (unsafe), and the imports it needs (NDD301,
    safe) come with it; a pass at "safe" fixes nothing there, under every selection, and is not
    run. Its report is the one a pass of its own gives."""
    for is_enabled in (None, lambda code, path=None: code != "NDD101", lambda code, path=None: code == "NDD301"):
        runs, one = _passes_and_report(monkeypatch, PIPELINE_MODE, is_enabled=is_enabled)
        assert "safe" not in runs  # a selection of some rules takes the pass at "all" (Findings.select)
        real_runs, two = _passes_and_report(monkeypatch, PIPELINE_MODE, derived=False, is_enabled=is_enabled)
        assert "safe" in real_runs
        assert one == two
    _, every = _passes_and_report(monkeypatch, PIPELINE_MODE)
    imports = [d["fix"] for d in every if d["code"] == "NDD301"]
    assert imports and set(imports) == {"unsafe"}  # they come only with the conversion


def test_a_safe_fix_of_its_own_beside_the_conversion_still_takes_the_pass(monkeypatch):
    runs, one = _passes_and_report(monkeypatch, MIXED)
    assert runs == ["report", "safe"]
    fixes = {(d["code"], d["fix"]) for d in one}
    assert ("NDD502", "safe") in fixes and ("NDD101", "unsafe") in fixes and ("NDD301", "unsafe") in fixes


def test_mixed_device_on_an_fn_call_is_as_safe_as_the_call_s_rewrite(monkeypatch):
    """NDD103 respells ``device="mixed"`` on an ``fn.*`` call only as NDD101 rewrites the call
    (an ``fn.*`` call with ``device="gpu"`` fails for the decoder): the finding says "unsafe" in
    the reporting pass itself, not only once a pass at "safe" has not fixed it."""
    from ndd_migrate.engine import transform
    from ndd_migrate.io.policy import Policy

    migrated = transform.transform(PIPELINE_MODE, "train.py", Policy.migrate())
    assert [d.fix for d in migrated.diagnostics if d.code == "NDD103"] == [FixSafety.UNSAFE]
    hand_written = "import nvidia.dali.experimental.dynamic as ndd\n\nx = ndd.decoders.image(j, device='mixed')\n"
    found = transform.transform(hand_written, "train.py", Policy.migrate())
    assert [d.fix for d in found.diagnostics if d.code == "NDD103"] == [FixSafety.SAFE]

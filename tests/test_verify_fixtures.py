"""Every fixture's golden migration is proven equal to its pipeline by ``verify`` (CPU-lowered,
random states aligned, two epochs of a reader whose size is not a multiple of the batch size)."""

from __future__ import annotations

import json

import pytest

from tests import harness
from tests.conftest import FIXTURES, HAS_DALI

pytestmark = [
    pytest.mark.dali,
    pytest.mark.skipif(not HAS_DALI, reason="nvidia-dali-cuda120 is not installed (pip install '.[verify]')"),
]

CASES = sorted(p.parent.name for p in FIXTURES.glob("*/case.json"))


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    from fixtures.datasets import make_all

    return make_all(tmp_path_factory.mktemp("data"))


@pytest.mark.parametrize("name", CASES)
def test_fixture_migration_is_equal(name, datasets, tmp_path):
    from ndd_migrate.verify.command import verify_command

    case = json.loads((FIXTURES / name / "case.json").read_text(encoding="utf-8"))
    data = str(datasets[case["dataset"]])
    args = {k: v.replace("{data}", data) if isinstance(v, str) else v for k, v in case["args"].items()}
    report = tmp_path / "report.json"
    # as `migrate` leaves a project: the golden beside the support module it imports
    project = tmp_path / name
    project.mkdir()
    for file in ("pipeline.py", "migrated.py"):
        (project / file).write_bytes((FIXTURES / name / file).read_bytes())
    harness.with_support_module(project, (project / "migrated.py").read_text(encoding="utf-8"))
    code = verify_command(
        [str(project / "pipeline.py"), str(project / "migrated.py")],
        pipeline=case["function"],
        args_json=json.dumps(args),
        batch_size=case["batch_size"],
        iterations=case.get("iterations"),  # a pipeline without a reader has no epochs to count
        epochs=None if case.get("iterations") else 2,
        device="cpu",
        output_format="json",
        report_file=str(report),
    )
    text = report.read_text(encoding="utf-8")
    assert code == 0, text
    assert "equal" in text.lower()

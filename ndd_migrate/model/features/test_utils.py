"""The comparisons of DALI's test suite (its ``test_utils`` module) that a migrated pipeline is
handed to, and their counterparts in the support module.

DALI's tests, and the projects that copy them, compare two pipelines with
``test_utils.compare_pipelines(pipe1, pipe2, batch_size, N_iterations, ...)`` (built, run
``N_iterations`` times, each output pair checked) and two batches with
``test_utils.check_batch(batch1, batch2, batch_size, eps, ...)``. Their source documents what they
do; the support module's functions of the same names and parameters do it for pipelines and
batches of either mode (ndd_migrate/support/template/ndd_support.py), so that the call stays as
written and only the name's import moves (NDD412)."""

from __future__ import annotations

from dataclasses import dataclass

from ndd_migrate import support
from ndd_migrate.model.types import Kind


@dataclass(frozen=True)
class Comparison:
    """A comparison of ``test_utils``: the kind of value it compares and the parameters (the
    first two) that take them."""

    kind: Kind
    parameters: tuple[str, str]


COMPARISONS = {
    "compare_pipelines": Comparison(Kind.PIPELINE, ("pipe1", "pipe2")),
    "check_batch": Comparison(Kind.BATCH, ("batch1", "batch2")),
}
MODULE = "test_utils"


def counterpart(qualified: str) -> str | None:
    """The support module's function for the qualified name of an import (``test_utils.check_batch``,
    ``dali.test.python.test_utils.check_batch``, ``.test_utils.check_batch``), or None."""
    module, _, name = qualified.rpartition(".")
    return name if name in COMPARISONS and module.rpartition(".")[2] == MODULE else None


def migrated_before(qualified: str) -> str | None:
    """The comparison that the qualified name of an import names in the support module
    (``ndd_support.compare_pipelines``: a module migrated before), or None: a later run reads its
    calls as calls of DALI's, and leaves them as they are."""
    name = support.imported_name(qualified)
    return name if name in COMPARISONS else None

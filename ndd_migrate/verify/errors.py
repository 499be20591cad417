"""Exceptions of the equivalence check.

Two outcomes are failures for a caller: the two sides ran and differ (:class:`NotEquivalent`, exit
code 1), or the check could not be carried out at all (:class:`CouldNotVerify`, exit code 2: a
missing file or function, an exception, crash or hang in user code, an op without a CPU backend,
DALI not installed). Keeping them apart matters: "different" is a finding about the migration,
"could not run" is a finding about the setup, and CI should be able to tell which.

Everything here is stdlib-only so that ``import ndd_migrate.verify`` never needs DALI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ndd_migrate.verify.report import VerifyReport

INSTALL_HINT = "install the verify extra from a checkout of ndd-migrate: pip install -e '.[verify]'"


class VerifyFailure(Exception):
    """Base of the failures that carry a full :class:`~ndd_migrate.verify.report.VerifyReport`."""

    def __init__(self, report: VerifyReport, message: str | None = None):
        self.report = report
        super().__init__(message or report.to_text())


class NotEquivalent(VerifyFailure, AssertionError):
    """The original pipeline and the migrated code produced different outputs (or a different
    sequence of random calls, or different reader seeds). An ``AssertionError`` so that pytest
    shows it as a test failure, with the report as its message."""


class CouldNotVerify(VerifyFailure, RuntimeError):
    """The check could not be carried out; the report's error says why and where."""


class SetupError(Exception):
    """Raised inside the verify machinery for a problem that is not in user code (bad input,
    missing file, missing function, missing DALI). Turned into an ``error`` verdict with ``kind``
    so the report says what to fix rather than showing a traceback of ndd-migrate itself."""

    def __init__(self, kind: str, message: str, *, location: str | None = None):
        self.kind = kind
        self.location = location
        super().__init__(message)

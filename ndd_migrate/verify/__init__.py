"""``verify``: prove that migrated dynamic-mode code reproduces the original DALI pipeline.

Both sides run on the same data in the same order with the same random states, each in its own
process; every output of every step is compared sample by sample. See ``docs/verify.md``.

Importing this package needs neither DALI nor numpy (the lint/migrate core must stay light);
DALI is imported by the worker processes only, and a missing installation is reported as
"install the verify extra from a checkout of ndd-migrate: pip install -e '.[verify]'".

Public API::

    from ndd_migrate.verify import assert_equivalent, verify_files, verify_base
    report = verify_files("train.py", "train_ndd.py", pipeline="train_pipe", iterations=8)
    report.exit_code, report.to_json(), report.render()
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndd_migrate.verify.errors import CouldNotVerify, NotEquivalent, VerifyFailure
from ndd_migrate.verify.model import BenchConfig, Settings, SideSpec

__all__ = [
    "BenchConfig",
    "CouldNotVerify",
    "NotEquivalent",
    "Settings",
    "SideSpec",
    "VerifyFailure",
    "VerifyReport",
    "PairReport",
    "assert_equivalent",
    "make_settings",
    "verify_base",
    "verify_files",
    "verify_pair",
    "verify_command",
]

_LAZY = {
    "assert_equivalent": "ndd_migrate.verify.api",
    "make_settings": "ndd_migrate.verify.api",
    "verify_base": "ndd_migrate.verify.api",
    "verify_files": "ndd_migrate.verify.api",
    "verify_pair": "ndd_migrate.verify.api",
    "VerifyReport": "ndd_migrate.verify.report",
    "PairReport": "ndd_migrate.verify.report",
    "verify_command": "ndd_migrate.verify.command",
}

if TYPE_CHECKING:  # pragma: no cover
    from ndd_migrate.verify.api import (
        assert_equivalent,
        make_settings,
        verify_base,
        verify_files,
        verify_pair,
    )
    from ndd_migrate.verify.command import verify_command
    from ndd_migrate.verify.report import PairReport, VerifyReport


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ndd_migrate.verify' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

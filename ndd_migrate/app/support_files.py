"""Writing the project's support modules (:mod:`ndd_migrate.support`) a ``migrate`` run needs.

A support module is written before the modules that import it, so that no migrated module ever
imports a module that is not there; and only for importers that will be written, so that no
support module is left behind imported by nothing."""

from __future__ import annotations

from ndd_migrate.io import files, writing
from ndd_migrate.io.diagnostics import FileError
from ndd_migrate.support import SupportFile


def keep_writable_importers(summary, support: SupportFile) -> bool:
    """Narrow ``support.needed_by`` to the importers that can be written (those that cannot get the
    error their write would give, now); False, and ``support`` out of ``summary``, when it is a
    new module none of them can import."""
    writable = []
    for result in summary.results:
        if result.path not in support.needed_by or not result.changed:
            continue
        why = writing.refusal(result.path)
        if why is None:
            writable.append(result.path)
        else:
            result.error, result.changed = FileError(result.path, why), False
    support.needed_by = writable
    if support.old is None and not writable:
        summary.support.remove(support)
        return False
    return True


def write(summary, support: SupportFile) -> None:
    """Create or update ``support`` in place (only while it is as this run read it); when it cannot
    be written, its importers are left unchanged, with the error."""
    try:
        if support.old is None:
            writing.create_source(support.path, support.new)
        else:
            current = files.read_source(support.path)
            if current.text != support.old:
                raise files.SourceError(support.path, "changed on disk during the run; left as it is")
            writing.write_source(support.path, support.new, current)
    except files.SourceError as exc:
        for result in summary.results:
            if result.path in support.needed_by:
                result.error = FileError(result.path, f"not migrated: {support.path}: {exc.message}")
                result.changed = False

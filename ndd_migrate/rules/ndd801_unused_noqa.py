"""NDD801 unused-noqa: a ``# noqa`` directive that silences nothing (ruff's RUF100); opt-in.

The finding is made after the traversal, by :mod:`ndd_migrate.engine.unused_noqa`: whether a
directive silenced something is known only once every rule has reported. This module holds its
documentation and examples.
"""

from __future__ import annotations

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.io.diagnostics import FixSafety

RULE = Rule(
    code="NDD801",
    name="unused-noqa",
    summary="a `# noqa` directive that silences no finding",
    what=(
        "Reports each `# noqa: NDDxxx` whose codes silence no finding on their line, each blanket `# noqa` on a "
        "line with no finding, and each file-level `# ndd-migrate: noqa` (with or without codes) that silences "
        "nothing, as ruff's `RUF100` does. Codes of other tools in the same comment (`# noqa: E501, NDD201`) are "
        "left alone: only the `NDD` codes are judged. A directive counts as used when it silences a finding of "
        "its code there, whether or not that rule is selected, or keeps a rewrite from happening. **Off by "
        'default**, as `RUF100` is in ruff: select it with `--extend-select NDD801` (or `select = ["ALL"]`, '
        '`extend-select = ["NDD8"]` in the configuration). `# noqa: NDD801` on the line (or file-wide) '
        "silences it. A file that never mentions DALI is looked at only when a directive in it names our codes "
        "(or is file-level): the blanket `# noqa` of a file that never names them are left to the linters they are for."
    ),
    why=(
        "A directive outlives the finding it was written for: once the code is migrated, `# noqa: NDD101` "
        "silences nothing, and would silence the next, unrelated finding on that line without anyone noticing. "
        "A blanket `# noqa` hides every code, present and future."
    ),
    fix_safety=FixSafety.SAFE,
    fix=(
        "Safe for the `NDD` codes of a directive (the other codes of the comment stay: `# noqa: E501, NDD201` "
        "becomes `# noqa: E501`) and for a file-level `# ndd-migrate: noqa`; a comment with nothing left goes, "
        "and takes its line when it was alone on it. Removing a blanket line-level `# noqa` is **unsafe** (only "
        "with `--unsafe-fixes`): another linter (ruff, flake8) may be the one it silences."
    ),
    examples=(
        Example(
            before=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')  # noqa: E501, NDD504\n"
                "batch_size = 8  # noqa: NDD104\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "reader = ndd.readers.File(file_root='/data')  # noqa: E501\n"
                "batch_size = 8\n"
            ),
            title="with NDD801 selected",
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\nreader = ndd.readers.file(file_root='/data')  # noqa: NDD504\n",
    ),
)

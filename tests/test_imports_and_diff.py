"""Where ``migrate`` puts the ndd import, and ``migrate --diff`` printing exactly what it writes."""

from __future__ import annotations

import pytest

from tests.conftest import migrate_text

NDD_IMPORT = "import nvidia.dali.experimental.dynamic as ndd\n"

# `types` stays used, so the DALI import line stays and the ndd import joins its run of imports.
BODY = (
    "\n\n"
    "@pipeline_def(batch_size=4)\n"
    "def loader(root):\n"
    "    data, label = fn.readers.file(file_root=root)\n"
    "    return fn.cast(label, dtype=types.INT64), data\n"
)


@pytest.mark.parametrize(
    "header",
    [
        "from __future__ import annotations\n",
        '"""Loaders."""\nfrom __future__ import annotations\n',
        '"""Loaders."""\nfrom __future__ import annotations\nfrom __future__ import division\n',
        "# a comment\nfrom __future__ import annotations  # why\n",
    ],
)
def test_ndd_import_goes_after_the_docstring_and_future_imports(header):
    source = header + "from nvidia.dali import fn, pipeline_def, types\n" + BODY
    new, _ = migrate_text(source)
    assert new.startswith(header + NDD_IMPORT + "from nvidia.dali import types\n"), new

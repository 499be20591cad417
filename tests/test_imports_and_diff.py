"""Where ``migrate`` puts the ndd import, and ``migrate --diff`` printing exactly what it writes."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ndd_migrate.report.summary import unified_diff
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


OPTIONAL_DALI = (
    "import numpy as np\n"
    "\n"
    "try:\n"
    "    # DALI is optional here\n"
    "    import nvidia.dali.fn as fn\n"
    "    from nvidia.dali import pipeline_def\n"
    "    import nvidia.dali.types as types\n"
    "    HAVE_DALI = True\n"
    "except ImportError:\n"
    "    HAVE_DALI = False\n" + BODY
)


def test_optional_dali_stays_optional():
    new, _ = migrate_text(OPTIONAL_DALI)
    assert new.startswith(
        "import numpy as np\n"
        "\n"
        "try:\n"
        "    # DALI is optional here\n"
        "    import nvidia.dali.experimental.dynamic as ndd\n"
        "    import nvidia.dali.types as types\n"
        "    HAVE_DALI = True\n"
        "except ImportError:\n"
        "    HAVE_DALI = False\n"
    ), new
    assert new.count(NDD_IMPORT.strip()) == 1
    again, result = migrate_text(new)
    assert again == new and not result.changed


def test_optional_dali_import_that_stays_used_keeps_its_place_in_the_try_block():
    source = (
        "try:\n"
        "    from nvidia.dali import fn, pipeline_def, types\n"
        "except ImportError:  # no DALI: no loader\n"
        "    pipeline_def = None\n" + BODY
    )
    new, _ = migrate_text(source)
    assert new.startswith(
        "try:\n"
        "    import nvidia.dali.experimental.dynamic as ndd\n"
        "    from nvidia.dali import pipeline_def, types\n"
        "except ImportError:  # no DALI: no loader\n"
    ), new


def test_a_top_level_dali_import_makes_dali_mandatory_anyway():
    source = (
        "from nvidia.dali import fn, pipeline_def, types\n"
        "\n"
        "try:\n"
        "    from nvidia.dali.plugin.pytorch import DALIGenericIterator\n"
        "except ImportError:\n"
        "    DALIGenericIterator = None\n" + BODY
    )
    new, _ = migrate_text(source)
    assert new.startswith(NDD_IMPORT + "from nvidia.dali import types\n\ntry:\n    from nvidia.dali.plugin"), new


# --------------------------------------------------------------------------------- migrate --diff

TABBED = (
    "from nvidia.dali import fn, pipeline_def\n"
    "\n"
    "\n"
    "@pipeline_def(batch_size=2)\n"
    "def p(root):\n"
    "\tdata = fn.readers.numpy(file_root=root)\t# a tab before the comment\n"
    "\treturn data\n"
)


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs GNU patch")
@pytest.mark.parametrize(
    "name, data",
    [
        ("tabs.py", TABBED.encode()),
        ("crlf.py", TABBED.replace("\n", "\r\n").encode()),
        ("no_final_newline.py", TABBED.rstrip("\n").encode()),
        ("bom.py", b"\xef\xbb\xbf" + ("# d\xe9j\xe0\n" + TABBED).encode()),
        ("latin1.py", ("# -*- coding: latin-1 -*-\n# d\xe9j\xe0\n" + TABBED).encode("latin-1")),
    ],
)
def test_the_printed_diff_is_the_change_migrate_writes(tmp_path, monkeypatch, cli, name, data):
    for side in ("diffed", "written"):
        (tmp_path / side).mkdir()
        (tmp_path / side / name).write_bytes(data)
    monkeypatch.chdir(tmp_path / "diffed")
    shown = cli("migrate", "--diff", name)
    assert shown.exit_code == 1, shown.output  # there is a diff
    assert (tmp_path / "diffed" / name).read_bytes() == data  # --diff writes nothing
    monkeypatch.chdir(tmp_path / "written")
    assert cli("migrate", name).exit_code == 0
    written = (tmp_path / "written" / name).read_bytes()
    assert written != data
    applied = subprocess.run(
        ["patch", "-p1", "--quiet"], input=shown.stdout_bytes, cwd=tmp_path / "diffed", capture_output=True
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert (tmp_path / "diffed" / name).read_bytes() == written


def test_the_diff_of_bytes_keeps_tabs_and_crs_and_marks_a_missing_final_newline():
    old = b"a\tb\r\nkept\r\nlast"
    new = b"a\tc\r\nkept\r\nlast\r\n"
    assert unified_diff("f.py", old, new) == (
        b"--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n"
        b"-a\tb\r\n+a\tc\r\n kept\r\n-last\n\\ No newline at end of file\n+last\r\n"
    )


_TRY_PIPELINE = (
    "from nvidia.dali import fn, pipeline_def\n"
    "{imports}\n\n"
    "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
    "def p():\n"
    "    x = fn.random.uniform(shape=[2])\n"
    "    assert isinstance(x, DataNode)\n"
    "    return x\n\n\n"
    "pipe = p()\npipe.build()\n(out,) = pipe.run()\n{after}"
)


def test_a_try_of_dali_imports_all_made_unused_goes_as_a_whole():
    """``try: from nvidia.dali.data_node import DataNode`` / ``except ImportError: from
    nvidia.dali.pipeline import DataNode``: spellings for several DALI versions; once the graph
    tests ``ndd.Batch``, neither is used, and the ``try:`` goes with its blank line."""
    imports = (
        "\ntry:\n    from nvidia.dali.data_node import DataNode\n"
        "except ImportError:\n    from nvidia.dali.pipeline import DataNode\n"
    )
    out, _ = migrate_text(_TRY_PIPELINE.format(imports=imports, after=""))
    assert "try:" not in out and "DataNode" not in out and "isinstance(x, ndd.Batch)" in out
    assert (
        "import nvidia.dali.experimental.dynamic as ndd\n\nfrom ndd_support import prefetching\n\n\n@prefetching\ndef p("
        in out
    ), out


@pytest.mark.parametrize(
    "imports, after",
    [
        pytest.param(
            "\ntry:\n    from nvidia.dali.data_node import DataNode\nexcept ImportError:\n    DataNode = None\n",
            "",
            id="a handler that is not an import",
        ),
        pytest.param(
            "\ntry:\n    from nvidia.dali.data_node import DataNode\nexcept ImportError:\n"
            "    from nvidia.dali.pipeline import DataNode\n",
            "print(DataNode)\n",
            id="still used",
        ),
    ],
)
def test_a_try_of_imports_that_does_more_or_is_still_used_stays(imports, after):
    out, _ = migrate_text(_TRY_PIPELINE.format(imports=imports, after=after))
    assert imports.strip() in out


def test_dali_imported_inside_a_function_stays_optional():
    """A module that imports DALI only inside the function that uses it runs without DALI until
    then: the ndd import goes there too, beside what the function still reads, and not to the top
    of the module (which would make DALI needed at import, and leave the old import unused)."""
    source = (
        '"""A script with DALI as an optional dependency."""\n\n'
        "import sys\n\n\n"
        "def run(root):\n"
        "    from nvidia.dali import fn, pipeline_def, types\n\n"
        "    @pipeline_def(batch_size=2, num_threads=1, device_id=None)\n"
        "    def p():\n"
        "        jpegs, labels = fn.readers.file(file_root=root)\n"
        "        return fn.decoders.image(jpegs, output_type=types.RGB), labels\n\n"
        "    pipe = p()\n"
        "    pipe.build()\n"
        "    images, labels = pipe.run()\n"
        "    print(labels)\n\n\n"
        "def version():\n"
        "    import nvidia.dali\n\n"
        "    return nvidia.dali.__version__\n\n\n"
        "if __name__ == '__main__':\n"
        "    run(sys.argv[1])\n"
    )
    out, _ = migrate_text(source)
    assert "def version():\n    import nvidia.dali\n\n    return" in out  # no ndd import where none is read
    assert out.startswith(  # the support module is the standard library's only
        '"""A script with DALI as an optional dependency."""\n\nimport sys\n\nfrom ndd_support import prefetching\n\n\n'
        "def run(root):\n"
    )
    assert (
        "def run(root):\n    import nvidia.dali.experimental.dynamic as ndd\n    from nvidia.dali import types\n" in out
    )
    assert out.count("import nvidia.dali.experimental.dynamic as ndd") == 1


def test_the_ndd_import_goes_where_the_removed_first_dali_import_was():
    """The first DALI import goes, a later one stays (`LastBatchPolicy`, still read): the new import
    takes the removed one's place among the DALI imports, not a place above the standard library's."""
    text = (
        "import sys\n\nfrom nvidia.dali import fn, pipeline_def\nfrom nvidia.dali.plugin.pytorch import LastBatchPolicy\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    return fn.random.uniform(range=[0, 1])\n\n\n"
        "pipe = p()\npipe.build()\nprint(pipe.run(), LastBatchPolicy.FILL, sys.argv)\n"
    )
    out, _ = migrate_text(text)
    assert out.startswith(
        "import sys\n\nimport nvidia.dali.experimental.dynamic as ndd\n"
        "from nvidia.dali.plugin.pytorch import LastBatchPolicy\n\nfrom ndd_support import prefetching\n\n\n@prefetching\ndef p("
    ), out


def test_in_an_unsorted_import_block_the_ndd_import_takes_the_dali_imports_place():
    """A block isort never sorted (`import time` above `import torch`, DALI's in between): sorting
    the new import by name would put it first; it goes where the removed DALI import was."""
    text = (
        "import time\nimport torch\nimport nvidia.dali.fn as fn\nfrom nvidia.dali import pipeline_def\nimport json\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    return fn.random.uniform(range=[0, 1])\n\n\n"
        "pipe = p()\npipe.build()\nprint(pipe.run(), time, torch, json)\n"
    )
    out, _ = migrate_text(text)
    assert out.startswith("import time\nimport torch\nimport nvidia.dali.experimental.dynamic as ndd\nimport json\n"), (
        out
    )


def test_dali_imports_under_a_guard_and_an_if_that_the_migration_leaves_unused_go():
    """`try: if cuda: from nvidia.dali... import ...`: the imports the migrated module no longer reads
    go there too (F401 was left behind); the ones it still reads stay."""
    text = (
        "import torch\n\ntry:\n    if torch.cuda.is_available():\n        from nvidia.dali import fn, pipeline_def\n"
        "        import nvidia.dali.types as types\nexcept ImportError:\n    pass\n\n\n"
        "@pipeline_def(batch_size=2)\ndef p():\n    return fn.cast(fn.random.uniform(range=[0, 1]), dtype=types.FLOAT)\n\n\n"
        "pipe = p()\npipe.build()\nprint(pipe.run())\n"
    )
    out, result = migrate_text(text)
    assert not [d for d in result.diagnostics if d.needs_human], [d.message for d in result.diagnostics]
    assert (
        "from nvidia.dali import fn, pipeline_def" not in out and "        import nvidia.dali.types as types\n" in out
    ), out


@pytest.mark.parametrize(
    "gap",
    [
        "\n\n",  # one blank line: the import opens the file, as the removed one did
        "\n\n\n",  # two blank lines, as formatters write them above a class
        "\n\n\n# The loader the training script uses.\n",  # and a comment that describes the class
        "\n# Header of the module's code.\n\n\n# The loader the training script uses.\n",
    ],
)
def test_the_support_import_replacing_a_files_only_import_keeps_the_lines_below_it(tmp_path, gap):
    """The support import takes the place of the removed one: the class below keeps the blank lines
    that set it apart and the comment that describes it; a comment set apart above them stays above
    the import, where it was."""
    from ndd_migrate.app import runner
    from ndd_migrate.io.policy import Policy

    base = (
        f"from nvidia.dali.plugin.pytorch import DALIGenericIterator\n{gap}"
        "class Loader(DALIGenericIterator):\n"
        "    def __init__(self, pipeline, size):\n"
        "        super().__init__(pipelines=pipeline, size=size, output_map=['data'])\n"
    )
    main = (
        "from nvidia.dali import fn, pipeline_def\n\nfrom base import Loader\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None)\ndef p(root):\n"
        "    data = fn.readers.numpy(file_root=root, name='Reader')\n    return data\n\n\n"
        "for batch in Loader(p('d'), 4):\n    print(batch)\n"
    )
    (tmp_path / "base.py").write_text(base)
    (tmp_path / "main.py").write_text(main)
    result = runner.run([tmp_path / "base.py", tmp_path / "main.py"], Policy.migrate()).results[0]
    if gap.startswith("\n# Header"):
        expected = base.replace(
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n\n# Header of the module's code.\n",
            "# Header of the module's code.\nfrom ndd_support import DALIGenericIterator\n",
        )
    else:
        expected = base.replace(
            "from nvidia.dali.plugin.pytorch import DALIGenericIterator\n",
            "from ndd_support import DALIGenericIterator\n",
        )
    assert result.new_source == expected


GUARDED_BY_AN_IF = """\
import torch

dali_enable = True
try:
    if torch.cuda.is_available():
        import nvidia.dali.fn as fn
        import nvidia.dali.types as types
        from nvidia.dali import pipeline_def
    else:
        dali_enable = False
except ImportError:
    dali_enable = False

if dali_enable:

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def p(root):
        jpegs, labels = fn.readers.file(file_root=root)
        return fn.decoders.image(jpegs, output_type=types.RGB), labels
"""


def test_dali_imported_under_an_if_in_a_try_stays_optional(tmp_path):
    """`try: if cuda: <DALI imports> ... except ImportError`: the module imports without DALI; the
    ndd import goes into that `try`, not above it."""
    import subprocess
    import sys

    new, _ = migrate_text(GUARDED_BY_AN_IF)
    assert "try:\n    import nvidia.dali.experimental.dynamic as ndd\n    if torch.cuda.is_available():\n" in new
    assert new.count("import nvidia.dali.experimental.dynamic as ndd") == 1
    (tmp_path / "torch.py").write_text("class cuda:\n    is_available = staticmethod(lambda: True)\n")
    (tmp_path / "nvidia.py").write_text("raise ImportError('no DALI here')\n")  # a machine without DALI
    (tmp_path / "ndd_support.py").write_text("def prefetching(f):\n    return f\n")
    (tmp_path / "loader.py").write_text(new)
    done = subprocess.run(
        [sys.executable, "-S", "-c", "import loader; print(loader.dali_enable)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "False", done.stderr

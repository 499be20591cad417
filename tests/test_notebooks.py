"""Notebooks to one virtual module and back: the code cells change, nothing else does."""

from __future__ import annotations

import ast
import copy
import json

import libcst as cst
import pytest

from ndd_migrate.io.files import read_source
from ndd_migrate.io.notebooks import (
    NotebookError,
    cell_position,
    module_to_notebook,
    notebook_to_module,
)
from ndd_migrate.io.writing import write_source

PNG = (  # a 1x1 image, as a display_data output holds it
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\n"
)

NOTEBOOK = {
    "cells": [
        {
            "cell_type": "markdown",
            "id": "3f1a9c2e",
            "metadata": {},
            "source": ["# Décodage d'images avec DALI\n", "\n", "Que fait `fn.decoders.image`?"],
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "b7e0d4a1",
            "metadata": {"scrolled": True},
            "outputs": [
                {
                    "name": "stdout",
                    "output_type": "stream",
                    "text": ["Requirement already satisfied: nvidia-dali-cuda120\n"],
                }
            ],
            "source": [
                "!pip install --extra-index-url https://pypi.nvidia.com nvidia-dali-cuda120\n",
                "%matplotlib inline\n",
                "import matplotlib.pyplot as plt\n",
                "from nvidia.dali import pipeline_def\n",
                "import nvidia.dali.fn as fn\n",
                "import nvidia.dali.types as types",
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "id": "9c41d3f0",
            "metadata": {},
            "outputs": [],
            "source": (
                'image_dir = "data/images"  # répertoire\n'
                "\n"
                "@pipeline_def(batch_size=8, num_threads=4, device_id=0, seed=1234)\n"
                "def decode_pipeline(path=image_dir):\n"
                "    jpegs, labels = fn.readers.file(file_root=path, random_shuffle=True)\n"
                '    images = fn.decoders.image(jpegs, device="mixed")\n'
                "    return images, labels"
            ),
        },
        {
            "cell_type": "markdown",
            "id": "0d2b7f55",
            "metadata": {},
            "source": "Build the pipeline — then run it.",
        },
        {
            "cell_type": "code",
            "execution_count": 3,
            "id": "e5a8c913",
            "metadata": {},
            "outputs": [],
            "source": ["pipe = decode_pipeline()\n", "pipe.build()"],
        },
        {
            "cell_type": "code",
            "execution_count": 4,
            "id": "71c0aa42",
            "metadata": {"tags": ["benchmark"]},
            "outputs": [
                {
                    "name": "stdout",
                    "output_type": "stream",
                    "text": [
                        "CPU times: user 1.2 s, sys: 0.3 s, total: 1.5 s\n",
                        "Wall time: 0.41 s\n",
                    ],
                }
            ],
            "source": [
                "%%time\n",
                "for _ in range(10):\n",
                "    images, labels = pipe.run()\n",
                "    %time pipe.run()\n",
                "print(len(images))  # how many?\n",
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 5,
            "id": "c9e3f0d8",
            "metadata": {},
            "outputs": [
                {
                    "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                    "metadata": {"needs_background": "light"},
                    "output_type": "display_data",
                },
                {
                    "data": {"text/plain": ["(8, 0.5, 1e-05)"]},
                    "execution_count": 5,
                    "metadata": {},
                    "output_type": "execute_result",
                },
            ],
            "source": [
                "images, labels = pipe.run()\n",
                "fn.decoders.image?\n",
                "plt.imshow(images.as_cpu().at(0))\n",
                "?pipe\n",
                "files = !ls data/images\n",
                'note = """\n',
                "!this stays Python: it is inside a string\n",
                '"""\n',
                "batch_size = 8; ratio = 0.5; eps = 1e-05\n",
                "batch_size, ratio, eps",
            ],
        },
        {
            "cell_type": "code",
            "execution_count": 6,
            "id": "4be1a0c7",
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["images\n", "labels.txt\n"]}],
            "source": ["%%bash\n", "ls data\n", "  if true; then echo indented; fi\n"],
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "2d9f6b18",
            "metadata": {},
            "outputs": [],
            "source": [],
        },
        {"cell_type": "raw", "id": "aa01bb02", "metadata": {}, "source": "%not code either?"},
    ],
    "metadata": {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {
            "codemirror_mode": {"name": "ipython", "version": 3},
            "file_extension": ".py",
            "mimetype": "text/x-python",
            "name": "python",
            "nbconvert_exporter": "python",
            "pygments_lexer": "ipython3",
            "version": "3.11.7",
        },
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def nbformat_dumps(notebook: dict) -> str:
    """How nbformat (Jupyter, JupyterLab, nbconvert) writes a notebook."""
    return json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def other_writer_dumps(notebook: dict) -> str:
    """A writer with other habits: 2-space indent, insertion order, escaped non-ASCII, CRLF, no
    final newline."""
    return json.dumps(notebook, indent=2, ensure_ascii=True).replace("\n", "\r\n")


def cell_code(notebook: dict, number: int) -> str:
    source = notebook["cells"][number - 1]["source"]
    return "".join(source) if isinstance(source, list) else source


def with_code(notebook: dict, changes: dict[int, str]) -> dict:
    """``notebook`` with new code in some cells (by 1-based number), each in its original form."""
    notebook = copy.deepcopy(notebook)
    for number, code in changes.items():
        cell = notebook["cells"][number - 1]
        cell["source"] = code.splitlines(keepends=True) if isinstance(cell["source"], list) else code
    return notebook


class RewritePipelineCalls(cst.CSTTransformer):
    """A stand-in for the rules: drop ``pipe.build()``, turn ``pipe.run()`` into ``next(pipe)``."""

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if cst.Module([]).code_for_node(original_node.body[0]).strip() == "pipe.build()":
            return cst.RemoveFromParent()
        return updated_node

    def leave_Call(self, original_node, updated_node):
        if cst.Module([]).code_for_node(original_node.func) == "pipe.run":
            return cst.parse_expression("next(pipe)")
        return updated_node


def rewrite(module: str) -> str:
    return cst.parse_module(module).visit(RewritePipelineCalls()).code


@pytest.mark.parametrize("dumps", [nbformat_dumps, other_writer_dumps])
def test_unchanged_round_trip_is_byte_identical(dumps):
    text = dumps(NOTEBOOK)
    module, layout = notebook_to_module(text)
    assert module_to_notebook(module, layout) == text
    # The module is the cells' Python, and libcst reads and writes it unchanged.
    assert cst.parse_module(module).code == module
    ast.parse(module)


def test_module_holds_all_code_cells_with_ipython_masked():
    module, _ = notebook_to_module(nbformat_dumps(NOTEBOOK))
    for number in (2, 3, 5, 6, 7):
        for line in cell_code(NOTEBOOK, number).splitlines():
            if not line.lstrip().startswith(("!", "%", "?", "files =", "fn.decoders.image?")):
                assert line in module
    # Definition in cell 3 and use in cell 5 are one module: cross-cell analysis sees both.
    assert module.index("def decode_pipeline") < module.index("pipe = decode_pipeline()")
    for masked in (
        "!pip",
        "%matplotlib",
        "%%time",
        "%time",
        "fn.decoders.image?",
        "?pipe",
        "!ls",
        "ls data",
    ):
        assert masked not in module
    assert "!this stays Python" in module  # inside a string: not IPython
    assert "print(len(images))  # how many?" in module  # '?' in a comment: not help
    assert "Décodage" not in module and "%not code" not in module  # markdown, raw: not code
    assert "pass  # ndd-migrate:cell 2\n" in module


def test_modified_cells_change_and_nothing_else():
    text = nbformat_dumps(NOTEBOOK)
    module, layout = notebook_to_module(text)
    new_text = module_to_notebook(rewrite(module), layout)

    expected = with_code(
        NOTEBOOK,
        {
            5: "pipe = decode_pipeline()",  # still no line break after the last line
            6: "%%time\nfor _ in range(10):\n    images, labels = next(pipe)\n"
            "    %time pipe.run()\nprint(len(images))  # how many?\n",
            7: cell_code(NOTEBOOK, 7).replace("images, labels = pipe.run()", "images, labels = next(pipe)"),
        },
    )
    assert new_text == nbformat_dumps(expected)


def test_other_writers_formatting_is_kept_around_changes():
    text = other_writer_dumps(NOTEBOOK)
    module, layout = notebook_to_module(text)
    new_text = module_to_notebook(module.replace("répertoire", "dossier → images"), layout)
    expected = with_code(NOTEBOOK, {3: cell_code(NOTEBOOK, 3).replace("répertoire", "dossier → images")})
    assert new_text == other_writer_dumps(expected)
    assert "\\u2192" in new_text  # the new character escaped like the rest of this file


def test_code_added_before_the_first_cell_goes_into_the_first_code_cell():
    module, layout = notebook_to_module(nbformat_dumps(NOTEBOOK))
    new_text = module_to_notebook("import nvidia.dali.experimental.dynamic as ndd\n\n" + module, layout)
    expected = with_code(NOTEBOOK, {2: "import nvidia.dali.experimental.dynamic as ndd\n\n" + cell_code(NOTEBOOK, 2)})
    assert new_text == nbformat_dumps(expected)


def test_code_added_to_an_empty_list_source_is_laid_out_like_nbformat():
    module, layout = notebook_to_module(nbformat_dumps(NOTEBOOK))
    marker = "pass  # ndd-migrate:cell 9\n"
    new_text = module_to_notebook(module.replace(marker, marker + "x = 1\ny = 2\n"), layout)
    assert new_text == nbformat_dumps(with_code(NOTEBOOK, {9: "x = 1\ny = 2\n"}))


def test_masked_lines_follow_a_reindented_block():
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": "for i in range(3):\n    !echo $i\n    step(i)",
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    module, layout = notebook_to_module(nbformat_dumps(notebook))
    ast.parse(module)  # a masked magic alone in a block still parses
    new_module = module.replace("for i in range(3):\n    pass", "def run():\n    for i in range(3):\n        pass")
    new_module = new_module.replace("\n    step(i)", "\n        step(i)")
    new_text = module_to_notebook(new_module, layout)
    assert cell_code(json.loads(new_text), 1) == "def run():\n    for i in range(3):\n        !echo $i\n        step(i)"


def test_marker_word_in_a_cell_is_avoided():
    notebook = with_code(NOTEBOOK, {5: "# run ndd-migrate:cell 5 later\npipe = decode_pipeline()\n"})
    text = nbformat_dumps(notebook)
    module, layout = notebook_to_module(text)
    assert "pass  # ndd-migrate-1:cell 5\n" in module
    assert module_to_notebook(module, layout) == text
    changed = module_to_notebook(module.replace("later", "soon"), layout)
    assert cell_code(json.loads(changed), 5).startswith("# run ndd-migrate:cell 5 soon\n")


def test_cell_position_maps_module_lines_to_cells():
    module, layout = notebook_to_module(nbformat_dumps(NOTEBOOK))
    lines = module.splitlines()

    def position_of(fragment: str) -> tuple[int, int]:
        return cell_position(layout, next(i for i, line in enumerate(lines, 1) if fragment in line))

    assert position_of("import nvidia.dali.fn as fn") == (2, 5)
    assert position_of("def decode_pipeline") == (3, 4)
    assert position_of("pipe.build()") == (5, 2)
    assert position_of("plt.imshow") == (7, 3)
    assert position_of("ndd-migrate:cell 3") == (3, 1)
    assert cell_position(layout, 1) == (2, 1)
    with pytest.raises(ValueError):
        cell_position(layout, len(lines) + 1)
    with pytest.raises(ValueError):
        cell_position(layout, 0)


def test_invalid_json_raises_a_clear_error():
    text = nbformat_dumps(NOTEBOOK)
    broken = text.replace('"nbformat": 4,', '"nbformat": 4', 1)
    with pytest.raises(NotebookError) as error:
        notebook_to_module(broken)
    assert "invalid JSON" in str(error.value)
    assert error.value.line == broken[: broken.index('"nbformat_minor"')].count("\n") + 1


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"worksheets": [], "nbformat": 3}', "nbformat 4"),
        ("[]", "nbformat 4"),
        ('{"cells": [], "metadata": {"kernelspec": {"language": "R"}}}', "not a Python notebook"),
        ('{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1"),
    ],
)
def test_non_notebooks_are_refused(text, message):
    with pytest.raises(NotebookError, match=message):
        notebook_to_module(text)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda m: m.replace("pass  # ndd-migrate:cell 5\n", ""), "found cell 6's where cell 5's"),
        (lambda m: m.replace("pass  # ndd-migrate:cell 9\n", ""), "marker of cell 9 was removed"),
        (
            lambda m: m.replace("pass  # ndd-migrate:cell 5\n", "", 1) + "pass  # ndd-migrate:cell 5\n",
            "found cell 6's where cell 5's",
        ),
        (lambda m: m + "pass  # ndd-migrate:cell 9\n", "found cell 9's where no more"),
        (
            lambda m: m.replace("pass  # ndd-migrate:mask 0\n", ""),
            "removed the IPython line '!pip install",
        ),
        (
            lambda m: m.replace("pass  # ndd-migrate:mask 0\n", "") + "pass  # ndd-migrate:mask 0\n",
            "moved it to another cell",
        ),
    ],
)
def test_damaged_markers_raise(damage, message):
    module, layout = notebook_to_module(nbformat_dumps(NOTEBOOK))
    with pytest.raises(NotebookError, match=message):
        module_to_notebook(damage(module), layout)


def one_cell(code: str) -> str:
    return nbformat_dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": {},
                    "outputs": [],
                    "source": code,
                }
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.mark.parametrize(
    "code, masked",
    [
        ("x = 5 % 3\nok = a != b\n", []),
        ("s = 'why?'  # really?\nt = f'{s!r}'\n", []),
        ("x = (1,\n     2)\ny?\nfn.resize??\n", ["y?", "fn.resize??"]),
        ("x = '''\n%not a magic\n!nor this\n'''\n", []),
        ("x = 'a\\\n!b'\n", []),
        ("!ls \\\n  -la\nx = 1\n", ["!ls \\", "  -la"]),
        ("files = !ls\nout = %sx echo hi\n", ["files = !ls", "out = %sx echo hi"]),
        ("/f 1\n,g a b\n;h a\n", ["/f 1", ",g a b", ";h a"]),
        ("if x:\n    %time f()\nelse:\n    ?g\n", ["    %time f()", "    ?g"]),
        ("\n%%timeit -n 3\npipe.run()\n", ["%%timeit -n 3"]),
        (
            "%%writefile run.py\nimport nvidia.dali as dali\n",
            ["%%writefile run.py", "import nvidia.dali as dali"],
        ),
    ],
)
def test_ipython_lines_are_masked_and_python_is_not(code, masked):
    text = one_cell(code)
    module, layout = notebook_to_module(text)
    ast.parse(module)
    module_lines = module.splitlines()[1:]
    assert [
        line for line, in_module in zip(code.splitlines(), module_lines, strict=True) if "ndd-migrate:mask" in in_module
    ] == masked
    assert module_to_notebook(module, layout) == text
    assert module_to_notebook(module + "x = 1\n", layout) == one_cell(code + "x = 1\n")


def test_notebook_file_round_trip_through_read_and_write(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_bytes(nbformat_dumps(NOTEBOOK).encode())
    source = read_source(path)
    module, layout = notebook_to_module(source.text)
    write_source(path, module_to_notebook(rewrite(module), layout), source)
    assert json.loads(path.read_bytes())["cells"][4]["source"] == ["pipe = decode_pipeline()"]

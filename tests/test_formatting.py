"""How ``migrate`` lays out what it writes: TODO comments wrap at the project's line length
(``line-length`` of ``[tool.ndd-migrate]``, else the formatter's, ruff's or black's, else 88),
so do the statement lines it creates or changes (split inside their brackets), and with ``format``
on (``--format`` or the key) the configured formatter runs on rewritten files."""

from __future__ import annotations

import ast
import json
import sys

import libcst as cst
import pytest

from ndd_migrate.codegen.long_lines import split_long_lines
from ndd_migrate.io.config_sources import formatter_line_length
from ndd_migrate.syntax import cstutil
from tests.conftest import migrate_text
from tests.test_cli_contract import LEFTOVER, err, ndd, write

# Two TODOs of about 120 characters, one at two levels of indentation, one at three.
LOOP = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train(files, epochs):\n"
    "    for epoch in range(epochs):\n"
    "        reader = ndd.readers.File(files=files)\n"
    "        for jpegs, labels in reader.next_epoch(batch_size=8):\n"
    "            if epoch > 3:\n"
    "                break\n"
)


def migrated(tmp_path, config: str | None, *options) -> str:
    if config is not None:
        write(tmp_path / "pyproject.toml", config)
    path = write(tmp_path / "src" / "train.py", LOOP)
    ndd("migrate", *options, path, cwd=tmp_path)
    return path.read_text()


def todo_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith("#")]


def test_todos_wrap_at_ruffs_line_length_and_are_not_repeated(tmp_path):
    text = migrated(tmp_path, "[tool.ruff]\nline-length = 60\n")
    lines = todo_lines(text)
    assert len(lines) > 2 and all(len(line) <= 60 for line in lines), lines
    assert lines[0].strip().startswith("# TODO(ndd-migrate): NDD506") and lines[1].strip().startswith("#   ")
    ndd("migrate", tmp_path / "src" / "train.py", cwd=tmp_path)
    assert (tmp_path / "src" / "train.py").read_text() == text  # a wrapped TODO is recognised


def test_a_todo_in_a_class_indented_deeper_than_the_file_wraps_at_its_own_indentation(tmp_path):
    """A class body indented by 8 in a file indented by 4: the TODO was wrapped as if at 8 columns
    and ran 4 past the line length."""
    source = (
        "import nvidia.dali.ops as ops\nfrom nvidia.dali.pipeline import Pipeline\n\n\n"
        "def helper():\n    return 1\n\n\nclass Custom(Pipeline):\n"
        "        def __init__(self, batch_size, num_threads, device_id):\n"
        "            super().__init__(batch_size, num_threads, device_id)\n"
        "            self.custom = ops.CustomDummyPluginOperatorOfOurs(device='gpu')\n\n"
        "        def define_graph(self):\n            return self.custom()\n"
    )
    out, _ = migrate_text(source, line_length=88)
    todos = [line for line in out.splitlines() if line.lstrip().startswith("#")]
    assert len(todos) > 1 and all(len(line) <= 88 for line in todos), todos


def test_line_length_from_black_from_ours_and_the_default(tmp_path):
    assert max(map(len, todo_lines(migrated(tmp_path / "b", "[tool.black]\nline-length = 70\n")))) <= 70
    ours = "[tool.ruff]\nline-length = 60\n\n[tool.ndd-migrate]\nline-length = 100\n"
    lines = todo_lines(migrated(tmp_path / "o", ours))
    assert max(map(len, lines)) <= 100 and max(map(len, lines)) > 60
    lines = todo_lines(migrated(tmp_path / "d", None))
    assert max(map(len, lines)) <= 88 and len(lines) == 4


def test_ruff_toml_comes_before_pyproject(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path / "ruff.toml", "line-length = 72\n")
    (tmp_path / "sub").mkdir()
    assert formatter_line_length(tmp_path / "sub") == 72
    write(tmp_path / "sub" / "pyproject.toml", "[tool.ruff]\nselect = ['E']\n")  # configured, default length
    assert formatter_line_length(tmp_path / "sub") is None


# A "formatter" that quotes with double quotes, and one that fails.
QUOTES = [sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().replace(\"'\", '\"'))"]
FAILS = [sys.executable, "-c", "import sys; sys.exit('no such style')"]


def formatter_config(command, extra="") -> str:
    return "[tool.ndd-migrate]\nformatter = " + json.dumps(command) + "\n" + extra  # JSON strings are TOML strings


def test_the_formatter_runs_only_when_asked(tmp_path):
    write(tmp_path / "pyproject.toml", formatter_config(QUOTES))
    path = write(tmp_path / "a.py", LEFTOVER)
    ndd("migrate", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()  # off by default
    path.write_text(LEFTOVER)
    ndd("migrate", "--format", path, cwd=tmp_path)
    assert 'device="gpu"' in path.read_text()
    path.write_text(LEFTOVER)
    ndd("check", "--fix", "--format", path, cwd=tmp_path)
    assert 'device="gpu"' in path.read_text()


def test_the_format_key_and_a_failing_formatter(tmp_path):
    write(tmp_path / "pyproject.toml", formatter_config(FAILS, "format = true\n"))
    path = write(tmp_path / "a.py", LEFTOVER)
    done = ndd("migrate", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()  # the migration is written, unformatted
    assert "formatter" in err(done) and "no such style" in err(done) and done.returncode == 0
    path.write_text(LEFTOVER)
    ndd("migrate", "--no-format", path, cwd=tmp_path)
    assert "device='gpu'" in path.read_text()


# A created line of 118 characters (the decoder inlined into the crop) under a comment and with one
# after it, and a long line of the user's that the migration does not touch.
LONG = (
    "from nvidia.dali import pipeline_def, fn, types\n\n"
    'CONFIG = dict(root="/data/images/train", crop=224, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224])\n\n\n'
    "@pipeline_def(batch_size=8, num_threads=2, device_id=0)\n"
    "def train(files, crop):\n"
    '    jpegs, labels = fn.readers.file(files=files, name="Reader")\n'
    "    # decode on the GPU\n"
    '    images = fn.random_resized_crop(fn.decoders.image(jpegs, device="mixed", output_type=types.RGB), size=crop)  # note\n'
    "    return images, labels\n"
)
SPLIT = (
    "            # decode on the GPU\n"
    "            images = ndd.random_resized_crop(\n"
    '                ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB),\n'
    "                size=crop,\n"
    "            )  # note\n"
)


def test_long_lines_the_rewrite_creates_are_split_and_the_users_are_kept(tmp_path):
    path = write(tmp_path / "train.py", LONG)
    diff = ndd("migrate", "--diff", path, cwd=tmp_path).stdout.decode()
    ndd("migrate", path, cwd=tmp_path)
    text = path.read_text()
    assert SPLIT in text and "+" + SPLIT.replace("\n", "\n+")[:-1] in diff  # --diff shows what is written
    assert LONG.splitlines()[2] in text.splitlines()  # the user's long line, as it was
    assert [line for line in text.splitlines() if len(line) > 88] == [LONG.splitlines()[2]]
    compile(text, "train.py", "exec")
    ndd("migrate", path, cwd=tmp_path)
    assert path.read_text() == text  # a split statement stays as it is


def test_check_fix_splits_what_it_writes_as_migrate_does(tmp_path):
    path = write(tmp_path / "train.py", LONG)
    ndd("check", "--fix", "--unsafe-fixes", path, cwd=tmp_path)
    text = path.read_text()
    assert SPLIT in text and [line for line in text.splitlines() if len(line) > 88] == [LONG.splitlines()[2]]


def test_arguments_still_too_long_are_split_one_level_deeper(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ndd-migrate]\nline-length = 60\n")
    path = write(tmp_path / "train.py", LONG)
    ndd("migrate", path, cwd=tmp_path)
    text = path.read_text()
    assert "def train(\n    files,\n    crop,\n    *,\n    batch_size=8,\n" in text  # the created keywords
    assert (
        "            images = ndd.random_resized_crop(\n"
        "                ndd.decoders.image(\n"
        "                    jpegs,\n"
        '                    device="gpu",\n'
        "                    output_type=types.RGB,\n"
        "                ),\n"
        "                size=crop,\n"
        "            )  # note\n"
    ) in text
    ndd("migrate", path, cwd=tmp_path)
    assert path.read_text() == text


def test_a_split_line_keeps_the_files_crlf_breaks(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes(LONG.replace("\n", "\r\n").encode())
    ndd("migrate", path, cwd=tmp_path)
    raw = path.read_bytes()
    assert SPLIT.replace("\n", "\r\n").encode() in raw and raw.count(b"\n") == raw.count(b"\r\n")
    ndd("migrate", path, cwd=tmp_path)
    assert path.read_bytes() == raw


# An unparenthesized tuple (here an outputs tuple) is parenthesized to be split, as black does.
TUPLE = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def step(images, anchors, shapes, labels):\n"
    "    return ndd.slice(images, anchors, shapes, device='gpu', axis_names='WH').evaluate(), labels.evaluate()\n"
)


def test_a_long_tuple_is_parenthesized_and_split():
    assert split_long_lines(cst.parse_module(TUPLE), TUPLE, "", 88) == TUPLE.replace(
        "    return ndd.slice(images, anchors, shapes, device='gpu', axis_names='WH').evaluate(), labels.evaluate()\n",
        "    return (\n"
        "        ndd.slice(images, anchors, shapes, device='gpu', axis_names='WH').evaluate(),\n"
        "        labels.evaluate(),\n"
        "    )\n",
    )
    assert split_long_lines(cst.parse_module(TUPLE), TUPLE, TUPLE, 88) == TUPLE  # the user's: kept


def test_what_cannot_be_split_stays_and_the_library_default_splits_nothing():
    unsplittable = "total = first_long_operand_name + second_long_operand_name + third_long_operand_name\n"
    generator = "total = sum(value * weight for value, weight in zip(the_values_we_have, the_weights_we_have))\n"
    for code in (unsplittable, generator):
        assert split_long_lines(cst.parse_module(code), code, "", 60) == code
    migrated, _ = migrate_text(LONG)
    assert (
        'ndd.random_resized_crop(ndd.decoders.image(jpegs, device="gpu", output_type=types.RGB), size=crop)' in migrated
    )


def test_a_long_def_line_is_split_between_its_parameters():
    code = "class A:\n    async def f(self, a, /, b, *args, c=1, **kwargs) -> int:\n        return a\n"
    split = split_long_lines(cst.parse_module(code), code, "", 40)
    assert split == (
        "class A:\n    async def f(\n        self,\n        a,\n        /,\n        b,\n        *args,\n"
        "        c=1,\n        **kwargs,\n    ) -> int:\n        return a\n"
    )
    compile(split, "a.py", "exec")
    bare = "def a_function_with_a_long_name_and_no_parameters():\n    pass\n"
    assert split_long_lines(cst.parse_module(bare), bare, "", 40) == bare


def test_a_long_list_comprehension_gets_its_element_and_its_for_on_lines_of_their_own():
    """An input set's one call per input (NDD101): laid out as black does, the element split deeper
    when still too long."""
    code = "def f(a, b):\n    out = [ndd.crop_mirror_normalize(x, crop=(224, 224), mean=[0.5]) for x in [a, b]]\n"
    assert split_long_lines(cst.parse_module(code), code, "", 60) == (
        "def f(a, b):\n    out = [\n        ndd.crop_mirror_normalize(\n            x,\n            crop=(224, 224),\n"
        "            mean=[0.5],\n        )\n        for x in [a, b]\n    ]\n"
    )
    assert split_long_lines(cst.parse_module(code), code, "", 80) == (
        "def f(a, b):\n    out = [\n        ndd.crop_mirror_normalize(x, crop=(224, 224), mean=[0.5])\n"
        "        for x in [a, b]\n    ]\n"
    )


@pytest.mark.parametrize(
    "call, expected",
    [
        ("f(a, b)", "f(a, b, n=1)"),
        ("f(\n    a, b\n)", "f(\n    a, b, n=1\n)"),  # the break before `)` stays there
        ("f(\n    a,\n    b,\n)", "f(\n    a,\n    b,\n    n=1,\n)"),
        # one per line, `)` on its own line: the new last argument gets the formatter's trailing comma
        ("f(\n    a,\n    b\n)", "f(\n    a,\n    b,\n    n=1,\n)"),
        ("f()", "f(n=1)"),
        # a call the user spread over lines grows by a line, lined up with the arguments above
        ("f(a,\n  b, c)", "f(a,\n  b, c,\n  n=1)"),
        ("f(a,  # why\n  b)", "f(a,  # why\n  b,\n  n=1)"),
        (
            "f(\n    root=root, name='Reader', shuffle=True, shard_id=shard, num_shards=shards)",
            "f(\n    root=root, name='Reader', shuffle=True, shard_id=shard, num_shards=shards,\n    n=1)",
        ),
    ],
)
def test_an_added_keyword_follows_the_calls_layout(call, expected):
    """Before, `f(\\n    a, b\\n)` became `f(\\n    a, b, \\n    n=1)`: trailing whitespace (W291) and
    a misplaced `)`."""
    added = cstutil.add_kwarg(cst.parse_expression(call), "n", cst.Integer("1"))
    assert cst.Module([]).code_for_node(added) == expected


def test_a_long_conditional_and_an_assert_are_split_as_black_splits_them():
    """A `fn.python_function` with `batch_processing` (NDD422) becomes one conditional over two
    comprehensions, hundreds of columns long, and a sample check an `assert` of a long call: before,
    both stayed on one line."""
    code = (
        "def f(a, b, batched):\n"
        "    x, y = ([g(v) for v in run([s for s in a.tensors], [s for s in b.tensors])] if batched "
        "else [g(v) for v in zip(*[run(s, t) for s, t in zip(a.tensors, b.tensors)])])\n"
        "    assert numpy.allclose(numpy.asarray(x.tensors[0]), numpy.asarray(y.tensors[0]), rtol=1e-5)\n"
    )
    out = split_long_lines(cst.parse_module(code), code, "", 60)
    assert max(len(line) for line in out.splitlines()) <= 60
    assert "    x, y = (\n        [\n" in out and "\n        if batched\n        else [\n" in out
    assert "    assert numpy.allclose(\n        numpy.asarray(x.tensors[0]),\n" in out
    compile(out, "split.py", "exec")


def test_keyword_parameters_added_to_a_def_on_several_lines_start_a_line_of_their_own():
    source = (
        "from nvidia.dali import pipeline_def\nimport nvidia.dali.fn as fn\n\n\n@pipeline_def\n"
        "def audio(root,\n          shard_id=0,\n          device='cpu'):\n"
        "    data, label = fn.readers.file(file_root=root, shard_id=shard_id)\n    return data, label\n"
    )
    out, _ = migrate_text(source)
    assert "          device='cpu',\n          *, batch_size):\n" in out


def test_a_call_on_several_lines_the_rewrite_made_too_long_is_laid_out_anew():
    """The user's visual indentation, nested two levels deeper by the generator's loop and given a
    longer argument: before, its lines stayed, 145 columns long."""
    original = (
        "def f(images, decoder_device):\n"
        "    images = fn.decoders.image(images,\n"
        "                               device=decoder_device, output_type=types.RGB,\n"
        "                               hint=hint)\n"
    )
    code = (
        "def f(images, decoder_device):\n"
        "    while True:\n"
        "        with ctx:\n"
        "            images = ndd.decoders.image(images,\n"
        '                                        device="gpu" if decoder_device == "mixed" else decoder_device, output_type=types.RGB,\n'
        "                                        hint=hint)\n"
    )
    out = split_long_lines(cst.parse_module(code), code, original, 88)
    assert max(len(line) for line in out.splitlines()) <= 88
    assert '            images = ndd.decoders.image(\n                images,\n                device="gpu" if' in out
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(code))


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param(
            "    images = ndd.decoders.image(images,  # the user's note stays where it is\n"
            '                                device="gpu" if decoder_device == "mixed" else decoder_device, output_type=types.RGB)\n',
            id="a-comment",
        ),
        pytest.param(
            "    images = ndd.decoders.image(images, text='''a\n"
            'b\'\'\', device="gpu" if decoder_device == "mixed" else decoder_device, output_type=types.RGB, hint=1)\n',
            id="a-string-over-lines",
        ),
    ],
)
def test_a_statement_on_several_lines_that_cannot_be_joined_safely_stays(statement):
    code = "def f(images, decoder_device):\n" + statement
    assert split_long_lines(cst.parse_module(code), code, "", 88) == code


def test_the_users_own_long_statement_on_several_lines_stays_byte_for_byte():
    code = (
        "def f(images):\n"
        "    images = fn.decoders.image(images, device='mixed', output_type=types.RGB, hint=a_long_name_here_too,\n"
        "                               other=1)\n"
        "    return ndd.flip(images)\n"
    )
    assert split_long_lines(cst.parse_module(code), code, code, 88) == code


def test_a_dict_argument_is_split_one_item_per_line():
    code = (
        "def f():\n    reader = ndd.readers.TFRecord(path=p, index_path=i, features={'image/encoded': "
        "tfrec.FixedLenFeature((), tfrec.string, ''), 'image/class/label': tfrec.FixedLenFeature([1], tfrec.int64, -1)})\n"
    )
    out = split_long_lines(cst.parse_module(code), code, "", 88)
    assert "        features={\n            'image/encoded': tfrec.FixedLenFeature((), tfrec.string, ''),\n" in out
    assert max(len(line) for line in out.splitlines()) <= 88
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(code))


def test_a_layout_anew_that_would_be_longer_than_the_users_is_not_taken():
    """A sum nothing here splits, which the user indented less than a split would."""
    code = "def f():\n    while True:\n        out = g(a,\n          b + " + " + ".join(["name"] * 16) + ")\n"
    assert split_long_lines(cst.parse_module(code), code, "", 88) == code


def test_the_users_code_is_held_to_the_files_own_longest_line():
    """A file of 111-column lines: its dict, nested one level deeper by the generator's loop, now 94
    columns, was laid out anew (each entry split over four lines), and a line of its own moved deeper
    was wrapped in brackets."""
    wide = "x = '" + "w" * 104 + "'"  # 111 columns
    entry = "        'image/encoded': dali.tfrecord.FixedLenFeature((), dali.tfrecord.string, ''),"
    original = f"{wide}\ndef f():\n    reader = make(features={{\n{entry}\n    }})\n    pad = 211025920 if device == 'mixed' else 0\n"
    code = (
        f"{wide}\ndef f():\n    while True:\n        reader = make(features={{\n    {entry}\n        }})\n"
        "        pad = 211025920 if device == 'mixed' else 0\n"
    )
    assert max(len(line) for line in code.splitlines()[2:]) > 88
    assert split_long_lines(cst.parse_module(code), code, original, 88) == code


def test_keyword_only_settings_after_parameters_on_a_line_of_their_own():
    """`def p(\n    a, b\n):`: the settings go on a line of their own under the parameters, and `)`
    keeps its line (it was `b, ` with trailing whitespace, then `*, ...):` at column 0)."""
    text = (
        "from nvidia.dali import fn, pipeline_def\n\n\n@pipeline_def(seed=3)\ndef create(\n"
        "    data_dir, crop, dali_cpu=False, is_training=True\n):\n"
        "    images, labels = fn.readers.file(file_root=data_dir, name='Reader')\n    return images, labels\n\n\n"
        "pipe = create('/d', 1, batch_size=2, num_threads=1, device_id=0)\npipe.build()\nprint(pipe.run())\n"
    )
    out, _ = migrate_text(text)
    assert (
        "def create(\n    data_dir, crop, dali_cpu=False, is_training=True,\n"
        "    *, batch_size, num_threads, device_id=None, seed=3\n):\n"
    ) in out, out


def test_the_support_import_wraps_at_the_line_length_as_black_writes_it():
    """`from ndd_support import ...` naming more than fits: one name per line in parentheses (was
    one line of 113 columns in a corpus file: an iterator class `as` DALI's name, and more)."""
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=7)\n"
        "def train(root):\n"
        "    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)\n"
        "    return jpegs, labels\n\n\n"
        "pipe = train('/data')\npipe.build()\nprint(pipe.run())\n"
    )
    short, _ = migrate_text(source, line_length=100)
    assert "from ndd_support import dali_op_seed, prefetching\n" in short, short
    wrapped, _ = migrate_text(source, line_length=40)
    assert "from ndd_support import (\n    dali_op_seed,\n    prefetching,\n)\n" in wrapped, wrapped
    ast.parse(wrapped)

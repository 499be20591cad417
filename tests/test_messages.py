"""Messages say what is true of the user's code, in correct English: singular and plural, the user's
own expression, the option the command line really has, and advice that applies to the file."""

from __future__ import annotations

import io
import types

import libcst as cst
import pytest

from ndd_migrate.engine.context import Policy
from ndd_migrate.engine.transform import transform
from ndd_migrate.io import files
from ndd_migrate.model.types import Kind
from ndd_migrate.verify import loading
from ndd_migrate.verify.compare import Failure, OutputComparison
from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.report import PairReport, VerifyReport
from tests.conftest import SMALL_PIPELINE, migrate_text

LEN = SMALL_PIPELINE + (
    "\n\npipe = p('x', num_threads=1, device_id=0)\npipe.build()\n(images,) = pipe.run()\nn = len(images)\n"
)


def test_ndd203_names_the_users_expression():
    result = transform(LEN, "l.py", Policy.check())
    (found,) = [d for d in result.diagnostics if d.code == "NDD203"]
    assert found.message == "`len(images)` → `images.batch_size`"
    assert "images.batch_size" in found.hint and "out" not in found.message


def _render(report: VerifyReport) -> str:
    from ndd_migrate.verify.command import output_console

    console = output_console()
    console.file = buf = io.StringIO()
    report.render(console)
    return buf.getvalue()


def _pair(**kwargs) -> PairReport:
    pair = PairReport("train_pipeline", "o.py:train_pipeline", "m.py:train_pipeline", verdict="different", **kwargs)
    failing = OutputComparison(0, dtype=("FLOAT", "FLOAT"), samples_compared=4, samples_equal=3)
    failing.first_failure = Failure(0, 1, "values", "max |a-b| = 1")
    pair.outputs = [failing]
    return pair


def test_verify_report_grammar():
    text = _render(VerifyReport([_pair(batch_size=4, iterations=3, epochs=3, iterations_per_epoch=1)]))
    assert "values differ" in text and "values differs" not in text
    assert "1 step/epoch" in text and "1 steps/epoch" not in text
    assert "3 steps/epoch" in _render(VerifyReport([_pair(iterations=9, epochs=3, iterations_per_epoch=3)]))


def test_verify_output_does_not_wrap_when_piped():
    long = "/a/rather/long/checkout/path/of/a/ci/runner/" * 3 + "train.py:train_pipeline"
    pair = _pair(batch_size=4, iterations=3, epochs=3, iterations_per_epoch=1)
    pair.original = long
    pair.notes = ["a note that is long enough to be wrapped at eighty columns by rich when it is not told otherwise"]
    text = _render(VerifyReport([pair]))
    assert any(long in line for line in text.splitlines())
    assert any(pair.notes[0] in line for line in text.splitlines())


@pytest.mark.parametrize(
    "lines, words", [([28], "statement at line 28 was"), ([3, 28], "statements at lines 3, 28 were")]
)
def test_skipped_lines_and_the_real_option(lines, words):
    loaded = loading.LoadedModule(types.ModuleType("m"), "train.py", lines)
    with pytest.raises(SetupError) as raised:
        loading.find_function(loaded, "missing", kind="original")
    message = str(raised.value)
    assert words in message and "--exec-module" in message


def test_undecodable_file_that_declares_utf8_is_not_told_to_declare_an_encoding():
    with pytest.raises(files.SourceError) as raised:
        files.decode_source(b"# -*- coding: utf-8 -*-\nx = '\xff'\n", "a.py")
    assert "declare the file's encoding" not in raised.value.message
    assert "line 1 declares utf-8" in raised.value.message
    with pytest.raises(files.SourceError) as bom:
        files.decode_source(b"\xef\xbb\xbfx = '\xff'\n", "b.py")
    assert "declare the file's encoding" not in bom.value.message and "byte-order mark" in bom.value.message
    with pytest.raises(files.SourceError) as plain:
        files.decode_source(b"x = '\xff'\n", "c.py")
    assert "declare the file's encoding" in plain.value.message


def test_verify_report_text_with_markup_is_shown_as_it_is():
    pair = _pair(batch_size=4, iterations=1)
    pair.outputs[0].first_failure.excerpt = [{"index": [0], "original": "[/]", "migrated": "[red]"}]
    pair.timing = {
        "original": {"samples_per_s": 10.0, "run_samples_per_s": [10.0], "iterations_per_run": 1, "note": "[/]"},
        "ratio": None,
    }
    text = _render(VerifyReport([pair]))
    assert "original '[/]', migrated '[red]'" in text
    assert "original ([/])" in text and "× 1 step" in text and "1 steps" not in text


def test_ndd008_names_the_first_blocking_use_of_its_line():
    """Uses on one line came in no fixed order (sets of references): the message changed from run
    to run. It names the leftmost one."""
    source = SMALL_PIPELINE + (
        "\n\npipe = p('/data')\npipe.build()\n"
        "for method in [pipe.schedule_run, pipe.share_outputs, pipe.release_outputs, pipe.outputs]:\n"
        "    method()\n"
    )
    found = transform(source, "m.py", Policy.check())
    (message,) = [d.message for d in found.diagnostics if d.code == "NDD008"]
    assert "`.schedule_run` of `pipe`" in message, message


def test_a_blocking_problem_that_says_what_to_do_by_hand_says_it_once():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def fed():\n"
        "    data = fn.external_source(source=[[1]], cycle=True, batch=False)\n"
        "    return data\n"
    )
    result = transform(source, "example.py", Policy.migrate())
    hints = [d.hint for d in result.diagnostics if d.needs_human]
    assert len(hints) == 1 and "write the loop by hand" in hints[0], hints
    assert hints[0].count("by hand") == 1, hints[0]


def test_a_blocking_problem_without_advice_gets_the_generic_one():
    source = (
        "from nvidia.dali import fn, pipeline_def\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def two(a, b):\n"
        "    x = fn.readers.file(file_root=a)\n"
        "    y = fn.readers.file(file_root=b)\n"
        "    return x, y\n"
    )
    result = transform(source, "example.py", Policy.migrate())
    hints = [d.hint for d in result.diagnostics if d.needs_human]
    assert any(h.endswith("rewrite `two` by hand (see docs/target-shape.md)") for h in hints), hints


def test_ndd008_names_the_syntax_in_words_not_by_its_class():
    """A use in a construct the plan has no name for read "used in a `Return`" / "a `Element`"."""
    from ndd_migrate.model.types import ImportedPipeline
    from ndd_migrate.plan import uses
    from ndd_migrate.rules.ndd008_unfollowed_use import describe

    pipeline = ImportedPipeline("pkg.train.p", True)
    what, _ = describe(uses.Use(Kind.PIPELINE, pipeline, cst.Name("pipe"), uses.OTHER, "Return"))
    assert what == "`pipe` (a `p` pipeline) is used in a `return`"
    what, _ = describe(uses.Use(Kind.PIPELINE, pipeline, cst.Name("pipe"), uses.OTHER, "Element"))
    assert what.endswith("is used in a list, tuple or set display")


def test_ndd008_does_not_ask_to_change_dalis_own_iterator():
    """ "Make `DALIClassificationIterator()` take what the migrated pipeline gives" cannot be done:
    the hint says how to let the migration follow the iterator instead."""
    text = (
        "from nvidia.dali import fn, pipeline_def\n"
        "from nvidia.dali.plugin.pytorch import DALIClassificationIterator\n\n\n"
        "@pipeline_def(batch_size=2)\n"
        "def p():\n"
        "    jpegs, labels = fn.readers.file(file_root='/d', name='Reader')\n"
        "    return jpegs, labels\n\n\n"
        "def make():\n"
        "    it = DALIClassificationIterator(p(), reader_name='Reader')\n"
        "    return it.checkpoints()\n"  # what neither the epochs nor the support module's iterator has
    )
    _, result = migrate_text(text)
    (found,) = [d for d in result.diagnostics if d.needs_human]
    assert "make `DALIClassificationIterator()` take" not in found.hint
    assert "`DALIClassificationIterator` is DALI's and runs a pipeline: bind the pipeline to a name" in found.hint

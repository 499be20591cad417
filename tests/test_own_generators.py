"""`check` knows what `migrate` wrote: a module's own generator functions in the migrated shape
(migrated before, or written by hand) are followed like imported ones, so pipeline-mode API on
what their calls give is a finding (engine/transform.py, ``_with_own_generators``)."""

from __future__ import annotations

from ndd_migrate.engine.transform import transform
from ndd_migrate.io.policy import Policy
from tests.conftest import migrate_text

GENERATOR = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n\n"
    "def train_pipe(*, batch_size=2):\n"
    '    reader = ndd.readers.File(file_root="/data", name="Reader")\n'
    "    while True:\n"
    "        for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
    "            yield labels.evaluate(),\n\n\n"
)


def _codes(text: str) -> list[str]:
    return [d.code for d in transform(text, "m.py", Policy.check()).diagnostics]


def test_build_and_run_on_a_generator_of_the_module_are_found_and_fixed():
    use = "def main():\n    pipe = train_pipe()\n    pipe.build()\n    (labels,) = pipe.run()\n    print(labels)\n"
    assert _codes(GENERATOR + use) == ["NDD002", "NDD003"]
    out, result = migrate_text(GENERATOR + use)
    assert out == GENERATOR + "def main():\n    pipe = train_pipe()\n    (labels,) = next(pipe)\n    print(labels)\n"
    assert [d for d in result.diagnostics if d.needs_human] == []


def test_metadata_of_a_generator_of_the_module_is_reported_as_such():
    use = 'def main():\n    pipe = train_pipe()\n    return pipe.epoch_size("Reader")\n'
    (found,) = [d for d in transform(GENERATOR + use, "m.py", Policy.check()).diagnostics]
    assert found.code == "NDD008" and "a generator function of this module" in found.message


def test_using_the_generator_as_one_is_clean():
    use = "def main():\n    pipe = train_pipe()\n    for _ in range(2):\n        (labels,) = next(pipe)\n    return pipe\n"
    assert _codes(GENERATOR + use) == []


def test_migrated_fixtures_are_clean():
    """What `migrate` wrote passes `check`, factories of the migrated generators included."""
    from tests.conftest import FIXTURES

    for path in sorted(FIXTURES.glob("*/migrated.py")):
        assert _codes(path.read_text(encoding="utf-8")) == [], path


def test_a_generator_outside_the_migrated_shape_is_not_taken_for_one():
    counter = "def train_pipe():\n    while True:\n        yield 1\n\n\n"
    use = "def main():\n    pipe = train_pipe()\n    pipe.build()\n"
    assert _codes("import nvidia.dali.experimental.dynamic as ndd\n\n\n" + counter + use) == []

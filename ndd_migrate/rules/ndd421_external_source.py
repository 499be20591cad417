"""NDD421 external-source: ``fn.external_source(source=...)`` becomes the loop that draws from the source.

The external source plays the reader's role in the generator of docs/target-shape.md: the loop
draws from ``source`` exactly as DALI did (``nvidia/dali/external_source.py``, ``get_batch``) and
wraps what it gets with ``ndd.as_batch`` (``ndd.ExternalSource`` would take a returned list as ONE
tensor). ``NDD001`` writes the loop (:mod:`ndd_migrate.codegen.external_source_loop`); this module
reports and documents it.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate import support
from ndd_migrate.codegen import iter_setup
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.sources import legacy
from ndd_migrate.syntax import names

RULE = Rule(
    code="NDD421",
    name="external-source",
    summary="`fn.external_source(source=...)` becomes a loop that draws from the source",
    what=(
        "In a pipeline function without a reader, the statement `outputs = fn.external_source(source=S, ...)` "
        "becomes the loop of the generator: an iterable is iterated (`for outputs in S:`), a generator function "
        "is called once and iterated, a callable is called once per batch (`batch=True`, with the iteration "
        "number or `BatchInfo` when it takes an argument and `batch_info=True`) or once per sample "
        "(`batch=False`, with `SampleInfo(idx_in_epoch, idx_in_batch, iteration, epoch_idx)`); each output is "
        'wrapped with `ndd.as_batch(..., layout=, dtype=, device=)`. `cycle=True`/`"quiet"` restarts the '
        "iterable forever; otherwise the generator stops where the pipeline raised `StopIteration`. "
        "A `batch=` that is not a literal (`batch=self.batch`) is read once when the generator starts "
        "(`batched = ...`; `None`, as in DALI, means per batch) and each batch is drawn "
        "`if batched:` per batch, `else:` per sample; a name the pipeline function binds once to a literal "
        "before the call is that literal. `parallel=` is dropped with a note (the loop calls the source in "
        "its own thread; `fn.external_source` stays per batch without `batch=`, `parallel=True` or not). "
        "A `num_outputs=` that is not a literal (`num_outputs=len(names)`), the outputs bound to one name, "
        "gives a list, as in pipeline mode: `data = [ndd.as_batch(output, ...) for output in data]` (per sample, "
        "the samples split by output first; one `layout=`/`dtype=`/`device=` for all). "
        'Beside a reader, which drives the epochs, a source that never ends (`cycle=True`/`"quiet"`) is drawn '
        "once per batch where its statement is: `feed = iter(gen())` made after the reader (`iter(source)` for an "
        "iterable), then `try: a, b = next(feed)`; at its end the generator function is called again (the iterable "
        "iterated again), as DALI did, and the generator returns only when that gives nothing either. The statement "
        "may be in an `if` whose condition is made of the pipeline function's parameters alone (names it never "
        "assigns, literals, `and`/`or`/`not`, comparisons), decided once when the pipeline was built: then "
        "`feed = None` before the loop and the iterator is made at the first draw, under the condition. A "
        "`source=` that is a parameter is a generator function when every call of the pipeline function in the "
        "module (its name used by nothing else, not in `__all__`) passes a name bound once to a `def` with a "
        "`yield`, or to None (DALI refuses None with `cycle=`), or `a if c else b` of those. "
        "A source the code does not show to be iterable or callable (an imported object, a parameter given "
        "different kinds, an instance of a class with bases) is drawn through the support module's "
        "`dali_external_source(S, batch=, cycle=, batch_info=, num_outputs=, batch_size=)`: made where the loop "
        "starts, it makes DALI's choice then (a generator function called once, `iter()` tried, else the "
        "source called with nothing, the iteration number, `BatchInfo` or `SampleInfo`), raises DALI's error for a "
        "source DALI refuses, and each `next(feed)` gives a batch (per sample, one list per output) until "
        "`StopIteration`; a pipeline with one generator per epoch goes on from the same object, a callable from "
        "iteration 0 with the epoch's index one more, as after `pipe.reset()`. "
        'Reported for a human: `cycle="raise"`, `cycle=` or `batch_info=True` with a `batch=` decided at run time, no `source` (`feed_input`), a reader '
        "and an external source that ends (no `cycle=`), an external source in an `if` on anything else than the "
        "parameters or in any other block, in an `if` without a reader (the reason names a reader in another "
        "branch of the `if`: one pipeline function per branch), `cycle=` over a generator object (DALI refuses "
        "it), several external sources. "
        "In a legacy `Pipeline` subclass (NDD401), `ops.ExternalSource` objects fed by `self.feed_input(self.x, "
        "data, layout=...)` in `iter_setup` (`self.x = self.source()` a statement of `define_graph`): `iter_setup` "
        "becomes a function nested in the generator (its locals stay its own; values of `__init__` it assigns are "
        "`nonlocal`, `self.batch_size` is the generator's `batch_size`), each `feed_input` binds `fed_x = ndd.batch(data, layout=, dtype=, device=)` (a copy, as "
        "`feed_input` copied) and it returns them; each batch starts with `x, ... = iter_setup()`, and a "
        "`StopIteration` it raises ends the generator (`return`: PEP 479 would turn it into a `RuntimeError`), "
        "where `pipe.run()` raised `StopIteration`. A reader may be in the same graph. Reported: `feed_input` in a "
        "loop, `with`, `try` or an expression, an output fed twice or never, `feed_input` of anything else than "
        "such an output, `return`/`yield` or other methods of `self` in `iter_setup`, a value it assigns that "
        "`__init__` does not set, a value it changes that `define_graph` reads (read once, at build time), `ops.ExternalSource(source=...)` and an external source without `iter_setup` "
        "(fed from outside the class)."
    ),
    why=(
        "Dynamic mode has no graph to feed: data from Python enters as `ndd.as_batch(list_of_arrays)`. "
        "`ndd.ExternalSource` treats a returned list as one tensor, not as a batch."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The source is resolved from the code where the code shows its kind, else by `dali_external_source` "
        "when the generator starts, as DALI decided when the pipeline was built. The source is first drawn from "
        "when the generator starts, not when the pipeline is defined, and nothing is prefetched: a source "
        "with side effects sees them later. With `cycle`, an iterator whose `__iter__` cannot restart makes "
        "the migrated loop spin where DALI raised `StopIteration`. `pipe.reset()` after the end has no "
        "counterpart (NDD005): create a new generator. `iter_setup` is called when its batch is asked for; "
        "pipeline mode called it `prefetch_queue_depth` batches ahead (twice at the first `run()`): an iterator "
        "that other code also draws from sees its draws in another order. Beside a reader, the source's iterator "
        "is made at the first batch that draws from it (DALI made it when it built the graph). "
        "Verify with `ndd-migrate verify`."
    ),
    examples=(
        Example(
            title="an iterable that yields batches",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "class Batches:\n"
                "    def __iter__(self):\n"
                "        return iter(load_batches())\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe():\n"
                "    images, labels = fn.external_source(source=Batches(), num_outputs=2, layout=['HWC', ''])\n"
                "    return images / 255, labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "class Batches:\n"
                "    def __iter__(self):\n"
                "        return iter(load_batches())\n\n\n"
                "@prefetching\n"
                "def pipe(*, batch_size=4):\n"
                "    feed = Batches()\n"
                "    for images, labels in feed:\n"
                "        images = ndd.as_batch(images, layout='HWC')\n"
                "        labels = ndd.as_batch(labels)\n"
                "        yield (images / 255).evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="a source whose kind only the run tells: drawn as DALI decides",
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "from loaders import samples\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe():\n"
                "    images, labels = fn.external_source(source=samples, num_outputs=2, batch=False)\n"
                "    return images, labels\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from loaders import samples\n\n"
                "from ndd_support import dali_external_source, prefetching\n\n\n"
                "@prefetching\n"
                "def pipe(*, batch_size=4):\n"
                "    feed = dali_external_source(samples, batch=False, num_outputs=2, batch_size=batch_size)\n"
                "    while True:\n"
                "        try:\n"
                "            images, labels = next(feed)\n"
                "        except StopIteration:\n"
                "            return\n"
                "        images = ndd.as_batch(images)\n"
                "        labels = ndd.as_batch(labels)\n"
                "        yield images.evaluate(), labels.evaluate()\n"
            ),
        ),
        Example(
            title="as many outputs as names, kept as a list",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def fields():\n"
                "    yield from load_fields()\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe(names):\n"
                "    data = fn.external_source(fields, num_outputs=len(names))\n"
                "    data = [d.gpu() for d in data]\n"
                "    return tuple(data)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def fields():\n"
                "    yield from load_fields()\n\n\n"
                "@prefetching\n"
                "def pipe(names, *, batch_size=4):\n"
                "    for data in fields():\n"
                "        data = [ndd.as_batch(output) for output in data]\n"
                "        data = [d.gpu() for d in data]\n"
                "        yield tuple(batch.evaluate() for batch in data)\n"
            ),
        ),
        Example(
            title="a per-sample callable with SampleInfo",
            before=(
                "import numpy as np\n"
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def sample(info):\n"
                "    if info.iteration >= 10:\n"
                "        raise StopIteration\n"
                "    return np.full((2,), info.idx_in_epoch, dtype=np.int32)\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe():\n"
                "    data = fn.external_source(source=sample, batch=False)\n"
                "    return data + 1\n"
            ),
            after=(
                "import numpy as np\n"
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def sample(info):\n"
                "    if info.iteration >= 10:\n"
                "        raise StopIteration\n"
                "    return np.full((2,), info.idx_in_epoch, dtype=np.int32)\n\n\n"
                "@prefetching\n"
                "def pipe(*, batch_size=4):\n"
                "    iteration = 0\n"
                "    while True:\n"
                "        try:\n"
                "            data = [sample(types.SampleInfo(iteration * batch_size + i, i, iteration, 0)) for i in range(batch_size)]\n"
                "        except StopIteration:\n"
                "            return\n"
                "        iteration += 1\n"
                "        data = ndd.as_batch(data)\n"
                "        yield (data + 1).evaluate(),\n"
            ),
        ),
        Example(
            title="`ops.ExternalSource` fed in `iter_setup` of a legacy class",
            before=(
                "import nvidia.dali.ops as ops\n"
                "from nvidia.dali.pipeline import Pipeline\n\n\n"
                "class Fed(Pipeline):\n"
                "    def __init__(self, batch_size, num_threads, device_id, batches):\n"
                "        super().__init__(batch_size, num_threads, device_id)\n"
                '        self.source = ops.ExternalSource(layout="HWC")\n'
                "        self.flip = ops.Flip(horizontal=1)\n"
                "        self.batches = batches\n\n"
                "    def define_graph(self):\n"
                "        self.images = self.source()\n"
                "        return self.flip(self.images)\n\n"
                "    def iter_setup(self):\n"
                "        images = next(self.batches)\n"
                "        self.feed_input(self.images, images)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def Fed(batch_size, num_threads, device_id, batches):\n"
                "    ndd.set_num_threads(num_threads)\n"
                "    ctx = ndd.EvalContext(device_id=device_id)\n\n"
                "    def iter_setup():\n"
                "        images = next(batches)\n"
                '        fed_images = ndd.batch(images, layout="HWC")\n'
                "        return fed_images\n\n"
                "    while True:\n"
                "        with ctx:\n"
                "            try:\n"
                "                images = iter_setup()\n"
                "            except StopIteration:\n"
                "                return\n"
                "            outputs = ndd.flip(images, horizontal=1).evaluate(),\n"
                "        yield outputs\n"
            ),
        ),
        Example(
            title="`feed_input` in a loop of `iter_setup`: left for a human",
            before=(
                "import nvidia.dali.ops as ops\n"
                "from nvidia.dali.pipeline import Pipeline\n\n\n"
                "class Fed(Pipeline):\n"
                "    def __init__(self, batch_size, num_threads, device_id, chunks):\n"
                "        super().__init__(batch_size, num_threads, device_id)\n"
                "        self.source = ops.ExternalSource()\n"
                "        self.chunks = chunks\n\n"
                "    def define_graph(self):\n"
                "        self.data = self.source()\n"
                "        return self.data\n\n"
                "    def iter_setup(self):\n"
                "        for chunk in self.chunks:\n"
                "            self.feed_input(self.data, chunk)\n"
            ),
            after=(
                "import nvidia.dali.ops as ops\n"
                "from nvidia.dali.pipeline import Pipeline\n\n\n"
                "class Fed(Pipeline):\n"
                "    def __init__(self, batch_size, num_threads, device_id, chunks):\n"
                "        super().__init__(batch_size, num_threads, device_id)\n"
                "        self.source = ops.ExternalSource()\n"
                "        self.chunks = chunks\n\n"
                "    def define_graph(self):\n"
                "        self.data = self.source()\n"
                "        return self.data\n\n"
                "    def iter_setup(self):\n"
                "        for chunk in self.chunks:\n"
                "            # TODO(ndd-migrate): NDD421 not migrated: `feed_input` in a loop, `with`, `try` or an "
                "expression: only a statement of `iter_setup` (or of an `if` in it) is rewritten, one batch per "
                "output; rewrite `Fed` by hand (see docs/target-shape.md)\n"
                "            self.feed_input(self.data, chunk)\n"
            ),
        ),
        Example(
            title="a parallel source whose `batch=` is known when the program runs",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "def read(info):\n"
                "    return load(info)\n\n\n"
                "@pipeline_def(batch_size=4)\n"
                "def pipe(per_batch):\n"
                "    data = fn.external_source(source=read, parallel=True, batch=per_batch)\n"
                "    return data\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n"
                "from ndd_support import prefetching\n\n\n"
                "def read(info):\n"
                "    return load(info)\n\n\n"
                "@prefetching\n"
                "def pipe(per_batch, *, batch_size=4):\n"
                "    batched = per_batch\n"
                "    if batched is None:\n"
                "        batched = True\n"
                "    iteration = 0\n"
                "    while True:\n"
                "        try:\n"
                "            if batched:\n"
                "                data = read(iteration)\n"
                "            else:\n"
                "                data = [read(types.SampleInfo(iteration * batch_size + i, i, iteration, 0)) for i in range(batch_size)]\n"
                "        except StopIteration:\n"
                "            return\n"
                "        iteration += 1\n"
                "        data = ndd.as_batch(data)\n"
                "        yield data.evaluate(),\n"
            ),
        ),
        Example(
            title="beside a reader, in an `if` on the parameters: a source that never ends, drawn once per batch",
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "\n"
                "\n"
                "@pipeline_def(batch_size=4)\n"
                "def speech(root, train, masks=None):\n"
                "    encoded, label = fn.readers.file(file_root=root)\n"
                "    audio, _ = fn.decoders.audio(encoded)\n"
                "    features = fn.spectrogram(audio)\n"
                "    if train:\n"
                "        starts, sizes = fn.external_source(source=masks, num_outputs=2, cycle=True)\n"
                "        features = fn.erase(features, anchor=starts, shape=sizes, axes=[0, 1], "
                "normalized_anchor=True)\n"
                "    return features, label\n"
                "\n"
                "\n"
                "def loader(root, train):\n"
                "    def regions():\n"
                "        yield load_regions()\n"
                "\n"
                "    return speech(root, train, masks=regions if train else None)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import prefetching\n\n\n"
                "@prefetching\n"
                "def speech(root, train, masks=None, *, batch_size=4):\n"
                "    reader = ndd.readers.File(file_root=root)\n"
                "    feed = None\n"
                "    while True:\n"
                "        for encoded, label in reader.next_epoch(batch_size=batch_size):\n"
                "            audio, _ = ndd.decoders.audio(encoded)\n"
                "            features = ndd.spectrogram(audio)\n"
                "            if train:\n"
                "                if feed is None:\n"
                "                    feed = iter(masks())\n"
                "                try:\n"
                "                    starts, sizes = next(feed)\n"
                "                except StopIteration:  # `cycle=`: the source starts again\n"
                "                    feed = iter(masks())\n"
                "                    try:\n"
                "                        starts, sizes = next(feed)\n"
                "                    except StopIteration:  # `pipe.run()` raised it\n"
                "                        return\n"
                "                starts = ndd.as_batch(starts)\n"
                "                sizes = ndd.as_batch(sizes)\n"
                "                features = ndd.erase(features, anchor=starts, shape=sizes, axes=[0, 1], normalized_anchor=True)\n"
                "            yield features.evaluate(), label.evaluate()\n\n\n"
                "def loader(root, train):\n"
                "    def regions():\n"
                "        yield load_regions()\n\n"
                "    return speech(root, train, masks=regions if train else None)\n"
            ),
        ),
        Example(
            title="beside a reader, a source that ends: left for a human",
            before=(
                "from nvidia.dali import fn, pipeline_def\n"
                "\n"
                "\n"
                "def noise():\n"
                "    yield from load_noise()\n"
                "\n"
                "\n"
                "@pipeline_def(batch_size=4)\n"
                "def speech(root):\n"
                "    encoded, label = fn.readers.file(file_root=root)\n"
                "    audio, _ = fn.decoders.audio(encoded)\n"
                "    extra = fn.external_source(source=noise)\n"
                "    return audio + extra, label\n"
            ),
            after=(
                "from nvidia.dali import fn, pipeline_def\n"
                "\n"
                "\n"
                "def noise():\n"
                "    yield from load_noise()\n"
                "\n"
                "\n"
                "@pipeline_def(batch_size=4)\n"
                "def speech(root):\n"
                "    encoded, label = fn.readers.file(file_root=root)\n"
                "    audio, _ = fn.decoders.audio(encoded)\n"
                "    # TODO(ndd-migrate): NDD421 not migrated: a reader and an external source that ends in one pipeline: "
                "the reader's epochs wrap while the source ends with `StopIteration`; only a source that never ends "
                '(`cycle=True` or `"quiet"`) is drawn beside a reader, once per batch; decide how they line up; '
                "rewrite `speech` by hand (see docs/target-shape.md)\n"
                "    extra = fn.external_source(source=noise)\n"
                "    return audio + extra, label\n"
            ),
        ),
    ),
    valid=(
        "import nvidia.dali.experimental.dynamic as ndd\n\n\ndef batches(source):\n"
        "    for data in source:\n        yield ndd.as_batch(data, layout='HWC')\n",
    ),
)


class Impl(RuleImpl):
    """Adds ``from nvidia.dali import types`` when the loop needs ``SampleInfo``/``BatchInfo`` and
    the module has no name for ``nvidia.dali.types`` (NDD301 keeps imports of ``types``)."""

    rule = RULE
    reports = (constructs.EXTERNAL_SOURCE,)

    def blockers(self, pipeline):
        """A legacy class with ``iter_setup`` in the epoch-aware shape (framework iterator,
        ``epoch_size``): its epochs are cut by the reader's size, while a ``StopIteration`` of
        ``iter_setup`` would end the batches at any point (and, inside the helper, be a
        ``RuntimeError``)."""
        if isinstance(pipeline, legacy.LegacyPipeline) and pipeline.setup is not None and pipeline.epochs:
            return [
                (
                    pipeline.setup,
                    "`iter_setup` (which may end the pipeline with `StopIteration`) in a pipeline "
                    "given to a framework iterator or asked for its epoch size: the epochs would be cut by the "
                    "reader's size only",
                    "write the epoch loop by hand",
                )
            ]
        return []

    def visit_Module(self, node: cst.Module) -> None:
        self.ctx.imports.types_alias = _types_alias(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        pipeline = self.ctx.model.by_node.get(node)
        if pipeline is not None and pipeline.convert and pipeline.node is node and pipeline.source is not None:
            note = ""
            if pipeline.source.parallel:
                note = (
                    "; `parallel=` dropped: the loop calls the source in its own thread, one batch after the "
                    "other (no worker processes, nothing prefetched)"
                )
            where = "the generator's loop"
            if pipeline.source.beside_reader:
                where = "drawn once per batch beside the reader" + (
                    " (its iterator made at the first draw, under the `if`)" if pipeline.source.nested else ""
                )
            self.ctx.report(
                self.code, pipeline.source.call, f"external source ({pipeline.source.kind}) → {where}{note}", fixed=True
            )

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        """``self.feed_input(self.x, data)`` in the ``iter_setup`` of a converted legacy class."""
        pipeline = legacy.owner(self.ctx.model, self.ctx.walk.functions)
        if pipeline is None or not pipeline.convert or original not in pipeline.feeding.feeds:
            return updated
        feed = pipeline.feeding.feeds[original]
        self.ctx.report(
            self.code,
            original,
            f"`feed_input` of `self.{feed.attr}` → `{feed.batch_name} = ndd.batch(...)`",
            fixed=True,
        )
        carried = {key: legacy.localize(value, pipeline) for key, value in feed.carried.items()}
        return iter_setup.feed(self.ctx.ndd, feed, updated, carried)

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self.ctx.imports.types:
            return updated
        body = list(updated.body)
        # after the third-party imports: before the project's support module, in its own section
        at = max((i + 1 for i, s in enumerate(body) if _is_import(s) and not _imports_support(s)), default=0)
        stmt = cst.parse_statement(f"from nvidia.dali import types{_as(self.ctx.types_name())}\n")
        return updated.with_changes(body=[*body[:at], stmt, *body[at:]])


def _types_alias(module: cst.Module) -> str | None:
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and small.module and not isinstance(small.names, cst.ImportStar):
                if names.dotted(small.module) == names.DALI:
                    for alias in small.names:
                        if alias.name.value == "types":
                            return alias.asname.name.value if alias.asname else "types"
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if names.dotted(alias.name) == names.TYPES and alias.asname:
                        return alias.asname.name.value
    return None


def _as(name: str) -> str:
    return "" if name == "types" else f" as {name}"


def _imports_support(stmt: cst.SimpleStatementLine) -> bool:
    """``from [pkg.]ndd_support import ...``: the project's support module (NDD301)."""
    node = stmt.body[0]
    if not isinstance(node, cst.ImportFrom) or node.module is None:
        return False
    return cst.Module([]).code_for_node(node.module).rpartition(".")[2] == support.FILE_NAME[:-3]


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
    )

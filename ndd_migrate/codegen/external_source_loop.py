"""The loop that drives an external source in the reader's role (NDD421, written by NDD001).

The loop draws from ``source`` exactly as DALI did (``nvidia/dali/external_source.py``,
``get_batch``) and wraps what it gets with ``ndd.as_batch`` (``ndd.ExternalSource`` would take a
returned list as ONE tensor). A pipeline with one generator per epoch (``fn.restarts``) draws with
``next()`` from ``feed = iter(source)``, made once, as DALI did: a ``for`` would call ``iter()``
again each epoch. A source whose kind the code does not show is drawn through the support module's
``dali_external_source``, which decides it as DALI did (:func:`run_time_kind`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ndd_migrate import support
from ndd_migrate.model.types import PipelineFunction
from ndd_migrate.model.values.external_source import CALLABLE, CARRIED, GENERATOR, RUN_TIME, source_expr
from ndd_migrate.syntax import cstutil


@dataclass
class Plan:
    """What NDD001 puts in the generator for an external source."""

    prologue: list  # before the loop
    convert: list  # at the head of the per-batch body: `x = ndd.as_batch(x, ...)`
    loop: Callable[[list], list]  # the per-batch statements → the loop around them


def plan(ctx, pipeline: PipelineFunction, stmt: cst.SimpleStatementLine, used: set[str], fresh) -> Plan:
    """The statements that replace ``stmt`` (the updated external-source statement)."""
    spec = pipeline.source
    call = stmt.body[0].value
    if spec.kind == RUN_TIME:
        return run_time_kind(ctx, spec, call, used, fresh)
    code = cst.Module([]).code_for_node
    source = code(source_expr(call))
    prologue: list = []
    if not isinstance(source_expr(call), (cst.Name, cst.Attribute)) and (
        spec.batch is not False or spec.kind == CALLABLE
    ):
        # evaluated once, as when the pipeline was defined (`Counter()` is one object, not one per call)
        hoisted = fresh("feed", used)
        prologue.append(cst.parse_statement(f"{hoisted} = {source}\n"))
        source = hoisted
    if spec.kind == GENERATOR:
        source = f"{source}()"
    targets = spec.targets
    # `outputs = [ndd.as_batch(output) for output in outputs]` for a list of outputs, as pipeline mode gave
    convert = _converts(ctx, spec, call, used, fresh)
    unpacked = ", ".join(targets)

    if spec.batch is None:
        return _run_time_plan(ctx, spec, call, source, prologue, convert, used, fresh)
    if spec.kind != CALLABLE and spec.batch and not pipeline.restarts:

        def loop(inner: list) -> list:
            body = [
                cst.parse_statement(f"for {unpacked} in {source}:\n    pass\n").with_changes(
                    body=cst.IndentedBlock(inner)
                )
            ]
            return [_while_true(body)] if spec.cycle else body

        return Plan(prologue, convert, loop)

    counter = epoch = None
    if spec.kind != CALLABLE:  # an iterable drawn one sample at a time, or per epoch (`fn.restarts`)
        iterator = fresh("feed", used)
        prologue.append(cst.parse_statement(f"{iterator} = iter({source})\n"))
        draw = f"next({iterator})" if spec.batch else f"[next({iterator}) for _ in range(batch_size)]"
    else:
        counter = fresh("iteration", used) if spec.takes_info else None
        epoch = fresh("epoch_idx", used | {counter}) if counter and pipeline.restarts else None
        draw = _callable_draw(ctx, spec, source, counter, epoch=epoch)
    if spec.batch:
        fetch = f"{unpacked} = {draw}"
    elif spec.listed:  # each sample a tuple of outputs: one list of samples per output
        samples = fresh("samples", used)
        fetch = f"{samples} = {draw}\n    {targets[0]} = {_by_output(samples)}"
    else:
        samples = targets[0] if len(targets) == 1 else fresh("samples", used)
        fetch = f"{samples} = {draw}"
        if len(targets) > 1:
            convert = [
                _as_batch(ctx, call, name, i, len(targets), f"[s[{i}] for s in {samples}]")
                for i, name in enumerate(targets)
            ]
    return _draw_loop(prologue, convert, fetch, counter, epoch)


def _draw_loop(prologue: list, convert: list, fetch: str, counter: str | None, epoch: str | None) -> Plan:
    """``while True:`` around the draw (``fetch``), returning at the source's ``StopIteration``, and
    the counting of ``counter`` (a callable's iteration) and ``epoch`` (its epoch index, in a
    pipeline with one generator per epoch)."""
    head = [cst.parse_statement(f"try:\n    {fetch}\nexcept StopIteration:\n    return\n")]
    if counter:
        head.append(cst.parse_statement(f"{counter} += 1\n"))
    if epoch is None:
        if counter:
            prologue.append(cst.parse_statement(f"{counter} = 0\n"))
        return Plan(prologue, convert, lambda inner: [_while_true([*head, *inner])])
    # One generator per epoch (`fn.restarts`): after the source's `StopIteration` DALI calls it again
    # from iteration 0, with the epoch's index one higher (`Pipeline.reset()`, DALI 2.4's
    # pipeline.py); an epoch left in the middle goes on in the next generator, as DALI ignores
    # `reset()` before the end.
    prologue.extend(cst.parse_statement(f"{name} = 0\n") for name in (epoch, counter))
    head[0] = cst.parse_statement(
        f"try:\n    {fetch}\nexcept StopIteration:\n    {epoch}, {counter} = {epoch} + 1, 0\n    return\n"
    )
    start = cst.parse_statement(f"nonlocal {epoch}, {counter}\n")
    return Plan(prologue, convert, lambda inner: [start, _while_true([*head, *inner])])


def run_time_kind(ctx, spec, call: cst.Call, used: set[str], fresh) -> Plan:
    """A source whose kind only the run tells: ``feed = dali_external_source(source, ...)`` (the
    support module), made where the loop starts, as DALI made its callback when it built the
    pipeline, and ``next(feed)`` per batch until ``StopIteration`` ends the epoch. Made once for a
    pipeline with one generator per epoch, it goes on from where the last epoch ended, as DALI
    did (a callable from iteration 0, its epoch index one more)."""
    feed = fresh("feed", used)
    prologue = [cst.parse_statement(f"{feed} = {_dispatch(ctx, spec, call)}\n")]
    fetch = f"{', '.join(spec.targets)} = next({feed})"
    head = [cst.parse_statement(f"try:\n    {fetch}\nexcept StopIteration:\n    return\n")]
    convert = _converts(ctx, spec, call, used | {feed}, fresh)
    return Plan(prologue, convert, lambda inner: [_while_true([*head, *inner])])


def _dispatch(ctx, spec, call: cst.Call) -> str:
    """``dali_external_source(source, ...)`` with the arguments of ``call`` that say how DALI drew
    (``batch_size`` and ``num_outputs`` only where samples are drawn one by one)."""
    code = cst.Module([]).code_for_node
    args = [code(source_expr(call))]
    per_sample = spec.batch is not True
    for name in ("batch", "cycle", "batch_info", "num_outputs"):
        arg = cstutil.kwarg(call, name)
        if arg is not None and (per_sample or name not in ("batch", "num_outputs")):
            value = arg.value if spec.batch is None or name != "batch" else cst.Name(str(spec.batch))
            args.append(f"{name}={code(value)}")
    if per_sample:
        args.append("batch_size=batch_size")
    return f"{ctx.support(support.EXTERNAL_SOURCE).value}({', '.join(args)})"


@dataclass
class Draw:
    """What NDD001 writes for an external source beside a reader (``SourceSpec.beside_reader``): the
    reader's loop drives the batches, and the source, which never ends (``cycle=``), is drawn once
    per batch at the place of its statement."""

    prologue: list  # before the loop: the iterator made (or, in an `if`, `feed = None`)
    statements: list  # in place of the statement: the draw, then `x = ndd.as_batch(x, ...)`


def names_beside_reader(spec, used: set[str], fresh) -> tuple[str, str | None]:
    """The iterator's name, and the name that holds a source written as an expression (``Gen()``)."""
    feed = fresh("feed", used)
    held = (
        None if isinstance(source_expr(spec.call), (cst.Name, cst.Attribute)) else fresh("feed_source", used | {feed})
    )
    return feed, held


def beside_reader(ctx, spec, stmt: cst.SimpleStatementLine, feed: str, held: str | None, used: set[str], fresh) -> Draw:
    """Drawn as DALI drew with ``cycle=`` (``_CycleGenFunc``/``_CycleIter`` of
    ``_utils/external_source_impl.py``): ``next()`` of the iterator; at its end the generator
    function is called again (an iterable iterated again) and drawn from; when that gives nothing
    either, ``pipe.run()`` raised ``StopIteration``: the generator returns. In an ``if`` on the
    pipeline function's parameters the iterator is made at the first draw, under the condition, as
    pipeline mode made it only when the condition held."""
    call = stmt.body[0].value
    code = cst.Module([]).code_for_node
    source = held or code(source_expr(call))
    again = f"iter({source}())" if spec.kind == GENERATOR else f"iter({source})"
    made = ([f"{held} = {code(source_expr(call))}"] if held else []) + [f"{feed} = {again}"]
    if spec.kind == RUN_TIME:  # `dali_external_source` cycles as DALI did
        made = [f"{feed} = {_dispatch(ctx, spec, call)}"]
    targets = spec.targets
    unpacked = ", ".join(targets)
    if spec.nested:
        prologue = [cst.parse_statement(f"{feed} = None\n")]
        lines = "\n    ".join(made)
        statements = [cst.parse_statement(f"if {feed} is None:\n    {lines}\n")]
    else:
        prologue = [cst.parse_statement(f"{line}\n") for line in made]
        statements = []
    if spec.kind == RUN_TIME:  # `StopIteration`: the source gave nothing after it started again
        statements.append(
            cst.parse_statement(f"try:\n    {unpacked} = next({feed})\nexcept StopIteration:\n    return\n")
        )
    else:
        statements.append(_cycled_draw(unpacked, feed, again))
    statements[0] = statements[0].with_changes(leading_lines=stmt.leading_lines)
    return Draw(prologue, [*statements, *_converts(ctx, spec, call, used | {feed, held}, fresh)])


def _cycled_draw(unpacked: str, feed: str, again: str) -> cst.BaseStatement:
    """``next(feed)``; at its end, ``feed = again`` and ``next(feed)`` once more."""
    return cst.parse_statement(
        f"try:\n    {unpacked} = next({feed})\n"
        f"except StopIteration:  # `cycle=`: the source starts again\n"
        f"    {feed} = {again}\n"
        f"    try:\n        {unpacked} = next({feed})\n"
        f"    except StopIteration:  # `pipe.run()` raised it\n"
        f"        return\n"
    )


def _converts(ctx, spec, call: cst.Call, used: set[str], fresh) -> list:
    """``x = ndd.as_batch(x, layout=..., ...)`` for each output (a list of outputs: each element)."""
    targets = spec.targets
    if spec.listed:
        element = fresh("output", used)
        each = _as_batch(ctx, call, element, 0, 1).body[0].value
        code = cst.Module([]).code_for_node
        return [cst.parse_statement(f"{targets[0]} = [{code(each)} for {element} in {targets[0]}]\n")]
    return [_as_batch(ctx, call, name, i, len(targets)) for i, name in enumerate(targets)]


def _run_time_plan(ctx, spec, call: cst.Call, source: str, prologue: list, convert: list, used, fresh) -> Plan:
    """``batch=`` known only when the program runs: the generator reads it once, when it starts (as
    DALI did when the graph was defined), and each batch is drawn in the form it says, ``if batched:``
    one call (or item) per batch, ``else:`` one per sample. ``None`` is DALI's default: per batch."""
    code = cst.Module([]).code_for_node
    batched = fresh("batched", used)
    batch_arg = cstutil.kwarg(call, "batch").value
    prologue.append(cst.parse_statement(f"{batched} = {code(batch_arg)}\n"))
    prologue.append(cst.parse_statement(f"if {batched} is None:\n    {batched} = True\n"))
    targets = spec.targets
    unpacked = ", ".join(targets)
    counter = None
    if spec.kind == CALLABLE:
        counter = fresh("iteration", used) if spec.takes_info else None
        per_batch = _callable_draw(ctx, spec, source, counter, batch=True)
        per_sample = _callable_draw(ctx, spec, source, counter, batch=False)
    else:
        iterator = fresh("feed", used)
        prologue.append(cst.parse_statement(f"{iterator} = iter({source})\n"))
        per_batch = f"next({iterator})"
        per_sample = f"[next({iterator}) for _ in range(batch_size)]"
    if spec.listed:
        samples = fresh("samples", used)
        sample_form = f"{samples} = {per_sample}\n    {targets[0]} = {_by_output(samples)}"
    elif len(targets) == 1:
        sample_form = f"{targets[0]} = {per_sample}"
    else:
        samples = fresh("samples", used)
        split = "\n    ".join(f"{name} = [s[{i}] for s in {samples}]" for i, name in enumerate(targets))
        sample_form = f"{samples} = {per_sample}\n    {split}"
    fetch = f"if {batched}:\n    {unpacked} = {per_batch}\nelse:\n    {sample_form}\n"
    indented = "\n".join("    " + line for line in fetch.splitlines())
    if counter:
        prologue.append(cst.parse_statement(f"{counter} = 0\n"))
    head = [cst.parse_statement(f"try:\n{indented}\nexcept StopIteration:\n    return\n")]
    if counter:
        head.append(cst.parse_statement(f"{counter} += 1\n"))
    return Plan(prologue, convert, lambda inner: [_while_true([*head, *inner])])


def _by_output(samples: str) -> str:
    """The samples of each output, from samples that are each a tuple of outputs."""
    return f"[list(output) for output in zip(*{samples})]"


def _callable_draw(
    ctx, spec, source: str, counter: str | None, batch: bool | None = None, epoch: str | None = None
) -> str:
    """One call per batch, or a list of one call per sample, with DALI's arguments
    (``_ExternalSourceGroup.callback_args``); the epoch is ``epoch``, the name that counts them in
    a pipeline with one generator per epoch, else 0: the generator ends with it."""
    epoch = epoch or "0"
    if spec.batch if batch is None else batch:
        if counter is None:
            return f"{source}()"
        if spec.batch_info:
            return f"{source}({ctx.types_name()}.BatchInfo({counter}, {epoch}))"
        return f"{source}({counter})"
    if counter is None:
        return f"[{source}() for _ in range(batch_size)]"
    info = f"{ctx.types_name()}.SampleInfo({counter} * batch_size + i, i, {counter}, {epoch})"
    return f"[{source}({info}) for i in range(batch_size)]"


def _as_batch(ctx, call: cst.Call, name: str, index: int, outputs: int, value: str | None = None):
    """``name = ndd.as_batch(value, layout=..., dtype=..., device=...)``; a list-valued argument of a
    multi-output source gives each output its own element (empty layouts are dropped)."""
    args = [cst.Arg(cst.parse_expression(value or name))]
    for arg in call.args:
        key = arg.keyword.value if arg.keyword else None
        if key not in CARRIED:
            continue
        val = arg.value
        if outputs > 1 and isinstance(val, (cst.List, cst.Tuple)):
            if index >= len(val.elements):
                continue  # DALI gives the outputs past the list's end no layout (dtype, device) of their own
            val = val.elements[index].value
        if cstutil.string_value(val) in ("", "cpu") and key in ("layout", "device"):
            continue
        args.append(
            cst.Arg(
                keyword=cst.Name(key),
                value=val,
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        )
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    value_call = cst.Call(ctx.ndd("as_batch"), args)
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value_call)])


def _while_true(body: list) -> cst.While:
    return cst.While(test=cst.Name("True"), body=cst.IndentedBlock(body))

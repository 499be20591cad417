"""The epoch-aware shape of a migrated pipeline function (docs/target-shape.md, "Framework iterators").

A pipeline that feeds a framework iterator, or whose reader metadata is asked for, becomes a plain
function that creates the reader (and RNGs, context) once and returns ``(reader metadata, batches)``:
``batches`` is the usual endless generator, so ``next(pipe)`` gives what ``pipe.run()`` gave, and the
metadata is what ``pipe.reader_meta(name)`` gave. The reader gets ``max_batch_size=batch_size``:
in DALI 2.4.0, ``get_metadata()`` before the first ``next_epoch`` otherwise fixes the batch size at 1
and the following ``next_epoch(batch_size=B)`` raises ``ValueError``.

A pipeline whose epochs end where its external source raises ``StopIteration`` (no reader) returns
its generator function instead (:func:`per_epoch`): the iterator starts one generator per epoch.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil


def body(
    prologue: list,
    loop: cst.While,
    reader: str,
    batches: str,
    start: list = (),
    prefetch: cst.Decorator | None = None,
) -> list:
    """``prologue`` (with ``reader = ndd.readers.X(...)``), ``def batches(): start; loop``, and the
    ``return`` of the metadata and the generator (``start``: names the loop assigns, such as an
    external source's iterator, local to ``batches``; ``prefetch``: its decorator, if any)."""
    index = next(i for i, stmt in enumerate(prologue) if _assigns(stmt, reader))
    before, reader_stmt, after = prologue[:index], prologue[index], prologue[index + 1 :]
    assign = reader_stmt.body[0]
    call = assign.value
    if cstutil.kwarg(call, "max_batch_size") is None:
        call = cstutil.add_kwarg(call, "max_batch_size", cst.Name("batch_size"))
    reader_stmt = reader_stmt.with_changes(body=[assign.with_changes(value=call)])
    generator = cst.FunctionDef(
        name=cst.Name(batches),
        params=cst.Parameters(),
        body=cst.IndentedBlock([*start, loop]),
        decorators=[prefetch] if prefetch is not None else [],
        leading_lines=[cst.EmptyLine(indent=False)],
    )
    meta = cst.Call(cst.Attribute(cst.Name(reader), cst.Name("get_metadata")))
    result = cst.Tuple(
        [
            cst.Element(meta, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Element(cst.Call(cst.Name(batches))),
        ],
        lpar=[],
        rpar=[],
    )
    ret = cst.SimpleStatementLine([cst.Return(result)], leading_lines=[cst.EmptyLine(indent=False)])
    return [*before, reader_stmt, *after, generator, ret]


def per_epoch(loop: list, batches: str) -> list:
    """``def batches(): loop`` and ``return batches``: the function a pipeline whose epochs end at
    its external source's ``StopIteration`` returns (``fn.restarts``), one generator per epoch over
    the source, operators and RNGs made once before it."""
    generator = cst.FunctionDef(
        name=cst.Name(batches),
        params=cst.Parameters(),
        body=cst.IndentedBlock(loop),
        leading_lines=[cst.EmptyLine(indent=False)],
    )
    ret = cst.SimpleStatementLine([cst.Return(cst.Name(batches))], leading_lines=[cst.EmptyLine(indent=False)])
    return [generator, ret]


def _assigns(stmt, name: str) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and isinstance(stmt.body[0], cst.Assign)
        and isinstance(stmt.body[0].targets[0].target, cst.Name)
        and stmt.body[0].targets[0].target.value == name
    )

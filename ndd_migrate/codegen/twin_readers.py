"""The epoch loop's header over one reader, or over two whose epochs line up, and the readers of
their own read beside it as endless streams of their epochs (ndd_migrate.model.features.twin_readers;
docs/target-shape.md, "Two readers")."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.codegen import shape


def header(readers: list[tuple[str, cst.BaseAssignTargetExpression, list[cst.Arg]]]) -> tuple:
    """(target, iterable) of the ``for`` over each epoch, from (reader name, loop target,
    ``next_epoch`` arguments) per reader: ``for t in reader.next_epoch(...)``, or ``for (a, b), (c, d)
    in zip(reader.next_epoch(...), reader_2.next_epoch(...), strict=True)`` (``strict``: the second
    epoch iterator runs to its end, where DALI advances its shard)."""
    epochs = [
        cst.Call(cst.Attribute(cst.Name(name), cst.Name("next_epoch")), shape.commas(args)) for name, _, args in readers
    ]
    if len(readers) == 1:
        return readers[0][1], epochs[0]
    targets = cst.Tuple([cst.Element(_parenthesized(target)) for _, target, _ in readers], lpar=[], rpar=[])
    args = [*map(cst.Arg, epochs), shape.kw("strict", cst.Name("True"))]
    # One argument per line, as black lays out a header too long for one (codegen.long_lines
    # splits simple statements only).
    line = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace("    "))
    zipped = cst.Call(
        cst.Name("zip"),
        [arg.with_changes(comma=cst.Comma(whitespace_after=line)) for arg in args[:-1]]
        + [args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True)))],
        whitespace_before_args=line,
    )
    return targets, zipped


def _parenthesized(target: cst.BaseAssignTargetExpression) -> cst.BaseAssignTargetExpression:
    if isinstance(target, cst.Tuple) and not target.lpar:
        return target.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return target


def stream_statement(body: list, path: tuple[int, ...], count: int, stream: str) -> cst.BaseExpression:
    """Rewrites, in ``body``, the reader's statement at ``path`` (its index, then a branch number and
    an index per ``if`` it stands in) into ``targets = next(stream)``, where it stood: it runs where
    and when pipeline mode ran the reader, one batch per batch; returns the reader's call."""
    found = []

    def rewrite(stmt: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        assign = stmt.body[0]
        found.append(assign.value)
        target = shape.loop_target(assign.targets[0].target, count)
        call = cst.Call(cst.Name("next"), [cst.Arg(cst.Name(stream))])
        return stmt.with_changes(body=[assign.with_changes(targets=[cst.AssignTarget(target)], value=call)])

    body[path[0]] = _at(body[path[0]], path[1:], rewrite)
    return found[0]


def _at(stmt, path: tuple[int, ...], rewrite):
    if not path:
        return rewrite(stmt)
    number, index, rest = path[0], path[1], path[2:]
    if number == 0:
        inner = list(stmt.body.body)
        inner[index] = _at(inner[index], rest, rewrite)
        return stmt.with_changes(body=stmt.body.with_changes(body=inner))
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):  # `elif`: the branches of the chain go on there
        return stmt.with_changes(orelse=_at(orelse, (number - 1, *path[1:]), rewrite))
    inner = list(orelse.body.body)
    inner[index] = _at(inner[index], rest, rewrite)
    return stmt.with_changes(orelse=orelse.with_changes(body=orelse.body.with_changes(body=inner)))


def in_context(args: list[cst.Arg], ctx_name: str | None) -> list[cst.Arg]:
    """``next_epoch``'s arguments with ``ctx=<the generator's context>``, beside stream readers: DALI
    2.4.0's epoch iterator keeps the context it runs in entered between batches (``Reader._batches``),
    and a stream reader first advanced inside ``with ctx:`` enters ``ctx``; ``EvalContext.__exit__``
    asserts the context it leaves is the last one entered, so every reader's iterator must hold the
    same context (``ctx``, entered again and again: an ``RLock``) or the first epoch's end fails."""
    if ctx_name is None or any(a.keyword is not None and a.keyword.value == "ctx" for a in args):
        return args
    return [*args, shape.kw("ctx", cst.Name(ctx_name))]


def stream_creation(call: cst.BaseExpression, names: tuple[str, str], ctx_name: str | None) -> list:
    """``reader_2 = <call>`` and ``stream_2 = (batch for _ in iter(int, 1) for batch in
    reader_2.next_epoch(...))``: the concatenation of the reader's epochs, each asked for once the
    last one ends (``iter(int, 1)`` never ends), as pipeline mode ran the reader into its next epoch."""
    reader, stream = names
    epochs = cst.Call(
        cst.Attribute(cst.Name(reader), cst.Name("next_epoch")),
        shape.commas(in_context(shape.epoch_args(call, ctx_name), ctx_name)),
    )
    endless = cst.GeneratorExp(
        cst.Name("batch"),
        cst.CompFor(
            target=cst.Name("_"),
            iter=cst.Call(cst.Name("iter"), [cst.Arg(cst.Name("int")), cst.Arg(cst.Integer("1"))]),
            inner_for_in=cst.CompFor(target=cst.Name("batch"), iter=epochs),
        ),
    )
    comment = cst.EmptyLine(comment=cst.Comment(f"# `{reader}`: one batch per batch, into its next epoch on its own"))
    return [shape.assign(reader, call).with_changes(leading_lines=[comment]), shape.assign(stream, endless)]


def guarded(made: list[tuple[object, list]], test_of) -> list:
    """The streams' statements, from ``(guard, statements)`` per stream reader: those of a reader
    created under an ``if`` of ``__init__`` (``guard``, else None) in an ``if`` of its test
    (``test_of(guard)``), so that the reader exists, and its arguments are evaluated, only where
    pipeline mode created it; readers created under the same ``if`` share one."""
    out: list = []
    last = None
    for guard, statements in made:
        if guard is None:
            out.extend(statements)
        elif guard is last:
            out[-1] = out[-1].with_changes(body=out[-1].body.with_changes(body=[*out[-1].body.body, *statements]))
        else:
            first, *rest = statements
            out.append(
                cst.If(
                    test_of(guard),
                    cst.IndentedBlock([first.with_changes(leading_lines=[]), *rest]),
                    leading_lines=first.leading_lines,
                )
            )
        last = guard
    return out

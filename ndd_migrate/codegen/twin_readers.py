"""The epoch loop's header over one reader, or over two whose epochs line up
(ndd_migrate.model.features.twin_readers; docs/target-shape.md, "Two readers")."""

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

"""Statement builders of the generator shape (docs/target-shape.md), shared by the rewrites that
emit it (NDD001 for ``@pipeline_def`` functions, NDD401 for legacy ``Pipeline`` subclasses) so both
produce the same code."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import cstutil


def strip_blank_head(stmts: list) -> list:
    """A statement that opens a new block loses the blank lines above it (comments stay)."""
    if not stmts:
        return stmts
    first = stmts[0]
    lines = list(first.leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return [first.with_changes(leading_lines=lines), *stmts[1:]]


def all_params(params: cst.Parameters) -> list[cst.Param]:
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            out.append(extra)
    return out


def fresh(base: str, used: set[str]) -> str:
    name, n = base, 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def is_docstring(stmt: cst.CSTNode) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def yield_value(value: cst.BaseExpression, form: str | None = None) -> cst.BaseExpression:
    """What one ``next()`` gives: a tuple with one batch per pipeline output, as ``pipe.run()`` did.

    ``form`` is what the returned expression holds (``ndd_migrate.outputs.Outputs.form``): a tuple
    of outputs (an op's outputs are one in dynamic mode) is yielded as it is, a list as
    ``tuple(...)``, one output (or an unknown ``form``) as a 1-tuple."""
    if isinstance(value, cst.Tuple):
        return value
    if isinstance(value, cst.List):
        return cst.Tuple(elements=value.elements, lpar=[], rpar=[])
    if form in ("tuple", "oplist"):
        return value
    if form == "list":
        return cst.Call(cst.Name("tuple"), [cst.Arg(value)])
    return cstutil.one_tuple(value)


def loop_target(target: cst.BaseAssignTargetExpression, outputs: int | None) -> cst.BaseAssignTargetExpression:
    if isinstance(target, cst.Name) and outputs == 1:
        return cst.Tuple(elements=[cst.Element(target)])
    if isinstance(target, cst.List):
        return cst.Tuple(elements=target.elements, lpar=[], rpar=[])
    return target


def kw(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        keyword=cst.Name(name), value=value, equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    )


def commas(args: list[cst.Arg]) -> list[cst.Arg]:
    return [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]


def assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)])


def expr_stmt(value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(value)])

"""Statement builders of the generator shape (docs/target-shape.md), shared by the rewrites that
emit it (NDD001 for ``@pipeline_def`` functions, NDD401 for legacy ``Pipeline`` subclasses) so both
produce the same code."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.model.types import reader_on_gpu
from ndd_migrate.model.values import returns
from ndd_migrate.syntax import cstutil, tree


def strip_blank_head(stmts: list) -> list:
    """A statement that opens a new block loses the blank lines above it (comments stay)."""
    if not stmts:
        return stmts
    first = stmts[0]
    lines = list(first.leading_lines)
    while lines and lines[0].comment is None:
        lines.pop(0)
    return [first.with_changes(leading_lines=lines), *stmts[1:]]


def add_kwonly(params: cst.Parameters, name: str, default: cst.BaseExpression | None = None) -> cst.Parameters:
    """``params`` with a keyword-only parameter ``name`` (``=default``) last among the keyword-only
    ones (after a bare ``*`` when there is no ``*args``)."""
    equal = (
        cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        if default is not None
        else cst.MaybeSentinel.DEFAULT
    )
    return with_kwonly(params, [cst.Param(cst.Name(name), default=default, equal=equal)])


def with_kwonly(params: cst.Parameters, new: list[cst.Param]) -> cst.Parameters:
    """``params`` with the keyword-only parameters ``new`` last (after a bare ``*`` when there is
    no ``*args``)."""
    if isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
        return params.with_changes(kwonly_params=[*params.kwonly_params, *new])
    last = params.params[-1] if params.params else None
    closing = last.whitespace_after_param if last is not None and not isinstance(last.comma, cst.Comma) else None
    if isinstance(closing, cst.ParenthesizedWhitespace) and new:  # `def f(\n    a, b\n):`: `)` stays on its line
        params = params.with_changes(
            params=[*params.params[:-1], last.with_changes(whitespace_after_param=cst.SimpleWhitespace(""))]
        )
        new = [*new[:-1], new[-1].with_changes(whitespace_after_param=closing)]
    return _star_on_a_line_of_its_own(params, closing).with_changes(star_arg=cst.ParamStar(), kwonly_params=new)


def _star_on_a_line_of_its_own(params: cst.Parameters, before_paren=None) -> cst.Parameters:
    """In a ``def`` whose parameters the user wrote on several lines, the ``*`` added after them starts
    a line of its own, lined up with theirs (else it would lengthen the last one); so too when they
    stand on one line of their own between ``(`` and ``)`` (``before_paren``: the line break before
    ``)``), lined up under the ``(``'s next line."""
    if not params.params:
        return params
    commas = [p.comma for p in params.params[:-1] if isinstance(p.comma, cst.Comma)]
    broken = [c.whitespace_after for c in commas if isinstance(c.whitespace_after, cst.ParenthesizedWhitespace)]
    if not broken and isinstance(before_paren, cst.ParenthesizedWhitespace):
        broken = [cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(" " * 4))]
    last = params.params[-1]
    if not broken or isinstance(last.comma, cst.Comma):
        return params
    comma = cst.Comma(
        whitespace_after=cst.ParenthesizedWhitespace(indent=broken[-1].indent, last_line=broken[-1].last_line)
    )
    return params.with_changes(params=[*params.params[:-1], last.with_changes(comma=comma)])


def yield_value(value: cst.BaseExpression, form: str | None = None) -> cst.BaseExpression:
    """What one ``next()`` gives: a tuple with one batch per pipeline output, as ``pipe.run()`` did.

    ``form`` is what the returned expression holds (``ndd_migrate.model.values.outputs.Outputs.form``): a tuple
    display is yielded element by element, a value holding a tuple or list of outputs (an op's
    outputs are one in dynamic mode) as ``tuple(...)`` of its batches, one output (or an unknown
    ``form``) as a 1-tuple. Every batch is ``evaluate()``d (:func:`evaluated`)."""
    if isinstance(value, cst.Tuple):
        return evaluated(value)
    if isinstance(value, cst.List):
        return evaluated(cst.Tuple(elements=value.elements, lpar=[], rpar=[]))
    if form in ("tuple", "oplist", "list"):  # outputs known only at run time: each one finished
        return _each_evaluated(_unwrapped(value))
    return evaluated(cstutil.one_tuple(value))


def _unwrapped(value: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` of ``tuple(x)``/``list(x)``: the generator below makes the tuple."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value in ("tuple", "list")
        and len(value.args) == 1
        and not value.args[0].star
        and value.args[0].keyword is None
    ):
        return value.args[0].value
    return value


def _each_evaluated(value: cst.BaseExpression) -> cst.BaseExpression:
    """``tuple(batch.evaluate() for batch in value)``."""
    return cst.parse_expression(f"tuple(batch.evaluate() for batch in {cst.Module([]).code_for_node(value)})")


def unused_results_evaluated(stmts: list, alias: str) -> list:
    """``stmts`` with each statement that calls an op and drops its result (``ndd.random.uniform(...)``,
    kept because the pipeline created it) as ``ndd.random.uniform(...).evaluate()``. The yielded
    batches are evaluated, but such an op, called after the last op an output needs, would still be
    computing in the context's daemon thread when ``next(pipe)`` returns; a program that ends then
    (a checkpoint saved after the last ``next``) aborted at exit ("terminate called without an
    active exception", 8 of 8 runs with a large unused resize; 0 of 8 waited for)."""
    out = []
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            body = [
                e.with_changes(value=cst.Call(cst.Attribute(e.value, cst.Name("evaluate"))))
                if isinstance(e, cst.Expr) and _calls_op(e.value, alias)
                else e
                for e in stmt.body
            ]
            stmt = stmt.with_changes(body=body)
        out.append(stmt)
    return out


def _calls_op(value: cst.BaseExpression, alias: str) -> bool:
    """``alias.x.y(...)``: a call of an op of the ``ndd`` module imported as ``alias``."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    while isinstance(func, cst.Attribute):
        func = func.value
    return isinstance(func, cst.Name) and func.value == alias and func is not value.func


def evaluated(outputs: cst.BaseExpression) -> cst.BaseExpression:
    """``yield a.evaluate(), b.evaluate()``: ``next(pipe)`` returns finished batches, as ``pipe.run()``
    did (``evaluate()`` waits for the batch and returns it).

    Why: an eager op runs in the EvalContext's background thread, a daemon thread that nothing waits
    for at exit (DALI 2.4 ``experimental/dynamic/_async.py``). A batch nobody read -- the step in
    flight when an exception ends the script, the last one before a checkpoint is saved -- can still
    be computing when the interpreter finalizes; that thread, back from the C++ operator, is ended by
    ``pthread_exit`` as it takes the GIL and the process aborts ("terminate called without an active
    exception", exit 134). docs/target-shape.md, "Finished batches".
    """
    if not isinstance(outputs, cst.Tuple):
        return _evaluated(outputs)
    if len(outputs.elements) == 1 and isinstance(outputs.elements[0], cst.StarredElement):
        return _each_evaluated(outputs.elements[0].value)  # `(*outs,)` → `tuple(... for batch in outs)`
    elements = [
        e.with_changes(value=_starred(_each_evaluated(e.value)))
        if isinstance(e, cst.StarredElement)
        else e.with_changes(value=_evaluated(e.value))
        for e in outputs.elements
    ]
    return outputs.with_changes(elements=elements)


def _starred(generator: cst.BaseExpression) -> cst.BaseExpression:
    """``*extras`` → ``*(batch.evaluate() for batch in extras)``: the generator alone, parenthesized."""
    inner = generator.args[0].value
    return inner.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _evaluated(value: cst.BaseExpression) -> cst.Call:
    """``value.evaluate()``, with parentheses around an operation (``(data * 2).evaluate()``)."""
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(cst.Attribute(value, cst.Name("evaluate")))


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


def has_call(expr: cst.CSTNode) -> bool:
    finder = _CallFinder()
    tree.visit(expr, finder)
    return finder.found


class _CallFinder(cstutil.SkipsTrivia, cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        self.found = True
        return False


class Branches:
    """Rewrites the per-batch statements of a function that returns at the end of ``if``
    branches: each ``return X`` becomes ``yield X`` (as a tuple of outputs), then ``continue``
    unless nothing would run after it; runs of other statements are entered in the context, the
    ``if`` tests and the ``yield`` stay outside it."""

    def __init__(self, ctx_name: str | None, forms: list[str], outputs_name: str | None = None) -> None:
        self.ctx_name = ctx_name
        self.forms = iter(forms)  # one per branch `return`, in source order (ndd_migrate.model.values.returns)
        # Legacy pipelines compute returned ops in the context: `outputs = <value>` there, then
        # `yield outputs` (docs/target-shape.md, "Legacy `Pipeline` subclasses").
        self.outputs_name = outputs_name

    def block(self, stmts: list, tail: bool) -> list:
        out: list = []
        run: list = []

        def flush() -> None:
            if run and self.ctx_name:
                lines = list(run[0].leading_lines)
                blank = 0
                while blank < len(lines) and lines[blank].comment is None:
                    blank += 1  # blank lines above the run stay above the `with`
                run[0] = run[0].with_changes(leading_lines=lines[blank:])
                out.append(
                    cst.With(
                        items=[cst.WithItem(cst.Name(self.ctx_name))],
                        body=cst.IndentedBlock(list(run)),
                        leading_lines=lines[:blank],
                    )
                )
            else:
                out.extend(run)
            run.clear()

        for index, stmt in enumerate(stmts):
            last = tail and index == len(stmts) - 1
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[-1], cst.Return):
                if len(stmt.body) > 1:
                    run.append(stmt.with_changes(body=stmt.body[:-1], trailing_whitespace=cst.TrailingWhitespace()))
                value = yield_value(stmt.body[-1].value, next(self.forms))
                if self.ctx_name and self.outputs_name and has_call(value):
                    run.append(assign(self.outputs_name, value))
                    value = cst.Name(self.outputs_name)
                flush()
                out.append(stmt.with_changes(body=[cst.Expr(cst.Yield(value=value))]))
                if not last:
                    out.append(cst.SimpleStatementLine(body=[cst.Continue()]))
            elif isinstance(stmt, cst.If) and returns.contains_return(stmt):
                flush()
                out.append(self.branch(stmt, last))
            else:
                run.append(stmt)
        flush()
        return out

    def branch(self, node: cst.If, tail: bool) -> cst.If:
        body = (
            cst.IndentedBlock(self.block(returns.statements(node.body), tail))
            if isinstance(node.body, cst.SimpleStatementSuite)
            else node.body.with_changes(body=self.block(list(node.body.body), tail))
        )
        orelse = node.orelse
        if isinstance(orelse, cst.If):
            orelse = self.branch(orelse, tail)
        elif isinstance(orelse, cst.Else):
            suite = orelse.body
            inner = self.block(returns.statements(suite), tail)
            orelse = orelse.with_changes(
                body=cst.IndentedBlock(inner)
                if isinstance(suite, cst.SimpleStatementSuite)
                else suite.with_changes(body=inner)
            )
        return node.with_changes(body=body, orelse=orelse)


def epoch_args(reader: cst.BaseExpression, ctx_name: str | None) -> list[cst.Arg]:
    """The arguments of ``reader.next_epoch(...)``: the batch size, and the pipeline's own context
    only for a reader on the GPU. DALI 2.4's epoch iterator keeps its context entered between
    batches (``Reader._batches``: ``with ctx:`` around the yields), so two generators with contexts
    of their own, advanced in turn, exit them out of order and fail at an epoch's end
    (``assert _tls.stack[-1] is self``). A CPU reader needs no device: it runs in the default
    context, which every generator shares; the ops of each batch still run ``with ctx:``."""
    args = [kw("batch_size", cst.Name("batch_size"))]
    if ctx_name and reader_on_gpu(reader):
        args.append(kw("ctx", cst.Name(ctx_name)))
    return args

"""Lines the rewrite made too long, split the way black would in its simplest form.

A rule writes each statement it creates or changes on one line (``images = ndd.random_resized_crop(
ndd.decoders.image(...), device="gpu", size=crop, rng=rng)``), which can run far past the project's
line length. After the rules, each such statement line longer than the line length is laid out
again: the outermost bracketed call, tuple, list, dict or conditional of its value gets one item
per line, each followed by a comma (black's "magic trailing comma", so black and ruff keep the
layout), and an item still too long is split the same way, one level deeper. Nothing else moves:

- a line the user wrote, found unchanged (indentation included) in the original text, is never
  touched, however long;
- the user's code — a statement already on several lines (their layout, or one split here, which a
  second ``migrate`` finds so and leaves), or a line of theirs the generator's loop nested deeper —
  is held to the file's own longest line where that is longer than the line length (a file of
  111-column lines keeps its 94-column ones); it is laid out anew only when the rewrite made one of
  its lines longer than that (nested deeper, an argument grown longer), it holds no comment
  and no string over lines, joining it changes nothing Python reads, and the new layout's longest line
  is not longer than the old one's;
- a statement with nothing to split (no brackets to open, a bare generator argument, which a
  trailing comma would make invalid) stays one long line;
- a list comprehension (an input set's one call per input) gets its element and its ``for`` on
  lines of their own, as black writes it.

Only the layout changes: the statement's trailing comment stays on its last line, and the
continuation lines are inside brackets, one level of the file's own indentation deeper each (a tab in
a file indented with tabs), and the file's newline style is restored around them as for any other
rewritten line (:mod:`ndd_migrate.io.files`).
"""

from __future__ import annotations

import ast
import re

import libcst as cst

_SPLIT_VALUES = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return, cst.Assert)


def split_long_lines(module: cst.Module, code: str, original: str, line_length: int) -> str:
    """``code``, the text of ``module`` (the rewrite of ``original``), with the statement lines it
    created or changed that are longer than ``line_length`` split inside their brackets (see the
    module docstring). Without such a line, ``code`` itself, at the cost of a look at its lines."""
    original_lines = set(original.split("\n"))
    if all(len(line) <= line_length or line in original_lines for line in code.split("\n")):
        return code
    # The file's own indentation unit (a tab in a tab-indented file), but for an odd mix of both.
    unit = module.default_indent if len(set(module.default_indent)) == 1 else "    "
    # The user's own code (laid out by them, or a line of theirs moved deeper) is held to what the
    # file already allows: its longest line, when that is longer than the line length.
    user_limit = max([line_length, *(len(line) for line in original_lines)])
    return module.visit(_Splitter(module, original_lines, line_length, unit, user_limit)).code


class _Splitter(cst.CSTTransformer):
    """Splits the long created lines of one module, knowing each statement's indentation."""

    def __init__(
        self, module: cst.Module, original_lines: set[str], line_length: int, unit: str, user_limit: int
    ) -> None:
        super().__init__()
        self.module = module
        self.original_lines = original_lines
        self.user_texts = {line.strip() for line in original_lines}
        self.line_length = line_length
        self.user_limit = user_limit
        self.unit = unit
        self.indents = [""]

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.indents.append(self.indents[-1] + (node.indent if node.indent is not None else self.module.default_indent))

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.indents.pop()
        return updated

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if len(updated.body) != 1 or not isinstance(updated.body[0], _SPLIT_VALUES):
            return updated
        code = self.module.code_for_node(updated.with_changes(leading_lines=[])).rstrip("\n")
        # (a continuation line is written relative to the block, as libcst keeps it: its indentation
        # is the block's plus its own)
        lines = [self.indents[-1] + line for line in code.split("\n")]
        users = len(lines) > 1 or code.strip() in self.user_texts  # the user's layout, or line moved
        limit = self.user_limit if users else self.line_length
        if all(len(line) <= limit or line in self.original_lines for line in lines):
            return updated
        small = updated.body[0]
        field = "test" if isinstance(small, cst.Assert) else "value"
        value = getattr(small, field)
        if value is None:  # a bare `return`
            return updated
        if len(lines) > 1:  # the user's layout, made too long by the rewrite: laid out anew
            value = _on_one_line(value, self.module)
            if value is None:
                return updated
        value = _split(value, 1, self)
        if value is None:
            return updated
        split = updated.with_changes(body=[small.with_changes(**{field: value})])
        longest = max(len(self.indents[-1] + line) for line in self.module.code_for_node(split).split("\n"))
        if len(lines) > 1 and longest > max(len(line) for line in lines):
            return updated  # what black would split further, this does not: the user's layout is better
        return split

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        """A ``def`` line (a pipeline function's gains keyword parameters) split between its
        parameters, one per line."""
        params = updated.params
        if "\n" in self.module.code_for_node(params):
            return updated
        header = self.module.code_for_node(updated.with_changes(leading_lines=[], decorators=[])).split("\n")[0]
        line = self.indents[-1] + header
        if len(line) <= self.line_length or line in self.original_lines:
            return updated
        split = _split_parameters(params, self)
        if split is None:
            return updated
        return updated.with_changes(whitespace_before_params=_break(self, 1), params=split)

    def fits(self, node: cst.CSTNode, depth: int, extra: int) -> bool:
        """Whether ``node`` fits on one line at ``depth`` continuation levels, ``extra`` columns
        (its comma) after it."""
        code = self.module.code_for_node(node)
        return (
            "\n" not in code and len(self.indents[-1]) + depth * len(self.unit) + len(code) + extra <= self.line_length
        )


def _on_one_line(expr: cst.BaseExpression, module: cst.Module) -> cst.BaseExpression | None:
    """``expr``, written over several lines, on one (the line breaks inside its brackets gone), to be
    split again as black would; None when that could lose or change something: a comment, a string
    over lines, a backslash, or any difference in what Python reads."""
    code = module.code_for_node(expr)
    if "#" in code or '"""' in code or "'''" in code or "\\\n" in code:
        return None
    flat = re.sub(r"([(\[{]) ", r"\1", re.sub(r" ([)\]}])", r"\1", re.sub(r"\s*\n\s*", " ", code)))
    try:
        joined = cst.parse_expression(flat)
        same = ast.dump(ast.parse(f"({code})", mode="eval")) == ast.dump(ast.parse(f"({flat})", mode="eval"))
    except (cst.ParserSyntaxError, SyntaxError):
        return None
    return joined if same else None


def _split(expr: cst.BaseExpression, depth: int, splitter: _Splitter) -> cst.BaseExpression | None:
    """``expr`` with its outermost call's arguments or tuple's elements one per line, at ``depth``
    continuation levels; None when it has no such brackets."""
    if isinstance(expr, cst.Call):
        return _split_call(expr, depth, splitter)
    if isinstance(expr, cst.Yield) and isinstance(expr.value, cst.BaseExpression) and not expr.lpar:
        inner = _split(expr.value, depth, splitter)  # `yield a, b` as `yield (a, b)`: the same tuple
        return expr.with_changes(value=inner) if inner is not None else None
    if isinstance(expr, (cst.Attribute, cst.Subscript)):
        inner = _split(expr.value, depth, splitter)
        return expr.with_changes(value=inner) if inner is not None else None
    if isinstance(expr, cst.ListComp) and not expr.lpar and expr.for_in.inner_for_in is None:
        return _split_list_comprehension(expr, depth, splitter)
    if isinstance(expr, cst.IfExp) and len(expr.lpar) <= 1:
        return _split_conditional(expr, depth, splitter)
    if isinstance(expr, (cst.List, cst.Dict, cst.Set)) and expr.elements and not expr.lpar:
        opening, closing = ("lbrace", "rbrace") if isinstance(expr, (cst.Dict, cst.Set)) else ("lbracket", "rbracket")
        return expr.with_changes(
            elements=_one_per_line(expr.elements, depth, splitter),
            **{
                opening: getattr(expr, opening).with_changes(whitespace_after=_break(splitter, depth)),
                closing: getattr(expr, closing).with_changes(whitespace_before=cst.SimpleWhitespace("")),
            },
        )
    if isinstance(expr, cst.Tuple) and expr.elements and len(expr.lpar) <= 1:
        elements = _one_per_line(expr.elements, depth, splitter)
        lpar = cst.LeftParen(whitespace_after=_break(splitter, depth))
        return expr.with_changes(lpar=[lpar], rpar=[cst.RightParen()], elements=elements)
    return None


def _split_call(expr: cst.Call, depth: int, splitter: _Splitter) -> cst.Call | None:
    """A call's arguments one per line; a call without arguments, the call its function is an
    attribute of (``f(a, b).evaluate()``)."""
    if expr.args:
        if any(isinstance(arg.value, cst.GeneratorExp) and not arg.value.lpar for arg in expr.args):
            return None  # `f(x for x in y,)` is a syntax error
        args = _one_per_line(expr.args, depth, splitter)
        return expr.with_changes(whitespace_before_args=_break(splitter, depth), args=args)
    inner = _split(expr.func, depth, splitter) if isinstance(expr.func, cst.Attribute) else None
    return expr.with_changes(func=inner) if inner is not None else None


def _split_conditional(expr: cst.IfExp, depth: int, splitter: _Splitter) -> cst.IfExp:
    """``a if c else b`` as black lays it out: in brackets, on a line of its own when it fits there,
    else ``a``, ``if c`` and ``else b`` on lines of their own, each value split one level deeper if
    still too long."""
    lpar = [cst.LeftParen(whitespace_after=_break(splitter, depth))]
    rpar = [cst.RightParen(whitespace_before=_break(splitter, depth - 1))]
    if splitter.fits(expr.with_changes(lpar=[], rpar=[]), depth, 0):
        return expr.with_changes(lpar=lpar, rpar=rpar)
    body, orelse = expr.body, expr.orelse
    if not splitter.fits(body, depth, 0):
        body = _split(body, depth + 1, splitter) or body
    if not splitter.fits(orelse, depth, len("else ")):
        orelse = _split(orelse, depth + 1, splitter) or orelse
    return expr.with_changes(
        body=body,
        orelse=orelse,
        lpar=lpar,
        rpar=rpar,
        whitespace_before_if=_break(splitter, depth),
        whitespace_before_else=_break(splitter, depth),
    )


def _split_list_comprehension(expr: cst.ListComp, depth: int, splitter: _Splitter) -> cst.ListComp:
    """``[op(x, ...) for x in [a, b]]`` (an input set, NDD101/NDD402) as black lays it out: the
    element and the ``for`` on lines of their own, the element split one level deeper if too long."""
    elt, for_in = expr.elt, expr.for_in
    if not splitter.fits(elt, depth, 0):
        elt = _split(elt, depth + 1, splitter) or elt
    if not splitter.fits(for_in.with_changes(whitespace_before=cst.SimpleWhitespace("")), depth, 0):
        for_in = for_in.with_changes(iter=_split(for_in.iter, depth + 1, splitter) or for_in.iter)
    return expr.with_changes(
        elt=elt,
        lbracket=cst.LeftSquareBracket(whitespace_after=_break(splitter, depth)),
        for_in=for_in.with_changes(whitespace_before=_break(splitter, depth)),
        rbracket=cst.RightSquareBracket(whitespace_before=_break(splitter, depth - 1)),
    )


def _one_per_line(items, depth: int, splitter: _Splitter) -> list:
    """Call arguments or tuple elements, each on its own line at ``depth`` levels with a comma
    after it, the last comma followed by the closing bracket's line; an item still too long is
    split one level deeper."""
    out = []
    for index, item in enumerate(items):
        item = item.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if isinstance(item, cst.Arg):
            item = item.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
        if not splitter.fits(item, depth, 1):
            inner = _split(item.value, depth + 1, splitter)
            if inner is not None:
                item = item.with_changes(value=inner)
        after = depth if index < len(items) - 1 else depth - 1
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=_break(splitter, after))
        out.append(item.with_changes(comma=comma))
    return out


#: The fields of :class:`libcst.Parameters`, in the order they are written.
_PARAMETER_FIELDS = ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg")


def _split_parameters(params: cst.Parameters, splitter: _Splitter) -> cst.Parameters | None:
    """``params`` one per line, one level in, each followed by a comma (valid after ``/``, a
    ``*args`` and a ``**kwargs`` alike), the last one's followed by the line of the ``)``; None
    when there are none."""
    items = []  # (field, index or None for a single-valued field)
    for name in _PARAMETER_FIELDS:
        value = getattr(params, name)
        if isinstance(value, (tuple, list)):
            items += [(name, index) for index in range(len(value))]
        elif isinstance(value, (cst.Param, cst.ParamStar, cst.ParamSlash)):
            items.append((name, None))
    if not items:
        return None
    changes = {
        name: list(value) for name in _PARAMETER_FIELDS if isinstance(value := getattr(params, name), (tuple, list))
    }
    for position, (name, index) in enumerate(items):
        node = getattr(params, name) if index is None else changes[name][index]
        comma = cst.Comma(whitespace_after=_break(splitter, 1 if position < len(items) - 1 else 0))
        if isinstance(node, cst.Param):
            node = node.with_changes(comma=comma, whitespace_after_param=cst.SimpleWhitespace(""))
        elif isinstance(node, cst.ParamSlash):
            node = node.with_changes(comma=comma, whitespace_after=cst.SimpleWhitespace(""))
        else:
            node = node.with_changes(comma=comma)
        if index is None:
            changes[name] = node
        else:
            changes[name][index] = node
    return params.with_changes(**changes)


def _break(splitter: _Splitter, depth: int) -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line at the block's indentation plus ``depth`` levels."""
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(splitter.unit * depth))

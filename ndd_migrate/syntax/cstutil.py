"""Small libcst helpers shared by the rules: reading and editing call arguments without disturbing
the user's formatting (trailing commas, one argument per line)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ndd_migrate.syntax import tree


def _concrete_subclasses(*bases: type) -> set[type]:
    found: set[type] = set()
    todo = list(bases)
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub)
            todo.append(sub)
    return found


#: Whitespace, comments and punctuation: nodes no rule looks at, whose children are more of the
#: same. About half the nodes of a tree; visitors that skip them (:class:`SkipsTrivia`) do half
#: the work, and a transformer that skips them also does not rebuild them.
TRIVIA: frozenset[type] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.TrailingWhitespace,
        cst.EmptyLine,
        cst.Newline,
        cst.Comment,
        cst.Comma,
        cst.Dot,
        cst.Colon,
        cst.Semicolon,
        cst.AssignEqual,
        cst.ImportStar,
        cst.LeftParen,
        cst.RightParen,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
    }
    | _concrete_subclasses(cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)
)


class VisitsBindings:
    """Mixin for a ``CSTVisitor`` that collects what a statement binds: calls ``self._bind(target)``
    for each target of an assignment (plain, augmented, annotated), a ``for``, an ``as`` and a
    walrus; the visitor's ``_bind`` decides what a target adds (names, ``self.x``, ...)."""

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)


class SkipsTrivia:
    """Mixin for a ``CSTVisitor``/``CSTTransformer`` of this project: :data:`TRIVIA` nodes are not
    entered (a transformer keeps them as they are), and no per-field hook (``visit_Call_func``) is
    looked up: none is defined here, and libcst looks one up by name for every field of every node."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in TRIVIA:
            return False
        return super().on_visit(node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        pass

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


class ReadsValues:
    """Mixin for a ``CSTVisitor`` that collects the names an expression reads: an attribute's name
    (``x.name``) and a keyword (``f(name=...)``) are not read names, so only the value before the
    dot and the argument's value are entered."""

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        tree.visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        tree.visit(node.value, self)
        return False


class Substitute(SkipsTrivia, cst.CSTTransformer):
    """Parameter names read → the value they were given (attribute names and keywords left alone)."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.values.get(original.value, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)


class ScopeNames(VisitsBindings, SkipsTrivia, cst.CSTVisitor):
    """Every name read or bound (attribute names and keywords left out), and those bound;
    ``scoped``: bound in a nested function, class, lambda or comprehension, or by ``global``."""

    def __init__(self) -> None:
        self.all: set[str] = set()
        self.bound: set[str] = set()
        self.scoped: set[str] = set()
        self._skip: set[cst.Name] = set()
        self._depth = 0

    def _bind(self, target) -> None:
        if isinstance(target, cst.Name):
            (self.bound if self._depth == 0 else self.scoped).add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value) if self._depth == 0 else self.scoped.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self.all or self.bound:  # a def nested in the one visited
            self._bind(node.name)
            self._depth += 1
        self._skip.add(node.name)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._depth:
            self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bind(node.name)
        self._depth += 1

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._depth += 1

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self._depth -= 1

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._depth += 1
        self._bind(node.target)
        self._depth -= 1

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            self._bind(name)

    def visit_Global(self, node: cst.Global) -> None:
        self.scoped.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.scoped.update(n.name.value for n in node.names)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(node.attr)

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(node.keyword)

    def visit_Name(self, node: cst.Name) -> None:
        if node not in self._skip:
            self.all.add(node.value)


def kwarg(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def positional_count(call: cst.Call) -> int:
    return sum(1 for a in call.args if a.keyword is None and not a.star)


def has_star(call: cst.Call) -> bool:
    return any(a.star for a in call.args)


def add_kwarg(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Append ``name=value``, following the call's comma style (one per line stays one per line); in
    a call the user wrote on several lines, on a line of its own (:func:`_comma_before_new_arg`)."""
    new = cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    between = _comma_before_new_arg(call, new)
    if isinstance(last.comma, cst.Comma):  # trailing comma: keep it at the end
        args[-1] = last.with_changes(comma=between)
        args.append(new.with_changes(comma=last.comma))
    elif _breaks(between) and _breaks(last.whitespace_after_arg):
        # `f(\n    a,\n    b\n)`: one argument per line, `)` on a line of its own; the new last
        # argument gets the trailing comma a formatter writes there (black's "magic trailing comma")
        args[-1] = last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))
        args.append(new.with_changes(comma=cst.Comma(whitespace_after=last.whitespace_after_arg)))
    else:
        # `f(\n    a, b\n)`: the line break before `)` stays before it, after the new argument
        args[-1] = last.with_changes(comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))
        args.append(new.with_changes(whitespace_after_arg=last.whitespace_after_arg))
    return call.with_changes(args=args)


def _breaks(whitespace) -> bool:
    """Does ``whitespace`` (a comma's, or what follows an argument) end its line?"""
    return isinstance(getattr(whitespace, "whitespace_after", whitespace), cst.ParenthesizedWhitespace)


#: In ``f(\n    a, b)``, the columns past the arguments' indentation that the line of ``a, b`` with
#: an argument appended may take before the argument goes on a line of its own (88, the usual line
#: length, less a few levels of indentation: the block's is not known here).
_ARGS_LINE = 64


def _comma_before_new_arg(call: cst.Call, new: cst.Arg) -> cst.Comma:
    """The comma that goes before ``new``, appended to ``call``: the last one that breaks the line
    (``f(a,\n  b, c)``: the new argument lines up under ``b``), else, in ``f(\n    a, b)`` when the
    line would grow long, one breaking the line as after ``(`` (under ``a``), else the one before the
    last argument, else ``", "``. A call spread over lines grows by a line, not past the line length."""
    commas = [a.comma for a in call.args[:-1] if isinstance(a.comma, cst.Comma)]
    broken = [c.whitespace_after for c in commas if isinstance(c.whitespace_after, cst.ParenthesizedWhitespace)]
    if not broken and isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        line = code(
            call.with_changes(
                func=cst.Name("f"), args=[*call.args, new], whitespace_before_args=cst.SimpleWhitespace("")
            )
        )
        if len(call.whitespace_before_args.last_line.value) + len(line.split("\n")[0]) > _ARGS_LINE:
            broken = [call.whitespace_before_args]
    if broken:  # the line break and indentation, without a comment or blank line it may carry
        return cst.Comma(
            whitespace_after=cst.ParenthesizedWhitespace(indent=broken[-1].indent, last_line=broken[-1].last_line)
        )
    if len(call.args) > 1 and isinstance(call.args[-2].comma, cst.Comma):
        return call.args[-2].comma
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def remove_kwargs(call: cst.Call, names: set[str]) -> cst.Call:
    """Drop keyword arguments by name, keeping the comma style of what remains."""
    args = list(call.args)
    kept = [a for a in args if not (a.keyword is not None and a.keyword.value in names)]
    if len(kept) == len(args):
        return call
    if kept and args and kept[-1] is not args[-1]:
        kept[-1] = kept[-1].with_changes(comma=args[-1].comma, whitespace_after_arg=args[-1].whitespace_after_arg)
    return call.with_changes(args=kept)


def rename_kwarg(call: cst.Call, old: str, new: str) -> cst.Call:
    return call.with_changes(
        args=[
            a.with_changes(keyword=cst.Name(new)) if a.keyword is not None and a.keyword.value == old else a
            for a in call.args
        ]
    )


def commas(nodes: list) -> list:
    """``nodes`` (list elements, arguments) separated by ``, ``."""
    sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [n.with_changes(comma=sep) for n in nodes[:-1]] + nodes[-1:]


def is_statement_call(parents: dict, attribute: cst.Attribute) -> bool:
    """Is ``attribute`` called with no arguments as a statement of its own (``loader.reset()``)?"""
    call = parents.get(attribute)
    return (
        isinstance(call, cst.Call)
        and call.func is attribute
        and not call.args
        and isinstance(parents.get(call), cst.Expr)
    )


def string_value(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


def literal_value(expr: cst.BaseExpression):
    """The Python value of a simple literal (number, string, bool, None, unary minus), else a marker."""
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.Float):
        return float(expr.value)
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = literal_value(expr.expression)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    return NOT_LITERAL


NOT_LITERAL = object()


def replace_string(expr: cst.SimpleString, new: str) -> cst.SimpleString:
    """Same quotes and prefix, new text (for plain ASCII identifiers such as device names)."""
    prefix_len = len(expr.prefix)
    quote = expr.quote
    return expr.with_changes(value=f"{expr.value[:prefix_len]}{quote}{new}{quote}")


def one_tuple(expr: cst.BaseExpression) -> cst.Tuple:
    return cst.Tuple(elements=[cst.Element(expr)], lpar=[], rpar=[])


def statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def input_set(call: cst.Call) -> cst.Arg | None:
    """A positional argument that is a list or tuple display: an operator's *input set* in pipeline
    mode (the op runs once per element and gives a list), which dynamic-mode ops reject
    (``TypeError: Unexpected element type Batch``)."""
    return next(
        (a for a in call.args if a.keyword is None and not a.star and isinstance(a.value, (cst.List, cst.Tuple))), None
    )


def assigned_call(stmt: cst.CSTNode) -> cst.Call | None:
    """``targets = call(...)`` as a whole statement → the call."""
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and len(stmt.body[0].targets) == 1
        and isinstance(stmt.body[0].value, cst.Call)
    ):
        return stmt.body[0].value
    return None


def pipeline_items(expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The expressions that give the items of a list or tuple display (no ``*starred`` item) or of
    a list comprehension (its element), or None."""
    if isinstance(expr, cst.ListComp):
        return [expr.elt]
    if isinstance(expr, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) for e in expr.elements):
        return [e.value for e in expr.elements]
    return None


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Every parameter of a signature, in order, ``*args`` and ``**kwargs`` included."""
    out = [*params.posonly_params, *params.params, *params.kwonly_params]
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            out.append(extra)
    return out


def fresh(base: str, used: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``, ... : the first that is not in ``used`` (then added to it)."""
    name, n = base, 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    used.add(name)
    return name


def callee_name(call: cst.Call) -> str:
    """The last name of what ``call`` calls: ``coin_flip`` for ``fn.random.coin_flip(...)``."""
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else "op"


def fresh_rng(used: set[str], op: str | None = None) -> str:
    """The name of a random generator the migration creates, saying whose it is: ``rng`` for the
    pipeline's (``pipeline_rng`` where the code already has an ``rng`` of its own, a coin flip say),
    ``<op>_rng`` for one operator's own seeded generator (``coin_rng``)."""
    if op is not None:
        return fresh(f"{op}_rng", used)
    return fresh("pipeline_rng" if "rng" in used else "rng", used)


def is_docstring(stmt: cst.CSTNode) -> bool:
    """Is ``stmt`` a line holding only a string literal (a docstring, when it comes first in a body)?"""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


#: The clauses of a compound statement that hold a block of their own.
_CLAUSES = (cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.If, cst.MatchCase)


def blocks(stmt: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    """Every block of a compound statement, in source order: an ``if``'s and each ``elif``'s and
    ``else``'s, a loop's and its ``else``'s, a ``try``'s, its handlers', ``else``'s and ``finally``'s,
    each ``case`` of a ``match``, a ``with``'s, a ``def``'s or ``class``'s. Nothing for a simple
    statement; expressions are not entered. Every compound statement of Python 3.11 is walked, so a
    new kind (``match``) is not an internal error."""
    for child in tree.children(stmt):
        if isinstance(child, cst.BaseSuite):
            yield child
        elif isinstance(child, _CLAUSES):
            yield from blocks(child)


def code(node: cst.CSTNode) -> str:
    """``node``'s code as written; for a statement, without the comments and blank lines above it
    (a TODO this tool wrote there is never part of the code it quotes)."""
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        node = node.with_changes(leading_lines=())
    return cst.Module([]).code_for_node(node)


def snippet(node: cst.CSTNode, limit: int = 60) -> str:
    """``node``'s code as a message quotes it: on one line (each run of whitespace one space), at
    most ``limit`` characters (``...`` at the end when shortened)."""
    text = " ".join(code(node).split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def with_gpu(expr: cst.BaseExpression) -> cst.Call:
    """``expr.gpu()``, ``expr`` parenthesized where a call could not follow it as written."""
    if not expr.lpar and not isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(cst.Attribute(expr, cst.Name("gpu")))

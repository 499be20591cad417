"""``iter_setup`` of a legacy ``Pipeline`` subclass in the generator (written by NDD401 and NDD421).

Pipeline mode calls ``iter_setup()`` before each batch; its ``self.feed_input(self.x, data)`` calls
give the ``ops.ExternalSource`` outputs their batch, and a ``StopIteration`` it raises makes
``pipe.run()`` raise ``StopIteration`` (``Pipeline._run_once``). The generator keeps the method as a
function nested in it, so its locals stay its own (``batch = next(self.iterator)`` beside the
output ``self.batch``), calls it at the head of each batch and ends (``return``) where it raises
``StopIteration``: a ``StopIteration`` escaping a generator would be a ``RuntimeError`` (PEP 479).
Each ``feed_input`` becomes ``fed_x = ndd.batch(data, ...)``: a copy, as ``feed_input`` copied.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ndd_migrate.codegen import shape
from ndd_migrate.syntax import cstutil


def nested(pipeline, updated: cst.FunctionDef) -> cst.FunctionDef:
    """The nested function: ``nonlocal`` for the values it assigns, its body, and the return of the
    batches it fed, in ``define_graph``'s order."""
    body = list(updated.body.body)
    if pipeline.setup_nonlocal:  # after the docstring
        body.insert(
            1 if body and cstutil.is_docstring(body[0]) else 0,
            cst.SimpleStatementLine([cst.Nonlocal([cst.NameItem(cst.Name(n)) for n in pipeline.setup_nonlocal])]),
        )
    names = _batch_names(pipeline)
    if names:
        body.append(cst.SimpleStatementLine([cst.Return(_names(names))]))
    return updated.with_changes(
        name=cst.Name(pipeline.generator.setup_name),
        params=cst.Parameters(),
        body=updated.body.with_changes(body=body),
        leading_lines=[cst.EmptyLine(indent=False)],
    )


def head(pipeline) -> cst.Try:
    """``try: x, y = iter_setup() except StopIteration: return`` at the head of each batch."""
    call = cst.Call(cst.Name(pipeline.generator.setup_name))
    targets = [pipeline.local_of(attr) for attr in pipeline.feeding.fed]  # `self.data` may be `self_data`
    stmt = (
        shape.expr_stmt(call)
        if not targets
        else cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(_names(targets))], call)])
    )
    return cst.Try(
        body=cst.IndentedBlock([stmt]),
        handlers=[
            cst.ExceptHandler(
                body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Return()])]),
                type=cst.Name("StopIteration"),
            )
        ],
    )


def feed(
    ndd: Callable[[str], cst.BaseExpression],
    feed,
    updated: cst.SimpleStatementLine,
    carried: dict[str, cst.BaseExpression],
) -> cst.SimpleStatementLine:
    """``self.feed_input(self.x, data, layout=L)`` → ``fed_x = ndd.batch(data, layout=L, ...)``, with
    the source's ``layout``/``dtype``/``device`` (``"cpu"`` and an empty layout say nothing)."""
    call = updated.body[0].value
    args = [cst.Arg(call.args[feed.data].value)]
    given = dict(carried)
    if feed.layout is not None:
        given["layout"] = call.args[feed.layout].value
    for key in ("layout", "dtype", "device"):
        value = given.get(key)
        if value is None or (
            key != "dtype" and isinstance(value, cst.SimpleString) and value.evaluated_value in ("", "cpu")
        ):
            continue
        args.append(shape.kw(key, value))
    value = cst.Call(ndd("batch"), shape.commas(args))
    return updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(feed.batch_name))], value)])


def _batch_names(pipeline) -> list[str]:
    by_attr = {f.attr: f.batch_name for f in pipeline.feeding.feeds.values()}
    return [by_attr[attr] for attr in pipeline.feeding.fed]


def _names(names: list[str]) -> cst.BaseExpression:
    if len(names) == 1:
        return cst.Name(names[0])
    return cst.Tuple([cst.Element(cst.Name(n)) for n in names], lpar=[], rpar=[])

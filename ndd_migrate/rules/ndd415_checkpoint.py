"""NDD415 checkpoint: pipeline checkpointing becomes an ``ndd.checkpoint.Checkpoint`` with the
reader and RNGs registered by name."""

from __future__ import annotations

import libcst as cst

from ndd_migrate import checkpoints, cstutil
from ndd_migrate.analysis import Kind
from ndd_migrate.catalog import Example, Rule
from ndd_migrate.diagnostics import FixSafety
from ndd_migrate.rules.base import RuleImpl

RULE = Rule(
    code="NDD415",
    name="checkpoint",
    summary="pipeline checkpoints become an `ndd.checkpoint.Checkpoint` with registered reader and RNGs",
    what=(
        "A pipeline created with `enable_checkpointing=True` (decorator or call site) or restored with "
        "`checkpoint=state` is migrated: the function takes `checkpoint=` (an `ndd.checkpoint.Checkpoint`) "
        "and registers its reader (under the reader's `name=`) and its RNGs right after creating them, so "
        "a loaded state is applied before the first `next_epoch`. Each call site `pipe = f(...)` gets "
        "`pipe_checkpoint = ndd.checkpoint.Checkpoint()` (plus `pipe_checkpoint.deserialize(state)` when "
        "restoring) and passes it; `state = pipe.checkpoint()` becomes `pipe_checkpoint.collect()` "
        "followed by `state = pipe_checkpoint.serialize().encode()` (bytes, like the pipeline's). Other uses (`pipe.checkpoint(filename)`, a "
        "call site that is not `name = f(...)`, a checkpoint in the decorator) are reported."
    ),
    why=(
        "Dynamic mode has no pipeline object to checkpoint; its state lives in the reader and the RNGs, "
        "which `ndd.checkpoint.Checkpoint` saves and restores by name."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The batches after a restore are the batches an uninterrupted run gives (tested across processes). "
        "Checkpoints saved by the pipeline-mode program cannot be restored into the migrated one."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, seed=3)\n"
                "def p(root):\n"
                "    (data,) = fn.readers.numpy(file_root=root, name='Reader')\n"
                "    return data * fn.random.uniform()\n\n\n"
                "pipe = p('/data', enable_checkpointing=True)\n"
                "pipe.build()\n"
                "out = pipe.run()\n"
                "state = pipe.checkpoint()\n"
                "resumed = p('/data', checkpoint=state)\n"
            ),
            after=(
                'import nvidia.dali.experimental.dynamic as ndd\n'
                '\n'
                '\n'
                'def p(root, *, batch_size=4, seed=3, checkpoint=None):\n'
                '    rng = ndd.random.RNG(seed=seed)\n'
                "    reader = ndd.readers.Numpy(file_root=root, name='Reader')\n"
                '    if checkpoint is not None:\n'
                '        checkpoint.register(reader, "Reader")\n'
                '        checkpoint.register(rng, "rng")\n'
                '    while True:\n'
                '        for (data,) in reader.next_epoch(batch_size=batch_size):\n'
                '            yield (data * ndd.random.uniform(batch_size=batch_size, rng=rng)).evaluate(),\n'
                '\n'
                '\n'
                'pipe_checkpoint = ndd.checkpoint.Checkpoint()\n'
                "pipe = p('/data', checkpoint=pipe_checkpoint)\n"
                'out = next(pipe)\n'
                'pipe_checkpoint.collect()\n'
                'state = pipe_checkpoint.serialize().encode()\n'
                'resumed_checkpoint = ndd.checkpoint.Checkpoint()\n'
                'resumed_checkpoint.deserialize(state)\n'
                "resumed = p('/data', checkpoint=resumed_checkpoint)\n"
            ),
        ),
    ),
    valid=("class Model:\n    def checkpoint(self):\n        return {}\n\n\nstate = Model().checkpoint()\n",),
)


class Impl(RuleImpl):
    rule = RULE

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.enabled: set[str] = set()  # pipeline objects created with a checkpoint
        self.collect_before: dict[cst.CSTNode, list[str]] = {}  # statement → checkpoints to collect
        self.insert_before: dict[int, list] = {}  # id of a rewritten statement's body[0] → statements

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        func = original.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "checkpoint" and isinstance(func.value, cst.Name)):
            return updated
        fn = self.ctx.converted_kind(func.value, Kind.PIPELINE)
        if fn is None or not fn.checkpointing:
            return updated
        stmt = self.ctx.statement_stack[-1] if self.ctx.statement_stack else None
        if original.args or func.value.value not in self.enabled or not isinstance(stmt, cst.SimpleStatementLine):
            self.ctx.report(
                self.code, original, "`pipe.checkpoint(...)` not rewritten",
                hint=f"call `{checkpoints.name(func.value.value)}.collect()` and then `.serialize()` or `.save(pattern)`",
                fixed=False,
            )
            return updated
        ck = checkpoints.name(func.value.value)
        self.collect_before.setdefault(stmt, []).append(ck)
        self.ctx.report(self.code, original, f"`pipe.checkpoint()` → `{ck}.collect()`, `{ck}.serialize().encode()`", fixed=True)
        # bytes, as `pipe.checkpoint()` returned (files opened "wb" keep working); `deserialize`
        # takes bytes or str (json.loads)
        serialized = cst.Call(cst.Attribute(cst.Name(ck), cst.Name("serialize")))
        return cst.Call(cst.Attribute(serialized, cst.Name("encode")))

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated):
        """Remember what goes before this statement; it is inserted when its block is left, after
        NDD002 has removed `build()` calls (which needs the block's statements one for one)."""
        before = [_call_stmt(ck, "collect") for ck in self.collect_before.pop(original, [])]
        created = self._creation(original, updated)
        if created is not None:
            extra, updated = created
            before += extra
        if before and isinstance(updated, cst.SimpleStatementLine):
            self.insert_before[id(updated.body[0])] = before
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        return updated.with_changes(body=self._insert(updated.body)) if self.insert_before else updated

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        return updated.with_changes(body=self._insert(updated.body)) if self.insert_before else updated

    def _insert(self, body) -> list:
        out = []
        for stmt in body:
            before = self.insert_before.pop(id(stmt.body[0]), None) if isinstance(stmt, cst.SimpleStatementLine) else None
            if before:
                out += [before[0].with_changes(leading_lines=stmt.leading_lines), *before[1:]]
                stmt = stmt.with_changes(leading_lines=[])
            out.append(stmt)
        return out

    def _creation(self, original: cst.SimpleStatementLine, updated):
        """``pipe = f(..., enable_checkpointing=True / checkpoint=state)``: the checkpoint is created
        (and loaded) before, and passed as ``checkpoint=``."""
        stmt = original.body[0] if len(original.body) == 1 else None
        if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name)):
            return None
        fn = self.ctx.model.call_sites.get(stmt.value)
        if fn is None or not fn.convert or not fn.checkpointing or not isinstance(updated, cst.SimpleStatementLine):
            return None
        enabled, _ = checkpoints.creation_args(stmt.value)
        assign = updated.body[0]
        call = assign.value
        restore = cstutil.kwarg(call, "checkpoint")
        call = cstutil.remove_kwargs(call, {"enable_checkpointing", "checkpoint"})
        extra = []
        if enabled:
            ck = checkpoints.name(stmt.targets[0].target.value)
            self.enabled.add(stmt.targets[0].target.value)
            extra.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(ck))], cst.Call(self.ctx.ndd("checkpoint.Checkpoint")))]))
            if restore is not None:
                extra.append(_call_stmt(ck, "deserialize", restore.value))
            call = cstutil.add_kwarg(call, "checkpoint", cst.Name(ck))
            self.ctx.report(self.code, stmt, f"checkpointing → `{ck}` (ndd.checkpoint.Checkpoint) passed as `checkpoint=`", fixed=True)
        return extra, updated.with_changes(body=[assign.with_changes(value=call)])


def _call_stmt(obj: str, method: str, *args: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(cst.Call(cst.Attribute(cst.Name(obj), cst.Name(method)), [cst.Arg(a) for a in args]))])


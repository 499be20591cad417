"""NDD415 checkpoint: pipeline checkpointing becomes an ``ndd.checkpoint.Checkpoint`` with the
reader and RNGs registered by name."""

from __future__ import annotations

import libcst as cst

from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import checkpoints
from ndd_migrate.model.types import ImportedPipeline, Kind
from ndd_migrate.plan import uses
from ndd_migrate.syntax import cstutil, tree

RULE = Rule(
    code="NDD415",
    name="checkpoint",
    summary="pipeline checkpoints become an `ndd.checkpoint.Checkpoint` with registered reader and RNGs",
    what=(
        "A pipeline created with `enable_checkpointing=True` or restored with `checkpoint=state` (in the "
        "decorator, at the call site, or both: the call site wins) is migrated: the function takes `checkpoint=` "
        "(an `ndd.checkpoint.Checkpoint`) and registers its reader (under the reader's `name=`) and its RNGs "
        "right after creating them, so a loaded state is applied before the first `next_epoch`. Each call "
        "site `pipe = f(...)` gets `pipe_checkpoint = ndd.checkpoint.Checkpoint()` (plus "
        "`pipe_checkpoint.deserialize(state)`, under `if state is not None:` for a variable, when restoring) "
        "and passes it; `pipe.checkpoint()` becomes `pipe_checkpoint.collect()` before the statement and "
        "`pipe_checkpoint.serialize().encode()` (bytes, like the pipeline's); `pipe.checkpoint(path)` also "
        "writes those bytes to `path`. What cannot be rewritten so leaves the pipeline as it is, with one "
        "finding that says what to write instead: a call site that is "
        "not `name = f(...)`, `pipe.checkpoint(path)` inside a larger expression, `pipe.checkpoint()` in a "
        "lambda or a compound statement's header, on a pipeline created elsewhere or without checkpointing, a "
        "decorator state that a call site may not see (anything but a literal or a module-level name bound "
        "once), an external source (its position is not saved in dynamic mode). Checkpointing arguments at a "
        "call site of a pipeline migrated in another module are reported."
    ),
    why=(
        "Dynamic mode has no pipeline object to checkpoint; its state lives in the reader and the RNGs, "
        "which `ndd.checkpoint.Checkpoint` saves and restores by name."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "The batches after a restore are the batches an uninterrupted run gives (tested across processes). "
        "Checkpoints saved by the pipeline-mode program cannot be restored into the migrated one. A "
        "checkpoint taken before the first batch raises (the generator creates its reader at the first `next`)."
    ),
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, seed=3)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root, name='Reader')\n"
                "    return data * fn.random.uniform()\n\n\n"
                "pipe = p('/data', enable_checkpointing=True)\n"
                "pipe.build()\n"
                "out = pipe.run()\n"
                "state = pipe.checkpoint()\n"
                "resumed = p('/data', checkpoint=state)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "\n"
                "\n"
                "def p(root, *, batch_size=4, seed=3, checkpoint=None):\n"
                "    rng = ndd.random.RNG(seed=seed)\n"
                "    reader = ndd.readers.Numpy(file_root=root, name='Reader')\n"
                "    if checkpoint is not None:\n"
                '        checkpoint.register(reader, "Reader")\n'
                '        checkpoint.register(rng, "rng")\n'
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            yield (data * ndd.random.uniform(batch_size=batch_size, rng=rng)).evaluate(),\n"
                "\n"
                "\n"
                "pipe_checkpoint = ndd.checkpoint.Checkpoint()\n"
                "pipe = p('/data', checkpoint=pipe_checkpoint)\n"
                "out = next(pipe)\n"
                "pipe_checkpoint.collect()\n"
                "state = pipe_checkpoint.serialize().encode()\n"
                "resumed_checkpoint = ndd.checkpoint.Checkpoint()\n"
                "if state is not None:\n"
                "    resumed_checkpoint.deserialize(state)\n"
                "resumed = p('/data', checkpoint=resumed_checkpoint)\n"
            ),
        ),
        Example(
            title="declared in the decorator, saved to a file",
            before=(
                "from nvidia.dali import fn, pipeline_def\n\n\n"
                "@pipeline_def(batch_size=4, enable_checkpointing=True)\n"
                "def p(root):\n"
                "    data = fn.readers.numpy(file_root=root, name='Reader')\n"
                "    return data\n\n\n"
                "pipe = p('/data')\n"
                "pipe.build()\n"
                "out = pipe.run()\n"
                "pipe.checkpoint('state.bin')\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "\n"
                "\n"
                "def p(root, *, batch_size=4, checkpoint=None):\n"
                "    reader = ndd.readers.Numpy(file_root=root, name='Reader')\n"
                "    if checkpoint is not None:\n"
                '        checkpoint.register(reader, "Reader")\n'
                "    while True:\n"
                "        for (data,) in reader.next_epoch(batch_size=batch_size):\n"
                "            yield data.evaluate(),\n"
                "\n"
                "\n"
                "pipe_checkpoint = ndd.checkpoint.Checkpoint()\n"
                "pipe = p('/data', checkpoint=pipe_checkpoint)\n"
                "out = next(pipe)\n"
                "pipe_checkpoint.collect()\n"
                "with open('state.bin', \"wb\") as checkpoint_file:\n"
                "    checkpoint_file.write(pipe_checkpoint.serialize().encode())\n"
            ),
        ),
    ),
    valid=("class Model:\n    def checkpoint(self):\n        return {}\n\n\nstate = Model().checkpoint()\n",),
)


class Impl(RuleImpl):
    rule = RULE
    reports = (constructs.CHECKPOINTING,)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # statement → [(checkpoint, file name or None)] of the `pipe.checkpoint(...)` calls in it
        self.uses: dict[cst.CSTNode, list[tuple[str, cst.BaseExpression | None]]] = {}
        # id of a rewritten statement's body[0] → (statements before, statements after, drop it)
        self.insert_at: dict[int, tuple[list, list, bool]] = {}

    def claims(self, use):
        """``pipe.checkpoint()`` of a pipeline created with checkpointing: rewritten, or marked."""
        if use.kind is not Kind.PIPELINE or use.context != uses.METHOD or use.detail != "checkpoint":
            return None
        if not getattr(use.pipeline, "checkpointing", False):
            return "checkpointing is not enabled where the pipeline is created"
        return True

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        """``pipe.checkpoint()`` → ``pipe_checkpoint.serialize().encode()``, collected before the
        statement; ``pipe.checkpoint(path)`` also writes the file. The analysis has blocked every
        pipeline with a use that cannot be rewritten so (``checkpoints.blocked``)."""
        func = original.func
        if not (
            isinstance(func, cst.Attribute) and func.attr.value == "checkpoint" and isinstance(func.value, cst.Name)
        ):
            self._imported_creation(original)
            return updated
        pipeline = self.ctx.converted_kind(func.value, Kind.PIPELINE)
        if pipeline is None or not pipeline.checkpointing:
            return updated
        stmt = self.ctx.walk.statements[-1] if self.ctx.walk.statements else None
        if not isinstance(stmt, cst.SimpleStatementLine) or len(original.args) > 1:  # blocked by the analysis
            self.ctx.report(
                self.code,
                original,
                "`pipe.checkpoint(...)` not rewritten",
                hint="collect the `ndd.checkpoint.Checkpoint` the pipeline was created with, then `.serialize()` it",
                fixed=False,
            )
            return updated
        ck = checkpoints.name(func.value.value)
        path = updated.args[0].value if updated.args else None
        self.uses.setdefault(stmt, []).append((ck, path))
        use, also = (
            ("`pipe.checkpoint(path)`", ", written to `path`") if path is not None else ("`pipe.checkpoint()`", "")
        )
        self.ctx.report(self.code, original, f"{use} → `{ck}.collect()`, `{ck}.serialize().encode()`{also}", fixed=True)
        # bytes, as `pipe.checkpoint()` returned (files opened "wb" keep working); `deserialize`
        # takes bytes or str (json.loads)
        return _serialized(ck)

    def _imported_creation(self, call: cst.Call) -> None:
        """A pipeline migrated in another module of the run knows nothing of this call's
        checkpointing (its module blocks checkpointing it has no call site for): reported."""
        given = [
            a.keyword.value
            for a in call.args
            if a.keyword is not None and a.keyword.value in (checkpoints.ENABLE, checkpoints.RESTORE)
        ]
        found = self.ctx.kind(call) if given else None
        if not (found and found[0] is Kind.PIPELINE and isinstance(found[1], ImportedPipeline) and found[1].convert):
            return
        name = found[1].qualname.rsplit(".", 1)[-1]
        self.ctx.report(
            self.code,
            call,
            f"`{name}` is migrated in its own module, which does not take `{'=`, `'.join(given)}=` from here",
            hint=f"create and checkpoint the pipeline in the module that defines `{name}` (NDD415 migrates it there), "
            "or keep that module in pipeline mode",
            fixed=False,
        )

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated):
        """Remember what goes before (and after) this statement; it is inserted when its block is
        left, after NDD002 has removed `build()` calls (which needs the block's statements one for one)."""
        before, after, drop = [], [], False
        for ck, path in self.uses.pop(original, []):
            before.append(_call_stmt(ck, "collect"))
            if path is None:
                continue
            small = updated.body[0] if isinstance(updated, cst.SimpleStatementLine) else None
            handle = cstutil.fresh("checkpoint_file", self._names_in_scope())
            if isinstance(small, cst.Assign):  # state = pipe.checkpoint(path): write what it holds
                after.append(checkpoints.save_to_file(path, small.targets[0].target.deep_clone(), handle))
            else:  # the whole statement: it only wrote the file
                before.append(checkpoints.save_to_file(path, _serialized(ck), handle))
                drop = True
        created = self._creation(original, updated)
        if created is not None:
            extra, updated = created
            before += extra
        if (before or after) and isinstance(updated, cst.SimpleStatementLine):
            self.insert_at[id(updated.body[0])] = (before, after, drop)
        return updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        return updated.with_changes(body=self._insert(updated.body)) if self.insert_at else updated

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        return updated.with_changes(body=self._insert(updated.body)) if self.insert_at else updated

    def _insert(self, body) -> list:
        out = []
        for stmt in body:
            found = self.insert_at.pop(id(stmt.body[0]), None) if isinstance(stmt, cst.SimpleStatementLine) else None
            if found is None:
                out.append(stmt)
                continue
            before, after, drop = found
            if before:
                out += [before[0].with_changes(leading_lines=stmt.leading_lines), *before[1:]]
                stmt = stmt.with_changes(leading_lines=[])
            if not drop:
                out.append(stmt)
            out += after
        return out

    def _names_in_scope(self) -> set[str]:
        """Names a fresh name must not take here: the module's and the enclosing function's."""
        used = set(self.ctx.model.names.module_level)
        if self.ctx.walk.functions:
            used |= {n.value for n in tree.walk(self.ctx.walk.functions[-1]) if isinstance(n, cst.Name)}
        return used

    def _creation(self, original: cst.SimpleStatementLine, updated):
        """``pipe = f(...)`` of a pipeline with checkpointing enabled (in the decorator or at the
        call site): the checkpoint is created (and loaded) before, and passed as ``checkpoint=``."""
        stmt = original.body[0] if len(original.body) == 1 else None
        if not (
            isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name)
        ):
            return None
        pipeline = self.ctx.model.call_sites.get(stmt.value)
        if (
            pipeline is None
            or not pipeline.convert
            or not pipeline.checkpointing
            or not isinstance(updated, cst.SimpleStatementLine)
        ):
            return None
        enabled, restore = checkpoints.creation_args(stmt.value, pipeline)
        assign = updated.body[0]
        call = assign.value
        if restore is not None:
            if checkpoints.restored_from_decorator(stmt.value, pipeline):
                restore = restore.deep_clone()
            else:
                restore = cstutil.kwarg(call, checkpoints.RESTORE).value
        call = cstutil.remove_kwargs(call, {checkpoints.ENABLE, checkpoints.RESTORE})
        extra = []
        if enabled:
            ck = checkpoints.name(stmt.targets[0].target.value)
            extra.append(
                cst.SimpleStatementLine(
                    [cst.Assign([cst.AssignTarget(cst.Name(ck))], cst.Call(self.ctx.ndd("checkpoint.Checkpoint")))]
                )
            )
            if restore is not None:
                extra.append(checkpoints.restore(ck, restore))
            call = cstutil.add_kwarg(call, "checkpoint", cst.Name(ck))
            self.ctx.report(
                self.code,
                stmt,
                f"checkpointing → `{ck}` (ndd.checkpoint.Checkpoint) passed as `checkpoint=`",
                fixed=True,
            )
        return extra, updated.with_changes(body=[assign.with_changes(value=call)])


def _serialized(ck: str) -> cst.Call:
    return cst.Call(cst.Attribute(cst.Call(cst.Attribute(cst.Name(ck), cst.Name("serialize"))), cst.Name("encode")))


def _call_stmt(obj: str, method: str, *args: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(
        [cst.Expr(cst.Call(cst.Attribute(cst.Name(obj), cst.Name(method)), [cst.Arg(a) for a in args]))]
    )

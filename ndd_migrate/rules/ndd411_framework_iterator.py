"""NDD411 framework-iterator: a DALI PyTorch iterator becomes per-epoch iterators over the migrated
pipeline's batches, with the same batches per epoch and last-batch policy."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ScopeProvider

from ndd_migrate import support
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import constructs
from ndd_migrate.model.features import drop_in, handed_on, iterator_arguments, iterator_subclasses, iterators
from ndd_migrate.model.types import Kind
from ndd_migrate.plan import uses
from ndd_migrate.syntax import cstutil

_BEFORE = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy\n\n\n"
    "@pipeline_def(batch_size=8)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return fn.decoders.image(jpegs), labels\n\n\n"
    "pipe = p('/data')\n"
    "loader = DALIClassificationIterator(pipe, reader_name='Reader', last_batch_policy=LastBatchPolicy.PARTIAL)\n"
    "for epoch in range(2):\n"
    "    for data in loader:\n"
    "        images = data[0]['data']\n"
    "    loader.reset()\n"
)

# The example pipeline `p` in the epoch-aware shape (docs/target-shape.md, "Framework iterators").
_EPOCH_AWARE_P = (
    "def p(root, *, batch_size=8):\n"
    "    reader = ndd.readers.File(file_root=root, name='Reader', max_batch_size=batch_size)\n\n"
    "    @prefetching\n"
    "    def batches():\n"
    "        while True:\n"
    "            for jpegs, labels in reader.next_epoch(batch_size=batch_size):\n"
    "                yield ndd.decoders.image(jpegs).evaluate(), labels.evaluate()\n\n"
    "    return reader.get_metadata(), batches()\n\n\n"
)

_AFTER = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "from ndd_support import dali_iterator_epochs, prefetching\n\n\n"
    + _EPOCH_AWARE_P
    + "pipe_meta, pipe = p('/data')\n"
    'loader = dali_iterator_epochs(pipe, pipe_meta, ["data", "label"], "partial")\n'
    "for epoch in range(2):\n"
    "    for data in next(loader):\n"
    "        images = data[0]['data']\n"
)

_RETURNED = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIClassificationIterator\n\n\n"
    "@pipeline_def(batch_size=8)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return fn.decoders.image(jpegs), labels\n\n\n"
    "def get_loader(root):\n"
    "    pipe = p(root)\n"
    "    pipe.build()\n"
    "    loader = DALIClassificationIterator(pipe, reader_name='Reader', auto_reset=True)\n"
    "    return loader, len(loader)\n"
)

_RETURNED_AFTER = (
    "import nvidia.dali.experimental.dynamic as ndd\n\n"
    "from ndd_support import DALIClassificationIterator, prefetching\n\n\n" + _EPOCH_AWARE_P + "def get_loader(root):\n"
    "    pipe_meta, pipe = p(root)\n"
    "    loader = DALIClassificationIterator(pipe, reader_name='Reader', auto_reset=True, reader_meta=pipe_meta)\n"
    "    return loader, len(loader)\n"
)

_SUBCLASS = (
    "from nvidia.dali import fn, pipeline_def\n"
    "from nvidia.dali.plugin.pytorch import DALIGenericIterator as Iterator\n\n\n"
    "@pipeline_def(batch_size=8)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return fn.decoders.image(jpegs), labels\n\n\n"
)
_SUBCLASSED = (
    "class Scaled(Iterator):\n"
    "    def __next__(self):\n"
    "        data = super().__next__()\n"
    "        return data[0]['data'] / 255\n\n\n"
    "pipe{meta} = p('/data')\n"
    "loader = Scaled({pipe}, ['data', 'label'], reader_name='Reader')\n"
)

_TF_OP = (
    "import nvidia.dali.plugin.tf as dali_tf\n"
    "from nvidia.dali import fn, pipeline_def\n\n\n"
    "@pipeline_def(batch_size=8)\n"
    "def p(root):\n"
    "    jpegs, labels = fn.readers.file(file_root=root, name='Reader')\n"
    "    return fn.decoders.image(jpegs), labels\n\n\n"
    "def tensors(root):\n"
    "    op = dali_tf.DALIIterator()\n"
    "{todo}"
    "    return op(pipeline=p(root), batch_size=8)\n"
)

RULE = Rule(
    code="NDD411",
    name="framework-iterator",
    summary="a DALI framework iterator wraps a pipeline object; dynamic mode iterates the reader",
    what=(
        "Rewrites `DALIGenericIterator(pipe, output_map, reader_name=..., last_batch_policy=...)` and "
        "`DALIClassificationIterator(...)` (nvidia.dali.plugin.pytorch) over a migrated pipeline into "
        "`dali_iterator_epochs(pipe, pipe_meta, output_map, policy)`, a generator of epochs imported from "
        "the project's support module (`ndd_support.py`): each `next()` gives one epoch of `[{name: tensor}]` batches, the batches the iterator "
        "gave, trimmed (PARTIAL), dropped (DROP) or carried over (FILL) at the epoch end with the reader's "
        "metadata, shards moving as in DALI. The pipeline call becomes `pipe_meta, pipe = p(...)` "
        '(docs/target-shape.md, "Framework iterators"); `for data in loader` becomes '
        "`for data in next(loader)` and `loader.reset()` goes. The legacy `fill_last_batch=True/False` "
        "becomes FILL/PARTIAL as DALI maps it (over `last_batch_policy`), `last_batch_padded=False` "
        "goes, `[pipe]` is the pipeline itself, `pipelines=` is read as the first argument. Over several "
        "pipelines (`[p0, p1]`, or `pipes = [p(shard_id=i) for i in ...]`, which becomes "
        "`pipes_meta, pipes = zip(*[...])`) it becomes `dali_iterator_epochs_many(pipes, pipes_meta, ...)`: "
        "one dict per pipeline in each batch, as DALI gave them. `size=n` without `reader_name` becomes "
        "`dali_iterator_sized_epochs([pipe], n, output_map, policy)`, `n` samples per epoch over all "
        "pipelines as DALI counted them. With neither, over a pipeline whose iterable external source raises "
        "`StopIteration` at each epoch end (every object of it used only by such iterators and `build()`), "
        "the function returns a generator function over one `iter(source)` and the iterator becomes "
        "`dali_iterator_source_epochs(pipe, output_map)`, one generator per epoch, as DALI drew each epoch "
        "from the same source iterator. An iterator kept in a `self` attribute set once by one method "
        "(over a pipeline in a name or in such an attribute) is followed too: loops over it, `.reset()`, "
        "and `__iter__()`/`iter()` looped over or returned by `__iter__` (each one epoch). An iterator "
        "used otherwise (returned, kept by a wrapper, `len(loader)`, `.size`, `next(loader)`, `reset()` in "
        "a callee) keeps DALI's interface instead: its import moves to the support module, whose "
        "`DALIGenericIterator` and `DALIClassificationIterator` take the same arguments over the migrated "
        "pipeline (`reader_meta=pipe_meta` added with `reader_name`) and give the same batches, `len()`, "
        "`size` and epochs; an attribute they lack (`checkpoints()`) keeps the pipeline. Other iterators "
        "with neither `reader_name` nor `size=` and `DALIRaggedIterator` are reported. The iterators of "
        "JAX and PaddlePaddle always keep DALI's interface: their import moves to the support module's "
        "`DALIJaxGenericIterator`, `DALIPaddleGenericIterator` or `DALIPaddleClassificationIterator` "
        "(under the name DALI's had), giving DALI's `{name: jax.Array}` or `[{name: DenseTensor}]` batches "
        "through DLPack, the call as written with `reader_meta=`; JAX's `sharding=`, `pmap_compatible=` or "
        "several pipelines, and a Paddle `output_map` that is not a list of names (LoD levels), keep the "
        "pipeline. A pipeline given to the iterators of MXNet or TensorFlow is kept in "
        "pipeline mode with one finding (dynamic mode converts batches for PyTorch only): also through "
        "TensorFlow's `DALIIterator` op (`op = dali_tf.DALIIterator(); op(pipeline=pipe, ...)`), and "
        "through an iterator class chosen at run time (a parameter, `def run(Iterator): Iterator(pipes, ...)`, "
        "or its op) in a module whose functions hand out another framework's iterator class "
        "(`return MXNetIterator`); `pipes = [...] if flag else None` is followed as the list. A class "
        "deriving from DALI's PyTorch iterator (through its import, any alias) gets the support module's "
        "class as its base, and a call of it is read as the call of the base its `__init__` makes "
        "(`super().__init__(...)` given parameters, `*args`/`**kwargs`, constants or expressions of them, "
        "each read with the call's arguments; no value of `self`): the pipelines given "
        "to it migrate as if given to the iterator, each with its reader's metadata (`(pipe_meta, pipe)`), "
        "when the class touches only what the support module keeps as DALI did (`_first_batch`, `_size`, "
        "`batch_size`, `_counter`, `output_map`, `reset()`, `super().__next__()`, `__len__`...), reads "
        "the pipelines only to give them to the base, is read only by calls, and every call of it converts: "
        "in its module, and in the other modules importing it, which must all be in the run. "
        "Any other class deriving from a DALI iterator is reported at the class with the reason, and the "
        "pipelines given to it are not migrated: its base class runs a `Pipeline`. A class that wraps the "
        "iterator instead (`self.it = DALIClassificationIterator(pipelines=pipelines, size=size)` in its "
        "`__init__`, given a parameter) is read the same way at its calls: the iterator it makes becomes the "
        "support module's, when the class uses it only as both allow (`reset()`, `size`, `_size`, "
        "`batch_size`, `len()`, `next()`, iterating it, returning it from `__iter__`), in the class, in the "
        "classes of its module deriving from it, in a function of the module it is handed to (a worker "
        "thread's `target=`) and through its instances, and some pipeline of its module converts or the modules importing the class "
        "give it migrated ones. That iterator hands pipeline-mode pipelines to DALI's own class, so a call "
        "of the class in code the run did not see, or one given a pipeline that stays, runs as before."
    ),
    why=(
        "Dynamic mode has no iterator class: a reader gives full batches per epoch that wrap into the "
        "next one, so an epoch's end must be cut by counting samples, as the DALI iterator did."
    ),
    fix_safety=FixSafety.UNSAFE,
    fix=(
        "Same batches per epoch as the DALI iterator, tensors from `.torch()` without a `.cpu()` round "
        "trip (checked against DALI for FILL, PARTIAL and DROP, with and without sharding); JAX's and "
        "PaddlePaddle's arrays through DLPack (checked against their DALI iterators on the CPU). The loop "
        "must run each epoch to its end before taking the next one."
    ),
    examples=(
        Example(
            title="PARTIAL last batch, per-epoch loop",
            before=_BEFORE,
            after=_AFTER,
        ),
        Example(
            title="an iterator returned with its length: the support module's iterator of the same name",
            before=_RETURNED,
            after=_RETURNED_AFTER,
        ),
        Example(
            title="a class deriving from a DALI iterator: its base becomes the support module's",
            before=_SUBCLASS + _SUBCLASSED.format(meta="", pipe="pipe"),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n\n"
                "from ndd_support import DALIGenericIterator as Iterator, prefetching\n\n\n"
                + _EPOCH_AWARE_P
                + _SUBCLASSED.format(meta="_meta, pipe", pipe="(pipe_meta, pipe)")
            ),
        ),
        Example(
            title="TensorFlow's `DALIIterator` op: kept in pipeline mode",
            before=_TF_OP.format(todo=""),
            after=_TF_OP.format(
                todo=(
                    "    # TODO(ndd-migrate): NDD411 kept in pipeline mode: its pipeline feeds `op(pipeline=...)`, "
                    "TensorFlow's `DALIIterator` op, which has no dynamic-mode form; keep it in pipeline mode for "
                    "TensorFlow: dynamic mode hands out batches for PyTorch only (`.torch()`); or iterate the "
                    "migrated generator yourself and convert each batch for TensorFlow (e.g. through DLPack), "
                    "ending each epoch at `reader.get_metadata()['epoch_size']`\n"
                ),
            ),
        ),
    ),
    valid=("from torch.utils.data import DataLoader\n\nloader = DataLoader([1, 2])\nfor x in loader:\n    pass\n",),
)


_NO_SIZE = "without `reader_name` or `size=` the epoch ends where the pipeline stops, and a migrated one never does"


class Impl(RuleImpl):
    rule = RULE
    reports = (constructs.ITERATOR_SUBCLASS, constructs.FRAMEWORK_ITERATOR)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # The reads of the iterators bound to a name that are rewritten (original nodes, found by
        # scope when the module is entered: a value that merely has the same name is another value).
        self.loader_accesses: set[cst.Name] = set()
        # The reads of iterators kept in a `self` attribute that are rewritten (original nodes,
        # found when their class is entered: a method may read the attribute above `__init__`).
        self.loader_reads: set = set()
        self.subclasses: dict[str, str] = {}  # classes deriving from a DALI iterator → that iterator
        self._drop_ins: dict[cst.Call, bool] = {}  # iterator calls → replaced by the support module's class

    def visit_Module(self, node: cst.Module) -> None:
        self._move_iterator_imports()
        for found in self.ctx.model.parents:
            if not isinstance(found, cst.Assign) or len(found.targets) != 1:
                continue
            target = found.targets[0].target
            if not isinstance(target, cst.Name) or not isinstance(found.value, cst.Call):
                continue
            if self._rewritten(found.value) is None or self._drop_in(found.value):
                continue
            scope = self.ctx.resolver.get_metadata(ScopeProvider, found, None)
            for assignment in scope.assignments[target.value] if scope is not None else ():
                if getattr(assignment, "node", None) is target:
                    self.loader_accesses.update(access.node for access in assignment.references)

    # -- a class deriving from a DALI iterator: reported at the class --------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for found in self.ctx.model.attributes.stores.values():
            value = found.value
            if (
                found.cls is node
                and isinstance(value, cst.Call)
                and self._rewritten(value)
                and not self._drop_in(value)
            ):
                self.loader_reads.update(found.reads)
        base = iterators.iterator_base(node, self.dali_name, self.subclasses)
        if base is not None:
            self.subclasses[node.name.value] = base
            sub = self.ctx.model.iterator_classes.get(node)
            if sub is not None and self._subclass_converts(sub):
                short = base.rsplit(".", 1)[-1]
                self.ctx.report(
                    self.code, node, f"`{node.name.value}` derives from the support module's `{short}`", fixed=True
                )
                return
            blocker = (sub.blocker or self._kept_by_importer(sub)) if sub is not None else None
            message, hint = iterator_subclasses.subclass_message(node, base, blocker)
            self.ctx.report(self.code, node, message, hint=hint, fixed=False)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        """The base of a class that takes migrated pipelines, where DALI's import stays for others:
        the support module's class under a name of its own."""
        bound = self._rebased.get(original)
        if bound is None:
            return updated
        return updated.with_changes(bases=[updated.bases[0].with_changes(value=cst.Name(bound))])

    def _subclass_converts(self, sub) -> bool:
        """Does the class ``sub`` take the support module's iterator as its base: every call of it
        given pipelines that migrate?"""
        if sub.blocker is not None:
            return False
        if sub.wrapper and any(p.convert for p in self.ctx.model.pipelines.values()):
            return True  # its iterator takes the module's migrated pipelines and DALI's alike
        if self._kept_by_importer(sub):
            return False
        if not sub.calls:  # called by other modules of the run only, each with migrated pipelines
            names = iterator_subclasses.names_of(sub, self.ctx.model, self.ctx.path)
            return any(name in self.ctx.policy.rebased_iterator_classes for name in names)
        return all(self._rewritten(c) is not None for c in sub.calls)

    def _kept_by_importer(self, sub) -> str | None:
        """Why another module keeps DALI's base for the class ``sub`` (it imports it), or None."""
        kept = self.ctx.policy.kept_iterator_classes
        return next(
            (kept[n] for n in iterator_subclasses.names_of(sub, self.ctx.model, self.ctx.path) if n in kept), None
        )

    def claims(self, use):
        """A pipeline given to a PyTorch iterator that this rule rewrites, with every use of the
        iterator: ``for data in loader``, ``loader.reset()``, passing it on."""
        call = self._iterator_call(use)
        if call is None:
            return None
        dali, view = self._iterator_of(call)
        sub = self.ctx.model.iterator_subclasses.get(call)
        if sub is not None and view is None:
            return f"`{sub.node.name.value}(...)`: its arguments cannot be bound to the parameters of its `__init__`"
        if not _rewrites(dali, sub is not None):
            if dali in iterators.OTHER_ITERATORS:
                return f"`{dali.rsplit('.', 1)[-1]}` of `{dali.rsplit('.', 2)[-2]}` has no dynamic-mode form"
            return None
        short = sub.node.name.value if sub is not None else dali.rsplit(".", 1)[-1]
        why = iterator_arguments.given_unfollowed(
            self.ctx.model, use, view, dali, short
        ) or iterator_arguments.drop_in_refused(use, view, dali, short)
        if why:
            return why
        why = self._unsupported(view, dali, iterators.all_restart(use.pipeline), self._drop_in(call))
        if why == _NO_SIZE and any(getattr(m, "source", None) is not None for m in use.members):
            why = iterator_arguments.no_size_beside_source(use)
        if not why and sub is not None:  # the support module's iterator becomes its base
            why = self._subclass_blocker(call, sub)
        elif not why and (dali in iterators.DROP_IN_ONLY or self._loader_uses(call)):
            why = self._drop_in_blocker(call)  # the drop-in keeps the iterator's interface
        if why:
            return f"`{short}(...)`: {why}"
        return self.ctx.applies(self.code, call) or None

    def _iterator_call(self, use) -> cst.Call | None:
        """The call a pipeline (or a list of them) is an argument of, or an element of a list argument of."""
        if use.kind not in (Kind.PIPELINE, Kind.PIPELINES) or use.context not in (uses.ARGUMENT, uses.ELEMENT):
            return None
        call = (
            use.holder
            if use.context == uses.ARGUMENT
            else self.ctx.model.parents.get(self.ctx.model.parents.get(use.holder))
        )
        return call if isinstance(call, cst.Call) else None

    def _loader_uses(self, call: cst.Call) -> str | None:
        """Why the iterator's uses cannot all be rewritten, or None: it must be bound to a plain
        name, used only by loops over it, ``reset()``, and being passed on (``len()``, other
        attributes: marked where they are)."""
        parents = self.ctx.model.parents
        assign = parents.get(call)
        target = assign.targets[0].target if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
        found = self.ctx.model.attributes.stores.get(target)
        if found is not None:  # `self.loader = DALIGenericIterator(...)`, set once by one method
            return iterators.attribute_loader_uses(found, parents)
        if not isinstance(target, cst.Name):
            return "the iterator is not bound to a plain name or to an attribute set once by one method"
        name = assign.targets[0].target.value
        scope = self.ctx.resolver.get_metadata(ScopeProvider, assign, None)
        if scope is None or len(scope.assignments[name]) != 1:
            return f"`{name}` is bound more than once"
        for assignment in scope.assignments[name]:
            for access in sorted(assignment.references, key=self._where):  # the first use is reported
                parent = parents.get(access.node)
                if isinstance(parent, cst.For) and parent.iter is access.node:
                    continue
                if isinstance(parent, cst.Arg) and parent.value is access.node:
                    why = handed_on.passed_on_misuse(parents, parents.get(parent), parent)
                    if why:
                        return f"the iterator `{name}`: {why}"
                    continue
                if isinstance(parent, cst.Attribute) and parent.value is access.node:
                    if parent.attr.value == "reset" and cstutil.is_statement_call(parents, parent):
                        continue
                    return f"the iterator `{name}`: `.{parent.attr.value}` has no counterpart on the epoch generator"
                return f"the iterator `{name}` is used in a `{type(parent).__name__}`"
        return None

    def _where(self, access) -> tuple[int, int]:
        position = self.ctx.positions(getattr(access, "node", access))
        return (position.start.line, position.start.column) if position is not None else (0, 0)

    # -- the pipeline call site: `pipe = p(...)` → `pipe_meta, pipe = p(...)` --------------------
    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        target = original.targets[0].target if len(original.targets) == 1 else None
        if iterators.followed_attribute(self.ctx.model, target) is not None:  # `self.pipe = p(...)`
            pipeline = iterators.site(self.ctx.model, original.value)
            if pipeline is not None and pipeline.epochs and pipeline.convert:
                meta = cst.Element(
                    iterators.meta_of(target), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                )
                pair = cst.Tuple([meta, cst.Element(updated.targets[0].target)], lpar=[], rpar=[])
                return updated.with_changes(targets=[updated.targets[0].with_changes(target=pair)])
            return updated
        if not isinstance(target, cst.Name):
            return updated
        pipeline = iterators.made_by(self.ctx.model, original.value)
        value = updated.value
        if pipeline is None:  # `pipes = [p(shard_id=i) for i in ...]`: `pipes_meta, pipes = zip(*[...])`
            sites = iterators.listed_sites(self.ctx.model, original.value)
            pipeline = sites[0] if sites and all(f is sites[0] for f in sites) else None
            value = cst.Call(cst.Name("zip"), [cst.Arg(updated.value, star="*")])
        if pipeline is not None and iterators.all_epochs(pipeline) and pipeline.convert:
            meta = cst.Element(
                cst.Name(iterators.meta_name(target.value)), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
            pair = cst.Tuple([meta, cst.Element(cst.Name(target.value))], lpar=[], rpar=[])
            return updated.with_changes(targets=[updated.targets[0].with_changes(target=pair)], value=value)
        return updated

    def leave_Del(self, original: cst.Del, updated: cst.Del):
        """``del self.pipe`` of a followed attribute that now holds its reader's metadata beside it
        (``self.pipe_meta, self.pipe = p(...)``): both are deleted, as the one attribute was."""
        several = isinstance(original.target, (cst.Tuple, cst.List))
        targets = [e.value for e in original.target.elements] if several else [original.target]
        metas = [self._deleted_meta(target) for target in targets]
        if not any(metas):
            return updated
        written = [e.value for e in updated.target.elements] if several else [updated.target]
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        elements = [
            element
            for meta, target in zip(metas, written)
            for element in ([cst.Element(meta)] if meta is not None else []) + [cst.Element(target)]
        ]
        elements = [e.with_changes(comma=sep) for e in elements[:-1]] + elements[-1:]
        return updated.with_changes(target=cst.Tuple(elements, lpar=[], rpar=[]))

    def _deleted_meta(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """``self.pipe_meta`` for ``self.pipe`` deleted in a method of the class whose followed
        attribute it is, where the store gives it the reader's metadata; else None."""
        if not isinstance(node, cst.Attribute):
            return None
        cls = self.ctx.model.parents.get(node)
        while cls is not None and not isinstance(cls, cst.ClassDef):
            cls = self.ctx.model.parents.get(cls)
        for found in self.ctx.model.attributes.stores.values():
            if found.cls is cls and found.name == node.attr.value:
                pipeline = iterators.site(self.ctx.model, found.value)
                if pipeline is not None and pipeline.epochs and pipeline.convert:
                    return iterators.meta_of(found.target)
        return None

    # -- the iterator ------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call):
        if original in self._wrapped:
            return self._wrapped_call(original, updated)
        epoch = iterators.epoch_of(original, self.loader_reads)
        if epoch is not None:  # `self.loader.__iter__()`, `iter(self.loader)`: one epoch
            self.ctx.report(
                self.code, original, "iterating the DALI iterator gives one epoch: `next(loader)`", fixed=True
            )
            return _next(epoch)
        if any(self._is_loader(a.value) for a in original.args):
            return self._loader_passed(original, updated)
        found = self._rewritten(original)
        if found is None:
            return updated
        dali, pipe, pipeline = found
        if self._drop_in(original):
            return self._with_drop_in(original, updated, dali, pipe)
        named = iterators.keyworded(original, dali)  # `size` and the rest may be given by position
        sized = cstutil.kwarg(named, "size")
        self.ctx.report(
            self.code, original, "DALI iterator → per-epoch iterators over the migrated pipeline", fixed=True
        )
        output_map = iterator_arguments.output_map(original, dali)
        policy = self._policy(original)
        if sized is not None:  # its value as the other rules rewrote it (`pipe.epoch_size()` → the metadata's)
            size = cstutil.kwarg(iterators.keyworded(updated, dali), "size").value
            return self._sized(pipe, size, output_map, policy, cstutil.kwarg(named, "last_batch_padded"))
        if cstutil.kwarg(named, "reader_name") is None:  # `fn.restarts`: epochs end at `StopIteration`
            sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            return cst.Call(self.ctx.support(support.SOURCE_EPOCHS), [cst.Arg(pipe, comma=sep), cst.Arg(output_map)])
        streams, metas, several = self._metas(pipe)
        args = [streams, metas, output_map]
        if policy != "fill":
            args.append(cst.SimpleString(f'"{policy}"'))
        return cst.Call(
            self.ctx.support(support.EPOCHS_MANY if several else support.EPOCHS),
            [cst.Arg(a, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]]
            + [cst.Arg(args[-1])],
        )

    # -- the drop-in: an iterator whose uses a generator of epochs cannot take -------------------
    def _drop_in(self, call: cst.Call) -> bool:
        """Is the iterator ``call`` replaced by the support module's class of the same name (its
        uses are the DALI iterator's: kept, returned, wrapped, ``len()``, ``.size``; or it is given
        pipelines made in its call, which it takes with their metadata)?"""
        if call not in self._drop_ins:
            self._drop_ins[call] = (
                call in self.ctx.model.iterator_subclasses
                or self.dali_name(call.func) in iterators.DROP_IN_ONLY
                or self._given_in_call(call)
                or self._loader_uses(call) is not None
            )
        return self._drop_ins[call]

    def _given_in_call(self, call: cst.Call) -> bool:
        """Is ``call`` given its pipelines made in it (``DALIGenericIterator([p(...)], ...)``)?"""
        dali, view = self._iterator_of(call)
        given = iterators.epoch_aware(view, dali) if view is not None else None
        return given is not None and iterators.given_directly(self.ctx.model, iterators.listed(given)[0]) is not None

    def _drop_in_blocker(self, call: cst.Call) -> str | None:
        """Why the support module's iterator cannot stand in for ``call``, or None."""
        return drop_in.blocker(self.ctx.model, self._scope_of, call, self._where, self.dali_name)

    def _scope_of(self, node: cst.CSTNode):
        return self.ctx.resolver.get_metadata(ScopeProvider, node, None)

    def _move_iterator_imports(self) -> None:
        """Where every call of an imported DALI iterator class converts (and every class deriving
        from it takes the support module's), its import moves to the support module (the calls
        stay as written); otherwise each drop-in call, and each such class, names the support
        module's class under a name of its own."""
        converting = [
            s for s in self.ctx.model.iterator_classes.values() if not s.imported and self._subclass_converts(s)
        ]
        # The iterator call of each converting wrapper class: the support module's class is called there.
        self._wrapped: dict[cst.Call, object] = {s.super_call: s for s in converting if s.wrapper}
        rebased = [s for s in converting if not s.wrapper]
        for sub in self._wrapped.values():
            sub.rebased = True  # its iterator is the support module's: other modules read it so
        moved = drop_in.moved_imports(self.ctx.model, self._scope_of, self.dali_name, self._converts_as, rebased)
        self.ctx.imports.moved_to_support.update(moved)
        self._swapped: set[str] = set(moved)
        self._rebased: dict[cst.ClassDef, str] = {}  # classes whose base is renamed → the name
        for sub in {id(s): s for s in self.ctx.model.iterator_subclasses.values() if s.imported}.values():
            sub.rebased = not self._kept_by_importer(sub) and all(self._rewritten(c) is not None for c in sub.calls)
        for sub in rebased:
            sub.rebased = True
            if sub.base_name not in self._swapped:
                self._rebased[sub.node] = self._support_name(sub.base.rsplit(".", 1)[-1])

    def _converts_as(self, call: cst.Call) -> str | None:
        """How the iterator ``call`` converts: ``"drop-in"``, ``"epochs"``, or None (it stays)."""
        if call in self._wrapped:
            return "drop-in"
        if self._rewritten(call) is None:
            return None
        return "drop-in" if self._drop_in(call) else "epochs"

    def _support_name(self, cls: str) -> str:
        """The name the support module's class ``cls`` is imported under where DALI's import stays."""
        taken = cls in self.ctx.model.names.module_level and cls not in self.ctx.imports.moved_to_support
        bound = f"Ndd{cls}" if taken else cls  # DALI's class keeps its name for the calls that stay
        self.ctx.imports.moved_to_support[bound] = cls
        return bound

    def _with_drop_in(self, original: cst.Call, updated: cst.Call, dali: str, pipe) -> cst.Call:
        """``DALIClassificationIterator(pipe, reader_name=..., ...)`` of the support module, each
        argument as written, with ``reader_meta=`` the migrated readers' metadata."""
        cls = iterators.SUPPORT_CLASSES[dali]
        if original in self.ctx.model.iterator_subclasses:
            return self._subclass_call(original, updated, dali, pipe)
        self.ctx.report(
            self.code,
            original,
            f"DALI iterator → `{cls}` of the support module, over the migrated pipeline",
            fixed=True,
        )
        func = updated.func
        if not (isinstance(original.func, cst.Name) and original.func.value in self._swapped):
            func = cst.Name(self._support_name(cls))
        if cstutil.kwarg(iterators.keyworded(original, dali), "reader_name") is None or self._given_in_call(original):
            return updated.with_changes(func=func)  # no metadata, or it comes with the pipelines
        _, metas, several = self._metas(pipe)
        if isinstance(pipe, cst.List) and not several:  # `[pipe]`: a list of one
            metas = cst.List([cst.Element(metas)])
        return cstutil.add_kwarg(updated.with_changes(func=func), "reader_meta", metas)

    def _wrapped_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """The iterator a wrapper class makes in its ``__init__``, given what its calls give it
        (migrated pipelines): the support module's class of the same name, arguments as written."""
        sub = self._wrapped[original]
        cls = iterators.SUPPORT_CLASSES[sub.base]
        if self.dali_name(original.func) is None:  # the support module's already (migrated before)
            return updated
        self.ctx.report(
            self.code,
            original,
            f"`{sub.node.name.value}` is given migrated pipelines: the iterator it makes is the support module's "
            f"`{cls}`",
            fixed=True,
        )
        if isinstance(original.func, cst.Name) and original.func.value in self._swapped:
            return updated
        return updated.with_changes(func=cst.Name(self._support_name(cls)))

    def _iterator_of(self, call: cst.Call) -> tuple[str | None, cst.Call | None]:
        """``(DALI name, call)`` of the iterator ``call`` makes: DALI's own, or through a class
        deriving from it (``model.iterator_subclasses``), the call of the base its ``__init__``
        makes (None when the call cannot be bound to its parameters)."""
        sub = self.ctx.model.iterator_subclasses.get(call)
        if sub is None:
            return self.dali_name(call.func), call
        return sub.base, iterator_subclasses.base_call(sub, call)

    def _subclass_blocker(self, call: cst.Call, sub) -> str | None:
        """Why the support module's iterator cannot be the base of ``sub`` (the class ``call`` makes),
        or None: an attribute of its instance that the support module does not keep as DALI did,
        or another call of the class whose pipelines stay in pipeline mode (one base serves both)."""
        kept = None if sub.wrapper else self._kept_by_importer(sub)  # a wrapper's takes DALI's pipelines too
        if kept:
            return kept
        reads = sorted(drop_in.iterator_reads(self.ctx.model, self._scope_of, call), key=self._where)
        why = iterator_subclasses.instance_blocker(self.ctx.model.parents, reads)
        if why is None and sub.wrapper:
            why = iterator_subclasses.wrapped_blocker(self.ctx.model.parents, reads, sub.wrapper)
        if why or sub.wrapper:  # a wrapper's iterator takes pipeline-mode pipelines too
            return why
        for other in sub.calls:
            if other is not call and self._rewritten(other) is None:
                line = self._where(other)[0]
                return f"`{sub.node.name.value}` is also given, at line {line}, pipelines that stay in pipeline mode"
        return None

    def _subclass_call(self, original: cst.Call, updated: cst.Call, dali: str, pipe) -> cst.Call:
        """A call of a class whose base becomes the support module's iterator: as written, with each
        pipeline given with its reader's metadata (``(pipe_meta, pipe)``) where the base call names
        a reader and the pipelines are not made in the call."""
        sub = self.ctx.model.iterator_subclasses[original]
        how = "the iterator it makes" if sub.wrapper else "its base"
        self.ctx.report(
            self.code,
            original,
            f"`{original.func.value if isinstance(original.func, cst.Name) else 'the class'}(...)` takes the "
            f"migrated pipeline: {how} is the support module's iterator",
            fixed=True,
        )
        _, view = self._iterator_of(original)
        if cstutil.kwarg(iterators.keyworded(view, dali), "reader_name") is None or self._given_in_call(original):
            return updated
        paired = iterator_subclasses.with_metadata(pipe, *self._metas(pipe))
        args = [
            new.with_changes(value=paired) if old.value is pipe else new
            for old, new in zip(original.args, updated.args)
        ]
        return updated.with_changes(args=args)

    def _metas(self, pipe: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression, bool]:
        """``(streams, metadata, several)`` of the pipelines an iterator is given: one pipeline and
        its ``pipe_meta``; a list display of names and a list of theirs; a name bound to a list and
        its ``pipes_meta``."""
        items = iterators.listed(pipe)
        if len(items) == 1 and self.ctx.converted_kind(items[0], Kind.PIPELINE) is not None:
            return items[0], iterators.meta_of(items[0]), False
        if isinstance(pipe, cst.Name):
            return pipe, cst.Name(iterators.meta_name(pipe.value)), True
        streams = cst.List(cstutil.commas([cst.Element(i) for i in items]))
        return streams, cst.List(cstutil.commas([cst.Element(iterators.meta_of(i)) for i in items])), True

    def _rewritten(self, original: cst.Call):
        """``(dali name, pipeline expression, pipeline)`` of a DALI iterator call this rule rewrites,
        else None. The plan converted the pipeline only if this rule claimed the iterator
        (``claims``); an iterator over a pipeline that stays in pipeline mode keeps working as it is."""
        dali, call = self._iterator_of(original)
        if call is None or not _rewrites(dali, original in self.ctx.model.iterator_subclasses):
            return None  # (a call of a class deriving from DALI's that cannot be bound to its `__init__`)
        pipe = iterators.epoch_aware(call, dali)
        pipeline = self.ctx.converted_kind(pipe, Kind.PIPELINE, Kind.PIPELINES) if pipe is not None else None
        sized = cstutil.kwarg(iterators.keyworded(call, dali), "size")
        if (
            pipeline is None
            or not (iterators.all_epochs(pipeline) or sized or iterators.all_restart(pipeline))
            or self._unsupported(call, dali, iterators.all_restart(pipeline), self._drop_in(original))
        ):
            return None
        return (dali, pipe, pipeline) if self.ctx.applies(self.code, original) else None

    def _sized(self, pipe, size, output_map, policy, padded) -> cst.Call:
        """``dali_iterator_sized_epochs([pipe], size, output_map, policy[, last_batch_padded])``."""
        streams = (
            pipe
            if isinstance(pipe, (cst.List, cst.Name)) and self.ctx.converted_kind(pipe, Kind.PIPELINES)
            else cst.List([cst.Element(pipe)])
        )
        args = [streams, size, output_map]
        if policy != "fill" or padded is not None:
            args.append(cst.SimpleString(f'"{policy}"'))
        if padded is not None:
            args.append(padded.value)
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        sized = self.ctx.support(support.SIZED_EPOCHS)
        return cst.Call(sized, [cst.Arg(a, comma=sep) for a in args[:-1]] + [cst.Arg(args[-1])])

    def _unsupported(self, call: cst.Call, dali: str, restarts: bool = False, drop_in: bool = False) -> str | None:
        """Why the iterator call cannot be rewritten, or None; ``restarts``: its pipeline gives one
        generator per epoch (``fn.restarts``), for an iterator with neither ``reader_name`` nor ``size=``;
        ``drop_in``: the call stays, for the support module's class, which reads the last-batch
        policy when it runs (any expression: ``PARTIAL if val else DROP``)."""
        call = iterators.keyworded(call, dali)  # what is given by position, by its name
        given = {a.keyword.value for a in call.args if a.keyword is not None}
        if "reader_name" not in given and "size" not in given:
            if not restarts:
                return _NO_SIZE
            # DALI reads until `StopIteration`: it forces FILL and no padding, whatever is given.
            return iterator_arguments.unhandled(call, dali, given) or (
                "no `output_map`" if iterator_arguments.output_map(call, dali) is None else None
            )
        return (
            iterator_arguments.epoch_size_unsupported(call, given)
            or iterator_arguments.unhandled(call, dali, given)
            or (
                "no `output_map`"
                if iterators.REWRITTEN[dali] is None and iterator_arguments.output_map(call, dali) is None
                else None
            )
            or iterator_arguments.padding_unsupported(call, given)
            or (None if drop_in else self._policy_unsupported(call))
        )

    def _policy(self, call: cst.Call) -> str | None:
        return iterator_arguments.policy(iterators.keyworded(call, self.dali_name(call.func)), self.dali_name)

    def _policy_unsupported(self, call: cst.Call) -> str | None:
        """Why the last-batch policy asked for cannot be read, or None."""
        if self._policy(call) is None:
            if cstutil.kwarg(call, "fill_last_batch") is not None:
                return "`fill_last_batch` is not `True` or `False`"
            return "the `last_batch_policy` is not a `LastBatchPolicy` member"
        return None

    # -- the loop: `for data in loader` → `for data in next(loader)`; `loader.reset()` goes -------
    def leave_For(self, original: cst.For, updated: cst.For):
        if original.iter in self.loader_accesses or original.iter in self.loader_reads:
            return updated.with_changes(iter=_next(updated.iter))
        return updated

    def _is_loader(self, node: cst.BaseExpression) -> bool:
        return node in self.loader_accesses

    def _loader_passed(self, original: cst.Call, updated: cst.Call):
        """``f(loader)`` → ``f(next(loader))``: the callee gets one epoch, as it iterated the DALI
        iterator once (what else it may do with it was checked before the pipeline converted,
        ``_loader_uses``)."""
        self.ctx.report(self.code, original, "the iterator passed on becomes one epoch: `next(loader)`", fixed=True)
        args = [
            new.with_changes(value=_next(new.value)) if self._is_loader(old.value) else new
            for old, new in zip(original.args, updated.args)
        ]
        return updated.with_changes(args=args)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated):
        stmt = original.body[0] if len(original.body) == 1 else None
        call = stmt.value if isinstance(stmt, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "reset"
            and (call.func.value in self.loader_accesses or call.func.value in self.loader_reads)
        ):
            self.ctx.report(
                self.code, original, "`loader.reset()` removed: `next(loader)` starts the next epoch", fixed=True
            )
            block = self.ctx.model.parents.get(original)
            if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:  # `def reset(self): ...`
                return updated.with_changes(body=[cst.Pass()])
            return cst.RemovalSentinel.REMOVE
        return updated


def _rewrites(dali: str | None, subclassed: bool) -> bool:
    """Does NDD411 rewrite the DALI iterator ``dali``, called directly or (``subclassed``) as the
    base of a class? PyTorch's both ways, JAX's and PaddlePaddle's when called."""
    return dali in iterators.TORCH_ITERATORS or (dali in iterators.DROP_IN_ONLY and not subclassed)


def _next(name: cst.Name) -> cst.Call:
    return cst.Call(cst.Name("next"), [cst.Arg(name)])

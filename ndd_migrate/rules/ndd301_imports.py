"""NDD301 imports: the ndd import added once; pipeline-only imports removed when no longer used."""

from __future__ import annotations

import re
import sys

import libcst as cst

from ndd_migrate import support
from ndd_migrate.engine.catalog import Example, Rule
from ndd_migrate.engine.rule_base import RuleImpl
from ndd_migrate.io.diagnostics import FixSafety
from ndd_migrate.model import namespaces
from ndd_migrate.model.features import iterators, test_utils
from ndd_migrate.model.sources import hand_built
from ndd_migrate.syntax import names, tree
from ndd_migrate.syntax.cstutil import ReadsValues, SkipsTrivia

RULE = Rule(
    code="NDD301",
    name="imports",
    summary="add `import nvidia.dali.experimental.dynamic as ndd`; drop imports the migration left unused",
    what=(
        "When the migration introduced `ndd.*` (or `np.*`) references, adds `import "
        "nvidia.dali.experimental.dynamic as ndd` (and `import numpy as np`) once, next to the DALI imports "
        "(after the module docstring and `from __future__` imports; inside the `try:` block that imports "
        "DALI when no import outside one does, so that an optional DALI stays optional), unless the "
        "module already imports them under some name, which is then used. Removes imports of "
        "`pipeline_def`, `Pipeline`, `nvidia.dali.fn`, `nvidia.dali.ops`, `nvidia.dali.math`, `nvidia.dali.types`, `nvidia.dali`, "
        "`DataNode`, the PyTorch `DALIGenericIterator`/`DALIClassificationIterator`, `LastBatchPolicy`, the PyTorch plugin "
        "module (`from nvidia.dali.plugin import pytorch`) and `numpy` that were used "
        "before the migration and are not any more; a `try:` of such imports with `except` blocks of "
        "such imports (one name spelled for several DALI versions) goes as a whole. Other imports (other "
        "plugins, anything else) are left as they are. The functions of the project's support module "
        "(`ndd_support.py`: the seed a pipeline gave its reader, a DALI iterator's epochs) that the migrated "
        "code calls are imported from it, after the module's imports."
    ),
    why="A migrated module must import what it uses and should not keep pipeline-mode imports alive.",
    fix_safety=FixSafety.SAFE,
    fix="Only imports whose every use the migration removed are dropped; comments on them move to the next line.",
    follows_rewrites=True,
    examples=(
        Example(
            before=(
                "from nvidia.dali import fn, types\n\n\n"
                "def prep(images):\n"
                "    return fn.cast(images, dtype=types.FLOAT)\n"
            ),
            after=(
                "import nvidia.dali.experimental.dynamic as ndd\n"
                "from nvidia.dali import types\n\n\n"
                "def prep(images):\n"
                "    return ndd.cast(images, dtype=types.FLOAT)\n"
            ),
        ),
        Example(
            title="DALI as an optional dependency",
            before=(
                "try:\n"
                "    from nvidia.dali import fn\n"
                "    HAVE_DALI = True\n"
                "except ImportError:  # the loader is not available without DALI\n"
                "    HAVE_DALI = False\n\n\n"
                "def prep(images):\n"
                "    return fn.flip(images)\n"
            ),
            after=(
                "try:\n"
                "    import nvidia.dali.experimental.dynamic as ndd\n"
                "    HAVE_DALI = True\n"
                "except ImportError:  # the loader is not available without DALI\n"
                "    HAVE_DALI = False\n\n\n"
                "def prep(images):\n"
                "    return ndd.flip(images)\n"
            ),
        ),
    ),
)

# Removed only when the migration made them unused (used before, not after): `types` loses its
# last use when NDD421 or NDD104 rewrite `types.Constant` or a `types` argument away; the PyTorch
# JAX or Paddle iterator, its `LastBatchPolicy` and the plugin module (`pytorch.DALIGenericIterator`) theirs when
# NDD411 replaces the iterator, numpy its last when
# NDD510 writes `ndd.float16` for `np.float16`, `DataNode` its last when NDD110 writes `ndd.Batch`.
_REMOVABLE = (
    names.FN,
    names.OPS,
    names.PIPELINE_DEF,
    names.PIPELINE,
    names.MATH,
    names.DALI,
    names.TYPES,
    names.DATA_NODE,
    *iterators.REWRITTEN,
    *iterators.LAST_BATCH_POLICIES,
    *iterators.PLUGINS,
    "numpy",
)


class Impl(RuleImpl):
    rule = RULE

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not (self.ctx.imports.ndd or self.ctx.imports.numpy or self.ctx.walk.rewritten or self._support_names()):
            return updated
        at = _anchor(original)
        support = self._support_import()
        new_imports = self._new_imports()
        for _, code in new_imports + ([("", support)] if support else []):
            self.ctx.report(self.code, at, f"needs `{_first_import(code)}`", fixed=True)
        if not self.ctx.rewrite:  # only the findings are wanted: nothing to rebuild
            return updated
        return self._placed(updated, new_imports, support)

    def _placed(self, updated: cst.Module, new_imports: list, support: str | None) -> cst.Module:
        """``updated`` with ``new_imports`` where they belong (among the DALI imports; in the
        ``try:`` that guards them; in the functions that import DALI lazily), the imports the
        migration made unused pruned, and the ``support`` import in the first-party section."""
        before = self.ctx.model.names.read  # the same reads as _used_names, from the analysis pass
        extra, unused = hand_built.import_reads(self.ctx.model.hand_built, self.ctx.model.kept_by_hand())
        after = (_used_names(updated) | extra) - unused  # as the module reads them once graphs are put back
        guard = _guarding_try(updated.body)
        lazy = guard is None and not any(_is_dali_import(s) for s in updated.body) and _imports_lazily(updated)
        guarded = [i for i in new_imports if i[0] == names.NDD] if guard is not None or lazy else []
        module_imports = [i for i in new_imports if i not in guarded]
        if lazy:  # DALI imported inside functions only: `ndd` is imported there, DALI stays optional
            # what the function still reads decides which of its own imports go
            updated = updated.visit(_InFunctions(lambda fn_def, block: self._in_function(fn_def, block, before, extra)))
        body, carried = self._rebuild(updated.body, before, after, module_imports)
        if guarded and guard is not None:
            at = next(i for i, stmt in enumerate(body) if stmt is guard)
            block = guard.body
            inner, inner_carried = self._rebuild(block.body, before, after, guarded)
            body[at] = guard.with_changes(body=block.with_changes(body=inner, footer=[*inner_carried, *block.footer]))
        if support:
            body = _with_first_party_import(body, cst.parse_statement(support))
        updated = updated.with_changes(body=_opened_as_before(updated.body, body), footer=[*carried, *updated.footer])
        moved = self.ctx.imports.moved_to_support
        if moved:  # also under an `if` or in a function, where they would shadow the support module's
            updated = _changed_by(updated, _ImportsPruned(_without_moved(moved), depth=0, into_definitions=True))
        # DALI imports under a module-level `if` (`try: if cuda: from nvidia.dali ...`) unused now; the
        # module's and a guarding `try:`'s own are pruned by `_rebuild`
        nested = _ImportsPruned(lambda stmt: self._prune(stmt, before, after)[0], depth=2, into_definitions=False)
        return _changed_by(updated, nested)

    def _in_function(self, fn_def: cst.FunctionDef, block, before: set[str], extra: set[str]):
        """A function body that imports DALI, rebuilt: the ndd import there when the function reads
        it, and the imports it no longer reads pruned (what the function reads decides)."""
        used = _used_names(fn_def) | extra
        wanted = [i for i in self._new_imports() if i[0] == names.NDD and (self.ctx.model.names.ndd or "ndd") in used]
        return self._rebuild(block, before, used, wanted)

    def _support_names(self) -> list[str]:
        """What to import from the support module: the functions the migrated code calls that the
        module does not bind (a module migrated by an earlier version defines them, or imports
        them already), and the iterator classes standing in for DALI's (``X as Y`` under the
        module's own name for DALI's)."""
        moved = self.ctx.imports.moved_to_support
        functions = self.ctx.imports.support - self.ctx.model.names.module_level
        return sorted([*functions, *(cls if cls == bound else f"{cls} as {bound}" for bound, cls in moved.items())])

    def _support_import(self) -> str | None:
        """``from <support module> import ...`` for :meth:`_support_names`, or None."""
        wanted = self._support_names()
        if not wanted:
            return None
        _, module = self.ctx.support_location()
        fallback = support.STEM if self.ctx.support_form() == namespaces.EITHER else None
        return support.import_statement(module, wanted, self.ctx.policy.line_length(self.ctx.path) or 88, fallback)

    def _rebuild(self, statements, before: set[str], after: set[str], new_imports) -> tuple[list, list]:
        """``statements`` (a module's, or a ``try`` block's) without the imports the migration made
        unused and with ``new_imports`` among the DALI imports (after the docstring and ``from
        __future__`` imports when there are none); also the comments of removed imports that
        nothing follows, for the caller's footer."""
        body, carried, anchor, gap_lines = self._without_unused(statements, before, after)
        if gap_lines and anchor is not None and anchor < len(body) and _import_key(body[anchor]) is not None:
            # a DALI import kept below a removed first one heads the block in its place
            body[anchor] = body[anchor].with_changes(leading_lines=[*gap_lines, *body[anchor].leading_lines])
            gap_lines = []
        anchor, gap_lines = _insert_imports(body, new_imports, anchor, gap_lines)
        if gap_lines:  # nothing took the removed import's place: its lines go to what follows
            if anchor < len(body):
                body[anchor] = body[anchor].with_changes(leading_lines=[*gap_lines, *body[anchor].leading_lines])
            else:
                carried = [*gap_lines, *carried]
        return body, carried

    def _without_unused(self, statements, before: set[str], after: set[str]) -> tuple[list, list, int | None, list]:
        """``statements`` with the imports the migration made unused pruned (``_prune``), the comments
        of a removed one moved to the next statement; also those comments when no statement
        follows, where the DALI imports start, and the lines above the first of them when it was
        removed (the new imports take its place)."""
        body: list = []
        carried: list = []  # comments of removed imports, for the next statement
        anchor = None  # where the DALI imports started
        gap_lines: list = []  # blank lines/comments above a removed first DALI import
        for stmt in statements:
            pruned, is_dali = self._prune(stmt, before, after)
            if is_dali and anchor is None:
                anchor = len(body)
                if pruned is None:
                    gap_lines = list(stmt.leading_lines)  # the new imports take its place
                    continue
            if pruned is None:
                # A removed `try:` of imports stood apart from them: its blank lines go with it.
                carried.extend(line for line in stmt.leading_lines if not isinstance(stmt, cst.Try) or line.comment)
                continue
            if carried:
                pruned = pruned.with_changes(leading_lines=[*carried, *pruned.leading_lines])
                carried = []
            body.append(pruned)
        return body, carried, anchor, gap_lines

    def _new_imports(self) -> list[tuple[str, str]]:
        """``(module, import statement)`` for what the migrated module uses and does not import."""
        new_imports = []
        if self.ctx.imports.numpy and self.ctx.model.names.numpy is None:
            new_imports.append(("numpy", "import numpy as np\n"))
        if self.ctx.imports.ndd and self.ctx.model.names.ndd is None:
            new_imports.append((names.NDD, "import nvidia.dali.experimental.dynamic as ndd\n"))
        return new_imports

    def _prune(self, stmt, before: set[str], after: set[str]):
        """The import statement without DALI names the migration made unused (None: all gone), and
        whether it imports DALI."""
        if isinstance(stmt, cst.Try) and stmt.handlers and stmt.orelse is None and stmt.finalbody is None:
            return self._prune_try(stmt, before, after)
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            return stmt, False
        imp = stmt.body[0]
        targets = _import_targets(imp)
        if targets is None:
            return stmt, False
        is_dali = any(t == names.DALI or t.startswith(names.DALI + ".") for _, t, _ in targets)
        moved = self.ctx.imports.moved_to_support  # also removed deeper: _without_moved
        keep = [
            alias
            for alias, target, name in targets
            if not (_removable(imp, alias, target) and name in before and name not in after)
            and not _moved(target, name, moved)
        ]
        if len(keep) == len(targets):
            return stmt, is_dali
        if not keep:
            return None, is_dali
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return stmt.with_changes(body=[imp.with_changes(names=keep)]), is_dali

    def _prune_try(self, stmt: cst.Try, before: set[str], after: set[str]):
        """A ``try:`` of imports only, with ``except`` blocks of imports only (DALI's names spelled for
        several versions), goes as a whole when each of its imports would; else it stays as it is."""
        blocks = [stmt.body.body, *(handler.body.body for handler in stmt.handlers)]
        pruned = [self._prune(inner, before, after) for block in blocks for inner in block]
        if all(isinstance(inner, cst.SimpleStatementLine) for block in blocks for inner in block) and all(
            p is None and dali for p, dali in pruned
        ):
            return None, True
        return stmt, False


def _import_targets(imp) -> list[tuple[cst.ImportAlias, str, str]] | None:
    """For each name of an import (``import``, or ``from`` without ``*``): its alias node, the
    canonical path it imports, the name it binds. None for any other statement."""
    if isinstance(imp, cst.Import):

        def bound(a):
            return a.asname.name.value if a.asname else (names.dotted(a.name) or "").split(".")[0]

        return [(a, names.canonical(names.dotted(a.name) or ""), bound(a)) for a in imp.names]
    if isinstance(imp, cst.ImportFrom) and not isinstance(imp.names, cst.ImportStar) and imp.module:
        module = names.dotted(imp.module) or ""

        def bound(a):
            return a.asname.name.value if a.asname else a.name.value

        return [(a, names.canonical(f"{module}.{a.name.value}"), bound(a)) for a in imp.names]
    return None


def _removable(imp, alias: cst.ImportAlias, target: str) -> bool:
    """May the import of ``target`` go once nothing reads it: a name of DALI's (or numpy) that the
    migration replaces, bound under its own name (``from``, ``as``; a plain ``import`` binds the
    package, so only ``import nvidia.dali``/``import numpy``)."""
    return (target in _REMOVABLE or target.startswith(names.FN + ".") or target.startswith(names.MATH + ".")) and (
        isinstance(imp, cst.ImportFrom) or alias.asname or target in (names.DALI, "numpy")
    )


def _insert_imports(body: list, new_imports, anchor: int | None, gap_lines: list) -> tuple[int | None, list]:
    """Puts ``new_imports`` into ``body`` where isort would sort them: among the DALI imports (which
    start at ``anchor``), or after the header (docstring, ``from __future__``) when there are
    none; a standard-library one among the standard library's imports. The first one put at
    ``anchor`` takes ``gap_lines``, the lines above a removed first DALI import. Returns
    ``anchor`` (moved down by what went above it) and the ``gap_lines`` no import took."""
    header = _after_header(body)
    for module, code in new_imports:
        start = anchor if anchor is not None else header
        if module in sys.stdlib_module_names:  # `import math`: among the standard library's imports
            start = next((i for i, stmt in enumerate(body) if _is_stdlib_import(stmt)), start)
        at = _sorted_position(body, start, module, header)
        stmt = cst.parse_statement(code)
        # a standard-library import sorted last in its run stays in it (not atop the next one)
        last_of_run = module in sys.stdlib_module_names and at > start and _import_key(body[at - 1]) is not None
        if at < len(body) and _import_key(body[at]) is not None and _starts_block(body, at) and not last_of_run:
            stmt = stmt.with_changes(leading_lines=body[at].leading_lines)
            body[at] = body[at].with_changes(leading_lines=[])
        elif gap_lines and at == anchor:
            stmt = stmt.with_changes(leading_lines=gap_lines)
            gap_lines = []
        body.insert(at, stmt)
        if anchor is not None and at < anchor:  # `import math` above the DALI imports moves them down
            anchor += 1
    return anchor, gap_lines


def _is_dali_import(stmt) -> bool:
    """Is ``stmt`` an import of ``nvidia.dali`` or of one of its modules?"""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return False
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        modules = [names.dotted(a.name) or "" for a in small.names]
    elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        modules = [names.dotted(small.module) or ""]
    else:
        return False
    return any(m == names.DALI or m.startswith(names.DALI + ".") for m in modules)


def _imports_lazily(module: cst.Module) -> bool:
    """Does a function of ``module`` import DALI in its own body (``def main(): from nvidia.dali
    import fn``), as a module does that runs without DALI until the function is called?"""
    found = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if isinstance(node.body, cst.IndentedBlock) and any(_is_dali_import(s) for s in node.body.body):
                found.append(node)

    tree.visit(module, Finder())
    return bool(found)


def _changed_by(module: cst.Module, transformer: cst.CSTTransformer) -> cst.Module:
    """``module`` as ``transformer`` leaves it, or ``module`` itself when nothing changed: rules
    that finish the module after this one find their statements by identity."""
    new = module.visit(transformer)
    return module if new.deep_equals(module) else new


class _ImportsPruned(cst.CSTTransformer):
    """Each import statement at a block depth of ``depth`` or more replaced by ``prune(statement)``
    (None: removed), a block left empty getting ``pass``; the bodies of functions and classes
    only when ``into_definitions`` (they read names of their own). Other statements stay the very
    objects rules that finish the module after this one look for."""

    def __init__(self, prune, *, depth: int, into_definitions: bool) -> None:
        super().__init__()
        self._prune = prune
        self._min_depth = depth
        self._into_definitions = into_definitions
        self._depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return self._into_definitions

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return self._into_definitions

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._depth += 1

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self._depth -= 1
        return updated if updated.body else updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return False

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self._depth < self._min_depth or not (
            len(updated.body) == 1 and isinstance(updated.body[0], (cst.Import, cst.ImportFrom))
        ):
            return updated
        pruned = self._prune(updated)
        return cst.RemovalSentinel.REMOVE if pruned is None else pruned


def _moved(target: str, name: str, moved: dict[str, str]) -> bool:
    """Does the support module bind ``name`` now, in place of what it imported (``target``): one of
    DALI's iterator classes (NDD411) or a comparison of DALI's ``test_utils`` (NDD412)?"""
    return name in moved and (target in iterators.REWRITTEN or test_utils.counterpart(target) is not None)


def _without_moved(moved: dict[str, str]):
    """``prune`` for :class:`_ImportsPruned`: an import without DALI's iterator classes whose names
    the support module's classes now bind (``moved``: bound name → class)."""

    def prune(stmt: cst.SimpleStatementLine):
        imp = stmt.body[0]
        targets = _import_targets(imp) if isinstance(imp, cst.ImportFrom) else None
        if not targets:
            return stmt
        keep = [a for a, target, name in targets if not _moved(target, name, moved)]
        if len(keep) == len(targets):
            return stmt
        if not keep:
            return None
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return stmt.with_changes(body=[imp.with_changes(names=keep)])

    return prune


class _InFunctions(cst.CSTTransformer):
    """Each function whose body imports DALI gets its body rebuilt by ``rebuild`` ((function,
    statements) → (statements, comments left over)): the ndd import among its imports, the ones
    the function no longer reads pruned."""

    def __init__(self, rebuild) -> None:
        super().__init__()
        self._rebuild = rebuild

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        block = updated.body
        if not (isinstance(block, cst.IndentedBlock) and any(_is_dali_import(s) for s in block.body)):
            return updated
        inner, carried = self._rebuild(updated, block.body)
        return updated.with_changes(body=block.with_changes(body=inner, footer=[*carried, *block.footer]))


def _opened_as_before(before: list, after: list) -> list:
    """``after`` with its first statement taking no more blank lines above it than ``before``'s
    first did: the blank line below a removed first import does not open the file."""
    if not before or not after:
        return after
    allowed = _blank_lines_above(before[0])
    extra = _blank_lines_above(after[0]) - allowed
    if extra <= 0:
        return after
    lines = list(after[0].leading_lines)
    return [after[0].with_changes(leading_lines=lines[:allowed] + lines[allowed + extra :]), *after[1:]]


def _split_above(lines) -> tuple[list, list]:
    """The leading lines of a statement that an import is put above, split into the import's and the
    statement's: the statement keeps the blank lines that set it apart (at least one) and the
    comments right below them, which describe it; the comments above (a file's header, those of a
    removed import) go above the import."""
    lines = list(lines)
    start = len(lines)
    while start > 0 and lines[start - 1].comment is not None:
        start -= 1
    if start == 0 or start == len(lines):  # no comment run set apart by a blank line
        start = len(lines)
    blanks = start
    while blanks > 0 and lines[blanks - 1].comment is None:
        blanks -= 1
    return lines[:blanks], (lines[blanks:start] or [cst.EmptyLine()]) + lines[start:]


def _blank_lines_above(stmt) -> int:
    """How many of ``stmt``'s leading lines, from the first, are blank (no comment)."""
    count = 0
    for line in stmt.leading_lines:
        if line.comment is not None:
            break
        count += 1
    return count


def _first_import(code: str) -> str:
    """The import statement ``code`` on one line (of a ``try:`` of two, the first)."""
    statement = " ".join(code.split("except ImportError")[0].removeprefix("try:").split())
    return re.sub(r"\(\s*|,?\s*\)", "", statement)


def _with_first_party_import(body: list, stmt: cst.SimpleStatementLine) -> list:
    """``body`` with ``stmt``, an import of the project's own, where isort puts the first-party
    section: after the last module-level import above the first function or class (a ``try:`` of
    imports counts), set apart by a blank line; after the header when there is none."""
    first_def = next((i for i, s in enumerate(body) if isinstance(s, (cst.FunctionDef, cst.ClassDef))), len(body))
    imports = [i for i in range(first_def) if _import_key(body[i]) is not None or _is_import_try(body[i])]
    if imports:
        index = imports[-1] + 1
        stmt = stmt.with_changes(leading_lines=[cst.EmptyLine()])
    else:
        index = _after_header(body)
        if index < len(body):  # the first statement after the header: the import takes the comments above it
            above, below = _split_above(body[index].leading_lines)
            stmt = stmt.with_changes(leading_lines=above)
            body = [*body[:index], body[index].with_changes(leading_lines=below), *body[index + 1 :]]
    return [*body[:index], stmt, *body[index:]]


def _is_import_try(stmt) -> bool:
    """A ``try:`` of imports (DALI guarded as an optional dependency), which may also set a flag
    (``HAVE_DALI = True``): its body holds imports and plain assignments only, and one import."""
    if not isinstance(stmt, (cst.Try, cst.TryStar)):
        return False
    body = stmt.body.body
    return any(_import_key(s) is not None for s in body) and all(
        _import_key(s) is not None
        or (isinstance(s, cst.SimpleStatementLine) and all(isinstance(small, cst.Assign) for small in s.body))
        for s in body
    )


def _anchor(module: cst.Module) -> cst.CSTNode:
    """Where a finding about a missing import is shown: the first DALI import (at module level, or
    in the ``try:`` that guards it), which the new import joins; else the first statement. Never
    the module: a span over the whole file underlines all of it (annotations, SARIF regions)."""
    guard = _guarding_try(module.body)
    statements = guard.body.body if guard is not None else module.body
    found = next((stmt for stmt in statements if _is_dali_import(stmt)), None)
    if found is not None:
        return found.body[0]
    if module.body:
        first = module.body[0]
        return first.body[0] if isinstance(first, cst.SimpleStatementLine) else first
    return module


def _is_stdlib_import(stmt) -> bool:
    key = _import_key(stmt)
    return key is not None and key[1].split(".")[0] in sys.stdlib_module_names and key[1] != "__future__"


def _guarding_try(body) -> cst.Try | cst.TryStar | None:
    """The first top-level ``try:`` that imports DALI (in its block, or in an ``if`` of it: ``try: if
    torch.cuda.is_available(): from nvidia.dali ...``), when no top-level statement does: DALI is
    an optional dependency there (``except ImportError``), so the ndd import goes into that block,
    where a missing DALI is handled, instead of making DALI mandatory."""
    if any(_is_dali_import(stmt) for stmt in body):
        return None
    return next(
        (
            stmt
            for stmt in body
            if isinstance(stmt, (cst.Try, cst.TryStar))
            and any(_is_dali_import(s) or _branch_imports_dali(s) for s in stmt.body.body)
        ),
        None,
    )


def _branch_imports_dali(stmt) -> bool:
    """An ``if`` (or one of its ``elif``/``else`` blocks) that imports DALI directly in its block."""
    while isinstance(stmt, (cst.If, cst.Else)):
        if any(_is_dali_import(s) for s in stmt.body.body):
            return True
        stmt = stmt.orelse if isinstance(stmt, cst.If) else None
    return False


def _import_key(stmt) -> tuple[int, str] | None:
    """isort's order inside a section: plain imports first, then ``from`` imports, each by module."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Import):
        return (0, names.dotted(small.names[0].name) or "")
    if isinstance(small, cst.ImportFrom):
        return (1, names.dotted(small.module) if small.module else "")
    return None


def _starts_block(body: list, index: int) -> bool:
    """Is ``body[index]`` the first of a run of imports (preceded by a blank line or a non-import)?"""
    return (
        index == 0
        or _import_key(body[index - 1]) is None
        or any(line.comment is None for line in body[index].leading_lines)
    )


def _sorted_position(body: list, anchor: int, module: str, header: int) -> int:
    """Where ``import <module>`` goes in the run of imports at ``anchor`` (the section, as isort
    sees it: no blank line inside), so a sorted import block stays sorted (an unsorted one gets it
    at ``anchor``, where the DALI imports are). Never above ``header``:
    ``from __future__`` imports written right above the DALI ones, with no blank line, are in the
    same run but must stay first."""
    if anchor >= len(body) or _import_key(body[anchor]) is None:
        return anchor
    start = anchor
    while start > header and not _starts_block(body, start):
        start -= 1
    end = start + 1
    while end < len(body) and _import_key(body[end]) is not None and not _starts_block(body, end):
        end += 1
    keys = [_import_key(stmt) for stmt in body[start:end]]
    if keys != sorted(keys):
        return anchor  # a run isort never sorted: where the DALI imports are, not a place by name
    index = start
    while index < len(body) and _import_key(body[index]) is not None:
        if index > start and _starts_block(body, index):
            break
        if _import_key(body[index]) > (0, module):
            return index
        index += 1
    return index


def _after_header(body: list) -> int:
    """Index after the module docstring and ``from __future__`` imports."""
    index = 0
    for index, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            if index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
                continue
            if isinstance(small, cst.ImportFrom) and names.dotted(small.module) == "__future__":
                continue
        return index
    return len(body)


class _UsedNames(ReadsValues, SkipsTrivia, cst.CSTVisitor):
    """Names read anywhere outside import statements (attribute names and keywords excluded)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _used_names(module: cst.Module) -> set[str]:
    visitor = _UsedNames()
    tree.visit(module, visitor)
    return visitor.names

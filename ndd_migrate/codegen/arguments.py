"""The operator arguments dynamic mode does not take, and their current names (NDD106's rule).

Read from the table generated from DALI's schemas (:mod:`ndd_migrate.dali.tables`): the arguments
pipeline mode accepts that the ``ndd`` callable rejects (memory hints, ``name`` on non-readers,
``seed`` where it changed nothing), and deprecated names. NDD106 applies them to each migrated call;
an input set, which NDD101 turns into one call per input before NDD106 sees it, gets them applied
there (:func:`applied`).
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.syntax import cstutil


def changes(call: cst.Call, info) -> tuple[set[str], set[str]]:
    """``(dropped, renamed)``: the keywords of ``call`` (an operator ``info`` describes) that dynamic
    mode rejects, and those it knows by another name. ``seed`` on a random operator is NDD105's."""
    given = {a.keyword.value for a in call.args if a.keyword is not None}
    dropped = given & set(info.dropped_args)
    if info.random:
        dropped.discard("seed")
    return dropped, given & set(info.renamed_args)


def applied(call: cst.Call, info, dropped: set[str], renamed: set[str]) -> cst.Call:
    """``call`` without the ``dropped`` keywords and with the ``renamed`` ones under their current names."""
    call = cstutil.remove_kwargs(call, dropped)
    for name in renamed:
        call = cstutil.rename_kwarg(call, name, info.renamed_args[name])
    return call

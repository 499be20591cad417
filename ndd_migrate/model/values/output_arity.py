"""The number of outputs of an operator call, read from the code (no DALI import).

The op table gives ``num_outputs`` (from DALI's schemas); for the operators whose outputs depend on
their arguments (DALI's ``OutputFn``), :func:`op_outputs` counts what those arguments give, each
rule checked against DALI 2.4's schemas (``readers.coco`` with ``polygon_masks=True`` has 5
outputs, ...; tests/test_output_arity.py). An argument that decides the count must be a literal.
"""

from __future__ import annotations

import libcst as cst

from ndd_migrate.dali.tables import op_info
from ndd_migrate.syntax import cstutil


def canonical_path(path: str | None) -> str | None:
    """The current ``fn`` path of an operator (deprecated names folded: ``coco_reader`` →
    ``readers.coco``)."""
    info = op_info(path or "")
    return (info.deprecated_for or path) if info is not None else path


def op_outputs(path: str, call: cst.Call) -> int | str:
    """The number of outputs of ``fn.<path>(...)`` (``call`` the original call), or why unknown."""
    info = op_info(path)
    if info is None:
        return f"`fn.{path}` is not a DALI operator this version knows"
    path = info.deprecated_for or path
    current = op_info(path) or info
    rule = _BY_ARGUMENTS.get(path)
    if rule is None:
        if info.num_outputs is not None:
            return info.num_outputs
        return f"the number of outputs of `fn.{path}` depends on its arguments, and ndd-migrate does not know how"
    if cstutil.has_star(call):
        return f"`fn.{path}(...)` is given `*`/`**` arguments: its number of outputs depends on them"
    renamed = dict(current.renamed_args)
    given: dict[str, cst.BaseExpression] = {}
    for arg in call.args:
        if arg.keyword is not None:
            given[renamed.get(arg.keyword.value, arg.keyword.value)] = arg.value
    positional = cstutil.positional_count(call)

    def value(name: str, default=None):
        if name not in given:
            return current.defaults.get(name, default)
        found = _literal(given[name])
        if found is cstutil.NOT_LITERAL:
            raise _NotLiteral(name)
        return found

    try:
        return rule(value, given, positional)
    except _NotLiteral as exc:
        return f"the number of outputs of `fn.{path}` depends on `{exc.args[0]}=`, which is not a literal here"


class _NotLiteral(Exception):
    pass


def _literal(expr: cst.BaseExpression):
    if isinstance(expr, (cst.List, cst.Tuple)):
        if any(isinstance(el, cst.StarredElement) for el in expr.elements):
            return cstutil.NOT_LITERAL
        return [None for _ in expr.elements]  # only the length counts
    return cstutil.literal_value(expr)


def _truthy(value) -> bool:
    return value not in (None, False, 0, "", "none")


def _coco(value, given, positional) -> int:
    polygons = _truthy(value("polygon_masks", False)) or _truthy(value("masks", False))
    return 3 + 2 * polygons + _truthy(value("pixelwise_masks", False)) + _truthy(value("image_ids", False))


def _video(value, given, positional, *, legacy: bool = True) -> int:
    """Frames, then labels (with ``file_root``, ``file_list`` or ``labels=``), frame numbers and
    timestamps; ``readers.video`` with ``file_root`` gives only frames and labels."""
    if legacy and _truthy(value("file_root", "")) and not _truthy(value("file_list", "")):
        return 2
    labels = any(_truthy(value(name, "")) for name in ("file_root", "file_list")) or (
        "labels" in given and value("labels") is not None
    )
    return 1 + labels + _truthy(value("enable_frame_num", False)) + _truthy(value("enable_timestamps", False))


def _webdataset(value, given, positional) -> int | str:
    ext = value("ext")
    if isinstance(ext, str):
        return 1  # one output, whatever the `;`-separated extensions
    if isinstance(ext, list):
        return len(ext)
    return "`fn.readers.webdataset` without `ext=`"


def _caffe2(value, given, positional) -> int:
    labels = {0: 1, 1: 2, 2: 1, 3: 2, 4: 0}.get(value("label_type", 0), 1)
    return (
        _truthy(value("image_available", True))
        + labels
        + int(value("additional_inputs", 0) or 0)
        + _truthy(value("bbox", False))
    )


def _fits(value, given, positional) -> int:
    hdus = value("hdu_indices")
    return len(hdus) if isinstance(hdus, list) else 1


# Operators whose number of outputs their arguments decide (DALI's OutputFn), each measured with
# DALI 2.4 (tests/test_output_arity.py checks them against the installed DALI when it is there).
_BY_ARGUMENTS = {
    "readers.coco": _coco,
    "readers.video": _video,
    "readers.video_resize": _video,
    "experimental.readers.video": lambda value, given, positional: _video(value, given, positional, legacy=False),
    "readers.webdataset": _webdataset,
    "readers.caffe": lambda value, given, positional: (
        _truthy(value("image_available", True)) + _truthy(value("label_available", True))
    ),
    "readers.caffe2": _caffe2,
    "readers.nemo_asr": lambda value, given, positional: (
        1
        + _truthy(value("read_sample_rate", True))
        + _truthy(value("read_text", True))
        + _truthy(value("read_idxs", False))
    ),
    "experimental.readers.fits": _fits,
    "resize": lambda value, given, positional: 1 + _truthy(value("save_attrs", False)),
    "experimental.resize": lambda value, given, positional: 1 + _truthy(value("save_attrs", False)),
    "random_bbox_crop": lambda value, given, positional: (
        3 + (positional > 1) + _truthy(value("output_bbox_indices", False))
    ),
    "bbox_rotate": lambda value, given, positional: 1 + (positional > 1),
    "segmentation.random_object_bbox": lambda value, given, positional: (
        (1 if value("format", "anchor_shape") == "box" else 2) + _truthy(value("output_class", False))
    ),
    # `num_outputs=N`: N outputs (NDD422 writes a python_function's as a list, NDD421 an external
    # source's must be unpacked).
    "python_function": lambda value, given, positional: int(value("num_outputs", 1)),
    "external_source": lambda value, given, positional: int(value("num_outputs", 1) or 1),
    "element_extract": lambda value, given, positional: (
        len(value("element_map", []) or []) or "`fn.element_extract` without `element_map=`"
    ),
}

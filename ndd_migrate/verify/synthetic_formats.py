"""The data ``verify --synthetic`` writes for each reader kind (:mod:`.synthetic` decides where).

One ``write_<kind>(reader, values, scope, rng)`` per reader: ``values`` are the reader's path
arguments evaluated to generated paths; the other arguments (``file_filter``, ``features``,
``ext``, ``dtypes``) are read from the call when they are literals, the schema's default standing
in otherwise. Each returns ``{argument: what was written there}`` for the report.
"""

from __future__ import annotations

import ast
import json
import os
from typing import Any

import numpy as np

from ndd_migrate.verify import datagen
from ndd_migrate.verify.errors import SetupError
from ndd_migrate.verify.synthetic_source import Reader, Scope, as_list, chain, content, literal, name_for

#: Class folders of a generated ``file_root`` (13 files: not a multiple of common batch sizes).
CLASSES = {"cat": 5, "dog": 4, "fox": 4}
#: ``readers.file``'s default ``file_filters`` that generated names can match.
FILE_FILTERS = ("*.jpg", "*.wav")


def _sample(rng: np.random.Generator, reader: Reader, scope: Scope, index: int) -> bytes:
    if reader.kind == "numpy":
        return datagen.npy_bytes(datagen.random_features(rng))
    return datagen.random_wav(rng, index % 3) if scope.audio else datagen.random_jpeg(rng)


def _class_files(pattern: str) -> list[tuple[str, int]]:
    """``(relative name, label)`` of the files of 3 class folders, named to match ``pattern``."""
    out = []
    for label, (cls, count) in enumerate(CLASSES.items()):
        out += [(f"{cls}/{name_for(pattern, f'{cls}_{i}')}", label) for i in range(count)]
    return out


def _listed(reader: Reader, values: dict, scope: Scope, rng, *, labels: bool) -> dict[str, str]:
    """``files=`` (a list) or ``file_list=`` (a text file, paths relative to it or to
    ``file_root``): the files themselves and the list."""
    ext, one = content(reader, scope)
    if "files" in values:
        files = as_list(values["files"])
        for i, path in enumerate(files):
            datagen.write_bytes(path, _sample(rng, reader, scope, i))
        return {"files": f"{len(files)} × {one}"}
    file_list = str(values["file_list"])
    root = str(values.get("file_root") or os.path.dirname(file_list))
    entries = _class_files("*" + ext)
    for i, (name, _) in enumerate(entries):
        datagen.write_bytes(os.path.join(root, name), _sample(rng, reader, scope, i))
    datagen.write_text(file_list, "".join(f"{n} {label}\n" if labels else f"{n}\n" for n, label in entries))
    out = {"file_list": f"a list of {len(entries)} × {one}" + (" with labels 0-2" if labels else "")}
    if "file_root" in values:
        out["file_root"] = f"{len(entries)} × {one} in 3 folders"
    return out


def write_file(reader: Reader, values: dict, scope: Scope, rng) -> dict[str, str]:
    """``readers.file``: one folder per class under ``file_root`` (labels 0, 1, 2 in name order),
    or the ``files``/``file_list`` given."""
    if "files" in values or "file_list" in values:
        return _listed(reader, values, scope, rng, labels=True)
    ext, one = content(reader, scope)
    filters = as_list(literal(reader.args.get("file_filters"), scope, list(FILE_FILTERS)))
    pattern = next((f for f in filters if f.lower().endswith(ext)), filters[0] if filters else "*" + ext)
    entries = _class_files(pattern)
    for i, (name, _) in enumerate(entries):
        datagen.write_bytes(os.path.join(str(values["file_root"]), name), _sample(rng, reader, scope, i))
    return {"file_root": f"{len(entries)} × {one} in 3 class folders"}


def write_numpy(reader: Reader, values: dict, scope: Scope, rng) -> dict[str, str]:
    """``readers.numpy``: 11 arrays under ``file_root`` named to match ``file_filter``, or the
    ``files``/``file_list`` given."""
    if "files" in values or "file_list" in values:
        return _listed(reader, values, scope, rng, labels=False)
    pattern = str(literal(reader.args.get("file_filter"), scope, "*.npy"))
    count = 11
    for i in range(count):
        name = name_for(pattern, f"sample_{i:02d}")
        datagen.write_bytes(os.path.join(str(values["file_root"]), name), _sample(rng, reader, scope, i))
    return {"file_root": f"{count} × float32 (length, 6) arrays matching {pattern!r}"}


def write_coco(reader: Reader, values: dict, scope: Scope, rng) -> dict[str, str]:
    """``readers.coco``: 7 JPEGs under ``file_root`` and ``annotations_file`` with 1–3 boxes (and
    their polygons, for ``polygon_masks``) per image, three categories."""
    root = str(values.get("file_root") or os.path.dirname(str(values["annotations_file"])))
    scene, annotations = datagen.coco_scene(rng, 7, 3, polygons=True)
    for name, jpeg, _ in scene:
        datagen.write_bytes(os.path.join(root, name), jpeg)
    images = [record for _, _, record in scene]
    categories = [{"id": i, "name": n} for i, n in enumerate(("square", "bar", "dot"), 1)]
    doc = {"images": images, "annotations": annotations, "categories": categories}
    datagen.write_text(str(values["annotations_file"]), json.dumps(doc, indent=1) + "\n")
    out = {"annotations_file": f"COCO annotations: {len(annotations)} boxes on 7 images, 3 categories"}
    if "file_root" in values:
        out["file_root"] = "7 JPEGs of 60-110 px"
    return out


# --------------------------------------------------------------------------------------------------
# TFRecord


def _features(reader: Reader, scope: Scope) -> dict[str, tuple[str, list[int] | None]]:
    """``{key: (type, shape or None for a VarLenFeature)}`` from the reader's ``features``: a dict
    literal (or a name or local of one) of ``tfrec.FixedLenFeature(shape, type, default)`` /
    ``tfrec.VarLenFeature(type, default)``."""
    expr = reader.args.get("features")
    while isinstance(expr, ast.Name) and (expr.id in scope.locals or expr.id in scope.module):
        expr = scope.locals.get(expr.id) or scope.module.get(expr.id)
    if not isinstance(expr, ast.Dict):
        raise SetupError(
            "synthetic",
            f"--synthetic: {reader.label} (line {reader.call.lineno}): its features= is not a dict written "
            "in the file: cannot tell which features to write",
        )
    out = {}
    for key, value in zip(expr.keys, expr.values):
        name = literal(key, scope)
        if not isinstance(name, str) or not isinstance(value, ast.Call):
            raise SetupError("synthetic", f"--synthetic: {reader.label}: cannot read the feature {ast.unparse(value)}")
        args = list(value.args) + [k.value for k in value.keywords if k.arg in ("shape", "dtype", "partial_shape")]
        types = [c[-1] for c in map(chain, args) if c and c[-1] in ("string", "int64", "float32")]
        fixed = chain(value.func)[-1:] == ["FixedLenFeature"]
        shape = literal(args[0], scope) if fixed and args else None
        out[name] = (types[0] if types else "string", list(shape) if isinstance(shape, (list, tuple)) else None)
    return out


def _feature_value(rng, kind: str, shape: list[int] | None) -> Any:
    count = int(np.prod(shape)) if shape is not None else int(rng.integers(1, 4))
    if kind == "string":
        return [datagen.random_jpeg(rng) for _ in range(max(count, 1))]
    if kind == "int64":
        return [int(v) for v in rng.integers(0, 3, size=max(count, 1))]
    return [float(v) for v in rng.normal(size=max(count, 1)).astype(np.float32)]


def write_tfrecord(reader: Reader, values: dict, scope: Scope, rng) -> dict[str, str]:
    """``readers.tfrecord``: 10 ``tf.train.Example`` records per file of ``path`` with the declared
    features (bytes features are JPEGs), and the index of each in ``index_path``."""
    spec = _features(reader, scope)
    paths = as_list(values["path"])
    indexes = as_list(values["index_path"]) if "index_path" in values else [None] * len(paths)
    for path, index in zip(paths, indexes):
        examples = [{k: _feature_value(rng, t, s) for k, (t, s) in spec.items()} for _ in range(10)]
        datagen.write_tfrecord(path, index, examples)
    out = {"path": f"{len(paths)} TFRecord file(s) of 10 examples with features {', '.join(sorted(spec))}"}
    if "index_path" in values:
        out["index_path"] = "their index (offset, size per record)"
    return out


# --------------------------------------------------------------------------------------------------
# Webdataset

_IMAGE_EXT = {"jpg", "jpeg", "png", "bmp", "webp"}
_TEXT_EXT = {"cls", "cls2", "label", "txt", "id", "idx", "index"}


def _component(rng, ext: str, dtype: str | None) -> bytes:
    """One sample's component for extension ``ext`` (output as ``dtype`` when not UINT8)."""
    if dtype and dtype.upper() not in ("UINT8", "INT8"):
        np_type = {"FLOAT": "<f4", "FLOAT64": "<f8", "FLOAT16": "<f2", "INT64": "<i8", "INT32": "<i4"}
        return rng.integers(0, 3, size=int(rng.integers(1, 4))).astype(np_type.get(dtype.upper(), "<i4")).tobytes()
    if ext in _IMAGE_EXT:
        return datagen.random_jpeg(rng)
    if ext in _TEXT_EXT:
        return str(int(rng.integers(0, 3))).encode()
    if ext in ("wav", "flac"):
        return datagen.random_wav(rng, int(rng.integers(0, 3)))
    if ext == "npy":
        return datagen.npy_bytes(datagen.random_features(rng))
    if ext == "json":
        return json.dumps({"label": int(rng.integers(0, 3))}).encode()
    return rng.integers(0, 256, size=int(rng.integers(8, 33)), dtype=np.uint8).tobytes()


def write_webdataset(reader: Reader, values: dict, scope: Scope, rng) -> dict[str, str]:
    """``readers.webdataset``: a tar of 10 samples per file of ``paths``, one component for each
    extension of ``ext``, with its index in ``index_paths`` when that is given."""
    ext = as_list(literal(reader.args.get("ext"), scope, []))
    if not ext:
        raise SetupError("synthetic", f"--synthetic: {reader.label} (line {reader.call.lineno}): ext= is not a literal")
    exts = [e.split(";")[0] for e in ext]
    dtypes_expr = reader.args.get("dtypes")
    elements = dtypes_expr.elts if isinstance(dtypes_expr, (ast.List, ast.Tuple)) else [dtypes_expr] * len(exts)
    dtypes = [(chain(e)[-1:] or [None])[0] if e is not None else None for e in elements]
    paths = as_list(values["paths"])
    indexes = as_list(values["index_paths"]) if "index_paths" in values else [None] * len(paths)
    for path, index in zip(paths, indexes):
        samples = [{e: _component(rng, e, d) for e, d in zip(exts, dtypes)} for _ in range(10)]
        datagen.write_webdataset(path, index, samples)
    out = {"paths": f"{len(paths)} tar file(s) of 10 samples with {', '.join(exts)}"}
    if "index_paths" in values:
        out["index_paths"] = "their index"
    return out

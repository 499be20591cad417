"""Small, deterministic files in the formats DALI readers consume: what ``verify --synthetic`` (and
the project's own fixtures, ``fixtures/datasets.py``) run pipelines on.

Every generator draws from a :func:`numpy.random.default_rng` seeded by its caller, so the bytes
depend only on the seed (and, for JPEG, on the Pillow build): both sides of a check read the same
files, and two runs of a check read the same files. Sizes are small and deliberately not multiples
of common batch sizes, so the wrap of the last batch into the next epoch is exercised.

Only numpy, Pillow (JPEG) and the standard library are used: WAV comes from :mod:`wave`, TFRecord
framing (masked CRC-32C, ``tf.train.Example`` protobuf) and the webdataset index are encoded here,
so neither TensorFlow nor ``tar`` is needed.
"""

from __future__ import annotations

import io
import struct
import tarfile
import wave
from pathlib import Path
from typing import Any

import numpy as np

from ndd_migrate.verify.errors import SetupError

#: Sample rate of the generated WAV files.
AUDIO_SAMPLE_RATE = 16000


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` unless it already holds exactly these bytes: a second run changes
    nothing, not even modification times."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and path.read_bytes() == data:
        return
    path.write_bytes(data)


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


# --------------------------------------------------------------------------------------------------
# Images, sound, arrays


def synthetic_image(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """An RGB uint8 image with structure (gradients, a few rectangles) and mild noise.

    Flat or pure-noise images would make crops, flips and resizes look alike in a comparison;
    gradients and shapes make every geometric change visible in the bytes.
    """
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    base = np.stack(
        [
            255.0 * xx / max(width - 1, 1),
            255.0 * yy / max(height - 1, 1),
            127.5 + 127.5 * np.sin((xx + yy) / rng.uniform(4.0, 12.0)),
        ],
        axis=-1,
    )
    for _ in range(int(rng.integers(1, 4))):
        y0, x0 = int(rng.integers(0, height // 2)), int(rng.integers(0, width // 2))
        y1, x1 = y0 + int(rng.integers(4, height // 2)), x0 + int(rng.integers(4, width // 2))
        base[y0:y1, x0:x1] = rng.integers(0, 256, size=3)
    base += rng.normal(0.0, 6.0, size=base.shape)
    return np.clip(base, 0, 255).astype(np.uint8)


def jpeg_bytes(pixels: np.ndarray) -> bytes:
    """``pixels`` (HWC uint8 RGB) as a JPEG. Pillow encodes it: DALI has no CPU JPEG encoder."""
    try:
        from PIL import Image
    except ImportError:
        raise SetupError(
            "missing-pillow", "generating JPEGs needs Pillow: pip install pillow (or ndd-migrate[verify])"
        ) from None
    buf = io.BytesIO()
    Image.fromarray(pixels, mode="RGB").save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def random_jpeg(rng: np.random.Generator, low: int = 40, high: int = 91) -> bytes:
    """A JPEG of ``low``..``high``-1 pixels a side."""
    h, w = (int(v) for v in rng.integers(low, high, size=2))
    return jpeg_bytes(synthetic_image(rng, h, w))


def coco_scene(
    rng: np.random.Generator, count: int, categories: int, polygons: bool = False
) -> tuple[list[tuple[str, bytes, dict]], list[dict]]:
    """``count`` JPEGs of 60–110 px for a COCO reader, each with 1–3 boxes drawn into it as solid
    rectangles (so a crop that keeps a box keeps visible content; every image has one, as the
    reader skips images without), and their annotations (``bbox`` as ``[x, y, w, h]``; with
    ``polygons``, a triangle ``segmentation`` too). Returns ``([(file name, JPEG bytes, image
    record)], annotations)``, ids from 1."""
    images, annotations = [], []
    for image_id in range(1, count + 1):
        h, w = (int(v) for v in rng.integers(60, 111, size=2))
        pixels = synthetic_image(rng, h, w)
        for _ in range(int(rng.integers(1, 4))):
            bw, bh = int(rng.integers(8, w // 2)), int(rng.integers(8, h // 2))
            x, y = int(rng.integers(0, w - bw)), int(rng.integers(0, h - bh))
            pixels[y : y + bh, x : x + bw] = rng.integers(0, 256, size=3)
            box = {
                "id": len(annotations) + 1,
                "image_id": image_id,
                "category_id": int(rng.integers(1, categories + 1)),
            }
            box["bbox"] = [float(x), float(y), float(bw), float(bh)]
            if polygons:
                box["segmentation"] = [[float(x), float(y), float(x + bw), float(y), float(x + bw), float(y + bh)]]
            annotations.append({**box, "area": float(bw * bh), "iscrowd": 0})
        name = f"{image_id:012d}.jpg"
        images.append((name, jpeg_bytes(pixels), {"id": image_id, "file_name": name, "width": w, "height": h}))
    return images, annotations


def wav_bytes(samples: np.ndarray, rate: int = AUDIO_SAMPLE_RATE) -> bytes:
    """Mono 16-bit PCM WAV, written with the standard library (no soundfile dependency)."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return buf.getvalue()


def random_wav(rng: np.random.Generator, kind: int) -> bytes:
    """0.25–0.8 s of a steady tone (``kind`` 0), a chirp (1) or noise (2), windowed."""
    n = int(rng.integers(AUDIO_SAMPLE_RATE // 4, AUDIO_SAMPLE_RATE * 4 // 5))
    t = np.arange(n) / AUDIO_SAMPLE_RATE
    if kind == 0:
        signal = np.sin(2 * np.pi * rng.uniform(180, 500) * t)
    elif kind == 1:
        f0, f1 = rng.uniform(200, 600), rng.uniform(2000, 5000)
        signal = np.sin(2 * np.pi * (f0 * t + (f1 - f0) * t**2 / (2 * t[-1])))
    else:
        signal = rng.normal(0.0, 0.35, size=n)
    signal = signal * np.hanning(n) + rng.normal(0.0, 0.01, size=n)
    return wav_bytes(np.clip(signal * 0.6 * 32767, -32768, 32767))


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def random_features(rng: np.random.Generator, features: int = 6) -> np.ndarray:
    """A float32 ``(length, features)`` array, length 3–17, positive and negative values."""
    length = int(rng.integers(3, 18))
    return rng.normal(0.0, 3.0, size=(length, features)).astype(np.float32)


# --------------------------------------------------------------------------------------------------
# TFRecord, encoded by hand


def _crc32c_table() -> list[int]:
    poly = 0x82F63B78  # Castagnoli, reflected
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the checksum TFRecord framing uses (``crc32c(b"123456789")`` is
    ``0xE3069283``)."""
    crc = 0xFFFFFFFF
    table = _CRC32C_TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The masked CRC stored in TFRecord files: rotate right by 15, add a constant (mod 2**32)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64 -> two's complement, 10 bytes
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _feature(value: Any) -> bytes:
    """Encode one ``tf.train.Feature``: bytes → BytesList (1), float → FloatList (2), int →
    Int64List (3). A list is a repeated value; numeric lists are packed, as TensorFlow writes them."""
    values = value if isinstance(value, (list, tuple)) else [value]
    if all(isinstance(v, (bytes, bytearray)) for v in values):
        return _field(1, b"".join(_field(1, bytes(v)) for v in values))
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return _field(3, _field(1, b"".join(_varint(int(v)) for v in values)))
    if all(isinstance(v, (float, int, np.floating)) for v in values):
        return _field(2, _field(1, struct.pack(f"<{len(values)}f", *values)))
    raise TypeError(f"unsupported feature value {value!r}")


def encode_example(features: dict) -> bytes:
    """Serialize a ``tf.train.Example`` (``Example{features: Features{map<string, Feature>}}``).

    Keys are written in sorted order, as TensorFlow's deterministic serialization does.
    """
    entries = b"".join(
        _field(1, _field(1, key.encode("utf-8")) + _field(2, _feature(features[key]))) for key in sorted(features)
    )
    return _field(1, entries)


def tfrecord_frame(payload: bytes) -> bytes:
    """One TFRecord record: length (uint64 LE), masked CRC of the length, data, masked CRC of data."""
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked_crc32c(length)) + payload + struct.pack("<I", masked_crc32c(payload))


def write_tfrecord(path: str | Path, index_path: str | Path | None, examples: list[dict]) -> None:
    """``examples`` framed into ``path``; the index DALI's ``tfrecord2idx`` writes (one ``<offset>
    <record size>`` line per record) into ``index_path``."""
    frames = [tfrecord_frame(encode_example(e)) for e in examples]
    write_bytes(path, b"".join(frames))
    if index_path is not None:
        offsets = np.cumsum([0] + [len(f) for f in frames])
        write_text(index_path, "".join(f"{o} {len(f)}\n" for o, f in zip(offsets, frames)))


# --------------------------------------------------------------------------------------------------
# Webdataset


def write_webdataset(path: str | Path, index_path: str | Path | None, samples: list[dict[str, bytes]]) -> None:
    """A tar of ``samples`` (``{extension: bytes}`` each, member ``<key>.<extension>``) at ``path``;
    with ``index_path``, the index DALI's ``wds2idx`` writes: ``v1.2 <samples>``, then per sample
    ``<ext> <data offset> <size> <member name>`` for each component."""
    buf = io.BytesIO()
    lines = []
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for key, sample in enumerate(samples):
            parts = []
            for ext, data in sample.items():
                info = tarfile.TarInfo(f"sample{key:06d}.{ext}")
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                offset = buf.tell() + tarfile.BLOCKSIZE  # the data follows the member's header
                tar.addfile(info, io.BytesIO(data))
                parts.append(f"{ext} {offset} {len(data)} {info.name}")
            lines.append(" ".join(parts))
    write_bytes(path, buf.getvalue())
    if index_path is not None:
        write_text(index_path, f"v1.2 {len(samples)}\n" + "".join(line + "\n" for line in lines))

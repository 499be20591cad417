"""Tiny datasets for the verify cases, written into a directory the test gives (tmp_path)."""

from __future__ import annotations

import os

import numpy as np


def write_numpy_files(root: str, count: int = 7, seed: int = 0) -> str:
    """``count`` small int32 arrays of varying shapes as ``sample_XX.npy`` (a numpy reader whose
    epoch is not a multiple of the batch sizes the tests use)."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(count):
        arr = rng.integers(-100, 100, size=(2 + i % 3, 3), dtype=np.int32)
        np.save(os.path.join(root, f"sample_{i:02d}.npy"), arr)
    return root


def write_jpeg_folders(root: str, classes: int = 2, per_class: int = 5, seed: int = 0) -> str:
    """A file-reader tree ``root/cK/imgN.jpg`` of small random RGB JPEGs of a few sizes."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    for c in range(classes):
        d = os.path.join(root, f"c{c}")
        os.makedirs(d, exist_ok=True)
        for i in range(per_class):
            h, w = 20 + 4 * (i % 3), 24 + 4 * (i % 2)
            # Smooth-ish content so that JPEG decoding is well-behaved.
            y, x = np.mgrid[0:h, 0:w]
            base = (x * (3 + c) + y * (2 + i)) % 256
            img = np.stack([base, (base + 85) % 256, (base + 170) % 256], axis=-1)
            img = np.clip(img + rng.integers(-10, 10, size=img.shape), 0, 255).astype(np.uint8)
            Image.fromarray(img).save(os.path.join(d, f"img{i}.jpg"), quality=90)
    return root

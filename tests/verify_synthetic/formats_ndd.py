"""formats_pipes.py as `ndd-migrate migrate` writes it, and one migration wrong on purpose."""

import os

import nvidia.dali.experimental.dynamic as ndd
import nvidia.dali.tfrecord as tfrec
from nvidia.dali import types

TFRECORD_FEATURES = {
    "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
    "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    "image/object/bbox": tfrec.VarLenFeature(tfrec.float32, 0.0),
}

SPLIT = "train"
LIST_FILE = "/nonexistent/list.txt"


def tfrecord_pipe(root, *, batch_size=3, num_threads=1, device_id=0, seed=5):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.TFRecord(
        path=os.path.join(root, f"{SPLIT}.tfrecord"),
        index_path=os.path.join(root, f"{SPLIT}.idx"),
        features=TFRECORD_FEATURES,
        random_shuffle=True,
        seed=3,
        name="Reader",
    )
    while True:
        for inputs in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(inputs["image/encoded"], device="gpu", output_type=types.RGB)
            images = ndd.resize(images, resize_x=32, resize_y=32)
            yield images.evaluate(), inputs["image/class/label"].evaluate(), inputs["image/object/bbox"].evaluate()


def webdataset_pipe(shards, indexes, *, batch_size=4, num_threads=1, device_id=0, seed=9):
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.Webdataset(
        paths=shards, index_paths=indexes, ext=["jpg", "cls"], missing_component_behavior="error", name="Reader"
    )
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, output_type=types.RGB)
            images = ndd.random_resized_crop(images, size=[24, 24], rng=rng)
            yield images.evaluate(), labels.evaluate()


def numpy_files_pipe(files, *, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.Numpy(files=files, name="Reader")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            yield (ndd.reductions.sum(data, axes=0).evaluate(),)


def file_list_pipe(*, batch_size=3, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    listing = LIST_FILE
    reader = ndd.readers.File(file_list=listing, name="Reader")
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            yield ndd.decoders.image(jpegs, output_type=types.GRAY).evaluate(), labels.evaluate()


def filtered_numpy_pipe(data_dir, *, batch_size=2, num_threads=1, device_id=0):
    ndd.set_num_threads(num_threads)
    reader = ndd.readers.Numpy(file_root=f"{data_dir}/features", file_filter="*_x.npy", name="Reader")
    while True:
        for (data,) in reader.next_epoch(batch_size=batch_size):
            yield ((data * 2).evaluate(),)


def webdataset_pipe_bgr(shards, indexes, *, batch_size=4, num_threads=1, device_id=0, seed=9):
    """Wrong on purpose: the images are decoded as BGR."""
    ndd.set_num_threads(num_threads)
    rng = ndd.random.RNG(seed=seed)
    reader = ndd.readers.Webdataset(
        paths=shards, index_paths=indexes, ext=["jpg", "cls"], missing_component_behavior="error", name="Reader"
    )
    while True:
        for jpegs, labels in reader.next_epoch(batch_size=batch_size):
            images = ndd.decoders.image(jpegs, output_type=types.BGR)
            images = ndd.random_resized_crop(images, size=[24, 24], rng=rng)
            yield images.evaluate(), labels.evaluate()

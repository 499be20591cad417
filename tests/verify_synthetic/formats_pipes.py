"""Original pipelines over the readers `verify --synthetic` generates data for, their paths given
the ways loaders give them: a parameter, an expression of one, a local, a module-level name."""

import os

import nvidia.dali.tfrecord as tfrec
from nvidia.dali import fn, pipeline_def, types

TFRECORD_FEATURES = {
    "image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
    "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
    "image/object/bbox": tfrec.VarLenFeature(tfrec.float32, 0.0),
}

SPLIT = "train"
LIST_FILE = "/nonexistent/list.txt"


@pipeline_def(batch_size=3, num_threads=1, device_id=0, seed=5)
def tfrecord_pipe(root):
    inputs = fn.readers.tfrecord(
        path=os.path.join(root, f"{SPLIT}.tfrecord"),
        index_path=os.path.join(root, f"{SPLIT}.idx"),
        features=TFRECORD_FEATURES,
        random_shuffle=True,
        seed=3,
        name="Reader",
    )
    images = fn.decoders.image(inputs["image/encoded"], device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=32, resize_y=32)
    return images, inputs["image/class/label"], inputs["image/object/bbox"]


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=9)
def webdataset_pipe(shards, indexes):
    jpegs, labels = fn.readers.webdataset(
        paths=shards, index_paths=indexes, ext=["jpg", "cls"], missing_component_behavior="error", name="Reader"
    )
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.random_resized_crop(images, size=[24, 24])
    return images, labels


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def numpy_files_pipe(files):
    data = fn.readers.numpy(files=files, name="Reader")
    return fn.reductions.sum(data, axes=0)


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def file_list_pipe():
    listing = LIST_FILE
    jpegs, labels = fn.readers.file(file_list=listing, name="Reader")
    return fn.decoders.image(jpegs, output_type=types.GRAY), labels


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def filtered_numpy_pipe(data_dir):
    data = fn.readers.numpy(file_root=f"{data_dir}/features", file_filter="*_x.npy", name="Reader")
    return data * 2

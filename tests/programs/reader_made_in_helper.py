# expect: blocked NDD101
# data: jpeg
"""A reader made in a helper function that the pipeline calls: the helper runs once, when the graph
is built, so the pipeline reads its epoch through. A generator would call the helper for every batch
and make a new reader each time: the pipeline stays in pipeline mode, with the reason."""

import sys

from nvidia.dali import fn, pipeline_def, types


def labelled_files(root, seed):
    return fn.readers.file(file_root=root, random_shuffle=True, seed=seed, name="Reader")


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def decoded(root):
    jpegs, labels = labelled_files(root, 17)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    return fn.resize(images, resize_x=16, resize_y=16), labels


def main():
    pipe = decoded(sys.argv[1])
    pipe.build()
    for step in range(3):
        images, labels = pipe.run()
        print(step, [int(labels.at(i)[0]) for i in range(len(labels))], images.at(0).shape)


if __name__ == "__main__":
    main()

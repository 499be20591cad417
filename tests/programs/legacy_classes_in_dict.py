# expect: converted
# data: jpeg
"""A family of `Pipeline` subclasses (a base with the shared operators and a graph helper, two
readers' subclasses) kept as the keys of a dict, each mapped to the paths it is run on. A loop
takes each class out of the dict, makes one pipeline per shard in a comprehension, builds them,
runs them in turn, and prints the class's `__name__`. Each class becomes a generator function of
the same name; the loop, the dict and the calls through the loop variable stay as written."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class CommonPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(CommonPipeline, self).__init__(batch_size, num_threads, device_id)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=8, resize_y=6)

    def base_define_graph(self, inputs, labels):
        images = self.resize(self.decode(inputs))
        return (images, labels)


class FileReadPipeline(CommonPipeline):
    def __init__(self, batch_size, num_threads, device_id, num_shards, shard_id, data_paths):
        super(FileReadPipeline, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_paths[0], shard_id=shard_id, num_shards=num_shards)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.base_define_graph(jpegs, labels)


class ShuffledReadPipeline(CommonPipeline):
    def __init__(self, batch_size, num_threads, device_id, num_shards, shard_id, data_paths):
        super(ShuffledReadPipeline, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(
            file_root=data_paths[0], random_shuffle=True, seed=int(data_paths[1]), shard_id=shard_id, num_shards=num_shards
        )

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.base_define_graph(jpegs, labels)


root = sys.argv[1]
test_data = {
    FileReadPipeline: [[root], [root + "/"]],
    ShuffledReadPipeline: [[root, "7"], [root, "11"]],
}
SHARDS = 2

for pipe_name in test_data.keys():
    runs = len(test_data[pipe_name])
    for i, data_set in enumerate(test_data[pipe_name]):
        pipes = [pipe_name(batch_size=3, num_threads=1, device_id=None, num_shards=SHARDS, shard_id=n, data_paths=data_set) for n in range(SHARDS)]
        [pipe.build() for pipe in pipes]
        print("RUN {0}/{1}: {2}".format(i + 1, runs, pipe_name.__name__))
        for step in range(4):
            for pipe in pipes:
                images, labels = pipe.run()
                print(pipe_name.__name__, step, labels.as_array().ravel().tolist(), images.at(0).shape)
        print("OK {0}/{1}: {2}".format(i + 1, runs, pipe_name.__name__))

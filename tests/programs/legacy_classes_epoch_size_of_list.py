# expect: converted
# data: jpeg
"""A family of `Pipeline` subclasses kept as the keys of a dict (class → the data sets it is run
on). For each class and data set the loop makes one pipeline per shard in a comprehension, asks the
first for its reader's epoch size, checks that every pipeline of the list reports the same, works
out the number of steps from it, and runs the pipelines with the scheduled API. The epoch size of a
sharded reader is the whole data set's, in both modes. The creation becomes
`pipes_meta, pipes = zip(*[...])`, `pipes[0].epoch_size("Reader")` the metadata of element 0 and
the check a read of each pipeline's paired metadata."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class CommonPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(CommonPipeline, self).__init__(batch_size, num_threads, device_id)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(resize_x=6, resize_y=4)

    def base_define_graph(self, inputs, labels):
        return (self.resize(self.decode(inputs)), labels)


class FileReadPipeline(CommonPipeline):
    def __init__(self, batch_size, num_threads, device_id, num_gpus, shard, data_paths):
        super(FileReadPipeline, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(file_root=data_paths[0], shard_id=shard, num_shards=num_gpus)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.base_define_graph(jpegs, labels)


class PaddedReadPipeline(CommonPipeline):
    def __init__(self, batch_size, num_threads, device_id, num_gpus, shard, data_paths):
        super(PaddedReadPipeline, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.readers.File(
            file_root=data_paths[0], shard_id=shard, num_shards=num_gpus, pad_last_batch=True, stick_to_shard=True
        )

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        return self.base_define_graph(jpegs, labels)


root = sys.argv[1]
test_data = {
    FileReadPipeline: [[root], [root + "/"]],
    PaddedReadPipeline: [[root]],
}
N = 2
BATCH_SIZE = 4

for pipe_name in test_data.keys():
    data_set_len = len(test_data[pipe_name])
    for i, data_set in enumerate(test_data[pipe_name]):
        pipes = [pipe_name(batch_size=BATCH_SIZE, num_threads=1, device_id=None, num_gpus=N, shard=n, data_paths=data_set) for n in range(N)]
        [pipe.build() for pipe in pipes]

        iters = pipes[0].epoch_size("Reader")
        assert(all(pipe.epoch_size("Reader") == iters for pipe in pipes))
        print("epoch size", iters, [pipe.epoch_size("Reader") for pipe in pipes])
        iters = -(-iters // (BATCH_SIZE * N)) + 1

        print("RUN {0}/{1}: {2}".format(i + 1, data_set_len, pipe_name.__name__))
        for j in range(iters):
            for pipe in pipes:
                pipe.schedule_run()
            for pipe in pipes:
                images, labels = pipe.outputs()
                print(pipe_name.__name__, j, labels.as_array().ravel().tolist(), images.at(0).shape)
        print("OK {0}/{1}: {2}".format(i + 1, data_set_len, pipe_name.__name__))

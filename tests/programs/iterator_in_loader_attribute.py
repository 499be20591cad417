# expect: converted
# data: jpeg
"""A loader class keeps its legacy pipeline in `self.pipeline` (built in `__init__`, its epoch size
read in one branch), and a PyTorch iterator over it in `self.dali_iterator` (`pipelines=`, `size=`,
`auto_reset=True`); `__iter__` hands out `self.dali_iterator.__iter__()`. The file is indented with
tabs, and so is the code the migration writes."""

import sys

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin import pytorch


class SquarePipeline(Pipeline):
	def __init__(self, batch_size, num_threads, device_id, root, side):
		super(SquarePipeline, self).__init__(batch_size, num_threads, device_id, seed=12)
		self.reader = ops.readers.File(file_root=root, random_shuffle=False)
		self.decode = ops.decoders.Image(output_type=types.RGB)
		self.square = ops.Resize(resize_x=side, resize_y=side)

	def define_graph(self):
		jpegs, labels = self.reader(name="Reader")
		return self.square(self.decode(jpegs))


class SquareLoader():
	"""Epochs of `epoch_size` samples (the whole reader when not given), as dicts of torch tensors."""

	def __init__(self, root, batch_size, epoch_size=-1):
		self.pipeline = SquarePipeline(batch_size=batch_size,
									   num_threads=1,
									   device_id=None,
									   root=root,
									   side=5)
		self.pipeline.build()

		# the epoch: the reader's, or the one asked for
		if epoch_size <= 0:
			self.epoch_size = self.pipeline.epoch_size("Reader")
		else:
			self.epoch_size = epoch_size
		self.dali_iterator = pytorch.DALIGenericIterator(pipelines=self.pipeline,
														 output_map=["data"],
														 size=self.epoch_size,
														 auto_reset=True)

	def __len__(self):
		return self.epoch_size

	def __iter__(self):
		return self.dali_iterator.__iter__()


for size in (-1, 7):
	loader = SquareLoader(sys.argv[1], batch_size=3, epoch_size=size)
	print("epoch size", len(loader))
	for epoch in range(3):
		for i, batch in enumerate(loader):
			data = batch[0]["data"]
			print(epoch, i, tuple(data.shape), int(data.sum()) % 1009)

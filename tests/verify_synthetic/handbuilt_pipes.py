"""A graph built by hand at module level, reading a module-level folder: --synthetic sets the global."""

from nvidia.dali import fn, types
from nvidia.dali.pipeline import Pipeline

image_dir = "/data/images"

pipe = Pipeline(batch_size=3, num_threads=1, device_id=0)
with pipe:
    jpegs, labels = fn.readers.file(file_root=image_dir, name="Reader")
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    pipe.set_outputs(fn.resize(images, resize_x=20, resize_y=20), labels)
pipe.build()
out = pipe.run()

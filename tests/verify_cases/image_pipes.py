"""The target-shape example: a JPEG classification pipeline with random augmentation."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=42)
def train_pipe(data_dir, crop=16):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="mixed", output_type=types.RGB)
    images = fn.random_resized_crop(images, size=crop)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT)
    return images, labels.gpu()


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=7)
def color_pipe(data_dir):
    jpegs, _ = fn.readers.file(file_root=data_dir)
    images = fn.decoders.image(jpegs, device="mixed")
    brightness = fn.random.uniform(range=[0.5, 1.5])
    contrast = fn.random.uniform(range=[0.8, 1.2])
    return fn.brightness_contrast(images, brightness=brightness, contrast=contrast)

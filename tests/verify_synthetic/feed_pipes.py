"""Original pipelines fed by an external source that is a parameter: `verify --synthetic` feeds
them arrays of the dtype and layout they declare."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=3)
def per_sample(source):
    images = fn.external_source(source=source, batch=False, dtype=types.UINT8, layout="HWC")
    flipped = fn.flip(images, horizontal=fn.random.coin_flip())
    return fn.resize(flipped, resize_x=16, resize_y=16)


@pipeline_def(batch_size=3, num_threads=1, device_id=0)
def batched(source):
    feats, labels = fn.external_source(
        source=source, num_outputs=2, dtype=[types.FLOAT, types.INT32], layout=["TF", ""]
    )
    return feats * 2, labels


@pipeline_def(batch_size=2, num_threads=1, device_id=0)
def shaped(source):
    data = fn.external_source(source=source, dtype=types.FLOAT, ndim=3)
    return fn.reductions.sum(data, axes=[0, 2])

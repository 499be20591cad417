# expect: converted
# data: none
"""Every TensorList method the migration rewrites, printed: values, shapes, layouts, density."""

from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=11)
def noise():
    dense = fn.random.uniform(shape=[3, 2], range=[0.0, 1.0])
    ragged = fn.random.uniform(shape=fn.random.uniform(range=[1, 4], dtype=types.INT32, shape=[1]))
    return dense, ragged


pipe = noise()
pipe.build()
for step in range(2):
    dense, ragged = pipe.run()
    print(dense.as_tensor().shape(), dense.shape(), repr(dense.layout()), dense.is_dense_tensor())
    print(len(ragged) == 3, ragged.is_dense_tensor() in (True, False), dense.at(0).shape, dense.as_cpu().at(1).dtype)

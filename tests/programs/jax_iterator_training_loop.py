# expect: converted
# data: numpy
# needs: jax
"""A JAX training loop in the shape of DALI's JAX examples: a `@pipeline_def` reading sharded
samples, built by the program and given to JAX's `DALIGenericIterator` with `output_map` and
`reader_name`; each epoch steps over the iterator (`auto_reset=True`), a jitted step reads the
`jax.Array` batches. The iterator becomes the support module's `DALIJaxGenericIterator` over the
migrated pipeline: the same arrays, epochs and `len()`."""

import sys

import jax
import jax.numpy as jnp
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.plugin.jax import DALIGenericIterator

BATCH_SIZE = 4


@pipeline_def(num_threads=2, device_id=None, seed=5)
def features_pipeline(root, shard_id=0, num_shards=1):
    samples = fn.readers.numpy(
        file_root=root,
        name="features_reader",
        random_shuffle=True,
        shard_id=shard_id,
        num_shards=num_shards,
    )
    rows = fn.slice(samples, 0, 3, axes=[0])
    label = fn.cast(fn.reductions.sum(rows) > 0, dtype=types.INT32)
    return rows, label


@jax.jit
def step(weights, rows, labels):
    scores = jnp.einsum("bij,j->b", rows, weights)
    return weights + 0.01 * jnp.mean(scores), jnp.sum(labels)


def main(root):
    pipe = features_pipeline(root, shard_id=1, num_shards=2, batch_size=BATCH_SIZE)
    pipe.build()
    iterator = DALIGenericIterator(
        pipe,
        output_map=["rows", "label"],
        reader_name="features_reader",
        auto_reset=True,
    )
    print("batches per epoch:", len(iterator))
    weights = jnp.ones(6)
    for epoch in range(2):
        for i, batch in enumerate(iterator):
            weights, positives = step(weights, batch["rows"], batch["label"])
            print(epoch, i, batch["rows"].shape, batch["label"].dtype, int(positives))
        print("epoch", epoch, "weights", [round(float(w), 4) for w in weights])


if __name__ == "__main__":
    main(sys.argv[1])

"""The function a migrated module gets in place of a DALI framework iterator (NDD411).

A ``DALIGenericIterator(pipe, reader_name=...)`` slices the endless stream of ``pipe.run()`` batches
into epochs by counting samples against the reader's metadata, trimming (PARTIAL), dropping (DROP)
or carrying over (FILL) the batch that crosses the epoch end, and moving to the next shard each
epoch. The migrated pipeline yields the same stream (docs/target-shape.md), so the same counting over
it gives the same batches per epoch. ``HELPER`` is that counting, ported from
``nvidia/dali/plugin/base_iterator.py`` (DALI 2.4.0) for one pipeline with ``reader_name``; it is
inserted as source text, so the migrated program needs nothing from ndd-migrate at run time.
"""

NAME = "dali_iterator_epochs"

HELPER = '''
def dali_iterator_epochs(stream, meta, output_map, last_batch_policy="fill"):
    """Per-epoch iterators over ``stream`` giving ``[{name: torch tensor}]`` per batch: the batches a
    DALIGenericIterator(reader_name=...) gave. ``meta`` is ``reader.get_metadata()``. Written by
    ndd-migrate (NDD411) after DALI's iterator; run each epoch to its end before taking the next."""
    shards, total = meta["number_of_shards"], meta["epoch_size"]
    shard, stick, padded = meta["shard_id"], meta["stick_to_shard"], meta["pad_last_batch"]
    initial = [(i + 1) * total // shards - i * total // shards for i in range(shards)]
    sizes, per_shard, counter = list(initial), [0] * shards, 0
    fill = last_batch_policy == "fill" and not padded
    size = step = None

    def epoch():
        nonlocal counter, size, step
        while size is None or counter < size:
            batch = next(stream)
            if size is None:  # the first batch gives the batch size
                step = batch[0].batch_size
                if last_batch_policy == "drop":
                    size = total // shards
                elif padded:
                    size = meta["epoch_size_padded"] // shards
                else:
                    size = -(-(-(-total // shards)) // step) * step
            counter += step
            if last_batch_policy == "drop" and any(p + counter > s for p, s in zip(per_shard, sizes)):
                return
            keep = step - (counter - initial[shard]) if last_batch_policy == "partial" else step
            yield [{name: out.torch()[:keep] for name, out in zip(output_map, batch)}]

    while True:
        yield epoch()
        if fill:
            counter -= min(per_shard)
            per_shard = [p + counter - s for p, s in zip(per_shard, sizes)]
            counter = min(per_shard)
        else:
            counter = 0
        if not stick:
            shard = (shard + 1) % shards
        if fill:
            if not stick:
                sizes = sizes[-1:] + sizes[:-1]
            size = -(-max(s - p for s, p in zip(sizes, per_shard)) // step) * step
            if size == 0:  # read so far ahead that the next epoch is done already
                per_shard, counter = [0] * shards, 0
                sizes = sizes[-1:] + sizes[:-1]
                size = -(-max(sizes) // step) * step
'''

# Several pipelines (one per GPU or shard), as `DALIGenericIterator([pipe, ...], reader_name=...)`:
# DALI counts the same samples for each (only the shard differs), so each pipeline's epochs end at
# the same batch and are taken side by side, one dict per pipeline in each batch.
MANY_NAME = "dali_iterator_epochs_many"

MANY_HELPER = '''
def dali_iterator_epochs_many(streams, metas, output_map, last_batch_policy="fill"):
    """Per-epoch iterators over several pipelines, one ``reader.get_metadata()`` in ``metas`` for
    each: the batches a DALIGenericIterator([pipe, ...], reader_name=...) gave, one dict per pipeline.
    Written by ndd-migrate (NDD411); run each epoch to its end before taking the next."""
    loaders = [dali_iterator_epochs(s, m, output_map, last_batch_policy) for s, m in zip(streams, metas)]

    def epoch(parts):
        while True:
            batches = [next(part, None) for part in parts]  # every pipeline runs, as in DALI
            if None in batches:
                return
            yield [data for batch in batches for data in batch]

    while True:
        yield epoch([next(loader) for loader in loaders])
'''

# `DALIGenericIterator(pipe, size=n)` without `reader_name`: DALI counts `n` samples per epoch over
# all its pipelines together, with no shards; FILL carries the samples read past `n` into the next
# epoch unless the reader pads (`last_batch_padded`).
SIZED_NAME = "dali_iterator_sized_epochs"

SIZED_HELPER = '''
def dali_iterator_sized_epochs(streams, size, output_map, last_batch_policy="fill", last_batch_padded=False):
    """Per-epoch iterators over ``streams`` (one per pipeline) giving ``[{name: torch tensor}]`` per
    batch: the batches a DALIGenericIterator(size=size) without ``reader_name`` gave. Written by
    ndd-migrate (NDD411) after DALI's iterator; run each epoch to its end before taking the next."""
    counter = 0

    def epoch():
        nonlocal counter
        while counter < size:
            batches = [next(stream) for stream in streams]
            step = batches[0][0].batch_size
            counter += len(streams) * step
            if last_batch_policy == "drop" and counter > size:
                return
            data = [{name: out.torch() for name, out in zip(output_map, batch)} for batch in batches]
            if last_batch_policy == "partial" and counter > size:
                left = len(streams) * step - (counter - size)  # the samples left in this epoch
                data = data[: -(-left // step)]
                data[-1] = {name: tensor[: left % step or step] for name, tensor in data[-1].items()}
            yield data

    while True:
        yield epoch()
        counter = counter % size if last_batch_policy == "fill" and not last_batch_padded else 0
'''

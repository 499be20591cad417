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
    ndd-migrate (NDD411) after DALI's plugin/base_iterator.py; run each epoch to its end before
    taking the next."""
    num_shards, epoch_size = meta["number_of_shards"], meta["epoch_size"]
    shard_id, padded = meta["shard_id"], meta["pad_last_batch"]
    # The samples of each shard, as the reader splits the epoch.
    first_shard_sizes = [(i + 1) * epoch_size // num_shards - i * epoch_size // num_shards for i in range(num_shards)]
    shard_sizes = list(first_shard_sizes)
    read_ahead = [0] * num_shards  # FILL: samples of each shard already given in earlier epochs
    # FILL (unpadded) gives the batch crossing the epoch end full, counted against the next epoch.
    carry_over = last_batch_policy == "fill" and not padded
    given = 0  # samples given in this epoch (from its start, read-ahead included)
    size = batch_size = None  # samples per epoch; both known from the first batch

    def epoch():
        nonlocal given, size, batch_size
        while size is None or given < size:
            batch = next(stream)
            if size is None:
                batch_size = batch[0].batch_size
                if last_batch_policy == "drop":  # DROP: no more than the smallest shard holds
                    size = epoch_size // num_shards
                elif padded:  # the reader pads the last batch with the shard's last sample
                    size = meta["epoch_size_padded"] // num_shards
                else:  # FILL, PARTIAL: the whole batches covering the largest shard
                    size = math.ceil(math.ceil(epoch_size / num_shards) / batch_size) * batch_size
            given += batch_size
            if last_batch_policy == "drop" and any(r + given > s for r, s in zip(read_ahead, shard_sizes)):
                return  # DROP: the batch crossing a shard's end is not given
            keep = batch_size
            if last_batch_policy == "partial":  # PARTIAL: the last batch is cut at the shard's end
                keep -= given - first_shard_sizes[shard_id]
            yield [{name: out.torch()[:keep] for name, out in zip(output_map, batch)}]

    while True:
        yield epoch()
        if not meta["stick_to_shard"]:  # the reader moves to the next shard each epoch
            shard_id = (shard_id + 1) % num_shards
        if not carry_over:
            given = 0
            continue
        # FILL: each shard's next epoch starts with what the last batch read past its end.
        given -= min(read_ahead)
        read_ahead = [r + given - s for r, s in zip(read_ahead, shard_sizes)]
        given = min(read_ahead)
        if not meta["stick_to_shard"]:
            shard_sizes = shard_sizes[-1:] + shard_sizes[:-1]  # np.roll(shard_sizes, 1)
        size = math.ceil(max(s - r for s, r in zip(shard_sizes, read_ahead)) / batch_size) * batch_size
        if size == 0:  # read so far ahead that the next epoch is done already
            read_ahead, given = [0] * num_shards, 0
            shard_sizes = shard_sizes[-1:] + shard_sizes[:-1]
            size = math.ceil(max(shard_sizes) / batch_size) * batch_size
'''


def source(math_name: str = "math") -> str:
    """``HELPER`` as inserted, rounding up with ``<math_name>.ceil`` (the module's name for the
    standard library's ``math``, see ``Context.stdlib_math``)."""
    return HELPER.lstrip("\n").replace("math.ceil(", f"{math_name}.ceil(")


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

# `DALIGenericIterator(pipe, output_map)` with neither `reader_name` nor `size=`, over a pipeline
# whose external source raises `StopIteration` at the end of each epoch: DALI ends the epoch there
# and, after `reset()` (or `iter()`, or `auto_reset`), draws the next one from the same source
# iterator. The migrated pipeline is a function giving one generator per epoch over that iterator
# (`fn.restarts`, docs/target-shape.md); DALI forces FILL and no padding here, so nothing is cut.
SOURCE_NAME = "dali_iterator_source_epochs"

SOURCE_HELPER = '''
def dali_iterator_source_epochs(epochs, output_map):
    """Per-epoch iterators giving ``[{name: torch tensor}]`` per batch: the batches a
    DALIGenericIterator without ``reader_name`` or ``size`` gave, each epoch ending where the external
    source raised ``StopIteration``. ``epochs()`` is the migrated pipeline's generator of one epoch.
    Written by ndd-migrate (NDD411)."""
    while True:
        yield ([{name: out.torch() for name, out in zip(output_map, batch)}] for batch in epochs())
'''

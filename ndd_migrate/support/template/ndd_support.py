"""What a program migrated to DALI's dynamic mode needs beyond DALI itself.

Pipeline mode did a few things for a program that dynamic mode leaves to it. Modules
that ndd-migrate migrated import them from here, so each is written once, in one place:

* ``dali_op_seed``: the seed a pipeline created with ``seed=S`` gave one of its
  operators, so that a shuffling reader keeps the pipeline's sample order.
* ``dali_iterator_epochs`` and its variants: the epochs a ``DALIGenericIterator`` (or
  ``DALIClassificationIterator``) cut from its pipeline's stream of batches, the same
  batches per epoch under every ``last_batch_policy``, shard and padding setting.

Only the standard library is imported (a batch's ``.torch()`` needs PyTorch, as the
DALI iterator did): the program runs without ndd-migrate installed.
"""

import math

__all__ = [
    "dali_op_seed",
    "dali_iterator_epochs",
    "dali_iterator_epochs_many",
    "dali_iterator_sized_epochs",
    "dali_iterator_source_epochs",
]


def dali_op_seed(pipeline_seed, op_index):
    """The seed DALI gave operator ``op_index`` (in graph order) of a pipeline created
    with ``seed=pipeline_seed``: word ``op_index`` of
    ``std::seed_seq{pipeline_seed}.generate()`` over 1024 words, as DALI's C++ pipeline
    computes it. Unseeded (None, negative): -1, the reader's own default."""
    if pipeline_seed is None or pipeline_seed < 0:
        return -1
    mask, n = 0xFFFFFFFF, 1024
    t = 11  # std::seed_seq's lag for n >= 623
    p = (n - t) // 2
    q = p + t
    words = [0x8B8B8B8B] * n

    def scramble(x):
        return x ^ (x >> 27)

    for k in range(n):  # mix in the one seed value (32 bits, as seed_seq keeps them)
        r1 = 1664525 * scramble(words[k] ^ words[(k + p) % n] ^ words[k - 1]) & mask
        mixed = pipeline_seed & mask if k == 1 else 0
        r2 = (r1 + (1 if k == 0 else k + mixed)) & mask
        words[(k + p) % n] = (words[(k + p) % n] + r1) & mask
        words[(k + q) % n] = (words[(k + q) % n] + r2) & mask
        words[k] = r2
    for k in range(n, 2 * n):  # then scramble every word once more
        total = (words[k % n] + words[(k + p) % n] + words[(k - 1) % n]) & mask
        r3 = 1566083941 * scramble(total) & mask
        r4 = (r3 - k % n) & mask
        words[(k + p) % n] ^= r3
        words[(k + q) % n] ^= r4
        words[k % n] = r4
    return words[op_index]


def dali_iterator_epochs(stream, meta, output_map, last_batch_policy="fill"):
    """Per-epoch iterators over ``stream`` giving ``[{name: torch tensor}]`` per
    batch: the batches a ``DALIGenericIterator(pipe, reader_name=...)`` gave. ``meta``
    is ``reader.get_metadata()``. Ported from DALI's ``plugin/base_iterator.py``; run
    each epoch to its end before taking the next."""
    num_shards, epoch_size = meta["number_of_shards"], meta["epoch_size"]
    shard_id, padded = meta["shard_id"], meta["pad_last_batch"]
    # The samples of each shard, as the reader splits the epoch.
    first_shard_sizes = [
        (i + 1) * epoch_size // num_shards - i * epoch_size // num_shards
        for i in range(num_shards)
    ]
    shard_sizes = list(first_shard_sizes)
    # FILL: the samples of each shard already given in earlier epochs.
    read_ahead = [0] * num_shards
    # FILL (unpadded) gives the batch crossing the epoch's end whole, counted against
    # the next epoch.
    carry_over = last_batch_policy == "fill" and not padded
    given = 0  # samples given in this epoch (from its start, read-ahead included)
    size = batch_size = None  # samples per epoch; both known from the first batch

    def whole_batches(samples):
        return math.ceil(samples / batch_size) * batch_size

    def epoch():
        nonlocal given, size, batch_size
        while size is None or given < size:
            batch = next(stream)
            if size is None:
                batch_size = batch[0].batch_size
                if last_batch_policy == "drop":  # no more than the smallest shard
                    size = epoch_size // num_shards
                elif padded:  # the reader pads with the shard's last sample
                    size = meta["epoch_size_padded"] // num_shards
                else:  # FILL, PARTIAL: whole batches covering the largest shard
                    size = whole_batches(math.ceil(epoch_size / num_shards))
            given += batch_size
            crossed = (r + given > s for r, s in zip(read_ahead, shard_sizes))
            if last_batch_policy == "drop" and any(crossed):
                return  # DROP: the batch crossing a shard's end is not given
            keep = batch_size
            if last_batch_policy == "partial":  # cut at the shard's end
                keep -= given - first_shard_sizes[shard_id]
            yield [{name: out.torch()[:keep] for name, out in zip(output_map, batch)}]

    while True:
        yield epoch()
        if not meta["stick_to_shard"]:  # the reader moves on to the next shard
            shard_id = (shard_id + 1) % num_shards
        if not carry_over:
            given = 0
            continue
        # FILL: each shard's next epoch starts with what the last batch read past
        # its end.
        given -= min(read_ahead)
        read_ahead = [r + given - s for r, s in zip(read_ahead, shard_sizes)]
        given = min(read_ahead)
        if not meta["stick_to_shard"]:
            shard_sizes = shard_sizes[-1:] + shard_sizes[:-1]  # np.roll(sizes, 1)
        size = whole_batches(max(s - r for s, r in zip(shard_sizes, read_ahead)))
        if size == 0:  # read so far ahead that the next epoch is done already
            read_ahead, given = [0] * num_shards, 0
            shard_sizes = shard_sizes[-1:] + shard_sizes[:-1]
            size = whole_batches(max(shard_sizes))


def dali_iterator_epochs_many(streams, metas, output_map, last_batch_policy="fill"):
    """Per-epoch iterators over several pipelines (one ``reader.get_metadata()`` in
    ``metas`` for each): the batches a ``DALIGenericIterator([pipe, ...],
    reader_name=...)`` gave, one dict per pipeline. DALI counts the same samples for
    each (only the shard differs), so their epochs end at the same batch. Run each
    epoch to its end before taking the next."""
    loaders = [
        dali_iterator_epochs(stream, meta, output_map, last_batch_policy)
        for stream, meta in zip(streams, metas)
    ]

    def epoch(parts):
        while True:
            batches = [next(part, None) for part in parts]  # each runs, as in DALI
            if None in batches:
                return
            yield [data for batch in batches for data in batch]

    while True:
        yield epoch([next(loader) for loader in loaders])


def dali_iterator_sized_epochs(
    streams, size, output_map, last_batch_policy="fill", last_batch_padded=False
):
    """Per-epoch iterators over ``streams`` (one per pipeline) giving
    ``[{name: torch tensor}]`` per batch: the batches a
    ``DALIGenericIterator(pipe, size=size)`` without ``reader_name`` gave. DALI counts
    ``size`` samples per epoch over all its pipelines together, with no shards; FILL
    carries what was read past ``size`` into the next epoch unless the reader pads.
    Run each epoch to its end before taking the next."""
    counter = 0

    def epoch():
        nonlocal counter
        while counter < size:
            batches = [next(stream) for stream in streams]
            step = batches[0][0].batch_size
            counter += len(streams) * step
            if last_batch_policy == "drop" and counter > size:
                return
            data = [
                {name: out.torch() for name, out in zip(output_map, batch)}
                for batch in batches
            ]
            if last_batch_policy == "partial" and counter > size:
                left = len(streams) * step - (counter - size)  # left in this epoch
                data = data[: -(-left // step)]
                cut = left % step or step
                data[-1] = {name: tensor[:cut] for name, tensor in data[-1].items()}
            yield data

    while True:
        yield epoch()
        carry = last_batch_policy == "fill" and not last_batch_padded
        counter = counter % size if carry else 0


def dali_iterator_source_epochs(epochs, output_map):
    """Per-epoch iterators giving ``[{name: torch tensor}]`` per batch: the batches a
    ``DALIGenericIterator`` without ``reader_name`` or ``size`` gave, each epoch ending
    where the external source raised ``StopIteration``. ``epochs()`` is the migrated
    pipeline's generator of one epoch."""
    while True:
        yield (
            [{name: out.torch() for name, out in zip(output_map, batch)}]
            for batch in epochs()
        )

"""What a program migrated to DALI's dynamic mode needs beyond DALI itself.

Pipeline mode did a few things for a program that dynamic mode leaves to it. Modules
that ndd-migrate migrated import them from here, so each is written once, in one place:

* ``dali_op_seed``: the seed a pipeline created with ``seed=S`` gave one of its
  operators, so that a shuffling reader keeps the pipeline's sample order.
* ``dali_external_source``: the batches an external source drew from a ``source``
  whose kind (iterable, generator function, callable) only the run tells.
* ``dali_iterator_epochs`` and its variants: the epochs a ``DALIGenericIterator`` (or
  ``DALIClassificationIterator``) cut from its pipeline's stream of batches, the same
  batches per epoch under every ``last_batch_policy``, shard and padding setting.
* ``DALIGenericIterator`` and ``DALIClassificationIterator``: DALI's PyTorch iterators
  over migrated pipelines, for code that keeps an iterator, wraps it or derives from it
  (``len()``, ``size``, ``reset()``, ``auto_reset`` mean what they meant);
  ``DALIJaxGenericIterator``, JAX's ``DALIGenericIterator``;
  ``DALIPaddleGenericIterator`` and ``DALIPaddleClassificationIterator``, Paddle's.
* ``prefetching``: a migrated pipeline computes its next batch while the program uses
  the last one, as pipeline mode's ``prefetch_queue_depth`` did.
* ``dali_constant``: the data of a graph constant (``types.Constant(value,
  dtype=...)``) that a ``Pipeline`` subclass made in ``__init__``, as a numpy array.
* ``to_gpu_with``: an operand of arithmetic moved to the GPU when its partner is
  there, as pipeline mode moved it (dynamic mode refuses to mix devices).
* ``compare_pipelines`` and ``check_batch``: the comparisons of DALI's test suite
  (its ``test_utils`` module), for migrated pipelines and pipeline-mode ones alike.

Only the standard library is imported (a batch's ``.torch()`` needs PyTorch, as the
DALI iterator did; a JAX or Paddle batch, JAX or Paddle; a source's ``SampleInfo``,
DALI): the program runs without ndd-migrate installed.
"""

import atexit
import collections
import functools
import inspect
import logging
import math
import threading
import weakref

__all__ = [
    "dali_op_seed",
    "dali_external_source",
    "dali_iterator_epochs",
    "dali_iterator_epochs_many",
    "dali_iterator_sized_epochs",
    "dali_iterator_source_epochs",
    "DALIGenericIterator",
    "DALIClassificationIterator",
    "DALIJaxGenericIterator",
    "DALIPaddleGenericIterator",
    "DALIPaddleClassificationIterator",
    "prefetching",
    "dali_constant",
    "to_gpu_with",
    "compare_pipelines",
    "check_batch",
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


def dali_constant(value, dtype):
    """The data of ``types.Constant(value, dtype=dtype)``, as a numpy array that a
    dynamic-mode operator takes as an input or an argument. DALI 2.4 made them so:
    float data sent as float32 and other data as int64, then converted to ``dtype``
    by DALI's cast, which rounds half away from zero and saturates (``[1.7, 2.5,
    300]`` as ``UINT8`` gives ``[2, 3, 255]``). A number (a 0-d array) made a
    ``ScalarConstant``, converted first as Python converts it to ``dtype``'s kind
    (``int(2.7)`` is 2): it is given as a numpy scalar, which an operator takes as an
    argument too (saturated, where an argument was given the number as it was)."""
    import numpy as np
    from nvidia.dali import types
    from nvidia.dali.experimental import dynamic as ndd

    array = np.asarray(value)
    if array.ndim == 0:
        kind = np.dtype(types.to_numpy_type(dtype)).kind
        array = np.asarray({"b": bool, "f": float}.get(kind, int)(array.item()))
    array = array.astype(np.float32 if array.dtype.kind == "f" else np.int64)
    converted = np.asarray(ndd.cast(array, dtype=dtype))
    return converted[()] if converted.ndim == 0 else converted


def to_gpu_with(value, *partners):
    """``value`` moved to the GPU when one of ``partners`` is a DALI batch or tensor
    there; otherwise ``value`` itself. Pipeline mode ran arithmetic on the GPU when
    one of its operands was there and copied the others to it; dynamic mode raises
    "Cannot mix GPU and CPU inputs" instead. Where only the run tells an operand's
    device (a helper called with CPU and GPU data), the migration writes
    ``to_gpu_with(operand, partner) * partner``. Python numbers and lists stay as
    they are: dynamic mode places them itself; other data (a numpy array) becomes
    a GPU tensor."""
    if not any(_on_gpu(partner) for partner in partners):
        return value
    if hasattr(value, "gpu"):
        return value.gpu()
    if isinstance(value, (int, float, bool, list, tuple)):
        return value
    from nvidia.dali.experimental import dynamic as ndd

    return ndd.as_tensor(value, device="gpu")


def _on_gpu(value):
    return getattr(getattr(value, "device", None), "device_type", None) == "gpu"


def compare_pipelines(
    pipe1,
    pipe2,
    batch_size,
    N_iterations,
    eps=1e-07,
    max_allowed_error=None,
    expected_layout=None,
    compare_layouts=True,
):
    """``compare_pipelines`` of DALI's ``test_utils``, for pipelines of either mode: a
    pipeline-mode ``Pipeline`` is built and run, a migrated pipeline (its batches, or
    ``(reader metadata, batches)``) advanced; ``N_iterations`` times, each output of
    one is compared with the same output of the other by :func:`check_batch`.
    ``expected_layout`` may be one layout per output (a tuple)."""
    outputs = [_runs(pipe1), _runs(pipe2)]
    for _ in range(N_iterations):
        out1, out2 = (next(run) for run in outputs)
        assert len(out1) == len(out2), f"{len(out1)} outputs != {len(out2)} outputs"
        for i, (batch1, batch2) in enumerate(zip(out1, out2)):
            layout = (
                expected_layout[i]
                if isinstance(expected_layout, tuple)
                else expected_layout
            )
            check_batch(
                batch1,
                batch2,
                batch_size,
                eps,
                max_allowed_error,
                layout,
                compare_layouts,
            )
    print(f"OK: ({N_iterations} iterations)")


def _runs(pipe):
    """The batch tuples of a pipeline of either mode, one per ``next()``."""
    if hasattr(pipe, "build") and hasattr(pipe, "run"):  # pipeline mode
        pipe.build()
        return iter(pipe.run, None)
    stream = _Stream(pipe)
    return iter(stream.next, None)


def check_batch(
    batch1,
    batch2,
    batch_size=None,
    eps=1e-07,
    max_allowed_error=None,
    expected_layout=None,
    compare_layouts=True,
):
    """``check_batch`` of DALI's ``test_utils``: two batches (dynamic-mode ``Batch``es,
    ``TensorList``s, lists of arrays or tensors, or arrays whose first axis is the
    sample) hold ``batch_size`` samples each (as many as ``batch1``: None) of the same
    shapes, whose mean absolute difference is at most ``eps`` and, when
    ``max_allowed_error`` is given, whose largest difference is at most it; the
    layouts of two batches that have one are equal (``compare_layouts``) and
    ``expected_layout`` when given. A failed comparison raises ``AssertionError``."""
    import numpy as np

    (samples1, layout1), (samples2, layout2) = _samples(batch1), _samples(batch2)
    batch_size = len(samples1) if batch_size is None else batch_size
    for samples in (samples1, samples2):
        assert len(samples) == batch_size, f"batch size {len(samples)} != {batch_size}"
    for layout in (layout1, layout2):
        if expected_layout is not None and layout is not None:
            assert layout == expected_layout, (
                f"layout {layout!r} != expected {expected_layout!r}"
            )
    if compare_layouts and layout1 is not None and layout2 is not None:
        assert layout1 == layout2, f"layout {layout1!r} != {layout2!r}"
    for i, (left, right) in enumerate(zip(samples1, samples2)):
        left, right = np.asarray(left), np.asarray(right)
        assert left.shape == right.shape, (
            f"sample {i}: shape mismatch {left.shape} != {right.shape}"
        )
        if left.size == 0:
            continue
        if left.dtype == bool or right.dtype == bool:
            left, right = left.astype(int), right.astype(int)
        difference = np.maximum(left, right) - np.minimum(left, right)
        mean_error, max_error = np.mean(difference), np.max(difference)
        too_far = max_allowed_error is not None and max_error > max_allowed_error
        assert mean_error <= eps and not too_far, (
            f"sample {i}: mean error {mean_error}, max error {max_error} "
            f"(eps {eps}, max_allowed_error {max_allowed_error})"
        )


def _samples(batch):
    """``(samples, layout)`` of a batch; the layout is None where the batch has none."""
    if hasattr(batch, "tensors") and hasattr(batch, "batch_size"):  # dynamic mode
        batch = batch.cpu()
        return list(batch.tensors), batch.layout or ""
    if hasattr(batch, "as_cpu") or hasattr(batch, "at"):  # pipeline mode's TensorList
        batch = batch.as_cpu() if hasattr(batch, "as_cpu") else batch
        return [batch.at(i) for i in range(len(batch))], batch.layout() or ""
    return list(batch), None


def dali_external_source(
    source,
    *,
    batch=True,
    batch_size=None,
    cycle=None,
    batch_info=False,
    num_outputs=None,
):
    """The batches ``fn.external_source(source=source, ...)`` fed its pipeline, for a
    ``source`` whose kind only the run tells, drawn as DALI 2.4 draws them
    (``get_callback_from_source`` of ``_utils/external_source_impl.py``, ``get_batch``
    of ``external_source.py``): a generator function is called once and iterated, an
    iterable iterated (with ``cycle``, both start again at their end), anything else
    called with nothing or, when it takes one argument, the iteration number (or a
    ``BatchInfo``; per sample, a ``SampleInfo``). ``batch=False``: ``batch_size``
    samples a batch, one list per output with ``num_outputs``.

    ``next()`` gives a batch; ``StopIteration`` ends an epoch where ``pipe.run()``
    raised it, and the next ``next()`` starts the next epoch as after ``pipe.reset()``:
    an iterator goes on; a callable starts again at iteration 0, its epoch one more.
    DALI's errors for a source it refuses are raised when this is called."""
    return _SourceFeed(source, batch, batch_size, cycle, batch_info, num_outputs)


class _SourceFeed:
    """The iterator ``dali_external_source`` gives."""

    def __init__(self, source, batch, batch_size, cycle, batch_info, num_outputs):
        self._draw = _source_callback(source, cycle)
        self._takes_info = _takes_index(self._draw)
        self._batch = True if batch is None else batch  # `fn.external_source`'s default
        self._batch_size, self._batch_info = batch_size, batch_info
        self._outputs = num_outputs
        self._iteration = self._sample = self._epoch = 0

    def __iter__(self):
        return self

    def __next__(self):
        try:
            if self._batch:
                data = self._draw(*self._info(None))
            else:
                data = [self._draw(*self._info(i)) for i in range(self._batch_size)]
        except StopIteration:  # DALI's `reset_indices`, then `pipe.reset()`
            self._iteration = self._sample = 0
            self._epoch += 1
            raise
        self._iteration += 1
        self._sample += self._batch_size or 0
        if self._batch or self._outputs is None:
            return data
        return tuple([sample[i] for sample in data] for i in range(self._outputs))

    def _info(self, index):
        """The arguments of one call: DALI's ``callback_args``."""
        if not self._takes_info:
            return ()
        from nvidia.dali import types  # a program with such a source has DALI

        if index is not None:
            sample = self._sample + index
            return (types.SampleInfo(sample, index, self._iteration, self._epoch),)
        if self._batch_info:
            return (types.BatchInfo(self._iteration, self._epoch),)
        return (self._iteration,)


def _source_callback(source, cycle):
    """What gives the next batch (or sample): DALI's ``get_callback_from_source``."""
    if source is None:
        raise TypeError("no `source`: a pipeline fed by `feed_input` was not migrated")
    if cycle not in (None, False, "no", True, "quiet"):  # "raise" is not migrated
        raise ValueError(f"Invalid value {cycle!r} for the argument `cycle`.")
    try:
        if cycle not in (None, False, "no") and inspect.isgenerator(source):
            raise TypeError(
                "Cannot cycle through a generator - if the generator is a result of "
                "calling a generator function, pass that function instead as `source`."
            )
        # `start()` gives a new iterator (at the end of the data again, with `cycle`):
        # `iter()` once on the source, as DALI does: an iterable's `__iter__` may
        # shuffle or count, and must run once per pass.
        if _is_generator_function(source):
            start = lambda: iter(source())  # noqa: E731
        else:
            start = functools.partial(iter, source)
        iterator = start()
    except TypeError as error:
        if "not iterable" not in str(error):
            raise
    else:
        if cycle not in (True, "quiet"):
            return lambda: next(iterator)
        current = [iterator]
        return lambda: _next_cycled(current, start)
    if cycle is not None:
        raise ValueError(
            "The argument `cycle` can only be specified if `source` is iterable."
        )
    if not callable(source):
        raise TypeError(
            "The `source` must be callable, iterable or a parameterless generator "
            "function."
        )
    return source


def _next_cycled(iterator, start):
    """DALI's ``_CycleIter``/``_CycleGenFunc`` (quiet): at the end of the data, the
    next item of a new ``start()`` (``iterator``: a list holding the current)."""
    try:
        return next(iterator[0])
    except StopIteration:
        iterator[0] = start()
        return next(iterator[0])


def _is_generator_function(x):
    """DALI's test: a generator function, a ``partial`` of one, or an object whose
    ``__call__`` is one."""
    if inspect.isgeneratorfunction(x):
        return True
    if isinstance(x, functools.partial):
        return _is_generator_function(x.func)
    if x is None or inspect.isfunction(x) or inspect.ismethod(x):
        return False
    call = getattr(x, "__call__", None)  # noqa: B004 (the method itself)
    return call is not x and _is_generator_function(call)


def _takes_index(function):
    """Does the source take the batch's (or sample's) index? DALI's
    ``accepted_arg_count``: 0 or 1 positional parameters, nothing else."""
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        function = getattr(function, "__call__", function)  # noqa: B004
    implicit = 1 if inspect.ismethod(function) else 0
    function = function.__func__ if implicit else function
    parameters = inspect.signature(function).parameters.values()
    refused = (
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.VAR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )
    count = len(parameters) - implicit
    if count not in (0, 1) or any(p.kind in refused for p in parameters):
        raise TypeError(
            "The `source` callable must accept either 0 or 1 positional arguments to "
            "indicate whether it accepts the batch or sample indexing information."
        )
    return count == 1


def dali_iterator_epochs(stream, meta, output_map, last_batch_policy="fill"):
    """Per-epoch iterators over ``stream`` giving ``[{name: torch tensor}]`` per
    batch: the batches a ``DALIGenericIterator(pipe, reader_name=...)`` gave. ``meta``
    is ``reader.get_metadata()``. Ported from DALI's ``plugin/base_iterator.py``. An
    epoch left before its end goes on at the next ``next()``, as DALI ignored a
    ``reset()`` there."""
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
    dropped = False  # DROP: the batch crossing a shard's end was read

    def whole_batches(samples):
        return math.ceil(samples / batch_size) * batch_size

    def ended():
        """Did the epoch reach its end, so that DALI's ``reset()`` took effect? With
        DROP, when the next batch would run past a shard's end; DALI's ``reset()``
        then reads that batch and leaves it out (``dropped``)."""
        nonlocal given, dropped
        if size is None:  # no batch taken yet
            return False
        if last_batch_policy != "drop" or given >= size:
            return given >= size
        ahead = given + (0 if dropped else batch_size)
        if not any(r + ahead > s for r, s in zip(read_ahead, shard_sizes)):
            return False
        if not dropped:
            next(stream, None)
            given += batch_size
        return True

    def epoch():
        nonlocal given, size, batch_size, dropped
        dropped = False
        while size is None or given < size:
            batch = next(stream, None)
            if batch is None:  # the pipeline's source ended: so does DALI's epoch
                return
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
                dropped = True
                return  # DROP: the batch crossing a shard's end is not given
            keep = batch_size
            if last_batch_policy == "partial":  # cut at the shard's end
                keep -= given - first_shard_sizes[shard_id]
            yield [{name: out.torch()[:keep] for name, out in zip(output_map, batch)}]

    while True:
        current = epoch()
        yield current
        while not ended():  # DALI ignored ``reset()`` before the epoch's end
            yield current
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
    each (only the shard differs), so their epochs end at the same batch. An epoch
    left before its end goes on at the next ``next()``."""
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
    An epoch left before its end goes on at the next ``next()``, as DALI ignored a
    ``reset()`` there. A pipeline giving one generator per epoch (over a source that
    ends) is reset at each epoch's end, as DALI reset it (see ``_EpochFeed``)."""
    feeds = [_EpochFeed.of(s) if callable(s) else None for s in streams]
    streams = [iter(f()) if f is not None else s for f, s in zip(feeds, streams)]
    counter = 0
    step = None  # the batch size, known from the first batch
    dropped = False  # DROP: the batch running past ``size`` was read

    def ended():
        """Did the epoch reach its end (DALI's ``reset()`` reads the batch DROP
        leaves out)?"""
        nonlocal counter
        if last_batch_policy != "drop" or step is None or counter >= size:
            return counter >= size
        if dropped:
            return True
        if counter + len(streams) * step <= size:
            return False
        for stream in streams:
            next(stream, None)
        counter += len(streams) * step
        return True

    def epoch():
        nonlocal counter, step, dropped
        dropped = False
        while counter < size:
            batches = [next(stream, None) for stream in streams]
            if None in batches:  # a pipeline's source ended: so does DALI's epoch
                return
            step = batches[0][0].batch_size
            counter += len(streams) * step
            if last_batch_policy == "drop" and counter > size:
                dropped = True
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
        current = epoch()
        yield current
        while not ended():  # DALI ignored ``reset()`` before the epoch's end
            yield current
        carry = last_batch_policy == "fill" and not last_batch_padded
        counter = counter % size if carry else 0
        streams[:] = [iter(f()) if f is not None else s for f, s in zip(feeds, streams)]


def dali_iterator_source_epochs(epochs, output_map):
    """Per-epoch iterators giving ``[{name: torch tensor}]`` per batch: the batches a
    ``DALIGenericIterator`` without ``reader_name`` or ``size`` gave, each epoch ending
    where the external source raised ``StopIteration``. ``epochs()`` is the migrated
    pipeline's generator of one epoch (see ``_EpochFeed`` for an epoch left early)."""
    epochs = _EpochFeed.of(epochs)
    while True:
        yield (
            [{name: out.torch() for name, out in zip(output_map, batch)}]
            for batch in epochs()
        )


class _EpochFeed:
    """A migrated pipeline whose external source ends each epoch (``StopIteration``),
    as DALI ran it: the source drawn ``depth`` batches ahead of the consumer (the
    pipeline's ``prefetch_queue_depth``). Each call gives the batches up to the
    source's next end, as ``pipe.reset()`` and then ``pipe.run()`` until
    ``StopIteration`` did: the reset takes effect only once the source's end was
    drawn (the batches already computed come first, then a new pass over the source);
    an epoch left before that goes on. ``epochs()`` is the migrated generator of one
    epoch. An error is raised where the consumer reaches its batch."""

    def __init__(self, epochs, depth=2):
        self._epochs, self._depth = epochs, max(depth, 1)
        self._batches, self._ahead, self._ended = None, collections.deque(), True

    @classmethod
    def of(cls, epochs):
        """``epochs`` as a feed (a plain function: DALI's default depth)."""
        return epochs if isinstance(epochs, cls) else cls(epochs)

    def __call__(self):
        if self._ended:
            self._batches, self._ended = iter(self._epochs()), False
        return self._epoch()

    def _epoch(self):
        while True:
            while not self._ended and len(self._ahead) <= self._depth:
                try:
                    self._ahead.append((next(self._batches), None))
                except StopIteration:
                    self._ended = True
                except Exception as error:  # raised when its batch is asked for
                    self._ahead.append((None, error))
                    self._ended = True
            if not self._ahead:
                return
            batch, error = self._ahead.popleft()
            if error is not None:
                raise error
            yield batch


class _FrameworkIterator:
    """What DALI's framework iterators share (``plugin/base_iterator.py``) over migrated
    pipelines: the arguments, epochs, ``len()``, ``size``, ``reset()`` and
    ``auto_reset``. Each framework's class converts an output (``_tensor``) and shapes
    what ``next()`` gives (``_given``), as its DALI plugin did.

    A pipeline is what a migrated pipeline function gives: an iterator of batches
    (one tuple of ``ndd.Batch`` per ``next()``), a function giving one epoch's
    iterator per call (a pipeline whose external source ends each epoch), or
    ``(reader metadata, batches)``. With ``reader_name``, ``reader_meta`` is the
    reader's ``get_metadata()`` (a list: one per pipeline), unless each pipeline came
    with it. The first batch is computed when the iterator is made, as DALI's
    ``prepare_first_batch`` did; its size is the iterator's ``batch_size``."""

    def __init__(
        self,
        pipelines,
        output_map,
        size=-1,
        reader_name=None,
        auto_reset=False,
        fill_last_batch=None,
        dynamic_shape=False,
        last_batch_padded=False,
        last_batch_policy="FILL",
        prepare_first_batch=True,
        *,
        reader_meta=None,
    ):
        assert len(set(output_map)) == len(output_map), "output_map names must differ"
        self.output_map = list(output_map)
        if not isinstance(pipelines, (list, tuple)) or _Stream.is_pair(pipelines):
            pipelines = [
                pipelines
            ]  # a tuple: several (`zip(*...)`), or `(meta, batches)`
        self._pipes = [_Stream(pipe) for pipe in pipelines]
        self._num_gpus = len(pipelines)
        self.batch_size = self._pipes[0].first().batch_size
        self._size = int(size)
        self._auto_reset = _auto_reset(auto_reset)
        if fill_last_batch is not None:  # DALI's older flag wins over the policy
            last_batch_policy = "FILL" if fill_last_batch else "PARTIAL"
        self._last_batch_policy = _policy_name(last_batch_policy)
        self._last_batch_padded = last_batch_padded
        self._check_size(reader_name)
        self._counter = 0
        self._reader_name = reader_name
        if reader_name:
            several = isinstance(reader_meta, (list, tuple))
            metas = list(reader_meta) if several else [reader_meta]
            if reader_meta is None:  # given with each pipeline
                metas = [pipe.meta for pipe in self._pipes]
            self._from_reader(metas)
        self._ever_consumed = False
        self._first_batch = None
        if prepare_first_batch:
            try:
                # The base's own, as DALI takes it: a subclass sees it later.
                self._first_batch = _FrameworkIterator.__next__(self)
            except StopIteration:
                raise RuntimeError(
                    "It seems that there is no data in the pipeline."
                ) from None
            self._ever_consumed = False

    def _check_size(self, reader_name):
        """DALI's checks of ``size`` against ``reader_name`` and padding; without
        either, DALI reads until the pipeline stops, in whole batches."""
        assert self._size != 0, "Size cannot be 0"
        assert self._size > 0 or self._num_gpus == 1 or reader_name, (
            "Negative size is supported only for a single pipeline"
        )
        assert not reader_name or self._size < 0, "with reader_name, size is not set"
        assert not reader_name or not self._last_batch_padded, (
            "with reader_name, last_batch_padded is not set"
        )
        if self._size < 0 and not reader_name:
            self._last_batch_policy, self._last_batch_padded = "FILL", False

    def _from_reader(self, metas):
        """The epoch's size and each shard's, from the readers' metadata."""
        first = metas[0]
        for key in (
            "epoch_size",
            "number_of_shards",
            "pad_last_batch",
            "stick_to_shard",
        ):
            assert all(meta[key] == first[key] for meta in metas), (
                f"the readers of the pipelines differ in {key}"
            )
        self._size_no_pad = first["epoch_size"]
        self._shards_num = first["number_of_shards"]
        self._last_batch_padded = first["pad_last_batch"]
        self._is_stick_to_shard = first["stick_to_shard"]
        self._shards_id = [meta["shard_id"] for meta in metas]
        if self._last_batch_policy == "DROP":
            self._size = self._size_no_pad // self._shards_num
        elif self._last_batch_padded:
            self._size = first["epoch_size_padded"] // self._shards_num
        else:
            shard = math.ceil(self._size_no_pad / self._shards_num)
            self._size = math.ceil(shard / self.batch_size) * self.batch_size
        self._counter_per_gpu = [0] * self._shards_num
        self._shard_sizes_per_gpu = [
            (i + 1) * self._size_no_pad // self._shards_num
            - i * self._size_no_pad // self._shards_num
            for i in range(self._shards_num)
        ]
        self._shard_sizes_per_gpu_initial = list(self._shard_sizes_per_gpu)

    def _get_outputs(self):
        if self._size > 0 and self._counter >= self._size:
            self._end_iteration()
        try:
            outputs = [pipe.next() for pipe in self._pipes]
        except StopIteration:  # the external source ended the epoch
            if self._size < 0 and self._auto_reset == "yes":
                self.reset()
            raise
        if self._reader_name or self._size != -1:
            for batch in outputs:
                assert all(out.batch_size == self.batch_size for out in batch), (
                    "Variable batch size is not supported by the iterator when "
                    "reader_name is provided or iterator size is set explicitly"
                )
        return outputs

    def _end_iteration(self):
        if self._auto_reset == "yes":
            self.reset()
        raise StopIteration

    def _advance_and_check_drop_last(self, dry_run=False, end_iteration=True):
        """Counts one more batch; with DROP, whether it runs past a shard's end."""
        counter = self._counter
        should_end = False
        if self._reader_name:
            counter += self.batch_size
            if self._last_batch_policy == "DROP":
                should_end = any(
                    c + counter > s
                    for c, s in zip(self._counter_per_gpu, self._shard_sizes_per_gpu)
                )
        else:
            counter += self._num_gpus * self.batch_size
            if self._last_batch_policy == "DROP":
                should_end = counter > self._size
        if not dry_run:
            self._counter = counter
            if should_end and end_iteration:
                self._end_iteration()
        return should_end

    def __next__(self):
        self._ever_consumed = True
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        outputs = self._get_outputs()
        data = [
            {name: self._tensor(out) for name, out in zip(self.output_map, batch)}
            for batch in outputs
        ]
        self._advance_and_check_drop_last()
        if self._reader_name:
            if self._last_batch_policy == "PARTIAL":  # cut at each shard's end
                initial = self._shard_sizes_per_gpu_initial
                left = [
                    self.batch_size - (self._counter - initial[shard])
                    for shard in self._shards_id
                ]
                if any(keep < self.batch_size for keep in left):
                    data = [
                        {
                            name: self._cut(tensor, keep)
                            for name, tensor in batch.items()
                        }
                        for batch, keep in zip(data, left)
                    ]
        elif (
            self._last_batch_policy == "PARTIAL"
            and self._counter > self._size
            and self._size > 0
        ):  # exactly `size` samples: the first pipelines' batches, part of the last
            diff = self._num_gpus * self.batch_size - (self._counter - self._size)
            data = data[0 : math.ceil(diff / self.batch_size)]
            keep = diff % self.batch_size or self.batch_size
            data[-1] = {name: self._cut(t, keep) for name, t in data[-1].items()}
        return self._given(data)

    def _given(self, data):
        """What ``next()`` gives: one dict of tensors per pipeline."""
        return data

    def _cut(self, tensor, keep):
        """The first ``keep`` samples of a converted output (PARTIAL)."""
        return tensor[0:keep]

    def next(self):
        self._ever_consumed = True
        return self.__next__()

    def __iter__(self):
        # A new pass after consumed batches starts the next epoch, as in DALI.
        if self._counter != 0 and self._ever_consumed:
            self.reset()
        return self

    def reset(self):
        """Ends the epoch: the next batch starts the next one. Ignored (with a warning)
        before the epoch's end, as in DALI."""
        if self._last_batch_policy == "DROP":  # read the batch that DROP leaves out
            should_end = self._advance_and_check_drop_last(True, False)
            already_ended = self._size > 0 and self._counter >= self._size
            if should_end and not already_ended:
                self._get_outputs()
                self._advance_and_check_drop_last(end_iteration=False)
        if self._counter < self._size and self._size >= 0:
            logging.warning(  # as DALI does
                "DALI iterator does not support resetting while epoch is not finished."
                " Ignoring..."
            )
            return
        if self._last_batch_policy == "FILL" and not self._last_batch_padded:
            if self._reader_name:  # what each shard read past its end starts the next
                self._counter -= min(self._counter_per_gpu)
                self._counter_per_gpu = [
                    c + self._counter - s
                    for c, s in zip(self._counter_per_gpu, self._shard_sizes_per_gpu)
                ]
                self._counter = min(self._counter_per_gpu)
            else:
                self._counter = self._counter % self._size
        else:
            self._counter = 0
        if self._reader_name:
            self._next_shards()
        for pipe in self._pipes:
            pipe.reset()

    def _next_shards(self):
        """Moves to the next shard and sizes the next epoch, as DALI's reset does."""
        if not self._is_stick_to_shard:
            self._shards_id = [(s + 1) % self._shards_num for s in self._shards_id]
        if self._last_batch_policy != "FILL" or self._last_batch_padded:
            return
        sizes = self._shard_sizes_per_gpu
        if not self._is_stick_to_shard:
            sizes = self._shard_sizes_per_gpu = sizes[-1:] + sizes[:-1]
        to_read = max(s - c for s, c in zip(sizes, self._counter_per_gpu))
        self._size = math.ceil(to_read / self.batch_size) * self.batch_size
        if self._size == 0:  # read so far ahead that the next epoch is done already
            self._counter_per_gpu = [0] * self._shards_num
            self._counter = 0
            sizes = self._shard_sizes_per_gpu = sizes[-1:] + sizes[:-1]
            self._size = math.ceil(max(sizes) / self.batch_size) * self.batch_size

    @property
    def size(self):
        return self._size

    def __len__(self):
        step = (
            self.batch_size if self._reader_name else self._num_gpus * self.batch_size
        )
        if self._last_batch_policy != "DROP":
            return math.ceil(self.size / step)
        return self.size // step


class DALIGenericIterator(_FrameworkIterator):
    """DALI's PyTorch ``DALIGenericIterator`` over migrated pipelines: the same
    arguments, batches (``[{name: torch tensor}]``, one dict per pipeline), epochs,
    ``len()``, ``size``, ``reset()`` and ``auto_reset``. Ported from DALI 2.4's
    ``plugin/base_iterator.py`` and ``plugin/pytorch``, without checkpoints."""

    def __new__(cls, pipelines, *args, **kwargs):
        """DALI's own iterator, where it is given pipeline-mode pipelines (a wrapper
        class whose callers were not migrated): DALI's class runs them, as it did."""
        if cls in (DALIGenericIterator, DALIClassificationIterator) and _pipeline_mode(
            pipelines
        ):
            from nvidia.dali.plugin import pytorch

            return getattr(pytorch, cls.__name__)(pipelines, *args, **kwargs)
        return super().__new__(cls)

    def _tensor(self, out):
        return out.torch()


def _pipeline_mode(pipelines):
    """Are ``pipelines`` (one, or a list) pipeline-mode ``Pipeline`` objects?"""
    several = isinstance(pipelines, (list, tuple)) and not _Stream.is_pair(pipelines)
    given = pipelines if several else [pipelines]
    return bool(given) and all(hasattr(p, "build") and hasattr(p, "run") for p in given)


class DALIClassificationIterator(DALIGenericIterator):
    """DALI's ``DALIClassificationIterator``: a ``DALIGenericIterator`` whose outputs
    are ``data`` and ``label`` (its other arguments in the same order)."""

    def __init__(self, pipelines, *args, **kwargs):
        super().__init__(pipelines, ["data", "label"], *args, **kwargs)


class DALIJaxGenericIterator(_FrameworkIterator):
    """DALI's JAX ``DALIGenericIterator`` (``nvidia.dali.plugin.jax``) over one
    migrated pipeline: the same arguments, ``{name: jax.Array}`` per batch (through
    DLPack, on the device of the pipeline's outputs), epochs, ``len()``, ``size``,
    ``reset()`` and ``auto_reset``. PARTIAL is refused, as DALI does. ``sharding``,
    ``pmap_compatible`` and several pipelines (one array over several devices) are
    not ported: refused."""

    def __init__(
        self,
        pipelines,
        output_map,
        size=-1,
        reader_name=None,
        auto_reset=False,
        last_batch_padded=False,
        last_batch_policy="FILL",
        prepare_first_batch=True,
        sharding=None,
        pmap_compatible=None,
        *,
        reader_meta=None,
    ):
        if len(set(output_map)) != len(output_map):  # DALI checks it first
            raise AssertionError("output_map names should be distinct")
        several = isinstance(pipelines, (list, tuple)) and not _Stream.is_pair(
            pipelines
        )
        if sharding is not None or pmap_compatible or (several and len(pipelines) > 1):
            raise NotImplementedError(
                "the migrated JAX iterator takes one pipeline, without `sharding` "
                "or `pmap_compatible`"
            )
        assert _policy_name(last_batch_policy) != "PARTIAL", (
            "JAX iterator does not support partial last batch policy."
        )
        super().__init__(
            pipelines,
            output_map,
            size,
            reader_name,
            auto_reset,
            last_batch_padded=last_batch_padded,
            last_batch_policy=last_batch_policy,
            prepare_first_batch=prepare_first_batch,
            reader_meta=reader_meta,
        )

    def _tensor(self, out):
        import jax.dlpack  # the program has JAX, as it had for DALI's iterator
        import nvidia.dali.experimental.dynamic as ndd

        return jax.dlpack.from_dlpack(ndd.as_tensor(out))

    def _given(self, data):
        return data[0]


class DALIPaddleGenericIterator(_FrameworkIterator):
    """DALI's PaddlePaddle ``DALIGenericIterator`` (``nvidia.dali.plugin.paddle``)
    over migrated pipelines: the same arguments, batches (``[{name: DenseTensor}]``,
    one dict per pipeline, through DLPack as DALI made them), epochs, ``len()``,
    ``size``, ``reset()`` and ``auto_reset``. An ``output_map`` item giving a LoD
    level (``(name, level)``) is not ported: refused."""

    def __init__(self, pipelines, output_map, *args, **kwargs):
        if not all(isinstance(name, str) for name in output_map):
            raise NotImplementedError(
                "the migrated Paddle iterator takes output names without LoD levels"
            )
        super().__init__(pipelines, output_map, *args, **kwargs)

    def _tensor(self, out):
        import nvidia.dali.experimental.dynamic as ndd
        import paddle  # the program has Paddle, as it had for DALI's iterator

        tensor = ndd.as_tensor(out)
        device = tensor.device
        stream = None
        if device.device_type == "gpu":  # Paddle's stream, as DALI gave it
            stream = paddle.device.cuda.current_stream(device.device_id).cuda_stream
        converted = paddle.framework.core.from_dlpack(tensor.__dlpack__(stream=stream))
        converted.set_recursive_sequence_lengths([])
        return converted

    def _cut(self, tensor, keep):
        """DALI's ``lod_tensor_clip``: a copy in host memory."""
        import numpy as np
        import paddle

        clipped = paddle.framework.core.LoDTensor()
        clipped.set(np.array(tensor)[0:keep], paddle.CPUPlace())
        return clipped


class DALIPaddleClassificationIterator(DALIPaddleGenericIterator):
    """DALI's PaddlePaddle ``DALIClassificationIterator``: outputs ``data`` and
    ``label``."""

    def __init__(self, pipelines, *args, **kwargs):
        super().__init__(pipelines, ["data", "label"], *args, **kwargs)


def _auto_reset(value):
    """``"yes"`` or ``"no"``, as DALI reads ``auto_reset``."""
    if value in (False, None, "no"):
        return "no"
    if value in (True, "yes"):
        return "yes"
    raise ValueError(f"Unsupported value for `auto_reset` {value}")


def _policy_name(policy):
    """``FILL``, ``PARTIAL`` or ``DROP`` of DALI's ``LastBatchPolicy`` or its name."""
    name = str(getattr(policy, "name", policy)).upper()
    if name not in ("FILL", "PARTIAL", "DROP"):
        raise ValueError(f"Wrong value for `last_batch_policy`: {policy!r}")
    return name


class _Stream:
    """One migrated pipeline's batches: an iterator, or a function giving one epoch's
    iterator per call (started again by ``reset()``, as DALI reset its source); or
    what a pipeline function exposing its reader returns, ``(metadata, batches)``."""

    def __init__(self, pipeline):
        self.meta = pipeline[0] if self.is_pair(pipeline) else None
        pipeline = pipeline[1] if self.is_pair(pipeline) else pipeline
        self._epochs = _EpochFeed.of(pipeline) if callable(pipeline) else None
        self._batches = iter(self._epochs()) if callable(pipeline) else pipeline
        self._ahead = []

    @staticmethod
    def is_pair(pipeline):
        """Is ``pipeline`` ``(reader metadata, batches)``?"""
        return (
            isinstance(pipeline, tuple)
            and len(pipeline) == 2
            and isinstance(pipeline[0], dict)
        )

    def first(self):
        """The next batch's first output, kept for ``next()``."""
        if not self._ahead:
            self._ahead.append(next(self._batches))
        return self._ahead[0][0]

    def next(self):
        return self._ahead.pop() if self._ahead else next(self._batches)

    def reset(self):
        if self._epochs is not None:  # DALI's `pipe.reset()` (see `_EpochFeed`)
            self._batches = iter(self._epochs())


def prefetching(generator_function=None, *, depth=2, capture=False):
    """Decorator: each call of ``generator_function`` gives its batches computed ahead
    of the consumer, in a worker thread, as a pipeline with
    ``prefetch_queue_depth=depth`` (default 2) did: while the program holds one batch,
    ``depth - 1`` more are computed.

    The generator runs whole in the worker (its evaluation context, RNGs and reader
    are used there only), one batch after the other: the batches and their order are
    the generator's own. It starts at the first ``next()``, as ``pipe.run()`` started
    the pipeline. An exception is raised by the ``next()`` that asked for its batch;
    the end of the generator ends the iterator. The worker stops, closing the
    generator, on ``close()``, when the iterator is garbage collected, and at
    interpreter exit (after its batch in flight). ``depth=1`` computes nothing ahead.
    A call may give ``prefetch_queue_depth=N``, as the pipeline's call could: that
    call's depth (unless the function has a parameter of that name). A function that
    returns a generator function (one epoch per call, over a source that ends each
    epoch) gives an ``_EpochFeed`` of that depth instead: what DALI read ahead
    decides where an epoch left early goes on.

    ``capture=True``: the generator's loop is captured (``next_epoch(capture=True)``).
    DALI allows one active capture loop per thread, and a suspended generator keeps its
    loop active: such a generator always runs in a worker thread of its own, at depth 1
    too (one batch per ``next()``), so that a training and a validation loader can both
    be captured.
    """

    def decorate(function):
        takes_depth = "prefetch_queue_depth" in inspect.signature(function).parameters

        @functools.wraps(function)
        def start(*args, **kwargs):
            ahead = depth if takes_depth else kwargs.pop("prefetch_queue_depth", depth)
            batches = function(*args, **kwargs)
            if callable(batches):  # one generator per epoch: the source's ends count
                return _EpochFeed(batches, ahead)
            if ahead <= 1 and not capture:
                return batches
            return _Prefetcher(batches, max(ahead, 1))

        return start

    return decorate if generator_function is None else decorate(generator_function)


#: At most this many batches computed ahead, whatever the depth (None: depth - 1).
#: ``ndd-migrate verify`` sets 0: the generator still runs in the worker thread, but
#: one batch per ``next()``, so that it can tell each batch's random draws apart.
MAX_AHEAD = None


class _Prefetcher:
    """The iterator ``prefetching`` gives: ``batches`` (an iterator) run ``depth - 1``
    batches ahead of the consumer in a worker thread."""

    def __init__(self, batches, depth=2):
        self._worker = _Worker(batches, max(depth - 1, 0))
        self._stop = weakref.finalize(self, self._worker.stop, wait=False)

    def __iter__(self):
        return self

    def __next__(self):
        return self._worker.next()

    def close(self):
        """Stop the worker and close the generator (its ``finally`` blocks run)."""
        self._stop.detach()
        self._worker.stop(wait=True)


class _Worker:
    """The thread behind a ``_Prefetcher`` and what it shares with the consumer. It
    holds no reference to the ``_Prefetcher``: dropping the iterator stops it."""

    _live = weakref.WeakSet()  # stopped at interpreter exit

    def __init__(self, batches, ahead):
        self._batches = batches
        self._ahead = ahead
        self._results = collections.deque()  # (batch, None) or (None, exception)
        self._asked = self._made = 0
        self._changed = threading.Condition()
        self._thread = None
        self._stopping = self._ended = False

    def next(self):
        with self._changed:
            if self._ended:
                raise StopIteration
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="ndd-prefetch", daemon=True
                )
                self._live.add(self)
                self._thread.start()
            self._asked += 1
            self._changed.notify_all()
            while not self._results:
                self._changed.wait()
            batch, error = self._results.popleft()
        if error is None:
            return batch
        self._ended = True
        if isinstance(error, StopIteration):
            raise StopIteration
        raise error

    def stop(self, wait):
        with self._changed:
            self._stopping = self._ended = True
            self._changed.notify_all()
        thread = self._thread
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self):
        try:
            while self._next_allowed():
                try:
                    result = (next(self._batches), None)
                except BaseException as error:  # given to the next() that asked
                    result = (None, error)
                with self._changed:
                    self._results.append(result)
                    self._made += 1
                    self._changed.notify_all()
                if result[1] is not None:
                    return
        finally:
            close = getattr(self._batches, "close", None)
            if close is not None:  # in this thread: the generator ran here
                close()

    def _next_allowed(self):
        """Wait until the consumer may have the next batch computed; False: stop."""
        with self._changed:
            ahead = self._ahead if MAX_AHEAD is None else min(self._ahead, MAX_AHEAD)
            while not self._stopping and self._made >= self._asked + ahead:
                self._changed.wait()
            return not self._stopping


@atexit.register
def _stop_prefetching():
    """At exit, let each worker finish its batch in flight: a DALI operator still
    running in a daemon thread while the interpreter finalizes aborts the process."""
    for worker in list(_Worker._live):
        worker.stop(wait=True)

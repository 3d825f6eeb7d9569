"""Dispatch streams: large computations run asynchronously, in order, one stream per device.

`jit` hands a computation to its device's stream when its estimated memory traffic is at least
`numjax_async_dispatch_min_bytes` (default 32 MB: about 5-10 ms of NumPy work here, against a
measured 20 us to hand work to a thread and back); smaller ones run inline, where a thread
handoff would cost more than it could overlap. The call returns at once with output Arrays
whose buffers are `Pending`; the stream's thread runs the computations in submission order
(NumPy releases the GIL inside its loops, so Python keeps dispatching meanwhile) and fills the
buffers in.

A pending Array keeps `_aval` unset, like a committed one, so every dispatch hot path misses
and takes a slow path that waits for the value first. Reading it (`np.asarray`, `print`,
`block_until_ready`, an eager op) waits; a computation that raised re-raises its error there,
on every output, and the stream goes on with the next computation.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config

async_min_bytes = config.State(
    "numjax_async_dispatch_min_bytes", 32 << 20,
    "Computations touching at least this many bytes (estimated) run asynchronously on their "
    "device's stream; smaller ones run inline. 0 makes every jit call asynchronous.",
    parse=int, validator=int, env_var="NUMJAX_ASYNC_DISPATCH_MIN_BYTES", traced=True)


class _Work:
    """One submitted computation: its results or error, and the event that says it is done."""

    __slots__ = ("event", "results", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.results: Sequence[Any] = ()
        self.error: BaseException | None = None


class Deferred:
    """The buffer of an Array whose value is made later: shape and dtype are known, data
    access waits for the value (`wait`). `Pending` (a computation on a stream) and
    `sharding.Assembled` (the global value of an Array split across devices, put together from
    its shards on first use) are the two kinds."""

    __slots__ = ("shape", "dtype", "ndim", "size", "nbytes")

    def __init__(self, aval: Any) -> None:
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.ndim = len(aval.shape)
        self.size = math.prod(aval.shape)
        self.nbytes = self.size * aval.dtype.itemsize

    def ready(self) -> bool:
        return True

    def wait(self) -> Any:
        raise NotImplementedError

    def finish(self) -> None:
        """Wait until the value is computed (raising its error, if any), without making
        more of it than that takes (`block_until_ready`)."""
        self.wait()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        value = np.asarray(self.wait())
        return value if dtype is None else value.astype(dtype)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wait(), name)

    def __getitem__(self, index: Any) -> Any:
        return self.wait()[index]

    def __len__(self) -> int:
        return len(self.wait())


class Pending(Deferred):
    """The buffer of an Array whose computation has not finished: data access waits (and
    raises the computation's error, if any)."""

    __slots__ = ("_work", "_index")

    def __init__(self, aval: Any, work: _Work, index: int) -> None:
        super().__init__(aval)
        self._work = work
        self._index = index

    def ready(self) -> bool:
        return self._work.event.is_set()

    def wait(self) -> Any:
        work = self._work
        work.event.wait()
        if work.error is not None:
            raise work.error
        return work.results[self._index]


def resolve(buf: Any) -> Any:
    """`buf`, or the value it stands for once it is made."""
    return buf.wait() if isinstance(buf, Deferred) else buf


class Stream:
    """One device's execution stream: a thread running submitted computations in order."""

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Sequence[Any]], bufs: Sequence[Any],
               outputs: Sequence[Any], avals: Sequence[Any]) -> None:
        """Run `fn(*bufs)` after everything submitted before; `outputs` (fresh Arrays) get
        pending buffers now and their values when it finishes."""
        work = _Work()
        for i, (out, aval) in enumerate(zip(outputs, avals, strict=True)):
            out._buf = Pending(aval, work, i)
            out._aval = None
        self._queue.put((fn, bufs, outputs, avals, work))

    def run(self, task: Callable[[], None]) -> None:
        """Run `task()` on this stream's thread after everything submitted before (it must
        not raise: it reports its own outcome)."""
        self._queue.put(task)

    def on_this_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def synchronize(self) -> None:
        """Wait until everything submitted so far has run."""
        done = threading.Event()
        self._queue.put(done)
        done.wait()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if isinstance(item, threading.Event):
                item.set()
            elif callable(item):
                item()
                del item
            else:
                # Run in a helper so that its references are gone before waiters wake up: a
                # buffer's reference count decides whether the next call may overwrite it in
                # place (donation).
                done = _execute(*item)
                del item
                done.set()


def _execute(fn: Callable[..., Sequence[Any]], bufs: Sequence[Any], outputs: Sequence[Any],
             avals: Sequence[Any], work: _Work) -> threading.Event:
    try:
        results = fn(*[resolve(b) for b in bufs])
    except BaseException as e:  # surfaces where the outputs are used
        work.error = e
        return work.event
    work.results = results
    for out, value, aval in zip(outputs, results, avals, strict=True):
        if type(out._buf) is Pending:     # not deleted meanwhile
            out._buf = value
            if not out._committed:        # back on the hot paths
                out._aval = aval
    return work.event


_streams: dict[Any, Stream] = {}
_lock = threading.Lock()


def stream_for(device: Any) -> Stream:
    stream = _streams.get(device)
    if stream is None:
        with _lock:
            stream = _streams.get(device)
            if stream is None:
                stream = _streams[device] = Stream(f"numjax-stream-{device}")
    return stream


def synchronize_all() -> None:
    """Wait for every stream to finish what was submitted to it (`effects_barrier`)."""
    for stream in list(_streams.values()):
        stream.synchronize()

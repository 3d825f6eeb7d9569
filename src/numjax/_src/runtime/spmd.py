"""SPMD execution: one program run by several local devices at once, each on its own thread
(the device's stream), meeting at collectives.

A run has a device *grid*: one axis per mapped axis name (pmap's, nested pmaps' too), devices
numbered row-major (the rank). Every device runs the same compiled program on its own shard.
A collective is an `exchange`: each device deposits its operand and waits at a barrier; the
last to arrive runs the combination for every group at once (groups: the devices that differ
only along the named axes, split further by `axis_index_groups`) and every device reads its
result. Results are shared, immutable buffers: a psum's sum is one buffer accumulated in place
and read by all the devices of its group, not a copy each.

A device whose program raises aborts the barrier, so the others stop at their next collective
(or finish); the run then raises the first real error. Devices' threads outlive the run.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.runtime import blas, distributed, stream

Groups = tuple[tuple[int, ...], ...]


class SpmdAborted(Exception):
    """Another device of the run failed: this one stops at its next collective."""


class Communicator:
    """The devices of one SPMD run: their grid, and the barrier their collectives meet at."""

    def __init__(self, names: Sequence[Hashable], sizes: Sequence[int],
                 local: int | None = None, offset: int = 0, mpi_comm: Any = None) -> None:
        """A grid of `prod(sizes)` ranks. With `mpi_comm` the grid spans processes: this one
        runs ranks `offset .. offset + local - 1`, and the combinations cross processes."""
        self.names = tuple(names)
        self.sizes = tuple(sizes)
        self.size = math.prod(self.sizes)
        self.local = self.size if local is None else local
        self.offset = offset
        self.mpi_comm = mpi_comm
        self._slots: list[Any] = [None] * self.local
        self._results: list[Any] = []
        self._combine: Callable[[list[Any]], list[Any]] | None = None
        self._reduce: str | None = None
        self._call_groups: Groups | None = None
        self._pairs: Sequence[tuple[int, int]] | None = None
        self._chunks: tuple[int, int] | None = None
        self._name = "collective"
        # Compare the collective, shape and dtype across processes before each MPI call.
        self.check = False
        self._barrier = threading.Barrier(self.local, action=self._run_combine)
        self._groups: dict[Any, Groups] = {}
        self._pairs_of: dict[Any, tuple[tuple[int, int], ...]] = {}
        self._contexts: dict[int, SpmdContext] = {}
        self._spares: dict[tuple[Any, ...], np.ndarray] = {}  # see `_reused`

    def _reused(self, use: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
        """A send, receive or result buffer for `use`: the one of the last call of the same
        shape and dtype, unless something still holds it (a result, or a view of a received
        row, until its Array is gone); then a new one, kept for the next call. (A new large
        buffer is paged in afresh by every call when the heap does not keep buffers of its
        size — `host_memory`: above 32 MB, or with retention off — which costs a third of a
        16 M-float Allreduce.)"""
        key = (use, shape, dtype)
        spare = self._spares.get(key)
        # References to a free spare: the dict's, `spare` and getrefcount's argument.
        if spare is not None and sys.getrefcount(spare) == 3:
            return spare
        self._spares[key] = spare = np.empty(shape, dtype)
        return spare

    def coords(self, rank: int) -> dict[Hashable, int]:
        """The device's index along each named axis."""
        out: dict[Hashable, int] = {}
        for name, size in zip(reversed(self.names), reversed(self.sizes), strict=True):
            rank, out[name] = divmod(rank, size)
        return out

    def groups(self, axes: Sequence[Hashable], index_groups: Groups | None = None) -> Groups:
        """The groups of ranks a collective over `axes` combines: ranks equal on every other
        axis, ordered row-major along `axes` in the order given (or by `index_groups`, which
        partition the indices of the single axis named)."""
        key = (tuple(axes), index_groups)
        cached = self._groups.get(key)
        if cached is not None:
            return cached
        missing = [a for a in axes if a not in self.names]
        if missing:
            named = [n for n in self.names if type(n).__name__ != "_TempAxisName"]
            raise NameError(f"unbound axis name: {missing[0]}. The following axis names (e.g. "
                            f"defined by pmap) are available to collective operations: {named}")
        by_key: dict[tuple[Any, ...], list[tuple[Any, int]]] = {}
        for rank in range(self.size):
            c = self.coords(rank)
            rest = tuple(c[n] for n in self.names if n not in axes)
            position: Any = tuple(c[a] for a in axes)
            if index_groups is not None:
                index = c[axes[0]]
                which = next(i for i, g in enumerate(index_groups) if index in g)
                rest = (*rest, which)
                position = index_groups[which].index(index)
            by_key.setdefault(rest, []).append((position, rank))
        groups = tuple(tuple(r for _, r in sorted(members)) for members in by_key.values())
        self._groups[key] = groups
        return groups

    def across(self, axes: Sequence[Hashable], index_groups: Groups | None = None
               ) -> Groups | None:
        """The groups of a collective over `axes`, when they reach across processes (for
        `exchange`'s MPI traffic); None in one process."""
        return None if self.mpi_comm is None else self.groups(axes, index_groups)

    def pairs(self, axes: Sequence[Hashable], perm: Sequence[tuple[int, int]]
              ) -> tuple[tuple[int, int], ...] | None:
        """The (source, destination) ranks of a permutation `perm` of each group's members,
        when they reach across processes; None in one process."""
        if self.mpi_comm is None:
            return None
        key = (tuple(axes), tuple(perm))
        cached = self._pairs_of.get(key)
        if cached is None:
            cached = self._pairs_of[key] = tuple((group[src], group[dst])
                                                 for group in self.groups(axes)
                                                 for src, dst in perm)
        return cached

    def exchange(self, rank: int, value: Any, combine: Callable[[list[Any]], list[Any]],
                 reduce: str | None = None, name: str = "collective",
                 groups: Groups | None = None,
                 pairs: Sequence[tuple[int, int]] | None = None,
                 chunks: tuple[int, int] | None = None) -> Any:
        """Deposit `value`, wait for every device, return this device's part of
        `combine(values of all ranks)`. `name` is the collective's, for errors. Across
        processes, what the collective is decides the MPI traffic: `reduce` names a reduction
        (of each of `groups`, or of every rank of the grid); `groups`, the groups of ranks the
        collective combines (only processes sharing a group exchange values); `pairs`, the
        (source, destination) ranks of a permutation (point-to-point messages); `chunks`, an
        all-to-all's (split axis, concat axis) (one Alltoall, with one device per process)."""
        self._slots[rank - self.offset] = value
        self._combine = combine
        self._reduce = reduce
        self._call_groups = groups
        self._pairs = pairs
        self._chunks = chunks
        self._name = name
        if self.local == 1:  # nothing to meet here: combine at once
            self._run_combine()
            return self._results[0]
        try:
            self._barrier.wait()
        except threading.BrokenBarrierError:
            raise SpmdAborted() from None
        return self._results[rank - self.offset]

    def allreduce_alone(self, value: Any, op: str) -> Any:
        """A reduction over the whole grid by this process's only device: one MPI Allreduce
        into a new buffer, on the calling thread (nothing to meet locally). None when MPI
        cannot reduce the dtype (the caller then takes the general path)."""
        if type(value) is not np.ndarray:
            value = np.asarray(value)
        if not _mpi_reduces(value.dtype):
            return None
        if self.check:
            self._check_across_processes(value, f"p{op}")
        # The value is the send buffer as it is (MPI only reads it); the sum lands in the
        # last call's output buffer unless its result is still held, else in a new one.
        out = self._reused("reduced", value.shape, value.dtype)
        self.mpi_comm.Allreduce(value if value.flags.c_contiguous else value.copy(), out,
                                op=_mpi_ops.get(op) or _mpi_op(op))
        return out

    def _run_combine(self) -> None:
        assert self._combine is not None
        slots = self._slots
        self._slots = [None] * self.local
        # Every device has taken its last result: holding them would keep their receive
        # buffers from being reused (`_reused`).
        self._results = []
        if self.mpi_comm is None:
            self._results = self._combine(slots)
            return
        slots = [np.asarray(v) for v in slots]
        if self.check:
            self._check_across_processes(slots[0], self._name)
        if self._pairs is not None:
            self._results = self._permute_across(slots, self._pairs)
            return
        if self._call_groups is not None:
            self._results = self._grouped_across(slots, self._call_groups, self._combine)
            return
        total = slots[0]
        if self._reduce is not None and _mpi_reduces(total.dtype):
            # (One local device reduces in `allreduce_alone`, without meeting here.) The local
            # devices' reduction goes into the last call's buffer unless a result holds it;
            # the processes' sum goes into it in place.
            out = _local_reduce(slots, self._reduce,
                                self._reused("reduced", total.shape, total.dtype))
            self.mpi_comm.Allreduce(_mpi().IN_PLACE, out, op=_mpi_op(self._reduce))
            self._results = [out] * self.local
            return
        # Any other collective over the whole grid: every process gets every rank's value
        # (one Allgather of raw bytes: every rank runs the same program, so the values agree
        # in shape and dtype), combines them all and keeps its ranks' results.
        everything = self._allgather(slots, self.mpi_comm)
        results = self._combine(everything)
        self._results = results[self.offset:self.offset + self.local]

    def _grouped_across(self, slots: list[np.ndarray], groups: Groups,
                        combine: Callable[[list[Any]], list[Any]]) -> list[Any]:
        """A collective of `groups` across processes: only the processes that share groups
        exchange values, on a communicator of their own (`_ProcessClass`). A reduction sums
        (max, min) this process's members of each group first, then one Allreduce of those
        partial results, one row per group; anything else gathers the class's values (one
        Allgather) and combines them. Groups within this process need no MPI call."""
        cls = _process_class(self.mpi_comm, groups, self.local, self.offset // self.local)
        if cls is None:  # groups that no split of the processes keeps apart
            results = combine(self._allgather(slots, self.mpi_comm))
            return results[self.offset:self.offset + self.local]
        if self._reduce is not None and _mpi_reduces(slots[0].dtype):
            first = slots[0]
            partial = self._reused("grouped-partial", (len(cls.groups), *first.shape),
                                   first.dtype)
            for k, g in enumerate(cls.groups):
                _local_reduce([slots[r - self.offset] for r in groups[g]
                               if self.offset <= r < self.offset + self.local], self._reduce,
                              out=partial[k, ...])  # (a view, also of a 0-d row)
            if cls.comm is not None:
                cls.comm.Allreduce(_mpi().IN_PLACE, partial, op=_mpi_op(self._reduce))
            return [partial[k, ...] for k in cls.row_of_local_rank]
        if self._chunks is not None and cls.comm is not None:
            return self._all_to_all(slots, groups, cls, *self._chunks)
        everything: list[Any] = [None] * self.size
        if cls.comm is None:
            everything[self.offset:self.offset + self.local] = slots
        else:
            received = self._allgather(slots, cls.comm)
            for i, process in enumerate(cls.processes):
                start = process * self.local
                everything[start:start + self.local] = received[i * self.local:
                                                                (i + 1) * self.local]
        results = combine(everything)
        return results[self.offset:self.offset + self.local]

    def _all_to_all(self, slots: list[np.ndarray], groups: Groups, cls: _ProcessClass,
                    split_axis: int, concat_axis: int) -> list[Any]:
        """An all-to-all across processes: one Alltoallv on the class, each process sending
        each other process (and itself) only the chunks its ranks receive. Both sides order a
        message's chunks the same way, by source rank, then by the member it goes to."""
        local, offset = self.local, self.offset
        where = {r: group for g in cls.groups for group in (groups[g],) for r in group}
        mine = range(offset, offset + local)
        chunks = {r: np.split(slots[r - offset], len(where[r]), axis=split_axis) for r in mine}
        shape, dtype = chunks[offset][0].shape, slots[0].dtype
        # What goes where: (source rank, destination rank) pairs, per process, in order.
        outgoing = {p: [(r, d) for r in mine for d in where[r] if d // local == p]
                    for p in cls.processes}
        incoming = {p: [(s, d) for s in range(p * local, (p + 1) * local)
                        for d in where[s] if d in mine]
                    for p in cls.processes}
        send = self._reused("alltoall-send", (sum(map(len, outgoing.values())), *shape), dtype)
        row = 0
        for p in cls.processes:
            for r, d in outgoing[p]:
                send[row] = chunks[r][where[r].index(d)]
                row += 1
        received = self._reused("alltoall-received",
                                (sum(map(len, incoming.values())), *shape), dtype)
        size = math.prod(shape) * dtype.itemsize
        counts = [len(outgoing[p]) * size for p in cls.processes]
        counts_in = [len(incoming[p]) * size for p in cls.processes]
        cls.comm.Alltoallv([_raw(send), (counts, _offsets(counts))],
                           [_raw(received), (counts_in, _offsets(counts_in))])
        pieces = dict(zip((pair for p in cls.processes for pair in incoming[p]), received,
                          strict=True))
        return [np.concatenate([pieces[s, d] for s in where[d]], concat_axis) for d in mine]

    def _permute_across(self, slots: list[np.ndarray], pairs: Sequence[tuple[int, int]]
                        ) -> list[Any]:
        """A permutation across processes: each process sends each other process the values
        of its ranks that go there, packed in one message (sent and received without
        waiting on each other, in the pairs' order on both sides); ranks receiving nothing
        get zeros."""
        me, local, offset = self.offset // self.local, self.local, self.offset
        out: list[Any] = [None] * local
        sends: dict[int, list[tuple[int, int]]] = {}
        receives: dict[int, list[tuple[int, int]]] = {}
        for src, dst in pairs:
            source, target = src // local, dst // local
            if source == me and target == me:
                out[dst - offset] = slots[src - offset]
            elif source == me:
                sends.setdefault(target, []).append((src, dst))
            elif target == me:
                receives.setdefault(source, []).append((src, dst))
        first = slots[0]
        inbox = {p: self._reused(f"permute-from-{p}", (len(moves), *first.shape), first.dtype)
                 for p, moves in receives.items()}
        requests = [self.mpi_comm.Irecv(_raw(buf), source=p, tag=_PERMUTE_TAG)
                    for p, buf in inbox.items()]
        outbox = []
        for p, moves in sends.items():
            buf = self._reused(f"permute-to-{p}", (len(moves), *first.shape), first.dtype)
            for row, (src, _) in enumerate(moves):
                buf[row] = slots[src - offset]
            outbox.append(buf)
        requests += [self.mpi_comm.Isend(_raw(buf), dest=p, tag=_PERMUTE_TAG)
                     for p, buf in zip(sends, outbox, strict=True)]
        _mpi().Request.Waitall(requests)
        for p, moves in receives.items():
            for row, (_, dst) in zip(inbox[p], moves, strict=True):
                out[dst - offset] = row
        zeros = None
        for i, v in enumerate(out):
            if v is None:
                zeros = np.zeros_like(first) if zeros is None else zeros
                out[i] = zeros
        return out

    def _allgather(self, slots: list[np.ndarray], comm: Any) -> list[np.ndarray]:
        """Every value of the processes of `comm`, in their order (raw bytes: every rank
        runs the same program, so the values agree in shape and dtype)."""
        first = slots[0]
        send = self._reused("allgather-send", (len(slots), *first.shape), first.dtype)
        for i, v in enumerate(slots):
            send[i] = v
        received = self._reused("allgather-received",
                                (comm.Get_size() * len(slots), *first.shape), first.dtype)
        comm.Allgather(_raw(send), _raw(received))
        return list(received)

    def _check_across_processes(self, value: np.ndarray, name: str) -> None:
        """Every process is at the same collective with the same shape and dtype, or every
        process raises the same error (none is left waiting in MPI, no buffer overrun)."""
        mine = (name, value.shape, value.dtype.name)
        every = self.mpi_comm.allgather(mine)
        if any(h != every[0] for h in every):
            described = "; ".join(f"process {i}: {n} of {d}{list(shape)}"
                                  for i, (n, shape, d) in enumerate(every))
            raise ValueError(
                "The processes of a multi-process pmap reached different collectives or "
                f"passed different shapes or dtypes to one: {described}. Every process must "
                "run the same program on local shards of the same shape and dtype.")

    def context(self, rank: int, device: Any) -> SpmdContext:
        """The context a device's program reads in runs on this communicator."""
        context = self._contexts.get(rank)
        if context is None or context.device is not device:
            context = self._contexts[rank] = SpmdContext(self, rank, device)
        return context

    def abort(self) -> None:
        self._barrier.abort()


class SpmdContext:
    """What a device's program reads at run time: its communicator and rank."""

    __slots__ = ("comm", "rank", "coords", "device")

    def __init__(self, comm: Communicator, rank: int, device: Any) -> None:
        self.comm = comm
        self.rank = rank
        self.coords = comm.coords(rank)
        self.device = device


class _Current(threading.local):
    def __init__(self) -> None:
        self.context: SpmdContext | None = None


_current = _Current()


def current() -> SpmdContext | None:
    """The SPMD run the calling thread's device takes part in, if any."""
    return _current.context


def current_device() -> Any:
    """The device whose program the calling thread is running in an SPMD run, or None."""
    context = _current.context
    return None if context is None else context.device


# ---- the collectives, as combinations of every rank's value --------------------------------


def _each_group(comm: Communicator, axes: Sequence[Hashable], index_groups: Groups | None,
                slots: list[Any], fn: Callable[[list[Any]], list[Any]]) -> list[Any]:
    """`fn(group's values in order) -> group's results in order`, for every group whose
    values are here (across processes, a process holds its class's: `_grouped_across`)."""
    results: list[Any] = [None] * comm.size
    for group in comm.groups(axes, index_groups):
        if slots[group[0]] is None:
            continue
        for rank, out in zip(group, fn([slots[r] for r in group]), strict=True):
            results[rank] = out
    return results


_REDUCERS = {"sum": np.add, "max": np.maximum, "min": np.minimum}


# ---- which processes a grouped collective connects ------------------------------------------


class _ProcessClass:
    """The processes whose ranks share groups of a collective with this process's ranks (its
    class; classes never share a group), and what this process does in that collective:
    `groups`, the indices of the groups with a member here; `row_of_local_rank`, each local
    rank's position among those; `processes`, the class in order; `comm`, a communicator of
    them split from the job's (None when the class is this process alone: no MPI call)."""

    __slots__ = ("groups", "row_of_local_rank", "processes", "comm")

    def __init__(self, groups: list[int], row_of_local_rank: list[int], processes: list[int],
                 comm: Any) -> None:
        self.groups = groups
        self.row_of_local_rank = row_of_local_rank
        self.processes = processes
        self.comm = comm


def _process_class(mpi_comm: Any, groups: Groups, local: int, me: int
                   ) -> _ProcessClass | None:
    """This process's class for `groups` (ranks `p * local ...` on process p); None when the
    groups chain every process together unevenly (a process in two groups whose other
    members sit in different processes), so no split keeps classes apart: the caller then
    exchanges with every process."""
    # Cached by (the job's communicator, the groups, local devices per process): every
    # process computes the same classes from the same groups, so all of them split the job's
    # communicator at the first run of a collective with those groups, and never again.
    classes = distributed.state.classes
    key = (id(mpi_comm), groups, local)
    if key in classes:
        return classes[key]  # type: ignore[no-any-return]
    n = mpi_comm.Get_size()
    touched: list[list[int]] = [[] for _ in range(n)]
    for g, group in enumerate(groups):
        for process in sorted({r // local for r in group}):
            touched[process].append(g)
    kinds = [tuple(t) for t in touched]
    found: _ProcessClass | None = None
    if all(len({kinds[r // local] for r in group}) == 1 for group in groups):
        mine = kinds[me]
        processes = [p for p in range(n) if kinds[p] == mine]
        row = {g: k for k, g in enumerate(mine)}
        ranks = range(me * local, (me + 1) * local)
        rows = [next(row[g] for g in mine if r in groups[g]) for r in ranks]
        comm = None
        if len(processes) == n:
            comm = mpi_comm if n > 1 else None
        else:
            colors = {kind: c for c, kind in enumerate(dict.fromkeys(kinds))}
            comm = mpi_comm.Split(colors[mine], me)  # every process splits, here, once
            if len(processes) == 1:
                comm.Free()
                comm = None
            else:
                distributed.state.derived.append(comm)  # freed at shutdown
        found = _ProcessClass(list(mine), rows, processes, comm)
    classes[key] = found
    return found


_PERMUTE_TAG = 17


def _offsets(counts: list[int]) -> list[int]:
    """Where each of consecutive blocks of `counts` starts."""
    return [sum(counts[:k]) for k in range(len(counts))]


def _raw(array: np.ndarray) -> np.ndarray:
    """A C-contiguous array's bytes (MPI moves them as they are, any dtype)."""
    return array.reshape(-1).view(np.uint8)


def _mpi_reduces(dtype: np.dtype[Any]) -> bool:
    """Whether MPI reduces the dtype: the types C has (not float16; bfloat16's kind is
    "V")."""
    return dtype.kind in "biuc" or dtype.kind == "f" and dtype.itemsize > 2


def _local_reduce(values: list[Any], op: str, out: np.ndarray | None = None) -> Any:
    """The reduction of `values`, accumulated in place in `out` (or in one new buffer)."""
    reducer = _REDUCERS[op]
    if len(values) == 1:
        if out is None:
            return np.array(values[0], copy=True)
        out[...] = values[0]
        return out
    # The first combination makes the buffer (one pass, not a copy and then a pass); a 0-d
    # result stays an array.
    total = np.asarray(reducer(values[0], values[1], out=out))
    for v in values[2:]:
        reducer(total, v, out=total)
    return total


def _mpi() -> Any:
    return distributed.state.mpi


_mpi_ops: dict[str, Any] = {}


def _mpi_op(op: str) -> Any:
    found = _mpi_ops.get(op)
    if found is None:
        mpi = _mpi()
        found = _mpi_ops[op] = {"sum": mpi.SUM, "max": mpi.MAX, "min": mpi.MIN}[op]
    return found


def all_reduce(ctx: SpmdContext, x: Any, op: str, axes: Sequence[Hashable],
               index_groups: Groups | None) -> Any:
    comm = ctx.comm
    whole = index_groups is None and (tuple(axes) == comm.names or set(axes) == set(comm.names))
    if comm.local == 1 and comm.mpi_comm is not None and whole:
        out = comm.allreduce_alone(x, op)
        if out is not None:
            return out

    def combine(slots: list[Any]) -> list[Any]:
        return _each_group(comm, axes, index_groups, slots,
                           lambda values: [_local_reduce(values, op)] * len(values))

    return comm.exchange(ctx.rank, x, combine, op, f"p{op}",
                         None if whole else comm.across(axes, index_groups))


def all_gather(ctx: SpmdContext, x: Any, axes: Sequence[Hashable], index_groups: Groups | None,
               dimension: int, tiled: bool) -> Any:
    def combine(slots: list[Any]) -> list[Any]:
        def gather(values: list[Any]) -> list[Any]:
            arrays = [np.asarray(v) for v in values]
            out = (np.concatenate(arrays, dimension) if tiled
                   else np.stack(arrays, dimension))
            return [out] * len(values)
        return _each_group(ctx.comm, axes, index_groups, slots, gather)

    return ctx.comm.exchange(ctx.rank, x, combine, name="all_gather",
                             groups=ctx.comm.across(axes, index_groups))


def all_to_all(ctx: SpmdContext, x: Any, axes: Sequence[Hashable], index_groups: Groups | None,
               split_axis: int, concat_axis: int) -> Any:
    """XLA's AllToAll: each device splits its value into one chunk per group member along
    `split_axis`; member k receives chunk k of every member, concatenated along
    `concat_axis`."""
    def combine(slots: list[Any]) -> list[Any]:
        def exchange(values: list[Any]) -> list[Any]:
            m = len(values)
            chunks = [np.split(np.asarray(v), m, axis=split_axis) for v in values]
            return [np.concatenate([c[k] for c in chunks], concat_axis) for k in range(m)]
        return _each_group(ctx.comm, axes, index_groups, slots, exchange)

    return ctx.comm.exchange(ctx.rank, x, combine, name="all_to_all",
                             groups=ctx.comm.across(axes, index_groups),
                             chunks=(split_axis, concat_axis))


def reduce_scatter(ctx: SpmdContext, x: Any, axes: Sequence[Hashable],
                   index_groups: Groups | None, dimension: int, tiled: bool) -> Any:
    def combine(slots: list[Any]) -> list[Any]:
        def scatter(values: list[Any]) -> list[Any]:
            total = _local_reduce(values, "sum")
            parts = np.split(total, len(values), axis=dimension)
            return parts if tiled else [np.squeeze(p, dimension) for p in parts]
        return _each_group(ctx.comm, axes, index_groups, slots, scatter)

    return ctx.comm.exchange(ctx.rank, x, combine, name="psum_scatter",
                             groups=ctx.comm.across(axes, index_groups))


def permute(ctx: SpmdContext, x: Any, axes: Sequence[Hashable],
            perm: Sequence[tuple[int, int]]) -> Any:
    """Member `dst` of each group receives member `src`'s value; members receiving nothing get
    zeros."""
    def combine(slots: list[Any]) -> list[Any]:
        def send(values: list[Any]) -> list[Any]:
            zeros = np.zeros_like(np.asarray(values[0]))
            out: list[Any] = [zeros] * len(values)
            for src, dst in perm:
                out[dst] = values[src]
            return out
        return _each_group(ctx.comm, axes, None, slots, send)

    return ctx.comm.exchange(ctx.rank, x, combine, name="ppermute",
                             pairs=ctx.comm.pairs(axes, perm))


def broadcast(ctx: SpmdContext, x: Any, axes: Sequence[Hashable], source: int) -> Any:
    def combine(slots: list[Any]) -> list[Any]:
        return _each_group(ctx.comm, axes, None, slots,
                           lambda values: [values[source]] * len(values))

    return ctx.comm.exchange(ctx.rank, x, combine, name="pbroadcast",
                             groups=ctx.comm.across(axes))


def axis_index(ctx: SpmdContext, axes: Sequence[Hashable]) -> int:
    """The device's row-major index along `axes`."""
    missing = [a for a in axes if a not in ctx.coords]
    if missing:
        ctx.comm.groups(missing)  # JAX's NameError
    index = 0
    for a in axes:
        index = index * ctx.comm.sizes[ctx.comm.names.index(a)] + ctx.coords[a]
    return index


# ---- running a program on every device -----------------------------------------------------

# Submissions to several streams are made under one lock, so every stream sees the runs in the
# same order: two runs over overlapping devices can never wait for each other in a cycle.
_submit_lock = threading.Lock()


# Communicators of finished runs, by grid, for the next run on the same grid (their barrier,
# groups and contexts are made once). A run takes one for itself, so concurrent runs on one
# grid (from several threads) each have their own.
_idle: dict[Any, list[Communicator]] = {}
_idle_alone: dict[Any, list[tuple[Communicator, SpmdContext]]] = {}  # `run_alone`'s
_idle_lock = threading.Lock()


def _communicator(key: Any, names: Sequence[Hashable], sizes: Sequence[int], local: int,
                  offset: int, mpi_comm: Any) -> Communicator:
    with _idle_lock:
        free = _idle.get(key)
        while free:
            comm = free.pop()
            if comm.mpi_comm is mpi_comm:
                return comm
    return Communicator(names, sizes, local, offset, mpi_comm)


def run(devices: Sequence[Any], names: Sequence[Hashable], sizes: Sequence[int],
        program: Callable[[int], Any], mpi_comm: Any = None, offset: int = 0,
        check: bool = False) -> list[Any]:
    """Run `program(r)` for each of this process's ranks r, on `devices[r]`'s thread, all at
    once; returns their results in order, or raises the first device's error. With
    `mpi_comm`, the grid spans the processes and this one's ranks start at `offset`; `check`
    (or the `numjax_check_collectives` option) compares every collective's shape and dtype
    across the processes before it runs."""
    key = (tuple(devices), tuple(names), tuple(sizes), offset)
    if len(devices) == 1:
        with _idle_lock:
            idle = _idle_alone.setdefault(key, [])
        return [run_alone(key, idle, program, (0,), mpi_comm, check)]
    comm = _communicator(key, names, sizes, len(devices), offset, mpi_comm)
    assert comm.size == len(devices) or mpi_comm is not None, (comm.size, len(devices))
    comm.check = mpi_comm is not None and (check or config.check_collectives.value)
    results: list[Any] = [None] * comm.local
    errors: list[BaseException | None] = [None] * comm.local
    done = threading.Semaphore(0)
    n_threads = len(devices)

    def task(rank: int) -> Callable[[], None]:
        def run_rank() -> None:
            previous = _current.context
            _current.context = comm.context(offset + rank, devices[rank])
            try:
                _limit_blas(n_threads)
                results[rank] = program(rank)
            except BaseException as e:  # reported to the caller below
                errors[rank] = e
                comm.abort()
            finally:
                _current.context = previous
                done.release()
        return run_rank

    inline = []
    with blas.devices_side_by_side(n_threads):
        with _submit_lock:
            for rank, device in enumerate(devices):
                device_stream = stream.stream_for(device)
                if device_stream.on_this_thread():
                    inline.append(rank)  # a device's own thread runs its part itself
                else:
                    device_stream.run(task(rank))
        for rank in inline:
            task(rank)()
        for _ in range(comm.local):
            done.acquire()
    failures = [e for e in errors if e is not None and not isinstance(e, SpmdAborted)]
    if failures:
        raise failures[0]
    if any(e is not None for e in errors):
        raise next(e for e in errors if e is not None)
    with _idle_lock:
        _idle.setdefault(key, []).append(comm)
    return results


def run_alone(grid: tuple[Any, ...], idle: list[tuple[Communicator, SpmdContext]],
              program: Callable[..., Any], args: Sequence[Any], mpi_comm: Any = None,
              check: bool = False) -> Any:
    """`run` for one device in this process (one per process, or a grid of one): the calling
    thread runs `program(*args)` itself, nothing to hand off. `grid` is (devices, names,
    sizes, offset); `idle` holds the caller's communicators for it between runs, each with
    its device's context (each run takes its own, so runs from several threads never share
    one)."""
    try:
        comm, context = idle.pop()  # atomic: no lock needed
    except IndexError:
        comm = None
    if comm is None or comm.mpi_comm is not mpi_comm:
        devices, names, sizes, offset = grid
        comm = Communicator(names, sizes, 1, offset, mpi_comm)
        context = comm.context(offset, devices[0])
    comm.check = mpi_comm is not None and (check or config.check_collectives.value)
    previous = _current.context
    _current.context = context
    try:
        if getattr(_limited, "count", None) != 1:
            _limit_blas(1)
        result = program(*args)
    finally:
        _current.context = previous
    idle.append((comm, context))
    return result


_limited = threading.local()


def _limit_blas(devices_running: int) -> None:
    if getattr(_limited, "count", None) != devices_running:
        blas.limit_this_thread(devices_running)
        _limited.count = devices_running

"""Tier-0 fusion: runs of elementwise equations executed block by block.

A *cluster* is a run of consecutive equations whose kernels are NumPy ufuncs, whose outputs
all have the cluster's shape, and whose inputs are either of that shape or scalars. Instead of
one full-size temporary per equation, the generated code walks the flattened operands in
cache-sized blocks: each intermediate lives in a small scratch buffer, so every byte of the
operands crosses memory once. Large clusters split their range across threads (NumPy releases
the GIL inside ufunc loops).

The cluster is a plain record (`Cluster`: its equations, inputs, outputs), lowered here to a
generated block function; a native kernel could later replace that function without changing
the rest of the compiler.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from numjax._src.compiler.lowering import Ufunc
from numjax._src.core.jaxpr import DropVar, JaxprEqn, Literal, Var
from numjax._src.runtime import spmd

# Elements per block: 64K float32 = 256 KB per operand. Measured on a 7-op chain over 8M
# float32 (2 cores, loaded): 4K blocks 100 ms, 16K 54 ms, 64K 40 ms, 256K 39 ms; NumPy op by
# op 77 ms. Smaller blocks pay Python overhead per block, larger ones leave the cache.
BLOCK = 65536
# Clusters smaller than this run op by op: below ~1M elements the blocked loop measured slower
# than whole-array ufuncs with reused buffers (262K: 2.7 ms fused vs 2.2 ms plain).
MIN_SIZE = 1 << 20
# Clusters at least this large split their range across threads.
THREAD_MIN_SIZE = 1 << 20
# Short runs (fewer than SHORT_RUN_OPS computing equations) fuse only from SHORT_RUN_MIN_SIZE
# elements: with a large last-level cache, op-by-op ufuncs writing into reused buffers beat the
# blocked loop until the operands leave it. Measured (ms; AMD EPYC, 2 MB L2 and 32 MB L3, 2
# cores; op by op / blocked / blocked on 2 threads): 2 ops on 1M float32 0.19 / 0.23 / 0.20,
# on 4M 1.25 / 1.92 / 1.94, on 10M 6.2 / 4.7 / 4.7; 3 ops on 4M 2.1 / 3.1 / 2.2; 7 ops on 1M
# 1.24 / 1.48 / 0.87, on 2M 2.6 / 3.1 / 2.4.
SHORT_RUN_OPS = 4
SHORT_RUN_MIN_SIZE = 1 << 23

_FUSABLE_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


def fusable_ufunc(eqn: JaxprEqn) -> Any:
    """The np.ufunc computing `eqn` elementwise, or None."""
    if eqn.params or eqn.primitive.multiple_results or eqn.effects:
        return None
    lowering = eqn.primitive.lowering
    if not isinstance(lowering, Ufunc):
        return None
    if any(a.aval.dtype not in _FUSABLE_DTYPES for a in eqn.invars) or \
            eqn.outvars[0].aval.dtype not in _FUSABLE_DTYPES:
        return None
    if isinstance(lowering.ufunc, np.ufunc):
        return lowering.ufunc
    special = lowering.fusable_as
    if special is not None and all(a.aval.dtype.kind in special[1] for a in eqn.invars):
        return special[0]
    return None


def sorted_broadcast(eqn: JaxprEqn) -> bool:
    """Whether `eqn` is a broadcast keeping its operand's dimensions in order: a view of the
    operand with size-1 axes inserted, which NumPy's broadcasting expands."""
    dims = eqn.primitive.broadcast_dimensions
    return dims is not None and list(dims(eqn.params)) == sorted(dims(eqn.params))


@dataclass
class Cluster:
    """A run of equations over arrays of `shape`, executed in blocks of rows (axis 0)."""

    eqns: list[JaxprEqn]
    ufuncs: list[Any]  # per equation: the ufunc, or None for broadcast_in_dim (a view)
    shape: tuple[int, ...]
    inputs: list[Var] = field(default_factory=list)  # arrays read, sliced by rows if dim0 == R
    scalars: list[Var] = field(default_factory=list)  # 0-d variables read
    outputs: list[Var] = field(default_factory=list)  # results used after the cluster


def _row_shape_ok(shape: tuple[int, ...], full: tuple[int, ...]) -> bool:
    """`shape` broadcasts against `full` inside a row block (same rank, dims equal or 1)."""
    return len(shape) == len(full) and all(d in (1, f) for d, f in zip(shape, full,
                                                                     strict=True))


def _member(eqn: JaxprEqn, shape: tuple[int, ...] | None
            ) -> tuple[Any, tuple[int, ...]] | None:
    """(ufunc or marker, cluster shape) if `eqn` can join a cluster of `shape`."""
    reducer = eqn.primitive.reduce_ufunc
    if reducer is not None and len(eqn.invars) == 1 and not eqn.effects:
        x = eqn.invars[0]
        axes = eqn.params["axes"]
        # A float16 sum accumulates in float32 (its kernel's rule), which a ufunc reduce of
        # row blocks does not.
        if (isinstance(x, Var) and x.aval.ndim >= 2 and 0 not in axes
                and x.aval.dtype in _FUSABLE_DTYPES and eqn.outvars[0].aval.shape
                and not (reducer is np.add and x.aval.dtype == np.float16)
                and (shape is None or x.aval.shape == shape)):
            return reducer, x.aval.shape
        return None
    if not eqn.outvars:  # a host callback without results
        return None
    out_shape = eqn.outvars[0].aval.shape
    if shape is not None and out_shape != shape or not out_shape:
        return None
    if eqn.primitive.broadcast_dimensions is not None:
        x = eqn.invars[0]
        if isinstance(x, Var) and x.aval.dtype in _FUSABLE_DTYPES and x.aval.ndim and \
                sorted_broadcast(eqn):
            return "broadcast", out_shape
        return None
    ufunc = fusable_ufunc(eqn)
    if ufunc is None:
        return None
    for a in eqn.invars:
        if isinstance(a, Literal) or a.aval.shape == ():
            continue
        if not _row_shape_ok(a.aval.shape, out_shape):
            return None
    return ufunc, out_shape


def find_clusters(eqns: Sequence[JaxprEqn], live_out: set[Var], min_size: int = -1
                  ) -> list[tuple[int, int, Cluster]]:
    """Maximal runs [start, stop) of equations worth executing block by block: elementwise
    ufuncs, broadcasts feeding them, and reductions over non-leading axes of their results."""
    min_size = MIN_SIZE if min_size < 0 else min_size
    # A cluster computes at least two large values (or one and a reduction of it): programs
    # without two such equations have none, and skip the search.
    large = 0
    for e in eqns:
        values = e.invars if e.primitive.reduce_ufunc is not None else e.outvars
        if any(isinstance(v, Var) and v.aval.shape and math.prod(v.aval.shape) >= min_size
               for v in values):
            large += 1
            if large == 2:
                break
    if large < 2:
        return []
    last_read: dict[Var, int] = {}
    for k, e in enumerate(eqns):
        for a in e.invars:
            if isinstance(a, Var):
                last_read[a] = k
    found = []
    i = 0
    while i < len(eqns):
        start = i
        i, ufuncs, shape = _longest_run(eqns, start)
        computes = sum(u is not None and u != "broadcast" for u in ufuncs)
        size = math.prod(shape) if shape is not None else 0
        if shape is not None and computes >= 2 and size >= min_size and (
                computes >= SHORT_RUN_OPS or size >= max(min_size, SHORT_RUN_MIN_SIZE)):
            cluster = _cluster(eqns[start:i], ufuncs, shape, live_out, last_read, i)
            if cluster is None:
                i = start + 1  # a broadcast needed outside: leave this run unfused
                continue
            found.append((start, i, cluster))
        if i == start:
            i += 1
    return found


def _longest_run(eqns: Sequence[JaxprEqn], start: int
                 ) -> tuple[int, list[Any], tuple[int, ...] | None]:
    """The end of the longest run of cluster members from `start`, their ufuncs (or markers)
    and the run's shape."""
    shape: tuple[int, ...] | None = None
    ufuncs: list[Any] = []
    reduced: set[Var] = set()  # outputs of reductions: not usable inside the cluster
    i = start
    while i < len(eqns):
        eqn = eqns[i]
        if any(isinstance(a, Var) and a in reduced for a in eqn.invars):
            break
        member = _member(eqn, shape)
        if member is None:
            break
        ufunc, shape = member
        ufuncs.append(ufunc)
        if eqn.primitive.reduce_ufunc is not None:
            reduced.update(eqn.outvars)
        i += 1
    return i, ufuncs, shape


def _cluster(eqns: Sequence[JaxprEqn], ufuncs: list[Any], shape: tuple[int, ...],
             live_out: set[Var], last_read: dict[Var, int], stop: int) -> Cluster | None:
    """The cluster of a run ending at `stop`, with its inputs, scalars and the outputs read
    after it; None when a broadcast in it is read after it (the broadcast must then be a value
    of its own)."""

    def read_later(v: Var) -> bool:
        return v in live_out or last_read.get(v, -1) >= stop

    cluster = Cluster(list(eqns), ufuncs, shape)
    seen: set[Var] = set()
    for eqn in cluster.eqns:
        for a in eqn.invars:
            if isinstance(a, Var) and a not in seen:
                seen.add(a)
                target = cluster.scalars if a.aval.shape == () else cluster.inputs
                target.append(a)
        seen.update(eqn.outvars)
    internal = {v for e in cluster.eqns for v in e.outvars}
    cluster.inputs = [v for v in cluster.inputs if v not in internal]
    cluster.scalars = [v for v in cluster.scalars if v not in internal]
    cluster.outputs = [v for e in cluster.eqns for v in e.outvars
                       if not isinstance(v, DropVar) and read_later(v)]
    if any(e.primitive.broadcast_dimensions is not None and read_later(e.outvars[0])
           for e in cluster.eqns):
        return None
    return cluster


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _cores() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _the_pool() -> ThreadPoolExecutor:
    """The worker threads, one per core (at most 4), made at first use. Sized by the cores,
    not by the first caller's share: in an SPMD run each device submits its share of them, so
    the devices together use them all, and a later run outside SPMD uses them all alone."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_cores(), thread_name_prefix="numjax-fusion")
        return _pool


def worker_threads() -> int:
    """How many threads large work splits over: the cores (at most 4), a device's share of
    them in an SPMD run."""
    threads = _cores()
    context = spmd.current()
    if context is not None:
        # Devices of an SPMD run already run side by side, one thread each: a device splits
        # a cluster only over its share of the cores.
        threads = max(1, threads // context.comm.local)
    return threads


def run_blocks(block_fn: Callable[..., None], n: int, args: Sequence[Any],
               block_rows: int = 1) -> None:
    """Run `block_fn(lo, hi, *args)` over rows [0, n), split across threads when large."""
    threads = worker_threads()
    if n * max(1, BLOCK // block_rows) < THREAD_MIN_SIZE or threads == 1 or n < 2:
        block_fn(0, n, *args)
        return
    pool = _pool or _the_pool()
    step = -(-n // threads)
    step = -(-step // block_rows) * block_rows
    futures = [pool.submit(block_fn, lo, min(lo + step, n), *args)
               for lo in range(0, n, step)]
    for f in futures:
        f.result()


def run_on_threads(fn: Callable[[Any], Any], parts: Sequence[Any]) -> list[Any]:
    """`[fn(part) for part in parts]`, the parts run side by side on the pool's threads (the
    calling thread waits). `fn` must release the GIL for its work (NumPy copies, BLAS calls)."""
    if len(parts) < 2:
        return [fn(part) for part in parts]
    pool = _pool or _the_pool()
    futures = [pool.submit(fn, part) for part in parts]
    return [f.result() for f in futures]


def _rows(aval: Any, rows: int) -> bool:
    """Whether a value of `aval` is sliced by rows in a block (its dim 0 is the cluster's)."""
    return bool(aval.shape) and aval.shape[0] == rows and rows != 1


def emit_cluster(cluster: Cluster, index: int, name: Callable[[Any], str],
                 global_: Callable[[Any, str], str], targets: dict[Var, Var] | None = None
                 ) -> tuple[list[str], list[str]]:
    """Source of the cluster: (module-level block function lines, call-site lines). An output
    in `targets` is written into the buffer of the given (dying) input instead of a new one."""
    fn = f"_fused_{index}"
    rows = cluster.shape[0]
    row_size = int(np.prod(cluster.shape[1:]))
    block_rows = max(1, BLOCK // max(row_size, 1))
    ins = [name(v) for v in cluster.inputs]
    scalars = [name(v) for v in cluster.scalars]
    outs = [name(v) for v in cluster.outputs]
    out_set = set(cluster.outputs)
    params = ", ".join(["lo", "hi", *ins, *scalars, *[f"{n}_out" for n in outs]])
    body = [f"def {fn}({params}):", f"    size = min({block_rows}, hi - lo)"]
    scratch: dict[Var, str] = {}
    for k, (eqn, ufunc) in enumerate(zip(cluster.eqns, cluster.ufuncs, strict=True)):
        v = eqn.outvars[0]
        if ufunc != "broadcast" and eqn.primitive.reduce_ufunc is None and v not in out_set:
            scratch[v] = f"s{k}"
            rest = cluster.shape[1:]
            dtype = global_(v.aval.dtype, "dtype")
            body.append(f"    s{k} = np.empty((size, *{rest!r}), {dtype})")
    body += [f"    for b in range(lo, hi, {block_rows}):",
             f"        e = min(b + {block_rows}, hi)",
             "        m = e - b"]
    local: dict[Var, str] = {}
    for v, n in zip(cluster.inputs, ins, strict=True):
        local[v] = f"{n}[b:e]" if _rows(v.aval, rows) else n
    for v, n in zip(cluster.scalars, scalars, strict=True):
        local[v] = n
    for eqn, ufunc in zip(cluster.eqns, cluster.ufuncs, strict=True):
        v = eqn.outvars[0]
        args = []
        for a in eqn.invars:
            if isinstance(a, Literal):
                args.append(global_(np.asarray(a.val, a.aval.dtype)[()], "lit"))
            else:
                args.append(local[a])
        if ufunc == "broadcast":
            # A view with size-1 axes: NumPy's broadcasting expands it inside each ufunc.
            x = eqn.invars[0]
            expanded = [1] * len(cluster.shape)
            dims = eqn.primitive.broadcast_dimensions
            assert dims is not None
            for src, dst in enumerate(dims(eqn.params)):
                expanded[dst] = x.aval.shape[src]
            view = f"{name(x)}.reshape({tuple(expanded)!r})"
            local[v] = f"{view}[b:e]" if expanded[0] == rows and rows != 1 else view
            continue
        if eqn.primitive.reduce_ufunc is not None:
            axes = eqn.params["axes"]
            reducer = global_(ufunc, ufunc.__name__)
            body.append(f"        {reducer}.reduce({args[0]}, axis={tuple(axes)!r}, "
                        f"out={name(v)}_out[b:e])")
            local[v] = f"{name(v)}_out[b:e]"
            continue
        target = f"{name(v)}_out[b:e]" if v in out_set else f"{scratch[v]}[:m]"
        ufunc_name = global_(ufunc, ufunc.__name__)
        body.append(f"        {ufunc_name}({', '.join(args)}, out={target})")
        local[v] = target
    call = []
    for v, n in zip(cluster.outputs, outs, strict=True):
        reused = (targets or {}).get(v)
        if reused is not None:
            call.append(f"    {n} = {name(reused)}")
            continue
        dtype = global_(v.aval.dtype, "dtype")
        call.append(f"    {n} = np.empty({v.aval.shape!r}, {dtype})")
    arg_list = [*ins, *scalars, *outs]
    call.append(f"    run_blocks({fn}, {rows}, ({', '.join(arg_list)},), {block_rows})")
    return body, call

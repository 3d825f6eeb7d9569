"""Running an `xla_pmap`: which devices, which way, and the sharded Arrays that come out.

Two ways to run the per-device program, chosen per compiled pmap:

- *SPMD*: the program is compiled once and every device runs it on its own thread, on its own
  shard, meeting the others at collectives (`runtime/spmd.py`). Inputs already split across the
  same devices along the mapped axis (a pmap's outputs, `device_put_sharded`) are used where
  they are, with no transfer. Nested pmaps make a device grid: every device runs the outer
  program, and an inner pmap takes the device's slice along its axis and gathers the results.
- *batched*: the per-device program, vmapped over the device axis, is compiled as one program
  and run on the calling thread; collectives become the vmap's batch rules. For small shards this
  is faster than waking the devices' threads (each handoff costs tens of microseconds, and one
  thread's fused loops already use every core). The threshold, `numjax_pmap_spmd_min_bytes`,
  is the per-device program's estimated bytes accessed: 32 MB, from `pmap_bench.py threshold`
  on 2 cores (an elementwise program with a psum: threads 1.14x slower than batched at 20 MB
  accessed per device, 0.55x at 80 MB; the 784-1024-1024-10 MLP step, 176 MB, 0.82x).

Programs with host callbacks always run SPMD, so that each device's callback sees its device,
and so do programs with collectives inside a cond or while loop (devices taking different
branches still meet at those collectives in program order, as XLA's do) and programs reducing
float16/bfloat16 values across devices (accumulated in their own type, as XLA's all-reduce).
Outputs are `PmapSharding` Arrays: one buffer per device, the global value assembled on first
use (SPMD), or the stacked value with its per-device slices (batched).
"""

from __future__ import annotations

import math
import sys
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.api import dispatch
from numjax._src.api.xla_pmap import xla_pmap_p
from numjax._src.compiler.buffers import private_host_inputs, private_results
from numjax._src.compiler.codegen import Executable
from numjax._src.compiler.cost import cost_analysis
from numjax._src.compiler.executables import compile_jaxpr
from numjax._src.core import axis_env
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from numjax._src.interpreters import batching
from numjax._src.interpreters.staging import eval_jaxpr_keeping_sources, trace_to_jaxpr
from numjax._src.lax import structural as st
from numjax._src.runtime import devices as devices_mod
from numjax._src.runtime import distributed, placement, spmd, stream, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array, sharded_array, sharded_array_maker
from numjax._src.runtime.sharding import PmapSharding

spmd_min_bytes = config.State(
    "numjax_pmap_spmd_min_bytes", 32 << 20,
    "A pmap whose per-device program touches at least this many bytes (estimated) runs on the "
    "devices' threads side by side; a smaller one runs as one batched program on the calling "
    "thread. 0 runs every pmap on the devices' threads.",
    parse=int, validator=int, env_var="NUMJAX_PMAP_SPMD_MIN_BYTES", traced=True)


def grid(params: dict[str, Any]) -> tuple[list[Hashable], list[int]]:
    """The axis names and sizes of the device grid: this pmap's axis, then those of the pmaps
    nested in its program (each name once)."""
    names: list[Hashable] = [params["axis_name"]]
    sizes: list[int] = [params["global_axis_size"]]

    def visit(jaxpr: Jaxpr) -> None:
        for eqn in jaxpr.eqns:
            if eqn.primitive is xla_pmap_p and eqn.params["axis_name"] not in names:
                names.append(eqn.params["axis_name"])
                sizes.append(eqn.params["axis_size"])
            for value in eqn.params.values():
                for inner in value if isinstance(value, tuple | list) else (value,):
                    if isinstance(inner, ClosedJaxpr):
                        visit(inner.jaxpr)

    visit(params["call_jaxpr"].jaxpr)
    return names, sizes


def _collective_in_control_flow(jaxpr: Jaxpr, inside: bool = False) -> bool:
    """Whether a collective sits inside a cond or a while loop: devices may then take
    different branches (or iterations) and still meet at its collectives, in program order,
    as XLA's devices do; only the devices' threads run it that way."""
    for eqn in jaxpr.eqns:
        if inside and eqn.primitive.collective:
            return True
        branching = inside or eqn.primitive.value_dependent_control
        for value in eqn.params.values():
            for inner in value if isinstance(value, tuple | list) else (value,):
                if isinstance(inner, ClosedJaxpr) and _collective_in_control_flow(
                        inner.jaxpr, branching):
                    return True
    return False


def _narrow_float_collective(jaxpr: Jaxpr) -> bool:
    """Whether a collective reduces float16/bfloat16 values: XLA's all-reduce accumulates them
    in their own type, device after device (JAX: a pmap psum of [2048, 1, ..., 1] in float16
    is 2048), which the devices' threads do, and vmap's float32 accumulation does not."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.collective and any(
                getattr(a.aval, "dtype", None) is not None and a.aval.dtype.kind == "f"
                and a.aval.dtype.itemsize == 2 for a in eqn.invars):
            return True
        for value in eqn.params.values():
            for inner in value if isinstance(value, tuple | list) else (value,):
                if isinstance(inner, ClosedJaxpr) and _narrow_float_collective(inner.jaxpr):
                    return True
    return False


def _has_host_callbacks(jaxpr: Jaxpr) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive.host_callback:
            return True
        for value in eqn.params.values():
            for inner in value if isinstance(value, tuple | list) else (value,):
                if isinstance(inner, ClosedJaxpr) and _has_host_callbacks(inner.jaxpr):
                    return True
    return False


def choose_devices(params: dict[str, Any], total: int) -> list[Any]:
    """The devices of the grid's `total` ranks, with JAX's errors when there are too few."""
    backend = devices_mod.get_backend(params["backend"])
    chosen = params["devices"]
    if chosen is not None:
        chosen = list(chosen)
        if len(chosen) != total:
            local = ", ".join(str(d) for d in chosen)
            if total != params["axis_size"]:  # nested pmaps make the grid larger
                raise ValueError(f"pmapped function requires {total} local devices to run due "
                                 "to nested pmapped or other parallel functions, but only "
                                 f"{len(chosen)} are available.\n(outer axis size: "
                                 f"{params['axis_size']}, local devices available to pmap: "
                                 f"{local})")
            raise ValueError("Leading axis size of input to pmapped function must equal the "
                             "number of local devices passed to pmap. Got axis_size="
                             f"{params['axis_size']}, num_local_devices={len(chosen)}.\n"
                             f"(Local devices available to pmap: {local})")
        return chosen
    available = backend.local_devices()
    if total > len(available):
        raise ValueError(f"compiling computation that requires {total} logical devices, but "
                         f"only {len(available)} XLA devices are available "
                         f"(num_replicas={total})")
    return available[:total]


class PmapExecutable:
    """One pmap compiled for its arguments' avals: the devices, the way it runs (SPMD or
    batched), the executable, and how outputs are laid out."""

    def __init__(self, params: dict[str, Any], in_avals: Sequence[Any]) -> None:
        self.params = params
        body: ClosedJaxpr = params["call_jaxpr"]
        if any(e.ordered for e in body.effects):
            # As JAX refuses when it compiles the pmap: each device would run its copy of
            # an ordered callback with no order between the devices.
            raise ValueError("Ordered effects not supported in `pmap`.")
        self.in_axes: tuple[int | None, ...] = params["in_axes"]
        self.out_axes: tuple[int | None, ...] = params["out_axes"]
        self.size: int = params["axis_size"]
        self.names, self.sizes = grid(params)
        # Across processes (numjax.distributed), this process runs its local part of the grid.
        self.processes = params["global_axis_size"] // self.size
        total = math.prod(self.sizes) // self.processes
        self.devices = choose_devices(params, total)
        # The devices holding the outer axis's slices: the first of each group of the grid.
        stride = total // self.size
        self.out_devices = self.devices[::stride]
        self.out_avals = [a.update(shape=a.shape[:ax] + (self.size,) + a.shape[ax:])
                          if ax is not None else a
                          for a, ax in zip(body.out_avals, self.out_axes, strict=True)]
        self.out_shardings = [None if ax is None else PmapSharding.stacked(
            self.out_devices, len(a.shape) - 1, ax)
            for a, ax in zip(self.out_avals, self.out_axes, strict=True)]
        donated = tuple(params["donated_invars"])
        per_device = cost_analysis(body)["bytes accessed"]
        self.spmd = self.processes > 1 or total > 1 and (
            _has_host_callbacks(body.jaxpr) or bool(body.effects)
                                   or _collective_in_control_flow(body.jaxpr)
                                   or _narrow_float_collective(body.jaxpr)
                                   or per_device >= spmd_min_bytes.value)
        # Whether a call has compared the collectives across processes yet (see _run_spmd).
        self._checked = False
        # Across processes, this process's ranks start at `offset` on the world communicator.
        self._mpi_comm, offset = None, 0
        if self.processes > 1:
            self._mpi_comm = distributed.state.comm
            offset = distributed.state.process_index * len(self.devices)
        self._grid = (tuple(self.devices), tuple(self.names), tuple(self.sizes), offset)
        self._idle: list[tuple[spmd.Communicator, spmd.SpmdContext]] = []  # `run_alone`'s
        # Where each output's shards sit in its global value (made on the first call).
        self._out_indices: list[list[Any] | None] = [None] * len(self.out_axes)
        name = f"pmap_{params['name']}"
        # Donated arguments are paired with outputs per device, as in JAX; paired ones are
        # deleted after each call. A compiled program may overwrite a paired buffer it owns:
        # not one every device reads (an unmapped argument on the devices' threads).
        self.paired = dispatch.pair_donations(donated, body, body.in_avals, False) \
            if any(donated) else ()
        writable = tuple(p and not (self.spmd and ax is None)
                         for p, ax in zip(self.paired, self.in_axes, strict=False))
        program = body if self.spmd else self._batched_jaxpr(body, in_avals)
        self.executable = compile_jaxpr(program, name, writable, params["backend"])
        self.writable = writable
        self.aliased = dispatch._aliased_inputs(self.executable)
        # One device of an SPMD grid in this process (a multi-process pmap, one local device
        # each) and nothing donated: calls take the short path, `_alone_entry`.
        self.alone = self.spmd and len(self.devices) == 1 and not any(self.paired)
        # What a call on positional arguments runs (`PmapFunction` keeps it per signature).
        self.entry: Callable[[Sequence[Any]], list[Any]] = (
            self._alone_entry(body) if self.alone else self.call)

    def _batched_jaxpr(self, body: ClosedJaxpr, in_avals: Sequence[Any]) -> ClosedJaxpr:
        """The per-device program vmapped over the device axis (at each argument's in_axes,
        each output's out_axes), collectives computed by the vmap's rules."""
        name = self.params["axis_name"]

        # An output with out_axes None is device 0's (JAX returns one device's value).
        out_dims = [0 if ax is None else ax for ax in self.out_axes]

        def fun(*xs: Any) -> list[Any]:
            outs = batching.vmap_flat(
                lambda *ys: eval_jaxpr_keeping_sources(body.jaxpr, body.consts, *ys),
                xs, list(self.in_axes), out_dims, self.size, name)
            return [o if ax is not None else st.index_in_dim(o, 0, 0, keepdims=False)
                    for o, ax in zip(outs, self.out_axes, strict=True)]

        with axis_env.extend_axis_env(name, self.size):
            return trace_to_jaxpr(fun, list(in_avals))

    # -- running -------------------------------------------------------------------------
    def call(self, args: Sequence[Any]) -> list[Any]:
        """Run on the arguments (Arrays or host values); returns the output Arrays."""
        if self.alone:
            return self.entry(args)
        dispatch.check_not_deleted(args)
        if transfer_guard._in_use:
            self._guard_args(args)
        donated = self.writable or (False,) * len(args)
        if self.spmd:
            per_arg = [self._rank_args(x, ax, d)
                       for x, ax, d in zip(args, self.in_axes, donated, strict=True)]
            try:
                outs = self._run_spmd([[p[r] for p in per_arg]
                                       for r in range(len(self.devices))])
            finally:
                self._delete_donated(args)
            return [self._output(o, j) for j, o in enumerate(outs)]
        bufs = [self._global_buffer(x, d) for x, d in zip(args, donated, strict=True)]
        if self.aliased:
            bufs = private_host_inputs(bufs, args, self.aliased)
        try:
            results = self.executable(*bufs)
        finally:
            self._delete_donated(args)
        return [self._stacked_output(buf, j) for j, buf in enumerate(results)]

    def call_buffers(self, bufs: Sequence[Any]) -> list[Any]:
        """Run on NumPy buffers (inside a compiled program); returns the global outputs."""
        if not self.spmd:
            return list(self.executable(*bufs))
        n = len(self.devices)
        per_rank = [[b if ax is None else _take(b, ax, self._slice_index(r))
                     for b, ax in zip(bufs, self.in_axes, strict=True)] for r in range(n)]
        stride = n // self.size
        return [o[0] if ax is None else np.stack([np.asarray(v) for v in o[::stride]], ax)
                for o, ax in zip(self._run_spmd(per_rank), self.out_axes, strict=True)]

    def _run_spmd(self, per_rank: list[list[Any]]) -> list[list[Any]]:
        """Every rank's program on its arguments; the outputs, per output, in rank order."""
        executable = self.executable
        # Across processes, the first call compares every collective's shape and dtype
        # between the processes before the MPI call (a mismatch is an error on every process,
        # not a hang or an overrun buffer).
        results = spmd.run(self.devices, self.names, self.sizes,
                           lambda rank: executable(*[stream.resolve(b)
                                                     for b in per_rank[rank]]),
                           self._mpi_comm, self._grid[3], check=not self._checked)
        self._checked = True
        return [[r[j] for r in results] for j in range(len(self.out_axes))]

    def _alone_entry(self, body: ClosedJaxpr) -> Callable[[Sequence[Any]], list[Any]]:
        """`call` for the one device of this process, with what every call would look up
        decided here: each argument's block, the program run on the calling thread, each
        output its global Array's one local shard. (The general path's per-rank lists, thread
        hand-off and barrier have nothing to do here: this path is what a small collective
        across processes costs.)"""
        executable = self.executable  # its `run` becomes the bare program after a first call
        grid, idle, mpi_comm = self._grid, self._idle, self._mpi_comm
        aliased = self.aliased
        # Per argument: the index of its block in a NumPy argument (None: unmapped), and the
        # dtype such an argument has when it is its own device buffer.
        blocks = [(None if ax is None else (slice(None),) * ax + (0,), a.dtype)
                  for ax, a in zip(self.in_axes, body.in_avals, strict=True)]
        rank_args = self._rank_args
        in_axes = self.in_axes
        guard_args = self._guard_args
        outputs = [self._one_shard_output(j) for j in range(len(self.out_axes))]

        def call(args: Sequence[Any]) -> list[Any]:
            guarded = transfer_guard._in_use
            if guarded:
                dispatch.check_not_deleted(args)
                guard_args(args)
            bufs = []
            for i, x in enumerate(args):
                index, dtype = blocks[i]
                if (type(x) is np.ndarray and index is not None and not guarded
                        and x.dtype == dtype):
                    # A NumPy array of its canonical dtype is its own device buffer: the
                    # program reads a view of it (an output that is one is copied below).
                    bufs.append(x[index])
                    continue
                if type(x) is ArrayImpl and x.is_deleted():
                    dispatch.check_not_deleted((x,))
                bufs.append(stream.resolve(rank_args(x, in_axes[i], False)[0]))
            outs = spmd.run_alone(grid, idle, executable.run, bufs, mpi_comm,
                                  not self._checked)
            self._checked = True
            if aliased:  # the program has returned: copy only an output that is a view
                outs = private_results(outs, args, aliased)
            if len(outs) == 1:
                return [outputs[0]((outs[0],))]
            return [make((o,)) for make, o in zip(outputs, outs, strict=True)]

        return call

    def _one_shard_output(self, j: int) -> Callable[[tuple[Any]], Any]:
        """Output `j` of a one-device call (`_alone_entry`) from its one shard, `(buffer,)`."""
        aval = self.out_avals[j]
        sharding = self.out_shardings[j]
        if sharding is None:
            return lambda shards: make_array(shards[0], aval)
        return sharded_array_maker(aval, sharding)

    def _slice_index(self, rank: int) -> int:
        """The index along this pmap's axis of a rank of the grid."""
        return rank // (len(self.devices) // self.size)

    def _rank_args(self, x: Any, axis: int | None, donated: bool) -> list[Any]:
        """The argument as each rank sees it: its slice along `axis` (None: all of it)."""
        n = len(self.devices)
        if axis is None:
            return [self._global_buffer(x, donated)] * n
        stride = n // self.size
        if type(x) is ArrayImpl and self._sharded_here(x, axis):
            shards = _exclusive_shards(x) if donated else x._shard_buffers()
            return [shards[r // stride] for r in range(n)]
        buf = self._global_buffer(x, donated)
        if not donated and isinstance(x, np.ndarray) and self.aliased:
            buf = np.array(buf, copy=True)  # an output may be a view of an input
        return [_take(buf, axis, r // stride) for r in range(n)]

    def _guard_args(self, args: Sequence[Any]) -> None:
        """The transfer guard's word on the Arrays this call splits over its devices anew."""
        for x, axis in zip(args, self.in_axes, strict=True):
            if type(x) is ArrayImpl and not (axis is not None and self._sharded_here(x, axis)):
                self._guard_reshard(x)

    def _sharded_here(self, x: ArrayImpl, axis: int) -> bool:
        sharding = getattr(x, "_sharding", None)
        return (isinstance(sharding, PmapSharding) and sharding.stacked_axis == axis
                and len(sharding.devices) == self.size
                and all(a is b for a, b in zip(sharding.devices.flat, self.out_devices,
                                                strict=True)))

    def _guard_reshard(self, x: ArrayImpl) -> None:
        """Splitting an Array that lives elsewhere over the devices is a device-to-device
        transfer (implicit), unless it is already on the one device of a 1-device pmap."""
        if not transfer_guard._in_use:
            return
        if x.devices() == set(self.out_devices):
            return
        placement.guard_device_to_device(x.shape, x.dtype, PmapSharding.stacked(
            self.out_devices, x.ndim - 1), explicit=False, src=x.sharding)

    def _global_buffer(self, x: Any, donated: bool) -> Any:
        """An argument's whole value; a donated one only if nothing else can see it (no
        shard of it handed out: those are views)."""
        if type(x) is not ArrayImpl:
            return dispatch.buffer(x)  # a host value: an implicit host-to-device transfer
        if donated and getattr(x, "_shards", None) is None:
            return dispatch._exclusive_buffer(x)
        buf = stream.resolve(x._buf)
        return np.array(buf, copy=True) if donated else buf

    def _delete_donated(self, args: Sequence[Any]) -> None:
        if self.paired:
            for x, d in zip(args, self.paired, strict=True):
                if d and type(x) is ArrayImpl:
                    x._consume()

    def _output(self, per_rank: Sequence[Any], j: int) -> Any:
        axis = self.out_axes[j]
        aval = self.out_avals[j]
        if axis is None:
            return make_array(per_rank[0], aval)
        sharding = self.out_shardings[j]
        assert sharding is not None
        indices = self._out_indices[j]
        if indices is None:
            where = sharding.devices_indices_map(aval.shape)
            indices = self._out_indices[j] = [where[d] for d in sharding._device_assignment]
        stride = len(self.devices) // self.size
        return sharded_array(per_rank if stride == 1 else per_rank[::stride], aval, sharding,
                             indices=indices)

    def _stacked_output(self, buf: Any, j: int) -> Any:
        axis = self.out_axes[j]
        aval = self.out_avals[j]
        if axis is None:
            return make_array(buf, aval)
        sharding = self.out_shardings[j]
        assert sharding is not None
        return sharded_array(None, aval, sharding, global_buf=buf)


def _take(buf: Any, axis: int, index: int) -> Any:
    """The slice at `index` along `axis` (a view)."""
    return np.asarray(buf)[(slice(None),) * axis + (index,)]


def _exclusive_shards(x: ArrayImpl) -> list[Any]:
    """A donated Array's shard buffers, each itself when nothing else can see it (no view,
    no other Array on it), else a private copy."""
    shards = x._shard_buffers()
    out = []
    for i in range(len(shards)):
        # References: the Array's shard tuple and getrefcount's argument.
        if (type(shards[i]) is np.ndarray and shards[i].flags.owndata
                and shards[i].flags.writeable and sys.getrefcount(shards[i]) <= 2):
            out.append(shards[i])
        else:
            out.append(np.array(shards[i], copy=True))
    return out


# ---- the compile cache -----------------------------------------------------------------------

_cache: weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, PmapExecutable]] = \
    weakref.WeakKeyDictionary()


def _key(params: dict[str, Any], in_avals: Sequence[Any]) -> Any:
    return (tuple((k, v) for k, v in sorted(params.items()) if k != "call_jaxpr"),
            tuple(in_avals), config.trace_context())


def executable_for(params: dict[str, Any], args: Sequence[Any]) -> PmapExecutable:
    avals = [get_aval(x) for x in args]
    return _executable(params, avals)


def _executable(params: dict[str, Any], avals: Sequence[Any]) -> PmapExecutable:
    body = params["call_jaxpr"]
    by_params = _cache.get(body)
    if by_params is None:
        by_params = _cache[body] = {}
    key = _key(params, avals)
    executable = by_params.get(key)
    if executable is None:
        executable = by_params[key] = PmapExecutable(params, avals)
    return executable


def clear_cache() -> None:
    _cache.clear()


def kernel(in_avals: Sequence[Any], params: dict[str, Any]) -> Any:
    """The kernel of an `xla_pmap` equation inside a compiled program. On a device of an SPMD
    run whose grid has this pmap's axis (a nested pmap), the device runs the per-device program
    on its slice and gathers the results along the axis; otherwise the pmap runs on its own
    devices."""
    name = params["axis_name"]
    in_axes, out_axes = params["in_axes"], params["out_axes"]
    body: ClosedJaxpr = params["call_jaxpr"]
    nested: list[Executable] = []

    def run(*bufs: Any) -> list[Any]:
        context = spmd.current()
        if context is not None and name in context.coords:
            if not nested:
                nested.append(compile_jaxpr(body, f"pmap_{params['name']}"))
            index = context.coords[name]
            args = [b if ax is None else _take(b, ax, index)
                    for b, ax in zip(bufs, in_axes, strict=True)]
            outs = nested[0](*args)
            return [o if ax is None else spmd.all_gather(context, o, (name,), None, ax, False)
                    for o, ax in zip(outs, out_axes, strict=True)]
        return _executable(params, in_avals).call_buffers(bufs)

    return run

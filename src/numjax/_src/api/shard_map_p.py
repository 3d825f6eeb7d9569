"""The `shard_map` primitive: a per-device program run on every device of a mesh, each on its
block of the arguments.

`jaxpr` is the program one device runs; `in_names[i]` maps each split dimension of argument i
to the mesh axes splitting it (`{0: ('x',)}`: dimension 0 cut into one block per index along
`x`; dimensions not named are whole on every device), and `out_names` say how the devices'
outputs are put back together (an axis not named: every device holds the same value, one is
returned). Params are JAX 0.4.30's, so jaxprs print as JAX's do.

Run eagerly or inside a compiled program, every device of the mesh runs the compiled
per-device program on its own thread (an SPMD run, `runtime/spmd.py`; the grid is the mesh:
one axis per mesh axis name), so collectives over mesh axis names meet across devices.
Rules transform the per-device program and bind `shard_map` again: jvp (tangents split like
their primals), vmap (the vmapped dimension leading, the named dimensions after it),
transpose (the cotangent of an output every device holds is split equally among the devices
holding it, and the cotangent of an argument every device holds is summed over them with
`psum`) and partial evaluation (residuals returned per device, stacked on a new leading
dimension split over every mesh axis).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import numpy as np

from numjax._src.api import dispatch
from numjax._src.compiler.codegen import Executable
from numjax._src.compiler.executables import compile_jaxpr
from numjax._src.core import axis_env
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Primitive, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import StagingTrace, eval_jaxpr_keeping_sources
from numjax._src.lax import elementwise as ew
from numjax._src.lax import parallel
from numjax._src.lax import structural as st
from numjax._src.runtime import distributed, multihost, spmd, stream
from numjax._src.runtime.array import ArrayImpl, sharded_array
from numjax._src.runtime.mesh import Mesh, PartitionSpec
from numjax._src.runtime.named_sharding import NamedSharding
from numjax._src.runtime.sharding import is_addressable

shard_map_p = Primitive("shard_map")
shard_map_p.multiple_results = True


class AxisNames(tuple):  # type: ignore[type-arg]
    """One value's split dimensions: `(dim, mesh axes)` pairs in dimension order, hashable
    (params are cache keys); prints as JAX's dict does."""

    @classmethod
    def of(cls, names: dict[int, tuple[Hashable, ...]]) -> AxisNames:
        return cls(sorted((d, tuple(a)) for d, a in names.items() if a))

    def as_dict(self) -> dict[int, tuple[Hashable, ...]]:
        return dict(self)

    def axes(self) -> set[Hashable]:
        return {a for _, axes in self for a in axes}

    def shifted(self, by: int) -> AxisNames:
        return AxisNames((d + by, axes) for d, axes in self)

    def __repr__(self) -> str:
        return repr(self.as_dict())


def names_of_spec(spec: PartitionSpec) -> AxisNames:
    """A PartitionSpec's entries as split dimensions."""
    out: dict[int, tuple[Hashable, ...]] = {}
    for d, entry in enumerate(spec):
        if entry is None:
            continue
        out[d] = tuple(entry) if isinstance(entry, tuple | list) else (entry,)
    return AxisNames.of(out)


def spec_of_names(names: AxisNames, ndim: int) -> PartitionSpec:
    """The PartitionSpec a value split as `names` is laid out with (JAX's canonical form:
    trailing unsplit dimensions dropped, one axis written bare)."""
    entries: list[Any] = [None] * (max((d for d, _ in names), default=-1) + 1)
    for d, axes in names:
        entries[d] = axes[0] if len(axes) == 1 else axes
    return PartitionSpec(*entries)


def block_count(mesh: Mesh, axes: Sequence[Hashable]) -> int:
    sizes = mesh.shape
    return math.prod(sizes[a] for a in axes)


def shard_aval(mesh: Mesh, names: AxisNames, aval: Any) -> Any:
    """One device's block of a value split as `names`."""
    shape = list(aval.shape)
    for d, axes in names:
        shape[d] //= block_count(mesh, axes)
    return aval.update(shape=tuple(shape))


def unshard_aval(mesh: Mesh, names: AxisNames, aval: Any) -> Any:
    """The whole value whose blocks, split as `names`, have `aval`."""
    shape = list(aval.shape)
    for d, axes in names:
        shape[d] *= block_count(mesh, axes)
    return aval.update(shape=tuple(shape))


@contextlib.contextmanager
def mesh_axis_env(mesh: Mesh) -> Iterator[None]:
    """Every mesh axis name bound (to its size) while a per-device program is traced."""
    with contextlib.ExitStack() as stack:
        for name, size in mesh.shape.items():
            stack.enter_context(axis_env.extend_axis_env(name, size))
        yield


@shard_map_p.def_effectful_abstract_eval
def _shard_map_abstract_eval(*avals: Any, jaxpr: ClosedJaxpr, mesh: Mesh,
                             out_names: tuple[AxisNames, ...], **params: Any) -> Any:
    outs = [unshard_aval(mesh, n, a) for a, n in zip(jaxpr.out_avals, out_names, strict=True)]
    return outs, jaxpr.effects


# ---- running on the mesh's devices ---------------------------------------------------------


def _block_index(mesh: Mesh, coords: dict[Hashable, int], names: AxisNames, shape: Sequence[int]
                 ) -> tuple[slice, ...]:
    """The index of a device's block (its coordinates along the mesh axes) in the whole
    value: along each split dimension, mixed radix over its axes, the first major."""
    index = [slice(None)] * len(shape)
    sizes = mesh.shape
    for d, axes in names:
        position = 0
        for a in axes:
            position = position * sizes[a] + coords[a]
        block = shape[d] // block_count(mesh, axes)
        index[d] = slice(position * block, (position + 1) * block)
    return tuple(index)


class ShardMapExecutable:
    """A shard_map compiled once: the per-device executable and the mesh it runs on."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.mesh: Mesh = params["mesh"]
        self.in_names: tuple[AxisNames, ...] = params["in_names"]
        self.out_names: tuple[AxisNames, ...] = params["out_names"]
        body: ClosedJaxpr = params["jaxpr"]
        self.body = body
        self.devices = list(self.mesh.devices.flat)
        self.names = list(self.mesh.axis_names)
        self.sizes = list(self.mesh.devices.shape)
        # Each rank's coordinates on the mesh, row-major as the communicator numbers them.
        self.coords = [dict(zip(self.names, np.unravel_index(r, self.sizes), strict=True))
                       for r in range(len(self.devices))]
        self.out_avals = [unshard_aval(self.mesh, n, a)
                          for a, n in zip(body.out_avals, self.out_names, strict=True)]
        self.shardings = [_named_sharding(self.mesh, n, a.ndim)
                          for n, a in zip(self.out_names, self.out_avals, strict=True)]
        with mesh_axis_env(self.mesh):
            self.executable: Executable = compile_jaxpr(body, "shmap_body")
        # This process runs the ranks of its own devices: all of them on one process; on a
        # mesh spanning processes, a contiguous run of ranks starting at `offset` (the
        # processes' devices in order, as `numjax.devices()` lists them), whose collectives
        # cross processes through MPI.
        self.mpi_comm: Any = None
        local = [r for r, d in enumerate(self.devices) if is_addressable(d)]
        self.offset, self.ranks = local[0], len(local)
        if self.ranks < len(self.devices):
            if local != list(range(self.offset, self.offset + self.ranks)):
                raise NotImplementedError(
                    f"shard_map over a mesh spanning several processes needs each process's "
                    f"devices side by side in the mesh's device order; {self.mesh} interleaves "
                    "them. Build the mesh from numjax.devices() in order (for example with "
                    "numjax.experimental.mesh_utils.create_device_mesh).")
            self.mpi_comm = distributed.state.comm

    def run(self, per_rank: list[list[Any]]) -> list[list[Any]]:
        """This process's devices' programs on their blocks (`per_rank[i]`: rank
        `offset + i`'s); the outputs, per output, in rank order."""
        executable = self.executable
        results = spmd.run(self.devices[self.offset:self.offset + self.ranks], self.names,
                           self.sizes,
                           lambda rank: executable(*[stream.resolve(b) for b in per_rank[rank]]),
                           self.mpi_comm, self.offset)
        return [[r[j] for r in results] for j in range(len(self.out_names))]

    def blocks(self, buf: Any, names: AxisNames) -> list[Any]:
        """A whole value cut into the block of each of this process's ranks (views)."""
        buf = np.asarray(stream.resolve(buf))
        if not names:
            return [buf] * self.ranks
        return [buf[_block_index(self.mesh, c, names, buf.shape)]
                for c in self.coords[self.offset:self.offset + self.ranks]]

    def assemble(self, per_rank: list[Any], j: int) -> Any:
        """Output j's whole value from every rank's block (across processes: every process's
        blocks, gathered)."""
        names = self.out_names[j]
        if not names:
            return per_rank[0]
        if self.mpi_comm is not None:
            per_rank = [b for blocks in self.mpi_comm.allgather([np.asarray(b) for b in per_rank])
                        for b in blocks]
        aval = self.out_avals[j]
        out = np.empty(aval.shape, aval.dtype)
        for c, block in zip(self.coords, per_rank, strict=True):
            out[_block_index(self.mesh, c, names, aval.shape)] = block
        return out

    def call_buffers(self, bufs: Sequence[Any]) -> list[Any]:
        per_arg = [self.blocks(b, n) for b, n in zip(bufs, self.in_names, strict=True)]
        outs = self.run([[p[r] for p in per_arg] for r in range(self.ranks)])
        return [self.assemble(o, j) for j, o in enumerate(outs)]

    def call_arrays(self, args: Sequence[Any]) -> list[Any]:
        """Run on Arrays (or host values); blocks of Arrays already laid out as this
        shard_map splits them are used where they are. Returns sharded Arrays (holding this
        process's blocks, on a mesh spanning processes)."""
        per_arg = []
        mine = slice(self.offset, self.offset + self.ranks)
        for x, names in zip(args, self.in_names, strict=True):
            sharding = getattr(x, "_sharding", None) if type(x) is ArrayImpl else None
            wanted = _named_sharding(self.mesh, names, x.ndim) if sharding is not None else None
            if sharding is not None and sharding != wanted and not x.is_fully_addressable:
                # Laid out across processes some other way: moved to the program's layout.
                x = multihost.reshard(x, wanted)
                sharding = wanted
            if sharding is not None and sharding == wanted:
                per_arg.append(list(x._shard_buffers()[mine]))
            else:
                per_arg.append(self.blocks(dispatch.buffer(x), names))
        outs = self.run([[p[r] for p in per_arg] for r in range(self.ranks)])
        before = [None] * self.offset
        after = [None] * (len(self.devices) - self.offset - self.ranks)
        return [sharded_array([*before, *[np.asarray(b) for b in o], *after], aval, sharding)
                for o, aval, sharding in zip(outs, self.out_avals, self.shardings, strict=True)]


def _named_sharding(mesh: Mesh, names: AxisNames, ndim: int) -> Any:
    return NamedSharding(mesh, spec_of_names(names, ndim))


_executables: dict[Any, ShardMapExecutable] = {}


def executable_for(params: dict[str, Any]) -> ShardMapExecutable:
    key = tuple(sorted((k, id(v) if k == "jaxpr" else v) for k, v in params.items()))
    cached = _executables.get(key)
    if cached is None or cached.body is not params["jaxpr"]:
        cached = _executables[key] = ShardMapExecutable(params)
        if len(_executables) > 256:  # programs traced per call: keep the newest
            del _executables[next(iter(_executables))]
    return cached


def clear_cache() -> None:
    _executables.clear()


def _shard_map_impl(*args: Any, **params: Any) -> list[Any]:
    return executable_for(params).call_arrays(args)


shard_map_p.def_impl(_shard_map_impl)
# Evaluated eagerly, it runs on the mesh's devices and returns sharded Arrays.
shard_map_p.eager_impl = _shard_map_impl


@shard_map_p.def_kernel_factory
def _shard_map_kernel(in_avals: Sequence[Any], **params: Any) -> Any:
    executable = executable_for(params)

    def kernel(*bufs: Any) -> list[Any]:
        return executable.call_buffers(bufs)

    return kernel


# ---- transformation rules ------------------------------------------------------------------


def _rebind(params: dict[str, Any], jaxpr: ClosedJaxpr, in_names: Sequence[AxisNames],
            out_names: Sequence[AxisNames], args: Sequence[Any]) -> list[Any]:
    new = {**params, "jaxpr": jaxpr, "in_names": tuple(in_names),
           "out_names": tuple(out_names)}
    return shard_map_p.bind(*args, **new)  # type: ignore[no-any-return]


def _shard_map_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                   ) -> tuple[list[Any], list[Any]]:
    body: ClosedJaxpr = params["jaxpr"]
    has_tangent = [type(t) is not ad.Zero for t in tangents]
    with mesh_axis_env(params["mesh"]):
        jvp_body = jaxpr_transforms.jvp_jaxpr(body, has_tangent)
    in_names = params["in_names"]
    tangent_names = [n for n, t in zip(in_names, has_tangent, strict=True) if t]
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    outs = _rebind(params, jvp_body, [*in_names, *tangent_names],
                   [*params["out_names"], *params["out_names"]], [*primals, *nonzero])
    m = len(body.out_avals)
    return outs[:m], outs[m:]


def _shard_map_batch(args: Sequence[Any], dims: Sequence[int | None], **params: Any
                     ) -> tuple[list[Any], list[Any]]:
    """vmap of shard_map: batched arguments get the vmapped dimension leading (never split),
    so each device's program sees the batch at 0 and the named dimensions move by one."""
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                if d is not None)
    moved = [batching.bdim_at_front(x, d, size) if d is not None else x
             for x, d in zip(args, dims, strict=True)]
    in_names = [n.shifted(1) if d is not None else n
                for n, d in zip(params["in_names"], dims, strict=True)]
    with mesh_axis_env(params["mesh"]):
        body = jaxpr_transforms.batch_jaxpr(params["jaxpr"], size,
                                            [d is not None for d in dims])
    out_names = [n.shifted(1) for n in params["out_names"]]
    outs = _rebind(params, body, in_names, out_names, moved)
    return outs, [0] * len(outs)


def _unmentioned(mesh: Mesh, names: AxisNames) -> tuple[Hashable, ...]:
    mentioned = names.axes()
    return tuple(a for a in mesh.axis_names if a not in mentioned)


def _shard_map_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    mesh: Mesh = params["mesh"]
    body: ClosedJaxpr = params["jaxpr"]
    linear = [ad.is_undefined_primal(x) for x in args]
    in_names, out_names = params["in_names"], params["out_names"]
    cts = [ad.instantiate_zeros(c) for c in cts]
    transposed = jaxpr_transforms.transpose_jaxpr(body, linear)
    sizes = mesh.shape
    # An output every device along some axes holds once (unnamed axes) is the same value on
    # each: its cotangent is shared equally among them; an argument every device along some
    # axes reads gets the sum of their cotangents.
    out_shares = [math.prod(sizes[a] for a in _unmentioned(mesh, n)) for n in out_names]
    lin_names = [n for n, lin in zip(in_names, linear, strict=True) if lin]
    n_known = len(linear) - sum(linear)

    def body_t(*xs: Any) -> list[Any]:
        known = xs[:n_known]
        ct_in = [c if share == 1 or not _is_float(c) else
                 ew.div(c, st._convert_element_type(share, get_aval(c).dtype))
                 for c, share in zip(xs[n_known:], out_shares, strict=True)]
        outs = eval_jaxpr_keeping_sources(transposed.jaxpr, transposed.consts, *known, *ct_in)
        summed = []
        for o, n in zip(outs, lin_names, strict=True):
            axes = _unmentioned(mesh, n)
            summed.append(parallel.psum_p.bind(o, axes=axes, axis_index_groups=None)[0]
                          if axes else o)
        return summed

    known_names = [n for n, lin in zip(in_names, linear, strict=True) if not lin]
    ct_avals = [shard_aval(mesh, n, get_aval(c))
                for c, n in zip(cts, out_names, strict=True)]
    with mesh_axis_env(mesh):
        closed_t = jaxpr_transforms.trace_closed(
            body_t, [*transposed.in_avals[:n_known], *ct_avals])
    known = [x for x, lin in zip(args, linear, strict=True) if not lin]
    outs = iter(_rebind(params, closed_t, [*known_names, *out_names], lin_names,
                        [*known, *cts]))
    return [next(outs) if lin else None for lin in linear]


def _is_float(x: Any) -> bool:
    return get_aval(x).dtype.kind in "fc"


def _shard_map_partial_eval(trace: Any, args: Sequence[Any], params: dict[str, Any]
                            ) -> list[Any]:
    """Under linearize: the known per-device program runs now and returns its residuals,
    each with a new leading dimension of 1 split over every mesh axis (one block per device);
    the unknown program, staged, reads them back without it."""
    mesh: Mesh = params["mesh"]
    body: ClosedJaxpr = params["jaxpr"]
    unknowns = [partial_eval.is_unknown(trace, x) for x in args]
    with mesh_axis_env(mesh):
        split = partial_eval.partial_eval_jaxpr(body, unknowns)
    in_names, out_names = params["in_names"], params["out_names"]
    n_res = len(split.res_avals)
    every = AxisNames.of({0: tuple(mesh.axis_names)})
    known_body, unknown_body = split.known, split.unknown
    if n_res:
        n_known_out = len(known_body.out_avals) - n_res

        def known_fun(*xs: Any) -> list[Any]:
            outs = eval_jaxpr_keeping_sources(known_body.jaxpr, known_body.consts, *xs)
            return [*outs[:n_known_out], *[st.expand_dims(r, (0,)) for r in outs[n_known_out:]]]

        def unknown_fun(*xs: Any) -> list[Any]:
            res = [st.squeeze(r, (0,)) for r in xs[:n_res]]
            return eval_jaxpr_keeping_sources(unknown_body.jaxpr, unknown_body.consts,
                                              *res, *xs[n_res:])

        stacked = [a.update(shape=(1, *a.shape)) for a in split.res_avals]
        with mesh_axis_env(mesh):
            known_body = jaxpr_transforms.trace_closed(known_fun, known_body.in_avals)
            unknown_body = jaxpr_transforms.trace_closed(
                unknown_fun, [*stacked, *unknown_body.in_avals[n_res:]])
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    known_in = [n for n, u in zip(in_names, unknowns, strict=True) if not u]
    known_out = [n for n, u in zip(out_names, split.out_unknowns, strict=True) if not u]
    with set_current_trace(trace.parent):
        known_outs = _rebind(params, known_body, known_in, [*known_out, *[every] * n_res],
                             known_args)
    residuals = known_outs[len(known_outs) - n_res:]
    known_vals = iter(known_outs[:len(known_outs) - n_res])
    unknown_args = [x for x, u in zip(args, unknowns, strict=True) if u]
    unknown_in = [n for n, u in zip(in_names, unknowns, strict=True) if u]
    unknown_out = [n for n, u in zip(out_names, split.out_unknowns, strict=True) if u]
    new = {**params, "jaxpr": unknown_body, "in_names": (*[every] * n_res, *unknown_in),
           "out_names": tuple(unknown_out)}
    unknown_vals = iter(StagingTrace.process_primitive(
        trace, shard_map_p, [*residuals, *unknown_args], new))
    return [next(unknown_vals) if u else next(known_vals) for u in split.out_unknowns]


shard_map_p.def_jvp(_shard_map_jvp)
shard_map_p.def_batch(_shard_map_batch)
shard_map_p.def_transpose(_shard_map_transpose)
shard_map_p.def_partial_eval(_shard_map_partial_eval)


def _print_params(params: dict[str, Any]) -> dict[str, Any]:
    return dict(sorted(params.items()))


shard_map_p.def_param_printer(_print_params)

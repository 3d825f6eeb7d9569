"""jit with shardings: which devices a jitted program runs on, and how its outputs are laid out.

A jitted call whose arguments are split across devices (NamedSharding Arrays, or
`in_shardings`) is compiled one of two ways (`partition`):

- *per shard (SPMD)*: when every argument is split over one mesh (or whole on every device)
  and every operation keeps the split local, the program is rewritten into the program one
  device runs on its block, wrapped in a `shard_map` over the mesh, so each device runs it on
  its own thread, side by side. An operation keeps the split local when it is elementwise (an
  operand every device holds whole is cut to the device's block), a broadcast, transpose or
  reshape that carries the split dimension through, a reduction or dot_general over other
  dimensions, or a dot_general batched or free along it; a reduction or contraction over
  the split dimension is computed per block and summed across the devices (`psum`, or
  `pmax`/`pmin`). Operations reading only values every device holds whole run on every
  device.
- *on one device*: anything else (an operation that would need data from other blocks, an
  effect, a nested pmap or shard_map, arguments on different meshes) runs the original
  program on the assembled values on the calling thread, as an unsharded jit does.

Either way the outputs are laid out as `out_shardings` asks, else as a
`with_sharding_constraint` on the output, a shard_map's `out_specs`, or the argument an
output is; otherwise as JAX's partitioner lays them out (`sharding_propagation`), which
need not be how the devices' programs leave them: the shards are views of the whole value.
`Compiled.as_text()` starts with a line naming the way chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from numjax._src.api import sharding_propagation
from numjax._src.api.custom_primitives import custom_jvp_call_p, custom_vjp_call_p
from numjax._src.api.pjit import pjit_p
from numjax._src.api.positional_layout import common_layout
from numjax._src.api.shard_map import prefix_error
from numjax._src.api.shard_map_p import (
    AxisNames,
    block_count,
    mesh_axis_env,
    shard_aval,
    shard_map_p,
    spec_of_names,
)
from numjax._src.api.shard_map_p import executable_for as shard_map_executable
from numjax._src.api.sharding_constraint import sharding_constraint_p
from numjax._src.api.xla_pmap import xla_pmap_p
from numjax._src.compiler import passes
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var
from numjax._src.core.trace import Primitive
from numjax._src.interpreters.ad import add_any_p
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import (
    dot,
    dynamic_slicing,
    elementwise,
    parallel,
    reductions,
    special,
    structural,
)
from numjax._src.runtime import multihost, placement
from numjax._src.runtime.array import ArrayImpl
from numjax._src.runtime.gspmd_sharding import GSPMDSharding
from numjax._src.runtime.mesh import Mesh, PartitionSpec
from numjax._src.runtime.named_sharding import (
    NamedSharding,
    PositionalSharding,
    TiledSharding,
    check_shape,
)
from numjax._src.runtime.sharding import Sharding
from numjax._src.tree_util import tree_flatten, tree_structure, tree_unflatten


class Plan(NamedTuple):
    """How a jitted program runs: the program to lower (a shard_map of the per-device program
    when `spmd`), and each output's sharding (None: on the default device)."""

    jaxpr: ClosedJaxpr
    out_shardings: tuple[Sharding | None, ...]
    spmd: bool
    mesh: Mesh | None

    def spans_processes(self, flat_args: Sequence[Any]) -> bool:
        """Whether an argument is an Array split across several processes' devices (its
        value is nowhere whole: the program runs per shard, `run_per_shard`). One replicated
        on every device is whole on each process, like a host value."""
        return any(type(x) is ArrayImpl and not x.is_fully_addressable
                   and not x.is_fully_replicated for x in flat_args)

    def run_per_shard(self, flat_args: Sequence[Any]) -> list[Any] | None:
        """The outputs of a per-shard (SPMD) program on Arrays spanning processes: each
        process runs its devices' blocks (the program's shard_map), collectives meeting
        across processes; outputs hold this process's blocks. None when the program does not
        run per shard, or an output is asked for in another layout (see `gathered`)."""
        # A per-shard plan is its shard_map; so is a jitted shard_map itself.
        jaxpr = passes.inline_calls(self.jaxpr).jaxpr
        eqns = jaxpr.eqns
        if len(eqns) != 1 or eqns[0].primitive is not shard_map_p:
            return None
        eqn = eqns[0]
        if list(eqn.invars) != list(jaxpr.invars) or list(eqn.outvars) != list(jaxpr.outvars):
            return None
        executable = shard_map_executable(eqn.params)
        for out, wanted, aval in zip(executable.shardings, self.out_shardings,
                                     executable.out_avals, strict=True):
            if wanted is not None and not out.is_equivalent_to(wanted, aval.ndim):
                return None
        return executable.call_arrays(flat_args)

    def gathered(self, flat_args: Sequence[Any]) -> list[Any]:
        """The arguments with every Array split across processes replaced by its whole value,
        gathered from every process: a program that does not run per shard runs on whole
        values on every process (correct, not parallel), its outputs laid out as planned."""
        return [multihost.global_value(x) if type(x) is ArrayImpl and not x.is_fully_addressable
                and not x.is_fully_replicated else x for x in flat_args]

    def describe(self) -> str:
        if self.spmd:
            assert self.mesh is not None
            return (f"# sharded jit: per shard on {self.mesh.size} devices of {self.mesh}, "
                    "each on its own thread (shard_map of the per-device program)")
        return "# sharded jit: on one device, outputs laid out by their shardings"


class _Unpartitionable(Exception):
    """An operation that cannot run per shard: the program runs on one device."""


def is_multi_device(sharding: Any) -> bool:
    return isinstance(sharding, Sharding) and len(sharding._device_assignment) > 1


def partition(closed: ClosedJaxpr, in_shardings: Sequence[Sharding | None],
              out_shardings: Sequence[Sharding | None]) -> Plan:
    """The plan for a program whose inputs have `in_shardings` (None: whole, uncommitted) and
    whose outputs were asked for `out_shardings` (None: not asked)."""
    if any(isinstance(s, NamedSharding) for s in in_shardings):
        return _partition(closed, in_shardings, out_shardings, named=True)
    layout = common_layout([*in_shardings, *out_shardings])
    if layout is None:
        # No input names a mesh: JAX reports the layouts the program gives its outputs (a
        # with_sharding_constraint, a shard_map) as GSPMDShardings.
        return _partition(closed, in_shardings, out_shardings, named=False)
    # Positional arguments: planned as NamedShardings of their common mesh, and the outputs
    # laid out on that mesh given back as PositionalShardings.
    named = [layout.to_named(s) if isinstance(s, PositionalSharding) and is_multi_device(s)
             else s for s in [*in_shardings, *out_shardings]]
    plan = _partition(closed, named[:len(in_shardings)], named[len(in_shardings):], named=True)
    outs = tuple(layout.to_positional(s, a.ndim)
                 if isinstance(s, NamedSharding) and s.mesh == layout.mesh else s
                 for s, a in zip(plan.out_shardings, closed.out_avals, strict=True))
    return plan._replace(out_shardings=outs)


def _partition(closed: ClosedJaxpr, in_shardings: Sequence[Sharding | None],
               out_shardings: Sequence[Sharding | None], *, named: bool) -> Plan:
    """`named`: outputs laid out on a mesh are NamedShardings where a PartitionSpec writes
    them (else GSPMDShardings)."""
    inlined = passes.inline_calls(closed)
    constraints = [e.params["sharding"] for e in inlined.jaxpr.eqns
                   if e.primitive is sharding_constraint_p]
    meshes = [s.mesh if isinstance(s, NamedSharding) else s.layout[0]
              for s in [*in_shardings, *constraints]
              if isinstance(s, NamedSharding) or isinstance(s, GSPMDSharding) and s.layout]
    mesh = meshes[0] if meshes else None
    try:
        if mesh is None or mesh.size == 1 or any(m != mesh for m in meshes):
            raise _Unpartitionable()
        in_names = [_names_on(mesh, s) for s in in_shardings]
        if not any(block_count(mesh, axes) > 1 for n in in_names for _, axes in n) and \
                not any(not s.is_fully_replicated for s in constraints):
            raise _Unpartitionable()
        return _spmd_plan(inlined, mesh, in_names, out_shardings, named)
    except _Unpartitionable:
        return Plan(closed, _fallback_out_shardings(inlined, mesh, in_shardings,
                                                    out_shardings, named), False, mesh)


def _names_on(mesh: Mesh, sharding: Sharding | None) -> AxisNames:
    """How an input is split on `mesh` (whole: no names)."""
    if sharding is None or not is_multi_device(sharding):
        return AxisNames()
    if isinstance(sharding, NamedSharding) and sharding.mesh == mesh:
        return AxisNames.of({d: axes for d, axes in enumerate(sharding._partitions) if axes})
    if sharding.is_fully_replicated and sharding.device_set == set(mesh.devices.flat):
        return AxisNames()
    raise _Unpartitionable()


def _spmd_plan(closed: ClosedJaxpr, mesh: Mesh, in_names: list[AxisNames],
               out_shardings: Sequence[Sharding | None], named: bool) -> Plan:
    block_avals = [shard_aval(mesh, n, a) for n, a in zip(in_names, closed.in_avals,
                                                          strict=True)]
    partitioner = _Partitioner(mesh)
    with mesh_axis_env(mesh):
        body = trace_to_jaxpr(lambda *xs: partitioner.run(closed.jaxpr, closed.consts, xs,
                                                          in_names), block_avals)
    out_names = partitioner.out_names
    outer = trace_to_jaxpr(lambda *xs: shard_map_p.bind(
        *xs, jaxpr=body, mesh=mesh, in_names=tuple(in_names), out_names=tuple(out_names),
        check_rep=False, rewrite=False, auto=frozenset()), list(closed.in_avals))
    hints = _layout_hints(closed, named)
    # Laid out as JAX's partitioner lays them out, which need not be the split each device's
    # program leaves them in (the shards are views of the whole output either way).
    laid_out = sharding_propagation.output_shardings(closed, [n.as_dict() for n in in_names],
                                                     mesh, named=named)
    shardings = tuple(
        asked if asked is not None else hint if hint is not None else s
        for asked, hint, s in zip(out_shardings, hints, laid_out, strict=True))
    return Plan(outer, shardings, True, mesh)


def _layout_hints(closed: ClosedJaxpr, named: bool) -> list[Sharding | None]:
    """The layout the program itself gives each output: a `with_sharding_constraint` on it
    (whole on the mesh when its split does not divide the value, as JAX's jit then lays it
    out), a shard_map's out_specs; None for other outputs. Unless `named`, one on a mesh of
    several devices is given as the GSPMDSharding of the same tiles, as JAX reports it when
    no input names a mesh (`GSPMDSharding({devices=[2,1]<=[2]})`)."""
    jaxpr = closed.jaxpr
    producers = {v: e for e in jaxpr.eqns for v in e.outvars}
    hints: list[Sharding | None] = []
    for v, aval in zip(jaxpr.outvars, closed.out_avals, strict=True):
        eqn = producers.get(v) if isinstance(v, Var) else None
        hint: Sharding | None = None
        if eqn is not None and eqn.primitive is sharding_constraint_p:
            hint = eqn.params["sharding"]
            if not _divides(hint, aval.shape):
                mesh = hint.mesh if isinstance(hint, NamedSharding) else None
                hint = NamedSharding(mesh, PartitionSpec()) if mesh is not None else None
        elif eqn is not None and eqn.primitive is shard_map_p:
            j = list(eqn.outvars).index(v)  # type: ignore[arg-type]
            hint = NamedSharding(eqn.params["mesh"],
                                 spec_of_names(eqn.params["out_names"][j], aval.ndim))
        if not named and isinstance(hint, NamedSharding) and hint.mesh.size > 1:
            split = sharding_propagation.input_split(hint.mesh, hint)
            assert split is not None
            hint = sharding_propagation.layout_sharding(hint.mesh, split, aval.ndim,
                                                        named=False)
        hints.append(hint)
    return hints


def has_layout_hints(closed: ClosedJaxpr) -> bool:
    """Whether the program asks for a layout itself: a `with_sharding_constraint` anywhere,
    or an output made by a shard_map (see `_layout_hints`)."""
    outs = {v for v in closed.jaxpr.outvars if isinstance(v, Var)}
    return any(e.primitive is sharding_constraint_p or e.primitive is shard_map_p
               and any(v in outs for v in e.outvars) for e in closed.jaxpr.eqns)


def _fallback_out_shardings(closed: ClosedJaxpr, mesh: Mesh | None,
                            in_shardings: Sequence[Sharding | None],
                            out_shardings: Sequence[Sharding | None], named: bool
                            ) -> tuple[Sharding | None, ...]:
    jaxpr = closed.jaxpr
    inputs = dict(zip(jaxpr.invars, in_shardings, strict=True))
    # On a one-device mesh JAX 0.4.30 gives an output the layout of the first argument laid
    # out on it when their ranks agree (whole otherwise).
    first = next((s for s in in_shardings if isinstance(s, NamedSharding)), None)
    laid_out: Sequence[Sharding | None] = [None] * len(jaxpr.outvars)
    if mesh is not None and mesh.size > 1:
        laid_out = sharding_propagation.output_shardings(
            closed, [_split_on(mesh, s) for s in in_shardings], mesh, named=named)
    elif mesh is not None:
        laid_out = [NamedSharding(mesh, PartitionSpec())] * len(jaxpr.outvars)
    out: list[Sharding | None] = []
    hints = _layout_hints(closed, named)
    for v, asked, hint, aval, laid in zip(jaxpr.outvars, out_shardings, hints,
                                          closed.out_avals, laid_out, strict=True):
        chosen: Sharding | None = asked if asked is not None else hint
        if chosen is None and isinstance(v, Var) and inputs.get(v) is not None:
            chosen = inputs[v]
        if chosen is None and mesh is not None and mesh.size == 1 and first is not None \
                and first.mesh == mesh and len(first._partitions) <= aval.ndim \
                and closed.in_avals[list(in_shardings).index(first)].ndim == aval.ndim:
            chosen = first
        if chosen is None:
            chosen = laid
        out.append(chosen)
    return tuple(out)


def _split_on(mesh: Mesh, sharding: Sharding | None) -> dict[int, tuple[Hashable, ...]]:
    """How an input is split on `mesh`, whole when it is laid out some other way."""
    split = sharding_propagation.input_split(mesh, sharding)
    return {} if split is None else split


def _divides(sharding: Any, shape: tuple[int, ...]) -> bool:
    try:
        sharding.shard_shape(shape)
    except ValueError:
        return False
    return True


# ---- the per-device program ----------------------------------------------------------------

# Elementwise primitives besides those batched by `batching.vectorized_batch`.
_ELEMENTWISE = frozenset((add_any_p, structural.select_n_p, special.clamp_p))
_REDUCE_ACROSS = {reductions.reduce_sum_p: parallel.psum_p,
                  reductions.reduce_max_p: parallel.pmax_p,
                  reductions.reduce_min_p: parallel.pmin_p}
_REDUCE_LOCAL = frozenset((reductions.reduce_prod_p, reductions.reduce_and_p,
                           reductions.reduce_or_p, reductions.reduce_xor_p,
                           reductions.argmax_p, reductions.argmin_p))
# Primitives that run their own SPMD run: never inside a device's program.
_NESTED_RUNS = frozenset((shard_map_p, xla_pmap_p))


class _Partitioner:
    """Evaluates a jaxpr on one device's blocks (staged by the enclosing trace), tracking how
    each value is split (`AxisNames`; none: every device holds it whole)."""

    def __init__(self, mesh: Mesh) -> None:
        self.mesh = mesh
        self.out_names: list[AxisNames] = []
        # Whole values made by broadcast_in_dim (by id: the value, its operand, params): a
        # device's block of one is broadcast directly rather than cut from the whole.
        self.broadcasts: dict[int, tuple[Any, Any, dict[str, Any]]] = {}

    def run(self, jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any],
            in_names: Sequence[AxisNames]) -> list[Any]:
        outs, names = self.eval(jaxpr, consts, args, in_names)
        self.out_names = names
        return outs

    def eval(self, jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any],
             in_names: Sequence[AxisNames]) -> tuple[list[Any], list[AxisNames]]:
        env: dict[Var, tuple[Any, AxisNames]] = {}
        for v, c in zip(jaxpr.constvars, consts, strict=True):
            env[v] = (c, AxisNames())
        for v, x, n in zip(jaxpr.invars, args, in_names, strict=True):
            env[v] = (x, n)

        def read(a: Any, pending: bool = False) -> tuple[Any, AxisNames]:
            if isinstance(a, Literal):
                return a.val, AxisNames()
            value, names = env[a]
            if type(value) is _PendingSum and not pending:
                value = value.total()
                env[a] = (value, names)
            return value, names

        for eqn in jaxpr.eqns:
            if _passes_sums(eqn, env):
                outs, out_names = self.pending(eqn, [read(a, True) for a in eqn.invars])
            else:
                vals, names = (zip(*[read(a) for a in eqn.invars], strict=True) if eqn.invars
                               else ((), ()))
                outs, out_names = self.eqn(eqn, list(vals), list(names))
            for v, o, n in zip(eqn.outvars, outs, out_names, strict=True):
                env[v] = (o, n)
        results = [read(a) for a in jaxpr.outvars]
        return [r[0] for r in results], [r[1] for r in results]

    def pending(self, eqn: Any, args: list[tuple[Any, AxisNames]]
                ) -> tuple[list[Any], list[AxisNames]]:
        """A linear operation of a sum not yet taken across devices: applied to each device's
        part, the sum taken later (a transposed product then stays a product, which the
        compiler swaps rather than transposing the summed result)."""
        partial = next(v for v, _ in args if type(v) is _PendingSum)
        vals = [v.part if type(v) is _PendingSum else v for v, _ in args]
        out = self.bind(eqn.primitive, vals, eqn.params)[0]
        return [_PendingSum(out, partial.axes)], [AxisNames()]

    def eqn(self, eqn: Any, vals: list[Any], names: list[AxisNames]
            ) -> tuple[list[Any], list[AxisNames]]:
        p: Primitive = eqn.primitive
        if eqn.effects or p in _NESTED_RUNS:
            raise _Unpartitionable()
        if p is custom_jvp_call_p or p is custom_vjp_call_p:
            # Not differentiated here: the call is its function.
            inner: ClosedJaxpr = eqn.params["call_jaxpr"]
            return self.eval(inner.jaxpr, inner.consts, vals, names)
        if p is pjit_p:
            inner = eqn.params["jaxpr"]
            return self.eval(inner.jaxpr, inner.consts, vals, names)
        if p is sharding_constraint_p:
            return _constraint(self, eqn, vals, names)
        if not any(names):
            outs = self.bind(p, vals, eqn.params)
            if p is structural.broadcast_in_dim_p and len(vals) == 1:
                self.broadcasts[id(outs[0])] = (outs[0], vals[0], eqn.params)
            return outs, [AxisNames()] * len(eqn.outvars)
        rule = _RULES.get(p)
        if rule is None and (p.vectorized or p in _ELEMENTWISE):
            rule = _elementwise
        if rule is None and p in _REDUCE_ACROSS:
            rule = _reduction
        if rule is None and p in _REDUCE_LOCAL:
            rule = _local_reduction
        if rule is None:
            raise _Unpartitionable()
        return rule(self, eqn, vals, names)

    @staticmethod
    def bind(p: Primitive, vals: Sequence[Any], params: dict[str, Any]) -> list[Any]:
        out = p.bind(*vals, **params)
        return list(out) if p.multiple_results else [out]

    def local(self, x: Any, names: AxisNames) -> Any:
        """A value every device holds whole, cut to this device's block of a split."""
        made = self.broadcasts.get(id(x))
        if made is not None and made[0] is x:
            operand, params = made[1], made[2]
            dims = params["broadcast_dimensions"]
            shape = list(params["shape"])
            operand_split: dict[int, tuple[Hashable, ...]] = {}
            for d, axes in names:
                if shape[d] == 1:
                    continue
                shape[d] //= block_count(self.mesh, axes)
                if d in dims and get_aval(operand).shape[dims.index(d)] != 1:
                    operand_split[dims.index(d)] = axes
            # The block of a broadcast is the broadcast of the operand's block (itself cut
            # the same way when it is a broadcast too).
            if operand_split:
                operand = self.local(operand, AxisNames.of(operand_split))
            return self.bind(structural.broadcast_in_dim_p, [operand],
                             {**params, "shape": tuple(shape)})[0]
        for d, axes in names:
            size = get_aval(x).shape[d]
            if size == 1:
                continue  # broadcast along the dimension (elementwise operands may be)
            block = size // block_count(self.mesh, axes)
            start = parallel.axis_index(axes if len(axes) > 1 else axes[0]) * block
            x = dynamic_slicing.dynamic_slice_in_dim(x, start, block, d)
        return x


class _PendingSum:
    """Each device's part of a value whose whole is the sum of the parts across `axes`."""

    __slots__ = ("part", "axes", "_total")

    def __init__(self, part: Any, axes: tuple[Hashable, ...]) -> None:
        self.part = part
        self.axes = axes
        self._total: Any = None

    def total(self) -> Any:
        if self._total is None:
            self._total = parallel.psum_p.bind(self.part, axes=self.axes,
                                               axis_index_groups=None)[0]
        return self._total


def _passes_sums(eqn: Any, env: dict[Var, tuple[Any, AxisNames]]) -> bool:
    """Whether `eqn` is linear in an operand that is a pending sum (and in nothing else
    split): a transpose or negation of it, or its product with a scalar every device holds."""
    vals = [env[a] if isinstance(a, Var) else (a.val, AxisNames()) for a in eqn.invars]
    pending = [type(v) is _PendingSum for v, _ in vals]
    if sum(pending) != 1 or eqn.effects:
        return False
    p = eqn.primitive
    if p is structural.transpose_p or p is elementwise.neg_p:
        return True
    if p is elementwise.mul_p:
        (other, names), = [x for x, p in zip(vals, pending, strict=True) if not p]
        return not names and not get_aval(other).shape
    return False


Rule = Callable[[_Partitioner, Any, list[Any], list[AxisNames]],
                tuple[list[Any], list[AxisNames]]]


def _elementwise(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
                 ) -> tuple[list[Any], list[AxisNames]]:
    merged: dict[int, tuple[Hashable, ...]] = {}
    for n in names:
        for d, axes in n:
            if merged.setdefault(d, axes) != axes:
                raise _Unpartitionable()
    used = [a for axes in merged.values() for a in axes]
    if len(used) != len(set(used)):
        raise _Unpartitionable()
    target = AxisNames.of(merged)
    # Operands split along fewer dimensions are cut further to the result's blocks.
    vals = [v if n == target or not get_aval(v).shape else
            part.local(v, AxisNames(p for p in target if p not in n))
            for v, n in zip(vals, names, strict=True)]
    return part.bind(eqn.primitive, vals, eqn.params), [target] * len(eqn.outvars)


def _broadcast_in_dim(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
                      ) -> tuple[list[Any], list[AxisNames]]:
    if any(names[1:]):
        raise _Unpartitionable()
    params = dict(eqn.params)
    dims = params["broadcast_dimensions"]
    shape = list(params["shape"])
    in_shape = eqn.invars[0].aval.shape
    out: dict[int, tuple[Hashable, ...]] = {}
    for d, axes in names[0]:
        if in_shape[d] != shape[dims[d]]:
            raise _Unpartitionable()
        out[dims[d]] = axes
        shape[dims[d]] //= block_count(part.mesh, axes)
    params["shape"] = tuple(shape)
    return part.bind(eqn.primitive, vals, params), [AxisNames.of(out)]


def _transpose(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
               ) -> tuple[list[Any], list[AxisNames]]:
    perm = list(eqn.params["permutation"])
    out = AxisNames.of({perm.index(d): axes for d, axes in names[0]})
    return part.bind(eqn.primitive, vals, eqn.params), [out]


def _reshape(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
             ) -> tuple[list[Any], list[AxisNames]]:
    """A reshape keeps a split along dimension d when the dimensions before d hold as many
    elements before and after, and d's blocks stay whole runs of the new dimension: d kept
    as it is, merged with the dimensions after it, or split with its blocks dividing the
    leading new dimension."""
    params = dict(eqn.params)
    if params.get("dimensions") is not None or any(names[1:]) or not names[0]:
        raise _Unpartitionable()
    # Split along several dimensions: the leading split is kept, the others gathered whole
    # first (JAX 0.4.30 lays the result out by the leading one too).
    (d, axes), *rest = names[0]
    for other, other_axes in rest:
        vals = [parallel.all_gather(vals[0], other_axes, axis=other, tiled=True), *vals[1:]]
    in_shape = eqn.invars[0].aval.shape
    new = list(params["new_sizes"])
    count = block_count(part.mesh, axes)
    before = math.prod(in_shape[:d])
    target = next((j for j in range(len(new) + 1) if math.prod(new[:j]) == before), None)
    if target is None or target == len(new):
        raise _Unpartitionable()
    size = in_shape[d]
    ok = new[target] == size
    ok = ok or any(new[target] == size * math.prod(in_shape[d + 1:k])
                   for k in range(d + 1, len(in_shape) + 1))
    ok = ok or (new[target] % count == 0 and any(
        math.prod(new[target:k]) == size for k in range(target + 1, len(new) + 1)))
    if not ok:
        raise _Unpartitionable()
    new[target] //= count
    params["new_sizes"] = tuple(new)
    return part.bind(eqn.primitive, vals, params), [AxisNames.of({target: axes})]


def _squeeze(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
             ) -> tuple[list[Any], list[AxisNames]]:
    dims = set(eqn.params["dimensions"])
    out = {}
    for d, axes in names[0]:
        if d in dims:
            raise _Unpartitionable()
        out[d - sum(1 for x in dims if x < d)] = axes
    return part.bind(eqn.primitive, vals, eqn.params), [AxisNames.of(out)]


def _reduction(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
               ) -> tuple[list[Any], list[AxisNames]]:
    """A reduction over the split dimension reduces each block, then combines the blocks
    across the devices holding them."""
    reduced = set(eqn.params["axes"])
    out: dict[int, tuple[Hashable, ...]] = {}
    across: list[Hashable] = []
    for d, axes in names[0]:
        if d in reduced:
            across.extend(axes)
        else:
            out[d - sum(1 for x in reduced if x < d)] = axes
    result = part.bind(eqn.primitive, vals, eqn.params)
    if across:
        combine = _REDUCE_ACROSS[eqn.primitive]
        result = combine.bind(*result, axes=tuple(across), axis_index_groups=None)
    return list(result), [AxisNames.of(out)]


def _local_reduction(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
                     ) -> tuple[list[Any], list[AxisNames]]:
    reduced = set(eqn.params["axes"])
    out = {}
    for d, axes in names[0]:
        if d in reduced:
            raise _Unpartitionable()
        out[d - sum(1 for x in reduced if x < d)] = axes
    return (part.bind(eqn.primitive, vals, eqn.params),
            [AxisNames.of(out)] * len(eqn.outvars))


def _dot_general(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
                 ) -> tuple[list[Any], list[AxisNames]]:
    """A product along the split dimension: batched or free, the result is split there;
    contracted, each device's product of its blocks is a partial sum, summed across them. An
    operand every device holds whole is cut to the blocks the split operand pairs with."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = vals
    ln, rn = names
    lhs_ndim = eqn.invars[0].aval.ndim
    rhs_ndim = eqn.invars[1].aval.ndim
    lhs_free = [d for d in range(lhs_ndim) if d not in lc and d not in lb]
    rhs_free = [d for d in range(rhs_ndim) if d not in rc and d not in rb]
    out: dict[int, tuple[Hashable, ...]] = {}
    across: list[Hashable] = []
    # The dimension of the other operand each split dimension pairs with (None: free).
    lhs_split = dict(ln)
    rhs_split = dict(rn)
    for d, axes in ln:
        if d in lc or d in lb:
            other = rc[lc.index(d)] if d in lc else rb[lb.index(d)]
            if rhs_split.get(other, axes) != axes:
                raise _Unpartitionable()
            if other not in rhs_split:
                rhs = part.local(rhs, AxisNames(((other, axes),)))
                rhs_split[other] = axes
            if d in lc:
                across.extend(axes)
            else:
                out[lb.index(d)] = axes
        else:
            out[len(lb) + lhs_free.index(d)] = axes
    for d, axes in rn:
        if d in rc or d in rb:
            other = lc[rc.index(d)] if d in rc else lb[rb.index(d)]
            if other not in lhs_split:
                if lhs_split:
                    raise _Unpartitionable()
                lhs = part.local(lhs, AxisNames(((other, axes),)))
                if d in rc:
                    across.extend(axes)
                else:
                    out[rb.index(d)] = axes
            elif lhs_split[other] != axes:
                raise _Unpartitionable()
        else:
            out[len(lb) + len(lhs_free) + rhs_free.index(d)] = axes
    used = [a for axes in out.values() for a in axes] + across
    if len(used) != len(set(used)):
        raise _Unpartitionable()  # one mesh axis splitting two dimensions of the result
    result = part.bind(eqn.primitive, [lhs, rhs], eqn.params)
    if across and not out:
        # Summed across the devices when first read by an operation that is not linear.
        return [_PendingSum(result[0], tuple(across))], [AxisNames()]
    if across:
        result = parallel.psum_p.bind(*result, axes=tuple(across), axis_index_groups=None)
    return list(result), [AxisNames.of(out)]


def _constraint(part: _Partitioner, eqn: Any, vals: list[Any], names: list[AxisNames]
                ) -> tuple[list[Any], list[AxisNames]]:
    """A layout request: a value every device holds whole is cut into the blocks asked for
    (what follows runs on them); a split value stays as it is."""
    sharding = eqn.params["sharding"]
    aval = eqn.invars[0].aval
    if names[0] or not (isinstance(sharding, NamedSharding) and sharding.mesh == part.mesh
                        and _divides(sharding, aval.shape)):
        return vals, names
    want = AxisNames.of({d: axes for d, axes in enumerate(sharding._partitions) if axes})
    if not want or not aval.shape:
        return vals, names
    return [part.local(vals[0], want)], [want]


_RULES: dict[Primitive, Rule] = {
    structural.broadcast_in_dim_p: _broadcast_in_dim,
    structural.transpose_p: _transpose,
    structural.reshape_p: _reshape,
    structural.squeeze_p: _squeeze,
    dot.dot_general_p: _dot_general,
}


# ---- jit's sharding options ----------------------------------------------------------------


class Shardings(NamedTuple):
    """A jitted program's flat input shardings (asked for or the arguments'; None: whole and
    uncommitted) and the output shardings asked for (None: not asked)."""

    ins: tuple[Sharding | None, ...]
    outs: tuple[Sharding | None, ...]


def _leaves(tree: Any) -> list[Any]:
    return tree_flatten(tree, is_leaf=lambda x: x is None)[0]


def check_sharding_options(in_shardings: Any, out_shardings: Any) -> None:
    """JAX's errors for jit options that are not Shardings."""
    if any(isinstance(s, PartitionSpec) for s in _leaves(in_shardings)):
        raise RuntimeError(
            "jax.jit only supports `Sharding`s being passed to in_shardings. Looks like you are "
            "passing either `PartitionSpec` or `None` which is not allowed in jax.jit.\nNote "
            "that in_shardings argument is optional. JAX will infer the shardings from the "
            "input jax.Array's and will default to replicating the input if the sharding "
            "cannot be inferred.")
    if any(isinstance(s, PartitionSpec) for s in _leaves(out_shardings)):
        raise RuntimeError(
            "jax.jit only supports `Sharding`s being passed to out_shardings. Looks like you "
            "are passing either `PartitionSpec` or `None` which is not allowed in jax.jit.\n"
            "Note that out_shardings is optional. If not specified, jax.jit will use GSPMD's "
            "sharding propagation to figure out what the sharding of the output(s) should be.")


def argument_placements(flat_args: Sequence[Any]) -> tuple[Any, ...] | None:
    """Where each argument is when any is split across devices (its sharding; a committed
    device; None), else None: part of a sharded call's cache key."""
    if not any(type(x) is ArrayImpl and getattr(x, "_sharding", None) is not None
               for x in flat_args):
        return None
    return tuple((getattr(x, "_sharding", None) or (x._device if x._committed else None))
                 if type(x) is ArrayImpl else None for x in flat_args)


def _broadcast(specs: Any, tree: Any, what: str) -> list[Any]:
    """The spec (None-as-leaf prefix `specs` of `tree`) of each leaf of `tree`."""
    structure = tree_structure(specs, is_leaf=lambda x: x is None)
    try:
        subtrees = structure.flatten_up_to(tree)
    except (ValueError, TypeError):
        raise prefix_error(specs, tree, what) from None
    out: list[Any] = []
    for spec, sub in zip(_leaves(specs), subtrees, strict=True):
        out.extend([spec] * len(tree_flatten(sub)[0]))
    return out


def resolve_shardings(in_shardings: Any, out_shardings: Any, call: Any, closed: ClosedJaxpr,
                      out_tree: Any, names: Sequence[str], fun_name: str,
                      n_positional: int) -> Shardings:
    """Each input's and output's sharding, with JAX's errors for shardings that do not fit
    their values or disagree with the arguments'."""
    flat_args = call.flat_args
    n = len(flat_args)
    asked: list[Any] = [None] * n
    if in_shardings is not None:
        dyn_args, _ = tree_unflatten(call.in_tree, list(range(n)))
        if isinstance(in_shardings, tuple | list) and len(in_shardings) != len(dyn_args):
            raise ValueError(
                "pjit in_shardings specification must be a tree prefix of the positional "
                "arguments tuple passed to the `pjit`-decorated function. In particular, pjit "
                "in_shardings must either be a None, a PartitionSpec, or a tuple of length "
                "equal to the number of positional arguments. But pjit in_shardings is the "
                f"wrong length: got a tuple or list of length {len(in_shardings)} for an args "
                f"tuple of length {len(dyn_args)}.")
        specs = in_shardings if isinstance(in_shardings, tuple | list) else \
            (in_shardings,) * len(dyn_args)
        per_leaf = _broadcast(tuple(specs), tuple(dyn_args), "pjit in_shardings")
        for i, s in zip(_leaves(tuple(dyn_args)), per_leaf, strict=True):
            asked[i] = s
    ins: list[Sharding | None] = []
    for i, (x, s, aval) in enumerate(zip(flat_args, asked, call.avals, strict=True)):
        name = names[i] if i < len(names) else f"args[{i}]"
        held = getattr(x, "_sharding", None) if type(x) is ArrayImpl else None
        if s is not None:
            if isinstance(s, TiledSharding):
                check_shape(s, aval.shape, f"pjit arguments with pytree key path {name}")
            if held is not None and held != s and not s.is_equivalent_to(held, aval.ndim):
                raise ValueError(
                    "Sharding passed to pjit does not match the sharding on the respective "
                    f"arg. Got pjit sharding: {s},\narg sharding: {held} for arg shape: "
                    f"{aval.str_short()}")
            device = placement.committed_device(x)
            if device is not None and is_multi_device(s):
                ids = [d.id for d in s._device_assignment]
                raise ValueError(
                    "Received incompatible devices for jitted computation. Got "
                    f"{placement._describe(flat_args, names, i, fun_name)} and explicit input "
                    f"sharding with device ids {ids} on platform "
                    f"{s._device_assignment[0].platform.upper()}")
            ins.append(s)
        else:
            ins.append(held)
    _check_same_devices(flat_args, ins, names, fun_name)
    outs: list[Sharding | None] = [None] * len(closed.out_avals)
    if out_shardings is not None:
        dummy = tree_unflatten(out_tree, list(range(out_tree.num_leaves)))
        specs_out = out_shardings if isinstance(out_shardings, tuple | list) and \
            isinstance(dummy, tuple | list) else out_shardings
        outs = list(_broadcast(specs_out, dummy, "pjit out_shardings"))
        for s, aval in zip(outs, closed.out_avals, strict=True):
            if isinstance(s, TiledSharding):
                check_shape(s, aval.shape, "pjit outputs")
    return Shardings(tuple(ins), tuple(outs))


def _check_same_devices(flat_args: Sequence[Any], ins: Sequence[Sharding | None],
                        names: Sequence[str], fun_name: str) -> None:
    """JAX's error for arguments on different devices: split over other devices (or in
    another order), or committed to one device beside split ones."""
    first = -1
    for i, (x, s) in enumerate(zip(flat_args, ins, strict=True)):
        devices = tuple(s._device_assignment) if s is not None and is_multi_device(s) else None
        if devices is None:
            device = placement.committed_device(x)
            devices = (device,) if device is not None else None
        if devices is None:
            continue
        if first < 0:
            first, first_devices = i, devices
        elif devices != first_devices:
            raise ValueError(
                "Received incompatible devices for jitted computation. Got "
                f"{placement._describe(flat_args, names, first, fun_name)} and "
                f"{placement._describe(flat_args, names, i, fun_name)}")

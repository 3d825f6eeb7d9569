"""How a jitted program's outputs are split when nothing asks for a layout: each value's split
(`AxisNames`, `{dim: mesh axes}`) follows from its operands' by one rule per kind of
primitive, as JAX 0.4.30's partitioner propagates shardings through the program.

This decides layouts only, never how a program runs (`sharded_jit` does that): an operation
that needs other devices' blocks (a cumsum or sort along the split, a product contracting it)
still keeps its operand's layout here, as it does in JAX, whose partitioner moves the data
rather than the layout. The rules, checked against JAX in tests/api/test_sharding_propagation.py:

- elementwise operations and concatenate: the first operand's split, then each dimension
  another operand splits along a mesh axis not yet used;
- operations giving a value laid out like their operand (cumulative reductions, scatters,
  dynamic_update_slice, pad, window reductions, slices with unit strides, dynamic slices at
  constant places): the operand's split; a strided slice loses the split of the strided
  dimensions; a dynamic slice at places computed by the program that cuts a split dimension
  is whole; a sort of a value split along more than one dimension is whole;
- broadcast_in_dim, transpose, squeeze, reductions: the split carried to the dimensions
  they map to, reduced and squeezed dimensions dropped;
- dot_general: batch dimensions split as either operand's, then the free dimensions of the
  left and of the right operand; contracted dimensions drop out;
- gather: the operand's split on the dimensions taken whole, the indices' on the others;
- conv_general_dilated: batch and spatial dimensions as the input's, output features as the
  kernel's;
- reshape: a dimension's split carried to the leading dimensions it becomes when it is the
  leading part of its group (see `_reshape`);
- calls: their body's; cond: its branches' where they agree; while and scan: the state as
  it enters, less what an iteration changes (a scan's xs and ys without their scanned
  leading dimension; xs split along it are whole); with_sharding_constraint: its sharding;
  shard_map: its out_specs; anything else (constants, linear algebra, FFTs): whole.

Each rule is its primitive's `sharding_rule(eqn, operand splits, mesh, propagate)`, where
`propagate(closed_jaxpr, splits)` gives a body's result splits. This module sets the rules of
lax's primitives and of the calls in one table (they share its helpers, and lax sits below
this layer); cond, while and scan set theirs in control_flow/, next to their other rules.

An output whose split does not divide its shape is laid out whole (`output_names`), as jit
lays out JAX's outputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np

from numjax._src.api.checkpoint import checkpoint_p
from numjax._src.api.closed_call import closed_call_p
from numjax._src.api.custom_primitives import custom_jvp_call_p, custom_vjp_call_p
from numjax._src.api.pjit import pjit_p
from numjax._src.api.shard_map_p import AxisNames, shard_map_p, spec_of_names
from numjax._src.api.sharding_constraint import sharding_constraint_p
from numjax._src.compiler import passes
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var
from numjax._src.core.trace import Primitive
from numjax._src.interpreters.ad import add_any_p
from numjax._src.lax import (
    convolution,
    cumulative,
    dot,
    dynamic_slicing,
    gather_scatter,
    padding,
    reductions,
    sorting,
    special,
    windowed,
)
from numjax._src.lax import structural as st
from numjax._src.runtime.gspmd_sharding import GSPMDSharding
from numjax._src.runtime.mesh import Mesh
from numjax._src.runtime.named_sharding import NamedSharding
from numjax._src.runtime.sharding import Sharding

Split = dict[int, tuple[Hashable, ...]]
Propagate = Callable[[ClosedJaxpr, list[Split]], list[Split]]
Rule = Callable[[Any, list[Split], Mesh, Propagate], list[Split]]


def output_shardings(closed: ClosedJaxpr, in_splits: Sequence[Split], mesh: Mesh, *,
                     named: bool = True) -> list[Sharding]:
    """Each output's sharding given the inputs' splits (`{}`: whole), as JAX lays it out: a
    `NamedSharding` of `mesh` when `named` (an input is one) and mesh axes describe it, else
    a `GSPMDSharding` of its tiles."""
    # XLA merges identical computations before it partitions, so equal constants made twice
    # are one value whose uses agree on its layout.
    closed = passes.cse(closed)
    outs = _eval_both_ways(closed.jaxpr, [{}] * len(closed.consts),
                           [dict(s) for s in in_splits], mesh)
    return [layout_sharding(mesh, s if _divides(s, aval.shape, mesh) else {}, aval.ndim,
                            named=named)
            for s, aval in zip(outs, closed.out_avals, strict=True)]


def layout_sharding(mesh: Mesh, split: Split, ndim: int, *, named: bool = True) -> Sharding:
    """The sharding of a rank-`ndim` value split as `split` on `mesh`."""
    split = {d: _normalized(mesh, axes) for d, axes in split.items()}
    split = {d: axes for d, axes in split.items() if axes}
    plain = all(not isinstance(a, Part) or _whole_axis(mesh, a)
                for axes in split.values() for a in axes)
    if named and plain:
        names = {d: tuple(a.name if isinstance(a, Part) else a for a in axes)
                 for d, axes in split.items()}
        return NamedSharding(mesh, spec_of_names(AxisNames.of(names), ndim))
    sharding = _tiles_sharding(mesh, split, ndim)
    sharding._listed = any(isinstance(a, Part) and a.listed
                           for axes in split.values() for a in axes)
    sharding.layout = (mesh, split)
    return sharding


def input_split(mesh: Mesh, sharding: Any) -> Split | None:
    """How an input laid out by `sharding` is split on `mesh` (None: not a layout of it)."""
    if isinstance(sharding, NamedSharding) and sharding.mesh == mesh:
        return {d: axes for d, axes in enumerate(sharding._partitions) if axes}
    if isinstance(sharding, GSPMDSharding) and sharding.layout is not None \
            and sharding.layout[0] == mesh:
        return dict(sharding.layout[1])
    return None


def _divides(split: Split, shape: tuple[int, ...], mesh: Mesh) -> bool:
    return all(shape[d] % _count(mesh, axes) == 0 for d, axes in split.items())


class Part(NamedTuple):
    """A factor of a mesh axis in a split: the axis `name` cut major to minor into `pre` x
    `size` x the rest, this the `size` in the middle (its coordinate
    `(c // rest) % size`), with its blocks in reverse order when `reversed`. JAX's partitioner
    makes such splits where a reshape cuts a mesh axis between two new dimensions, or a flip
    reverses a split dimension; a split made of whole axes in order is written by names."""

    name: Hashable
    pre: int
    size: int
    reversed: bool = False
    # Ever reversed: XLA then lists the devices of the tile assignment one by one, even where
    # they come back in order (a flip of a flipped value).
    listed: bool = False


def _parts(mesh: Mesh, axes: Sequence[Any]) -> list[Part]:
    return [a if isinstance(a, Part) else Part(a, 1, mesh.shape[a]) for a in axes]


def _count(mesh: Mesh, axes: Sequence[Any]) -> int:
    return math.prod(p.size for p in _parts(mesh, axes))


def _names(axes: Sequence[Any]) -> set[Hashable]:
    """The mesh axes a split uses any part of."""
    return {a.name if isinstance(a, Part) else a for a in axes}


def _normalized(mesh: Mesh, axes: Sequence[Any]) -> tuple[Any, ...]:
    """`axes` with adjacent parts of one axis merged, parts of size 1 dropped and whole axes
    in order written by name."""
    merged: list[Part] = []
    for p in _parts(mesh, axes):
        if p.size == 1:
            continue
        last = merged[-1] if merged else None
        if last is not None and last.name == p.name and last.reversed == p.reversed \
                and last.pre * last.size == p.pre:
            merged[-1] = last._replace(size=last.size * p.size,
                                       listed=last.listed or p.listed)
        else:
            merged.append(p)
    return tuple(p.name if _whole_axis(mesh, p) and not p.listed else p for p in merged)


def _whole_axis(mesh: Mesh, p: Part) -> bool:
    return p.pre == 1 and p.size == mesh.shape[p.name] and not p.reversed


def _replicated_parts(mesh: Mesh, split: Split) -> list[Part]:
    """The parts of the mesh's axes no dimension is split by, in mesh order."""
    used: dict[Hashable, list[Part]] = {}
    for axes in split.values():
        for p in _parts(mesh, axes):
            used.setdefault(p.name, []).append(p)
    out = []
    for name, n in mesh.shape.items():
        at = 1
        for p in sorted(used.get(name, []), key=lambda p: p.pre):
            if p.pre > at:
                out.append(Part(name, at, p.pre // at))
            at = p.pre * p.size
        if at < n:
            out.append(Part(name, at, n // at))
    return out


def _tiles_sharding(mesh: Mesh, split: Split, ndim: int) -> GSPMDSharding:
    """The GSPMDSharding putting each device's tile where `split` does."""
    position = {name: i for i, name in enumerate(mesh.axis_names)}
    sizes = mesh.shape
    tiles = [_count(mesh, split.get(d, ())) for d in range(ndim)]
    groups: dict[tuple[int, ...], list[int]] = {}
    for pos, mesh_index in enumerate(np.ndindex(*mesh.devices.shape)):
        coord = []
        for d in range(ndim):
            c = 0
            for p in _parts(mesh, split.get(d, ())):
                n = sizes[p.name]
                digit = (mesh_index[position[p.name]] // (n // (p.pre * p.size))) % p.size
                c = c * p.size + (p.size - 1 - digit if p.reversed else digit)
            coord.append(c)
        groups.setdefault(tuple(coord), []).append(pos)
    devices = mesh._flat_devices_tuple
    replicas = mesh.size // math.prod(tiles)
    assignment = np.empty((*tiles, replicas), dtype=np.int64)
    for tile, positions in groups.items():
        assignment[tile] = positions
    return GSPMDSharding(devices, assignment, last_tile_dim_replicate=True)


def _eval_both_ways(jaxpr: Jaxpr, consts: list[Split], args: list[Split], mesh: Mesh
                    ) -> list[Split]:
    """Splits carried forward, and backward into values computed from constants alone: such a
    value (whole on its way forward) takes the split its first use gives it, as JAX's
    partitioner lays out an unannotated value as a use suggests, and that split is carried
    forward to its other uses. A dense layer's weights made in the program, `w`, are split as
    the contraction of `x @ w` with a split x asks, and so is the backward product `g @ w.T`."""
    pinned: dict[Any, Split] = {}
    for _ in range(4):  # each round can give the next constants' uses a split
        env = _run(jaxpr, consts, args, mesh, pinned)
        found = {v: split for v, split in _suggestions(jaxpr, env).items() if v not in pinned}
        if not found:
            break
        pinned.update(found)
    return [{} if isinstance(a, Literal) else env.get(a, {}) for a in jaxpr.outvars]


def _suggestions(jaxpr: Jaxpr, env: dict[Any, Split]) -> dict[Any, Split]:
    """The split the first use of each whole value made from constants alone gives it: an
    elementwise operation's result's, or for a product's operand, the split of the other
    operand's dimensions it is contracted or batched with."""
    constant = set(jaxpr.constvars)
    out: dict[Any, Split] = {}
    for eqn in jaxpr.eqns:
        if not eqn.effects and all(isinstance(a, Literal) or a in constant
                                   for a in eqn.invars) and eqn.primitive not in _MAKES_SPLITS:
            constant.update(eqn.outvars)
            continue
        for i, a in enumerate(eqn.invars):
            if not isinstance(a, Var) or a not in constant or env.get(a) or a in out:
                continue
            split = _use_split(eqn, i, env)
            if split:
                out[a] = split
    return out


def _use_split(eqn: Any, i: int, env: dict[Any, Split]) -> Split:
    """The split operand i of `eqn` would need to line up with the equation's other values."""
    if eqn.primitive is dot.dot_general_p:
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        mine, theirs = ((lc, lb), (rc, rb)) if i == 0 else ((rc, rb), (lc, lb))
        other = env.get(eqn.invars[1 - i], {}) if isinstance(eqn.invars[1 - i], Var) else {}
        pairs = zip((*mine[0], *mine[1]), (*theirs[0], *theirs[1]), strict=True)
        return {d: other[o] for d, o in pairs if o in other}
    if _rule_for(eqn) is _elementwise and eqn.invars[i].aval.shape == eqn.outvars[0].aval.shape:
        return dict(env.get(eqn.outvars[0], {}))
    return {}


def _eval(jaxpr: Jaxpr, consts: list[Split], args: list[Split], mesh: Mesh) -> list[Split]:
    env = _run(jaxpr, consts, args, mesh, {})
    return [{} if isinstance(a, Literal) else env.get(a, {}) for a in jaxpr.outvars]


def _run(jaxpr: Jaxpr, consts: list[Split], args: list[Split], mesh: Mesh,
         pinned: dict[Any, Split]) -> dict[Any, Split]:
    """Each value's split carried forward from the inputs' (a value in `pinned` that comes
    out whole takes the split given there)."""
    env: dict[Any, Split] = {}
    for v, s in zip(jaxpr.constvars, consts, strict=True):
        env[v] = s
    for v, s in zip(jaxpr.invars, args, strict=True):
        env[v] = s

    def read(a: Any) -> Split:
        return {} if isinstance(a, Literal) else env.get(a, {})

    def propagate(closed: ClosedJaxpr, ins: list[Split]) -> list[Split]:
        return _eval(closed.jaxpr, [{}] * len(closed.consts), ins, mesh)

    # Values reshaped from a split value whose split their own layout loses (a flattening of
    # a value split after its first dimension), with that value's shape and split: a reshape
    # back gives the split again. jnp's `.at[]` updates scatter into the flattened value and
    # reshape back, where JAX's scatter keeps the operand's shape and split.
    views: dict[Any, tuple[tuple[int, ...], Split]] = {}
    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = (_rule_for(eqn)(eqn, ins, mesh, propagate)
                if any(ins) or eqn.primitive in _MAKES_SPLITS else [])
        outs = outs or [{}] * len(eqn.outvars)
        view = views.get(eqn.invars[0]) if eqn.invars and isinstance(eqn.invars[0], Var) \
            else None
        if eqn.primitive is st.reshape_p and eqn.params.get("dimensions") is None:
            if view is not None and tuple(eqn.params["new_sizes"]) == view[0]:
                outs = [dict(view[1])]
            elif view is None and _blocks(mesh, outs[0]) < _blocks(mesh, ins[0]):
                view = (eqn.invars[0].aval.shape, ins[0])
            if view is not None:
                views[eqn.outvars[0]] = view
        elif view is not None and eqn.primitive in _KEEPS_VIEW:
            views[eqn.outvars[0]] = view
        for v, s in zip(eqn.outvars, outs, strict=True):
            env[v] = s or pinned.get(v, s)
    return env


def _blocks(mesh: Mesh, split: Split) -> int:
    return math.prod(_count(mesh, axes) for axes in split.values())


def _ndim(a: Any) -> int:
    return len(a.aval.shape)


def _merge(splits: Sequence[Split], ndim: int) -> Split:
    """The first operand's split, then the dimensions later ones split along mesh axes not
    yet used (as JAX's partitioner prefers the first operand's layout)."""
    out: Split = {}
    used: set[Hashable] = set()
    for s in splits:
        for d, axes in sorted(s.items()):
            if d < ndim and d not in out and not used.intersection(_names(axes)):
                out[d] = axes
                used.update(_names(axes))
    return out


def _elementwise(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    ndim = _ndim(eqn.outvars[0])
    same = [s for s, a in zip(ins, eqn.invars, strict=True) if _ndim(a) == ndim]
    return [_merge(same, ndim)] * len(eqn.outvars)


def _like_operand(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    return [dict(ins[0])] * len(eqn.outvars)


def _sort(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    # JAX's sort partitioner gathers a value split along several dimensions whole.
    merged = _merge(ins, _ndim(eqn.outvars[0]))
    return [merged if len(merged) <= 1 else {}] * len(eqn.outvars)


def _slice(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    strides = eqn.params.get("strides") or (1,) * _ndim(eqn.invars[0])
    return [{d: axes for d, axes in ins[0].items() if strides[d] == 1}]


def _dynamic_slice(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    # At constant places a dynamic slice is a slice (XLA folds it into one before laying the
    # program out), keeping every split. At places computed when the program runs, JAX's
    # partitioner carries no layout through it once it cuts a split dimension, so the result
    # is whole, even along dimensions it takes entire (a (8, 8) value split P('x', 'y') cut
    # to rows [i, i + 4) is P()).
    if all(isinstance(s, Literal) for s in eqn.invars[1:]):
        return [dict(ins[0])]
    sizes = eqn.params["slice_sizes"]
    in_shape = eqn.invars[0].aval.shape
    cuts_split = any(sizes[d] != in_shape[d] for d in ins[0])
    return [{} if cuts_split else dict(ins[0])]


def _broadcast_in_dim(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    dims = eqn.params["broadcast_dimensions"]
    shape = eqn.params["shape"]
    in_shape = eqn.invars[0].aval.shape
    return [{dims[d]: axes for d, axes in ins[0].items() if in_shape[d] == shape[dims[d]]}]


def _transpose(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    perm = list(eqn.params["permutation"])
    return [{perm.index(d): axes for d, axes in ins[0].items()}]


def _dropping(dims: Sequence[int], split: Split) -> Split:
    gone = set(dims)
    return {d - sum(1 for g in gone if g < d): axes for d, axes in split.items()
            if d not in gone}


def _squeeze(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    """Squeezed dimensions drop out. One split across devices (a one-row slice of a split
    value) keeps the devices in the order the operand's tiles list them, which is cut again
    among the remaining dimensions, each taking as many blocks as it had; what is left holds
    replicas. That is JAX's partitioner's layout: x[0] of a value split P('x', 'y') on a
    (2, 4) mesh is split by 'x' and the major half of 'y' (4 blocks, 2 replicas each)."""
    dims = eqn.params["dimensions"]
    split = ins[0]
    if not any(d in split for d in dims):
        return [_dropping(dims, split)]
    ndim = _ndim(eqn.invars[0])
    order = [p for d in range(ndim) for p in _parts(mesh, split.get(d, ()))]
    order += _replicated_parts(mesh, split)
    out: Split = {}
    for j, d in enumerate(d for d in range(ndim) if d not in dims):
        taken = _take(order, _count(mesh, split.get(d, ())))
        if taken is None:
            return [{}]
        if taken:
            out[j] = tuple(taken)
    return [out]


def _take(order: list[Part], n: int) -> list[Part] | None:
    """The leading parts of `order` making `n` blocks (removed from it; a part cut in two
    when needed), None when they cannot."""
    taken: list[Part] = []
    while n > 1 and order:
        p = order[0]
        if n % p.size == 0:
            taken.append(order.pop(0))
            n //= p.size
        elif p.size % n == 0:
            taken.append(p._replace(size=n))
            order[0] = p._replace(pre=p.pre * n, size=p.size // n)
            n = 1
        else:
            return None
    return taken if n == 1 else None


def _rev(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    """A reversed split dimension keeps its blocks where they are, each reversed in place:
    the device holding block i now holds the reversal of that block, which is block n-1-i of
    the result (each of its axes' coordinates reversed)."""
    dims = set(eqn.params["dimensions"])
    return [{d: tuple(p._replace(reversed=not p.reversed, listed=True)
                      for p in _parts(mesh, axes))
             if d in dims else axes for d, axes in ins[0].items()}]


def _reduction(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    return [_dropping(eqn.params["axes"], ins[0])] * len(eqn.outvars)


def _dot_general(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    ls, rs = ins
    lhs_free = [d for d in range(_ndim(eqn.invars[0])) if d not in lc and d not in lb]
    rhs_free = [d for d in range(_ndim(eqn.invars[1])) if d not in rc and d not in rb]
    # The result's dimensions in order, each with the operand dimensions it comes from.
    sources = [[(ls, a), (rs, b)] for a, b in zip(lb, rb, strict=True)]
    sources += [[(ls, d)] for d in lhs_free] + [[(rs, d)] for d in rhs_free]
    out: Split = {}
    used: set[Hashable] = set()
    for i, candidates in enumerate(sources):
        for split, d in candidates:
            axes = split.get(d)
            if axes and not used.intersection(_names(axes)):
                out[i] = axes
                used.update(_names(axes))
                break
    return [out]


def _conv(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    """The batch and spatial dimensions split as the input's (each device's window reaching
    into its neighbours' blocks), the output features as the kernel's."""
    if eqn.params["feature_group_count"] != 1 or eqn.params["batch_group_count"] != 1:
        return [{}]
    lhs_spec, rhs_spec, out_spec = eqn.params["dimension_numbers"]
    lhs, rhs = ins
    sources = [(lhs, lhs_spec[0]), (rhs, rhs_spec[0])]
    sources += [(lhs, d) for d in lhs_spec[2:]]
    out: Split = {}
    used: set[Hashable] = set()
    for out_d, (split, d) in zip(out_spec, sources, strict=True):
        axes = split.get(d)
        if axes and not used.intersection(_names(axes)):
            out[out_d] = axes
            used.update(_names(axes))
    return [out]


def _gather(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    dnums = eqn.params["dimension_numbers"]
    slice_sizes = eqn.params["slice_sizes"]
    operand, indices = ins
    in_shape = eqn.invars[0].aval.shape
    out_ndim = _ndim(eqn.outvars[0])
    offset_dims = list(dnums.offset_dims)
    kept = [d for d in range(len(in_shape)) if d not in dnums.collapsed_slice_dims]
    batch_dims = [d for d in range(out_ndim) if d not in offset_dims]
    index_dims = [d for d in range(_ndim(eqn.invars[1])) if d != _ndim(eqn.invars[1]) - 1]
    by_dim: list[tuple[Split, int] | None] = [None] * out_ndim
    for out_d, d in zip(offset_dims, kept, strict=True):
        if slice_sizes[d] == in_shape[d]:  # taken whole: its blocks stay where they are
            by_dim[out_d] = (operand, d)
    for out_d, d in zip(batch_dims, index_dims, strict=True):
        by_dim[out_d] = (indices, d)
    out: Split = {}
    used: set[Hashable] = set()
    for i, source in enumerate(by_dim):
        axes = source[0].get(source[1]) if source is not None else None
        if axes and not used.intersection(_names(axes)):
            out[i] = axes
            used.update(_names(axes))
    return [out]


def _reshape(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    """A split dimension keeps its split when the dimensions before it hold as many elements
    before and after the reshape (it is the leading part of the new dimensions it becomes):
    its mesh axes, major first, split the new dimensions from the first on, each new
    dimension cut into as many blocks as the part of it that comes from the split dimension
    holds before the next takes the rest; an axis with more blocks than that is cut in two,
    its major part splitting one new dimension, its minor part the next (as JAX's
    partitioner does: a GSPMDSharding). A split dimension merged behind others, or axes that
    cannot cut the new dimensions that way, are laid out whole."""
    if eqn.params.get("dimensions") is not None:
        return [{}]
    in_shape = eqn.invars[0].aval.shape
    new = eqn.params["new_sizes"]
    if 0 in in_shape:
        return [{}]
    out: Split = {}
    for d, axes in ins[0].items():
        before = math.prod(in_shape[:d])
        t = next((j for j in range(len(new)) if math.prod(new[:j]) == before and new[j] > 1),
                 None)
        if t is None:
            continue
        cut = _cut(mesh, _parts(mesh, axes), new[t:])
        if cut is not None:
            out.update({t + j: tuple(c) for j, c in enumerate(cut) if c})
    return [out]


def _cut(mesh: Mesh, parts: list[Part], new: Sequence[int]) -> list[list[Part]] | None:
    """The parts splitting each of the new dimensions `new` the split dimension becomes the
    leading part of (None: they cannot). Each block of the dimension is a run of whole rows
    of the value, and so is each block of the new dimensions cut this way (the dimensions
    before them hold as many elements), so they are the same blocks."""
    cuts: list[list[Part]] = [[]]
    t = 0
    left = new[0]  # blocks the current new dimension can still be cut into
    i = 0
    while i < len(parts):
        p = parts[i]
        while left == 1:  # cut into single rows: the next part cuts the next new dimension
            if t + 1 == len(new):
                return None
            t += 1
            left = new[t]
            cuts.append([])
        if left % p.size == 0:
            cuts[t].append(p)
            left //= p.size
            i += 1
        elif p.size % left == 0:
            cuts[t].append(p._replace(size=left))
            parts[i] = p._replace(pre=p.pre * left, size=p.size // left)
            left = 1
        else:
            return None
    return cuts


def _constraint(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    sharding = eqn.params["sharding"]
    if isinstance(sharding, NamedSharding) and sharding.mesh == mesh:
        return [{d: axes for d, axes in enumerate(sharding._partitions) if axes}]
    return [dict(ins[0])]


def _shard_map(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    if eqn.params["mesh"] != mesh:
        return []
    return [n.as_dict() for n in eqn.params["out_names"]]


def _call(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    inner = next(eqn.params[k] for k in _CALL_PARAMS if k in eqn.params)
    if isinstance(inner, ClosedJaxpr):
        return _eval(inner.jaxpr, [{}] * len(inner.consts), ins, mesh)
    return _eval(inner, [], ins, mesh)


_CALL_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")
_CALLS = (pjit_p, closed_call_p, custom_jvp_call_p, custom_vjp_call_p, checkpoint_p)
# Equations that can give a split value without split operands.
_MAKES_SPLITS = frozenset((*_CALLS, sharding_constraint_p, shard_map_p))

_RULES: dict[Primitive, Rule] = {
    st.broadcast_in_dim_p: _broadcast_in_dim,
    st.transpose_p: _transpose,
    st.squeeze_p: _squeeze,
    st.rev_p: _rev,
    st.reshape_p: _reshape,
    st.slice_p: _slice,
    dot.dot_general_p: _dot_general,
    gather_scatter.gather_p: _gather,
    convolution.conv_general_dilated_p: _conv,
    sorting.sort_p: _sort,
    sharding_constraint_p: _constraint,
    shard_map_p: _shard_map,
    **dict.fromkeys((add_any_p, st.select_n_p, special.clamp_p, st.concatenate_p),
                    _elementwise),
    **dict.fromkeys((
        cumulative.cumsum_p, cumulative.cumprod_p, cumulative.cummax_p, cumulative.cummin_p,
        cumulative.cumlogsumexp_p, padding.pad_p, gather_scatter.scatter_p,
        gather_scatter.scatter_add_p, gather_scatter.scatter_mul_p,
        gather_scatter.scatter_min_p, gather_scatter.scatter_max_p,
        dynamic_slicing.dynamic_update_slice_p, windowed.reduce_window_p,
        windowed.reduce_window_sum_p, windowed.reduce_window_max_p,
        windowed.reduce_window_min_p), _like_operand),
    dynamic_slicing.dynamic_slice_p: _dynamic_slice,
    **dict.fromkeys((
        reductions.reduce_sum_p, reductions.reduce_max_p, reductions.reduce_min_p,
        reductions.reduce_prod_p, reductions.reduce_and_p, reductions.reduce_or_p,
        reductions.reduce_xor_p, reductions.argmax_p, reductions.argmin_p), _reduction),
    **dict.fromkeys(_CALLS, _call),
}
for _p, _rule in _RULES.items():
    _p.sharding_rule = _rule
del _p, _rule


# The scatters `.at[]` updates make of the flattened value.
_KEEPS_VIEW = frozenset((gather_scatter.scatter_p, gather_scatter.scatter_add_p,
                         gather_scatter.scatter_mul_p, gather_scatter.scatter_min_p,
                         gather_scatter.scatter_max_p))


def _whole(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    return []


def _rule_for(eqn: Any) -> Rule:
    rule = eqn.primitive.sharding_rule
    if rule is not None:
        return rule
    if eqn.primitive.vectorized:
        return _elementwise
    return _whole

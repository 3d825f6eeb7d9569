"""How a jitted program's outputs are split when nothing asks for a layout: each value's split
(`AxisNames`, `{dim: mesh axes}`) follows from its operands' by one rule per kind of
primitive, as JAX 0.4.30's partitioner propagates shardings through the program.

This decides layouts only, never how a program runs (`sharded_jit` does that): an operation
that needs other devices' blocks (a cumsum or sort along the split, a product contracting it)
still keeps its operand's layout here, as it does in JAX, whose partitioner moves the data
rather than the layout. The rules, checked against JAX in tests/test_sharding_propagation.py:

- elementwise operations and concatenate: the first operand's split, then each dimension
  another operand splits along a mesh axis not yet used;
- operations giving a value laid out like their operand (cumulative reductions, scatters,
  dynamic_update_slice, pad, window reductions, slices with unit strides, dynamic slices at
  constant places): the operand's split; a strided slice loses the split of the strided
  dimensions, a dynamic slice that of the dimensions it cuts at places computed by the
  program; a sort of a value split along more than one dimension is whole;
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
from typing import Any

from numjax._src.api.checkpoint import checkpoint_p
from numjax._src.api.closed_call import closed_call_p
from numjax._src.api.custom_primitives import custom_jvp_call_p, custom_vjp_call_p
from numjax._src.api.pjit import pjit_p
from numjax._src.api.shard_map_p import AxisNames, block_count, shard_map_p
from numjax._src.api.sharding_constraint import sharding_constraint_p
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal
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
from numjax._src.runtime.mesh import Mesh
from numjax._src.runtime.named_sharding import NamedSharding

Split = dict[int, tuple[Hashable, ...]]
Propagate = Callable[[ClosedJaxpr, list[Split]], list[Split]]
Rule = Callable[[Any, list[Split], Mesh, Propagate], list[Split]]


def output_names(closed: ClosedJaxpr, in_names: Sequence[AxisNames], mesh: Mesh
                 ) -> list[AxisNames]:
    """Each output's split given the inputs' (`AxisNames()`: whole), as JAX lays it out."""
    outs = _eval(closed.jaxpr, [{}] * len(closed.consts), [n.as_dict() for n in in_names],
                 mesh)
    return [AxisNames.of(s) if _divides(s, aval.shape, mesh) else AxisNames()
            for s, aval in zip(outs, closed.out_avals, strict=True)]


def _divides(split: Split, shape: tuple[int, ...], mesh: Mesh) -> bool:
    return all(shape[d] % block_count(mesh, axes) == 0 for d, axes in split.items())


def _eval(jaxpr: Jaxpr, consts: list[Split], args: list[Split], mesh: Mesh) -> list[Split]:
    env: dict[Any, Split] = {}
    for v, s in zip(jaxpr.constvars, consts, strict=True):
        env[v] = s
    for v, s in zip(jaxpr.invars, args, strict=True):
        env[v] = s

    def read(a: Any) -> Split:
        return {} if isinstance(a, Literal) else env.get(a, {})

    def propagate(closed: ClosedJaxpr, ins: list[Split]) -> list[Split]:
        return _eval(closed.jaxpr, [{}] * len(closed.consts), ins, mesh)

    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = (_rule_for(eqn)(eqn, ins, mesh, propagate)
                if any(ins) or eqn.primitive in _MAKES_SPLITS else [])
        outs = outs or [{}] * len(eqn.outvars)
        for v, s in zip(eqn.outvars, outs, strict=True):
            env[v] = s
    return [read(a) for a in jaxpr.outvars]


def _ndim(a: Any) -> int:
    return len(a.aval.shape)


def _merge(splits: Sequence[Split], ndim: int) -> Split:
    """The first operand's split, then the dimensions later ones split along mesh axes not
    yet used (as JAX's partitioner prefers the first operand's layout)."""
    out: Split = {}
    used: set[Hashable] = set()
    for s in splits:
        for d, axes in sorted(s.items()):
            if d < ndim and d not in out and not used.intersection(axes):
                out[d] = axes
                used.update(axes)
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
    # A split dimension cut at a place known only when the program runs is gathered whole
    # first (JAX's partitioner replicates the operand along it), then sliced.
    sizes = eqn.params["slice_sizes"]
    in_shape = eqn.invars[0].aval.shape
    starts = eqn.invars[1:]
    return [{d: axes for d, axes in ins[0].items()
             if sizes[d] == in_shape[d] or isinstance(starts[d], Literal)}]


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
    return [_dropping(eqn.params["dimensions"], ins[0])]


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
            if axes and not used.intersection(axes):
                out[i] = axes
                used.update(axes)
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
        if axes and not used.intersection(axes):
            out[out_d] = axes
            used.update(axes)
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
        if axes and not used.intersection(axes):
            out[i] = axes
            used.update(axes)
    return [out]


def _reshape(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    """A split dimension keeps its split when the dimensions before it hold as many elements
    before and after the reshape (it is the leading part of the new dimensions it becomes):
    its mesh axes, major first, split the new dimensions from the first on, each new
    dimension cut into as many blocks as its size before the next takes an axis. A split
    dimension merged behind others, or axes that cannot cut the new dimensions that way
    (JAX then gives a GSPMDSharding), are laid out whole."""
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
        start = t
        left = new[t]  # blocks the current new dimension can still be cut into
        covered = new[t]  # elements of dimension d the new dimensions so far hold
        taken: list[Hashable] = []
        for a in axes:
            n = block_count(mesh, (a,))
            if left == 1:  # cut into single rows: the next axis cuts the next new dimension
                if t + 1 == len(new) or in_shape[d] % (covered * new[t + 1]):
                    break
                out[t] = tuple(taken)
                t, left, taken = t + 1, new[t + 1], []
                covered *= left
            if left % n:
                break  # JAX gives a GSPMDSharding: laid out whole
            taken.append(a)
            left //= n
        else:
            if taken:
                out[t] = tuple(taken)
            continue
        for j in [j for j in out if j >= start]:
            del out[j]
    return [out]


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
        cumulative.cumlogsumexp_p, st.rev_p, padding.pad_p, gather_scatter.scatter_p,
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


def _whole(eqn: Any, ins: list[Split], mesh: Mesh, propagate: Propagate) -> list[Split]:
    return []


def _rule_for(eqn: Any) -> Rule:
    rule = eqn.primitive.sharding_rule
    if rule is not None:
        return rule
    if eqn.primitive.vectorized:
        return _elementwise
    return _whole

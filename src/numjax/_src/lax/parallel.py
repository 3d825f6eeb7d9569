"""Collectives over named axes: psum, pmax, pmin, pmean, all_gather, all_to_all, ppermute,
pshuffle, pswapaxes, axis_index.

Under `vmap(..., axis_name=n)` a collective over `n` is computed across the mapped axis by the
batching rule of the trace that owns `n` (traces of other names pass it down). With no trace
binding the name, JAX's `NameError` ("unbound axis name") is raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, Tracer, current_trace
from numjax._src.interpreters import ad, batching
from numjax._src.lax import dynamic_slicing, reductions
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.tree_util import tree_flatten, tree_unflatten

Array = Any


def _names(axis_name: Any) -> tuple[Any, ...]:
    return tuple(axis_name) if isinstance(axis_name, tuple | list) else (axis_name,)


def _unbound(primitive: Primitive) -> Any:
    def impl(*args: Any, **params: Any) -> Any:
        names = params.get("axes", params.get("axis_name"))
        name = _names(names)[0]
        raise NameError(f"unbound axis name: {name}. The following axis names (e.g. defined "
                        "by pmap) are available to collective operations: []")
    return impl


def _collective(name: str, multiple: bool = True) -> Primitive:
    p = Primitive(name)
    p.multiple_results = multiple
    p.def_impl(_unbound(p))
    batching.collective_primitives.add(p)
    return p


def _own_axis(trace: Any, names: tuple[Any, ...]) -> tuple[bool, tuple[Any, ...]]:
    mine = trace.axis_name is not None and trace.axis_name in names
    return mine, tuple(n for n in names if n != trace.axis_name)


# ---- reductions over an axis: psum, pmax, pmin ---------------------------------------------


def _reduce_collective(name: str, reducer: Any, unbatched_op: Any) -> Primitive:
    p = _collective(name)
    p.def_abstract_eval(lambda *avals, axes: list(avals))

    def batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axes: tuple[Any, ...]
              ) -> tuple[list[Any], list[Any]]:
        mine, rest = _own_axis(trace, axes)
        outs = []
        for v, d in zip(vals, dims, strict=True):
            if not mine:
                outs.append(v)
            elif d is None:
                outs.append(unbatched_op(v, trace.axis_size))
            else:
                outs.append(reducer(v, (d,)))
        new_dims: list[Any] = [None if mine else d for d in dims]
        if rest:
            outs = p.bind(*outs, axes=rest)
        return outs, new_dims

    p.def_batch(batch)
    return p


def _times(v: Array, n: int) -> Array:
    return ew.mul(v, st._convert_element_type(n, get_aval(v).dtype))


psum_p = _reduce_collective("psum", reductions.reduce_sum, _times)
pmax_p = _reduce_collective("pmax", reductions.reduce_max, lambda v, n: v)
pmin_p = _reduce_collective("pmin", reductions.reduce_min, lambda v, n: v)
ad.linear_jvp(psum_p)
psum_p.def_transpose(lambda cts, *args, axes: [
    ad.Zero(a.aval) if type(c) is ad.Zero else c
    for c, a in zip(psum_p.bind(*[ad.instantiate_zeros(c) for c in cts], axes=axes), args,
                    strict=True)])


def _pmax_pmin_jvp(p: Primitive) -> Any:
    def jvp(primals: Sequence[Any], tangents: Sequence[Any], *, axes: tuple[Any, ...]) -> Any:
        outs = p.bind(*primals, axes=axes)
        out_t = []
        for x, t, o in zip(primals, tangents, outs, strict=True):
            if type(t) is ad.Zero:
                out_t.append(t)
                continue
            chosen = st.convert_element_type(ew.eq(x, o), get_aval(x).dtype)
            count = psum_p.bind(chosen, axes=axes)[0]
            out_t.append(ew.div(psum_p.bind(ew.mul(t, chosen), axes=axes)[0], count))
        return outs, out_t
    return jvp


pmax_p.def_jvp(_pmax_pmin_jvp(pmax_p))
pmin_p.def_jvp(_pmax_pmin_jvp(pmin_p))


def _tree_collective(p: Primitive, x: Any, axis_name: Any) -> Any:
    leaves, tree = tree_flatten(x)
    if p is psum_p:
        for leaf in leaves:  # JAX's psum reads each leaf's dtype first (bools are summed as ints)
            if not isinstance(leaf, Tracer):
                dtypes.dtype(leaf)
    outs = p.bind(*leaves, axes=_names(axis_name))
    return tree_unflatten(tree, outs)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum of `x` over the named axis (pytrees allowed).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: psum(x, "i"), axis_name="i")(jnp.arange(3.0))
    Array([3., 3., 3.], dtype=float32)
    """
    return _tree_collective(psum_p, x, axis_name)


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _tree_collective(pmax_p, x, axis_name)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    return _tree_collective(pmin_p, x, axis_name)


def axis_size(axis_name: Any) -> int:
    """The size of the named axis, from the vmap that binds it."""
    total = 1
    for name in _names(axis_name):
        trace: Any = current_trace()
        while trace is not None and not (isinstance(trace, batching.BatchTrace)
                                         and trace.axis_name == name):
            trace = trace.parent
        if trace is None:
            raise NameError(f"unbound axis name: {name}. The following axis names (e.g. "
                            "defined by pmap) are available to collective operations: []")
        total *= trace.axis_size
    return total


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Mean of `x` over the named axis."""
    n = axis_size(axis_name)
    leaves, tree = tree_flatten(psum(x, axis_name))
    return tree_unflatten(tree, [ew.div(v, st._convert_element_type(
        n, get_aval(v).dtype, get_aval(v).weak_type)) for v in leaves])


# ---- axis_index ----------------------------------------------------------------------------

axis_index_p = _collective("axis_index", multiple=False)
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.int32))


def _axis_index_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                      axis_name: Any) -> tuple[Any, Any]:
    return st.iota(np.int32, trace.axis_size), 0


axis_index_p.def_batch(_axis_index_batch)
axis_index_p.declare_undefined("jvp", "axis_index has no operands to differentiate")


def axis_index(axis_name: Any) -> Array:
    """The index along the named axis of the current example."""
    return axis_index_p.bind(axis_name=axis_name)


# ---- all_gather / all_to_all / ppermute ----------------------------------------------------

all_gather_p = _collective("all_gather", multiple=False)


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x: ShapedArray, *, axis_name: Any, axis: int, tiled: bool,
                              axis_size: int) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[axis] *= axis_size
    else:
        shape.insert(axis, axis_size)
    return x.update(shape=tuple(shape))


def _all_gather_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axis_name: Any,
                      axis: int, tiled: bool, axis_size: int) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    if trace.axis_name != axis_name:
        x = batching.moveaxis(x, d, 0) if d is not None else x
        if d is None:
            return all_gather_p.bind(x, axis_name=axis_name, axis=axis, tiled=tiled,
                                     axis_size=axis_size), None
        return all_gather_p.bind(x, axis_name=axis_name, axis=axis + 1, tiled=tiled,
                                 axis_size=axis_size), 0
    x = batching.move_dim(x, d, 0, trace.axis_size)
    out = batching.moveaxis(x, 0, axis)
    if tiled:
        shape = list(get_aval(x).shape[1:])
        shape[axis] *= trace.axis_size
        out = st.reshape(out, tuple(shape))
    return out, None


def _all_gather_transpose(ct: Any, x: Any, *, axis_name: Any, axis: int, tiled: bool,
                          axis_size: int) -> list[Any]:
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    total = psum_p.bind(ct, axes=(axis_name,))[0]
    index = axis_index(axis_name)
    if tiled:
        size = x.aval.shape[axis]
        start = ew.mul(index, np.int32(size))
        return [dynamic_slicing.dynamic_slice_in_dim(total, start, size, axis)]
    return [dynamic_slicing.dynamic_index_in_dim(total, index, axis, keepdims=False)]


all_gather_p.def_batch(_all_gather_batch)
ad.linear_jvp(all_gather_p)
all_gather_p.def_transpose(_all_gather_transpose)


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> Any:
    """Every example's `x`, stacked (or concatenated if `tiled`) along `axis`."""
    size = axis_size(axis_name)
    leaves, tree = tree_flatten(x)
    outs = []
    for leaf in leaves:
        ndim = get_aval(leaf).ndim
        ax = axis % (ndim + (0 if tiled else 1)) if ndim or not tiled else 0
        outs.append(all_gather_p.bind(leaf, axis_name=axis_name, axis=ax, tiled=tiled,
                                      axis_size=size))
    return tree_unflatten(tree, outs)


all_to_all_p = _collective("all_to_all", multiple=False)


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x: ShapedArray, *, axis_name: Any, split_axis: int,
                              concat_axis: int, tiled: bool) -> ShapedArray:
    if tiled:
        return x
    shape = list(x.shape)
    n = shape.pop(split_axis)
    shape.insert(concat_axis, n)
    return x.update(shape=tuple(shape))


def _all_to_all_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                      axis_name: Any, split_axis: int, concat_axis: int, tiled: bool
                      ) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    if trace.axis_name != axis_name:
        # Another vmap's axis: with that batch dim leading, the split and concat axes shift by
        # one and the pop/insert of the chunks leaves it leading.
        if d is None:
            return all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                                     concat_axis=concat_axis, tiled=tiled), None
        return all_to_all_p.bind(batching.moveaxis(x, d, 0), axis_name=axis_name,
                                 split_axis=split_axis + 1, concat_axis=concat_axis + 1,
                                 tiled=tiled), 0
    n = trace.axis_size
    x = batching.move_dim(x, d, 0, n)  # (j, ...) with the split axis at 1 + split_axis
    if tiled:
        shape = get_aval(x).shape
        chunk = shape[1 + split_axis] // n
        new_shape = (*shape[:1 + split_axis], n, chunk, *shape[2 + split_axis:])
        x = st.reshape(x, new_shape)
        t = batching.moveaxis(x, 1 + split_axis, 0)  # (i, j, ... chunk ...)
        t = batching.moveaxis(t, 1, 1 + concat_axis + (1 if concat_axis > split_axis else 0))
        out_shape = list(shape[1:])
        out_shape[split_axis] = chunk
        out_shape[concat_axis] *= n
        return st.reshape(t, (n, *out_shape)), 0
    t = batching.moveaxis(x, 1 + split_axis, 0)  # (i, j, rest)
    return batching.moveaxis(t, 1, 1 + concat_axis), 0


all_to_all_p.def_batch(_all_to_all_batch)
ad.linear_jvp(all_to_all_p)
all_to_all_p.def_transpose(lambda ct, x, *, axis_name, split_axis, concat_axis, tiled: [
    all_to_all_p.bind(ad.instantiate_zeros(ct), axis_name=axis_name, split_axis=concat_axis,
                      concat_axis=split_axis, tiled=tiled)])


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Split `x` along `split_axis` across the named axis and concatenate the received chunks
    along `concat_axis`."""
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [all_to_all_p.bind(
        leaf, axis_name=axis_name, split_axis=split_axis % get_aval(leaf).ndim,
        concat_axis=concat_axis % get_aval(leaf).ndim, tiled=tiled) for leaf in leaves])


ppermute_p = _collective("ppermute", multiple=False)
ppermute_p.def_abstract_eval(lambda x, *, axis_name, perm: x)


def _ppermute_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axis_name: Any,
                    perm: tuple[tuple[int, int], ...]) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    if trace.axis_name != axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    n = trace.axis_size
    x = batching.move_dim(x, d, 0, n)
    source = [-1] * n
    for s, t in perm:
        source[t] = s
    rows = []
    zero = None
    for t in range(n):
        if source[t] < 0:
            if zero is None:
                zero = st.full_like(st.index_in_dim(x, 0, 0, keepdims=False), 0)
            rows.append(zero)
        else:
            rows.append(st.index_in_dim(x, source[t], 0, keepdims=False))
    return st.concatenate([st.expand_dims(r, (0,)) for r in rows], 0), 0


ppermute_p.def_batch(_ppermute_batch)
ad.linear_jvp(ppermute_p)
ppermute_p.def_transpose(lambda ct, x, *, axis_name, perm: [ppermute_p.bind(
    ad.instantiate_zeros(ct), axis_name=axis_name, perm=tuple((t, s) for s, t in perm))])


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Send each example's `x` from index `src` to index `dst` for every (src, dst) in `perm`;
    indices receiving nothing get zeros."""
    perm = tuple((int(s), int(t)) for s, t in perm)
    srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [ppermute_p.bind(leaf, axis_name=axis_name, perm=perm)
                                 for leaf in leaves])


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """Example i receives the `x` of example `perm[i]`."""
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {list(perm)}")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    return all_to_all(x, axis_name, axis, axis, tiled=False)

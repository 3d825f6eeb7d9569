"""Collectives over named axes: psum, pmax, pmin, pmean, all_gather, all_to_all, psum_scatter,
ppermute, pshuffle, pswapaxes, pbroadcast, pdot, axis_index.

A named axis is bound by `vmap(..., axis_name=n)` or by `pmap` (and nested pmaps):
- Under vmap, a collective over `n` is computed across the mapped axis by the batch rule of
  the trace that owns `n` (traces of other names pass it down).
- Inside a pmap the collective is an equation of the per-device program. Compiled, its kernel
  meets the other devices of the SPMD run (`runtime/spmd.py`); run on one thread, the program
  is batched over the device axis and the batch rules compute it.
With no binding, JAX's `NameError` ("unbound axis name") is raised. Params are JAX 0.4.30's, so
jaxprs print as JAX's do (the sizes some rules need are hidden params, `axis_size`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core import axis_env
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, Tracer, current_trace, ensure_compile_time_eval
from numjax._src.interpreters import ad, batching
from numjax._src.lax import dot, reductions
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.lax.constants import const_like, host_const_like
from numjax._src.runtime import spmd
from numjax._src.tree_util import tree_flatten, tree_map, tree_unflatten
from numjax._src.typing import Array

Groups = tuple[tuple[int, ...], ...] | None


def _names(axis_name: Any) -> tuple[Any, ...]:
    return tuple(axis_name) if isinstance(axis_name, tuple | list) else (axis_name,)


# ---- which axes are bound ------------------------------------------------------------------


def _vmap_traces() -> list[batching.BatchTrace]:
    """The named vmaps on the trace stack, innermost first."""
    out = []
    trace: Any = current_trace()
    while trace is not None:
        if isinstance(trace, batching.BatchTrace) and trace.axis_name is not None:
            out.append(trace)
        trace = trace.parent
    return out


def bound_axes() -> tuple[tuple[Any, int], ...]:
    """Every axis collectives can name here with its size: named vmaps (innermost first), the
    axes bound by pmap tracing, an SPMD program's axes. A cached trace's key includes them,
    since the traced program can depend on them (`psum(1, 'i')` is the size of axis i)."""
    out = [(t.axis_name, t.axis_size) for t in _vmap_traces()]
    out.extend(axis_env.frames())
    context = spmd.current()
    if context is not None:
        out.extend(zip(context.comm.names, context.comm.sizes, strict=True))
    return tuple(out)


def _unbound_error(name: Any) -> NameError:
    available = [*axis_env.names(), *[t.axis_name for t in reversed(_vmap_traces())]]
    context = spmd.current()
    if context is not None:
        available = [*context.comm.names, *available]
    # An unnamed pmap's axis has a name of its own that collectives cannot use: not listed.
    available = [n for n in available if type(n).__name__ != "_TempAxisName"]
    return NameError(f"unbound axis name: {name}. The following axis names (e.g. defined by "
                     f"pmap) are available to collective operations: {available}")


def _axis_size(name: Any) -> int:
    for trace in _vmap_traces():
        if trace.axis_name == name:
            return trace.axis_size
    size = axis_env.axis_size_or_none(name)
    if size is None:
        context = spmd.current()
        if context is not None and name in context.comm.names:
            return context.comm.sizes[context.comm.names.index(name)]
        raise _unbound_error(name)
    return size


def axis_size(axis_name: Any) -> int:
    """The size of the named axis (the product, for a tuple of names)."""
    total = 1
    for name in _names(axis_name):
        total *= _axis_size(name)
    return total


def _group_size(axis_name: Any, groups: Groups) -> int:
    size = axis_size(axis_name)  # checks the names are bound
    return len(groups[0]) if groups else size


def _check_groups(groups: Any) -> Groups:
    if groups is None:
        return None
    space = range(sum(len(g) for g in groups))
    if {i for g in groups for i in g} != set(space):
        raise ValueError("axis_index_groups must cover all indices exactly once")
    return tuple(tuple(int(i) for i in g) for g in groups)


def _no_groups_under_vmap(axis_name: Any, groups: Groups) -> None:
    """JAX's vmap collectives take no axis_index_groups (pmap's do)."""
    if groups is None:
        return
    vmapped = {t.axis_name for t in _vmap_traces()}
    if any(n in vmapped for n in _names(axis_name)):
        raise NotImplementedError("axis_index_groups not supported in vmap collectives. "
                                  "Please open a feature request!")


def _context(primitive: str, names: Sequence[Any]) -> spmd.SpmdContext:
    """The SPMD run a compiled collective takes part in (none: the axis is unbound)."""
    context = spmd._current.context
    if context is None:
        raise _unbound_error(names[0])
    return context


def _collective(name: str, multiple: bool = False) -> Primitive:
    p = Primitive(name)
    p.multiple_results = multiple
    p.collective = True
    return p


# ---- helpers for batch rules: the owning vmap computes the collective ----------------------


def _own_axis(trace: Any, names: tuple[Any, ...]) -> tuple[bool, tuple[Any, ...]]:
    mine = trace.axis_name is not None and trace.axis_name in names
    return mine, tuple(n for n in names if n != trace.axis_name)


def _rows(x: Array, indices: Sequence[int]) -> Array:
    """The rows `indices` of `x` along axis 0, stacked in that order."""
    return st.concatenate([st.index_in_dim(x, i, 0, keepdims=True) for i in indices], 0)


def _per_group(x: Array, groups: Groups, fn: Any) -> Array:
    """`fn` applied to the rows of each index group of `x` (mapped axis at 0); `fn` keeps the
    group's rows at axis 0. The rows go back to their positions."""
    if groups is None:
        return fn(x)
    order = [i for g in groups for i in g]
    stacked = st.concatenate([fn(_rows(x, g)) for g in groups], 0)
    return _rows(stacked, list(np.argsort(order)))


def _to_all(x: Array, n: int) -> Array:
    """An unbatched value as every row of a batch of `n` (mapped axis at 0)."""
    shape = get_aval(x).shape
    return st.broadcast_in_dim(x, (n, *shape), tuple(range(1, len(shape) + 1)))


# ---- reductions over an axis: psum, pmax, pmin ---------------------------------------------


def _reduce_collective(name: str, reducer: Any, op: str) -> Primitive:
    p = _collective(name, multiple=True)
    # Strong results, as JAX's: a weak operand reduced across devices (pmap, shard_map, or a
    # program staged with the collective) is a value of its dtype.
    p.def_abstract_eval(lambda *avals, axes, axis_index_groups: [
        a.update(weak_type=False) if a.weak_type else a for a in avals])

    def batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axes: tuple[Any, ...],
              axis_index_groups: Groups) -> tuple[list[Any], list[Any]]:
        mine, rest = _own_axis(trace, axes)
        n = trace.axis_size
        outs, new_dims = [], []
        for v, d in zip(vals, dims, strict=True):
            if not mine:
                outs.append(v)
                new_dims.append(d)
            elif axis_index_groups is None and d is None:
                outs.append(_times(v, n) if op == "sum" else v)
                new_dims.append(None)
            elif axis_index_groups is None:
                out = reducer(v, (d,))
                # JAX's vmapped psum of a mapped weak value is strong (pmax and pmin keep it).
                if op == "sum" and get_aval(out).weak_type:
                    out = st._convert_element_type(out, get_aval(out).dtype, False)
                outs.append(out)
                new_dims.append(None)
            else:
                x = batching.move_dim(v, d, 0, n)
                outs.append(_per_group(x, axis_index_groups, lambda g: _to_all(
                    reducer(g, (0,)), get_aval(g).shape[0])))
                new_dims.append(0)
        if rest:
            outs = p.bind(*outs, axes=rest, axis_index_groups=axis_index_groups)
        return outs, new_dims

    p.def_batch(batch)

    @p.def_kernel_factory
    def _kernel(in_avals: Sequence[Any], *, axes: tuple[Any, ...],
                axis_index_groups: Groups) -> Any:
        if len(in_avals) == 1:  # the common case, without a loop (a small psum's cost)
            def kernel_one(x: Any) -> list[Any]:
                return [spmd.all_reduce(_context(name, axes), x, op, axes, axis_index_groups)]
            return kernel_one

        def kernel(*xs: Any) -> list[Any]:
            context = _context(name, axes)
            return [spmd.all_reduce(context, x, op, axes, axis_index_groups) for x in xs]
        return kernel

    return p


def _times(v: Array, n: int) -> Array:
    # An unmapped value times the axis size keeps its weak type (JAX: psum((2.0, x), "i")
    # under vmap is weak in its first leaf).
    return ew.mul(v, const_like(v, n))


def _scaled(v: Any, size: int) -> Any:
    """A value that is not traced times the group size, computed now (JAX's psum of a
    constant)."""
    if type(v) in (bool, int, float, complex):
        return type(v)(size) * v
    with ensure_compile_time_eval():
        return ew.mul(v, host_const_like(v, size))


psum_p = _reduce_collective("psum", reductions.reduce_sum, "sum")
pmax_p = _reduce_collective("pmax", reductions.reduce_max, "max")
pmin_p = _reduce_collective("pmin", reductions.reduce_min, "min")
ad.linear_jvp(psum_p)
# The cotangent of a sum every device reads is the sum of every device's cotangent (JAX's rule:
# under pmap, grad of psum(x) is psum of the cotangents).
psum_p.def_transpose(lambda cts, *args, axes, axis_index_groups: [
    ad.Zero(a.aval) if type(c) is ad.Zero else c
    for c, a in zip(psum_p.bind(*[ad.instantiate_zeros(c) for c in cts], axes=axes,
                                axis_index_groups=axis_index_groups), args, strict=True)])


def _pmax_pmin_jvp(p: Primitive) -> Any:
    def jvp(primals: Sequence[Any], tangents: Sequence[Any], *, axes: tuple[Any, ...],
            axis_index_groups: Groups) -> Any:
        outs = p.bind(*primals, axes=axes, axis_index_groups=axis_index_groups)
        out_t = []
        for x, t, o in zip(primals, tangents, outs, strict=True):
            if type(t) is ad.Zero:
                out_t.append(t)
                continue
            chosen = st.convert_element_type(ew.eq(x, o), get_aval(x).dtype)
            count = psum_p.bind(chosen, axes=axes, axis_index_groups=axis_index_groups)[0]
            picked = psum_p.bind(ew.mul(t, chosen), axes=axes,
                                 axis_index_groups=axis_index_groups)[0]
            out_t.append(ew.div(picked, count))
        return outs, out_t
    return jvp


pmax_p.def_jvp(_pmax_pmin_jvp(pmax_p))
pmin_p.def_jvp(_pmax_pmin_jvp(pmin_p))


def _reduce(p: Primitive, x: Any, axis_name: Any, axis_index_groups: Any) -> Any:
    names = _names(axis_name)
    groups = _check_groups(axis_index_groups)
    _no_groups_under_vmap(names, groups)
    for n in names:
        _axis_size(n)  # unbound names raise here, while the function is traced
    leaves, tree = tree_flatten(x)
    if p is psum_p:
        # JAX sums booleans as int32, and a psum of values that are not traced (a constant,
        # `psum(1, "i")`) is their product with the group size, computed now.
        leaves = [st.convert_element_type(v, np.int32)
                  if dtypes.dtype(v) == np.bool_ else v for v in leaves]
        if not any(isinstance(v, Tracer) for v in leaves):
            size = _group_size(names, groups)
            return tree_unflatten(tree, [_scaled(v, size) for v in leaves])
    return tree_unflatten(tree, p.bind(*leaves, axes=names, axis_index_groups=groups))


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum of `x` over the named axis (pytrees allowed).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: psum(x, "i"), axis_name="i")(jnp.arange(3.0))
    Array([3., 3., 3.], dtype=float32)
    """
    return _reduce(psum_p, x, axis_name, axis_index_groups)


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Maximum of `x` over the named axis.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: pmax(x, "i"), axis_name="i")(jnp.arange(3.0))
    Array([2., 2., 2.], dtype=float32)
    """
    return _reduce(pmax_p, x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Minimum of `x` over the named axis.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: pmin(x, "i"), axis_name="i")(jnp.arange(3.0))
    Array([0., 0., 0.], dtype=float32)
    """
    return _reduce(pmin_p, x, axis_name, axis_index_groups)


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Mean of `x` over the named axis.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: pmean(x, "i"), axis_name="i")(jnp.arange(3.0))
    Array([1., 1., 1.], dtype=float32)
    """
    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = psum(1, axis_name, axis_index_groups=axis_index_groups)
    return tree_map(lambda v: _true_divide(v, n), total)


def _true_divide(v: Any, n: int) -> Any:
    """`v / n` as JAX's pmean computes it: true division, so integer and boolean sums become
    the default float type (keeping their weak type); inexact ones keep their dtype."""
    if type(v) in (bool, int):
        v = float(v)
    elif not dtypes.issubdtype(get_aval(v).dtype, np.inexact):
        v = st._convert_element_type(v, dtypes.default_float_dtype(),
                                     weak_type=dtypes.is_weakly_typed(v))
    return ew.div(v, host_const_like(v, n))


# ---- axis_index ----------------------------------------------------------------------------

axis_index_p = _collective("axis_index")
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.int32))


def _axis_index_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                      axis_name: Any) -> tuple[Any, Any]:
    names = _names(axis_name)
    if trace.axis_name not in names:
        return axis_index_p.bind(axis_name=axis_name), None
    # Row-major over the names given: index = (before * size + own) * size(after) + after,
    # with the indices along the names before and after this one from the other traces.
    pos = names.index(trace.axis_name)
    before, after = names[:pos], names[pos + 1:]
    index = st.iota(np.int32, trace.axis_size)
    if before:
        outer = axis_index_p.bind(axis_name=before if len(before) > 1 else before[0])
        index = ew.add(ew.mul(outer, np.int32(trace.axis_size)), index)
    if after:
        inner = axis_index_p.bind(axis_name=after if len(after) > 1 else after[0])
        index = ew.add(ew.mul(index, np.int32(axis_size(after))), inner)
    return index, 0


axis_index_p.def_batch(_axis_index_batch)
axis_index_p.declare_undefined("jvp", "axis_index has no operands to differentiate")


@axis_index_p.def_kernel_factory
def _axis_index_kernel(in_avals: Sequence[Any], *, axis_name: Any) -> Any:
    names = _names(axis_name)

    def kernel() -> Any:
        return np.int32(spmd.axis_index(_context("axis_index", names), names))
    return kernel


def axis_index(axis_name: Any) -> Array:
    """The index along the named axis of the current example (device).

    >>> import numjax
    >>> numjax.vmap(lambda _: axis_index("i"), axis_name="i")(numjax.numpy.zeros(3))
    Array([0, 1, 2], dtype=int32)
    """
    for n in _names(axis_name):
        _axis_size(n)
    return axis_index_p.bind(axis_name=axis_name)


# ---- all_gather / psum_scatter -------------------------------------------------------------

all_gather_p = _collective("all_gather")


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(x: ShapedArray, *, all_gather_dimension: int, axis_name: Any,
                              axis_index_groups: Groups, axis_size: int, tiled: bool
                              ) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return x.update(shape=tuple(shape))


def _gathered(x: Array, dimension: int, tiled: bool) -> Array:
    """Every row of `x` (mapped axis at 0) stacked (or concatenated) at `dimension`."""
    out = batching.moveaxis(x, 0, dimension)
    if tiled:
        shape = list(get_aval(x).shape[1:])
        shape[dimension] *= get_aval(x).shape[0]
        out = st.reshape(out, tuple(shape))
    return out


def _all_gather_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                      all_gather_dimension: int, axis_name: Any, axis_index_groups: Groups,
                      axis_size: int, tiled: bool) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if trace.axis_name not in _names(axis_name):
        if d is None:
            return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension,
                                     **params), None
        return all_gather_p.bind(batching.moveaxis(x, d, 0),
                                 all_gather_dimension=all_gather_dimension + 1, **params), 0
    x = batching.move_dim(x, d, 0, trace.axis_size)
    if axis_index_groups is None:
        return _gathered(x, all_gather_dimension, tiled), None
    return _per_group(x, axis_index_groups, lambda g: _to_all(
        _gathered(g, all_gather_dimension, tiled), get_aval(g).shape[0])), 0


@all_gather_p.def_kernel_factory
def _all_gather_kernel(in_avals: Sequence[Any], *, all_gather_dimension: int, axis_name: Any,
                       axis_index_groups: Groups, axis_size: int, tiled: bool) -> Any:
    names = _names(axis_name)

    def kernel(x: Any) -> Any:
        return spmd.all_gather(_context("all_gather", names), x, names, axis_index_groups,
                               all_gather_dimension, tiled)
    return kernel


reduce_scatter_p = _collective("reduce_scatter")


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(x: ShapedArray, *, axis_name: Any, axis_index_groups: Groups,
                                  axis_size: int, scatter_dimension: int, tiled: bool
                                  ) -> ShapedArray:
    shape = list(x.shape)
    if tiled:
        shape[scatter_dimension] //= axis_size
    else:
        del shape[scatter_dimension]
    return x.update(shape=tuple(shape))


def _scattered(total: Array, n: int, dimension: int, tiled: bool) -> Array:
    """Chunk k of `total` along `dimension` as row k (mapped axis at 0)."""
    shape = list(get_aval(total).shape)
    split = [*shape[:dimension], n, shape[dimension] // n, *shape[dimension + 1:]]
    out = batching.moveaxis(st.reshape(total, tuple(split)), dimension, 0)
    if not tiled:
        out = st.reshape(out, (n, *shape[:dimension], *shape[dimension + 1:]))
    return out


def _reduce_scatter_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                          axis_name: Any, axis_index_groups: Groups, axis_size: int,
                          scatter_dimension: int, tiled: bool) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if trace.axis_name not in _names(axis_name):
        if d is None:
            return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension,
                                         **params), None
        return reduce_scatter_p.bind(batching.moveaxis(x, d, 0),
                                     scatter_dimension=scatter_dimension + 1, **params), 0
    x = batching.move_dim(x, d, 0, trace.axis_size)
    return _per_group(x, axis_index_groups, lambda g: _scattered(
        reductions.reduce_sum(g, (0,)), get_aval(g).shape[0], scatter_dimension, tiled)), 0


@reduce_scatter_p.def_kernel_factory
def _reduce_scatter_kernel(in_avals: Sequence[Any], *, axis_name: Any,
                           axis_index_groups: Groups, axis_size: int, scatter_dimension: int,
                           tiled: bool) -> Any:
    names = _names(axis_name)

    def kernel(x: Any) -> Any:
        return spmd.reduce_scatter(_context("reduce_scatter", names), x, names,
                                   axis_index_groups, scatter_dimension, tiled)
    return kernel


all_gather_p.def_batch(_all_gather_batch)
ad.linear_jvp(all_gather_p)
all_gather_p.def_transpose(lambda ct, x, *, all_gather_dimension, axis_name, axis_index_groups,
                           axis_size, tiled: [
    ad.Zero(x.aval) if type(ct) is ad.Zero else reduce_scatter_p.bind(
        ct, axis_name=axis_name, axis_index_groups=axis_index_groups, axis_size=axis_size,
        scatter_dimension=all_gather_dimension, tiled=tiled)])
reduce_scatter_p.def_batch(_reduce_scatter_batch)
ad.linear_jvp(reduce_scatter_p)
reduce_scatter_p.def_transpose(lambda ct, x, *, axis_name, axis_index_groups, axis_size,
                               scatter_dimension, tiled: [
    ad.Zero(x.aval) if type(ct) is ad.Zero else all_gather_p.bind(
        ct, all_gather_dimension=scatter_dimension, axis_name=axis_name,
        axis_index_groups=axis_index_groups, axis_size=axis_size, tiled=tiled)])


def all_gather(x: Any, axis_name: Any, *, axis_index_groups: Any = None, axis: int = 0,
               tiled: bool = False) -> Any:
    """Every device's (example's) `x`, stacked (or concatenated if `tiled`) along `axis`.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: all_gather(x, "i"), axis_name="i")(jnp.arange(2.0))
    Array([[0., 1.],
           [0., 1.]], dtype=float32)
    """
    groups = _check_groups(axis_index_groups)
    _no_groups_under_vmap(axis_name, groups)
    size = _group_size(axis_name, groups)

    def bind(leaf: Any) -> Any:
        ndim = get_aval(leaf).ndim
        rank = ndim if tiled else ndim + 1
        dimension = axis + rank if axis < 0 else axis
        if not 0 <= dimension < max(rank, 1):
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {rank}")
        return all_gather_p.bind(leaf, all_gather_dimension=dimension, axis_name=axis_name,
                                 axis_index_groups=groups, axis_size=size, tiled=tiled)

    return tree_map(bind, x)


def psum_scatter(x: Any, axis_name: Any, *, scatter_dimension: int = 0,
                 axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """The part of `psum(x, axis_name)` for this device: chunk `axis_index` of the sum along
    `scatter_dimension` (that dimension removed unless `tiled`).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: psum_scatter(x, "i"), axis_name="i")(jnp.eye(2))
    Array([1., 1.], dtype=float32)
    """
    groups = _check_groups(axis_index_groups)
    _no_groups_under_vmap(axis_name, groups)
    size = _group_size(axis_name, groups)

    def bind(leaf: Any) -> Any:
        shape = get_aval(leaf).shape
        dim = scatter_dimension + len(shape) if scatter_dimension < 0 else scatter_dimension
        if tiled and shape[dim] % size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size "
                             f"{shape[dim]} must be divisible by shard count {size}")
        if not tiled and shape[dim] != size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {shape[dim]} "
                             f"must match shard count {size}")
        return reduce_scatter_p.bind(leaf, axis_name=axis_name, axis_index_groups=groups,
                                     axis_size=size, scatter_dimension=dim, tiled=tiled)

    return tree_map(bind, x)


# ---- all_to_all ------------------------------------------------------------------------------

all_to_all_p = _collective("all_to_all")


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(x: ShapedArray, *, axis_name: Any, split_axis: int,
                              concat_axis: int, axis_index_groups: Groups, tiled: bool,
                              axis_size: int) -> ShapedArray:
    shape = list(x.shape)
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return x.update(shape=tuple(shape))


def _exchanged(x: Array, split_axis: int, concat_axis: int) -> Array:
    """XLA's AllToAll over the rows of `x` (mapped axis at 0, m rows): row k is the
    concatenation along `concat_axis` of chunk k (along `split_axis`) of every row."""
    shape = get_aval(x).shape
    m, rest = shape[0], list(shape[1:])
    # (r, ..., k, chunk, ...): row r's value with its split axis cut into m chunks.
    cut = [m, *rest[:split_axis], m, rest[split_axis] // m, *rest[split_axis + 1:]]
    y = st.reshape(x, tuple(cut))
    y = batching.moveaxis(y, 1 + split_axis, 0)  # (k, r, ..., chunk, ...)
    chunk = [*rest[:split_axis], rest[split_axis] // m, *rest[split_axis + 1:]]
    # Put r just before the concat axis of the chunk, then merge the two.
    y = batching.moveaxis(y, 1, 1 + concat_axis)
    out = list(chunk)
    out[concat_axis] *= m
    return st.reshape(y, (m, *out))


def _all_to_all_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *,
                      axis_name: Any, split_axis: int, concat_axis: int,
                      axis_index_groups: Groups, tiled: bool, axis_size: int
                      ) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups, tiled=tiled,
                  axis_size=axis_size)
    if trace.axis_name not in _names(axis_name):
        # Another vmap's axis: with that batch dim leading, the split and concat axes shift.
        if d is None:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis,
                                     **params), None
        return all_to_all_p.bind(batching.moveaxis(x, d, 0), split_axis=split_axis + 1,
                                 concat_axis=concat_axis + 1, **params), 0
    x = batching.move_dim(x, d, 0, trace.axis_size)
    names = _names(axis_name)
    if len(names) == 1:
        return _per_group(x, axis_index_groups,
                          lambda g: _exchanged(g, split_axis, concat_axis)), 0
    if axis_index_groups is not None:
        raise NotImplementedError("all_to_all over several axis names with axis_index_groups "
                                  "is not supported under vmap or a batched pmap.")
    return _exchanged_over_names(x, names, trace.axis_name, split_axis, concat_axis, tiled), 0


def _exchanged_over_names(x: Array, names: tuple[Any, ...], own: Any, split_axis: int,
                          concat_axis: int, tiled: bool) -> Array:
    """all_to_all over several names, this trace owning `own` (its rows at axis 0).

    The devices are numbered row-major over `names`, (a, r, b) for the names before `own`,
    `own` and the names after it; the split axis holds one chunk per target device. The rows
    first trade chunks among themselves (row r_t takes chunk r_t of every row), then one
    all_to_all over the other names trades each (a, b) block; the received chunks are put in
    source order (a, r, b) and concatenated along the concat axis."""
    pos = names.index(own)
    before, after = names[:pos], names[pos + 1:]
    a_size = axis_size(before) if before else 1
    b_size = axis_size(after) if after else 1
    shape = get_aval(x).shape
    s, rest = shape[0], list(shape[1:])
    pre, post = rest[:split_axis], rest[split_axis + 1:]
    c = rest[split_axis] // (a_size * s * b_size)
    p = 1 + split_axis  # the split axis, counting the rows' axis
    tail = list(range(p + 4, len(shape) + 3))
    # (r_src, pre, a_t, r_t, b_t, c, post) -> (r_t, pre, a_t, b_t, r_src, c, post)
    y = st.reshape(x, (s, *pre, a_size, s, b_size, c, *post))
    y = st.transpose(y, (p + 1, *range(1, p), p, p + 2, 0, p + 3, *tail))
    # Trade the (a_t, b_t) blocks, received along a new axis in (a_src, b_src) order.
    y = st.reshape(y, (s, *pre, a_size * b_size, 1, s, c, *post))
    others = before + after
    y = all_to_all_p.bind(y, axis_name=others if len(others) > 1 else others[0],
                          split_axis=p, concat_axis=p + 1, axis_index_groups=None, tiled=tiled,
                          axis_size=a_size * b_size)
    # (r_t, pre, a_src, b_src, r_src, c, post) -> (r_t, pre, a_src, r_src, b_src, c, post)
    y = st.reshape(y, (s, *pre, a_size, b_size, s, c, *post))
    y = st.transpose(y, (*range(p), p, p + 2, p + 1, p + 3, *tail))
    m = a_size * s * b_size
    y = st.reshape(y, (s, *pre, m, c, *post))
    # The sources, in order, just before the concat axis, then merged with it.
    y = batching.moveaxis(y, p, 1 + concat_axis)
    out = [*pre, c, *post]
    out[concat_axis] *= m
    return st.reshape(y, (s, *out))


@all_to_all_p.def_kernel_factory
def _all_to_all_kernel(in_avals: Sequence[Any], *, axis_name: Any, split_axis: int,
                       concat_axis: int, axis_index_groups: Groups, tiled: bool,
                       axis_size: int) -> Any:
    names = _names(axis_name)

    def kernel(x: Any) -> Any:
        return spmd.all_to_all(_context("all_to_all", names), x, names, axis_index_groups,
                               split_axis, concat_axis)
    return kernel


all_to_all_p.def_batch(_all_to_all_batch)
ad.linear_jvp(all_to_all_p)
all_to_all_p.def_transpose(lambda ct, x, *, axis_name, split_axis, concat_axis,
                           axis_index_groups, tiled, axis_size: [
    ad.Zero(x.aval) if type(ct) is ad.Zero else all_to_all_p.bind(
        ct, axis_name=axis_name, split_axis=concat_axis, concat_axis=split_axis,
        axis_index_groups=axis_index_groups, tiled=tiled, axis_size=axis_size)])


def all_to_all(x: Any, axis_name: Any, split_axis: int, concat_axis: int, *,
               axis_index_groups: Any = None, tiled: bool = False) -> Any:
    """Split `x` along `split_axis` across the named axis and concatenate the received chunks
    along `concat_axis` (without `tiled`: the split axis, of the named axis's size, is
    removed and a new one of that size inserted at `concat_axis`).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: all_to_all(x, "i", 0, 0), axis_name="i")(jnp.eye(2) * 3)
    Array([[3., 0.],
           [0., 3.]], dtype=float32)
    """
    groups = _check_groups(axis_index_groups)
    _no_groups_under_vmap(axis_name, groups)
    size = _group_size(axis_name, groups)

    def bind(leaf: Any) -> Any:
        shape = get_aval(leaf).shape
        split, concat = split_axis % len(shape), concat_axis % len(shape)
        if tiled:
            if shape[split] % size:
                raise ValueError(f"The size of all_to_all split_axis ({shape[split]}) has to "
                                 f"be divisible by the size of the named axis {axis_name} "
                                 f"({size})")
        else:
            if size != shape[split]:
                raise ValueError("all_to_all requires the size of the mapped axis axis_name "
                                 "to equal x.shape[split_axis], but they are "
                                 f"{size} and {shape[split]} respectively.")
            if split < concat:
                concat += 1  # a position after the split axis is removed
                leaf = st.expand_dims(leaf, (concat,))
            elif concat < split:
                leaf = st.expand_dims(leaf, (concat,))
                split += 1
        out = all_to_all_p.bind(leaf, axis_name=axis_name, split_axis=split,
                                concat_axis=concat, axis_index_groups=groups, tiled=tiled,
                                axis_size=size)
        if not tiled and split != concat:
            out = st.squeeze(out, (split,))
        return out

    return tree_map(bind, x)


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    """Swap the named axis with the unmapped `axis` (of its size): `all_to_all` at `axis`."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ---- ppermute / pshuffle / pbroadcast ------------------------------------------------------

ppermute_p = _collective("ppermute")
ppermute_p.def_abstract_eval(lambda x, *, axis_name, perm: x)


def _ppermute_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axis_name: Any,
                    perm: tuple[tuple[int, int], ...]) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    if trace.axis_name not in _names(axis_name):
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    n = trace.axis_size
    if len(perm) != n and axis_env.axis_size_or_none(trace.axis_name) is None:
        # A vmap's axis (a pmap run batched binds its axis in the axis env, and sends zeros
        # to indices receiving nothing): JAX 0.4.30's batch rule takes only whole permutations.
        raise AssertionError("Permutation doesn't match the axis size!")
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


@ppermute_p.def_kernel_factory
def _ppermute_kernel(in_avals: Sequence[Any], *, axis_name: Any,
                     perm: tuple[tuple[int, int], ...]) -> Any:
    names = _names(axis_name)

    def kernel(x: Any) -> Any:
        return spmd.permute(_context("ppermute", names), x, names, perm)
    return kernel


ppermute_p.def_batch(_ppermute_batch)
ad.linear_jvp(ppermute_p)
ppermute_p.def_transpose(lambda ct, x, *, axis_name, perm: [ppermute_p.bind(
    ad.instantiate_zeros(ct), axis_name=axis_name, perm=tuple((t, s) for s, t in perm))])


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Send each device's `x` from index `src` to index `dst` for every (src, dst) in `perm`;
    under pmap, indices receiving nothing get zeros (under vmap, as in JAX, `perm` must be a
    whole permutation of the axis).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]),
    ...             axis_name="i")(jnp.array([1.0, 2.0, 3.0]))
    Array([3., 1., 2.], dtype=float32)
    """
    perm = tuple((int(s), int(t)) for s, t in perm)
    srcs, dsts = [s for s, _ in perm], [t for _, t in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    size = axis_size(axis_name)
    for s, t in perm:
        if not (0 <= s < size and 0 <= t < size):
            raise ValueError(f"ppermute permutation indices must be in [0, {size}), got "
                             f"{perm}.")
    return tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=axis_name, perm=perm), x)


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """Device (example) i receives the `x` of device `perm[i]`."""
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {list(perm)}")
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


pbroadcast_p = _collective("pbroadcast")
pbroadcast_p.def_abstract_eval(lambda x, *, axis_name, source: x)


def _pbroadcast_batch(trace: Any, vals: Sequence[Any], dims: Sequence[Any], *, axis_name: Any,
                      source: int) -> tuple[Any, Any]:
    (x,), (d,) = vals, dims
    if trace.axis_name not in _names(axis_name):
        return pbroadcast_p.bind(x, axis_name=axis_name, source=source), d
    if d is None:
        return x, None
    return st.index_in_dim(x, source, d, keepdims=False), None


def _pbroadcast_transpose(ct: Any, x: Any, *, axis_name: Any, source: int) -> list[Any]:
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    total = psum_p.bind(ct, axes=_names(axis_name), axis_index_groups=None)[0]
    at_source = ew.eq(axis_index_p.bind(axis_name=axis_name), np.int32(source))
    return [st.select(st.broadcast_in_dim(at_source, get_aval(total).shape, ()), total,
                      st.full_like(total, 0))]


@pbroadcast_p.def_kernel_factory
def _pbroadcast_kernel(in_avals: Sequence[Any], *, axis_name: Any, source: int) -> Any:
    names = _names(axis_name)

    def kernel(x: Any) -> Any:
        return spmd.broadcast(_context("pbroadcast", names), x, names, source)
    return kernel


pbroadcast_p.def_batch(_pbroadcast_batch)
ad.linear_jvp(pbroadcast_p)
pbroadcast_p.def_transpose(_pbroadcast_transpose)


def pbroadcast(x: Any, axis_name: Any, source: int) -> Any:
    """Every device gets the `x` of device `source` along the named axis."""
    axis_size(axis_name)
    return tree_map(lambda leaf: pbroadcast_p.bind(leaf, axis_name=axis_name,
                                                   source=int(source)), x)


def pdot(x: Array, y: Array, axis_name: Any, pos_contract: Any = ((), ()),
         pos_batch: Any = ((), ()), precision: Any = None) -> Array:
    """The dot product of `x` and `y` contracted over their positional axes `pos_contract`
    (batched over `pos_batch`) and summed over the named axis."""
    dimension_numbers = ((tuple(pos_contract[0]), tuple(pos_contract[1])),
                         (tuple(pos_batch[0]), tuple(pos_batch[1])))
    return psum(dot.dot_general(x, y, dimension_numbers, precision=precision), axis_name)


# ---- printing: the params JAX prints ---------------------------------------------------------

def _hide_axis_size(params: dict[str, Any]) -> dict[str, Any]:
    return dict(sorted((k, v) for k, v in params.items() if k != "axis_size"))


all_to_all_p.def_param_printer(_hide_axis_size)

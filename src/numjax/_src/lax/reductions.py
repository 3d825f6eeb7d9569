"""Reductions over axes: sum, max, min, prod, and, or, xor, argmax, argmin."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import cost, native_structural
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.batching import moveaxis
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.lax.cumulative import cumprod
from numjax._src.lax.rules import (
    ANY,
    INT_OR_BOOL,
    NUMBER,
    canonical_axes,
    check_dtype,
    def_accumulating_kernel,
)
from numjax._src.typing import Array

Axes = tuple[int, ...]


def _reduce_abstract_eval(name: str, accepted: Sequence[type]) -> Callable[..., ShapedArray]:
    def rule(x: ShapedArray, *, axes: Axes) -> ShapedArray:
        check_dtype(name, x.dtype, accepted)
        if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(f"{name}: axes {axes} are out of bounds or repeated for operand "
                             f"of shape {x.shape}")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type)

    return rule


def _reduce_batch(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(args: Sequence[Any], dims: Sequence[Any], *, axes: Axes) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        x = moveaxis(x, d, 0)
        return p.bind(x, axes=tuple(a + 1 for a in axes)), 0

    return rule


def _reduction(name: str, kernel: Callable[..., Any], accepted: Sequence[type],
               accumulates: bool = False) -> Primitive:
    p = Primitive(name)
    if accumulates:
        def_accumulating_kernel(p, kernel)
    else:
        p.def_impl(kernel)
    p.def_abstract_eval(_reduce_abstract_eval(name, accepted))
    p.def_batch(_reduce_batch(p))
    p.cost = cost.per_input_element
    return p


# The ufuncs' reduce methods directly: np.sum & co. add about 0.7 us of wrapper per call.
def _sum_kernel(x: Any, *, axes: Axes) -> Any:
    return np.add.reduce(x, axis=axes, dtype=x.dtype)


def _prod_kernel(x: Any, *, axes: Axes) -> Any:
    return np.multiply.reduce(x, axis=axes, dtype=x.dtype)


def _max_kernel(x: Any, *, axes: Axes) -> Any:
    return np.maximum.reduce(x, axis=axes) if x.size else _empty_reduce(x, axes, "max")


def _min_kernel(x: Any, *, axes: Axes) -> Any:
    return np.minimum.reduce(x, axis=axes) if x.size else _empty_reduce(x, axes, "min")


def _empty_reduce(x: Any, axes: Axes, which: str) -> Any:
    """An empty max/min gives the identity (-inf/+inf or the integer limits), as in XLA."""
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    dt = x.dtype
    if dt.kind in "fc" or dt == dtypes.bfloat16:  # complex: -inf + 0j, as XLA's
        value = -np.inf if which == "max" else np.inf
    elif dt.kind == "b":
        value = which != "max"
    else:
        info = np.iinfo(dt)
        value = info.min if which == "max" else info.max
    return np.full(shape, value, dt)


def _and_kernel(x: Any, *, axes: Axes) -> Any:
    if x.dtype.kind == "b":
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(x, axis=axes)


def _or_kernel(x: Any, *, axes: Axes) -> Any:
    if x.dtype.kind == "b":
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes)


def _xor_kernel(x: Any, *, axes: Axes) -> Any:
    return np.bitwise_xor.reduce(x, axis=axes) if axes else x


reduce_sum_p = _reduction("reduce_sum", _sum_kernel, NUMBER, accumulates=True)
_accumulated_sum = reduce_sum_p.kernel_factory


def _sum_kernel_factory(in_avals: Sequence[ShapedArray], *, axes: Axes) -> Callable[..., Any]:
    """A sum of one element per result is that element: XLA drops such a reduction, so JAX
    0.4.30's `(-zeros((2, 1))).sum(1)` is -0.0, where NumPy's add.reduce starts from +0.0."""
    shape = in_avals[0].shape
    if all(shape[a] == 1 for a in axes):
        kept = tuple(d for i, d in enumerate(shape) if i not in axes)
        return lambda x: np.array(x).reshape(kept)
    assert _accumulated_sum is not None
    return _accumulated_sum(in_avals, axes=axes)


reduce_sum_p.def_kernel_factory(_sum_kernel_factory)
reduce_prod_p = _reduction("reduce_prod", _prod_kernel, NUMBER, accumulates=True)
reduce_max_p = _reduction("reduce_max", _max_kernel, ANY)
reduce_min_p = _reduction("reduce_min", _min_kernel, ANY)
reduce_and_p = _reduction("reduce_and", _and_kernel, INT_OR_BOOL)
reduce_or_p = _reduction("reduce_or", _or_kernel, INT_OR_BOOL)
reduce_xor_p = _reduction("reduce_xor", _xor_kernel, INT_OR_BOOL)
reduce_sum_p.native = native_structural.reduce_sum_rule
reduce_prod_p.native = native_structural.reduce_prod_rule
reduce_max_p.native = native_structural.reduce_max_rule
reduce_min_p.native = native_structural.reduce_min_rule
reduce_and_p.native = native_structural.reduce_and_rule
reduce_or_p.native = native_structural.reduce_or_rule
# Their kernels are these ufuncs' reduce: the compiler fuses them over row blocks.
reduce_sum_p.reduce_ufunc = np.add
reduce_max_p.reduce_ufunc = np.maximum
reduce_min_p.reduce_ufunc = np.minimum


def _reduce_sum_transpose(ct: Any, x: Any, *, axes: Axes) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    kept = tuple(i for i in range(aval.ndim) if i not in axes)
    return [st.broadcast_in_dim(ct, aval.shape, kept)]


ad.linear_jvp(reduce_sum_p)
reduce_sum_p.def_transpose(_reduce_sum_transpose)


def _reduce_chooser_jvp(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    """max/min: the tangent at the chosen location, averaged over ties."""

    def jvp(primals: Sequence[Any], tangents: Sequence[Any], *, axes: Axes
            ) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        out = p.bind(x, axes=axes)
        aval = get_aval(x)
        kept = tuple(i for i in range(aval.ndim) if i not in axes)
        location = ew.eq(x, st.broadcast_in_dim(out, aval.shape, kept))
        weights = st.convert_element_type(location, aval.dtype)
        counts = reduce_sum_p.bind(weights, axes=axes)
        picked = reduce_sum_p.bind(ew.mul(t, weights), axes=axes)
        return out, ew.div(picked, counts)

    return jvp


reduce_max_p.def_jvp(_reduce_chooser_jvp(reduce_max_p))
reduce_min_p.def_jvp(_reduce_chooser_jvp(reduce_min_p))


def _reduce_prod_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, axes: Axes
                     ) -> tuple[Any, Any]:
    # d prod(x) = sum_i t_i * prod_{j != i} x_j. The product of the others is the exclusive
    # cumulative product from the left times the one from the right (over the reduced axes
    # flattened into one), which is exact where x has zeros.
    (x,), (t,) = primals, tangents
    out = reduce_prod_p.bind(x, axes=axes)
    aval = get_aval(x)
    kept = tuple(i for i in range(aval.ndim) if i not in axes)
    kept_shape = tuple(aval.shape[i] for i in kept)
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    if n == 0:
        # A product of nothing is the constant 1: its tangent is a symbolic zero, as JAX's
        # (so a while_loop reading it needs no reverse mode).
        return out, Zero(ad.tangent_aval(get_aval(out)))
    perm = (*kept, *axes)
    xr = st.reshape(st.transpose(x, perm), (*kept_shape, n))
    tr = st.reshape(st.transpose(t, perm), (*kept_shape, n))
    last = len(kept_shape)
    one = st.full_like(st.slice_in_dim(xr, 0, 1, axis=last), 1)
    left = st.concatenate([one, st.slice_in_dim(cumprod(xr, axis=last), 0, n - 1, axis=last)],
                          last)
    right = st.concatenate([st.slice_in_dim(cumprod(xr, axis=last, reverse=True), 1, n,
                                            axis=last), one], last)
    others = ew.mul(left, right)
    return out, reduce_sum_p.bind(ew.mul(tr, others), axes=(last,))


reduce_prod_p.def_jvp(_reduce_prod_jvp)
for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
    ad.defjvp_zero(_p)
del _p


def _axes(name: str, x: Array, axes: Sequence[int]) -> Axes:
    return canonical_axes(name, tuple(axes), get_aval(x).ndim)


def reduce_sum(operand: Array, axes: Sequence[int]) -> Array:
    """Sum over `axes`.

    >>> import numjax.numpy as jnp
    >>> reduce_sum(jnp.ones((2, 3)), (1,))
    Array([3., 3.], dtype=float32)
    """
    return reduce_sum_p.bind(operand, axes=_axes("reduce_sum", operand, axes))


def reduce_prod(operand: Array, axes: Sequence[int]) -> Array:
    """Product of `operand` over `axes`."""
    return reduce_prod_p.bind(operand, axes=_axes("reduce_prod", operand, axes))


def reduce_max(operand: Array, axes: Sequence[int]) -> Array:
    """Maximum of `operand` over `axes`."""
    return reduce_max_p.bind(operand, axes=_axes("reduce_max", operand, axes))


def reduce_min(operand: Array, axes: Sequence[int]) -> Array:
    """Minimum of `operand` over `axes`."""
    return reduce_min_p.bind(operand, axes=_axes("reduce_min", operand, axes))


def reduce_and(operand: Array, axes: Sequence[int]) -> Array:
    """Logical (bitwise, for integers) AND of `operand` over `axes`."""
    return reduce_and_p.bind(operand, axes=_axes("reduce_and", operand, axes))


def reduce_or(operand: Array, axes: Sequence[int]) -> Array:
    """Logical (bitwise, for integers) OR of `operand` over `axes`."""
    return reduce_or_p.bind(operand, axes=_axes("reduce_or", operand, axes))


def reduce_xor(operand: Array, axes: Sequence[int]) -> Array:
    """Logical (bitwise, for integers) XOR of `operand` over `axes`."""
    return reduce_xor_p.bind(operand, axes=_axes("reduce_xor", operand, axes))


# ---- argmax / argmin -----------------------------------------------------------------------


def _arg_kernel(which: str) -> Callable[..., Any]:
    def kernel(x: Any, *, axes: Axes, index_dtype: np.dtype) -> Any:
        (axis,) = axes
        x = np.asarray(x)
        if x.dtype.kind in "fc" or x.dtype == dtypes.bfloat16:
            # NaN wins, as in XLA: the first NaN's index is the answer where one exists.
            nan = np.isnan(x)
            idx = np.argmax(x, axis=axis) if which == "max" else np.argmin(x, axis=axis)
            if nan.any():
                idx = np.where(nan.any(axis=axis), np.argmax(nan, axis=axis), idx)
            return idx.astype(index_dtype)
        fn = np.argmax if which == "max" else np.argmin
        return fn(x, axis=axis).astype(index_dtype)

    return kernel


def _arg_abstract_eval(name: str) -> Callable[..., ShapedArray]:
    def rule(x: ShapedArray, *, axes: Axes, index_dtype: np.dtype) -> ShapedArray:
        (axis,) = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError("argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={x.shape} axis={axis}")
        if not dtypes.issubdtype(index_dtype, np.integer):
            raise TypeError(f"index_dtype must be an integer type, but got "
                            f"{dtypes.canonicalize_dtype(index_dtype).name}")
        if x.dtype.kind == "c":
            # JAX's argmax/argmin compare with lax.gt/lt, which refuse complex operands.
            op = "gt" if name == "argmax" else "lt"
            raise TypeError(f"{op} does not accept dtype {x.dtype.name} at position 0. "
                            f"Accepted dtypes at position 0 are subtypes of integer, bool_, "
                            "floating.")
        return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i != axis), index_dtype)

    return rule


def _arg_batch(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(args: Sequence[Any], dims: Sequence[Any], *, axes: Axes,
             index_dtype: np.dtype) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        x = moveaxis(x, d, 0)
        return p.bind(x, axes=(axes[0] + 1,), index_dtype=index_dtype), 0

    return rule


argmax_p = Primitive("argmax")
argmin_p = Primitive("argmin")
for _p, _which in ((argmax_p, "max"), (argmin_p, "min")):
    _p.def_impl(_arg_kernel(_which))
    _p.def_abstract_eval(_arg_abstract_eval(_p.name))
    _p.def_batch(_arg_batch(_p))
    ad.defjvp_zero(_p)
del _p, _which
argmax_p.native = native_structural.argmax_rule
argmin_p.native = native_structural.argmin_rule


def argmax(operand: Array, axis: int, index_dtype: Any) -> Array:
    """The index of the largest element along `axis` (not negative: lax takes axes as they
    are, as JAX's does; the first NaN wins).

    >>> import numjax.numpy as jnp
    >>> argmax(jnp.array([[1, 5], [7, 2]]), 1, jnp.int32)
    Array([1, 0], dtype=int32)
    """
    return argmax_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand: Array, axis: int, index_dtype: Any) -> Array:
    """The index of the smallest element along `axis` (not negative, as in `argmax`).

    >>> import numjax.numpy as jnp
    >>> argmin(jnp.array([[1, 5], [7, 2]]), 1, jnp.int32)
    Array([0, 1], dtype=int32)
    """
    return argmin_p.bind(operand, axes=(operator.index(axis),),
                         index_dtype=dtypes.canonicalize_dtype(index_dtype))

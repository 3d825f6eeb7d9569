"""Cumulative reductions along one axis: cumsum, cumprod, cummax, cummin, cumlogsumexp.

cumsum is linear (its transpose is the cumsum running the other way). The others take their
jvp by differentiating a prefix scan written with lax ops (`prefix_scan`, the recursion of
lax.associative_scan): the derivative of a chain of products stays exact where inputs are
zero, max/min split the tangent evenly between tied operands, as their own jvps do, and the
grouping of the products (hence where inf * 0 makes a nan) is JAX's. As in JAX, a jvp's primal
output is the scan's too (its products are grouped differently from the kernel's running ones).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.batching import moveaxis
from numjax._src.lax import complex_ops as cx
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.lax.padding import pad
from numjax._src.lax.rules import NUMBER, check_dtype, def_accumulating_kernel, upcast_kernel
from numjax._src.typing import Array

__all__ = [
    "cumlogsumexp", "cumlogsumexp_p", "cummax", "cummax_p", "cummin", "cummin_p", "cumprod",
    "cumprod_p", "cumsum", "cumsum_p",
]


def _along(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel that accumulates along `axis`, flipped when `reverse`."""

    def kernel(x: Any, *, axis: int, reverse: bool) -> Any:
        x = np.asarray(x)
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis)
        return np.flip(out, axis) if reverse else out

    return kernel


def _cumsum(x: Any, axis: int) -> Any:
    return np.cumsum(x, axis=axis, dtype=x.dtype)


def _cumprod(x: Any, axis: int) -> Any:
    return np.cumprod(x, axis=axis, dtype=x.dtype)


def _cummax(x: Any, axis: int) -> Any:
    if x.dtype.kind == "c":
        return _complex_accumulate(x, axis, ew.max_kernel)
    return np.maximum.accumulate(x, axis=axis) if x.size else x


def _cummin(x: Any, axis: int) -> Any:
    if x.dtype.kind == "c":
        return _complex_accumulate(x, axis, ew.min_kernel)
    return np.minimum.accumulate(x, axis=axis) if x.size else x


def _complex_accumulate(x: Any, axis: int, step: Callable[[Any, Any], Any]) -> Any:
    """Running complex max/min as lax.max/min combine them (lexicographic, NaNs comparing
    false, so a NaN does not stick: JAX's cummax of [0.33-2.73j, nan+1.3j, 2.14-2.79j] ends at
    2.14-2.79j), where NumPy's accumulate would propagate the NaN."""
    out = np.array(np.moveaxis(x, axis, 0), copy=True)
    for i in range(1, out.shape[0]):
        out[i] = step(out[i - 1], out[i])
    return np.moveaxis(out, 0, axis)


def _logaddexp_accumulate(x: Any, axis: int) -> Any:
    return np.logaddexp.accumulate(x, axis=axis) if x.size else x


def _cumlogsumexp(x: Any, axis: int) -> Any:
    if x.shape[axis] == 0:
        return x
    if x.dtype.kind in "iu":
        # JAX accepts integers here, then fails building the reduction's -inf start value.
        raise OverflowError("cannot convert float infinity to integer")
    if x.dtype.kind == "c":
        return _complex_logaddexp_accumulate(x, axis)
    return upcast_kernel(lambda v: _logaddexp_accumulate(v, axis))(x)


def _complex_logaddexp_accumulate(x: Any, axis: int) -> Any:
    """A running log(exp(a) + exp(b)) from -inf, the imaginary part wrapped into [-pi, pi]."""
    x = np.moveaxis(x, axis, 0)
    out = np.empty_like(x)
    two, pi = x.real.dtype.type(2), x.real.dtype.type(np.pi)
    acc = np.full(x.shape[1:], -np.inf, x.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(x.shape[0]):
            hi = np.maximum(acc, x[i])  # lexicographic on (real, imag), as lax.max
            out_i = hi + np.log1p(np.exp(acc + x[i] - hi * two))
            imag = np.fmod(out_i.imag + pi, two * pi)
            imag = np.where(imag < 0, imag + two * pi, imag) - pi
            acc = out[i] = out_i.real + 1j * imag.astype(out_i.real.dtype)
    return np.moveaxis(out, 0, axis)


def _abstract_eval(name: str, accepted: Sequence[type]) -> Callable[..., ShapedArray]:
    def rule(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
        # The axis is taken as given (the jnp functions normalize theirs), as in JAX.
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        check_dtype(name, x.dtype, accepted)
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return rule


def _batch(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def rule(args: Sequence[Any], dims: Sequence[Any], *, axis: int,
             reverse: bool) -> tuple[Any, Any]:
        (x,), (d,) = args, dims
        # A negative axis stays negative, to be refused by the abstract eval, as in JAX.
        return p.bind(moveaxis(x, d, 0), axis=axis + 1 if axis >= 0 else axis,
                      reverse=reverse), 0
    return rule


def _cumulative(name: str, fn: Callable[..., Any], accepted: Sequence[type],
                accumulates: bool = False) -> Primitive:
    p = Primitive(name)
    if accumulates:
        def_accumulating_kernel(p, _along(fn))
    else:
        p.def_impl(_along(fn))
    p.def_abstract_eval(_abstract_eval(name, accepted))
    p.def_batch(_batch(p))
    return p


cumsum_p = _cumulative("cumsum", _cumsum, NUMBER, accumulates=True)
cumprod_p = _cumulative("cumprod", _cumprod, NUMBER, accumulates=True)
cummax_p = _cumulative("cummax", _cummax, NUMBER)
cummin_p = _cumulative("cummin", _cummin, NUMBER)
# JAX's dtype rule admits every number here; integers fail only when computed.
cumlogsumexp_p = _cumulative("cumlogsumexp", _cumlogsumexp, NUMBER)


# ---- differentiation -----------------------------------------------------------------------


def _cumsum_transpose(ct: Any, x: Any, *, axis: int, reverse: bool) -> list[Any]:
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


ad.linear_jvp(cumsum_p)
cumsum_p.def_transpose(_cumsum_transpose)


def _logaddexp(a: Array, b: Array) -> Array:
    if get_aval(a).dtype.kind == "c":
        return _complex_logaddexp(a, b)
    hi = ew.max(a, b)
    # Where both are infinite a - b is nan; the select keeps nan out of the value and tangent.
    finite = ew.is_finite(hi)
    delta = ew.neg(ew.abs(ew.sub(a, b)))
    delta = st.select(finite, delta, st.full_like(delta, 0))
    return ew.add(hi, ew.log1p(ew.exp(delta)))


def _complex_logaddexp(a: Array, b: Array) -> Array:
    """log(exp(a) + exp(b)) = hi + log1p(exp(a + b - 2 hi)) for the larger (by real part)
    operand hi, with the imaginary part wrapped into [-pi, pi]."""
    real, imag = cx.real, cx.imag
    a_larger = ew.bitwise_or(ew.gt(real(a), real(b)), ew.bitwise_and(
        ew.eq(real(a), real(b)), ew.ge(imag(a), imag(b))))
    hi = st.select(a_larger, a, b)
    two = st.full_like(hi, 2)
    out = ew.add(hi, ew.log1p(ew.exp(ew.sub(ew.add(a, b), ew.mul(hi, two)))))
    angle = imag(out)
    pi, two_pi = st.full_like(angle, np.pi), st.full_like(angle, 2 * np.pi)
    wrapped = ew.rem(ew.add(angle, pi), two_pi)
    wrapped = st.select(ew.lt(wrapped, st.full_like(angle, 0)), ew.add(wrapped, two_pi),
                         wrapped)
    return cx.complex(real(out), ew.sub(wrapped, pi))


def _combine(name: str) -> Callable[[Array, Array], Array]:
    return {"cumprod": ew.mul, "cummax": ew.max, "cummin": ew.min,
            "cumlogsumexp": _logaddexp}[name]


def prefix_scan(combine: Callable[[list[Any], list[Any]], list[Any]], xs: list[Any],
                axis: int) -> list[Any]:
    """Inclusive scan of the arrays `xs` (one scan over all of them) along `axis`, in JAX's
    associative_scan order: combine neighbours, recurse on the odd positions, fill in the
    even ones. Derivatives taken through it decide inf and nan as JAX's do: the grouping of
    the products is what makes an inf times 0 appear (or not) in a tangent."""
    def piece(x: Any, start: int, stop: int | None, stride: int = 1) -> Any:
        n = get_aval(x).shape[axis]
        return st.slice_in_dim(x, start, n if stop is None else stop, stride, axis)

    def interleave(a: Any, b: Any) -> Any:
        # a at even positions, b at odd ones: pad each with holes and add them up.
        na, nb = get_aval(a).shape[axis], get_aval(b).shape[axis]
        zero = np.zeros((), get_aval(a).dtype)[()]
        config_a = [(0, 0, 0)] * get_aval(a).ndim
        config_b = [(0, 0, 0)] * get_aval(b).ndim
        config_a[axis] = (0, 1 if na == nb else 0, 1)
        config_b[axis] = (1, 0 if na == nb else 1, 1)
        pa, pb = pad(a, zero, tuple(config_a)), pad(b, zero, tuple(config_b))
        if get_aval(a).dtype == np.bool_:
            return ew.bitwise_or(pa, pb)
        return ew.add(pa, pb)

    n = get_aval(xs[0]).shape[axis]
    if n < 2:
        return xs
    reduced = combine([piece(x, 0, n - 1, 2) for x in xs], [piece(x, 1, None, 2) for x in xs])
    odd = prefix_scan(combine, reduced, axis)
    if n % 2 == 0:
        even = combine([piece(o, 0, get_aval(o).shape[axis] - 1) for o in odd],
                       [piece(x, 2, None, 2) for x in xs])
    else:
        even = combine(odd, [piece(x, 2, None, 2) for x in xs])
    # The first element starts the even positions (joined to an empty rest too, as JAX).
    even = [st.concatenate([piece(x, 0, 1), e], axis) for x, e in zip(xs, even, strict=True)]
    return [interleave(e, o) for e, o in zip(even, odd, strict=True)]


def _prefix_scan(name: str, x: Array, axis: int, reverse: bool) -> Array:
    combine = _combine(name)
    if reverse:
        x = st.rev(x, (axis,))
    (out,) = prefix_scan(lambda a, b: [combine(a[0], b[0])], [x], axis)
    return st.rev(out, (axis,)) if reverse else out


def _scan_jvp(p: Primitive) -> Callable[..., tuple[Any, Any]]:
    def jvp(primals: Sequence[Any], tangents: Sequence[Any], *, axis: int,
            reverse: bool) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        if type(t) is Zero:
            out = p.bind(x, axis=axis, reverse=reverse)
            return out, Zero(ad.tangent_aval(get_aval(out)))
        (out,), (t_out,) = ad.jvp_flat(lambda v: [_prefix_scan(p.name, v, axis, reverse)],
                                       [x], [t])
        return out, ad.instantiate_zeros(t_out)
    return jvp


for _p in (cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    _p.def_jvp(_scan_jvp(_p))
del _p


# ---- wrappers ------------------------------------------------------------------------------


def _bind(p: Primitive, operand: Array, axis: int, reverse: bool) -> Array:
    return p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumsum(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative sum along `axis` (from the end if `reverse`).

    >>> import numjax.numpy as jnp
    >>> cumsum(jnp.array([1, 2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    return _bind(cumsum_p, operand, axis, reverse)


def cumprod(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative product along `axis` (from the end if `reverse`).

    >>> import numjax.numpy as jnp
    >>> cumprod(jnp.array([1, 2, 3]), reverse=True)
    Array([6, 6, 3], dtype=int32)
    """
    return _bind(cumprod_p, operand, axis, reverse)


def cummax(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Running maximum along `axis` (from the end if `reverse`).

    >>> import numjax.numpy as jnp
    >>> cummax(jnp.array([1, 3, 2]))
    Array([1, 3, 3], dtype=int32)
    """
    return _bind(cummax_p, operand, axis, reverse)


def cummin(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Running minimum along `axis` (from the end if `reverse`).

    >>> import numjax.numpy as jnp
    >>> cummin(jnp.array([3, 1, 2]))
    Array([3, 1, 1], dtype=int32)
    """
    return _bind(cummin_p, operand, axis, reverse)


def cumlogsumexp(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Running log(sum(exp(x))) along `axis`, computed stably (from the end if `reverse`).

    >>> import numjax.numpy as jnp
    >>> cumlogsumexp(jnp.array([0.0, 0.0]))
    Array([0.       , 0.6931472], dtype=float32)
    """
    return _bind(cumlogsumexp_p, operand, axis, reverse)

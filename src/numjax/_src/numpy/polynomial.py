"""Polynomials as coefficient arrays (highest power first)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.correlation import convolve
from numjax._src.numpy.creation import asarray, eye
from numjax._src.numpy.lax_numpy import outer
from numjax._src.numpy.linalg import eigvals, inv, lstsq
from numjax._src.numpy.manipulation import _concrete_or_error
from numjax._src.numpy.matrices import vander
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.ufuncs import add, subtract
from numjax._src.numpy.util import (
    check_arraylike,
    ensure_array,
    promote_dtypes,
    promote_dtypes_inexact,
)
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def _strong(x: Array) -> Array:
    return lax._convert_element_type(x, get_aval(x).dtype, False)


def _coeffs(name: str, p: Array) -> Array:
    p = ensure_array(p, name)
    if get_aval(p).ndim != 1:
        raise ValueError(f"jnp.{name}: input array must be one-dimensional, got shape "
                         f"{get_aval(p).shape}")
    return p


def polyval(p: Array, x: Array, *, unroll: int = 16) -> Array:
    """The polynomial with coefficients `p` (highest power first) at `x`, by Horner's rule.

    >>> import numjax.numpy as jnp
    >>> jnp.polyval(jnp.array([1, 2, 3]), 2)
    Array(11., dtype=float32)
    """
    check_arraylike("polyval", p, x)
    p = ensure_array(p, "polyval")
    if get_aval(p).ndim == 0:
        raise ValueError("jnp.polyval: the coefficients must have at least one dimension "
                         "(the powers, highest first), got a scalar")
    # Coefficients of several polynomials stack along the trailing axes of `p`, which
    # broadcast against `x`.
    p, x = promote_dtypes_inexact(p, x)
    p, x = _strong(p), _strong(x)
    p_shape, x_shape = get_aval(p).shape, get_aval(x).shape
    shape = np.broadcast_shapes(p_shape[1:], x_shape)
    x = lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))
    tail = tuple(range(len(shape) - len(p_shape) + 1, len(shape)))
    y = lax.full_like(x, 0)
    for i in range(p_shape[0]):
        y = lax.add(lax.mul(y, x), lax.broadcast_in_dim(p[i], shape, tail))
    return y


def _align(a1: Array, a2: Array) -> tuple[Array, Array]:
    n1, n2 = get_aval(a1).shape[0], get_aval(a2).shape[0]
    zero = lax._convert_element_type(0, get_aval(a1).dtype)
    n = max(n1, n2)
    return (lax.pad(a1, zero, [(n - n1, 0, 0)]), lax.pad(a2, zero, [(n - n2, 0, 0)]))


def polyadd(a1: Array, a2: Array) -> Array:
    """Sum of two polynomials."""
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(_coeffs("polyadd", a1), _coeffs("polyadd", a2))
    return add(*_align(a1, a2))


def polysub(a1: Array, a2: Array) -> Array:
    """Difference of two polynomials."""
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(_coeffs("polysub", a1), _coeffs("polysub", a2))
    return subtract(*_align(a1, a2))


def _trim(p: Array) -> Array:
    value = _concrete_or_error(p, "jnp.polymul/polydiv with trim_leading_zeros=True need "
                                  "concrete coefficients.\n")
    nz = np.nonzero(value)[0]
    return p[int(nz[0]):] if nz.size else p[-1:]


def polymul(a1: Array, a2: Array, *, trim_leading_zeros: bool = False) -> Array:
    """Product of two polynomials."""
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes_inexact(_coeffs("polymul", a1), _coeffs("polymul", a2))
    if trim_leading_zeros:
        a1, a2 = _trim(a1), _trim(a2)
    if get_aval(a1).shape[0] == 0:
        a1 = lax.full((1,), 0, get_aval(a1).dtype)
    if get_aval(a2).shape[0] == 0:
        a2 = lax.full((1,), 0, get_aval(a2).dtype)
    return convolve(_strong(a1), _strong(a2), mode="full")


@transfer_guard.entry_point(static=("m",))  # JAX compiles it for each order m
def polyder(p: Array, m: int = 1) -> Array:
    """The m-th derivative."""
    check_arraylike("polyder", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    (p,) = promote_dtypes_inexact(_coeffs("polyder", p))
    p = _strong(p)
    for _ in range(m):
        n = get_aval(p).shape[0]
        if n <= 1:
            return lax.full((0,), 0, get_aval(p).dtype)
        powers = lax.convert_element_type(lax.rev(lax.iota(np.int32, n - 1), (0,)),
                                          get_aval(p).dtype)
        p = lax.mul(p[:-1], lax.add(powers, lax._convert_element_type(1, get_aval(p).dtype)))
    return p


@transfer_guard.entry_point(static=("m",))  # JAX compiles it for each order m
def polyint(p: Array, m: int = 1, k: Any = None) -> Array:
    """The m-th antiderivative; integration constants `k` (default 0), first one first."""
    check_arraylike("polyint", p)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    (p,) = promote_dtypes_inexact(_coeffs("polyint", p))
    p = _strong(p)
    dt = get_aval(p).dtype
    if m == 0:
        return p
    ks = lax.full((m,), 0, dt) if k is None else lax.convert_element_type(
        lax.broadcast_to_rank(ensure_array(k), 1) if get_aval(ensure_array(k)).ndim == 0
        else ensure_array(k), dt)
    if get_aval(ks).shape[0] == 1 and m > 1:
        ks = lax.broadcast_in_dim(lax.reshape(ks, ()), (m,), ())
    if get_aval(ks).shape[0] != m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    for i in range(m):
        n = get_aval(p).shape[0]
        divisors = lax.convert_element_type(lax.rev(lax.iota(np.int32, n), (0,)), dt)
        p = lax.div(p, lax.add(divisors, lax._convert_element_type(1, dt)))
        p = lax.concatenate([p, ks[i:i + 1]], 0)
    return p


def poly(seq_of_zeros: Array) -> Array:
    """Coefficients of the monic polynomial with the given roots."""
    check_arraylike("poly", seq_of_zeros)
    (z,) = promote_dtypes_inexact(ensure_array(seq_of_zeros, "poly"))
    z = _strong(z)
    shape = get_aval(z).shape
    if len(shape) == 0:
        z = lax.reshape(z, (1,))
    elif len(shape) == 2 and shape[0] == shape[1] != 0:
        # A matrix's characteristic polynomial: the one whose roots are its eigenvalues.
        z = eigvals(z)
    elif len(shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = get_aval(z).dtype
    out = lax.full((1,), 1, dt)
    for i in range(get_aval(z).shape[0]):
        factor = lax.concatenate([lax.full((1,), 1, dt), lax.neg(z[i:i + 1])], 0)
        out = polymul(out, factor)
    return out


def polydiv(u: Array, v: Array, *, trim_leading_zeros: bool = False) -> tuple[Array, Array]:
    """Quotient and remainder of polynomial division (remainder as long as `u`)."""
    check_arraylike("polydiv", u, v)
    u, v = promote_dtypes_inexact(_coeffs("polydiv", u), _coeffs("polydiv", v))
    u, v = _strong(u), _strong(v)
    m, n = get_aval(u).shape[0] - 1, get_aval(v).shape[0] - 1
    dt = get_aval(u).dtype
    scale = lax.div(lax._convert_element_type(1, dt), v[0])
    q = lax.full((max(m - n + 1, 1),), 0, dt)
    r = u
    for k in range(m - n + 1):
        d = lax.mul(scale, r[k])
        q = q.at[k].set(d)
        r = r.at[k:k + n + 1].add(lax.neg(lax.mul(d, v)))
    if trim_leading_zeros:
        r = _trim(r)
    return q, r


def roots(p: Array, *, strip_zeros: bool = True) -> Array:
    """Roots of the polynomial `p`: eigenvalues of its companion matrix (complex)."""
    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(_coeffs("roots", p))
    p = _strong(p)
    if strip_zeros:
        value = _concrete_or_error(p, "The error occurred in the jnp.roots() function. To use "
                                      "this within a JIT-compiled function, pass "
                                      "strip_zeros=False, but be aware that leading zeros "
                                      "will result in some returned roots being set to NaN.\n")
        nz = np.nonzero(value)[0]
        if nz.size == 0:
            return lax.full((0,), 0, _complex(get_aval(p).dtype))
        p = p[int(nz[0]):int(nz[-1]) + 1]
        trailing = len(value) - 1 - int(nz[-1])
    else:
        trailing = 0
    n = get_aval(p).shape[0] - 1
    dt = get_aval(p).dtype
    if n < 1:
        return lax.full((trailing,), 0, _complex(dt))
    # Companion matrix: first row -p[1:]/p[0], ones on the subdiagonal.
    first = lax.neg(lax.div(p[1:], lax.broadcast_in_dim(p[0], (n,), ())))
    sub = eye(n, n, -1, dtype=dt)
    companion = lax.concatenate([lax.reshape(first, (1, n)), sub[1:]], 0)
    out = eigvals(companion)
    if trailing:
        # Roots at zero (from trailing zero coefficients) come first, as in JAX.
        out = lax.concatenate([lax.full((trailing,), 0, get_aval(out).dtype), out], 0)
    return out


def _complex(dt: np.dtype) -> np.dtype:
    return dtypes.to_complex_dtype(dt)


def polyfit(x: Array, y: Array, deg: int, rcond: float | None = None, full: bool = False,
            w: Array | None = None, cov: bool | str = False) -> Array | tuple[Array, ...]:
    """Least-squares polynomial fit of degree `deg` (coefficients, highest power first);
    with `full`, also the residuals, rank, singular values and rcond; with `cov`, also the
    coefficients' covariance."""
    check_arraylike("polyfit", x, y)
    deg = operator.index(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    x, y = promote_dtypes_inexact(x, y)
    x, y = _strong(x), _strong(y)
    if get_aval(x).ndim != 1:
        raise TypeError("expected 1D vector for x")
    if get_aval(x).shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if get_aval(y).ndim not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if get_aval(x).shape[0] != get_aval(y).shape[0]:
        raise TypeError("expected x and y to have same length")
    lhs = vander(x, deg + 1)
    rhs = y
    if w is not None:
        (w,) = promote_dtypes_inexact(w)
        lhs = lax.mul(lhs, lax.broadcast_in_dim(w, get_aval(lhs).shape, (0,)))
        rhs = lax.mul(rhs, lax.broadcast_in_dim(w, get_aval(rhs).shape, (0,)))
    # Scale the columns to unit norm for conditioning, as NumPy does.
    scale = lax.sqrt(jnp_sum(lax.mul(lhs, lhs), axis=0))
    lhs = lax.div(lhs, lax.broadcast_in_dim(scale, get_aval(lhs).shape, (1,)))
    if rcond is None:
        rcond = get_aval(x).shape[0] * float(np.finfo(get_aval(x).dtype).eps)
    c, resids, rank, sv = lstsq(lhs, rhs, rcond)
    c = lax.div(c, lax.broadcast_in_dim(scale, get_aval(c).shape, (0,)))
    if full:
        return c, resids, rank, sv, asarray(rcond)
    if cov:
        return c, _polyfit_cov(lhs, scale, resids, cov, get_aval(y).ndim)
    return c


def _polyfit_cov(lhs: Array, scale: Array, resids: Array, cov: Any, y_ndim: int) -> Array:
    """The coefficients' covariance: inv(lhs^T lhs) undone of the column scaling, times the
    residual variance unless `cov == "unscaled"`. As JAX 0.4.30, the variance is the first
    column's for every column of a 2-d `y`."""
    n, order = get_aval(lhs).shape
    base = lax.div(inv(lax.dot(lax.transpose(lhs, (1, 0)), lhs)), outer(scale, scale))
    if isinstance(cov, str) and cov == "unscaled":
        fac: Any = 1
    else:
        if n <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = (resids / (n - order))[0]
    return base * fac if y_ndim == 1 else lax.expand_dims(base, (2,)) * fac


transfer_guard.entry_points(globals())

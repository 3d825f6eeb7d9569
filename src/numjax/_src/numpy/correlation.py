"""1-d convolution and correlation; covariance and correlation-coefficient matrices."""

from __future__ import annotations

from typing import Any

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import complex_ops, convolution, lax
from numjax._src.numpy import reductions
from numjax._src.numpy.complex_fns import conjugate, imag, real
from numjax._src.numpy.creation import array
from numjax._src.numpy.lax_numpy import clip
from numjax._src.numpy.matrices import diagonal
from numjax._src.numpy.shape import atleast_2d, concatenate
from numjax._src.numpy.ufuncs import multiply
from numjax._src.numpy.util import (
    check_arraylike,
    ensure_array,
    promote_dtypes,
    promote_dtypes_inexact,
)
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def _conv1d(name: str, a: Array, v: Array, mode: str, flip_v: bool,
            precision: Any, preferred_element_type: Any) -> Array:
    check_arraylike(name, a, v)
    # Without preferred_element_type the inputs become inexact, as NumPy's convolutions; with
    # it they only share a dtype (integers stay integers), as in JAX 0.4.30.
    if preferred_element_type is None:
        a, v = promote_dtypes_inexact(a, v)
    else:
        a, v = promote_dtypes(a, v)
    if get_aval(a).ndim != 1 or get_aval(v).ndim != 1:
        raise ValueError(f"{name}() only support 1-dimensional inputs.")
    na, nv = get_aval(a).shape[0], get_aval(v).shape[0]
    if na == 0 or nv == 0:
        raise ValueError(f"{name}: inputs cannot be empty, got shapes {get_aval(a).shape} and "
                         f"{get_aval(v).shape}.")
    swapped = False
    if nv > na:
        a, v, na, nv = v, a, nv, na
        swapped = True
    if flip_v:
        v = lax.rev(v, (0,))
    if mode == "valid":
        lo, hi = 0, 0
    elif mode == "same":
        lo, hi = nv // 2, nv - 1 - nv // 2
    elif mode == "full":
        lo, hi = nv - 1, nv - 1
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out_dt = None if preferred_element_type is None else \
        dtypes.canonicalize_dtype(preferred_element_type)
    # One feature, one batch: a 1-d convolution as JAX writes it, so jit lays a split `a`'s
    # result out as JAX's partitioner does (split like `a`).
    out = convolution.conv_general_dilated(
        lax.broadcast_in_dim(a, (1, 1, na), (2,)), lax.broadcast_in_dim(v, (1, 1, nv), (2,)),
        (1,), [(lo, hi)], precision=precision, preferred_element_type=out_dt)
    out = lax.squeeze(out, (0, 1))
    if swapped and not flip_v:
        out = lax.rev(out, (0,))
    return out


def convolve(a: Array, v: Array, mode: str = "full", *, precision: Any = None,
             preferred_element_type: Any = None) -> Array:
    """Discrete linear convolution of two 1-d arrays.

    >>> import numjax.numpy as jnp
    >>> jnp.convolve(jnp.array([1., 2.]), jnp.array([1., 1.]))
    Array([1., 3., 2.], dtype=float32)
    """
    return _conv1d("convolve", a, v, mode, True, precision, preferred_element_type)


def correlate(a: Array, v: Array, mode: str = "valid", *, precision: Any = None,
              preferred_element_type: Any = None) -> Array:
    """Cross-correlation of two 1-d arrays (v conjugated when complex)."""
    check_arraylike("correlate", a, v)
    v = ensure_array(v, "correlate")
    if get_aval(v).dtype.kind == "c":
        v = complex_ops.conj(v)
    return _conv1d("correlate", a, v, mode, False, precision, preferred_element_type)


def cov(m: Array, y: Array | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: Array | None = None,
        aweights: Array | None = None) -> Array:
    """Covariance matrix of the variables (rows, or columns when not rowvar)."""
    check_arraylike("cov", m)
    m = ensure_array(m, "cov")
    if get_aval(m).ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    X = atleast_2d(m)
    if not rowvar and get_aval(X).shape[0] != 1:
        X = X.T
    if get_aval(X).shape[0] == 0:
        return array([]).reshape(0, 0)
    if y is not None:
        yy = atleast_2d(ensure_array(y))
        if not rowvar and get_aval(yy).shape[0] != 1:
            yy = yy.T
        X = concatenate([X, yy], 0)
    (X,) = promote_dtypes_inexact(X)
    dt = get_aval(X).dtype
    if ddof is None:
        ddof = 0 if bias else 1
    n = get_aval(X).shape[1]
    w: Array | None = None
    if fweights is not None:
        w = lax.convert_element_type(ensure_array(fweights), dt)
    if aweights is not None:
        aw = lax.convert_element_type(ensure_array(aweights), dt)
        w = aw if w is None else lax.mul(w, aw)
    if w is None:
        w = lax.full((n,), 1, dt)
    w_sum = reductions.sum(w)
    # The weights as a row of X's rank: the library's own products broadcast no rank (they
    # must run under jax_numpy_rank_promotion='raise', as JAX's cov does).
    w_row = lax.expand_dims(w, (0,))
    avg = lax.div(reductions.sum(multiply(X, w_row), axis=1), w_sum)
    if ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = lax.sub(w_sum, lax._convert_element_type(ddof, dt))
    else:
        aw = lax.convert_element_type(ensure_array(aweights), dt)
        fact = lax.sub(w_sum, lax.div(lax.mul(lax._convert_element_type(ddof, dt),
                                              reductions.sum(lax.mul(w, aw))), w_sum))
    Xc = lax.sub(X, lax.expand_dims(avg, (1,)))
    Xw = multiply(Xc, w_row)
    c = lax.dot_general(Xw, conjugate(Xc), (((1,), (1,)), ((), ())), None, dt)
    out = lax.div(c, fact)
    return lax.reshape(out, ()) if get_aval(out).shape == (1, 1) else out


def corrcoef(x: Array, y: Array | None = None, rowvar: bool = True) -> Array:
    """Pearson correlation coefficients, clipped to [-1, 1]."""
    check_arraylike("corrcoef", x)
    c = cov(x, y, rowvar)
    if get_aval(c).ndim == 0:
        return lax.div(c, c)
    d = lax.sqrt(real(diagonal(c)))
    if get_aval(c).dtype.kind == "c":
        d = lax.convert_element_type(d, get_aval(c).dtype)
    c = lax.div(c, lax.expand_dims(d, (1,)))
    c = lax.div(c, lax.expand_dims(d, (0,)))
    if get_aval(c).dtype.kind == "c":
        # Real and imaginary parts each clipped to [-1, 1], as JAX's.
        return lax.complex(clip(real(c), -1, 1), clip(imag(c), -1, 1))
    return clip(c, -1, 1)


transfer_guard.entry_points(globals())

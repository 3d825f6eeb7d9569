"""Two elementwise primitives that reproduce XLA:CPU's float32 rounding, so samplers match JAX.

XLA:CPU contracts `a * b + c` into a fused multiply-add (one rounding), and computes float32
`erf_inv` with Giles' single-precision polynomial (evaluated with fused multiply-adds) rather
than a correctly rounded inverse error function. `random.uniform` (scaling to a range) and
`random.normal` (erf_inv of a uniform) inherit those roundings; NumPy's separate multiply and add,
or SciPy's accurate erfinv, differ from JAX in the last bits. Both kernels emulate the single
rounding by evaluating in float64, where the product of two float32 values is exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching
from numjax._src.lax import lax
from numjax._src.random import blocks

Array = Any

# ---- fused multiply-add -----------------------------------------------------------------------


def _fma_kernel(a: Any, b: Any, c: Any) -> np.ndarray:
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    if dtype.itemsize > 4:
        # float64: NumPy has no fused multiply-add; two roundings (rarely one ulp off XLA).
        return np.asarray(a * b + c)
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    n = math.prod(shape)
    flat = [blocks.flat_operand(x if x.size in (1, n) else np.broadcast_to(x, shape).copy(), n)
            for x in (a, b, c)]
    out = np.empty(n, dtype)

    def fma_block(lo: int, hi: int) -> None:
        a, b, c = (blocks.block_of(x, lo, hi) for x in flat)
        wide = np.multiply(a, b, dtype=np.float64)
        wide += c
        out[lo:hi] = wide

    blocks.map_blocks(fma_block, n)
    return out.reshape(shape)


fma_p = Primitive("random_fma")


@fma_p.def_abstract_eval
def _fma_abstract_eval(a: ShapedArray, b: ShapedArray, c: ShapedArray) -> ShapedArray:
    if not a.dtype == b.dtype == c.dtype or not dtypes.issubdtype(a.dtype, np.floating):
        raise TypeError(f"random_fma requires operands of one float dtype, got {a.dtype}, "
                        f"{b.dtype}, {c.dtype}")
    if not a.shape == b.shape == c.shape:
        raise TypeError(f"random_fma requires operands of one shape, got {a.shape}, {b.shape}, "
                        f"{c.shape}")
    return ShapedArray(a.shape, a.dtype, a.weak_type and b.weak_type and c.weak_type)


fma_p.def_impl(_fma_kernel)


def _fma_batch(args: Sequence[Any], dims: Sequence[int | None]) -> tuple[Any, int]:
    # The operands share one shape, so unbatched ones broadcast along a new leading axis.
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    full = [lax.broadcast(x, (size,)) if d is None else batching.moveaxis(x, d, 0)
            for x, d in zip(args, dims, strict=True)]
    return fma_p.bind(*full), 0


fma_p.def_batch(_fma_batch)
ad.defjvp(fma_p,
          lambda t, a, b, c: lax.mul(t, b),
          lambda t, a, b, c: lax.mul(t, a),
          lambda t, a, b, c: t)


def fma(a: Array, b: Array, c: Array) -> Array:
    """`a * b + c` with one rounding, as XLA:CPU computes it (operands of one shape and dtype).

    >>> import numpy as np
    >>> fma(np.float32(0.1), np.float32(3.0), np.float32(-0.3))
    Array(-7.450581e-09, dtype=float32)
    """
    return fma_p.bind(a, b, c)


# ---- erf_inv as XLA:CPU computes it -----------------------------------------------------------

# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single precision.
_W_LT_5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
           -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_W_GE_5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
           -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner_fma_f32(w: np.ndarray, coeffs: tuple[float, ...]) -> np.ndarray:
    """Horner's rule in float32 with each multiply-add rounded once (exact in float64)."""
    w64 = w.astype(np.float64)
    p = np.full(w.shape, np.float32(coeffs[0]), np.float32)
    tmp = np.empty(w.shape, np.float64)
    for coeff in coeffs[1:]:
        np.multiply(p, w64, out=tmp)
        tmp += np.float64(np.float32(coeff))
        p[...] = tmp
    return p


def _erf_inv_f32_block(x: np.ndarray, out: np.ndarray) -> None:
    """float32 erf_inv of the float32 block `x`, written into `out`."""
    f32 = np.float32
    w = x * x
    np.negative(w, out=w)
    np.log1p(w, out=w)
    np.negative(w, out=w)
    small = w < f32(5)
    if small.all():
        w -= f32(2.5)
        p = _horner_fma_f32(w, _W_LT_5)
    else:
        p = np.empty(x.shape, f32)
        p[small] = _horner_fma_f32(w[small] - f32(2.5), _W_LT_5)
        large = ~small
        p[large] = _horner_fma_f32(np.sqrt(w[large]) - f32(3), _W_GE_5)
    np.multiply(p, x, out=out)
    # erf_inv(+-1) = +-inf; the polynomial is indeterminate there.
    edge = np.abs(x) == f32(1)
    if edge.any():
        out[edge] = x[edge] * f32(np.inf)


def _erf_inv_f32(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float32)
    flat = x.reshape(-1)
    out = np.empty(flat.shape, np.float32)
    blocks.map_blocks(lambda lo, hi: _erf_inv_f32_block(flat[lo:hi], out[lo:hi]), flat.size)
    return out.reshape(x.shape)


def _erf_inv_kernel(x: Any) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.itemsize <= 4:
        return np.asarray(_erf_inv_f32(x).astype(x.dtype, copy=False))
    from scipy import special

    return np.asarray(special.erfinv(x))


erf_inv_p = Primitive("random_erf_inv")
erf_inv_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype, x.weak_type))
erf_inv_p.def_impl(_erf_inv_kernel)
erf_inv_p.def_batch(batching.vectorized_batch(erf_inv_p))
ad.defjvp(erf_inv_p, lambda t, x: lax.mul(
    t, lax.mul(lax.full_like(x, np.sqrt(np.pi) / 2), lax.exp(lax.square(erf_inv(x))))))


def erf_inv(x: Array) -> Array:
    """The inverse error function with XLA:CPU's float32 rounding (SciPy's erfinv for float64).

    >>> import numpy as np
    >>> erf_inv(np.float32(0.5))
    Array(0.47693628, dtype=float32)
    """
    return erf_inv_p.bind(x)

"""Upper Hessenberg reduction (JAX's `jax.lax.linalg.hessenberg`), through LAPACK's gehrd.

The primitive returns gehrd's packed result: the Hessenberg matrix on and above the first
subdiagonal, the Householder vectors below it, and their scalar factors `taus`. As in JAX it
has no derivative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.core.avals import ShapedArray
from numjax._src.core.trace import Primitive
from numjax._src.interpreters.batching import moveaxis
from numjax._src.typing import Array

__all__ = ["hessenberg", "hessenberg_p"]


def check_square_matrices(name: str, a: ShapedArray) -> None:
    """JAX's TypeErrors for an operand that is not a stack of square float or complex
    matrices (hessenberg's, tridiagonal's)."""
    if a.dtype not in _DTYPES:
        raise TypeError(f"{name} requires a.dtype to be float32, float64, complex64, or "
                        f"complex128, got {a.dtype}.")
    if a.ndim < 2:
        raise TypeError(f"{name} requires a.ndim to be at least 2, got {a.ndim}.")
    if a.shape[-1] != a.shape[-2]:
        raise TypeError(f"{name} requires the last two dimensions of a to be equal in size, "
                        f"got a.shape of {a.shape}.")


_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

hessenberg_p = Primitive("hessenberg")
hessenberg_p.multiple_results = True


def _hessenberg_kernel(a: Any) -> list[Any]:
    from scipy.linalg import get_lapack_funcs

    a = np.asarray(a)
    n = a.shape[-1]
    flat = a.reshape((math.prod(a.shape[:-2]), n, n))
    out = np.empty_like(flat)
    taus = np.empty((flat.shape[0], max(n - 1, 0)), a.dtype)
    for i, m in enumerate(flat):
        if n <= 1:
            out[i] = m
            continue
        gehrd, lwork = get_lapack_funcs(("gehrd", "gehrd_lwork"), (m,))
        work, _ = lwork(n, lo=0, hi=n - 1)
        h, tau, info = gehrd(m, lo=0, hi=n - 1, lwork=int(np.real(work)))
        if info != 0:  # XLA reports a failed reduction as NaNs
            h, tau = np.full_like(h, np.nan), np.full_like(tau, np.nan)
        out[i], taus[i] = h, tau[: n - 1]
    return [out.reshape(a.shape), taus.reshape((*a.shape[:-2], max(n - 1, 0)))]


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract_eval(a: ShapedArray) -> list[ShapedArray]:
    check_square_matrices("hessenberg", a)
    # the reduced matrix keeps the operand's weak type, the reflectors' scales do not (JAX)
    return [ShapedArray(a.shape, a.dtype, a.weak_type),
            ShapedArray((*a.shape[:-2], a.shape[-1] - 1), a.dtype)]


def _hessenberg_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    (x,), (d,) = args, dims
    return hessenberg_p.bind(moveaxis(x, d, 0)), [0, 0]


def _hessenberg_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    # JAX registers no rule; its generic NotImplementedError is the error users see.
    raise NotImplementedError("Differentiation rule for 'hessenberg' not implemented")


hessenberg_p.def_impl(_hessenberg_kernel)
hessenberg_p.def_batch(_hessenberg_batch)
hessenberg_p.def_jvp(_hessenberg_jvp)


def hessenberg(a: Array) -> list[Array]:
    """Reduce square `a` to upper Hessenberg form: `[packed, taus]` as LAPACK's gehrd gives.

    >>> import numjax.numpy as jnp
    >>> packed, taus = hessenberg(jnp.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0],
    ...                                      [2.0, 1.0, 1.0]]))
    >>> taus
    Array([1.4472135, 0.       ], dtype=float32)
    """
    return list(hessenberg_p.bind(a))

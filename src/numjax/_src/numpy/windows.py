"""Window functions: hanning, hamming, blackman, bartlett, kaiser."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.lax import lax
from numjax._src.numpy.creation import arange, ones
from numjax._src.numpy.math_fns import i0
from numjax._src.numpy.ufuncs import absolute, cos, sqrt
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array


def _window(name: str, M: int, fn: Any) -> Array:
    M = int(M)
    dtype = dtypes.default_float_dtype()
    if M <= 1:
        return ones((max(M, 0),), dtype)
    return lax.convert_element_type(fn(arange(M, dtype=dtype), M), dtype)


def _cos_window(coeffs: tuple[float, ...]) -> Any:
    def fn(n: Array, M: int) -> Array:
        out: Any = 0
        for i, c in enumerate(coeffs):
            term = lax.mul(lax._convert_element_type(c * (-1) ** i, get_aval(n).dtype),
                           cos(lax.mul(n, lax._convert_element_type(2 * np.pi * i / (M - 1),
                                                                    get_aval(n).dtype))))
            out = term if i == 0 else lax.add(out, term)
        return out
    return fn


def hanning(M: int) -> Array:
    return _window("hanning", M, _cos_window((0.5, 0.5)))


def hamming(M: int) -> Array:
    return _window("hamming", M, _cos_window((0.54, 0.46)))


def blackman(M: int) -> Array:
    return _window("blackman", M, _cos_window((0.42, 0.5, 0.08)))


def bartlett(M: int) -> Array:
    def fn(n: Array, M: int) -> Array:
        half = lax._convert_element_type((M - 1) / 2, get_aval(n).dtype)
        return lax.sub(lax._convert_element_type(1, get_aval(n).dtype),
                       absolute(lax.div(lax.sub(n, half), half)))
    return _window("bartlett", M, fn)


def kaiser(M: int, beta: Any) -> Array:
    def fn(n: Array, M: int) -> Array:
        dt = get_aval(n).dtype
        alpha = lax._convert_element_type((M - 1) / 2.0, dt)
        r = lax.div(lax.sub(n, alpha), alpha)
        b = lax._convert_element_type(beta, dt)
        return lax.div(i0(lax.mul(b, sqrt(lax.sub(lax._convert_element_type(1, dt),
                                                  lax.mul(r, r))))), i0(b))
    return _window("kaiser", M, fn)


transfer_guard.entry_points(globals())

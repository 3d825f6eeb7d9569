"""Complex sin, cos, tan, sinh, cosh, tanh at special and large values: JAX 0.4.30's results
(tests/data/complex_trig_golden.json, written by tools/make_complex_trig_golden.py) eagerly
and under jit.

Where a part is infinite or NaN, or the exponential in XLA's formula overflows, the result
must be JAX's exactly (any NaN for a NaN, zeros with their sign): sin(nan + 0j) is nan + nan j
(C99: nan + 0j), sin(0.5 + 89.5j) in complex64 is inf + inf j. Elsewhere numjax keeps NumPy's
rounding, within a few ulp of JAX's, with one exception not copied: XLA's sinh/cosh cancel for
small nonzero |Re z| (JAX's sinh(1e-10 + 0j) is 0, numjax's 1e-10).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "data" /
                     "complex_trig_golden.json").read_text())
FUNCTIONS = ["sin", "cos", "tan", "sinh", "cosh", "tanh"]
# Each part's magnitude beyond which XLA's exp-based formulas overflow in that precision.
OVERFLOW = {"complex64": 88.0, "complex128": 709.0}
RTOL = {"complex64": 2e-6, "complex128": 1e-14}


def _grid(dtype: str) -> np.ndarray:
    parts = GOLDEN["parts"]
    return np.array([complex(a, b) for a in parts for b in parts], dtype)


def _expected(dtype: str, name: str) -> np.ndarray:
    real = np.dtype(np.float32 if dtype == "complex64" else np.float64)
    uint = np.uint32 if real == np.float32 else np.uint64
    re, im = (np.array([int(h, 16) for h in bits], uint).view(real)
              for bits in GOLDEN[dtype][name])
    out = np.empty(re.shape, dtype)
    out.real, out.imag = re, im
    return out


def _same_bits_or_nan(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Equal with the sign of zero, or both NaN (NaN payloads are NumPy's: docs)."""
    return (np.isnan(got) & np.isnan(want)) | (
        (got == want) & (np.signbit(got) == np.signbit(want)))


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_matches_jax_on_special_grid(dtype: str, name: str, mode: str) -> None:
    z = _grid(dtype)
    want = _expected(dtype, name)
    fn = getattr(jnp, name)
    with numjax.experimental.enable_x64(dtype == "complex128"):
        got = np.asarray((numjax.jit(fn) if mode == "jit" else fn)(z))
    assert got.dtype == np.dtype(dtype)
    a, b = z.real, z.imag
    special = ~np.isfinite(a) | ~np.isfinite(b)
    if name in ("sin", "cos", "sinh", "cosh"):
        exp_part = a if name in ("sinh", "cosh") else b
        special |= np.abs(exp_part) > OVERFLOW[dtype]
    exact = _same_bits_or_nan(got.real, want.real) & _same_bits_or_nan(got.imag, want.imag)
    bad = special & ~exact
    assert not bad.any(), list(zip(z[bad], got[bad], want[bad], strict=True))[:8]
    # Finite elsewhere: NumPy's rounding, within a few ulp of JAX's magnitude.
    rest = ~special
    if name in ("sinh", "cosh"):
        # XLA's exp(z + log 1/2) -+ exp(-z + log 1/2) cancels for small nonzero |Re z|.
        rest &= ~((a != 0) & (np.abs(a) < 1))
    scale = np.abs(want[rest])
    err = np.abs(got[rest] - want[rest])
    assert (err <= 4 * RTOL[dtype] * scale).all()
    # Zeros keep XLA's sign everywhere.
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        zeros = rest & (w == 0) & (g == 0)
        np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]))


# A few of the grid's cases written out, as they read in JAX 0.4.30.
@pytest.mark.parametrize("name,z,want", [
    ("sin", complex(np.nan, 0), complex(np.nan, np.nan)),
    ("sin", complex(np.inf, 0), complex(np.nan, np.nan)),
    ("sin", complex(0.5, 89.5), complex(np.inf, np.inf)),
    ("cos", complex(3, 89.5), complex(-np.inf, -np.inf)),
    ("sinh", complex(np.inf, 0), complex(np.inf, np.nan)),
    ("cosh", complex(0, np.inf), complex(np.nan, np.nan)),
    ("tan", complex(np.inf, 0), complex(np.nan, np.nan)),
    ("tanh", complex(0, np.nan), complex(np.nan, np.nan)),
])
def test_written_out_cases(name: str, z: complex, want: complex) -> None:
    got = complex(getattr(jnp, name)(np.complex64(z)))
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        assert (np.isnan(g) and np.isnan(w)) or g == w, (name, z, got)

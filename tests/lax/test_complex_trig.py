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
from numjax.test_util import check_grads

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


# log1p at small and special values: JAX 0.4.30's results under jit, (real, imag) per dtype.
# NumPy's log(1 + z) loses the real part for tiny |z| (1e-20 + 1e-10j gave 0, not 1.5e-20).
LOG1P_Z = [1e-8 + 1e-8j, 1e-20 + 1e-10j, -1e-7 + 3e-8j, 1e-30j, 1e-3 - 2e-3j, 0.5 + 0.5j,
           1e-4 + 1e-4j, 3e-8 + 0j, -1 + 1e-7j, 1e20 + 1e20j, -2 + 0j, 0j, -1 + 0j,
           -1e-5 - 1e-5j, complex(np.inf, 1), complex(np.nan, 0)]
LOG1P_JAX = {
    "complex64": [
        (9.99999993922529e-09, 9.99999993922529e-09),
        (1.4999999523982838e-20, 1.000000013351432e-10),
        (-1.000000082740371e-07, 3.000000248221113e-08),
        (0.0, 1.0000000031710769e-30),
        (0.0010014964500442147, -0.001997999381273985),
        (0.4581453502178192, 0.32175055146217346),
        (9.999999747378752e-05, 9.999000030802563e-05),
        (2.999999892949745e-08, 0.0),
        (-15.942384719848633, 1.5707963705062866),
        (46.39827346801758, 0.7853981852531433),
        (0.0, 3.1415927410125732),
        (0.0, 0.0),
        (0.0, 0.0),
        (-9.999999747378752e-06, -1.0000099791795947e-05),
        (np.inf, 0.0),
        (np.nan, np.nan),
    ],
    "complex128": [
        (1e-08, 9.999999900000002e-09),
        (1.4999999999999998e-20, 1e-10),
        (-1.0000000455000025e-07, 3.0000003000000286e-08),
        (5.0000000000000005e-61, 1e-30),
        (0.0010014963350915137, -0.0019979993393257262),
        (0.45814536593707755, 0.3217505543966422),
        (9.999999933343334e-05, 9.999000066666667e-05),
        (2.9999999550000006e-08, 0.0),
        (-16.118095651484676, 1.5707963267948966),
        (46.39827545016089, 0.7853981633974483),
        (0.0, 3.141592653589793),
        (0.0, 0.0),
        (0.0, 0.0),
        (-9.999999999333325e-06, -1.0000100000666667e-05),
        (np.inf, 0.0),
        (np.nan, np.nan),
    ],
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_log1p_matches_jax_to_rounding(dtype: str, mode: str) -> None:
    # Within 4 ulp: XLA's log1p and atan2 are its own polynomials.
    z = np.array(LOG1P_Z, dtype)
    fn = jnp.log1p if mode == "eager" else numjax.jit(jnp.log1p)
    with numjax.experimental.enable_x64(dtype == "complex128"):
        got = np.asarray(fn(z))
    want = np.array(LOG1P_JAX[dtype], got.real.dtype)
    eps = np.finfo(got.real.dtype).eps
    for part, expect in ((got.real, want[:, 0]), (got.imag, want[:, 1])):
        np.testing.assert_allclose(part, expect, rtol=4 * eps, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_tan_derivative_reads_the_primal_output(dtype) -> None:
    # JAX 0.4.30's rule: d tan = t * (1 + ans**2), so grad(tan) computes tan once
    # (make_jaxpr(grad(tan))(0.5): tan, integer_pow[y=2], add, mul).
    x = dtype(0.5)
    jaxpr = numjax.make_jaxpr(numjax.grad(lambda v: jnp.tan(v).real))(x).jaxpr
    assert [e.primitive.name for e in jaxpr.eqns].count("tan") == 1
    _, t = numjax.jvp(jnp.tan, (x,), (dtype(1),))
    np.testing.assert_allclose(t, 1 + np.tan(x) ** 2, rtol=1e-6)
    check_grads(jnp.tan, (np.array([0.3, -1.2], dtype),), order=2, modes=["fwd", "rev"],
                rtol=2e-2)

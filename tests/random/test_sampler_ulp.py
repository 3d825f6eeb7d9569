"""Every float sampler against JAX 0.4.30, bit for bit (tools/make_sampler_ulp_golden.py).

JAX's samplers run as XLA:CPU programs, whose float32 arithmetic is not NumPy's: XLA has its own
log, log1p, exp, erf and erf_inv polynomials, calls glibc's sincosf (tan) and powf, hands
softmax to oneDNN, fuses multiply-adds, rewrites a / sqrt(b) as a * rsqrt(b) and (a / b) / (c / d)
as (a d) / (b c), and sums short rows pairwise; its linear algebra is LAPACK's potrf, syevd,
gesdd and geqrf. The samplers reproduce each of those steps (random/xla_math.py), so every draw
below equals JAX's exactly; with NumPy's functions they were 1 to 8191 ulp away.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import numpy as np
import pytest
from lapack_bounds import assert_within, multivariate_normal_tolerance, orthogonal_tolerance
from ulp_helpers import from_hex, ulp_distance

from numjax import random as r
from numjax._src.random import xla_math

GOLDEN = json.loads(pathlib.Path(__file__).with_name("golden_samplers_ulp.json").read_text())


def arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: np.asarray(v, np.float32) if isinstance(v, list) else v for k, v in kwargs.items()}


def test_golden_was_made_with_jax_0_4_30() -> None:
    assert GOLDEN["jax_version"] == "0.4.30"


# Samplers that factorize a matrix with LAPACK, whose last bits depend on the CPU's kernels.
LAPACK = {"multivariate_normal", "multivariate_normal_eigh", "multivariate_normal_svd",
          "orthogonal"}


def draw(case: dict[str, Any]) -> np.ndarray:
    got = getattr(r, case["call"])(r.PRNGKey(GOLDEN["seed"]), **arguments(case["kwargs"]),
                                    shape=tuple(case["shape"]), dtype=np.float32)
    return np.asarray(got)


@pytest.mark.parametrize("name", sorted(set(GOLDEN["samplers"]) - LAPACK))
def test_sampler_is_bit_identical(name: str) -> None:
    case = GOLDEN["samplers"][name]
    got = draw(case).reshape(-1)[:: case["stride"]]
    dist = ulp_distance(got, from_hex(case["bits"]))
    assert dist.max() == 0, (
        f"{name}: {np.count_nonzero(dist)} of {dist.size} differ, max {dist.max()} ulp")


@pytest.mark.parametrize("name", sorted(LAPACK))
def test_lapack_sampler_is_within_its_conditioning(name: str) -> None:
    case = GOLDEN["samplers"][name]
    kwargs = arguments(case["kwargs"])
    key, shape, f32 = r.PRNGKey(GOLDEN["seed"]), tuple(case["shape"]), np.dtype(np.float32)
    if case["call"] == "orthogonal":
        n = kwargs["n"]
        tolerance = orthogonal_tolerance(r.normal(key, (*shape, n, n), f32), f32)
    else:
        cov = kwargs["cov"]
        z = r.normal(key, (*shape, cov.shape[-1]), f32)
        tolerance = multivariate_normal_tolerance(cov, z, kwargs.get("method", "cholesky"), f32)
    stride = case["stride"]
    assert_within(draw(case).reshape(-1)[::stride], from_hex(case["bits"]),
                  tolerance.reshape(-1)[::stride])


@pytest.mark.parametrize("name", sorted(GOLDEN["integer_samplers"]))
def test_integer_sampler_is_identical(name: str) -> None:
    case = GOLDEN["integer_samplers"][name]
    got = getattr(r, case["call"])(r.PRNGKey(GOLDEN["seed"]), **case["kwargs"],
                                    shape=tuple(case["shape"]))
    values = np.asarray(got).reshape(-1).astype("<i4")
    np.testing.assert_array_equal(values[::50], case["every_50th"])
    assert hashlib.sha256(values.tobytes()).hexdigest() == case["sha256"]


@pytest.mark.parametrize("op", ["log", "log1p", "exp", "tan", "erf", "pow", "softmax", "lgamma"])
def test_edges_are_bit_exact(op: str) -> None:
    edges = GOLDEN["edges"]
    x = from_hex(edges[f"{op}_x"] if f"{op}_x" in edges else edges["x"])
    expected = from_hex(edges[op])
    if op == "pow":
        got = np.asarray(xla_math.pow(x, from_hex(edges["pow_y"])))
    elif op == "softmax":
        x, expected = x.reshape(-1, 7), expected.reshape(-1, 7)
        got = np.asarray(xla_math.softmax(x))
    else:
        got = np.asarray(getattr(xla_math, op)(x))
    # XLA's NaN is the all-ones pattern, NumPy's the quiet NaN: only the payload differs.
    nan = np.isnan(expected)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan].view(np.uint32), expected[~nan].view(np.uint32))

"""numjax.random against values recorded once from JAX 0.4.30 (tools/make_random_golden.py).

Integers, bits and keys must be equal; every float sampler must agree within 2 ulp, in both
bit layouts (float64 normal: 4 ulp, since XLA's float64 erf_inv polynomial differs from
SciPy's). The float samplers reproduce XLA:CPU's own float32 log, log1p, exp, erf, erf_inv, tan,
pow and softmax, its fused multiply-adds and algebraic rewrites, and LAPACK's factorizations, so
nearly all of them are bit-identical (tests/random/test_sampler_ulp.py measures that over large
draws).
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from lapack_bounds import assert_within, multivariate_normal_tolerance, orthogonal_tolerance

import numjax
import numjax.numpy as jnp
from numjax import random as r
from numjax.experimental import enable_x64

GOLDEN = json.loads(pathlib.Path(__file__).with_name("golden_random.json").read_text())

Case = Callable[[Any], Any]

CASES: dict[str, Case] = {
    "key": lambda k: k,
    "split2": lambda k: r.split(k),
    "split5": lambda k: r.split(k, 5),
    "split2x3": lambda k: r.split(k, (2, 3)),
    "fold_in0": lambda k: r.fold_in(k, 0),
    "fold_in7": lambda k: r.fold_in(k, 7),
    "fold_in_big": lambda k: r.fold_in(k, 2**31 - 1),
    "bits_scalar": lambda k: r.bits(k),
    "bits7": lambda k: r.bits(k, (7,)),
    "bits2x5": lambda k: r.bits(k, (2, 5)),
    "bits_u8_7": lambda k: r.bits(k, (7,), jnp.uint8),
    "bits_u16_5": lambda k: r.bits(k, (5,), jnp.uint16),
    "bits_u8_2x3": lambda k: r.bits(k, (2, 3), jnp.uint8),
    "uniform_scalar": lambda k: r.uniform(k),
    "uniform5": lambda k: r.uniform(k, (5,)),
    "uniform2x3_range": lambda k: r.uniform(k, (2, 3), minval=-2.0, maxval=3.0),
    "uniform_f16": lambda k: r.uniform(k, (6,), jnp.float16),
    "uniform_bf16": lambda k: r.uniform(k, (6,), jnp.bfloat16),
    "normal7": lambda k: r.normal(k, (7,)),
    "normal2x3": lambda k: r.normal(k, (2, 3)),
    "normal_f16": lambda k: r.normal(k, (5,), jnp.float16),
    "randint10": lambda k: r.randint(k, (10,), 0, 10),
    "randint_neg": lambda k: r.randint(k, (5,), -5, 5),
    "randint_u8": lambda k: r.randint(k, (6,), 0, 256, jnp.uint8),
    "randint_arr": lambda k: r.randint(k, (2, 3), jnp.array([0, 10, 100]), 1000),
    "bernoulli": lambda k: r.bernoulli(k, 0.3, (10,)),
    "bernoulli_arr": lambda k: r.bernoulli(k, jnp.array([0.1, 0.5, 0.9])),
    "permutation10": lambda k: r.permutation(k, 10),
    "permutation_arr_axis1": lambda k: r.permutation(k, jnp.arange(12).reshape(3, 4), axis=1),
    "permutation_indep": lambda k: r.permutation(
        k, jnp.arange(12).reshape(3, 4), axis=1, independent=True),
    "choice_replace": lambda k: r.choice(k, 10, (5,)),
    "choice_noreplace": lambda k: r.choice(k, 10, (5,), replace=False),
    "choice_p": lambda k: r.choice(k, 4, (6,), p=jnp.array([0.1, 0.2, 0.3, 0.4])),
    "choice_p_noreplace": lambda k: r.choice(
        k, 4, (3,), replace=False, p=jnp.array([0.1, 0.2, 0.3, 0.4])),
    "choice_arr_axis1": lambda k: r.choice(k, jnp.arange(12).reshape(3, 4), (2,), axis=1),
    "categorical": lambda k: r.categorical(k, jnp.array([0.0, 1.0, 2.0, -1.0]), shape=(6,)),
    "categorical_batch": lambda k: r.categorical(k, jnp.log(jnp.arange(1.0, 13.0)).reshape(3, 4)),
    "categorical_axis0": lambda k: r.categorical(
        k, jnp.log(jnp.arange(1.0, 13.0)).reshape(3, 4), axis=0),
    "truncated_normal": lambda k: r.truncated_normal(k, -1.0, 2.0, (6,)),
    "exponential": lambda k: r.exponential(k, (6,)),
    "gumbel": lambda k: r.gumbel(k, (6,)),
    "laplace": lambda k: r.laplace(k, (6,)),
    "logistic": lambda k: r.logistic(k, (6,)),
    "cauchy": lambda k: r.cauchy(k, (6,)),
    "rademacher": lambda k: r.rademacher(k, (8,)),
    "maxwell": lambda k: r.maxwell(k, (6,)),
    "double_sided_maxwell": lambda k: r.double_sided_maxwell(k, 1.0, 2.0, (6,)),
    "pareto": lambda k: r.pareto(k, 3.0, (6,)),
    "weibull_min": lambda k: r.weibull_min(k, 2.0, 1.5, (6,)),
    "rayleigh": lambda k: r.rayleigh(k, 2.0, (6,)),
    "lognormal": lambda k: r.lognormal(k, 0.5, (6,)),
    "triangular": lambda k: r.triangular(k, 0.0, 1.0, 3.0, (6,)),
    "geometric": lambda k: r.geometric(k, 0.3, (6,)),
    "wald": lambda k: r.wald(k, 1.5, (6,)),
    "gamma": lambda k: r.gamma(k, jnp.array([0.5, 1.0, 2.5, 10.0])),
    "beta": lambda k: r.beta(k, 2.0, 3.0, (4,)),
    "dirichlet": lambda k: r.dirichlet(k, jnp.array([1.0, 2.0, 3.0]), (2,)),
    "chisquare": lambda k: r.chisquare(k, 3.0, (4,)),
    "t": lambda k: r.t(k, 4.0, (4,)),
    "f": lambda k: r.f(k, 3.0, 5.0, (4,)),
    "generalized_normal": lambda k: r.generalized_normal(k, 1.5, (6,)),
    "ball": lambda k: r.ball(k, 3, 2, (4,)),
    "poisson": lambda k: r.poisson(k, jnp.array([0.5, 3.0, 20.0])),
    "binomial": lambda k: r.binomial(k, jnp.array([5.0, 20.0, 100.0]), 0.3),
}

MVN_COV = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)

# Draws through a LAPACK factorization: (sampler, tolerance from the normal draws it
# transforms). Their last bits depend on the CPU's LAPACK kernels (lapack_bounds.py).
LAPACK_CASES: dict[str, tuple[Case, Callable[[Any], np.ndarray]]] = {
    "orthogonal": (lambda k: r.orthogonal(k, 3),
                   lambda k: orthogonal_tolerance(r.normal(k, (3, 3)), np.dtype(np.float32))),
    "multivariate_normal": (
        lambda k: r.multivariate_normal(k, jnp.zeros(2), MVN_COV, (3,)),
        lambda k: multivariate_normal_tolerance(MVN_COV, r.normal(k, (3, 2)), "cholesky",
                                                np.dtype(np.float32))),
}

# Samplers whose last steps are transcendental functions or linear algebra (see module doc).
X64_CASES: dict[str, Case] = {
    "key": lambda k: k,
    "split3": lambda k: r.split(k, 3),
    "bits64_5": lambda k: r.bits(k, (5,), jnp.uint64),
    "bits64_2x2": lambda k: r.bits(k, (2, 2), jnp.uint64),
    "uniform_f64": lambda k: r.uniform(k, (5,), jnp.float64),
    "normal_f64": lambda k: r.normal(k, (5,), jnp.float64),
    "randint_i64": lambda k: r.randint(k, (5,), -(2**40), 2**40, jnp.int64),
}


def decode(entry: dict[str, Any]) -> np.ndarray:
    if "bits" in entry:
        flat = np.array(entry["bits"], np.uint16).view(ml_dtypes.bfloat16)
    else:
        flat = np.array(entry["data"], entry["dtype"])
    return flat.reshape(entry["shape"])


def assert_matches(got: Any, expected: np.ndarray, *, max_ulp: float = 2) -> None:
    got = np.asarray(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if not dtypes_is_float(expected.dtype):
        np.testing.assert_array_equal(got, expected)
        return
    a, b = got.astype(np.float64), expected.astype(np.float64)
    ulp = np.spacing(np.abs(expected)).astype(np.float64)
    bad = (a != b) & ~(np.abs(a - b) <= max_ulp * ulp)
    assert not bad.any(), f"beyond {max_ulp} ulp:\n{got}\n{expected}"


def dtypes_is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt == ml_dtypes.bfloat16


@pytest.fixture(params=[False, True], ids=["original", "partitionable"])
def layout(request: pytest.FixtureRequest) -> Any:
    numjax.config.update("jax_threefry_partitionable", request.param)
    yield request.param
    numjax.config.update("jax_threefry_partitionable", False)


def test_golden_was_made_with_jax_0_4_30() -> None:
    assert GOLDEN["jax_version"] == "0.4.30"


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_x32(name: str, layout: bool) -> None:
    for seed, row in GOLDEN[f"partitionable={layout}"].items():
        expected = decode(row[name])
        got = CASES[name](r.PRNGKey(int(seed)))
        assert_matches(got, expected)


@pytest.mark.parametrize("name", sorted(LAPACK_CASES))
def test_golden_lapack_x32(name: str, layout: bool) -> None:
    sampler, tolerance = LAPACK_CASES[name]
    for seed, row in GOLDEN[f"partitionable={layout}"].items():
        expected = decode(row[name])
        key = r.PRNGKey(int(seed))
        got = np.asarray(sampler(key))
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape)
        assert_within(got, expected, tolerance(key))


@pytest.mark.parametrize("name", sorted(X64_CASES))
def test_golden_x64(name: str, layout: bool) -> None:
    with enable_x64():
        for seed, row in GOLDEN[f"x64 partitionable={layout}"].items():
            got = X64_CASES[name](r.PRNGKey(int(seed)))
            assert_matches(got, decode(row[name]), max_ulp=4 if name == "normal_f64" else 2)


def test_default_layout_is_original() -> None:
    assert numjax.config.jax_threefry_partitionable is False

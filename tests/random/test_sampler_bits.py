"""float64 (x64) and float16 samplers bit for bit against JAX 0.4.30's recorded output.

XLA:CPU takes float64 `log`, `exp` and `erf` from libm, fuses `a * b + c`, and expands
`log1p` and `erf_inv` into its own polynomials; `golden_sampler_bits.json` holds JAX's bits for
PRNGKey(3) (samplers eagerly and under jit, 12 draws each), the primitives on chosen inputs
and fused multiply-adds where the unfused expression rounds differently.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import random
from numjax._src.config import enable_x64
from numjax._src.random import xla_math

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden_sampler_bits.json").read_text())


def _f64(hexes: list[str]) -> np.ndarray:
    return np.array([int(h, 16) for h in hexes], np.uint64).view(np.float64)


F64_SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "normal": lambda k: random.normal(k, (12,), jnp.float64),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.5, 2.0, (12,), jnp.float64),
    "exponential": lambda k: random.exponential(k, (12,), jnp.float64),
    "gamma": lambda k: random.gamma(k, 0.7, (12,), jnp.float64),
    "beta": lambda k: random.beta(k, 2.0, 0.5, (12,), jnp.float64),
    "laplace": lambda k: random.laplace(k, (12,), jnp.float64),
    "t": lambda k: random.t(k, 3.0, (12,), jnp.float64),
    "chisquare": lambda k: random.chisquare(k, 2.5, (12,), jnp.float64),
    "weibull_min": lambda k: random.weibull_min(k, 1.5, 2.0, (12,), jnp.float64),
    "lognormal": lambda k: random.lognormal(k, 0.5, (12,), jnp.float64),
    "wald": lambda k: random.wald(k, 1.3, (12,), jnp.float64),
    "loggamma": lambda k: random.loggamma(k, 0.3, (12,), jnp.float64),
    "generalized_normal": lambda k: random.generalized_normal(k, 1.5, (12,), jnp.float64),
    "pareto": lambda k: random.pareto(k, 2.0, (12,), jnp.float64),
    "f": lambda k: random.f(k, 3.0, 4.0, (12,), jnp.float64),
}


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(F64_SAMPLERS))
def test_float64_sampler_matches_jax(name: str, mode: str) -> None:
    fn = F64_SAMPLERS[name]
    with enable_x64(True):
        key = random.PRNGKey(3)
        out = np.asarray(fn(key) if mode == "eager" else numjax.jit(fn)(key))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, _f64(GOLDEN["x64"][f"{name}/{mode}"]))


PRIMITIVES = {"log": xla_math.log, "exp": xla_math.exp, "log1p": xla_math.log1p,
              "erf_inv": xla_math.erf_inv, "erf": xla_math.erf}


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_float64_primitive_matches_xla(name: str) -> None:
    case = GOLDEN["prims"][name]
    with enable_x64(True):
        out = np.asarray(PRIMITIVES[name](_f64(case["x"])))
    np.testing.assert_array_equal(out.view(np.uint64), _f64(case["y"]).view(np.uint64))


def test_float64_fma_rounds_once() -> None:
    a, b, c, expected = (_f64(GOLDEN["fma"][n]) for n in "abcy")
    assert (a * b + c != expected).sum() > 5  # the unfused expression would fail
    with enable_x64(True):
        out = np.asarray(xla_math.fma(a, b, c))
    np.testing.assert_array_equal(out.view(np.uint64), expected.view(np.uint64))


F16_SAMPLERS: dict[str, Callable[[Any], Any]] = {
    # gumbel's uniform is max(tiny, b - 1): XLA folds b - 1 + tiny as b + (tiny - 1).
    "gumbel": lambda k: random.gumbel(k, (24,), jnp.float16),
    # The squares are summed in float32 and rounded once, as jnp.sum does.
    "maxwell": lambda k: random.maxwell(k, (24,), jnp.float16),
    "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 0.5, 2.0, (24,),
                                                                  jnp.float16),
    # Under jit: (g_n * 8) / (3 * (g_d * 2)), every operation in float16.
    "f_jit": lambda k: numjax.jit(lambda k: random.f(k, 3.0, 4.0, (24,), jnp.float16))(k),
}


@pytest.mark.parametrize("name", sorted(F16_SAMPLERS))
def test_float16_sampler_matches_jax(name: str) -> None:
    out = np.asarray(F16_SAMPLERS[name](random.PRNGKey(3)))
    np.testing.assert_array_equal(out.view(np.uint16), np.array(GOLDEN["f16"][name], np.uint16))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("concentration", [1.0, 2.0, 0.5, -1.0])
def test_weibull_min_under_jit_rewrites_constant_powers(dtype: str, concentration: float
                                                        ) -> None:
    # Powers by a constant 1, 1/2, 2 or -1 are x, sqrt(x), x * x and 1 / x under jit.
    expected = GOLDEN["weibull_jit"][f"{dtype}/{concentration}"]
    with enable_x64(dtype == "float64"):
        out = np.asarray(numjax.jit(lambda k: random.weibull_min(
            k, 1.0, concentration, (16,), jnp.dtype(dtype)))(random.PRNGKey(3)))
    uint = np.uint64 if dtype == "float64" else np.uint32
    np.testing.assert_array_equal(out.view(uint), np.array([int(h, 16) for h in expected], uint))

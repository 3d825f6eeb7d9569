"""bfloat16 samplers bit for bit against JAX 0.4.30's recorded output.

XLA:CPU computes a bfloat16 program in float32 and drops every conversion to bfloat16 and back
as excess precision, so a sampler's intermediates are not rounded: only its result is, plus
the roundings XLA keeps (the two candidates of a select, constants it folds in bfloat16, and
one value in the middle of some samplers when the original threefry layout's transpose
separates a conversion pair). A runtime parameter enters unrounded, a folded one rounded.
`golden_bfloat16_bits.json` holds JAX's bits for PRNGKey(5), keyed
`sampler/mode/shape/layout` (`orig` or `part`, jax_threefry_partitionable), as hex uint16.
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
from numjax._src.config import threefry_partitionable

GOLDEN: dict[str, str] = json.loads(
    (pathlib.Path(__file__).parent / "golden_bfloat16_bits.json").read_text())

BF16 = jnp.bfloat16
SAMPLERS: dict[str, Callable[[Any, tuple[int, ...]], Any]] = {
    "logistic": lambda k, s: random.logistic(k, s, BF16),
    "cauchy": lambda k, s: random.cauchy(k, s, BF16),
    "pareto": lambda k, s: random.pareto(k, 2.5, s, BF16),
    "weibull_min": lambda k, s: random.weibull_min(k, 1.5, 2.0, s, BF16),
    "rayleigh": lambda k, s: random.rayleigh(k, 1.2, s, BF16),
    "triangular": lambda k, s: random.triangular(k, -1.0, 0.3, 2.0, s, BF16),
    "wald": lambda k, s: random.wald(k, 1.3, s, BF16),
    "truncated_normal": lambda k, s: random.truncated_normal(k, -1.5, 2.0, s, BF16),
    # The gamma family: its loops carry bfloat16 state; a single draw has no loop (so
    # neither its runtime parameter nor its result is rounded there).
    "gamma": lambda k, s: random.gamma(k, 0.7, s, BF16),
    "loggamma": lambda k, s: random.loggamma(k, 0.3, s, BF16),
    "beta": lambda k, s: random.beta(k, 2.0, 0.5, s, BF16),
    "chisquare": lambda k, s: random.chisquare(k, 2.5, s, BF16),
    "f": lambda k, s: random.f(k, 3.0, 4.0, s, BF16),
    "t": lambda k, s: random.t(k, 3.0, s, BF16),
    "generalized_normal": lambda k, s: random.generalized_normal(k, 1.5, s, BF16),
}


def _draw(name: str, mode: str, shape: tuple[int, ...]) -> np.ndarray:
    fn = SAMPLERS[name]
    key = random.PRNGKey(5)
    if mode == "eager":
        out = fn(key, shape)
    elif mode == "jit":
        out = numjax.jit(lambda k: fn(k, shape))(key)
    else:
        out = numjax.vmap(lambda k: fn(k, shape))(random.split(key, 3))
    return np.asarray(out)


@pytest.mark.parametrize("case", sorted(k for k in GOLDEN if k.split("/")[0] in SAMPLERS))
def test_bfloat16_sampler_matches_jax(case: str) -> None:
    name, mode, shape_text, layout = case.split("/")
    shape = tuple(int(n) for n in shape_text.split("x")) if shape_text else ()
    with threefry_partitionable(layout == "part"):
        out = _draw(name, mode, shape)
    assert out.dtype == BF16
    hexes = GOLDEN[case]
    expected = np.array([int(hexes[i:i + 4], 16) for i in range(0, len(hexes), 4)], np.uint16)
    np.testing.assert_array_equal(out.view(np.uint16).reshape(-1), expected)


@pytest.mark.parametrize("name,param", [("rayleigh", 1.2), ("wald", 1.3)])
def test_bfloat16_runtime_parameter_is_not_rounded(name: str, param: float) -> None:
    # Eagerly JAX passes the parameter to its jitted sampler as a float32 argument, whose
    # conversion to bfloat16 XLA drops; a traced parameter under jit is the same.
    fn = {"rayleigh": lambda k, p: random.rayleigh(k, p, (12,), BF16),
          "wald": lambda k, p: random.wald(k, p, (12,), BF16)}[name]
    key = random.PRNGKey(5)
    eager = np.asarray(fn(key, param))
    traced = np.asarray(numjax.jit(fn)(key, param))
    folded = np.asarray(numjax.jit(lambda k: fn(k, param))(key))
    np.testing.assert_array_equal(traced.view(np.uint16), eager.view(np.uint16))
    assert (folded.view(np.uint16) != eager.view(np.uint16)).any()

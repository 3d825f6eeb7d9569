"""Regenerate tests/random/golden_random.json with real JAX 0.4.30, run from a throwaway
virtual environment (`/tmp/jaxenv/bin/python tools/make_random_golden.py`).

Not a test module: the tests read only the JSON this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import jax.numpy as jnp  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from jax import random as r  # type: ignore[import-not-found, unused-ignore]

SEEDS = [0, 1, 42, 2**31 - 1, -1]

CASES = {
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
    "generalized_normal": lambda k: r.generalized_normal(k, 1.5, (6,)),
    "ball": lambda k: r.ball(k, 3, 2, (4,)),
    "orthogonal": lambda k: r.orthogonal(k, 3),
    "multivariate_normal": lambda k: r.multivariate_normal(
        k, jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), (3,)),
    "gamma": lambda k: r.gamma(k, jnp.array([0.5, 1.0, 2.5, 10.0])),
    "beta": lambda k: r.beta(k, 2.0, 3.0, (4,)),
    "dirichlet": lambda k: r.dirichlet(k, jnp.array([1.0, 2.0, 3.0]), (2,)),
    "chisquare": lambda k: r.chisquare(k, 3.0, (4,)),
    "t": lambda k: r.t(k, 4.0, (4,)),
    "f": lambda k: r.f(k, 3.0, 5.0, (4,)),
    "poisson": lambda k: r.poisson(k, jnp.array([0.5, 3.0, 20.0])),
    "binomial": lambda k: r.binomial(k, jnp.array([5.0, 20.0, 100.0]), 0.3),
}

X64_SEEDS = [0, -1, 2**40 + 7, 2**63 - 1]
X64_CASES = {
    "key": lambda k: k,
    "split3": lambda k: r.split(k, 3),
    "bits64_5": lambda k: r.bits(k, (5,), jnp.uint64),
    "bits64_2x2": lambda k: r.bits(k, (2, 2), jnp.uint64),
    "uniform_f64": lambda k: r.uniform(k, (5,), jnp.float64),
    "normal_f64": lambda k: r.normal(k, (5,), jnp.float64),
    "randint_i64": lambda k: r.randint(k, (5,), -(2**40), 2**40, jnp.int64),
}


def encode(x):
    x = np.asarray(x)
    if x.dtype == jnp.bfloat16:
        return {"dtype": "bfloat16", "shape": list(x.shape),
                "bits": x.view(np.uint16).ravel().tolist()}
    return {"dtype": str(x.dtype), "shape": list(x.shape), "data": x.ravel().tolist()}


def run(cases, seeds):
    out = {}
    for seed in seeds:
        k = r.PRNGKey(seed)
        row = {}
        for name, fn in cases.items():
            try:
                row[name] = encode(fn(k))
            except Exception as e:
                row[name] = {"error": f"{type(e).__name__}: {e}"}
        out[str(seed)] = row
    return out


def main() -> None:
    result: dict = {"jax_version": jax.__version__}
    for layout in (False, True):
        jax.config.update("jax_threefry_partitionable", layout)
        result[f"partitionable={layout}"] = run(CASES, SEEDS)
        with jax.experimental.enable_x64():
            result[f"x64 partitionable={layout}"] = run(X64_CASES, X64_SEEDS)
    path = pathlib.Path(__file__).parent.parent / "tests" / "random" / "golden_random.json"
    path.write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

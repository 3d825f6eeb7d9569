"""Regenerate tests/random/golden_samplers_ulp.json with real JAX 0.4.30, run from a throwaway
virtual environment (`/tmp/jaxenv/bin/python tools/make_sampler_ulp_golden.py`).

Records float32 draws of every float sampler, `sampler(PRNGKey(3), ..., shape)` at about 400
evenly spaced indices, and `jnp.log` / `jnp.log1p` / `jnp.exp` of a few edge inputs, as
little-endian uint32 bit patterns in hex.
Not a test module: the tests read only the JSON this writes and never import jax.
"""

import hashlib
import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import jax.numpy as jnp  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from jax import random  # type: ignore[import-not-found, unused-ignore]

SEED = 3
COV = [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]]
MEAN = [1.0, -1.0, 0.5]
# name: (sampler, keyword arguments besides the key and shape, shape). Lists become float32
# arrays (the tests convert them the same way). About 400 evenly spaced draws are stored.
SAMPLERS: dict[str, tuple[str, dict, tuple[int, ...]]] = {
    "exponential": ("exponential", {}, (100_000,)),
    "gumbel": ("gumbel", {}, (100_000,)),
    "logistic": ("logistic", {}, (100_000,)),
    "laplace": ("laplace", {}, (100_000,)),
    "rayleigh": ("rayleigh", {"scale": 1.5}, (100_000,)),
    "weibull_min": ("weibull_min", {"scale": 1.5, "concentration": 2.0}, (100_000,)),
    "pareto": ("pareto", {"b": 3.0}, (100_000,)),
    "lognormal": ("lognormal", {"sigma": 0.5}, (100_000,)),
    "cauchy": ("cauchy", {}, (100_000,)),
    "truncated_normal": ("truncated_normal", {"lower": -1.5, "upper": 2.0}, (100_000,)),
    "maxwell": ("maxwell", {}, (100_000,)),
    "double_sided_maxwell": ("double_sided_maxwell", {"loc": 0.5, "scale": 2.0}, (100_000,)),
    "triangular": ("triangular", {"left": -1.0, "mode": 0.5, "right": 2.0}, (100_000,)),
    "wald": ("wald", {"mean": 1.5}, (100_000,)),
    "gamma": ("gamma", {"a": 3.5}, (20_000,)),
    "gamma_below_1": ("gamma", {"a": 0.7}, (20_000,)),
    "loggamma": ("loggamma", {"a": 0.3}, (20_000,)),
    "beta": ("beta", {"a": 2.0, "b": 0.5}, (20_000,)),
    "dirichlet": ("dirichlet", {"alpha": [0.5, 1.0, 2.0]}, (6_000,)),
    "t": ("t", {"df": 3.0}, (20_000,)),
    "chisquare": ("chisquare", {"df": 2.5}, (20_000,)),
    "f": ("f", {"dfnum": 3.0, "dfden": 5.0}, (20_000,)),
    "generalized_normal": ("generalized_normal", {"p": 1.5}, (20_000,)),
    "ball": ("ball", {"d": 3}, (5_000,)),
    "multivariate_normal": ("multivariate_normal", {"mean": MEAN, "cov": COV}, (5_000,)),
    "multivariate_normal_eigh": ("multivariate_normal",
                                 {"mean": MEAN, "cov": COV, "method": "eigh"}, (5_000,)),
    "multivariate_normal_svd": ("multivariate_normal",
                                {"mean": MEAN, "cov": COV, "method": "svd"}, (5_000,)),
    "orthogonal": ("orthogonal", {"n": 4}, (500,)),
}
EDGES = np.array([0.0, -0.0, 1e-40, -1e-40, 1.2e-38, -1.0, -2.0, np.inf, -np.inf, np.nan, 1.0,
                  2.0, 3e38, 1e-30, -0.5, 0.41421356, -0.41421356, 0.4142136, -0.999999,
                  5.0, 0.70710677, 0.7071068, 1 - 2**-24, 1 + 2**-23],
                 np.float32)
# exp's clamps (-87.8, 88.8), overflow near 88.72, flushed denormal results below -87.34.
EXP_EDGES = np.array([0.0, -0.0, 1e-40, 1.0, -1.0, 0.34657359, 0.5, -0.5, 10.0, -10.0, 88.7,
                      88.72, 88.73, 88.8, 100.0, -87.3, -87.34, -87.5, -87.8, -88.0, -104.0,
                      np.inf, -np.inf, np.nan], np.float32)


# Dense grids for XLA's tan (glibc sincosf), erf and pow (glibc powf), and a row softmax.
_GRID = np.random.default_rng(0)
TAN_X = np.concatenate([_GRID.uniform(-1.6, 1.6, 3000), _GRID.uniform(-100, 100, 1000),
                        [0.0, -0.0, 1e-5, 0.74, 0.76, 119.0, 1e4, np.inf, np.nan]]
                       ).astype(np.float32)
ERF_X = np.concatenate([_GRID.uniform(-4.5, 4.5, 3000),
                        [0.0, -0.0, 1e-30, 3.8325, 3.8326, -3.8326, np.inf, -np.inf, np.nan]]
                       ).astype(np.float32)
POW_X = np.concatenate([_GRID.uniform(0, 4, 3000), 10 ** _GRID.uniform(-30, 30, 1000),
                        [0.0, 1e-42, 1.0, 2.0, -2.0, -2.0, np.inf, np.nan, 3e38]]
                       ).astype(np.float32)
POW_Y = np.concatenate([_GRID.uniform(-3, 3, 3000), _GRID.uniform(-4, 4, 1000),
                        [0.5, 0.5, np.inf, 0.5, 3.0, 0.5, 0.5, 1.0, 2.0]]).astype(np.float32)
SOFTMAX_X = _GRID.normal(0, 3, (200, 7)).astype(np.float32)
LGAMMA_X = np.concatenate([_GRID.uniform(-20, 0.5, 1000), _GRID.uniform(0.5, 30, 2000),
                           10 ** _GRID.uniform(0, 6, 500),
                           [0.0, -0.0, -1.0, -2.0, 1.0, 2.0, np.inf, -np.inf, np.nan]]
                          ).astype(np.float32)


def to_hex(x: np.ndarray) -> str:
    return np.asarray(x, np.float32).astype("<f4").view("<u4").tobytes().hex()


# Integer samplers whose acceptance tests run through XLA's log, log1p and lgamma.
INTEGER_SAMPLERS: dict[str, tuple[str, dict, tuple[int, ...]]] = {
    "poisson": ("poisson", {"lam": 4.0}, (20_000,)),
    "poisson_rejection": ("poisson", {"lam": 40.0}, (20_000,)),
    "binomial": ("binomial", {"n": 20.0, "p": 0.3}, (20_000,)),
    "binomial_btrs": ("binomial", {"n": 500.0, "p": 0.4}, (20_000,)),
    "geometric": ("geometric", {"p": 0.2}, (20_000,)),
}


def arguments(kwargs: dict) -> dict:
    return {k: np.asarray(v, np.float32) if isinstance(v, list) else v for k, v in kwargs.items()}


def main() -> None:
    key = random.PRNGKey(SEED)
    samplers = {}
    for name, (call, kwargs, shape) in SAMPLERS.items():
        out = np.asarray(getattr(random, call)(key, **arguments(kwargs), shape=shape,
                                                dtype=np.float32)).ravel()
        stride = max(1, out.size // 400)
        samplers[name] = {"call": call, "kwargs": kwargs, "shape": list(shape),
                          "stride": stride, "bits": to_hex(out[::stride])}
    integers = {}
    for name, (call, kwargs, shape) in INTEGER_SAMPLERS.items():
        out = np.asarray(getattr(random, call)(key, **kwargs, shape=shape)).ravel()
        values = out.astype("<i4")
        integers[name] = {"call": call, "kwargs": kwargs, "shape": list(shape),
                          "sha256": hashlib.sha256(values.tobytes()).hexdigest(),
                          "every_50th": values[::50].tolist()}
    golden = {
        "jax_version": jax.__version__,
        "seed": SEED,
        "samplers": samplers,
        "integer_samplers": integers,
        "edges": {"x": to_hex(EDGES), "log": to_hex(jax.jit(jnp.log)(EDGES)),
                  "log1p": to_hex(jax.jit(jnp.log1p)(EDGES)),
                  "exp_x": to_hex(EXP_EDGES), "exp": to_hex(jax.jit(jnp.exp)(EXP_EDGES)),
                  "tan_x": to_hex(TAN_X), "tan": to_hex(jax.jit(jnp.tan)(TAN_X)),
                  "erf_x": to_hex(ERF_X), "erf": to_hex(jax.jit(jax.lax.erf)(ERF_X)),
                  "pow_x": to_hex(POW_X), "pow_y": to_hex(POW_Y),
                  "pow": to_hex(jax.jit(jnp.power)(POW_X, POW_Y)),
                  "softmax_x": to_hex(SOFTMAX_X),
                  "softmax": to_hex(jax.jit(jax.nn.softmax)(SOFTMAX_X)),
                  "lgamma_x": to_hex(LGAMMA_X),
                  "lgamma": to_hex(jax.jit(jax.lax.lgamma)(LGAMMA_X))},
    }
    out = pathlib.Path(__file__).parents[1] / "tests" / "random" / "golden_samplers_ulp.json"
    out.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()

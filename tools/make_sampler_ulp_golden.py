"""Regenerate tests/random/golden_samplers_ulp.json with real JAX 0.4.30, run from a throwaway
virtual environment (`/tmp/jaxenv/bin/python tools/make_sampler_ulp_golden.py`).

Records float32 draws of the samplers that transform a uniform with log, log1p or exp, each
`sampler(PRNGKey(3), ..., (100_000,))` at every 250th index (400 samples), and `jnp.log` /
`jnp.log1p` (and `jnp.exp`) of a few edge inputs, as little-endian uint32 bit patterns in hex.
Not a test module: the tests read only the JSON this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import jax.numpy as jnp  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from jax import random  # type: ignore[import-not-found, unused-ignore]

SEED, SIZE, STRIDE = 3, 100_000, 250
# Keyword arguments of each sampler besides the key and shape (the tests pass the same).
SAMPLERS: dict[str, dict[str, float]] = {
    "exponential": {}, "gumbel": {}, "logistic": {}, "laplace": {},
    "rayleigh": {"scale": 1.5}, "weibull_min": {"scale": 1.5, "concentration": 2.0},
    "pareto": {"b": 3.0}, "lognormal": {"sigma": 0.5},
}
EDGES = np.array([0.0, -0.0, 1e-40, -1e-40, 1.2e-38, -1.0, -2.0, np.inf, -np.inf, np.nan, 1.0,
                  2.0, 3e38, 1e-30, -0.5, 0.41421356, -0.41421356, 0.4142136, -0.999999,
                  5.0, 0.70710677, 0.7071068, 1 - 2**-24, 1 + 2**-23],
                 np.float32)
# exp's clamps (-87.8, 88.8), overflow near 88.72, flushed denormal results below -87.34.
EXP_EDGES = np.array([0.0, -0.0, 1e-40, 1.0, -1.0, 0.34657359, 0.5, -0.5, 10.0, -10.0, 88.7,
                      88.72, 88.73, 88.8, 100.0, -87.3, -87.34, -87.5, -87.8, -88.0, -104.0,
                      np.inf, -np.inf, np.nan], np.float32)


def to_hex(x: np.ndarray) -> str:
    return np.asarray(x, np.float32).astype("<f4").view("<u4").tobytes().hex()


def main() -> None:
    key = random.PRNGKey(SEED)
    samplers = {}
    for name, kwargs in SAMPLERS.items():
        out = np.asarray(getattr(random, name)(key, **kwargs, shape=(SIZE,), dtype=np.float32))
        samplers[name] = {"kwargs": kwargs, "bits": to_hex(out[::STRIDE])}
    golden = {
        "jax_version": jax.__version__,
        "seed": SEED, "size": SIZE, "stride": STRIDE,
        "samplers": samplers,
        "edges": {"x": to_hex(EDGES), "log": to_hex(jax.jit(jnp.log)(EDGES)),
                  "log1p": to_hex(jax.jit(jnp.log1p)(EDGES)),
                  "exp_x": to_hex(EXP_EDGES), "exp": to_hex(jax.jit(jnp.exp)(EXP_EDGES))},
    }
    out = pathlib.Path(__file__).parents[1] / "tests" / "random" / "golden_samplers_ulp.json"
    out.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""Regenerate tests/random/golden_normal.json with real JAX 0.4.30, run from a throwaway
virtual environment (`/tmp/jaxenv/bin/python tools/make_normal_golden.py`).

Records float32 `random.normal(PRNGKey(7), (300_001,))` at every 64th index (4_688 samples; the
draw spans all of XLA:CPU's erf_inv branches: log1p's rational and log paths, w < 5 and w >= 5),
and `lax.erf_inv` of a few edge inputs, as little-endian uint32 bit patterns in hex.
Not a test module: the tests read only the JSON this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from jax import lax, random  # type: ignore[import-not-found, unused-ignore]

SEED, SIZE, STRIDE = 7, 300_001, 64
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 1e-30, 0.25, -0.41421354, 0.6435942, 0.6435943, 0.9,
                  0.99, 0.99662, 0.9966217, 0.999, 1 - 2**-24, -(1 - 2**-24), 2**-23, 1e-40,
                  -1.2e-38],
                 np.float32)


def to_hex(x: np.ndarray) -> str:
    return np.asarray(x, np.float32).astype("<f4").view("<u4").tobytes().hex()


def main() -> None:
    normal = np.asarray(random.normal(random.PRNGKey(SEED), (SIZE,), np.float32))
    erf_inv = np.asarray(jax.jit(lax.erf_inv)(EDGES))
    golden = {
        "jax_version": jax.__version__,
        "normal": {"seed": SEED, "size": SIZE, "stride": STRIDE,
                   "bits": to_hex(normal[::STRIDE])},
        "erf_inv": {"x": to_hex(EDGES), "bits": to_hex(erf_inv)},
    }
    out = pathlib.Path(__file__).parents[1] / "tests" / "random" / "golden_normal.json"
    out.write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()

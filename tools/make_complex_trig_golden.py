"""Record JAX 0.4.30's complex sin, cos, tan, sinh, cosh and tanh on a grid of special and
large values, for tests/lax/test_complex_trig.py.

Run with a Python that has jax 0.4.30 (and NumPy 1.26) from a directory of its own:
`cd /tmp/somedir && /tmp/jaxenv/bin/python /work/main/tools/make_complex_trig_golden.py`.
Writes tests/data/complex_trig_golden.json: per dtype, the grid's parts and, per function,
JAX's real and imaginary parts as float bit patterns (hex), checked to be the same eagerly and
under jit. Not a test module: the tests read only the file this writes and never import jax.
"""

from __future__ import annotations

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / \
    "complex_trig_golden.json"
# Zeros of both signs, small, moderate, near and past exp's overflow in either precision,
# huge, infinite and NaN parts.
PARTS = [0.0, -0.0, 1e-30, -1e-10, 1e-3, 0.5, -1.5, 3.0, 30.0, -88.0, 89.5, 100.0, 709.0,
         710.0, 1e30, float("inf"), float("-inf"), float("nan")]
FUNCTIONS = ["sin", "cos", "tan", "sinh", "cosh", "tanh"]


def _bits(v: np.ndarray) -> list[str]:
    uint = np.uint32 if v.dtype == np.float32 else np.uint64
    return [format(int(b), "x") for b in v.view(uint)]


def main() -> None:
    jax.config.update("jax_enable_x64", True)
    record: dict[str, object] = {"parts": PARTS}
    for dtype in ("complex64", "complex128"):
        z = np.array([complex(a, b) for a in PARTS for b in PARTS], dtype)
        per_function = {}
        for name in FUNCTIONS:
            fn = getattr(jax.numpy, name)
            eager, jitted = np.asarray(fn(z)), np.asarray(jax.jit(fn)(z))
            same = (eager.view(np.uint8) == jitted.view(np.uint8)).all() or np.array_equal(
                eager, jitted, equal_nan=True)
            assert same, (dtype, name)
            per_function[name] = [_bits(np.ascontiguousarray(eager.real)),
                                  _bits(np.ascontiguousarray(eager.imag))]
        record[dtype] = per_function
    OUT.write_text(json.dumps(record, indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

"""Regenerate tests/random/golden_sampler_programs.json with real JAX 0.4.30, run from a
throwaway virtual environment (`/tmp/jaxenv/bin/python tools/make_sampler_programs_golden.py`).

Sampler draws whose bits depend on how XLA:CPU compiles the sampler's program as a whole: one
draw (shape () or (1,), where constants become literals that XLA reassociates),
parameters that are constants of an outer jit (folded, or converted from float64 under x64
first), a single float32 `f` draw (the C library's logf/expf where LLVM pairs its two
chi-square draws), and float64 softmax (dirichlet) in XLA's order. Each case is a sampler, its
parameters, shape, dtype, mode (eager, jit or vmap over 3 split keys), threefry layout and x64
flag, with JAX's output bits for a few seeds. Not a test module: the tests read only the JSON
this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import numpy as np

SEEDS = [0, 1, 2, 3, 5, 7, 8, 9, 2**31 - 1]

# (sampler, parameters, shapes, dtypes, modes, x64 values)
CASES = [
    ("wald", [1.3], [(), (1,)], ["float32", "float16"], ["eager", "jit", "vmap"], [False]),
    ("wald", [0.7], [()], ["float32", "float64"], ["eager", "jit"], [True]),
    ("truncated_normal", [-1.5, 2.0], [(7, 5)], ["float32"], ["jit"], [True]),
    ("f", [3.0, 4.0], [(7, 5)], ["float32", "float16"], ["jit"], [True]),
    ("pareto", [3.0], [(7, 5)], ["float32"], ["jit"], [True]),
    # One float32 f draw: LLVM pairs its two chi-square draws into 2-lane libm calls.
    ("f", [3.0, 4.0], [(), (1,)], ["float32"], ["eager", "vmap"], [False]),
    ("f", [1.0, 1.5], [()], ["float32"], ["eager"], [False]),
    ("f", [0.5, 7.0], [()], ["float32"], ["eager"], [False]),
    # One sample is XLA's matrix-vector loop of fused multiply-adds. The 2 x 2 covariance has
    # a cholesky factor every LAPACK computes exactly the same (each step one rounding).
    ("multivariate_normal", [[0.3, -1.0], [[4.0, 1.5], [1.5, 3.0]]], [()], ["float32"],
     ["eager", "jit"], [False]),
    ("multivariate_normal", [[0.3, -1.0], [[4.0, 1.5], [1.5, 3.0]]], [()], ["float64"],
     ["eager"], [True]),
    ("dirichlet", [[0.5, 1.0, 2.0]], [(2, 3)], ["float64"], ["eager", "jit", "vmap"], [True]),
    ("dirichlet", [[1.0, 2.0, 3.0, 0.7]], [(5,)], ["float64"], ["eager"], [True]),
]


def _bits(x: np.ndarray) -> list[str]:
    x = np.asarray(x)
    return [f"{int(v):0{2 * x.itemsize}x}" for v in x.reshape(-1).view(f"u{x.itemsize}")]


def _run(name: str, params: list, shape: tuple, dtype: str, mode: str, seed: int) -> np.ndarray:
    fn = getattr(jax.random, name)
    args = [jax.numpy.array(p) if isinstance(p, list) else p for p in params]

    def draw(k: object) -> object:
        return fn(k, *args, shape, getattr(jax.numpy, dtype))

    key = jax.random.PRNGKey(seed)
    if mode == "jit":
        return np.asarray(jax.jit(draw)(key))
    if mode == "vmap":
        return np.asarray(jax.vmap(draw)(jax.random.split(key, 3)))
    return np.asarray(draw(key))


def main() -> None:
    rows = []
    for name, params, shapes, dts, modes, x64s in CASES:
        for x64 in x64s:
            jax.config.update("jax_enable_x64", x64)
            for part in (False, True):
                jax.config.update("jax_threefry_partitionable", part)
                for shape in shapes:
                    for dtype in dts:
                        for mode in modes:
                            out = [_run(name, params, shape, dtype, mode, s) for s in SEEDS]
                            rows.append({"sampler": name, "params": params, "shape": list(shape),
                                         "dtype": dtype, "mode": mode, "partitionable": part,
                                         "x64": x64, "seeds": SEEDS,
                                         "bits": [_bits(o) for o in out]})
    path = pathlib.Path(__file__).parent.parent / "tests/random/golden_sampler_programs.json"
    path.write_text(json.dumps({"jax_version": jax.__version__, "cases": rows}, indent=0) + "\n")


if __name__ == "__main__":
    main()

"""Regenerate tests/random/golden_rbg.json with real JAX 0.4.30, run from a throwaway virtual
environment (`/tmp/jaxenv/bin/python tools/make_rbg_golden.py`).

The cases of make_random_golden.py (every sampler) with `jax_default_prng_impl` set to rbg and
to unsafe_rbg, in both threefry bit layouts (rbg splits and folds with threefry), plus jit and
vmap cases. Not a test module: the tests read only the JSON this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
from jax import random as r  # type: ignore[import-not-found, unused-ignore]
from make_random_golden import CASES, X64_CASES, run

SEEDS = [0, 42, -1]
X64_SEEDS = [0, 2**40 + 7]

TRANSFORMED_CASES = {
    "jit_uniform": lambda k: jax.jit(lambda k: r.uniform(k, (5,)))(k),
    "jit_normal2x3": lambda k: jax.jit(lambda k: r.normal(k, (2, 3)))(k),
    "jit_split3": lambda k: jax.jit(lambda k: r.split(k, 3))(k),
    "jit_fold_in": lambda k: jax.jit(r.fold_in)(k, 11),
    "vmap_uniform": lambda k: jax.vmap(lambda k: r.uniform(k, (2,)))(r.split(k, 3)),
    "vmap_normal": lambda k: jax.vmap(lambda k: r.normal(k, (3,)))(r.split(k, 2)),
    "vmap_bits_u8": lambda k: jax.vmap(lambda k: r.bits(k, (3,), "uint8"))(r.split(k, 2)),
    "vmap_split": lambda k: jax.vmap(r.split)(r.split(k, 2)),
    "vmap_fold_in": lambda k: jax.vmap(r.fold_in)(r.split(k, 3), jax.numpy.arange(3)),
    "vmap_vmap_uniform": lambda k: jax.vmap(jax.vmap(lambda k: r.uniform(k, (2,))))(
        r.split(k, (2, 3))),
    "jit_vmap_randint": lambda k: jax.jit(jax.vmap(lambda k: r.randint(k, (3,), 0, 50)))(
        r.split(k, 2)),
}


def main() -> None:
    result: dict = {"jax_version": jax.__version__}
    for impl in ("rbg", "unsafe_rbg"):
        jax.config.update("jax_default_prng_impl", impl)
        # JAX 0.4.30's jit caches do not key on the default implementation: a function jitted
        # under rbg would be reused under unsafe_rbg.
        jax.clear_caches()
        for layout in (False, True):
            jax.config.update("jax_threefry_partitionable", layout)
            result[f"{impl} partitionable={layout}"] = run(
                {**CASES, **TRANSFORMED_CASES}, SEEDS)
            with jax.experimental.enable_x64():
                result[f"{impl} x64 partitionable={layout}"] = run(X64_CASES, X64_SEEDS)
    path = pathlib.Path(__file__).parent.parent / "tests" / "random" / "golden_rbg.json"
    path.write_text(json.dumps(result, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

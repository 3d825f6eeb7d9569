"""Run with the *real* JAX interpreter: writes the public names of JAX's public modules as JSON.

    <jaxref venv>/bin/python jax_public_names.py OUT.json

internal_shim.py reads the file (jax_public_names.json beside it) to tell a public JAX name that
the package under test lacks (-> the test fails with MissingAPIError) from a JAX-internal name that
a ported test reaches through an internal module (-> the test is skipped on both sides).
"""

import importlib
import json
import sys
import warnings

MODULES = [
    "jax",
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.lax.linalg",
    "jax.random",
    "jax.core",
    "jax.tree_util",
    "jax.tree",
    "jax.dtypes",
    "jax.custom_derivatives",
    "jax.custom_batching",
    "jax.custom_transpose",
    "jax.stages",
    "jax.experimental",
    "jax.experimental.checkify",
    "jax.experimental.host_callback",
    "jax.experimental.pjit",
    "jax.experimental.shard_map",
    "jax.experimental.maps",
    "jax.experimental.ode",
    "jax.experimental.multihost_utils",
    "jax.experimental.compilation_cache.compilation_cache",
    "jax.nn",
    "jax.nn.initializers",
    "jax.scipy",
    "jax.scipy.linalg",
    "jax.scipy.special",
    "jax.scipy.stats",
    "jax.debug",
    "jax.errors",
    "jax.sharding",
    "jax.ad_checkpoint",
    "jax.test_util",
    "jax.flatten_util",
    "jax.image",
    "jax.ops",
    "jax.util",
    "jax.extend",
    "jax.extend.random",
    "jax.profiler",
    "jax.typing",
    "jax.api_util",
    "jax.lib",
]


def main(out):
    names = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in MODULES:
            try:
                mod = importlib.import_module(m)
            except Exception:
                continue
            ns = set(n for n in dir(mod) if not n.startswith("_"))
            ns |= set(getattr(mod, "_deprecations", {}) or {})
            names[m] = sorted(ns)
    import jax

    names["__version__"] = jax.__version__
    with open(out, "w") as f:
        json.dump(names, f, indent=0)


if __name__ == "__main__":
    main(sys.argv[1])

"""Call every public function of jnp, jnp.linalg, jax.scipy.special, jax.scipy.linalg and
jax.nn on arrays of each dtype (and on weakly typed inputs), once under JAX and once under
numjax, and list where the results (dtype, weak type, shape, values) or the raised error types
differ. A discovery tool, like ../shared/tools/jaxdiff: what it finds becomes tests with JAX's
values as data.

    python tools/api_sweep.py record OUT.json --seed 1            # in an interpreter with jax
    PYTHONPATH=src python tools/api_sweep.py record OUT.json --seed 1 --numjax
    python tools/api_sweep.py compare JAX.json NUMJAX.json

`--inputs weak` uses weakly typed inputs (a broadcast Python scalar) instead of the dtype
table. Values are compared with a tolerance (2e-4, 2e-2 for 16-bit floats): the tool looks for
wrong results, not last-bit differences.
"""

from __future__ import annotations

import argparse
import importlib
import json
import warnings
from typing import Any

import numpy as np

# Functions that read or write files, print, or configure: not computations.
SKIP = frozenset({
    "save", "savez", "load", "fromfile", "fromstring", "frombuffer", "fromfunction",
    "fromiter", "vectorize", "frompyfunc", "piecewise", "set_printoptions", "printoptions",
    "get_printoptions", "array_repr", "array_str", "einsum_path", "iinfo", "finfo", "dtype",
    "result_type", "promote_types", "can_cast", "issubdtype", "isdtype", "ndim", "shape",
    "size"})
MODULES = {"jnp": "numpy", "la": "numpy.linalg", "sps": "scipy.special",
           "sla": "scipy.linalg", "nn": "nn", "lax": "lax", "stats": "scipy.stats.norm",
           "signal": "scipy.signal", "random": "random"}


def _inputs(kind: str, seed: int, jnp: Any) -> dict[str, Any]:
    if kind == "weak":
        return {"x": jnp.broadcast_to(0.75, (3,)), "y": jnp.broadcast_to(2.0, (3,)),
                "i": jnp.broadcast_to(3, (3,))}
    rng = np.random.default_rng(seed)
    table = {
        "f": rng.normal(size=(3, 4)).astype(np.float32),
        "fpos": rng.uniform(0.1, 2, size=(3, 4)).astype(np.float32),
        "i": rng.integers(-5, 6, size=(3, 4)).astype(np.int32),
        "u8": rng.integers(0, 200, size=(3, 4)).astype(np.uint8),
        "b": rng.integers(0, 2, size=(3, 4)).astype(bool),
        "c": (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64),
        "sq": rng.normal(size=(3, 3)).astype(np.float32),
        "f16": rng.normal(size=(3, 4)).astype(np.float16),
        "v": rng.normal(size=(5,)).astype(np.float32),
    }
    return {k: jnp.asarray(v) for k, v in table.items()}


def _leaf(value: Any) -> Any:
    if not (hasattr(value, "dtype") and hasattr(value, "shape")):
        return type(value).__name__
    host = np.asarray(value)
    if host.dtype.kind == "V":
        values: Any = "void"
    else:
        if host.dtype.kind in "fc" and host.dtype.itemsize < 4:
            host = host.astype(np.float32 if host.dtype.kind == "f" else np.complex64)
        flat = host.ravel()[:50]
        values = ([[z.real, z.imag] for z in flat.tolist()] if host.dtype.kind == "c"
                  else flat.tolist())
    return [str(value.dtype), bool(getattr(value, "weak_type", False)), list(value.shape),
            values]


def record(out: str, seed: int, use_numjax: bool, inputs: str) -> None:
    root = "numjax" if use_numjax else "jax"
    lib = importlib.import_module(root)
    mods = {short: importlib.import_module(f"{root}.{path}") for short, path in MODULES.items()}
    kinds = _inputs(inputs, seed, mods["jnp"])
    results: dict[str, Any] = {}
    warnings.simplefilter("ignore")
    for short, mod in mods.items():
        for name in sorted(dir(mod)):
            fun = getattr(mod, name)
            if name.startswith("_") or name in SKIP or not callable(fun) or isinstance(fun, type):
                continue
            for k1, a in kinds.items():
                for k2 in (None, k1, *list(kinds)[:2]):
                    key = f"{short}.{name}/{k1}" + ("" if k2 is None else f",{k2}")
                    if key in results:
                        continue
                    args = (a,) if k2 is None else (a, kinds[k2])
                    try:
                        leaves = lib.tree_util.tree_leaves(fun(*args))
                        results[key] = [_leaf(v) for v in leaves]
                    except Exception as e:  # the error type is the result
                        results[key] = "E:" + type(e).__name__
    with open(out, "w") as f:
        json.dump(results, f)


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, str) or isinstance(y, str):
        return bool(x == y)
    if len(x) != len(y):
        return False
    for p, q in zip(x, y, strict=True):
        if isinstance(p, str) or isinstance(q, str):
            if p != q:
                return False
            continue
        if p[:3] != q[:3]:
            return False
        if "void" in (p[3], q[3]):
            continue
        try:
            u, w = np.asarray(p[3], float), np.asarray(q[3], float)
        except (TypeError, ValueError):
            if p[3] != q[3]:
                return False
            continue
        tol = 2e-2 if p[0] in ("float16", "bfloat16") else 2e-4
        if u.shape != w.shape or not np.allclose(u, w, rtol=tol, atol=tol, equal_nan=True):
            return False
    return True


def compare(jax_file: str, numjax_file: str) -> None:
    with open(jax_file) as f:
        want = json.load(f)
    with open(numjax_file) as f:
        got = json.load(f)
    differing = 0
    for key in sorted(want):
        x, y = want[key], got.get(key)
        if y is None or (isinstance(x, str) and isinstance(y, str)) or _same(x, y):
            continue
        differing += 1
        print(f"{key}\n   jax    {json.dumps(x)[:160]}\n   numjax {json.dumps(y)[:160]}")
    print(f"{differing} of {len(want)} calls differ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out")
    rec.add_argument("--seed", type=int, default=1)
    rec.add_argument("--numjax", action="store_true")
    rec.add_argument("--inputs", choices=("dtypes", "weak"), default="dtypes")
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("jax_file")
    cmp_.add_argument("numjax_file")
    args = parser.parse_args()
    if args.command == "record":
        record(args.out, args.seed, args.numjax, args.inputs)
    else:
        compare(args.jax_file, args.numjax_file)


if __name__ == "__main__":
    main()

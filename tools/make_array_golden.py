"""Regenerate tests/data/array_print_golden.json with real JAX 0.4.30, run from a throwaway
virtual environment in a directory of its own (`cd /tmp/somedir &&
/tmp/jaxenv/bin/python /work/main/tools/make_array_golden.py`).

Records `repr`, `str` and `format` of Arrays as JAX prints them. Both print through NumPy, so
cases whose text depends on the NumPy or ml_dtypes version are left out: NumPy 2 switches
float32 values of 1e6 and more to scientific notation (NumPy 1.26 does not), and ml_dtypes
0.6 formats bfloat16 scalars with `.2f` where 0.5 raises. Each case is an expression
over `jnp`, `np` and `jax` that numjax evaluates too (`import numjax as jax`). Not a test
module: the tests read only the JSON this writes and never import jax.
"""

import json
import pathlib

import jax  # type: ignore[import-not-found, unused-ignore]
import jax.numpy as jnp  # type: ignore[import-not-found, unused-ignore]
import numpy as np

CASES = [
    "jnp.array([1., 2.])",
    "jnp.array([1, 2, 3])",
    "jnp.array([True, False, True])",
    "jnp.arange(4, dtype=jnp.bfloat16) / 3",
    "jnp.array([1 + 2j, -3.5j], dtype=jnp.complex64)",
    "jnp.array(0.1)",
    "jnp.array(7)",
    "jnp.array(True)",
    "jnp.array(-0.)",
    "jnp.array(2.5, dtype=jnp.bfloat16)",
    "jnp.array(1 - 1j, dtype=jnp.complex64)",
    "jax.device_put(1.5)",
    "jax.device_put(3)",
    "jax.device_put(True)",
    "jnp.ones(3) + 1.0",
    "jax.jit(lambda: 1.0)()",
    "jnp.zeros((0,))",
    "jnp.zeros((2, 0))",
    "jnp.zeros((0, 3), jnp.int32)",
    "jnp.zeros((0,), jnp.bfloat16)",
    "jnp.arange(2000.)",
    "jnp.arange(10000).reshape(100, 100)",
    "jnp.arange(1001, dtype=jnp.int32)",
    "jnp.arange(12.).reshape(3, 4) / 7",
    "jnp.arange(24).reshape(2, 3, 4)",
    "jnp.linspace(0, 1, 30)",
    "jnp.arange(100.)",
    "jnp.arange(30) * 1000000",
    "jnp.array([-0., 0.])",
    "jnp.array([jnp.nan, jnp.inf, -jnp.inf, 1.])",
    "jnp.array([1e10, 1e-10])",
    "jnp.array([1e20, 1.])",
    "jnp.array([123456.789, 0.001])",
    "jnp.array([0.1, 0.25], dtype=jnp.float16)",
    "jnp.array([1, 255], dtype=jnp.uint8)",
    "jnp.array([-128, 127], dtype=jnp.int8)",
    "jnp.array([[True, False], [False, True]])",
    "jnp.array([[0., 1.1, 2.2, 3.3], [4.4, 5.5, 6.6, 7.7], [8.8, 9.9, 11., 12.1]],"
    " dtype=jnp.bfloat16)",
    "jnp.arange(40, dtype=jnp.bfloat16)",
    "(jnp.arange(6.) - 2.5).astype(jnp.complex64).reshape(2, 3) * (1 + 1j)",
    "jnp.arange(20.).reshape(4, 5) * 1e3",
    "jax.random.PRNGKey(0)",
    "jnp.full((2, 2), jnp.nan)",
    "jnp.array([1., 2., 3.]) / 3",
    "jnp.ones((1, 1, 1))",
    "jnp.array([[1e-8, 1.0]])",
]

FORMATS = [
    ("jnp.array(1.5)", ".3f"),
    ("jnp.array(1.5)", ""),
    ("jnp.array(7)", "5d"),
    ("jnp.array(7)", ""),
    ("jnp.array(-0.)", "+.2e"),
    ("jnp.array(True)", ""),
    ("jnp.array(2.5, dtype=jnp.bfloat16)", ""),
    ("jnp.array(1 - 1j, dtype=jnp.complex64)", ".1f"),
    ("jax.device_put(1.5)", "g"),
    ("jnp.array([1., 2.])", ""),
    ("jnp.array([1., 2.])", ".2f"),
    ("jnp.arange(6).reshape(2, 3)", ""),
]


def outcome(thunk):
    try:
        return {"ok": thunk()}
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}


def main() -> None:
    env = {"jax": jax, "jnp": jnp, "np": np}
    cases = []
    for expr in CASES:
        x = eval(expr, env)
        cases.append({"expr": expr, "repr": repr(x), "str": str(x),
                      "repr_in_list": repr([x]) if x.size < 10 else None})
    formats = []
    for expr, spec in FORMATS:
        x = eval(expr, env)
        result = outcome(lambda x=x, spec=spec: format(x, spec))
        formats.append({"expr": expr, "spec": spec, **result})
    out = {"jax_version": jax.__version__, "numpy_version": np.__version__,
           "cases": cases, "formats": formats}
    path = pathlib.Path(__file__).parent.parent / "tests" / "data" / "array_print_golden.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

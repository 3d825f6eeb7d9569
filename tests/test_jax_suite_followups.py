"""Behaviours JAX 0.4.30's own test suite (tools/jax_conformance) found numjax getting wrong,
with JAX's recorded results as data.

Each row is (expression, configuration, what JAX returned): dtype, shape, weak type and values,
or the exception type and the first line of its message. Configuration keys: `x64`,
`promotion` (jax_numpy_dtype_promotion) and `rank` (jax_numpy_rank_promotion). The expressions
run unchanged against numjax (`L` is the library, `jnp` its numpy, `lax` its lax).
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
import numjax.scipy.linalg as jsl  # noqa: F401  (rows' expressions read it)
from numjax import lax
from numjax.lib import xla_client  # noqa: F401  (rows' expressions read it)

L = numjax
SYM3 = jnp.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 1.0]])

Row = tuple[str, dict[str, Any], dict[str, Any]]


def strict(a: str, b: str) -> str:
    """JAX's TypePromotionError text for dtypes `a` and `b` under strict promotion."""
    return (
        f"Input dtypes ('{a}', '{b}') have no available implicit dtype promotion path when "
        "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output "
        "type, or set jax_numpy_dtype_promotion=standard."
    )


# jnp functions that JAX jits take a NumPy operand at its canonical dtype (float64 -> float32
# with x64 off) before promotion; those JAX runs op by op (select, result_type) do not.
NUMPY_OPERANDS: list[Row] = [
    (
        "np.ones(3) * jnp.float32(2)",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [3], "weak": False, "v": [2.0, 2.0, 2.0]},
    ),
    (
        "jnp.multiply(np.ones(3), jnp.ones(3, 'float32'))",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [3], "weak": False, "v": [1.0, 1.0, 1.0]},
    ),
    (
        "jnp.dot(np.ones(3), jnp.ones(3, 'float32'))",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [], "weak": False, "v": 3.0},
    ),
    (
        "jnp.where(True, np.ones(2), jnp.zeros(2, 'float32'))",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [1.0, 1.0]},
    ),
    (
        "jnp.clip(jnp.ones(2, 'float32'), np.zeros(2), 2)",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [1.0, 1.0]},
    ),
    (
        "jnp.isclose(np.ones(2), jnp.ones(2, 'float32'))",
        {"promotion": "strict"},
        {"dtype": "bool", "shape": [2], "weak": False, "v": [True, True]},
    ),
    (
        "jnp.add(np.ones(2, 'int64'), jnp.ones(2, 'int32'))",
        {"promotion": "strict"},
        {"dtype": "int32", "shape": [2], "weak": False, "v": [2, 2]},
    ),
    (
        "jnp.add(np.ones(2, 'uint64'), jnp.ones(2, 'int32'))",
        {},
        {"dtype": "int32", "shape": [2], "weak": False, "v": [2, 2]},
    ),
    (
        "jnp.add(np.ones(2, 'float64'), jnp.ones(2, 'float16'))",
        {},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [2.0, 2.0]},
    ),
    (
        "lax.fori_loop(0, 2, lambda i, c: c + np.ones(2), jnp.zeros(2, 'float32'))",
        {"promotion": "strict"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [2.0, 2.0]},
    ),
    (
        "jnp.add(jnp.ones(2, 'float16'), np.ones(2))",
        {"promotion": "strict"},
        {
            "raises": "TypePromotionError",
            "message": strict("float16", "float32"),
        },
    ),
    (
        "jnp.select([np.array([True, False])], [np.ones(2)], jnp.zeros(2, 'float32'))",
        {"promotion": "strict"},
        {
            "raises": "TypePromotionError",
            "message": strict("float64", "float32"),
        },
    ),
    (
        "jnp.multiply(np.ones(2), jnp.ones(2, 'float32'))",
        {"promotion": "strict", "x64": True},
        {
            "raises": "TypePromotionError",
            "message": strict("float64", "float32"),
        },
    ),
    (
        "jnp.result_type(np.ones(2), jnp.ones(2, 'float32'))",
        {"promotion": "strict"},
        {
            "raises": "TypePromotionError",
            "message": strict("float64", "float32"),
        },
    ),
]

# jnp's scalar types compare as NumPy's do: equal to their dtype object, not to its name.
SCALAR_TYPES: list[Row] = [
    (
        "jnp.int32 == np.dtype('int32')",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "np.dtype('float32') == jnp.float32",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    ("jnp.bool_ == np.dtype(bool)", {}, {"dtype": "bool", "shape": [], "weak": False, "v": True}),
    (
        "jnp.bfloat16 == np.dtype(jnp.bfloat16)",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.int32 != np.dtype('int32')",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": False},
    ),
    ("jnp.int32 == 'int32'", {}, {"dtype": "bool", "shape": [], "weak": False, "v": False}),
    ("jnp.float32 == np.float64", {}, {"dtype": "bool", "shape": [], "weak": False, "v": False}),
    (
        "jnp.float32 == np.dtype('float64')",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": False},
    ),
]

# numjax's own jnp code broadcasts explicitly, so it works under jax_numpy_rank_promotion='raise'.
LIBRARY_RANKS: list[Row] = [
    (
        "jnp.linalg.pinv(jnp.ones((2, 70, 1))).shape == (2, 1, 70)",
        {"rank": "raise"},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.linalg.pinv(jnp.ones((2, 3, 2)), rtol=jnp.full(2, 0.5)).shape == (2, 2, 3)",
        {"rank": "raise"},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "L.jvp(jnp.linalg.det, (jnp.stack([jnp.eye(3)] * 2),), (jnp.ones((2, 3, 3)),))[1]",
        {"rank": "raise"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [3.0, 3.0]},
    ),
]

# linalg_test, lax_vmap_test and lax_autodiff_test (2026-11-28): jnp.linalg's vecdot, slogdet
# and diagonal as jnp's, qr's "raw" mode, lax.index_take, lax.broadcast_shapes' checks, and
# lax.fft taking jax.lib.xla_client.FftType.
LINALG_AND_LAX: list[Row] = [
    (
        "jnp.linalg.vecdot(jnp.ones((2, 2, 2)), jnp.arange(4.0).reshape(2, 2))",
        {"rank": "raise"},
        {"dtype": "float32", "shape": [2, 2], "weak": False, "v": [[1.0, 5.0], [1.0, 5.0]]},
    ),
    (
        "jnp.linalg.slogdet(jnp.stack([jnp.eye(3) * 2, -jnp.eye(3)])).sign",
        {"rank": "raise"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [1.0, -1.0]},
    ),
    (
        "jnp.linalg.slogdet(jnp.stack([jnp.eye(3) * 2, -jnp.eye(3)])).logabsdet",
        {"rank": "raise"},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [2.079441547393799, 0.0]},
    ),
    (
        "jnp.linalg.diagonal(jnp.array([[True, False], [False, False]]))",
        {},
        {"dtype": "bool", "shape": [2], "weak": False, "v": [True, False]},
    ),
    (
        "jnp.linalg.diagonal(jnp.arange(12).reshape(2, 2, 3), offset=1)",
        {},
        {"dtype": "int32", "shape": [2, 2], "weak": False, "v": [[1, 5], [7, 11]]},
    ),
    (
        "lax.broadcast_shapes((-1,))",
        {},
        {
            "raises": "TypeError",
            "message": (
                "Only non-negative indices are allowed when broadcasting static shapes, "
                "but got shape (-1,)."
            ),
        },
    ),
    (
        "lax.broadcast_shapes('hello')",
        {},
        {
            "raises": "TypeError",
            "message": "Shapes must be 1D sequences of concrete values of integer type, got hello.",
        },
    ),
    (
        "lax.broadcast_shapes((2, 1), (2.0,))",
        {},
        {
            "raises": "TypeError",
            "message": (
                "Shapes must be 1D sequences of concrete values of integer type, got (2.0,)."
            ),
        },
    ),
    (
        "[type(d).__name__ for d in lax.broadcast_shapes((1, 2, 3), (np.int64(2), 3))] == ['int'] "
        "* 3",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "lax.index_take(jnp.arange(24.0).reshape(2, 3, 4), (jnp.array([0, 1, -1]), jnp.array([2, "
        "-4, 5])), (0, 2))",
        {},
        {
            "dtype": "float32",
            "shape": [3, 3],
            "weak": False,
            "v": [[2.0, 6.0, 10.0], [12.0, 16.0, 20.0], [13.0, 17.0, 21.0]],
        },
    ),
    (
        "lax.index_take(jnp.arange(6).reshape(2, 3), (jnp.array([0, -1, 4]),), (1,))",
        {},
        {"dtype": "int32", "shape": [3, 2], "weak": False, "v": [[0, 3], [2, 5], [1, 4]]},
    ),
    (
        "L.grad(lambda s: lax.index_take(s, (jnp.array([1, -1]),), (0,)).sum())(jnp.arange(3.0))",
        {},
        {"dtype": "float32", "shape": [3], "weak": False, "v": [0.0, 1.0, 1.0]},
    ),
    (
        "jnp.round(jnp.linalg.qr(jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]), mode='raw')[0], "
        "3)",
        {},
        {
            "dtype": "float32",
            "shape": [2, 3],
            "weak": False,
            "v": [
                [-5.9160003662109375, 0.43400001525878906, 0.7230000495910645],
                [-8.282999992370605, 0.6320000290870667, 0.3970000147819519],
            ],
        },
    ),
    (
        "jnp.round(jnp.linalg.qr(jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]), mode='raw')[1], "
        "3)",
        {},
        {
            "dtype": "float32",
            "shape": [2],
            "weak": False,
            "v": [1.1690000295639038, 1.7280000448226929],
        },
    ),
    (
        "jnp.linalg.qr(jnp.ones((2, 4, 3), 'complex64'), mode='raw')[0].shape == (2, 3, 4)",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.linalg.qr(jnp.ones((2, 4, 3), 'complex64'), mode='raw')[1].dtype == jnp.complex64",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.linalg.qr(jnp.ones((0, 3)), mode='raw')[1].shape == (0,)",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "L.vmap(lambda x: jnp.linalg.qr(x, mode='raw')[1])(jnp.ones((2, 3, 3)) + "
        "jnp.eye(3)).shape == (2, 3)",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.linalg.qr(jnp.eye(3), mode='full').R.shape == (3, 3)",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "L.jvp(lambda x: jnp.linalg.qr(x, mode='raw')[0], (jnp.eye(2),), (jnp.eye(2),))",
        {},
        {
            "raises": "NotImplementedError",
            "message": "Differentiation rule for 'geqrf' not implemented",
        },
    ),
    (
        "L.jvp(lambda a: lax.linalg.householder_product(a, jnp.ones(2)), (jnp.ones((3, 2)),), "
        "(jnp.ones((3, 2)),))",
        {},
        {
            "raises": "NotImplementedError",
            "message": "Differentiation rule for 'householder_product' not implemented",
        },
    ),
    (
        "lax.fft(jnp.array([1.0, 1.0]), xla_client.FftType.FFT, (2,)).real",
        {},
        {"dtype": "float32", "shape": [2], "weak": False, "v": [2.0, 0.0]},
    ),
    (
        "L.vmap(lambda x: lax.fft(x, xla_client.FftType.IRFFT, (4,)))(jnp.ones((2, 3), "
        "'complex64'))",
        {},
        {
            "dtype": "float32",
            "shape": [2, 4],
            "weak": False,
            "v": [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
        },
    ),
]

# jnp.linalg.solve's shape errors are those of the jnp.vectorize signature JAX solves through.
SOLVE_SHAPES: list[Row] = [
    (
        "jnp.linalg.solve(jnp.ones((3, 3)) + jnp.eye(3), jnp.ones(2))",
        {},
        {
            "raises": "ValueError",
            "message": (
                "inconsistent size for core dimension 'm': 2 vs 3"
                " on vectorized function with excluded=frozenset() and "
                "signature='(m,m),(m)->(m)'"
            ),
        },
    ),
    (
        "jnp.linalg.solve(jnp.ones((3, 3)) + jnp.eye(3), jnp.ones((2, 4)))",
        {},
        {
            "raises": "ValueError",
            "message": (
                "inconsistent size for core dimension 'm': 2 vs 3"
                " on vectorized function with excluded=frozenset() and "
                "signature='(m,m),(m,n)->(m,n)'"
            ),
        },
    ),
    (
        "jnp.linalg.solve(jnp.ones((3, 3)) + jnp.eye(3), jnp.ones(()))",
        {},
        {
            "raises": "ValueError",
            "message": (
                "input with shape () does not have enough dimensions for all core dimensions "
                "('m', 'n')"
                " on vectorized function with excluded=frozenset() and "
                "signature='(m,m),(m,n)->(m,n)'"
            ),
        },
    ),
]

# jax.scipy.linalg's own code promotes explicitly: it works under strict promotion.
LIBRARY_STRICT: list[Row] = [
    (
        "jsl.rsf2csf(jnp.array([[0.0, 1.0], [-1.0, 0.0]]), jnp.eye(2))[0].dtype == jnp.complex64",
        {"promotion": "strict"},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.round(jnp.abs(jsl.funm(jnp.array([[1.0, 2.0], [0.0, 3.0]]), jnp.exp)), 3)",
        {"promotion": "strict"},
        {
            "dtype": "float32",
            "shape": [2, 2],
            "weak": False,
            "v": [[2.7180001735687256, 17.367000579833984], [0.0, 20.086000442504883]],
        },
    ),
    (
        "jsl.eigh_tridiagonal(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.5, 0.5]), "
        "eigvals_only=True)",
        {"promotion": "strict"},
        {
            "dtype": "float32",
            "shape": [3],
            "weak": False,
            "v": [0.7752552032470703, 1.9999998807907104, 3.2247447967529297],
        },
    ),
]

# lax.linalg.tridiagonal (LAPACK's sytrd/hetrd), on SYM3 below; its checks are TypeErrors.
TRIDIAGONAL: list[Row] = [
    (
        "jnp.round(lax.linalg.tridiagonal(SYM3)[1], 3)",
        {},
        {
            "dtype": "float32",
            "shape": [3],
            "weak": False,
            "v": [4.0, 1.8000000715255737, 2.200000047683716],
        },
    ),
    (
        "jnp.round(jnp.abs(lax.linalg.tridiagonal(SYM3, lower=False)[2]), 3)",
        {},
        {
            "dtype": "float32",
            "shape": [2],
            "weak": False,
            "v": [0.6470000147819519, 2.062000036239624],
        },
    ),
    (
        "[x.dtype.name for x in lax.linalg.tridiagonal(jnp.eye(3, dtype='complex64'))] "
        "== ['complex64', 'float32', 'float32', 'complex64']",
        {},
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "lax.linalg.tridiagonal(jnp.ones((3, 2)))",
        {},
        {
            "raises": "TypeError",
            "message": (
                "tridiagonal requires the last two dimensions of a to be equal in "
                "size, got a.shape of (3, 2)."
            ),
        },
    ),
    (
        "lax.linalg.tridiagonal(jnp.ones((0, 0)))",
        {},
        {
            "raises": "TypeError",
            "message": (
                "tridiagonal requires the last two dimensions of a to be non-zero, got "
                "a.shape of (0, 0)."
            ),
        },
    ),
    (
        "lax.linalg.tridiagonal(jnp.ones(3))",
        {},
        {"raises": "TypeError", "message": "tridiagonal requires a.ndim to be at least 2, got 1."},
    ),
    (
        "lax.linalg.tridiagonal(jnp.ones((2, 2), 'int32'))",
        {},
        {
            "raises": "TypeError",
            "message": (
                "tridiagonal requires a.dtype to be float32, float64, complex64, or "
                "complex128, got int32."
            ),
        },
    ),
    (
        "L.jvp(lambda x: lax.linalg.tridiagonal(x)[1], (jnp.eye(2),), (jnp.eye(2),))",
        {},
        {
            "raises": "NotImplementedError",
            "message": "Differentiation rule for 'tridiagonal' not implemented",
        },
    ),
]

ROWS: list[Row] = (
    NUMPY_OPERANDS
    + SCALAR_TYPES
    + LIBRARY_RANKS
    + LINALG_AND_LAX
    + SOLVE_SHAPES
    + LIBRARY_STRICT
    + TRIDIAGONAL
)


def _values(v: Any) -> Any:
    """Recorded values: floats that are not finite are strings (real results only)."""
    if isinstance(v, list):
        return [_values(x) for x in v]
    if isinstance(v, float) and not np.isfinite(v):
        return str(v)
    return v


def _encode(out: Any) -> dict[str, Any]:
    if isinstance(out, tuple) and not hasattr(out, "dtype"):
        return {"items": [_encode(x) for x in out]}
    a = np.asarray(out)
    return {
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "weak": bool(getattr(out, "weak_type", False)),
        "v": _values(a.tolist()),
    }


# The dtypes in a promotion error come from a set in JAX, so their order is not part of the
# behaviour: compare the message with the tuple sorted.
_NODES = re.compile(r"Input dtypes \(([^)]*)\)")


def _normalized(message: str) -> str:
    return _NODES.sub(lambda m: "(" + ", ".join(sorted(m.group(1).split(", "))) + ")", message)


def _evaluate(expr: str, cfg: dict[str, Any]) -> dict[str, Any]:
    with (
        L.experimental.enable_x64(cfg.get("x64", False)),
        L.numpy_dtype_promotion(cfg.get("promotion", "standard")),
        L.numpy_rank_promotion(cfg.get("rank", "allow")),
    ):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                return _encode(eval(expr))
        except Exception as e:
            text = str(e).splitlines()[0] if str(e) else ""
            return {"raises": type(e).__name__, "message": text}


@pytest.mark.parametrize(("expr", "cfg", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_matches_jax(expr: str, cfg: dict[str, Any], expected: dict[str, Any]) -> None:
    got = _evaluate(expr, cfg)
    if "raises" in expected:
        assert "raises" in got, got
        assert got["raises"] == expected["raises"]
        assert _normalized(got["message"]) == _normalized(expected["message"])
    else:
        assert "v" in got, got
        assert {k: got[k] for k in got if k != "v"} == {
            k: expected[k] for k in expected if k != "v"
        }
        want = np.array(_decoded(expected["v"]), dtype=got["dtype"])
        have = np.array(_decoded(got["v"]), dtype=got["dtype"])
        if want.dtype.kind in "fc":  # a few ulp: the platform's BLAS and libm may differ
            np.testing.assert_allclose(have, want, rtol=1e-5, atol=0, equal_nan=True)
        else:
            np.testing.assert_array_equal(have, want)


def _decoded(v: Any) -> Any:
    """Recorded values back to numbers (non-finite floats are recorded as strings)."""
    if isinstance(v, list):
        return [_decoded(x) for x in v]
    return float(v) if isinstance(v, str) else v


def test_control_flow_traces_a_function_once_per_signature() -> None:
    """cond/switch/scan/while_loop keep the traced body per function and signature: the
    running trace count after each step, as JAX 0.4.30 counts it (a new lambda, a new shape,
    another matmul precision or clear_caches trace again; jit, grad and vmap of a cond whose
    branches were traced on the same avals do not)."""
    count = {"g": 0}

    def g(x: Any) -> Any:
        count["g"] += 1
        return x * 2.0

    x = jnp.ones(3)
    seen = []
    lax.cond(True, g, g, x)
    seen.append(count["g"])
    lax.cond(False, g, g, x)
    seen.append(count["g"])
    lax.switch(1, [g, g, g], x)
    seen.append(count["g"])
    lax.cond(True, g, g, jnp.ones(4))
    seen.append(count["g"])
    lax.scan(lambda c, _: (g(c), None), x, None, length=2)
    seen.append(count["g"])
    body = lambda c, _: (g(c), None)
    lax.scan(body, x, None, length=2)
    lax.scan(body, x, None, length=2)
    seen.append(count["g"])
    cond_fun, body_fun = (lambda c: c[0] < 3.0), (lambda c: g(c))
    lax.while_loop(cond_fun, body_fun, x)
    lax.while_loop(cond_fun, body_fun, x)
    seen.append(count["g"])
    lax.fori_loop(0, 2, lambda i, c: g(c), x)
    seen.append(count["g"])
    with L.default_matmul_precision("float32"):
        lax.cond(True, g, g, x)
    seen.append(count["g"])
    L.clear_caches()
    lax.cond(True, g, g, x)
    seen.append(count["g"])
    L.jit(lambda x: lax.cond(True, g, g, x))(x)
    seen.append(count["g"])
    L.grad(lambda x: lax.cond(True, g, g, x).sum())(x)
    seen.append(count["g"])
    L.vmap(lambda x: lax.cond(True, g, g, x))(jnp.ones((2, 3)))
    seen.append(count["g"])
    assert seen == [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9]


def test_donate_argnames_with_keyword_arguments() -> None:
    """Donation by name marks and deletes the named keyword arguments' buffers, whatever the
    order the keywords are passed in (JAX 0.4.30: z deleted, y and x kept; args_info's donated
    flags True, True, False for donate_argnames=('z', 'y'))."""
    f = L.jit(lambda z, y, x: (z * 2, y * 2, x * 2), donate_argnames=("z",))
    z, y, x = jnp.ones(3), jnp.ones(3), jnp.ones(3)
    f(z=z, y=y, x=x)
    assert (z.is_deleted(), y.is_deleted(), x.is_deleted()) == (True, False, False)
    for options in ({"donate_argnames": ("z", "y")}, {"donate_argnums": (0, 1)}):
        g = L.jit(lambda z, y, x: (z, y, x), **options)
        _, info = g.lower(z={"c": 3.0}, y={"b": 2.0}, x={"a": 1.0}).args_info
        assert (info["z"]["c"].donated, info["y"]["b"].donated, info["x"]["a"].donated) == (
            True,
            True,
            False,
        )


@pytest.mark.parametrize("option", ["static_argnames", "donate_argnames"])
@pytest.mark.parametrize("names", [("a", "c"), ("args", "c")])
def test_argnames_naming_positional_only_parameters(option: str, names: tuple[str, str]) -> None:
    """A positional-only parameter or *args cannot be named (JAX 0.4.30's ValueError)."""

    def h(a: Any, /, b: Any, c: Any, *args: Any, **kwargs: Any) -> Any:
        return a

    message = f"Jitted function has invalid argnames {{'{names[0]}'}} in {option}. These are "
    with pytest.raises(ValueError, match=re.escape(message) + "positional-only$"):
        L.jit(h, **{option: names})


def test_lowered_and_compiled_report_in_avals_and_donate_argnums() -> None:
    """`Lowered`/`Compiled.in_avals` is the tree of argument avals and `donate_argnums` the
    donated flat indices; `Compiled.runtime_executable()` returns the program's executable
    (JAX 0.4.30's values below)."""
    f = L.jit(lambda a, b=None, *, c: a, donate_argnums=(0,))
    lowered = f.lower({"p": 1.0, "q": jnp.ones(3, "int32")}, c=jnp.ones(2))
    compiled = lowered.compile()
    p, q = lowered.in_avals[0][0]["p"], lowered.in_avals[0][0]["q"]
    c = lowered.in_avals[1]["c"]
    assert ((p.shape, str(p.dtype), p.weak_type), (q.shape, str(q.dtype), q.weak_type)) == (
        ((), "float32", True),
        ((3,), "int32", False),
    )
    assert (c.shape, str(c.dtype)) == ((2,), "float32")
    assert compiled.in_avals == lowered.in_avals
    assert lowered.donate_argnums == compiled.donate_argnums == (0, 1)
    assert compiled.runtime_executable() is not None


@pytest.mark.parametrize("wrap", ["jit", "checkpoint", "cond"])
def test_cached_traces_depend_on_the_bound_axes(wrap: str) -> None:
    """A function traced under a named vmap of one size is traced again under another:
    `psum(1, 'i')` is the axis size (JAX 0.4.30: [2. 2.], then [3. 3. 3.])."""
    body = lambda x: x + lax.psum(1, "i")
    if wrap == "jit":
        f = L.jit(body)
    elif wrap == "checkpoint":
        f = L.checkpoint(body)
    else:
        f = lambda x: lax.cond(True, body, lambda x: x + 0, x)
    two = L.vmap(f, axis_name="i")(jnp.zeros(2))
    three = L.vmap(f, axis_name="i")(jnp.zeros(3))
    assert two.tolist() == [2.0, 2.0] and three.tolist() == [3.0, 3.0, 3.0]


def _generator(x: Any) -> Any:
    yield x


# JAX 0.4.30's exception types and texts for bad arguments to the API.
BAD_API_INPUT = [
    (
        lambda: L.jit(_generator),
        TypeError,
        "Expected a function, got a generator function: <function _generator",
    ),
    (
        lambda: L.ShapeDtypeStruct(shape=(), dtype=None),
        ValueError,
        "ShapeDtypeStruct: dtype must be specified.",
    ),
    (
        lambda: L.vmap(lambda x: x["a"], in_axes={"a": 0}),
        TypeError,
        "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
        "positional arguments passed to the function, but got {'a': 0}.",
    ),
    (
        lambda: L.jacfwd(jnp.sin)(1 + 2j),
        TypeError,
        "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), "
        "but got complex64. For holomorphic differentiation, pass holomorphic=True. For "
        "differentiation of non-holomorphic functions involving complex inputs or integer "
        "inputs, use jax.jvp directly.",
    ),
]


@pytest.mark.parametrize(("call", "error", "text"), BAD_API_INPUT)
def test_bad_api_input(call: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match="^" + re.escape(text)):
        call()


def test_jacrev_still_takes_complex_inputs() -> None:
    """Reverse mode accepts complex inputs with real outputs (JAX 0.4.30: 2 - 4j)."""
    out = L.jacrev(lambda z: jnp.abs(z) ** 2)(jnp.complex64(1 + 2j))
    assert complex(out) == 2 - 4j


SOLVE_WARNING = (
    "jnp.linalg.solve: batched 1D solves with b.ndim > 1 are deprecated, and in the future will "
    "be treated as a batched 2D solve. Use solve(a, b[..., None])[..., 0] to avoid this warning."
)


def test_solve_of_a_stack_of_vectors() -> None:
    # JAX 0.4.30 solves b of shape (..., m) against a of shape (..., m, m) vector by vector,
    # with a FutureWarning; batch dimensions that do not broadcast raise vectorize's error.
    a = jnp.stack([jnp.eye(2) * 2, jnp.eye(2) * 4])
    with pytest.warns(FutureWarning) as record:
        x = jnp.linalg.solve(a, jnp.ones((2, 2)))
    assert [str(w.message) for w in record] == [SOLVE_WARNING]
    np.testing.assert_allclose(x, [[0.5, 0.5], [0.25, 0.25]])
    with pytest.warns(FutureWarning):
        assert numjax.jacobian(jnp.linalg.solve, 1)(a, jnp.ones((2, 2))).shape == (2, 2, 2, 2)
    with pytest.warns(FutureWarning), pytest.raises(ValueError) as e:
        jnp.linalg.solve(jnp.ones((2, 3, 3)) + jnp.eye(3), jnp.ones((4, 3)))
    assert str(e.value) == "Incompatible shapes for broadcasting: shapes=[(2,), (4,)]"

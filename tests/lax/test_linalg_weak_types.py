"""Weak types of linear algebra results, recorded from JAX 0.4.30: a decomposition of a weakly
typed matrix keeps the weak type on its outputs (lax.linalg derives them from the operand's
aval), the LU pivots included; triangular and tridiagonal solves are weak when every operand
is; hessenberg's reflector scales and tridiagonal's outputs are strong."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
import numjax.scipy.linalg as jsl
from numjax import lax

L = lax.linalg


def _weak_matrix() -> Any:
    return jnp.where(np.eye(3, dtype=bool), 4.0, 1.0)  # weakly typed float32, SPD


def _lower(x: Any) -> Any:
    return jnp.where(np.tri(3, dtype=bool), x, 0.0)


def _strong(x: Any) -> Any:
    return lax.convert_element_type(x, np.float32)


def _tridiagonal_operands(x: Any) -> tuple[Any, ...]:
    return (jnp.where(np.array([False, True, True]), 1.0, 0.0), x[1],
            jnp.where(np.array([True, True, False]), 1.0, 0.0), x)


# (name, function of the weak matrix, JAX's (dtype, weak_type) per output)
CASES = [
    ("cholesky", L.cholesky, [("float32", True)]),
    ("eig", L.eig, [("complex64", True)] * 3),
    ("eigh", L.eigh, [("float32", True)] * 2),
    ("lu", L.lu, [("float32", True), ("int32", True), ("int32", True)]),
    ("lu_pivots_to_permutation", lambda x: L.lu_pivots_to_permutation(L.lu(x)[1], 3),
     [("int32", True)]),
    ("qr", L.qr, [("float32", True)] * 2),
    ("qr full", lambda x: L.qr(x, full_matrices=True), [("float32", True)] * 2),
    ("householder_product", lambda x: L.householder_product(x, x[0]), [("float32", True)]),
    ("svd", L.svd, [("float32", True)] * 3),
    ("svd values", lambda x: L.svd(x, compute_uv=False), [("float32", True)]),
    ("schur", L.schur, [("float32", True)] * 2),
    ("hessenberg", L.hessenberg, [("float32", True), ("float32", False)]),
    ("tridiagonal", L.tridiagonal, [("float32", False)] * 4),
    ("tridiagonal_solve", lambda x: L.tridiagonal_solve(*_tridiagonal_operands(x)),
     [("float32", True)]),
    ("triangular_solve", lambda x: L.triangular_solve(_lower(x), x, left_side=True,
                                                       lower=True), [("float32", True)]),
    ("triangular_solve strong b", lambda x: L.triangular_solve(
        _lower(x), _strong(x), left_side=True, lower=True), [("float32", False)]),
    ("triangular_solve strong a", lambda x: L.triangular_solve(
        _strong(_lower(x)), x, left_side=True, lower=True), [("float32", False)]),
    ("jnp.linalg.cholesky", jnp.linalg.cholesky, [("float32", True)]),
    ("jnp.linalg.eigh", jnp.linalg.eigh, [("float32", True)] * 2),
    ("jnp.linalg.eigvalsh", jnp.linalg.eigvalsh, [("float32", True)]),
    ("jnp.linalg.qr", jnp.linalg.qr, [("float32", True)] * 2),
    ("jnp.linalg.qr r", lambda x: jnp.linalg.qr(x, mode="r"), [("float32", True)]),
    ("jnp.linalg.svd", jnp.linalg.svd, [("float32", True)] * 3),
    ("jnp.linalg.svdvals", jnp.linalg.svdvals, [("float32", True)]),
    ("jnp.linalg.eig", jnp.linalg.eig, [("complex64", True)] * 2),
    ("jnp.linalg.inv", jnp.linalg.inv, [("float32", False)]),
    ("jnp.linalg.pinv", jnp.linalg.pinv, [("float32", False)]),
    ("jnp.linalg.slogdet", lambda x: tuple(jnp.linalg.slogdet(x)), [("float32", False)] * 2),
    ("scipy lu", jsl.lu, [("float32", False), ("float32", False), ("float32", True)]),
    ("scipy lu_factor", jsl.lu_factor, [("float32", True), ("int32", True)]),
    ("scipy schur", jsl.schur, [("float32", True)] * 2),
    ("scipy hessenberg", jsl.hessenberg, [("float32", True)]),
    ("scipy solve_triangular", lambda x: jsl.solve_triangular(_lower(x), x, lower=True),
     [("float32", True)]),
    ("scipy cho_solve", lambda x: jsl.cho_solve((L.cholesky(x), True), x), [("float32", True)]),
    ("scipy lu_solve", lambda x: jsl.lu_solve(jsl.lu_factor(x), x), [("float32", True)]),
    ("jnp.linalg.solve", lambda x: jnp.linalg.solve(x, x), [("float32", True)]),
    ("jnp.linalg.solve strong a", lambda x: jnp.linalg.solve(_strong(x), x),
     [("float32", False)]),
    ("jnp.linalg.solve strong b", lambda x: jnp.linalg.solve(x, _strong(x)),
     [("float32", False)]),
    ("scipy solve", lambda x: jsl.solve(x, x), [("float32", True)]),
]


@pytest.mark.parametrize("name, fn, expected", CASES, ids=[c[0] for c in CASES])
def test_weak_types_of_linalg_results(name: str, fn: Any, expected: list[Any]) -> None:
    x = _weak_matrix()
    assert x.weak_type
    for out in (fn(x), jax.jit(fn)(x)):
        outs = out if isinstance(out, (tuple, list)) else (out,)
        assert [(o.dtype.name, o.weak_type) for o in outs] == expected


def test_qr_of_a_weak_integer_matrix_fuzzer_record() -> None:
    # fuzzer seed 21001: qr of bool@bool.T + eye(3, bool) * 3 (a weakly typed int32 matrix)
    # gives weakly typed float32 Q and R in JAX 0.4.30, eagerly, under jit and under vmap.
    v1 = np.array([[[True], [False], [True]]])
    f = lambda v: jnp.linalg.qr(v @ jnp.swapaxes(v, -1, -2) + jnp.eye(3, dtype=v.dtype) * 3)
    for q, r in (f(v1), jax.jit(f)(v1), jax.vmap(f)(v1)):
        assert (q.dtype, q.weak_type, r.dtype, r.weak_type) == (np.float32, True,
                                                                np.float32, True)
    strong = jnp.linalg.qr(np.eye(3, dtype=np.int32))
    assert not strong[0].weak_type and not strong[1].weak_type

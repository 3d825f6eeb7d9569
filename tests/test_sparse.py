"""jax.experimental.sparse.BCOO (no batch or dense dimensions), against JAX 0.4.30's values."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
import scipy.sparse

import numjax
import numjax.numpy as jnp
from numjax.experimental import sparse
from numjax.test_util import check_grads

M = np.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]], np.float32)
INDICES = [[0, 1], [0, 3], [1, 0], [2, 2]]


def test_fromdense_stores_the_nonzeros_in_row_major_order() -> None:
    s = sparse.BCOO.fromdense(M)
    assert repr(s) == "BCOO(float32[3, 4], nse=4)"
    np.testing.assert_array_equal(s.data, [1., 2., 3., 4.])
    np.testing.assert_array_equal(s.indices, INDICES)
    assert s.indices.dtype == np.int32 and s.dtype == np.float32
    assert (s.shape, s.ndim, s.nse, s.n_batch, s.n_sparse, s.n_dense) == ((3, 4), 2, 4, 0, 2, 0)
    assert s.indices_sorted and s.unique_indices
    np.testing.assert_array_equal(s.todense(), M)
    assert repr(sparse.BCOO.fromdense(jnp.array([1, 0, 2]))) == "BCOO(int32[3], nse=2)"
    assert sparse.BCOO.fromdense(M, index_dtype=jnp.int16).indices.dtype == np.int16


@pytest.mark.parametrize("jit", [False, True])
def test_fromdense_with_nse_pads_or_truncates(jit: bool) -> None:
    def data_and_indices(m, nse):  # type: ignore[no-untyped-def]
        s = sparse.BCOO.fromdense(m, nse=nse)
        return s.data, s.indices, s.todense()

    f = numjax.jit(data_and_indices, static_argnums=1) if jit else data_and_indices
    data, indices, dense = f(M, 5)
    # Padding: zero data at the out-of-bounds coordinate (3, 4), dropped by todense (JAX).
    np.testing.assert_array_equal(data, [1., 2., 3., 4., 0.])
    np.testing.assert_array_equal(indices, INDICES + [[3, 4]])
    np.testing.assert_array_equal(dense, M)
    data, indices, dense = f(M, 3)
    np.testing.assert_array_equal(indices, INDICES[:3])
    np.testing.assert_array_equal(dense, [[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 0., 0.]])


def test_products_with_dense_operands() -> None:
    s = sparse.BCOO.fromdense(M)
    np.testing.assert_array_equal(s @ jnp.arange(4.), [7., 0., 8.])
    np.testing.assert_array_equal(jnp.arange(3.) @ s, [3., 0., 8., 0.])
    np.testing.assert_array_equal(s.T @ jnp.arange(3.), [3., 0., 8., 0.])
    np.testing.assert_array_equal(jnp.ones((2, 3)) @ s, [[3., 1., 4., 2.]] * 2)
    np.testing.assert_array_equal(np.ones(3, np.float32) @ s, [3., 1., 4., 2.])
    out = sparse.bcoo_dot_general(s, jnp.ones((4, 2)), dimension_numbers=(([1], [0]), ([], [])))
    np.testing.assert_array_equal(out, [[3., 3.], [3., 3.], [4., 4.]])
    np.testing.assert_array_equal(numjax.jit(lambda a, x: a @ x)(s, jnp.ones(4)), [3., 3., 4.])
    np.testing.assert_array_equal(numjax.vmap(lambda x: s @ x)(jnp.ones((2, 4))),
                                  [[3., 3., 4.]] * 2)
    s3 = sparse.BCOO.fromdense(jnp.arange(8.).reshape(2, 2, 2))
    assert repr(s3) == "BCOO(float32[2, 2, 2], nse=7)"
    out = sparse.bcoo_dot_general(s3, jnp.ones((2, 3)), dimension_numbers=(([2], [0]), ([], [])))
    np.testing.assert_array_equal(out, np.arange(8.).reshape(2, 2, 2).sum(-1)[..., None]
                                  * np.ones(3))
    np.testing.assert_array_equal((s * 2.).data, [2., 4., 6., 8.])


def test_duplicate_coordinates_add() -> None:
    d = sparse.BCOO((jnp.array([1., 2.]), jnp.array([[0, 0], [0, 0]])), shape=(2, 2))
    np.testing.assert_array_equal(d.todense(), [[3., 0.], [0., 0.]])
    np.testing.assert_array_equal(d @ jnp.ones(2), [3., 0.])


def test_gradients_flow_to_the_data_and_the_dense_operand() -> None:
    s = sparse.BCOO.fromdense(M)

    def f(data):  # type: ignore[no-untyped-def]
        return (sparse.BCOO((data, s.indices), shape=s.shape) @ jnp.ones(4)).sum()

    np.testing.assert_array_equal(numjax.grad(f)(s.data), [1., 1., 1., 1.])

    def g(m, x):  # type: ignore[no-untyped-def]
        return (sparse.BCOO.fromdense(m, nse=4) @ x).sum()

    # fromdense reads the matrix at its nonzeros: only they receive a gradient (JAX).
    np.testing.assert_array_equal(numjax.grad(g)(M, jnp.arange(4.)),
                                  [[0., 1., 0., 3.], [0., 0., 0., 0.], [0., 0., 2., 0.]])
    np.testing.assert_array_equal(numjax.grad(g, 1)(M, jnp.arange(4.)), [3., 1., 4., 2.])
    check_grads(lambda d, x: sparse.BCOO((d, s.indices), shape=s.shape) @ x,
                (s.data, jnp.arange(4.)), order=2, modes=["fwd", "rev"])


def test_from_scipy_sparse_and_the_pytree() -> None:
    s = sparse.BCOO.from_scipy_sparse(scipy.sparse.csr_matrix(M))
    assert repr(s) == "BCOO(float32[3, 4], nse=4)" and s.indices.dtype == np.int32
    np.testing.assert_array_equal(s.indices, INDICES)
    np.testing.assert_array_equal(s.todense(), M)
    leaves, tree = numjax.tree_util.tree_flatten(sparse.BCOO.fromdense(M))
    assert len(leaves) == 2
    assert "{'shape': (3, 4), 'indices_sorted': True, 'unique_indices': True}" in str(tree)
    assert sparse.BCOO.fromdense(M).T.todense().shape == (4, 3)
    assert not sparse.BCOO.fromdense(M).T.indices_sorted


A = np.array([[0., 1., 0.], [1., 0., 2.], [0., 2., 0.]], np.float32)
STACK = np.arange(6., dtype=np.float32).reshape(2, 3, 1)
# JAX 0.4.30: a BCOO matrix times a stack of matrices, and a stack times it (numpyro's CAR
# distribution computes `adj @ phi[..., None]`), are dense products over the stack.
SA_STACK = [[[1.0], [4.0], [2.0]], [[4.0], [13.0], [8.0]]]
STACK_SA = [[[1.0, 4.0, 2.0], [4.0, 13.0, 8.0]], [[7.0, 22.0, 14.0], [10.0, 31.0, 20.0]]]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_matmul_with_a_stack_of_matrices(jit: bool) -> None:
    s = sparse.BCOO.fromdense(A)
    mm = numjax.jit(lambda a, b: a @ b) if jit else (lambda a, b: a @ b)
    out = mm(s, STACK)
    assert out.shape == (2, 3, 1) and out.dtype == np.float32
    np.testing.assert_array_equal(out, SA_STACK)
    np.testing.assert_array_equal(mm(jnp.arange(12., dtype=np.float32).reshape(2, 2, 3), s),
                                  STACK_SA)
    np.testing.assert_array_equal(numjax.vmap(lambda x: s @ x)(STACK), SA_STACK)
    np.testing.assert_array_equal(numjax.grad(lambda x: (s @ x).sum())(jnp.asarray(STACK)),
                                  [[[1.0], [3.0], [2.0]], [[1.0], [3.0], [2.0]]])


def test_errors() -> None:
    s = sparse.BCOO.fromdense(M)
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have "
                       r"the same shape, got \(4,\) and \(3,\)\."):
        s @ jnp.ones(3)
    with pytest.raises(NotImplementedError, match="n_batch=1"):
        sparse.BCOO.fromdense(M, n_batch=1)


@pytest.mark.parametrize("name", ["numjax._src.sparse.bcoo", "numjax.experimental.sparse"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0

"""The planned kernels of dot_general: small results go through `ndarray.dot`, large ones through
`np.matmul`; both must give NumPy's BLAS result bit for bit, for every operand layout."""

import numpy as np
import pytest

import numjax as jax
from numjax import lax
from numjax._src.config import enable_x64

# (lhs shape, rhs shape, contracting dims, the same product written with NumPy)
LAYOUTS = [
    ((7, 5), (5, 6), ((1,), (0,)), lambda a, b: a @ b),
    ((5, 7), (5, 6), ((0,), (0,)), lambda a, b: a.T @ b),
    ((7, 5), (6, 5), ((1,), (1,)), lambda a, b: a @ b.T),
    ((5, 7), (6, 5), ((0,), (1,)), lambda a, b: a.T @ b.T),
    ((7, 5), (5,), ((1,), (0,)), lambda a, b: a @ b),
    ((5, 7), (5,), ((0,), (0,)), lambda a, b: a.T @ b),
    ((5,), (5, 6), ((0,), (0,)), lambda a, b: a @ b),
    ((5,), (6, 5), ((0,), (1,)), lambda a, b: a @ b.T),
    ((5,), (5,), ((0,), (0,)), lambda a, b: a @ b),
]


def _scaled(shape, scale):
    """`shape` with every free dimension (size 6 or 7) grown by `scale`."""
    return tuple(d * scale if d in (6, 7) else d for d in shape)


@pytest.mark.parametrize("scale", [1, 12], ids=["small", "large"])
@pytest.mark.parametrize("lhs_shape,rhs_shape,contract,reference", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_products_match_numpy_bit_for_bit(lhs_shape, rhs_shape, contract, reference, scale,
                                          dtype):
    rng = np.random.default_rng(0)
    a = rng.normal(size=_scaled(lhs_shape, scale)).astype(dtype)
    b = rng.normal(size=_scaled(rhs_shape, scale)).astype(dtype)
    if dtype == np.complex64:
        a = a + 1j * rng.normal(size=a.shape).astype(np.float32)
    dims = (contract, ((), ()))
    expected = reference(a, b)
    if scale == 12 and expected.ndim == 2:
        assert expected.size > 4096  # the large case really takes the matmul path
    for fn in (lambda x, y: lax.dot_general(x, y, dims),
               jax.jit(lambda x, y: lax.dot_general(x, y, dims))):
        out = np.asarray(fn(a, b))
        assert out.dtype == expected.dtype and out.shape == expected.shape
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("shapes", [((256, 32), (32, 128)), ((32, 256), (256, 128))])
def test_mid_size_products_run_blas_on_the_calling_thread(shapes):
    """Products OpenBLAS would thread but that are too small to gain from it run on one thread;
    the thread's own BLAS setting is put back after each one."""
    from numjax._src.runtime import blas
    from numjax._src.runtime.blas import ONE_THREAD_MACS

    (m, k), (_, n) = shapes
    assert 1 << 18 <= m * k * n <= ONE_THREAD_MACS
    rng = np.random.default_rng(1)
    a = rng.normal(size=shapes[0]).astype(np.float32)
    b = rng.normal(size=shapes[1]).astype(np.float32)
    setters = blas._find_setters()
    setter = setters[0] if setters else None
    seen = []
    if setter is not None:
        before = setter(2)
        blas_kernel = blas.on_one_thread(lambda: seen.append(setter(1)))
        blas_kernel()
        assert seen == [1] and setter(before) == 2  # one thread inside, restored after
    out = jax.jit(lambda x, y: x @ y)(a, b)
    np.testing.assert_allclose(np.asarray(out), a @ b, rtol=1e-5, atol=1e-4)


# Products OpenBLAS would thread, as (lhs shape, rhs shape, contracting dims): split by rows
# when the result has more rows than columns, else by columns, transposed operands included.
SPLIT_PRODUCTS = [
    ((300, 256), (256, 120), ((1,), (0,))),
    ((40, 256), (256, 1000), ((1,), (0,))),
    ((256, 301), (256, 120), ((0,), (0,))),
    ((33, 256), (1100, 256), ((1,), (1,))),
    ((256, 45), (1000, 256), ((0,), (1,))),
]


@pytest.mark.parametrize("lhs_shape, rhs_shape, contract", SPLIT_PRODUCTS)
def test_large_products_split_over_the_worker_threads(lhs_shape, rhs_shape, contract,
                                                      monkeypatch):
    """Products past ONE_THREAD_MACS run as slices of their result on the worker threads, each
    slice calling BLAS on its own thread (OpenBLAS's spinning threads unused): the values of
    the whole product, eagerly and under jit."""
    from numjax._src.compiler import fusion
    from numjax._src.runtime import blas
    from numjax._src.runtime.blas import ONE_THREAD_MACS

    rng = np.random.default_rng(2)
    a = rng.normal(size=lhs_shape).astype(np.float32)
    b = rng.normal(size=rhs_shape).astype(np.float32)
    dims = (contract, ((), ()))
    m = lhs_shape[1 - contract[0][0]]
    n = rhs_shape[1 - contract[1][0]]
    assert m * n * lhs_shape[contract[0][0]] > ONE_THREAD_MACS
    parts = []
    run_on_threads = fusion.run_on_threads

    def counted(fn, items):
        parts.append(list(items))
        return run_on_threads(fn, items)

    monkeypatch.setattr(fusion, "worker_threads", lambda: 3)
    # (Split on any BLAS: with a process-wide thread count only, each slice may use threads.)
    monkeypatch.setattr(blas, "threads_settable", lambda: True)
    monkeypatch.setattr(fusion, "run_on_threads", counted)
    expected = np.einsum(
        "ij,jk->ik", a.T if contract[0] == (0,) else a, b.T if contract[1] == (1,) else b,
        dtype=np.float64)
    out = jax.jit(lambda x, y: lax.dot_general(x, y, dims))(a, b)
    assert out.shape == (m, n) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-3)
    size = max(m, n)
    step = -(-size // 3)
    assert parts == [list(range(0, size, step))]


INF, NAN = float("inf"), float("nan")
_DN = (((1,), (0,)), ((), ()))

# Contractions of length 1 with non-finite or signed-zero operands: (product, lhs, rhs, dtype,
# JAX 0.4.30's result, eager and under jit alike). Every term is a product of its own, so
# IEEE's inf * 0 = NaN and -1 * 0 = -0.0 show in the result.
LENGTH_ONE = [
    ("dot", lambda a, b: jax.numpy.dot(a, b), [[INF], [0.44]], [0.0], "float32", [NAN, 0.0]),
    ("matmul", lambda a, b: a @ b, [[INF], [0.44]], [0.0], "float32", [NAN, 0.0]),
    ("einsum", lambda a, b: jax.numpy.einsum("ij,j->i", a, b), [[INF], [0.44]], [0.0],
     "float32", [NAN, 0.0]),
    ("dot_general", lambda a, b: lax.dot_general(a, b, _DN), [[NAN], [0.44]], [0.0], "float32",
     [NAN, 0.0]),
    ("tensordot", lambda a, b: jax.numpy.tensordot(a, b, 1), [[-INF], [0.44]], [0.0],
     "float64", [NAN, 0.0]),
    ("inner", lambda a, b: jax.numpy.inner(a, b), [[INF], [0.44]], [0.0], "float32",
     [NAN, 0.0]),
    ("vector @ matrix", lambda a, b: a @ b, [0.0], [[INF, 1.0, 2.0]], "float32",
     [NAN, 0.0, 0.0]),
    ("1x1 @ 1x3", lambda a, b: a @ b, [[0.0]], [[NAN, 1.0, 2.0]], "float32", [[NAN, 0.0, 0.0]]),
    ("2x1 @ 1x1", lambda a, b: a @ b, [[INF], [0.44]], [[0.0]], "float64", [[NAN], [0.0]]),
    ("complex", lambda a, b: jax.numpy.dot(a, b), [[INF], [1.0]], [0.0], "complex64",
     [complex(NAN, NAN), 0j]),
    ("float16", lambda a, b: jax.numpy.dot(a, b), [[INF], [0.44]], [0.0], "float16",
     [NAN, 0.0]),
    ("signed zero", lambda a, b: jax.numpy.dot(a, b), [[-1.0], [2.0]], [0.0], "float32",
     [-0.0, 0.0]),
    ("vector . vector", lambda a, b: jax.numpy.dot(a, b), [-1.0], [0.0], "float32", -0.0),
    ("batched", lambda a, b: a @ b, [[[-1.0]], [[INF]]], [[[0.0]], [[0.0]]], "float32",
     [[[-0.0]], [[NAN]]]),
]


@pytest.mark.parametrize("name,fn,lhs,rhs,dtype,expected", LENGTH_ONE,
                         ids=[row[0] for row in LENGTH_ONE])
def test_length_one_contractions_follow_ieee(name, fn, lhs, rhs, dtype, expected):
    """XLA computes a contraction of length 1 as an elementwise product; BLAS skipped a zero
    scalar (NumPy's `ndarray.dot` hands a one-element operand to axpy), giving 0 for inf * 0."""
    with enable_x64(dtype == "float64"):
        a, b = jax.numpy.asarray(lhs, dtype), jax.numpy.asarray(rhs, dtype)
        for f in (fn, jax.jit(fn)):
            out = np.asarray(f(a, b))
            want = np.asarray(expected, dtype)
            assert out.dtype == want.dtype and out.shape == want.shape
            np.testing.assert_array_equal(out, want)
            zeros = want == 0  # a NaN's sign bit is the host's (docs/differences.md)
            np.testing.assert_array_equal(np.signbit(out.real[zeros]), np.signbit(want.real[zeros]))


def test_large_length_one_contraction_keeps_zero_signs():
    """A product too large for `ndarray.dot` (matmul, gemm) would add -0.0 terms to +0.0; JAX
    gives -0.0 for every element of `-ones((300, 1)) @ zeros((1, 300))`, with inf*0 NaN."""
    a = -np.ones((300, 1), np.float32)
    a[7, 0] = INF
    out = np.asarray(jax.jit(jax.numpy.matmul)(a, np.zeros((1, 300), np.float32)))
    assert np.isnan(out[7]).all()
    assert np.signbit(np.delete(out, 7, axis=0)).all()


def test_length_one_contraction_under_vmap_matches_loop():
    a = np.array([[[INF], [1.0]], [[-2.0], [3.0]]], np.float32)
    b = np.array([[0.0], [0.0]], np.float32)
    out = np.asarray(jax.vmap(jax.numpy.matmul)(a, b))
    loop = np.stack([np.asarray(jax.numpy.matmul(a[i], b[i])) for i in range(2)])
    np.testing.assert_array_equal(out, [[NAN, 0.0], [-0.0, 0.0]])
    np.testing.assert_array_equal(out, loop)
    np.testing.assert_array_equal(np.signbit(out[1]), [True, False])

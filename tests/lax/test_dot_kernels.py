"""The planned kernels of dot_general: small results go through `ndarray.dot`, large ones through
`np.matmul`; both must give NumPy's BLAS result bit for bit, for every operand layout."""

import numpy as np
import pytest

import numjax as jax
from numjax import lax

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

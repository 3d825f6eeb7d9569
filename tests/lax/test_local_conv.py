"""conv_general_dilated_patches and conv_general_dilated_local against JAX 0.4.30's values
(integer-valued inputs, so every product is exact), jit vs eager, vmap vs a loop, gradients vs
finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import check_grads

_X = (np.arange(2 * 4 * 5 * 2, dtype=np.float32).reshape(2, 4, 5, 2) % 7 - 3)

# (params, JAX's output shape, JAX's sum of the patches weighted by (flat index % 11))
PATCH_CASES: list[tuple[dict[str, Any], tuple[int, ...], float]] = [
    (dict(filter_shape=(2, 3), window_strides=(1, 2), padding="SAME", rhs_dilation=(2, 1),
          dimension_numbers=("NHWC", "HWIO", "NHWC")), (2, 4, 3, 12), -29.0),
    # The kernel layout's spatial order (W before H) orders the window within a feature.
    (dict(filter_shape=(3, 2), window_strides=(1, 1), padding="VALID",
          dimension_numbers=("NHWC", "OIWH", "NCHW")), (2, 12, 3, 3), 135.0),
    (dict(filter_shape=(2, 2), window_strides=(2, 1), padding=((1, 0), (0, 1)),
          lhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")), (2, 2, 9, 8), 10.0),
]


@pytest.mark.parametrize("params, shape, weighted", PATCH_CASES)
def test_patches_match_jax(params: dict[str, Any], shape: tuple[int, ...],
                           weighted: float) -> None:
    p = lax.conv_general_dilated_patches(_X, **params)
    assert p.shape == shape and p.dtype == np.float32
    assert float((np.asarray(p) * (np.arange(p.size).reshape(shape) % 11)).sum()) == weighted
    jitted = numjax.jit(lambda x: lax.conv_general_dilated_patches(x, **params))(_X)
    np.testing.assert_array_equal(jitted, p)


def test_patches_keep_integer_dtype() -> None:
    p = lax.conv_general_dilated_patches(jnp.arange(6, dtype=jnp.int32).reshape(1, 1, 6), (3,),
                                         (1,), "VALID")
    assert p.dtype == np.int32
    assert p.tolist() == [[[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]]]


_X1 = np.arange(10, dtype=np.float32).reshape(1, 2, 5)
_W1 = (np.arange(3 * 4 * 4, dtype=np.float32) % 5 - 2).reshape(3, 4, 4)  # O, I, W
_W2 = (np.arange(5 * 4 * 2, dtype=np.float32) % 3 - 1).reshape(5, 4, 2)  # W, I, O

LOCAL_CASES: list[tuple[np.ndarray, dict[str, Any], list[Any]]] = [
    (_W1, dict(window_strides=(1,), padding="VALID", filter_shape=(2,)),
     [[[7.0, 14.0, -1.0, -23.0], [14.0, 0.0, -21.0, 1.0], [1.0, -19.0, -1.0, 10.0]]]),
    (_W2, dict(window_strides=(1,), padding=((1, 0),), filter_shape=(2,),
               dimension_numbers=("NCH", "HIO", "NCH")),
     [[[-5.0, 1.0, 4.0, -7.0, 4.0], [0.0, -5.0, 2.0, 4.0, -8.0]]]),
]


@pytest.mark.parametrize("rhs, params, expected", LOCAL_CASES)
def test_local_matches_jax(rhs: np.ndarray, params: dict[str, Any], expected: list[Any]) -> None:
    y = lax.conv_general_dilated_local(_X1, rhs, **params)
    assert y.tolist() == expected and y.dtype == np.float32 and not y.weak_type
    jitted = numjax.jit(lambda x, w: lax.conv_general_dilated_local(x, w, **params))(_X1, rhs)
    np.testing.assert_array_equal(jitted, y)


def test_local_vmap_matches_loop_and_grads() -> None:
    rng = np.random.RandomState(0)
    xs = rng.randn(3, 1, 2, 5).astype(np.float32)
    f = lambda x, w: lax.conv_general_dilated_local(
        x, w, (1,), "SAME", (3,), rhs_dilation=(2,))
    w = rng.randn(4, 6, 5).astype(np.float32)
    batched = numjax.vmap(f, (0, None))(xs, w)
    np.testing.assert_allclose(batched, np.stack([f(x, w) for x in xs]), rtol=1e-6, atol=1e-6)
    check_grads(f, (xs[0].astype(np.float64), w.astype(np.float64)), order=1,
                modes=("fwd", "rev"))


def test_local_batch_mismatch_is_dot_generals_error() -> None:
    with pytest.raises(TypeError, match=r"dot_general requires lhs batch dimensions and rhs "
                       r"batch dimensions to have the same shape, got \(5,\) and \(4,\)\."):
        lax.conv_general_dilated_local(_X1, np.moveaxis(_W1, 0, 2), (1,), ((1, 0),), (2,),
                                       dimension_numbers=("NCH", "HIO", "NCH"))

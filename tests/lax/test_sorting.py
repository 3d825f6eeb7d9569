"""sort, sort_key_val, top_k: impl vs NumPy, JAX's float order, eval_shape, jvp vs finite
differences, vjp consistency, vmap vs a loop, jit vs eager, JAX's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import numerical_jvp


def _rand(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 6, shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)


SHAPES = [(7,), (3, 5), (2, 3, 4)]
DTYPES = ["float32", "int32", "bool", "bfloat16", "uint8"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_vs_numpy(shape: tuple[int, ...], dtype: str) -> None:
    x = _rand(shape, jnp.dtype(dtype))
    for dim in range(-len(shape), len(shape)):
        out: Any = lax.sort(jnp.asarray(x), dimension=dim)
        np.testing.assert_array_equal(np.asarray(out), np.sort(x, axis=dim, kind="stable"))
        assert out.dtype == x.dtype
        aval = numjax.eval_shape(lambda v, d=dim: lax.sort(v, dimension=d), jnp.asarray(x))
        assert aval.shape == out.shape and aval.dtype == out.dtype
        jitted = numjax.jit(lambda v, d=dim: lax.sort(v, dimension=d))(jnp.asarray(x))
        np.testing.assert_array_equal(np.asarray(jitted), np.asarray(out))


def test_float_order() -> None:
    # JAX 0.4.30: NaNs of either sign last; -0.0 and 0.0 equal (stable order kept).
    x = jnp.array([1.0, np.nan, 2, -0.0, 0.0, -np.nan, -np.inf])
    out = np.asarray(lax.sort(x))
    np.testing.assert_array_equal(out, [-np.inf, -0.0, 0.0, 1.0, 2.0, np.nan, np.nan])
    assert np.signbit(out[1]) and not np.signbit(out[2])
    _, perm = lax.sort_key_val(jnp.array([0.0, -0.0, 0.0, -0.0]), jnp.arange(4))
    np.testing.assert_array_equal(np.asarray(perm), [0, 1, 2, 3])


def test_multiple_operands_and_keys() -> None:
    k1, k2 = jnp.array([1, 1, 0, 0]), jnp.array([3.0, 2, 5, 4])
    a, b = lax.sort((k1, k2), num_keys=2)
    np.testing.assert_array_equal(np.asarray(a), [0, 0, 1, 1])
    np.testing.assert_array_equal(np.asarray(b), [4.0, 5, 2, 3])
    a, b = lax.sort((k1, k2), num_keys=1)
    np.testing.assert_array_equal(np.asarray(b), [5.0, 4, 3, 2])
    x = _rand((4, 6), np.int32)
    y = _rand((4, 6), np.float32, seed=1)
    keys, vals = lax.sort_key_val(jnp.asarray(x), jnp.asarray(y), dimension=0)
    perm = np.argsort(x, axis=0, kind="stable")
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(y, perm, 0))
    assert isinstance(lax.sort([jnp.asarray(x)]), tuple)


def test_top_k() -> None:
    x = _rand((3, 8), np.float32)
    vals, idx = lax.top_k(jnp.asarray(x), 3)
    ref = np.argsort(-x, axis=-1, kind="stable")[:, :3]
    np.testing.assert_array_equal(np.asarray(idx), ref)
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(x, ref, -1))
    assert idx.dtype == np.int32
    # JAX 0.4.30 (XLA's total order: -NaN < -inf < ... < -0.0 < 0.0 < ... < NaN; ties by index).
    v, i = lax.top_k(jnp.array([0.0, -0.0, 0.0, -0.0]), 4)
    np.testing.assert_array_equal(np.asarray(i), [0, 2, 1, 3])
    v, i = lax.top_k(jnp.array([1.0, -np.nan, np.nan, 3.0]), 4)
    np.testing.assert_array_equal(np.asarray(i), [2, 3, 0, 1])
    v, i = lax.top_k(jnp.array([1.0, 3.0, 1.0, 3.0]), 4)
    np.testing.assert_array_equal(np.asarray(i), [1, 3, 0, 2])
    v, i = lax.top_k(jnp.array([True, False, True]), 2)
    np.testing.assert_array_equal(np.asarray(i), [0, 2])
    v, i = lax.top_k(jnp.array([3, 1, 2], jnp.int8), 2)
    np.testing.assert_array_equal(np.asarray(v), [3, 2])
    s = numjax.eval_shape(lambda a: lax.top_k(a, 2), jnp.zeros((2, 5), jnp.bfloat16))
    assert s[0].shape == (2, 2) and s[0].dtype == jnp.bfloat16 and s[1].dtype == np.int32
    jv, ji = numjax.jit(lambda a: lax.top_k(a, 3))(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(ji), np.asarray(idx))


@pytest.mark.parametrize("fn", [
    lambda v: lax.sort(v, dimension=0),
    lambda v: lax.sort((v, v * 3.0), dimension=1, num_keys=1)[1],
    lambda v: lax.top_k(v, 2)[0],
], ids=["sort", "sort_values", "top_k"])
def test_jvp_and_vjp(fn: Any) -> None:
    x = _rand((4, 5), np.float32)
    t = _rand((4, 5), np.float32, seed=1)
    out, t_out = numjax.jvp(fn, (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_allclose(np.asarray(t_out), numerical_jvp(fn, (x,), (t,)),
                               rtol=1e-2, atol=1e-2)
    ct = _rand(out.shape, np.float32, seed=2)
    _, vjp = numjax.vjp(fn, jnp.asarray(x))
    (x_ct,) = vjp(jnp.asarray(ct))
    np.testing.assert_allclose(np.sum(np.asarray(x_ct) * t), np.sum(np.asarray(t_out) * ct),
                               rtol=1e-4)


def test_top_k_index_tangent_is_zero() -> None:
    _, (tv, ti) = numjax.jvp(lambda v: lax.top_k(v, 2), (jnp.array([1.0, 3.0, 2.0]),),
                             (jnp.array([10.0, 20.0, 30.0]),))
    np.testing.assert_array_equal(np.asarray(tv), [20.0, 30.0])
    assert ti.dtype == numjax.dtypes.float0


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_vmap(in_axes: int) -> None:
    x = _rand((3, 4, 5), np.float32)
    y = _rand((3, 4, 5), np.int32, seed=1)
    f = lambda a, b: (lax.sort((a, b), dimension=0, num_keys=1), lax.top_k(a, 2))
    out = numjax.vmap(f, in_axes=(in_axes, in_axes))(jnp.asarray(x), jnp.asarray(y))
    for i in range(x.shape[in_axes]):
        ref = f(jnp.asarray(np.take(x, i, in_axes)), jnp.asarray(np.take(y, i, in_axes)))
        for o, r in zip(numjax.tree_util.tree_leaves(out), numjax.tree_util.tree_leaves(ref),
                        strict=True):
            np.testing.assert_array_equal(np.asarray(o)[i], np.asarray(r))
    # One operand unbatched.
    out = numjax.vmap(lambda a: lax.sort((jnp.asarray(y[0]), a), dimension=1)[1])(jnp.asarray(x))
    perm = np.argsort(y[0], axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(out),
                                  np.stack([np.take_along_axis(v, perm, 1) for v in x]))


def test_errors() -> None:
    # Messages from JAX 0.4.30.
    with pytest.raises(TypeError, match=r"Arguments to sort must have equal shapes, got: "
                                        r"\(3,\) \(4,\)"):
        lax.sort((jnp.zeros(3), jnp.zeros(4)))
    with pytest.raises(ValueError, match="axis 1 is out of bounds for array of dimension 1"):
        lax.sort(jnp.zeros(3), dimension=1)
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        lax.sort(jnp.zeros(()))
    with pytest.raises(ValueError, match=r"num_keys=2 must be between 1 and len\(operand\)=1"):
        lax.sort((jnp.zeros(3),), num_keys=2)
    with pytest.raises(ValueError, match=r"num_keys=0 must be between 1 and len\(operand\)=1"):
        lax.sort((jnp.zeros(3),), num_keys=0)
    with pytest.raises(ValueError, match=r"k argument to top_k must be no larger than minor "
                                         r"dimension; 4 vs \[3\]"):
        lax.top_k(jnp.zeros(3), 4)
    with pytest.raises(ValueError, match="k argument to top_k must be nonnegative, got -1"):
        lax.top_k(jnp.zeros(3), -1)
    with pytest.raises(TypeError, match=r"top_k operand must have >= 1 dimension, got \(\)"):
        lax.top_k(jnp.zeros(()), 1)

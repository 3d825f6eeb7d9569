"""pad, dynamic_slice, dynamic_update_slice: impl, abstract eval, jvp, vjp, vmap, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax


def _np_pad(x: np.ndarray, value: Any, config: Any) -> np.ndarray:
    """Reference pad built element by element."""
    shape = [lo + hi + d + max(d - 1, 0) * i
             for d, (lo, hi, i) in zip(x.shape, config, strict=True)]
    out = np.full(shape, value, x.dtype)
    for idx in np.ndindex(*x.shape):
        pos = tuple(lo + j * (i + 1) for j, (lo, _, i) in zip(idx, config, strict=False))
        if all(0 <= p < n for p, n in zip(pos, shape, strict=False)):
            out[pos] = x[idx]
    return out


PAD_CASES = [
    ((5,), [(1, 2, 0)]),
    ((5,), [(-2, 1, 1)]),
    ((5,), [(0, -3, 2)]),
    ((3, 4), [(1, -1, 1), (-1, 2, 0)]),
    ((2, 3, 2), [(0, 0, 0), (2, 1, 3), (-1, -1, 0)]),
    ((0, 3), [(1, 1, 2), (0, 0, 0)]),
]


@pytest.mark.parametrize("shape,config", PAD_CASES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
def test_pad_impl(shape: Any, config: Any, dtype: str) -> None:
    x = np.arange(1, 1 + int(np.prod(shape))).reshape(shape).astype(jnp.dtype(dtype))
    value = np.asarray(7, x.dtype)
    out = lax.pad(jnp.asarray(x), jnp.asarray(value), config)
    np.testing.assert_array_equal(np.asarray(out), _np_pad(x, value, config))
    aval = numjax.eval_shape(lambda v: lax.pad(v, value, config), jnp.asarray(x))
    assert aval.shape == out.shape and aval.dtype == out.dtype


def _check_linear(f: Any, args: list[np.ndarray], seed: int = 0) -> None:
    """jvp of a linear function equals the function of the tangents; vjp is its adjoint."""
    rng = np.random.default_rng(seed)
    tangents = [rng.normal(size=a.shape).astype(np.float32) for a in args]
    out, t_out = numjax.jvp(f, tuple(jnp.asarray(a) for a in args),
                            tuple(jnp.asarray(t) for t in tangents))
    np.testing.assert_allclose(np.asarray(t_out), np.asarray(f(*tangents)), rtol=1e-6)
    ct = rng.normal(size=np.shape(out)).astype(np.float32)
    _, vjp = numjax.vjp(f, *[jnp.asarray(a) for a in args])
    cts = vjp(jnp.asarray(ct))
    lhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(cts, tangents, strict=False))
    np.testing.assert_allclose(lhs, float(np.sum(np.asarray(t_out) * ct)), rtol=1e-4)


@pytest.mark.parametrize("shape,config", PAD_CASES)
def test_pad_jvp_vjp(shape: Any, config: Any) -> None:
    x = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    _check_linear(lambda a, v: lax.pad(a, v, config), [x, np.asarray(2.0, np.float32)])


@pytest.mark.parametrize("dims", [(0, None), (None, 0), (0, 0), (1, 0)])
def test_pad_vmap(dims: Any) -> None:
    config = [(1, -1, 1), (-1, 2, 0)]
    xs = np.random.default_rng(2).normal(size=(3, 3, 4)).astype(np.float32)
    vs = np.array([1.0, 2.0, 3.0], np.float32)
    x_in = xs if dims[0] != 1 else np.moveaxis(xs, 0, 1)
    x_arg = x_in if dims[0] is not None else xs[0]
    v_arg = vs if dims[1] is not None else vs[0]
    out = numjax.vmap(lambda a, v: lax.pad(a, v, config), dims)(jnp.asarray(x_arg),
                                                                jnp.asarray(v_arg))
    loop = [_np_pad(xs[i] if dims[0] is not None else xs[0],
                    vs[i] if dims[1] is not None else vs[0], config) for i in range(3)]
    np.testing.assert_allclose(np.asarray(out), np.stack(loop))


def test_pad_errors() -> None:
    with pytest.raises(ValueError, match="interior padding"):
        lax.pad(jnp.zeros(3), jnp.float32(0), [(1, 1, -1)])
    with pytest.raises(ValueError, match="length of padding_config"):
        lax.pad(jnp.zeros(3), jnp.float32(0), [(1, 1, 0), (0, 0, 0)])
    with pytest.raises(ValueError, match="not at least 0"):
        lax.pad(jnp.zeros(3), jnp.float32(0), [(-3, -1, 0)])
    with pytest.raises(TypeError, match="same dtype"):
        lax.pad(jnp.zeros(3), jnp.int32(0), [(1, 1, 0)])


# ---- dynamic slicing -----------------------------------------------------------------------


def _np_dynamic_slice(x: np.ndarray, starts: Any, sizes: Any) -> np.ndarray:
    begin = [min(max(s + d if s < 0 else s, 0), d - n)
             for s, d, n in zip(starts, x.shape, sizes, strict=True)]
    return x[tuple(slice(b, b + n) for b, n in zip(begin, sizes, strict=False))]


def _np_dynamic_update(x: np.ndarray, u: np.ndarray, starts: Any) -> np.ndarray:
    begin = [min(max(s + d if s < 0 else s, 0), d - n)
             for s, d, n in zip(starts, x.shape, u.shape, strict=False)]
    out = x.copy()
    out[tuple(slice(b, b + n) for b, n in zip(begin, u.shape, strict=False))] = u
    return out


DS_CASES = [((5,), (1,), (2,)), ((5,), (4,), (3,)), ((5,), (-1,), (2,)), ((5,), (-9,), (2,)),
            ((3, 4), (1, 3), (2, 2)), ((3, 4), (0, 0), (3, 4)), ((2, 3, 4), (1, -2, 1), (1, 2, 0))]


@pytest.mark.parametrize("shape,starts,sizes", DS_CASES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "bfloat16"])
@pytest.mark.parametrize("index_kind", ["python", "array"])
def test_dynamic_slice_impl(shape: Any, starts: Any, sizes: Any, dtype: str,
                            index_kind: str) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(jnp.dtype(dtype))
    idx = starts if index_kind == "python" else [jnp.int32(s) for s in starts]
    out = lax.dynamic_slice(jnp.asarray(x), idx, sizes)
    np.testing.assert_array_equal(np.asarray(out), _np_dynamic_slice(x, starts, sizes))
    aval = numjax.eval_shape(lambda v: lax.dynamic_slice(v, idx, sizes), jnp.asarray(x))
    assert aval.shape == out.shape and aval.dtype == out.dtype
    u = np.full(sizes, 100, x.dtype)
    out = lax.dynamic_update_slice(jnp.asarray(x), jnp.asarray(u), idx)
    np.testing.assert_array_equal(np.asarray(out), _np_dynamic_update(x, u, starts))


@pytest.mark.parametrize("shape,starts,sizes", DS_CASES)
def test_dynamic_slice_jvp_vjp(shape: Any, starts: Any, sizes: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=shape).astype(np.float32)
    u = rng.normal(size=sizes).astype(np.float32)
    idx = [jnp.int32(s) for s in starts]
    _check_linear(lambda a: lax.dynamic_slice(a, idx, sizes), [x])
    _check_linear(lambda a, b: lax.dynamic_update_slice(a, b, idx), [x, u])


def test_in_dim_wrappers() -> None:
    x = np.arange(12).reshape(3, 4).astype(np.int32)
    xj = jnp.asarray(x)
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice_in_dim(xj, 1, 2, axis=1)),
                                  x[:, 1:3])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_index_in_dim(xj, 2, 0, False)), x[2])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_index_in_dim(xj, 2, 0)), x[2:3])
    upd = np.asarray(lax.dynamic_update_index_in_dim(xj, jnp.zeros(4, jnp.int32), 1, 0))
    expected = x.copy()
    expected[1] = 0
    np.testing.assert_array_equal(upd, expected)
    upd = np.asarray(lax.dynamic_update_slice_in_dim(xj, jnp.zeros((3, 1), jnp.int32), 3, 1))
    expected = x.copy()
    expected[:, 3] = 0
    np.testing.assert_array_equal(upd, expected)


@pytest.mark.parametrize("dims", [(0, None), (None, 0), (0, 0), (1, 0)])
def test_dynamic_slice_vmap(dims: Any) -> None:
    rng = np.random.default_rng(4)
    xs = rng.normal(size=(3, 4, 5)).astype(np.float32)
    idx = np.array([0, 2, 3], np.int32)
    f = lambda a, i: lax.dynamic_slice(a, (i, jnp.int32(1)), (2, 3))
    x_arg = xs if dims[0] == 0 else (np.moveaxis(xs, 0, 1) if dims[0] == 1 else xs[0])
    i_arg = idx if dims[1] is not None else idx[1]
    out = numjax.vmap(f, dims)(jnp.asarray(x_arg), jnp.asarray(i_arg))
    loop = [_np_dynamic_slice(xs[b] if dims[0] is not None else xs[0],
                              (int(idx[b] if dims[1] is not None else idx[1]), 1), (2, 3))
            for b in range(3)]
    np.testing.assert_allclose(np.asarray(out), np.stack(loop))


@pytest.mark.parametrize("dims", [(0, None, None), (None, 0, None), (None, None, 0),
                                  (0, 0, 0), (None, 0, 0)])
def test_dynamic_update_slice_vmap(dims: Any) -> None:
    rng = np.random.default_rng(5)
    xs = rng.normal(size=(3, 4, 5)).astype(np.float32)
    us = rng.normal(size=(3, 2, 2)).astype(np.float32)
    idx = np.array([0, 2, 3], np.int32)
    f = lambda a, u, i: lax.dynamic_update_slice(a, u, (i, jnp.int32(4)))
    args = [xs if dims[0] is not None else xs[0], us if dims[1] is not None else us[0],
            idx if dims[2] is not None else idx[0]]
    out = numjax.vmap(f, dims)(*[jnp.asarray(a) for a in args])
    loop = [_np_dynamic_update(xs[b] if dims[0] is not None else xs[0],
                               us[b] if dims[1] is not None else us[0],
                               (int(idx[b] if dims[2] is not None else idx[0]), 4))
            for b in range(3)]
    np.testing.assert_allclose(np.asarray(out), np.stack(loop))


def test_dynamic_slice_errors() -> None:
    with pytest.raises(TypeError, match="slice_sizes must be less than or equal"):
        lax.dynamic_slice(jnp.zeros(3), (0,), (4,))
    with pytest.raises(ValueError, match="Length of slice indices"):
        lax.dynamic_slice(jnp.zeros(3), (0, 0), (1,))
    with pytest.raises(TypeError, match="must be integers of the same type"):
        lax.dynamic_slice(jnp.zeros(3), (jnp.float32(1),), (2,))
    with pytest.raises(TypeError, match="update shape must be smaller"):
        lax.dynamic_update_slice(jnp.zeros(3), jnp.zeros(4), (0,))
    with pytest.raises(TypeError, match="same dtypes"):
        lax.dynamic_update_slice(jnp.zeros(3), jnp.zeros(2, jnp.int32), (0,))

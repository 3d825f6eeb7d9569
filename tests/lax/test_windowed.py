"""reduce_window (sum/max/min and generic), select_and_gather_add, select_and_scatter_add:
impl vs a direct loop, eval_shape, jvp vs finite differences, vjp consistency, vmap vs a
loop, jit vs eager, JAX's jaxprs and errors."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import numerical_jvp


def reference(x: np.ndarray, init: Any, op: Any, dims: Any, strides: Any, pads: Any,
              bd: Any, wd: Any) -> np.ndarray:
    """A direct loop: dilate and pad with init, then reduce each window with `op`."""
    for axis, b in enumerate(bd):
        shape = list(x.shape)
        shape[axis] = (shape[axis] - 1) * b + 1
        y = np.full(shape, init, x.dtype)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(None, None, b)
        y[tuple(idx)] = x
        x = y
    for axis, (lo, hi) in enumerate(pads):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=init)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(idx)]
    ext = [(w - 1) * v + 1 for w, v in zip(dims, wd, strict=False)]
    outs = [max((n - e) // s + 1, 0) for n, e, s in zip(x.shape, ext, strides, strict=False)]
    out = np.full(outs, init, x.dtype)
    for pos in itertools.product(*[range(m) for m in outs]):
        window = x[tuple(slice(p * s, p * s + e, v)
                         for p, s, e, v in zip(pos, strides, ext, wd, strict=True))]
        out[pos] = op.reduce(window.ravel(), initial=init) if window.size else init
    return out


# (shape, window, strides, padding, base_dilation, window_dilation)
CASES = [
    ((7,), (3,), (1,), ((0, 0),), (1,), (1,)),
    ((8,), (2,), (2,), ((1, 2),), (1,), (2,)),
    ((4, 5), (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ((4, 5), (3, 2), (2, 1), ((1, 1), (0, 1)), (2, 1), (1, 2)),
    ((5, 6), (2, 3), (1, 2), ((-1, 1), (2, 0)), (1, 2), (1, 1)),
    ((2, 3, 4), (1, 2, 2), (1, 1, 2), ((0, 0), (1, 0), (0, 1)), (1, 1, 1), (1, 1, 1)),
    # NHWC pooling, and its transpose's shape (base-dilated, padded, stride 1).
    ((2, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, (1,) * 4, (1,) * 4),
    ((2, 3, 3, 3), (1, 2, 2, 1), (1,) * 4, ((0, 0), (1, 1), (1, 1), (0, 0)), (1, 2, 2, 1),
     (1,) * 4),
    # Other transposes of windows tiling their operand (each output reads one element).
    ((3, 3, 4), (1, 3, 2), (1, 1, 1), ((0, 0), (2, 2), (1, 1)), (1, 3, 2), (1, 1, 1)),
    ((5,), (4,), (1,), ((3, 3),), (4,), (1,)),
    # Windows larger than the output (global pooling): one reduction over the window axis.
    ((2, 5, 4), (1, 5, 4), (1, 1, 1), ((0, 0),) * 3, (1,) * 3, (1,) * 3),
    ((3, 8), (3, 3), (1, 4), ((1, 1), (0, 0)), (1, 1), (1, 3)),
]
MONOIDS = [("sum", lax.add, np.add, 0), ("max", lax.max, np.maximum, -np.inf),
           ("min", lax.min, np.minimum, np.inf)]


def _rand(shape: Any, dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-9, 10, shape).astype(dtype)
    # Distinct values: no ties in max/min, so derivatives are unambiguous.
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 3).astype(dtype)


def _init(init: float, dtype: Any) -> Any:
    if np.dtype(dtype).kind in "iu" and np.isinf(init):
        info = np.iinfo(dtype)
        return info.min if init < 0 else info.max
    return init


def _call(case: Any, x: Any, init: Any, comp: Any) -> Any:
    shape, dims, strides, pads, bd, wd = case
    return lax.reduce_window(x, init, comp, dims, strides, pads, bd, wd)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("monoid", MONOIDS, ids=[m[0] for m in MONOIDS])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
def test_monoid_impl(case: Any, monoid: Any, dtype: str) -> None:
    name, comp, ufunc, init = monoid
    x = _rand(case[0], dtype)
    init = _init(init, dtype)
    out = _call(case, jnp.asarray(x), init, comp)
    ref = reference(x, np.asarray(init).astype(dtype), ufunc, *case[1:])
    np.testing.assert_allclose(np.asarray(out, np.float64), ref.astype(np.float64), rtol=2e-3)
    assert out.dtype == x.dtype
    jaxpr = numjax.make_jaxpr(lambda v: _call(case, v, init, comp))(jnp.asarray(x))
    assert f"reduce_window_{name}[" in str(jaxpr)
    aval = numjax.eval_shape(lambda v: _call(case, v, init, comp), jnp.asarray(x))
    assert aval.shape == out.shape and aval.dtype == out.dtype
    jitted = numjax.jit(lambda v: _call(case, v, init, comp))(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(out))


@pytest.mark.parametrize("case", CASES)
def test_generic_impl(case: Any) -> None:
    x = _rand(case[0])
    # Not the identity: the generic primitive.
    out = _call(case, jnp.asarray(x), 1.0, lax.add)
    ref = reference(x, np.float32(1.0), np.add, *case[1:])
    # The init enters once per window; the padding value (init) enters per padded element.
    assert out.shape == ref.shape
    jaxpr = numjax.make_jaxpr(lambda v: _call(case, v, 1.0, lax.add))(jnp.asarray(x))
    assert "reduce_window[" in str(jaxpr)
    out = _call(case, jnp.asarray(x), 1.0, lax.mul)
    ref = reference(x, np.float32(1.0), np.multiply, *case[1:])
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
    # A pytree of operands: windowed (max, argmax) pairs.
    idx = np.arange(x.size, dtype=np.int32).reshape(x.shape)

    def argmax(a: Any, b: Any) -> Any:
        pick = a[0] >= b[0]
        return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])

    vals, where = _call(case, (jnp.asarray(x), jnp.asarray(idx)), (-np.inf, -1), argmax)
    np.testing.assert_allclose(np.asarray(vals),
                               reference(x, np.float32(-np.inf), np.maximum, *case[1:]))
    w = np.asarray(where)
    np.testing.assert_array_equal(np.where(w >= 0, x.ravel()[w], -np.inf), np.asarray(vals))


def test_jaxpr_facts() -> None:
    # JAX 0.4.30: 'SAME' max pools pad high; sums of non-identity inits are generic.
    x = jnp.arange(12.0).reshape(3, 4)
    text = str(numjax.make_jaxpr(
        lambda v: lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (1, 1), "SAME"))(x))
    assert "padding=((0, 1), (0, 1))" in text and "f32[3,4] = reduce_window_max" in text
    out = lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "VALID", base_dilation=(2, 1),
                            window_dilation=(1, 2))
    np.testing.assert_array_equal(np.asarray(out), [[2, 4], [10, 12], [10, 12], [18, 20]])
    out = lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), ((1, -1), (0, 0)))
    np.testing.assert_array_equal(np.asarray(out), [[1, 3, 5], [10, 14, 18]])
    assert lax.reduce_window_shape_tuple((3, 4), (2, 2), (1, 1), ((0, 0), (0, 0))) == (2, 3)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("monoid", MONOIDS, ids=[m[0] for m in MONOIDS])
def test_jvp_and_vjp(case: Any, monoid: Any) -> None:
    _, comp, _, init = monoid
    x = _rand(case[0])
    t = np.random.default_rng(1).standard_normal(case[0]).astype(np.float32)
    f = lambda v: _call(case, v, init, comp)
    out, t_out = numjax.jvp(f, (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_allclose(np.asarray(t_out), numerical_jvp(f, (x,), (t,)),
                               rtol=1e-2, atol=1e-2)
    ct = np.random.default_rng(2).standard_normal(out.shape).astype(np.float32)
    _, vjp = numjax.vjp(f, jnp.asarray(x))
    (x_ct,) = vjp(jnp.asarray(ct))
    assert x_ct.shape == x.shape
    np.testing.assert_allclose(np.sum(np.asarray(x_ct, np.float64) * t),
                               np.sum(np.asarray(t_out, np.float64) * ct), rtol=1e-4, atol=1e-5)


def test_max_pool_grad_jaxpr() -> None:
    # JAX 0.4.30 differentiates max through select_and_gather_add, transposed to
    # select_and_scatter_add.
    f = lambda v: jnp.sum(lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID"))
    text = str(numjax.make_jaxpr(numjax.grad(f))(jnp.zeros((3, 4))))
    assert "select_and_scatter_add" in text
    g = numjax.grad(f)(jnp.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(g), [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 1, 1]])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("comp,init", [(lax.add, 0.0), (lax.max, -np.inf), (lax.mul, 1.0)])
def test_vmap(case: Any, comp: Any, init: float) -> None:
    x = _rand((3, *case[0]))
    f = lambda v: _call(case, v, init, comp)
    for axis in (0, x.ndim - 1):
        xs = np.moveaxis(x, 0, axis)
        out = numjax.vmap(f, in_axes=axis)(jnp.asarray(xs))
        loop = np.stack([np.asarray(f(jnp.asarray(x[i]))) for i in range(3)])
        np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-6)


def test_vmap_of_grad() -> None:
    x = _rand((3, 4, 5))
    f = lambda v: jnp.sum(lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (2, 1), "SAME") ** 2)
    out = numjax.vmap(numjax.grad(f))(jnp.asarray(x))
    loop = np.stack([np.asarray(numjax.grad(f)(jnp.asarray(v))) for v in x])
    np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-6)


# JAX 0.4.30's jvps of generic windowed reductions: (primal out, tangent out).
_X4 = np.array([1., 2., 3., 4.], np.float32)
GENERIC_JVPS = [
    ("add, init 1", lambda x: lax.reduce_window(x, 1., lax.add, (2,), (1,), "VALID"),
     (_X4,), (np.ones(4, np.float32),), ([4., 6., 8.], [2., 2., 2.])),
    ("mul, padded", lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (1,), ((1, 0),)),
     (_X4,), (np.arange(4, dtype=np.float32),), ([1., 2., 6., 12.], [0., 1., 7., 17.])),
    # Not associative: the window is folded in order, the accumulator on the left.
    ("pair", lambda x, y: lax.reduce_window(
        (x, y), (0., 0.), lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1]) * a[0]), (2,), (1,),
        "SAME"), (_X4, 2 * _X4), (np.ones(4, np.float32), np.arange(4, dtype=np.float32)),
     (([3., 5., 7., 4.], [4., 12., 24., 0.]), ([2., 2., 2., 1.], [5., 10., 17., 0.]))),
]


@pytest.mark.parametrize("name, f, primals, tangents, expected", GENERIC_JVPS,
                         ids=[c[0] for c in GENERIC_JVPS])
@pytest.mark.parametrize("wrap", [lambda f: f, numjax.jit])
def test_generic_jvp(name: str, f: Any, primals: Any, tangents: Any, expected: Any,
                     wrap: Any) -> None:
    out = wrap(lambda p, t: numjax.jvp(f, p, t))(primals, tangents)
    # Expected leaves are lists of numbers: flatten only down to them.
    want_leaves = numjax.tree_util.tree_leaves(
        expected, is_leaf=lambda v: isinstance(v, list) and not isinstance(v[0], list | tuple))
    for got, want in zip(numjax.tree_util.tree_leaves(out), want_leaves, strict=True):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want, np.float32))
        assert got.dtype == np.float32


def test_generic_derivative_errors() -> None:
    # JAX 0.4.30: a tangent of the initial value is refused, and reverse mode has no transpose.
    with pytest.raises(TypeError, match="reduce_window jvp does not support non-zero "
                                        "init_value_tangent."):
        numjax.jvp(lambda i: lax.reduce_window(jnp.ones(4), i, lax.mul, (2,), (1,), "VALID"),
                   (1.,), (1.,))
    with pytest.raises(NotImplementedError, match="Transpose rule .* for 'reduce_window'"):
        numjax.grad(lambda v: jnp.sum(lax.reduce_window(v, 1.0, lax.mul, (2,), (1,), "VALID")))(
            jnp.ones(4))


def test_errors() -> None:
    # Messages from JAX 0.4.30.
    x = jnp.zeros((3, 4))
    with pytest.raises(TypeError, match=r"reduce_window got the wrong number of window_dimensions "
                                        r"for operand: got operand shape \(3, 4\) with "
                                        r"window_dimensions \(2, 2, 1\)."):
        lax.reduce_window(x, 0.0, lax.add, (2, 2, 1), (1, 1, 1), "VALID")
    with pytest.raises(TypeError, match=r"got inconsistent window_strides and window_dimensions: "
                                        r"got window_strides \(1,\) and window_dimensions "
                                        r"\(2, 2\)."):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (1,), ((0, 0), (0, 0)))
    with pytest.raises(TypeError, match=r"window_dimensions must have every element be strictly "
                                        r"positive, got \(0, 2\)."):
        lax.reduce_window(x, 0.0, lax.add, (0, 2), (1, 1), "VALID")
    with pytest.raises(TypeError, match=r"window_strides must have every element be strictly "
                                        r"positive, got \(0, 1\)."):
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (0, 1), "VALID")
    assert lax.reduce_window(x, 0.0, lax.add, (5, 2), (1, 1), "VALID").shape == (0, 3)


@pytest.mark.parametrize("wrap", [lambda f: f, numjax.jit])
def test_sum_of_negative_zeros(wrap: Any) -> None:
    # JAX 0.4.30 adds the window to the init value 0.0: -0.0 windows sum to +0.0.
    x = jnp.array([-0.0, -0.0, -0.0, 1.0], jnp.float32)
    out = wrap(lambda v: lax.reduce_window(v, 0.0, lax.add, (2,), (2,), "VALID"))(x)
    np.testing.assert_array_equal(np.signbit(np.asarray(out)), [False, False])
    np.testing.assert_array_equal(np.asarray(out), [0.0, 1.0])
    # Nor does a window holding one element and padding (a pooling's transpose): JAX 0.4.30
    # gives [0, 0, 1, 1, -2.5, -2.5] with no negative zero, eager and jitted.
    y = jnp.array([-0.0, 1.0, -2.5], jnp.float32)
    out = wrap(lambda v: lax.reduce_window(v, 0.0, lax.add, (2,), (1,), ((1, 1),), (2,)))(y)
    np.testing.assert_array_equal(np.signbit(np.asarray(out)), [False] * 4 + [True] * 2)
    np.testing.assert_array_equal(np.asarray(out), [0.0, 0.0, 1.0, 1.0, -2.5, -2.5])


# JAX 0.4.30's max/min window selection over ties, signed zeros and NaNs (XLA's scan keeps the
# current element while current >= candidate, <= for min): gradient with cotangents 1, 2, ...
# and jvp with tangents 1..12, for pooling windows, overlapping ones and one global window.
_SELECT_X = [1.0, np.nan, np.nan, 2.0, 3.0, 3.0, np.nan, 0.0, -0.0, 0.0, 5.0, np.nan]
_POOL_GRAD = [0.0, 1.0, 0.0, 2.0, 3.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 6.0]
_POOL_JVP = [2.0, 4.0, 5.0, 8.0, 9.0, 12.0]
SELECTIONS = [
    ("pool", (2,), (2,), lax.max, _POOL_GRAD, _POOL_JVP),
    ("pool", (2,), (2,), lax.min, _POOL_GRAD, _POOL_JVP),
    ("overlap", (3,), (1,), lax.max, [0.0, 0.0, 1.0, 2.0, 7.0, 0.0, 5.0, 21.0, 0.0, 0.0, 9.0, 10.0],
     [3.0, 4.0, 5.0, 5.0, 7.0, 8.0, 8.0, 8.0, 11.0, 12.0]),
    ("overlap", (3,), (1,), lax.min, [0.0, 0.0, 1.0, 9.0, 0.0, 0.0, 5.0, 21.0, 9.0, 0.0, 0.0, 10.0],
     [3.0, 4.0, 4.0, 4.0, 7.0, 8.0, 8.0, 8.0, 9.0, 12.0]),
    ("global", (12,), (1,), lax.max, [0.0] * 11 + [1.0], [12.0]),
    ("global", (12,), (1,), lax.min, [0.0] * 11 + [1.0], [12.0]),
]


@pytest.mark.parametrize("name,dims,strides,op,grad,jvp", SELECTIONS)
def test_selection_as_jax(name: str, dims: Any, strides: Any, op: Any, grad: list[float],
                          jvp: list[float]) -> None:
    x = jnp.array(_SELECT_X, jnp.float32)
    init = -jnp.inf if op is lax.max else jnp.inf
    f = lambda h: lax.reduce_window(h, init, op, dims, strides, "VALID")
    ct = jnp.arange(1.0, 1.0 + len(jvp))
    loss = lambda h: (f(h) * ct).sum()
    for g in (numjax.grad(loss), numjax.jit(numjax.grad(loss))):
        np.testing.assert_array_equal(np.asarray(g(x)), grad)
    np.testing.assert_array_equal(np.asarray(numjax.jvp(f, (x,), (jnp.arange(1.0, 13.0),))[1]),
                                  jvp)


def test_max_pool_gradient_of_a_batch_vs_loop() -> None:
    # 2x2 max pooling's gradient (the branch-free per-offset path) against a loop over windows.
    x = _rand((2, 6, 8, 3))
    ct = _rand((2, 3, 4, 3), seed=1)
    f = lambda h: lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    g = numjax.jit(lambda h: numjax.vjp(f, h)[1](jnp.asarray(ct))[0])(x)
    expected = np.zeros_like(x)
    for n, i, j, c in itertools.product(range(2), range(3), range(4), range(3)):
        window = x[n, 2 * i:2 * i + 2, 2 * j:2 * j + 2, c]
        a, b = np.unravel_index(np.argmax(window), window.shape)
        expected[n, 2 * i + a, 2 * j + b, c] = ct[n, i, j, c]
    np.testing.assert_array_equal(np.asarray(g), expected)

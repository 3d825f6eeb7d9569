"""Generic lax.reduce: monoid dispatch, arbitrary computations (argmax pairs, several operands),
eval_shape, jvp vs finite differences, vjp consistency, vmap vs a loop, jit vs eager, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import numerical_jvp

MONOIDS = [
    (lax.add, 0, np.add, "reduce_sum"), (lax.mul, 1, np.multiply, "reduce_prod"),
    (lax.max, -np.inf, np.maximum, "reduce_max"), (lax.min, np.inf, np.minimum, "reduce_min"),
]


def _rand(shape: Any, dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.uniform(0.5, 1.5, shape).astype(dtype)


@pytest.mark.parametrize("comp,init,ufunc,prim", MONOIDS, ids=[m[3] for m in MONOIDS])
@pytest.mark.parametrize("dims", [(0,), (1,), (0, 2)])
def test_monoids_map_to_primitives(comp: Any, init: Any, ufunc: Any, prim: str,
                                   dims: tuple[int, ...]) -> None:
    x = _rand((3, 4, 5))
    out = lax.reduce(jnp.asarray(x), init, comp, dims)
    np.testing.assert_allclose(np.asarray(out), ufunc.reduce(x, axis=dims), rtol=1e-5)
    text = str(numjax.make_jaxpr(lambda v: lax.reduce(v, init, comp, dims))(jnp.asarray(x)))
    assert f"{prim}[" in text and "reduce[" not in text


def test_bitwise_monoids() -> None:
    b = jnp.array([[True, False], [True, True]])
    np.testing.assert_array_equal(np.asarray(lax.reduce(b, True, lax.bitwise_and, (1,))),
                                  [False, True])
    np.testing.assert_array_equal(np.asarray(lax.reduce(b, False, lax.bitwise_or, (0,))),
                                  [True, True])
    i = jnp.array([3, 5, 6])
    assert int(lax.reduce(i, 0, lax.bitwise_xor, (0,))) == 3 ^ 5 ^ 6
    text = str(numjax.make_jaxpr(lambda v: lax.reduce(v > 0, True, lax.bitwise_and, (0,)))(
        jnp.zeros((3, 4))))
    assert "reduce_and[axes=(0,)]" in text  # JAX 0.4.30's jaxpr


@pytest.mark.parametrize("shape,dims", [((7,), (0,)), ((3, 5), (1,)), ((2, 3, 4), (0, 2)),
                                        ((4, 0), (1,)), ((3, 4), ())])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_generic_vs_numpy(shape: Any, dims: Any, dtype: str) -> None:
    x = _rand(shape, dtype)
    # The init must have the operand's dtype (JAX refuses a Python int for a float operand).
    f = lambda v: lax.reduce(v, np.asarray(2, dtype), lambda a, b: a + b, dims)
    out = f(jnp.asarray(x))
    # Over no dimensions XLA's reduce returns its operand, the init unused (as JAX 0.4.30).
    expected = np.sum(x, axis=dims) + 2 if dims else x
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5)
    assert out.dtype == x.dtype
    assert "reduce[" in str(numjax.make_jaxpr(f)(jnp.asarray(x)))
    aval = numjax.eval_shape(f, jnp.asarray(x))
    assert aval.shape == out.shape and aval.dtype == out.dtype
    jitted = numjax.jit(f)(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(out), rtol=1e-6)
    assert jitted.dtype == out.dtype and jitted.weak_type == out.weak_type


def _argmax_step(a: Any, b: Any) -> Any:
    (av, ai), (bv, bi) = a, b
    # Larger value wins; ties go to the smaller index, so the result is order independent.
    pick = (av > bv) | ((av == bv) & (ai < bi))
    return lax.select(pick, av, bv), lax.select(pick, ai, bi)


@pytest.mark.parametrize("axis", [0, 1])
def test_argmax_pairs(axis: int) -> None:
    x = np.random.default_rng(0).integers(0, 4, (5, 6)).astype(np.float32)
    idx = lax.broadcasted_iota(jnp.int32, x.shape, axis)
    vals, where = lax.reduce((jnp.asarray(x), idx), (-np.inf, np.int32(2 ** 31 - 1)),
                             _argmax_step, (axis,))
    np.testing.assert_array_equal(np.asarray(vals), x.max(axis))
    np.testing.assert_array_equal(np.asarray(where), np.argmax(x, axis))
    assert where.dtype == np.int32
    # JAX 0.4.30's values for its own argmax-by-reduce example.
    x = jnp.arange(12.0).reshape(3, 4)
    idx = lax.broadcasted_iota(jnp.int32, (3, 4), 1)
    vals, where = lax.reduce((x, idx), (-jnp.inf, 0), _argmax_step, (1,))
    np.testing.assert_array_equal(np.asarray(where), [3, 3, 3])


def test_several_operands_dict() -> None:
    x, y = _rand((3, 4)), _rand((3, 4), seed=1)
    out = lax.reduce({"s": jnp.asarray(x), "p": jnp.asarray(y)}, {"s": 0.0, "p": 1.0},
                     lambda a, b: {"s": a["s"] + b["s"], "p": a["p"] * b["p"]}, (0,))
    np.testing.assert_allclose(np.asarray(out["s"]), x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(out["p"]), y.prod(0), rtol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda v: lax.reduce(v, 1.0, lambda a, b: a * b, (1,)),
    lambda v: lax.reduce(v, 0.0, lambda a, b: a + b * b, (0, 1)),
    lambda v: lax.reduce((v, v * 2.0), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                         (0,))[1],
    lambda v: lax.reduce((v, lax.broadcasted_iota(jnp.int32, (4, 5), 1)),
                         (-jnp.inf, np.int32(99)), _argmax_step, (1,))[0],
], ids=["prod", "sum_sq", "pair", "argmax_values"])
def test_jvp_and_vjp(fn: Any) -> None:
    x = _rand((4, 5))
    t = _rand((4, 5), seed=1)
    out, t_out = numjax.jvp(fn, (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_allclose(np.asarray(t_out), numerical_jvp(fn, (x,), (t,)),
                               rtol=1e-2, atol=1e-2)
    ct = _rand(out.shape, seed=2)
    _, vjp = numjax.vjp(fn, jnp.asarray(x))
    (x_ct,) = vjp(jnp.asarray(ct))
    np.testing.assert_allclose(np.sum(np.asarray(x_ct) * t), np.sum(np.asarray(t_out) * ct),
                               rtol=1e-4)


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_vmap(in_axes: int) -> None:
    x = _rand((3, 4, 5))
    f = lambda v: lax.reduce(v, 1.0, lambda a, b: a * b, (1,))
    out = numjax.vmap(f, in_axes=in_axes)(jnp.asarray(x))
    loop = np.stack([np.asarray(f(jnp.asarray(np.take(x, i, in_axes))))
                     for i in range(x.shape[in_axes])])
    np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-6)


def test_errors() -> None:
    # Messages from JAX 0.4.30.
    x = jnp.zeros((3, 4))
    add = lambda a, b: a + b
    with pytest.raises(ValueError, match=r"reduction axes \(2,\) contains out-of-bounds indices "
                                         r"for ShapedArray\(float32\[3,4\]\)."):
        lax.reduce(x, 0.0, lax.add, (2,))
    with pytest.raises(ValueError, match=r"duplicate value in 'axes' of reduction: \(1, 1\)"):
        lax.reduce(x, 0.0, lax.add, (1, 1))
    with pytest.raises(ValueError, match=r"reduce found non-scalar initial value: \[\(2,\)\]"):
        lax.reduce(x, jnp.zeros(2), add, (1,))
    with pytest.raises(TypeError, match=r"reduce operand dtypes should match corresponding "
                                        r"initial value dtypes, got "
                                        r"operands=\[ShapedArray\(float32\[3,4\]\)\] and "
                                        r"initial_values=\[ShapedArray\(int32\[\]\)\]"):
        lax.reduce(x, jnp.int32(0), add, (1,))
    with pytest.raises(TypeError, match="logical reduction requires operand dtype bool or int, "
                                        "got float32."):
        lax.reduce(x, 0, lax.bitwise_or, (1,))
    with pytest.raises(TypeError, match="same structure"):
        lax.reduce(x, 0.0, lambda a, b: (a + b, a), (1,))


@pytest.mark.parametrize("computation,init", [(lax.add, 5.0), (lax.mul, 0.0), (lax.max, 9.0),
                                              (lax.add, 0.0)])
def test_reduce_over_no_dimensions_returns_the_operand(computation, init):
    # JAX 0.4.30 (XLA): the initial value is not folded in when nothing is reduced
    x = jnp.arange(3.0)
    f = lambda x: lax.reduce(x, init, computation, ())
    for fn in (f, numjax.jit(f), numjax.vmap(f)):
        np.testing.assert_array_equal(fn(x), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(numjax.jvp(f, (x,), (jnp.ones(3),))[1], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(numjax.grad(lambda x: f(x).sum())(x), [1.0, 1.0, 1.0])
    pair = lax.reduce((x, jnp.arange(3)), (1.0, 1), lambda a, b: (a[0] + b[0], a[1] + b[1]), ())
    np.testing.assert_array_equal(pair[0], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(pair[1], [0, 1, 2])

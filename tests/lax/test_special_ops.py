"""Special functions and bit ops: impl vs NumPy/SciPy, abstract eval, jvp vs finite
differences, vjp consistency, vmap, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.special as sp

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import enable_x64
from numjax.test_util import numerical_jvp

# (op, reference, input ranges per argument, differentiable argument positions)
UNARY = [
    (lax.erf, sp.erf, (-2, 2)),
    (lax.erfc, sp.erfc, (-2, 2)),
    (lax.erf_inv, sp.erfinv, (-0.9, 0.9)),
    (lax.lgamma, sp.gammaln, (0.5, 4)),
    (lax.digamma, sp.digamma, (0.5, 4)),
    (lax.bessel_i0e, sp.i0e, (-3, 3)),
    (lax.bessel_i1e, sp.i1e, (-3, 3)),
]
BINARY = [
    (lax.igamma, sp.gammainc, ((0.5, 4), (0.2, 4)), (0, 1)),
    (lax.igammac, sp.gammaincc, ((0.5, 4), (0.2, 4)), (0, 1)),
    (lax.zeta, sp.zeta, ((2, 4), (0.5, 3)), (1,)),
]
SHAPES = [(), (4,), (2, 3)]


def _uniform(lo: float, hi: float, shape: Any = (), dtype: Any = np.float32,
             seed: int = 0) -> Any:
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def _check_grads(f: Any, args: list[np.ndarray], diff: tuple[int, ...]) -> None:
    rng = np.random.default_rng(7)
    tangents = [rng.normal(size=np.shape(a)).astype(np.float32) if i in diff
                else np.zeros(np.shape(a), np.float32) for i, a in enumerate(args)]
    g = lambda *d: f(*[d[diff.index(i)] if i in diff else jnp.asarray(a)
                       for i, a in enumerate(args)])
    primals = tuple(jnp.asarray(args[i]) for i in diff)
    tans = tuple(jnp.asarray(tangents[i]) for i in diff)
    out, t_out = numjax.jvp(g, primals, tans)
    fd = numerical_jvp(f, args, tangents)
    np.testing.assert_allclose(np.asarray(t_out), fd, rtol=2e-2, atol=2e-3)
    ct = rng.normal(size=np.shape(out)).astype(np.float32)
    cts = numjax.vjp(g, *primals)[1](jnp.asarray(ct))
    lhs = sum(float(np.sum(np.asarray(c) * np.asarray(t))) for c, t in zip(cts, tans, strict=False))
    np.testing.assert_allclose(lhs, float(np.sum(np.asarray(t_out) * ct)), rtol=1e-3,
                               atol=1e-5)


@pytest.mark.parametrize("op,ref,rng", UNARY, ids=[u[0].__name__ for u in UNARY])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_unary_impl(op: Any, ref: Any, rng: Any, shape: Any, dtype: str) -> None:
    x = _uniform(rng[0], rng[1], shape, jnp.dtype(dtype))
    out = op(jnp.asarray(x))
    assert out.dtype == x.dtype and out.shape == shape
    tol = 2e-2 if dtype == "bfloat16" else 1e-5
    np.testing.assert_allclose(np.asarray(out, np.float64), ref(x.astype(np.float64)),
                               rtol=tol, atol=tol)
    aval = numjax.eval_shape(op, jnp.asarray(x))
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype)


@pytest.mark.parametrize("op,ref,rng", UNARY, ids=[u[0].__name__ for u in UNARY])
def test_unary_grads(op: Any, ref: Any, rng: Any) -> None:
    _check_grads(op, [_uniform(rng[0], rng[1], (5,))], (0,))


@pytest.mark.parametrize("op,ref,rngs,diff", BINARY, ids=[b[0].__name__ for b in BINARY])
@pytest.mark.parametrize("shape", SHAPES)
def test_binary_impl_and_grads(op: Any, ref: Any, rngs: Any, diff: Any, shape: Any) -> None:
    args = [_uniform(r[0], r[1], shape, seed=i) for i, r in enumerate(rngs)]
    out = op(*[jnp.asarray(a) for a in args])
    np.testing.assert_allclose(np.asarray(out), ref(*args), rtol=1e-5, atol=1e-6)
    _check_grads(op, args, diff)


def test_gamma_gradients_match_jax() -> None:
    # Values recorded from JAX 0.4.30.
    np.testing.assert_allclose(float(lax.igamma_grad_a(2.0, 1.5)), -0.3134886, rtol=1e-5)
    np.testing.assert_allclose(float(lax.random_gamma_grad(2.0, 1.5)), 0.936639, rtol=1e-5)


def test_incomplete_gamma_off_the_domain_as_jax() -> None:
    # JAX 0.4.30 (XLA's igamma/igammac), where SciPy's kernels differ: a <= 0, x < 0, a = inf.
    a = jnp.array([-1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 3.0, 2.0, np.nan, np.inf], jnp.float32)
    x = jnp.array([1.0, 1.0, 0.0, -1.0, 0.0, np.inf, np.nan, -0.5, -np.inf, 1.0, 1.0],
                  jnp.float32)
    nan = np.nan
    np.testing.assert_array_equal(lax.igamma(a, x),
                                  [nan, nan, nan, nan, 0.0, 1.0, nan, nan, nan, nan, nan])
    np.testing.assert_array_equal(lax.igammac(a, x),
                                  [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, nan, 1.0, 1.0, nan, nan])


def test_clamp_is_weak_only_when_all_operands_are() -> None:
    # JAX 0.4.30's weak-type rule for clamp: all three operands weak.
    assert lax.clamp(0.0, 0.5, 1.0).weak_type
    assert not lax.clamp(jnp.float32(0), 0.5, 1.0).weak_type
    assert not lax.clamp(0.0, jnp.float32(0.5), 1.0).weak_type
    assert not numjax.jit(lambda lo: lax.clamp(lo, 0.5, 1.0))(jnp.float32(0)).weak_type


def test_polygamma() -> None:
    x = _uniform(0.5, 3, (4,))
    for m in (0.0, 1.0, 2.0):
        out = lax.polygamma(jnp.full((4,), m, jnp.float32), jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(out), sp.polygamma(int(m), x), rtol=1e-5)
    _check_grads(lax.polygamma, [np.ones(4, np.float32), x], (1,))
    assert np.isnan(float(lax.polygamma(jnp.float32(0.5), jnp.float32(1.0))))


@pytest.mark.parametrize("method,expected", [(lax.RoundingMethod.AWAY_FROM_ZERO,
                                              [1.0, 2.0, 3.0, -1.0]),
                                             (lax.RoundingMethod.TO_NEAREST_EVEN,
                                              [0.0, 2.0, 2.0, -0.0])])
def test_round(method: Any, expected: Any) -> None:
    out = lax.round(jnp.array([0.5, 1.5, 2.5, -0.5]), method)
    np.testing.assert_array_equal(np.asarray(out), expected)
    _, t = numjax.jvp(lambda v: lax.round(v, method), (jnp.ones(2),), (jnp.ones(2),))
    np.testing.assert_array_equal(np.asarray(t), [0.0, 0.0])


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "int64"])
def test_bit_counts(dtype: str) -> None:
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    x = np.array([0, 1, 7, info.max, info.min, 5], dt)
    bits = dt.itemsize * 8
    as_u = x.view(f"u{dt.itemsize}").astype(np.uint64)
    pop = np.array([bin(int(v)).count("1") for v in as_u])
    clz = np.array([bits - int(v).bit_length() for v in as_u])
    with enable_x64(dt.itemsize == 8):  # 64-bit integers exist only with x64
        np.testing.assert_array_equal(np.asarray(lax.population_count(jnp.asarray(x))), pop)
        np.testing.assert_array_equal(np.asarray(lax.clz(jnp.asarray(x))), clz)
        assert lax.clz(jnp.asarray(x)).dtype == dt


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
def test_population_count_kernel_without_bitwise_count(dtype: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """NumPy before 2.0 has no bitwise_count: the kernel counts bytes from a table."""
    from numjax._src.lax import special

    info = np.iinfo(dtype)
    x = np.random.default_rng(0).integers(info.min, info.max, (4, 3), dtype, endpoint=True)
    x[0, :2] = [info.min, info.max]
    as_u = x.view(f"u{x.dtype.itemsize}").ravel()
    want = np.array([bin(int(v)).count("1") for v in as_u]).reshape(x.shape).astype(dtype)
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    got = special._popcount_kernel(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(special._popcount_kernel(x[1, 1]), want[1, 1])


@pytest.mark.parametrize("src,dst,shape", [
    ("float32", "int32", (3,)), ("float32", "int16", (3,)),
                                           ("int16", "float32", (3, 2)),
                                           ("bfloat16", "uint16", (2,)), ("float32", "int32", ())])
def test_bitcast(src: str, dst: str, shape: Any) -> None:
    x = _uniform(-2, 2, shape).astype(jnp.dtype(src)) if "float" in src else (
        np.arange(int(np.prod(shape))).reshape(shape).astype(src))
    out = lax.bitcast_convert_type(jnp.asarray(x), jnp.dtype(dst))
    expected = np.asarray(x).reshape(shape).view(jnp.dtype(dst)) if shape else (
        np.asarray(x).reshape(1).view(jnp.dtype(dst)).reshape(()))
    if np.dtype(src).itemsize > np.dtype(dst).itemsize:
        expected = expected.reshape(*shape, -1)
    elif np.dtype(src).itemsize < np.dtype(dst).itemsize:
        expected = expected.reshape(shape[:-1])
    np.testing.assert_array_equal(np.asarray(out), expected.reshape(np.shape(out)))
    assert np.shape(out) == expected.shape
    aval = numjax.eval_shape(lambda v: lax.bitcast_convert_type(v, jnp.dtype(dst)),
                             jnp.asarray(x))
    assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
    batched = numjax.vmap(lambda v: lax.bitcast_convert_type(v, jnp.dtype(dst)))(
        jnp.asarray(np.stack([x, x])))
    np.testing.assert_array_equal(np.asarray(batched), np.stack([np.asarray(out)] * 2))


def test_bitcast_error() -> None:
    with pytest.raises(ValueError, match="3 \\* 2 != 4"):
        lax.bitcast_convert_type(jnp.zeros((3, 3), jnp.int16), jnp.float32)


def test_reduce_precision() -> None:
    x = np.array([1e-5, 7e-5, 1e5, 65519.0, 65520.0, -3.3, np.nan, np.inf], np.float32)
    out = np.asarray(lax.reduce_precision(jnp.asarray(x), 5, 10))
    # Values from JAX 0.4.30: float16 range, subnormals flushed to zero.
    np.testing.assert_array_equal(out[:5], np.array([0.0, 6.997585e-05, np.inf, 65504.0, np.inf],
                                                     np.float32))
    assert out[5] == np.float32(np.float16(-3.3)) and np.isnan(out[6]) and out[7] == np.inf
    y = _uniform(-100, 100, (50,))
    bf = np.asarray(lax.reduce_precision(jnp.asarray(y), 8, 7))
    np.testing.assert_array_equal(bf, y.astype(jnp.bfloat16).astype(np.float32))
    _, t = numjax.jvp(lambda v: lax.reduce_precision(v, 8, 7), (jnp.asarray(y),),
                      (jnp.asarray(y),))
    np.testing.assert_array_equal(np.asarray(t), bf)
    with pytest.raises(ValueError, match="exponent_bits must be positive"):
        lax.reduce_precision(jnp.float32(1), 0, 3)


def test_clamp() -> None:
    x = jnp.array([-1.0, 0.5, 2.0, 0.0, 1.0])
    np.testing.assert_array_equal(np.asarray(lax.clamp(0.0, x, 1.0)), [0, 0.5, 1, 0, 1])
    lo, hi = jnp.full((5,), -0.5), jnp.full((5,), 1.5)
    np.testing.assert_array_equal(np.asarray(lax.clamp(lo, x, hi)), [-0.5, 0.5, 1.5, 0, 1])
    # jvp facts from JAX 0.4.30: strict comparisons, ties give no tangent to anyone.
    for xv, expected in ((1.0, 0.0), (2.0, 0.0), (0.0, 1.0), (3.0, 100.0)):
        _, t = numjax.jvp(lax.clamp, (jnp.float32(1), jnp.float32(xv), jnp.float32(2)),
                          (jnp.float32(1), jnp.float32(10), jnp.float32(100)))
        assert float(t) == expected
    with pytest.raises(TypeError, match="min.shape == operand.shape"):
        lax.clamp(jnp.zeros(2), jnp.zeros(3), 1.0)


@pytest.mark.parametrize("dims", [(None, 0, None), (0, 0, None), (0, None, 0), (None, None, 0)])
def test_clamp_vmap(dims: Any) -> None:
    lo = np.array([-1.0, 0.0, 0.5], np.float32)
    hi = np.array([0.5, 1.0, 2.0], np.float32)
    xs = _uniform(-2, 3, (3, 4))
    args = [lo if dims[0] is not None else np.float32(0.0),
            xs if dims[1] is not None else xs[0],
            hi if dims[2] is not None else np.float32(1.0)]
    out = numjax.vmap(lax.clamp, dims)(*[jnp.asarray(a) for a in args])
    loop = [np.clip(a[1][i] if dims[1] is not None else a[1],
                    a[0][i] if dims[0] is not None else a[0],
                    a[2][i] if dims[2] is not None else a[2]) for i, a in
            zip(range(3), [args] * 3, strict=False)]
    np.testing.assert_array_equal(np.asarray(out), np.stack(loop))


@pytest.mark.parametrize("in_axes", [0, 1])
def test_special_vmap(in_axes: int) -> None:
    x = _uniform(0.5, 3, (3, 4))
    out = numjax.vmap(lambda v: lax.igamma(v, v), in_axes)(jnp.asarray(x))
    loop = [sp.gammainc(r, r) for r in np.moveaxis(x, in_axes, 0)]
    np.testing.assert_allclose(np.asarray(out), np.stack(loop), rtol=1e-5)


@pytest.mark.parametrize("dtype,expected", [
    # JAX 0.4.30's jnp.power of these integer arrays: binary exponentiation over the low 6
    # bits of the exponent, so negative exponents of |x| > 1 wrap (3 ** -1 is 3 ** 63)
    ("int32", [1024, 9, -1, 0, 1, 1, 1, -8, 1, 2111105451, 703701817, 0, 0]),
    ("int8", [0, 9, -1, 0, 1, 1, 1, -8, 1, -85, 57, 0, 0]),
])
def test_integer_pow_array(dtype: str, expected: list[int]) -> None:
    x = np.array([2, 3, -1, 2, -1, 0, 1, -2, 5, 3, -3, 2, 0], dtype)
    y = np.array([10, 2, -3, -1, -4, 0, -7, 3, 0, -1, -2, -5, -1], dtype)
    out = lax.integer_pow_array(jnp.asarray(x), jnp.asarray(y))
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.dtype == np.dtype(dtype)
    for power in (jnp.power, numjax.jit(jnp.power)):
        np.testing.assert_array_equal(power(x, y), expected)
    with pytest.raises(TypeError, match="integer"):
        lax.integer_pow_array(jnp.ones(2), jnp.ones(2))


def test_dtype_errors() -> None:
    with pytest.raises(TypeError, match="erf_inv does not accept dtype int32"):
        lax.erf_inv(jnp.int32(1))
    with pytest.raises(TypeError, match="population_count does not accept dtype float32"):
        lax.population_count(jnp.float32(1))


@pytest.mark.parametrize("op,x,y,expected", [
    # JAX 0.4.30's values: exact 64-bit integer arithmetic, also for 0-d operands.
    ("rem", np.uint64(2**62 + 12345), np.uint64(2**41), 12345),
    ("div", np.uint64(2**63 + 12345), np.uint64(3), 3074457345618262717),
    ("rem", np.int64(-2**62 - 12345), np.int64(2**41 + 1), -2199021170746),
])
def test_64_bit_integer_div_rem_of_scalars(op: str, x: Any, y: Any, expected: int) -> None:
    from numjax._src.config import enable_x64

    with enable_x64(True):
        fn = getattr(lax, op)
        assert int(fn(x, y)) == expected
        assert int(numjax.jit(fn)(x, y)) == expected
        assert int(fn(np.array([x, x]), np.array([y, y]))[1]) == expected


# lax.betainc, recorded from JAX 0.4.30: (a, b, x, I_x(a, b)); NaN off a, b > 0, 0 <= x <= 1.
BETAINC = [
    (0.5, 0.5, 0.3, 0.36901042),
    (2.0, 3.0, 0.4, 0.5248004),
    (3.0, 1.5, 0.9, 0.8776592),
    (-1.0, 1.0, 0.5, np.nan),
    (2.0, 0.0, 0.5, np.nan),
    (2.0, 3.0, 0.0, 0.0),
    (2.0, 3.0, 1.0, 1.0),
    (2.0, 3.0, 1.5, np.nan),
]


def test_betainc_values_and_primitive() -> None:
    a, b, x, expected = (np.array(c, np.float32) for c in zip(*BETAINC, strict=True))
    out = lax.betainc(a, b, x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(numjax.jit(lax.betainc)(a, b, x)), expected, rtol=1e-5)
    jaxpr = str(numjax.make_jaxpr(lax.betainc)(a, b, x))
    assert "regularized_incomplete_beta" in jaxpr
    assert lax.regularized_incomplete_beta_p.name == "regularized_incomplete_beta"
    # Python scalars are weak float32 operands; float16 is computed as float32 and cast back.
    weak = lax.betainc(2.0, 3.0, 0.4)
    assert weak.dtype == np.float32 and weak.weak_type
    half = lax.betainc(np.float16(2), np.float16(3), np.float16(0.4))
    assert half.dtype == np.float16 and float(half) == pytest.approx(0.5244, abs=1e-3)


def test_betainc_grad_in_x_vmap_and_errors() -> None:
    # d/dx I_x(2, 3) at 0.4 = 12 x (1-x)^2 = 1.728 (JAX: 1.7280011)
    g = numjax.grad(lambda x: lax.betainc(np.float32(2), np.float32(3), x))(np.float32(0.4))
    assert float(g) == pytest.approx(1.728, rel=1e-5)
    _check_grads(lambda x: lax.betainc(np.float32(2.5), np.float32(1.5), x),
                 [_uniform(0.2, 0.8, (3,))], (0,))
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b not supported"):
        numjax.grad(lambda a: lax.betainc(a, np.float32(3), np.float32(0.4)))(np.float32(2))
    out = numjax.vmap(lax.betainc, (0, None, 0))(np.float32([1, 2]), np.float32(3),
                                                  np.float32([0.2, 0.4]))
    np.testing.assert_allclose(np.asarray(out), [0.488, 0.5248004], rtol=1e-5)
    with pytest.raises(TypeError, match="regularized_incomplete_beta does not accept dtype int32 "
                                        "at position 0"):
        lax.betainc(2, 3, 1)
    with pytest.raises(TypeError, match=r"regularized_incomplete_beta got incompatible shapes "
                                        r"for broadcasting: \(3,\), \(2,\), \(3,\)"):
        lax.betainc(np.ones(3, np.float32), np.ones(2, np.float32), np.ones(3, np.float32))

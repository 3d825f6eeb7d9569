"""The native tier (numba, the [native] extra): forced-native programs against the NumPy tier,
bit for bit where the NumPy tier is exact (integers, booleans, PRNG bits, float arithmetic,
conversions, sqrt) and within float tolerance for libm's transcendentals; fallback, "off", and
calls that never wait for a background compile."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.compiler import native, native_tier
from numjax._src.runtime import blas

needs_numba = pytest.mark.skipif(not native_tier.available, reason="numba is not installed")


def _compiled(f: Callable[..., Any], args: tuple[Any, ...], mode: str) -> Any:
    with native_tier.native_mode(mode):
        return jax.jit(f).lower(*args).compile()


def _executable(compiled: Any) -> Any:
    return compiled._call.executable


def _both(f: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """f's outputs on the NumPy tier and forced native (which must have compiled)."""
    ref = _compiled(f, args, "off")(*args)
    forced = _compiled(f, args, "force")
    assert native_tier.is_native(_executable(forced)), "the program did not compile natively"
    return ref, forced(*args)


def _assert_same(ref: Any, got: Any, rtol: float = 0.0) -> None:
    ref_leaves, got_leaves = jax.tree_util.tree_leaves(ref), jax.tree_util.tree_leaves(got)
    assert len(ref_leaves) == len(got_leaves)
    for r, g in zip(ref_leaves, got_leaves, strict=True):
        r, g = np.asarray(r), np.asarray(g)
        assert r.dtype == g.dtype and r.shape == g.shape
        if rtol:
            np.testing.assert_allclose(g, r, rtol=rtol, atol=rtol)
        else:
            np.testing.assert_array_equal(g, r)


_RNG = np.random.default_rng(0)


def _operand(dtype: str, shape: tuple[int, ...] = (2, 3), positive: bool = False) -> np.ndarray:
    if dtype == "bool":
        return _RNG.random(shape) < 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        lo = 0 if positive else max(info.min, -1000)
        return _RNG.integers(lo, min(info.max, 1000), shape, endpoint=True).astype(dtype)
    x = _RNG.normal(size=shape) * 3
    if positive:
        x = np.abs(x) + 0.1
    return x.astype(dtype)


# ---- elementwise: one program per (table, dtype), each op's result compared ----------------

_ARITH: dict[str, Callable[..., Any]] = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "max": lax.max, "min": lax.min,
    "eq": lax.eq, "ne": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge,
    "select": lambda x, y: lax.select(lax.lt(x, y), x, y),
    "neg": lambda x, y: lax.neg(x), "sign": lambda x, y: lax.sign(x),
    "square": lambda x, y: lax.square(x),
    "pow2": lambda x, y: lax.integer_pow(x, 2), "pow3": lambda x, y: lax.integer_pow(x, 3),
    "pow7": lambda x, y: lax.integer_pow(x, 7),
    "scalar_broadcast": lambda x, y: x * 2 + jnp.sum(y),
}
_INT_ONLY: dict[str, Callable[..., Any]] = {
    "div": lambda x, y: lax.div(x, y), "rem": lambda x, y: lax.rem(x, y),
    "and": lax.bitwise_and, "or": lax.bitwise_or, "xor": lax.bitwise_xor,
    "not": lambda x, y: lax.bitwise_not(x),
    "shl": lambda x, y: lax.shift_left(x, lax.rem(y, lax.full_like(y, 40))),
    "shr": lambda x, y: lax.shift_right_logical(x, lax.rem(y, lax.full_like(y, 40))),
    "sar": lambda x, y: lax.shift_right_arithmetic(x, lax.rem(y, lax.full_like(y, 40))),
}
_FLOAT_EXACT: dict[str, Callable[..., Any]] = {
    "div": lax.div, "rem": lax.rem, "abs": lambda x, y: lax.abs(x),
    "floor": lambda x, y: lax.floor(x), "ceil": lambda x, y: lax.ceil(x),
    "sqrt": lambda x, y: lax.sqrt(lax.abs(x)), "pow_neg": lambda x, y: lax.integer_pow(x, -3),
    "is_finite": lambda x, y: lax.is_finite(x / y),
    "to_int32": lambda x, y: lax.convert_element_type(x * 1e9, np.int32),
    "to_uint32": lambda x, y: lax.convert_element_type(x * 1e9, np.uint32),
    "to_bool": lambda x, y: lax.convert_element_type(lax.floor(x), np.bool_),
    "nan_max": lambda x, y: lax.max(x, lax.log(y)),
    "fma_like": lambda x, y: x * y + x,
    "clamp": lambda x, y: lax.clamp(x[0, 0], y, x[1, 1]),
}
_TRANSCENDENTAL: dict[str, Callable[..., Any]] = {
    name: (lambda x, y, fn=fn: fn(x)) for name, fn in {
        "exp": lax.exp, "log": lambda x: lax.log(lax.abs(x) + 1), "tanh": lax.tanh,
        "sin": lax.sin, "cos": lax.cos, "log1p": lambda x: lax.log1p(lax.abs(x)),
        "expm1": lax.expm1, "logistic": lax.logistic,
        "rsqrt": lambda x: lax.rsqrt(lax.abs(x) + 1), "atan": lax.atan,
    }.items()}
_TRANSCENDENTAL["atan2"] = lax.atan2
_TRANSCENDENTAL["pow"] = lambda x, y: lax.pow(lax.abs(x) + 1, y)

_BOOL: dict[str, Callable[..., Any]] = {
    "and": lax.bitwise_and, "or": lax.bitwise_or, "xor": lax.bitwise_xor,
    "not": lambda x, y: lax.bitwise_not(x), "eq": lax.eq, "ne": lax.ne,
    "select": lambda x, y: lax.select(x, y, x),
    "to_f32": lambda x, y: lax.convert_element_type(x, np.float32),
    "to_i32": lambda x, y: lax.convert_element_type(y, np.int32),
}


# Operand shapes: arrays of at most native.SMALL_ELEMENTS elements are held element by
# element (machine scalars), larger ones are arrays looped over.
_SHAPES = [(2, 3), (6, 9)]


def _table_program(table: dict[str, Callable[..., Any]]) -> Callable[..., Any]:
    return lambda x, y: {name: fn(x, y) for name, fn in table.items()}


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32", "int8"])
@pytest.mark.parametrize("shape", _SHAPES)
def test_elementwise_exact(dtype: str, shape: tuple[int, ...]) -> None:
    table = dict(_ARITH)
    table.update(_INT_ONLY if dtype[0] in "iu" else _FLOAT_EXACT)
    if dtype[0] == "u":
        del table["sign"]  # (lax.sign of unsigned: kept, but neg/sign of uint is JAX's error)
    x = _operand(dtype, shape)
    y = _operand(dtype, shape)
    if dtype[0] in "iu":
        y[0, 0] = 0  # integer division and remainder by zero
    else:
        y[0, 1] = np.inf
    with jax.experimental.enable_x64(dtype == "float64"):
        ref, got = _both(_table_program(table), x, y)
    for name in table:
        # A float sum (sequential here, pairwise in NumPy) and libm's log (NumPy's SIMD log
        # may round the other way): equal within rounding.
        inexact = dtype.startswith("float") and name in ("scalar_broadcast", "nan_max")
        _assert_same(ref[name], got[name], rtol=1e-6 if inexact else 0.0)


@needs_numba
def test_bool_elementwise_exact() -> None:
    x, y = _operand("bool"), _operand("bool")
    ref, got = _both(_table_program(_BOOL), x, y)
    for name in _BOOL:
        _assert_same(ref[name], got[name])


@needs_numba
@pytest.mark.parametrize("dtype,rtol", [("float32", 4e-6), ("float64", 1e-13)])
def test_transcendentals_within_tolerance(dtype: str, rtol: float) -> None:
    x, y = _operand(dtype), _operand(dtype)
    with jax.experimental.enable_x64(dtype == "float64"):
        ref, got = _both(_table_program(_TRANSCENDENTAL), x, y)
    for name in _TRANSCENDENTAL:
        _assert_same(ref[name], got[name], rtol=rtol)


@needs_numba
@pytest.mark.parametrize("dtype", ["uint64", "int64", "uint32", "int8"])
def test_float_to_integer_conversion_saturates_like_the_numpy_tier(dtype: str) -> None:
    """XLA's conversion (truncate, saturate at the bounds, NaN to 0), every branch typed as the
    target: a uint64 bound beside int64 ones made numba compute in float64 (2**64 gave
    94378680227424)."""
    x = np.array([2.0**64, 1e30, np.inf, -np.inf, np.nan, 3.7, -2.5, 2.0**63, 1.0], np.float64)
    with jax.experimental.enable_x64(True):
        ref, got = _both(lambda v: lax.convert_element_type(v, np.dtype(dtype)), x)
    _assert_same(ref, got)


@needs_numba
def test_float32_tanh_is_vectorizable_and_within_6_ulp() -> None:
    """Native float32 tanh is a rational function (arithmetic only, so loops vectorize):
    within 6 ulp of the NumPy tier's over [-10, 10] and its tails, exact at 0, -0, +-inf."""
    x = np.linspace(-10, 10, 200_001, dtype=np.float32)
    x = np.concatenate([x, np.float32([0.0, -0.0, np.inf, -np.inf, 1e-30, -3e-5, 40.0])])
    ref, got = _both(jnp.tanh, x)
    ref, got = np.asarray(ref), np.asarray(got)
    ulps = np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref))
    assert ulps.max() <= 6
    np.testing.assert_array_equal(got[-7:-3], np.float32([0.0, -0.0, 1.0, -1.0]))
    assert np.signbit(got[-6]) and not np.signbit(got[-7])
    nan = _both(jnp.tanh, np.float32([np.nan, 1.0]))[1]
    assert np.isnan(np.asarray(nan)[0])


# ---- structure, reductions, products --------------------------------------------------------

_STRUCTURAL: dict[str, Callable[[Any], Any]] = {
    "broadcast": lambda x: lax.broadcast_in_dim(x[0], (4, x.shape[1]), (1,)),
    "broadcast_col": lambda x: lax.broadcast_in_dim(x[:, 0], (x.shape[0], 5), (0,)),
    "broadcast_scalar": lambda x: lax.broadcast_in_dim(x[1, 1], (3, 2), ()),
    "reshape": lambda x: x.reshape(x.shape[1], x.shape[0]),
    "squeeze": lambda x: lax.squeeze(x[:1], (0,)),
    "transpose": lambda x: x.T,
    "slice": lambda x: x[1:, ::2],
    # Start indices clamped into range (5 -> 1).
    "dynamic_slice": lambda x: lax.dynamic_slice(
        x, (lax.convert_element_type(x[0, 0], np.int32) * 0 + 1, np.int32(5)), (1, 2)),
    "dynamic_update_slice": lambda x: lax.dynamic_update_slice(x, x[:1, :2], (1, 1)),
    "concatenate": lambda x: jnp.concatenate([x, x[:1]], axis=0),
    "iota": lambda x: lax.broadcasted_iota(x.dtype, (2, 4), 1),
    "iota_like": lambda x: lax.broadcasted_iota(x.dtype, x.shape, 0) + x,
    "concatenate_1": lambda x: jnp.concatenate([x[:, 1:], x, x[:, :1]], axis=1),
    "bitcast": lambda x: lax.bitcast_convert_type(
        x, {"float32": np.int32, "float64": np.uint64, "int32": np.float32,
            "uint32": np.int32}[x.dtype.name]),
    "sum_all": lambda x: jnp.sum(x),
    "sum_0": lambda x: jnp.sum(x, axis=0),
    "sum_01": lambda x: jnp.sum(x[None], axis=(0, 1)),
    "prod_0": lambda x: jnp.prod(x, axis=0),
    "max_0": lambda x: jnp.max(x, axis=0),
    "min_0": lambda x: jnp.min(x, axis=0),
    "and_0": lambda x: lax.reduce_and(x, (0,)) if x.dtype.kind in "iu" else x,
    "sum_1": lambda x: jnp.sum(x, axis=1),
    "max_1": lambda x: jnp.max(x, axis=1),
    "min_all": lambda x: jnp.min(x),
    "argmax_1": lambda x: jnp.argmax(x, axis=1),
    "argmin_0": lambda x: jnp.argmin(x, axis=0),
    "and_1": lambda x: lax.reduce_and(x, (1,)) if x.dtype.kind in "iu" else x,
    "or_all": lambda x: lax.reduce_or(x, (0, 1)) if x.dtype.kind in "iu" else x,
    "bool_and_0": lambda x: lax.reduce_and(x > x[0, 0], (0,)),
    "bool_or_1": lambda x: lax.reduce_or(x > x[1, 2], (1,)),
    "dot_vv": lambda x: x[0] @ x[1],
    "dot_mv": lambda x: x @ x[0],
    "dot_mm": lambda x: x @ x.T,
    "dot_outer": lambda x: jnp.outer(x[0], x[1]),
}


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint32"])
@pytest.mark.parametrize("shape", _SHAPES)
def test_structural_and_reductions(dtype: str, shape: tuple[int, ...]) -> None:
    x = _operand(dtype, shape, positive=True)
    with jax.experimental.enable_x64(dtype == "float64"):
        ref, got = _both(_table_program({k: (lambda x, y, f=f: f(x))
                                         for k, f in _STRUCTURAL.items()}), x, x)
    for name in _STRUCTURAL:
        # Float sums and products: sequential here, pairwise or BLAS there.
        inexact = dtype.startswith("float") and name.startswith(("sum", "prod", "dot"))
        _assert_same(ref[name], got[name], rtol=1e-6 if inexact else 0.0)


@needs_numba
@pytest.mark.parametrize("tiles", [1, 2])  # held element by element, and an array
def test_argmax_nan_and_ties(tiles: int) -> None:
    x = np.array([[1.0, 3.0, 3.0, np.nan], [2.0, 2.0, 1.0, 0.0]], np.float32)
    x = np.tile(x, (tiles, tiles))
    ref, got = _both(lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=1),
                                jnp.max(x, axis=1), jnp.max(x, axis=0), jnp.min(x, axis=0)), x)
    _assert_same(ref, got)


# ---- control flow, calls, custom derivatives ------------------------------------------------

@needs_numba
def test_loops_cond_and_calls() -> None:
    @jax.jit
    def inner(v: Any) -> Any:
        return jax.nn.relu(v) * 2.0  # relu is a custom_jvp

    @jax.custom_vjp
    def clipped(v: Any) -> Any:
        return jnp.minimum(v, 1.5)

    clipped.defvjp(lambda v: (clipped(v), None), lambda _, g: (g,))

    def f(x: Any, n: Any) -> Any:
        def body(i: Any, c: Any) -> Any:
            return lax.cond(i % 2 == 0, lambda c: c + inner(x), lambda c: c * 0.5, c)

        total = lax.fori_loop(0, n, body, jnp.zeros_like(x))
        _, ys = lax.scan(lambda c, v: (c + v, clipped(c * v)), 0.0, x, reverse=True)
        k = lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 3, s[1] * 2), (0, 1.0))
        branch = lax.switch(n - 5, [lambda: x, lambda: -x, lambda: x * x])
        return total, ys, k, branch

    x = np.array([0.5, -1.0, 2.0], np.float32)
    for n in (0, 5, 6, 9):
        ref, got = _both(f, x, np.int32(n))
        _assert_same(ref, got)


@needs_numba
def test_rnn_scan_program() -> None:
    rng = np.random.default_rng(1)
    h0 = np.zeros(16, np.float32)
    xs = rng.normal(size=(50, 16)).astype(np.float32)
    w = (rng.normal(size=(16, 16)) * 0.1).astype(np.float32)

    def rnn(h: Any, xs: Any, w: Any) -> Any:
        return lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h.sum()), h, xs)

    ref, got = _both(rnn, h0, xs, w)
    _assert_same(ref, got, rtol=2e-5)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_vector_times_matrix_is_a_loop(dtype: str) -> None:
    """A vector times a matrix (an RNN step) is loops adding four rows per pass, not a BLAS
    call, whatever its size; each element still sums its products in order (k = 67: a
    remainder row)."""
    rng = np.random.default_rng(4)
    h = (rng.normal(size=67) * 10).astype(dtype)
    w = (rng.normal(size=(67, 64)) * 10).astype(dtype)
    args = (h, w)
    source = _source(lambda h, w: h @ w, args)
    assert "np.dot" not in source
    ref, got = _both(lambda h, w: h @ w, *args)
    # float32: BLAS's order of summation there (sums of terms cancelling to 1% of their size).
    _assert_same(ref, got, rtol=1e-4 if dtype == "float32" else 0.0)


@needs_numba
def test_blas_products_and_their_gradients() -> None:
    """Products of BLAS_MIN_MACS multiply-adds and more call BLAS from native code (every
    operand layout: the gradient's products contract transposed operands, which BLAS reads
    where they lie, with no transposed copy; the bias gradient sums rows in place too)."""
    from numjax._src.compiler.native_structural import BLAS_MIN_MACS

    rng = np.random.default_rng(2)
    x = rng.normal(size=(64, 32)).astype(np.float32)
    w = rng.normal(size=(32, 48)).astype(np.float32)
    b = rng.normal(size=48).astype(np.float32)
    assert 64 * 32 * 48 >= BLAS_MIN_MACS

    def loss(w: Any, b: Any, x: Any) -> Any:
        return jnp.sum(jnp.tanh(x @ w + b) ** 2)

    step = jax.value_and_grad(loss, argnums=(0, 1, 2))
    source = _source(step, (w, b, x))
    assert source.count("np.dot(") == 3 and ").T\n" in source and "np.transpose" not in source
    ref, got = _both(step, w, b, x)
    _assert_same(ref, got, rtol=1e-5)
    # Their BLAS is SciPy's, whose thread count the native tier sets: loaded by then.
    assert blas._scipy_openblas() <= blas._seen


@needs_numba
@pytest.mark.parametrize("m,n", [(2, 2), (64, 64)])  # scalarized, and past BLAS_MIN_MACS
def test_contraction_of_length_one_is_the_product(m: int, n: int) -> None:
    """A product contracting one term is elementwise, as XLA's and the NumPy tier's: inf * 0
    is NaN and -1 * 0 is -0.0 (a sum from +0.0 or BLAS's gemm gave +0.0). JAX 0.4.30:
    `jnp.dot([[inf], [0.44]], [0.])` is `[nan, 0.]`, `[[-1.]] @ [[0.]]` is `[[-0.]]`."""
    a = np.full((m, 1), 0.44, np.float32)
    a[0, 0], a[1, 0] = np.inf, -1.0
    b = np.zeros((1, n), np.float32)
    b[0, 1] = 2.0
    ref, got = _both(lambda x, y: x @ y, a, b)
    _assert_same(ref, got)
    got = np.asarray(got)
    assert np.isnan(got[0, 0]) and got[0, 1] == np.inf
    assert got[1, 0] == 0 and np.signbit(got[1, 0]) and got[1, 1] == -2.0
    ref, got = _both(lambda x, y: jnp.dot(x, y), a[:2], np.zeros(1, np.float32))
    assert np.isnan(np.asarray(got)[0]) and np.asarray(got)[1] == 0


# ---- the PRNG and a sampler --------------------------------------------------------------------

@needs_numba
def test_prng_bits_identical() -> None:
    def draws(key: Any) -> Any:
        k1, k2, k3 = jax.random.split(key, 3)
        return (jax.random.bits(k1, (5,)), jax.random.normal(k2, (7,)),
                jax.random.uniform(k3, (2, 3), minval=-2.0, maxval=3.0),
                jax.random.fold_in(key, 7), jax.random.normal(k3, ()))

    for seed in (0, 1, 12345):
        ref, got = _both(draws, jax.random.PRNGKey(seed))
        _assert_same(ref, got)


def _log_density(q: Any) -> Any:
    scale = jnp.array([1.0, 2.0, 0.5])
    return (-0.5 * jnp.sum((q / scale) ** 2) - 0.1 * jnp.sum(q ** 3) ** 2
            + 0.01 * jnp.sum(1.0 / (1.0 + q ** 2)))


def _hmc(key: Any, q0: Any) -> Any:
    grad = jax.grad(_log_density)

    def leapfrog(_: Any, state: Any) -> Any:
        q, p = state
        p = p + 0.05 * grad(q)
        q = q + 0.1 * p
        return q, p + 0.05 * grad(q)

    def draw(state: Any) -> Any:
        i, key, q, total = state
        key, k_momentum, k_accept = jax.random.split(key, 3)
        p = jax.random.normal(k_momentum, q.shape)
        q_new, p_new = lax.fori_loop(0, 5, leapfrog, (q, p))
        log_ratio = (_log_density(q_new) - 0.5 * p_new @ p_new
                     - _log_density(q) + 0.5 * p @ p)
        accept = jnp.log(jax.random.uniform(k_accept)) < log_ratio
        q = lax.cond(accept, lambda: q_new, lambda: q)
        return i + 1, key, q, total + q

    _, _, q, total = lax.while_loop(lambda s: s[0] < 30, draw,
                                    (0, key, q0, jnp.zeros_like(q0)))
    return q, total / 30


@needs_numba
def test_sampler_program() -> None:
    # One log per draw is libm's under native code: within tolerance of NumPy's.
    ref, got = _both(_hmc, jax.random.PRNGKey(3), np.zeros(3, np.float32))
    _assert_same(ref, got, rtol=1e-5)


def _source(f: Callable[..., Any], args: tuple[Any, ...]) -> str:
    """The native source of jit(f) at `args`."""
    executable = _executable(_compiled(f, args, "off"))
    return native.lower(executable.module.closed)


def _loop_bodies(source: str) -> list[str]:
    """The lines inside the generated function's loops."""
    body: list[str] = []
    depth: int | None = None
    for line in source.split("\n"):
        indent = len(line) - len(line.lstrip())
        if depth is not None and line.strip() and indent <= depth:
            depth = None
        if depth is not None:
            body.append(line)
        elif line.strip().startswith(("while True:", "for it")):
            depth = indent
    return body


def test_a_sampler_step_allocates_nothing() -> None:
    """The sampler's position, momentum and keys (arrays of 3, 2 and 3x2 elements) are held
    element by element: its loop bodies make no array (the split's iota and concatenations,
    the normal draw's broadcasts, the products and reductions are scalar code)."""
    body = _loop_bodies(_source(_hmc, (jax.random.PRNGKey(3), np.zeros(3, np.float32))))
    assert body
    for call in ("np.empty", "np.zeros", "np.full", "np.arange", "np.concatenate",
                 "np.broadcast_to", "np.array", ".copy()", ".reshape(", ".view("):
        assert not [line for line in body if call in line], call


@needs_numba
def test_loop_invariant_arrays_are_made_once() -> None:
    """An array made from literals alone inside a loop body (iota) is made before the
    loops; a broadcast scalar inside a fused loop stays a scalar read."""
    def f(c0: Any, xs: Any) -> Any:
        def step(c: Any, x: Any) -> Any:
            c = c + jnp.arange(64.0, dtype=jnp.float32) * x + jnp.full((64,), 2.0, jnp.float32)
            return c, c.sum()
        return lax.scan(step, c0, xs)

    args = (np.zeros(64, np.float32), np.arange(10, dtype=np.float32))
    source = _source(f, args)
    assert "np.arange" in source and not [line for line in _loop_bodies(source)
                                          if "np.arange" in line or "np.full" in line]
    ref, got = _both(f, *args)
    _assert_same(ref, got, rtol=1e-6)


# ---- choosing the tier ---------------------------------------------------------------------------

@needs_numba
def test_unsupported_primitive_falls_back() -> None:
    x = _operand("float32", (5,))
    f = lambda x: jnp.sort(x) * 2
    compiled = _compiled(f, (x,), "force")
    assert not native_tier.is_native(_executable(compiled))
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.sort(x) * 2)
    with pytest.raises(native.Unsupported, match="sort"):
        native.lower(jax.make_jaxpr(f)(x))


@needs_numba
def test_the_rule_is_the_primitives_native_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native tier reads each equation's rule off its primitive (`Primitive.native`, set
    where the primitive is defined): without one, the program stays on the NumPy tier."""
    x = _operand("float32", (12,))
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: lax.sin(c) * 2.0, x)
    assert native_tier.is_native(_executable(_compiled(f, (x,), "force")))
    monkeypatch.setattr(lax.sin_p, "native", None)
    jax.clear_caches()
    compiled = _compiled(f, (x,), "force")
    assert not native_tier.is_native(_executable(compiled))
    with pytest.raises(native.Unsupported, match="sin"):
        native.lower(jax.make_jaxpr(f)(x))


@needs_numba
def test_recompiling_a_program_reuses_its_native_module() -> None:
    # The same source again (the jit caches cleared): the loaded module's compiled function
    # serves it.
    x = _operand("float32", (3,))
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * 3.0 - x, x)
    first = _compiled(f, (x,), "force")
    jax.clear_caches()
    second = _compiled(f, (x,), "force")
    assert _executable(first) is not _executable(second)
    assert native_tier.is_native(_executable(first))
    assert native_tier.is_native(_executable(second))
    _assert_same(first(x), second(x))


@needs_numba
def test_scalar_shifts_per_dtype_and_x64_mode() -> None:
    # One program over 0-d operands compiled for int32 and then, with x64, for int64 and
    # uint64: each gets its own native function (numba's dispatcher and its on-disk cache are
    # keyed by the signature), and both tiers give JAX 0.4.30's values.
    f = lambda x, y: (lax.shift_right_logical(x, y), lax.shift_left(x, y))
    cases = [(np.int32(-3), 2147483646, -6),
             (np.int64(-3), 9223372036854775806, -6),
             (np.uint64(2**64 - 1), 9223372036854775807, 18446744073709551614)]
    for x, logical, left in cases:
        with jax.experimental.enable_x64(x.dtype.itemsize == 8):
            y = x.dtype.type(1)
            ref, got = _both(f, x, y)
            _assert_same(ref, got)
            assert [int(v) for v in got] == [logical, left]
            assert [np.asarray(v).dtype for v in got] == [x.dtype, x.dtype]


@needs_numba
def test_numba_failure_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(source: str) -> Any:
        raise RuntimeError("numba refused")

    monkeypatch.setattr(native_tier, "_load", broken)
    x = _operand("float32", (3,))
    compiled = _compiled(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2, x), (x,), "force")
    assert not native_tier.is_native(_executable(compiled))
    np.testing.assert_array_equal(np.asarray(compiled(x)), x * 8)


def _loop_program(x: Any) -> Any:
    return lax.fori_loop(0, 4, lambda i, c: c * 1.5 + 1.0, x)


@needs_numba
def test_off_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    submitted: list[Any] = []
    monkeypatch.setattr(native_tier, "_submit", submitted.append)
    x = _operand("float32", (3,))
    with native_tier.native_mode("off"):
        f = jax.jit(_loop_program)
        for _ in range(5):
            f(x)
        compiled = f.lower(x).compile()
        for _ in range(5):
            compiled(x)
    assert submitted == []
    assert not native_tier.is_native(_executable(compiled))


@pytest.fixture
def slow_compiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Native compiles that wait for the test to set the event."""
    release = threading.Event()
    original = native_tier._compile

    def held(closed: Any) -> Any:
        release.wait(60)
        return original(closed)

    monkeypatch.setattr(native_tier, "_compile", held)
    yield release
    release.set()
    native_tier.wait_idle(300)


@needs_numba
def test_auto_mode_calls_never_wait(slow_compiles: threading.Event) -> None:
    x = _operand("float32", (3,))
    want = np.asarray(jax.jit(_loop_program)(x))
    with native_tier.native_mode("auto"):
        compiled = jax.jit(_loop_program).lower(x).compile()
        executable = _executable(compiled)
        start = time.perf_counter()
        for _ in range(20):  # the second call queues the compile, held until released
            np.testing.assert_array_equal(np.asarray(compiled(x)), want)
        assert time.perf_counter() - start < 30
        assert not native_tier.is_native(executable)
        slow_compiles.set()
        assert native_tier.wait_idle(300)
        assert native_tier.is_native(executable)
        np.testing.assert_allclose(np.asarray(compiled(x)), want, rtol=1e-6)


@needs_numba
def test_auto_mode_swaps_in_on_the_jit_hot_path() -> None:
    x = _operand("float32", (3,))
    with native_tier.native_mode("auto"):
        f = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.5 - 1.0, x))
        want = np.asarray(f(x))
        # The jit cache entry and the AOT stage share one compiled program.
        executable = _executable(f.lower(x).compile())
        assert not native_tier.is_native(executable)
        np.testing.assert_array_equal(np.asarray(f(x)), want)  # the hot call
        assert native_tier.wait_idle(300)
        assert native_tier.is_native(executable)
        np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)


@needs_numba
@pytest.mark.parametrize("slower", [True, False])
def test_auto_mode_keeps_native_code_only_when_it_is_faster(monkeypatch: pytest.MonkeyPatch,
                                                             slower: bool) -> None:
    """The first native calls are timed against the NumPy tier's: slower native code (here
    made so by a sleep) gives the program back to the NumPy tier for good."""
    original = native_tier._compile

    def timed(closed: Any) -> Any:
        fn = original(closed)

        def native_call(*bufs: Any) -> Any:
            if slower:
                time.sleep(0.05)
            return fn(*bufs)
        return native_call

    monkeypatch.setattr(native_tier, "_compile", timed)
    x = _operand("float32", (3,))
    with native_tier.native_mode("auto"):
        f = jax.jit(lambda x: lax.fori_loop(0, 50, lambda i, c: jnp.sin(c) * 0.5 - 1.0, x))
        want = np.asarray(f(x))
        executable = _executable(f.lower(x).compile())
        np.testing.assert_array_equal(np.asarray(f(x)), want)  # the hot call
        assert native_tier.wait_idle(300)
        assert native_tier.is_native(executable)
        for _ in range(native_tier.TRIAL_CALLS):
            np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)
        assert native_tier.is_native(executable) == (not slower)
        np.testing.assert_allclose(np.asarray(f(x)), want, rtol=1e-6)


def test_numjax_runs_without_numba() -> None:
    # numba hidden from the import system: the option defaults to "off" and programs run on
    # the NumPy tier.
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import importlib.util as u; real = u.find_spec\n"
        "u.find_spec = lambda name, *a: None if name == 'numba' else real(name, *a)\n"
        "import numjax, numjax.numpy as jnp\n"
        "from numjax._src.compiler import native_tier\n"
        "assert not native_tier.available and native_tier.native_mode.value == 'off'\n"
        "f = numjax.jit(lambda x: numjax.lax.fori_loop(0, 3, lambda i, c: c + 1, x))\n"
        "print([float(f(1.0)) for _ in range(3)])\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMJAX_NATIVE"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[4.0, 4.0, 4.0]"

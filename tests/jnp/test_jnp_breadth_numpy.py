"""The added jnp functions against NumPy over shapes and dtypes (int32, float32, bool,
bfloat16; 64-bit types under enable_x64), plus hypothesis checks of broadcasting."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import numjax.numpy as jnp
from numjax.experimental import enable_x64

_SHAPES = [(5,), (3, 4), (2, 3, 4)]
_DTYPES = [np.int32, np.float32, np.bool_, ml_dtypes.bfloat16]


def _make(shape: tuple[int, ...], dtype: Any, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 6, shape).astype(dtype)
    return rng.uniform(-3, 3, shape).astype(dtype)


def _check(actual: Any, expected: Any, dtype: Any = None, rtol: float = 1e-5) -> None:
    if isinstance(expected, tuple | list):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            _check(a, e, dtype, rtol)
        return
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    if dtype is not None:
        assert a.dtype == np.dtype(dtype), (a.dtype, dtype)
    tol = 2e-2 if a.dtype == ml_dtypes.bfloat16 else rtol
    np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=tol, atol=tol)


# Shape-preserving structural ops: same dtype out, any input dtype.
_STRUCTURAL: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "roll": (lambda m, x: m.roll(x, 2, axis=-1), None),  # type: ignore[dict-item]
    "roll_none": (lambda m, x: m.roll(x, -7), None),  # type: ignore[dict-item]
    "flip_lr_ud": (lambda m, x: m.flipud(x), None),  # type: ignore[dict-item]
    "tile": (lambda m, x: m.tile(x, (2, 1, 2)), None),  # type: ignore[dict-item]
    "repeat": (lambda m, x: m.repeat(x, 3, axis=0), None),  # type: ignore[dict-item]
    "repeat_flat": (lambda m, x: m.repeat(x, 2), None),  # type: ignore[dict-item]
    "resize": (lambda m, x: m.resize(x, (4, 7)), None),  # type: ignore[dict-item]
    "append": (lambda m, x: m.append(x, x), None),  # type: ignore[dict-item]
    # A list of indices is no array to JAX's delete (its TypeError): pass an array.
    "delete": (lambda m, x: m.delete(x, np.array([0, -1]), axis=0),  # type: ignore[dict-item]
               None),
    "insert": (lambda m, x: m.insert(x, 1, x[:1], axis=0), None),  # type: ignore[dict-item]
    "pad_edge": (lambda m, x: m.pad(x, 2, mode="edge"), None),  # type: ignore[dict-item]
    "pad_wrap": (lambda m, x: m.pad(x, 7, mode="wrap"), None),  # type: ignore[dict-item]
    "pad_reflect": (lambda m, x: m.pad(x, 6, mode="reflect"), None),  # type: ignore[dict-item]
    "pad_symmetric": (lambda m, x: m.pad(x, 6, mode="symmetric"),  # type: ignore[dict-item]
                      None),
    "pad_constant": (lambda m, x: m.pad(x, 1), None),  # type: ignore[dict-item]
    "array_split": (lambda m, x: m.array_split(x, 3, axis=-1), None),  # type: ignore[dict-item]
    "sort": (lambda m, x: m.sort(x, axis=0), None),  # type: ignore[dict-item]
    "unique": (lambda m, x: m.unique(x), None),  # type: ignore[dict-item]
    "cumsum_axis": (lambda m, x: m.cumsum(x.astype(np.float32), axis=-1),  # type: ignore
                    None),
    "diff": (lambda m, x: m.diff(x, axis=-1), None),  # type: ignore[dict-item]
}


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(_STRUCTURAL))
def test_structural_against_numpy(name: str, dtype: Any, shape: tuple[int, ...]) -> None:
    fn = _STRUCTURAL[name][0]
    x = _make(shape, dtype)
    if name == "diff" and dtype == np.bool_:
        expected = np.diff(x, axis=-1)
    elif name in ("pad_reflect", "pad_symmetric", "pad_wrap") and dtype == ml_dtypes.bfloat16:
        expected = fn(np, x.astype(np.float32)).astype(dtype)
    else:
        expected = fn(np, x)
    actual = fn(jnp, x)
    if name == "cumsum_axis":
        _check(actual, expected, np.float32)
    else:
        _check(actual, expected, None if name == "unique" else getattr(expected, "dtype", None))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 3, 3)], ids=str)
@pytest.mark.parametrize("k", [-1, 0, 2])
@pytest.mark.parametrize("dtype", _DTYPES, ids=lambda d: np.dtype(d).name)
def test_triangles_and_diagonals(shape: tuple[int, ...], k: int, dtype: Any) -> None:
    x = _make(shape, dtype)
    _check(jnp.tril(x, k), np.tril(x, k), x.dtype)
    _check(jnp.triu(x, k), np.triu(x, k), x.dtype)
    _check(jnp.diagonal(x, k, -2, -1), np.diagonal(x, k, -2, -1), x.dtype)
    if len(shape) == 2:
        _check(jnp.diag(x, k), np.diag(x, k), x.dtype)
        _check(jnp.diag(x[0], k), np.diag(x[0], k), x.dtype)
        _check(jnp.rot90(x, k), np.rot90(x, k), x.dtype)
    _check(jnp.tri(shape[0], shape[1], k, int), np.tri(shape[0], shape[1], k, int), np.int32)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "linear_ramp", "maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("width", [0, 1, ((2, 5), (3, 0)), ((9, 1), (1, 11))], ids=str)
def test_pad_modes_float(mode: Any, width: Any) -> None:
    x = _make((3, 4), np.float32)
    _check(jnp.pad(x, width, mode=mode), np.pad(x, width, mode=mode), np.float32)


@pytest.mark.parametrize("reflect_type", ["even", "odd"])
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_pad_reflect_types(mode: Any, reflect_type: Any, n: int) -> None:
    x = _make((n,), np.float32)
    _check(jnp.pad(x, (7, 4), mode=mode, reflect_type=reflect_type),
           np.pad(x, (7, 4), mode=mode, reflect_type=reflect_type), np.float32)


@pytest.mark.parametrize("stat_length", [1, 2, (1, 3)])
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean"])
def test_pad_stat_length(mode: Any, stat_length: Any) -> None:
    x = _make((6,), np.float32)
    _check(jnp.pad(x, 3, mode=mode, stat_length=stat_length),
           np.pad(x, 3, mode=mode, stat_length=stat_length), np.float32)


_REDUCTIONS: dict[str, Callable[..., Any]] = {
    "nansum": lambda m, x, ax: m.nansum(x, axis=ax),
    "nanprod": lambda m, x, ax: m.nanprod(x, axis=ax),
    "nanmean": lambda m, x, ax: m.nanmean(x, axis=ax),
    "nanvar": lambda m, x, ax: m.nanvar(x, axis=ax, ddof=1),
    "nanstd": lambda m, x, ax: m.nanstd(x, axis=ax),
    "nanmax": lambda m, x, ax: m.nanmax(x, axis=ax),
    "nanmin": lambda m, x, ax: m.nanmin(x, axis=ax),
    "nanmedian": lambda m, x, ax: m.nanmedian(x, axis=ax),
    "nanquantile": lambda m, x, ax: m.nanquantile(x, 0.3, axis=ax),
    "nanpercentile": lambda m, x, ax: m.nanpercentile(x, np.array([25.0, 80.0]), axis=ax),
    "median": lambda m, x, ax: m.median(x, axis=ax),
    "ptp": lambda m, x, ax: m.ptp(x, axis=ax),
    "count_nonzero": lambda m, x, ax: m.count_nonzero(x, axis=ax),
    "nancumsum": lambda m, x, ax: m.nancumsum(x, axis=ax),
    "nancumprod": lambda m, x, ax: m.nancumprod(x, axis=ax),
}


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("name", sorted(_REDUCTIONS))
def test_nan_reductions(name: str, axis: int | None) -> None:
    x = _make((4, 5), np.float32)
    x[1, 2] = x[3, 0] = np.nan
    fn = _REDUCTIONS[name]
    if name in ("nancumsum", "nancumprod") and axis is None:
        expected = fn(np, x.ravel(), 0)
    else:
        expected = fn(np, x, axis)
    _check(fn(jnp, x, axis), expected, rtol=1e-4)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_quantile_methods(method: Any, axis: Any, keepdims: bool) -> None:
    x = _make((3, 4, 5), np.float32)
    # JAX's "nearest" takes the lower neighbour at an exact half where NumPy rounds half to
    # even, so q = 0.5 (position 29.5 of 60) is left out for it; tests/jnp/
    # test_reduction_dtypes.py pins JAX's values at halves.
    q = np.array([0.0, 0.33, 0.5, 1.0] if method != "nearest" else [0.0, 0.33, 0.6, 1.0],
                 np.float32)
    _check(jnp.quantile(x, q, axis=axis, method=method, keepdims=keepdims),
           np.quantile(x, q, axis=axis, method=method, keepdims=keepdims), np.float32)


def test_x64_dtypes() -> None:
    with enable_x64():
        x = _make((3, 4), np.float64)
        assert jnp.median(x).dtype == np.float64
        assert jnp.cumsum(np.arange(3)).dtype == np.int64
        assert jnp.cumsum(np.array([True])).dtype == np.int64
        assert jnp.argsort(x).dtype == np.int64
        # JAX's float_power keeps the promoted inexact dtype (NumPy's widens to float64).
        assert jnp.float_power(np.float32(2), 3).dtype == np.float32
        assert jnp.float_power(np.int32(2), 3).dtype == np.float32
        assert jnp.float_power(np.int64(2), 3).dtype == np.float64
        assert jnp.unique(np.array([2, 1, 2]), return_inverse=True)[1].dtype == np.int64
        assert jnp.bincount(np.array([1, 1])).dtype == np.int64
        _check(jnp.nanvar(x, axis=0), np.nanvar(x, axis=0), np.float64, rtol=1e-12)
        _check(jnp.einsum("ij,kj->ik", x, x), np.einsum("ij,kj->ik", x, x), np.float64)
    assert jnp.float_power(np.float32(2), 3).dtype == np.float32


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("bij,bjk->bki", [(2, 3, 4), (2, 4, 5)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("...ij,...jk", [(2, 2, 3), (3, 4)]),
    ("iij->j", [(2, 2, 3)]),
    ("ij,ij->ij", [(2, 3), (1, 3)]),
    ("i,j->ij", [(3,), (4,)]),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=lambda d: np.dtype(d).name)
def test_einsum_against_numpy(spec: str, shapes: list[tuple[int, ...]], dtype: Any) -> None:
    ops = [_make(s, dtype, i) for i, s in enumerate(shapes)]
    for optimize in ("optimal", "greedy", False):
        _check(jnp.einsum(spec, *ops, optimize=optimize), np.einsum(spec, *ops), dtype,
               rtol=1e-4)


@pytest.mark.parametrize("axes", [0, 1, 2, ([0, 1], [1, 0]), (1, 0)], ids=str)
def test_tensordot_against_numpy(axes: Any) -> None:
    a, b = _make((3, 3), np.float32), _make((3, 3, 2), np.float32, 1)
    _check(jnp.tensordot(a, b, axes), np.tensordot(a, b, axes), np.float32, rtol=1e-4)


@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 3), (2, 2)), ((3,), (2, 2))], ids=str)
def test_kron(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a, b = _make(sa, np.int32), _make(sb, np.int32, 1)
    _check(jnp.kron(a, b), np.kron(a, b), np.int32)


@pytest.mark.parametrize("kw", [{}, {"return_index": True}, {"return_inverse": True},
                                {"return_counts": True}, {"axis": 0}, {"axis": 1},
                                {"return_index": True, "return_inverse": True,
                                 "return_counts": True, "axis": 0}], ids=str)
def test_unique_against_numpy(kw: dict[str, Any]) -> None:
    x = np.array([[1, 2, 1], [3, 2, 1], [1, 2, 1], [0, 0, 7]], np.int32)
    expected = np.unique(x, **kw)
    if kw.get("return_inverse") and kw.get("axis") is not None:
        # NumPy 2.0.x returns a 1-d inverse for an axis; JAX 0.4.30 keeps a size-1 axis.
        expected = (*expected[:2], expected[2].reshape(-1, 1), *expected[3:])
    _check(jnp.unique(x, **kw), expected)


def test_set_operations_against_numpy() -> None:
    a = np.array([5, 1, 3, 3, 9, 1], np.int32)
    b = np.array([3, 4, 5, 4], np.int32)
    _check(jnp.union1d(a, b), np.union1d(a, b))
    _check(jnp.intersect1d(a, b), np.intersect1d(a, b))
    _check(jnp.intersect1d(a, b, return_indices=True), np.intersect1d(a, b, return_indices=True))
    _check(jnp.setdiff1d(a, b), np.setdiff1d(a, b))
    _check(jnp.setxor1d(a, b), np.setxor1d(a, b))
    _check(jnp.isin(a, b, invert=True), np.isin(a, b, invert=True))
    _check(jnp.in1d(a, b) if hasattr(jnp, "in1d") else np.isin(a, b), np.isin(a, b))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 16])
def test_searchsorted(side: Any, n: int) -> None:
    a = np.sort(_make((n,), np.float32))
    v = _make((3, 4), np.float32, 1)
    v[0, 0] = a[0] if n else 0.0
    _check(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side), np.int32)


@pytest.mark.parametrize("kw", [{}, {"density": True}, {"bins": 4, "range": (-1, 2)},
                                {"weights": np.arange(10.0, dtype=np.float32)}], ids=str)
def test_histogram(kw: dict[str, Any]) -> None:
    x = _make((10,), np.float32)
    counts, edges = jnp.histogram(x, **kw)
    e_counts, e_edges = np.histogram(x, **kw)
    _check(edges, e_edges, rtol=1e-5)
    _check(counts, e_counts, rtol=1e-5)


def test_indices_meshgrid_against_numpy() -> None:
    _check(jnp.indices((2, 3)), np.indices((2, 3)), np.int32)
    _check(jnp.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True))
    a, b, c = np.arange(2), np.arange(3.0), np.arange(4)
    for indexing in ("xy", "ij"):
        for sparse in (False, True):
            _check(jnp.meshgrid(a, b, c, indexing=indexing, sparse=sparse),
                   np.meshgrid(a, b, c, indexing=indexing, sparse=sparse))


@pytest.mark.parametrize("fn", ["hanning", "hamming", "blackman", "bartlett"])
@pytest.mark.parametrize("m", [0, 1, 5, 8])
def test_windows(fn: str, m: int) -> None:
    _check(getattr(jnp, fn)(m), getattr(np, fn)(m), np.float32, rtol=1e-5)


_FLOATS = hnp.arrays(np.float32, hnp.array_shapes(max_dims=3, max_side=4),
                     elements=st.floats(-5, 5, width=32) | st.just(np.nan))


@settings(max_examples=40, deadline=None)
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
       st.integers(0, 2**31 - 1))
def test_broadcasting_binary_ufuncs(shapes: Any, seed: int) -> None:
    s1, s2 = shapes.input_shapes
    x, y = _make(s1, np.float32, seed % 1000), _make(s2, np.float32, seed % 1000 + 1)
    if x.ndim:
        x[..., :1] = np.nan
    for name in ("fmax", "fmin", "heaviside", "logaddexp2", "isclose", "float_power"):
        xx = np.abs(x) if name == "float_power" else x
        with np.errstate(invalid="ignore"):
            expected = getattr(np, name)(xx, y)
        if name == "heaviside":  # JAX (unlike NumPy) gives x2 at NaN: neither < 0 nor > 0
            expected = np.where(np.isnan(xx), y, expected)
        _check(getattr(jnp, name)(xx, y), expected, rtol=1e-4)


@settings(max_examples=30, deadline=None)
@given(_FLOATS)
def test_unary_elementwise_hypothesis(x: np.ndarray) -> None:
    for name in ("sinc", "i0", "nan_to_num", "isposinf", "isneginf", "isreal", "fix"):
        _check(getattr(jnp, name)(x), getattr(np, name)(x), rtol=1e-4)
    m, e = jnp.frexp(x)
    em, ee = np.frexp(x)
    _check(m, em)
    _check(e, ee)
    _check(jnp.modf(x), np.modf(x))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int8], ids=lambda d: np.dtype(d).name)
def test_gcd_lcm(dtype: Any) -> None:
    rng = np.random.default_rng(0)
    lo = 0 if np.dtype(dtype).kind == "u" else -40
    a = rng.integers(lo, 40, (20,)).astype(dtype)
    b = rng.integers(lo, 40, (20,)).astype(dtype)
    _check(jnp.gcd(a, b), np.gcd(a, b), dtype)
    small_a, small_b = a % 10, b % 10
    _check(jnp.lcm(small_a, small_b), np.lcm(small_a, small_b), dtype)


def test_take_and_take_along_axis_against_numpy() -> None:
    x = _make((3, 4), np.float32)
    idx = np.array([[0, 3], [2, 1]], np.int32)
    for mode in ("clip", "wrap"):
        _check(jnp.take(x, idx, axis=1, mode=mode), np.take(x, idx, axis=1, mode=mode))
    order = np.argsort(x, axis=0)
    _check(jnp.take_along_axis(x, order, axis=0), np.take_along_axis(x, order, axis=0))
    _check(jnp.take_along_axis(x, order[:1], axis=0), np.take_along_axis(x, order[:1], axis=0))
    _check(jnp.take_along_axis(x.ravel(), np.array([2, 0]), axis=None),
           np.take_along_axis(x.ravel(), np.array([2, 0]), axis=None))


def test_index_conversions_against_numpy() -> None:
    shape = (3, 4, 5)
    flat = np.array([0, 7, 59, 33], np.int32)
    _check(jnp.unravel_index(flat, shape), np.unravel_index(flat, shape))
    coords = np.unravel_index(flat, shape)
    _check(jnp.ravel_multi_index(coords, shape), np.ravel_multi_index(coords, shape))
    _check(jnp.ravel_multi_index(coords, shape, order="F"),
           np.ravel_multi_index(coords, shape, order="F"))

"""Result dtypes and weak types of jnp (and scipy.stats) functions given weakly typed inputs: a
weak array (a Python scalar broadcast), a weak 0-d Array and a Python scalar. JAX 0.4.30's
results are recorded as (dtype, weak_type, shape)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax.numpy as jnp
from numjax.scipy.stats import norm


def _weak_array(value: Any) -> Any:
    return jnp.broadcast_to(value, (3,))


# name -> (function of (x, y), the recorded result per input kind)
WEAK_ARRAY_CASES: dict[str, tuple[Callable[..., Any], tuple[str, bool, tuple[int, ...]]]] = {
    "angle": (lambda x, y: jnp.angle(x), ("float32", True, (3,))),
    "diag": (lambda x, y: jnp.diag(x), ("float32", True, (3, 3))),
    "diagflat": (lambda x, y: jnp.diagflat(x), ("float32", False, (3, 3))),
    "full_like_array_fill": (lambda x, y: jnp.full_like(x, y), ("float32", False, (3,))),
    "iscomplex": (lambda x, y: jnp.iscomplex(x), ("bool", False, (3,))),
    "isreal": (lambda x, y: jnp.isreal(x), ("bool", False, (3,))),
    "isposinf": (lambda x, y: jnp.isposinf(x), ("bool", False, (3,))),
    "isneginf": (lambda x, y: jnp.isneginf(x), ("bool", False, (3,))),
    "setdiff1d": (lambda x, y: jnp.setdiff1d(x, y), ("float32", True, (1,))),
    "setxor1d": (lambda x, y: jnp.setxor1d(x, y), ("float32", True, (2,))),
    "sinc": (lambda x, y: jnp.sinc(x), ("float32", False, (3,))),
    "unwrap": (lambda x, y: jnp.unwrap(x), ("float32", False, (3,))),
    "gradient": (lambda x, y: jnp.gradient(x), ("float32", True, (3,))),
    "gradient_strong_spacing": (lambda x, y: jnp.gradient(x, jnp.float32(2.0)),
                                ("float32", False, (3,))),
    "norm.logpdf": (lambda x, y: norm.logpdf(x), ("float32", False, (3,))),
    "norm.pdf": (lambda x, y: norm.pdf(x), ("float32", False, (3,))),
}

SCALAR_CASES: dict[str, tuple[Callable[..., Any], tuple[str, bool, tuple[int, ...]]]] = {
    "deg2rad": (lambda x, y: jnp.deg2rad(x), ("float32", True, ())),
    "rad2deg": (lambda x, y: jnp.rad2deg(x), ("float32", True, ())),
    "radians": (lambda x, y: jnp.radians(x), ("float32", True, ())),
    "degrees": (lambda x, y: jnp.degrees(x), ("float32", True, ())),
    "isposinf": (lambda x, y: jnp.isposinf(x), ("bool", False, ())),
    "isneginf": (lambda x, y: jnp.isneginf(x), ("bool", False, ())),
    "setdiff1d": (lambda x, y: jnp.setdiff1d(x, y), ("float32", True, (1,))),
    "setxor1d": (lambda x, y: jnp.setxor1d(x, y), ("float32", True, (2,))),
    "diagflat": (lambda x, y: jnp.diagflat(x), ("float32", False, (1, 1))),
    "norm.logpdf": (lambda x, y: norm.logpdf(x), ("float32", True, ())),
}


def _check(out: Any, expected: tuple[str, bool, tuple[int, ...]]) -> None:
    dtype, weak, shape = expected
    assert (out.dtype, out.weak_type, out.shape) == (np.dtype(dtype), weak, shape)


@pytest.mark.parametrize("name", sorted(WEAK_ARRAY_CASES))
def test_weak_array_inputs(name: str) -> None:
    fun, expected = WEAK_ARRAY_CASES[name]
    _check(fun(_weak_array(0.75), _weak_array(2.0)), expected)


@pytest.mark.parametrize("kind", ["python", "weak_0d"])
@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_weak_scalar_inputs(name: str, kind: str) -> None:
    fun, expected = SCALAR_CASES[name]
    wrap = (lambda v: v) if kind == "python" else jnp.asarray
    _check(fun(wrap(0.75), wrap(2.0)), expected)


def test_full_like_broadcasts_an_array_fill_value_to_the_shape():
    out = jnp.full_like(jnp.zeros((2, 3)), jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])  # JAX: (2, 3)
    assert not out.weak_type
    with pytest.raises(ValueError):
        jnp.full_like(jnp.zeros(3), jnp.ones(2))


def test_histogram_edges_from_an_integer_bins_array_are_in_the_data_inexact_dtype():
    edges = jnp.histogram_bin_edges(jnp.arange(5), jnp.array([0, 2, 4]))
    assert edges.dtype == np.float32 and not edges.weak_type      # JAX: float32 [0, 2, 4]
    counts, edges = jnp.histogram(jnp.arange(5), jnp.array([0, 2, 4]))
    np.testing.assert_array_equal(counts, [2.0, 3.0])            # JAX: [2., 3.]
    assert edges.dtype == np.float32

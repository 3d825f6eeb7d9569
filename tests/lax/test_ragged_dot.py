"""lax.ragged_dot: values, result dtypes, errors and the printed equation recorded from JAX
0.4.30; jit vs eager, vmap vs a loop, gradients vs finite differences.

JAX 0.4.30 registers no jvp, transpose or batching rule for ragged_dot (grad and vmap raise
NotImplementedError there); numjax has them, and they agree with the masked product the
primitive computes (tests/core/test_rule_coverage.py checks them too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import check_grads

LHS = np.arange(12, dtype=np.float32).reshape(6, 2)
RHS = np.arange(24, dtype=np.float32).reshape(3, 2, 4)

# (group_sizes, JAX's result): rows past the last group are zero; negative sizes move the
# next group's start back.
VALUES = [
    ([2, 3, 1], [[4, 5, 6, 7], [12, 17, 22, 27], [92, 101, 110, 119], [132, 145, 158, 171],
                 [172, 189, 206, 223], [380, 401, 422, 443]]),
    ([1, 1, 1], [[4, 5, 6, 7], [52, 57, 62, 67], [164, 173, 182, 191], [0, 0, 0, 0],
                 [0, 0, 0, 0], [0, 0, 0, 0]]),
    ([4, 4, 4], [[4, 5, 6, 7], [12, 17, 22, 27], [20, 29, 38, 47], [28, 41, 54, 67],
                 [172, 189, 206, 223], [212, 233, 254, 275]]),
    ([-1, 4, 4], [[12, 13, 14, 15], [52, 57, 62, 67], [92, 101, 110, 119],
                  [236, 249, 262, 275], [308, 325, 342, 359], [380, 401, 422, 443]]),
]


@pytest.mark.parametrize("sizes,expected", VALUES)
@pytest.mark.parametrize("jit", [False, True])
def test_values(sizes: list[int], expected: list[list[int]], jit: bool) -> None:
    f = numjax.jit(lax.ragged_dot) if jit else lax.ragged_dot
    out = f(LHS, RHS, np.array(sizes, np.int32))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out), np.array(expected, np.float32))


# (lhs dtype, rhs dtype, preferred_element_type, group_sizes dtype, JAX's result dtype)
DTYPES = [
    ("int32", "int32", None, "int32", "int32"),
    ("float32", "int32", None, "int32", "float32"),
    ("float16", "float32", None, "int32", "float32"),
    ("float16", "float16", "float32", "int32", "float32"),
    ("int8", "int8", "int32", "int32", "int32"),
    ("complex64", "complex64", None, "int32", "complex64"),
    ("float32", "float32", None, "uint8", "float32"),
]


@pytest.mark.parametrize("ldt,rdt,pet,gdt,expected", DTYPES)
def test_result_dtypes(ldt: str, rdt: str, pet: Any, gdt: str, expected: str) -> None:
    out = lax.ragged_dot(LHS.astype(ldt), RHS.astype(rdt), np.array([2, 3, 1], gdt),
                         preferred_element_type=pet)
    assert out.dtype == np.dtype(expected)
    np.testing.assert_array_equal(np.asarray(out).real.astype(np.float64), VALUES[0][1])
    assert not lax.ragged_dot(jnp.asarray(LHS), jnp.asarray(RHS), np.int32([2, 3, 1])).weak_type


def test_bool_operands() -> None:
    out = lax.ragged_dot(LHS > 3, RHS > 3, np.array([2, 3, 1], np.int32))
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(out), np.repeat([[False], [True]], [2, 4], 0)
                                  .repeat(4, 1))


ERRORS = [
    (LHS, RHS.reshape(3, 4, 2), [2, 3, 1], TypeError,
     r"ragged_dot requires that lhs.shape\[1\] == rhs.shape\[1\]: got 2 and 4."),
    (LHS, RHS, [2, 4], TypeError,
     r"ragged_dot requires that rhs.shape\[0\] == group_sizes.shape\[0\]: got 3 and 2."),
    (LHS, RHS, np.float32([2, 3, 1]), TypeError,
     "ragged_dot requires that group_sizes.dtype is subtype of np.integer."),
    (LHS[None], RHS, [2, 3, 1], ValueError, r"too many values to unpack \(expected 2\)"),
    (LHS, RHS[0], [2, 3, 1], ValueError, r"not enough values to unpack \(expected 3, got 2\)"),
]


@pytest.mark.parametrize("lhs,rhs,sizes,exc,msg", ERRORS)
def test_errors(lhs: Any, rhs: Any, sizes: Any, exc: type[Exception], msg: str) -> None:
    with pytest.raises(exc, match=msg):
        lax.ragged_dot(lhs, rhs, np.asarray(sizes))


def test_group_offset_is_not_supported() -> None:
    with pytest.raises(NotImplementedError, match="Unimplemented group_offset support."):
        lax.ragged_dot(LHS, RHS, np.array([2, 3, 1], np.int32),
                       group_offset=np.array([0], np.int32))


def test_printed_equation() -> None:
    text = str(numjax.make_jaxpr(
        lambda a, b, c: lax.ragged_dot(a, b, c, precision=lax.Precision.HIGHEST))(
            LHS, RHS, np.array([2, 3, 1], np.int32)))
    assert text == (
        "{ lambda ; a:f32[6,2] b:f32[3,2,4] c:i32[3]. let\n    d:f32[6,4] = ragged_dot[\n"
        "      group_offset=None\n      precision=(Precision.HIGHEST, Precision.HIGHEST)\n"
        "      preferred_element_type=None\n    ] a b c\n  in (d,) }")


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 0),
                                     (0, 0, None), (1, None, 0), (0, 2, 0)])
def test_vmap_matches_loop(in_axes: tuple[Any, ...]) -> None:
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal((3, 6, 2)).astype(np.float32)
    rhs = rng.standard_normal((3, 3, 2, 4)).astype(np.float32)
    sizes = np.array([[2, 3, 1], [0, 4, 2], [1, -1, 5]], np.int32)
    args = [lhs, rhs, sizes]
    batched = [a if ax is None else np.moveaxis(a, 0, ax)
               for a, ax in zip(args, in_axes, strict=True)]
    unbatched = [a[0] if ax is None else a for a, ax in zip(args, in_axes, strict=True)]
    out = numjax.vmap(lax.ragged_dot, in_axes)(*[b if ax is not None else u for b, u, ax in
                                                  zip(batched, unbatched, in_axes, strict=True)])
    loop = [lax.ragged_dot(*[u if ax is None else u[i] for u, ax in
                             zip(unbatched, in_axes, strict=True)]) for i in range(3)]
    np.testing.assert_allclose(np.asarray(out), np.stack([np.asarray(x) for x in loop]),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("sizes", [[2, 3, 1], [1, 1, 1], [3, -1, 2]])
def test_grads(sizes: list[int]) -> None:
    rng = np.random.default_rng(1)
    lhs = rng.standard_normal((6, 2)).astype(np.float32)
    rhs = rng.standard_normal((3, 2, 4)).astype(np.float32)
    gs = np.array(sizes, np.int32)
    check_grads(lambda a, b: lax.ragged_dot(a, b, gs), (lhs, rhs), order=2)

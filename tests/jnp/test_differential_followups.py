"""Cases differential testing against JAX 0.4.30 found, with JAX's recorded results as data.

Each row is (expression, x64, what JAX returned): dtype, shape, weak type and values, the
named-tuple type for tuples, or the exception type and the first line of its message. The
expressions run unchanged against numjax (`L` is the library, `jnp` its numpy).
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.config import enable_x64

ROWS: list[tuple[str, bool, dict[str, Any]]] = [
    (
        "L.scipy.special.digamma(0.0)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["nan"]},
    ),
    (
        "L.scipy.special.digamma(-0.0)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["nan"]},
    ),
    (
        "L.scipy.special.digamma(np.array([0, -1, -3], np.int32))",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["nan", "nan", "nan"]},
    ),
    (
        "L.jit(L.lax.digamma)(np.array([0., -2., np.nan], np.float32))",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["nan", "nan", "nan"]},
    ),
    (
        "jnp.unique_counts(np.array([np.nan, np.nan, 1.]))",
        False,
        {
            "tuple": "_UniqueCountsResult",
            "items": [
                {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.0", "nan", "nan"]},
                {"dtype": "int32", "shape": [3], "weak": False, "v": [1, 1, 1]},
            ],
        },
    ),
    (
        "jnp.unique_values(np.array([np.nan, np.nan, 1.]))",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.0", "nan", "nan"]},
    ),
    (
        "jnp.unique_inverse(np.array([[np.nan, np.nan], [1., 1.]]))",
        False,
        {
            "tuple": "_UniqueInverseResult",
            "items": [
                {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.0", "nan", "nan"]},
                {"dtype": "int32", "shape": [2, 2], "weak": False, "v": [[1, 2], [0, 0]]},
            ],
        },
    ),
    (
        "jnp.unique_all(np.array([np.nan, 2., np.nan, 1.]))",
        False,
        {
            "tuple": "_UniqueAllResult",
            "items": [
                {
                    "dtype": "float32",
                    "shape": [4],
                    "weak": False,
                    "v": ["1.0", "2.0", "nan", "nan"],
                },
                {"dtype": "int32", "shape": [4], "weak": False, "v": [3, 1, 0, 2]},
                {"dtype": "int32", "shape": [4], "weak": False, "v": [2, 1, 3, 0]},
                {"dtype": "int32", "shape": [4], "weak": False, "v": [1, 1, 1, 1]},
            ],
        },
    ),
    (
        "jnp.unique_counts(np.array([2, 1, 2])).counts",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [1, 2]},
    ),
    (
        "jnp.unique_all(np.array([2, 1, 2])).inverse_indices",
        False,
        {"dtype": "int32", "shape": [3], "weak": False, "v": [1, 0, 1]},
    ),
    (
        "L.jit(jnp.unique_counts, static_argnames='size')(np.array([2, 1, 2]), size=3).values",
        False,
        {"dtype": "int32", "shape": [3], "weak": False, "v": [1, 2, 1]},
    ),
    ("jnp.isin(1.0, 2)", False, {"dtype": "bool", "shape": [], "weak": False, "v": False}),
    ("jnp.isin(1, 1)", False, {"dtype": "bool", "shape": [], "weak": False, "v": True}),
    (
        "jnp.outer(np.array([True, False]), np.array([True, True]))",
        False,
        {"dtype": "bool", "shape": [2, 2], "weak": False, "v": [[True, True], [False, False]]},
    ),
    (
        "jnp.outer(np.array([1, 2], np.int8), np.array([True, True]))",
        False,
        {"dtype": "int8", "shape": [2, 2], "weak": False, "v": [[1, 1], [2, 2]]},
    ),
    (
        "jnp.zeros((0, 0, 1), np.uint8).at[0, jnp.array([-1, 0]), 0].max(-1.5, mode='clip')",
        False,
        {"dtype": "uint8", "shape": [0, 0, 1], "weak": False, "v": []},
    ),
    (
        "jnp.zeros((0, 0, 1), np.uint8).at[0, jnp.array([-1, 0])].set(3)",
        False,
        {"dtype": "uint8", "shape": [0, 0, 1], "weak": False, "v": []},
    ),
    (
        "jnp.zeros((0, 3), np.uint8).at[0, np.array([1])].add(1)",
        False,
        {"dtype": "uint8", "shape": [0, 3], "weak": False, "v": []},
    ),
    (
        "jnp.zeros((0, 3), np.float32).at[0, 1].add(1.)",
        False,
        {"raises": "IndexError", "msg": "index is out of bounds for axis 0 with size 0"},
    ),
    (
        "jnp.zeros((0, 0, 1), np.uint8)[0, jnp.array([-1, 0]), 0]",
        False,
        {
            "raises": "TypeError",
            "msg": "Slice size at index 0 in gather op is out of range, must be within "
            "[0, 0 + 1), got 1.",
        },
    ),
    (
        "jnp.zeros((3, 0), np.uint8)[jnp.array([1]), 0]",
        False,
        {
            "raises": "TypeError",
            "msg": "Slice size at index 1 in gather op is out of range, must be within "
            "[0, 0 + 1), got 1.",
        },
    ),
    (
        "jnp.zeros((0, 3), np.uint8)[0]",
        False,
        {"raises": "IndexError", "msg": "index is out of bounds for axis 0 with size 0"},
    ),
    (
        "jnp.linalg.pinv(np.ones((2, 2), jnp.bfloat16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype bfloat16"},
    ),
    (
        "jnp.linalg.pinv(np.ones((2, 2), np.float16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype float16"},
    ),
    (
        "jnp.linalg.cholesky(np.zeros((0, 0), np.float16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype float16"},
    ),
    (
        "jnp.linalg.qr(np.zeros((0, 2), np.float16))",
        False,
        {
            "tuple": "QRResult",
            "items": [
                {"dtype": "float16", "shape": [0, 0], "weak": False, "v": []},
                {"dtype": "float16", "shape": [0, 2], "weak": False, "v": []},
            ],
        },
    ),
    (
        "jnp.linalg.svd(np.eye(2, dtype=jnp.bfloat16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype bfloat16"},
    ),
    (
        "jnp.linalg.eigh(np.eye(2, dtype=np.float16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype float16"},
    ),
    (
        "jnp.linalg.solve(np.eye(2, dtype=jnp.bfloat16), np.ones(2, jnp.bfloat16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype bfloat16"},
    ),
    (
        "jnp.linalg.det(np.eye(4, dtype=np.float16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype float16"},
    ),
    (
        "jnp.linalg.det(np.eye(2, dtype=np.float16))",
        False,
        {"dtype": "float16", "shape": [], "weak": False, "v": ["1.0"]},
    ),
    (
        "L.scipy.linalg.schur(np.eye(2, dtype=np.float16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype float16"},
    ),
    (
        "jnp.indices((2, 3))",
        True,
        {
            "dtype": "int32",
            "shape": [2, 2, 3],
            "weak": False,
            "v": [[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]],
        },
    ),
    (
        "jnp.indices((2, 3), sparse=True)",
        True,
        {
            "tuple": "tuple",
            "items": [
                {"dtype": "int32", "shape": [2, 1], "weak": False, "v": [[0], [1]]},
                {"dtype": "int32", "shape": [1, 3], "weak": False, "v": [[0, 1, 2]]},
            ],
        },
    ),
    (
        "jnp.indices((2,), dtype=np.int64)",
        True,
        {"dtype": "int64", "shape": [1, 2], "weak": False, "v": [[0, 1]]},
    ),
    (
        "L.scipy.special.digamma(np.array([0, -1, 2], np.int32))",
        True,
        {
            "dtype": "float32",
            "shape": [3],
            "weak": False,
            "v": ["nan", "nan", "0.42278462648391724"],
        },
    ),
    (
        "jnp.zeros((0, 3), np.bool_)[None, 0, jnp.array([0, -2], dtype=jnp.int32)]",
        False,
        {
            "raises": "TypeError",
            "msg": "Slice size at index 0 in gather op is out of range, must be within "
            "[0, 0 + 1), got 1.",
        },
    ),
    (
        "jnp.zeros((2, 0))[jnp.array([0]), None, jnp.array([1])]",
        False,
        {
            "raises": "TypeError",
            "msg": "Slice size at index 1 in gather op is out of range, must be within "
            "[0, 0 + 1), got 1.",
        },
    ),
    ("jnp.isreal(0.5)", False, {"dtype": "bool", "shape": [], "weak": True, "v": True}),
    ("jnp.isreal(jnp.array(2))", False, {"dtype": "bool", "shape": [], "weak": True, "v": True}),
    (
        "jnp.isreal(np.float32(0.5))",
        False,
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.isreal(jnp.asarray(1j) * 2)",
        False,
        {"dtype": "bool", "shape": [], "weak": True, "v": False},
    ),
    ("jnp.iscomplex(1j)", False, {"dtype": "bool", "shape": [], "weak": True, "v": True}),
    (
        "jnp.inner(np.array(True), np.array(True))",
        False,
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.inner(np.array(2, np.int8), np.array([1, 2], np.int8), "
        "preferred_element_type=np.float32)",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["2.0", "4.0"]},
    ),
    (
        "jnp.kron(np.array([True, False]), np.array([True, True]))",
        False,
        {
            "raises": "TypeError",
            "msg": "mul does not accept dtype bool at position 0. Accepted dtypes at position 0 "
            "are subtypes of integer, complexfloating, floating.",
        },
    ),
    (
        "jnp.kron(np.array([1., 2.], np.float16), 3.0)",
        False,
        {"dtype": "float16", "shape": [2], "weak": False, "v": ["3.0", "6.0"]},
    ),
    (
        "jnp.right_shift(3, np.array([-4, 2, 17, 15, -1], np.int16))",
        False,
        {"dtype": "int16", "shape": [5], "weak": False, "v": [0, 0, 0, 0, 0]},
    ),
    (
        "jnp.right_shift(np.int16(-3), np.array([-4, 2, 17, 15, -1], np.int16))",
        False,
        {"dtype": "int16", "shape": [5], "weak": False, "v": [-1, -1, -1, -1, -1]},
    ),
    (
        "jnp.left_shift(np.int16(3), np.array([-4, 2, 17, 15, 16], np.int16))",
        False,
        {"dtype": "int16", "shape": [5], "weak": False, "v": [0, 12, 0, -32768, 0]},
    ),
    (
        "lax.shift_right_logical(np.int16(-3), np.array([-4, 2, 17, 15, 16], np.int16))",
        False,
        {"dtype": "int16", "shape": [5], "weak": False, "v": [0, 16383, 0, 1, 0]},
    ),
    # JAX 0.4.30 does not compare an elementwise lax operation's operand dtypes when tracing
    # (a Python scalar is typed by its default dtype): the mismatch fails when XLA verifies
    # the program (a ValueError).
    (
        "lax.sub(np.ones(2, np.uint16), -129)",
        True,
        {"raises": "ValueError", "msg": "Cannot lower jaxpr with verifier errors:"},
    ),
    (
        "L.jit(lambda x: lax.add(x, 3))(np.ones(2, np.float32))",
        False,
        {"raises": "ValueError", "msg": "Cannot lower jaxpr with verifier errors:"},
    ),
    (
        "lax.add(1, 2.5)",
        False,
        {"raises": "ValueError", "msg": "Cannot lower jaxpr with verifier errors:"},
    ),
    (
        "lax.add(np.ones(2, np.float32), np.ones(2, np.int32))",
        False,
        {"raises": "ValueError", "msg": "Cannot lower jaxpr with verifier errors:"},
    ),
    # 0-d 64-bit shifts: NumPy 1.26 promoted the kernel's Python 0 with a 0-d uint64 to
    # float64, rounding 2**63 - 2 to 2**63 (the result was -2**63).
    (
        "lax.shift_right_logical(np.int64(-3), 1)",
        True,
        {"dtype": "int64", "shape": [], "weak": False, "v": 9223372036854775806},
    ),
    (
        "L.jit(lax.shift_right_logical)(np.int64(-3), np.int64(1))",
        True,
        {"dtype": "int64", "shape": [], "weak": False, "v": 9223372036854775806},
    ),
    (
        "lax.shift_right_logical(np.uint64(2**64 - 1), np.uint64(1))",
        True,
        {"dtype": "uint64", "shape": [], "weak": False, "v": 9223372036854775807},
    ),
    (
        "lax.shift_left(np.uint64(2**63 + 1), np.uint64(0))",
        True,
        {"dtype": "uint64", "shape": [], "weak": False, "v": 9223372036854775809},
    ),
    (
        "L.jit(lax.shift_left)(np.uint64(2**64 - 1), np.uint64(1))",
        True,
        {"dtype": "uint64", "shape": [], "weak": False, "v": 18446744073709551614},
    ),
    (
        "lax.shift_right_arithmetic(np.int8(-3), np.array([-4, 2, 17, 7, 8], np.int8))",
        False,
        {"dtype": "int8", "shape": [5], "weak": False, "v": [-1, -1, -1, -1, -1]},
    ),
    (
        "lax.shift_right_arithmetic(np.uint8(200), np.array([2, 9], np.uint8))",
        False,
        {"dtype": "uint8", "shape": [2], "weak": False, "v": [242, 255]},
    ),
    (
        "jnp.swapaxes(np.float32(1.5), 0, 0)",
        False,
        {"raises": "IndexError", "msg": "index 0 is out of bounds for axis 0 with size 0"},
    ),
    (
        "jnp.swapaxes(np.ones((2, 3)), 0, 5)",
        False,
        {"raises": "IndexError", "msg": "index 5 is out of bounds for axis 0 with size 2"},
    ),
    (
        "jnp.swapaxes(np.ones((2, 3)), -3, 0)",
        False,
        {"raises": "IndexError", "msg": "index -3 is out of bounds for axis 0 with size 2"},
    ),
    (
        "jnp.swapaxes(np.ones((2, 3)), -1, 0)",
        False,
        {
            "dtype": "float32",
            "shape": [3, 2],
            "weak": False,
            "v": ["1.0", "1.0", "1.0", "1.0", "1.0", "1.0"],
        },
    ),
    # JAX 0.4.30 checks no rank in svd: the shape read fails; norm canonicalizes its axes
    (
        "jnp.linalg.svd(np.array(0, np.uint8), compute_uv=False)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.linalg.svd(np.zeros(3, np.float32))",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.linalg.svd(np.zeros(3, np.float32), hermitian=True)",
        False,
        {"raises": "IndexError", "msg": "index -2 is out of bounds for axis 0 with size 1"},
    ),
    (
        "L.lax.linalg.svd(np.float32(1.0), compute_uv=False)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.linalg.svdvals(np.ones(2, np.int32))",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.linalg.qr(np.ones(3, np.float32))",
        False,
        {"raises": "ValueError", "msg": "Argument to QR decomposition must have ndims >= 2"},
    ),
    (
        "jnp.linalg.pinv(np.float32(2.0))",
        False,
        {"raises": "ValueError", "msg": "not enough values to unpack (expected 2, got 0)"},
    ),
    (
        "jnp.linalg.cond(np.ones(3, np.float32))",
        False,
        {
            "raises": "ValueError",
            "msg": "jnp.linalg.cond: input array must be at least 2D; got arr.shape=(3,)",
        },
    ),
    (
        "jnp.linalg.norm(True, ord=0, axis=0)",
        False,
        {"raises": "ValueError", "msg": "axis 0 is out of bounds for array of dimension 0"},
    ),
    (
        "jnp.linalg.norm(np.ones(2, bool), ord=0, axis=1)",
        False,
        {"raises": "ValueError", "msg": "axis 1 is out of bounds for array of dimension 1"},
    ),
    (
        "jnp.linalg.norm(np.ones((2, 2)), axis=-3)",
        False,
        {"raises": "ValueError", "msg": "axis -3 is out of bounds for array of dimension 2"},
    ),
    (
        "jnp.linalg.norm(np.ones((2, 2)), axis=(0, 2))",
        False,
        {"raises": "ValueError", "msg": "axis 2 is out of bounds for array of dimension 2"},
    ),
    (
        "jnp.linalg.norm(np.array([True, False, True]), ord=0, axis=-1)",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["2.0"]},
    ),
    # isclose compares integers and booleans as floats, strongly typed; convolutions keep weak types
    (
        "jnp.isclose(jnp.ediff1d(100), jnp.ediff1d(100), equal_nan=True)",
        False,
        {"dtype": "bool", "shape": [0], "weak": False, "v": []},
    ),
    (
        "jnp.isclose(jnp.asarray(1) + 1, 2, equal_nan=True)",
        False,
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    ("jnp.isclose(1, 1)", False, {"dtype": "bool", "shape": [], "weak": False, "v": True}),
    (
        "jnp.isclose(np.int32(100000000), np.int32(100000001))",
        False,
        {"dtype": "bool", "shape": [], "weak": False, "v": True},
    ),
    (
        "jnp.isclose(np.array([0, 255], np.uint8), np.uint8(254), atol=1.0)",
        False,
        {"dtype": "bool", "shape": [2], "weak": False, "v": [False, True]},
    ),
    (
        "jnp.isclose(np.array([2**40], np.int64), np.int64(2**40 + 1))",
        True,
        {"dtype": "bool", "shape": [1], "weak": False, "v": [True]},
    ),
    (
        "jnp.isclose(np.array([True, False]), True)",
        False,
        {"dtype": "bool", "shape": [2], "weak": False, "v": [True, False]},
    ),
    (
        "jnp.convolve(jnp.ravel(-2), jnp.ravel(-2), mode='full')",
        False,
        {"dtype": "float32", "shape": [1], "weak": True, "v": ["4.0"]},
    ),
    (
        "jnp.convolve(jnp.ravel(-2), jnp.ravel(-2), mode='full')",
        True,
        {"dtype": "float64", "shape": [1], "weak": True, "v": ["4.0"]},
    ),
    (
        "jnp.correlate(jnp.ravel(2j), jnp.ravel(3j), mode='full')",
        False,
        {"dtype": "complex64", "shape": [1], "weak": True, "v": "[(6+0j)]"},
    ),
    (
        "jnp.convolve(jnp.ravel(2.0), np.ones(2, np.float32))",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["2.0", "2.0"]},
    ),
    (
        "jnp.convolve(jnp.ravel(2), jnp.ravel(3), preferred_element_type=jnp.int32)",
        False,
        {"dtype": "int32", "shape": [1], "weak": True, "v": [6]},
    ),
    (
        "jnp.convolve(np.array([1, 2, 3], np.int8), np.array([1, 1], np.int8), "
        "preferred_element_type=jnp.int8)",
        False,
        {"dtype": "int8", "shape": [4], "weak": False, "v": [1, 3, 5, 3]},
    ),
    (
        "L.jit(lambda a: jnp.convolve(a, a, mode='same'))(jnp.ravel(1.5))",
        False,
        {"dtype": "float32", "shape": [1], "weak": True, "v": ["2.25"]},
    ),
    # float-to-uint64 conversion saturates at 2**64 - 1; lgamma(-inf) is +inf
    (
        "jnp.asarray(np.array([[[18446744073709551615], [1]]], np.uint64)).at[0].add(0.5, "
        "mode='clip')",
        True,
        {
            "dtype": "uint64",
            "shape": [1, 2, 1],
            "weak": False,
            "v": [[[18446744073709551615], [1]]],
        },
    ),
    (
        "lax.convert_element_type(np.array([2.0**64, 1e30, -1e30, np.inf, -np.inf, np.nan, "
        "2.0**63, 3.7]), np.uint64)",
        True,
        {
            "dtype": "uint64",
            "shape": [8],
            "weak": False,
            "v": [
                18446744073709551615,
                18446744073709551615,
                0,
                18446744073709551615,
                0,
                0,
                9223372036854775808,
                3,
            ],
        },
    ),
    (
        "L.jit(lambda a: lax.convert_element_type(a, np.uint64))(np.array([2.0**64, "
        "np.inf, -1.0, 3.7], np.float32))",
        True,
        {
            "dtype": "uint64",
            "shape": [4],
            "weak": False,
            "v": [18446744073709551615, 18446744073709551615, 0, 3],
        },
    ),
    (
        "lax.convert_element_type(np.array([np.inf, 65504.0, -np.inf, np.nan], "
        "np.float16), np.uint64)",
        True,
        {"dtype": "uint64", "shape": [4], "weak": False, "v": [18446744073709551615, 65504, 0, 0]},
    ),
    (
        "lax.convert_element_type(np.array([2.0**63, -2.0**64, np.nan], np.float64), np.int64)",
        True,
        {
            "dtype": "int64",
            "shape": [3],
            "weak": False,
            "v": [9223372036854775807, -9223372036854775808, 0],
        },
    ),
    (
        "lax.lgamma(np.array([-np.inf, np.inf, -1.0, 0.0, np.nan], np.float32))",
        False,
        {"dtype": "float32", "shape": [5], "weak": False, "v": ["inf", "inf", "inf", "inf", "nan"]},
    ),
    (
        "L.jit(L.scipy.special.gammaln)(np.array([-np.inf, -2.5], np.float64))",
        True,
        {"dtype": "float64", "shape": [2], "weak": False, "v": ["inf", "-0.05624371649767457"]},
    ),
    (
        "L.scipy.special.gamma(np.array([-np.inf, np.inf], np.float32))",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["inf", "inf"]},
    ),
    # trim_zeros cuts the concrete value (zero gradient); zero ys cotangents of a scan stay
    # symbolic; div's jvp multiplies by y**-2 as JAX; eager stop_gradient returns its operand
    (
        "L.grad(lambda x: jnp.trim_zeros(x).sum())(np.array([0., -2.3, 0., 1.5, 0.], np.float32))",
        False,
        {"dtype": "float32", "shape": [5], "weak": False, "v": ["0.0", "0.0", "0.0", "0.0", "0.0"]},
    ),
    (
        "L.vjp(jnp.trim_zeros, np.array([0., 1j, 2.], np.complex64))[1](jnp.ones(2, np.complex64))",
        False,
        {"dtype": "complex64", "shape": [1, 3], "weak": False, "v": "[[0j, 0j, 0j]]"},
    ),
    (
        "L.jvp(jnp.trim_zeros, (np.array([1., 0.], np.float32),), (np.ones(2, np.float32),))",
        False,
        {"dtype": "float32", "shape": [2, 1], "weak": False, "v": ["1.0", "0.0"]},
    ),
    (
        "jnp.trim_zeros(jnp.ravel(0.0))",
        False,
        {"dtype": "float32", "shape": [0], "weak": False, "v": []},
    ),
    (
        "jnp.trim_zeros(jnp.ravel(1.0))",
        False,
        {"dtype": "float32", "shape": [1], "weak": True, "v": ["1.0"]},
    ),
    (
        "jnp.trim_zeros(np.zeros(3, np.int8), 'f')",
        False,
        {"dtype": "int8", "shape": [0], "weak": False, "v": []},
    ),
    (
        "L.vjp(lambda a: lax.scan(lambda c, t: (c * t, c * t), jnp.ones_like(a[0]), a, "
        "reverse=True)[0], np.array([[0.45, 1e4], [1.39, -2.88], [0.24, 2.41], [1.67, "
        "np.inf]], np.float32))[1](np.array([0.5, -0.25], np.float32))",
        False,
        {
            "dtype": "float32",
            "shape": [1, 4, 2],
            "weak": False,
            "v": [
                "0.2785559892654419",
                "inf",
                "0.09017999470233917",
                "-inf",
                "0.52229243516922",
                "inf",
                "0.07505999505519867",
                "17352.001953125",
            ],
        },
    ),
    (
        "L.jit(lambda a: L.vjp(lambda a: lax.scan(lambda c, t: (c * t, c * t), "
        "jnp.ones_like(a[0]), a)[0], a)[1](np.array([0.5, -0.25], "
        "np.float32)))(np.array([[0.45, 1e4], [1.39, -2.88], [0.24, 2.41], [1.67, np.inf]], "
        "np.float32))",
        False,
        {
            "dtype": "float32",
            "shape": [1, 4, 2],
            "weak": False,
            "v": [
                "0.2785559892654419",
                "inf",
                "0.09017999470233917",
                "-inf",
                "0.52229243516922",
                "inf",
                "0.07505999505519867",
                "17352.001953125",
            ],
        },
    ),
    (
        "L.vjp(jnp.sinc, np.array([2.0703125, -1.9296875, 0.0, 0.01000213623046875], "
        "np.float16))[1](np.array([0.2, 0.5, -0.3, 0.74], np.float16))",
        False,
        {
            "dtype": "float16",
            "shape": [1, 4],
            "weak": False,
            "v": ["0.0909423828125", "-0.26220703125", "0.0", "0.0"],
        },
    ),
    (
        "L.vmap(L.grad(jnp.sinc))(np.array([0.01, 0.02, 0.1, 0.3, -2.65], np.float16))",
        False,
        {
            "dtype": "float16",
            "shape": [5],
            "weak": False,
            "v": [
                "-0.049072265625",
                "-0.049072265625",
                "-0.331298828125",
                "-0.90185546875",
                "0.2103271484375",
            ],
        },
    ),
    (
        "L.grad(lambda y: np.float16(1.5) / y)(np.float16(0.3))",
        False,
        {"dtype": "float16", "shape": [], "weak": False, "v": ["-16.65625"]},
    ),
    (
        "L.grad(lambda y: 1.0 / y)(np.float32(1e-20))",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["-inf"]},
    ),
    (
        "type(lax.stop_gradient(1e10)).__name__",
        False,
        {"dtype": "<U5", "shape": [], "weak": False, "v": "float"},
    ),
    (
        "type(lax.stop_gradient(np.ones(2, np.float32))).__name__",
        False,
        {"dtype": "<U7", "shape": [], "weak": False, "v": "ndarray"},
    ),
    # cond's outputs take the first branch's weak types (the false branch's), whichever runs
    (
        "lax.cond(False, lambda t: jnp.exp(t.astype(jnp.float32)), lambda t: (t / 2) + 1, -1.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["0.25"]},
    ),
    (
        "lax.cond(True, lambda t: jnp.exp(t.astype(jnp.float32)), lambda t: (t / 2) + 1, -1.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["0.22313016653060913"]},
    ),
    (
        "lax.cond(False, lambda t: (t / 2) + 1, lambda t: t.astype(jnp.float32) + 1, -1.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["-0.5"]},
    ),
    (
        "L.jit(lambda i: lax.switch(i, [lambda t: t / 2, lambda t: t.astype(jnp.float32)], "
        "-1.5))(1)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["-1.5"]},
    ),
    (
        "L.vmap(lambda q: lax.cond(q, lambda t: t.astype(jnp.float32), lambda t: t / 2, "
        "-1.5))(np.array([True, False]))",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["-1.5", "-0.75"]},
    ),
    # complex abs is NaN where a part is NaN; complex exp and exp2 use XLA's formulas, with
    # no C99 special cases
    (
        "lax.abs(np.array([complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(np.inf, "
        "0), complex(np.nan, 0), complex(3, 4)], np.complex64))",
        False,
        {"dtype": "float32", "shape": [5], "weak": False, "v": ["nan", "nan", "inf", "nan", "5.0"]},
    ),
    (
        "L.jit(lax.abs)(np.array([complex(-np.inf, np.nan), complex(0, np.inf)], np.complex128))",
        True,
        {"dtype": "float64", "shape": [2], "weak": False, "v": ["nan", "inf"]},
    ),
    (
        "jnp.abs(np.array([-2.5, np.nan, -np.inf], np.float32))",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["2.5", "nan", "inf"]},
    ),
    (
        "lax.exp(np.array([complex(np.inf, 0), complex(np.nan, 0), complex(-np.inf, 0), "
        "complex(89, 0.1)], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [4],
            "weak": False,
            "v": "[(inf+nanj), (nan+nanj), 0j, (inf+infj)]",
        },
    ),
    (
        "L.jit(jnp.exp)(np.array([complex(np.inf, 0), complex(0, np.inf)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(inf+nanj), (nan+nanj)]"},
    ),
    (
        "jnp.exp2(np.array([complex(np.inf, 1), complex(np.inf, 0), complex(128, 2), "
        "complex(-200, 1)], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [4],
            "weak": False,
            "v": "[(nan+nanj), (nan+nanj), (inf+infj), 0j]",
        },
    ),
    # weak types: nan_to_num keeps integers as they are, integer power is strong
    (
        "jnp.nan_to_num(-2, nan=1.0, posinf=2.0, neginf=-2.0)",
        False,
        {"dtype": "int32", "shape": [], "weak": True, "v": -2},
    ),
    ("jnp.nan_to_num(-2)", True, {"dtype": "int64", "shape": [], "weak": True, "v": -2}),
    (
        "jnp.nan_to_num(-2.0)",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["-2.0"]},
    ),
    (
        "200 ** jnp.array([True, False])",
        True,
        {"dtype": "int64", "shape": [2], "weak": False, "v": [200, 1]},
    ),
    (
        "jnp.power(200, jnp.array([True, False]))",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [200, 1]},
    ),
    (
        "L.jit(lambda a, b: a ** b)(2, 3)",
        False,
        {"dtype": "int32", "shape": [], "weak": False, "v": 8},
    ),
    # complex64 division is XLA's: Smith's algorithm with fused multiply-adds (x / x is 1 + 1e-9j),
    # C99's special values kept
    (
        "jnp.divide(np.array([complex(2.57, -2.56), complex(0.91, 1.38), complex(-1.51, "
        "-2.45)], np.complex64), np.array([complex(2.57, -2.56), complex(0.91, 1.38), "
        "complex(-1.51, -2.45)], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [3],
            "weak": False,
            "v": "[(1-1.928312176602276e-09j), (1+2.1813222061961568e-10j), "
            "(1-2.7670039592919693e-09j)]",
        },
    ),
    (
        "L.jit(jnp.divide)(np.array([complex(3, 4), complex(0.3, -1.7), complex(1e30, 1e30)], "
        "np.complex64), np.array([complex(1.5, 0.5), complex(-0.7, 2.2), complex(1.5, 0.5)], "
        "np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [3],
            "weak": False,
            "v": "[(2.6000001430511475+1.8000000715255737j), "
            "(-0.7410882115364075+0.09943713992834091j), "
            "(8.00000012037973e+29+4.000000060189865e+29j)]",
        },
    ),
    (
        "jnp.divide(np.array([complex(1, 2)], np.complex64), np.array([0j, complex(np.inf, "
        "0)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(inf+infj), 0j]"},
    ),
    # index arrays: signed ones normalized in their own dtype, unsigned ones not, then cast to int32
    # with wrapping, as JAX's gather indices
    (
        "jnp.asarray(np.array([[6, 4], [3, 2], [5, 4294967295]], "
        "np.uint32))[np.array([4294967295, 1], np.uint32)]",
        True,
        {"dtype": "uint32", "shape": [2, 2], "weak": False, "v": [[6, 4], [3, 2]]},
    ),
    (
        "L.jit(lambda i: jnp.arange(3)[i])(np.array([4294967295, 1], np.uint32))",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [0, 1]},
    ),
    (
        "jnp.arange(3)[np.array([2**64 - 1, 1], np.uint64)]",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [0, 1]},
    ),
    (
        "jnp.arange(3)[np.array([-1, 2**40], np.int64)]",
        True,
        {"dtype": "int64", "shape": [2], "weak": False, "v": [2, 0]},
    ),
    (
        "jnp.arange(200)[np.array([-1, 5], np.int8)]",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [0, 5]},
    ),
    (
        "L.jit(lambda i: jnp.arange(200)[i])(np.array([-1, 5], np.int8))",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [0, 5]},
    ),
    (
        "jnp.zeros(3).at[np.array([4294967295], np.uint32)].set(1.0)",
        True,
        {"dtype": "float64", "shape": [3], "weak": False, "v": ["0.0", "0.0", "0.0"]},
    ),
    # an empty index JAX reads with a gather (a step other than 1 or -1, a new axis) is a new zero
    # constant, not an operation on x: under vmap or grad a mask made from it is concrete
    (
        "L.vmap(lambda x: (lambda y: y[y > 0])(x[2:0:2]))(jnp.ones((2, 3, 4)))",
        False,
        {"dtype": "float32", "shape": [2, 0], "weak": False, "v": []},
    ),
    (
        "L.vmap(lambda x: (lambda y: y[y > 0])(x[None, :0]))(jnp.ones((2, 3)))",
        False,
        {"dtype": "float32", "shape": [2, 0], "weak": False, "v": []},
    ),
    (
        "L.vmap(lambda x: (lambda y: y[y > 0])(x[..., 1:1:3]))(jnp.ones((2, 3)))",
        False,
        {"dtype": "float32", "shape": [2, 0], "weak": False, "v": []},
    ),
    (
        "L.vmap(lambda x: (lambda y: y[y > 0])(x[:0]))(jnp.ones((2, 3)))",
        False,
        {
            "raises": "NonConcreteBooleanIndexError",
            "msg": "Array boolean indices must be concrete; got ShapedArray(bool[0])",
        },
    ),
    (
        "L.vmap(lambda x: (lambda y: y[y > 0])(x[::-1, :0]))(jnp.ones((2, 3, 2)))",
        False,
        {
            "raises": "NonConcreteBooleanIndexError",
            "msg": "Array boolean indices must be concrete; got ShapedArray(bool[3,0])",
        },
    ),
    (
        "L.jit(L.vmap(lambda x: (lambda y: y[y > 0])(x[2:0:2])))(jnp.ones((2, 3)))",
        False,
        {
            "raises": "NonConcreteBooleanIndexError",
            "msg": "Array boolean indices must be concrete; got ShapedArray(bool[0])",
        },
    ),
    (
        "L.vmap(lambda x: x[None, 1:1] * 2)(jnp.ones((2, 3), jnp.int32))",
        False,
        {"dtype": "int32", "shape": [2, 1, 0], "weak": False, "v": [[[]], [[]]]},
    ),
    (
        "L.vmap(lambda x: (lambda y: y[jnp.isfinite(y)])(jnp.asarray(x[-1:-1:3, 4:2], jnp"
        ".float16)), in_axes=1)(np.array([[[-1, 7, 1, 1], [0, 1, 2, 3]]], np.int32))",
        False,
        {"dtype": "float16", "shape": [2, 0], "weak": False, "v": []},
    ),
    (
        "L.grad(lambda x: (lambda y: y[y > 0].sum())(x[3:0:2]) + x.sum())(jnp.ones(3))",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.0", "1.0", "1.0"]},
    ),
    # heaviside is weak only when its promoted operands are weak and x1 is 0-d (JAX's 0 and 1 are
    # then Python scalars)
    (
        "jnp.heaviside(np.int8(0), 0.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["0.5"]},
    ),
    (
        "jnp.heaviside(True, 0.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["1.0"]},
    ),
    (
        "jnp.heaviside(0.5, np.array([-1, 0, 1], np.int8))",
        False,
        {"dtype": "float32", "shape": [3], "weak": True, "v": ["1.0", "1.0", "1.0"]},
    ),
    (
        "jnp.heaviside(0.0, np.array([True]))",
        False,
        {"dtype": "float32", "shape": [1], "weak": True, "v": ["1.0"]},
    ),
    (
        "jnp.heaviside(np.array([-1, 0, 1], np.int8), 0.5)",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["0.0", "0.5", "1.0"]},
    ),
    (
        "jnp.heaviside(lax.broadcast(0.5, (3,)), 0.5)",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.0", "1.0", "1.0"]},
    ),
    (
        "L.vmap(jnp.heaviside, in_axes=(0, None))(lax.broadcast(0.0, (2,)), 0.5)",
        False,
        {"dtype": "float32", "shape": [2], "weak": True, "v": ["0.5", "0.5"]},
    ),
    (
        "L.jit(jnp.heaviside)(0, 0.5)",
        False,
        {"dtype": "float32", "shape": [], "weak": True, "v": ["0.5"]},
    ),
    (
        "jnp.heaviside(np.int8(0), 0.5)",
        True,
        {"dtype": "float64", "shape": [], "weak": True, "v": ["0.5"]},
    ),
    (
        "jnp.heaviside(np.array([-1, 0, 1], np.int32), 0.5)",
        True,
        {"dtype": "float64", "shape": [3], "weak": False, "v": ["0.0", "0.5", "1.0"]},
    ),
    # complex sign, power, integer_pow and division at infinities, NaNs and zeros: XLA's formulas
    # (each part of sign over |z|; pow's special cases; division's recovery of NaN results)
    (
        "jnp.sign(np.array([complex(np.inf, 0), complex(np.inf, 1), complex(0, np.inf), c"
        "omplex(-np.inf, -2), complex(1, np.nan), complex(0, 2)], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [6],
            "weak": False,
            "v": "[(nan+0j), (nan+0j), nanj, (nan-0j), (nan+nanj), 1j]",
        },
    ),
    (
        "L.jit(lax.sign)(np.array([complex(np.inf, 1), complex(0, -np.inf)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(nan+0j), nanj]"},
    ),
    (
        "jnp.power(np.array([complex(np.inf, 0)] * 3 + [complex(-np.inf, 0), 0j, 1 + 0j, "
        "2j], np.complex64), np.array([2, -2, 0.5, 2, 1 + 1j, complex(np.inf, 1), 0], np."
        "complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [7],
            "weak": False,
            "v": "[(inf+0j), 0j, (inf+0j), (nan+nanj), (nan+nanj), (1+0j), (1+0j)]",
        },
    ),
    (
        "L.jit(lax.pow)(np.array([complex(np.inf, 0), complex(np.inf, np.inf), 0j], np.co"
        "mplex64), np.array([np.inf, 2, 0], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False, "v": "[(inf+0j), (nan+nanj), (1+0j)]"},
    ),
    (
        "jnp.power(np.array([complex(np.inf, 0), complex(0, np.inf), complex(np.inf, np.i"
        "nf)], np.complex64), -2)",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False, "v": "[0j, (-0+0j), -0j]"},
    ),
    (
        "lax.integer_pow(np.array([complex(np.inf, 0), complex(np.inf, np.inf)], np.compl"
        "ex64), -1)",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[0j, -0j]"},
    ),
    (
        "jnp.divide(np.array([1 + 1j, 2, complex(np.inf, np.nan), complex(np.nan, np.inf)"
        ", 0j, 1], np.complex64), np.array([complex(np.inf, np.inf), complex(np.inf, np.n"
        "an), 2, 1 + 1j, complex(np.nan, np.inf), 0], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [6],
            "weak": False,
            "v": "[0j, 0j, (inf+nanj), (inf+infj), 0j, (inf+nanj)]",
        },
    ),
    (
        "jnp.divide(np.array([1 + 1j, complex(np.inf, np.nan), 1], np.complex128), np.arr"
        "ay([complex(np.inf, np.inf), 2, 0], np.complex128))",
        True,
        {"dtype": "complex128", "shape": [3], "weak": False, "v": "[0j, (inf+nanj), (inf+nanj)]"},
    ),
    (
        "jnp.power(np.array([complex(np.inf, 0), complex(-np.inf, 0)], np.complex128), np"
        ".array([2, 2], np.complex128))",
        True,
        {"dtype": "complex128", "shape": [2], "weak": False, "v": "[(inf+0j), (nan+nanj)]"},
    ),
    (
        "jnp.sign(np.array([complex(np.inf, 1), complex(0, np.inf)], np.complex128))",
        True,
        {"dtype": "complex128", "shape": [2], "weak": False, "v": "[(nan+0j), nanj]"},
    ),
    # complex exp of a 0-d value at an overflow; split's axis read as JAX reads it (IndexError);
    # isfinite of a 0-d non-float under jit is JAX's constant (a concrete mask)
    (
        "L.lax.map(lambda t: jnp.exp(jnp.exp(t)), np.array([complex(54.6, 0), complex(-0."
        "6, 0.9)], np.complex64))",
        False,
        {
            "dtype": "complex64",
            "shape": [2],
            "weak": False,
            "v": "[(inf+nanj), (1.2785738706588745+0.5862244367599487j)]",
        },
    ),
    (
        "jnp.exp(np.complex64(complex(100, 1)))",
        False,
        {"dtype": "complex64", "shape": [], "weak": False, "v": "(inf+infj)"},
    ),
    (
        "jnp.array_split(np.int32(0), 3, axis=0)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.split(np.zeros(4), 2, axis=1)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.dsplit(np.zeros((2, 2)), 1)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "L.jit(lambda a: a[jnp.isfinite(a)])(np.int32(1))",
        False,
        {"dtype": "int32", "shape": [1], "weak": False, "v": [1]},
    ),
    (
        "L.jit(L.vmap(lambda a: a[jnp.isfinite(a)]))(np.array([1, 2], np.int32))",
        False,
        {"dtype": "int32", "shape": [2, 1], "weak": False, "v": [[1], [2]]},
    ),
    (
        "L.jit(lambda a: (lambda v: v[jnp.isfinite(v)])(jnp.array_equal(a, 3)))(np.float32(-1.5))",
        False,
        {"dtype": "bool", "shape": [1], "weak": False, "v": [False]},
    ),
    # argmax/argmin/nanargmax/nanargmin read the axis's length first, as JAX: an axis out of range
    # is the shape tuple's IndexError
    (
        "jnp.nanargmax(np.float16(1), axis=-1)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.argmin(np.ones(3), axis=1)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.argmax(np.ones((2, 3)), axis=1.0)",
        False,
        {"raises": "TypeError", "msg": "'float' object cannot be interpreted as an integer"},
    ),
    (
        "jnp.argmin(np.ones((2, 0)), axis=1)",
        False,
        {"raises": "ValueError", "msg": "attempt to get argmin of an empty sequence"},
    ),
    # complex scatter min/max combine with lax.min/max's lexicographic pick (NaNs compare false),
    # update after update; a real x updated with a complex value runs the scatter in complex
    (
        "jnp.array([np.nan, 1.0], jnp.float32).at[0].min(1j)",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["0.0", "1.0"]},
    ),
    (
        "jnp.zeros(3, np.complex64).at[np.array([0, 0, 1, 0, 2])].max(np.array([1j, 2, co"
        "mplex(np.nan, 5), 3 - 1j, -1j], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False, "v": "[(3-1j), (nan+5j), 0j]"},
    ),
    (
        "L.jit(lambda v: v.at[np.array([0, 0, 1])].min(np.array([complex(np.nan, 1), 1j, "
        "-1], np.complex64)))(jnp.zeros(3, np.complex64))",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False, "v": "[1j, (-1+0j), 0j]"},
    ),
    (
        "L.vmap(lambda a: jnp.arctanh(a).at[()].min(1j))(jnp.array([-0.73046875, 2.0], jn"
        "p.bfloat16))",
        False,
        {"dtype": "bfloat16", "shape": [2], "weak": False, "v": ["-0.9296875", "0.0"]},
    ),
    # cholesky and eigh symmetrize before checking the shape, as JAX: (x + x^H) / 2 broadcasts a
    # (1, 0) matrix to (0, 0); a non-square one fails in the add; a vector in swapaxes
    (
        "jnp.linalg.cholesky(np.zeros((1, 0), bool))",
        False,
        {"dtype": "float32", "shape": [0, 0], "weak": False, "v": []},
    ),
    (
        "lax.linalg.cholesky(np.zeros((0, 1), np.float32))",
        False,
        {"dtype": "float32", "shape": [0, 0], "weak": False, "v": []},
    ),
    (
        "jnp.linalg.cholesky(np.zeros((2, 3), np.float32))",
        False,
        {
            "raises": "TypeError",
            "msg": "add got incompatible shapes for broadcasting: (2, 3), (3, 2).",
        },
    ),
    (
        "jnp.linalg.cholesky(np.zeros(3, np.float32))",
        False,
        {"raises": "IndexError", "msg": "index -2 is out of bounds for axis 0 with size 1"},
    ),
    (
        "jnp.linalg.eigvalsh(np.zeros((1, 0), np.float32))",
        False,
        {"dtype": "float32", "shape": [0], "weak": False, "v": []},
    ),
    (
        "lax.linalg.eigh(np.zeros((2, 3), np.float32), symmetrize_input=False)",
        False,
        {
            "raises": "ValueError",
            "msg": "Argument to symmetric eigendecomposition must have shape [..., n, n],"
            "got shape (2, 3)",
        },
    ),
    # gcd/lcm promote as JAX (two booleans are refused) and are weak only for a 0-d result of weak
    # operands; lax.reduce's monoid path is weak only when operand and initial value both are
    (
        "jnp.gcd(2, np.array([True, False]))",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [1, 2]},
    ),
    (
        "jnp.lcm(lax.broadcast(2, (2,)), 3)",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [6, 6]},
    ),
    (
        "jnp.gcd(True, np.array([True, False]))",
        False,
        {"raises": "ValueError", "msg": "Arguments to jax.numpy.gcd must be integers."},
    ),
    (
        "jnp.lcm(3, 4)",
        False,
        {"dtype": "int32", "shape": [], "weak": True, "v": 12},
    ),
    (
        "jnp.lcm(2, np.zeros(0, bool))",
        True,
        {"dtype": "int64", "shape": [0], "weak": False, "v": []},
    ),
    (
        "lax.reduce(jnp.asarray(3), jnp.zeros((), jnp.int64), lax.add, ())",
        True,
        {"dtype": "int64", "shape": [], "weak": False, "v": 3},
    ),
    (
        "lax.reduce(lax.broadcast(3.0, (2,)), jnp.zeros((), jnp.float64), lax.add, (0,))",
        True,
        {"dtype": "float64", "shape": [], "weak": False, "v": ["6.0"]},
    ),
    (
        "lax.reduce(lax.broadcast(3.0, (2,)), 0.0, lax.add, (0,))",
        True,
        {"dtype": "float64", "shape": [], "weak": True, "v": ["6.0"]},
    ),
    # pow's gradient in x: y * x**(y-1), set to 0 at y == 0 for integer exponents only (JAX: nan at
    # x = 0, y = 0.0)
    (
        "L.grad(lambda x: jnp.power(x, jnp.rint(x)))(np.float32(-0.0))",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["nan"]},
    ),
    (
        "L.jit(L.grad(lambda x, y: jnp.power(x, y), argnums=(0, 1)))(np.float32(0.0), np."
        "float32(0.0))",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["nan", "0.0"]},
    ),
    (
        "L.grad(lambda x: lax.pow(x, np.int32(0)))(np.float32(0.0))",
        False,
        {"dtype": "float32", "shape": [], "weak": False, "v": ["0.0"]},
    ),
    (
        "L.jacfwd(lambda x: lax.pow(x, np.array([0., 1., 2.], np.float32)))(np.zeros(3, n"
        "p.float32))",
        False,
        {
            "dtype": "float32",
            "shape": [3, 3],
            "weak": False,
            "v": ["nan", "nan", "nan", "0.0", "1.0", "0.0", "0.0", "0.0", "0.0"],
        },
    ),
    # clz/population_count of a 0-d value stay 0-d (NumPy < 2 counted bits through a 1-d copy)
    (
        "lax.clz(np.uint16(3))",
        False,
        {"dtype": "uint16", "shape": [], "weak": False, "v": 14},
    ),
    (
        "lax.population_count(np.array(7, np.int8))",
        False,
        {"dtype": "int8", "shape": [], "weak": False, "v": 3},
    ),
    # triangular_solve accepts bfloat16 (a floating type, as in JAX): det's gradient of bfloat16
    # under jit then raises JAX's NotImplementedError from lu, not a TypeError
    (
        "lax.linalg.triangular_solve(np.array([[2., 0.], [1., 3.]], np.float32).astype(jn"
        "p.bfloat16), np.array([[1., 2.], [3., 4.]], np.float32).astype(jnp.bfloat16), le"
        "ft_side=True, lower=True)",
        False,
        {
            "dtype": "bfloat16",
            "shape": [2, 2],
            "weak": False,
            "v": ["0.5", "1.0", "0.83203125", "1.0"],
        },
    ),
    (
        "L.jit(lambda a: L.vjp(jnp.linalg.det, a)[1](jnp.ones((), jnp.bfloat16)))(np.eye("
        "2, dtype=np.float32).astype(jnp.bfloat16))",
        False,
        {"raises": "NotImplementedError", "msg": "Unsupported dtype bfloat16"},
    ),
    # fmod replaces zero divisors by ones only for integer operands, not booleans (made int32
    # after, they keep the remainder by zero: the dividend)
    (
        "jnp.fmod(np.array([True, True, False]), np.array([True, False, False]))",
        False,
        {"dtype": "int32", "shape": [3], "weak": False, "v": [0, 1, 0]},
    ),
    (
        "jnp.fmod(np.array([5, 5]), np.array([2, 0]))",
        False,
        {"dtype": "int32", "shape": [2], "weak": False, "v": [1, 0]},
    ),
    # Cumulative reductions flatten a Python scalar whatever the axis, other 0-d values only
    # without one.
    (
        "jnp.cumprod(np.array(-3, np.int32), axis=0)",
        False,
        {"raises": "ValueError", "msg": "axis 0 is out of bounds for array of dimension 0"},
    ),
    (
        "jnp.cumsum(np.float32(2.5), axis=-1)",
        False,
        {"raises": "ValueError", "msg": "axis -1 is out of bounds for array of dimension 0"},
    ),
    (
        "L.jit(lambda v: jnp.nancumsum(v, 0))(np.array(3.0, np.float32))",
        False,
        {"raises": "ValueError", "msg": "axis 0 is out of bounds for array of dimension 0"},
    ),
    (
        "jnp.cumsum(True, axis=0)",
        False,
        {"raises": "ValueError", "msg": "axis 0 is out of bounds for array of dimension 0"},
    ),
    (
        "jnp.cumsum(3, axis=0)",
        False,
        {"dtype": "int32", "shape": [1], "weak": False, "v": [3]},
    ),
    (
        "jnp.cumprod(jnp.array(2.5), axis=0)",
        False,
        {"dtype": "float32", "shape": [1], "weak": False, "v": ["2.5"]},
    ),
    (
        "L.jit(lambda v: jnp.cumsum(v, axis=0))(3)",
        False,
        {"dtype": "int32", "shape": [1], "weak": False, "v": [3]},
    ),
    (
        "jnp.cumsum(np.array(3, np.int32))",
        False,
        {"dtype": "int32", "shape": [1], "weak": False, "v": [3]},
    ),
    # bad_input.py cases: JAX's texts.
    (
        "jnp.arange(3)[:, 0]",
        False,
        {"raises": "IndexError",
         "msg": "Too many indices for array: 2 non-None/Ellipsis indices for dim 1."},
    ),
    (
        "jnp.ones((2, 2))[None, 0, 0, 0]",
        False,
        {"raises": "IndexError",
         "msg": "Too many indices for array: 3 non-None/Ellipsis indices for dim 2."},
    ),
    (
        "jnp.concatenate([jnp.ones((2, 2)), jnp.ones(3)])",
        False,
        {"raises": "TypeError",
         "msg": "Cannot concatenate arrays with different numbers of dimensions: got (2, 2), "
                "(3,)."},
    ),
    (
        "L.lax.concatenate([jnp.ones((2, 2)), jnp.ones(3)], 5)",
        False,
        {"raises": "TypeError",
         "msg": "Cannot concatenate arrays with different numbers of dimensions: got (2, 2), "
                "(3,)."},
    ),
    (
        "L.jit(lambda x: x & 1)(jnp.ones(3))",
        False,
        {"raises": "TypeError",
         "msg": "and does not accept dtype float32 at position 0. Accepted dtypes at position 0 "
                "are subtypes of integer, bool_."},
    ),
    (
        "jnp.bitwise_xor(1, jnp.ones(3))",
        False,
        {"raises": "TypeError",
         "msg": "xor does not accept dtype float32 at position 0. Accepted dtypes at position 0 "
                "are subtypes of integer, bool_."},
    ),
    (
        "jnp.bitwise_or(jnp.ones(3, jnp.complex64), 1)",
        False,
        {"raises": "TypeError",
         "msg": "or does not accept dtype complex64 at position 0. Accepted dtypes at position 0 "
                "are subtypes of integer, bool_."},
    ),
    # Weak types the API sweep left (issue 18): a weak scalar's unravel_index coordinates,
    # pad and top_k indices stay weak; a jvp tangent of a strong tangent stays strong.
    (
        'jnp.unravel_index(jnp.asarray(5), (2, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [], 'weak': True, 'v': 1},
                   {'dtype': 'int32', 'shape': [], 'weak': True, 'v': 2}]},
    ),
    (
        'jnp.unravel_index(5, (2, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [], 'weak': True, 'v': 1},
                   {'dtype': 'int32', 'shape': [], 'weak': True, 'v': 2}]},
    ),
    (
        'jnp.unravel_index(jnp.array([5, 7, -1, -7, -6, 100], jnp.int32), (2, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [6], 'weak': False, 'v': [1, 1, 1, 0, 0, 1]},
                   {'dtype': 'int32', 'shape': [6], 'weak': False, 'v': [2, 2, 2, 0, 0, 2]}]},
    ),
    (
        'jnp.unravel_index(jnp.array([5, 7, 1], jnp.int8), (2, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int8', 'shape': [3], 'weak': False, 'v': [1, 1, 0]},
                   {'dtype': 'int8', 'shape': [3], 'weak': False, 'v': [2, 2, 1]}]},
    ),
    (
        'jnp.unravel_index(jnp.array([1.5]), (2, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [1], 'weak': False, 'v': ['0.0']},
                   {'dtype': 'float32', 'shape': [1], 'weak': False, 'v': ['1.5']}]},
    ),
    (
        'jnp.unravel_index(jnp.array([5, 2]), 4)',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [2], 'weak': False, 'v': [3, 2]}]},
    ),
    (
        'jnp.unravel_index(jnp.array([0, 1]), (0, 3))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [2], 'weak': False, 'v': [0, 0]},
                   {'dtype': 'int32', 'shape': [2], 'weak': False, 'v': [0, 1]}]},
    ),
    (
        'L.jit(lambda i: jnp.unravel_index(i, (2, 3)))(4)',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'int32', 'shape': [], 'weak': True, 'v': 1},
                   {'dtype': 'int32', 'shape': [], 'weak': True, 'v': 1}]},
    ),
    (
        'jnp.pad(jnp.asarray(2.0), 0)',
        False,
        {'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['2.0']},
    ),
    (
        'jnp.pad(2, 3)',
        False,
        {'dtype': 'int32', 'shape': [], 'weak': True, 'v': 2},
    ),
    (
        'jnp.pad(jnp.asarray(2.0), 0, mode="edge")',
        False,
        {'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['2.0']},
    ),
    (
        'jnp.pad(jnp.asarray(2.0), ())',
        False,
        {'raises': 'ValueError',
         'msg': 'jnp.pad: pad_width with nd=0 has unsupported shape (0,). Valid shapes are (0, '
                '2), (1, 2), (2,), (1,), or ().'},
    ),
    (
        'jnp.pad(jnp.ones((2, 2)), [[1], [2]])',
        False,
        {'raises': 'ValueError',
         'msg': 'jnp.pad: pad_width with nd=2 has unsupported shape (2, 1). Valid shapes are '
                '(2, 2), (1, 2), (2,), (1,), or ().'},
    ),
    (
        'lax.top_k(jnp.asarray(2.0)[None], 1)',
        False,
        {'tuple': 'list',
         'items': [{'dtype': 'float32', 'shape': [1], 'weak': True, 'v': ['2.0']},
                   {'dtype': 'int32', 'shape': [1], 'weak': True, 'v': [0]}]},
    ),
    (
        'lax.top_k(jnp.asarray(2)[None], 1)',
        False,
        {'tuple': 'list',
         'items': [{'dtype': 'int32', 'shape': [1], 'weak': True, 'v': [2]},
                   {'dtype': 'int32', 'shape': [1], 'weak': True, 'v': [0]}]},
    ),
    (
        'L.jit(lambda x: lax.top_k(x, 1))(2.0 * jnp.ones(3))',
        False,
        {'tuple': 'list',
         'items': [{'dtype': 'float32', 'shape': [1], 'weak': False, 'v': ['2.0']},
                   {'dtype': 'int32', 'shape': [1], 'weak': False, 'v': [0]}]},
    ),
    (
        'jnp.cross(jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 5.0, 6.0]))',
        False,
        {'dtype': 'float32', 'shape': [3], 'weak': False, 'v': ['-3.0', '6.0', '-3.0']},
    ),
    (
        'jnp.polyval(jnp.array([1.0, 2.0]), 3.0)',
        False,
        {'dtype': 'float32', 'shape': [], 'weak': False, 'v': ['5.0']},
    ),
    (
        'jnp.polyadd(jnp.array([1.0, 2.0]), jnp.array([3.0]))',
        False,
        {'dtype': 'float32', 'shape': [2], 'weak': False, 'v': ['1.0', '5.0']},
    ),
    (
        'jnp.polymul(jnp.array([1.0, 2.0]), jnp.array([3.0, 1.0]))',
        False,
        {'dtype': 'float32', 'shape': [3], 'weak': False, 'v': ['3.0', '7.0', '2.0']},
    ),
    (
        'jnp.polyder(jnp.array([1.0, 2.0, 3.0]))',
        False,
        {'dtype': 'float32', 'shape': [2], 'weak': False, 'v': ['2.0', '2.0']},
    ),
    (
        'jnp.polyint(jnp.array([1.0, 2.0, 3.0]))',
        False,
        {'dtype': 'float32',
         'shape': [4],
         'weak': False,
         'v': ['0.3333333432674408', '1.0', '3.0', '0.0']},
    ),
    (
        'jnp.polyfit(jnp.array([1.0, 2.0, 3.0]), jnp.array([1.0, 4.0, 9.0]), 1)',
        False,
        {'dtype': 'float32',
         'shape': [2],
         'weak': False,
         'v': ['3.999999761581421', '-3.3333311080932617']},
    ),
    (
        'L.jvp(lax.tan, (0.5,), (np.float32(1.0),))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['0.5463024973869324']},
                   {'dtype': 'float32',
                    'shape': [],
                    'weak': False,
                    'v': ['1.2984464168548584']}]},
    ),
    (
        'L.jvp(lax.sqrt, (0.5,), (np.float32(1.0),))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['0.7071067690849304']},
                   {'dtype': 'float32',
                    'shape': [],
                    'weak': False,
                    'v': ['0.7071067690849304']}]},
    ),
    (
        'L.jvp(lambda x: lax.integer_pow(x, 3), (0.5,), (np.float32(1.0),))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['0.125']},
                   {'dtype': 'float32', 'shape': [], 'weak': False, 'v': ['0.75']}]},
    ),
    (
        'L.jvp(lax.erf, (0.5,), (np.float32(1.0),))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['0.5204998850822449']},
                   {'dtype': 'float32',
                    'shape': [],
                    'weak': False,
                    'v': ['0.8787826299667358']}]},
    ),
    (
        'L.jvp(lax.reciprocal, (0.5,), (np.float32(1.0),))',
        False,
        {'tuple': 'tuple',
         'items': [{'dtype': 'float32', 'shape': [], 'weak': True, 'v': ['2.0']},
                   {'dtype': 'float32', 'shape': [], 'weak': False, 'v': ['-4.0']}]},
    ),
    # Division by a complex constant under jit is a multiplication by its reciprocal, as XLA's
    # simplifier makes it: (inf + inf j) / 2 is (inf + inf j) * (0.5 + 0j) = nan + nan j
    # (eagerly inf + inf j), and x / 0 is x * (inf + nan j).
    (
        "L.jit(lambda x: x / 2.0)(np.array([complex(np.inf, np.inf), complex(-np.inf, 1), "
        "complex(1, 2)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False,
         "v": "[(nan+nanj), (-inf+nanj), (0.5+1j)]"},
    ),
    (
        "L.jit(lambda x: x / 1j)(np.array([complex(np.inf, np.inf), complex(np.inf, 0), "
        "complex(1, 2)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [3], "weak": False,
         "v": "[(nan+nanj), (nan-infj), (2-1j)]"},
    ),
    (
        "L.jit(lambda x: x / 0.0)(np.array([complex(1, 2), 0j], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(nan+nanj), (nan+nanj)]"},
    ),
    (
        "L.jit(lambda x: x / jnp.array([2.0, 4j], np.complex64))(np.array([complex(np.inf, "
        "np.inf), complex(np.inf, np.inf)], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(nan+nanj), (nan+nanj)]"},
    ),
    (
        "L.jit(lambda x: x / -1.0)(np.array([complex(np.inf, np.inf), 0j], np.complex64))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(nan+nanj), -0j]"},
    ),
    (
        "jnp.divide(np.array([complex(np.inf, np.inf)], np.complex64), 2.0)",
        False,
        {"dtype": "complex64", "shape": [1], "weak": False, "v": "[(inf+infj)]"},
    ),
    # Derivatives through complex sin/sinh/tan at special values use their XLA kernels.
    (
        "L.vjp(jnp.sinh, np.complex64(complex(np.inf, 0)))[1](np.complex64(1))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64", "shape": [], "weak": False, "v": "(nan+nanj)"}]},
    ),
    (
        "L.jit(L.vjp(jnp.sinh, np.complex64(complex(np.inf, 0)))[1])(np.complex64(1))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64", "shape": [], "weak": False, "v": "(nan+nanj)"}]},
    ),
    (
        "L.vjp(jnp.sin, np.complex64(complex(0.5, 89.5)))[1](np.complex64(1))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64", "shape": [], "weak": False, "v": "(nan+nanj)"}]},
    ),
    (
        "L.jvp(jnp.tan, (np.complex64(complex(np.inf, 0)),), (np.complex64(1),))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64", "shape": [], "weak": False, "v": "(nan+nanj)"},
                   {"dtype": "complex64", "shape": [], "weak": False, "v": "(nan+nanj)"}]},
    ),
    # Complex products with a vector result sum their terms in order, as XLA's dot does
    # ((inf+2.38j)**2 + (1+1j)**2 is inf+inf j; BLAS's cdotu gave nan+inf j); matrix
    # products keep BLAS's gemm, whose NaN rows are XLA's (Eigen's) too.
    (
        "jnp.dot(np.complex64([np.inf + 2.38j, 1 + 1j]), np.complex64([np.inf + 2.38j, 1 + 1j]))",
        False,
        {"dtype": "complex64", "shape": [], "weak": False, "v": "(inf+infj)"},
    ),
    (
        "jnp.dot(np.complex64([[np.inf + 2.38j, 1 + 1j], [2, 1j]]), "
        "np.complex64([np.inf + 2.38j, 1 + 1j]))",
        False,
        {"dtype": "complex64", "shape": [2], "weak": False, "v": "[(inf+infj), (inf+nanj)]"},
    ),
    (
        "jnp.vdot(np.complex64([np.inf + 2.38j, 1 + 1j]), np.complex64([np.inf + 2.38j, 1 + 1j]))",
        False,
        {"dtype": "complex64", "shape": [], "weak": False, "v": "(inf+nanj)"},
    ),
    (
        "L.vmap(jnp.dot)(np.complex64([[np.inf + 2.38j, 1 + 1j]]), "
        "np.complex64([[np.inf + 2.38j, 1]]))",
        False,
        {"dtype": "complex64", "shape": [1], "weak": False, "v": "[(inf+infj)]"},
    ),
    (
        "L.jit(jnp.matmul)(np.complex64([[np.inf, 1], [1, 2]]), np.complex64([[1, 0], [0, 1]]))",
        False,
        {"dtype": "complex64",
         "shape": [2, 2],
         "weak": False,
         "v": "[[(nan+nanj), (nan+nanj)], [(1+0j), (2+0j)]]"},
    ),
    # histogram bins as JAX's (below the first edge and above the last are cut off), so
    # complex data works (searchsorted's order, complex counts), and weights are promoted
    # with the data (jaxdiff seed 16001).
    (
        "jnp.histogram(np.complex64([1.5 - 2j, 0.5 + 1j]), bins=3, range=(-2, 2))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64",
                    "shape": [3],
                    "weak": False,
                    "v": "[0j, (1+0j), (1+0j)]"},
                   {"dtype": "complex64",
                    "shape": [4],
                    "weak": False,
                    "v": "[(-2+0j), (-0.666666567325592+0j), (0.6666667461395264+0j), "
                         "(2+0j)]"}]},
    ),
    (
        "jnp.histogram(np.complex64([1.5 - 2j, 0.5 + 1j, -2, 2 + 1j, 3, np.nan]), bins=4)",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "complex64", "shape": [4], "weak": False, "v": "[0j, 0j, 0j, 0j]"},
                   {"dtype": "complex64",
                    "shape": [5],
                    "weak": False,
                    "v": "[(nan+nanj), (nan+nanj), (nan+nanj), (nan+nanj), (nan+0j)]"}]},
    ),
    (
        "jnp.histogram(np.float32([1.0, 2.0, 2.0, -5.0, 9.0, np.nan, 3.0]), bins=3, range=(0, 3))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "float32",
                    "shape": [3],
                    "weak": False,
                    "v": ["0.0", "1.0", "3.0"]},
                   {"dtype": "float32",
                    "shape": [4],
                    "weak": False,
                    "v": ["0.0", "1.0", "2.0", "3.0"]}]},
    ),
    (
        "jnp.histogram(np.float32([1.0, 2.0, 2.0, 3.0]), bins=2, weights=np.int32([1, 2, 3, 4]))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "float32", "shape": [2], "weak": False, "v": ["1.0", "9.0"]},
                   {"dtype": "float32",
                    "shape": [3],
                    "weak": False,
                    "v": ["1.0", "2.0", "3.0"]}]},
    ),
    (
        "jnp.histogram(np.float16([1.0, 2.0, 2.0, 3.0]), bins=2, weights=np.float32([1, 2, 3, 4]))",
        False,
        {"tuple": "tuple",
         "items": [{"dtype": "float32", "shape": [2], "weak": False, "v": ["1.0", "9.0"]},
                   {"dtype": "float32",
                    "shape": [3],
                    "weak": False,
                    "v": ["1.0", "2.0", "3.0"]}]},
    ),
    (
        "jnp.histogram(np.float32([1.0, 2.0]), bins=2, weights=np.int32([1, 2, 3]))",
        False,
        {"raises": "ValueError", "msg": "weights should have the same shape as a."},
    ),
    # An axis out of range: JAX's mean (var, std, an unweighted average) reads shape[axis]
    # for its divisor first and raises IndexError; sum (and mean with where) raise
    # ValueError (jaxdiff seed 16001).
    (
        "jnp.mean(np.zeros((2, 2), np.float32), axis=2)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.var(np.zeros((2, 2), np.float32), axis=-3)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.std(np.zeros((2, 2), np.float32), axis=(0, 2))",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.average(np.zeros((0, 0), np.int32), axis=2)",
        False,
        {"raises": "IndexError", "msg": "tuple index out of range"},
    ),
    (
        "jnp.mean(np.zeros((2, 2), np.float32), axis=2, where=np.ones((2, 2), bool))",
        False,
        {"raises": "ValueError", "msg": "axis 2 is out of bounds for array of dimension 2"},
    ),
    (
        "jnp.sum(np.zeros((2, 2), np.float32), axis=2)",
        False,
        {"raises": "ValueError", "msg": "axis 2 is out of bounds for array of dimension 2"},
    ),
    # bfloat16 integer_pow is the float32 power rounded once, as XLA:CPU computes it;
    # float16 rounds each product (jaxdiff seed 16001, through polyval).
    (
        "lax.integer_pow(jnp.array([0.828125, 2.1875, -2.234375], jnp.bfloat16), 3)",
        False,
        {"dtype": "bfloat16",
         "shape": [3],
         "weak": False,
         "v": ["0.56640625", "10.4375", "-11.125"]},
    ),
    (
        "L.jit(lambda x: lax.integer_pow(x, 3))("
        "jnp.array([0.828125, 2.1875, -2.234375], jnp.bfloat16))",
        False,
        {"dtype": "bfloat16",
         "shape": [3],
         "weak": False,
         "v": ["0.56640625", "10.4375", "-11.125"]},
    ),
    (
        "lax.integer_pow(jnp.array([0.828125, 2.1875, -2.234375], jnp.bfloat16), -3)",
        False,
        {"dtype": "bfloat16",
         "shape": [3],
         "weak": False,
         "v": ["1.7578125", "0.095703125", "-0.08984375"]},
    ),
    (
        "lax.integer_pow(jnp.array([0.828125, 2.1875, -2.234375], jnp.float16), 3)",
        False,
        {"dtype": "float16",
         "shape": [3],
         "weak": False,
         "v": ["0.56787109375", "10.46875", "-11.15625"]},
    ),
    (
        "jnp.polyval(jnp.array([1.0, -2.0, 0.5]), "
        "jnp.array([0.828125, 2.1875, -2.234375], jnp.bfloat16) ** 3)",
        False,
        {"dtype": "float32",
         "shape": [3],
         "weak": False,
         "v": ["-0.3119964599609375", "88.56640625", "146.515625"]},
    ),
    # jnp.repeat of a scalar reads no axis and gives a 1-D result (fuzzer seed 21001).
    (
        "jnp.repeat(np.float32(1.5), 2, axis=0)",
        False,
        {"dtype": "float32", "shape": [2], "weak": False, "v": ["1.5", "1.5"]},
    ),
    (
        "jnp.repeat(np.float32(1.5), np.array([3]), axis=1)",
        False,
        {"dtype": "float32", "shape": [3], "weak": False, "v": ["1.5", "1.5", "1.5"]},
    ),
    (
        "jnp.repeat(np.int32(4), 2, axis=-1, total_repeat_length=5)",
        False,
        {"dtype": "int32", "shape": [5], "weak": False, "v": [4, 4, 4, 4, 4]},
    ),
    (
        "jnp.repeat(np.float32(1.5), 0, axis=0)",
        False,
        {"dtype": "float32", "shape": [0], "weak": False, "v": []},
    ),
    (
        "L.jit(lambda x: jnp.repeat(x, 3, axis=0))(2.0)",
        False,
        {"dtype": "float32", "shape": [3], "weak": True, "v": ["2.0", "2.0", "2.0"]},
    ),
    (
        "jnp.repeat(np.float32(1.5), np.array([1, 2]), axis=0)",
        False,
        {"raises": "ValueError",
         "msg": "`repeat` with a scalar parameter `a` is only implemented for scalar values "
                "of the parameter `repeats`."},
    ),
]


def _compare(expected: dict[str, Any], actual: Any, case: str) -> None:
    if "tuple" in expected:
        assert type(actual).__name__ == expected["tuple"], case
        assert len(actual) == len(expected["items"]), case
        for e, a in zip(expected["items"], actual, strict=True):
            _compare(e, a, case)
        return
    value = np.asarray(actual)
    assert str(value.dtype) == expected["dtype"], case
    assert list(value.shape) == expected["shape"], case
    assert bool(getattr(actual, "weak_type", False)) == expected["weak"], case
    want = expected["v"]
    if value.dtype.kind == "c":
        assert str(value.tolist()) == want, case
    elif value.dtype.kind == "f" or value.dtype.name == "bfloat16":
        # digamma's float32 polynomial is XLA's own: a few ulp from SciPy's.
        np.testing.assert_allclose(
            value.astype(np.float64).reshape(-1),
            np.array([float(v) for v in want]),
            rtol=2e-6,
            err_msg=case,
        )
    else:
        assert value.tolist() == want, case


@pytest.mark.parametrize("expr,x64,expected", ROWS, ids=[r[0] for r in ROWS])
def test_matches_jax(expr: str, x64: bool, expected: dict[str, Any]) -> None:
    scope = {"jnp": jnp, "np": np, "L": numjax, "lax": numjax.lax}
    with enable_x64(x64), warnings.catch_warnings():
        # Scatters of values of another dtype warn as JAX does; not the point here.
        warnings.simplefilter("ignore", FutureWarning)
        if "raises" in expected:
            with pytest.raises(Exception) as info:
                eval(expr, scope)
            assert type(info.value).__name__ == expected["raises"], expr
            assert str(info.value).split("\n")[0] == expected["msg"], expr
            return
        _compare(expected, eval(expr, scope), expr)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_frexp_mantissa_has_jax_gradient(dtype: str) -> None:
    # JAX 0.4.30 reads the mantissa off the bits: its gradient is 0, except at 0, inf and nan,
    # where frexp returns x itself (gradient 1).
    x = jnp.asarray(np.array([-2.90625, 1.46875, 0.0, np.inf, -3.0, np.nan], np.float32), dtype)
    mantissa, pullback = numjax.vjp(lambda a: jnp.frexp(a)[0], x)
    np.testing.assert_array_equal(np.asarray(mantissa[:2], np.float32), [-0.7265625, 0.734375])
    np.testing.assert_array_equal(np.asarray(pullback(jnp.ones_like(mantissa))[0], np.float32),
                                  [0, 0, 1, 1, 0, 1])


def test_trigamma_of_negative_float32_is_scipys() -> None:
    # A deliberate difference (docs/differences.md): JAX 0.4.30's float32 polygamma(1, x) for
    # negative non-integer x is wrong (-0.029999524 at -32.83136, 7.6032424e+14 at -10.4);
    # numjax gives SciPy's values, so the gradient of digamma is right there too.
    import numjax.scipy.special as jsp
    x = np.array([-32.83136, -10.4, -0.97, 2.5], np.float32)
    want = [38.615541, 10.8198873, 1113.74955, 0.490357756]
    np.testing.assert_allclose(np.asarray(jsp.polygamma(1, x)), want, rtol=2e-5)
    np.testing.assert_allclose(np.asarray(numjax.grad(lambda a: jsp.digamma(a).sum())(x)), want,
                               rtol=2e-5)


def test_nan_bits_are_numpys() -> None:
    # A deliberate difference (docs/differences.md): a NaN's sign and payload are NumPy's on
    # this machine; XLA:CPU's float32 log of a negative number gives 0xffffffff instead.
    x = np.array([-1.0, -np.inf], np.float32)
    with np.errstate(invalid="ignore"):
        want = np.log(x).view(np.int32)
    got = numjax.lax.bitcast_convert_type(jnp.log(x), jnp.int32)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert np.isnan(np.asarray(jnp.log(x))).all()


def test_float32_cumsum_adds_in_order() -> None:
    # A deliberate difference (docs/differences.md): XLA:CPU reassociates its cumsum
    # ([1e8, 1e8, 1, 2] in JAX 0.4.30); numjax adds element after element, as NumPy.
    x = np.array([1e8, 1, -1e8, 1], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.cumsum(x)), np.cumsum(x))
    np.testing.assert_array_equal(np.asarray(numjax.jit(jnp.cumsum)(x)), [1e8, 1e8, 0, 1])


def test_float32_sums_add_in_numpys_order() -> None:
    # A deliberate difference (docs/differences.md): JAX 0.4.30's mean of three float32
    # 2.0000002 is 2.0000005 (XLA's reduction order and its multiply by 1/3), so its variance
    # is 5.7e-14 and corrcoef 1.0; numpy's pairwise sum gives the exact mean, 0 and nan.
    x = np.full(3, 2.0000002, np.float32)
    assert float(jnp.mean(x)) == float(np.mean(x))
    assert float(jnp.var(x)) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(float(jnp.corrcoef(x)))


def test_irfft_of_length_one_has_a_zero_gradient() -> None:
    # JAX 0.4.30 bug, not copied (docs/differences.md): irfft of a last axis of length 1 has
    # an empty output (n = 0), and JAX's vjp of it fails with "TypeError: broadcast_in_dim
    # shape must have every element be nonnegative, got (-1,)." The gradient is zero.
    x = np.array([[-0.57]])
    out, pullback = numjax.vjp(jnp.fft.irfft, x)
    assert out.shape == (1, 0)
    np.testing.assert_array_equal(np.asarray(pullback(jnp.zeros((1, 0)))[0]), [[0.0]])
    jitted = numjax.jit(lambda a: numjax.vjp(jnp.fft.irfft, a)[1](jnp.zeros((1, 0)))[0])
    np.testing.assert_array_equal(np.asarray(jitted(x)), [[0.0]])


def test_complex_arctan_arctanh_at_infinities_are_c99_limits() -> None:
    # A deliberate difference (docs/differences.md): JAX 0.4.30 gives nan + nan j for every
    # argument with an infinite part.
    z = np.array([complex(0, -np.inf), complex(np.inf, 1), complex(1, np.inf)], np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.arctanh(z)), [-np.pi / 2 * 1j, np.pi / 2 * 1j,
                                                            np.pi / 2 * 1j], rtol=1e-7)
    w = np.array([complex(-np.inf, 2.45), complex(1, np.inf)], np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.arctan(w)), [-np.pi / 2, np.pi / 2], rtol=1e-7)


def test_popcount_without_numpy_bitwise_count_keeps_0d(monkeypatch: pytest.MonkeyPatch) -> None:
    # NumPy 1.26 has no np.bitwise_count: the byte-table path counted a 0-d value as shape (1,)
    # (JAX 0.4.30: lax.clz(uint16 3) is 14 of shape ()).
    from numjax._src.lax import special
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert special._popcount_kernel(np.array(3, np.uint16)).shape == ()
    out = special._clz_kernel(np.array(3, np.uint16))
    assert out.shape == () and int(out) == 14


def test_lax_binary_op_on_numpy_value_of_another_dtype_raises_jaxs_value_error() -> None:
    # JAX 0.4.30 fails when lowering, with "ValueError: Cannot lower jaxpr with verifier
    # errors"; numjax raises the same type with its own description when tracing.
    with pytest.raises(ValueError, match="^Cannot lower jaxpr with verifier errors:\n\t'max'"):
        numjax.lax.max(np.ones(2, np.float32), np.uint8(7))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_power_by_one_half_is_pow_not_sqrt(dtype: str) -> None:
    # JAX 0.4.30, eager and jit, lax.pow and jnp.power: [-0, -inf, inf, 4, nan] ** 0.5 is
    # [0.0, inf, inf, 2.0, nan] (C's pow; sqrt would give -0.0 and nan). NumPy 2's np.power
    # takes sqrt for a scalar exponent of 0.5.
    with enable_x64(dtype == "float64"):
        x = np.array([-0.0, -np.inf, np.inf, 4.0, np.nan], dtype)
        for f in (lambda v: numjax.lax.pow(v, np.array(0.5, dtype)), lambda v: jnp.power(v, 0.5)):
            for g in (f, numjax.jit(f)):
                out = np.asarray(g(x))
                assert out.dtype == dtype
                np.testing.assert_array_equal(out, [0.0, np.inf, np.inf, 2.0, np.nan])
                assert not np.signbit(out[0])


SINGLE_TERM_SUMS = [  # (reduction of -0.0 values, whether JAX 0.4.30's results are -0.0)
    ("x.sum(1)", "float32", (2, 1), True),
    ("x.sum((1, 2))", "float32", (2, 1, 1), True),
    ("x.sum()", "float32", (1,), True),
    ("jnp.sum(x)", "float32", (), True),
    ("x.mean(1)", "float32", (2, 1), True),
    ("x.sum(1)", "float16", (2, 1), True),
    ("L.lax.reduce_sum_p.bind(x, axes=(1,))", "float32", (2, 1), True),
    ("x.sum(0)", "float32", (2, 1), False),  # two terms: +0.0 + -0.0 + -0.0
    ("x.sum()", "float32", (3,), False),
]


@pytest.mark.parametrize("expr,dtype,shape,negative", SINGLE_TERM_SUMS)
def test_a_sum_of_one_element_is_the_element(expr: str, dtype: str, shape: tuple[int, ...],
                                             negative: bool) -> None:
    x = -jnp.zeros(shape, dtype)
    scope = {"jnp": jnp, "L": numjax}
    for out in (eval(expr, {**scope, "x": x}),
                numjax.jit(lambda v: eval(expr, {**scope, "x": v}))(x)):
        value = np.asarray(out)
        assert not value.any() and value.dtype == dtype
        assert np.signbit(value).all() == negative and np.signbit(value).any() == negative


@pytest.mark.parametrize("fn,name", [
    (lambda n: jnp.arange(n), "stop"), (lambda n: jnp.arange(0, n), "stop"),
    (lambda n: jnp.arange(1, 5, n), "step"), (lambda n: jnp.arange(n, 5), "start")])
def test_arange_names_its_traced_argument_as_jax(fn: Any, name: str) -> None:
    # JAX 0.4.30: arange(n) calls its one bound 'stop'; the line has no closing period.
    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        numjax.jit(fn)(3)
    assert str(info.value).split("\n")[1] == f"It arose in the jnp.arange argument '{name}'"


def test_einsum_sums_an_operands_own_axes_in_the_preferred_type():
    # jaxdiff seed 15001: JAX sums uint32 asked for float32 in float32 (no wrap-around).
    a0 = np.array([[[2, 2, 5], [4, 5, 6], [4294967295, 0, 5]],
                   [[1, 0, 5], [4, 5, 0], [1, 3, 7]]], dtype=np.uint32)
    out = jnp.einsum('abc,dbe->', a0, a0, preferred_element_type=jnp.float32)
    np.testing.assert_allclose(out, 1.8446744e+19, rtol=1e-6)          # JAX 1.8446744e+19
    np.testing.assert_allclose(jnp.einsum('abc->', a0, preferred_element_type=jnp.float32),
                               4294967300.0, rtol=1e-6)                 # JAX 4294967300.0
    np.testing.assert_allclose(
        jnp.einsum('abc,dbe->b', a0, a0, preferred_element_type=jnp.float32),
        [225.0, 576.0, 1.8446744e+19], rtol=1e-6)


def test_complex_cummax_and_cummin_combine_as_lax_max_and_min():
    # jaxdiff seed 15203: a NaN does not stick (lax.max's comparisons with NaN are false).
    a = np.array([0.33 - 2.73j, complex(np.nan, 1.3), 2.14 - 2.79j], np.complex64)
    lax = numjax.lax
    for op in (lax.cummax, lax.cummin):
        out = np.asarray(op(a, axis=0))
        np.testing.assert_array_equal(out[[0, 2]], a[[0, 2]])   # JAX: [a0, nan+1.3j, a2]
        assert np.isnan(out[1].real) and out[1].imag == np.float32(1.3)
    b = np.array([[1 + 2j, 1 + 3j], [0 + 9j, 2 - 1j]], np.complex64)
    np.testing.assert_array_equal(lax.cummax(b, axis=0), [[1 + 2j, 1 + 3j], [1 + 2j, 2 - 1j]])
    np.testing.assert_array_equal(lax.cummin(b, axis=1, reverse=True),
                                  [[1 + 2j, 1 + 3j], [0 + 9j, 2 - 1j]])


@pytest.mark.parametrize("src,dst", [(np.complex64, np.float32), (np.bool_, np.int8),
                                     (np.int8, np.bool_), (np.float32, np.complex64)])
def test_bitcast_refuses_bool_and_complex_between_different_types(src, dst):
    # jaxdiff seed 15302; JAX's TypeError text.
    with pytest.raises(TypeError, match="lax.bitcast_convert_type does not support bool or "
                                        "complex values unless the operand and destination "
                                        "types match"):
        numjax.lax.bitcast_convert_type(np.ones(2, src), dst)
    assert numjax.lax.bitcast_convert_type(np.ones(2, np.complex64), np.complex64).dtype == \
        np.complex64


def test_unravel_index_of_unsigned_indices_keeps_their_coordinates():
    # JAX 0.4.30 returns uint32 [0, 1, 0] and [0, 2, 0] here: it compares the unsigned
    # remainder with -1 converted to uint32, so every index in range counts as "before the
    # start" and is zeroed. numjax keeps JAX's dtype and gives the coordinates.
    rows, cols = jnp.unravel_index(jnp.array([5, 7, 1], jnp.uint32), (2, 3))
    assert rows.dtype == cols.dtype == np.uint32
    assert rows.tolist() == [1, 1, 0] and cols.tolist() == [2, 2, 1]


# JAX 0.4.30: the n-th derivative of jnp.sinc at 0, by any mix of jvp and grad (float32).
SINC_DERIVATIVES_AT_ZERO = [0.0, -3.2898683547973633, 0.0, 19.481821060180664]


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_sinc_derivatives_at_zero(order: int) -> None:
    def deriv(f: Any) -> Any:
        return lambda x: numjax.jvp(f, (x,), (1.0,))[1]

    for ops in itertools.combinations_with_replacement([deriv, numjax.grad], order):
        f = jnp.sinc
        for op in ops:
            f = op(f)
        out = f(0.0)
        assert out.dtype == np.float32
        np.testing.assert_allclose(float(out), SINC_DERIVATIVES_AT_ZERO[order - 1], rtol=1e-6)


_PF_X = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
_PF_Y = np.array([1.0, 2.5, 2.9, 4.2, 5.1, 5.8], np.float32)
# JAX 0.4.30's polyfit(..., full=True) and cov= results for these points (float32; compared
# within 1e-5: the least squares run on the machine's LAPACK).
PF_COEFFS_1 = [0.9457141757011414, 1.219048261642456]
PF_COV = {True: [[0.003668024903163314, -0.00917006190866232],
                 [-0.00917006190866232, 0.03362356126308441]],
          "unscaled": [[0.057142872363328934, -0.14285717904567719],
                       [-0.14285717904567719, 0.5238096714019775]]}


def test_polyfit_full() -> None:
    c, resids, rank, sv, rcond = jnp.polyfit(_PF_X, _PF_Y, 2, full=True)
    np.testing.assert_allclose(c, [-0.035714272409677505, 1.124285340309143, 1.1000005006790161],
                               rtol=1e-5)
    np.testing.assert_allclose(resids, [0.20914281904697418], rtol=1e-4)
    np.testing.assert_allclose(sv, [1.6369574069976807, 0.5527665019035339, 0.12173495441675186],
                               rtol=1e-5)
    assert int(rank) == 3 and rank.dtype == np.int32
    # rcond defaults to len(x) * eps, returned as a weakly typed scalar.
    assert rcond.weak_type and rcond.dtype == np.float32 and float(rcond) == 6 * 2.0**-23


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("cov", [True, "unscaled"])
def test_polyfit_cov(cov: Any, jit: bool) -> None:
    fit = lambda x, y: jnp.polyfit(x, y, 1, cov=cov)
    c, v = (numjax.jit(fit) if jit else fit)(_PF_X, _PF_Y)
    np.testing.assert_allclose(c, PF_COEFFS_1, rtol=1e-5)
    assert v.dtype == np.float32 and v.shape == (2, 2)
    np.testing.assert_allclose(v, PF_COV[cov], rtol=1e-4)
    # A 2-d y: JAX 0.4.30 scales every column's covariance by the first column's residuals.
    y2 = np.stack([_PF_Y, _PF_Y[::-1] * 2], 1)
    c2, v2 = jnp.polyfit(_PF_X, y2, 1, cov=cov)
    np.testing.assert_allclose(c2, [[PF_COEFFS_1[0], -1.89142906665802],
                                    [PF_COEFFS_1[1], 11.89523983001709]], rtol=1e-5)
    assert v2.shape == (2, 2, 1)
    np.testing.assert_allclose(v2[..., 0], PF_COV[cov], rtol=1e-4)


def test_polyfit_cov_needs_more_points_than_coefficients() -> None:
    with pytest.raises(ValueError, match=r"^the number of data points must exceed order to "
                                         r"scale the covariance matrix$"):
        jnp.polyfit(_PF_X[:2], _PF_Y[:2], 1, cov=True)


def test_isclose_of_keys() -> None:
    # JAX 0.4.30: keys are close when equal; other mixes are refused under isclose's name.
    key = numjax.random.key(0)
    assert bool(jnp.isclose(key, key))
    np.testing.assert_array_equal(jnp.isclose(key, numjax.random.split(key, 2)), [False, False])
    for other, text in ((1, "key<fry>, int32"),
                        (numjax.random.key(0, impl="rbg"), "key<fry>, key<rbg>")):
        with pytest.raises(TypeError, match=rf"^isclose does not accept dtypes {text}\.$"):
            jnp.isclose(key, other)


def test_searchsorted_past_int32_lengths() -> None:
    # JAX 0.4.30: int32 insertion points up to 2**31 - 1 elements, int64 past that; without
    # x64 its jnp.int64(len(a)) warns, and NumPy 2 refuses the length in int32.
    big = numjax.core.ShapedArray((np.iinfo(np.int32).max + 1,), np.float32)
    v = numjax.core.ShapedArray((), np.float32)
    edge = numjax.core.ShapedArray((np.iinfo(np.int32).max,), np.float32)
    assert numjax.eval_shape(jnp.searchsorted, edge, v).dtype == np.int32
    with enable_x64():
        assert numjax.eval_shape(jnp.searchsorted, big, v).dtype == np.int64
    with pytest.warns(UserWarning, match="Explicitly requested dtype int64"):
        if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
            with pytest.raises(OverflowError, match="Python integer 2147483648 out of bounds"):
                numjax.eval_shape(jnp.searchsorted, big, v)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                assert numjax.eval_shape(jnp.searchsorted, big, v).dtype == np.int32


def test_ldexp_gradient_is_the_power_of_two() -> None:
    # d/dx ldexp(x, n) = 2**n. JAX 0.4.30 builds ldexp from bit operations, whose derivative
    # is zero: its grad is 0.0 for every nonzero x and 1.0 at x = 0 (fuzzer seed 21101, vjp
    # of jnp.ldexp(a0 @ a0, 2)); numjax does not copy that (docs/differences.md).
    x = np.array([3.0, 1e-3, 0.0, -5e30, 1e30], np.float32)
    for f in (numjax.vmap(numjax.grad(lambda v: jnp.ldexp(v, 2))),
              numjax.jit(numjax.vmap(numjax.grad(lambda v: jnp.ldexp(v, 2))))):
        np.testing.assert_array_equal(f(x), np.full(5, 4.0, np.float32))
    tangent = numjax.jvp(lambda v: jnp.ldexp(v, np.array([1, 2, -1])),
                         (np.ones(3, np.float32),), (np.ones(3, np.float32),))[1]
    np.testing.assert_array_equal(tangent, [2.0, 4.0, 0.5])

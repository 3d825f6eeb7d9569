"""dot_general's element types, recorded from JAX 0.4.30: operands of different dtypes compute
in the higher-precision one (XLA's rule), `preferred_element_type` widens the accumulation, and
gradients of mixed-precision products come back in each operand's own dtype."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.config import enable_x64

bf16 = np.dtype(ml_dtypes.bfloat16)

# (lhs dtype, lhs values, rhs dtype, rhs values, preferred, JAX's dtype, JAX's value) for
# lax.dot of two vectors.
PRODUCTS = [
    ("int8", [1, 1], "float32", [1, 1], None, "float32", 2.0),
    ("int8", [1, 1], "int16", [1, 1], "int32", "int32", 2),
    ("int8", [1, 1], "int16", [1, 1], None, "int16", 2),
    ("float16", [1, 1], "float32", [1, 1], None, "float32", 2.0),
    ("bfloat16", [1, 1], "float16", [1, 1], None, "bfloat16", 2.0),
    ("bool", [1, 1], "float32", [1, 1], None, "float32", 2.0),
    ("bool", [1, 1], "int8", [3, 3], None, "int8", 6),
    ("bool", [1, 1], "bool", [1, 1], "int32", "int32", 2),
    ("complex64", [1 + 1j, 1 + 1j], "float32", [1.5, 1.5], None, "complex64", 3 + 3j),
    ("int8", [3, 3], "complex64", [1j, 1j], None, "complex64", 6j),
    # uint8 x int8 is an int8 product: 200 wraps to -56 before multiplying.
    ("uint8", [200, 200], "int8", [1, 1], None, "int8", -112),
    ("uint8", [200, 200], "int8", [1, 1], "int32", "int32", 400),
    ("uint8", [200, 200], "int8", [3, 3], "uint16", "uint16", 1200),
    ("uint8", [200, 200], "uint8", [200, 200], "int32", "int32", 80000),
    ("uint8", [200, 200], "uint8", [200, 200], "uint32", "uint32", 80000),
    ("int8", [-2, -2], "int8", [3, 3], "uint32", "uint32", 4294967284),
    ("int8", [-2, -2], "int8", [3, 3], "uint8", "uint8", 244),
    # a preferred wider type accumulates in it (no int8 wrap-around)
    ("int8", [100, 100], "int8", [100, 100], "int32", "int32", 20000),
    ("int8", [100, 100], "int8", [100, 100], "float32", "float32", 20000.0),
    ("int8", [100, 100], "int16", [1000, 1000], "float32", "float32", 200000.0),
    ("int8", [100, 100], "float16", [1000, 1000], None, "float16", np.inf),
    ("int32", [2**24 + 1, 2**24 + 1], "float32", [1, 1], None, "float32", 33554432.0),
    # a float product asked for in an integer type is computed in float and saturates
    ("float32", [100, 100], "float32", [1, 1], "int8", "int8", 127),
    ("float32", [3e9, 3e9], "float32", [1, 1], "int32", "int32", 2147483647),
    ("float32", [np.nan, np.nan], "float32", [1, 1], "int32", "int32", 0),
    ("float32", [1.7, 1.7], "float32", [1, 1], "int32", "int32", 3),
    # ... and a narrower float type is rounded from the float32 product (not overflowing)
    ("float32", [300, 300], "float32", [300, -300], "float16", "float16", 0.0),
    ("float16", [300, 300], "float16", [300, 300], "float32", "float32", 180000.0),
    ("int32", [3, 3], "int32", [1, 1], "complex64", "complex64", 6 + 0j),
]


def _arr(dtype: Any, values: Any) -> Any:
    return np.array(values).astype(np.dtype(dtype))


@pytest.mark.parametrize("ld,lv,rd,rv,pref,dtype,value", PRODUCTS)
def test_mixed_dtype_products(ld: Any, lv: Any, rd: Any, rv: Any, pref: Any, dtype: Any,
                              value: Any) -> None:
    a, b = _arr(ld, lv), _arr(rd, rv)
    f = lambda x, y: lax.dot(x, y, preferred_element_type=pref)
    for fn in (f, jax.jit(f)):
        out = fn(a, b)
        assert out.dtype == np.dtype(dtype)
        assert np.asarray(out).item() == value or (np.isinf(value) and np.isinf(out))


@pytest.mark.parametrize("ld,rd,pref,result", [
    ("int32", "int32", "int8", "int32"),
    ("int32", "int32", "int16", "int32"),
    ("int32", "int32", "bool", "int32"),
    ("int32", "int32", "float16", "int32"),
])
def test_preferred_type_narrower_than_an_integer_result_is_an_error(ld: Any, rd: Any, pref: Any,
                                                                    result: Any) -> None:
    a, b = _arr(ld, [3, 3]), _arr(rd, [1, 1])
    with pytest.raises(TypeError, match=(
            "^`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {pref} for result type of {result}.$")):
        lax.dot(a, b, preferred_element_type=pref)


def test_mixed_dtype_product_in_a_jaxpr() -> None:
    jaxpr = jax.make_jaxpr(lax.dot)(np.ones((2, 2), np.int8), np.ones((2, 2), np.float32))
    assert str(jaxpr) == ("{ lambda ; a:i8[2,2] b:f32[2,2]. let\n"
                          "    c:f32[2,2] = dot_general[dimension_numbers=(([1], [0]), ([], []))] "
                          "a b\n  in (c,) }")


def test_mixed_dtype_gradients_come_back_in_each_operands_dtype() -> None:
    a16, b32 = np.full(2, 3, np.float16), np.full(2, 1.5, np.float32)
    ga, gb = jax.grad(lambda a, b: lax.dot(a, b), argnums=(0, 1))(a16, b32)
    assert ga.dtype == np.float16 and gb.dtype == np.float32
    np.testing.assert_array_equal(ga, [1.5, 1.5])
    np.testing.assert_array_equal(gb, [3.0, 3.0])
    # an integer operand is a constant: the float operand's gradient is the int values
    g = jax.grad(lambda b: lax.dot(np.full(2, 3, np.int8), b))(b32)
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g, [3.0, 3.0])
    primal, tangent = jax.jvp(lambda a, b: lax.dot(a, b), (a16, b32),
                              (np.ones(2, np.float16), b32))
    assert primal.dtype == tangent.dtype == np.float32
    assert float(primal) == 9.0 and float(tangent) == 12.0


@pytest.mark.parametrize("fn", [
    lambda a, c: jnp.matmul(a, c, preferred_element_type=jnp.float32),
    lambda a, c: jnp.einsum("ij,jk->ik", a, c, preferred_element_type=jnp.float32),
    lambda a, c: lax.dot_general(a, c, (((1,), (0,)), ((), ())),
                                 preferred_element_type=jnp.float32),
], ids=["matmul", "einsum", "dot_general"])
def test_gradient_of_bfloat16_products_accumulated_in_float32(fn: Any) -> None:
    # JAX 0.4.30: the gradients are bfloat16 twos (each a sum over the other operand's ones)
    a, c = np.ones((2, 3), bf16), np.ones((3, 2), bf16)
    assert fn(a, c).dtype == np.float32
    loss = lambda a, c: fn(a, c).sum()
    for grad in (jax.grad(loss, argnums=(0, 1)), jax.jit(jax.grad(loss, argnums=(0, 1)))):
        ga, gc = grad(a, c)
        assert ga.dtype == gc.dtype == bf16
        np.testing.assert_array_equal(np.asarray(ga, np.float32), np.full((2, 3), 2.0))
        np.testing.assert_array_equal(np.asarray(gc, np.float32), np.full((3, 2), 2.0))
    g = jax.grad(lambda a: lax.dot(a, a, preferred_element_type=jnp.float32).sum())(
        np.ones((2, 2), np.float16))
    assert g.dtype == np.float16
    np.testing.assert_array_equal(g, np.full((2, 2), 4.0))


def test_mixed_dtype_products_under_vmap_match_a_loop() -> None:
    a = np.arange(6, dtype=np.int8).reshape(3, 2)
    b = np.linspace(0, 1, 6, dtype=np.float32).reshape(3, 2)
    out = jax.vmap(lax.dot)(a, b)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [float(lax.dot(x, y)) for x, y in zip(a, b, strict=True)])


@pytest.mark.parametrize("fn", [
    lambda a, b: jnp.einsum("i,i", a, b, preferred_element_type=jnp.int32),
    lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.int32),
], ids=["einsum", "matmul"])
def test_int8_products_accumulate_in_the_preferred_type(fn: Any) -> None:
    out = fn(np.full(2, 100, np.int8), np.full(2, 100, np.int8))
    assert out.dtype == np.int32 and int(out) == 20000


@pytest.mark.parametrize("x_dtype", ["float16", "bfloat16", "float32", "complex64"])
@pytest.mark.parametrize("preferred", [None, "float32", "float64", "complex128"])
@pytest.mark.parametrize("bool_first", [False, True], ids=["float@bool", "bool@float"])
def test_vjp_of_float_bool_products_with_preferred_types(x_dtype: Any, preferred: Any,
                                                         bool_first: Any) -> None:
    """The transpose of a float x bool product contracts the cotangent with the bool operand
    and returns the float operand's own dtype. JAX 0.4.30 (x64 on): the product has the
    preferred type (else x's), the cotangent of ones is x's dtype with the values below."""
    mask = np.array([[True, False], [True, True]])
    dims = (((1,), (0,)), ((), ()))
    expected = [[2.0, 2.0], [1.0, 1.0]] if bool_first else [[1.0, 2.0], [1.0, 2.0]]

    def product(x: Any) -> Any:
        operands = (mask, x) if bool_first else (x, mask)
        return lax.dot_general(*operands, dims, preferred_element_type=preferred)

    with enable_x64(True):
        x = jnp.asarray(np.array([[1.5, -2.0], [3.0, 4.0]]), x_dtype)
        for vjp in (lambda x: jax.vjp(product, x), jax.jit(lambda x: jax.vjp(product, x))):
            y, pullback = vjp(x)
            assert y.dtype == (preferred or x_dtype)
            (ct,) = pullback(jnp.ones_like(y))
            assert ct.dtype == x_dtype
            np.testing.assert_array_equal(np.asarray(ct, np.complex128), expected)


_A = np.ones((2, 2), np.float32)
# (jnp product asked for a 64-bit type with x64 off, the function JAX 0.4.30's warning names)
TRUNCATED_PREFERRED = [
    (lambda t: jnp.matmul(_A, _A, preferred_element_type=t), "matmul"),
    (lambda t: jnp.dot(_A, _A, preferred_element_type=t), "dot"),
    (lambda t: jnp.vdot(_A, _A, preferred_element_type=t), "dot"),
    (lambda t: jnp.tensordot(_A, _A, 1, preferred_element_type=t), "tensordot"),
    (lambda t: jnp.inner(_A, _A, preferred_element_type=t), "tensordot"),
    (lambda t: jnp.einsum("ij,jk", _A, _A, preferred_element_type=t), "einsum"),
]


@pytest.mark.parametrize("product,name", TRUNCATED_PREFERRED,
                         ids=[row[1] + str(i) for i, row in enumerate(TRUNCATED_PREFERRED)])
@pytest.mark.parametrize("preferred", [jnp.float64, jnp.int64])
def test_64_bit_preferred_type_without_x64_warns(product: Any, name: str, preferred: Any) -> None:
    """JAX 0.4.30 warns that the type is truncated and computes in the 32-bit one."""
    with pytest.warns(UserWarning) as record:
        out = product(preferred)
    assert out.dtype == ("float32" if preferred is jnp.float64 else "int32")
    assert str(record[0].message).startswith(
        f"Explicitly requested dtype {preferred} requested in {name} is not available, and will "
        f"be truncated to dtype {out.dtype}.")

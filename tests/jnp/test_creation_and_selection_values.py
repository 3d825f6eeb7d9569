"""Values of jnp creation, padding, selection and difference functions recorded from JAX
0.4.30 where they differ from a naive NumPy reading: linspace's interpolation (as JAX compiles
it), float16 arange, integer linear ramps, take_along_axis's clipping of negative indices,
diff of order 0."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp

LINSPACES = [
    (lambda: jnp.linspace(0.0, 1.0, 7), [0.0, 0.1666666716337204, 0.3333333432674408, 0.5,
                                         0.6666666865348816, 0.8333333730697632, 1.0],
     "float32"),
    (lambda: jnp.linspace(-3.0, 5.0, 3, endpoint=False),
     [-3.0, -0.3333331346511841, 2.3333334922790527], "float32"),
    (lambda: jnp.linspace(jnp.array([1.0, 2.0]), jnp.array([5.0, 7.0]), 4),
     [[1.0, 2.0], [2.3333334922790527, 3.6666667461395264],
      [3.6666667461395264, 5.333333492279053], [5.0, 7.0]], "float32"),
    (lambda: jnp.linspace(jnp.array([1.0, 2.0]), jnp.array([5.0, 7.0]), 4, axis=1),
     [[1.0, 2.3333334922790527, 3.6666667461395264, 5.0],
      [2.0, 3.6666667461395264, 5.333333492279053, 7.0]], "float32"),
    (lambda: jnp.linspace(0.0, 1.0, 7, dtype=jnp.float16),
     [0.0, 0.1666259765625, 0.333251953125, 0.5, 0.66650390625, 0.8330078125, 1.0],
     "float16"),
    (lambda: jnp.linspace(-5, 7, 4, endpoint=False, dtype=jnp.int32), [-5, -2, 1, 4], "int32"),
    (lambda: jnp.linspace(1.0, 5.0, 1, endpoint=False, retstep=True)[1], 4.0, "float32"),
    (lambda: jnp.linspace(0.0, 1.0, 7, retstep=True)[1], 0.1666666716337204, "float32"),
    (lambda: jnp.arange(0.0, 4.0, 0.3, dtype=jnp.float16)[8:12],
     [2.400390625, 2.701171875, 3.0, 3.30078125], "float16"),
]


@pytest.mark.parametrize("index", range(len(LINSPACES)))
def test_linspace_and_arange_values(index: int) -> None:
    fn, expected, dtype = LINSPACES[index]
    out = fn()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(out, np.float64), expected)


def test_linspace_is_differentiable_and_batches() -> None:
    g = numjax.grad(lambda a: jnp.linspace(a, 2.0, 5).sum())(0.5)
    assert float(g) == 2.5  # sum of (1 - t) over t = 0, 1/4, ..., 1
    out = numjax.vmap(lambda a: jnp.linspace(a, 2.0, 3))(jnp.array([0.0, 1.0]))
    np.testing.assert_array_equal(out, [[0.0, 1.0, 2.0], [1.0, 1.5, 2.0]])


@pytest.mark.parametrize("dtype,end,expected", [
    # jnp.pad(x, 2, "linear_ramp", end_values=-5)[:, 1], JAX 0.4.30 (integer ramps floored)
    ("int32", -5, [-5, -5, -4, 1, -2, -5]),
    ("float32", -5, [-5.0, -4.5, -4.0, 1.0, -2.0, -5.0]),
])
def test_pad_linear_ramp(dtype: str, end: float, expected: list[float]) -> None:
    a = np.array([[-3, 5], [7, -2]], dtype)
    for pad in (jnp.pad, numjax.jit(jnp.pad, static_argnums=(1, 2), static_argnames="end_values")):
        out = pad(a, 2, "linear_ramp", end_values=end)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out[:, 1], expected)
    np.testing.assert_array_equal(jnp.pad(a, 2, "linear_ramp", end_values=end),
                                  np.pad(a, 2, "linear_ramp", end_values=end))


INDICES = np.array([-11, -10, -9, -5, -1, 0, 1, 5, 9, 10, 11])


@pytest.mark.parametrize("jit", [False, True])
def test_take_along_axis_clip_counts_negative_indices_from_the_end(jit: bool) -> None:
    take = numjax.jit(jnp.take_along_axis, static_argnames=("axis", "mode")) if jit else \
        jnp.take_along_axis
    x = jnp.arange(10, dtype=jnp.float32)
    out = take(x, jnp.asarray(INDICES), axis=0, mode="clip")
    np.testing.assert_array_equal(out, [0, 0, 1, 5, 9, 0, 1, 5, 9, 9, 9])  # JAX 0.4.30
    out = take(jnp.arange(6.0).reshape(2, 3), jnp.array([[-4, 5], [-1, 0]]), axis=1, mode="clip")
    np.testing.assert_array_equal(out, [[0.0, 2.0], [5.0, 3.0]])
    # jnp.take clips without that normalization, as in JAX
    np.testing.assert_array_equal(jnp.take(x, jnp.asarray(INDICES), mode="clip"),
                                  [0, 0, 0, 0, 0, 0, 1, 5, 9, 9, 9])
    with pytest.raises(ValueError, match=r'^Unknown gather mode "wrap"(\n|$)'):
        take(x, jnp.asarray(INDICES), axis=0, mode="wrap")


def test_diff_of_order_zero_is_the_input() -> None:
    x = jnp.arange(4.0)
    np.testing.assert_array_equal(jnp.diff(x, n=0, prepend=1.0, append=9.0), [0, 1, 2, 3])
    assert jnp.diff(jnp.float32(3.0), n=0).shape == ()  # even 0-d, as NumPy
    assert jnp.diff(jnp.ones(3), n=0, axis=5).shape == (3,)


# JAX 0.4.30's jaxprs for the functions that copy: `copy` staged (after astype's conversion,
# before jnp.array's), and none for a no-copy request.
COPY_JAXPRS = [
    (lambda x: jnp.array(x, copy=True), np.ones(3, np.float32),
     "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"),
    (jnp.copy, np.ones(3, np.float32), "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"),
    (lambda x: x.copy(), np.ones(3, np.float32),
     "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"),
    (lambda x: jnp.asarray(x, copy=True), np.float32(3.0),
     "{ lambda ; a:f32[]. let b:f32[] = copy a in (b,) }"),
    (lambda x: jnp.array(x, copy=False), np.ones(3, np.float32),
     "{ lambda ; a:f32[3]. let  in (a,) }"),
    (lambda x: jnp.astype(x, jnp.int32, copy=True), np.arange(3, dtype=np.int32),
     "{ lambda ; a:i32[3]. let b:i32[3] = copy a in (b,) }"),
    (lambda x: x.astype(jnp.float32, copy=True), np.arange(3, dtype=np.int32),
     "{ lambda ; a:i32[3]. let\n    b:f32[3] = convert_element_type[new_dtype=float32 "
     "weak_type=False] a\n    c:f32[3] = copy b\n  in (c,) }"),
    (lambda x: jnp.array(x, jnp.float32, copy=True), np.arange(3, dtype=np.int32),
     "{ lambda ; a:i32[3]. let\n    b:i32[3] = copy a\n    c:f32[3] = convert_element_type["
     "new_dtype=float32 weak_type=False] b\n  in (c,) }"),
    (lambda x: numjax.jvp(lambda y: jnp.array(y, copy=True), (x,), (x,)),
     np.ones(3, np.float32),
     "{ lambda ; a:f32[3]. let b:f32[3] = copy a; c:f32[3] = copy a in (b, c) }"),
    (numjax.vmap(jnp.copy), np.ones(3, np.float32),
     "{ lambda ; a:f32[3]. let b:f32[3] = copy a in (b,) }"),
    # the scalar types are asarray: no copy (lax_numpy_test's testDtypeWrappers)
    (jnp.float32, 0,
     "{ lambda ; a:i32[]. let\n    b:f32[] = convert_element_type[new_dtype=float32 "
     "weak_type=False] a\n  in (b,) }"),
    (jnp.float32, np.ones(2, np.int32),
     "{ lambda ; a:i32[2]. let\n    b:f32[2] = convert_element_type[new_dtype=float32 "
     "weak_type=False] a\n  in (b,) }"),
    (jnp.int32, np.ones(2, np.int32), "{ lambda ; a:i32[2]. let  in (a,) }"),
]


@pytest.mark.parametrize("index", range(len(COPY_JAXPRS)))
def test_copies_are_staged_as_jax_stages_them(index):
    fn, arg, expected = COPY_JAXPRS[index]
    assert str(numjax.make_jaxpr(fn)(arg)) == expected


def test_scalar_types_return_an_array_of_their_type_as_is():
    # JAX 0.4.30: jnp.int32(x) is x for an int32 Array x.
    x = jnp.ones(2, jnp.int32)
    assert jnp.int32(x) is x
    assert repr(jnp.float32(3)) == "Array(3., dtype=float32)"


def test_copies_are_new_arrays_under_transformations():
    # JAX 0.4.30: jnp.array(x, copy=True) under jvp, vjp and vmap returns new Arrays.
    f = lambda x: jnp.array(x, copy=True)
    x, xdot = jnp.ones(10), jnp.ones(10)
    y, ydot = numjax.jvp(f, (x,), (xdot,))
    assert y is not x and ydot is not xdot
    y, f_vjp = numjax.vjp(f, x)
    ybar = jnp.ones(10)
    (xbar,) = f_vjp(ybar)
    assert y is not x and xbar is not ybar
    assert numjax.vmap(f)(x) is not x
    # The gradient passes through the copy; its transpose is a copy.
    np.testing.assert_array_equal(numjax.grad(lambda v: (f(v) * v).sum())(jnp.arange(3.0)),
                                  [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(numjax.linear_transpose(jnp.copy, jnp.ones(3))(
        jnp.arange(3.0))[0], [0.0, 1.0, 2.0])
    # asarray(copy=True) of an Array is a copy of its own buffer.
    z = jnp.arange(3.0)
    assert jnp.asarray(z, copy=True).unsafe_buffer_pointer() != z.unsafe_buffer_pointer()
    assert jnp.asarray(z) is z


@pytest.mark.parametrize("change_dtype", [True, False])
@pytest.mark.parametrize("copy", [True, False])
def test_astype_copies_unless_asked_not_to(change_dtype, copy):
    # JAX 0.4.30: only astype(same dtype, copy=False) returns its input, whose deletion then
    # deletes the input too.
    x = jnp.arange(5, dtype="int32")
    y = x.astype("float32" if change_dtype else "int32", copy=copy)
    y.delete()
    assert x.is_deleted() == (not (change_dtype or copy))


# JAX 0.4.30: jnp.piecewise applies each function to one element at a time.
PIECEWISES = [
    (lambda x: jnp.piecewise(x, [x < 0], [lambda v: v - v.mean(), 0.0]),
     [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "float32"),
    (lambda x: jnp.piecewise(x, [x < 0, x > 1], [lambda v, a: v * a, lambda v, a: -v, 7], 3.0),
     [-9.0, -6.0, -3.0, 7.0, 7.0, -2.0], "float32"),
    (lambda x: jnp.piecewise(x.astype(int), [x < -1], [lambda v: v * 2.7, 1.5]),
     [-8, -5, 1, 1, 1, 1], "int32"),
    (lambda x: jnp.piecewise(x.reshape(2, 3), [x.reshape(2, 3) < -1], [lambda v: v * 2, 9]),
     [[-6.0, -4.0, 9.0], [9.0, 9.0, 9.0]], "float32"),
    (lambda x: jnp.piecewise(2.0, [True], [lambda v: v * 2]), 4.0, "float32"),
]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("index", range(len(PIECEWISES)))
def test_piecewise_values(index, jit):
    fn, expected, dtype = PIECEWISES[index]
    out = (numjax.jit(fn) if jit else fn)(jnp.arange(-3.0, 3.0))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.asarray(out), expected)


def test_piecewise_traces_once_and_checks_its_lists():
    def g(x):
        g.num_traces += 1
        return x

    g.num_traces = 0
    x = jnp.arange(10.0)
    for _ in range(5):
        jnp.piecewise(x, [x < 0], [g, 0.0])
    assert g.num_traces == 1  # JAX 0.4.30: jitted with the functions static
    f = lambda v: jnp.piecewise(v, [v < 1], [lambda u: u**2, lambda u: 3 * u])
    np.testing.assert_array_equal(numjax.grad(lambda v: f(v).sum())(jnp.arange(3.0)),
                                  [0.0, 3.0, 3.0])
    np.testing.assert_array_equal(numjax.vmap(f)(jnp.arange(3.0)), [0.0, 3.0, 6.0])
    # JAX reads a condition array as a list of conditions, one per row.
    with pytest.raises(ValueError, match=r"^with 6 condition\(s\), either 6 or 7 functions are "
                       r"expected; got 2$"):
        jnp.piecewise(jnp.arange(6.0), jnp.arange(6.0) < 0, [lambda v: v, 0.0])
    with pytest.raises(ValueError, match=r"^with 1 condition\(s\), either 1 or 2 functions are "
                       r"expected; got 3$"):
        jnp.piecewise(x, [x < 0], [lambda v: v, 0.0, 1.0])


def test_compress_and_extract_take_a_size_of_zero():
    # JAX 0.4.30 accepts size=0 (0 <= size <= the axis' length): an empty result.
    for out in (jnp.extract(np.array([1.0]), np.array([3.0]), size=0),
                jnp.compress(np.array([1.0, 0.0]), np.array([[3.0], [4.0]]), size=0, axis=0)):
        assert out.shape[0] == 0 and out.dtype == np.float32
    with pytest.raises(ValueError, match=r"^size must be positive and not greater than the size "
                       r"of the array axis; got size=-1 for a.shape\[axis\]=2$"):
        jnp.compress(np.array([1.0, 0.0]), np.array([3.0, 4.0]), size=-1)


# JAX 0.4.30: r_ and c_ with the 'r' and 'c' directives make a 1-d result a row or a column.
CONCAT_DIRECTIVES = [
    (lambda: jnp.r_["r", [1, 2, 3], [4, 5, 6]], [[1, 2, 3, 4, 5, 6]]),
    (lambda: jnp.c_["r", [1, 2, 3], [4, 5, 6]], [[1, 4], [2, 5], [3, 6]]),
    (lambda: jnp.r_["c", [1, 2, 3], [4, 5, 6]], [[1], [2], [3], [4], [5], [6]]),
    (lambda: jnp.c_["c", [1, 2, 3], [4, 5, 6]], [[1, 4], [2, 5], [3, 6]]),
    (lambda: jnp.r_["r", [[1, 2], [3, 4]], [[5, 6]]], [[1, 2], [3, 4], [5, 6]]),
    (lambda: jnp.r_["r", 1:4, 7], [[1, 2, 3, 7]]),
    (lambda: jnp.r_["1,2", 1, 2], [[1, 2]]),
]


@pytest.mark.parametrize("index", range(len(CONCAT_DIRECTIVES)))
def test_concatenation_directives(index):
    fn, expected = CONCAT_DIRECTIVES[index]
    out = fn()
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.shape == np.shape(expected)


def test_concatenation_directive_errors():
    with pytest.raises(ValueError, match=r"^could not understand directive 'x'$"):
        jnp.r_["x", 1]
    with pytest.raises(ValueError, match=r"^string directive must be placed at the beginning$"):
        jnp.r_[1, "r"]


class _ShapeAndDtype:
    shape = (2,)
    dtype = np.dtype("float16")


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_functions_read_duck_typed_shapes_and_dtypes(name):
    # JAX 0.4.30: an object with `shape` and `dtype` (a ShapeDtypeStruct) is read by them,
    # strongly typed; an object with a shape only is refused as before.
    fn = getattr(jnp, name)
    args = (2,) if name == "full_like" else ()
    fill = {"zeros_like": 0, "ones_like": 1, "empty_like": 0, "full_like": 2}[name]
    for a, shape, dtype in ((numjax.ShapeDtypeStruct((1, 2, 3), np.dtype("int32")), (1, 2, 3),
                             np.int32), (_ShapeAndDtype(), (2,), np.float16)):
        out = fn(a, *args)
        assert (out.shape, out.dtype, out.weak_type) == (shape, dtype, False)
        np.testing.assert_array_equal(np.asarray(out), np.full(shape, fill, dtype))
    out = numjax.jit(lambda: fn(numjax.ShapeDtypeStruct((3,), np.dtype("int32")), *args))()
    assert out.shape == (3,) and out.dtype == np.int32
    only_shape = type("OnlyShape", (), {"shape": (2,)})()
    with pytest.raises(TypeError, match=rf"^{name} requires ndarray or scalar arguments, got "
                                        r"<class '.*OnlyShape'> at position 0\.$"):
        fn(only_shape, *args)


# jnp.dot of mixed dtypes, as JAX 0.4.30 computes and stages it: (lhs dtype, rhs dtype, lhs
# shape, rhs shape, result dtype, value, primitives of its jaxpr). The operands are
# arange(n) - 1 and 2 * arange(n) + 1 of the shapes, cast (lax_numpy_test's
# testMixedPrecisionDot: one dot_general, no conversion before it).
MIXED_DOTS = [
    (np.int8, np.float32, (2, 3), (3,), np.float32, [4.0, 31.0], ["dot_general"]),
    (np.float16, np.float32, (3,), (3,), np.float32, 4.0, ["dot_general"]),
    (np.uint8, np.int8, (3,), (3, 2), np.int16, [264, 776], ["dot_general"]),
    (np.bool_, np.int32, (3,), (3,), np.int32, 6, ["dot_general"]),
    (np.int32, np.complex64, (2, 3), (3,), np.complex64, [4, 31], ["dot_general"]),
    (np.bool_, np.bool_, (2, 3), (3,), np.bool_, [True, True], ["dot_general"]),
    (np.float16, jnp.bfloat16, (3,), (3,), np.float32, 4.0, ["dot_general"]),
    (np.int8, np.float32, (), (3,), np.float32, [-1.0, -3.0, -5.0],
     ["convert_element_type", "mul"]),
]


@pytest.mark.parametrize("row", MIXED_DOTS, ids=lambda r: f"{np.dtype(r[0])}-{np.dtype(r[1])}")
def test_mixed_precision_dot(row: Any) -> None:
    lhs_dtype, rhs_dtype, lhs_shape, rhs_shape, dtype, value, prims = row
    x = (np.arange(int(np.prod(lhs_shape))).reshape(lhs_shape) - 1).astype(lhs_dtype)
    y = (np.arange(int(np.prod(rhs_shape))).reshape(rhs_shape) * 2 + 1).astype(rhs_dtype)
    for out in (jnp.dot(x, y), numjax.jit(jnp.dot)(x, y)):
        assert out.dtype == np.dtype(dtype) and not out.weak_type
        np.testing.assert_array_equal(out, np.asarray(value, dtype))
    jaxpr = numjax.make_jaxpr(jnp.dot)(x, y)
    assert [e.primitive.name for e in jaxpr.eqns] == prims


def test_mixed_precision_dot_gradients() -> None:
    # JAX 0.4.30: each operand's gradient in its own dtype.
    gx, gy = numjax.grad(lambda x, y: jnp.dot(x, y).astype(jnp.float32), argnums=(0, 1))(
        jnp.ones(3, jnp.float16), jnp.arange(3.0, dtype=jnp.float32))
    assert (gx.dtype, gy.dtype) == (np.float16, np.float32)
    np.testing.assert_array_equal(gx, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0, 1.0])

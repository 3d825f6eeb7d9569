"""jnp.ufunc and jnp.frompyfunc: values against NumPy's ufunc methods, jit, vmap, grad and the
error cases of JAX 0.4.30."""

from __future__ import annotations

import doctest
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.numpy import ufunc as ufunc_module
from numjax.test_util import check_grads

_rng = np.random.default_rng(0)


def _x(*shape: int) -> np.ndarray:
    return _rng.uniform(-2, 2, size=shape).astype(np.float32)


def _left_fold(x: Any, y: Any) -> Any:
    # Not associative nor commutative: catches a wrong fold order or operand order.
    return x + 2 * y


# name -> (jnp ufunc, NumPy ufunc with the same meaning). `add`/`mul` take the sum/prod fast
# path; the others loop with scan.
UFUNCS: dict[str, tuple[jnp.ufunc, Any]] = {
    "add": (jnp.frompyfunc(operator.add, 2, 1, identity=0), np.add),
    "mul": (jnp.frompyfunc(operator.mul, 2, 1, identity=1), np.multiply),
    "maximum": (jnp.frompyfunc(jnp.maximum, 2, 1), np.maximum),
    # No identity: 0 is not one for x + 2y, and with one JAX would start the fold from it.
    "left_fold": (jnp.frompyfunc(_left_fold, 2, 1), np.frompyfunc(_left_fold, 2, 1)),
}

SHAPES_AXES = [((5,), 0), ((5,), -1), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), 1),
               ((2, 3, 4), -1)]


def _np(x: Any) -> np.ndarray:
    return np.asarray(x).astype(np.float32)


def _close(actual: Any, expected: Any, rtol: float = 1e-5) -> None:
    np.testing.assert_allclose(_np(actual), _np(expected), rtol=rtol, atol=1e-5)


# ---- construction, call and attributes -------------------------------------------------------


def test_attributes_repr_hash_and_doc() -> None:
    def hyp(x: Any, y: Any) -> Any:
        """The hypotenuse."""
        return jnp.sqrt(x * x + y * y)

    u = jnp.frompyfunc(hyp, 2, 1, identity=0.0)
    assert isinstance(u, jnp.ufunc)
    assert (u.nin, u.nout, u.nargs, u.identity) == (2, 1, 2, 0.0)
    assert repr(u) == "<jnp.ufunc 'hyp'>" and u.__name__ == "hyp"
    assert u.__doc__ == "The hypotenuse."
    same = jnp.frompyfunc(hyp, 2, 1, identity=0.0)
    assert u == same and hash(u) == hash(same)
    assert u != jnp.frompyfunc(hyp, 2, 1, identity=1.0)
    named = jnp.ufunc(hyp, 2, 1, name="h", nargs=3)
    assert (named.__name__, named.nargs, named.identity) == ("h", 3, None)
    with pytest.raises(AttributeError):
        u.nin = 3  # type: ignore[misc]


def test_builtin_functions_are_not_ufuncs_in_0_4_30() -> None:
    # jnp.add and friends became ufunc instances only in JAX 0.4.32.
    assert not isinstance(jnp.add, jnp.ufunc)


@pytest.mark.parametrize("shapes", [((4,), (4,)), ((3, 1), (1, 4)), ((2, 3), ())])
def test_call_broadcasts_like_numpy(shapes: tuple[tuple[int, ...], ...]) -> None:
    x, y = _x(*shapes[0]), _x(*shapes[1])
    u, ref = UFUNCS["left_fold"]
    _close(u(x, y), ref(x, y))
    _close(jnp.frompyfunc(jnp.sin, 1, 1)(x), np.sin(x))


def test_call_with_two_outputs() -> None:
    x, y = np.arange(1, 7).reshape(2, 3), np.array([2, 3, 4])
    q, r = jnp.frompyfunc(lambda a, b: (a // b, a % b), 2, 2)(x, y)
    nq, nr = np.frompyfunc(lambda a, b: (a // b, a % b), 2, 2)(x, y)
    np.testing.assert_array_equal(np.asarray(q), nq.astype(np.int32))
    np.testing.assert_array_equal(np.asarray(r), nr.astype(np.int32))


# ---- methods against NumPy -------------------------------------------------------------------


@pytest.mark.parametrize("name", list(UFUNCS))
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce(name: str, shape: tuple[int, ...], axis: int, keepdims: bool) -> None:
    u, ref = UFUNCS[name]
    x = _x(*shape)
    _close(u.reduce(x, axis=axis, keepdims=keepdims), ref.reduce(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", list(UFUNCS))
def test_reduce_all_axes_initial_and_where(name: str) -> None:
    u, ref = UFUNCS[name]
    x = _x(3, 4)
    _close(u.reduce(x, axis=None), ref.reduce(x.ravel()))
    _close(u.reduce(x, axis=1, initial=1.5), ref.reduce(x, axis=1, initial=1.5))
    mask = _rng.uniform(size=(3, 4)) > 0.4
    _close(u.reduce(x, axis=0, initial=0.5, where=mask),
           ref.reduce(x, axis=0, initial=0.5, where=mask))


def test_reduce_dtype_and_int_inputs() -> None:
    u, _ = UFUNCS["left_fold"]
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = u.reduce(x, axis=1)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out), [x[i, 0] + 2 * x[i, 1:].sum() for i in range(3)])
    assert u.reduce(x, axis=1, dtype=np.float32).dtype == np.float32
    assert UFUNCS["add"][0].reduce(x).dtype == np.int32


@pytest.mark.parametrize("name", list(UFUNCS))
@pytest.mark.parametrize("shape,axis", SHAPES_AXES)
def test_accumulate(name: str, shape: tuple[int, ...], axis: int) -> None:
    u, ref = UFUNCS[name]
    x = _x(*shape)
    _close(u.accumulate(x, axis=axis), ref.accumulate(x, axis=axis))


@pytest.mark.parametrize("name", list(UFUNCS))
@pytest.mark.parametrize("shape_a,shape_b", [((4,), (3,)), ((2, 3), (4,)), ((), (3,)),
                                             ((2, 1), (1, 2))])
def test_outer(name: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> None:
    u, ref = UFUNCS[name]
    a, b = _x(*shape_a), _x(*shape_b)
    out = u.outer(a, b)
    assert out.shape == shape_a + shape_b
    _close(out, ref.outer(a, b))


@pytest.mark.parametrize("name", list(UFUNCS))
@pytest.mark.parametrize("shape,axis", [((8,), 0), ((8, 3), 0), ((3, 8), 1), ((2, 8, 2), -2)])
def test_reduceat(name: str, shape: tuple[int, ...], axis: int) -> None:
    u, ref = UFUNCS[name]
    x = _x(*shape)
    idx = np.array([0, 4, 1, 5, 5, 7])  # includes a reversed and an empty slice
    _close(u.reduceat(x, idx, axis=axis), ref.reduceat(x, idx, axis=axis))


@pytest.mark.parametrize("name", list(UFUNCS))
def test_at_repeated_indices(name: str) -> None:
    u, ref = UFUNCS[name]
    x, b = _x(6), _x(4)
    idx = np.array([0, 3, 0, 5])
    expected = x.astype(object if name == "left_fold" else np.float32)
    ref.at(expected, idx, b)
    _close(u.at(x, idx, b, inplace=False), expected)
    # A scalar value is broadcast to every index.
    expected = x.astype(object if name == "left_fold" else np.float32)
    ref.at(expected, idx, 1.5)
    _close(u.at(x, idx, 1.5, inplace=False), expected)


def test_at_index_forms() -> None:
    add, _ = UFUNCS["add"]
    x = _x(3, 4)
    for index, b in [(1, 2.0), ((1, 2), 2.0), ((np.array([0, 2, 0]), np.array([1, 1, 3])),
                                               np.array([1.0, 2.0, 3.0])),
                     ((slice(None), np.array([0, 0])), 1.0), ((), 5.0)]:
        expected = x.copy()
        np.add.at(expected, index, b)
        _close(add.at(x, index, b, inplace=False), expected)
    neg = jnp.frompyfunc(operator.neg, 1, 1)
    expected = x.copy()
    np.negative.at(expected, np.array([0, 2]))
    _close(neg.at(x, np.array([0, 2]), inplace=False), expected)


# ---- transformations -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["add", "left_fold"])
def test_jit_matches_eager(name: str) -> None:
    u, _ = UFUNCS[name]
    x, b = _x(3, 4), _x(3)
    idx = np.array([2, 0, 2])
    cases: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (lambda a: u(a, 2.0), (x,)),
        (lambda a: u.reduce(a, axis=1), (x,)),
        (lambda a: u.reduce(a, axis=None, keepdims=True), (x,)),
        (lambda a: u.accumulate(a, axis=0), (x,)),
        (lambda a, c: u.outer(a, c), (x, b)),
        (lambda a: u.reduceat(a, np.array([0, 2, 1]), axis=1), (x,)),
        (lambda a, c: u.at(a[0], idx, c, inplace=False), (x, b)),
    ]
    for f, args in cases:
        _close(numjax.jit(f)(*args), f(*args))


@pytest.mark.parametrize("name", ["add", "maximum", "left_fold"])
def test_vmap_matches_loop(name: str) -> None:
    u, _ = UFUNCS[name]
    xs, bs = _x(3, 5, 4), _x(3, 2)
    idx = np.array([1, 3])
    cases: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (lambda a: u.reduce(a, axis=1), (xs,)),
        (lambda a: u.reduce(a, axis=None), (xs,)),
        (lambda a: u.accumulate(a, axis=-1), (xs,)),
        (lambda a: u.reduceat(a, np.array([0, 3, 1]), axis=0), (xs,)),
        (lambda a, c: u.outer(a[0], c), (xs, bs)),
        (lambda a, c: u.at(a[0], idx, c, inplace=False), (xs, bs)),
    ]
    for f, args in cases:
        looped = np.stack([_np(f(*(a[i] for a in args))) for i in range(3)])
        _close(numjax.vmap(f)(*args), looped)


@pytest.mark.parametrize("name", ["add", "mul", "left_fold"])
def test_grad_of_reduce(name: str) -> None:
    u, _ = UFUNCS[name]
    x = _x(3, 4)
    check_grads(lambda a: u.reduce(a, axis=1), (x,), order=1, atol=1e-2, rtol=1e-2)
    check_grads(lambda a: u.accumulate(a, axis=0), (x,), order=1, atol=1e-2, rtol=1e-2)


def test_grad_of_custom_reduce_value() -> None:
    u = jnp.frompyfunc(lambda x, y: x * y + y, 2, 1)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    # ((x0 * x1 + x1) * x2 + x2): d/dx0 = x1 * x2, d/dx1 = (x0 + 1) * x2, d/dx2 = x0*x1 + x1 + 1
    _close(numjax.grad(u.reduce)(x), [6.0, 6.0, 5.0])


# ---- errors ----------------------------------------------------------------------------------


def test_bad_nin_nout() -> None:
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        jnp.frompyfunc(operator.add, 1.5, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        jnp.ufunc(operator.add, 2, "1")  # type: ignore[arg-type]
    x = _x(4)
    unary = jnp.frompyfunc(jnp.sin, 1, 1)
    two_out = jnp.frompyfunc(lambda a, b: (a, b), 2, 2)
    for method, args in [("reduce", (x,)), ("accumulate", (x,)), ("outer", (x, x)),
                         ("reduceat", (x, np.array([0])))]:
        with pytest.raises(ValueError, match=f"^{method} only supported for binary ufuncs$"):
            getattr(unary, method)(*args)
        with pytest.raises(ValueError, match=f"^{method} only supported for functions "
                                             "returning a single value$"):
            getattr(two_out, method)(*args)


def test_at_requires_inplace_false() -> None:
    add, _ = UFUNCS["add"]
    with pytest.raises(NotImplementedError) as info:
        add.at(_x(4), 0, 1.0)
    assert str(info.value) == (
        "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
        "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
        ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")
    with pytest.raises(NotImplementedError):
        add.at(_x(4), 0, 1.0, inplace=True)


@pytest.mark.parametrize("name", ["add", "left_fold"])
def test_axis_out_of_range(name: str) -> None:
    u, _ = UFUNCS[name]
    x = _x(3, 4)
    msg = "^axis 2 is out of bounds for array of dimension 2$"
    with pytest.raises(ValueError, match=msg):
        u.reduce(x, axis=2)
    with pytest.raises(ValueError, match=msg):
        u.accumulate(x, axis=2)
    with pytest.raises(ValueError, match=msg):
        u.reduceat(x, np.array([0]), axis=2)
    with pytest.raises(ValueError, match="^axis -3 is out of bounds"):
        u.reduce(x, axis=-3)


def test_other_errors() -> None:
    u, _ = UFUNCS["left_fold"]
    no_identity, _ = UFUNCS["maximum"]
    x = _x(3, 4)
    with pytest.raises(NotImplementedError, match=r"^out argument of <jnp.ufunc '_left_fold'>$"):
        u(x, x, out=x)
    with pytest.raises(NotImplementedError, match=r"^where argument of <jnp.ufunc"):
        u(x, x, where=x > 0)
    with pytest.raises(NotImplementedError, match=r"^out argument of _left_fold.reduce\(\)$"):
        u.reduce(x, out=x)
    with pytest.raises(NotImplementedError, match="^tuple of axes$"):
        u.reduce(x, axis=(0, 1))
    with pytest.raises(ValueError, match="^where argument must have dtype=bool; got "
                                         "dtype=float32$"):
        u.reduce(x, initial=0.0, where=x)
    with pytest.raises(ValueError, match="^reduction operation 'maximum' does not have an "
                                         "identity, so to use a where mask"):
        no_identity.reduce(x, where=x > 0)
    with pytest.raises(ValueError, match="^zero-size array to reduction operation maximum"):
        no_identity.reduce(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match="^accumulate does not allow multiple axes$"):
        u.accumulate(x, axis=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^reduceat requires a single integer axis.$"):
        u.reduceat(x, np.array([0]), axis=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^reduceat: a must have 1 or more dimension, "
                                         r"got a.shape=\(\)$"):
        u.reduceat(np.float32(1), np.array([0]))
    with pytest.raises(ValueError, match=r"^reduceat: indices must be one-dimensional, got "
                                         r"indices.shape=\(1, 1\)$"):
        u.reduceat(x, np.array([[0]]))
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        u.reduce([1.0, 2.0])
    with pytest.raises(TypeError, match="non-tuple sequence for multidimensional indexing"):
        u.at(x[0], [0, 1], 1.0, inplace=False)


def test_docstring_examples() -> None:
    result = doctest.testmod(ufunc_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---- typed key arrays as operands of jnp's binary functions --------------------------------

_K0, _K1 = numjax.random.key(0), numjax.random.key(1)

# JAX 0.4.30's results: keys compare as keys (isclose/allclose as equality); arithmetic and a
# key beside a number raise its TypeError.
KEY_CASES: list[tuple[str, Callable[[], Any], Any]] = [
    ("equal", lambda: jnp.equal(_K0, _K0), True),
    ("not_equal", lambda: jnp.not_equal(_K0, _K1), True),
    ("isclose", lambda: jnp.isclose(_K0, _K1), False),
    ("allclose", lambda: jnp.allclose(_K0, _K1), False),
    ("allclose_same", lambda: jnp.allclose(_K0, _K0), True),
    ("equal_batched", lambda: jnp.equal(numjax.random.split(_K0), _K0), [False, False]),
    ("jit_not_equal", lambda: numjax.jit(jnp.not_equal)(_K0, _K1), True),
    ("vmap_equal", lambda: numjax.vmap(jnp.equal)(numjax.random.split(_K0),
                                                  numjax.random.split(_K0)), [True, True]),
]


@pytest.mark.parametrize("program,expected", [c[1:] for c in KEY_CASES],
                         ids=[c[0] for c in KEY_CASES])
def test_key_arrays_compare_in_jnp(program: Callable[[], Any], expected: Any) -> None:
    out = program()
    assert out.dtype == np.dtype(bool) and not out.weak_type
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("program,message", [
    (lambda: jnp.add(_K0, _K1), "add does not accept dtype key<fry> at position 0. Accepted "
     "dtypes at position 0 are subtypes of integer, complexfloating, floating."),
    (lambda: jnp.equal(_K0, 1), "equal does not accept dtypes key<fry>, int32."),
    (lambda: jnp.less(2.0, _K0), "less does not accept dtypes float32, key<fry>."),
], ids=["add", "equal_int", "less_float"])
def test_key_array_operand_errors(program: Callable[[], Any], message: str) -> None:
    with pytest.raises(TypeError) as info:
        program()
    assert str(info.value) == message

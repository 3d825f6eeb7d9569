"""Code from JAX's documentation on jit and control flow (the sharp bits, the FAQ, the jaxpr
guide, the lax API examples, the errors page, debugging flags) gives JAX 0.4.30's values, texts
and jaxprs, recorded here as data."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

# ---- float-to-integer conversion saturates (the sharp bits) --------------------------------

VALUES = [np.nan, np.inf, -np.inf, 1e20, -1e20, 300.7, -300.7, 255.9, -1.5, -0.7, 0.7, 2.5,
          127.5, 128.0, -129.0, 4294967296.0, 2147483648.0, -2147483649.0]
CONVERTED = {  # JAX 0.4.30, float32 VALUES.astype(dtype), eager and under jit alike
    "int8": [0, 127, -128, 127, -128, 127, -128, 127, -1, 0, 0, 2, 127, 127, -128, 127, 127,
             -128],
    "uint8": [0, 255, 0, 255, 0, 255, 0, 255, 0, 0, 0, 2, 127, 128, 0, 255, 255, 0],
    "int16": [0, 32767, -32768, 32767, -32768, 300, -300, 255, -1, 0, 0, 2, 127, 128, -129,
              32767, 32767, -32768],
    "uint16": [0, 65535, 0, 65535, 0, 300, 0, 255, 0, 0, 0, 2, 127, 128, 0, 65535, 65535, 0],
    "int32": [0, 2147483647, -2147483648, 2147483647, -2147483648, 300, -300, 255, -1, 0, 0, 2,
              127, 128, -129, 2147483647, 2147483647, -2147483648],
    "uint32": [0, 4294967295, 0, 4294967295, 0, 300, 0, 255, 0, 0, 0, 2, 127, 128, 0,
               4294967295, 2147483648, 0],
}


@pytest.mark.parametrize("dtype", sorted(CONVERTED))
def test_float_to_int_conversion_saturates(dtype: Any) -> None:
    x = jnp.array(VALUES, jnp.float32)
    assert x.astype(dtype).tolist() == CONVERTED[dtype]
    assert jax.jit(lambda v: v.astype(dtype))(x).tolist() == CONVERTED[dtype]
    assert x.astype(jnp.bfloat16).astype(jnp.uint8).tolist() == [
        0, 255, 0, 255, 0, 255, 0, 255, 0, 0, 0, 2, 127, 128, 0, 255, 255, 0]


def test_float_to_int_conversion_doc_examples() -> None:
    assert jnp.arange(254.0, 258.0).astype("uint8").tolist() == [254, 255, 255, 255]
    assert int(jnp.array(1e20).astype("int32")) == 2147483647
    assert int(lax.convert_element_type(1e10, jnp.int32)) == 2147483647
    assert int(lax.convert_element_type(float("nan"), jnp.int32)) == 0
    assert int(jnp.full((), 1e10, jnp.int8)) == 127
    assert jnp.array([7.9, -8.5, 100.0]).astype(jnp.int4).tolist() == [7, -8, 7]
    # Host conversions keep NumPy's casts: jnp.array of a NumPy array is converted on the host.
    assert jnp.array(np.array([300.5]), dtype=jnp.uint8).tolist() == [44]
    # Integer-to-integer conversions wrap, as in JAX.
    assert jnp.array([300, -300, 128]).astype(jnp.int8).tolist() == [44, -44, -128]


# ---- jit's algebraic rewrites of log (FAQ: "jit changes the exact numerics of outputs") -------

def test_log_of_exp_under_jit() -> None:
    def f(x: Any) -> Any:
        return jnp.log(jnp.exp(x))

    assert float(f(100.0)) == np.inf
    assert float(jax.jit(f)(100.0)) == 100.0
    assert jax.jit(f)(jnp.array([100.0, 1000.0, -1000.0])).tolist() == [100.0, 1000.0, -1000.0]
    # The exp's own value is unchanged when it is also an output.
    log_exp, exp = jax.jit(lambda x: (jnp.log(jnp.exp(x)), jnp.exp(x)))(100.0)
    assert (float(log_exp), float(exp)) == (100.0, np.inf)
    assert complex(jax.jit(f)(jnp.complex64(1 + 5j))) == 1 + 5j
    # Every computation is rewritten: loop bodies, branches, inlined jits.
    body = jax.jit(lambda x: lax.scan(lambda c, _: (f(c), None), x, None, length=2)[0])
    assert float(body(100.0)) == 100.0
    branch = jax.jit(lambda x: lax.cond(x > 0, f, lambda x: x, x))
    assert float(branch(100.0)) == 100.0
    assert float(jax.jit(lambda x: jnp.log(jax.jit(jnp.exp)(x)))(100.0)) == 100.0
    # exp2 compiles as exp(x * ln 2).
    assert np.allclose(jax.jit(lambda x: jnp.log(jnp.exp2(x)))(200.0), 138.62944)
    # A constant expression is folded first: log(exp(100.)) of constants stays inf.
    assert float(jax.jit(lambda: jnp.log(jnp.exp(jnp.float32(100.0))))()) == np.inf


def test_log_of_sqrt_rsqrt_pow_under_jit() -> None:
    x = jnp.float32(np.pi)
    half_log = 0.5 * jnp.log(x)  # JAX 0.4.30: jit(log(sqrt(pi))) is 0.5 * log(pi), 0.5723649
    assert jax.jit(lambda x: jnp.log(jnp.sqrt(x)))(x) == half_log
    assert jax.jit(lambda x: jnp.log(lax.rsqrt(x)))(x) == -half_log
    log_pow = jax.jit(lambda a, b: jnp.log(lax.pow(a, b)))
    cases = [  # (a, b, JAX 0.4.30 jit): b * log|a|, and 0 where b == 0
        (-2.0, 3.0, 2.0794415), (0.0, 0.0, 0.0), (np.inf, 0.0, 0.0), (np.nan, 0.0, 0.0),
        (1.0, np.inf, np.nan), (0.0, 2.0, -np.inf), (-8.0, 1 / 3, 0.6931472),
        (1e30, 3.0, 207.23267), (1e-30, 5.0, -345.38776), (2.0, np.nan, np.nan)]
    for a, b, expected in cases:
        np.testing.assert_allclose(log_pow(a, b), expected, rtol=1e-6)
    z = log_pow(jnp.complex64(-2), jnp.complex64(3))  # b * log(a) for complex a
    np.testing.assert_allclose(z, 2.0794415 + 9.424778j, rtol=1e-6)


@pytest.mark.parametrize("exponent,expected", [  # JAX 0.4.30: jit(log(x ** e)) at 1e30, -2
    (0.0, [0.0, 0.0]), (1.0, [69.07755, np.nan]), (2.0, [np.inf, 1.3862944]),
    (3.0, [np.inf, np.nan]), (4.0, [276.3102, 2.7725887]), (-1.0, [-69.07755, np.nan]),
    (-2.0, [-138.1551, -1.3862944]), (0.5, [34.538776, 0.3465736]),
    (1.5, [103.61633, 1.0397208])])
def test_log_of_power_by_constant_under_jit(exponent: Any, expected: Any) -> None:
    # Powers by 1, 2, 3 and -1 become products (or 1 / x) first, so their log is not rewritten.
    f = jax.jit(lambda x: jnp.log(x ** exponent))
    np.testing.assert_allclose([f(1e30), f(-2.0)], expected, rtol=1e-6)


# ---- jit drops operations with a neutral constant operand (XLA's algebraic simplifier) -------

_CINF = np.array([complex(np.inf, 0), complex(np.inf, np.inf)], np.complex64)
_ZERO = np.array([-0.0, 1.0], np.float32)
_NAN = complex(np.nan, np.nan)
NEUTRAL_OPERANDS = [  # (function, argument, JAX 0.4.30 eagerly, JAX 0.4.30 under jit)
    ("x * 1", lambda v: v * 1, _CINF, [complex(np.inf, np.nan), _NAN], _CINF),
    ("1 * x", lambda v: 1 * v, _CINF, [complex(np.inf, np.nan), _NAN], _CINF),
    ("x / 1", lambda v: v / 1, _CINF, [complex(np.inf, np.nan), _CINF[1]], _CINF),
    ("x * ones", lambda v: v * jnp.ones(2, jnp.complex64), _CINF,
     [complex(np.inf, np.nan), _NAN], _CINF),
    ("x[0] * ones", lambda v: v[0] * jnp.ones(2, jnp.complex64), _CINF,
     [complex(np.inf, np.nan)] * 2, [complex(np.inf, 0)] * 2),
    ("pow(x, x * 1)", lambda v: jnp.power(v, v * 1), _CINF, [_NAN, _NAN],
     [complex(np.inf, 0), _NAN]),
    ("x + 0", lambda v: v + 0, _ZERO, [0.0, 1.0], [-0.0, 1.0]),
    ("0 + x", lambda v: 0 + v, _ZERO, [0.0, 1.0], [-0.0, 1.0]),
    ("x + zeros", lambda v: v + jnp.zeros(2), _ZERO, [0.0, 1.0], [-0.0, 1.0]),
    ("0 - x", lambda v: 0 - v, _ZERO, [0.0, -1.0], [0.0, -1.0]),  # not an identity: kept
    # A loop body is a compiled computation even outside jit.
    ("scan body", lambda v: lax.scan(lambda c, _: (c + 0, None), v, None, length=2)[0], _ZERO,
     [-0.0, 1.0], [-0.0, 1.0]),
    ("fori_loop body", lambda v: lax.fori_loop(0, 2, lambda i, c: c + 0, v), _ZERO,
     [-0.0, 1.0], [-0.0, 1.0]),
]


@pytest.mark.parametrize("name,fn,x,eager,jitted", NEUTRAL_OPERANDS,
                         ids=[row[0] for row in NEUTRAL_OPERANDS])
def test_jit_drops_neutral_constant_operands(name: str, fn: Any, x: Any, eager: Any,
                                             jitted: Any) -> None:
    """Under jit `x * 1`, `x / 1` and `x + 0` are x, as XLA simplifies them; eagerly they are
    computed, so inf + 0j times 1 is inf + nan j and -0.0 + 0 is +0.0 (JAX 0.4.30 both ways)."""
    for f, expected in ((fn, eager), (jax.jit(fn), jitted)):
        with np.errstate(invalid="ignore"):
            out = np.asarray(f(jnp.asarray(x)))
        want = np.asarray(expected, x.dtype)
        np.testing.assert_array_equal(out, want)
        np.testing.assert_array_equal(np.signbit(out.real[want.real == 0]),
                                      np.signbit(want.real[want.real == 0]))


# ---- out-of-bounds indexing (the sharp bits) -------------------------------------------------

def test_out_of_bounds_static_index_clamps() -> None:
    x = jnp.arange(10.0)
    assert [float(x[i]) for i in (3, -3, 11, -11, 10, -10)] == [3, 7, 9, 0, 9, 0]
    assert int(jnp.arange(10)[11]) == 9
    m = jnp.arange(12.0).reshape(3, 4)
    assert m[5].tolist() == [8, 9, 10, 11]
    assert float(m[1, 9]) == 7
    assert m[5, 1:3].tolist() == [9, 10]
    assert m[-7, ::2].tolist() == [0, 2]
    assert jax.vmap(lambda v: v[11])(m).tolist() == [3, 7, 11]
    assert float(jax.jit(lambda x: x[11])(x)) == 9
    # The gather clamps but its transpose drops the out-of-bounds index, so the gradient is 0.
    assert jax.grad(lambda x: x[11])(x).tolist() == [0] * 10
    assert jax.grad(lambda x: x[3])(x).tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]


def test_gather_gradient_drops_out_of_bounds_indices() -> None:
    x = jnp.arange(10.0)
    idx = jnp.array([11, -11, -1, 3])
    assert x[idx].tolist() == [9, 0, 9, 3]
    dropped = [0, 0, 0, 1, 0, 0, 0, 0, 0, 1]  # JAX 0.4.30
    assert jax.grad(lambda x: x[idx].sum())(x).tolist() == dropped
    assert jax.grad(lambda x: x.at[idx].get(mode="promise_in_bounds").sum())(x).tolist() \
        == dropped
    assert jax.grad(lambda x: x.at[idx].get(mode="fill").sum())(x).tolist() == dropped
    assert jax.grad(lambda x: x.at[idx].get(mode="clip").sum())(x).tolist() == [
        1, 0, 0, 1, 0, 0, 0, 0, 0, 2]


# ---- control flow --------------------------------------------------------------------------

def test_fori_loop_under_disable_jit_keeps_python_ints() -> None:
    f = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x))
    with jax.disable_jit():
        out = f(0)
    assert type(out) is int and out == 3
    assert repr(f(0)) == "Array(3, dtype=int32, weak_type=True)"


C = np.array([1.0, 2.0], np.float32)

# JAX 0.4.30: array constants of loop bodies and branches are hoisted into operands (constants
# of the enclosing jaxpr).
WHILE_JAXPR = """\
{ lambda a:f32[2]; b:f32[2] c:i32[]. let
    _:i32[] _:i32[] d:f32[2] = while[
      body_jaxpr={ lambda ; e:f32[2] f:i32[] g:i32[] h:f32[2]. let
          i:i32[] = add f 1
          j:f32[2] = add h e
        in (i, g, j) }
      body_nconsts=1
      cond_jaxpr={ lambda ; k:i32[] l:i32[] m:f32[2]. let
          n:bool[] = lt k l
        in (n,) }
      cond_nconsts=0
    ] a 0 c b
  in (d,) }"""

SCAN_JAXPR = """\
{ lambda a:f32[2]; b:f32[2]. let
    c:f32[2] = scan[
      _split_transpose=False
      jaxpr={ lambda ; d:f32[2] e:f32[2]. let f:f32[2] = mul e d in (f,) }
      length=2
      linear=(False, False)
      num_carry=1
      num_consts=1
      reverse=False
      unroll=1
    ] a b
  in (c,) }"""

# JAX names the branch inputs standing for the other branch's constants `g_` and `l_`.
COND_JAXPR = """\
{ lambda a:f32[2] b:f32[2]; c:bool[] d:f32[2]. let
    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c
    f:f32[2] = cond[
      branches=(
        { lambda ; g_:f32[2] h:f32[2] i:f32[2]. let j:f32[2] = mul i h in (j,) }
        { lambda ; k:f32[2] l_:f32[2] m:f32[2]. let n:f32[2] = add m k in (n,) }
      )
      linear=(False, False, False)
    ] e d a b
  in (f,) }"""


def test_control_flow_constants_become_operands() -> None:
    fori = jax.make_jaxpr(lambda x, n: lax.fori_loop(
        0, n, lambda i, v: v + jnp.array([1.0, 2.0]), x))(jnp.ones(2), 3)
    assert str(fori) == WHILE_JAXPR
    scan = jax.make_jaxpr(lambda x: lax.scan(lambda v, _: (v * C, None), x, None, length=2))(
        jnp.ones(2))
    assert str(scan) == SCAN_JAXPR
    y = jnp.ones(2)
    # The true branch's constants come first; the branches are (false, true).
    cond = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda v: v + x, lambda v: v * C, y))(
        True, jnp.ones(2))
    assert str(cond) == COND_JAXPR
    assert lax.cond(True, lambda v: v + jnp.array([1.0, 2.0]), lambda v: v * C, y).tolist() \
        == [2.0, 3.0]


ASSOCIATIVE_SCAN_JAXPR = """\
{ lambda ; a:f32[4]. let
    b:f32[2] = slice[limit_indices=(3,) start_indices=(0,) strides=(2,)] a
    c:f32[2] = slice[limit_indices=(4,) start_indices=(1,) strides=(2,)] a
    d:f32[2] = add b c
    e:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(2,)] d
    f:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(2,)] d
    g:f32[1] = add e f
    h:f32[0] = slice[limit_indices=(0,) start_indices=(0,) strides=(1,)] g
    i:f32[0] = slice[limit_indices=(2,) start_indices=(2,) strides=(2,)] d
    j:f32[0] = add h i
    k:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] d
    l:f32[1] = concatenate[dimension=0] k j
    m:f32[2] = pad[padding_config=((0, 1, 1),)] l 0.0
    n:f32[2] = pad[padding_config=((1, 0, 1),)] g 0.0
    o:f32[2] = add m n
    p:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] o
    q:f32[1] = slice[limit_indices=(4,) start_indices=(2,) strides=(2,)] a
    r:f32[1] = add p q
    s:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] a
    t:f32[2] = concatenate[dimension=0] s r
    u:f32[4] = pad[padding_config=((0, 1, 1),)] t 0.0
    v:f32[4] = pad[padding_config=((1, 0, 1),)] o 0.0
    w:f32[4] = add u v
  in (w,) }"""


def test_associative_scan_jaxpr() -> None:
    jaxpr = jax.make_jaxpr(lambda x: lax.associative_scan(jnp.add, x))(jnp.arange(4.0))
    assert str(jaxpr) == ASSOCIATIVE_SCAN_JAXPR
    assert lax.associative_scan(jnp.add, jnp.arange(0, 4)).tolist() == [0, 1, 3, 6]


def test_slice_in_dim_has_unit_strides() -> None:
    x = jnp.arange(6.0)
    assert str(jax.make_jaxpr(lambda x: lax.slice_in_dim(x, 0, 2))(x)) == (
        "{ lambda ; a:f32[6]. let\n"
        "    b:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a\n"
        "  in (b,) }")
    assert "strides=None" in str(jax.make_jaxpr(lambda x: x[0:2])(x))


# ---- jax_log_compiles ----------------------------------------------------------------------

def test_log_compiles_eager_and_jit_steps(caplog: pytest.LogCaptureFixture) -> None:
    # JAX 0.4.30 (times elided), without the lines for its jitted jnp.multiply: an eager
    # operation compiles in a jit's four steps, and a Python scalar's conversion folded while
    # tracing f is no compile.
    expected = [
        "Finished tracing + transforming f for pjit in T sec",
        "Compiling f with global shapes and types [ShapedArray(float32[], weak_type=True)]. "
        "Argument mapping: [UnspecifiedValue].",
        "Finished jaxpr to NumPy source conversion jit(f) in T sec",
        "Finished compilation of jit(f) in T sec",
        "Finished tracing + transforming iota for pjit in T sec",
        "Compiling iota with global shapes and types []. Argument mapping: [].",
        "Finished jaxpr to NumPy source conversion jit(iota) in T sec",
        "Finished compilation of jit(iota) in T sec",
        "Finished tracing + transforming f for pjit in T sec",
        "Compiling f with global shapes and types [ShapedArray(float32[3])]. "
        "Argument mapping: [UnspecifiedValue].",
        "Finished jaxpr to NumPy source conversion jit(f) in T sec",
        "Finished compilation of jit(f) in T sec",
    ]

    @jax.jit
    def f(x: Any) -> Any:
        return x * 2

    jax.clear_caches()
    caplog.set_level(logging.WARNING)
    with jax.log_compiles(True):
        f(1.0)
        f(2.0)
        f(jnp.arange(3.0))
    got = [re.sub(r"in \S+ sec", "in T sec", r.getMessage()) for r in caplog.records]
    assert got == expected


# ---- error texts ---------------------------------------------------------------------------

def _origin(fun: Any, line: Any, arg: Any) -> Any:
    return (f"The error occurred while tracing the function {fun} at {__file__}:{line} for "
            f"jit. This concrete value was not available in Python because it depends on the "
            f"value of the argument {arg}.")


def test_tracer_item_and_tolist_errors() -> None:
    def item(x: Any) -> Any:
        return x.item()

    def tolist(x: Any) -> Any:
        return x.tolist()

    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.jit(item)(jnp.float32(1.0))
    line = item.__code__.co_firstlineno
    assert str(info.value) == (
        "Abstract tracer value encountered where concrete value is expected: traced array "
        "with shape float32[].\nThis occurred in the item() method of jax.Array\n"
        f"{_origin('item', line, 'x')}\n\n"
        "See https://jax.readthedocs.io/en/latest/errors.html"
        "#jax.errors.ConcretizationTypeError")
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.jit(tolist)(jnp.arange(2))
    origin = _origin("tolist", tolist.__code__.co_firstlineno, "x")
    assert str(info.value) == (
        "Abstract tracer value encountered where concrete value is expected: traced array "
        "with shape int32[2].\nThe tolist() method was called on traced array with shape "
        f"int32[2]..\n{origin}\n{origin}\n\n"
        "See https://jax.readthedocs.io/en/latest/errors.html"
        "#jax.errors.ConcretizationTypeError")
    assert jax.grad(lambda x: x * x.item())(3.0) == 3.0  # a concrete tracer has an item


def test_boolean_mask_and_nonzero_errors() -> None:
    with pytest.raises(jax.errors.NonConcreteBooleanIndexError,
                       match=re.escape("Array boolean indices must be concrete; got "
                                       "ShapedArray(bool[10])")):
        jax.jit(lambda x: x[x > 0])(jnp.arange(-5, 5))
    # The traced value JAX names is the count of nonzero elements, an int32 scalar.
    for fun in (lambda x: jnp.where(x < 0), lambda x: x[jnp.where(x > 1)].sum()):
        with pytest.raises(jax.errors.ConcretizationTypeError) as info:
            jax.jit(fun)(jnp.arange(4))
        assert str(info.value).startswith(
            "Abstract tracer value encountered where concrete value is expected: traced array "
            "with shape int32[].\nThe size argument of jnp.nonzero must be statically "
            "specified to use jnp.nonzero within JAX transformations.\n")


def test_traced_shape_errors() -> None:
    def example_fun(length: Any, val: Any) -> Any:
        return jnp.ones((length,)) * val

    with pytest.raises(TypeError) as info:
        jax.jit(example_fun)(10, 4)
    lines = str(info.value).splitlines()
    assert lines[0].startswith("Shapes must be 1D sequences of concrete values of integer "
                               "type, got (Traced<")
    assert lines[1:] == [
        "If using `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions.",
        _origin("example_fun", example_fun.__code__.co_firstlineno, "length")]

    def f(x: Any) -> Any:
        return x.reshape(jnp.array(x.shape).prod())

    with pytest.raises(TypeError) as info:
        jax.jit(f)(jnp.ones((2, 3)))
    lines = str(info.value).splitlines()
    assert re.match(r"Shapes must be 1D sequences of concrete values of integer type, got "
                    r"\[Traced<.*\]\.$", lines[0])
    assert lines[1] == ("If using `jit`, try using `static_argnums` or applying `jit` to "
                        "smaller subfunctions.")


def test_array_item_assignment_error() -> None:
    x = jnp.arange(10)
    with pytest.raises(TypeError) as info:
        x[0] = 10
    assert str(info.value) == (
        "'<class 'jaxlib.xla_extension.ArrayImpl'>' object does not support item assignment. "
        "JAX arrays are immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or "
        "another .at[] method: "
        "https://jax.readthedocs.io/en/latest/_autosummary/jax.numpy.ndarray.at.html")


# ---- transformed control flow (the jaxpr guide's higher-order primitives) ------------------

GRAD_COND_JAXPR = """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    _:f32[] d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = cos e; g:f32[] = sin e in (f, g) }
        { lambda ; h:f32[]. let i:f32[] = sin h; j:f32[] = cos h in (i, j) }
      )
      linear=(False,)
    ] c a
    k:f32[] = cond[
      branches=(
        { lambda ; l:f32[] m:f32[]. let
            n:f32[] = neg m
            o:f32[] = mul n l
          in (o,) }
        { lambda ; p:f32[] q:f32[]. let r:f32[] = mul q p in (r,) }
      )
      linear=(False, True)
    ] c d 1.0
  in (k,) }"""

GRAD_SCAN_JAXPR = """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[3] = scan[
      _split_transpose=False
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = cos c in (d, e) }
      length=3
      linear=(False,)
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] a
    f:f32[] = scan[
      _split_transpose=False
      jaxpr={ lambda ; g:f32[] h:f32[]. let i:f32[] = mul g h in (i,) }
      length=3
      linear=(True, False)
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0 b
  in (f,) }"""

VMAP_COND_JAXPR = """\
{ lambda ; a:bool[2] b:f32[2]. let
    c:i32[2] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:bool[2] = eq c 0
    e:f32[2] = stop_gradient b
    f:f32[2] = select_n d e b
    g:f32[2] = cos f
    h:bool[2] = eq c 1
    i:f32[2] = stop_gradient b
    j:f32[2] = select_n h i b
    k:f32[2] = sin j
    l:f32[2] = select_n c g k
  in (l,) }"""


def test_transformed_control_flow_jaxprs() -> None:
    # Under grad the branches' residuals share slots by type, and the cotangents are the
    # transposed cond's and scan's linear operands.
    cond = jax.make_jaxpr(jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)))(1.0)
    assert str(cond) == GRAD_COND_JAXPR
    scan = jax.make_jaxpr(jax.grad(
        lambda x: lax.scan(lambda c, _: (jnp.sin(c), None), x, None, length=3)[0]))(1.0)
    assert str(scan) == GRAD_SCAN_JAXPR
    # A batched predicate selects among the branches with the int32 index itself.
    vmapped = jax.make_jaxpr(jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x)))(
        jnp.array([True, False]), jnp.ones(2))
    assert str(vmapped) == VMAP_COND_JAXPR
    np.testing.assert_allclose(
        jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x))(jnp.array([True, False]),
                                                                jnp.ones(2)),
        [np.sin(1.0), np.cos(1.0)], rtol=1e-6)
    branches = [lambda x: x - 1, lambda x: x, lambda x: x + 1]
    assert jax.vmap(lambda i: lax.switch(i, branches, 10))(jnp.arange(-1, 4)).tolist() == [
        9, 9, 10, 11, 11]


# ---- jnp's integer and float division (JAX's formulas, not NumPy's) --------------------------

def test_floor_divide_and_remainder() -> None:
    a = jnp.array([1.0, -1.0, 7.0, -7.0, 0.5, 5.0, 1e30, 3.0])
    b = jnp.array([0.1, 0.1, 2.0, 2.0, -0.25, 0.0, 3.0, -np.inf])
    # JAX 0.4.30 (Python's float //: 1 // 0.1 is 9)
    np.testing.assert_array_equal(
        a // b, np.array([9, -10, 3, -4, -2, np.nan, 3.3333334e29, -1], np.float32))
    np.testing.assert_array_equal(jnp.divmod(a, b)[0], a // b)
    x = jnp.array([-3, -1, 0, 1, 2, 7])
    zero = jnp.zeros(6, jnp.int32)
    assert (x // zero).tolist() == [-2, -2, -1, -2, -2, -2]
    assert (x % zero).tolist() == [0] * 6
    assert jnp.fmod(x, zero).tolist() == [0] * 6
    d = jnp.array([2, -2, 3, -3, 1, -1])
    assert (x // d).tolist() == [-2, 0, 0, -1, 2, -7]
    assert (x % d).tolist() == [1, -1, 0, -2, 0, 0]
    u = jnp.array([0, 1, 5], jnp.uint32)
    assert (u // jnp.zeros_like(u)).tolist() == [4294967295] * 3
    assert (u % jnp.zeros_like(u)).tolist() == [0, 0, 0]


@pytest.mark.parametrize("name,fun,context", [
    ("sum", lambda x, a: jnp.sum(x, a), "The axis argument must be known statically."),
    ("min", lambda x, a: x.min(a), "The axis argument must be known statically."),
    ("mean", lambda x, a: jnp.mean(x, a), "The axis argument must be known statically."),
    ("any", lambda x, a: jnp.any(x, a), "The axis argument must be known statically."),
    ("var", lambda x, a: jnp.var(x, a), "The axis argument must be known statically."),
    ("cumsum", lambda x, a: jnp.cumsum(x, a), "The axis argument must be known statically."),
    ("flip", lambda x, a: jnp.flip(x, a), "The axis argument must be known statically."),
    ("expand_dims", lambda x, a: jnp.expand_dims(x, a),
     "expected a static index or sequence of indices."),
    ("squeeze", lambda x, a: jnp.squeeze(x, a),
     "expected a static index or sequence of indices.")])
def test_traced_axis_errors(name: str, fun: Any, context: Any) -> None:
    # The errors page's first example: a traced axis argument (JAX 0.4.30 texts).
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.jit(fun)(jnp.ones((2, 3)), 0)
    assert str(info.value).startswith(
        "Abstract tracer value encountered where concrete value is expected: traced array "
        f"with shape int32[].\n{context}\nThe error occurred while tracing the function ")


# ---- residuals of scan, and max's derivative (the checkpointing guide's scan over layers) ----

GRAD_SCAN_XS_JAXPR = """\
{ lambda ; a:f32[3]. let
    _:f32[] b:f32[3] = scan[
      _split_transpose=False
      jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          f:f32[] = mul e d
        in (f, e) }
      length=3
      linear=(False, False)
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 1.0 a
    _:f32[] g:f32[3] = scan[
      _split_transpose=False
      jaxpr={ lambda ; h:f32[] i:f32[] j:f32[]. let
          k:f32[] = mul j h
          l:f32[] = mul h i
          m:f32[] = convert_element_type[new_dtype=float32 weak_type=True] l
        in (m, k) }
      length=3
      linear=(True, False, False)
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0 a b
  in (g,) }"""

GRAD_MAX_JAXPR = """\
{ lambda ; a:f32[2]. let
    b:f32[2] = max a 0.0
    c:bool[2] = eq a b
    d:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 1.0
    e:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 0.0
    f:f32[2] = select_n c e d
    g:bool[2] = eq 0.0 b
    h:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 2.0
    i:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 1.0
    j:f32[2] = select_n g i h
    k:f32[2] = div f j
    _:f32[] = reduce_sum[axes=(0,)] b
    l:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] 1.0
    m:f32[2] = mul l k
  in (m,) }"""


def test_scan_residuals_forward_xs() -> None:
    # A residual that is an xs slice is not stacked again: the backward scan reads xs itself.
    jaxpr = jax.make_jaxpr(jax.grad(lambda w: lax.scan(lambda c, w: (c * w, None), 1.0, w)[0]))(
        jnp.ones(3))
    assert str(jaxpr) == GRAD_SCAN_XS_JAXPR
    np.testing.assert_allclose(
        jax.grad(lambda w: lax.scan(lambda c, w: (c * w, None), 1.0, w)[0])(
            jnp.array([2.0, 3.0, 4.0])), [12.0, 8.0, 6.0])

    # The guide's scan over layers, checkpointed: the weights and biases are not saved again.
    from numjax.ad_checkpoint import print_saved_residuals

    @jax.checkpoint
    def layer(x: Any, w_b: Any) -> Any:
        w, b = w_b
        return jnp.maximum(jnp.dot(x, w) + b, 0.0), None

    weights, biases = jnp.ones((2, 2, 2)), jnp.ones((2, 2))
    with contextlib.redirect_stdout(io.StringIO()) as out:
        print_saved_residuals(lambda w, b: lax.scan(layer, jnp.ones(2), (w, b))[0].sum(),
                              weights, biases)
    saved = [line.split(" from ")[0].split(" output of ")[0] for line in
             out.getvalue().splitlines()]
    # JAX 0.4.30: the arguments w and b, the initial carry, the carries of the scan.
    assert saved == ["f32[2,2,2]", "f32[2,2]", "f32[2]", "f32[2,2]"]


def test_max_min_derivative() -> None:
    # JAX's rule: (x == max ? 1 : 0) / (y == max ? 2 : 1), from the output.
    assert str(jax.make_jaxpr(jax.grad(lambda x: jnp.maximum(x, 0.0).sum()))(jnp.ones(2))) \
        == GRAD_MAX_JAXPR
    assert float(jax.grad(lambda x: jnp.maximum(x, 1.0))(1.0)) == 0.5
    assert float(jax.grad(lambda x: jnp.minimum(x, 1.0))(1.0)) == 0.5
    assert float(jax.grad(lambda x: jnp.maximum(x, jnp.nan))(1.0)) == 0.0

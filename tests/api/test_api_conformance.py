"""Behaviours JAX 0.4.30's api_test checks that the surface tests do not: what jvp hands back,
jaxpr printing, AOT options and error texts. JAX's recorded results are the data."""

from __future__ import annotations

import gc
import logging
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax


@numjax.custom_jvp
def _passthrough(x: Any) -> Any:
    return x


_passthrough.defjvp(lambda p, t: (p[0], t[0]))


@numjax.custom_jvp
def _symbolic(s: Any, d: Any) -> Any:
    return s + d


_symbolic.defjvp(lambda p, t: (_symbolic(*p), p[0] + 90), symbolic_zeros=True)


def _shown(x: Any) -> str:
    """An Array's repr; any other value's type and value (NumPy scalars' reprs differ between
    NumPy 1 and 2)."""
    if isinstance(x, numjax.Array):
        return repr(x)
    if isinstance(x, tuple):
        return "(" + ", ".join(map(_shown, x)) + ")"
    return f"{type(x).__name__} {x}"


# (name, function, primals, tangents, JAX 0.4.30's (primal out, tangent out)): a tangent that
# comes out of jvp untouched is the object that went in, a Python float stays a float.
JVP_PASSTHROUGH: list[tuple[str, Callable[..., Any], tuple[Any, ...], tuple[Any, ...],
                            tuple[str, str]]] = [
    ("identity", lambda x: x, (1.0,), (2.0,), ("float 1.0", "float 2.0")),
    ("identity np.float32", lambda x: x, (np.float32(1),), (np.float32(2),),
     ("float32 1.0", "float32 2.0")),
    ("identity complex", lambda x: x, (1j,), (2j,), ("complex 1j", "complex 2j")),
    ("pair", lambda x: (x, x), (1.0,), (2.0,),
     ("(float 1.0, float 1.0)", "(float 2.0, float 2.0)")),
    ("custom_jvp", _passthrough, (1.0,), (2.0,), ("float 1.0", "float 2.0")),
    ("custom_jvp symbolic zero", lambda d: _symbolic(1.0, d), (4.0,), (7.0,),
     ("float 5.0", "float 91.0")),
    ("jit identity", numjax.jit(lambda x: x), (1.0,), (2.0,),
     ("Array(1., dtype=float32, weak_type=True)", "Array(2., dtype=float32, weak_type=True)")),
]


@pytest.mark.parametrize("name, fun, primals, tangents, expected", JVP_PASSTHROUGH,
                         ids=[row[0] for row in JVP_PASSTHROUGH])
def test_jvp_returns_untouched_tangents_as_passed(name: str, fun: Callable[..., Any],
                                                  primals: tuple[Any, ...],
                                                  tangents: tuple[Any, ...],
                                                  expected: tuple[str, str]) -> None:
    primal_out, tangent_out = numjax.jvp(fun, primals, tangents)
    assert (_shown(primal_out), _shown(tangent_out)) == expected


# (jax_default_matmul_precision, explicit precision, JAX 0.4.30's printed precision param):
# a product given no precision takes the context's level when it is bound.
MATMUL_PRECISIONS: list[tuple[str | None, Any, str | None]] = [
    (None, None, None),
    ("bfloat16", None, "precision=(Precision.DEFAULT, Precision.DEFAULT)"),
    ("tensorfloat32", None, "precision=(Precision.HIGH, Precision.HIGH)"),
    ("float32", None, "precision=(Precision.HIGHEST, Precision.HIGHEST)"),
    ("tensorfloat32", lax.Precision.HIGHEST, "precision=(Precision.HIGHEST, Precision.HIGHEST)"),
    (None, lax.Precision.HIGH, "precision=(Precision.HIGH, Precision.HIGH)"),
]


# JAX 0.4.30: the context manager takes None and three names only; config.update takes any
# value, and a product then reads it as a lax.Precision (its names, or 0/1/2).
@pytest.mark.parametrize("value", ["highest", "default", "fastest", "F32_F32_F32", "bogus", 1])
def test_default_matmul_precision_context_takes_three_names(value: Any) -> None:
    with pytest.raises(ValueError) as info:
        with numjax.default_matmul_precision(value):
            pass
    assert str(info.value) == ("new enum value must be None or in ['bfloat16', 'tensorfloat32', "
                               f"'float32'], got {value} of type {type(value)}.")


@pytest.mark.parametrize("value, error", [
    ("highest", None), ("fastest", None), ("bfloat16_3x", None), (1, None),
    ("tensorfloat32_3x", "'tensorfloat32_3x' is not a valid Precision"),
    ("F16_F16_F32", "'F16_F16_F32' is not a valid Precision"),
    ("DEFAULT", "'DEFAULT' is not a valid Precision"),
])
def test_default_matmul_precision_update_is_read_by_products(value: Any, error: str | None
                                                             ) -> None:
    x = np.ones((2, 2), np.float32)
    previous = numjax.config.jax_default_matmul_precision
    numjax.config.update("jax_default_matmul_precision", value)
    try:
        for run in (lambda: jnp.dot(x, x), lambda: numjax.jit(jnp.dot)(x, x)):
            if error is None:
                assert np.asarray(run()).tolist() == [[2.0, 2.0], [2.0, 2.0]]
            else:
                with pytest.raises(ValueError) as info:
                    run()
                assert str(info.value).split("\n")[0] == error
    finally:
        numjax.config.update("jax_default_matmul_precision", previous)


@pytest.mark.parametrize("default, precision, expected", MATMUL_PRECISIONS)
@pytest.mark.parametrize("product", ["jnp.dot", "matmul", "lax.dot", "conv"])
def test_default_matmul_precision_is_the_equations_param(default: str | None, precision: Any,
                                                         expected: str | None,
                                                         product: str) -> None:
    x = jnp.zeros((2, 2))
    funs: dict[str, Callable[[Any, Any], Any]] = {
        "jnp.dot": lambda a, b: jnp.dot(a, b, precision=precision),
        "matmul": lambda a, b: jnp.matmul(a, b, precision=precision),
        "lax.dot": lambda a, b: lax.dot(a, b, precision=precision),
        "conv": lambda a, b: lax.conv(a[None, None], b[None, None], (1, 1), "SAME",
                                      precision=precision),
    }
    with numjax.default_matmul_precision(default):
        eqn = numjax.make_jaxpr(funs[product])(x, x).jaxpr.eqns[-1]
        text = str(numjax.make_jaxpr(funs[product])(x, x))
    shown = [line.strip() for line in text.splitlines() if "precision=" in line]
    # conv_general_dilated prints every param, a None precision too (as JAX's does).
    none = ["precision=None"] if product == "conv" else []
    assert shown == (none if expected is None else [expected])
    assert (eqn.params["precision"] is None) == (expected is None)


def test_make_jaxpr_names_its_wrapper() -> None:
    def foo(x: Any, y: Any, z: Any) -> Any:
        return x + y + z

    jfoo = numjax.make_jaxpr(foo)
    # JAX 0.4.30's values.
    assert jfoo.__name__ == "make_jaxpr(foo)"
    assert jfoo.__qualname__ == f"make_jaxpr({foo.__qualname__})"
    assert jfoo.__module__ == "jax"


def test_make_jaxpr_axis_env_binds_the_named_axes() -> None:
    text = str(numjax.make_jaxpr(lambda x: lax.psum(1, "i") * x + lax.psum(x, "i"),
                                 axis_env=[("i", 4)])(np.float32(2)))
    # JAX 0.4.30 prints (psum of a constant is the axis size):
    assert text == ("{ lambda ; a:f32[]. let\n"
                    "    b:f32[] = mul 4.0 a\n"
                    "    c:f32[] = psum[axes=('i',) axis_index_groups=None] a\n"
                    "    d:f32[] = add b c\n"
                    "  in (d,) }")
    with pytest.raises(NameError, match="unbound axis name: i"):
        numjax.make_jaxpr(lambda x: lax.psum(x, "i"))(2.0)


# (function, argument, JAX 0.4.30's jaxpr): a broadcast or conversion that changes nothing is
# not an equation of the traced program, even on a constant the wrapper cannot return as is.
IDENTITY_EQUATIONS: list[tuple[str, Callable[..., Any], tuple[Any, ...], str]] = [
    ("broadcast of a NumPy scalar", lambda: lax.broadcast(np.float32(3), ()), (),
     "{ lambda ; . let  in (3.0,) }"),
    ("broadcast_in_dim to its own shape", lambda x: lax.broadcast_in_dim(x, (), ()), (1.0,),
     "{ lambda ; a:f32[]. let  in (a,) }"),
    ("broadcast_in_dim of an array constant",
     lambda: lax.broadcast_in_dim(np.ones(2, np.float32), (2,), (0,)), (),
     "{ lambda a:f32[2]; . let  in (a,) }"),
    ("broadcast_in_dim that broadcasts", lambda x: lax.broadcast_in_dim(x, (2,), ()), (1.0,),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[2] = broadcast_in_dim[broadcast_dimensions=() shape=(2,)] a\n"
     "  in (b,) }"),
]


@pytest.mark.parametrize("name, fun, args, expected", IDENTITY_EQUATIONS,
                         ids=[row[0] for row in IDENTITY_EQUATIONS])
def test_identity_equations_are_not_staged(name: str, fun: Callable[..., Any],
                                           args: tuple[Any, ...], expected: str) -> None:
    assert str(numjax.make_jaxpr(fun)(*args)) == expected


def test_trace_lower_accepts_lowering_platforms() -> None:
    f = numjax.jit(lambda x: x * 2)
    # JAX lowers for the named platforms; every platform runs numjax's one program.
    lowered = f.trace(jnp.arange(8)).lower(lowering_platforms=("tpu",))
    assert lowered.compile()(jnp.arange(8)).tolist() == [0, 2, 4, 6, 8, 10, 12, 14]


_HINT = ("\n\nConsider using the `static_argnums` parameter for `jax.remat` or `jax.checkpoint`. "
         "See the `jax.checkpoint` docstring and its example involving `static_argnums`:\n"
         "https://jax.readthedocs.io/en/latest/_autosummary/jax.checkpoint.html\n")


def _line_of(fun: Callable[..., Any], offset: int) -> str:
    code = fun.__code__
    return f"{code.co_filename}:{code.co_firstlineno + offset}"


def test_concretization_of_a_value_made_from_constants_lists_its_operations() -> None:
    def f() -> None:
        assert jnp.add(1, 1) > 0

    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        numjax.jit(f)()
    # JAX 0.4.30's text (its jitted jnp.add passes both 1s as one constant: `add b b`).
    where, qualname = _line_of(f, 1), f.__qualname__
    assert str(info.value) == (
        "Attempted boolean conversion of traced array with shape bool[]..\n"
        f"The error occurred while tracing the function f at {_line_of(f, 0)} "
        "for jit. This value became a tracer due to JAX operations on these lines:\n\n"
        f"  operation a:i32[] = add b c\n    from line {where}:15 ({qualname})\n\n"
        f"  operation a:bool[] = gt b c\n    from line {where}:15 ({qualname})\n"
        "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
        "TracerBoolConversionError")


def test_concretization_lists_at_most_five_operations() -> None:
    @numjax.jit
    def f() -> None:
        assert sum(jnp.add(1, 1) for _ in range(6)) > 0

    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        f()
    message = str(info.value)
    assert message.count("  operation ") == 5
    assert "\n\n(Additional originating lines are not shown.)\nSee " in message


def test_checkpoint_concretization_error_suggests_static_argnums() -> None:
    def g(x: Any) -> Any:
        return lax.sin(x) if x > 0 else lax.cos(x)

    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        numjax.remat(g)(3.0)
    # JAX 0.4.30: the error (its type ConcretizationTypeError) names the checkpointed function
    # and ends with the hint.
    assert type(info.value) is numjax.errors.ConcretizationTypeError
    assert str(info.value) == (
        "Attempted boolean conversion of traced array with shape bool[]..\n"
        f"The error occurred while tracing the function g at {_line_of(g, 0)} "
        "for checkpoint. This concrete value was not available in Python because it depends "
        "on the value of the argument x.\n"
        "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
        "TracerBoolConversionError" + _HINT)


def test_inner_jit_concretization_error_inside_checkpoint_has_no_hint() -> None:
    @numjax.remat
    def g(x: Any) -> Any:
        numjax.jit(lambda: 0 if jnp.add(1, 1) else 0)()
        return lax.sin(x)

    with pytest.raises(numjax.errors.ConcretizationTypeError) as info:
        g(jnp.array(3.0))
    assert "for jit." in str(info.value)
    assert "static_argnums" not in str(info.value)


def test_source_positions_name_the_qualified_function() -> None:
    def f(x: Any) -> Any:
        return jnp.sin(jnp.sin(x))

    jaxpr = numjax.make_jaxpr(f)(1.0)
    # JAX 0.4.30 summarizes a frame as file:line:column (qualified name).
    assert str(jaxpr.eqns[0].source_info) == (
        f"{_line_of(f, 1)}:23 ({f.__qualname__})")


# (function, arguments, JAX 0.4.30's jaxpr): a jitted call's outputs that are its arguments are
# those arguments in the enclosing program, and the call keeps only what it computes.
FORWARDED_CALLS: list[tuple[str, Callable[..., Any], tuple[Any, ...], str]] = [
    ("constant", lambda: numjax.jit(lambda x: x)(3), (),
     "{ lambda ; . let\n"
     "    pjit[name=<lambda> jaxpr={ lambda ; a:i32[]. let  in () }] 3\n"
     "  in (3,) }"),
    ("argument", lambda y: numjax.jit(lambda x: x)(y), (3,),
     "{ lambda ; a:i32[]. let\n"
     "    pjit[name=<lambda> jaxpr={ lambda ; b:i32[]. let  in () }] a\n"
     "  in (a,) }"),
    ("some outputs", lambda x: numjax.jit(lambda a, b: (b, a * 2, a))(x, 1.0), (2.0,),
     "{ lambda ; a:f32[]. let\n"
     "    b:f32[] = pjit[\n"
     "      name=<lambda>\n"
     "      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c 2.0 in (e,) }\n"
     "    ] a 1.0\n"
     "  in (1.0, b, a) }"),
]


@pytest.mark.parametrize("name, fun, args, expected", FORWARDED_CALLS,
                         ids=[row[0] for row in FORWARDED_CALLS])
def test_jit_forwards_arguments_it_returns(name: str, fun: Callable[..., Any],
                                           args: tuple[Any, ...], expected: str) -> None:
    assert str(numjax.make_jaxpr(fun)(*args)) == expected


def test_forwarded_constant_stays_concrete() -> None:
    # JAX 0.4.30: 3 (the inner call hands back its Python int argument).
    assert numjax.jit(lambda: int(numjax.jit(lambda x: x)(3)))() == 3
    y, g = numjax.value_and_grad(lambda x: numjax.jit(lambda a: (a, a * a))(x)[1])(3.0)
    assert (float(y), float(g)) == (9.0, 6.0)


@pytest.mark.parametrize("multiple_results", [False, True])
def test_abstract_eval_result_must_match_multiple_results(multiple_results: bool) -> None:
    foo_p = numjax.core.Primitive("foo")
    foo_p.multiple_results = multiple_results
    foo_p.def_abstract_eval(lambda x: x if multiple_results else [x])
    foo_p.def_impl(lambda x: [x] if multiple_results else x)
    with pytest.raises(ValueError) as info:
        numjax.jit(lambda x: foo_p.bind(x))(1.0)
    # JAX 0.4.30's text.
    assert str(info.value) == ("foo.abstract_eval() method should return a tuple or a list if "
                               "foo.multiple_results is true. Otherwise it shouldn't.")


# (transformation of a function handing a tracer to NumPy, error, JAX 0.4.30's text): refused
# even when the tracer has a concrete value (a JVP tracer of a concrete primal).
TRACER_TO_NUMPY: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("grad np.sin", lambda: numjax.grad(lambda x: np.sin(x))(1.0),
     numjax.errors.TracerArrayConversionError,
     "The numpy.ndarray conversion method __array__() was called on traced array with shape "
     "float32[].\nSee https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
     "TracerArrayConversionError"),
    ("jvp np.exp", lambda: numjax.jvp(lambda x: np.exp(x), (1.0,), (1.0,)),
     numjax.errors.TracerArrayConversionError,
     "The numpy.ndarray conversion method __array__() was called on traced array with shape "
     "float32[].\nSee https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
     "TracerArrayConversionError"),
    ("grad of np.zeros(3) input", lambda: numjax.grad(lambda x: np.exp(x))(np.zeros(3)),
     numjax.errors.TracerArrayConversionError,
     "The numpy.ndarray conversion method __array__() was called on traced array with shape "
     "float32[3].\nSee https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
     "TracerArrayConversionError"),
    ("grad tolist", lambda: numjax.grad(lambda x: x.tolist() * x)(1.0),
     numjax.errors.ConcretizationTypeError,
     "Abstract tracer value encountered where concrete value is expected: traced array with "
     "shape float32[].\nThe tolist() method was called on traced array with shape float32[]..\n"
     "\nSee https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
     "ConcretizationTypeError"),
]


@pytest.mark.parametrize("name, call, error, message", TRACER_TO_NUMPY,
                         ids=[row[0] for row in TRACER_TO_NUMPY])
def test_tracers_never_convert_to_numpy(name: str, call: Callable[[], Any],
                                        error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    assert str(info.value) == message


def test_concrete_jvp_tracers_still_give_python_scalars() -> None:
    # JAX 0.4.30: int, bool and item() of a JVP tracer of a concrete value work.
    assert float(numjax.grad(lambda x: int(x) * x)(1.0)) == 1.0
    assert float(numjax.grad(lambda x: x if x > 0 else -x)(-1.0)) == -1.0
    assert float(numjax.grad(lambda x: x.item() * x)(2.0)) == 2.0


def test_escaped_tracer_details() -> None:
    saved = []

    def save(x: Any) -> Any:
        saved.append(x)
        return x

    def func1(x: Any) -> Any:
        numjax.grad(save)(0.0)
        return x + saved[-1]

    # JAX 0.4.30 adds a detail naming the levels.
    with pytest.raises(numjax.errors.UnexpectedTracerError,
                       match="(?s)Encountered an unexpected tracer.*context manager.Detail: "
                             "Can't lift level Traced<"):
        numjax.grad(func1)(2.0)
    with pytest.raises(numjax.errors.UnexpectedTracerError,
                       match="(?s)Encountered an unexpected tracer.*context manager.Detail: "
                             "Tracer from a higher level: Traced<"):
        numjax.grad(lambda x: x)(saved[-1])


def _closure_convert_counts(y: Any) -> tuple[list[int], Any]:
    counts = []
    c = jnp.float32(2.0) * y
    i = jnp.array(3) * 1

    def fn(x: Any) -> Any:
        return x * c + i + np.float32(5.0)

    converted, aux = numjax.closure_convert(fn, 1.0)
    counts.append(len(aux))
    return counts, converted(2.0, *aux)


# (transformation, JAX 0.4.30's number of hoisted constants, value): only values that may carry
# a tangent (floating tracers being staged or differentiated) are hoisted; concrete values,
# integers and batched concrete values stay closed over.
CLOSURE_CONVERT_COUNTS: list[tuple[str, Callable[[Any], Any], int, float]] = [
    ("eager", lambda g: g(1.0), 0, 12.0),
    ("grad", lambda g: numjax.grad(g)(1.0), 1, 4.0),
    ("jit", lambda g: numjax.jit(g)(1.0), 1, 12.0),
]


@pytest.mark.parametrize("name, transform, hoisted, value", CLOSURE_CONVERT_COUNTS,
                         ids=[row[0] for row in CLOSURE_CONVERT_COUNTS])
def test_closure_convert_hoists_only_perturbable_values(
        name: str, transform: Callable[[Any], Any], hoisted: int, value: float) -> None:
    seen: list[int] = []

    def g(y: Any) -> Any:
        counts, out = _closure_convert_counts(y)
        seen.extend(counts)
        return out

    assert float(transform(g)) == value
    assert seen == [hoisted]


def test_closure_convert_of_an_integer_staged_value_hoists_nothing() -> None:
    counts = []

    @numjax.jit
    def f() -> Any:
        x = jnp.array(1)
        converted, aux = numjax.closure_convert(lambda: x)
        counts.append(len(aux))
        return converted(*aux)

    assert int(f()) == 1
    assert counts == [0]  # JAX 0.4.30


def _branch_on_static(x: Any) -> Any:
    with numjax.ensure_compile_time_eval():
        positive = x > 0
    return (lax.sin(x), 3.0) if positive else (lax.cos(x), 4.0)


def test_compile_time_eval_of_a_static_jvp_tracer_stays_concrete() -> None:
    g = numjax.remat(_branch_on_static, static_argnums=(0,))
    # JAX 0.4.30: the comparison runs on the differentiated value's own trace, so it is
    # concrete inside the checkpointed function.
    assert np.allclose(float(numjax.grad(lambda x: g(x)[0])(2.0)), np.cos(2.0))
    assert np.allclose(float(numjax.grad(lambda x: g(x)[0])(-2.0)), -np.sin(-2.0))


def test_checkpoint_static_tracer_argument_under_warnings_as_errors() -> None:
    g = numjax.remat(_branch_on_static, static_argnums=(0,))
    # Hashing a tracer warns; as an error, the static argument is just not cached (as JAX's
    # WrapHashably treats any failure to hash).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.allclose(float(numjax.grad(lambda x: g(x)[0])(2.0)), np.cos(2.0))

    class Unhashable:
        def __init__(self, val: Any) -> None:
            self.val = val

        def __hash__(self) -> int:
            raise TypeError

    h = numjax.remat(lambda a: _branch_on_static(a.val), static_argnums=(0,))
    assert np.allclose(float(numjax.grad(lambda x: h(Unhashable(x))[0])(2.0)), np.cos(2.0))


def test_cond_branch_inputs_for_other_branches_constants_print_with_underscore() -> None:
    def f(x: Any) -> Any:
        return lax.cond(x >= 0.0, x + 1.0, lambda xt: xt + x, x + 2.0, lambda xf: xf - x)

    # JAX 0.4.30's text.
    assert str(numjax.make_jaxpr(f)(jnp.float32(3.0))) == """{ lambda ; a:f32[]. let
    b:bool[] = ge a 0.0
    c:f32[] = add a 1.0
    d:f32[] = add a 2.0
    e:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    f:f32[] = cond[
      branches=(
        { lambda ; g_:f32[] h:f32[] i:f32[] j:f32[]. let
            k:f32[] = sub j h
          in (k,) }
        { lambda ; l:f32[] m_:f32[] n:f32[] o:f32[]. let
            p:f32[] = add n l
          in (p,) }
      )
      linear=(False, False, False, False)
    ] e a a c d
  in (f,) }"""


def _sin_then_cos(x: Any) -> Any:
    return jnp.cos(jnp.sin(x).sum())


# (policy, JAX 0.4.30's record; {line} is the line of _sin_then_cos's body): what checkpoint
# keeps for the backward pass. A saved value is passed in, so what only it reads is not kept.
RESIDUAL_RECORDS: list[tuple[str, Any, str]] = [
    ("nothing saveable", None,
     "remat-decorated function saving inputs with shapes:\n  float32[3]\n"),
    ("everything saveable", lambda *_, **__: True,
     "remat-decorated function saving these intermediates:\n"
     "  float32[3] from output of cos from {file}:{line}:19 ({name})\n"
     "  float32[] from output of sin from {file}:{line}:11 ({name})\n"),
    ("cos saveable", lambda p, *_, **__: str(p) == "cos",
     "remat-decorated function saving inputs with shapes:\n  float32[3]\n"
     "and saving these intermediates:\n"
     "  float32[3] from output of cos from {file}:{line}:19 ({name})\n"),
]


@pytest.mark.parametrize("name, policy, expected", RESIDUAL_RECORDS,
                         ids=[row[0] for row in RESIDUAL_RECORDS])
def test_checkpoint_logs_its_residuals(name: str, policy: Any, expected: str,
                                       caplog: pytest.LogCaptureFixture) -> None:
    f = numjax.remat(_sin_then_cos, policy=policy)
    with caplog.at_level(logging.DEBUG, logger="numjax"):
        g = numjax.grad(f)(jnp.arange(3.0))
    records = [r.getMessage() for r in caplog.records if "remat-decorated" in r.getMessage()]
    code = _sin_then_cos.__code__
    assert records == [expected.format(file=code.co_filename, line=code.co_firstlineno + 1,
                                       name=_sin_then_cos.__qualname__)]
    x = np.arange(3.0)
    assert np.allclose(g, -np.sin(np.sin(x).sum()) * np.cos(x), rtol=1e-6)


def test_checkpoint_residuals_logged_as_warnings_when_asked(
        caplog: pytest.LogCaptureFixture) -> None:
    numjax.config.update("jax_log_checkpoint_residuals", True)
    try:
        with caplog.at_level(logging.WARNING, logger="numjax"):
            numjax.grad(numjax.remat(_sin_then_cos))(jnp.arange(3.0))
    finally:
        numjax.config.update("jax_log_checkpoint_residuals", False)
    assert [r.levelno for r in caplog.records if "remat-decorated" in r.getMessage()] == [
        logging.WARNING]


# (name, call with jax_enable_checks on, JAX 0.4.30's exception type): a primitive bound
# with an operand that is no valid JAX type fails the bind's assertion (carrying the
# operands) before any rule runs; jnp and jit check their arguments first, as without checks.
INVALID_OPERAND_CHECKS: list[tuple[str, Callable[[], Any], type[Exception]]] = [
    ("lax.add string", lambda: lax.add(jnp.array(7), np.array("hello")), AssertionError),
    ("lax.add string first", lambda: lax.add(np.array("hello"), jnp.array(7)),
     AssertionError),
    ("lax.sin string", lambda: lax.sin(np.array("hello")), AssertionError),
    ("lax.add object", lambda: lax.add(jnp.array(7), np.array(["hello"], dtype=object)),
     AssertionError),
    ("jnp.add string", lambda: jnp.add(jnp.array(7), np.array("hello")), TypeError),
    ("jit(lax.add) string", lambda: numjax.jit(lax.add)(jnp.array(7), np.array("hello")),
     TypeError),
]


@pytest.mark.parametrize("name, call, error", INVALID_OPERAND_CHECKS,
                         ids=[r[0] for r in INVALID_OPERAND_CHECKS])
def test_enable_checks_asserts_operands_are_jax_types(name: str, call: Callable[[], Any],
                                                      error: type[Exception]) -> None:
    with numjax.enable_checks(True):
        with pytest.raises(error) as info:
            call()
    if error is AssertionError:
        assert isinstance(info.value.args[0], tuple)
    with numjax.enable_checks(False), pytest.raises(
            TypeError, match="is not a valid JAX array type"):
        call()


# JAX 0.4.30's text: arguments with no array leaves (empty containers too) are no arguments.
@pytest.mark.parametrize("args, shown", [(({},), "({},)"), ((), "()"), (([], {}), "([], {})")])
def test_pmap_of_no_array_arguments(args: tuple[Any, ...], shown: str) -> None:
    message = ("pmap wrapped function must be passed at least one argument containing an "
               f"array, got empty *args={shown} and **kwargs={{}}")
    with pytest.raises(ValueError) as info:
        numjax.pmap(lambda *a: a)(*args)
    assert str(info.value) == message


def test_tokens() -> None:
    token = lax.create_token()
    assert isinstance(token, numjax.core.Token)
    assert isinstance(lax.create_token(123), numjax.core.Token)  # the argument is ignored
    # JAX 0.4.30: XlaRuntimeError (a RuntimeError) with this text.
    with pytest.raises(RuntimeError, match="^INVALID_ARGUMENT: Cannot convert a token-shape "
                       r"buffer to a numpy array\.$"):
        _ = token._buf._value
    assert isinstance(numjax.jit(lax.create_token)(1.0), numjax.core.Token)
    arr, out = numjax.jit(lambda a, t: (a, t))(jnp.ones(3), token)
    assert isinstance(arr, numjax.Array) and isinstance(out, numjax.core.Token)
    assert out is not token
    _, captured = numjax.jit(lambda x: (x + 2, token))(7)
    assert isinstance(captured, numjax.core.Token)
    assert isinstance(lax.after_all(token, token), numjax.core.Token)
    assert str(numjax.make_jaxpr(lambda t: lax.after_all(t, lax.create_token()))(token)) == (
        "{ lambda ; a:Tok. let b:Tok = create_token ; c:Tok = after_all a b in (c,) }")


def test_jitted_results_have_buffers_of_their_own() -> None:
    # JAX 0.4.30: an argument, a constant or a value returned twice comes back in a buffer of
    # its own (unsafe_buffer_pointer differs); a donated argument's buffer is the output's.
    x = jnp.array([1, 2, 3])
    y = numjax.jit(lambda x: x)(x)
    assert x.unsafe_buffer_pointer() != y.unsafe_buffer_pointer()
    z1, z2 = numjax.jit(lambda x: (x, x))(x)
    assert len({x.unsafe_buffer_pointer(), z1.unsafe_buffer_pointer(),
                z2.unsafe_buffer_pointer()}) == 3
    x1, x2 = jnp.array([1, 2]), jnp.array([2, 3])
    z1, z2, z3 = numjax.jit(lambda x, y: (y, 1, x))(x1, x2)
    assert z1.unsafe_buffer_pointer() != x2.unsafe_buffer_pointer()
    assert z3.unsafe_buffer_pointer() != x1.unsafe_buffer_pointer()
    assert int(z2) == 1
    np.testing.assert_array_equal(z1, x2)
    c = jnp.arange(4.0)
    f = numjax.jit(lambda: c)
    a, b = f(), f()
    assert len({a.unsafe_buffer_pointer(), b.unsafe_buffer_pointer(),
                c.unsafe_buffer_pointer()}) == 3
    d = jnp.ones(3)
    pointer = d.unsafe_buffer_pointer()
    e = numjax.jit(lambda v: v, donate_argnums=0)(d)
    assert e.unsafe_buffer_pointer() == pointer and d.is_deleted()


def test_after_all_takes_tokens_only() -> None:
    with pytest.raises(TypeError, match="^Arguments to after_all must be tokens$"):
        lax.after_all(lax.create_token(), jnp.ones(2))


@pytest.mark.parametrize("program", ["closure", "closure with rewrites"])
def test_jitted_function_drops_its_constants_with_it(program: str) -> None:
    # As in JAX 0.4.30: the closed-over array lives while the jitted function does, and goes
    # as soon as it is deleted (no reference cycle waits for the cycle collector).
    x = jnp.ones(10)
    f = (lambda x: lambda: x)(x) if program == "closure" else (lambda x: lambda: x / 2.0)(x)
    g = numjax.jit(f)
    ref = weakref.ref(x)
    del x
    f()
    g()
    g()
    del f
    assert ref() is not None
    g()
    gc.disable()  # the cycle collector must not be what frees it
    try:
        del g
        assert ref() is None
    finally:
        gc.enable()


def test_an_input_of_zero_tangent_reaches_the_function_as_given() -> None:
    """JAX 0.4.30 wraps no input whose tangent is symbolically zero: grad(allow_int=True) of an
    integer NumPy array hands the function that int64 array, so `x + 0.` is NumPy's float64,
    even under strict promotion (api_test's test_float0_reshape)."""
    seen = []

    def f(x: Any) -> Any:
        seen.append((type(x), x.dtype, type(x + 0.0)))
        return jnp.sum(x + 0.0)

    with numjax.numpy_dtype_promotion("strict"):
        g = numjax.grad(f, allow_int=True)(np.ones((2, 4), dtype=np.int64))
    assert seen == [(np.ndarray, np.dtype(np.int64), np.ndarray)]
    assert type(g) is np.ndarray and g.dtype == numjax.dtypes.float0 and g.shape == (2, 4)
    np.testing.assert_array_equal(g.reshape((4, 2)), np.zeros((4, 2), numjax.dtypes.float0))
    # jvp with a float0 tangent: the same (JAX 0.4.30: the primal is returned as given).
    x = np.arange(3)
    out, tangent = numjax.jvp(lambda v: v * 2, (x,), (np.zeros(3, numjax.dtypes.float0),))
    assert type(out) is np.ndarray and out.dtype == np.int64
    np.testing.assert_array_equal(out, [0, 2, 4])
    assert tangent.dtype == numjax.dtypes.float0

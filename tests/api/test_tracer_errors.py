"""Concretization errors name the traced function, its line and the arguments involved."""

from __future__ import annotations

import re
import sys
import threading
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import errors


def branchy(x: Any) -> Any:
    if x > 0:
        return x
    return -x


def _line(fn: Any) -> Any:
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}"


def test_bool_conversion_under_make_jaxpr() -> None:
    with pytest.raises(errors.TracerBoolConversionError) as info:
        jax.make_jaxpr(branchy)(1.0)
    assert isinstance(info.value, errors.ConcretizationTypeError)
    assert isinstance(info.value, TypeError)
    assert str(info.value) == (
        "Attempted boolean conversion of traced array with shape bool[]..\n"
        f"The error occurred while tracing the function branchy at {_line(branchy)} for "
        "make_jaxpr. This concrete value was not available in Python because it depends on the "
        "value of the argument x.\n"
        "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors."
        "TracerBoolConversionError")


def test_bool_conversion_works_under_grad_and_fails_under_vmap() -> None:
    assert float(jax.grad(branchy)(-2.0)) == -1.0
    with pytest.raises(errors.TracerBoolConversionError):
        jax.vmap(branchy)(jnp.ones(3))


def test_int_float_index_array_conversions() -> None:
    def as_int(x: Any, y: Any) -> Any:
        return int(x) + y

    with pytest.raises(errors.ConcretizationTypeError) as info:
        jax.make_jaxpr(as_int)(1, 2)
    assert "The problem arose with the `int` function." in str(info.value)
    assert "depends on the value of the argument x." in str(info.value)
    with pytest.raises(errors.TracerArrayConversionError, match="__array__"):
        jax.make_jaxpr(lambda x: np.asarray(x))(1.0)
    with pytest.raises(errors.TracerIntegerConversionError, match="__index__"):
        jax.make_jaxpr(lambda x: range(x))(3)
    with pytest.raises(errors.ConcretizationTypeError, match="`float` function"):
        jax.make_jaxpr(lambda x: float(x))(1.0)


def test_dependent_arguments_are_named() -> None:
    def f(a: Any, b: Any, c: Any) -> Any:
        return bool(a * c > 0)

    # JAX 0.4.30's wording for one, two and more arguments.
    cases = [(lambda a, b, c: bool(a > 0), "depends on the value of the argument a."),
             (f, "depends on the values of the arguments a and c."),
             (lambda a, b, c: bool(a * b * c > 0),
              "depends on the values of the arguments a, b, and c.")]
    for fn, message in cases:
        with pytest.raises(errors.TracerBoolConversionError) as info:
            jax.make_jaxpr(fn)(1.0, 2.0, 3.0)
        assert message in str(info.value)
    with pytest.raises(errors.TracerBoolConversionError) as info:
        jax.jit(lambda x, y: x if x > y else y)(1, 2)
    assert "on the values of the arguments x and y." in str(info.value)


def test_leaked_tracer_raises_unexpected_tracer_error() -> None:
    leaked = []

    def leak(x: Any) -> Any:
        leaked.append(x)
        return x

    jax.make_jaxpr(leak)(1.0)
    with pytest.raises(errors.UnexpectedTracerError, match="Encountered an unexpected tracer"):
        jnp.sin(leaked[0])


def test_trace_state_is_thread_local() -> None:
    results = []

    def other_thread() -> None:
        results.append(float(jnp.sin(1.0)))

    def f(x: Any) -> Any:
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        return x * 2

    jax.make_jaxpr(f)(1.0)
    assert results == [pytest.approx(np.sin(1.0))]


def test_a_tracer_hashes_by_identity_with_a_warning() -> None:
    # JAX 0.4.30 warns and hashes by id; a later release raises.
    seen = []

    def f(x: Any) -> Any:
        with pytest.warns(FutureWarning, match="Attempting to hash a tracer will lead to an "
                                               "error in a future JAX release"):
            seen.append(hash(x) == id(x))
        return x

    jax.jit(f)(1.0)
    jax.vmap(f)(jnp.ones(2))
    jax.grad(f)(1.0)
    assert seen == [True, True, True]


def test_item_assignment_on_a_tracer_names_its_type() -> None:
    with pytest.raises(TypeError, match=r"^'<class '.*Tracer'>' object does not support item "
                                        r"assignment\. JAX arrays are immutable\."):
        jax.jit(lambda x: x.__setitem__(0, 1.0))(jnp.ones(2))


def test_a_leaked_tracer_is_named_as_in_jax() -> None:
    saved = []
    jax.jit(lambda x: saved.append(x) or x)(jnp.ones(2))
    with pytest.raises(errors.UnexpectedTracerError,
                       match="value with type float32\\[2\\] wrapped in a DynamicJaxprTracer "
                             "to escape the scope of the transformation"):
        jnp.sin(saved[0])


@pytest.mark.parametrize("stage", [jax.make_jaxpr, jax.jit])
def test_a_python_int_output_out_of_int32_range_overflows(stage: Any) -> None:
    with pytest.raises(OverflowError, match="(?m)^Python int 1099511627776 too large to convert "
                                            "to int32$"):
        stage(lambda x: 2 ** 40)(1.0)


def test_check_tracer_leaks_is_the_checking_leaks_option() -> None:
    # JAX 0.4.30 has both names for the jax_check_tracer_leaks context manager.
    with jax.check_tracer_leaks(True):
        assert jax.config.jax_check_tracer_leaks
    with jax.checking_leaks(True):
        assert jax.config.jax_check_tracer_leaks
    assert not jax.config.jax_check_tracer_leaks


# ---- jax.checking_leaks ---------------------------------------------------------------------

LEAKED: list = []


def _leaky(x: Any) -> Any:
    LEAKED.append(x)
    return x * 2


@pytest.mark.parametrize("transform,arg,head,kind", [
    # JAX 0.4.30's first lines: the trace that ended with a tracer still reachable
    (jax.jit, 3, "Leaked trace MainTrace(1,DynamicJaxprTrace)",
     "Traced<ShapedArray(int32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>"),
    (jax.make_jaxpr, 1.0, "Leaked trace MainTrace(1,DynamicJaxprTrace)",
     "Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>"),
    (jax.grad, 1.0, "Leaked trace MainTrace(2,JVPTrace)",
     "Traced<ConcreteArray(1.0, dtype=float32, weak_type=True)>with<JVPTrace(level=2/0)> with"),
    (jax.vmap, jnp.ones(2), "Leaked trace MainTrace(1,BatchTrace)",
     "Traced<ShapedArray(float32[])>with<BatchTrace(level=1/0)> with"),
])
def test_checking_leaks_reports_a_tracer_kept_in_a_global(transform: Any, arg: Any, head: Any,
                                                          kind: Any) -> None:
    LEAKED.clear()
    with jax.checking_leaks(), pytest.raises(Exception) as info:
        transform(_leaky)(arg)
    call_line = sys._getframe().f_lineno - 1
    LEAKED.clear()
    assert type(info.value) is Exception
    lines = str(info.value).splitlines()
    assert lines[0] == f"{head}. Leaked tracer(s):" and lines[1] == "" and lines[2] == kind
    text = str(info.value)
    assert re.search(r"<list \d+>\[0\]", text)  # the chain keeping it alive
    if transform in (jax.jit, jax.make_jaxpr):
        # an argument tracer: made where the transformation was called
        assert f"This DynamicJaxprTracer was created on line {__file__}:{call_line}:" in text


def test_checking_leaks_names_the_line_of_a_leaked_intermediate_value() -> None:
    kept = []

    def f(x: Any) -> Any:
        y = jnp.sin(x)
        kept.append(y)
        return y

    with jax.checking_leaks(), pytest.raises(Exception) as info:
        jax.jit(f)(1.0)
    line = f.__code__.co_firstlineno + 1
    # JAX names the function by its qualified name (JAX 0.4.30: "... (test_x.<locals>.f)").
    where = f"{__file__}:{line}:12 ({f.__qualname__})"
    assert f"This DynamicJaxprTracer was created on line {where}" in str(info.value)
    assert "closed-over variable kept" in str(info.value) or "<list" in str(info.value)


def test_checking_leaks_passes_programs_that_keep_nothing() -> None:
    @jax.custom_jvp
    def g(x: Any) -> Any:
        return jnp.sin(x)

    g.defjvps(lambda t, ans, x: jnp.cos(x) * t)
    with jax.checking_leaks():
        assert int(jax.jit(lambda x: x * 2)(3)) == 6
        # custom rules close over their operands inside numjax's own structures: no leak
        assert float(jax.jit(jax.grad(lambda x: g(x) * x))(0.5)) == pytest.approx(
            float(np.sin(0.5) + 0.5 * np.cos(0.5)), rel=1e-6)
        assert jax.vmap(lambda x: x + 1)(jnp.ones(3)).shape == (3,)
    LEAKED.clear()
    assert float(jax.jit(_leaky)(1.0)) == 2.0  # off: no check
    LEAKED.clear()


# float() and complex() of a tracer refuse even a concrete value (a jvp over concrete primals):
# JAX 0.4.30 raises so that a Python float never silently drops a derivative. int(), bool(),
# indexing and .item() give the value.
CONVERSIONS = {
    "float": (lambda x: float(x) * x, True),
    "complex": (lambda x: complex(x) * x, True),
    "int": (lambda x: int(x) + x, False),
    "bool": (lambda x: bool(x > 0) * x, False),
    "item": (lambda x: x.item() * x, False),
}


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_python_conversions_under_grad_and_jvp(name: str) -> None:
    fun, refused = CONVERSIONS[name]
    for transform in (jax.grad, lambda f: (lambda x: jax.jvp(f, (x,), (1.0,)))):
        if refused:
            with pytest.raises(errors.ConcretizationTypeError,
                               match=f"The problem arose with the `{name}` function"):
                transform(fun)(1.0)
        else:
            transform(fun)(1.0)
    assert float(jax.grad(lambda x: x * 2.0)(1.0)) == 2.0


def test_a_python_tangent_passed_through_comes_back_as_an_array() -> None:
    _, t = jax.jvp(lambda x: int(x) + x, (1.0,), (1.0,))
    assert isinstance(t, jax.Array) and t.weak_type   # JAX: Array(1., weak_type=True)

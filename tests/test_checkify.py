"""jax.experimental.checkify (user checks): messages, first failing check, transformations.

Expected texts were recorded from JAX 0.4.30.
"""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax.experimental import checkify


def f(x):  # type: ignore[no-untyped-def]
    checkify.check(x > 0, "x must be positive, got {x}", x=x)
    return jnp.log(x)


def two_checks(x):  # type: ignore[no-untyped-def]
    checkify.check(x > 0, "first")
    checkify.check(x > 1, "second")
    return x


FAILED = "x must be positive, got -3.0 (`check` failed)"


@pytest.mark.parametrize(
    "run",
    [
        lambda x: checkify.checkify(f)(x),
        lambda x: numjax.jit(checkify.checkify(f))(x),
        lambda x: checkify.checkify(numjax.jit(f))(x),  # a check inside a jitted function
    ],
    ids=["eager", "jit_outside", "jit_inside"],
)
def test_failed_check_becomes_an_error_value(run) -> None:  # type: ignore[no-untyped-def]
    err, out = run(jnp.float32(-3.0))
    assert err.get() == FAILED and str(err) == f"Error({FAILED})"
    assert np.isnan(out)
    with pytest.raises(checkify.JaxRuntimeError) as info:
        err.throw()
    assert str(info.value) == FAILED and isinstance(info.value, ValueError)
    with pytest.raises(checkify.JaxRuntimeError, match="positive"):
        checkify.check_error(err)
    err, out = run(jnp.float32(2.0))
    assert err.get() is None and str(err) == "Error(None)"
    err.throw()
    np.testing.assert_allclose(out, np.log(np.float32(2.0)))


@pytest.mark.parametrize("x, message", [(0.5, "second (`check` failed)"),
                                        (-0.5, "first (`check` failed)"), (2.0, None)])
def test_first_failing_check_in_program_order(x: float, message: str | None) -> None:
    assert checkify.checkify(two_checks)(jnp.float32(x))[0].get() == message


def test_vmap_reports_each_mapped_index() -> None:
    err, out = numjax.vmap(checkify.checkify(f))(jnp.array([1.0, -2.0, -3.0]))
    assert err.get() == ("at mapped index 1: x must be positive, got -2.0 (`check` failed)\n"
                         "at mapped index 2: x must be positive, got -3.0 (`check` failed)")
    assert isinstance(err.get_exception(), checkify.BatchedError)
    err, _ = numjax.vmap(numjax.jit(checkify.checkify(f)))(jnp.array([-1.0, 2.0]))
    assert err.get() == "at mapped index 0: x must be positive, got -1.0 (`check` failed)"


def test_grad_through_checkify_and_nested_check_error() -> None:
    g = numjax.grad(lambda x: checkify.checkify(lambda y: jnp.sin(f(y)))(x)[1])(jnp.float32(1.0))
    np.testing.assert_allclose(g, 1.0, rtol=1e-6)  # cos(log 1) / 1

    def outer(x):  # type: ignore[no-untyped-def]
        err, out = checkify.checkify(f)(x)
        checkify.check_error(err)  # recorded again by an enclosing checkify; raised otherwise
        return out

    assert checkify.checkify(outer)(jnp.float32(-5.0))[0].get() == (
        "x must be positive, got -5.0 (`check` failed)")
    with pytest.raises(checkify.JaxRuntimeError, match="got -5.0"):
        outer(jnp.float32(-5.0))


def test_check_outside_checkify() -> None:
    checkify.check(jnp.bool_(True), "fine")
    with pytest.raises(checkify.JaxRuntimeError) as info:
        checkify.check(False, "eager {} {k}", jnp.int32(3), k=jnp.arange(2))
    assert str(info.value) == "eager 3 [0 1] (`check` failed)"
    with pytest.raises(ValueError) as staged:
        numjax.jit(lambda x: checkify.check(x > 0, "boom"))(1.0)
    assert str(staged.value) == (
        "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
        "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it "
        "through `checkify.checkify`.")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: checkify.check(jnp.array([True, False]), "m"),
         "check takes a scalar pred as argument, got [ True False]"),
        (lambda: checkify.check(jnp.float32(1), "m"),
         "check takes a scalar pred as argument, got 1.0"),
        (lambda: checkify.check(1, "m"), "check takes a scalar pred as argument, got 1"),
        (lambda: checkify.check(True, "m {}", 3),
         "Formatting arguments to checkify.check need to be PyTrees of arrays, but got 3 of type "
         "<class 'int'>."),
        (lambda: checkify.check_error(3),
         "check_error takes an Error as argument, got type <class 'int'> instead."),
    ],
)
def test_bad_arguments(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_error_categories() -> None:
    assert checkify.user_checks == frozenset({checkify.FailedCheckError})
    assert checkify.float_checks == checkify.nan_checks | checkify.div_checks
    assert checkify.all_checks == (checkify.user_checks | checkify.index_checks
                                   | checkify.float_checks)
    with pytest.raises(NotImplementedError, match="NaNError"):
        checkify.checkify(f, errors=checkify.nan_checks)


def test_check_in_a_loop_body_is_not_functionalized() -> None:
    # A deliberate difference (docs/differences.md): JAX threads the error through the scan
    # and reports 'neg (`check` failed)'; numjax's checkify records checks on its own trace.
    def body(c, x):  # type: ignore[no-untyped-def]
        checkify.check(x > 0, "neg")
        return c + x, None

    with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check"):
        checkify.checkify(lambda xs: numjax.lax.scan(body, 0.0, xs)[0])(jnp.array([1.0, -1.0]))


@pytest.mark.parametrize("transform", ["eager", "jit", "vmap"])
def test_formatting_arguments_stay_arrays(transform: str) -> None:
    # JAX 0.4.30 formats them as Arrays: a container's repr shows `Array(...)`.
    def f(x):  # type: ignore[no-untyped-def]
        checkify.check(jnp.all(x > 0), "bad {x} {y}", x={"a": x}, y=jnp.int32(3))
        return x

    g = checkify.checkify(f)
    if transform == "jit":
        g = numjax.jit(g)
    if transform == "vmap":
        err, _ = numjax.vmap(g)(jnp.array([[-1.0, 2.0], [1.0, 1.0]]))
        prefix = "at mapped index 0: "
    else:
        err, _ = g(jnp.array([-1.0, 2.0]))
        prefix = ""
    assert err.get() == (prefix + "bad {'a': Array([-1.,  2.], dtype=float32)} 3 "
                         "(`check` failed)")

"""jax.experimental.checkify: user and automatic checks, messages, first failing check, checks
inside control flow and transformations.

Expected texts were recorded from JAX 0.4.30.
"""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import checkify
from numjax.lib import xla_extension


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
    assert checkify.init_error.get() is None  # the empty error JAX exports


def _user(pred, msg, **kw):  # type: ignore[no-untyped-def]
    checkify.check(pred, msg, **kw)


OOB = "out-of-bounds indexing for array of shape "
# (name, function, enabled checks, arguments, JAX 0.4.30's err.get())
AUTOMATIC = [
    ("nan_sin", jnp.sin, checkify.nan_checks, (jnp.inf,), "nan generated by primitive: sin."),
    ("div_int", lambda x, y: x // y, checkify.div_checks, (jnp.int32(3), jnp.int32(0)),
     "division by zero"),
    ("div_float_zero", lambda x, y: x / y, checkify.float_checks,
     (jnp.ones(3), jnp.array([1.0, 0.0, 1.0])), "division by zero"),
    ("nan_div", lambda x, y: x / y, checkify.nan_checks,
     (jnp.array([jnp.inf]), jnp.array([jnp.inf])), "nan generated by primitive: div."),
    ("oob_gather", lambda x, i: x[i], checkify.index_checks, (jnp.arange(3.0), 5),
     OOB + "(3,): index 5 is out of bounds for axis 0 with size 3. "),
    ("oob_gather_neg", lambda x, i: x[i], checkify.index_checks, (jnp.ones((2, 3, 7)), -5),
     OOB + "(2, 3, 7): index -3 is out of bounds for axis 0 with size 2. "),
    ("oob_gather_2d", lambda x, i, j: x[i, :, j], checkify.index_checks,
     (jnp.ones((2, 3, 7)), 0, 9), OOB + "(2, 3, 7): index 9 is out of bounds for axis 2 with "
     "size 7. "),
    ("oob_set", lambda x, i: x.at[i].set(1.0), checkify.index_checks, (jnp.arange(3.0), 3),
     OOB + "(3,): index 3 is out of bounds for axis 0 with size 3. "),
    ("oob_add", lambda x, i: x.at[0, i].add(1.0), checkify.index_checks,
     (jnp.ones((2, 3, 7)), 100), OOB + "(2, 3, 7): index 100 is out of bounds for axis 1 with "
     "size 3. "),
    ("oob_dynamic_slice", lambda x, i: lax.dynamic_slice(x, (0, i, 0), (1, 1, 1)),
     checkify.index_checks, (jnp.ones((2, 3, 7)), -5),
     OOB + "(2, 3, 7): index -2 is out of bounds for axis 1 with size 3. "),
    ("oob_dynamic_update_slice",
     lambda x, i: lax.dynamic_update_slice(x, jnp.zeros((1, 1, 1)), (0, 1, i)),
     checkify.index_checks, (jnp.ones((2, 3, 7)), 8),
     OOB + "(2, 3, 7): index 8 is out of bounds for axis 2 with size 7. "),
    ("oob_before_nan", lambda x, i: x[i] * jnp.sin(x), checkify.automatic_checks,
     (jnp.array([0.0, 1.0, jnp.inf]), 5),
     OOB + "(3,): index 5 is out of bounds for axis 0 with size 3. "),
    ("no_error", lambda x, i: x[i] * jnp.sin(x), checkify.automatic_checks,
     (jnp.array([0.0, 1.0, 2.0]), 2), None),
    ("scan_body_check", lambda xs: lax.scan(
        lambda c, x: (_user(x > 0, "neg {x}", x=x), (c + x, None))[1], 0.0, xs)[0],
     checkify.user_checks, (jnp.array([1.0, -1.0, -2.0]),), "neg -1.0 (`check` failed)"),
    ("while_body_nan", lambda x: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1] * jnp.inf * c[0])), (0, x))[1],
     checkify.nan_checks, (1.0,), "nan generated by primitive: mul."),
    ("while_cond_check", lambda x: lax.while_loop(
        lambda c: (_user(c < 2, "cond {c}", c=c), c < 5)[1], lambda c: c + 1, x),
     checkify.user_checks, (0,), "cond 2 (`check` failed)"),
    ("cond_taken_branch", lambda p, x: lax.cond(p, lambda x: x[5], lambda x: jnp.sin(x[0]), x),
     checkify.automatic_checks, (True, jnp.arange(3.0)),
     OOB + "(3,): index 5 is out of bounds for axis 0 with size 3. "),
    ("cond_other_branch", lambda p, x: lax.cond(p, lambda x: x[5], lambda x: jnp.sin(x[0]),
                                                 x),
     checkify.automatic_checks, (False, jnp.array([jnp.inf])), "nan generated by primitive: sin."),
    ("inside_jit", numjax.jit(lambda x: jnp.log(x) * jnp.sin(x)), checkify.nan_checks,
     (jnp.inf,), "nan generated by primitive: sin."),
    ("user_check_not_enabled", lambda x: (_user(x < 0, "must be negative!"), x / 0)[1],
     checkify.div_checks, (jnp.float32(1.0),), "division by zero"),
    ("nothing_enabled", lambda x: (_user(x < 0, "must be negative!"), x / 0)[1], frozenset(),
     (jnp.float32(1.0),), None),
]


@pytest.mark.parametrize("how", ["eager", "jit"])
@pytest.mark.parametrize("name, fun, errors, args, want", AUTOMATIC,
                         ids=[r[0] for r in AUTOMATIC])
def test_automatic_and_control_flow_checks(how, name, fun, errors, args, want) -> None:  # type: ignore[no-untyped-def]
    checked = checkify.checkify(fun, errors=errors)
    if how == "jit":
        checked = numjax.jit(checked)
    err, _ = checked(*args)
    assert err.get() == want


def test_automatic_checks_under_vmap_and_grad() -> None:
    err, _ = numjax.vmap(checkify.checkify(lambda x: jnp.sin(x) / x,
                                           errors=checkify.float_checks))(
        jnp.array([1.0, 0.0, jnp.inf]))
    assert err.get() == ("at mapped index 1: division by zero\n"
                         "at mapped index 2: nan generated by primitive: sin.")
    # A check inside a vmap inside checkify reports the last failing index, as JAX does.
    err, _ = checkify.checkify(numjax.vmap(lambda x: (_user(x > 0, "pos {x}", x=x), x)[1]))(
        jnp.array([1.0, -2.0, -3.0]))
    assert err.get() == "pos -3.0 (`check` failed)"
    g = numjax.grad(lambda x: checkify.checkify(lambda y: jnp.sin(y) * y,
                                                errors=checkify.all_checks)(x)[1])(2.0)
    np.testing.assert_allclose(g, np.sin(2.0) + 2.0 * np.cos(2.0), rtol=1e-5)


def test_checkify_closes_over_its_arguments() -> None:
    # As JAX, f sees concrete arguments as they are: any Python value, Python control flow.
    assert checkify.checkify(lambda x: 1.0)("hi")[0].get() is None
    out = numjax.jit(checkify.checkify(lambda x: 1.0 if x else 0.0), static_argnums=0)(True)[1]
    assert out == 1.0


def test_debug_check() -> None:
    checkify.debug_check(False, "does nothing outside checkify")
    err, _ = checkify.checkify(lambda x: (checkify.debug_check(x < 0, "dbg"), x)[1])(1.0)
    assert err.get() == "dbg (`check` failed)"
    with pytest.raises(TypeError, match="debug_check takes a scalar pred as argument"):
        checkify.checkify(lambda x: checkify.debug_check(x != x, "{x}", x=x))(jnp.ones(5))


def test_custom_rules_are_kept() -> None:
    # The checks of a custom_jvp function run beside it; its derivative stays the rule's.
    @numjax.custom_jvp
    def g(x):  # type: ignore[no-untyped-def]
        return jnp.sin(x)

    g.defjvp(lambda p, t: (g(p[0]), 10.0 * t[0]))
    checked = checkify.checkify(g, errors=checkify.nan_checks)
    assert checked(jnp.float32(jnp.inf))[0].get() == "nan generated by primitive: sin."
    assert numjax.grad(lambda x: checked(x)[1])(jnp.float32(1.0)) == 10.0
    # JAX 0.4.30 has no checkify rule for checkpoint: its body runs unchecked (None).
    remat = checkify.checkify(numjax.checkpoint(jnp.log), errors=checkify.nan_checks)
    assert remat(jnp.float32(-1.0))[0].get() is None
    np.testing.assert_allclose(numjax.grad(lambda x: remat(x)[1])(jnp.float32(2.0)), 0.5)
    assert "checkpoint[" in str(numjax.make_jaxpr(lambda x: remat(x)[1])(jnp.float32(2.0)))


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


def test_checks_inside_pmap() -> None:
    # JAX 0.4.30: the per-device checks are functionalized too.
    g = checkify.checkify(numjax.pmap(lambda x: (_user(x > 0, "pos {x}", x=x), jnp.sin(x))[1]),
                          errors=checkify.all_checks)
    assert g(jnp.array([-1.0]))[0].get() == "pos -1.0 (`check` failed)"
    assert g(jnp.array([jnp.inf]))[0].get() == "nan generated by primitive: sin."
    assert g(jnp.array([1.0]))[0].get() is None


def test_unsafe_xla_runtime_errors_option() -> None:
    # JAX 0.4.30: with the option, a jitted check raises when it fails while the program runs:
    # XlaRuntimeError ending 'JaxRuntimeError: x needs to be positive (`check` failed)'.
    @numjax.jit
    def f(x):  # type: ignore[no-untyped-def]
        checkify.check(x > 0, "x needs to be positive")
        return x

    numjax.config.update("jax_experimental_unsafe_xla_runtime_errors", True)
    try:
        assert f(1.0) == 1.0
        with pytest.raises(xla_extension.XlaRuntimeError,
                           match=r"JaxRuntimeError: x needs to be positive \(`check` failed\)"):
            f(-1.0)
    finally:
        numjax.config.update("jax_experimental_unsafe_xla_runtime_errors", False)
    with pytest.raises(ValueError, match="not functionalized"):
        f(2.0)


def test_check_under_jvp() -> None:
    # The check reads primals only: inside checkify it is reported, outside it raises.
    g = lambda x: (_user(x > 0, "pos {x}", x=x), x * 2.0)[1]
    err, (y, t) = checkify.checkify(lambda x: numjax.jvp(g, (x,), (1.0,)))(jnp.float32(-1.0))
    assert err.get() == "pos -1.0 (`check` failed)" and (y, t) == (-2.0, 2.0)
    with pytest.raises(checkify.JaxRuntimeError, match="pos -1.0"):
        numjax.jvp(g, (jnp.float32(-1.0),), (jnp.float32(1.0),))


def _bounded_body(x):  # type: ignore[no-untyped-def]
    checkify.check(x < 5, "should never happen")
    return x + 1


# (name, vmapped while loop, errors): JAX 0.4.30's checkify refuses a while loop vmap
# batched over its predicate with this ValueError, whatever the checks inside and enabled.
BATCHED_WHILES = [
    ("user check in body", lambda x: lax.while_loop(lambda x: x < 5, _bounded_body, x),
     checkify.user_checks),
    ("no checks", lambda x: lax.while_loop(lambda x: x < 5, lambda x: x + 1, x),
     checkify.all_checks),
    ("float checks", lambda x: lax.while_loop(lambda x: x < 5, lambda x: x + 1, x),
     checkify.float_checks),
]


@pytest.mark.parametrize("name, fun, errors", BATCHED_WHILES, ids=[r[0] for r in BATCHED_WHILES])
def test_checkify_of_vmap_of_while_is_refused(name, fun, errors):  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        checkify.checkify(numjax.vmap(fun), errors=errors)(jnp.arange(5))
    assert str(info.value) == (
        "Checkify does not support batched while-loops (checkify-of-vmap-of-while). \n"
        "Hint: if possible, move the vmap to the outer level to get "
        "vmap-of-checkify-of-while.")
    # vmap of checkify (the hint's order), and a predicate vmap leaves unbatched, are checked.
    err, out = numjax.vmap(checkify.checkify(fun, errors=errors))(jnp.arange(5))
    np.testing.assert_array_equal(out, [5, 5, 5, 5, 5])
    assert err.get() is None
    err, out = checkify.checkify(numjax.vmap(
        lambda x: (x, lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0))[1]),
        errors=errors)(jnp.arange(5))
    np.testing.assert_array_equal(out, [3, 3, 3, 3, 3])

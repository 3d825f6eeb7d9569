"""custom_jvp / custom_vjp functions that close over tracers of enclosing transformations.

Every case below was run with JAX 0.4.30 (the recorded outcome is its value or its exception
type): the custom function is defined inside an outer transformation (jit, grad, vmap, jvp,
jacfwd, jacrev) over `c` and closes over `c`; it is then called, or transformed again (jit,
grad, vmap, jvp, vjp, linearize, grad of grad, jit of grad, vmap of grad) over its argument.
The rules are deliberately not the true derivatives (3 * c * t), so a value shows whether the
rule was used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax._src.interpreters.ad import CustomJVPException, CustomVJPException

CUSTOM_JVP_MSG = (
    "Detected differentiation of a custom_jvp function with respect to a closed-over value. "
    "That isn't supported because the custom JVP rule only specifies how to differentiate the "
    "custom_jvp function with respect to explicit input parameters. Try passing the "
    "closed-over value into the custom_jvp function as an argument, and adapting the "
    "custom_jvp rule.")
CUSTOM_VJP_MSG = (
    "Detected differentiation of a custom_vjp function with respect to a closed-over value. "
    "That isn't supported because the custom VJP rule only specifies how to differentiate the "
    "custom_vjp function with respect to explicit input parameters. Try passing the "
    "closed-over value into the custom_vjp function as an argument, and adapting the "
    "custom_vjp fwd and bwd rules.")
ERRORS = {
    "CustomJVPException": (CustomJVPException, CUSTOM_JVP_MSG),
    "CustomVJPException": (CustomVJPException, CUSTOM_VJP_MSG),
    "UnexpectedTracerError": (jax.errors.UnexpectedTracerError,
                              "Encountered an unexpected tracer."),
    "TypeError": (TypeError, "can't apply forward-mode autodiff (jvp) to a custom_vjp "
                             "function."),
}


def make_cjvp(c: Any) -> Any:
    @jax.custom_jvp
    def f(x: Any) -> Any:
        return jnp.sin(x) * c

    @f.defjvp
    def f_jvp(p: Any, t: Any) -> Any:
        (x,), (tx,) = p, t
        return f(x), 3.0 * c * tx

    return f


def make_cvjp(c: Any) -> Any:
    @jax.custom_vjp
    def f(x: Any) -> Any:
        return jnp.sin(x) * c

    f.defvjp(lambda x: (f(x), (x,)), lambda res, g: (3.0 * c * g,))
    return f


def make_cjvp_rule_only(c: Any) -> Any:
    @jax.custom_jvp
    def f(x: Any) -> Any:
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 3.0 * c * t[0]))
    return f


def make_cvjp_rule_only(c: Any) -> Any:
    @jax.custom_vjp
    def f(x: Any) -> Any:
        return jnp.sin(x)

    f.defvjp(lambda x: (f(x), None), lambda res, g: (3.0 * c * g,))
    return f


def make_cvjp_fwd_res(c: Any) -> Any:
    @jax.custom_vjp
    def f(x: Any) -> Any:
        return jnp.sin(x) * c

    f.defvjp(lambda x: (f(x), c * 3.0), lambda r, g: (r * g,))
    return f


OUTER = {
    "none": lambda h: h,
    "jit": lambda h: jax.jit(h),
    "grad": lambda h: jax.grad(lambda c: jnp.sum(h(c))),
    "vmap": lambda h: jax.vmap(h),
    "jvp": lambda h: (lambda c: jax.jvp(h, (c,), (jnp.ones_like(c),))),
    "jacfwd": lambda h: jax.jacfwd(h),
    "jacrev": lambda h: jax.jacrev(h),
}
INNER = {
    "call": lambda f: f,
    "jit": lambda f: jax.jit(f),
    "grad": lambda f: jax.grad(lambda x: jnp.sum(f(x))),
    "vmap": lambda f: jax.vmap(f),
    "jvp": lambda f: (lambda x: jax.jvp(f, (x,), (jnp.ones_like(x),))[1]),
    "vjp": lambda f: (lambda x: jax.vjp(f, x)[1](jnp.ones_like(x))[0]),
    "linearize": lambda f: (lambda x: jax.linearize(f, x)[1](jnp.ones_like(x))),
    "grad_grad": lambda f: jax.grad(jax.grad(lambda x: jnp.sum(f(x)))),
    "jit_grad": lambda f: jax.jit(jax.grad(lambda x: jnp.sum(f(x)))),
    "vmap_grad": lambda f: jax.vmap(jax.grad(lambda x: jnp.sum(f(x)))),
}


def check(fn: Any, expected: Any) -> None:
    if isinstance(expected, str):
        exc, msg = ERRORS[expected]
        with pytest.raises(exc) as info:
            fn()
        assert str(info.value).startswith(msg)
    else:
        out = fn()
        got = [np.asarray(a) for a in out] if isinstance(expected, tuple) else np.asarray(out)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


FACTS = [
    ('cjvp', 'none', 'call', 1.2884399890899658),
    ('cjvp', 'none', 'jit', 1.2884399890899658),
    ('cjvp', 'none', 'grad', 6.0),
    ('cjvp', 'none', 'vmap', [0.9588500261306763, 1.6829400062561035, 1.9949899911880493]),
    ('cjvp', 'none', 'jvp', 6.0),
    ('cjvp', 'none', 'vjp', 6.0),
    ('cjvp', 'none', 'linearize', 6.0),
    ('cjvp', 'none', 'grad_grad', 0.0),
    ('cjvp', 'none', 'jit_grad', 6.0),
    ('cjvp', 'none', 'vmap_grad', [6.0, 6.0, 6.0]),
    ('cjvp', 'jit', 'call', 1.2884399890899658),
    ('cjvp', 'jit', 'jit', 1.2884399890899658),
    ('cjvp', 'jit', 'grad', 6.0),
    ('cjvp', 'jit', 'vmap', [0.9588500261306763, 1.6829400062561035, 1.9949899911880493]),
    ('cjvp', 'jit', 'jvp', 6.0),
    ('cjvp', 'jit', 'vjp', 6.0),
    ('cjvp', 'jit', 'linearize', 6.0),
    ('cjvp', 'jit', 'grad_grad', 0.0),
    ('cjvp', 'jit', 'jit_grad', 6.0),
    ('cjvp', 'jit', 'vmap_grad', [6.0, 6.0, 6.0]),
    ('cjvp', 'grad', 'call', 'CustomJVPException'),
    ('cjvp', 'grad', 'jit', 'UnexpectedTracerError'),
    ('cjvp', 'grad', 'grad', 'CustomJVPException'),
    ('cjvp', 'grad', 'vmap', 'CustomJVPException'),
    ('cjvp', 'grad', 'jvp', 'CustomJVPException'),
    ('cjvp', 'grad', 'vjp', 'CustomJVPException'),
    ('cjvp', 'grad', 'linearize', 'CustomJVPException'),
    ('cjvp', 'grad', 'grad_grad', 'CustomJVPException'),
    ('cjvp', 'grad', 'jit_grad', 'UnexpectedTracerError'),
    ('cjvp', 'grad', 'vmap_grad', 'CustomJVPException'),
    ('cjvp', 'vmap', 'call', [1.2884399890899658, 1.9326499700546265]),
    ('cjvp', 'vmap', 'jit', [1.2884399890899658, 1.9326499700546265]),
    ('cjvp', 'vmap', 'grad', [6.0, 9.0]),
    ('cjvp', 'vmap', 'vmap',
     [[0.9588500261306763, 1.6829400062561035, 1.9949899911880493],
      [1.4382799863815308, 2.5244100093841553, 2.9924800395965576]]),
    ('cjvp', 'vmap', 'jvp', [6.0, 9.0]),
    ('cjvp', 'vmap', 'vjp', [6.0, 9.0]),
    ('cjvp', 'vmap', 'linearize', [6.0, 9.0]),
    ('cjvp', 'vmap', 'grad_grad', [0.0, 0.0]),
    ('cjvp', 'vmap', 'jit_grad', [6.0, 9.0]),
    ('cjvp', 'vmap', 'vmap_grad', [[6.0, 6.0, 6.0], [9.0, 9.0, 9.0]]),
    ('cjvp', 'jvp', 'call', 'CustomJVPException'),
    ('cjvp', 'jvp', 'jit', 'UnexpectedTracerError'),
    ('cjvp', 'jvp', 'grad', 'CustomJVPException'),
    ('cjvp', 'jvp', 'vmap', 'CustomJVPException'),
    ('cjvp', 'jvp', 'jvp', 'CustomJVPException'),
    ('cjvp', 'jvp', 'vjp', 'CustomJVPException'),
    ('cjvp', 'jvp', 'linearize', 'CustomJVPException'),
    ('cjvp', 'jvp', 'grad_grad', 'CustomJVPException'),
    ('cjvp', 'jvp', 'jit_grad', 'UnexpectedTracerError'),
    ('cjvp', 'jvp', 'vmap_grad', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'call', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'jit', 'UnexpectedTracerError'),
    ('cjvp', 'jacfwd', 'grad', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'vmap', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'jvp', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'vjp', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'linearize', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'grad_grad', 'CustomJVPException'),
    ('cjvp', 'jacfwd', 'jit_grad', 'UnexpectedTracerError'),
    ('cjvp', 'jacfwd', 'vmap_grad', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'call', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'jit', 'UnexpectedTracerError'),
    ('cjvp', 'jacrev', 'grad', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'vmap', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'jvp', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'vjp', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'linearize', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'grad_grad', 'CustomJVPException'),
    ('cjvp', 'jacrev', 'jit_grad', 'UnexpectedTracerError'),
    ('cjvp', 'jacrev', 'vmap_grad', 'CustomJVPException'),
    ('cvjp', 'none', 'call', 1.2884399890899658),
    ('cvjp', 'none', 'jit', 1.2884399890899658),
    ('cvjp', 'none', 'grad', 6.0),
    ('cvjp', 'none', 'vmap', [0.9588500261306763, 1.6829400062561035, 1.9949899911880493]),
    ('cvjp', 'none', 'jvp', 'TypeError'),
    ('cvjp', 'none', 'vjp', 6.0),
    ('cvjp', 'none', 'linearize', 'TypeError'),
    ('cvjp', 'none', 'grad_grad', 0.0),
    ('cvjp', 'none', 'jit_grad', 6.0),
    ('cvjp', 'none', 'vmap_grad', [6.0, 6.0, 6.0]),
    ('cvjp', 'jit', 'call', 1.2884399890899658),
    ('cvjp', 'jit', 'jit', 1.2884399890899658),
    ('cvjp', 'jit', 'grad', 6.0),
    ('cvjp', 'jit', 'vmap', [0.9588500261306763, 1.6829400062561035, 1.9949899911880493]),
    ('cvjp', 'jit', 'jvp', 'TypeError'),
    ('cvjp', 'jit', 'vjp', 6.0),
    ('cvjp', 'jit', 'linearize', 'TypeError'),
    ('cvjp', 'jit', 'grad_grad', 0.0),
    ('cvjp', 'jit', 'jit_grad', 6.0),
    ('cvjp', 'jit', 'vmap_grad', [6.0, 6.0, 6.0]),
    ('cvjp', 'grad', 'call', 'CustomVJPException'),
    ('cvjp', 'grad', 'jit', 'CustomVJPException'),
    ('cvjp', 'grad', 'grad', 'CustomVJPException'),
    ('cvjp', 'grad', 'vmap', 'CustomVJPException'),
    ('cvjp', 'grad', 'jvp', 'CustomVJPException'),
    ('cvjp', 'grad', 'vjp', 'CustomVJPException'),
    ('cvjp', 'grad', 'linearize', 'CustomVJPException'),
    ('cvjp', 'grad', 'grad_grad', 'CustomVJPException'),
    ('cvjp', 'grad', 'jit_grad', 'CustomVJPException'),
    ('cvjp', 'grad', 'vmap_grad', 'CustomVJPException'),
    ('cvjp', 'vmap', 'call', [1.2884399890899658, 1.9326499700546265]),
    ('cvjp', 'vmap', 'jit', [1.2884399890899658, 1.9326499700546265]),
    ('cvjp', 'vmap', 'grad', [6.0, 9.0]),
    ('cvjp', 'vmap', 'vmap',
     [[0.9588500261306763, 1.6829400062561035, 1.9949899911880493],
      [1.4382799863815308, 2.5244100093841553, 2.9924800395965576]]),
    ('cvjp', 'vmap', 'jvp', 'TypeError'),
    ('cvjp', 'vmap', 'vjp', [6.0, 9.0]),
    ('cvjp', 'vmap', 'linearize', 'TypeError'),
    ('cvjp', 'vmap', 'grad_grad', [0.0, 0.0]),
    ('cvjp', 'vmap', 'jit_grad', [6.0, 9.0]),
    ('cvjp', 'vmap', 'vmap_grad', [[6.0, 6.0, 6.0], [9.0, 9.0, 9.0]]),
    ('cvjp', 'jvp', 'call', 'CustomVJPException'),
    ('cvjp', 'jvp', 'jit', 'CustomVJPException'),
    ('cvjp', 'jvp', 'grad', 'CustomVJPException'),
    ('cvjp', 'jvp', 'vmap', 'CustomVJPException'),
    ('cvjp', 'jvp', 'jvp', 'CustomVJPException'),
    ('cvjp', 'jvp', 'vjp', 'CustomVJPException'),
    ('cvjp', 'jvp', 'linearize', 'CustomVJPException'),
    ('cvjp', 'jvp', 'grad_grad', 'CustomVJPException'),
    ('cvjp', 'jvp', 'jit_grad', 'CustomVJPException'),
    ('cvjp', 'jvp', 'vmap_grad', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'call', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'jit', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'grad', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'vmap', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'jvp', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'vjp', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'linearize', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'grad_grad', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'jit_grad', 'CustomVJPException'),
    ('cvjp', 'jacfwd', 'vmap_grad', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'call', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'jit', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'grad', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'vmap', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'jvp', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'vjp', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'linearize', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'grad_grad', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'jit_grad', 'CustomVJPException'),
    ('cvjp', 'jacrev', 'vmap_grad', 'CustomVJPException'),
]
MORE_FACTS = {
    'grad(jit(h)) cjvp closure+x0': 'UnexpectedTracerError',
    'grad(jit(h)) cjvp closure f(c)': 'UnexpectedTracerError',
    'grad(jit(h)) cvjp closure+x0': 'CustomVJPException',
    'grad(h) cjvp f(c)': 'CustomJVPException',
    'grad(h) cvjp f(c)': 'CustomVJPException',
    'grad_c grad_x rule-only cjvp': 3.0,
    'grad_c call rule-only cjvp': 1.0,
    'grad_c grad_x rule-only cvjp': 3.0,
    'grad_c call rule-only cvjp': 1.0,
    'grad_c stopgrad closure call': 1.0,
    'grad_c stopgrad closure grad_x': 1.0,
    'vmap(jit(h)) cjvp': [1.2884399890899658, 1.9326499700546265],
    'jit(vmap(h)) cjvp': [1.2884399890899658, 1.9326499700546265],
    'vmap(jit(grad)) cjvp': [6.0, 9.0],
    'vmap(jit(grad)) cvjp': [6.0, 9.0],
    'vmap(vmap(grad)) 2 closures cjvp': [[6.0, 12.0, 18.0], [9.0, 18.0, 27.0]],
    'vmap(vmap(grad)) 2 closures cvjp': [[6.0, 12.0, 18.0], [9.0, 18.0, 27.0]],
    'grad_x(vmap_c(f_c(x))) cjvp': 15.0,
    'grad_x(vmap_c(f_c(x))) cvjp': 'UnexpectedTracerError',
    'jvp_x(vmap_c(f_c(x))) cjvp': [6.0, 9.0],
    'grad_x(jit_c(f_c(x))) cjvp': 'UnexpectedTracerError',
    'grad_x(jit_c(f_c(x))) cvjp': 'UnexpectedTracerError',
    'grad_x(vmap_c(fwdres)) cvjp': 15.0,
    'vmap_c(grad_x(fwdres)) cvjp': [6.0, 9.0],
    'jit_c(grad_x(fwdres)) cvjp': 6.0,
    'vmap_x(grad_x(f_c)) jit c': [6.0, 6.0],
    'hessian_x jit c cjvp': 0.0,
    'jvp_c call cjvp sg': (1.2884399890899658, 0.0),
}


@pytest.mark.parametrize("kind,outer,inner,expected", FACTS,
                         ids=["-".join(r[:3]) for r in FACTS])
def test_closure_over_outer_tracer(kind: Any, outer: Any, inner: Any, expected: Any) -> None:
    maker = make_cjvp if kind == "cjvp" else make_cvjp

    def h(c: Any) -> Any:
        f = maker(c)
        x = jnp.array([0.5, 1.0, 1.5]) if inner in ("vmap", "vmap_grad") else jnp.float32(0.7)
        return INNER[inner](f)(x)

    c0 = jnp.array([2.0, 3.0]) if outer == "vmap" else jnp.float32(2.0)
    check(lambda: OUTER[outer](h)(c0), expected)


x0 = jnp.float32(0.7)
cs = jnp.array([2.0, 3.0])
MORE_CASES = {
    "grad(jit(h)) cjvp closure+x0": lambda: jax.grad(jax.jit(lambda c: make_cjvp(c)(x0)))(2.0),
    "grad(jit(h)) cjvp closure f(c)": lambda: jax.grad(jax.jit(lambda c: make_cjvp(c)(c)))(2.0),
    "grad(jit(h)) cvjp closure+x0": lambda: jax.grad(jax.jit(lambda c: make_cvjp(c)(x0)))(2.0),
    "grad(h) cjvp f(c)": lambda: jax.grad(lambda c: make_cjvp(c)(c))(2.0),
    "grad(h) cvjp f(c)": lambda: jax.grad(lambda c: make_cvjp(c)(c))(2.0),
    "grad_c grad_x rule-only cjvp":
        lambda: jax.grad(lambda c: jax.grad(make_cjvp_rule_only(c))(x0))(2.0),
    "grad_c call rule-only cjvp": lambda: jax.grad(lambda c: make_cjvp_rule_only(c)(x0) + c)(2.0),
    "grad_c grad_x rule-only cvjp":
        lambda: jax.grad(lambda c: jax.grad(make_cvjp_rule_only(c))(x0))(2.0),
    "grad_c call rule-only cvjp": lambda: jax.grad(lambda c: make_cvjp_rule_only(c)(x0) + c)(2.0),
    "grad_c stopgrad closure call":
        lambda: jax.grad(lambda c: make_cjvp(jax.lax.stop_gradient(c))(x0) + c)(2.0),
    "grad_c stopgrad closure grad_x":
        lambda: jax.grad(lambda c: jax.grad(make_cjvp(jax.lax.stop_gradient(c)))(x0) + c)(2.0),
    "vmap(jit(h)) cjvp": lambda: jax.vmap(jax.jit(lambda c: make_cjvp(c)(x0)))(cs),
    "jit(vmap(h)) cjvp": lambda: jax.jit(jax.vmap(lambda c: make_cjvp(c)(x0)))(cs),
    "vmap(jit(grad)) cjvp": lambda: jax.vmap(jax.jit(lambda c: jax.grad(make_cjvp(c))(x0)))(cs),
    "vmap(jit(grad)) cvjp": lambda: jax.vmap(jax.jit(lambda c: jax.grad(make_cvjp(c))(x0)))(cs),
    "vmap(vmap(grad)) 2 closures cjvp": lambda: jax.vmap(lambda a: jax.vmap(
        lambda b: jax.grad(make_cjvp(a * b))(x0))(jnp.array([1.0, 2.0, 3.0])))(cs),
    "vmap(vmap(grad)) 2 closures cvjp": lambda: jax.vmap(lambda a: jax.vmap(
        lambda b: jax.grad(make_cvjp(a * b))(x0))(jnp.array([1.0, 2.0, 3.0])))(cs),
    "grad_x(vmap_c(f_c(x))) cjvp":
        lambda: jax.grad(lambda x: jax.vmap(lambda c: make_cjvp(c)(x))(cs).sum())(x0),
    "grad_x(vmap_c(f_c(x))) cvjp":
        lambda: jax.grad(lambda x: jax.vmap(lambda c: make_cvjp(c)(x))(cs).sum())(x0),
    "jvp_x(vmap_c(f_c(x))) cjvp":
        lambda: jax.jvp(lambda x: jax.vmap(lambda c: make_cjvp(c)(x))(cs), (x0,), (1.0,))[1],
    "grad_x(jit_c(f_c(x))) cjvp":
        lambda: jax.grad(lambda x: jax.jit(lambda c: make_cjvp(c)(x))(2.0))(x0),
    "grad_x(jit_c(f_c(x))) cvjp":
        lambda: jax.grad(lambda x: jax.jit(lambda c: make_cvjp(c)(x))(2.0))(x0),
    "grad_x(vmap_c(fwdres)) cvjp":
        lambda: jax.grad(lambda x: jax.vmap(lambda c: make_cvjp_fwd_res(c)(x))(cs).sum())(x0),
    "vmap_c(grad_x(fwdres)) cvjp":
        lambda: jax.vmap(lambda c: jax.grad(make_cvjp_fwd_res(c))(x0))(cs),
    "jit_c(grad_x(fwdres)) cvjp":
        lambda: jax.jit(lambda c: jax.grad(make_cvjp_fwd_res(c))(x0))(2.0),
    "vmap_x(grad_x(f_c)) jit c": lambda: jax.jit(
        lambda c: jax.vmap(jax.grad(make_cjvp(c)))(jnp.array([0.1, 0.2])))(2.0),
    "hessian_x jit c cjvp": lambda: jax.jit(lambda c: jax.hessian(make_cjvp(c))(x0))(2.0),
    "jvp_c call cjvp sg":
        lambda: jax.jvp(lambda c: make_cjvp(jax.lax.stop_gradient(c))(x0), (2.0,), (1.0,)),
}


@pytest.mark.parametrize("name", list(MORE_FACTS))
def test_closure_more_compositions(name: str) -> None:
    check(MORE_CASES[name], MORE_FACTS[name])


def test_python_control_flow_still_runs_on_concrete_values_under_outer_traces() -> None:
    @jax.custom_jvp
    def f(x: Any) -> Any:
        return jnp.sin(x) if x > 0 else jnp.cos(x)

    f.defjvp(lambda p, t: (f(p[0]), 5.0 * t[0]))
    # Outer traces that own neither the argument nor a closed-over value are skipped.
    assert float(jax.grad(lambda c: c * f(1.0))(2.0)) == pytest.approx(np.sin(1.0), rel=1e-6)
    np.testing.assert_allclose(jax.vmap(lambda c: c * jax.grad(f)(1.0))(cs), [10.0, 15.0])


def test_custom_vjp_tracer_in_nondiff_argnums_is_jaxs_error() -> None:
    from functools import partial

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(c: Any, x: Any) -> Any:
        return c * x

    f.defvjp(lambda c, x: (f(c, x), None), lambda c, r, g: (g,))
    with pytest.raises(jax.errors.UnexpectedTracerError,
                       match="Found a JAX Tracer object passed as an argument to a custom_vjp "
                             "function in a position indicated by nondiff_argnums as "
                             "non-differentiable."):
        jax.jit(lambda c: f(c, 1.0))(2.0)

"""custom_jvp / custom_vjp (examples in the spirit of JAX's "Custom derivative rules" tutorial,
written anew), Jacobians and linear_transpose."""

import functools
import re

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp


@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


def test_custom_jvp_fixes_numerical_instability():
    assert float(jax.grad(log1pexp)(100.0)) == 1.0
    np.testing.assert_allclose(jax.vmap(jax.grad(log1pexp))(jnp.array([0.0, 2.0, 100.0])),
                               [0.5, 1 - 1 / (1 + np.exp(2.0)), 1.0], rtol=1e-6)
    assert float(jax.jit(jax.grad(log1pexp))(3.0)) == pytest.approx(1 - 1 / (1 + np.exp(3.0)))
    primal, tangent = jax.jvp(log1pexp, (3.0,), (2.0,))
    assert float(tangent) == pytest.approx(2 * (1 - 1 / (1 + np.exp(3.0))), rel=1e-6)


def test_custom_jvp_python_control_flow_and_higher_order():
    @jax.custom_jvp
    def f(x):
        if x > 0:
            return jnp.sin(x)
        return jnp.cos(x)

    f.defjvps(lambda t, ans, x: jnp.cos(x) * t if x > 0 else -jnp.sin(x) * t)
    assert float(jax.grad(f)(1.0)) == pytest.approx(np.cos(1.0), rel=1e-6)
    assert float(jax.grad(f)(-1.0)) == pytest.approx(np.sin(1.0), rel=1e-6)

    @jax.custom_jvp
    def cube(x):
        return x ** 3

    cube.defjvp(lambda p, t: (cube(p[0]), 3.0 * p[0] ** 2 * t[0]))
    assert float(jax.grad(jax.grad(cube))(2.0)) == pytest.approx(12.0)


def test_custom_jvp_nondiff_argnums_and_errors():
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(f, x), 7.0 * t

    assert float(jax.grad(app, 1)(jnp.sin, 1.0)) == 7.0

    @jax.custom_jvp
    def bad(x):
        return x

    bad.defjvp(lambda p, t: (p[0], jnp.ones(3)))
    # JAX 0.4.30's text, the same under jvp, grad and jit.
    msg = ("Custom JVP rule must produce primal and tangent outputs with equal shapes and "
           "dtypes, but got float32[] and float32[3] respectively.")
    for fn in (lambda: jax.jvp(bad, (1.0,), (1.0,)), lambda: jax.grad(bad)(1.0),
               lambda: jax.jit(lambda x: jax.jvp(bad, (x,), (1.0,)))(1.0)):
        with pytest.raises(TypeError) as info:
            fn()
        assert str(info.value) == msg


@jax.custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def test_custom_vjp_clip_gradient():
    f = lambda x: clip_gradient(-0.5, 0.5, jnp.sin(x) * 10.0)
    assert float(f(1.0)) == pytest.approx(np.sin(1.0) * 10)
    assert float(jax.grad(f)(1.0)) == pytest.approx(0.5 * np.cos(1.0) * 10, rel=1e-6)
    xs = jnp.array([0.0, 1.0, 3.1])
    expected = [float(jax.grad(f)(x)) for x in xs]
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(f)(x).sum())(xs), expected,
                               rtol=1e-6)


def test_custom_vjp_pytree_residuals_and_jvp_error():
    @jax.custom_vjp
    def f(d):
        return d["a"] * d["b"]

    f.defvjp(lambda d: (f(d), {"saved": (d["a"], d["b"])}),
             lambda res, g: ({"a": res["saved"][1] * g * 2, "b": res["saved"][0] * g},))
    g = jax.grad(f)({"a": 2.0, "b": 3.0})
    assert float(g["a"]) == 6.0 and float(g["b"]) == 2.0
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function\."):
        jax.jvp(f, ({"a": 2.0, "b": 3.0},), ({"a": 1.0, "b": 1.0},))


def test_jacobians_and_hessian():
    f = lambda x: jnp.sin(x) * x[::-1]
    x = jnp.array([1.0, 2.0, 3.0])
    expected = np.diag(np.cos([1.0, 2.0, 3.0]) * [3.0, 2.0, 1.0]) + np.fliplr(
        np.diag(np.sin([1.0, 2.0, 3.0])[::-1])) * (1 - np.eye(3)[::-1] * 0)
    expected = np.zeros((3, 3))
    for i in range(3):
        expected[i, i] += np.cos(x[i]) * x[2 - i]
        expected[i, 2 - i] += np.sin(x[i])
    np.testing.assert_allclose(jax.jacfwd(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jacrev(f)(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(lambda x: jnp.sum(x ** 3))(x), np.diag(6 * x),
                               rtol=1e-6)
    g = lambda d: {"o": d["a"] * d["b"].sum()}
    jf = jax.jacfwd(g)({"a": jnp.ones(2), "b": jnp.ones(3)})
    jr = jax.jacrev(g)({"a": jnp.ones(2), "b": jnp.ones(3)})
    for j in (jf, jr):
        np.testing.assert_allclose(j["o"]["a"], 3 * np.eye(2))
        np.testing.assert_allclose(j["o"]["b"], np.ones((2, 3)))
    np.testing.assert_allclose(jax.jacrev(jax.jacfwd(lambda x: jnp.sum(jnp.tanh(x) ** 2)))(x),
                               jax.hessian(lambda x: jnp.sum(jnp.tanh(x) ** 2))(x), rtol=1e-5)


def test_linear_transpose():
    f_t = jax.linear_transpose(lambda x, y: 2.0 * x + y.sum(), 1.0, jnp.ones(3))
    ct_x, ct_y = f_t(3.0)
    assert float(ct_x) == 6.0
    np.testing.assert_allclose(ct_y, [3.0, 3.0, 3.0])


def test_custom_jvp_nondiff_argnums_accept_tracers_as_constants():
    # JAX 0.4.30: tracers in nondiff_argnums of a custom_jvp are stop_gradient'ed constants.
    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def f(c, x):
        return c * jnp.sin(x)

    @f.defjvp
    def f_jvp(c, p, t):
        return f(c, p[0]), c * 7.0 * t[0]

    assert float(jax.jit(lambda c: jax.grad(lambda x: f(c, x))(0.5))(2.0)) == 14.0
    np.testing.assert_allclose(
        jax.vmap(lambda c: jax.grad(lambda x: f(c, x))(0.5))(jnp.array([2.0, 3.0])), [14, 21])
    assert float(jax.grad(lambda c: f(c, 0.5))(2.0)) == 0.0
    assert float(jax.grad(lambda c: jax.grad(lambda x: f(c, x))(0.5))(2.0)) == 0.0


# ---- symbolic zeros (values and what the rules saw, recorded from JAX 0.4.30) --------------

def _symbolic_jvp_function(log):
    from numjax.custom_derivatives import SymbolicZero

    @jax.custom_jvp
    def f(x, y):
        return x * jnp.sin(y)

    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        log.append((type(tx) is SymbolicZero, type(ty) is SymbolicZero))
        out = f(x, y)
        t = 0.0
        if type(tx) is not SymbolicZero:
            t = t + tx * 10.0
        if type(ty) is not SymbolicZero:
            t = t + ty * 100.0
        return out, t * jnp.ones_like(out)

    f.defjvp(f_jvp, symbolic_zeros=True)
    return f


SZ_JVP_CASES = [
    # name, function of f, value, [(tx is zero, ty is zero) per rule call]
    ("jvp both", lambda f: jax.jvp(f, (2.0, 0.5), (1.0, 1.0))[1], 110.0, [(False, False)]),
    ("grad0", lambda f: jax.grad(f)(2.0, 0.5), 10.0, [(False, True)]),
    ("grad1", lambda f: jax.grad(f, 1)(2.0, 0.5), 100.0, [(True, False)]),
    ("grad01", lambda f: jax.grad(f, (0, 1))(2.0, 0.5), (10.0, 100.0), [(False, False)]),
    ("jit grad0", lambda f: jax.jit(jax.grad(f))(2.0, 0.5), 10.0, [(False, True)]),
    ("vmap grad0", lambda f: jax.vmap(jax.grad(f))(jnp.array([1.0, 2.0]),
                                                     jnp.array([0.1, 0.2])),
     [10.0, 10.0], [(False, True)]),
    ("vmap grad0 unbatched y", lambda f: jax.vmap(jax.grad(f), (0, None))(
        jnp.array([1.0, 2.0]), 0.3), [10.0, 10.0], [(False, True)]),
    ("grad of vmap", lambda f: jax.grad(lambda a: jax.vmap(f, (None, 0))(
        a, jnp.array([0.1, 0.2])).sum())(2.0), 20.0, [(False, True)]),
    ("grad grad0", lambda f: jax.grad(jax.grad(f))(2.0, 0.5), 0.0,
     [(False, True), (False, True)]),
    ("jvp of closure", lambda f: jax.jvp(lambda a: f(a, 0.5), (2.0,), (1.0,))[1], 10.0,
     [(False, True)]),
    ("linearize0", lambda f: jax.linearize(lambda a: f(a, 0.5), 2.0)[1](1.0), 10.0,
     [(False, True)]),
    ("jacfwd", lambda f: jax.jacfwd(f, (0, 1))(2.0, 0.5), (10.0, 100.0), [(False, False)]),
]


@pytest.mark.parametrize("name,fn,value,seen", SZ_JVP_CASES, ids=[c[0] for c in SZ_JVP_CASES])
def test_custom_jvp_symbolic_zeros(name, fn, value, seen):
    log = []
    out = fn(_symbolic_jvp_function(log))
    np.testing.assert_allclose(np.asarray(out), value, rtol=1e-6, atol=1e-6)
    assert log == seen


def test_symbolic_zero_objects_and_rule_outputs():
    from numjax._src.core.avals import ShapedArray
    from numjax.custom_derivatives import SymbolicZero

    z = SymbolicZero(ShapedArray((2, 3), jnp.float32))
    assert repr(z) == "SymbolicZero"
    assert (z.shape, z.dtype, z.ndim, z.size) == ((2, 3), jnp.float32, 2, 6)

    @jax.custom_jvp
    def g(x):
        return jnp.sin(x)

    g.defjvp(lambda p, t: (g(p[0]), SymbolicZero(ShapedArray((), jnp.float32))),
             symbolic_zeros=True)
    assert float(jax.jvp(g, (1.0,), (1.0,))[1]) == 0.0
    assert float(jax.grad(g)(1.0)) == 0.0
    g.defjvp(lambda p, t: (g(p[0]), SymbolicZero(ShapedArray((3,), jnp.float32))),
             symbolic_zeros=True)
    with pytest.raises(TypeError) as info:
        jax.jvp(g, (1.0,), (1.0,))
    assert str(info.value) == ("Custom JVP rule must produce primal and tangent outputs with "
                               "equal shapes and dtypes, but got float32[] and float32[3] "
                               "respectively.")
    g.defjvp(lambda p, t: (g(p[0]), None), symbolic_zeros=True)
    with pytest.raises(TypeError, match="must produce primal and tangent outputs with equal "
                                        r"container \(pytree\) structures"):
        jax.jvp(g, (1.0,), (1.0,))


def _symbolic_vjp_function(log):
    from numjax.custom_derivatives import (
        CustomVJPPrimal,
        SymbolicZero,
        custom_vjp_primal_tree_values,
    )

    @jax.custom_vjp
    def f(x, y):
        return x * jnp.sin(y), x + y

    def fwd(x, y):
        assert type(x) is CustomVJPPrimal and type(y) is CustomVJPPrimal
        log.append(("fwd", x.perturbed, y.perturbed))
        xv, yv = custom_vjp_primal_tree_values((x, y))
        return f(xv, yv), (xv, yv)

    def bwd(res, cts):
        a, b = cts
        log.append(("bwd", type(a) is SymbolicZero, type(b) is SymbolicZero))
        ga = 0.0 if type(a) is SymbolicZero else a
        gb = 0.0 if type(b) is SymbolicZero else b
        return (ga * 10.0 + gb, ga * 100.0 + gb)

    f.defvjp(fwd, bwd, symbolic_zeros=True)
    return f


SZ_VJP_CASES = [
    ("grad0 out0", lambda f: jax.grad(lambda a, b: f(a, b)[0])(2.0, 0.5), 10.0,
     [("fwd", True, False), ("bwd", False, True)]),
    ("grad1 out1", lambda f: jax.grad(lambda a, b: f(a, b)[1], 1)(2.0, 0.5), 1.0,
     [("fwd", False, True), ("bwd", True, False)]),
    ("grad01 both", lambda f: jax.grad(lambda a, b: sum(f(a, b)), (0, 1))(2.0, 0.5),
     (11.0, 101.0), [("fwd", True, True), ("bwd", False, False)]),
    ("vjp", lambda f: jax.vjp(f, 2.0, 0.5)[1]((1.0, 1.0)), (11.0, 101.0),
     [("fwd", True, True), ("bwd", False, False)]),
    ("jit grad0", lambda f: jax.jit(jax.grad(lambda a, b: f(a, b)[0]))(2.0, 0.5), 10.0,
     [("fwd", True, False), ("bwd", False, True)]),
    ("vmap grad0", lambda f: jax.vmap(jax.grad(lambda a, b: f(a, b)[0]))(
        jnp.array([1.0, 2.0]), jnp.array([0.1, 0.2])), [10.0, 10.0],
     [("fwd", True, False), ("bwd", False, True)]),
    ("grad of vmap", lambda f: jax.grad(lambda a: jax.vmap(lambda b: f(a, b)[0])(
        jnp.array([0.1, 0.2])).sum())(2.0), 20.0, [("fwd", True, False), ("bwd", False, True)]),
    ("grad closure const y", lambda f: jax.grad(lambda a: f(a, 0.5)[0])(2.0), 10.0,
     [("fwd", True, False), ("bwd", False, True)]),
]


@pytest.mark.parametrize("name,fn,value,seen", SZ_VJP_CASES, ids=[c[0] for c in SZ_VJP_CASES])
def test_custom_vjp_symbolic_zeros(name, fn, value, seen):
    log = []
    out = fn(_symbolic_vjp_function(log))
    np.testing.assert_allclose(np.asarray(out), value, rtol=1e-6, atol=1e-6)
    assert log == seen


def test_custom_vjp_bwd_output_checks():
    from numjax._src.core.avals import ShapedArray
    from numjax.custom_derivatives import CustomVJPPrimal, SymbolicZero

    assert repr(CustomVJPPrimal(1.0, True)) == "CustomVJPPrimal(value=1.0, perturbed=True)"

    @jax.custom_vjp
    def g(x):
        return jnp.sin(x)

    g.defvjp(lambda x: (g(x.value), None),
             lambda r, ct: (SymbolicZero(ShapedArray((), jnp.float32)),), symbolic_zeros=True)
    assert float(jax.grad(g)(1.0)) == 0.0
    g.defvjp(lambda x: (g(x.value), None),
             lambda r, ct: (SymbolicZero(ShapedArray((2,), jnp.float32)),), symbolic_zeros=True)
    with pytest.raises(ValueError) as info:
        jax.grad(g)(1.0)
    assert str(info.value) == (
        "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does not match the "
        "corresponding input tangent shape/dtype: at output[0] the SymbolicZero had shape/dtype "
        "float32[2] while the corresponding input had shape/dtype float32[]. Consider just "
        "returning a None here instead of a SymbolicZero object.")
    g.defvjp(lambda x: (g(x), None), lambda r, ct: (jnp.ones(2),))
    with pytest.raises(ValueError) as info:
        jax.grad(g)(1.0)
    assert str(info.value) == (
        "Custom VJP bwd rule must produce an output with the same shape/dtypes as the args "
        "tuple of the primal function, but at output[0] the bwd rule produced an output of "
        "shape/dtype float32[2] corresponding to an input of shape/dtype float32[].")


# ---- linear_call and transposing custom functions: JAX 0.4.30's results --------------------

def _div_add(x, y):
    return x + jax.custom_derivatives.linear_call(lambda r, x: x / r, lambda r, t: t / r, y, x)


def _custom_id(x):
    return jax.custom_derivatives.linear_call(lambda _, x: x, lambda _, t: 7., (), x)


def _transpose(f, example):
    return lambda y: jax.linear_transpose(f, example)(y)[0]


@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit])
def test_linear_call_transposes_to_its_transpose(wrap):
    y = jnp.ones(2) * 3.
    np.testing.assert_array_equal(wrap(_div_add)(jnp.ones(2) * 6., y), [8., 8.])
    (ct,) = wrap(jax.linear_transpose(lambda x: _div_add(x, y), jnp.ones(2)))(jnp.ones(2) * 6.)
    np.testing.assert_array_equal(ct, [8., 8.])
    assert ct.dtype == np.float32
    # The transpose of the transpose is the function again.
    assert [float(_transpose(f, 1.)(1.)) for f in (
        _custom_id, _transpose(_custom_id, 1.), _transpose(_transpose(_custom_id, 1.), 1.))] \
        == [7.0, 1.0, 7.0]


def test_linear_call_jaxpr_and_errors():
    text = str(jax.make_jaxpr(lambda x: _div_add(x, jnp.ones(2)))(jnp.ones(2)))
    assert "linear_call[" in text and "num_res=1" in text and "transpose={ lambda" in text
    y = jnp.ones(2)
    for transform, message in [
        (lambda f: jax.grad(lambda x: f(x).sum())(y),
         "Differentiation rule for 'linear_call' not implemented"),
        (lambda f: jax.jvp(f, (y,), (y,)),
         "Differentiation rule for 'linear_call' not implemented"),
        (lambda f: jax.vmap(f)(jnp.ones((3, 2))),
         "Batching rule for 'linear_call' not implemented")]:
        with pytest.raises(NotImplementedError, match=message):
            transform(lambda x: _div_add(x, y))
    with pytest.raises(TypeError, match=re.escape(
            "transpose output pytree structure must match that of linear inputs, got output "
            "structure PyTreeDef((*, *)) and input structure PyTreeDef(*).")):
        jax.custom_derivatives.linear_call(lambda r, x: x, lambda r, t: (t, t), (), 1.)


def test_linear_transpose_of_custom_functions():
    # A custom_jvp function transposes as the function itself; a custom_vjp one does not.
    @jax.custom_jvp
    def cj(x):
        return 2. * x
    cj.defjvp(lambda p, t: (cj(*p), 3. * t[0]))

    @jax.custom_vjp
    def cv(x):
        return 2. * x
    cv.defvjp(lambda x: (2. * x, None), lambda r, g: (3. * g,))

    (ct,) = jax.linear_transpose(cj, 1.)(1.)
    assert float(ct) == 2.0 and ct.dtype == np.float32 and ct.weak_type
    with pytest.raises(NotImplementedError, match=re.escape(
            "Transpose rule (for reverse-mode differentiation) for 'custom_vjp_call_jaxpr' "
            "not implemented")):
        jax.linear_transpose(cv, 1.)(1.)
    assert float(jax.grad(cv)(1.)) == 3.0


def test_compiled_code_inlines_custom_functions_and_keeps_their_rules():
    # Under jit a custom function's own equations run inline (fused with their neighbours);
    # transformations still use its rules.
    @jax.custom_jvp
    def clipped(x):
        return jnp.minimum(x, 1.0)

    clipped.defjvp(lambda primals, tangents: (clipped(*primals), 3.0 * tangents[0]))

    @jax.custom_vjp
    def doubled(x):
        return 2.0 * x

    doubled.defvjp(lambda x: (2.0 * x, None), lambda _, g: (5.0 * g,))
    f = jax.jit(lambda x: clipped(x) * 2 + doubled(x) + jax.nn.relu(x))
    x = jnp.array([-1.0, 0.5, 2.0])
    text = f.lower(x).as_text()
    assert "custom_jvp_call" not in text and "custom_vjp_call" not in text, text
    assert "np.minimum" in text and "np.maximum" in text, text
    np.testing.assert_allclose(f(x), [-4.0, 2.5, 8.0])
    grad = jax.jit(jax.grad(lambda x: f(x).sum()))(x)
    np.testing.assert_allclose(grad, [11.0, 12.0, 12.0])  # 3*2 + 5 + relu'(x)


def _same_dtype_asarray_jvp():
    f = jax.custom_jvp(lambda x: jnp.asarray(x, dtype=x.dtype))
    f.defjvp(lambda p, t: (f(*p), t[0]))
    return f


def _identity_vjp():
    f = jax.custom_vjp(lambda x: x)
    f.defvjp(lambda x: (x, None), lambda _, ct: (ct,))
    return f


def _scaled_jvp():
    f = jax.custom_jvp(lambda x: 2.0 * x)
    f.defjvp(lambda p, t: (f(*p), 2.0 * t[0]))
    return f


# JAX runs a custom function itself on the batched values, so one that returns its argument
# returns the same object under vmap (JAX 0.4.30: `vmap(f)(y) is y` is True); lineax and
# optimistix test this of their custom_jvp `inexact_asarray`.
@pytest.mark.parametrize("make, is_argument", [
    (_same_dtype_asarray_jvp, True),
    (_identity_vjp, True),
    (_scaled_jvp, False),
])
def test_vmapped_custom_function_returning_its_argument(make, is_argument):
    f = make()
    y = jnp.array([1.0, 2.0])
    out = jax.vmap(f)(y)
    assert (out is y) == is_argument
    np.testing.assert_array_equal(out, f(y))
    # Unbatched inputs and another output axis still give the mapped result.
    np.testing.assert_array_equal(jax.vmap(f, out_axes=0, axis_size=2, in_axes=None)(y),
                                  np.stack([f(y), f(y)]))


@jax.custom_vjp
def _shift(x):
    return x + 2.0


_shift.defvjp(lambda x: (_shift(x), None), lambda _, g: (g + 5.0,))


# Forward mode of a custom_vjp function is JAX's TypeError with or without vmap around it
# (JAX 0.4.30); reverse mode under vmap (jacrev) uses the bwd rule: [[6, 5], [5, 6]].
@pytest.mark.parametrize("name, run", [
    ("jvp", lambda x: jax.jvp(_shift, (x,), (jnp.ones(2),))),
    ("jacfwd", lambda x: jax.jacfwd(_shift)(x)),
    ("vmap of jvp", lambda x: jax.vmap(lambda t: jax.jvp(_shift, (x,), (t,))[1])(jnp.eye(2))),
    ("vmap of linearized", lambda x: jax.vmap(jax.linearize(_shift, x)[1])(jnp.eye(2))),
])
def test_forward_mode_of_custom_vjp_raises_under_vmap(name, run):
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function\."):
        run(jnp.arange(2.0))
    np.testing.assert_array_equal(jax.jacrev(_shift)(jnp.arange(2.0)), [[6.0, 5.0], [5.0, 6.0]])


def test_custom_vjp_bwd_of_wrong_length_names_the_argument_tuple():
    # JAX 0.4.30's text, the primal input structure printed as a tuple.
    @jax.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g,))
    with pytest.raises(TypeError) as info:
        jax.grad(f)(1.0, 2.0)
    assert str(info.value) == (
        "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
        "as the args tuple of the primal function, and in particular must produce a tuple of "
        "length equal to the number of arguments to the primal function, but got bwd output "
        "structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, *)).")


# ---- outputs not depending on a batched input stay unbatched under vmap --------------------


def _custom_pair(kind: str, tangent_of_second_reads_x: bool = False):
    """(x, y) -> (x * y, 2 y) as a custom_jvp or custom_vjp function."""
    if kind == "jvp":
        @jax.custom_jvp
        def f(x, y):
            return x * y, y * 2.0

        @f.defjvp
        def f_jvp(primals, tangents):
            (x, y), (tx, ty) = primals, tangents
            t2 = ty * 2.0 + tx if tangent_of_second_reads_x else ty * 2.0
            return f(x, y), (tx * y + x * ty, t2)
        return f

    @jax.custom_vjp
    def g(x, y):
        return x * y, y * 2.0

    def g_fwd(x, y):
        return g(x, y), (x, y)

    def g_bwd(res, cts):
        (x, y), (c1, c2) = res, cts
        return c1 * y, c1 * x + 2.0 * c2

    g.defvjp(g_fwd, g_bwd)
    return g


_X, _Y = np.arange(3.0, dtype=np.float32), np.float32(1.5)


def _summed(fn, out_axes=(0, None), jit=False):
    mapped = jax.vmap(fn, in_axes=(0, None), out_axes=out_axes)
    mapped = jax.jit(mapped) if jit else mapped
    return lambda a, b: sum(jnp.sum(o) for o in mapped(a, b))


@pytest.mark.parametrize("kind", ["jvp", "vjp"])
@pytest.mark.parametrize("jit", [False, True])
def test_vmap_keeps_unbatched_outputs_of_custom_functions(kind, jit):
    # JAX 0.4.30: the second output reads only the unbatched y, so out_axes=None accepts it.
    mapped = jax.vmap(_custom_pair(kind), in_axes=(0, None), out_axes=(0, None))
    out1, out2 = (jax.jit(mapped) if jit else mapped)(_X, _Y)
    np.testing.assert_array_equal(out1, [0.0, 1.5, 3.0])
    assert out2.shape == () and float(out2) == 3.0
    # Default out_axes broadcasts the unbatched output.
    out1, out2 = jax.vmap(_custom_pair(kind), in_axes=(0, None))(_X, _Y)
    np.testing.assert_array_equal(out2, [3.0, 3.0, 3.0])
    # Every output unbatched: out_axes=None for all of them.
    both = jax.vmap(lambda a, b: _custom_pair(kind)(b, b), in_axes=(0, None), out_axes=None)
    np.testing.assert_array_equal([float(o) for o in both(_X, _Y)], [2.25, 3.0])


@pytest.mark.parametrize("kind", ["jvp", "vjp"])
@pytest.mark.parametrize("jit", [False, True])
def test_gradients_through_unbatched_custom_outputs(kind, jit):
    # d/dy [sum(x * y) + 2 y] = sum(x) + 2 = 5, as JAX 0.4.30 gives for the custom_jvp function.
    # JAX 0.4.30's custom_vjp batching hands the unbatched output's cotangent to every example
    # and gives 9 (2 counted three times); numjax gives the derivative, 5 (docs/differences.md).
    gx, gy = jax.grad(_summed(_custom_pair(kind), jit=jit), argnums=(0, 1))(_X, _Y)
    np.testing.assert_array_equal(gx, [1.5, 1.5, 1.5])
    assert float(gy) == 5.0
    # vmap of grad: every example's own gradient (JAX: [1.5] * 3 and [2, 3, 4]).
    per_example = jax.vmap(jax.grad(lambda a, b: sum(jnp.sum(o) for o in _custom_pair(kind)(a, b)),
                                    argnums=(0, 1)), in_axes=(0, None))(_X, _Y)
    np.testing.assert_array_equal(per_example[0], [1.5, 1.5, 1.5])
    np.testing.assert_array_equal(per_example[1], [2.0, 3.0, 4.0])


def test_custom_jvp_output_batched_by_its_rule_under_differentiation():
    # JAX 0.4.30 takes the rule's batching when the rule runs: the second output's tangent reads
    # the batched x, so that output is batched and out_axes=None refuses it.
    f = _custom_pair("jvp", tangent_of_second_reads_x=True)
    mapped = jax.vmap(f, in_axes=(0, None), out_axes=(0, None))
    assert float(mapped(_X, _Y)[1]) == 3.0  # no differentiation: unbatched
    with pytest.raises(ValueError, match="vmap has mapped output but out_axes is None"):
        jax.jvp(mapped, (_X, _Y), (jnp.ones(3), jnp.float32(1.0)))
    with pytest.raises(ValueError, match="vmap has mapped output but out_axes is None"):
        jax.grad(_summed(f), argnums=(0, 1))(_X, _Y)
    (p1, p2), (t1, t2) = jax.jvp(jax.vmap(f, in_axes=(0, None)), (_X, _Y),
                                 (jnp.ones(3), jnp.float32(1.0)))
    np.testing.assert_array_equal(t1, [1.5, 2.5, 3.5])
    np.testing.assert_array_equal(t2, [3.0, 3.0, 3.0])


@jax.custom_vjp
def _scale_and_count(x, w, n):
    return x * w, n + 1


_scale_and_count.defvjp(lambda x, w, n: (_scale_and_count(x, w, n), (x, w)),
                        lambda res, cts: (cts[0] * res[1] * 3.0, cts[0] * res[0] * 2.0, None))

_XS = jnp.array([1.0, 2.0, 3.0])


# Under vmap a custom_vjp function's unbatched operands stay unbatched, and so do the outputs
# computed from them alone (a loop counter: equinox's checkpointed while loop keeps its step
# count unbatched and refuses a batched one); the cotangent of an unbatched operand sums the
# examples'. JAX 0.4.30's values.
@pytest.mark.parametrize("name, run, expected", [
    ("unbatched output", lambda: jax.vmap(_scale_and_count, (0, None, None), (0, None))(
        _XS, 2.0, 5), ([2.0, 4.0, 6.0], 6)),
    ("jit of it", lambda: jax.jit(jax.vmap(_scale_and_count, (0, None, None), (0, None)))(
        _XS, 2.0, 5), ([2.0, 4.0, 6.0], 6)),
    ("vmap of grad", lambda: jax.vmap(jax.grad(lambda x, w: _scale_and_count(x, w, 5)[0],
                                               argnums=(0, 1)), (0, None))(_XS, 2.0),
     ([6.0, 6.0, 6.0], [2.0, 4.0, 6.0])),
    # The integer operand's cotangent is float0 for every example.
    ("grad of vmap", lambda: jax.grad(lambda w, x: jax.vmap(_scale_and_count, (0, None, None))(
        x, w, 5)[0].sum(), argnums=(0, 1))(2.0, _XS), (12.0, [6.0, 6.0, 6.0])),
    ("jit of grad of vmap", lambda: jax.jit(jax.grad(lambda w, x: jax.vmap(
        _scale_and_count, (0, None, None))(x, w, 5)[0].sum(), argnums=(0, 1)))(2.0, _XS),
     (12.0, [6.0, 6.0, 6.0])),
])
def test_custom_vjp_under_vmap_keeps_unbatched_operands_unbatched(name, run, expected):
    for got, want in zip(run(), expected, strict=True) if isinstance(expected, tuple) \
            else [(run(), expected)]:
        np.testing.assert_array_equal(got, want)


def test_custom_vjp_under_vmap_batches_an_output_of_a_batched_operand():
    # JAX 0.4.30: the counter computed from a batched operand is batched, so out_axes=None
    # is refused.
    with pytest.raises(ValueError, match="vmap has mapped output but out_axes is None"):
        jax.vmap(_scale_and_count, (0, None, 0), (0, None))(_XS, 2.0, jnp.arange(3))


@jax.custom_jvp
def _sin_and_double(x, n):
    return jnp.sin(x), n * 2


@_sin_and_double.defjvp
def _sin_and_double_jvp(primals, tangents):
    (x, n), (tx, tn) = primals, tangents
    return _sin_and_double(x, n), (jnp.cos(x) * tx * 10.0, tn)


# The same for custom_jvp (JAX 0.4.30's values; sin to float32 rounding).
@pytest.mark.parametrize("name, run, expected", [
    ("unbatched output", lambda: jax.vmap(_sin_and_double, (0, None), (0, None))(_XS, 3),
     (np.sin([1.0, 2.0, 3.0]), 6)),
    ("jit of it", lambda: jax.jit(jax.vmap(_sin_and_double, (0, None), (0, None)))(_XS, 3),
     (np.sin([1.0, 2.0, 3.0]), 6)),
    ("jvp of vmap", lambda: jax.jvp(
        lambda x: jax.vmap(_sin_and_double, (0, None), (0, None))(x, 3.0), (_XS,),
        (jnp.ones(3),))[1], (10.0 * np.cos([1.0, 2.0, 3.0]), 0.0)),
    ("vmap of grad", lambda: (jax.vmap(jax.grad(lambda x, n: sum(_sin_and_double(x, n))),
                                       (0, None))(_XS, 3.0),),
     (10.0 * np.cos([1.0, 2.0, 3.0]),)),
])
def test_custom_jvp_under_vmap_keeps_unbatched_operands_unbatched(name, run, expected):
    for got, want in zip(run(), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gradients_of_a_jitted_function_trace_its_custom_rules_once():
    # JAX 0.4.30 caches what jit's rules derive from its jaxpr (the jvp, the known/unknown
    # split, the transpose): a custom_vjp backward function inside runs once for every
    # gradient of the same jitted function, and a custom_jvp rule once for grads and a jvp.
    # Recorded from JAX: grads 2.5403023, 2.5403023, 1.5838531; counts bwd 1, jvp 1.
    count = {"bwd": 0, "jvp": 0}

    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def f_bwd(c, g):
        count["bwd"] += 1
        return (g * c + 2.0,)

    f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), f_bwd)
    jf = jax.jit(f)
    grads = [jax.grad(jf)(1.0), jax.grad(jf)(1.0), jax.grad(jf)(2.0), jax.grad(jax.jit(f))(1.0)]
    np.testing.assert_allclose(grads, [2.5403023, 2.5403023, 1.5838531, 2.5403023], rtol=1e-6)
    assert count["bwd"] == 1

    @jax.custom_jvp
    def g(x):
        return jnp.sin(x)

    @g.defjvp
    def g_jvp(primals, tangents):
        count["jvp"] += 1
        return jnp.sin(primals[0]), 3.0 * tangents[0]

    jg = jax.jit(g)
    assert [float(jax.grad(jg)(1.0)), float(jax.grad(jg)(1.0))] == [3.0, 3.0]
    assert float(jax.jvp(jg, (1.0,), (1.0,))[1]) == 3.0
    assert count["jvp"] == 1


@pytest.mark.parametrize("run", ["grad_of_vmap", "jit_grad_of_vmap", "vmap_of_grad"])
def test_custom_vjp_under_vmap_keeps_unbatched_residuals_as_fwd_made_them(run):
    # A residual the forward function returns unbatched reaches the backward function
    # unbatched, a Python flag as the flag (JAX 0.4.30; equinox's checkpointed while loop
    # branches on its `perturbed` flags in its backward function, diffrax's test_against).
    # Recorded from JAX: the three gradients are [5.970025, 5.8803997, 5.732019].
    flags = []

    @jax.custom_vjp
    def f(x, w):
        return jnp.sin(x) * w

    def f_bwd(res, g):
        flag, c, w, k = res
        flags.append(flag)
        assert np.shape(k) == () and np.shape(w) == ()
        return (g * c * w * k, g * 0.0)

    f.defvjp(lambda x, w: (jnp.sin(x) * w, (True, jnp.cos(x), w, jnp.float32(3.0))), f_bwd)
    xs, w = jnp.array([0.1, 0.2, 0.3]), jnp.float32(2.0)
    summed = jax.grad(lambda xs: jnp.sum(jax.vmap(f, (0, None))(xs, w)))
    runs = {"grad_of_vmap": lambda: summed(xs), "jit_grad_of_vmap": lambda: jax.jit(summed)(xs),
            "vmap_of_grad": lambda: jax.vmap(jax.grad(f), (0, None))(xs, w)}
    np.testing.assert_allclose(runs[run](), [5.970025, 5.8803997, 5.732019], rtol=1e-6)
    assert flags == [True]

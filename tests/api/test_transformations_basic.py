"""grad/jvp/vjp/linearize against finite differences; vmap against Python loops; JAX's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax.test_util import check_grads

f32 = np.float32
rng = np.random.default_rng(0)


FUNCTIONS = {
    "tanh_dot": lambda x: jnp.tanh(x @ jnp.arange(3.0)).sum(),
    "exp_log": lambda x: jnp.sum(jnp.exp(x) * jnp.log1p(x * x)),
    "div_sqrt": lambda x: jnp.sum(jnp.sqrt(x * x + 1.0) / (x + 3.0)),
    "max_min": lambda x: jnp.max(x) - jnp.min(x * 2.0) + jnp.sum(jnp.maximum(x, 0.1)),
    "mean_var": lambda x: jnp.mean(x) * jnp.var(x),
    "broadcast": lambda x: jnp.sum((x[:, None] * x[None, :]) ** 2),
    "trig": lambda x: jnp.sum(jnp.sin(x) * jnp.cos(x) + jnp.arctan(x)),
    "matmul": lambda x: jnp.sum(jnp.reshape(x, (3, 1)) @ jnp.reshape(x, (1, 3))),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_grad_matches_finite_differences(name: str) -> None:
    f = FUNCTIONS[name]
    x = rng.uniform(0.2, 1.5, size=3).astype(f32)
    check_grads(f, (x,), order=1, modes=["rev"], rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp_agrees_with_vjp(name: str) -> None:
    f = FUNCTIONS[name]
    x = rng.uniform(0.2, 1.5, size=3).astype(f32)
    t = rng.normal(size=3).astype(f32)
    _, jvp_out = jax.jvp(f, (x,), (t,))
    _, f_vjp = jax.vjp(f, x)
    (ct,) = f_vjp(jnp.ones(()))
    np.testing.assert_allclose(float(jvp_out), float(jnp.dot(ct, t)), rtol=1e-4, atol=1e-5)


def test_grad_of_grad_and_python_control_flow() -> None:
    def f(x: Any) -> Any:
        if x > 0:
            return jnp.sin(x) * x
        return x ** 3

    d2 = jax.grad(jax.grad(f))
    assert float(d2(1.0)) == pytest.approx(-np.sin(1.0) + 2 * np.cos(1.0), rel=1e-5)
    assert float(d2(-2.0)) == pytest.approx(6 * -2.0, rel=1e-5)


def test_linearize_reused_on_several_tangents() -> None:
    y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * x, jnp.array([0.5, 1.0]))
    for t in ([1.0, 0.0], [0.0, 2.0]):
        t = jnp.array(t)
        expected = jax.jvp(lambda x: jnp.sin(x) * x, (jnp.array([0.5, 1.0]),), (t,))[1]
        np.testing.assert_allclose(f_jvp(t), expected, rtol=1e-6)


def test_value_and_grad_argnums_and_aux() -> None:
    def loss(w: Any, b: Any, x: Any) -> Any:
        out = jnp.sum(jnp.tanh(x * w + b))
        return out, {"out": out}

    (value, aux), (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(
        2.0, 0.5, jnp.arange(3.0))
    assert float(aux["out"]) == float(value)
    np.testing.assert_allclose(gb, np.sum(1 - np.tanh(np.arange(3.0) * 2 + 0.5) ** 2), rtol=1e-5)
    np.testing.assert_allclose(
        gw, np.sum(np.arange(3.0) * (1 - np.tanh(np.arange(3.0) * 2 + 0.5) ** 2)), rtol=1e-5)


AUX_CASES = {
    "grad": lambda f, x: jax.grad(f, has_aux=True)(x)[1],
    "value_and_grad": lambda f, x: jax.value_and_grad(f, has_aux=True)(x)[0][1],
    "jit_grad": lambda f, x: jax.jit(jax.grad(f, has_aux=True))(x)[1],
    "jvp": lambda f, x: jax.jvp(f, (x,), (x,), has_aux=True)[2],
    "linearize": lambda f, x: jax.linearize(f, x, has_aux=True)[2],
    "vjp": lambda f, x: jax.vjp(f, x, has_aux=True)[2],
    "jacfwd": lambda f, x: jax.jacfwd(f, has_aux=True)(x)[1],
    "jacrev": lambda f, x: jax.jacrev(f, has_aux=True)(x)[1],
}


@pytest.mark.parametrize("name", AUX_CASES)
def test_aux_outputs_leave_the_transformation(name: str) -> None:
    # An aux output computed from the differentiated input comes out as a plain Array (its
    # primal value), not as a tracer of the transformation; non-array leaves pass through.
    def f(x: Any) -> Any:
        y = jnp.sum(x ** 2) if name in ("grad", "value_and_grad", "jit_grad") else x ** 2
        if name in ("jit_grad", "jacfwd"):  # outputs of jit and vmap must be arrays
            return y, {"scaled": x * 3.0}
        return y, {"scaled": x * 3.0, "tag": "step", "none": None}

    x = jnp.array([1.0, 2.0])
    aux = AUX_CASES[name](f, x)
    assert type(aux["scaled"]) is type(x)
    np.testing.assert_allclose(aux["scaled"], [3.0, 6.0])
    if name not in ("jit_grad", "jacfwd"):
        assert aux["tag"] == "step" and aux["none"] is None


def test_aux_of_a_transformation_under_vmap_and_nested_grad() -> None:
    per_example = jax.vmap(jax.grad(lambda x: (x ** 2, x * 3.0), has_aux=True))(jnp.ones(2))
    np.testing.assert_allclose(per_example[1], [3.0, 3.0])

    def outer(x: Any) -> Any:
        g, aux = jax.grad(lambda y: (y ** 3 * x, y * x), has_aux=True)(x)
        return g + aux  # 3x^3 + x^2, differentiated by the outer grad

    np.testing.assert_allclose(jax.grad(outer)(2.0), 9 * 4.0 + 2 * 2.0)


def test_grad_pytree_inputs() -> None:
    params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3)}
    g = jax.grad(lambda p, x: jnp.sum((x @ p["w"] + p["b"]) ** 2))(params, jnp.ones((4, 2)))
    np.testing.assert_allclose(g["b"], np.full(3, 2 * 4 * 2.0))
    np.testing.assert_allclose(g["w"], np.full((2, 3), 2 * 4 * 2.0))


def test_grad_errors() -> None:
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions\. "
                                        r"Output had shape: \(3,\)\."):
        jax.grad(lambda x: x * 2)(jnp.ones(3))
    with pytest.raises(TypeError) as info:
        jax.grad(lambda x: x * 2.0)(1)
    assert str(info.value) == (
        "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, use "
        "vjp or set allow_int to True.")
    g = jax.grad(lambda x: x * 2.0, allow_int=True)(1)
    assert g.dtype == jax.dtypes.float0 and g.shape == ()


def test_vmap_matches_loop_with_axes() -> None:
    def f(x: Any, y: Any) -> Any:
        return jnp.tanh(x) @ y + jnp.sum(x)

    xs = rng.normal(size=(3, 5)).astype(f32)
    y = rng.normal(size=(3, 4)).astype(f32)
    out = jax.vmap(f, in_axes=(1, None), out_axes=1)(xs, y)
    expected = np.stack([np.tanh(xs[:, i]) @ y + xs[:, i].sum() for i in range(5)], axis=1)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_per_example_gradients() -> None:
    def loss(w: Any, x: Any, y: Any) -> Any:
        return (jnp.dot(x, w) - y) ** 2

    w = jnp.array([1.0, -1.0])
    xs = jnp.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.0]])
    ys = jnp.array([1.0, 0.0, 2.0])
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, xs, ys)
    expected = [2 * (np.dot(x, w) - y) * x
                for x, y in zip(np.asarray(xs), np.asarray(ys), strict=True)]
    np.testing.assert_allclose(g, np.array(expected), rtol=1e-6)


def test_grad_of_vmap_and_nested_vmap() -> None:
    f = lambda x: jnp.sum(jax.vmap(jnp.sin)(x) ** 2)
    x = jnp.array([0.1, 0.7])
    np.testing.assert_allclose(jax.grad(f)(x), 2 * np.sin(x) * np.cos(x), rtol=1e-6)
    outer = jax.vmap(jax.vmap(lambda a, b: a * b, (0, None)), (None, 0))(jnp.arange(3.0),
                                                                        jnp.arange(2.0))
    np.testing.assert_allclose(outer, np.outer(np.arange(2.0), np.arange(3.0)))


def test_vmap_errors() -> None:
    with pytest.raises(ValueError) as info:
        jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))
    assert str(info.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
        "  * one axis had size 4: axis 0 of argument y of type float32[4]")
    with pytest.raises(ValueError) as info:
        jax.vmap(lambda x: x, in_axes=1)(jnp.ones(3))
    assert str(info.value) == (
        "vmap was requested to map its argument along axis 1, which implies that its rank "
        "should be at least 2, but is only 1 (its shape is (3,))")
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        jax.vmap(lambda x: x, in_axes=(0, 0))(jnp.ones(3))


def test_jvp_shape_and_dtype_of_outputs() -> None:
    primal, tangent = jax.jvp(lambda x: x * 2, (1.0,), (1.0,))
    assert repr(primal) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(tangent) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jax.vmap(lambda x: x + 1)(jnp.arange(3))) == "Array([1, 2, 3], dtype=int32)"


def test_prod_gradient_is_exact_with_zeros() -> None:
    g = jax.grad(lambda a: jnp.prod(a))(np.array([[1.0, 3.0], [0.0, 2.0]], f32))
    np.testing.assert_allclose(g, [[0.0, 0.0], [6.0, 0.0]])
    g = jax.grad(lambda a: jnp.prod(a, axis=0).sum())(np.array([1.0, 0.0, 2.0], f32)[:, None])
    np.testing.assert_allclose(g[:, 0], [0.0, 2.0, 0.0])


def test_stop_gradient_matches_jax() -> None:
    assert float(jax.grad(lambda x: jax.lax.stop_gradient(x) * x)(3.0)) == 3.0
    assert str(jax.make_jaxpr(jax.grad(lambda x: jax.lax.stop_gradient(x) * x))(3.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = stop_gradient a\n"
        "    _:f32[] = mul b a\n"
        "    c:f32[] = mul b 1.0\n"
        "  in (c,) }")
    out = jax.lax.stop_gradient({"a": jnp.ones(2), "n": jnp.arange(2)})
    assert out["n"].dtype == np.int32


def test_vmap_of_grad_with_an_unbatched_cotangent_first() -> None:
    # add_any of an unbatched and a batched cotangent must keep the batch size
    x = jnp.array([0.1, 0.2, 0.3])
    ys = jnp.arange(12.0).reshape(4, 3)
    f = lambda x, y: jax.grad(lambda x: jnp.sum(x * y) + jnp.sum(jnp.sin(x)))(x)[1]
    expected = np.array([float(f(x, y)) for y in ys])
    np.testing.assert_allclose(jax.vmap(f, in_axes=(None, 0))(x, ys), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(f, in_axes=(None, 0)))(x, ys), expected,
                               rtol=1e-6)
    g = lambda v: jax.grad(lambda v: jax.lax.scan(lambda c, xi: (c * xi, c), v[1], v)[0])(v)
    batch = jnp.arange(1.0, 13.0).reshape(4, 3) / 10
    np.testing.assert_allclose(jax.vmap(g)(batch), np.stack([g(b) for b in batch]), rtol=1e-5)


@pytest.mark.parametrize("fn,out_axes,ndim", [
    # JAX 0.4.30's ValueError: out_axes beyond the rank of the batched output
    (lambda x: jnp.stack([x, x]), 3, 3), (lambda x: jnp.stack([x, x]), -4, 3),
    (lambda x: x.sum(), 1, 1), (lambda x: jnp.ones((2, 3)), 3, 3),
])
def test_vmap_out_axes_out_of_bounds(fn: Any, out_axes: Any, ndim: Any) -> None:
    f = jax.vmap(fn, out_axes=out_axes)
    for g in (f, jax.jit(f)):
        with pytest.raises(ValueError) as info:
            g(jnp.ones((4, 3)))
        assert str(info.value) == f"axis {out_axes} is out of bounds for array of dimension {ndim}"
    assert jax.vmap(lambda x: jnp.stack([x, x]), out_axes=-3)(jnp.ones((4, 3))).shape == (4, 2, 3)


# ---- float0 values (integer inputs' tangents and cotangents): JAX 0.4.30's behaviour --------
_F0 = np.zeros((), dtype=jax.dtypes.float0)
_JNP_FLOAT0 = (
    "Called {} with a float0 array. float0s do not support any operations by design because "
    "they are not compatible with non-trivial vector spaces. No implicit dtype conversion is "
    "done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular "
    "zeros array. \nIf you didn't expect to get a float0 you might have accidentally taken a "
    "gradient with respect to an integer argument.")
_LAX_FLOAT0 = _JNP_FLOAT0.replace("by design because", "by design, because")


@pytest.mark.parametrize("name, make", [
    ("grad", lambda: jax.grad(lambda x, i: x[i], argnums=1, allow_int=True)(np.ones(2), 1)),
    ("jit(grad)", lambda: jax.jit(jax.grad(lambda x, i: x[i], argnums=(0, 1),
                                            allow_int=True))(np.ones(2), 1)[1]),
    ("jit(identity)", lambda: jax.jit(lambda x: x)(_F0)),
    ("jit(jvp) tangent", lambda: jax.jit(lambda t: jax.jvp(lambda i: i * 2, (3,), (t,)))(_F0)[1]),
    ("jnp.asarray", lambda: jnp.asarray(_F0)),
    ("jnp.zeros_like", lambda: jnp.zeros_like(_F0)),
    ("device_put", lambda: jax.device_put(_F0)),
    # Eager operations and jitted calls under a transformation: every executable hands a float0
    # result back as a NumPy array.
    ("lax.broadcast_in_dim", lambda: jax.lax.broadcast_in_dim(_F0, (), ())),
    ("lax.reshape", lambda: jax.lax.reshape(_F0, ())),
    ("cond", lambda: jax.lax.cond(True, lambda: _F0, lambda: _F0)),
    ("jvp(jit) tangent", lambda: jax.jvp(jax.jit(lambda x, i: (x, i)), (1., 2),
                                         (1., _F0))[1][1]),
    ("linearize(jit) tangent", lambda: jax.linearize(jax.jit(lambda x, i: (x, i * 2)), 1., 2)[1](
        1., _F0)[1]),
])
def test_float0_values_are_numpy_arrays(name: str, make: Any) -> None:
    out = make()
    assert type(out) is np.ndarray and out.dtype == jax.dtypes.float0 and out.shape == ()
    assert bool(out == _F0)


@pytest.mark.parametrize("name, call, message", [
    ("add", lambda: jnp.add(_F0, 1.), _JNP_FLOAT0.format("add")),
    ("add", lambda: jnp.zeros(()) + _F0, _JNP_FLOAT0.format("add")),
    ("add", lambda: jax.jit(lambda a: a + 1.)(_F0), _JNP_FLOAT0.format("add")),
    ("multiply", lambda: jnp.multiply(_F0, 2), _JNP_FLOAT0.format("multiply")),
    ("sin", lambda: jnp.sin(_F0), _JNP_FLOAT0.format("sin")),
    ("lax.add", lambda: jax.lax.add(_F0, _F0),
     _LAX_FLOAT0.format("add").replace("float0 array", "float0 at position 0", 1)),
    ("lax.sin", lambda: jax.lax.sin(_F0), _LAX_FLOAT0.format("sin")),
])
def test_float0_refuses_arithmetic(name: str, call: Any, message: str) -> None:
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_jvp_of_jnp_asarray_at_python_numbers_gives_arrays() -> None:
    # JAX 0.4.30: jnp.asarray/jnp.array make Arrays of the primal and tangent; the identity
    # returns the Python numbers themselves.
    for f in (jnp.asarray, jnp.array):
        p, t = jax.jvp(f, (1.,), (2.,))
        assert type(p) is type(jnp.ones(())) and type(t) is type(jnp.ones(()))
        assert (float(p), float(t), p.dtype, p.weak_type) == (1.0, 2.0, np.float32, True)
    assert jax.jvp(lambda x: x, (1.,), (2.,)) == (1.0, 2.0)


class _LeafSwitchingBox:
    """A pytree class that decides from its leaves which are data (Arrays, or the plain
    `object()` leaves vmap rebuilds it with to match axes) and which are static metadata, as
    distrax's distributions do."""

    def __init__(self, loc: Any, scale: Any) -> None:  # type: ignore[no-untyped-def]
        self.loc, self.scale = loc, scale

    def tree_flatten(self) -> Any:  # type: ignore[no-untyped-def]
        leaves = [self.loc, self.scale]
        switch = [type(x) is object or isinstance(x, jax.Array) for x in leaves]
        return [x if s else None for x, s in zip(leaves, switch, strict=True)], (
            [None if s else x for x, s in zip(leaves, switch, strict=True)], switch)

    @classmethod
    def tree_unflatten(cls, aux: Any, children: Any) -> Any:  # type: ignore[no-untyped-def]
        meta, switch = aux
        return cls(*[c if s else m for c, m, s in zip(children, meta, switch, strict=True)])


jax.tree_util.register_pytree_node_class(_LeafSwitchingBox)


def test_vmap_axes_of_a_pytree_class_deciding_from_its_leaves() -> None:
    # JAX 0.4.30 matches in_axes/out_axes against the value rebuilt with object() leaves:
    # [1., 2., 5.], and a Box of [0., 1., 2.] and [0., 2., 4.].
    box = _LeafSwitchingBox(jnp.arange(3.0), jnp.ones(3))
    out = jax.vmap(lambda b, x: b.loc * x + b.scale, in_axes=0)(box, jnp.arange(3.0))
    np.testing.assert_array_equal(out, [1.0, 2.0, 5.0])
    out = jax.vmap(lambda x: _LeafSwitchingBox(x, x * 2), out_axes=0)(jnp.arange(3.0))
    assert type(out) is _LeafSwitchingBox
    np.testing.assert_array_equal(out.loc, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(out.scale, [0.0, 2.0, 4.0])

"""custom_vmap (custom_batching) and custom_transpose, against JAX 0.4.30's recorded values.

JAX's own tests of these (api_test.py's CustomVmapTest and CustomTransposeTest) run in the
conformance harness; these rows pin the values and errors with JAX's data.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.core import ShapedArray
from numjax.custom_batching import custom_vmap, sequential_vmap
from numjax.custom_transpose import custom_transpose

COS_0_1_2 = [1.0, 0.5403023, -0.41614684]  # JAX: vmap(f)(arange(3.)) runs the rule (cos)


@custom_vmap
def _sin(x: Any) -> Any:
    return jnp.sin(x)


@_sin.def_vmap
def _sin_rule(axis_size: int, in_batched: list[bool], xs: Any) -> Any:
    return jnp.cos(xs), in_batched[0]


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_custom_vmap_runs_rule_under_vmap_only(how: str) -> None:
    xs = jnp.arange(3.0)
    wrap = numjax.jit if how == "jit" else (lambda f: f)
    np.testing.assert_allclose(wrap(_sin)(1.0), np.sin(np.float32(1.0)), rtol=1e-6)
    ys = wrap(numjax.vmap(_sin))(xs)
    assert ys.dtype == np.float32
    np.testing.assert_allclose(ys, COS_0_1_2, rtol=1e-6)
    # Nested vmaps: the outer one batches the rule's own operations.
    np.testing.assert_allclose(numjax.vmap(numjax.vmap(_sin))(jnp.ones((2, 3))),
                               np.full((2, 3), 0.5403023), rtol=1e-6)


def test_custom_vmap_jvp_vmaps_the_jvp_of_the_rule() -> None:
    xs = jnp.arange(3.0)
    want_t = [-0.0, -1.6829419, -3.6371896]  # JAX: jvp of cos, d(cos) = -sin * t
    ys, ts = numjax.vmap(lambda x, t: numjax.jvp(_sin, (x,), (t,)))(xs, 2 * xs)
    np.testing.assert_allclose(ys, COS_0_1_2, rtol=1e-6)
    np.testing.assert_allclose(ts, want_t, rtol=1e-6)
    ys, ts = numjax.jvp(numjax.vmap(_sin), (xs,), (2 * xs,))
    np.testing.assert_allclose(ts, want_t, rtol=1e-6)
    text = str(numjax.make_jaxpr(lambda x, t: numjax.jvp(_sin, (x,), (t,)))(1.0, 2.0))
    assert "custom_vmap_call[" in text


def test_custom_vmap_primal_batched_tangent_not() -> None:
    # A linear rule keeps an unbatched tangent unbatched; a nonlinear one batches it (JAX).
    @custom_vmap
    def lin(x: Any) -> Any:
        return 7.0 * x

    @lin.def_vmap
    def lin_rule(axis_size: int, in_batched: list[bool], xs: Any) -> Any:
        return 11.0 * xs, in_batched[0]

    xs, t = jnp.arange(3.0), jnp.float32(4.0)
    ys, ts = numjax.vmap(lambda x, t: numjax.jvp(lin, (x,), (t,)), in_axes=(0, None),
                         out_axes=(0, None))(xs, t)
    np.testing.assert_allclose(ys, [0.0, 11.0, 22.0])
    np.testing.assert_allclose(ts, 44.0)
    with pytest.raises(ValueError, match="vmap has mapped output but out_axes is None"):
        numjax.vmap(lambda x, t: numjax.jvp(_sin, (x,), (t,)), in_axes=(0, None),
                    out_axes=(0, None))(xs, t)


def test_custom_vmap_rule_structure_errors() -> None:
    @custom_vmap
    def f(x: Any) -> Any:
        return jnp.sin(x)

    @f.def_vmap
    def rule_abc(axis_size: int, in_batched: list[bool], xs: Any) -> Any:
        return [jnp.sin(xs), jnp.cos(xs)], in_batched

    with pytest.raises(ValueError, match=r"structure of output value and output batching "
                       r"specification returned by custom vmap rule \(rule_abc\) do not match"):
        numjax.vmap(f)(jnp.arange(3.0))

    @f.def_vmap
    def rule_abc2(axis_size: int, in_batched: list[bool], xs: Any) -> Any:
        return [jnp.sin(xs)], in_batched

    with pytest.raises(ValueError, match=r"structure of output returned by custom vmap rule "
                       r"\(rule_abc2\) does not match that of original custom-vmapped"):
        numjax.vmap(f)(jnp.arange(3.0))


def test_custom_vmap_reverse_mode_is_not_defined() -> None:
    # JAX 0.4.30 fails with a bare AssertionError here; numjax names the missing rule.
    with pytest.raises(NotImplementedError, match="'custom_vmap_call' not implemented"):
        numjax.grad(_sin)(1.0)


def test_sequential_vmap_maps_the_function() -> None:
    g = sequential_vmap(lambda x, y: x * y + 1)
    out = numjax.vmap(g, in_axes=(0, None))(jnp.arange(3.0), 2.0)
    np.testing.assert_array_equal(out, [1.0, 3.0, 5.0])  # JAX's value
    assert "scan[" in str(numjax.make_jaxpr(numjax.vmap(g, in_axes=(0, None)))(
        jnp.arange(3.0), 2.0))


# ---- custom_transpose ----------------------------------------------------------------------

_OUT = ShapedArray((2,), np.float32)


def _half_transposed() -> custom_transpose:
    ct = custom_transpose(lambda r, x: x / r)
    ct.def_transpose(lambda r, t: t / (2.0 * r))  # not the true transpose: shows which runs
    return ct


@pytest.mark.parametrize("how", ["eager", "jit"])
def test_custom_transpose_uses_the_given_transpose(how: str) -> None:
    ct = _half_transposed()
    x = jnp.full(2, 6.0)

    def g(x: Any) -> Any:
        return x + ct(_OUT, jnp.full(2, 3.0), x)

    wrap = numjax.jit if how == "jit" else (lambda f: f)
    np.testing.assert_array_equal(wrap(g)(x), [8.0, 8.0])  # JAX: 6 + 6/3
    (out,) = wrap(numjax.linear_transpose(g, x))(x)
    np.testing.assert_array_equal(out, [7.0, 7.0])  # JAX: 6 + 6/(2*3)
    y, t = numjax.jvp(g, (x,), (jnp.ones(2),))
    np.testing.assert_allclose(t, [1.3333334] * 2, rtol=1e-6)
    assert "custom_transpose_call[" in str(numjax.make_jaxpr(g)(x))
    assert "custom_transpose_call" not in str(
        numjax.make_jaxpr(numjax.linear_transpose(g, x))(x))


def test_custom_transpose_recursive() -> None:
    # JAX api_test's test_recursive: each transpose is the function with the residual + 1.
    def T(f: Any) -> Any:
        return lambda y: numjax.linear_transpose(f, 0.0)(y)[0]

    scalar = ShapedArray((), np.float32)

    @custom_transpose
    def c(r: Any, z: Any) -> Any:
        return r * z

    @c.def_transpose
    def ct(r: Any, z: Any) -> Any:
        return c(scalar, r + 1.0, z)

    h = lambda z: c(scalar, 1.0, z)
    assert [float(k(1.0)) for k in (h, T(h), T(T(h)), T(T(T(h))))] == [1.0, 2.0, 3.0, 4.0]


def test_custom_transpose_errors() -> None:
    ct = _half_transposed()
    x = jnp.full(2, 6.0)
    with pytest.raises(NotImplementedError, match="JVP of custom transpose with respect to "
                       "non-symbolic-zero residuals"):
        numjax.jvp(lambda r: ct(_OUT, r, x), (jnp.full(2, 3.0),), (jnp.ones(2),))
    # JAX names its internal BatchTrace class in this message.
    with pytest.raises(NotImplementedError, match="custom_transpose_call"):
        numjax.vmap(lambda x: ct(_OUT, jnp.full(2, 3.0), x))(jnp.ones((3, 2)))
    bad = custom_transpose(lambda r, x: x[0] + x[1])
    bad.def_transpose(lambda r, t: [t, t, t])
    with pytest.raises(TypeError, match=r"(?s)does not prefix-match structure of primal "
                       r"function's linear inputs under custom transpose rule \(<lambda>\)\."
                       r"\nTranspose rule output: PyTreeDef\(\[\*, \*, \*\]\)\n"
                       r"Linear primal inputs: PyTreeDef\(\[\*, \*\]\)"):
        numjax.linear_transpose(lambda x: bad(ShapedArray((), np.float32), (), x),
                                [1.0, 1.0])(1.0)


def test_cond_linear_operands() -> None:
    # JAX records `linear` in the cond equation and checks its tree against the operands'.
    text = str(numjax.make_jaxpr(lambda x, y: lax.cond(True, lambda x, y: x, lambda x, y: y,
                                                       x, y, linear=(True, False)))(1.0, 2.0))
    assert "linear=(True, False)" in text
    with pytest.raises(TypeError, match="linear tree and operand tree mismatch"):
        lax.cond(True, lambda x: x, lambda x: x, 1.0, linear=(True, False))


def test_def_methods_forward_through_wrappers() -> None:
    # JAX: a stack of custom_* wrappers defines every rule on the outermost one.
    wrappers = [numjax.custom_jvp, custom_transpose, custom_vmap]
    for order in itertools.permutations(wrappers):
        f: Any = lambda x: x + 1.0
        for wrap in order:
            f = wrap(f)
        for method in ("defjvp", "def_vmap", "def_transpose"):
            assert callable(getattr(f, method))
    with pytest.raises(AttributeError, match="has no attribute 'defvjp'"):
        custom_vmap(numjax.custom_jvp(lambda x: x)).defvjp  # noqa: B018

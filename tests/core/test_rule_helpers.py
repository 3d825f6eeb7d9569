"""The helpers that build a primitive's derivative: `ad.defjvp` (rules reading the primal output
with `uses_output`), JAX's `defjvp2` name for it, `ad.defbilinear`, and the elementwise
`unary`/`binary` declarations taking `jvp=`. Checked against finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
from numjax import lax
from numjax._src.core import trace
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.lax.rules import FLOAT, binary, unary
from numjax.experimental import enable_x64
from numjax.interpreters import ad as public_ad
from numjax.test_util import check_grads

rng = np.random.default_rng(0)
X = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float64)
Y = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float64)


def _private(p: Primitive) -> Primitive:
    """Kept out of the global list, so the rule-coverage test does not see these primitives."""
    trace.primitives.remove(p)
    return p


# exp whose rule reuses its output: d exp x = t * exp x.
exp_from_output_p = _private(unary("exp_from_output", np.exp, FLOAT, uses_output=True,
                                   jvp=lambda t, ans, x: lax.mul(t, ans)))
# x / y with one rule per operand, the second reading the output: d(x/y)/dy = -t * ans / y.
quotient_p = _private(binary("quotient", np.divide, FLOAT, uses_output=True,
                             jvp=(lambda t, ans, x, y: lax.div(t, y),
                                  lambda t, ans, x, y: lax.neg(lax.div(lax.mul(t, ans), y)))))
# sin declared through JAX's name for the same helper.
sin_twice_p = _private(unary("sin_via_defjvp2", np.sin, FLOAT))
public_ad.defjvp2(sin_twice_p, lambda t, ans, x: lax.mul(t, lax.cos(x)))


def _product_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if ad.is_undefined_primal(x):
        return [ad.Zero(x.aval) if type(ct) is ad.Zero else product_p.bind(ct, y), None]
    return [None, ad.Zero(y.aval) if type(ct) is ad.Zero else product_p.bind(x, ct)]


# x * y declared bilinear: its tangent and transpose come from the one helper.
product_p = _private(binary("product", np.multiply, FLOAT))
ad.defbilinear(product_p, _product_transpose)


@pytest.mark.parametrize("f, args", [
    (exp_from_output_p.bind, (X,)),
    (quotient_p.bind, (X, Y)),
    (sin_twice_p.bind, (X,)),
    (product_p.bind, (X, Y)),
], ids=["unary_uses_output", "binary_uses_output", "defjvp2", "defbilinear"])
def test_derivatives_match_finite_differences(f: Any, args: tuple[Any, ...]) -> None:
    with enable_x64():
        check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_a_rule_reading_the_output_does_not_compute_it_again() -> None:
    jaxpr = numjax.make_jaxpr(lambda x, t: numjax.jvp(exp_from_output_p.bind, (x,), (t,)))(
        np.float32(1), np.float32(1))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["exp_from_output", "mul"]


def test_bilinear_tangent_is_the_product_with_each_tangent() -> None:
    # d(x y) = tx y + x ty: with one tangent zero, one product and no sum.
    one = numjax.make_jaxpr(lambda x, y, t: numjax.jvp(
        lambda x: product_p.bind(x, y), (x,), (t,)))(np.float32(2), np.float32(3), np.float32(1))
    assert [e.primitive.name for e in one.jaxpr.eqns] == ["product", "product"]
    both = numjax.make_jaxpr(lambda x, y, t: numjax.jvp(
        product_p.bind, (x, y), (t, t)))(np.float32(2), np.float32(3), np.float32(1))
    assert [e.primitive.name for e in both.jaxpr.eqns] == ["product", "product", "product",
                                                           "add_any"]
    primal, tangent = numjax.jvp(product_p.bind, (np.float32(2), np.float32(3)),
                                 (np.float32(1), np.float32(10)))
    assert (float(primal), float(tangent)) == (6.0, 23.0)

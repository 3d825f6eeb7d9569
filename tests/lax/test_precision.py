"""lax.Precision and the precision argument of products and convolutions: JAX 0.4.30's enum,
its string names, how jaxprs record it, and its error (texts recorded from JAX)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

P = lax.Precision
A = jnp.ones((2, 2))


def test_the_enum_reads_as_jax_s() -> None:
    assert list(P) == [P.DEFAULT, P.HIGH, P.HIGHEST]
    assert (repr(P.HIGHEST), str(P.HIGHEST), P.HIGHEST.name, P.HIGHEST.value) == (
        "Precision.HIGHEST", "HIGHEST", "HIGHEST", 2)
    names = {"highest": P.HIGHEST, "float32": P.HIGHEST, "high": P.HIGH,
             "bfloat16_3x": P.HIGH, "tensorfloat32": P.HIGH, "default": P.DEFAULT,
             "bfloat16": P.DEFAULT, "fastest": P.DEFAULT}
    for name, level in names.items():
        assert P(name) is level
    assert P(1) is P.HIGH and P["HIGH"] is P.HIGH and P.HIGH != "high"
    with pytest.raises(ValueError, match="^'bogus' is not a valid Precision$"):
        P("bogus")


@pytest.mark.parametrize("precision,text", [
    ("highest", "precision=(Precision.HIGHEST, Precision.HIGHEST)"),
    (P.HIGH, "precision=(Precision.HIGH, Precision.HIGH)"),
    (("highest", "default"), "precision=(Precision.HIGHEST, Precision.DEFAULT)"),
    ((P.DEFAULT, P.HIGHEST), "precision=(Precision.DEFAULT, Precision.HIGHEST)"),
])
def test_jaxprs_record_one_level_per_operand(precision: Any, text: str) -> None:
    assert text in str(jax.make_jaxpr(lambda a: jnp.dot(a, a, precision=precision))(A))
    np.testing.assert_array_equal(jax.jit(lambda a: jnp.dot(a, a, precision=precision))(A),
                                  np.full((2, 2), 2.0))


def test_convolutions_take_the_same_argument() -> None:
    conv = lambda a: lax.conv_general_dilated(a[None, None], a[None, None], (1, 1), "VALID",
                                              precision="high")
    assert "precision=(Precision.HIGH, Precision.HIGH)" in str(jax.make_jaxpr(conv)(A))


@pytest.mark.parametrize("bad", ["bogus", 3, ("highest",), ("a", "b", "c"),
                                 (P.DEFAULT, "float32")])
def test_anything_else_is_refused_with_jax_s_text(bad: Any) -> None:
    message = ("Precision argument must be None, a string in ['highest', 'float32', 'high', "
               "'bfloat16_3x', 'tensorfloat32', 'default', 'bfloat16', 'fastest', None], a "
               "lax.Precision value or a tuple of two lax.Precision values or strings; got "
               f"{bad}.")
    with pytest.raises(ValueError) as info:
        jnp.dot(A, A, precision=bad)
    assert str(info.value) == message

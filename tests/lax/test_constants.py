"""The three constant helpers of `lax/constants.py`, directly and through functions built on
each, against JAX 0.4.30: a rule's constant keeps the operand's weak type (`const_like`), a jnp
or scipy function's constant is weak only for a weak scalar (`lax_const`), and a collective on
a constant multiplies by a NumPy value (`host_const_like`)."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.lax import constants
from numjax._src.lax.constants import const_like, host_const_like, lax_const

W = lambda: lax.broadcast(2.0, (2,))  # a weakly typed float32[2]


def test_doctests() -> None:
    result = doctest.testmod(constants)
    assert result.attempted == 3 and result.failed == 0


@pytest.mark.parametrize("helper, x, weak", [
    (const_like, 2.0, True),
    (const_like, np.ones(2, np.float32), False),
    (const_like, W, True),
    (lax_const, 2.0, True),
    (lax_const, np.ones(2, np.float32), False),
    (lax_const, W, False),
])
def test_weak_type(helper: Callable[[Any, Any], Any], x: Any, weak: bool) -> None:
    c = helper(x() if callable(x) else x, 3)
    assert (c.dtype, c.weak_type, float(c)) == (np.float32, weak, 3.0)


def test_host_const_like() -> None:
    assert type(host_const_like(2.0, 3)) is float
    assert type(host_const_like(True, 0)) is bool
    c = host_const_like(W(), 3)
    assert type(c) is np.ndarray and c.dtype == np.float32 and c.shape == ()


# Functions whose constants come from each helper: JAX 0.4.30's dtype, weak type and value.
CASES: list[tuple[str, Callable[[], Any], bool, list[float] | float]] = [
    ("grad_tan_weak_scalar", lambda: numjax.grad(lax.tan)(1.0), True, 3.425518751144409),
    ("jvp_log1p_weak_array", lambda: numjax.jvp(lax.log1p, (W(),), (W(),))[1], True,
     [0.6666666865348816] * 2),
    ("deg2rad_weak_scalar", lambda: jnp.deg2rad(2.0), True, 0.03490658476948738),
    ("deg2rad_weak_array", lambda: jnp.deg2rad(W()), False, [0.03490658476948738] * 2),
    ("sinc_weak_array", lambda: jnp.sinc(W()), False, [2.7827534054836178e-08] * 2),
    ("norm_logpdf_weak_array", lambda: numjax.scipy.stats.norm.logpdf(W()), False,
     [-2.918938636779785] * 2),
    ("cauchy_cdf_weak_array", lambda: numjax.scipy.stats.cauchy.cdf(W()), False,
     [0.8524163961410522] * 2),
    ("gradient_weak", lambda: jnp.gradient(lax.broadcast(1.0, (4,)) * 1.0), True, [0.0] * 4),
    ("diag_weak_k1", lambda: jnp.diag(W(), 1), True,
     [[0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),
    ("psum_constant_weak_array_vmap",
     lambda: numjax.vmap(lambda x: (lax.psum(W(), "i"), x)[0], axis_name="i")(jnp.ones(3)),
     False, [[6.0, 6.0]] * 3),
    ("pmean_constant_weak_array_vmap",
     lambda: numjax.vmap(lambda x: (lax.pmean(W(), "i"), x)[0], axis_name="i")(jnp.ones(3)),
     False, [[2.0, 2.0]] * 3),
    ("psum_unmapped_weak_scalar_vmap",
     lambda: numjax.vmap(lambda x: lax.psum((2.0, x), "i")[0], axis_name="i")(jnp.ones(3)),
     True, [6.0] * 3),
]


@pytest.mark.parametrize("name, fn, weak, value", CASES, ids=[c[0] for c in CASES])
def test_functions_built_on_them(name: str, fn: Callable[[], Any], weak: bool,
                                 value: list[float] | float) -> None:
    out = fn()
    assert (out.dtype, out.weak_type) == (np.float32, weak)
    np.testing.assert_allclose(np.asarray(out), np.asarray(value, np.float32), rtol=1e-6)

"""Tangent weak types through jitted functions, against JAX 0.4.30: JAX differentiates every
jit (inlined or not) through its jaxpr, whose tangent inputs take their primal's type, so a
weak primal with a strong float32 tangent gives a weak tangent out; a primitive applied
directly keeps the tangent's own type. Each row: the jvp and JAX's (primal weak, tangent
weak) and values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
from numjax import lax, nn

T = np.float32(1.0)
CASES: list[tuple[str, Any, tuple[bool, bool], tuple[float, float]]] = [
    ("sigmoid", lambda: numjax.jvp(nn.sigmoid, (0.5,), (T,)), (True, True),
     (0.622459352016449, 0.23500370979309082)),
    ("jit_of_sigmoid", lambda: numjax.jit(lambda: numjax.jvp(nn.sigmoid, (0.5,), (T,)))(),
     (True, True), (0.622459352016449, 0.23500370979309082)),
    ("inline_jit", lambda: numjax.jvp(numjax.jit(lambda x: x * 2, inline=True), (0.5,), (T,)),
     (True, True), (1.0, 2.0)),
    ("jit", lambda: numjax.jvp(numjax.jit(lambda x: x * 2), (0.5,), (T,)), (True, True),
     (1.0, 2.0)),
    ("inline_jit_sin", lambda: numjax.jvp(numjax.jit(lax.sin, inline=True), (0.5,), (T,)),
     (True, True), (0.4794255495071411, 0.8775825500488281)),
    ("lax_logistic", lambda: numjax.jvp(lax.logistic, (0.5,), (T,)), (True, False),
     (0.622459352016449, 0.23500370979309082)),
    ("lax_sin", lambda: numjax.jvp(lax.sin, (0.5,), (T,)), (True, False),
     (0.4794255495071411, 0.8775825500488281)),
]


@pytest.mark.parametrize(("name", "fn", "weak", "values"), CASES, ids=[c[0] for c in CASES])
def test_tangent_weak_type_matches_jax(name: str, fn: Any, weak: tuple[bool, bool],
                                       values: tuple[float, float]) -> None:
    primal, tangent = fn()
    assert (primal.weak_type, tangent.weak_type) == weak
    assert (primal.dtype, tangent.dtype) == (np.float32, np.float32)
    np.testing.assert_allclose([float(primal), float(tangent)], values, rtol=1e-6)

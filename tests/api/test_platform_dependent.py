"""lax.platform_dependent: every branch traced, the one for the compiling platform (cpu) chosen
at compile time through a platform_index primitive, with switch's transformation rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax


def _f(x: Any) -> Any:
    return lax.platform_dependent(x, cpu=jnp.sin, tpu=jnp.cos, default=jnp.tan)


def test_the_cpu_branch_runs_under_every_transformation() -> None:
    expected = np.sin(np.float32(1.0))
    for fn in (_f, jax.jit(_f)):
        np.testing.assert_allclose(fn(1.0), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(_f)(1.0), np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(_f)(jnp.arange(3.0)), np.sin(np.arange(3.0)), rtol=1e-6)
    # As JAX 0.4.30 prints it.
    assert str(jax.make_jaxpr(_f)(1.0)) == """{ lambda ; a:f32[]. let
    b:i32[] = platform_index[has_default=True platforms=(('cpu',), ('tpu',))] \n\
    c:i32[] = clamp 0 b 2
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sin e in (f,) }
        { lambda ; g:f32[]. let h:f32[] = cos g in (h,) }
        { lambda ; i:f32[]. let j:f32[] = tan i in (j,) }
      )
      linear=(False,)
    ] c a
  in (d,) }"""


def test_defaults_shared_branches_and_errors() -> None:
    assert float(lax.platform_dependent(2.0, tpu=jnp.cos, default=lambda x: x * 3)) == 6.0
    assert float(lax.platform_dependent(1.0, 2.0, cpu=lambda a, b: a + b,
                                        cuda=lambda a, b: a)) == 3.0
    shared = lambda x: x + 1
    text = str(jax.make_jaxpr(lambda x: lax.platform_dependent(x, cpu=shared, cuda=shared,
                                                               default=jnp.sin))(1.0))
    assert "platforms=(('cpu', 'cuda'),)" in text
    with pytest.raises(ValueError, match=r"^Use 'cuda' or 'rocm' for lax.platform_dependent.$"):
        lax.platform_dependent(2.0, gpu=jnp.cos)
    with pytest.raises(NotImplementedError) as info:
        lax.platform_dependent(2.0, tpu=jnp.cos)
    assert str(info.value) == ("MLIR translation rule for primitive 'platform_index(platforms="
                               "(('tpu',),), has_default=False)' not found for platform cpu")
    # Under jit the one branch is taken directly and the unused index is dropped, as in JAX.
    one = lambda x: lax.platform_dependent(x, tpu=jnp.cos)
    np.testing.assert_allclose(jax.jit(one)(2.0), np.cos(2.0), rtol=1e-6)
    assert str(jax.make_jaxpr(one)(2.0)) == """{ lambda ; a:f32[]. let
    _:i32[] = platform_index[has_default=False platforms=(('tpu',),)] \n\
    b:f32[] = cos a
  in (b,) }"""

"""`jax.xla_computation` (deprecated in JAX 0.4.30, still served): JAX's warning, arguments and
errors, with numjax's lowered program standing in for XLA's HLO."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

AOT = (
    "Please use the ahead of time APIs. You can read more here: "
    "https://jax.readthedocs.io/en/latest/aot.html"
)


def xla_computation(*args: Any, **kwargs: Any) -> Any:
    with pytest.warns(
        DeprecationWarning,
        match=r"^jax\.xla_computation is deprecated\. Please use the AOT APIs\.$",
    ):
        make = numjax.xla_computation
    return make(*args, **kwargs)


def test_text_is_the_lowered_program() -> None:
    f = lambda x: jnp.sin(jnp.cos(x))
    c = xla_computation(f)(2.0)
    assert c.as_hlo_text() == numjax.jit(f).lower(2.0).as_text()
    assert c.name() == "xla_computation_<lambda>"


def test_static_argnums_leave_the_program() -> None:
    c = xla_computation(lambda x, y: x + y, static_argnums=(1,))(2, 3)
    assert c.as_hlo_text().startswith("def jitted(a_):")


def test_return_shape() -> None:
    # JAX 0.4.30: (ShapeDtypeStruct(shape=(), dtype=int32), ShapeDtypeStruct(shape=(2,),
    # dtype=float32)).
    _, shapes = xla_computation(lambda x: (x + 1, jnp.zeros(2, jnp.float32)), return_shape=True)(
        np.int32(1)
    )
    assert shapes == (
        numjax.ShapeDtypeStruct((), jnp.int32),
        numjax.ShapeDtypeStruct((2,), jnp.float32),
    )


def test_axis_env_binds_collective_axes() -> None:
    def g(x: Any) -> Any:
        return lax.psum(x, "i"), lax.psum(x, ("i", "j")), lax.psum(1, "i")

    c = xla_computation(g, axis_env=[("i", 4), ("j", 2)])(5.0)
    assert "psum" in c.as_hlo_text()
    with pytest.raises(NameError, match="unbound axis name: i"):
        xla_computation(g)(5.0)


@pytest.mark.parametrize("option", ["in_parts", "out_parts", "instantiate_const_outputs"])
def test_removed_options(option: str) -> None:
    value = True if option == "instantiate_const_outputs" else 1
    with pytest.raises(ValueError, match=f"^{option} has been deprecated. " + re.escape(AOT)):
        xla_computation(lambda x: x, **{option: value})(1.0)


def test_errors() -> None:
    with pytest.raises(TypeError, match="^Expected a callable value, got 1$"):
        xla_computation(1)
    message = (
        "jitted function has static_argnums=(2,), donate_argnums=() but was called with only 2 "
        "positional arguments."
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        xla_computation(lambda x, y: x, static_argnums=(2,))(1.0, 2.0)


@pytest.mark.parametrize(
    "method",
    ["as_hlo_module", "get_hlo_module", "as_serialized_hlo_module_proto", "program_shape"],
)
def test_no_hlo_structures(method: str) -> None:
    c = xla_computation(lambda x: x * 2)(1.0)
    with pytest.raises(NotImplementedError, match="not to XLA's HLO"):
        getattr(c, method)()


def test_programs_with_inner_transformations() -> None:
    c = xla_computation(
        lambda x: numjax.grad(lambda y: lax.scan(lambda a, b: (a * b, a), y, jnp.ones(3))[0])(x)
    )(2.0)
    assert c.as_hlo_text()
    with warnings.catch_warnings():  # JAX may warn that the donation is unusable
        warnings.filterwarnings("ignore", "Some donated buffers were not usable")
        assert xla_computation(lambda x: None, donate_argnums=(0,))(3).as_hlo_text()

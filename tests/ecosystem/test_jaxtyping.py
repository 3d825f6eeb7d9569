"""jaxtyping 0.2.30 (with typeguard 2.13.3) checking numjax arrays' shapes and dtypes.

Expected outcomes were recorded from JAX 0.4.30 running the same calls.
"""

# No `from __future__ import annotations`: typeguard 2 checks the annotation objects themselves.

import numpy as np
import pytest
from ecosystem_import import import_library

jaxtyping = import_library("jaxtyping")
typeguard = import_library("typeguard")


def _checked():  # type: ignore[no-untyped-def]
    # Read at test time: jaxtyping imports `jax` when its JAX names are first used.
    Array, Float = jaxtyping.Array, jaxtyping.Float

    @jaxtyping.jaxtyped(typechecker=typeguard.typechecked)
    def f(x: Float[Array, "b n"], y: Float[Array, "n"]) -> Float[Array, "b"]:  # noqa: F722, F821
        return x @ y

    return f


def test_annotated_function_checks_shapes_and_dtypes() -> None:
    import jax
    import jax.numpy as jnp

    f = _checked()
    np.testing.assert_array_equal(f(jnp.ones((2, 3)), jnp.ones(3)), [3.0, 3.0])
    with pytest.raises(jaxtyping.TypeCheckError):
        f(jnp.ones((2, 3)), jnp.ones(4))  # n is 3, then 4
    with pytest.raises(jaxtyping.TypeCheckError):
        f(jnp.ones((2, 3), jnp.int32), jnp.ones(3))  # not floating
    np.testing.assert_array_equal(jax.jit(f)(jnp.ones((2, 3)), 2 * jnp.ones(3)), [6.0, 6.0])
    assert jax.vmap(f, in_axes=(0, None))(jnp.ones((4, 2, 3)), jnp.ones(3)).shape == (4, 2)


def test_isinstance() -> None:
    import jax.numpy as jnp

    Array = jaxtyping.Array
    assert isinstance(jnp.ones(3), jaxtyping.Float[Array, "3"])
    assert not isinstance(jnp.ones(3, int), jaxtyping.Float[Array, "3"])
    assert isinstance(jnp.ones(3, jnp.int32), jaxtyping.Int[Array, "_"])
    assert isinstance(jnp.ones((2, 2)), jaxtyping.Shaped[Array, "n n"])

"""chex 0.1.86 on numjax: assertions, dataclasses, restrict_backends and chexify.

Expected messages were recorded from JAX 0.4.30 running the same calls.
"""

from __future__ import annotations

import re

import pytest
from ecosystem_import import import_library

chex = import_library("chex")

# chex's jittable assertions call the deprecated `jax.tree_map`, which warns as in JAX.
pytestmark = pytest.mark.filterwarnings("ignore:jax.tree_map is deprecated:DeprecationWarning")

SHAPE = ("[Chex] Assertion assert_shape failed: Error in shape compatibility check: input 0 has "
         "shape (2, 3) but expected (3, 2).")
RANK = ("[Chex] Assertion assert_rank failed: Error in rank compatibility check: input 0 has rank "
        "2 (shape (2, 3)) but expected 3.")
TYPE = ("[Chex] Assertion assert_type failed: Error in type compatibility check: input 0 has type "
        "float32 but expected int32.")
CLOSE = ("[Chex] Assertion assert_trees_all_close failed:  Trees 0 and 1 differ in leaves 'a': \n"
         "Not equal to tolerance rtol=1e-06, atol=0\n")
FINITE = ("[Chex] Assertion assert_tree_all_finite failed: Tree contains non-finite value: "
          "{'a': 'Nonfinite'}.")


def test_assertions() -> None:
    import jax.numpy as jnp

    x = jnp.ones((2, 3))
    chex.assert_shape(x, (2, 3))
    chex.assert_rank(x, 2)
    chex.assert_type(x, jnp.float32)
    chex.assert_axis_dimension(x, 1, 3)
    chex.assert_trees_all_close({"a": x}, {"a": x + 1e-7})
    cases = [
        (lambda: chex.assert_shape(x, (3, 2)), SHAPE),
        (lambda: chex.assert_rank(x, 3), RANK),
        (lambda: chex.assert_type(x, jnp.int32), TYPE),
        (lambda: chex.assert_tree_all_finite({"a": jnp.array([1.0, jnp.inf])}), FINITE),
    ]
    for call, message in cases:
        with pytest.raises(AssertionError) as info:
            call()
        assert str(info.value) == message
    with pytest.raises(AssertionError) as info:
        chex.assert_trees_all_close({"a": x}, {"a": x + 1.0})
    assert str(info.value).startswith(CLOSE)  # NumPy's own report follows, per NumPy version


def test_dataclass_is_a_pytree() -> None:
    import jax
    import jax.numpy as jnp

    @chex.dataclass
    class Params:
        a: chex.Array
        b: chex.Array

    p = Params(a=jnp.ones(2), b=jnp.zeros(3))
    assert [leaf.shape for leaf in jax.tree_util.tree_leaves(p)] == [(2,), (3,)]
    q = jax.jit(lambda t: jax.tree_util.tree_map(lambda v: v + 1, t))(p)
    assert isinstance(q, Params)
    assert q.a.tolist() == [2.0, 2.0] and q.b.tolist() == [1.0, 1.0, 1.0]


def test_restrict_backends() -> None:
    import jax
    import jax.numpy as jnp

    f = jax.jit(lambda v: v * 2)
    f(jnp.ones(3))
    with chex.restrict_backends(forbidden=["cpu"]):
        f(jnp.ones(3))  # a cache hit compiles nothing
        with pytest.raises(RuntimeError) as info:
            f(jnp.ones(4))
    assert type(info.value).__name__ == "RestrictedBackendError"
    assert str(info.value) == (
        "Compiling a JAX program for cpu is forbidden by restrict_backends().")


def test_chexify_reports_value_assertions_from_jitted_code() -> None:
    import jax
    import jax.numpy as jnp

    @chex.chexify
    @jax.jit
    def g(v):  # type: ignore[no-untyped-def]
        chex.assert_tree_all_finite(v)
        return v * 2

    assert g(jnp.ones(2)).tolist() == [2.0, 2.0]
    chex.block_until_chexify_assertions_complete()
    with pytest.raises(AssertionError) as info:
        g(jnp.array([1.0, jnp.nan]))
        chex.block_until_chexify_assertions_complete()
    message = str(info.value)
    assert message.startswith("[Chex] chexify assertion 'assert_tree_all_finite' failed: Tree "
                              "contains non-finite value: nan. [failed at: ")
    assert re.search(r"test_chex\.py:\d+\] \(`check` failed\)$", message), message


def test_value_assertion_under_jit_needs_chexify() -> None:
    import jax
    import jax.numpy as jnp

    with pytest.raises(RuntimeError, match="Value assertions can only be called from functions "
                       "wrapped with `@chex.chexify`"):
        jax.jit(chex.assert_tree_all_finite)(jnp.ones(2))

"""numjax.flatten_util.ravel_pytree against JAX 0.4.30's results (recorded as data): dtype
promotion of the leaves, unravel restoring shapes and dtypes, jit/grad/vmap, and JAX's errors
for a vector of the wrong dtype or size."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax.flatten_util import ravel_pytree


def _desc(x: Any) -> tuple[Any, str, bool]:
    return np.asarray(x).tolist(), str(x.dtype), x.weak_type


CASES = [  # (pytree, JAX's flat vector, JAX's unravel(flat) leaves as (values, dtype, weak))
    (lambda: {"a": jnp.arange(3, dtype=jnp.int32), "b": (jnp.ones((2, 2)), 2.5),
              "c": jnp.bfloat16(1.5)},
     ([0.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 2.5, 1.5], "float32", False),
     [([0, 1, 2], "int32", False), ([[1.0, 1.0], [1.0, 1.0]], "float32", False),
      (2.5, "float32", False), (1.5, "bfloat16", False)]),
    (lambda: [1, 2.0], ([1.0, 2.0], "float32", False),
     [(1, "int32", False), (2.0, "float32", False)]),
    (lambda: [1, 2], ([1, 2], "int32", False), [(1, "int32", False), (2, "int32", False)]),
    (lambda: [True, np.int8(3)], ([1, 3], "int8", False),
     [(True, "bool", False), (3, "int8", False)]),
    (lambda: (jnp.float16(1.0), jnp.ones(2)), ([1.0, 1.0, 1.0], "float32", False),
     [(1.0, "float16", False), ([1.0, 1.0], "float32", False)]),
    (lambda: {"x": 1.0}, ([1.0], "float32", False), [(1.0, "float32", False)]),
    (lambda: np.float64(2.0), ([2.0], "float32", False), [(2.0, "float32", False)]),
    (lambda: [jnp.complex64(1 + 2j), 1.0], ([1 + 2j, 1 + 0j], "complex64", False),
     [(1 + 2j, "complex64", False), (1.0, "float32", False)]),
    (lambda: [jnp.ones((0, 3))], ([], "float32", False), [([], "float32", False)]),
    (lambda: [], ([], "float32", False), []),
    (lambda: None, ([], "float32", False), []),
]


@pytest.mark.parametrize("make,flat,leaves", CASES, ids=[str(i) for i in range(len(CASES))])
def test_ravel_and_unravel(make: Any, flat: Any, leaves: Any) -> None:
    tree = make()
    out, unravel = ravel_pytree(tree)
    assert _desc(out) == flat
    back = unravel(out)
    assert numjax.tree_util.tree_structure(back) == numjax.tree_util.tree_structure(tree)
    got = [_desc(leaf) for leaf in numjax.tree_util.tree_leaves(back)]
    assert [(np.asarray(v).tolist(), d, w) for v, d, w in got] == leaves
    assert unravel == ravel_pytree(tree)[1] and hash(unravel) == hash(ravel_pytree(tree)[1])


def test_transformations() -> None:
    tree = {"a": jnp.ones(2), "b": 3.0}
    np.testing.assert_array_equal(numjax.jit(lambda t: ravel_pytree(t)[0])(tree), [1, 1, 3])
    g = numjax.grad(lambda t: (ravel_pytree(t)[0] ** 2).sum())(tree)
    assert _desc(g["a"]) == ([2.0, 2.0], "float32", False)
    assert _desc(g["b"]) == (6.0, "float32", True)  # as JAX: the weak Python scalar's gradient
    batched = numjax.vmap(lambda t: ravel_pytree(t)[0])({"a": jnp.ones((4, 2)),
                                                          "b": jnp.arange(4.0)})
    np.testing.assert_array_equal(batched, [[1, 1, 0], [1, 1, 1], [1, 1, 2], [1, 1, 3]])
    # unravel under jit and grad: a flat-parameter loss.
    flat, unravel = ravel_pytree({"w": jnp.arange(3.0), "b": jnp.float32(1.0)})
    loss = lambda v: (unravel(v)["w"] * unravel(v)["b"]).sum()
    np.testing.assert_array_equal(numjax.jit(numjax.grad(loss))(flat), [3, 1, 1, 1])  # b first
    np.testing.assert_array_equal(numjax.jit(unravel)(flat)["w"], [0, 1, 2])


ERRORS = [  # (leaves, wrong vector, JAX 0.4.30's TypeError message)
    ([1.0], jnp.ones(5), "cannot reshape array of shape (5,) (size 5) into shape () (size 1)"),
    ([1.0], jnp.ones((2, 2)),
     "cannot reshape array of shape (2, 2) (size 4) into shape () (size 1)"),
    ([jnp.ones(2, jnp.int32), jnp.ones(2)], jnp.ones(4, jnp.int32),
     "unravel function given array of dtype int32, but expected dtype float32"),
    ([jnp.ones(2, jnp.int32), jnp.ones(2)], jnp.ones(5),
     "cannot reshape array of shape (3,) (size 3) into shape (2,) (size 2)"),
    ([jnp.ones(2), jnp.ones(2)], jnp.ones(3),
     "cannot reshape array of shape (1,) (size 1) into shape (2,) (size 2)"),
]


@pytest.mark.parametrize("leaves,vector,message", ERRORS, ids=[str(i) for i in range(5)])
def test_unravel_errors(leaves: Any, vector: Any, message: str) -> None:
    _, unravel = ravel_pytree(leaves)
    with pytest.raises(TypeError) as info:
        unravel(vector)
    assert str(info.value) == message


def test_unravel_of_a_single_dtype_keeps_the_given_dtype() -> None:
    # JAX checks the dtype only when the leaves had different dtypes.
    _, unravel = ravel_pytree([jnp.ones(2), jnp.ones(2)])
    assert [_desc(x) for x in unravel(jnp.ones(4, jnp.int32))] == [([1, 1], "int32", False)] * 2

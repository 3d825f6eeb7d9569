"""vmap of dot_general: how the batch axis of one batched operand is carried (JAX 0.4.30's
staged primitives recorded as data), against a loop over the examples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

# vmap of dot_general with one operand batched: (lhs shape, rhs shape, dimension numbers) of
# one example. JAX 0.4.30 keeps the batch axis where it is, one more free axis of its
# operand, so with the batch axis at the last free position of the result no transpose is
# staged (the rows below: which axis, out_axes, and JAX's primitives).
DOT_CASES = [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ()))),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
    ((3, 4), (5, 4), (((1,), (1,)), ((), ()))),
    ((2, 3), (3,), (((1,), (0,)), ((), ()))),
    ((2, 3, 4), (4, 2), (((2,), (0,)), ((0,), (1,)))),
]
ONE_SIDE_BATCHED = [  # (case, batched operand, its batch axis, out_axes, JAX's primitives)
    (0, "lhs", 0, 0, ["dot_general"]),
    (0, "lhs", 1, 0, ["dot_general", "transpose"]),
    (0, "rhs", 2, -1, ["dot_general"]),
    (0, "rhs", 0, -1, ["dot_general", "transpose"]),
    (1, "rhs", 3, -1, ["dot_general"]),
    (2, "rhs", 1, -1, ["dot_general"]),
    (2, "rhs", 2, -1, ["dot_general"]),
    (3, "lhs", 1, -1, ["dot_general"]),
    (3, "lhs", 2, -1, ["dot_general"]),
    (3, "rhs", 0, -1, ["dot_general"]),
    (4, "lhs", 3, -1, ["dot_general"]),
    (4, "rhs", 1, -1, ["dot_general"]),
    (4, "lhs", 1, 0, ["dot_general", "transpose"]),
]


@pytest.mark.parametrize("row", ONE_SIDE_BATCHED)
def test_vmap_of_dot_general_keeps_the_batch_axis_in_place(row: Any) -> None:
    case, side, axis, out_axes, prims = row
    lhs_shape, rhs_shape, dims = DOT_CASES[case]
    rng = np.random.RandomState(case)
    shapes = {"lhs": list(lhs_shape), "rhs": list(rhs_shape)}
    shapes[side].insert(axis, 3)
    x = rng.randn(*shapes["lhs"]).astype(np.float32)
    y = rng.randn(*shapes["rhs"]).astype(np.float32)
    in_axes = (axis, None) if side == "lhs" else (None, axis)
    f = numjax.vmap(lambda a, b: lax.dot_general(a, b, dims), in_axes=in_axes,
                    out_axes=out_axes)
    examples = [lax.dot_general(np.take(x, i, axis) if side == "lhs" else x,
                                np.take(y, i, axis) if side == "rhs" else y, dims)
                for i in range(3)]
    np.testing.assert_allclose(f(x, y), np.stack(examples, out_axes), rtol=1e-5, atol=1e-5)
    assert [e.primitive.name for e in numjax.make_jaxpr(f)(x, y).eqns] == prims


def test_nested_vmap_of_vdot_is_one_dot_general() -> None:
    # batching_test's testNestedBatchingMatMat: JAX 0.4.30 stages one dot_general.
    matvec = numjax.vmap(jnp.vdot, in_axes=(0, None))
    matmat = numjax.vmap(matvec, in_axes=(None, 1), out_axes=1)
    a, b = np.ones((4, 3), np.float32), np.arange(6.0, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(matmat(a, b), a @ b)
    assert [e.primitive.name for e in numjax.make_jaxpr(matmat)(a, b).eqns] == ["dot_general"]

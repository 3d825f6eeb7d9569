"""numjax.ops.segment_* against results recorded from JAX 0.4.30 (`jax.ops`): identities
for empty segments, dropped out-of-range ids, buckets, clip mode, gradients (also against
finite differences), vmap, jit and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import ops
from numjax.errors import ConcretizationTypeError
from numjax.test_util import check_grads

INF = np.inf
IDS = np.array([0, 0, 2, 5, -1, 2, 1], np.int32)  # 5 and -1 are out of range for 4 segments
F32 = np.array([1.5, -2.0, 3.0, 4.0, 5.0, -6.0, 0.5], np.float32)
DATA = {
    "f32": F32,
    "i32": np.array([3, -7, 2, 9, 1, 4, 0], np.int32),
    "bool": np.array([True, False, False, True, True, False, False]),
    "u8": np.array([3, 7, 2, 9, 1, 4, 0], np.uint8),
    "bf16": F32,
}
OPS = ["segment_sum", "segment_prod", "segment_max", "segment_min"]

RESULTS = {  # (op, case) -> JAX 0.4.30's (values, dtype, weak_type)
    ("segment_sum", "f32"): ([-0.5, 0.5, -3.0, 0.0], "float32", False),
    ("segment_sum", "i32"): ([-4, 0, 6, 0], "int32", False),
    ("segment_sum", "u8"): ([10, 0, 6, 0], "uint8", False),
    ("segment_sum", "bf16"): ([-0.5, 0.5, -3.0, 0.0], "bfloat16", False),
    ("segment_sum", "none"): ([-0.5, 0.5, -3.0, 0.0, 0.0, 4.0], "float32", False),
    ("segment_sum", "bucket"): ([-0.5, 0.5, -3.0, 0.0], "float32", False),
    ("segment_sum", "bucket-i"): ([-4, 0, 6, 0], "int32", False),
    ("segment_sum", "2d"): (
        [[0.0, -0.5, -1.0], [0.0, 0.5, 1.0], [0.0, -3.0, -6.0]],
        "float32",
        False,
    ),
    ("segment_sum", "clip"): ([4.5, 0.5, 1.0], "float32", False),
    ("segment_sum", "grad"): ([1.0, 1.0, 3.0, 0.0, 0.0, 3.0, 2.0], "float32", False),
    ("segment_sum", "grad-ties"): ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "float32", False),
    ("segment_sum", "vmap"): ([[-0.5, 0.0, 3.0], [0.0, 0.0, 3.0]], "float32", False),
    ("segment_sum", "jit"): ([-0.5, 0.5, -3.0, 0.0], "float32", False),
    ("segment_prod", "f32"): ([-3.0, 0.5, -18.0, 1.0], "float32", False),
    ("segment_prod", "i32"): ([-21, 0, 8, 1], "int32", False),
    ("segment_prod", "u8"): ([21, 0, 8, 1], "uint8", False),
    ("segment_prod", "bf16"): ([-3.0, 0.5, -18.0, 1.0], "bfloat16", False),
    ("segment_prod", "none"): ([-3.0, 0.5, -18.0, 1.0, 1.0, 4.0], "float32", False),
    ("segment_prod", "bucket"): ([-3.0, 0.5, -18.0, 1.0], "float32", False),
    ("segment_prod", "bucket-i"): ([-21, 0, 8, 1], "int32", False),
    ("segment_prod", "2d"): (
        [[-0.0, -3.0, -12.0], [0.0, 0.5, 1.0], [-0.0, -18.0, -72.0]],
        "float32",
        False,
    ),
    ("segment_prod", "clip"): ([-15.0, 0.5, -72.0], "float32", False),
    ("segment_prod", "vmap"): ([[-3.0, 1.0, 3.0], [1.0, 1.0, -120.0]], "float32", False),
    ("segment_prod", "jit"): ([-3.0, 0.5, -18.0, 1.0], "float32", False),
    ("segment_max", "f32"): ([1.5, 0.5, 3.0, -INF], "float32", False),
    ("segment_max", "i32"): ([3, 0, 4, -2147483648], "int32", False),
    ("segment_max", "bool"): ([True, False, False, False], "bool", False),
    ("segment_max", "u8"): ([7, 0, 4, 0], "uint8", False),
    ("segment_max", "bf16"): ([1.5, 0.5, 3.0, -INF], "bfloat16", False),
    ("segment_max", "none"): ([1.5, 0.5, 3.0, -INF, -INF, 4.0], "float32", False),
    ("segment_max", "bucket"): ([1.5, 0.5, 3.0, -INF], "float32", False),
    ("segment_max", "bucket-i"): ([3, 0, 4, -2147483648], "int32", False),
    ("segment_max", "2d"): ([[0.0, 1.5, 3.0], [0.0, 0.5, 1.0], [0.0, 3.0, 6.0]], "float32", False),
    ("segment_max", "clip"): ([5.0, 0.5, 4.0], "float32", False),
    ("segment_max", "grad"): ([1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0], "float32", False),
    ("segment_max", "grad-ties"): ([0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0], "float32", False),
    ("segment_max", "vmap"): ([[1.5, -INF, 3.0], [-INF, -INF, 5.0]], "float32", False),
    ("segment_max", "jit"): ([1.5, 0.5, 3.0, -INF], "float32", False),
    ("segment_min", "f32"): ([-2.0, 0.5, -6.0, INF], "float32", False),
    ("segment_min", "i32"): ([-7, 0, 2, 2147483647], "int32", False),
    ("segment_min", "bool"): ([False, False, False, True], "bool", False),
    ("segment_min", "u8"): ([3, 0, 2, 255], "uint8", False),
    ("segment_min", "bf16"): ([-2.0, 0.5, -6.0, INF], "bfloat16", False),
    ("segment_min", "none"): ([-2.0, 0.5, -6.0, INF, INF, 4.0], "float32", False),
    ("segment_min", "bucket"): ([-2.0, 0.5, -6.0, INF], "float32", False),
    ("segment_min", "bucket-i"): ([-7, 0, 2, 2147483647], "int32", False),
    ("segment_min", "2d"): (
        [[0.0, -2.0, -4.0], [0.0, 0.5, 1.0], [0.0, -6.0, -12.0]],
        "float32",
        False,
    ),
    ("segment_min", "clip"): ([-2.0, 0.5, -6.0], "float32", False),
    ("segment_min", "grad"): ([0.0, 1.0, 0.0, 0.0, 0.0, 3.0, 2.0], "float32", False),
    ("segment_min", "grad-ties"): ([1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 1.0], "float32", False),
    ("segment_min", "vmap"): ([[-2.0, INF, 3.0], [INF, INF, -6.0]], "float32", False),
    ("segment_min", "jit"): ([-2.0, 0.5, -6.0, INF], "float32", False),
}


def _check(out: Any, key: tuple[str, str]) -> None:
    values, dtype, weak = RESULTS[key]
    assert (str(out.dtype), out.weak_type) == (dtype, weak)
    np.testing.assert_allclose(
        np.asarray(out, np.float64).ravel(), np.asarray(values, np.float64).ravel()
    )


CASES = [(op, kind) for op in OPS for kind in DATA if (op, kind) in RESULTS]


@pytest.mark.parametrize("op,kind", CASES)
def test_dtypes_and_identities(op: str, kind: str) -> None:
    data = jnp.asarray(DATA[kind], jnp.bfloat16) if kind == "bf16" else DATA[kind]
    _check(getattr(ops, op)(data, IDS, num_segments=4), (op, kind))


@pytest.mark.parametrize("op", OPS)
def test_options(op: str) -> None:
    f = getattr(ops, op)
    _check(f(F32, IDS), (op, "none"))  # num_segments = max id + 1
    _check(f(F32, IDS, 4, bucket_size=3), (op, "bucket"))
    _check(f(DATA["i32"], IDS, 4, bucket_size=2), (op, "bucket-i"))
    _check(f(F32.reshape(7, 1) * np.arange(3, dtype=np.float32), IDS, 3), (op, "2d"))
    _check(f(F32, IDS, 3, mode="clip"), (op, "clip"))
    _check(numjax.jit(lambda x, i: f(x, i, 4))(F32, IDS), (op, "jit"))


@pytest.mark.parametrize("op", OPS)
def test_vmap_matches_loop(op: str) -> None:
    f = getattr(ops, op)
    data, ids = F32[:6].reshape(2, 3), IDS[:6].reshape(2, 3) % 3
    out = numjax.vmap(lambda x, i: f(x, i, 3))(data, ids)
    _check(out, (op, "vmap"))
    np.testing.assert_array_equal(out, np.stack([f(data[k], ids[k], 3) for k in range(2)]))
    # Batched data with shared ids, and shared data with batched ids.
    np.testing.assert_array_equal(
        numjax.vmap(lambda x: f(x, ids[0], 3))(data),
        np.stack([f(data[k], ids[0], 3) for k in range(2)]),
    )
    np.testing.assert_array_equal(
        numjax.vmap(lambda i: f(data[0], i, 3))(ids),
        np.stack([f(data[0], ids[k], 3) for k in range(2)]),
    )


@pytest.mark.parametrize("op", ["segment_sum", "segment_max", "segment_min"])
def test_gradients(op: str) -> None:
    f = getattr(ops, op)
    g = numjax.grad(lambda x: (f(x, IDS, 4) * np.arange(1, 5)).sum())(F32)
    _check(g, (op, "grad"))
    # Ties share the cotangent equally, as in JAX.
    ties = np.array([1.0, 3.0, 3.0, 2.0, 2.0, 5.0, 0.0], np.float32)
    _check(numjax.grad(lambda x: f(x, IDS % 3, 3).sum())(ties), (op, "grad-ties"))
    # 3 segments: none empty (an infinite identity has no finite difference)
    check_grads(lambda x: f(x, IDS, 3), (F32,), order=2, eps=1e-3, atol=1e-2, rtol=1e-2)


def test_segment_prod_gradient_needs_unique_indices() -> None:
    with pytest.raises(
        NotImplementedError,
        match="scatter_mul gradients are only implemented if `unique_indices=True`",
    ):
        numjax.grad(lambda x: ops.segment_prod(x, IDS, 4).sum())(F32)
    ids = np.array([0, 2, 1], np.int32)
    g = numjax.grad(lambda x: ops.segment_prod(x, ids, 4, unique_indices=True).sum())(F32[:3])
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])


def test_empty_data() -> None:
    out = ops.segment_sum(np.zeros((0,), np.float32), np.zeros((0,), np.int32), 2)
    np.testing.assert_array_equal(out, [0.0, 0.0])
    assert out.dtype == np.float32


def test_errors() -> None:
    with pytest.raises(ValueError, match="^num_segments must be non-negative.$"):
        ops.segment_sum(F32, IDS, -1)
    # num_segments decides the output shape: it must be known at trace time.
    for call in (lambda i: ops.segment_sum(F32, i), lambda n: ops.segment_max(F32, IDS, n)):
        with pytest.raises(ConcretizationTypeError) as info:
            numjax.jit(call)(IDS if call.__code__.co_varnames[0] == "i" else 3)
        assert "traced array with shape int32[].\nsegment_sum() `num_segments` argument.\n" in (
            str(info.value)
        )
    with pytest.raises(
        TypeError,
        match=r"^segment_max requires ndarray or scalar arguments, "
        r"got <class 'list'> at position 0.$",
    ):
        ops.segment_max([1.0, 2.0], IDS)

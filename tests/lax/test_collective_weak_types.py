"""Weak types through psum/pmax/pmin, against JAX 0.4.30: a reduction across devices (pmap) is
strong; under vmap a mapped weak operand's psum is strong (pmax and pmin keep the weak type),
an unmapped one (a Python scalar beside a traced value) is its product with the axis size and
stays weak. Each row: the program and, per output leaf, JAX's (dtype, shape, weak type)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
from numjax import lax

W = lambda: lax.full((3,), 2.0)  # a weak float32[3]
P = lambda: lax.full((1,), 2.0)
vmap, pmap = numjax.vmap, numjax.pmap

CASES: list[tuple[str, Any, list[tuple[str, tuple[int, ...], bool]]]] = [
    ("vmap_psum_weak_mapped", lambda: vmap(lambda x: lax.psum(x, "i"), axis_name="i")(W()),
     [("float32", (3,), False)]),
    ("vmap_psum_weak_int", lambda: vmap(lambda x: lax.psum(x, "i"), axis_name="i")(
        lax.full((3,), 2)), [("int32", (3,), False)]),
    ("jit_vmap_psum_tuple", lambda: numjax.jit(vmap(lambda x: lax.psum((x, 1.0), "i"),
                                                    axis_name="i"))(W()),
     [("float32", (3,), False), ("float32", (3,), True)]),
    ("vmap_psum_unmapped_first", lambda: vmap(lambda x: lax.psum((2.0, x), "i"), axis_name="i")(
        np.arange(3.0, dtype=np.float32)), [("float32", (3,), True), ("float32", (3,), False)]),
    ("vmap_pmax_weak_mapped", lambda: vmap(lambda x: lax.pmax(x, "i"), axis_name="i")(W()),
     [("float32", (3,), True)]),
    ("vmap_pmin_weak_mapped", lambda: vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(W()),
     [("float32", (3,), True)]),
    ("vmap_pmean_weak_mapped", lambda: vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(W()),
     [("float32", (3,), False)]),
    ("vmap_psum_two_names", lambda: vmap(vmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j"),
                                         axis_name="i")(lax.full((2, 3), 2.0)),
     [("float32", (2, 3), False)]),
    ("vmap_psum_python_scalar", lambda: vmap(lambda x: lax.psum(2.0, "i"), axis_name="i")(
        np.arange(3.0, dtype=np.float32)), [("float32", (3,), True)]),
    ("pmap_psum_weak", lambda: pmap(lambda x: lax.psum(x, "i"), axis_name="i")(P()),
     [("float32", (1,), False)]),
    ("pmap_pmax_weak", lambda: pmap(lambda x: lax.pmax(x, "i"), axis_name="i")(P()),
     [("float32", (1,), False)]),
    ("pmap_psum_with_constants", lambda: pmap(lambda x: lax.psum((x, 1.0, 1), "i"),
                                              axis_name="i")(P()),
     [("float32", (1,), False), ("float32", (1,), False), ("int32", (1,), False)]),
    ("pmap_psum_python_scalar", lambda: pmap(lambda x: lax.psum(2.0, "i"), axis_name="i")(P()),
     [("float32", (1,), True)]),
]


@pytest.mark.parametrize(("name", "fn", "want"), CASES, ids=[c[0] for c in CASES])
def test_collective_weak_types_match_jax(name: str, fn: Any,
                                         want: list[tuple[str, tuple[int, ...], bool]]) -> None:
    leaves = numjax.tree_util.tree_leaves(fn())
    assert [(str(x.dtype), x.shape, x.weak_type) for x in leaves] == want

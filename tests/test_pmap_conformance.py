"""pmap behaviours from JAX 0.4.30's own pmap tests, with JAX's recorded values and messages as
data: collectives over several axis names of nested pmaps (both ways a pmap runs, and vmap),
pmap under `disable_jit`, and the errors JAX raises for bad `in_axes`/`out_axes`, devices and
donation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import numjax as jax
from numjax import lax
from numjax._src import config
from numjax._src.api import pmap_executable
from numjax.test_util import cpu_devices

WAYS = {"threads": 0, "batched": 1 << 62}


@pytest.fixture(params=list(WAYS), ids=list(WAYS))
def way(request: pytest.FixtureRequest) -> Iterator[str]:
    with cpu_devices(8), pmap_executable.spmd_min_bytes(WAYS[request.param]):
        yield request.param


@pytest.fixture
def dev8() -> Iterator[None]:
    with cpu_devices(8):
        yield


# ---- collectives over several axis names ----------------------------------------------------

# (axis names, per-device function's index over them) -> JAX's result on a 2x2 pmap grid of ones
AXIS_INDEX_ND = [
    (("i", "j"), [[1, 2], [3, 4]]),
    (("j", "i"), [[1, 3], [2, 4]]),
]


@pytest.mark.parametrize("names,want", AXIS_INDEX_ND)
def test_axis_index_over_two_names_is_row_major(way: str, names: Any, want: Any) -> None:
    x = jax.numpy.ones((2, 2), dtype="int32")
    f = jax.pmap(jax.pmap(lambda v: v + lax.axis_index(names), "j"), "i")
    assert f(x).tolist() == want
    g = jax.vmap(jax.vmap(lambda v: v + lax.axis_index(names), axis_name="j"), axis_name="i")
    assert g(x).tolist() == want


def test_axis_index_over_three_names(way: str) -> None:
    # Row-major over the names as given, whatever the nesting order of the pmaps.
    x = np.zeros((2, 2, 2), np.int32)
    f = jax.pmap(jax.pmap(jax.pmap(lambda v: v + lax.axis_index(("k", "i", "j")), "k"), "j"),
                 "i")
    i, j, k = np.meshgrid(np.arange(2), np.arange(2), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(f(x), k * 4 + i * 2 + j)


# (names, split_axis, concat_axis, tiled, out shape, JAX's output flattened) for
# pmap(pmap(pmap(lambda v: all_to_all(v, names, split, concat, tiled=tiled), "k"), "j"), "i")
# on x = arange(...).reshape((2, 2, 2, m, 2) if split == 0 else (2, 2, 2, 2, m)),
# m = 2 ** len(names) * (2 if tiled else 1).
ALL_TO_ALL_ND = [
    (('j', 'i'), 1, 0, False, (2, 2, 2, 4, 2), [
      0, 4, 32, 36, 16, 20, 48, 52, 8, 12, 40, 44, 24, 28, 56, 60, 2, 6, 34, 38, 18, 22,
      50, 54, 10, 14, 42, 46, 26, 30, 58, 62, 1, 5, 33, 37, 17, 21, 49, 53, 9, 13, 41, 45,
      25, 29, 57, 61, 3, 7, 35, 39, 19, 23, 51, 55, 11, 15, 43, 47, 27, 31, 59, 63]),
    (('k', 'i'), 0, 1, True, (2, 2, 2, 2, 8), [
      0, 1, 64, 65, 16, 17, 80, 81, 2, 3, 66, 67, 18, 19, 82, 83, 8, 9, 72, 73, 24, 25,
      88, 89, 10, 11, 74, 75, 26, 27, 90, 91, 32, 33, 96, 97, 48, 49, 112, 113, 34, 35,
      98, 99, 50, 51, 114, 115, 40, 41, 104, 105, 56, 57, 120, 121, 42, 43, 106, 107, 58,
      59, 122, 123, 4, 5, 68, 69, 20, 21, 84, 85, 6, 7, 70, 71, 22, 23, 86, 87, 12, 13,
      76, 77, 28, 29, 92, 93, 14, 15, 78, 79, 30, 31, 94, 95, 36, 37, 100, 101, 52, 53,
      116, 117, 38, 39, 102, 103, 54, 55, 118, 119, 44, 45, 108, 109, 60, 61, 124, 125,
      46, 47, 110, 111, 62, 63, 126, 127]),
    (('i', 'j', 'k'), 0, 0, False, (2, 2, 2, 8, 2), [
      0, 1, 16, 17, 32, 33, 48, 49, 64, 65, 80, 81, 96, 97, 112, 113, 2, 3, 18, 19, 34,
      35, 50, 51, 66, 67, 82, 83, 98, 99, 114, 115, 4, 5, 20, 21, 36, 37, 52, 53, 68, 69,
      84, 85, 100, 101, 116, 117, 6, 7, 22, 23, 38, 39, 54, 55, 70, 71, 86, 87, 102, 103,
      118, 119, 8, 9, 24, 25, 40, 41, 56, 57, 72, 73, 88, 89, 104, 105, 120, 121, 10, 11,
      26, 27, 42, 43, 58, 59, 74, 75, 90, 91, 106, 107, 122, 123, 12, 13, 28, 29, 44, 45,
      60, 61, 76, 77, 92, 93, 108, 109, 124, 125, 14, 15, 30, 31, 46, 47, 62, 63, 78, 79,
      94, 95, 110, 111, 126, 127]),
    (('k', 'j', 'i'), 1, 1, True, (2, 2, 2, 2, 16), [
      0, 1, 128, 129, 64, 65, 192, 193, 32, 33, 160, 161, 96, 97, 224, 225, 16, 17, 144,
      145, 80, 81, 208, 209, 48, 49, 176, 177, 112, 113, 240, 241, 8, 9, 136, 137, 72, 73,
      200, 201, 40, 41, 168, 169, 104, 105, 232, 233, 24, 25, 152, 153, 88, 89, 216, 217,
      56, 57, 184, 185, 120, 121, 248, 249, 4, 5, 132, 133, 68, 69, 196, 197, 36, 37, 164,
      165, 100, 101, 228, 229, 20, 21, 148, 149, 84, 85, 212, 213, 52, 53, 180, 181, 116,
      117, 244, 245, 12, 13, 140, 141, 76, 77, 204, 205, 44, 45, 172, 173, 108, 109, 236,
      237, 28, 29, 156, 157, 92, 93, 220, 221, 60, 61, 188, 189, 124, 125, 252, 253, 2, 3,
      130, 131, 66, 67, 194, 195, 34, 35, 162, 163, 98, 99, 226, 227, 18, 19, 146, 147,
      82, 83, 210, 211, 50, 51, 178, 179, 114, 115, 242, 243, 10, 11, 138, 139, 74, 75,
      202, 203, 42, 43, 170, 171, 106, 107, 234, 235, 26, 27, 154, 155, 90, 91, 218, 219,
      58, 59, 186, 187, 122, 123, 250, 251, 6, 7, 134, 135, 70, 71, 198, 199, 38, 39, 166,
      167, 102, 103, 230, 231, 22, 23, 150, 151, 86, 87, 214, 215, 54, 55, 182, 183, 118,
      119, 246, 247, 14, 15, 142, 143, 78, 79, 206, 207, 46, 47, 174, 175, 110, 111, 238,
      239, 30, 31, 158, 159, 94, 95, 222, 223, 62, 63, 190, 191, 126, 127, 254, 255]),
]


@pytest.mark.parametrize("names,split,concat,tiled,shape,want", ALL_TO_ALL_ND)
def test_all_to_all_over_several_names(way: str, names: Any, split: int, concat: int,
                                       tiled: bool, shape: Any, want: Any) -> None:
    m = 2 ** len(names) * (2 if tiled else 1)
    x = np.arange(8 * m * 2).reshape((2, 2, 2, m, 2) if split == 0 else (2, 2, 2, 2, m))

    def body(v: Any) -> Any:
        return lax.all_to_all(v, names, split, concat, tiled=tiled)

    y = jax.pmap(jax.pmap(jax.pmap(body, "k"), "j"), "i")(x)
    assert y.shape == shape
    assert np.asarray(y).reshape(-1).tolist() == want
    z = jax.vmap(jax.vmap(jax.vmap(body, axis_name="k"), axis_name="j"), axis_name="i")(x)
    assert np.asarray(z).reshape(-1).tolist() == want


# ---- pmap under disable_jit ------------------------------------------------------------------


@pytest.mark.parametrize("eager,traces", [(True, 2), (False, 1)])
def test_pmap_under_disable_jit_runs_python_every_call(dev8: None, eager: bool,
                                                       traces: int) -> None:
    # JAX 0.4.30 (jax_eager_pmap=True, the default) runs a pmapped function op by op under
    # disable_jit: its Python runs on each call. Without eager pmap the trace is cached.
    calls = []

    def f(x: Any) -> Any:
        calls.append(1)
        return x - lax.psum(x, "i")

    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    g = jax.pmap(f, "i")
    with config.eager_pmap(eager), jax.disable_jit():
        first, second = g(x), g(x)
    assert len(calls) == traces
    want = [[-12.0, -15.0], [-10.0, -13.0], [-8.0, -11.0], [-6.0, -9.0]]  # JAX's
    assert first.tolist() == want and second.tolist() == want
    assert jax.config.jax_eager_pmap is True and jax.config.jax_pmap_shmap_merge is False

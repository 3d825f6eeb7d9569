"""pmap behaviours from JAX 0.4.30's own pmap tests, with JAX's recorded values and messages as
data: collectives over several axis names of nested pmaps (both ways a pmap runs, and vmap),
pmap under `disable_jit`, and the errors JAX raises for bad `in_axes`/`out_axes`, devices and
donation.
"""

from __future__ import annotations

import builtins
import collections
import json
import pathlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import numjax as jax
from numjax import lax
from numjax._src import config
from numjax._src.api import pmap_executable
from numjax.test_util import check_grads, cpu_devices

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


# ---- errors, as JAX words them -----------------------------------------------------------------

# name -> (exception type, JAX 0.4.30's message); "{array}" stands for the Array class's name.
ERRORS = json.loads((pathlib.Path(__file__).parent.parent / "data" / "pmap_errors_golden.json")
                    .read_text())
_NT = collections.namedtuple("P", "u v")  # the namedtuple of the recorded case


def _error_cases() -> dict[str, Callable[[], Any]]:
    jnp = jax.numpy
    x = jnp.array([3.14])

    def nested_devices() -> Any:
        inner = jax.pmap(lambda y: lax.psum(y, "j"), "j", devices=jax.devices())
        return jax.pmap(lambda v: inner(v), "i")(jnp.ones((8, 1)))

    return {
        "in_axes_tuple_length":
            lambda: jax.pmap(lambda x, y: x, in_axes=((0, 0, 0), 0))((x, x), x),
        "in_axes_with_kwargs":
            lambda: jax.pmap(lambda x, y: x, in_axes=((0, 0), 0))(x=(x, x), y=x),
        "in_axes_type": lambda: jax.pmap(lambda x: x, in_axes=({"a": 0},))([x, x]),
        "in_axes_dict_keys":
            lambda: jax.pmap(lambda a: a, in_axes=({"a": 0, "b": 0},))({"a": x, "c": x}),
        "in_axes_dict_size": lambda: jax.pmap(lambda a: a, in_axes=({"a": 0, "b": 0},))({"a": x}),
        "in_axes_list_for_args": lambda: jax.pmap(lambda a, b: a, in_axes=[0, 0])(x, x),
        "in_axes_none_first":
            lambda: jax.pmap(lambda a, b: a, in_axes=(None, (0, 0, 0)))(x, (x, x)),
        "in_axes_namedtuple": lambda: jax.pmap(lambda a: a, in_axes=(_NT(0, (0, 0)),))(_NT(x, x)),
        "out_axes_tuple_length":
            lambda: jax.pmap(lambda x, y: ((x, x), x), out_axes=((0, 0, 0), 0))(x, x),
        "out_axes_type": lambda: jax.pmap(lambda x: {"a": x}, out_axes=[0])(x),
        "in_axes_leaf_type": lambda: jax.pmap(lambda a: a, in_axes=(1.0,)),
        "out_axes_leaf_type": lambda: jax.pmap(lambda a: a, out_axes=(1.0,)),
        "in_axes_string": lambda: jax.pmap(lambda a: a, in_axes="a"),
        "static_not_passed":
            lambda: jax.pmap(lambda a, n: a, static_broadcasted_argnums=(1,))(x),
        "static_not_passed3":
            lambda: jax.pmap(lambda a, n, m: a, static_broadcasted_argnums=(2,))(x, 1),
        "no_devices": lambda: jax.pmap(lambda x: x, devices=[])(x),
        "nested_devices": nested_devices,
        "nested_too_few_devices": lambda: jax.pmap(
            jax.pmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j"), axis_name="i",
            devices=[jax.local_devices()[0]])(jnp.ones((1, 4))),
        "psum_unbound": lambda: lax.psum(1.0, "i"),
        "psum_unbound_in_jit": lambda: jax.jit(lambda v: lax.psum(v, "i"))(1.0),
        "psum_other_name": lambda: jax.pmap(lambda v: lax.psum(v, "j"), "i")(jnp.ones(8)),
        "axis_index_unbound": lambda: lax.axis_index("i"),
        "all_gather_unbound": lambda: lax.all_gather(x, "i"),
        "ppermute_unbound": lambda: lax.ppermute(x, "i", [(0, 1)]),
        "pmean_unbound": lambda: lax.pmean(x, "i"),
        "pmax_unbound": lambda: lax.pmax(x, "i"),
        "pmin_unbound": lambda: lax.pmin(x, "i"),
        "all_to_all_unbound": lambda: lax.all_to_all(x, "i", 0, 0),
        "psum_scatter_unbound": lambda: lax.psum_scatter(x, "i"),
        "axis_index_unnamed_pmap":
            lambda: jax.pmap(lambda v: v + lax.axis_index("i"))(jnp.ones(8)),
    }


def test_error_cases_cover_the_recorded_ones() -> None:
    assert set(_error_cases()) == set(ERRORS)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_pmap_error_matches_jax(dev8: None, name: str) -> None:
    kind, message = ERRORS[name]
    array = type(jax.numpy.zeros(1))
    message = message.replace("{array}", f"{array.__module__}.{array.__qualname__}")
    with pytest.raises(getattr(builtins, kind)) as info:
        _error_cases()[name]()
    assert str(info.value) == message


def test_tuple_in_axes_include_static_arguments(dev8: None) -> None:
    # JAX: a tuple in_axes has one entry per positional argument, static ones included (the
    # static one's entry is dropped); the program only sees the dynamic ones.
    f = jax.pmap(lambda a, n, b: a * n + b, in_axes=(0, None, 0), static_broadcasted_argnums=1)
    x = np.arange(2.0, dtype=np.float32)
    assert f(x, 3, x).tolist() == [0.0, 4.0]
    assert f(x, 3, b=x).tolist() == [0.0, 4.0]
    text = str(jax.make_jaxpr(f, static_argnums=1)(x, 3, x))
    assert "in_axes=(0, 0)" in text and "mul d 3.0" in text


# (donate_argnums, in_axes) -> JAX: the UserWarning (or None), whether each argument was deleted.
# The first argument is a pmap's output (sharded over the devices); the second is replicated
# (in_axes None: an unmapped argument, which JAX donates too) or, with in_axes 0, sharded.
_UNUSABLE = ("Some donated buffers were not usable: ShapedArray(float32[4]).\nSee an explanation "
             "at https://jax.readthedocs.io/en/latest/faq.html#buffer-donation.")
DONATION = [
    (1, (0, None), None, False, True),
    ((0, 1), (0, None), _UNUSABLE, True, False),
    (0, (0, None), None, True, False),
    ((0, 1), (0, 0), _UNUSABLE, True, False),
    (1, (0, 0), None, False, True),
]


@pytest.mark.parametrize("donate,in_axes,warning,a_deleted,b_deleted", DONATION)
def test_pmap_donation_of_mapped_and_unmapped_arguments(
        dev8: None, donate: Any, in_axes: Any, warning: str | None, a_deleted: bool,
        b_deleted: bool) -> None:
    xs = np.arange(32, dtype=np.float32).reshape(8, 4)
    ident = jax.pmap(lambda v: v)
    a = ident(xs)
    b = jax.numpy.asarray(xs[0]) if in_axes[1] is None else ident(xs)
    f = jax.pmap(lambda x, y: x + y, in_axes=in_axes, donate_argnums=donate)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(a, b)
    assert [str(w.message) for w in caught] == ([] if warning is None else [warning])
    assert all(w.category is UserWarning for w in caught)
    assert (a.is_deleted(), b.is_deleted()) == (a_deleted, b_deleted)
    np.testing.assert_array_equal(out, xs + (xs[0] if in_axes[1] is None else xs))


# ---- second-order gradients through pmap ------------------------------------------------------


@pytest.mark.parametrize("in_axes,out_axes", [
    ((None, 0, None), 0), ((None, None, 1), 2), ((0, None, 2), 1), ((1, 0, None), 0),
])
def test_pmap_second_order_grads_with_shared_arguments(way: str, in_axes: Any,
                                                       out_axes: int) -> None:
    # JAX's testPmapAllAxesGrad: an argument every device shares (in_axes None) gets the sum
    # of the devices' cotangents; its second-order terms were counted once per device.
    def f(x: Any, y: Any, z: Any) -> Any:
        return jax.numpy.sin(x + y) * z

    rng = np.random.default_rng(0)
    shapes = [(3, 4), (3, 1), (1, 4)]
    args = [rng.normal(size=s if a is None else (*s[:a], 8, *s[a:])).astype(np.float32)
            for a, s in zip(in_axes, shapes, strict=True)]
    check_grads(jax.pmap(f, in_axes=in_axes, out_axes=out_axes), args, order=2, atol=2e-2,
                rtol=2e-2, eps=1e-3)


def test_grad_through_an_output_returned_once(way: str) -> None:
    # An out_axes=None output is device 0's value: d/dx sum(psum(x)) is 1 for every element.
    # (JAX 0.4.30 fails here with an internal AssertionError; n times the cotangent was wrong.)
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    f = jax.pmap(lambda a: lax.psum(a, "i"), "i", out_axes=None)
    np.testing.assert_array_equal(jax.grad(lambda v: f(v).sum())(x), np.ones((4, 2)))
    vmapped = jax.vmap(lambda a: lax.psum(a, "i"), axis_name="i", out_axes=None)
    np.testing.assert_array_equal(jax.grad(lambda v: vmapped(v).sum())(x), np.ones((4, 2)))


# ---- psum and pmean dtypes ----------------------------------------------------------------------

# (input, collective) -> JAX's output dtype, weak type and values under pmap (and vmap).
REDUCTION_DTYPES = [
    ([True, False], "bool", "psum", "int32", False, [1, 1]),
    ([True, False], "bool", "pmean", "float32", False, [0.5, 0.5]),
    ([1, 2], "int32", "psum", "int32", False, [3, 3]),
    ([1, 2], "int32", "pmean", "float32", False, [1.5, 1.5]),
    ([1, 2], "uint8", "pmean", "float32", False, [1.5, 1.5]),
    ([1.0, 2.0], "float16", "pmean", "float16", False, [1.5, 1.5]),
]


@pytest.mark.parametrize("values,dtype,op,want_dtype,weak,want", REDUCTION_DTYPES)
def test_psum_pmean_dtypes(way: str, values: Any, dtype: str, op: str, want_dtype: str,
                           weak: bool, want: Any) -> None:
    x = jax.numpy.array(values, dtype)
    collective = getattr(lax, op)
    with jax.numpy_dtype_promotion("strict"):
        outs = [jax.pmap(lambda v: collective(v, "i"), "i")(x),
                jax.vmap(lambda v: collective(v, "i"), axis_name="i")(x)]
    for out in outs:
        assert (out.dtype, out.weak_type, out.tolist()) == (np.dtype(want_dtype), weak, want)


def test_pmean_of_a_python_int_is_a_weak_float(way: str) -> None:
    out = jax.pmap(lambda v: lax.pmean(3, "i"), "i")(jax.numpy.ones(2))
    assert (out.dtype, out.weak_type, out.tolist()) == (np.dtype("float32"), True, [3.0, 3.0])


# ---- jit of pmap ------------------------------------------------------------------------------

JIT_OF_PMAP_WARNING = (
    "The jitted function {name} includes a pmap. Using jit-of-pmap can lead to inefficient "
    "data movement, as the outer jit does not preserve sharded data representations and "
    "instead collects input and output arrays onto a single device. Consider removing the "
    "outer jit unless you know what you're doing. See https://github.com/google/jax/issues/2926.")


def _foo(x: Any) -> Any:
    return x


# (program, size of the mapped axis, the name JAX's warning gives or None: no warning)
JIT_OF_PMAP = [
    ("jit(pmap)", lambda: jax.jit(jax.pmap(_foo)), 8, "_foo"),
    ("jit(lambda: pmap + 1)", lambda: jax.jit(lambda x: jax.pmap(_foo)(x) + 1), 8, "<lambda>"),
    ("jit(pmap) on one device", lambda: jax.jit(jax.pmap(_foo)), 1, None),
    ("jit(pmap(pmap))", lambda: jax.jit(jax.pmap(jax.pmap(_foo))), (1, 4), "_foo"),
]


@pytest.mark.parametrize("case,make,size,name", JIT_OF_PMAP, ids=[c[0] for c in JIT_OF_PMAP])
def test_jit_of_pmap_warns_once_per_compile(dev8: None, case: str, make: Any, size: Any,
                                            name: str | None) -> None:
    f = make()
    x = jax.numpy.ones(size)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(x)
        f(x)  # cached: no second warning
    want = [] if name is None else [JIT_OF_PMAP_WARNING.format(name=name)]
    assert [str(w.message) for w in caught] == want
    assert all(w.category is UserWarning for w in caught)


@pytest.mark.filterwarnings("ignore:The jitted function")
def test_jit_of_pmap_needing_more_devices_than_there_are(dev8: None) -> None:
    with pytest.raises(ValueError) as info:
        jax.jit(jax.pmap(_foo))(jax.numpy.arange(16))
    assert str(info.value) == ("compiling computation `_foo` that requires 16 replicas, but only "
                               "8 XLA devices are available.")


# ---- the Arrays pmap returns ------------------------------------------------------------------


def test_indexing_a_pmap_output(dev8: None) -> None:
    # JAX: x[i] for 0 <= i < n is device i's shard, left on that device; any other index
    # (x[-1] too) is a gather, onto the default device.
    out = jax.pmap(lambda v: v)(jax.numpy.ones((8, 2)))
    devices = jax.devices()
    for index, device in [(7, 7), (np.int32(7), 7), (0, 0), (-1, 0), (-8, 0)]:
        assert out[index].devices() == {devices[device]}
        assert out[index].tolist() == [1.0, 1.0]


def test_deleted_pmap_output_raises_on_use(dev8: None) -> None:
    x = jax.device_put_replicated(1, jax.devices())
    x.delete()
    x.delete()  # deleting again is fine
    for use in (lambda: x[0], lambda: np.asarray(x), lambda: x + 1,
                lambda: x.addressable_shards):
        with pytest.raises(RuntimeError, match="Array has been deleted with shape=int32"):
            use()


# ---- ahead-of-time stages ---------------------------------------------------------------------


def test_pmap_lower_compile_stages(dev8: None) -> None:
    f = jax.pmap(lambda x, y: x - lax.pmean(x, "i") + y, axis_name="i")
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    lowered = f.lower(x, x)
    compiled = lowered.compile()
    np.testing.assert_array_equal(compiled(x, x), f(x, x))
    for stage in (lowered, compiled):
        assert stage._no_kwargs is False
        assert stage.in_tree == jax.tree_util.tree_structure(((0, 0), {}))
        assert stage.in_avals == ((jax.core.ShapedArray((8, 4), np.float32),) * 2, {})
    assert lowered.compiler_ir() is not None
    assert compiled.runtime_executable() is not None
    assert compiled.memory_analysis().argument_size_in_bytes == 2 * 4 * 4  # one device's
    with pytest.raises(TypeError) as info:
        compiled(x.astype(np.int32), x[:, :2])
    assert str(info.value) == (  # JAX's text
        "Argument types differ from the types for which this computation was compiled. The "
        "mismatches are:\nArgument 'x' compiled with float32[8,4] and called with int32[8,4]\n"
        "Argument 'y' compiled with float32[8,4] and called with float32[8,2]")


def test_private_arrays_accessor(dev8: None) -> None:
    # JAX's `_arrays`: one single-device Array per device, in the sharding's device order.
    devices = jax.local_devices()
    y = jax.device_put_sharded([np.arange(i, i + 4) for i in range(8)], devices)
    assert [(b.shape, b.devices(), b.tolist()) for b in y._arrays] == [
        ((4,), {d}, list(range(i, i + 4))) for i, d in enumerate(devices)]
    out = jax.pmap(lambda v: v * 2, in_axes=1, out_axes=1)(jax.numpy.ones((3, 8)))
    assert [b.shape for b in out._arrays] == [(3,)] * 8
    assert [b.shape for b in jax.numpy.arange(4.0)._arrays] == [(4,)]


# ---- remat of pmap (and of jit) -----------------------------------------------------------------


@pytest.mark.parametrize("wrap", ["pmap", "jit"])
def test_remat_of_a_call_keeps_primal_outputs_known(way: str, wrap: str) -> None:
    # JAX's test_remat_of_pmap: the jvp of a pmap (or jit) inside checkpoint computes primal
    # and tangent outputs in one equation; linearize must still return the primal as a value
    # (it returned a staged tracer) and recompute sin and cos in the linear program.
    inner = {"pmap": jax.pmap, "jit": jax.jit}[wrap](lambda x: jax.numpy.sin(jax.numpy.sin(x)))
    f = jax.checkpoint(inner)
    x = jax.numpy.arange(1.0)
    out, f_vjp = jax.vjp(f, x)
    assert type(out) is type(x)
    np.testing.assert_allclose(out, np.sin(np.sin(np.arange(1.0))), rtol=1e-6)
    np.testing.assert_allclose(f_vjp(jax.numpy.ones(1))[0], np.cos(0.0) ** 2, rtol=1e-6)
    check_grads(f, (x,), order=2, modes=["rev"])
    text = str(jax.make_jaxpr(jax.linearize(f, x)[1])(x))
    assert " sin " in text and " cos " in text

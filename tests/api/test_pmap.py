"""pmap on 1, 2, 4 and 8 CPU devices, both ways a pmap runs (on the devices' threads side by
side, and as one batched program): values, dtypes and weak types against vmap with the same
axis name, gradients against finite differences, every argument and collective, the sharded
outputs, donation, callbacks per device, failures, and a JAX program's printed record.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from tests.runtime.test_devices import assert_matches_golden, run_jax_program

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src.api import pmap_executable
from numjax.test_util import check_grads, cpu_devices

# jit of pmap warns as in JAX (tests/api/test_pmap_conformance.py checks the warning); the tests
# here that compose them are about values.
pytestmark = pytest.mark.filterwarnings("ignore:The jitted function .* includes a pmap")

COUNTS = [1, 2, 4, 8]
WAYS = {"threads": 0, "batched": 1 << 62}


@pytest.fixture(params=COUNTS, ids=[f"{n}dev" for n in COUNTS])
def ndev(request: pytest.FixtureRequest) -> Iterator[int]:
    with cpu_devices(request.param):
        yield request.param


@pytest.fixture(params=list(WAYS), ids=list(WAYS))
def way(request: pytest.FixtureRequest) -> Iterator[str]:
    with pmap_executable.spmd_min_bytes(WAYS[request.param]):
        yield request.param


def _close(got: Any, want: Any, rtol: float = 1e-6) -> None:
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    assert g_tree == w_tree
    for g, w in zip(g_leaves, w_leaves, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        assert getattr(g, "weak_type", False) == getattr(w, "weak_type", False)
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=rtol, atol=1e-6)


def _data(n: int, *shape: int, dtype: Any = np.float32, seed: int = 0) -> Any:
    return jnp.asarray(np.random.default_rng(seed).normal(size=(n, *shape)).astype(dtype))


def _ring(n: int) -> list[tuple[int, int]]:
    return [(k, (k + 1) % n) for k in range(n)]


# (name, per-device function of (value, n), per-device shape): each is run by pmap and by
# vmap over the same axis name, which must agree.
BODIES: list[tuple[str, Callable[[Any, int], Any], tuple[int, ...]]] = [
    ("elementwise", lambda v, n: jnp.tanh(v) * 2 + 1, (3,)),
    ("psum", lambda v, n: lax.psum(v, "i"), (3,)),
    ("psum_tree", lambda v, n: lax.psum({"a": v, "b": v.sum()}, "i"), (3,)),
    ("pmean", lambda v, n: lax.pmean(v, "i"), (2, 2)),
    ("pmax", lambda v, n: lax.pmax(v, "i"), (3,)),
    ("pmin", lambda v, n: lax.pmin(v, "i"), (3,)),
    ("axis_index", lambda v, n: v * lax.axis_index("i"), (3,)),
    ("all_gather", lambda v, n: lax.all_gather(v, "i"), (3,)),
    ("all_gather_axis1", lambda v, n: lax.all_gather(v, "i", axis=1), (2, 3)),
    ("all_gather_tiled", lambda v, n: lax.all_gather(v, "i", tiled=True), (2, 3)),
    ("psum_scatter", lambda v, n: lax.psum_scatter(jnp.tile(v[:1], n), "i"), (3,)),
    ("psum_scatter_tiled", lambda v, n: lax.psum_scatter(
        jnp.tile(v, (1, n)), "i", scatter_dimension=1, tiled=True), (2, 2)),
    ("all_to_all", lambda v, n: lax.all_to_all(jnp.tile(v, (n, 1)), "i", 0, 0), (2,)),
    ("all_to_all_0_1", lambda v, n: lax.all_to_all(jnp.tile(v, (n, 1)), "i", 0, 1), (2,)),
    ("all_to_all_tiled", lambda v, n: lax.all_to_all(jnp.tile(v, (n, 2)), "i", 0, 1,
                                                       tiled=True), (2,)),
    ("pswapaxes", lambda v, n: lax.pswapaxes(jnp.tile(v, (n, 1)), "i", 0), (3,)),
    ("ppermute", lambda v, n: lax.ppermute(v, "i", _ring(n)), (3,)),
    ("pshuffle", lambda v, n: lax.pshuffle(v, "i", list(reversed(range(n)))), (3,)),
    ("pbroadcast", lambda v, n: lax.pbroadcast(v, "i", n - 1), (3,)),
    ("pdot", lambda v, n: lax.pdot(v, v, "i", pos_contract=((0,), (0,))), (3,)),
    ("int_psum", lambda v, n: lax.psum((v * 10).astype(jnp.int32), "i"), (3,)),
    ("bool_psum", lambda v, n: lax.psum(v > 0, "i"), (3,)),
    ("psum_const", lambda v, n: v + lax.psum(1, "i"), (3,)),
    ("matmul", lambda v, n: jnp.tanh(v @ v.T) @ v, (3, 3)),
    ("jit_inside", lambda v, n: jax.jit(lambda u: lax.psum(u * u, "i"))(v), (3,)),
    ("scan_inside", lambda v, n: lax.scan(lambda c, u: (c + lax.psum(u, "i"), c), 0.0,
                                          v)[0], (3,)),
    ("fori_inside", lambda v, n: lax.fori_loop(0, 3, lambda k, c: lax.pmean(c * 1.5, "i"),
                                               v), (3,)),
    ("checkpoint_inside", lambda v, n: jax.checkpoint(lambda u: jnp.sin(lax.psum(u, "i")))(v),
     (3,)),
    ("vmap_inside", lambda v, n: jax.vmap(lambda u: lax.psum(u, "i"))(v), (2, 3)),
    ("vmap_named_inside", lambda v, n: jax.vmap(lambda u: lax.psum(u, ("i", "j")),
                                                axis_name="j")(v), (2, 3)),
]


@pytest.mark.parametrize("name,body,shape", BODIES, ids=[b[0] for b in BODIES])
def test_pmap_matches_vmap(ndev: int, way: str, name: str, body: Any, shape: Any) -> None:
    x = _data(ndev, *shape)
    fun = lambda v: body(v, ndev)
    _close(jax.pmap(fun, axis_name="i")(x), jax.vmap(fun, axis_name="i")(x))


def test_pmap_partial_ppermute_sends_zeros(ndev: int, way: str) -> None:
    # pmap takes a partial permutation (indices receiving nothing get zeros); vmap, as in
    # JAX 0.4.30, does not (tests/runtime/test_collectives.py).
    x = _data(ndev, 3)
    out = jax.pmap(lambda v: lax.ppermute(v, "i", [(0, ndev - 1)]), axis_name="i")(x)
    want = np.zeros_like(x)
    want[ndev - 1] = x[0]
    _close(out, want)


def test_float16_psum_accumulates_device_after_device(way: str) -> None:
    # JAX 0.4.30: a pmap psum of float16 [2048, 1, ..., 1] over 8 devices is 2048 (XLA's
    # all-reduce adds in float16; vmap's psum, a reduction, accumulates wider: 2054).
    x = np.array([2048] + [1] * 7, np.float16).reshape(8, 1)
    with cpu_devices(8):
        out = jax.pmap(lambda v: lax.psum(v, "i"), "i")(x)
        mean = jax.pmap(lambda v: lax.pmean(v, "i"), "i")(x)
    np.testing.assert_array_equal(np.asarray(out).ravel(), [2048.0] * 8)
    assert out.dtype == jnp.float16 and mean.dtype == jnp.float16
    np.testing.assert_array_equal(np.asarray(mean).ravel(), [256.0] * 8)


GROUPED = [
    ("psum", lambda v, g: lax.psum(v, "i", axis_index_groups=g)),
    ("pmax", lambda v, g: lax.pmax(v, "i", axis_index_groups=g)),
    ("all_gather", lambda v, g: lax.all_gather(v, "i", axis_index_groups=g)),
    # Groups of half the devices: the scattered dimension has the group's size.
    ("psum_scatter", lambda v, g: lax.psum_scatter(
        jnp.tile(v[:1], lax.psum(1, "i", axis_index_groups=g)), "i", axis_index_groups=g)),
]


@pytest.mark.parametrize("name,body", GROUPED, ids=[g[0] for g in GROUPED])
@pytest.mark.parametrize("ndev_", [4, 8])
def test_axis_index_groups(way: str, ndev_: int, name: str, body: Any) -> None:
    # Groups of the devices' indices: each group combines only its own members' values.
    groups = [list(range(k, ndev_, 2)) for k in range(2)]
    x = _data(ndev_, 3)
    with cpu_devices(ndev_):
        got = np.asarray(jax.pmap(lambda v: body(v, groups), "i")(x))
    for members in groups:
        sub = np.asarray(x)[members]
        want = np.asarray(jax.vmap(lambda v: body(v, None), axis_name="i")(jnp.asarray(sub)))
        np.testing.assert_allclose(got[members], want, rtol=1e-6, atol=1e-6)


def test_axis_index_groups_are_not_vmap_collectives() -> None:
    with pytest.raises(NotImplementedError, match="axis_index_groups not supported in vmap"):
        jax.vmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0], [1]]), axis_name="i")(
            jnp.ones(2))


def test_arguments(ndev: int, way: str) -> None:
    x = _data(ndev, 3)
    _close(jax.pmap(lambda a, b: a * b, in_axes=(0, None))(x, 2.0), x * 2.0)
    _close(jax.pmap(lambda a: a.sum(), in_axes=1)(x.T), x.sum(1))
    _close(jax.pmap(lambda a: a * 2, in_axes=-1, out_axes=-1)(x.T), (x * 2).T)
    _close(jax.pmap(lambda d: d["a"] - d["b"], in_axes=({"a": 0, "b": None},))(
        {"a": x, "b": jnp.ones(3)}), x - 1)
    _close(jax.pmap(lambda a: (a, a * 2), out_axes=(0, 1))(x), (x, (x * 2).T))
    _close(jax.pmap(lambda a: lax.psum(a, "i"), "i", out_axes=None)(x), x.sum(0))
    _close(jax.pmap(lambda a, k: a ** k, static_broadcasted_argnums=1)(x, 3), x ** 3)
    _close(jax.pmap(lambda a, b: a - b)(x, b=x * 2), -x)
    scalar_weak = jax.pmap(lambda a: a * 2)(np.arange(ndev))
    assert scalar_weak.dtype == jnp.int32 and not scalar_weak.weak_type
    with pytest.raises(ValueError, match="must be passed at least one argument"):
        jax.pmap(lambda: 1.0, axis_size=ndev)()


def test_devices_subsets_and_order() -> None:
    with cpu_devices(4):
        devices = jax.devices()
        out = jax.pmap(lambda v: v + 1, devices=[devices[3], devices[1]])(jnp.zeros((2, 2)))
        assert [s.device.id for s in out.addressable_shards] == [3, 1]
        assert repr(out.sharding) == (
            "PmapSharding(sharding_spec=ShardingSpec((Unstacked(2), NoSharding()), "
            "(ShardedAxis(axis=0),)), devices=[CpuDevice(id=3) CpuDevice(id=1)])")


def test_gradients_through_collectives(ndev: int, way: str) -> None:
    x = _data(ndev, 3, seed=3)
    f = jax.pmap(lambda v: jnp.sin(v) * lax.psum(v * v, "i") + lax.pmax(v, "i"), "i")
    check_grads(lambda v: f(v), (x,), order=2, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)
    g = jax.pmap(lambda v, w: jnp.sum(lax.all_gather(v, "i") * w), "i", in_axes=(0, None))
    check_grads(lambda v, w: g(v, w), (x, jnp.ones(3)), order=1, modes=("fwd", "rev"),
                atol=2e-2, rtol=2e-2)
    # pmap of grad against vmap of grad, and grad of pmap against grad of vmap.
    inner = jax.grad(lambda v: jnp.sum(v * lax.psum(v, "i")))
    _close(jax.pmap(inner, "i")(x), jax.vmap(inner, axis_name="i")(x), rtol=1e-5)
    outer = lambda m: lambda v: m(lambda u: lax.psum(jnp.tanh(u), "i") * u, axis_name="i")(
        v).sum()
    _close(jax.grad(outer(jax.pmap))(x), jax.grad(outer(jax.vmap))(x), rtol=1e-5)


def test_transformations_compose(ndev: int, way: str) -> None:
    x = _data(ndev, 3, seed=5)
    body = lambda v: jnp.cos(v) * lax.psum(v, "i")
    f, vf = jax.pmap(body, "i"), jax.vmap(body, axis_name="i")
    stacked = jnp.stack([x, x * 2, -x])
    _close(jax.vmap(f)(stacked), jax.vmap(vf)(stacked))
    _close(jax.vmap(f, in_axes=1, out_axes=1)(jnp.moveaxis(stacked, 0, 1)),
           jnp.moveaxis(jax.vmap(vf)(stacked), 0, 1))
    _close(jax.jit(f)(x), vf(x))
    _close(jax.pmap(jax.jit(body), "i")(x), vf(x))
    _close(jax.jvp(f, (x,), (jnp.ones_like(x),)), jax.jvp(vf, (x,), (jnp.ones_like(x),)))
    _close(jax.linearize(f, x)[1](x), jax.linearize(vf, x)[1](x), rtol=1e-5)


@jax.custom_jvp
def _cube(v: Any) -> Any:
    return v ** 3


_cube.defjvp(lambda p, t: (_cube(p[0]), 3 * p[0] ** 2 * t[0] * 10))


@jax.custom_vjp
def _clip_grad(v: Any) -> Any:
    return v


_clip_grad.defvjp(lambda v: (v, None), lambda _, ct: (jnp.clip(ct, -0.5, 0.5),))


def test_custom_derivatives_inside(way: str) -> None:
    with cpu_devices(4):
        x = _data(4, 3, seed=7)
        _close(jax.pmap(jax.grad(lambda v: _cube(v).sum()))(x), 30 * x ** 2)
        _close(jax.grad(lambda v: jax.pmap(lambda u: _clip_grad(u) * 3)(v).sum())(x),
               jnp.full_like(x, 0.5))


def test_nested_pmap_grid(way: str) -> None:
    with cpu_devices(8):
        out = jax.pmap(lambda a: jax.pmap(
            lambda b: b + 10 * lax.axis_index("i") + lax.axis_index("j")
            + 100 * lax.psum(b, ("i", "j")), "j")(a), "i")(jnp.ones((2, 4, 1)))
        want = (1 + 10 * np.arange(2)[:, None] + np.arange(4)[None, :] + 800)[..., None]
        np.testing.assert_array_equal(np.asarray(out), want)
        with pytest.raises(ValueError, match="requires 16 logical devices, but only 8"):
            jax.pmap(lambda a: jax.pmap(lambda b: b)(a))(jnp.ones((4, 4, 1)))


def test_outputs_are_sharded_over_the_devices(ndev: int, way: str) -> None:
    x = _data(ndev, 3)
    out = jax.pmap(lambda v: v * 2)(x)
    assert out.sharding == jax.sharding.PmapSharding.default(out.shape)
    shards = out.addressable_shards
    assert [s.device for s in shards] == jax.devices()
    assert [s.index for s in shards] == [(k, slice(None)) for k in range(ndev)]
    for k, s in enumerate(shards):
        np.testing.assert_array_equal(np.asarray(s.data), np.asarray(x)[k] * 2)
        assert out[k].sharding == jax.sharding.SingleDeviceSharding(jax.devices()[k])
    assert [a.devices() for a in out] == [{d} for d in jax.devices()]
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x) * 2)
    assert not out.is_fully_replicated
    moved = jax.pmap(lambda v: v * 2, out_axes=1)(x)
    assert [s.index for s in moved.addressable_shards] == [(slice(None), k)
                                                          for k in range(ndev)]


def test_feeding_outputs_back_is_no_transfer() -> None:
    with cpu_devices(4):
        f = jax.pmap(lambda v: v + 1)
        out = f(jnp.zeros((4, 3)))
        sharded = jax.device_put_sharded([np.ones(3, np.float32)] * 4, jax.devices())
        replicated = jax.device_put_replicated(jnp.ones(3), jax.devices())
        with jax.transfer_guard("disallow"):
            again = f(out)
            f(sharded)
            f(replicated)
        np.testing.assert_array_equal(np.asarray(again), np.full((4, 3), 2.0))
        with jax.transfer_guard("disallow"), pytest.raises(RuntimeError,
                                                           match="host-to-device"):
            f(np.zeros((4, 3), np.float32))


def test_donation_deletes_the_donated_shards(ndev: int, way: str) -> None:
    f = jax.pmap(lambda v: v * 2, donate_argnums=0)
    x = jax.pmap(lambda v: v + 1)(jnp.zeros((ndev, 3)))
    shard_ids = [id(b) for b in x._shard_buffers()]
    y = f(x)
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(x)
    np.testing.assert_array_equal(np.asarray(y), np.full((ndev, 3), 2.0))
    if way == "threads" and ndev > 1:  # each device wrote its result into its donated shard
        assert [id(b) for b in y._shard_buffers()] == shard_ids
    with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
        jax.pmap(lambda v: v.sum(), donate_argnums=0)(jnp.ones((ndev, 3)))


def test_each_device_runs_on_its_own_thread() -> None:
    seen: dict[int, str] = {}
    lock = threading.Lock()

    def record(index: Any) -> None:
        with lock:
            seen[int(index)] = threading.current_thread().name

    with cpu_devices(4):
        jax.pmap(lambda v: jax.debug.callback(record, lax.axis_index("i")) or v, "i")(
            jnp.ones((4, 2)))
        jax.effects_barrier()
    assert sorted(seen) == [0, 1, 2, 3]
    assert len(set(seen.values())) == 4


@pytest.mark.filterwarnings("ignore:The host_callback APIs are deprecated")
def test_host_callbacks_name_their_device(capsys: pytest.CaptureFixture[str]) -> None:
    from numjax.experimental import host_callback as hcb
    taps: list[tuple[int, float]] = []
    lock = threading.Lock()

    def tap(arg: Any, transforms: Any, device: Any) -> None:
        with lock:
            taps.append((device.id, float(arg)))

    def call(arg: Any, device: Any) -> Any:
        return np.float32(arg * 0 + device.id)

    with cpu_devices(4):
        jax.pmap(lambda v: hcb.id_tap(tap, v.sum(), tap_with_device=True))(jnp.arange(4.0))
        ids = jax.pmap(lambda v: hcb.call(call, v, result_shape=jax.ShapeDtypeStruct(
            (), jnp.float32), call_with_device=True))(jnp.zeros(4))
        jax.pmap(lambda v: jax.debug.print("device value {}", v))(jnp.arange(4.0))
        hcb.barrier_wait()
        jax.effects_barrier()
    assert sorted(taps) == [(k, float(k)) for k in range(4)]
    np.testing.assert_array_equal(np.asarray(ids), [0.0, 1.0, 2.0, 3.0])
    printed = sorted(capsys.readouterr().out.splitlines())
    assert printed == [f"device value {k}.0" for k in range(4)]


def test_a_failing_device_stops_the_pmap_and_the_next_one_works() -> None:
    def fail_on_two(index: Any) -> None:
        if int(index) == 2:
            raise ValueError("device two failed")

    with cpu_devices(4):
        f = jax.pmap(lambda v: (jax.debug.callback(fail_on_two, lax.axis_index("i")),
                                lax.psum(v, "i"))[1], "i")
        with pytest.raises(Exception, match="device two failed"):
            f(jnp.ones((4, 2)))
            jax.effects_barrier()
        np.testing.assert_array_equal(np.asarray(jax.pmap(lambda v: lax.psum(v, "i"), "i")(
            jnp.ones((4, 2)))), np.full((4, 2), 4.0))


def test_errors_as_jax_words_them() -> None:
    with cpu_devices(4):
        x = jnp.ones((4, 2))
        cases: list[tuple[Callable[[], Any], type[Exception], str]] = [
            (lambda: jax.pmap(lambda v: v)(jnp.ones((5, 2))), ValueError,
             "compiling computation that requires 5 logical devices, but only 4 XLA devices "
             "are available (num_replicas=5)"),
            (lambda: jax.pmap(lambda a, b: a)(x, jnp.ones((3, 2))), ValueError,
             "pmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size "
             "4: axis 0 of argument a of type float32[4,2];\n  * one axis had size 3: axis 0 "
             "of argument b of type float32[3,2]"),
            (lambda: jax.pmap(lambda v: v)(1.0), ValueError,
             "pmap was requested to map its argument along axis 0, which implies that its "
             "rank should be at least 1, but is only 0 (its shape is ())"),
            (lambda: jax.pmap(lambda v: v, in_axes=None)(x), ValueError,
             "pmap must have at least one non-None value in in_axes"),
            (lambda: jax.pmap(lambda v: lax.psum(v, "j"), "i")(x), NameError,
             "unbound axis name: j. The following axis names (e.g. defined by pmap) are "
             "available to collective operations: ['i']"),
            (lambda: lax.psum(1.0, "i"), NameError,
             "unbound axis name: i. The following axis names (e.g. defined by pmap) are "
             "available to collective operations: []"),
            (lambda: jax.pmap(lambda v: v, devices=jax.devices()[:2])(x), ValueError,
             "Leading axis size of input to pmapped function must equal the number of local "
             "devices passed to pmap. Got axis_size=4, num_local_devices=2.\n(Local devices "
             "available to pmap: TFRT_CPU_0, TFRT_CPU_1)"),
            (lambda: jax.pmap(lambda a, s: a, static_broadcasted_argnums=1)(x, [1]),
             ValueError, "Non-hashable static arguments are not supported."),
            (lambda: jax.pmap(lambda v: v, global_arg_shapes=(1,)), ValueError,
             "global_arg_shapes only worked with sharded_jit"),
            (lambda: jax.pmap(3), TypeError, "Expected a callable value, got 3"),
            (lambda: jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0), "i")(x), ValueError,
             "all_to_all requires the size of the mapped axis axis_name to equal "
             "x.shape[split_axis], but they are 4 and 2 respectively."),
            (lambda: jax.pmap(lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [1, 2]]),
                              "i")(x), ValueError,
             "axis_index_groups must cover all indices exactly once"),
        ]
        for fun, kind, text in cases:
            with pytest.raises(kind) as info:
                fun()
            assert str(info.value).startswith(text), str(info.value)


def test_make_jaxpr_prints_xla_pmap_as_jax() -> None:
    with cpu_devices(4):
        text = str(jax.make_jaxpr(jax.pmap(lambda v, w: lax.psum(v * w, "i") + 1, "i",
                                           in_axes=(0, None)))(jnp.ones((4, 3)), 2.0))
    # Recorded from JAX 0.4.30.
    assert text == """{ lambda ; a:f32[4,3] b:f32[]. let
    c:f32[4,3] = xla_pmap[
      axis_name=i
      axis_size=4
      backend=None
      call_jaxpr={ lambda ; d:f32[3] e:f32[]. let
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
          g:f32[3] = mul d f
          h:f32[3] = psum[axes=('i',) axis_index_groups=None] g
          i:f32[3] = add h 1.0
        in (i,) }
      devices=None
      donated_invars=(False, False)
      global_axis_size=4
      in_axes=(0, None)
      is_explicit_global_axis_size=False
      name=<lambda>
      out_axes=(0,)
    ] a b
  in (c,) }"""


def test_aot_and_compile_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="numjax._src.dispatch")
    with cpu_devices(2), jax.log_compiles(True):
        f = jax.pmap(lambda v: jnp.exp(v) * 2)
        compiled = f.lower(jnp.ones((2, 3))).compile()
        np.testing.assert_allclose(np.asarray(compiled(jnp.zeros((2, 3)))),
                                   np.full((2, 3), 2.0))
        assert "np.exp" in compiled.as_text()
        with pytest.raises(TypeError, match="Argument types differ"):
            compiled(jnp.zeros((2, 4)))
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Finished tracing + transforming <lambda> for pmap") for m in messages)
    assert any(m.startswith("Finished compilation of jit(pmap_<lambda>)") for m in messages)


def test_pmap_compiles_once_per_signature() -> None:
    with cpu_devices(2):
        f = jax.pmap(lambda v: v * 3)
        f(jnp.ones((2, 3)))
        f(jnp.ones((2, 3)))
        assert f._cache_size() == 1
        f(jnp.ones((2, 4)))
        assert f._cache_size() == 2


def test_numpy_arguments_reuse_the_compiled_call() -> None:
    """NumPy arguments take the same cached call as Arrays: each call gives the new values,
    the dtype is canonicalized (float64 under x32), and nothing is traced twice."""
    with cpu_devices(2):
        f = jax.pmap(lambda v: lax.psum(v, "i"), "i")
        for k in range(3):
            x = np.arange(6.0).reshape(2, 3) + k
            out = f(x)
            assert out.dtype == np.float32
            np.testing.assert_array_equal(np.asarray(out), np.broadcast_to(x.sum(0), (2, 3)))
        f(jnp.asarray(x, np.float32))
        assert f._cache_size() == 1
        with pytest.raises(ValueError, match="requires 3 logical devices"):
            f(np.ones((3, 3)))


def test_block_until_ready_waits_for_shards_only(way: str) -> None:
    """Waiting for a sharded output does not put its global value together: only reading it
    does."""
    with cpu_devices(2):
        out = jax.pmap(lambda v: v + 1)(jnp.ones((2, 1000)))
        assert out.block_until_ready() is out
        if way == "threads":  # batched, the program's one output buffer is the value
            assert out._buf._value is None
        np.testing.assert_array_equal(np.asarray(out), np.full((2, 1000), 2.0, np.float32))


def test_data_parallel_training_matches_one_device() -> None:
    # JAX's pmap tutorial: replicated parameters, the batch split across devices, gradients
    # averaged with pmean. The same steps on one device (the whole batch) give the same model.
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = (xs @ np.array([1.5, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)

    def loss(p: Any, x: Any, y: Any) -> Any:
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    def step(p: Any, x: Any, y: Any) -> Any:
        grads = lax.pmean(jax.grad(loss)(p, x, y), "batch")
        return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)

    params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
    single = params
    for _ in range(20):
        single = jax.jit(lambda p, x, y: jax.tree_util.tree_map(
            lambda a, g: a - 0.1 * g, p, jax.grad(loss)(p, x, y)))(single, xs, ys)
    with cpu_devices(4):
        replicated = jax.device_put_replicated(params, jax.devices())
        pstep = jax.pmap(step, axis_name="batch")
        for _ in range(20):
            replicated = pstep(replicated, xs.reshape(4, 16, 3), ys.reshape(4, 16))
        final = jax.tree_util.tree_map(lambda a: a[0], replicated)
    _close(final, single, rtol=1e-5)


@pytest.mark.parametrize("way_", list(WAYS))
@pytest.mark.parametrize("flags", ["NUMJAX_NUM_CPU_DEVICES", "XLA_FLAGS"])
def test_jax_program_prints_what_jax_printed(way_: str, flags: str) -> None:
    # tests/data/pmap_program.py: every collective, pmap's arguments, transformations,
    # sharded outputs, jaxprs and errors, run on 4 devices by JAX 0.4.30 and by numjax.
    env = {"NUMJAX_PMAP_SPMD_MIN_BYTES": str(WAYS[way_])}
    env.update({"NUMJAX_NUM_CPU_DEVICES": "4"} if flags == "NUMJAX_NUM_CPU_DEVICES" else
               {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
    result = run_jax_program("pmap", **env)
    result.stdout = re.sub(r"0x[0-9a-f]+", "0x", result.stdout)
    assert_matches_golden("pmap", result)

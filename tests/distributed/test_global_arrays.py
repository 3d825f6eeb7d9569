"""Arrays laid out across the devices of several processes (a mesh over `numjax.devices()`):
each process holds its own blocks; jit and shard_map run per shard with collectives meeting
across processes; multihost_utils moves between host-local and global data. Checked against
the same global computation done by NumPy on the whole value, which every process can build.
Runs on any number of processes × local devices (CI: 1, 2 and 3 processes, 1 or 2 devices)."""

from __future__ import annotations

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import multihost_utils as mh
from numjax.experimental.shard_map import shard_map
from numjax.sharding import Mesh, NamedSharding
from numjax.sharding import PartitionSpec as P

NP, R = jax.process_count(), jax.process_index()
L = jax.local_device_count()
G = NP * L
MESH = Mesh(np.array(jax.devices()), ("x",))
MESH2 = Mesh(np.array(jax.devices()).reshape(NP, L), ("p", "d"))
SPLIT = NamedSharding(MESH, P("x"))
WHOLE = NamedSharding(MESH, P())


def _global(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _whole(x: jax.Array) -> np.ndarray:
    """The global value: gathered from every process when it spans several (process_allgather
    stacks a host-local value instead, as in JAX)."""
    return mh.process_allgather(x) if not x.is_fully_addressable else np.asarray(x)


def _split(value: np.ndarray, sharding: NamedSharding = SPLIT) -> jax.Array:
    return jax.make_array_from_callback(value.shape, sharding, lambda index: value[index])


def test_an_array_across_processes_holds_only_its_own_blocks() -> None:
    value = _global(2 * G, 3)
    x = _split(value)
    assert x.shape == (2 * G, 3) and x.sharding == SPLIT
    assert x.is_fully_addressable == (NP == 1)
    shards = x.addressable_shards
    assert [s.device for s in shards] == jax.local_devices()
    for s in shards:
        np.testing.assert_array_equal(np.asarray(s.data), value[s.index])
    if NP > 1:
        assert repr(x) == f"Array({(2 * G, 3)}, dtype=float32)"
        with pytest.raises(RuntimeError, match="Fetching value for `jax.Array` that spans "
                                               "non-addressable"):
            np.asarray(x)
    else:
        np.testing.assert_array_equal(np.asarray(x), value)
    # Replicated over every device: each process holds the whole value.
    whole = _split(value, WHOLE)
    np.testing.assert_array_equal(np.asarray(whole), value)
    assert repr(whole).startswith("Array([[")


def test_make_array_from_process_local_data_and_single_device_arrays() -> None:
    value = _global(2 * G, 3, seed=1)
    mine = value[2 * L * R:2 * L * (R + 1)]
    x = jax.make_array_from_process_local_data(SPLIT, mine, value.shape)
    np.testing.assert_array_equal(_whole(x), value)
    parts = [jax.device_put(value[s.index], s.device) for s in x.addressable_shards]
    y = jax.make_array_from_single_device_arrays(value.shape, SPLIT, parts)
    np.testing.assert_array_equal(_whole(y), value)


@pytest.mark.parametrize("mesh,spec", [(MESH, P("x")), (MESH2, P("p", "d")),
                                       (MESH2, P("p")), (MESH2, P(None, "d"))])
def test_host_local_and_global_arrays_round_trip(mesh: Mesh, spec: P) -> None:
    value = _global(2 * G, 2 * G, seed=2)
    sharding = NamedSharding(mesh, spec)
    want = _split(value, sharding)
    local_mesh = mesh.local_mesh
    local = NamedSharding(local_mesh, spec)
    # This process's part of the value, as its devices hold it.
    rows = [idx for idx in sharding.addressable_devices_indices_map(value.shape).values()]
    starts = [sorted({(i[d].start or 0) for i in rows}) for d in range(2)]
    stops = [sorted({(i[d].stop or value.shape[d]) for i in rows}) for d in range(2)]
    part = value[starts[0][0]:stops[0][-1], starts[1][0]:stops[1][-1]]
    x = mh.host_local_array_to_global_array(part, mesh, spec)
    assert x.shape == value.shape and x.sharding == sharding
    for a, b in zip(x.addressable_shards, want.addressable_shards, strict=True):
        assert a.device == b.device and a.index == b.index
        np.testing.assert_array_equal(np.asarray(a.data), np.asarray(b.data))
    np.testing.assert_array_equal(_whole(x), value)
    back = mh.global_array_to_host_local_array(x, mesh, spec)
    if NP > 1:
        assert back.sharding == local and back.is_fully_addressable
    np.testing.assert_array_equal(np.asarray(back), part)
    with pytest.raises(ValueError, match="`None` is not a valid input to the pspecs"):
        mh.host_local_array_to_global_array(part, mesh, None)


def test_shard_map_collectives_across_processes() -> None:
    value = _global(G, 4, seed=3)
    x = _split(value)

    def body(b: jax.Array) -> tuple[jax.Array, ...]:
        total = lax.psum(b, "x")
        gathered = lax.all_gather(b, "x", tiled=True)
        ring = lax.ppermute(b, "x", [(i, (i + 1) % G) for i in range(G)])
        return total, gathered, ring, b * lax.axis_index("x")

    f = shard_map(body, mesh=MESH, in_specs=P("x"), out_specs=(P(), P(), P("x"), P("x")),
                  check_rep=False)
    total, gathered, ring, scaled = f(x)
    np.testing.assert_allclose(np.asarray(total), value.sum(0, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(gathered), value)
    np.testing.assert_array_equal(_whole(ring), np.roll(value, 1, axis=0))
    np.testing.assert_array_equal(_whole(scaled),
                                  value * np.arange(G, dtype=np.float32)[:, None])
    # A 2-d mesh: a sum over one axis stays split over the other.
    y = _split(value, NamedSharding(MESH2, P(("p", "d"))))
    g = shard_map(lambda b: lax.psum(b, "d"), mesh=MESH2, in_specs=P(("p", "d")),
                  out_specs=P("p"), check_rep=False)
    want = value.reshape(NP, L, 4).sum(1)
    np.testing.assert_allclose(_whole(g(y)), want, rtol=1e-5)


def test_jitted_shard_map_across_processes_and_replicated_arguments() -> None:
    value = _global(2 * G, 4, seed=11)
    scale = mh.host_local_array_to_global_array(np.float32(3.0), MESH, P())
    f = jax.jit(shard_map(lambda s, b: (lax.psum(b.sum(0), "x") * s, b - lax.pmean(b, "x")),
                          mesh=MESH, in_specs=(P(), P("x")), out_specs=(P(), P("x"))))
    total, centred = f(scale, _split(value))
    np.testing.assert_allclose(np.asarray(total), value.sum(0) * 3, rtol=1e-5, atol=1e-5)
    blocks = value.reshape(G, 2, 4)
    want = (blocks - blocks.mean(0)).reshape(2 * G, 4)
    np.testing.assert_allclose(_whole(centred), want, rtol=1e-5, atol=1e-6)
    # A replicated global Array is whole on every process: any jitted program reads it.
    np.testing.assert_allclose(np.asarray(jax.jit(lambda t: t[::-1] * 2)(total)),
                               value.sum(0)[::-1] * 6, rtol=1e-5, atol=1e-5)


def test_jit_runs_per_shard_across_processes() -> None:
    value = _global(2 * G, 5, seed=4)
    w = _global(5, 3, seed=5)
    x = _split(value)
    f = jax.jit(lambda x, w: (jnp.tanh(x) @ w, (x * 2).sum(0), jnp.max(x)))
    rows, col_sums, top = f(x, w)
    assert rows.sharding == SPLIT and col_sums.is_fully_replicated
    np.testing.assert_allclose(_whole(rows), np.tanh(value) @ w, rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(np.asarray(col_sums), (value * 2).sum(0), rtol=1e-5, atol=1e-5)
    assert float(top) == value.max()
    if G > 1:
        assert f.lower(x, w).as_text().startswith("# sharded jit: per shard")


def test_data_parallel_step_on_global_arrays_matches_one_process() -> None:
    xs, ys = _global(4 * G, 6, seed=6), _global(4 * G, 2, seed=7)
    params = {"w": _global(6, 2, seed=8), "b": np.zeros(2, np.float32)}

    def loss(p: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.mean((jnp.tanh(x @ p["w"] + p["b"]) - y) ** 2)

    replicated = mh.host_local_array_to_global_array(params, MESH, P())
    grads = jax.jit(jax.grad(loss))(replicated, _split(xs), _split(ys))
    want = jax.grad(loss)(params, xs, ys)
    for k in params:
        assert grads[k].is_fully_replicated
        np.testing.assert_allclose(np.asarray(grads[k]), np.asarray(want[k]), rtol=1e-4,
                                   atol=1e-6)


def test_device_put_onto_other_processes_devices_is_jax_error() -> None:
    value = _global(2 * G, 3, seed=10)
    x = _split(value)
    assert jax.device_put(x, SPLIT) is x
    if NP == 1:
        return
    with pytest.raises(ValueError, match="device_put's second argument must be a Device or a "
                                         "Sharding which represents addressable devices"):
        jax.device_put(value, SPLIT)
    with pytest.raises(ValueError, match="device_put's first argument must be a fully "
                                         "addressable array"):
        jax.device_put(x, jax.local_devices()[0])


def test_eager_operations_on_arrays_across_processes() -> None:
    """An eager operation reading an Array split across processes runs as a jitted one:
    per shard (elementwise, a reduction over the split dimension) or on gathered values."""
    value = _global(2 * G, 3, seed=12)
    x = _split(value)
    doubled = x * 2 + 1
    if NP > 1:  # run per shard: the result keeps the split (on one process, eager results
        assert doubled.sharding == SPLIT  # of split Arrays are whole on the default device)
    np.testing.assert_allclose(_whole(doubled), value * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.sum(x, axis=0)), value.sum(0), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(float(jnp.mean(x)), value.mean(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(_whole(jnp.flip(x, 0)), value[::-1])


def test_programs_that_need_other_blocks_run_on_gathered_values() -> None:
    """A jitted program that does not run per shard runs on the whole values, gathered from
    every process, and lays its outputs out as planned (each process keeping its blocks)."""
    value = _global(2 * G, 3, seed=9)
    x = _split(value)
    f = jax.jit(lambda x: (x[::-1] + 1, jnp.cumsum(x, axis=0)[-1]))
    flipped, last = f(x)
    np.testing.assert_array_equal(_whole(flipped), value[::-1] + 1)
    np.testing.assert_allclose(np.asarray(last), value.sum(0), rtol=1e-5, atol=1e-5)
    # Asked for another layout than shard_map gives: gathered, then laid out as asked.
    g = jax.jit(shard_map(lambda b: b * 2, mesh=MESH, in_specs=P("x"), out_specs=P("x")),
                out_shardings=WHOLE)
    doubled = g(x)
    assert doubled.sharding == WHOLE
    np.testing.assert_array_equal(np.asarray(doubled), value * 2)
    h = jax.jit(lambda x: x * 3, out_shardings=NamedSharding(MESH2, P(None, None)))
    np.testing.assert_array_equal(np.asarray(h(x)), value * 3)


# Layouts an Array across processes moves between: (from, to) on the 1-d and 2-d meshes.
RESHARDS = [
    (SPLIT, WHOLE),
    (WHOLE, SPLIT),
    (SPLIT, NamedSharding(MESH, P(None, "x"))),
    (NamedSharding(MESH2, P("p", "d")), NamedSharding(MESH2, P("d", "p"))),
    (NamedSharding(MESH2, P("p")), SPLIT),
]


@pytest.mark.parametrize("src,dst", RESHARDS)
def test_reshards_across_processes(src: NamedSharding, dst: NamedSharding) -> None:
    value = _global(2 * G, 2 * G, seed=13)
    x = _split(value, src)
    y = jax.device_put(x, dst)
    assert y.sharding == dst and y.shape == value.shape
    for s in y.addressable_shards:
        np.testing.assert_array_equal(np.asarray(s.data), value[s.index])
    np.testing.assert_array_equal(_whole(y), value)
    np.testing.assert_array_equal(_whole(x), value)  # the source is unchanged
    # Blocks are copies: donating the result leaves the source as it was.
    jax.jit(lambda a: a + 1, donate_argnums=0)(y)
    np.testing.assert_array_equal(_whole(x), value)


def test_shard_map_and_host_local_views_reshard_their_arguments() -> None:
    value = _global(G, 2 * G, seed=14)
    x = _split(value, NamedSharding(MESH, P(None, "x")))  # split along columns
    rows = shard_map(lambda b: b * 2, mesh=MESH, in_specs=P("x"), out_specs=P("x"))(x)
    assert rows.sharding == SPLIT
    np.testing.assert_array_equal(_whole(rows), value * 2)
    part = mh.global_array_to_host_local_array(x, MESH, P("x"))
    np.testing.assert_array_equal(np.asarray(part), value[L * R:L * (R + 1)])


def test_processes_on_one_host_share_its_cores_for_blas() -> None:
    import os

    from numjax._src.runtime import blas, distributed
    # CI starts every process on one host: they share its cores (unless the launcher bound
    # each process to cores of its own).
    assert distributed.state.host_processes == NP
    usable = len(os.sched_getaffinity(0))
    bound = usable < (os.cpu_count() or 1)
    assert blas._cores() == (usable if bound else max(1, usable // NP))

"""GSPMDSharding: the layouts of jit outputs no NamedSharding describes (a flip along a split
dimension, x[0] of a value split along both dimensions of a (2, 4) mesh), and Arrays laid out
by them, against what JAX 0.4.30 gave for the same programs (recorded inline: reprs, index
maps, replica ids, the tables visualize_array_sharding prints).

The layouts of single operations on every input layout are in
tests/api/test_sharding_propagation.py; this file checks the sharding objects and what follows
from them (operations on such Arrays, resharding, equality).
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax.experimental.shard_map import shard_map
from numjax.sharding import GSPMDSharding, Mesh, NamedSharding, PartitionSpec
from numjax.test_util import cpu_devices

P = PartitionSpec
X = np.arange(64, dtype=np.float32).reshape(8, 8) / 10


@pytest.fixture
def flipped() -> Any:
    """jnp.flip(x, 0) of x split in 4 along its rows (JAX: {devices=[4,1]3,2,1,0})."""
    with cpu_devices(8):
        mesh = Mesh(np.array(jax.devices()[:4]), ("x",))
        x = jax.device_put(X, NamedSharding(mesh, P("x")))
        yield x, jnp.flip(x, 0), mesh


# (what, the program, JAX 0.4.30's output sharding)
ON_FLIPPED = [
    ("sin", lambda x, fl: jnp.sin(fl), "GSPMDSharding({devices=[4,1]3,2,1,0})"),
    ("jit sin", lambda x, fl: jax.jit(jnp.sin)(fl), "GSPMDSharding({devices=[4,1]3,2,1,0})"),
    # the first operand's layout
    ("fl + x", lambda x, fl: fl + x, "GSPMDSharding({devices=[4,1]3,2,1,0})"),
    ("x + fl", lambda x, fl: x + fl,
     "NamedSharding(mesh=Mesh('x': 4), spec=PartitionSpec('x',))"),
    # blocks back in order, still listed one by one (as XLA keeps a tile assignment it
    # once held as a list); on a NamedSharding input, the same program's result is one
    ("flip again", lambda x, fl: jax.jit(lambda v: jnp.flip(v, 0))(fl),
     "GSPMDSharding({devices=[4,1]0,1,2,3})"),
    ("flip twice", lambda x, fl: jax.jit(lambda v: jnp.flip(jnp.flip(v, 0), 0))(x),
     "NamedSharding(mesh=Mesh('x': 4), spec=PartitionSpec('x',))"),
    # no NamedSharding among the inputs: JAX names no mesh, even for a replicated result
    ("sum0", lambda x, fl: jax.jit(lambda v: v.sum(0))(fl), "GSPMDSharding({replicated})"),
    ("sum1", lambda x, fl: jax.jit(lambda v: v.sum(1))(fl), "GSPMDSharding({devices=[4]3,2,1,0})"),
    ("transpose", lambda x, fl: jax.jit(lambda v: v.T)(fl),
     "GSPMDSharding({devices=[1,4]3,2,1,0})"),
]


@pytest.mark.parametrize("what,f,want", ON_FLIPPED, ids=[r[0] for r in ON_FLIPPED])
def test_operations_on_a_gspmd_array_lay_out_as_jax(flipped: Any, what: str, f: Any,
                                                    want: str) -> None:
    x, fl, _ = flipped
    out = f(x, fl)
    assert repr(out.sharding) == want
    np.testing.assert_allclose(np.asarray(out), f(X, X[::-1]), rtol=1e-6)
    for shard in out.addressable_shards:
        np.testing.assert_allclose(np.asarray(shard.data), np.asarray(out)[shard.index])


def test_gspmd_sharding_object_as_jax(flipped: Any) -> None:
    x, fl, mesh = flipped
    s = fl.sharding
    assert type(s) is GSPMDSharding
    assert str(s) == "GSPMDSharding({devices=[4,1]3,2,1,0})"
    assert s == jnp.flip(x, 0).sharding and hash(s) == hash(jnp.flip(x, 0).sharding)
    assert s != NamedSharding(mesh, P("x"))
    assert not s.is_equivalent_to(NamedSharding(mesh, P("x")), 2)
    assert not s.is_fully_replicated and s.is_fully_addressable
    assert s.memory_kind is None
    assert s.device_set == set(jax.devices()[:4])
    assert s._device_assignment == tuple(jax.devices()[:4])
    assert s.shard_shape((8, 8)) == (2, 8)
    rows = {d.id: index[0] for d, index in s.addressable_devices_indices_map((8, 8)).items()}
    assert rows == {0: slice(6, 8), 1: slice(4, 6), 2: slice(2, 4), 3: slice(0, 2)}
    assert [(sh.device.id, sh.replica_id) for sh in fl.addressable_shards] == [
        (0, 0), (1, 0), (2, 0), (3, 0)]
    with pytest.raises(ValueError) as info:
        s.shard_shape((6, 8))
    assert str(info.value) == (
        "Sharding GSPMDSharding({devices=[4,1]3,2,1,0}) implies that array axis 0 is "
        "partitioned 4 times, but the dimension size is 6 (full shape: (6, 8), per-dimension "
        "tiling factors: [4, 1] should evenly divide the shape)")
    # Built from its tile assignment: the same sharding.
    built = GSPMDSharding(jax.devices()[:4], np.array([[3], [2], [1], [0]]))
    assert built == s and hash(built) == hash(s)
    # Moved to a NamedSharding: the blocks change devices, the value does not.
    moved = jax.device_put(fl, NamedSharding(mesh, P("x")))
    assert moved.sharding == NamedSharding(mesh, P("x"))
    np.testing.assert_array_equal(np.asarray(moved), X[::-1])
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        jax.debug.visualize_array_sharding(fl)
    assert buffer.getvalue().splitlines()[:3] == [
        "┌───────────────────────┐", "│         CPU 3         │", "├───────────────────────┤"]


def test_first_row_of_a_value_split_on_a_2d_mesh() -> None:
    """x[0] of x split P('x', 'y') on a (2, 4) mesh: JAX splits it 4 ways by 'x' and the major
    half of 'y', each block on two devices."""
    with cpu_devices(8):
        mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
        x = jax.device_put(X, NamedSharding(mesh, P("x", "y")))
        row = jax.jit(lambda v: v[0])(x)
        assert repr(row.sharding) == \
            "GSPMDSharding({devices=[4,2]<=[8] last_tile_dim_replicate})"
        assert [(sh.device.id, (sh.index[0].start, sh.index[0].stop), sh.replica_id)
                for sh in row.addressable_shards] == [
            (0, (0, 2), 0), (1, (0, 2), 1), (2, (2, 4), 0), (3, (2, 4), 1), (4, (4, 6), 0),
            (5, (4, 6), 1), (6, (6, 8), 0), (7, (6, 8), 1)]
        assert repr((row * 2).sharding) == repr(row.sharding)
        np.testing.assert_allclose(np.asarray(row * 2), X[0] * 2)
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            jax.debug.visualize_array_sharding(row)
        assert buffer.getvalue().splitlines()[1] == "│CPU 0,1│CPU 2,3│CPU 4,5│CPU 6,7│"
        # P('y', 'x'): the major half of 'y' alone, JAX's text a transposed iota.
        x = jax.device_put(X, NamedSharding(mesh, P("y", "x")))
        assert repr(jax.jit(lambda v: v[0])(x).sharding) == (
            "GSPMDSharding({devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate})")


# tile assignment, last_tile_dim_replicate, XLA's text as JAX 0.4.30 prints it
TEXTS = [
    (np.arange(8).reshape(4, 2), False, "{devices=[4,2]<=[8]}"),
    (np.arange(8).reshape(4, 2), True, "{devices=[4,2]<=[8] last_tile_dim_replicate}"),
    (np.arange(8).reshape(2, 4).T, False, "{devices=[4,2]<=[2,4]T(1,0)}"),
    (np.arange(8).reshape(2, 2, 2).transpose(1, 0, 2).reshape(2, 4), True,
     "{devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}"),
    (np.array([[4, 5, 6, 7], [0, 1, 2, 3]]), False, "{devices=[2,4]4,5,6,7,0,1,2,3}"),
    (np.arange(8).reshape(1, 8), True, "{replicated}"),
    # a replica dimension of size 1 is dropped; replicas are listed in increasing order
    (np.array([[1], [0]]), True, "{devices=[2]1,0}"),
    (np.array([[1, 0], [3, 2]]), True, "{devices=[2,2]<=[4] last_tile_dim_replicate}"),
]


@pytest.mark.parametrize("assignment,replicated,text", TEXTS, ids=[t[2] for t in TEXTS])
def test_gspmd_sharding_text(assignment: Any, replicated: bool, text: str) -> None:
    with cpu_devices(8):
        devices = jax.devices()[:assignment.size]
        s = GSPMDSharding(devices, assignment, last_tile_dim_replicate=replicated)
        assert repr(s) == f"GSPMDSharding({text})"


def test_gspmd_sharding_replicated_and_bad_assignments() -> None:
    with cpu_devices(8):
        devices = jax.devices()[:4]
        s = GSPMDSharding.get_replicated(devices)
        assert repr(s) == "GSPMDSharding({replicated})"
        assert s.is_fully_replicated and s.shard_shape((3, 5)) == (3, 5)
        # Equivalent to the NamedSharding replicating on the same devices.
        mesh = Mesh(np.array(devices), ("x",))
        assert s.is_equivalent_to(NamedSharding(mesh, P()), 2)
        with pytest.raises(ValueError, match="must hold each position of the 4 devices once"):
            GSPMDSharding(devices, np.array([0, 1, 1, 2]))


# A layout the program gives its output when no input names a mesh (host inputs): JAX 0.4.30
# reports it as a GSPMDSharding; with a NamedSharding input, as a NamedSharding.
def _program_layouts() -> list[tuple[str, Any, str]]:
    wsc = jax.lax.with_sharding_constraint

    def on(mesh_shape: tuple[int, ...], spec: PartitionSpec) -> NamedSharding:
        n = int(np.prod(mesh_shape))
        names = ("x", "y")[:len(mesh_shape)]
        return NamedSharding(Mesh(np.array(jax.devices()[:n]).reshape(mesh_shape), names), spec)

    def mapped(out_spec: PartitionSpec, f: Any) -> Any:
        return jax.jit(shard_map(f, on((2,), P()).mesh, in_specs=P("x"), out_specs=out_spec))

    return [
        ("constraint", lambda: jax.jit(lambda x: wsc(x * 2, on((2,), P("x"))))(X),
         "GSPMDSharding({devices=[2,1]<=[2]})"),
        ("constraint, then an operation",
         lambda: jax.jit(lambda x: wsc(x * 2, on((2,), P("x"))) + 1)(X),
         "GSPMDSharding({devices=[2,1]<=[2]})"),
        ("constraint, then a sum", lambda: jax.jit(lambda x: wsc(x, on((2,), P("x"))).sum(1))(X),
         "GSPMDSharding({devices=[2]<=[2]})"),
        ("replicated", lambda: jax.jit(lambda x: wsc(x * 2, on((2,), P())))(X),
         "GSPMDSharding({replicated})"),
        ("2-d mesh", lambda: jax.jit(lambda x: wsc(x * 2, on((2, 4), P("y", "x"))))(X),
         "GSPMDSharding({devices=[4,2]<=[2,4]T(1,0)})"),
        ("2-d mesh, partly", lambda: jax.jit(lambda x: wsc(x * 2, on((2, 4), P("y"))))(X),
         "GSPMDSharding({devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate})"),
        ("shard_map", lambda: mapped(P("x"), lambda b: b * 2)(X),
         "GSPMDSharding({devices=[2,1]<=[2]})"),
        ("shard_map, psum", lambda: mapped(P(), lambda b: jax.lax.psum(b, "x"))(X),
         "GSPMDSharding({replicated})"),
        ("named input", lambda: jax.jit(lambda x: wsc(x * 2, on((2,), P(None, "x"))))(
            jax.device_put(X, on((2,), P("x")))),
         "NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec(None, 'x'))"),
        ("eager shard_map",
         lambda: shard_map(lambda b: b * 2, on((2,), P()).mesh, in_specs=P("x"),
                           out_specs=P("x"))(X),
         "NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec('x',))"),
    ]


PROGRAM_LAYOUTS = ["constraint", "constraint, then an operation", "constraint, then a sum",
                   "replicated", "2-d mesh", "2-d mesh, partly", "shard_map", "shard_map, psum",
                   "named input", "eager shard_map"]


@pytest.mark.parametrize("index", range(len(PROGRAM_LAYOUTS)), ids=PROGRAM_LAYOUTS)
def test_layouts_a_program_gives_without_named_inputs(index: int) -> None:
    with cpu_devices(8):
        what, run, want = _program_layouts()[index]
        assert what == PROGRAM_LAYOUTS[index]
        out = run()
        assert repr(out.sharding) == want, what
        for shard in out.addressable_shards:
            np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(out)[shard.index])

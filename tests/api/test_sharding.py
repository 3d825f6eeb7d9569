"""jax.sharding objects (Mesh, PartitionSpec, NamedSharding, PositionalSharding) and Arrays
split across devices by them, on 1, 2, 4 and 8 CPU devices.

tests/data/sharding_golden.json holds what JAX 0.4.30 gave for each sharding (reprs, shard
shapes, index maps, replica ids) and the tables `visualize_sharding` printed, recorded by
tools/make_sharding_golden.py; error texts are JAX's, recorded inline.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import pathlib
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax.experimental import mesh_utils
from numjax.sharding import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    PositionalSharding,
    SingleDeviceSharding,
)
from numjax.test_util import cpu_devices

P = PartitionSpec
GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "data" / "sharding_golden.json")
                    .read_text())


def _spec(entries: list[Any]) -> PartitionSpec:
    return P(*(tuple(e) if isinstance(e, list) else e for e in entries))


def _mesh(n: int, shape: list[int], names: list[str]) -> Mesh:
    return Mesh(np.array(jax.devices()[:n]).reshape(shape), tuple(names))


def _positional(case: dict[str, Any]) -> PositionalSharding:
    s = PositionalSharding(jax.devices()[:case["devices"]]).reshape(case["reshape"])
    if case["replicate"] == "all":
        return s.replicate()
    if case["replicate"] is not None:
        return s.replicate(case["replicate"])
    return s


def _case_id(case: dict[str, Any]) -> str:
    return "-".join(str(case.get(k)) for k in ("devices", "mesh_shape", "spec", "reshape",
                                                 "replicate", "shape") if k in case)


@pytest.mark.parametrize("case", GOLDEN["named"], ids=_case_id)
def test_named_sharding_matches_jax(case: dict[str, Any]) -> None:
    shape = tuple(case["shape"])
    with cpu_devices(case["devices"]):
        m = _mesh(case["devices"], case["mesh_shape"], case["axis_names"])
        s = NamedSharding(m, _spec(case["spec"]))
        assert repr(m) == case["mesh_repr"]
        assert str(m) == case["mesh_str"]
        assert repr(s) == str(s) == case["repr"]
        assert s.shard_shape(shape) == tuple(case["shard_shape"])
        assert repr(s.devices_indices_map(shape)) == case["indices"]
        assert s.addressable_devices_indices_map(shape) == s.devices_indices_map(shape)
        assert s.is_fully_replicated is case["fully_replicated"]
        assert s.is_fully_addressable and s.memory_kind is None
        assert s.device_set == set(jax.devices()[:case["devices"]])
        assert s._device_assignment == tuple(m.devices.flat)
        x = jax.device_put(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), s)
        assert [shard.replica_id for shard in x.addressable_shards] == case["replica_ids"]


@pytest.mark.parametrize("case", GOLDEN["positional"], ids=_case_id)
def test_positional_sharding_matches_jax(case: dict[str, Any]) -> None:
    shape = tuple(case["shape"])
    with cpu_devices(case["devices"]):
        s = _positional(case)
        assert repr(s) == case["repr"]
        assert s.shape == tuple(case["sharding_shape"])
        assert s.shard_shape(shape) == tuple(case["shard_shape"])
        assert repr(s.devices_indices_map(shape)) == case["indices"]
        assert s.is_fully_replicated is case["fully_replicated"]
        x = jax.device_put(np.zeros(shape, np.float32), s)
        assert [shard.replica_id for shard in x.addressable_shards] == case["replica_ids"]


@pytest.mark.parametrize("case", GOLDEN["visualize"], ids=_case_id)
def test_visualize_sharding_matches_jax(case: dict[str, Any]) -> None:
    with cpu_devices(8):
        m = _mesh(int(np.prod(case["mesh_shape"])), case["mesh_shape"], case["axis_names"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            jax.debug.visualize_sharding(case["shape"], NamedSharding(m, _spec(case["spec"])))
        assert out.getvalue() == case["text"]


def test_visualize_array_sharding_and_wide_tables() -> None:
    with cpu_devices(4):
        m = _mesh(4, [2, 2], ["x", "y"])
        x = jax.device_put(np.zeros((4, 100), np.float32), NamedSharding(m, P("x", "y")))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            jax.debug.visualize_array_sharding(x)
        lines = out.getvalue().splitlines()
        # Too wide for 80 columns: the columns share the room (JAX's geometry), labels kept.
        assert lines[0] == "┌" + "─" * 39 + "┬" + "─" * 38 + "┐"
        assert all(len(line) == 80 for line in lines)
        assert "CPU 0" in out.getvalue() and "CPU 3" in out.getvalue()
        with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
            jax.debug.visualize_array_sharding(jnp.ones((2, 3, 4)))


def test_mesh_properties() -> None:
    with cpu_devices(8):
        devs = jax.devices()
        m = Mesh(np.array(devs).reshape(2, 4), ("x", "y"))
        assert list(m.shape.items()) == [("x", 2), ("y", 4)]
        assert type(m.shape).__name__ == "OrderedDict"
        assert m.size == 8 and m.devices.shape == (2, 4) and m.axis_names == ("x", "y")
        assert m.local_devices == devs and not m.empty and not m.is_multi_process
        assert m.device_ids.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
        same = Mesh(np.array(devs).reshape(2, 4), ["x", "y"])
        assert m == same and hash(m) == hash(same)
        assert m != Mesh(np.array(devs).reshape(2, 4), ("x", "z"))
        assert m != Mesh(np.array(devs).reshape(4, 2), ("x", "y"))
        one = Mesh(devs, "x")  # a list of devices and one name
        assert one.axis_names == ("x",) and one.devices.shape == (8,)
        with m as entered:
            assert entered is m
        assert mesh_utils.create_device_mesh((2, 4)).tolist() == np.array(devs).reshape(
            2, 4).tolist()
        assert mesh_utils.create_device_mesh([2], devs[4:6]).tolist() == devs[4:6]


def test_addressability_in_a_multi_process_mesh() -> None:
    # Process 0 of 2, two devices each: devices 2 and 3 belong to the other process.
    from numjax._src.runtime.devices import Backend
    devs = Backend("cpu", 2, process_index=0, process_count=2).devices()
    m = Mesh(np.array(devs).reshape(2, 2), ("proc", "local"))
    assert m.is_multi_process and m.local_devices == devs[:2]
    s = NamedSharding(m, P("proc", "local"))
    assert not s.is_fully_addressable and s.addressable_devices == set(devs[:2])
    assert s.addressable_devices_indices_map((4, 4)) == {
        devs[0]: (slice(0, 2), slice(0, 2)), devs[1]: (slice(0, 2), slice(2, 4))}
    value = np.arange(16.).reshape(4, 4)
    # JAX 0.4.30: device_put cannot place a host value on other processes' devices.
    with pytest.raises(ValueError, match="device_put's second argument must be a Device or a "
                                         "Sharding which represents addressable devices"):
        jax.device_put(value, s)
    x = jax.make_array_from_callback((4, 4), s, lambda index: value[index])
    assert not x.is_fully_addressable
    assert [shard.device for shard in x.addressable_shards] == devs[:2]
    assert [np.asarray(shard.data).tolist() for shard in x.addressable_shards] == [
        [[0.0, 1.0], [4.0, 5.0]], [[2.0, 3.0], [6.0, 7.0]]]
    assert repr(x) == "Array((4, 4), dtype=float32)"
    with pytest.raises(RuntimeError, match="Fetching value for `jax.Array` that spans "
                                           "non-addressable"):
        np.asarray(x)
    assert m.local_mesh.devices.tolist() == [devs[:2]]
    local = Mesh(np.array(devs[:2]), ("i",))
    assert not local.is_multi_process and NamedSharding(local, P()).is_fully_addressable


def test_devices_and_shardings_cannot_be_copied() -> None:
    # JAX 0.4.30: TypeError("cannot pickle 'Device' object"); a copy would be a new device.
    import copy
    import pickle
    m = Mesh(np.array(jax.devices()[:1]), ("x",))
    for obj in (jax.devices()[0], m, NamedSharding(m, P("x"))):
        assert _err(lambda o=obj: copy.deepcopy(o)) == ("TypeError",
                                                          "cannot pickle 'Device' object")
        assert _err(lambda o=obj: pickle.dumps(o)) == ("TypeError",
                                                        "cannot pickle 'Device' object")
    assert pickle.loads(pickle.dumps(P("x", None))) == P("x", None)


def test_partition_spec() -> None:
    assert repr(P()) == "PartitionSpec()"
    assert repr(P("x")) == str(P("x")) == "PartitionSpec('x',)"
    assert repr(P("x", None)) == "PartitionSpec('x', None)"
    assert repr(P(("x", "y"),)) == "PartitionSpec(('x', 'y'),)"
    assert repr(P.UNCONSTRAINED) == "UNCONSTRAINED"
    assert repr(P("x", P.UNCONSTRAINED)) == "PartitionSpec('x', UNCONSTRAINED)"
    assert isinstance(P("x"), tuple) and P("x") == ("x",) and hash(P("x")) == hash(("x",))
    assert P("x") != P("x", None)


def test_sharding_equality_and_equivalence() -> None:
    with cpu_devices(8):
        devs = jax.devices()
        m = Mesh(np.array(devs).reshape(2, 4), ("x", "y"))
        renamed = Mesh(np.array(devs).reshape(2, 4), ("a", "b"))
        s = NamedSharding(m, P("x"))
        # JAX compares each dimension's axes: 'x' is ('x',), None is (), trailing Nones count.
        assert s == NamedSharding(m, P(("x",))) and hash(s) == hash(NamedSharding(m, P("x",)))
        assert s != NamedSharding(m, P("x", None))
        assert NamedSharding(m, P(None)) != NamedSharding(m, P())
        assert NamedSharding(m, P((), "x")) == NamedSharding(m, P(None, "x"))
        assert s != NamedSharding(renamed, P("a"))
        assert s.is_equivalent_to(NamedSharding(renamed, P("a")), 1)
        assert s.is_equivalent_to(PositionalSharding(devs).reshape(2, 4).replicate(1), 2)
        assert not NamedSharding(m, P("y")).is_equivalent_to(s, 1)
        one = NamedSharding(Mesh(devs[:1], ("x",)), P("x"))
        assert one.is_equivalent_to(SingleDeviceSharding(devs[0]), 1)
        assert SingleDeviceSharding(devs[0]).is_equivalent_to(one, 1)
        p = PositionalSharding(devs).reshape(4, 2)
        assert p == PositionalSharding(devs).reshape(4, 2)
        assert hash(p) == hash(PositionalSharding(devs).reshape(4, 2))
        assert p != p.replicate(0)
        assert p.T.shape == (2, 4) and p.replicate().is_fully_replicated


def _err(f: Any) -> tuple[str, str]:
    try:
        f()
    except Exception as e:
        return type(e).__name__, str(e)
    return "no error", ""


# (what, function of the 2x4 mesh, JAX 0.4.30's exception type and text)
M24 = "NamedSharding(mesh=Mesh('x': 2, 'y': 4), spec=PartitionSpec("
POS42 = ("PositionalSharding([[{CPU 0} {CPU 1}]\n                    [{CPU 2} {CPU 3}]\n"
         "                    [{CPU 4} {CPU 5}]\n                    [{CPU 6} {CPU 7}]], "
         "shape=(4, 2))")
ERRORS = [
    ("undefined axis", lambda m, d: NamedSharding(m, P("z")),
     "ValueError", "Resource axis: z of PartitionSpec('z',) is undefined."),
    ("integer axis", lambda m, d: NamedSharding(m, P(1)),
     "ValueError", "Resource axis: 1 of PartitionSpec(1,) is undefined."),
    ("duplicate axis", lambda m, d: NamedSharding(m, P("x", "x")),
     "ValueError", "A single NamedSharding spec specification can map every mesh axis to at "
     "most one positional dimension, but PartitionSpec('x', 'x') has duplicate entries for "
     "`x`"),
    ("spec not a PartitionSpec", lambda m, d: NamedSharding(m, ("x",)),
     "TypeError", "NamedSharding spec leaf specifications are expected to be PartitionSpec "
     "instances or None, but got x"),
    ("shard_shape not divisible", lambda m, d: NamedSharding(m, P("x")).shard_shape((3,)),
     "ValueError", f"Sharding {M24}'x',)) implies that array axis 0 is partitioned 2 times, "
     "but the dimension size is 3 (full shape: (3,), per-dimension tiling factors: [2] should "
     "evenly divide the shape)"),
    ("devices_indices_map not divisible",
     lambda m, d: NamedSharding(m, P("x")).devices_indices_map((3,)),
     "ValueError", f"Sharding {M24}'x',)) implies that array axis 0 is partitioned 2 times, "
     "but the dimension size is 3 (full shape: (3,), per-dimension tiling factors: [2] should "
     "evenly divide the shape)"),
    ("device_put not divisible", lambda m, d: jax.device_put(np.arange(3.), NamedSharding(
        m, P("x"))),
     "ValueError", f"One of device_put args was given the sharding of {M24}'x',)), which "
     "implies that the global size of its dimension 0 should be divisible by 2, but it is "
     "equal to 3 (full shape: (3,))"),
    ("device_put 2-d not divisible", lambda m, d: jax.device_put(
        np.zeros((2, 3)), NamedSharding(m, P("x", "y"))),
     "ValueError", f"One of device_put args was given the sharding of {M24}'x', 'y')), which "
     "implies that the global size of its dimension 1 should be divisible by 4, but it is "
     "equal to 3 (full shape: (2, 3))"),
    ("device_put rank too low", lambda m, d: jax.device_put(np.arange(4.), NamedSharding(
        m, P("x", "y"))),
     "ValueError", f"One of device_put args is incompatible with its sharding annotation "
     f"{M24}'x', 'y')): Sharding {M24}'x', 'y')) is only valid for values of rank at least 2, "
     "but was applied to a value of rank 1."),
    ("device_put scalar", lambda m, d: jax.device_put(np.ones(()), NamedSharding(m, P("x"))),
     "ValueError", f"One of device_put args is incompatible with its sharding annotation "
     f"{M24}'x',)): Sharding {M24}'x',)) is only valid for values of rank at least 1, but was "
     "applied to a value of rank 0. For scalars the PartitionSpec should be P()"),
    ("mesh rank", lambda m, d: Mesh(np.array(d).reshape(2, 4), ("x",)),
     "ValueError", "Mesh requires the ndim of its first argument (`devices`) to equal the "
     "length of its second argument (`axis_names`), but got devices.ndim == 2 and "
     "len(axis_names) == 1."),
    ("no devices", lambda m, d: PositionalSharding([]),
     "ValueError", "PositionalSharding.__init__ requires at least one device, got []"),
    ("positional not divisible", lambda m, d: PositionalSharding(d).reshape(4, 2).shard_shape(
        (7, 4)),
     "ValueError", f"Sharding {POS42} implies that array axis 0 is partitioned 4 times, but "
     "the dimension size is 7 (full shape: (7, 4), per-dimension tiling factors: [4, 2] "
     "should evenly divide the shape)"),
    ("device_put positional rank", lambda m, d: jax.device_put(
        np.ones(8), PositionalSharding(d).reshape(4, 2)),
     "ValueError", f"One of device_put args is incompatible with its sharding annotation "
     f"{POS42}: Sharding {POS42} is only valid for values of rank 2, but was applied to a "
     "value of rank 1"),
    ("device_put positional not divisible", lambda m, d: jax.device_put(
        np.ones((7, 4)), PositionalSharding(d).reshape(4, 2)),
     "ValueError", f"One of device_put args was given the sharding of {POS42}, which implies "
     "that the global size of its dimension 0 should be divisible by 4, but it is equal to 7 "
     "(full shape: (7, 4))"),
    ("positional bad reshape", lambda m, d: PositionalSharding(d).reshape(3, 3),
     "ValueError", "cannot reshape array of size 8 into shape (3,3)"),
    ("memory kind", lambda m, d: NamedSharding(m, P("x"), memory_kind="pinned_host"),
     "ValueError", "Could not find memory addressable by device cpu. Device cpu can address "
     "the following memory kinds: . Got memory kind: pinned_host"),
    ("with_memory_kind", lambda m, d: NamedSharding(m, P("x")).with_memory_kind("pinned_host"),
     "ValueError", "Could not find memory addressable by device cpu. Device cpu can address "
     "the following memory kinds: . Got memory kind: pinned_host"),
    ("mesh_utils count", lambda m, d: mesh_utils.create_device_mesh((3, 2)),
     "ValueError", "Number of devices 8 must equal the product of mesh_shape (3, 2)"),
    ("callback shard shape", lambda m, d: jax.make_array_from_callback(
        (8,), NamedSharding(m, P("x")), lambda i: np.zeros(3)),
     "ValueError", "Expected shard shape (4,) doesn't match the single device array shape "
     f"(3,). Shape of Array is float32[8] with sharding {M24}'x',))"),
    ("callback scalar", lambda m, d: jax.make_array_from_callback(
        (8,), NamedSharding(m, P("x")), lambda i: 1.0),
     "ValueError", "Expected shard shape (4,) doesn't match the single device array shape (). "
     f"Shape of Array is float32[8] with sharding {M24}'x',))"),
]


ERRORS += [  # deliberate differences (docs/differences.md): JAX fails with an IndexError or a
    # bare AssertionError; numjax gives the text device_put gives
    ("shard_shape rank too low", lambda m, d: NamedSharding(m, P("x", "y")).shard_shape((4,)),
     "ValueError", f"Sharding {M24}'x', 'y')) is only valid for values of rank at least 2, but "
     "was applied to a value of rank 1."),
    ("positional rank", lambda m, d: PositionalSharding(d).reshape(4, 2).shard_shape((8,)),
     "ValueError", f"Sharding {POS42} is only valid for values of rank 2, but was applied to a "
     "value of rank 1"),
]


@pytest.mark.parametrize("what, f, kind, text", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_jax(what: str, f: Any, kind: str, text: str) -> None:
    with cpu_devices(8):
        devs = jax.devices()
        m = Mesh(np.array(devs).reshape(2, 4), ("x", "y"))
        assert _err(lambda: f(m, devs)) == (kind, text)


def test_single_device_arrays_errors() -> None:
    with cpu_devices(4):
        devs = jax.devices()
        s = NamedSharding(Mesh(devs, ("i",)), P("i"))
        parts = [jax.device_put(np.arange(2.) + 2 * k, devs[k]) for k in range(4)]
        mesh_i = "NamedSharding(mesh=Mesh('i': 4), spec=PartitionSpec('i',))"
        cases = [
            (lambda: jax.make_array_from_single_device_arrays((8,), s, parts[:3]),
             ("ValueError", "Expected 4 per-device arrays (this is how many devices are "
              "addressable by the sharding), but got 3")),
            (lambda: jax.make_array_from_single_device_arrays((8,), s, [np.arange(2.)] * 4),
             ("TypeError", "Unsupported type for elements in `arrays`: "
              "<class 'numpy.ndarray'>")),
            (lambda: jax.make_array_from_single_device_arrays(
                (8,), s, [jax.device_put(np.arange(3.), devs[k]) for k in range(4)]),
             ("ValueError", "Expected shard shape (2,) doesn't match the single device array "
              f"shape (3,). Shape of Array is float32[8] with sharding {mesh_i}")),
            (lambda: jax.make_array_from_single_device_arrays((8,), s, [
                jax.device_put(np.arange(2, dtype=np.int32 if k == 0 else np.float32),
                               devs[k]) for k in range(4)]),
             ("ValueError", "INVALID_ARGUMENT: Every input must have the same dtype: S32 "
              "(shard 0) vs. F32 (shard 1)")),
        ]
        for f, expected in cases:
            assert _err(f) == expected


# ---- sharded Arrays ------------------------------------------------------------------------

MESHES = [  # (device count, mesh shape, axis names, specs to try)
    (1, (1,), ("i",), [P("i"), P()]),
    (2, (2,), ("i",), [P("i"), P(None, "i"), P()]),
    (4, (4,), ("i",), [P("i"), P(None, "i"), P()]),
    (4, (2, 2), ("x", "y"), [P("x", "y"), P("y"), P(("x", "y")), P()]),
    (8, (8,), ("i",), [P("i"), P(None, "i"), P()]),
    (8, (2, 4), ("x", "y"), [P("x", "y"), P("y", "x"), P(None, "x"), P(("y", "x")), P()]),
]


@pytest.mark.parametrize("n, mesh_shape, names, specs", MESHES,
                         ids=[f"{m[0]}-{m[1]}".replace(" ", "") for m in MESHES])
def test_device_put_round_trips(n: int, mesh_shape: tuple[int, ...], names: tuple[str, ...],
                                specs: list[PartitionSpec]) -> None:
    value = np.arange(64, dtype=np.float32).reshape(8, 8)
    with cpu_devices(n):
        m = Mesh(np.array(jax.devices()).reshape(mesh_shape), names)
        for spec in specs:
            s = NamedSharding(m, spec)
            x = jax.device_put(value, s)
            assert x.sharding is s and x._committed
            assert x.is_fully_replicated is s.is_fully_replicated
            np.testing.assert_array_equal(np.asarray(x), value)
            indices = s.devices_indices_map(value.shape)
            for shard in x.addressable_shards:
                assert shard.index == indices[shard.device]
                assert shard.data.shape == s.shard_shape(value.shape)
                assert shard.data.sharding == SingleDeviceSharding(shard.device)
                np.testing.assert_array_equal(np.asarray(shard.data), value[shard.index])
            # Devices holding the same part share one buffer object.
            by_index: dict[str, set[int]] = {}
            for shard, buf in zip(x.addressable_shards, x._shard_buffers(), strict=True):
                by_index.setdefault(repr(shard.index), set()).add(id(buf))
            assert all(len(ids) == 1 for ids in by_index.values())
            assert len({id(b) for b in x._shard_buffers()}) == len(by_index)
            # Resharding to every other spec, and back to one device.
            for other in specs:
                y = jax.device_put(x, NamedSharding(m, other))
                assert y.sharding == NamedSharding(m, other)
                np.testing.assert_array_equal(np.asarray(y), value)
            z = jax.device_put(x, jax.devices()[-1])
            assert z.sharding == SingleDeviceSharding(jax.devices()[-1])
            np.testing.assert_array_equal(np.asarray(z), value)
            assert jax.device_put(x, s) is x  # already laid out so: the same Array


@pytest.mark.parametrize("host, dtype", [
    # JAX 0.4.30 on a (2, 2) mesh, P('x', 'y'): 64-bit host values are canonicalized (x64
    # off), the others keep their dtype; no shard is weakly typed.
    (np.arange(16.0).reshape(4, 4), "float32"), (np.arange(16).reshape(4, 4), "int32"),
    (np.arange(16).reshape(4, 4) > 5, "bool"),
    (np.arange(16, dtype=np.float16).reshape(4, 4), "float16"),
    (np.arange(16, dtype=np.uint8).reshape(4, 4), "uint8"),
])
def test_device_put_round_trips_dtypes(host: np.ndarray, dtype: str) -> None:
    with cpu_devices(4):
        s = NamedSharding(Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y")), P("x", "y"))
        x = jax.device_put(host, s)
        assert str(x.dtype) == dtype and not x.weak_type
        np.testing.assert_array_equal(np.asarray(x), host.astype(dtype))
        for shard in x.addressable_shards:
            assert str(shard.data.dtype) == dtype and not shard.data.weak_type
            np.testing.assert_array_equal(np.asarray(shard.data), host.astype(dtype)[shard.index])
        back = jax.device_put(x, jax.devices()[0])
        assert str(back.dtype) == dtype
        np.testing.assert_array_equal(np.asarray(back), host.astype(dtype))


def test_sharded_arrays_from_shards_and_eager_ops() -> None:
    with cpu_devices(8):
        devs = jax.devices()
        m = Mesh(np.array(devs).reshape(2, 4), ("x", "y"))
        value = np.arange(32, dtype=np.float32).reshape(4, 8)
        s = NamedSharding(m, P("x", "y"))
        # Assembled from per-device parts: the global value is put together on first use.
        x = jax.make_array_from_callback(value.shape, s, lambda index: value[index])
        assert x.sharding == s and x.shape == (4, 8) and x.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(x), value)
        # Eager operations compute on the global value.
        np.testing.assert_allclose(np.asarray(jnp.sin(x) + 1), np.sin(value) + 1, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(x.sum(axis=0)), value.sum(axis=0))
        np.testing.assert_array_equal(np.asarray(x[1, 2:5]), value[1, 2:5])
        np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a * 2)(x)), value * 2)
        # ... and keep x's sharding, as JAX's jitted eager operations do.
        assert jnp.sin(x).sharding == s and (x + x).sharding == s
        # A callback value's dtype is kept (int32 here); a replicated sharding calls it once.
        calls: list[Any] = []
        y = jax.make_array_from_callback(
            (4,), NamedSharding(m, P()), lambda index: calls.append(index) or np.arange(4))
        assert calls == [(slice(None),)] and y.dtype == np.int32 and not y.weak_type
        assert len({id(b) for b in y._shard_buffers()}) == 1
        one = jax.make_array_from_callback((4,), SingleDeviceSharding(devs[2]),
                                           lambda index: np.arange(4)[index])
        assert one.sharding == SingleDeviceSharding(devs[2])
        # Parts given as Arrays are matched to the devices they are on, as JAX does.
        s4 = NamedSharding(Mesh(devs[:4], ("i",)), P("i"))
        parts = [jax.device_put(np.arange(2.) + 2 * k, devs[3 - k]) for k in range(4)]
        z = jax.make_array_from_single_device_arrays((8,), s4, parts)
        np.testing.assert_array_equal(np.asarray(z), [6., 7., 4., 5., 2., 3., 0., 1.])
        assert z.sharding == s4 and [sh.replica_id for sh in z.addressable_shards] == [0] * 4


def test_make_array_from_process_local_data() -> None:
    with cpu_devices(8):
        m = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
        value = np.arange(32.).reshape(4, 8)
        x = jax.make_array_from_process_local_data(NamedSharding(m, P("x", "y")), value)
        assert x.sharding == NamedSharding(m, P("x", "y")) and x.dtype == np.float32
        np.testing.assert_array_equal(np.asarray(x), value)
        y = jax.make_array_from_process_local_data(NamedSharding(m, P()), np.float64(3.0))
        assert y.shape == () and y.dtype == np.float32 and float(y) == 3.0
        s = NamedSharding(m, P("x"))
        assert _err(lambda: jax.make_array_from_process_local_data(s, np.arange(3.), (8,))) == (
            "ValueError", "Invalid host data, each dimension should match either global or "
            "process shape. In dimension i=0, the process data has 3elements. Process addresses "
            "8 elements and global_shape=(8,).")
        assert _err(lambda: jax.make_array_from_process_local_data(
            s, np.arange(8.), (8, None))) == (
            "ValueError", "global_shape=(8, None) has Nones. This is not supported.")
        assert _err(lambda: jax.make_array_from_process_local_data(s, [1, 2])) == (
            "AttributeError", "'list' object has no attribute 'shape'")


def test_device_put_keeps_weak_type_and_takes_pytrees_of_shardings() -> None:
    with cpu_devices(2):
        m = Mesh(np.array(jax.devices()), ("x",))
        w = jax.device_put(1.0, NamedSharding(m, P()))
        assert w.weak_type and repr(w) == "Array(1., dtype=float32, weak_type=True)"
        assert [sh.replica_id for sh in w.addressable_shards] == [0, 1]
        a, b = jax.device_put([np.ones(2), np.ones(4)],
                              [NamedSharding(m, P("x")), NamedSharding(m, P())])
        assert a.sharding == NamedSharding(m, P("x")) and b.sharding == NamedSharding(m, P())
        tree = jax.device_put({"a": np.ones(2), "b": np.ones(4)}, NamedSharding(m, P("x")))
        assert tree["b"].sharding == NamedSharding(m, P("x"))
        # JAX's texts: a PartitionSpec is not a placement; the placements must be a prefix.
        assert _err(lambda: jax.device_put(np.ones(2), P("x"))) == (
            "ValueError", "`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
            "`jax.Device`, `Layout` or a pytree of these values. Received invalid value: "
            "PartitionSpec('x',)")
        assert _err(lambda: jax.device_put([np.ones(2), np.ones(2)], [None])) == (
            "ValueError", "device_put device specification must be a tree prefix of the "
            "corresponding value, got specification [None] for value tree PyTreeDef([*, *]).")


def test_transfer_guard_names_the_sharding() -> None:
    with cpu_devices(2):
        m = Mesh(np.array(jax.devices()), ("x",))
        s = NamedSharding(m, P("x"))
        with jax.transfer_guard("disallow"):
            x = jax.device_put(np.arange(4.), s)  # explicit: allowed
            jax.device_put(x, NamedSharding(m, P()))
        with jax.transfer_guard("disallow_explicit"), pytest.raises(Exception) as info:
            jax.device_put(np.arange(4.), s)
        assert ("host-to-device transfer: aval=ShapedArray(float32[4]), dst_sharding="
                "NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec('x',))") in str(info.value)


def test_inspect_array_sharding() -> None:
    with cpu_devices(8):
        m = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
        x = jax.device_put(np.zeros((4, 4), np.float32), NamedSharding(m, P("x", "y")))
        seen: list[str] = []

        def f(v: Any) -> Any:
            jax.debug.inspect_array_sharding(v, callback=lambda s: seen.append(repr(s)))
            return v * 2

        f(x)  # eagerly: the Array's own sharding, at once
        assert seen == [repr(NamedSharding(m, P("x", "y")))]
        seen.clear()
        g = jax.jit(f)
        g(jnp.ones(3))  # in jit: when compiled (not again when the compiled code runs)
        g(jnp.ones(3))
        assert seen == ["PositionalSharding([{CPU 0}], shape=(1,))"]
        seen.clear()
        jax.grad(lambda v: f(v).sum())(jnp.ones(3))
        jax.vmap(f)(jnp.ones((2, 3)))
        assert seen == ["SingleDeviceSharding(device=CpuDevice(id=0))"] * 2
        seen.clear()
        with m:  # in jit under a mesh: replicated on it; eagerly still the Array's own
            jax.jit(f)(jnp.ones((2, 3)))
            f(jnp.ones(2))
        assert seen == ["NamedSharding(mesh=Mesh('x': 2, 'y': 4), spec=PartitionSpec())",
                        "SingleDeviceSharding(device=CpuDevice(id=0))"]
        text = str(jax.make_jaxpr(f)(jnp.ones(3)))
        assert "inspect_sharding[" in text and "callback=<function test_inspect" in text


def test_docstring_examples() -> None:
    from numjax._src.api import make_array, sharding_debug
    from numjax._src.runtime import mesh, named_sharding
    for module in (make_array, sharding_debug, mesh, named_sharding):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0


# ---- jit with shardings, with_sharding_constraint, shard_map: JAX's record ----------------


@pytest.fixture(scope="module")
def sharded_jit_run() -> Any:
    from tests.runtime.test_devices import run_jax_program
    return run_jax_program("sharded_jit", NUMJAX_NUM_CPU_DEVICES="8")


def test_sharded_jit_program_matches_jax(sharded_jit_run: Any) -> None:
    # Meshes of 1, 2, 4 and 8 devices: values, output shardings and their shards, AOT
    # shardings, JAX's errors (tests/data/sharded_jit_program.py, recorded from JAX 0.4.30).
    from tests.runtime.test_devices import assert_matches_golden
    assert_matches_golden("sharded_jit", sharded_jit_run)


COUNTS = [1, 2, 4, 8]


def _mlp_step(params: Any, x: Any, y: Any) -> Any:
    def loss(params: Any) -> Any:
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ w + b) * y, axis=1))
    grads = jax.grad(loss)(params)
    return [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads, strict=True)]


def _mlp_data(batch: int) -> tuple[Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    sizes = [12, 16, 16, 5]
    params = [((rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32),
               rng.normal(size=b).astype(np.float32) * 0.1)
              for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    x = rng.normal(size=(batch, 12)).astype(np.float32)
    y = np.eye(5, dtype=np.float32)[rng.integers(0, 5, batch)]
    return params, x, y


@pytest.mark.parametrize("n", COUNTS)
def test_data_parallel_mlp_step_runs_per_shard(n: int) -> None:
    """The batch split over the devices, the parameters on every device: the step runs per
    shard (a psum where the gradient sums over the batch) and gives one device's result."""
    with cpu_devices(n):
        mesh = Mesh(np.array(jax.devices()), ("batch",))
        params, x, y = _mlp_data(8 * n)
        want = jax.jit(_mlp_step)(params, x, y)
        split = NamedSharding(mesh, P("batch"))
        whole = NamedSharding(mesh, P())
        args = (jax.device_put(params, whole), jax.device_put(x, split),
                jax.device_put(y, split))
        step = jax.jit(_mlp_step)
        text = step.lower(*args).compile().as_text()
        per_shard = text.startswith("# sharded jit: per shard")
        assert per_shard is (n > 1)
        if per_shard:
            # Nothing is cut out of a whole value: blocks of broadcasts (biases, the loss's
            # cotangent) are broadcast directly; the weight gradients are summed once each,
            # after their transposes and scaling.
            body = str(step.lower(*args)._plan.jaxpr.jaxpr.eqns[0].params["jaxpr"])
            assert "dynamic_slice" not in body
            assert body.count("psum[") <= 7  # 3 weights, 3 biases, the loss
        got = step(*args)
        for (w, b), (gw, gb) in zip(want, got, strict=True):
            np.testing.assert_allclose(np.asarray(gw), np.asarray(w), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(gb), np.asarray(b), rtol=1e-5, atol=1e-6)
            assert gw.sharding == whole and gw.is_fully_replicated
        # the same, split by in_shardings from host arrays
        step2 = jax.jit(_mlp_step, in_shardings=(whole, split, split), out_shardings=whole)
        for (w, _), (gw, _) in zip(want, step2(params, x, y), strict=True):
            np.testing.assert_allclose(np.asarray(gw), np.asarray(w), rtol=1e-5, atol=1e-6)
            assert gw.sharding == whole


def test_sharded_jit_runs_on_the_devices_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each device runs its block of a partitioned program on its own thread, all at once:
    every device's program waits at a barrier the others must reach."""
    import threading

    from numjax._src.runtime import spmd
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        barrier = threading.Barrier(2, timeout=10)
        threads: set[int] = set()
        run = spmd.run

        def meeting_run(devices: Any, names: Any, sizes: Any, program: Any,
                        *rest: Any) -> Any:
            def meet(rank: int) -> Any:
                threads.add(threading.get_ident())
                barrier.wait()
                return program(rank)
            return run(devices, names, sizes, meet, *rest)

        monkeypatch.setattr(spmd, "run", meeting_run)
        x = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("x")))
        out = jax.jit(lambda v: jnp.sin(v) * 2.0)(x)
        np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(8.0)) * 2, rtol=1e-6)
        assert len(threads) == 2


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("name, fn, spec", [
    # runs per shard: elementwise, reductions over and across the split, products, transpose
    ("elementwise", lambda x: jnp.tanh(x) * 2.0 + x, P("x")),
    ("reduce_split", lambda x: jnp.sum(x ** 2), P("x")),
    ("reduce_other", lambda x: jnp.max(x, axis=1), P("x")),
    ("matmul", lambda x: x @ jnp.ones((4, 3)), P("x")),
    ("gram", lambda x: x.T @ x, P("x")),
    ("columns", lambda x: jnp.mean(x, axis=0), P(None, "x")),
    ("softmax", lambda x: jax.nn.softmax(x, axis=-1), P("x")),
    # runs on one device (an operation across the split)
    ("cumsum", lambda x: jnp.cumsum(x, axis=0), P("x")),
    ("sort", lambda x: jnp.sort(x, axis=0), P("x")),
])
def test_sharded_jit_matches_one_device(n: int, name: str, fn: Any, spec: Any) -> None:
    with cpu_devices(n):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        x = np.random.default_rng(1).normal(size=(8 * n, 4 if spec == P("x") else 8 * n))
        x = x.astype(np.float32)
        want = jax.jit(fn)(x)
        xs = jax.device_put(x, NamedSharding(mesh, spec))
        got = jax.jit(fn)(xs)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
        assert got.shape == want.shape and got.dtype == want.dtype
        text = jax.jit(fn).lower(xs).as_text()
        parallel = name not in ("cumsum", "sort") and n > 1
        assert text.startswith("# sharded jit: per shard") is parallel


def test_a_primitive_named_like_a_lax_one_is_not_partitioned_by_its_rule() -> None:
    """The per-shard run and the layouts ask for lax's primitives themselves: a primitive of
    another module that shares lax.reduce_sum's name, but takes a maximum, is not summed
    across the devices (it runs on one device, whole)."""
    from numjax._src.core import trace
    from numjax._src.core.avals import ShapedArray

    fake_p = trace.Primitive("reduce_sum")
    trace.primitives.remove(fake_p)  # not numjax's own: kept from the rule-coverage test
    fake_p.def_impl(lambda a, *, axes: np.max(a, axis=axes))
    fake_p.def_abstract_eval(lambda a, *, axes: ShapedArray(
        tuple(d for i, d in enumerate(a.shape) if i not in axes), a.dtype))
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        x = np.arange(16, dtype=np.float32).reshape(8, 2)
        xs = jax.device_put(x, NamedSharding(mesh, P("x")))
        f = jax.jit(lambda a: fake_p.bind(a, axes=(0,)))
        np.testing.assert_array_equal(np.asarray(f(xs)), [14.0, 15.0])
        assert not f.lower(xs).as_text().startswith("# sharded jit: per shard")


# JAX 0.4.30's layouts of the gradients (w, x) of each function on each layout of x (w whole).
# Where numjax's differs (marked "~", docs/differences.md): JAX's partitioner also lays a
# value out as another use of the same operand suggests (x's gradient, ḡ @ wᵀ, takes the
# split that x's contraction with w puts on w); numjax carries layouts forward only.
GRAD_LAYOUTS = {
    ("matmul", (2,)): (P(), P("x")), ("gram", (2,)): (P(), P("x")),
    ("cumsum", (2,)): (P(), P("x")),
    ("matmul", (4,)): (P("x"), P(None, "x"), "~", P()), ("gram", (4,)): (P(), P(None, "x")),
    ("cumsum", (4,)): (P(), P(None, "x")),
    ("matmul", (8,)): (P(), P("x")), ("gram", (8,)): (P(), P("x")),
    ("cumsum", (8,)): (P(), P("x")),
    ("matmul", (2, 2)): (P("y"), P("x", "y"), "~", P("x")),
    ("gram", (2, 2)): (P(), P("x", "y")), ("cumsum", (2, 2)): (P(), P("x", "y")),
    ("matmul", (2, 4)): (P("x"), P("y", "x"), "~", P("y")),
    ("gram", (2, 4)): (P(), P("y", "x")), ("cumsum", (2, 4)): (P(), P("y", "x")),
}


@pytest.mark.parametrize("mesh_shape, names, spec", [
    ((2,), ("x",), P("x")), ((4,), ("x",), P(None, "x")), ((8,), ("x",), P("x")),
    ((2, 2), ("x", "y"), P("x", "y")), ((2, 4), ("x", "y"), P("y", "x")),
])
@pytest.mark.parametrize("name, fn", [
    # per shard: a contraction over the split, a reduction across it
    ("matmul", lambda w, x: jnp.sum(jnp.tanh(x @ w))),
    ("gram", lambda w, x: jnp.sum((x.T @ x) * w[0, 0]) + jnp.sum(jnp.sin(x) * w[1, 1])),
    # on one device: an operation needing other blocks
    ("cumsum", lambda w, x: jnp.sum(jnp.cumsum(x, axis=0) ** 2 * w[0, 1])),
])
def test_grads_of_sharded_jit_against_finite_differences(mesh_shape: Any, names: Any,
                                                         spec: Any, name: str,
                                                         fn: Any) -> None:
    """Forward and reverse mode through jit of split Arrays, on 1-D and 2-D meshes, whether
    the program runs per shard or on one device; the gradients laid out as JAX lays them."""
    from numjax.test_util import check_grads
    with cpu_devices(int(np.prod(mesh_shape))):
        mesh = Mesh(np.array(jax.devices()).reshape(mesh_shape), names)
        rng = np.random.default_rng(4)
        x = jax.device_put(rng.normal(size=(8, 8)).astype(np.float32) / 4,
                           NamedSharding(mesh, spec))
        w = rng.normal(size=(8, 2)).astype(np.float32) / 4
        f = jax.jit(fn)
        check_grads(lambda w, x: f(w, x), (w, x), order=1, modes=("fwd", "rev"), atol=3e-2,
                    rtol=3e-2)
        gw, gx = jax.jit(jax.grad(f, argnums=(0, 1)))(w, x)
        want_w, want_x = jax.grad(fn, argnums=(0, 1))(w, np.asarray(x))
        np.testing.assert_allclose(np.asarray(gw), np.asarray(want_w), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(gx), np.asarray(want_x), rtol=1e-4, atol=1e-5)
        layouts = GRAD_LAYOUTS[name, mesh_shape]
        assert gw.sharding.spec == layouts[0]
        assert gx.sharding.spec == (layouts[3] if len(layouts) > 2 else layouts[1])


def test_grad_of_sharded_jit_against_finite_differences() -> None:
    from numjax.test_util import check_grads
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        x = jax.device_put(np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32),
                           NamedSharding(mesh, P("x")))
        f = jax.jit(lambda w, x: jnp.sum(jnp.tanh(x @ w)))
        w = np.random.default_rng(3).normal(size=(3, 2)).astype(np.float32)
        check_grads(lambda w: f(w, x), (w,), order=1, modes=("rev",), atol=2e-2, rtol=2e-2)
        g = jax.jit(jax.grad(f))(w, x)
        np.testing.assert_allclose(np.asarray(g), np.asarray(jax.grad(f)(w, np.asarray(x))),
                                   rtol=1e-5, atol=1e-6)


def test_with_sharding_constraint_under_transformations() -> None:
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        s = NamedSharding(mesh, P("x"))
        wsc = jax.lax.with_sharding_constraint
        x = jnp.arange(8.0)
        np.testing.assert_array_equal(np.asarray(jax.grad(lambda a: wsc(a * 2, s).sum())(x)),
                                      np.full(8, 2.0))
        out = jax.vmap(lambda a: wsc(a * 2, s))(jnp.ones((3, 8)))
        # JAX 0.4.30: the vmapped dimension is left unconstrained
        assert repr(out.sharding) == ("NamedSharding(mesh=Mesh('x': 2), "
                                      "spec=PartitionSpec(UNCONSTRAINED, 'x'))")
        inner = jax.jit(lambda a: wsc(a * 2, s) + 1)
        assert inner.lower(x).as_text().startswith("# sharded jit: per shard")
        got = inner(x)
        np.testing.assert_array_equal(np.asarray(got), np.arange(8.0) * 2 + 1)
        # No input names a mesh: JAX 0.4.30 reports the layout as a GSPMDSharding.
        assert repr(got.sharding) == "GSPMDSharding({devices=[2]<=[2]})"
        assert got.sharding.is_equivalent_to(s, 1)
        with mesh:
            got = jax.jit(lambda a: wsc(a, P("x")))(x)
            assert repr(got.sharding) == "GSPMDSharding({devices=[2]<=[2]})"


def test_pjit_reads_partition_specs_against_the_mesh() -> None:
    from numjax.experimental.pjit import pjit
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        f = pjit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P())
        with pytest.raises(RuntimeError) as info:
            f(jnp.arange(8.0))
        assert str(info.value) == (  # JAX 0.4.30
            "pjit requires a non-empty mesh if you are passing `PartitionSpec`s or `None` to "
            "in_shardings! Is a mesh defined at the call site? Alternatively, provide "
            "`Sharding`s to in_shardings and then the mesh context manager is not required.")
        with mesh:
            out = f(jnp.arange(8.0))
        assert repr(out.sharding) == "NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec())"
        np.testing.assert_array_equal(np.asarray(out), np.arange(8.0) * 2)


def test_with_sharding_constraint_errors() -> None:
    """JAX 0.4.30's texts; None and a Python scalar are docs/differences.md entries (JAX
    fails with internal AttributeErrors)."""
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("x",))
        s = NamedSharding(mesh, P("x"))
        wsc = jax.lax.with_sharding_constraint
        with pytest.raises(RuntimeError, match="requires a non-empty mesh"):
            wsc(jnp.arange(8.0), None)
        with pytest.raises(ValueError) as info:
            wsc(3, s)
        assert str(info.value).startswith(
            "One of with_sharding_constraint arguments is incompatible with its sharding "
            "annotation NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec('x',)): ")
        with mesh:
            out = wsc(jnp.arange(8.0), None)
        assert repr(out.sharding) == "NamedSharding(mesh=Mesh('x': 2), spec=PartitionSpec())"


def test_donated_sharded_argument_is_deleted() -> None:
    with cpu_devices(2):
        mesh = Mesh(np.array(jax.devices()), ("i",))
        x = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("i")))
        out = jax.jit(lambda a: a + 1, donate_argnums=0)(x)
        np.testing.assert_array_equal(np.asarray(out), np.arange(8.0) + 1)
        assert x.is_deleted()
        with pytest.raises(ValueError, match="buffer has been deleted or donated"):
            jax.jit(lambda a: a * 2)(x)


def _positional_layout(rows: int, cols: int, replicate: int | None = None) -> Any:
    s = PositionalSharding(jax.devices()).reshape(rows, cols)
    return s if replicate is None else s.replicate(replicate)


# Eager operations on Arrays split by PositionalShardings of 8 devices, and the output
# shardings JAX 0.4.30 gives (repr), from a (4, 2) layout and its replications.
@pytest.mark.parametrize("name, f, layouts, want", [
    ("sin", jnp.sin, [None], "PositionalSharding([[{CPU 0} {CPU 1}]\n"
     "                    [{CPU 2} {CPU 3}]\n                    [{CPU 4} {CPU 5}]\n"
     "                    [{CPU 6} {CPU 7}]], shape=(4, 2))"),
    ("dot of replicated rows and columns", jnp.dot, [1, 0],
     "PositionalSharding([[{CPU 0} {CPU 1}]\n                    [{CPU 2} {CPU 3}]\n"
     "                    [{CPU 4} {CPU 5}]\n                    [{CPU 6} {CPU 7}]], "
     "shape=(4, 2))"),
    ("transpose", lambda a: a.T, [None],
     "PositionalSharding([[{CPU 0} {CPU 2} {CPU 4} {CPU 6}]\n"
     "                    [{CPU 1} {CPU 3} {CPU 5} {CPU 7}]], shape=(2, 4))"),
    ("sum over rows", lambda a: a.sum(0), [None],
     "PositionalSharding([{CPU 0, 2, 4, 6} {CPU 1, 3, 5, 7}], shape=(2,))"),
    ("sum of all", lambda a: a.sum(), [None],
     "PositionalSharding([{CPU 0, 1, 2, 3, 4, 5, 6, 7}], shape=(1,))"),
    ("copy", jnp.copy, [None], "PositionalSharding([[{CPU 0} {CPU 1}]\n"
     "                    [{CPU 2} {CPU 3}]\n                    [{CPU 4} {CPU 5}]\n"
     "                    [{CPU 6} {CPU 7}]], shape=(4, 2))"),
])
def test_eager_operations_keep_positional_layouts(name: str, f: Any, layouts: list[Any],
                                                  want: str) -> None:
    with cpu_devices(8):
        value = np.arange(64, dtype=np.float32).reshape(8, 8)
        args = [jax.device_put(value, _positional_layout(4, 2, r)) for r in layouts]
        out = f(*args)
        assert repr(out.sharding) == want, name
        np.testing.assert_allclose(np.asarray(out), f(*[value] * len(args)), rtol=1e-6)
        assert repr(jax.jit(f)(*args).sharding) == want, name


# JAX 0.4.30's errors for operands split over different devices: a jnp binary function names
# itself and its parameters (it is a jitted function in JAX), a lax operation its primitive.
@pytest.mark.parametrize("f, names", [
    (lambda a, b: a + b, ("x1 of jax.numpy.add", "x2 of jax.numpy.add")),
    (jnp.multiply, ("x1 of jax.numpy.multiply", "x2 of jax.numpy.multiply")),
    (jax.lax.add, ("args[0] of add", "args[1] of add")),
])
def test_eager_operations_on_other_devices_raise_jax_errors(f: Any,
                                                            names: tuple[str, str]) -> None:
    with cpu_devices(8):
        devs = jax.devices()
        value = np.arange(16, dtype=np.float32).reshape(4, 4)
        a = jax.device_put(value, PositionalSharding(devs[:4]).reshape(2, 2))
        b = jax.device_put(value, PositionalSharding(devs[4:]).reshape(2, 2))
        with pytest.raises(ValueError) as info:
            f(a, b)
        assert str(info.value) == (
            f"Received incompatible devices for jitted computation. Got argument {names[0]} "
            "with shape float32[4,4] and device ids [0, 1, 2, 3] on platform CPU and argument "
            f"{names[1]} with shape float32[4,4] and device ids [4, 5, 6, 7] on platform CPU")


def test_eager_operations_on_split_arrays_under_disable_jit() -> None:
    # JAX 0.4.30 keeps the (4, 2) layout under disable_jit as well (each operation is still
    # one jitted primitive).
    with cpu_devices(8):
        value = np.arange(64, dtype=np.float32).reshape(8, 8)
        x = jax.device_put(value, _positional_layout(4, 2))
        with jax.disable_jit():
            y = jnp.sin(x) + x
        assert y.sharding == x.sharding
        np.testing.assert_allclose(np.asarray(y), np.sin(value) + value, rtol=1e-6)

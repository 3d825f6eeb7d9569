"""Regenerate tests/data/sharding_golden.json: what JAX 0.4.30 gives for meshes, named and
positional shardings (reprs, shard shapes, index maps, replica ids), their errors, and the
tables `jax.debug.visualize_sharding` prints.

Run with real JAX on 8 CPU devices, from a directory of its own, with `rich` importable (JAX
needs it for the tables; a console without colors, as a captured stream, gives plain text):
`cd /tmp/somedir && XLA_FLAGS=--xla_force_host_platform_device_count=8
PYTHONPATH=<dir with rich> /tmp/jaxenv/bin/python /work/main/tools/make_sharding_golden.py`.

Not a test module: tests/api/test_sharding.py checks numjax against the file.
"""

import contextlib
import io
import json
import pathlib

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, PositionalSharding

DATA = pathlib.Path(__file__).parent.parent / "tests" / "data"

# (device count, mesh shape, axis names, spec, global shape)
NAMED = [
    (1, (1,), ("i",), ("i",), (4,)),
    (1, (1,), ("i",), (), (3, 2)),
    (2, (2,), ("i",), ("i",), (4,)),
    (2, (2,), ("i",), (None, "i"), (3, 4)),
    (2, (2,), ("i",), (), (2,)),
    (4, (4,), ("i",), ("i",), (8, 2)),
    (4, (2, 2), ("x", "y"), ("x", "y"), (4, 6)),
    (4, (2, 2), ("x", "y"), ("y",), (4, 6)),
    (4, (2, 2), ("x", "y"), (("x", "y"),), (8,)),
    (4, (2, 2), ("x", "y"), (("y", "x"),), (8,)),
    (4, (1, 4), ("a", "b"), ("a", "b"), (4, 4)),
    (8, (8,), ("i",), ("i",), (16,)),
    (8, (2, 4), ("x", "y"), ("x", "y"), (8, 8)),
    (8, (2, 4), ("x", "y"), ("y", "x"), (8, 8)),
    (8, (2, 4), ("x", "y"), ("y",), (4, 4)),
    (8, (2, 4), ("x", "y"), (None, "x"), (4, 4)),
    (8, (2, 4), ("x", "y"), (None, ("y", "x")), (2, 8)),
    (8, (2, 4), ("x", "y"), (), (4, 4)),
    (8, (2, 2, 2), ("a", "b", "c"), ("b",), (4,)),
    (8, (2, 2, 2), ("a", "b", "c"), ("a", "c"), (4, 4, 3)),
    (8, (4, 2), ("x", "y"), ("x", "y"), (0, 4)),
]

# (device count, reshape, replicated axis (None: none, "all": all), global shape)
POSITIONAL = [
    (1, (1,), None, (3,)),
    (2, (2,), None, (4,)),
    (2, (2, 1), None, (4, 3)),
    (2, (1, 2), 0, (4, 4)),
    (4, (2, 2), None, (4, 6)),
    (4, (2, 2), 1, (4, 6)),
    (4, (4, 1), None, (8, 3)),
    (8, (8,), None, (8,)),
    (8, (4, 2), None, (8, 4)),
    (8, (4, 2), 0, (8, 4)),
    (8, (4, 2), 1, (8, 4)),
    (8, (2, 4), "all", (4, 4)),
    (8, (2, 1, 4), None, (4, 3, 8)),
]

# (global shape, mesh shape, axis names, spec): tables that fit in 80 columns
VISUALIZE = [
    ((8,), (8,), ("i",), ("i",)),
    ((8,), (8,), ("i",), ()),
    ((16,), (4,), ("i",), ("i",)),
    ((2,), (2,), ("i",), ("i",)),
    ((4,), (1,), ("i",), ("i",)),
    ((8, 8), (2, 4), ("x", "y"), ("x", "y")),
    ((8, 8), (2, 4), ("x", "y"), ("y", "x")),
    ((8, 8), (2, 4), ("x", "y"), ("x",)),
    ((8, 8), (2, 4), ("x", "y"), (None, "y")),
    ((8, 8), (2, 4), ("x", "y"), ()),
    ((16, 4), (4, 2), ("x", "y"), ("x", "y")),
    ((8, 8), (8,), ("i",), ("i",)),
    ((8, 8), (8,), ("i",), (None, "i")),
    ((2, 2), (2, 2), ("x", "y"), ("x", "y")),
    ((8,), (2, 4), ("x", "y"), (("x", "y"),)),
    ((8, 8), (2, 2, 2), ("a", "b", "c"), ("a", "c")),
    ((100,), (4,), ("i",), ("i",)),
    ((100, 4), (2, 2), ("x", "y"), ("x", "y")),
    ((3,), (1,), ("i",), ("i",)),
]


def mesh(devices, count, shape, names):
    return Mesh(np.array(devices[:count]).reshape(shape), names)


def main() -> None:
    devices = jax.devices()
    named = []
    for n, mesh_shape, names, spec, shape in NAMED:
        m = mesh(devices, n, mesh_shape, names)
        s = NamedSharding(m, PartitionSpec(*spec))
        x = jax.device_put(np.zeros(shape, np.float32), s)
        named.append({
            "devices": n, "mesh_shape": mesh_shape, "axis_names": names, "spec": spec,
            "shape": shape, "repr": repr(s), "mesh_repr": repr(m), "mesh_str": str(m),
            "shard_shape": s.shard_shape(shape),
            "indices": repr(s.devices_indices_map(shape)),
            "fully_replicated": s.is_fully_replicated,
            "replica_ids": [shard.replica_id for shard in x.addressable_shards]})
    positional = []
    for n, reshape, replicate, shape in POSITIONAL:
        s = PositionalSharding(devices[:n]).reshape(reshape)
        if replicate == "all":
            s = s.replicate()
        elif replicate is not None:
            s = s.replicate(replicate)
        x = jax.device_put(np.zeros(shape, np.float32), s)
        positional.append({
            "devices": n, "reshape": reshape, "replicate": replicate, "shape": shape,
            "repr": repr(s), "sharding_shape": s.shape, "shard_shape": s.shard_shape(shape),
            "indices": repr(s.devices_indices_map(shape)),
            "fully_replicated": s.is_fully_replicated,
            "replica_ids": [shard.replica_id for shard in x.addressable_shards]})
    visualize = []
    for shape, mesh_shape, names, spec in VISUALIZE:
        m = mesh(devices, int(np.prod(mesh_shape)), mesh_shape, names)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            jax.debug.visualize_sharding(shape, NamedSharding(m, PartitionSpec(*spec)))
        visualize.append({"shape": shape, "mesh_shape": mesh_shape, "axis_names": names,
                          "spec": spec, "text": out.getvalue()})
    golden = {"named": named, "positional": positional, "visualize": visualize}
    (DATA / "sharding_golden.json").write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()

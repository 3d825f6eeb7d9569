"""Regenerate tests/data/sharded_indexing_golden.json: the layout (spec, or the text and each
device's block when it is not a NamedSharding) and shard shape JAX 0.4.30 gives eager
indexing and eager slices of Arrays split across devices, and dynamic slices in jitted
programs, for the cases of tests/data/sharding_propagation_cases.py (INDEXES, EAGER_SLICES,
INDEX_LAYOUTS, DYNAMIC_SLICES); and where JAX's value is not the indexed value.

Run with JAX 0.4.30 on 8 CPU devices, from the repository's root:
`XLA_FLAGS=--xla_force_host_platform_device_count=8 python
tools/make_sharded_indexing_golden.py`.

Not a test module: tests/api/test_sharding_propagation.py checks numjax against the file.
"""

import importlib.util
import json
import pathlib

import jax
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

DATA = pathlib.Path(__file__).parent.parent / "tests" / "data"


def _cases():
    spec = importlib.util.spec_from_file_location("cases", DATA / "sharding_propagation_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(spec):
    return [list(e) if isinstance(e, tuple) else e for e in spec]


def _layout(out, want):
    s = out.sharding
    named = isinstance(s, NamedSharding)
    layout = {"kind": type(s).__name__, "out_spec": _entries(s.spec) if named else None,
              "shard_shape": list(s.shard_shape(out.shape)), "out_shape": list(out.shape),
              # JAX 0.4.30 reads an out-of-bounds integer along a split dimension as zeros.
              "jax_value_wrong": not np.allclose(np.asarray(out), want)}
    if not named and type(s).__name__ == "GSPMDSharding":
        index = s.devices_indices_map(out.shape)
        layout["repr"] = repr(s)
        layout["indices"] = [[list(sl.indices(n))[:2]
                              for sl, n in zip(index[d], out.shape, strict=True)]
                             for d in s._device_assignment]
    return layout


def main() -> None:
    cases = _cases()
    devices = jax.devices()
    x_host = np.arange(64, dtype=np.float32).reshape(8, 8) / 10
    eager = []
    for mesh_shape, names, spec in cases.INDEX_LAYOUTS:
        mesh = Mesh(np.array(devices[:int(np.prod(mesh_shape))]).reshape(mesh_shape), names)
        x = jax.device_put(x_host, NamedSharding(mesh, PartitionSpec(*spec)))
        head = {"mesh": list(mesh_shape), "names": list(names), "spec": _entries(spec)}
        for key, index in cases.INDEXES.items():
            want = x_host[cases.numpy_index(index, x_host.shape)]
            eager.append({**head, "index": key, **_layout(x[index], want)})
        for key, f in cases.EAGER_SLICES.items():
            eager.append({**head, "op": key, **_layout(f(lax, x), f(lax, x_host))})
    dynamic = []
    for mesh_shape, spec, shape, starts, sizes in cases.DYNAMIC_SLICES:
        mesh = Mesh(np.array(devices[:int(np.prod(mesh_shape))]).reshape(mesh_shape),
                    ("x", "y"))
        host = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 10
        x = jax.device_put(host, NamedSharding(mesh, PartitionSpec(*spec)))
        f = cases.dynamic_slice_fn(lax, starts, sizes)
        dynamic.append({"mesh": list(mesh_shape), "spec": _entries(spec), "shape": list(shape),
                        "starts": list(starts), "sizes": list(sizes),
                        **_layout(jax.jit(f)(x), f(host))})
    text = '{"eager": [\n' + ",\n".join(json.dumps(r) for r in eager)
    text += '\n], "dynamic_slices": [\n' + ",\n".join(json.dumps(r) for r in dynamic) + "\n]}\n"
    (DATA / "sharded_indexing_golden.json").write_text(text)


if __name__ == "__main__":
    main()

"""Regenerate tests/data/sharding_propagation_golden.json: the output sharding (spec, or the
kind when it is not a NamedSharding) and shard shape JAX 0.4.30's jit gives each operation
of tests/data/sharding_propagation_cases.py on each input layout there, and each operation's
value (from the first layout; a layout on which JAX gives another value is marked); and for
jit with every combination of in/out shardings and argument layouts there, the output's
layout or JAX's error.

Run with JAX 0.4.30 on 8 CPU devices, from the repository's root:
`XLA_FLAGS=--xla_force_host_platform_device_count=8 python
tools/make_sharding_propagation_golden.py`. A layout that is not a NamedSharding is recorded
by its text and each device's [start, stop) per dimension.

Not a test module: tests/api/test_sharding_propagation.py checks numjax against the file.
"""

import importlib.util
import itertools
import json
import pathlib
import re

import jax
import jax.numpy as jnp
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


def _layout(out):
    s = out.sharding
    named = isinstance(s, NamedSharding)
    layout = {"out_spec": _entries(s.spec) if named else None, "kind": type(s).__name__,
              "shard_shape": list(s.shard_shape(out.shape))}
    if not named:  # what a spec would say: the text, and each device's [start, stop)s
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
    values = {}
    rows = []
    for mesh_shape, names, spec in cases.LAYOUTS:
        mesh = Mesh(np.array(devices[:int(np.prod(mesh_shape))]).reshape(mesh_shape), names)
        x = jax.device_put(x_host, NamedSharding(mesh, PartitionSpec(*spec)))
        for op, f in cases.OPS.items():
            out = jax.jit(lambda x, f=f: f(jnp, lax, x))(x)
            value = np.asarray(out)
            values.setdefault(op, np.round(value.astype(np.float64), 5).tolist())
            # JAX 0.4.30 gets some values wrong (a concatenate of a value split along one
            # mesh axis and replicated along another sums the replicas): marked, not kept.
            wrong = not np.allclose(value, np.asarray(values[op]), rtol=1e-5, atol=1e-5)
            row = {"mesh": list(mesh_shape), "names": list(names), "spec": _entries(spec),
                   "op": op, **_layout(out), "dtype": str(out.dtype), "jax_value_wrong": wrong}
            if op in cases.EAGER_OPS:
                row["eager"] = _layout(f(jnp, lax, x))
            rows.append(row)
    combos = []
    want = np.asarray(cases.combo_fn(np, x_host))
    for mesh_shape, names, options in cases.COMBO_MESHES:
        mesh = Mesh(np.array(devices[:int(np.prod(mesh_shape))]).reshape(mesh_shape), names)

        def sharding(entries, mesh=mesh):
            return None if entries is None else NamedSharding(mesh, PartitionSpec(*entries))

        for in_spec, out_spec, arg in itertools.product(options, options, cases.COMBO_ARGS):
            x = x_host if arg == "host" else jax.device_put(x_host, sharding(arg))
            f = jax.jit(lambda x: cases.combo_fn(jnp, x), in_shardings=sharding(in_spec),
                        out_shardings=sharding(out_spec))
            row = {"mesh": list(mesh_shape), "names": list(names),
                   "in": None if in_spec is None else _entries(in_spec),
                   "out": None if out_spec is None else _entries(out_spec),
                   "arg": arg if arg == "host" else _entries(arg)}
            try:
                y = f(x)
            except Exception as e:  # JAX's error, recorded
                row["error"] = [type(e).__name__, re.sub(r"0x[0-9a-f]+", "0x", str(e))]
            else:
                assert np.allclose(np.asarray(y), want, rtol=1e-6)
                row.update(_layout(y))
            combos.append(row)
    # One value or row a line.
    text = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in values.items())
    text = '{"values": {\n' + text + '\n}, "rows": [\n'
    text += ",\n".join(json.dumps(r) for r in rows) + '\n], "combos": [\n'
    text += ",\n".join(json.dumps(r) for r in combos) + "\n]}\n"
    (DATA / "sharding_propagation_golden.json").write_text(text)


if __name__ == "__main__":
    main()

"""A JAX program about placement on 4 CPU devices, run unmodified by JAX 0.4.30 (to record
tests/data/placement_golden.txt) and by numjax (tests/runtime/test_devices.py). Its output is one
line per check.
"""

import pickle

import jax
import jax.numpy as jnp
import numpy as np


def show(label, thunk):
    try:
        out = thunk()
    except Exception as e:
        out = f"{type(e).__name__}: {e}"
    print(f"{label}: {out}")


def placed(x):
    return f"{sorted(d.id for d in x.devices())} committed={x._committed}"


d = jax.devices()
show("devices", lambda: (d, [str(v) for v in d], jax.device_count(), jax.local_device_count()))
x = jax.device_put(np.arange(3.), d[1])
w = jax.device_put(np.arange(3.), d[2])
y = jnp.arange(3.)
show("put", lambda: (x.sharding, placed(x), placed(y)))
show("put same device", lambda: (jax.device_put(x, d[1]) is x, placed(jax.device_put(x, d[1]))))
show("put no device", lambda: (jax.device_put(x) is x, jax.device_put(y) is y))
show("put sharding", lambda: placed(jax.device_put(y, jax.sharding.SingleDeviceSharding(d[3]))))
show("put tree", lambda: [placed(v) for v in jax.tree_util.tree_leaves(
    jax.device_put({"a": 1.0, "b": (np.ones(2), y)}, d[2]))])
show("put weak", lambda: (jax.device_put(1.0, d[1]).weak_type, jax.device_put(3, d[1]).dtype))
f = jax.jit(lambda a, b: a + b)
show("jit committed", lambda: placed(f(x, y)))
show("jit committed twice", lambda: placed(f(x, y)))
show("jit uncommitted", lambda: placed(f(y, y)))
show("jit host args", lambda: placed(f(x, np.ones(3, np.float32))))
show("jit incompatible", lambda: f(x, w))


def named(alpha, beta):
    return alpha * beta


show("jit incompatible named", lambda: jax.jit(named)(x, w))
show("jit incompatible tree", lambda: jax.jit(lambda t: t[0] + t[1])((x, w)))
show("jit incompatible third", lambda: jax.jit(lambda a, b, c: a + b + c)(y, x, w))
show("jit incompatible kwargs", lambda: jax.jit(named)(alpha=x, beta=w))
show("jit incompatible static", lambda: jax.jit(lambda a, n, b: a + b, static_argnums=1)(x, 2, w))
g = jax.jit(lambda a: a * 2, device=d[3])
show("jit device", lambda: (placed(g(y)), placed(g(x)), placed(g(1.0)), placed(g(np.ones(1)))))
with jax.transfer_guard_device_to_device("disallow"):
    show("disallow: warmed-up jit device moves committed arg", lambda: placed(g(x)))
    show("disallow: warmed-up jit moves uncommitted arg", lambda: placed(f(x, y)))
    show("disallow: fresh jit moves uncommitted arg", lambda: jax.jit(lambda a, b: a - b)(x, y))
    show("disallow: fresh jit device", lambda: jax.jit(lambda a: a, device=d[3])(x))
    show("disallow: fresh jit device, uncommitted", lambda: jax.jit(lambda a: a, device=d[3])(y))
    show("disallow: new placement of a compiled signature",
         lambda: f(y + 0, jax.device_put(y, d[2])))
    show("disallow: explicit put", lambda: placed(jax.device_put(x, d[2])))
    show("disallow: jit same device", lambda: placed(f(x, x)))
with jax.transfer_guard_device_to_device("disallow_explicit"):
    show("disallow_explicit: put", lambda: jax.device_put(x, d[2]))
    show("disallow_explicit: put same device", lambda: placed(jax.device_put(x, d[1])))
    show("disallow_explicit: fresh jit device", lambda: jax.jit(lambda a: a, device=d[3])(x))
    show("disallow_explicit: replicated", lambda: jax.device_put_replicated(x, d[:2]))
    show("disallow_explicit: sharded", lambda: jax.device_put_sharded([x, x], d[:2]))
with jax.transfer_guard_host_to_device("disallow_explicit"):
    show("h2d disallow_explicit: put", lambda: jax.device_put(np.ones(1), d[1]))
    show("h2d disallow_explicit: put default", lambda: jax.device_put(np.ones(1)))
    show("h2d disallow_explicit: sharded", lambda: jax.device_put_sharded([np.ones(1)] * 2, d[:2]))
    show("h2d disallow_explicit: replicated", lambda: jax.device_put_replicated(np.ones(1), d[:2]))
with jax.transfer_guard_device_to_host("disallow_explicit"):
    show("d2h disallow_explicit: cpu exempt", lambda: jax.device_get(x))
s = jax.device_put_sharded([np.arange(3.), np.ones(3)], d[:2])
show("sharded", lambda: (repr(s), s.sharding, placed(s), s.is_fully_replicated))
show("sharded spec", lambda: (s.sharding.devices, s.sharding.sharding_spec))
show("sharded shards", lambda: s.addressable_shards)
show("sharded shard data", lambda: [placed(sh.data) for sh in s.addressable_shards])
show("sharded data", lambda: (s.addressable_data(1), placed(s.addressable_data(1))))
show("sharded maps", lambda: (s.sharding.shard_shape((2, 3)),
                              s.sharding.devices_indices_map((2, 3))))
show("sharded ops", lambda: (s + 1, placed(s + 1), placed(jax.jit(lambda a: a * 2)(s)),
                             placed(s[0])))
show("sharded get", lambda: (jax.device_get(s), type(jax.device_get(s)).__name__))
show("sharded put", lambda: placed(jax.device_put(s, d[3])))
r = jax.device_put_replicated(jnp.arange(2), d)
show("replicated", lambda: (repr(r), r.sharding, r.is_fully_replicated, placed(r)))
show("replicated shards", lambda: r.addressable_shards)
show("sharded tree", lambda: jax.device_put_sharded(
    [{"a": np.ones(2), "b": 1.0}, {"a": np.zeros(2), "b": 2.0}], d[:2]))
show("sharded tree weak", lambda: jax.device_put_sharded(
    [{"b": 1.0}, {"b": 2.0}], d[:2])["b"].sharding)
show("replicated tree", lambda: jax.device_put_replicated({"a": 1.0, "b": np.ones(2, np.int32)},
                                                          d[:3]))
show("sharded bad shapes", lambda: jax.device_put_sharded([np.ones(2), np.ones(3)], d[:2]))
show("sharded bad dtypes",
     lambda: jax.device_put_sharded([np.ones(2), np.ones(2, np.int32)], d[:2]))
show("sharded bad len", lambda: jax.device_put_sharded([np.ones(2)], d[:2]))
show("sharded not a sequence", lambda: jax.device_put_sharded(np.ones((2, 2)), d[:2]))
show("sharded empty", lambda: jax.device_put_sharded([], d[:0]))
show("replicated no devices", lambda: jax.device_put_replicated(np.ones(2), []))
show("get", lambda: jax.device_get({"a": x, "b": 3, "c": "s", "d": [1, 2.0]}))
show("get readonly", lambda: jax.device_get(x).flags.writeable)
with jax.transfer_guard_device_to_device("log"):
    show("log: fresh jit", lambda: placed(jax.jit(lambda a, b: a * b)(x, y)))
with jax.default_device(d[2]):
    show("default_device", lambda: (placed(jnp.ones(2)), placed(jax.device_put(np.ones(2))),
                                    placed(f(jnp.ones(1), jnp.ones(1))),
                                    placed(jax.device_put(x)), placed(f(x, x))))
jax.config.update("jax_default_device", d[3])
show("config default_device", lambda: placed(jnp.ones(1)))
jax.config.update("jax_default_device", None)
show("config default_device reset", lambda: (placed(jnp.ones(1)), jax.config.jax_default_device))
show("pickle committed", lambda: placed(pickle.loads(pickle.dumps(x))))
show("iter committed", lambda: [placed(row) for row in jax.device_put(jnp.ones((2, 2)), d[1])])
show("shard of committed", lambda: (x.addressable_shards, placed(x.addressable_data(0))))

"""A JAX program exercising jit with shardings, with_sharding_constraint and shard_map on
meshes of 1, 2, 4 and 8 of 8 CPU devices, run unmodified by JAX 0.4.30 (to record
tests/data/sharded_jit_golden.txt, with XLA_FLAGS=--xla_force_host_platform_device_count=8)
and by numjax (tests/api/test_sharding.py). One check per line: values rounded to 4 decimals,
output shardings (shard indices per device), AOT shardings and error texts.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

devices = jax.devices()
print("devices", len(devices))


def r(v):
    return np.round(np.asarray(v, np.float64), 4).tolist()


def layout(x):
    s = x.sharding
    shards = sorted((sh.device.id, str(sh.index), sh.replica_id) for sh in x.addressable_shards)
    return f"{s!r} replicated={x.is_fully_replicated} shards={shards}"


def show(name, fun, *args):
    try:
        out = fun(*args)
    except Exception as e:
        text = re.sub(r"0x[0-9a-f]+", "0x", str(e))
        print(name, "!!", type(e).__name__, "|", text.replace("\n", "\\n"))
        return
    for i, leaf in enumerate(jax.tree_util.tree_leaves(out)):
        print(name, i, r(leaf), str(leaf.dtype), layout(leaf))


def mesh(n, shape, names):
    return Mesh(np.array(devices[:n]).reshape(shape), names)


PROGRAMS = {
    "double": lambda x, w: x * 2.0,
    "sum": lambda x, w: x.sum(),
    "sum0": lambda x, w: x.sum(0),
    "sum1": lambda x, w: x.sum(1),
    "transpose": lambda x, w: x.T,
    "matmul": lambda x, w: x @ w,
    "grad_w": jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w)), argnums=0),
    "softmax": lambda x, w: jax.nn.softmax(x, axis=1),
    "flatten": lambda x, w: x.reshape(-1),
    "max0": lambda x, w: x.max(0),
    "both": lambda x, w: (x + 1.0, (x @ w).sum(0)),
}

MESHES = [
    (1, (1,), ("x",), [P("x"), P()]),
    (2, (2,), ("x",), [P("x"), P(None, "x"), P()]),
    (4, (4,), ("x",), [P("x")]),
    (4, (2, 2), ("x", "y"), [P("x", "y"), P(("x", "y")), P("y")]),
    (8, (8,), ("x",), [P("x"), P(None, "x")]),
    (8, (2, 4), ("x", "y"), [P("x"), P("x", "y")]),
]

x = jnp.arange(64.0).reshape(8, 8) / 10.0
w = (jnp.arange(24.0).reshape(8, 3) - 10.0) / 10.0
for n, shape, names, specs in MESHES:
    m = mesh(n, shape, names)
    for spec in specs:
        xs = jax.device_put(x, NamedSharding(m, spec))
        for name, fn in PROGRAMS.items():
            if name == "grad_w":
                show(f"{n} {shape} {spec} {name}", jax.jit(fn), w, xs)
            else:
                show(f"{n} {shape} {spec} {name}", jax.jit(fn), xs, w)
        # asked-for layouts: inputs split as asked, outputs laid out as asked
        s = NamedSharding(m, spec)
        rep = NamedSharding(m, P())
        show(f"{n} {shape} {spec} in_shardings",
             jax.jit(lambda a: a + 1.0, in_shardings=s), np.asarray(x))
        show(f"{n} {shape} {spec} out_shardings", jax.jit(lambda a: a * 3.0, out_shardings=s), x)
        show(f"{n} {shape} {spec} out_rep", jax.jit(lambda a: a - 1.0, out_shardings=rep), xs)
        show(f"{n} {shape} {spec} out_tree",
             jax.jit(lambda a: (a, a.sum()), out_shardings=(s, rep)), xs)
        show(f"{n} {shape} {spec} wsc_eager", lax.with_sharding_constraint, x, s)

# AOT shardings
m2 = mesh(2, (2,), ("x",))
s2 = NamedSharding(m2, P("x"))
lowered = jax.jit(lambda a, b: (a * 2, b), in_shardings=(s2, None)).lower(
    jax.device_put(x, s2), jnp.ones(3))
compiled = lowered.compile()
print("aot input_shardings", compiled.input_shardings)
print("aot output_shardings", compiled.output_shardings)
c2 = jax.jit(lambda a: a.sum(0)).lower(jax.device_put(x, s2)).compile()
print("aot propagated", c2.input_shardings, c2.output_shardings)

# errors
show("err in rank",
     lambda: jax.jit(lambda a: a, in_shardings=NamedSharding(m2, P("x", None, None)))(x))
show("err in divisible", lambda: jax.jit(lambda a: a, in_shardings=s2)(jnp.ones(3)))
show("err in length", lambda: jax.jit(lambda a: a, in_shardings=(s2, s2))(x))
show("err in spec", lambda: jax.jit(lambda a: a, in_shardings=P("x"))(x))
show("err out spec", lambda: jax.jit(lambda a: a, out_shardings=P())(x))
show("err out rank", lambda: jax.jit(lambda a: a.sum(), out_shardings=s2)(x))
show("err out tree", lambda: jax.jit(lambda a: (a, a), out_shardings=(s2, s2, s2))(x))
show("err kwargs", lambda: jax.jit(lambda a: a, in_shardings=s2)(a=x))
show("err mismatch", lambda: jax.jit(lambda a: a + 1, in_shardings=NamedSharding(m2, P()))(
    jax.device_put(x, s2)))
m2r = Mesh(np.array(devices[:2][::-1]), ("x",))
show("err devices", lambda: jax.jit(lambda a, b: a + b)(
    jax.device_put(x, s2), jax.device_put(x, NamedSharding(m2r, P("x")))))
show("err committed", lambda: jax.jit(lambda a, b: a + b)(
    jax.device_put(x, devices[1]), jax.device_put(x, s2)))
show("err explicit", lambda: jax.jit(lambda a: a + 1, in_shardings=s2)(
    jax.device_put(x, devices[1])))
show("err wsc rank", lambda: lax.with_sharding_constraint(jnp.float32(3), s2))
show("err wsc divisible", lambda: lax.with_sharding_constraint(jnp.ones(3), s2))
show("err wsc tree", lambda: lax.with_sharding_constraint((x, x), (s2, s2, s2)))
show("err wsc spec", lambda: lax.with_sharding_constraint(x, P("x")))
with m2:
    show("wsc spec mesh", lambda: lax.with_sharding_constraint(x, P("x")))
print(jax.make_jaxpr(lambda a: lax.with_sharding_constraint(a * 2, s2))(x))

# shard_map: a sharded matmul, a data-parallel step, grads through it
m4 = mesh(4, (4,), ("i",))
xm = jnp.arange(32.0).reshape(4, 8) / 10
wm = jnp.arange(24.0).reshape(8, 3) / 10
show("shmap matmul", lambda: shard_map(lambda a, b: lax.psum(a @ b, "i"), m4,
                                       in_specs=(P(None, "i"), P("i")), out_specs=P())(xm, wm))
print("shmap jit matmul", r(jax.jit(shard_map(
    lambda a, b: lax.psum(a @ b, "i"), m4, in_specs=(P(None, "i"), P("i")),
    out_specs=P()))(xm, wm)))
show("shmap blocks", lambda: shard_map(lambda a: a * lax.axis_index("i"), m4,
                                       in_specs=P("i"), out_specs=P("i"))(jnp.arange(8.0)))
show("shmap grad", lambda: jax.grad(lambda v: shard_map(
    lambda a, b: lax.psum(jnp.sum(jnp.sin(a @ b)), "i"), m4, in_specs=(P("i"), P()),
    out_specs=P())(wm.T, v).sum())(xm.T[:3]))
show("shmap vmap", lambda: jax.vmap(shard_map(lambda a: lax.psum(a, "i"), m4, in_specs=P("i"),
                                              out_specs=P()))(jnp.arange(24.0).reshape(3, 8)))
show("shmap ppermute", lambda: shard_map(lambda a: lax.ppermute(a, "i", [(j, (j + 1) % 4)
                                                                      for j in range(4)]),
                                         m4, in_specs=P("i"), out_specs=P("i"))(
    jnp.arange(8.0)))
show("shmap all_gather", lambda: shard_map(lambda a: lax.all_gather(a, "i", tiled=True), m4,
                                           in_specs=P("i"), out_specs=P("i"))(jnp.arange(8.0)))

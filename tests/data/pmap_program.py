"""A JAX program exercising pmap on 4 CPU devices, run unmodified by JAX 0.4.30 (to record
tests/data/pmap_golden.txt, with XLA_FLAGS=--xla_force_host_platform_device_count=4) and by
numjax (tests/test_pmap_program.py, with both ways of running a pmap). One check per line:
values rounded to 4 decimals, dtypes, shardings, jaxprs and error texts.
"""

import re
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

n = jax.device_count()
print("devices", n, jax.local_device_count())


def r(v):
    return np.round(np.asarray(v, np.float64), 4).tolist()


def show(name, fun):
    try:
        out = fun()
    except Exception as e:
        text = re.sub(r"0x[0-9a-f]+", "0x", str(e)).splitlines()
        print(name, "!!", type(e).__name__, "|", text[0] if text else "")
        return
    leaves = jax.tree_util.tree_leaves(out)
    print(name, "->", [(r(x), str(x.dtype), getattr(x, "weak_type", None)) for x in leaves])


x = jnp.arange(8.0).reshape(n, 2)
xi = jnp.arange(n * 3, dtype=jnp.int32).reshape(n, 3)

# collectives
show("psum", lambda: jax.pmap(lambda v: lax.psum(v, "i"), "i")(x))
show("psum_int", lambda: jax.pmap(lambda v: lax.psum(v, "i"), "i")(xi))
show("psum_bool", lambda: jax.pmap(lambda v: lax.psum(v > 3, "i"), "i")(xi))
show("psum_const", lambda: jax.pmap(lambda v: lax.psum(1, "i"), "i")(x))
show("psum_groups", lambda: jax.pmap(
    lambda v: lax.psum(v, "i", axis_index_groups=[[0, 2], [1, 3]]), "i")(x))
show("pmean", lambda: jax.pmap(lambda v: lax.pmean(v, "i"), "i")(x))
show("pmean_f16", lambda: jax.pmap(lambda v: lax.pmean(v, "i"), "i")(x.astype(jnp.float16)))
show("pmax", lambda: jax.pmap(lambda v: lax.pmax(v * (-1.0) ** v, "i"), "i")(x))
show("pmin", lambda: jax.pmap(lambda v: lax.pmin(v * (-1.0) ** v, "i"), "i")(x))
show("axis_index", lambda: jax.pmap(lambda v: lax.axis_index("i"), "i")(x))
show("all_gather", lambda: jax.pmap(lambda v: lax.all_gather(v, "i"), "i")(x))
show("all_gather_axis1", lambda: jax.pmap(lambda v: lax.all_gather(v, "i", axis=1), "i")(x))
show("all_gather_tiled", lambda: jax.pmap(lambda v: lax.all_gather(v, "i", tiled=True), "i")(x))
show("all_gather_groups", lambda: jax.pmap(
    lambda v: lax.all_gather(v, "i", axis_index_groups=[[0, 2], [3, 1]]), "i")(x))
show("psum_scatter", lambda: jax.pmap(
    lambda v: lax.psum_scatter(jnp.outer(v, jnp.arange(n)), "i", scatter_dimension=1), "i")(x))
show("psum_scatter_tiled", lambda: jax.pmap(
    lambda v: lax.psum_scatter(jnp.tile(v, n), "i", tiled=True), "i")(x))
m = jnp.arange(n * n * 2.0).reshape(n, n, 2)
show("all_to_all", lambda: jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0), "i")(m))
show("all_to_all_1_0", lambda: jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 1), "i")(m))
show("all_to_all_tiled", lambda: jax.pmap(
    lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True), "i")(m))
show("pswapaxes", lambda: jax.pmap(lambda v: lax.pswapaxes(v, "i", 0), "i")(m))
show("ppermute_ring", lambda: jax.pmap(
    lambda v: lax.ppermute(v, "i", [(k, (k + 1) % n) for k in range(n)]), "i")(x))
show("ppermute_partial", lambda: jax.pmap(lambda v: lax.ppermute(v, "i", [(0, 3)]), "i")(x))
show("pshuffle", lambda: jax.pmap(lambda v: lax.pshuffle(v, "i", [2, 3, 0, 1]), "i")(x))
show("pdot", lambda: jax.pmap(lambda a, b: lax.pdot(a, b, "i", pos_contract=((0,), (0,))),
                              "i")(x, x))
show("two_names", lambda: jax.pmap(lambda a: jax.pmap(
    lambda b: lax.psum(b, ("i", "j")), "j")(a), "i")(jnp.arange(8.0).reshape(2, 2, 2)))

# arguments
show("in_axes_none", lambda: jax.pmap(lambda a, b: a * b, in_axes=(0, None))(x, 3.0))
show("in_axes_1", lambda: jax.pmap(lambda a: a.sum(), in_axes=1)(x.T))
show("in_axes_tree", lambda: jax.pmap(lambda d: d["a"] + d["b"], in_axes=({"a": 0, "b": None},))(
    {"a": x, "b": jnp.ones(2)}))
show("out_axes_1", lambda: jax.pmap(lambda a: a * 2, out_axes=1)(x))
show("out_axes_none", lambda: jax.pmap(lambda a: lax.psum(a, "i"), "i", out_axes=None)(x))
show("static", lambda: jax.pmap(lambda a, k: a ** k, static_broadcasted_argnums=1)(x, 2))
show("kwargs", lambda: jax.pmap(lambda a, b: a - b)(x, b=x * 2))
show("devices_subset", lambda: jax.pmap(lambda a: a + 1, devices=jax.devices()[1:3])(x[:2]))
show("weak_in", lambda: jax.pmap(lambda a: a * 2)(np.array([1, 2, 3, 4])))
show("dtypes", lambda: jax.pmap(lambda a: (a.astype(jnp.bfloat16), a > 1, a.astype(int)))(x))

# transformations
f = jax.pmap(lambda v: jnp.sin(v) * lax.psum(v, "i"), "i")
show("grad_through", lambda: jax.grad(lambda v: f(v).sum())(x))
show("grad_inside", lambda: jax.pmap(jax.grad(lambda v: jnp.sum(v * lax.psum(v, "i"))),
                                     "i")(x))
show("grad_unmapped", lambda: jax.grad(
    lambda w: jax.pmap(lambda v, w: jnp.sum(v * w), in_axes=(0, None))(x, w).sum())(
    jnp.ones(2)))
show("jvp", lambda: jax.jvp(f, (x,), (jnp.ones_like(x),)))
show("vmap_of_pmap", lambda: jax.vmap(f)(jnp.stack([x, x + 1])))
show("vmap_of_pmap_axis1", lambda: jax.vmap(f, in_axes=1, out_axes=1)(jnp.stack([x, -x], 1)))
show("pmap_of_vmap", lambda: jax.pmap(jax.vmap(lambda v: lax.psum(v, "i")), "i")(x))
show("pmap_of_vmap_named", lambda: jax.pmap(jax.vmap(
    lambda v: lax.psum(v, ("i", "j")), axis_name="j"), "i")(x))
show("jit_of_pmap", lambda: jax.jit(lambda v: f(v) + 1)(x))
show("pmap_of_jit", lambda: jax.pmap(jax.jit(lambda v: lax.pmax(v, "i") - v), "i")(x))
show("nested", lambda: jax.pmap(lambda a: jax.pmap(
    lambda b: b * 10 + lax.axis_index("i") + lax.axis_index("j") * 100, "j")(a), "i")(
    jnp.zeros((2, 2, 1))))
show("cond_inside", lambda: jax.pmap(lambda v: lax.cond(v.sum() > 4, lambda u: lax.psum(u, "i"),
                                                        lambda u: lax.psum(-u, "i"), v),
                                     "i")(x))
show("scan_inside", lambda: jax.pmap(lambda v: lax.scan(
    lambda c, u: (c + lax.psum(u, "i"), c), 0.0, v)[0], "i")(x))
show("while_inside", lambda: jax.pmap(lambda v: lax.while_loop(
    lambda c: c[0] < 3, lambda c: (c[0] + 1, lax.pmean(c[1] * 2, "i")), (0, v))[1], "i")(x))


@jax.custom_jvp
def cube(v):
    return v ** 3


cube.defjvp(lambda p, t: (cube(p[0]), 3 * p[0] ** 2 * t[0] * 10))
show("custom_jvp", lambda: jax.pmap(jax.grad(lambda v: cube(v).sum()))(x))
show("checkpoint", lambda: jax.grad(lambda v: jax.pmap(jax.checkpoint(
    lambda u: jnp.sin(lax.psum(u, "i")) * u), "i")(v).sum())(x))

# outputs
out = jax.pmap(lambda v: v * 2)(x)
print("sharding", out.sharding)
print("repr_sharding", repr(out.sharding).replace("\n", " "))
print("shards", [(s.device.id, s.index, r(s.data)) for s in out.addressable_shards])
print("row", r(out[1]), out[1].sharding)
print("iter", [a.sharding.device_set.pop().id for a in out])
print("asarray", np.asarray(out).tolist())
print("roundtrip", jax.pmap(lambda v: v + 1)(out).sharding == out.sharding)
print("sharded", r(jax.pmap(lambda v: v * v)(jax.device_put_sharded(list(x), jax.devices()))))
print("replicated", jax.device_put_replicated(jnp.ones(2), jax.devices()).sharding)
print("jaxpr", re.sub(r"0x[0-9a-f]+", "0x", str(jax.make_jaxpr(
    jax.pmap(lambda v, w: lax.psum(v * w, "i") + 1, "i", in_axes=(0, None)))(x, 2.0))))

# errors
show("too_many", lambda: jax.pmap(lambda v: v)(jnp.ones((n + 1, 2))))
show("nested_too_many", lambda: jax.pmap(lambda a: jax.pmap(lambda b: b)(a))(
    jnp.ones((n, 2, 1))))
show("sizes", lambda: jax.pmap(lambda a, b: a)(x, jnp.ones((n - 1, 2))))
show("rank0", lambda: jax.pmap(lambda v: v)(1.0))
show("no_args", lambda: jax.pmap(lambda: 1.0)())
show("all_none", lambda: jax.pmap(lambda v: v, in_axes=None)(x))
show("unbound", lambda: jax.pmap(lambda v: lax.psum(v, "j"), "i")(x))
show("unbound_outside", lambda: lax.psum(1.0, "i"))
show("static_unhashable", lambda: jax.pmap(lambda a, s: a, static_broadcasted_argnums=1)(
    x, [1]))
show("devices_mismatch", lambda: jax.pmap(lambda v: v, devices=jax.devices()[:2])(x))
show("global_arg_shapes", lambda: jax.pmap(lambda v: v, global_arg_shapes=(1,))(x))
show("all_to_all_size", lambda: jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 0), "i")(x))
show("groups_cover", lambda: jax.pmap(
    lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [1, 2]]), "i")(x))
show("ppermute_unique", lambda: jax.pmap(lambda v: lax.ppermute(v, "i", [(0, 1), (0, 2)]),
                                         "i")(x))
show("backend", lambda: jax.pmap(lambda v: v, backend="gpu")(x))


@partial(jax.pmap, axis_name="batch")
def normalize(v):
    return v / lax.psum(v, "batch")


print("decorated", r(normalize(jnp.arange(1.0, n + 1.0))))

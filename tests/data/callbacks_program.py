"""External callbacks as JAX's tutorial uses them (debug.print, pure_callback with custom_jvp and
vmap, io_callback), plus the deprecated host_callback API. Run by JAX 0.4.30 for the golden
output and by `numjax run` in tests/test_programs.py."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special
from jax import lax
from jax.experimental import io_callback

warnings.simplefilter("ignore", DeprecationWarning)
from jax.experimental import host_callback as hcb  # noqa: E402  (warns when used)


@jax.jit
def f(x):
    jax.debug.print("x: {}", x)
    return x * 2

print(f(jnp.arange(3)))

def f_host(x):
    return np.sin(x).astype(x.dtype)

@jax.jit
def g(x):
    result_shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(f_host, result_shape, x)

x = jnp.arange(5.0)
print(np.round(np.asarray(g(x)), 4))
print(np.round(np.asarray(jax.vmap(g)(x)), 4))

def jv(v, z):
    def _scipy_jv(v, z):
        return scipy.special.jv(v, z).astype(z.dtype)
    result_shape_dtype = jax.ShapeDtypeStruct(
        shape=jnp.broadcast_shapes(jnp.shape(v), jnp.shape(z)),
        dtype=z.dtype)
    return jax.pure_callback(_scipy_jv, result_shape_dtype, v, z, vectorized=True)

j1 = lambda z: jv(1, z)
z = jnp.linspace(0, 10, 5)
print(np.round(np.asarray(jax.vmap(j1)(z)), 4))

jv = jax.custom_jvp(jv)
@jv.defjvp
def _jv_jvp(primals, tangents):
    v, z = primals
    _, z_dot = tangents
    djv_dz = 0.5 * (jv(v - 1, z) - jv(v + 1, z))
    return jv(v, z), z_dot * djv_dz
j0 = lambda z: jv(0, z)
two = jnp.float32(2.0)
print(np.round(float(jax.grad(j0)(two)), 4), np.round(float(-jv(1, two)), 4))
print(np.round(np.asarray(jax.vmap(jax.grad(j0))(jnp.array([1.0, 2.0]))), 4))

np.random.seed(0)
def host_side_random_like(x):
  return np.random.normal(size=x.shape).astype(x.dtype)
@jax.jit
def numpy_random_like(x):
  return io_callback(host_side_random_like, x, x)
print(np.round(np.asarray(numpy_random_like(jnp.zeros(3))), 4))

@jax.jit
def numpy_random_like_ordered(x):
  return io_callback(host_side_random_like, x, x, ordered=True)
print(np.round(np.asarray(numpy_random_like_ordered(jnp.zeros(3))), 4))
jax.effects_barrier()

def step(carry, x):
    jax.debug.print("carry={c} x={x}", c=carry, x=x, ordered=True)
    return carry + x, carry * x

print(jax.jit(lambda xs: lax.scan(step, 0.0, xs))(jnp.arange(4.0)))
print(jax.grad(lambda w: hcb.id_print(w * 3.0, what="w3") ** 2)(1.5))
print(jax.vmap(lambda v: hcb.id_tap(lambda a, t: print("batch", a, t), v + 1))(jnp.arange(4)))
print(hcb.call(lambda a: np.cumsum(a), jnp.arange(4), result_shape=jnp.arange(4)))
hcb.barrier_wait()

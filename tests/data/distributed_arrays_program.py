# The CPU programs of JAX's "Distributed arrays and automatic parallelization" tutorial, run as
# one script on 8 CPU devices. Array and model sizes are scaled down so the script runs in
# seconds; timing cells run their computation once; a bare expression is printed with repr.
import os

import functools
from typing import Optional

import numpy as np

import jax
import jax.numpy as jnp

if len(jax.local_devices()) < 8:
  raise Exception("Notebook requires 8 devices to run")

from jax.experimental import mesh_utils
from jax.sharding import PositionalSharding

# Create a Sharding object to distribute a value across devices:
sharding = PositionalSharding(mesh_utils.create_device_mesh((8,)))

# Create an array of random values:
x = jax.random.normal(jax.random.key(0), (256, 256))
# and use jax.device_put to distribute it across devices:
y = jax.device_put(x, sharding.reshape(4, 2))
jax.debug.visualize_array_sharding(y)

z = jnp.sin(y)
jax.debug.visualize_array_sharding(z)

# `x` is present on a single device
jnp.sin(x).block_until_ready()

# `y` is sharded across 8 devices.
jnp.sin(y).block_until_ready()

import jax
x = jax.random.normal(jax.random.key(0), (256, 256))

jax.debug.visualize_array_sharding(x)

from jax.experimental import mesh_utils
devices = mesh_utils.create_device_mesh((8,))

from jax.sharding import PositionalSharding

sharding = PositionalSharding(devices)

x = jax.device_put(x, sharding.reshape(8, 1))
jax.debug.visualize_array_sharding(x)

print(repr(sharding))

print(repr(sharding.reshape(8, 1)))

print(repr(sharding.reshape(4, 2)))

sharding = sharding.reshape(4, 2)
print(sharding)

y = jax.device_put(x, sharding)
jax.debug.visualize_array_sharding(y)

sharding = sharding.reshape(1, 8)
print(sharding)

y = jax.device_put(x, sharding)
jax.debug.visualize_array_sharding(y)

sharding = sharding.reshape(4, 2)
print(sharding.replicate(axis=0, keepdims=True))

y = jax.device_put(x, sharding.replicate(axis=0, keepdims=True))
jax.debug.visualize_array_sharding(y)

print(sharding.replicate(0).shape)
print(sharding.replicate(1).shape)

y = jax.device_put(x, sharding.replicate(1))
jax.debug.visualize_array_sharding(y)

from jax.sharding import Mesh
from jax.sharding import PartitionSpec
from jax.sharding import NamedSharding
from jax.experimental import mesh_utils

P = PartitionSpec

devices = mesh_utils.create_device_mesh((4, 2))
mesh = Mesh(devices, axis_names=('a', 'b'))
y = jax.device_put(x, NamedSharding(mesh, P('a', 'b')))
jax.debug.visualize_array_sharding(y)

devices = mesh_utils.create_device_mesh((4, 2))
default_mesh = Mesh(devices, axis_names=('a', 'b'))

def mesh_sharding(
    pspec: PartitionSpec, mesh: Optional[Mesh] = None,
  ) -> NamedSharding:
  if mesh is None:
    mesh = default_mesh
  return NamedSharding(mesh, pspec)

y = jax.device_put(x, mesh_sharding(P('a', 'b')))
jax.debug.visualize_array_sharding(y)

y = jax.device_put(x, mesh_sharding(P('b', 'a')))
jax.debug.visualize_array_sharding(y)

# This `None` means that `x` is not sharded on its second dimension,
# and since the Mesh axis name 'b' is not mentioned, shards are
# replicated across it.
y = jax.device_put(x, mesh_sharding(P('a', None)))
jax.debug.visualize_array_sharding(y)

y = jax.device_put(x, mesh_sharding(P(None, 'b')))
jax.debug.visualize_array_sharding(y)

y = jax.device_put(x, mesh_sharding(P(None, 'a')))
jax.debug.visualize_array_sharding(y)

y = jax.device_put(x, mesh_sharding(P(('a', 'b'), None)))
jax.debug.visualize_array_sharding(y)

from jax.experimental import mesh_utils
from jax.sharding import PositionalSharding
sharding = PositionalSharding(mesh_utils.create_device_mesh((8,)))

x = jax.device_put(x, sharding.reshape(4, 2))
print('input sharding:')
jax.debug.visualize_array_sharding(x)

y = jnp.sin(x)
print('output sharding:')
jax.debug.visualize_array_sharding(y)

y = jax.device_put(x, sharding.reshape(4, 2).replicate(1))
z = jax.device_put(x, sharding.reshape(4, 2).replicate(0))
print('lhs sharding:')
jax.debug.visualize_array_sharding(y)
print('rhs sharding:')
jax.debug.visualize_array_sharding(z)

w = jnp.dot(y, z)
print('out sharding:')
jax.debug.visualize_array_sharding(w)

x_single = jax.device_put(x, jax.devices()[0])
jax.debug.visualize_array_sharding(x_single)

print(repr(np.allclose(jnp.dot(x_single, x_single),
            jnp.dot(y, z))))

jnp.dot(x_single, x_single).block_until_ready()

jnp.dot(y, z).block_until_ready()

w_copy = jnp.copy(w)
jax.debug.visualize_array_sharding(w_copy)

import textwrap
try:
  from termcolor import colored
except ImportError:  # termcolor writes no color codes to a stream that is not a terminal
  def colored(text, color):
    return text

def print_exception(e):
  name = colored(f'{type(e).__name__}', 'red')
  print(textwrap.fill(f'{name}: {str(e)}'))

sharding1 = PositionalSharding(jax.devices()[:4])
sharding2 = PositionalSharding(jax.devices()[4:])

y = jax.device_put(x, sharding1.reshape(2, 2))
z = jax.device_put(x, sharding2.reshape(2, 2))
try: y + z
except ValueError as e: print_exception(e)

devices = jax.devices()
permuted_devices = [devices[i] for i in [0, 1, 2, 3, 6, 7, 4, 5]]

sharding1 = PositionalSharding(devices)
sharding2 = PositionalSharding(permuted_devices)

y = jax.device_put(x, sharding1.reshape(4, 2))
z = jax.device_put(x, sharding2.reshape(4, 2))
try: y + z
except ValueError as e: print_exception(e)

y = jax.device_put(x, sharding1.reshape(4, 2))
y + jnp.ones_like(y)
y + jnp.arange(y.size).reshape(y.shape)
print('no error!')

sharding = PositionalSharding(mesh_utils.create_device_mesh((8,)))

x = jax.random.normal(jax.random.key(0), (256, 256))
x = jax.device_put(x, sharding.reshape(4, 2))

@jax.jit
def f(x):
  x = x + 1
  y = jax.lax.with_sharding_constraint(x, sharding.reshape(2, 4))
  return y

jax.debug.visualize_array_sharding(x)
y = f(x)
jax.debug.visualize_array_sharding(y)

@jax.jit
def f(x):
  x = x + 1
  y = jax.lax.with_sharding_constraint(x, sharding.replicate())
  return y

# JAX 0.4.30 rejects this cell's constraint: `sharding` is 1-D and keeps its rank when
# replicated, while `x` has rank 2.
jax.debug.visualize_array_sharding(x)
try:
  y = f(x)
  jax.debug.visualize_array_sharding(y)
except ValueError as e: print_exception(e)

import jax
import jax.numpy as jnp

def predict(params, inputs):
  for W, b in params:
    outputs = jnp.dot(inputs, W) + b
    inputs = jnp.maximum(outputs, 0)
  return outputs

def loss(params, batch):
  inputs, targets = batch
  predictions = predict(params, inputs)
  return jnp.mean(jnp.sum((predictions - targets)**2, axis=-1))

loss_jit = jax.jit(loss)
gradfun = jax.jit(jax.grad(loss))

def init_layer(key, n_in, n_out):
    k1, k2 = jax.random.split(key)
    W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
    b = jax.random.normal(k2, (n_out,))
    return W, b

def init_model(key, layer_sizes, batch_size):
    key, *keys = jax.random.split(key, len(layer_sizes))
    params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))

    key, *keys = jax.random.split(key, 3)
    inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
    targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))

    return params, (inputs, targets)

layer_sizes = [784, 128, 128, 128, 10]
batch_size = 128

params, batch = init_model(jax.random.key(0), layer_sizes, batch_size)

sharding = PositionalSharding(jax.devices()).reshape(8, 1)

batch = jax.device_put(batch, sharding)
# JAX 0.4.30 rejects the rank-2 replicated sharding for the rank-1 biases (the parameters stay
# where they are), as it does for the biases below.
try: params = jax.device_put(params, sharding.replicate())
except ValueError as e: print_exception(e)

print(repr(loss_jit(params, batch)))

step_size = 1e-5

for _ in range(30):
  grads = gradfun(params, batch)
  params = [(W - step_size * dW, b - step_size * db)
            for (W, b), (dW, db) in zip(params, grads, strict=False)]

print(loss_jit(params, batch))

gradfun(params, batch)[0][0].block_until_ready()

batch_single = jax.device_put(batch, jax.devices()[0])
params_single = jax.device_put(params, jax.devices()[0])

gradfun(params_single, batch_single)[0][0].block_until_ready()

sharding = sharding.reshape(4, 2)

batch = jax.device_put(batch, sharding.replicate(1))
jax.debug.visualize_array_sharding(batch[0])
jax.debug.visualize_array_sharding(batch[1])

(W1, b1), (W2, b2), (W3, b3), (W4, b4) = params

W1 = jax.device_put(W1, sharding.replicate())
try: b1 = jax.device_put(b1, sharding.replicate())
except ValueError as e: print_exception(e)

W2 = jax.device_put(W2, sharding.replicate(0))
try: b2 = jax.device_put(b2, sharding.replicate(0))
except ValueError as e: print_exception(e)

W3 = jax.device_put(W3, sharding.replicate(0).T)
try: b3 = jax.device_put(b3, sharding.replicate())
except ValueError as e: print_exception(e)

W4 = jax.device_put(W4, sharding.replicate())
try: b4 = jax.device_put(b4, sharding.replicate())
except ValueError as e: print_exception(e)

params = (W1, b1), (W2, b2), (W3, b3), (W4, b4)

jax.debug.visualize_array_sharding(W2)

jax.debug.visualize_array_sharding(W3)

print(loss_jit(params, batch))

step_size = 1e-5

for _ in range(30):
    grads = gradfun(params, batch)
    params = [(W - step_size * dW, b - step_size * db)
              for (W, b), (dW, db) in zip(params, grads, strict=False)]

print(loss_jit(params, batch))

(W1, b1), (W2, b2), (W3, b3), (W4, b4) = params
jax.debug.visualize_array_sharding(W2)
jax.debug.visualize_array_sharding(W3)

gradfun(params, batch)[0][0].block_until_ready()

@jax.jit
def f(key, x):
  numbers = jax.random.uniform(key, x.shape)
  return x + numbers

key = jax.random.key(42)
x_sharding = jax.sharding.PositionalSharding(jax.devices())
x = jax.device_put(jnp.arange(24), x_sharding)

jax.debug.visualize_array_sharding(f(key, x))

jax.config.update('jax_threefry_partitionable', True)

jax.debug.visualize_array_sharding(f(key, x))

jax.config.update('jax_threefry_partitionable', False)
print('Stable:')
print(f(key, x))
print()

jax.config.update('jax_threefry_partitionable', True)
print('Partitionable:')
print(f(key, x))

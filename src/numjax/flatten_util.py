"""numjax.flatten_util: a pytree as one flat vector (JAX's `jax.flatten_util`)."""

from numjax._src.flatten_util import ravel_pytree as ravel_pytree

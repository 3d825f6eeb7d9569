"""Private implementation of `numjax.scipy` (JAX's `jax.scipy`)."""

"""Private home of numjax.scipy.sparse (JAX's `jax.scipy.sparse`)."""

"""Image resampling (JAX's `jax._src.image`)."""

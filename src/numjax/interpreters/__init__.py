"""`jax.interpreters`: the transformation registries libraries use to define primitives."""

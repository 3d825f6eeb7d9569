"""Sparse arrays (`jax.experimental.sparse`)."""

"""`jax.numpy`'s functions, one topic a module, built from lax calls after checking and
promoting their arguments as JAX does (`util.py`). Re-exported by `numjax.numpy`.

The top internal layer: it may import every layer below it.
"""

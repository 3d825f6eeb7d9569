"""The user-facing transformations and their primitives: jit (`jit.py` with the `pjit`
primitive, the AOT stages and dispatch), grad/vjp/jvp/vmap (`transformations.py`), custom
derivatives and batching, checkpoint, callbacks, pmap and shard_map, and sharded jit.

One layer with `control_flow` (docs/architecture.md, "Layers"): above lax, below numpy.
"""

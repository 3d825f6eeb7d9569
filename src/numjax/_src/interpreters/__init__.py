"""The transformations as traces: jvp and linearize/transpose (`ad.py`), vmap (`batching.py`),
staging to jaxprs (`staging.py`), partial evaluation (`partial_eval.py`), and whole-jaxpr jvp,
batch and transpose by re-tracing (`jaxpr_transforms.py`).

Each reads a primitive's rules off the `Primitive` object; none knows a primitive by name.
"""

"""Names for annotations across numjax.

`Array` is what a numjax function takes and returns where JAX's would take or return a
`jax.Array`: at run time an Array, a tracer of any transformation, or a host value (a NumPy
array or scalar, a Python number), which mix freely; it is `Any` to the type checker, named so
that signatures say what they mean.
"""

from __future__ import annotations

from typing import Any

Array = Any
ArrayLike = Any

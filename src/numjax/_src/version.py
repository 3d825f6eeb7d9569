"""numjax's release, the JAX release whose API it implements, and the jaxlib release its runtime
stands in for (re-exported by `numjax.version` and `numjax.lib`).

Libraries choose code paths by comparing `__version_info__` (flax's scan reads
`jax.version.__version_info__`), so it is the JAX release numjax follows, 0.4.30; `__version__`
is numjax's own release.
"""

from __future__ import annotations

__version__ = "0.1.0"
# The JAX release whose API numjax implements.
__version_info__ = (0, 4, 30)
# JAX 0.4.30's minimum jaxlib.
_minimum_jaxlib_version = "0.4.27"
_minimum_jaxlib_version_info = (0, 4, 27)
# The jaxlib release numjax.lib stands in for (`jax.lib.__version__`).
jaxlib_version = "0.4.30"

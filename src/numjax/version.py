"""numjax's version, and the JAX release whose API it implements (JAX's `jax.version`).

Libraries choose code paths by comparing `__version_info__` (flax's scan reads
`jax.version.__version_info__`), so it is the JAX release numjax follows, 0.4.30; `__version__`
is numjax's own release.

>>> import numjax
>>> numjax.version.__version_info__
(0, 4, 30)
"""

from __future__ import annotations

__version__ = "0.1.0"
# The JAX release whose API numjax implements.
__version_info__ = (0, 4, 30)
# JAX 0.4.30's minimum jaxlib; numjax.lib stands in for jaxlib 0.4.30 (`numjax.lib.__version__`).
_minimum_jaxlib_version = "0.4.27"
_minimum_jaxlib_version_info = (0, 4, 27)

"""numjax's version, and the JAX release whose API it implements (JAX's `jax.version`).

Libraries choose code paths by comparing `__version_info__` (flax's scan reads
`jax.version.__version_info__`), so it is the JAX release numjax follows, 0.4.30; `__version__`
is numjax's own release.

>>> import numjax
>>> numjax.version.__version_info__
(0, 4, 30)
"""

from __future__ import annotations

from numjax._src.version import __version__ as __version__
from numjax._src.version import __version_info__ as __version_info__
from numjax._src.version import _minimum_jaxlib_version as _minimum_jaxlib_version
from numjax._src.version import _minimum_jaxlib_version_info as _minimum_jaxlib_version_info

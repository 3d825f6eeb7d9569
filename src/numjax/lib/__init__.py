"""`jax.lib` (and, under `numjax.compat`, `jaxlib`): `xla_bridge`, the deprecated public alias
JAX 0.4.30 still ships, `xla_extension`, jaxlib's runtime types, and `xla_client` (FftType)."""

from numjax._src.version import jaxlib_version as __version__  # the jaxlib numjax stands in for
from numjax.lib import xla_bridge as xla_bridge
from numjax.lib import xla_client as xla_client
from numjax.lib import xla_extension as xla_extension

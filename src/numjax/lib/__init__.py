"""`jax.lib` (and, under `numjax.compat`, `jaxlib`): `xla_bridge`, the deprecated public alias
JAX 0.4.30 still ships, `xla_extension`, jaxlib's runtime types, and `xla_client` (FftType)."""

from numjax.lib import xla_bridge as xla_bridge
from numjax.lib import xla_client as xla_client
from numjax.lib import xla_extension as xla_extension

__version__ = "0.4.30"  # the jaxlib release numjax stands in for (`jax.lib.__version__`)

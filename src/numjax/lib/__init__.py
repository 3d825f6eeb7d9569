"""`jax.lib`: only `xla_bridge`, the deprecated public alias JAX 0.4.30 still ships."""

from numjax.lib import xla_bridge as xla_bridge

"""`jax.interpreters.xla`: `xe`, jaxlib's runtime types (`xe.PjitFunction`, ...), and
`abstractify`, the aval of an argument."""

from numjax._src.core.avals import shaped_abstractify as abstractify
from numjax.lib import xla_extension as xe

__all__ = ["abstractify", "xe"]

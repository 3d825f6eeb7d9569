"""`jax.interpreters.xla`: `xe`, jaxlib's runtime types (`xe.PjitFunction`, ...), and
`abstractify`, the aval of an argument."""

from numjax._src.core.avals import aval_handlers as pytype_aval_mappings
from numjax._src.core.avals import shaped_abstractify as abstractify
from numjax._src.core.canonicalize import canonicalize_dtype_handlers
from numjax.lib import xla_extension as xe

__all__ = ["abstractify", "canonicalize_dtype_handlers", "pytype_aval_mappings", "xe"]

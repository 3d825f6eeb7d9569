"""`jax.lib.xla_extension` (jaxlib's runtime types): numjax's classes under jaxlib's names, for
`isinstance` checks and `except` clauses in libraries.

>>> import numjax
>>> from numjax.lib import xla_extension
>>> isinstance(numjax.jit(abs), xla_extension.PjitFunction)
True
"""

from numjax._src.api.jit import JitWrapped as PjitFunction
from numjax._src.api.pmap import PmapFunction as PmapFunction
from numjax._src.core.errors import XlaRuntimeError as XlaRuntimeError
from numjax._src.runtime.array import ArrayImpl as ArrayImpl
from numjax._src.runtime.devices import Device as Device

__all__ = ["ArrayImpl", "Device", "PjitFunction", "PmapFunction", "XlaRuntimeError"]

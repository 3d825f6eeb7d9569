"""`jax.interpreters.pxla`: pmap's primitive and executable.

numjax's pmap traces the per-device function with its axis name bound instead of with a map
trace, so no value is ever a `MapTracer` (the class exists for `isinstance` checks).
"""

from numjax._src.api.pmap_executable import PmapExecutable as PmapExecutable
from numjax._src.api.xla_pmap import xla_pmap_p as xla_pmap_p
from numjax._src.core.trace import Tracer


class MapTracer(Tracer):
    """JAX's tracer of a pmap's map trace; numjax's pmap makes none."""

    __slots__ = ()

    def __init__(self) -> None:
        raise TypeError("numjax's pmap has no map trace: a MapTracer cannot be created")

"""`jax.interpreters.pxla`: pmap's primitive and executable, and the mesh context.

numjax's pmap traces the per-device function with its axis name bound instead of with a map
trace, so no value is ever a `MapTracer` (the class exists for `isinstance` checks).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from numjax._src.api.pmap_executable import PmapExecutable as PmapExecutable
from numjax._src.api.xla_pmap import xla_pmap_p as xla_pmap_p
from numjax._src.core.trace import Tracer
from numjax._src.runtime.mesh import Mesh, current_mesh


class MapTracer(Tracer):
    """JAX's tracer of a pmap's map trace; numjax's pmap makes none."""

    __slots__ = ()

    def __init__(self) -> None:
        raise TypeError("numjax's pmap has no map trace: a MapTracer cannot be created")


class ResourceEnv(NamedTuple):
    """JAX's resource environment: the mesh entered with `with mesh:` (an empty mesh, whose
    `devices.shape` is `()`, outside any) and the loops (numjax has none)."""

    physical_mesh: Mesh
    loops: tuple[Any, ...]

    @property
    def shape(self) -> Any:
        return self.physical_mesh.shape


class _ThreadResources:
    """JAX's `pxla.thread_resources`: `.env` is this thread's resource environment, read from
    the mesh context (flax reads `thread_resources.env.physical_mesh` to find the mesh)."""

    @property
    def env(self) -> ResourceEnv:
        mesh = current_mesh()
        return ResourceEnv(mesh if mesh is not None else _EMPTY_MESH, ())


_EMPTY_MESH = Mesh(np.empty((), dtype=object), ())
thread_resources = _ThreadResources()

"""`jax.experimental.pjit`: in JAX 0.4.30 `pjit` is `jit`, except that its shardings may be
PartitionSpecs, read against the mesh of the enclosing `with mesh:` at each call.

>>> import numjax.numpy as jnp
>>> from numjax.experimental.pjit import pjit
>>> pjit(lambda x: x + 1)(jnp.arange(2))
Array([1, 2], dtype=int32)
"""

from __future__ import annotations

import functools
from typing import Any

from numjax._src.api.jit import jit
from numjax._src.api.pjit import pjit_p as pjit_p
from numjax._src.runtime.mesh import PartitionSpec, current_mesh
from numjax._src.runtime.named_sharding import NamedSharding
from numjax._src.tree_util import tree_map


def _has_specs(tree: Any) -> bool:
    found = []
    tree_map(lambda s: found.append(isinstance(s, PartitionSpec)), tree,
             is_leaf=lambda s: isinstance(s, PartitionSpec))
    return any(found)


def pjit(fun: Any = None, in_shardings: Any = None, out_shardings: Any = None,
         **kwargs: Any) -> Any:
    """`jit` whose `in_shardings`/`out_shardings` may hold PartitionSpecs (on the mesh in
    scope at each call)."""
    if fun is None:
        return functools.partial(pjit, in_shardings=in_shardings, out_shardings=out_shardings,
                                 **kwargs)
    if not (_has_specs(in_shardings) or _has_specs(out_shardings)):
        return jit(fun, in_shardings=in_shardings, out_shardings=out_shardings, **kwargs)
    by_mesh: dict[Any, Any] = {}

    def on_mesh(tree: Any) -> Any:
        mesh = current_mesh()
        assert mesh is not None
        return tree_map(lambda s: NamedSharding(mesh, s) if isinstance(s, PartitionSpec) else s,
                        tree, is_leaf=lambda s: isinstance(s, PartitionSpec))

    @functools.wraps(fun)
    def call(*args: Any, **kw: Any) -> Any:
        mesh = current_mesh()
        if mesh is None:
            which = "in_shardings" if _has_specs(in_shardings) else "out_shardings"
            raise RuntimeError(
                "pjit requires a non-empty mesh if you are passing `PartitionSpec`s or `None` "
                f"to {which}! Is a mesh defined at the call site? Alternatively, provide "
                f"`Sharding`s to {which} and then the mesh context manager is not required.")
        jitted = by_mesh.get(mesh)
        if jitted is None:
            jitted = by_mesh[mesh] = jit(fun, in_shardings=on_mesh(in_shardings),
                                         out_shardings=on_mesh(out_shardings), **kwargs)
        return jitted(*args, **kw)

    return call


__all__ = ["pjit", "pjit_p"]

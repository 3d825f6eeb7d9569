"""The compiler: jaxprs and single primitives to executables.

`backend_compile` is the one place every compile goes through: each compile-cache miss (jit and
eager op-by-op alike) calls it, a cache hit never does. Callers look it up as an attribute of
this module at call time, so a wrapper assigned to `numjax._src.compiler.backend_compile` (as
`restrict_backends` and chex-style tools install) sees every compile.
"""

from __future__ import annotations

from typing import Any


def backend_compile(backend: Any, module: Any, options: Any, host_callbacks: Any) -> Any:
    """Compile `module` (a lowered computation) for `backend`; returns its executable.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax._src import compiler
    >>> seen = []
    >>> original = compiler.backend_compile
    >>> def spy(backend, module, options, host_callbacks):
    ...     seen.append(backend.platform)
    ...     return original(backend, module, options, host_callbacks)
    >>> compiler.backend_compile = spy
    >>> _ = jnp.sin(jnp.zeros((7, 13)))
    >>> compiler.backend_compile = original
    >>> seen
    ['cpu']
    """
    return module.compile(options)

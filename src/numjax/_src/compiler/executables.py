"""Compiling whole jaxprs: passes, lowering, and the call to `backend_compile`."""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence

from numjax._src import compiler, config
from numjax._src.compiler import compile_log, passes
from numjax._src.compiler.codegen import Executable, lower_jaxpr
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.runtime import devices


def compile_jaxpr(closed: ClosedJaxpr, name: str, donated: Sequence[bool] = (),
                  backend: str | None = None) -> Executable:
    """Passes, lowering, and the one call to `backend_compile` (looked up at call time).
    `donated` flags the inputs whose buffers the executable may overwrite; `backend` names the
    platform to compile for (None: the default), failing as JAX does when it is absent."""
    log = config.log_compiles.value
    target = devices.get_backend(backend)
    start = time.perf_counter()
    module = lower_jaxpr(passes.run_passes(closed), name, donated=donated)
    lowered = time.perf_counter()
    if log:
        compile_log.log_lowering(name, lowered - start)
    executable = compiler.backend_compile(target, module, None, module.host_callbacks)
    if log:
        compile_log.log_backend_compile(name, time.perf_counter() - lowered)
    return executable  # type: ignore[no-any-return]


# Executables of jaxprs held by higher-order primitives (jit called inside a traced program,
# cond branches, loop bodies), keyed weakly on the jaxpr object.
_cache: weakref.WeakKeyDictionary[ClosedJaxpr, Executable] = weakref.WeakKeyDictionary()


def executable_for(closed: ClosedJaxpr, name: str) -> Executable:
    executable = _cache.get(closed)
    if executable is None:
        executable = _cache[closed] = compile_jaxpr(closed, name)
    return executable


def clear_cache() -> None:
    _cache.clear()

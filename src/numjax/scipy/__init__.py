"""numjax.scipy: the parts of SciPy's API JAX provides as `jax.scipy`.

Submodules load on first use (`numjax.scipy.linalg` imports it), so `import numjax` stays fast.
"""

from __future__ import annotations

import importlib
import types

_SUBMODULES = ("cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize",
               "signal", "sparse", "spatial", "special", "stats")

__all__ = list(_SUBMODULES)


def __getattr__(name: str) -> types.ModuleType:
    if name in _SUBMODULES:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES))

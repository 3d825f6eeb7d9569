"""Run JAX programs unchanged: `import jax` (and every `jax.*` submodule) resolves to numjax,
and `import jaxlib` to `numjax.lib`.

`install()` puts a finder at the front of `sys.meta_path` that answers for `jax` and `jax.X.Y`
with the already-importable `numjax` and `numjax.X.Y`: the module object is shared, not copied,
so `jax.numpy is numjax.numpy` and state (config, caches) is one. A submodule numjax lacks raises
the usual `ModuleNotFoundError`, naming the `jax.*` module the program asked for.

`numjax run prog.py` (see `numjax.__main__`) calls `install()` before running the program.

>>> import sys, numjax.compat
>>> numjax.compat.install()
>>> import jax.numpy as jnp
>>> import numjax
>>> jnp is numjax.numpy and sys.modules["jax"] is numjax
True
>>> numjax.compat.uninstall()
>>> "jax" in sys.modules
False
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence

ALIAS = "jax"
TARGET = "numjax"
# jaxlib, JAX's runtime package, which libraries also import directly (`jaxlib.xla_extension`),
# is `numjax.lib` (what `jax.lib` re-exports of it in JAX).
_ALIASES = {ALIAS: TARGET, "jaxlib": TARGET + ".lib"}


def _target_name(fullname: str) -> str | None:
    """`numjax.X` for `jax.X`, `numjax.lib.X` for `jaxlib.X`; None for other names."""
    package, dot, rest = fullname.partition(".")
    target = _ALIASES.get(package)
    if target is None:
        return None
    return target + dot + rest


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system the numjax module itself: nothing is executed twice."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        # The import system keeps the module's own __name__/__spec__/__file__ (it only fills in
        # attributes that are missing), so tracebacks and pickles still say `numjax`.
        return importlib.import_module(self.target)

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # already executed when numjax imported it


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `jax` and `jax.*` as `numjax` and `numjax.*`."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        name = _target_name(fullname)
        if name is None:
            return None
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            return None  # the import system goes on and raises ModuleNotFoundError for `fullname`
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(name))


_finder = JaxAliasFinder()


def installed() -> bool:
    """Whether `install()` is in effect."""
    return _finder in sys.meta_path


def install() -> None:
    """Make `import jax` and `import jax.<sub>` import numjax and `numjax.<sub>` from now on.

    Idempotent. Raises ImportError if a real `jax` was already imported in this process, since
    its modules would otherwise mix with numjax's.

    >>> import numjax.compat
    >>> numjax.compat.install()
    >>> import jax
    >>> jax.grad(lambda x: x * x)(3.0)
    Array(6., dtype=float32, weak_type=True)
    >>> numjax.compat.uninstall()
    """
    existing = sys.modules.get(ALIAS)
    if existing is not None and getattr(existing, "__name__", None) != TARGET:
        raise ImportError(
            "numjax.compat.install(): the real `jax` is already imported in this process; "
            "call install() before anything imports jax."
        )
    if not installed():
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Undo `install()`: remove the finder and every `jax`/`jax.*` alias from `sys.modules`."""
    while _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if _target_name(n) is not None]:
        module = sys.modules[name]
        if getattr(module, "__name__", "").split(".")[0] == TARGET:
            del sys.modules[name]

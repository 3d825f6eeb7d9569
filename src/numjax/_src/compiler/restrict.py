"""`restrict_backends`: refuse compiles for some platforms, as chex's context manager does.

It is built on the one compile choke point, `numjax._src.compiler.backend_compile`: every
compile-cache miss (jit and eager op-by-op alike) looks that attribute up at call time, so a
wrapper assigned to it sees every compile, and a cache hit (which compiles nothing) is never
refused. Entering a context installs a wrapper around whatever function is there (so contexts and
chex-style wrappers nest); leaving restores that function.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from numjax._src import compiler


class RestrictedBackendError(RuntimeError):
    """A compile for a platform that an enclosing `restrict_backends()` forbids."""


@contextlib.contextmanager
def restrict_backends(
    *, allowed: Sequence[str] | None = None, forbidden: Sequence[str] | None = None
) -> Iterator[None]:
    """Make compiling for the named backend platforms raise `RestrictedBackendError`.

    With `allowed`, only those platforms may compile; with `forbidden`, those may not. Only cache
    misses compile, so code that has already run once on the same shapes keeps running.

    >>> import numjax, numjax.numpy as jnp
    >>> f = numjax.jit(lambda x: x * 2)
    >>> _ = f(jnp.ones(3))                      # compiled here, outside the context
    >>> with numjax.experimental.restrict_backends(forbidden=["cpu"]):
    ...     _ = f(jnp.ones(3))                  # a cache hit: nothing to compile
    ...     try:
    ...         f(jnp.ones(4))                  # a new shape needs a compile
    ...     except numjax.experimental.RestrictedBackendError as e:
    ...         print(e)
    Compiling a JAX program for cpu is forbidden by restrict_backends().
    """
    allowed_set = None if allowed is None else frozenset(allowed)
    forbidden_set = None if forbidden is None else frozenset(forbidden)
    if allowed_set is None and forbidden_set is None:
        raise ValueError("No restrictions specified.")
    both = set(allowed_set or ()) & set(forbidden_set or ())
    if both:
        raise ValueError(f"Backends {both} can't be both allowed and forbidden.")

    def is_allowed(platform: str) -> bool:
        if allowed_set is not None:
            return platform in allowed_set
        assert forbidden_set is not None
        return platform not in forbidden_set

    inner: Callable[..., Any] = compiler.backend_compile

    @functools.wraps(inner)
    def wrapper(backend: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_allowed(backend.platform):
            raise RestrictedBackendError(
                f"Compiling a JAX program for {backend.platform} is forbidden by "
                "restrict_backends()."
            )
        return inner(backend, *args, **kwargs)

    compiler.backend_compile = wrapper
    try:
        yield
    finally:
        compiler.backend_compile = inner

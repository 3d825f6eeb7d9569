"""numjax.experimental: JAX's experimental namespace (x64 switches, restrict_backends, ...)."""

from numjax._src.api.callbacks import io_callback as io_callback
from numjax._src.compiler.restrict import RestrictedBackendError as RestrictedBackendError
from numjax._src.compiler.restrict import restrict_backends as restrict_backends
from numjax._src.config import enable_x64 as _enable_x64_state


def enable_x64(new_val: bool = True):  # type: ignore[no-untyped-def]
    """Context manager enabling 64-bit types in this thread.

    >>> import numjax, numjax.numpy as jnp
    >>> with numjax.experimental.enable_x64():
    ...     jnp.arange(2).dtype
    dtype('int64')
    """
    return _enable_x64_state(new_val)


def disable_x64():  # type: ignore[no-untyped-def]
    """Context manager disabling 64-bit types in this thread."""
    return _enable_x64_state(False)

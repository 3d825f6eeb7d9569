"""numjax.experimental.host_callback: `id_tap`, `id_print`, `call` and `barrier_wait`.

Deprecated in JAX (as of March 20, 2024) in favour of `numjax.debug.callback`,
`numjax.pure_callback` and `numjax.experimental.io_callback`; reading one of its functions warns
as JAX does.

>>> import warnings, numjax, numjax.numpy as jnp
>>> from numjax.experimental import host_callback as hcb
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", DeprecationWarning)
...     numjax.jit(lambda x: hcb.id_print(x * 2, what="double") + 1)(jnp.arange(3))
what: double
[0 2 4]
Array([1, 3, 5], dtype=int32)
"""

import warnings as _warnings
from typing import Any as _Any

from numjax._src.api import host_callback as _impl
from numjax._src.api.host_callback import CallbackException as CallbackException
from numjax._src.api.host_callback import CallbackFlavor as CallbackFlavor
from numjax._src.api.host_callback import TapFunctionException as TapFunctionException

_MESSAGE = ("The host_callback APIs are deprecated as of March 20, 2024. The functionality is "
            "subsumed by the new JAX external callbacks. See "
            "https://github.com/google/jax/issues/20385.")

_DEPRECATED = {name: getattr(_impl, name) for name in
               ("id_tap", "id_print", "call", "barrier_wait", "stop_outfeed_receiver")}


def __getattr__(name: str) -> _Any:
    if name in _DEPRECATED:
        _warnings.warn(_MESSAGE, DeprecationWarning, stacklevel=2)
        return _DEPRECATED[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

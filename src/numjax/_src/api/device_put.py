"""Placement: device_put, device_get, block_until_ready (the explicit host/device transfers)."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.runtime import devices, transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.tree_util import tree_map


def _put(x: Any, device: Any) -> Any:
    if isinstance(x, Tracer):
        return x
    target = devices.get_backend().devices()[0] if device is None else device
    if isinstance(x, ArrayImpl):
        if device is None or x.device() is device:
            return x
        # A device-to-device copy: the new array owns its buffer.
        transfer_guard.device_to_device(x.shape, x.dtype, x.device(), explicit=True)
        return ArrayImpl(np.array(x._buf, copy=True), x.weak_type, target, committed=True)
    aval = get_aval(x)
    transfer_guard.host_to_device(x, aval.dtype, device=target, explicit=True)
    buf = np.array(x, dtype=aval.dtype, copy=True)
    weak = dtypes.is_weakly_typed(x)
    return ArrayImpl(buf, weak, target if device is not None else None,
                     committed=device is not None)


def device_put(x: Any, device: Any = None, *, src: Any = None) -> Any:
    """Place `x` (a pytree of arrays) on `device` (committed), or the default device.

    >>> import numpy as np, numjax
    >>> numjax.device_put(np.ones(2))
    Array([1., 1.], dtype=float32)
    """
    return tree_map(lambda leaf: _put(leaf, device), x)


def device_get(x: Any) -> Any:
    """Fetch the arrays of a pytree to host NumPy values; non-arrays pass through."""
    def get(leaf: Any) -> Any:
        if isinstance(leaf, ArrayImpl):
            return leaf._value(explicit=True)
        return leaf

    return tree_map(get, x)


def block_until_ready(x: Any) -> Any:
    """Wait for every array of a pytree to be computed; returns `x`."""
    def wait(leaf: Any) -> Any:
        block = getattr(leaf, "block_until_ready", None)
        if block is not None:
            block()
        return leaf

    tree_map(wait, x)
    return x

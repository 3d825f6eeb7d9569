"""Arrays made from per-device parts: `make_array_from_callback` (a function gives each
device's part from its index) and `make_array_from_single_device_arrays` (the parts are given
as Arrays, one on each device of the sharding). JAX 0.4.30's checks and messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray
from numjax._src.core.errors import UnexpectedTracerError
from numjax._src.core.trace import Tracer
from numjax._src.runtime import stream
from numjax._src.runtime.array import ArrayImpl, sharded_array
from numjax._src.runtime.sharding import Index, Sharding, SingleDeviceSharding, is_addressable
from numjax._src.runtime.transfer_guard import _XLA_NAMES


def _assemble(shape: tuple[int, ...], dtype: np.dtype, sharding: Sharding,
              bufs: Sequence[Any]) -> ArrayImpl:
    """The Array of `shape` whose part on the i-th device of `sharding` is `bufs[i]`, after
    JAX's shape check of each part."""
    aval = ShapedArray(shape, dtype, False)
    expected = sharding.shard_shape(shape)
    for buf in bufs:
        if buf is not None and tuple(buf.shape) != tuple(expected):
            raise ValueError(
                f"Expected shard shape {tuple(expected)} doesn't match the single device array "
                f"shape {tuple(buf.shape)}. Shape of Array is {aval.str_short()} with sharding "
                f"{sharding}")
    if isinstance(sharding, SingleDeviceSharding):
        return ArrayImpl(bufs[0], False, sharding._device, committed=True)
    return sharded_array(bufs, aval, sharding)


def _host_part(value: Any, dtype: Any = None) -> Any:
    """A callback's value as a private buffer (of `dtype` when given)."""
    if isinstance(value, ArrayImpl):
        buf = stream.resolve(value._buf)
        return buf if dtype is None or buf.dtype == dtype else buf.astype(dtype)
    return np.array(value, dtype=dtype, copy=True)


def make_array_from_callback(shape: Sequence[int], sharding: Sharding,
                             data_callback: Callable[[Index], Any]) -> ArrayImpl:
    """The Array of `shape` laid out as `sharding`, each device's part given by
    `data_callback(index)` (its index into the global value; called once when the sharding
    replicates the whole value).

    >>> import numpy as np, numjax
    >>> s = numjax.sharding.SingleDeviceSharding(numjax.devices()[0])
    >>> numjax.make_array_from_callback((3,), s, lambda index: np.arange(3.)[index])
    Array([0., 1., 2.], dtype=float32)
    """
    if not isinstance(sharding, Sharding):
        raise TypeError(f"sharding should be an instance of `jax.sharding`. Got {sharding} of "
                        f"type {type(sharding)}")
    shape = tuple(shape)
    devices = sharding._device_assignment
    if sharding.is_fully_replicated:
        values = [data_callback((slice(None),) * len(shape))] * len(devices)
    else:
        # Parts on other processes' devices are theirs to make (None here).
        indices = sharding.addressable_devices_indices_map(shape)
        values = [data_callback(indices[d]) if d in indices else None for d in devices]
    first = next(v for v in values if v is not None)
    if isinstance(first, Tracer):
        raise UnexpectedTracerError(
            "jax.make_array_from_callback cannot be called within a traced context.")
    dtype = dtypes.canonicalize_dtype(_host_part(first).dtype)
    parts: dict[int, Any] = {}  # one buffer per distinct value: replicas share it
    bufs = []
    for value in values:
        buf = parts.get(id(value))
        if buf is None and value is not None:
            buf = parts[id(value)] = _host_part(value, dtype)
        bufs.append(buf)
    return _assemble(shape, dtype, sharding, bufs)


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Sharding,
                                         arrays: Sequence[Any]) -> ArrayImpl:
    """The Array of `shape` laid out as `sharding` whose parts are `arrays`, one Array on each
    device of the sharding (matched by the device each is on).

    >>> import numjax, numjax.numpy as jnp
    >>> d = numjax.devices()[0]
    >>> s = numjax.sharding.SingleDeviceSharding(d)
    >>> numjax.make_array_from_single_device_arrays((2,), s, [numjax.device_put(jnp.ones(2), d)])
    Array([1., 1.], dtype=float32)
    """
    if any(isinstance(a, Tracer) for a in arrays):
        raise ValueError("jax.make_array_from_single_device_arrays requires a list of concrete "
                         f"arrays as input. got types {set(map(type, arrays))}")
    for a in arrays:
        if not isinstance(a, ArrayImpl):
            raise TypeError(f"Unsupported type for elements in `arrays`: {type(a)}")
    shape = tuple(shape)
    dtype = arrays[0].dtype
    for i, a in enumerate(arrays):
        if a.dtype != dtype:
            first, other = (_XLA_NAMES.get(t.name, t.name.upper()) for t in (dtype, a.dtype))
            raise ValueError("INVALID_ARGUMENT: Every input must have the same dtype: "
                             f"{first} (shard 0) vs. {other} (shard {i})")
    devices = sharding._device_assignment
    # The arrays are this process's parts: one per addressable device of the sharding.
    addressable = [d for d in devices if is_addressable(d)]
    if len(arrays) != len(addressable):
        raise ValueError(f"Expected {len(addressable)} per-device arrays (this is how many "
                         f"devices are addressable by the sharding), but got {len(arrays)}")
    by_device = {next(iter(a.devices())).id: a for a in arrays}
    wanted = {d.id for d in addressable}
    if set(by_device) != wanted:
        message = "Addressable devices and per-device arrays devices do not match."
        missing, extra = wanted - set(by_device), set(by_device) - wanted
        if missing:
            message += (f" Sharding contains devices {missing} that are not present in "
                        "per-device arrays.")
        if extra:
            message += (f" Per-device arrays contain devices {extra} that are not present in "
                        "the sharding.")
        raise ValueError(message)
    bufs = [stream.resolve(by_device[d.id]._buf) if d.id in by_device else None
            for d in devices]
    return _assemble(shape, dtype, sharding, bufs)


def make_array_from_process_local_data(sharding: Sharding, local_data: Any,
                                       global_shape: Sequence[int] | None = None
                                       ) -> ArrayImpl:
    """The Array laid out as `sharding` whose parts on this process's devices come from
    `local_data`: along each dimension either the whole global extent or just the part this
    process's devices hold (in one process, the whole value).

    >>> import numpy as np, numjax
    >>> s = numjax.sharding.SingleDeviceSharding(numjax.devices()[0])
    >>> numjax.make_array_from_process_local_data(s, np.arange(3))
    Array([0, 1, 2], dtype=int32)
    """
    if global_shape is None:
        if not sharding.is_fully_addressable:
            raise NotImplementedError("make_array_from_process_local_data needs `global_shape` "
                                      "when the sharding spans several processes")
        global_shape = tuple(local_data.shape)
    elif None in global_shape:
        raise ValueError(f"global_shape={tuple(global_shape)} has Nones. This is not "
                         "supported.")
    shape = tuple(global_shape)
    shard_shape = sharding.shard_shape(shape)
    indices = sharding.addressable_devices_indices_map(shape)
    # Per dimension, the sorted starts of the tiles this process holds: the local data has them
    # side by side, in that order.
    starts = [sorted({(index[i].start or 0) for index in indices.values()})
              for i in range(len(shape))]
    whole = []
    for i, (data_dim, global_dim) in enumerate(zip(local_data.shape, shape, strict=True)):
        whole.append(data_dim == global_dim)
        if data_dim != global_dim and len(starts[i]) * shard_shape[i] != data_dim:
            # JAX's text, its missing space included.
            raise ValueError(
                "Invalid host data, each dimension should match either global or process "
                f"shape. In dimension i={i}, the process data has {data_dim}elements. Process "
                f"addresses {len(starts[i]) * shard_shape[i]} elements and "
                f"global_shape={shape}.")

    def local_part(index: Index) -> Any:
        parts = []
        for i, s in enumerate(index):
            if whole[i]:
                parts.append(s)
            else:
                start = starts[i].index(s.start or 0) * shard_shape[i]
                parts.append(slice(start, start + shard_shape[i]))
        return local_data[tuple(parts)]

    return make_array_from_callback(shape, sharding, local_part)

"""Placement: device_put, device_put_sharded, device_put_replicated, device_get,
block_until_ready (the explicit host/device transfers).

`device_put(x)` leaves Arrays where they are and puts host values on the default device,
uncommitted; `device_put(x, device)` commits to `device` (a Device or a Sharding), copying an
Array from another device (an explicit device-to-device transfer). With a `NamedSharding` or
`PositionalSharding` the value is cut into one buffer per device (replicas share one). The
stacked forms (`device_put_sharded`, `device_put_replicated`) stack their inputs along a new
axis 0 split across the devices (`PmapSharding`), as JAX 0.4.30 does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval, shaped_abstractify
from numjax._src.core.trace import Tracer
from numjax._src.lax import structural
from numjax._src.runtime import devices, multihost, placement, stream, transfer_guard
from numjax._src.runtime.array import ArrayImpl, sharded_array, split_buffer
from numjax._src.runtime.named_sharding import TiledSharding, check_shape
from numjax._src.runtime.sharding import PmapSharding, Sharding, SingleDeviceSharding
from numjax._src.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten


def _host_buffer(x: Any) -> tuple[np.ndarray, bool]:
    """A host value as a private buffer of its canonical dtype, and its weak type."""
    aval = get_aval(x)
    return np.array(x, dtype=aval.dtype, copy=True), dtypes.is_weakly_typed(x)


def _put_tiled(x: Any, sharding: TiledSharding) -> ArrayImpl:
    """`x` split into tiles on the devices of `sharding`: one buffer per device, replicas
    sharing one, the global value kept as the Array's buffer."""
    if isinstance(x, ArrayImpl):
        if getattr(x, "_sharding", None) is sharding or (
                x._committed and x.sharding == sharding):
            return x  # already laid out so (JAX returns the same Array)
        aval = x.aval
        check_shape(sharding, aval.shape, "device_put args")
        placement.guard_device_to_device(aval.shape, aval.dtype, sharding, explicit=True)
        buf = stream.resolve(x._buf)
        weak = x.weak_type
    else:
        shaped_abstractify(x)  # JAX's errors for values that are not arrays
        aval = get_aval(x)
        check_shape(sharding, aval.shape, "device_put args")
        transfer_guard.host_to_device(x, aval.dtype, device=sharding, explicit=True)
        buf, weak = _host_buffer(x)
    shards = split_buffer(buf, sharding)
    return sharded_array(shards, ShapedArray(aval.shape, aval.dtype, weak), sharding,
                         global_buf=buf)


def _put(x: Any, device: Any) -> Any:
    if isinstance(x, Tracer):
        return x
    if type(x) is np.ndarray and x.dtype == dtypes.float0:
        return x  # as in JAX, float0 values stay on the host: no device holds them
    if isinstance(device, Sharding) and not device.is_fully_addressable:
        return _put_across_processes(x, device)
    if isinstance(x, ArrayImpl) and not x.is_fully_addressable:
        raise ValueError("device_put's first argument must be a fully addressable array, but "
                         f"got value with devices {x.devices()}")
    if isinstance(device, TiledSharding):
        return _put_tiled(x, device)
    if isinstance(device, PmapSharding):
        n = len(device.devices)
        return _put_stacked([x[i] for i in range(n)], list(device.devices.flat))
    if isinstance(device, SingleDeviceSharding):
        device = device._device
    if isinstance(x, ArrayImpl):
        if device is None:
            return x
        if getattr(x, "_sharding", None) is None and x._device_or_default() is device:
            # Same device: a new committed Array on the same buffer (no transfer).
            return ArrayImpl(x._buf, x.weak_type, device, committed=True)
        if device not in x.devices():
            placement.guard_device_to_device(x.shape, x.dtype, device, explicit=True)
        return ArrayImpl(np.array(x._buf, copy=True), x.weak_type, device, committed=True)
    target = devices.default_device() if device is None else device
    shaped_abstractify(x)  # JAX's errors for values that are not arrays
    try:
        aval = get_aval(x)
    except TypeError:  # read as an array through a dtype attribute, it has no buffer
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None
    transfer_guard.host_to_device(x, aval.dtype, device=target, explicit=True)
    buf, weak = _host_buffer(x)
    return ArrayImpl(buf, weak, device, committed=device is not None)


def _put_across_processes(x: Any, sharding: Sharding) -> Any:
    """A sharding spanning several processes' devices: no process holds the whole value, so
    only an Array already laid out across processes is accepted, and resharded when its
    layout differs (JAX's error otherwise: such Arrays are made with make_array_from_* or
    multihost_utils)."""
    if isinstance(x, ArrayImpl) and not x.is_fully_addressable:
        if x.sharding == sharding:
            return x
        return multihost.reshard(x, sharding)
    raise ValueError(
        "device_put's second argument must be a Device or a Sharding which represents "
        f"addressable devices, but got {sharding}. You are probably trying to use device_put "
        "in multi-controller JAX which is not supported. Please use "
        "jax.make_array_from_single_device_arrays API or pass device or Sharding which "
        "represents addressable devices.")


def device_put(x: Any, device: Any = None, *, src: Any = None) -> Any:
    """Place `x` (a pytree of arrays) on `device` (committed), or the default device.

    >>> import numpy as np, numjax
    >>> numjax.device_put(np.ones(2))
    Array([1., 1.], dtype=float32)
    >>> numjax.device_put(1.0, numjax.devices()[0]).sharding
    SingleDeviceSharding(device=CpuDevice(id=0))
    """
    if device is None or isinstance(device, devices.Device | Sharding):
        return tree_map(lambda leaf: _put(leaf, device), x)
    # A pytree of placements, a prefix of `x`'s structure: each subtree goes to its own.
    targets, tree = tree_flatten(
        device, is_leaf=lambda d: d is None or isinstance(d, devices.Device | Sharding))
    for target in targets:
        if target is not None and not isinstance(target, devices.Device | Sharding):
            raise ValueError("`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, "
                             "`jax.Device`, `Layout` or a pytree of these values. Received "
                             f"invalid value: {target}")
    try:
        subtrees = tree.flatten_up_to(x)
    except ValueError:
        raise ValueError("device_put device specification must be a tree prefix of the "
                         f"corresponding value, got specification {device} for value tree "
                         f"{tree_structure(x)}.") from None
    parts = [tree_map(lambda leaf, t=target: _put(leaf, t), part)
             for target, part in zip(targets, subtrees, strict=True)]
    return tree_unflatten(tree, parts)


def _put_stacked(xs: Sequence[Any], targets: Sequence[Any]) -> ArrayImpl:
    """One Array of the leaves `xs` stacked on a new axis 0, slice i on `targets[i]`."""
    avals = [get_aval(x) for x in xs]
    for a1, a2 in zip(avals[:-1], avals[1:], strict=True):
        if a1 != a2:
            raise ValueError("the shards passed to device_put_sharded must have consistent "
                             f"shape and dtype, but got {a1!r} and {a2!r}.")
    aval: ShapedArray = avals[0]
    sharding = PmapSharding.stacked(targets, len(aval.shape))
    shape = (len(xs), *aval.shape)
    if transfer_guard._in_use:
        if any(not isinstance(x, ArrayImpl) for x in xs):
            transfer_guard._apply(
                "host-to-device", True,
                lambda: f"{placement.aval_text(shape, aval.dtype)}, "
                        f"dst_sharding={sharding!r}")
        elif any(x.devices() != {d} for x, d in zip(xs, targets, strict=True)):
            placement.guard_device_to_device(shape, aval.dtype, sharding, explicit=True)
    bufs = [x._buf if isinstance(x, ArrayImpl) else np.asarray(x, dtype=aval.dtype)
            for x in xs]
    out = ArrayImpl(np.stack(bufs), aval.weak_type, targets[0], committed=True)
    out._sharding = sharding
    return out


def device_put_sharded(shards: Sequence[Any], devices: Sequence[Any]) -> Any:
    """Stack `shards` (pytrees of equal structure, shapes and dtypes) into Arrays whose slice i
    lives on `devices[i]`.

    >>> import numpy as np, numjax
    >>> x = numjax.device_put_sharded([np.arange(2.)], numjax.devices()[:1])
    >>> x
    Array([[0., 1.]], dtype=float32)
    >>> x.addressable_shards[0].index
    (0, slice(None, None, None))
    """
    if not isinstance(shards, Sequence):
        raise TypeError("device_put_sharded `shards` input must be a sequence; got "
                        f"{type(shards)}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {len(shards)} must equal len(devices) = "
                         f"{len(devices)}.")
    targets = list(devices)
    return tree_map(lambda *xs: _put_stacked(xs, targets), *shards)


def device_put_replicated(x: Any, devices: Sequence[Any]) -> Any:
    """Copy `x` (a pytree) to each of `devices`, stacked on a new axis 0.

    >>> import numjax
    >>> numjax.device_put_replicated(1.0, numjax.devices()[:1])
    Array([1.], dtype=float32, weak_type=True)
    """
    if not isinstance(devices, Sequence) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty "
                         "sequence.")
    targets = list(devices)

    def replicate(leaf: Any) -> ArrayImpl:
        first = _put(leaf, targets[0])  # the transfer JAX checks: x to the first device
        out = ArrayImpl(np.stack([first._buf] * len(targets)), first.weak_type, targets[0],
                        committed=True)
        out._sharding = PmapSharding.stacked(targets, first.ndim)
        return out

    return tree_map(replicate, x)


def device_get(x: Any) -> Any:
    """Fetch the arrays of a pytree to host NumPy values; non-arrays pass through.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.device_get({"a": jnp.ones(2), "b": 3})
    {'a': array([1., 1.], dtype=float32), 'b': 3}
    """
    def get(leaf: Any) -> Any:
        if isinstance(leaf, ArrayImpl):
            return leaf._value(explicit=True)
        if isinstance(leaf, Tracer):
            return leaf
        to_array = getattr(leaf, "__array__", None)
        return leaf if to_array is None else to_array()

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


def effects_barrier() -> None:
    """Wait until every computation dispatched so far (on every device's stream) has run.

    >>> import numjax
    >>> numjax.effects_barrier()
    """
    stream.synchronize_all()


structural.set_device_put(device_put)

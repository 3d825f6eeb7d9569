"""Placement: on which device a computation runs, given its arguments, and the transfers that
brings (JAX 0.4.30's rules, recorded with 4 CPU devices).

- An argument *committed* to a device (by `device_put(x, device)`, or as the output of a
  computation with committed inputs) pins the computation there; two committed to different
  devices is JAX's `ValueError` ("Received incompatible devices for jitted computation...").
- Uncommitted arguments follow: one on another device is copied, an implicit device-to-device
  transfer (refused by `transfer_guard_device_to_device("disallow")`).
- `jit(f, device=d)` runs on `d` and commits its outputs there; moving an argument from
  another device there is an implicit transfer too.
- Arrays split across devices (`PmapSharding`, `NamedSharding`, ...) pin nothing; the result
  lands on the default device, uncommitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.runtime import devices as devices_mod
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.runtime.sharding import PmapSharding, Sharding, SingleDeviceSharding


def aval_text(shape: tuple[int, ...], dtype: Any) -> str:
    return f"aval=ShapedArray({dtype.name}[{','.join(str(d) for d in shape)}])"


def guard_device_to_device(shape: tuple[int, ...], dtype: Any, dst: Any, *, explicit: bool,
                           src: Any = None) -> None:
    """Check a device-to-device copy against the transfer guard, with JAX's message: the
    source sharding is named for copies made by a computation (`src`), not by `device_put`;
    `dst` is a Device or a Sharding."""
    if not transfer_guard._in_use:
        return

    def describe() -> str:
        text = aval_text(shape, dtype)
        if src is not None:
            text += f", sharding={src!r}"
        dst_text = repr(dst) if isinstance(dst, Sharding) else repr(SingleDeviceSharding(dst))
        return f"{text}, dst_sharding={dst_text}"

    transfer_guard._apply("device-to-device", explicit, describe)


def committed_device(x: Any) -> Any:
    """The device `x` is committed to, or None (uncommitted, split across devices, or not an
    Array)."""
    if type(x) is ArrayImpl and x._committed and getattr(x, "_sharding", None) is None:
        return x._device
    return None


def split_across_devices(x: Any) -> bool:
    """Whether `x` is an Array split across several devices by a sharding other than pmap's
    (whose outputs pin nothing: an operation on them runs on the default device)."""
    if type(x) is not ArrayImpl:
        return False
    sharding = getattr(x, "_sharding", None)
    return sharding is not None and not isinstance(sharding, PmapSharding) \
        and len(sharding._device_assignment) > 1


def computation_device(args: Sequence[Any], names: Callable[[], Sequence[str]],
                       fun_name: str) -> Any:
    """The device committed arguments pin a computation to (None: none is committed).

    Raises JAX's error for arguments committed to different devices, naming (`names()`, the
    flat arguments' names) the first committed argument and the first that disagrees."""
    first = None
    first_index = -1
    for i, x in enumerate(args):
        device = committed_device(x)
        if device is None:
            continue
        if first is None:
            first, first_index = device, i
        elif device is not first:
            raise ValueError(
                "Received incompatible devices for jitted computation. Got "
                f"{_describe(args, names(), first_index, fun_name)} and "
                f"{_describe(args, names(), i, fun_name)}")
    return first


def _describe(args: Sequence[Any], names: Sequence[str], i: int, fun_name: str) -> str:
    x = args[i]
    name = names[i] if i < len(names) else f"args[{i}]"
    ids = [d.id for d in x.sharding._device_assignment]
    return (f"argument {name} of {fun_name} with shape {x.aval.str_short()} and device ids "
            f"{ids} on platform {x._device_or_default().platform.upper()}")


def move_arguments(args: Sequence[Any], target: Any, *, explicit: bool) -> None:
    """Guard the copies that bring Array arguments not on `target` there."""
    if not transfer_guard._in_use:
        return
    for x in args:
        if type(x) is not ArrayImpl or getattr(x, "_sharding", None) is not None:
            continue
        device = x._device_or_default()
        if device is not target:
            guard_device_to_device(x.shape, x.dtype, target, explicit=explicit,
                                   src=x.sharding)


def place(outputs: Sequence[Any], device: Any) -> None:
    """Commit freshly made output Arrays to `device`."""
    for out in outputs:
        out._device = device
        out._committed = True
        out._aval = None  # committed: keep it off the dispatch hot paths (see ArrayImpl)


def default_device() -> Any:
    return devices_mod.default_device()

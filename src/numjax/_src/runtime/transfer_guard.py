"""Transfer guards: log or refuse data crossing the host/device boundary.

Three directions (host-to-device, device-to-device, device-to-host), each with a level:
`allow`, `log`, `disallow` (these two act on implicit transfers only), `log_explicit`,
`disallow_explicit` (these act on explicit ones too). Explicit transfers are `device_put` and
`device_get`; everything else is implicit: host values entering eager operations or `jit`,
`np.asarray(x)`, `print(x)`, `x.item()`, `float(x)`, pickling, ...

A direction's level is, first found: this thread's level for the direction, this thread's
`transfer_guard` level, the global level for the direction, the global `jax_transfer_guard`
level, else `allow`. `transfer_guard(level)` sets all three directions in this thread, so an
inner `transfer_guard("allow")` overrides an outer `transfer_guard_host_to_device("disallow")`.

Fetching from a CPU device is always allowed, as in JAX, unless the numjax option
`jax_transfer_guard_cpu_exempt` is False: then code meant for an accelerator can be checked on
a laptop.

Cost: every check first reads `_in_use`, which stays False until some guard level is set, so
programs that never use guards pay one global read on their slow paths and nothing on the hot
paths (Array operands and Array arguments of jit never cross the boundary).
"""

from __future__ import annotations

import contextlib
import dis
import functools
import logging
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from numjax._src import config, traceback_util
from numjax._src.core import trace as trace_mod
from numjax._src.core.errors import XlaRuntimeError

logger = logging.getLogger(__name__)

ALLOW, LOG, DISALLOW = 0, 1, 2

# (implicit action, explicit action) per level.
_ACTIONS = {
    None: (ALLOW, ALLOW),
    "allow": (ALLOW, ALLOW),
    "log": (LOG, ALLOW),
    "disallow": (DISALLOW, ALLOW),
    "log_explicit": (LOG, LOG),
    "disallow_explicit": (DISALLOW, DISALLOW),
}

_DIRECTIONS = {
    "host-to-device": config.transfer_guard_host_to_device,
    "device-to-device": config.transfer_guard_device_to_device,
    "device-to-host": config.transfer_guard_device_to_host,
}

# True once any guard level has been set (globally, by env var or in a context): until then
# every check returns at once.
_in_use = False


def _note_level(value: Any) -> None:
    global _in_use
    if value is not None:
        _in_use = True


for _state in (config.transfer_guard, *_DIRECTIONS.values()):
    _state._on_use = _note_level
    _note_level(_state.value)


def _level(direction: str) -> Any:
    """The level in force for `direction` in this thread (see the module docstring)."""
    state = _DIRECTIONS[direction]
    local = config._tls.__dict__
    level = local.get(state.name, config._unset)
    if level is not config._unset and level is not None:
        return level
    level = local.get(config.transfer_guard.name, config._unset)
    if level is not config._unset and level is not None:
        return level
    if state._global is not None:
        return state._global
    return config.transfer_guard._global


def _apply(direction: str, explicit: bool, describe: Any) -> None:
    """Log or refuse one transfer; `describe()` formats it only when a message is needed."""
    action = _ACTIONS[_level(direction)][explicit]
    if action == ALLOW:
        return
    if action == LOG:
        logger.warning("%s transfer: %s", direction, describe())
        return
    raise XlaRuntimeError(f"INVALID_ARGUMENT: Disallowed {direction} transfer: {describe()}")


# ---- host to device ---------------------------------------------------------------------------

_REPLICATED = "GSPMDSharding({replicated})"


def _host_aval_text(value: Any, dtype: Any) -> str:
    shape = np.shape(value)
    dims = ",".join(str(d) for d in shape)
    return f"aval=ShapedArray({np.dtype(dtype).name}[{dims}])"


def host_to_device(value: Any, dtype: Any, *, device: Any = None, explicit: bool = False
                   ) -> None:
    """Guard `value` (a host value of `dtype`) being placed on a device."""
    if not _in_use:
        return

    def describe() -> str:
        if device is None:
            sharding = _REPLICATED
        elif hasattr(device, "devices_indices_map"):  # a Sharding
            sharding = repr(device)
        else:
            sharding = f"SingleDeviceSharding(device={device!r})"
        return f"{_host_aval_text(value, dtype)}, dst_sharding={sharding}"

    _apply("host-to-device", explicit, describe)


# Code of the functions that place a library constant on the device when user code calls them
# (JAX runs these eagerly, op by op), with the numjax helpers they call on the way. Called from
# inside another numjax function (`triu`'s zeros, `median`'s fill, `roll`'s slices), the
# constant is part of a computation JAX compiles whole: no transfer.
_CONSTANT_CREATORS: set[Any] = set()


# The API-boundary wrapper between user code and `grad`'s function passes the call through.
_CONSTANT_CREATORS.add(traceback_util.WRAPPER_CODE)


def places_constants(fn: Any) -> Any:
    """Mark `fn` as one JAX runs op by op: the library constants it (or a marked helper it
    calls) places on the device are transfers when user code called it."""
    _CONSTANT_CREATORS.add(fn.__code__)
    return fn


def library_constant(value: Any, dtype: Any) -> None:
    """Guard a host value the library itself places on the device in an eager call where JAX
    does too (the fill value of `jnp.zeros`, the values of `jnp.arange(1, 5)`, the unit
    cotangent of `grad`), so that a disallowing guard refuses the same calls as JAX's."""
    if (_in_use and trace_mod.running_eagerly()
            and _called_by_user(sys._getframe(1))):
        host_to_device(value, dtype)


def _called_by_user(frame: Any) -> bool:
    """Whether the numjax frames from `frame` out to user code are all constant creators."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "numjax" and not module.startswith("numjax."):
            return True
        if frame.f_code not in _CONSTANT_CREATORS:
            return False
        frame = frame.f_back
    return True


def host_operand(value: Any, dtype: Any) -> None:
    """Guard a host value reaching an eager operation.

    JAX runs its numpy functions as compiled programs, where the library's own constants are
    literals, not transfers; numjax runs them op by op. So a host operand counts as a transfer
    only when the user passed it: it is an argument of the outermost numjax function on the
    stack (the one user code called), directly or inside a list, tuple or dict argument.
    While a program is being recorded (jit, make_jaxpr) a host value is a constant of that
    program, not a transfer; eager vmap and jvp run op by op, so there it is one, as in JAX.
    """
    if (not _in_use or not trace_mod.running_eagerly()
            or _ACTIONS[_level("host-to-device")][False] == ALLOW):
        return
    if _passed_by_user(value):
        host_to_device(value, dtype)


# Modules whose functions JAX compiles whole (`jnp.triu`, `jnp.isclose`): their defaults and
# the values they compute are constants of the compiled function, not transfers. Elsewhere
# (`random.uniform`, `lax.cond`) defaults are passed on as arguments and so transferred.
_COMPILED_WHOLE = "numjax._src.numpy."
# Parameters such functions take as static (compile-time) values, never as device data. (Small
# Python ints are shared objects: `axis=0` is the very object of a library literal 0.)
_STATIC_PARAMETERS = frozenset({
    "axis", "axes", "axis1", "axis2", "keepdims", "dtype", "out", "k", "offset", "side",
    "method", "mode", "size", "length", "num", "endpoint", "shape", "order", "ord",
    "overwrite_input", "rowvar", "bias", "ddof", "decimals", "retstep", "return_index",
    "return_inverse", "return_counts", "equal_nan", "assume_unique", "kind"})


def _passed_by_user(value: Any) -> bool:
    frame = sys._getframe(1)
    entry = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "numjax" and not module.startswith("numjax."):
            break
        entry = frame
        frame = frame.f_back  # type: ignore[assignment]
    if entry is None:
        return True
    code = entry.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    local = entry.f_locals
    compiled_whole = entry.f_globals.get("__name__", "").startswith(_COMPILED_WHOLE)
    defaults = _defaults(entry) if compiled_whole else {}
    first_stores = _first_stores(code) if compiled_whole else {}
    for name in code.co_varnames[:count]:
        if compiled_whole and name in _STATIC_PARAMETERS:
            continue
        arg = local.get(name)
        if name in defaults and arg is defaults[name]:
            continue  # a default the user did not pass: a constant of the function
        if first_stores.get(name, sys.maxsize) < entry.f_lasti:
            # Assigned to before this point (`if ddof is None: ddof = 1`): the value may be
            # the function's own, not the caller's.
            continue
        if arg is value:
            return True
        items: Any = arg.values() if isinstance(arg, dict) else arg
        if isinstance(items, list | tuple | type({}.values())):
            if any(item is value for item in items):
                return True
    return False


@functools.lru_cache(maxsize=512)
def _first_stores(code: Any) -> dict[str, int]:
    """The bytecode offset of the first assignment to each local variable of `code`."""
    out: dict[str, int] = {}
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_FAST", "STORE_DEREF") and ins.argval not in out:
            out[ins.argval] = ins.offset
    return out


def _defaults(frame: Any) -> dict[str, Any]:
    """The default argument values of the module-level function running in `frame`."""
    code = frame.f_code
    fn = frame.f_globals.get(code.co_name)
    while fn is not None and getattr(fn, "__code__", None) is not code:
        fn = getattr(fn, "__wrapped__", None)
    if fn is None:
        return {}
    names = code.co_varnames[:code.co_argcount]
    positional = fn.__defaults__ or ()
    out = dict(zip(names[len(names) - len(positional):], positional, strict=True))
    out.update(fn.__kwdefaults__ or {})
    return out


# ---- device to host (device-to-device copies: runtime/placement.py) ---------------------------

_XLA_NAMES = {
    "bool": "PRED", "int8": "S8", "int16": "S16", "int32": "S32", "int64": "S64",
    "uint8": "U8", "uint16": "U16", "uint32": "U32", "uint64": "U64", "float16": "F16",
    "bfloat16": "BF16", "float32": "F32", "float64": "F64", "complex64": "C64",
    "complex128": "C128", "float8_e4m3fn": "F8E4M3FN", "float8_e5m2": "F8E5M2",
}


def _buffer_text(shape: tuple[int, ...], dtype: Any, device: Any) -> str:
    dims = ",".join(str(d) for d in shape)
    name = np.dtype(dtype).name
    return f"shape=({dims}), dtype={_XLA_NAMES.get(name, name.upper())}, device={device}"


def device_to_host(shape: tuple[int, ...], dtype: Any, device: Any, *, explicit: bool) -> None:
    """Guard fetching a (shape, dtype) buffer from `device`; CPU devices are exempt unless
    `jax_transfer_guard_cpu_exempt` is False."""
    if not _in_use:
        return
    if getattr(device, "platform", "cpu") == "cpu" and config.transfer_guard_cpu_exempt.value:
        return
    _apply("device-to-host", explicit, lambda: _buffer_text(shape, dtype, device))


# ---- context managers ---------------------------------------------------------------------


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """Set the transfer guard level of every direction in this thread.

    >>> import numjax, numjax.numpy as jnp, numpy as np
    >>> with numjax.transfer_guard("disallow"):
    ...     y = numjax.device_put(np.ones(2))     # explicit transfers stay allowed
    """
    with contextlib.ExitStack() as stack:
        stack.enter_context(transfer_guard_host_to_device(new_val))
        stack.enter_context(transfer_guard_device_to_device(new_val))
        stack.enter_context(transfer_guard_device_to_host(new_val))
        stack.enter_context(config.transfer_guard(new_val))
        yield


def transfer_guard_host_to_device(new_val: str) -> Any:
    """Set the host-to-device transfer guard level in this thread (a context manager)."""
    return config.transfer_guard_host_to_device(new_val)


def transfer_guard_device_to_device(new_val: str) -> Any:
    """Set the device-to-device transfer guard level in this thread (a context manager)."""
    return config.transfer_guard_device_to_device(new_val)


def transfer_guard_device_to_host(new_val: str) -> Any:
    """Set the device-to-host transfer guard level in this thread (a context manager)."""
    return config.transfer_guard_device_to_host(new_val)

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

Which host values are transfers is decided by structure (the entry points below), never by
reading the call stack.

Cost: every check first reads `_in_use`, which stays False until some guard level is set, so
programs that never use guards pay one global read on their slow paths and nothing on the hot
paths (Array operands and Array arguments of jit never cross the boundary); an entry point
costs one extra call, and the leaves (`jnp.add`, operators, lax functions) none.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from numjax._src import config
from numjax._src.core import trace as trace_mod
from numjax._src.core.errors import XlaRuntimeError

logger = logging.getLogger(__name__)

_F = TypeVar("_F", bound=Callable[..., Any])

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


# ---- who passed a host value: entry points ---------------------------------------------------
#
# JAX compiles most jnp functions whole: the host values a user passes them cross to the device,
# their own constants do not. numjax runs them op by op, so a conversion site alone cannot tell
# the user's value from the library's. The jnp functions are *entry points*: while one that user
# code called runs, this thread holds the values the user passed it (`_Entry`), and a host value
# reaching an eager operation is a transfer only if it is one of them. With no entry point
# running (user code calling a lax function, an operator, jit, vmap, ...) every host value
# reaching an eager operation is the user's, as in JAX, which runs those op by op.


class _Entry:
    """The entry point user code called, while it runs: the ids of the values the user passed
    (each argument but the static ones, and each item of a list, tuple or dict argument), and
    whether every entry point entered since runs op by op in JAX (`places_constants`)."""

    __slots__ = ("op_by_op", "passed")

    def __init__(self, passed: frozenset[int], op_by_op: bool) -> None:
        self.passed = passed
        self.op_by_op = op_by_op


class _Current(threading.local):
    entry: _Entry | None = None


_current = _Current()

# Parameters jnp functions take as static (compile-time) values, never as device data. (Small
# Python ints are shared objects: `axis=0` is the very object of a library literal 0.)
_STATIC_PARAMETERS = frozenset({
    "axis", "axes", "axis1", "axis2", "keepdims", "dtype", "out", "k", "offset", "side",
    "method", "mode", "size", "length", "num", "endpoint", "shape", "order", "ord",
    "overwrite_input", "rowvar", "bias", "ddof", "decimals", "retstep", "return_index",
    "return_inverse", "return_counts", "equal_nan", "assume_unique", "kind", "kth"})


@functools.cache
def _signature(fn: Callable[..., Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The names `fn`'s positional arguments bind to, and its parameters' defaults."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return (), {}
    return (tuple(p.name for p in parameters
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)),
            {p.name: p.default for p in parameters if p.default is not p.empty})


def _passed(fn: Callable[..., Any], static: frozenset[str], defaults: bool,
            args: tuple[Any, ...], kwargs: dict[str, Any]) -> frozenset[int]:
    names, default_values = _signature(fn)
    ids: set[int] = set()
    if defaults:
        ids.update(id(v) for name, v in default_values.items() if name not in static)
    for i, arg in enumerate(args):
        if i < len(names) and names[i] in static:
            continue
        ids.add(id(arg))
        ids.update(map(id, _items(arg)))
    for name, arg in kwargs.items():
        if name not in static:
            ids.add(id(arg))
            ids.update(map(id, _items(arg)))
    return frozenset(ids)


def _items(arg: Any) -> Any:
    if type(arg) in (list, tuple):
        return arg
    if type(arg) is dict:
        return arg.values()
    return ()


def _enter(fn: Callable[..., Any], op_by_op: bool, static: frozenset[str], defaults: bool,
           args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    entry = _current.entry
    if entry is None:
        inner = _Entry(_passed(fn, static, defaults, args, kwargs), op_by_op)
    elif entry.op_by_op and not op_by_op:
        inner = _Entry(entry.passed, False)  # JAX compiles this one: its constants stay put
    else:
        return fn(*args, **kwargs)
    _current.entry = inner
    try:
        return fn(*args, **kwargs)
    finally:
        _current.entry = entry


def _entry_point(fn: Callable[..., Any], op_by_op: bool, static: Sequence[str] = (),
                 defaults: bool = False) -> Callable[..., Any]:
    guard = sys.modules[__name__]
    enter = _enter
    static_names = _STATIC_PARAMETERS.union(static)

    def entry_point(*args: Any, **kwargs: Any) -> Any:
        if not guard._in_use:
            return fn(*args, **kwargs)
        return enter(fn, op_by_op, static_names, defaults, args, kwargs)

    # The wrapper runs with `fn`'s module globals (it reads only its closure), so that doctest
    # still finds `fn`'s examples in its module.
    wrapper = types.FunctionType(entry_point.__code__, fn.__globals__, fn.__name__, None,
                                 entry_point.__closure__)
    functools.update_wrapper(wrapper, fn)
    wrapper._transfer_entry = op_by_op  # type: ignore[attr-defined]
    return wrapper


def places_constants(fn: _F) -> _F:
    """Mark `fn` as an entry point JAX runs op by op: the library constants it places on the
    device (`library_constant`) are transfers when user code called it."""
    return _entry_point(fn, True)  # type: ignore[return-value]


def entry_point(fn: _F | None = None, *, static: Sequence[str] = ()) -> Any:
    """Mark `fn` as an entry point JAX compiles whole: the host values a user passes it are
    transfers, its own constants and defaults are not. `static` names parameters besides the
    usual static ones (`axis`, `dtype`, ...) that JAX reads as compile-time values."""
    if fn is None:
        return functools.partial(entry_point, static=static)
    return _entry_point(fn, False, static)


def entry_points(namespace: dict[str, Any], op_by_op: Sequence[str] = (),
                 defaults: bool = False) -> None:
    """Make each public function the module `namespace` defines with `def` an entry point JAX
    compiles whole (unless already marked, or named in `op_by_op`: those JAX runs op by op, so
    their constants are transfers too), under its name and its aliases' (`around = round`).
    Functions a factory makes are leaves (`jnp.add`: every host operand is the caller's) unless
    the factory marks them. With `defaults`, the functions hand their defaults to a compiled
    function as arguments (`random.uniform`'s `minval`), so those are transfers too."""
    module = namespace["__name__"]
    wrapped: dict[int, Callable[..., Any]] = {}
    for name, value in list(namespace.items()):
        defined = inspect.unwrap(value) if type(value) is types.FunctionType else None
        if (type(defined) is types.FunctionType and not name.startswith("_")
                and name not in op_by_op
                and defined.__module__ == module and defined.__code__.co_name == name
                and not hasattr(value, "_transfer_entry")):
            namespace[name] = wrapped[id(value)] = _entry_point(value, False, (), defaults)
    for name, value in list(namespace.items()):
        if id(value) in wrapped:
            namespace[name] = wrapped[id(value)]


def user_function(fn: _F) -> _F:
    """`fn`, a function of the user's that an entry point calls back: host values reaching
    eager operations inside it are the user's own, as when user code runs them directly."""
    @functools.wraps(fn)
    def run_as_user(*args: Any, **kwargs: Any) -> Any:
        if not _in_use or _current.entry is None:
            return fn(*args, **kwargs)
        entry, _current.entry = _current.entry, None
        try:
            return fn(*args, **kwargs)
        finally:
            _current.entry = entry
    return run_as_user  # type: ignore[return-value]


def library_constant(value: Any, dtype: Any) -> None:
    """Guard a host value the library itself places on the device in an eager call where JAX
    does too (the fill value of `jnp.zeros`, the values of `jnp.arange(1, 5)`, the start index
    of an eager slice): a transfer unless an entry point JAX compiles whole is running."""
    if _in_use and trace_mod.running_eagerly():
        entry = _current.entry
        if entry is None or entry.op_by_op:
            host_to_device(value, dtype)


def host_operand(value: Any, dtype: Any) -> None:
    """Guard a host value reaching an eager operation: a transfer when the user passed it (see
    the entry points above). While a program is being recorded (jit, make_jaxpr) a host value
    is a constant of that program, not a transfer; eager vmap and jvp run op by op, so there it
    is one, as in JAX.
    """
    if (not _in_use or not trace_mod.running_eagerly()
            or _ACTIONS[_level("host-to-device")][False] == ALLOW):
        return
    entry = _current.entry
    if entry is None or id(value) in entry.passed:
        host_to_device(value, dtype)


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

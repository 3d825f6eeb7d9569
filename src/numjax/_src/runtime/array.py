"""`numjax.Array`: the public abstract array type, and `ArrayImpl`, the concrete one.

An `ArrayImpl` owns its buffer: a private NumPy value (an ndarray or a NumPy scalar) that never
aliases a user's input and is never written after the array is made. That buffer is the
"device memory"; reading it from Python (`np.asarray`, `print`, `item`) is a device-to-host
fetch. Operators and array methods are installed by the numpy layer, shared with tracers.
"""

from __future__ import annotations

import abc
import enum
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.core import avals as avals_mod
from numjax._src.core import trace as trace_module
from numjax._src.core.avals import ShapedArray, aval_handlers
from numjax._src.core.trace import Tracer
from numjax._src.runtime import devices as devices_mod
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.sharding import (
    Assembled,
    Index,
    Shard,
    Sharding,
    SingleDeviceSharding,
    is_addressable,
)
from numjax._src.runtime.stream import Deferred, resolve

avals_mod.sharding_types = (Sharding,)  # what ShapeDtypeStruct(sharding=...) accepts


class DLDeviceType(enum.IntEnum):
    """DLPack device types (JAX's `__dlpack_device__` returns one)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLROCM = 10


class Array(abc.ABC):  # noqa: B024 (an abstract type with no abstract methods, as in JAX)
    """The type of numjax arrays; `isinstance(x, numjax.Array)` holds for tracers too.

    >>> import numjax, numjax.numpy as jnp
    >>> isinstance(jnp.ones(3), numjax.Array)
    True
    """

    __slots__ = ()


Array.register(Tracer)


class ArrayImpl(Array):
    # `_fetched` is set once the value has been read on the host side; JAX keeps that host copy,
    # so later reads are no transfers. It is left unset at creation (the hot paths skip it).
    # `_device` is None for an array on the default device (what operations make; `make_array`
    # skips the lookup); `_sharding` is set only for arrays split across devices (a PmapSharding,
    # NamedSharding or PositionalSharding), whose `_shards` hold one buffer per device of the
    # sharding (in `_device_assignment` order; replicas share one) and whose `_buf` is the
    # global value, often an `Assembled` made from the shards on first use (see
    # `sharded_array`).
    #
    # `_aval` is the key of the dispatch hot paths (eager ops and jit look it up directly). It is
    # None for committed arrays: a None never matches a cache key, so committed arrays take the
    # slow paths, which handle placement (committed devices, incompatible-device errors), and
    # the hot paths pay nothing for placement.
    __slots__ = ("_buf", "weak_type", "_device", "_committed", "_aval", "_fetched",
                 "_sharding", "_shards", "__weakref__")
    # `np_value * x` defers to the Array's reflected operator, as with JAX's arrays: the result
    # is an Array of numjax's promoted dtype, not a NumPy array (float64 for `np.int32(2) + x`).
    __array_priority__ = 100
    _sharding: Sharding  # unset unless split across devices: read with getattr(..., None)
    _shards: tuple[Any, ...] | None  # likewise

    def __init__(self, buf: Any, weak_type: bool = False, device: Any = None,
                 committed: bool = False) -> None:
        self._buf = buf
        self.weak_type = weak_type
        self._device = device if device is not None or not _default_device_used \
            else devices_mod.default_device()
        self._committed = committed
        # Set at creation (avals are interned, so this is a dict lookup).
        self._aval: ShapedArray | None = (None if committed
                                          else ShapedArray(buf.shape, buf.dtype, weak_type))

    # -- metadata ----------------------------------------------------------------------
    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            buf = self._buf
            aval = ShapedArray(buf.shape, buf.dtype, self.weak_type)
        return aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self._buf.shape  # type: ignore[no-any-return]

    @property
    def dtype(self) -> np.dtype:
        return self._buf.dtype  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return self._buf.ndim  # type: ignore[no-any-return]

    @property
    def size(self) -> int:
        return self._buf.size  # type: ignore[no-any-return]

    @property
    def itemsize(self) -> int:
        return self._buf.dtype.itemsize  # type: ignore[no-any-return]

    @property
    def nbytes(self) -> int:
        return self._buf.nbytes  # type: ignore[no-any-return]

    # JAX 0.4.30's Array has neither `device()` (removed in 0.4.27) nor `committed` (only the
    # private `_committed`): placement is read through `devices()` and `sharding`.
    def _device_or_default(self) -> Any:
        device = self._device
        return device if device is not None else devices_mod.backend_default_device()

    def devices(self) -> set[Any]:
        return self.sharding.device_set

    @property
    def sharding(self) -> Sharding:
        sharding = getattr(self, "_sharding", None)
        if sharding is None:
            return SingleDeviceSharding(self._device_or_default())
        return sharding  # type: ignore[no-any-return]

    @property
    def is_fully_replicated(self) -> bool:
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        sharding = getattr(self, "_sharding", None)
        return sharding is None or sharding.is_fully_addressable  # type: ignore[no-any-return]

    @property
    def addressable_shards(self) -> list[Shard]:
        """Each device's part: its device, index into this array, and data (an Array
        committed to that device)."""
        if type(self._buf) is _DeletedBuffer:
            raise self._buf._error()
        sharding = getattr(self, "_sharding", None)
        if sharding is None:
            device = self._device_or_default()
            data = ArrayImpl(self._buf, self.weak_type, device, committed=True)
            return [Shard(device, (slice(None),) * self.ndim, 0, data)]
        indices = sharding.devices_indices_map(self.shape)
        devices = sharding._device_assignment
        return [Shard(d, indices[d], replica, ArrayImpl(buf, self.weak_type, d, True))
                for d, buf, replica in zip(devices, self._shard_buffers(),
                                           replica_ids(indices, devices), strict=True)
                if is_addressable(d)]

    @property
    def _arrays(self) -> list[ArrayImpl]:
        """One single-device Array per device of the sharding, in its device order: JAX's
        private accessor, which libraries and JAX's own tests read."""
        return [shard.data for shard in self.addressable_shards]

    def _shard_at(self, index: Any) -> ArrayImpl | None:
        """`x[i]` of an Array split along axis 0 across devices: device i's shard, left there
        (uncommitted, as JAX gives it). None for any other index."""
        sharding = self._sharding
        if getattr(sharding, "stacked_axis", None) != 0:
            return None
        if type(index) is ArrayImpl and not index.shape and index.dtype.kind in "iu":
            index = int(index._host_buf())
        if type(index) is not int and not isinstance(index, np.integer):
            return None
        # Only the shard's own index: JAX gathers `x[-1]` (onto the default device) rather
        # than finding the shard it names.
        if not 0 <= index < self.shape[0]:
            return None
        i = int(index)
        return ArrayImpl(self._shard_buffers()[i], self.weak_type,
                         sharding._device_assignment[i])

    def _shard_buffers(self) -> tuple[Any, ...]:
        """One buffer per device of the sharding (the whole buffer when on one device)."""
        shards = getattr(self, "_shards", None)
        if shards is not None:
            return shards  # type: ignore[no-any-return]
        sharding = getattr(self, "_sharding", None)
        if sharding is None:
            return (self._buf,)
        buf = self._buf
        if type(buf) is _DeletedBuffer:
            raise buf._error()
        if isinstance(buf, Deferred):
            buf = buf.wait()
        shards = self._shards = split_buffer(buf, sharding)
        return shards

    @property
    def global_shards(self) -> list[Shard]:
        return self.addressable_shards

    def addressable_data(self, index: int) -> ArrayImpl:
        """The data of addressable shard `index` (the whole array when on one device)."""
        shards = self.addressable_shards
        if len(shards) == 1:
            # As JAX 0.4.30's single-device fast path, which ignores the index.
            return shards[0].data  # type: ignore[no-any-return]
        return shards[index].data  # type: ignore[no-any-return]

    def platform(self) -> str:
        return self._device_or_default().platform  # type: ignore[no-any-return]

    def is_ready(self) -> bool:
        buf = self._buf
        return not isinstance(buf, Deferred) or buf.ready()

    def unsafe_buffer_pointer(self) -> int:
        """The address of the buffer's first element (valid while the Array lives)."""
        buf = self._buf
        if isinstance(buf, Deferred):
            buf = buf.wait()
        if type(buf) is not np.ndarray:  # a NumPy scalar: give the Array an ndarray buffer
            buf = self._buf = np.asarray(buf)
        return int(buf.__array_interface__["data"][0])

    @property
    def device_buffer(self) -> Any:
        raise AttributeError("arr.device_buffer has been deprecated. Use arr.addressable_data(0)")

    @property
    def device_buffers(self) -> Any:
        raise AttributeError("arr.device_buffers has been deprecated. Use "
                             "[x.data for x in arr.addressable_shards]")

    def on_device_size_in_bytes(self) -> int:
        return self.nbytes

    def block_until_ready(self) -> ArrayImpl:
        """Wait until the value is computed; re-raises the computation's error, if any."""
        buf = self._buf
        if isinstance(buf, Deferred):
            buf.finish()
        return self

    def is_deleted(self) -> bool:
        return type(self._buf) is _DeletedBuffer

    def delete(self) -> None:
        """Release the buffer; any later use raises `RuntimeError` (as JAX's arrays do)."""
        if type(self._buf) is not _DeletedBuffer:
            self._buf = _DeletedBuffer(self.aval)
            self._shards = None

    def _consume(self) -> None:
        """Release the buffer to a computation it was donated to."""
        if type(self._buf) is not _DeletedBuffer:
            self._buf = _DeletedBuffer(self.aval, donated=True)
            self._shards = None

    def copy_to_host_async(self) -> None:
        """Start fetching the value to the host (a device-to-host transfer)."""
        self._host_buf()

    # -- host access (device-to-host fetches) --------------------------------------------
    def _host_buf(self, explicit: bool = False) -> Any:
        """The buffer, read from the host: a device-to-host transfer the first time, checked
        by the transfer guard."""
        if transfer_guard._in_use and not getattr(self, "_fetched", False):
            transfer_guard.device_to_host(self.shape, self.dtype, self._device_or_default(),
                                          explicit=explicit)
        self._fetched = True
        buf = self._buf
        return buf.wait() if isinstance(buf, Deferred) else buf

    def _value(self, explicit: bool = False) -> np.ndarray:
        value = np.asarray(self._host_buf(explicit))
        if value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        return value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        value = self._value()
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return value.astype(dtype)
        if copy:
            return value.copy()
        return value

    def item(self, *args: Any) -> Any:
        return self._host_buf().item(*args)

    def tolist(self) -> Any:
        return self._host_buf().tolist()

    def tobytes(self, order: str = "C") -> bytes:
        return np.asarray(self._host_buf()).tobytes(order=order)  # type: ignore[arg-type]

    # JAX's checks come first: its texts, whatever NumPy's version would say.
    def __bool__(self) -> bool:
        trace_module.check_bool_conversion(self)
        return bool(self._host_buf())

    def __int__(self) -> int:
        trace_module.check_scalar_conversion(self)
        return int(self._host_buf())

    def __float__(self) -> float:
        trace_module.check_scalar_conversion(self)
        return float(self._host_buf())

    def __complex__(self) -> complex:
        trace_module.check_scalar_conversion(self)
        return complex(self._host_buf())

    def __index__(self) -> int:
        trace_module.check_integer_conversion(self)
        return int(self._host_buf())

    def __len__(self) -> int:
        if not self._buf.shape:
            raise TypeError("len() of unsized object")
        return self._buf.shape[0]  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Any]:
        if not self._buf.shape:
            raise TypeError("iteration over a 0-d array")
        weak = self.weak_type
        sharding = getattr(self, "_sharding", None)
        if sharding is not None and getattr(sharding, "stacked_axis", None) == 0:
            # Each device's shard, where it is (uncommitted), as JAX iterates a pmap's output.
            return (ArrayImpl(buf, weak, d) for buf, d in
                    zip(self._shard_buffers(), sharding._device_assignment, strict=True))
        if self._committed:
            device = self._device_or_default()
            return (ArrayImpl(row, weak, device, True) for row in np.asarray(self._buf))
        return (ArrayImpl(row, weak) for row in np.asarray(self._buf))

    # Unhashable, as in JAX: `isinstance(x, collections.abc.Hashable)` is False, which
    # libraries read to tell static values from arrays; `hash(x)` is Python's TypeError.
    __hash__ = None  # type: ignore[assignment]

    def __setitem__(self, index: Any, value: Any) -> None:
        # JAX names the type as Python prints it: its C++ jaxlib.xla_extension.ArrayImpl.
        raise TypeError(
            "'<class 'jaxlib.xla_extension.ArrayImpl'>' object does not support item "
            "assignment. JAX arrays are immutable. "
            "Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another .at[] method: "
            "https://jax.readthedocs.io/en/latest/_autosummary/jax.numpy.ndarray.at.html"
        )

    def __reduce__(self) -> Any:
        return (_reconstruct, (np.asarray(self._host_buf()), self.weak_type))

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        if max_version is None or max_version[0] < 1:
            # Legacy DLPack (a consumer that gives no version) cannot mark a tensor read-only:
            # export the buffer itself, zero-copy as JAX does, or a copy of a read-only one.
            value = np.asarray(self._host_buf())
            if not value.flags.writeable:
                value = value.copy()
            return value.__dlpack__(stream=stream)
        return self._value().__dlpack__(stream=stream, max_version=max_version,
                                        dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[DLDeviceType, int]:
        return (DLDeviceType.kDLCPU, 0)

    # -- printing ------------------------------------------------------------------------
    def __repr__(self) -> str:
        if not (self.is_fully_addressable or self.is_fully_replicated):
            # Spans other processes' devices: JAX prints the shape, not the value.
            dtype = f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
            return f"Array({self.shape}, {dtype})"
        return array_repr(self._value(), self.weak_type)

    def __str__(self) -> str:
        return str(self._value())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._value()[()], spec)
        return format(self._value(), spec)


def array_repr(value: np.ndarray, weak_type: bool = False) -> str:
    """`Array([...], dtype=...)`: how an Array holding `value` prints."""
    prefix = "Array("
    dtype_name = value.dtype.name
    dtype_str = f"dtype={dtype_name}, weak_type=True)" if weak_type else f"dtype={dtype_name})"
    line_width = np.get_printoptions()["linewidth"]
    if value.size == 0:
        body = f"[], shape={value.shape}"
    else:
        body = np.array2string(value, prefix=prefix, suffix=",", separator=", ",
                               max_line_width=line_width)
    last_line_len = len(body) - body.rfind("\n") + 1
    sep = " "
    if last_line_len + len(dtype_str) + 1 > line_width:
        sep = " " * len(prefix)
    return f"{prefix}{body},{sep}{dtype_str}"


# A tracer carrying a NumPy buffer prints it as the Array it stands for.
trace_module.host_value_repr = array_repr


class _DeletedBuffer:
    """Stands in for the buffer of a deleted Array: metadata stays readable, data access
    (NumPy conversion, item, ...) raises JAX's error."""

    __slots__ = ("shape", "dtype", "ndim", "size", "nbytes", "_aval", "donated")

    def __init__(self, aval: ShapedArray, donated: bool = False) -> None:
        self._aval = aval
        # Consumed by a computation it was donated to, rather than deleted by `delete()`: a
        # jitted call then reports an invalid buffer, as JAX does.
        self.donated = donated
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.ndim = len(aval.shape)
        self.size = math.prod(aval.shape)
        self.nbytes = self.size * aval.dtype.itemsize

    def _error(self) -> RuntimeError:
        return RuntimeError(f"Array has been deleted with shape={self._aval.str_short()}.")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error()

    def __getattr__(self, name: str) -> Any:
        raise self._error()

    def __bool__(self) -> bool:
        raise self._error()

    def __float__(self) -> float:
        raise self._error()

    def __int__(self) -> int:
        raise self._error()


def _index_key(index: Index) -> tuple[Any, ...]:
    """A hashable form of a shard's index (slices are unhashable before Python 3.12)."""
    return tuple((i.start, i.stop, i.step) if isinstance(i, slice) else i for i in index)


def replica_ids(indices: dict[Any, Index], devices: Sequence[Any]) -> list[int]:
    """Each device's replica number: how many devices before it (in `devices` order) hold the
    same part of the array, as JAX numbers replicas."""
    seen: dict[tuple[Any, ...], int] = {}
    out = []
    for d in devices:
        key = _index_key(indices[d])
        out.append(seen.get(key, 0))
        seen[key] = out[-1] + 1
    return out


def split_buffer(buf: Any, sharding: Sharding) -> tuple[Any, ...]:
    """`buf` (a global value) cut into one buffer per device of `sharding`, in
    `_device_assignment` order; devices holding the same part share one buffer object."""
    indices = sharding.devices_indices_map(buf.shape)
    parts: dict[tuple[Any, ...], Any] = {}
    shards = []
    for d in sharding._device_assignment:
        index = indices[d]
        key = _index_key(index)
        part = parts.get(key)
        if part is None:
            part = parts[key] = buf[index]
        shards.append(part)
    return tuple(shards)


_new_object = object.__new__


def make_array(buf: Any, aval: ShapedArray) -> ArrayImpl:
    """An Array owning `buf`, whose aval is already known: the executables' output path, which
    skips `__init__` (about 0.3 us of the eager-op budget)."""
    array = _new_object(ArrayImpl)
    array._buf = buf
    array.weak_type = aval.weak_type
    array._aval = aval
    # An Array lives where the default device was when it was made (None: the backend's
    # first device); the option is read only once someone has set it.
    array._device = devices_mod.default_device() if _default_device_used else None
    array._committed = False
    return array


def copied(x: ArrayImpl) -> ArrayImpl:
    """A copy of `x` on buffers of its own (JAX's copy: a new `unsafe_buffer_pointer`), laid
    out as `x` is: a sharded Array (pmap's too) sharded alike, each block copied where it is;
    one device's Array on the same device, committed as `x` is."""
    if type(x._buf) is _DeletedBuffer:
        raise x._buf._error()
    if getattr(x, "_sharding", None) is not None:
        shards = [None if b is None else np.array(resolve(b), copy=True)
                  for b in x._shard_buffers()]
        return sharded_array(shards, x.aval, x.sharding)
    out = ArrayImpl(np.array(resolve(x._buf), copy=True), x.weak_type, x._device,
                    committed=x._committed)
    out._aval = x._aval
    return out


def sharded_array(shards: Sequence[Any] | None, aval: ShapedArray, sharding: Sharding,
                  global_buf: Any = None, indices: Sequence[Any] | None = None) -> ArrayImpl:
    """An Array split across the devices of `sharding`: `shards[i]` is the buffer on its i-th
    device (`_device_assignment` order; None on another process's device). Its global value
    is `global_buf` when the caller has it (then `shards` may be None: views of it, made when
    first asked for), else assembled from the shards on first use (`indices`: where each
    shard goes, when the caller knows; a RuntimeError when this process's shards do not
    cover it). Committed to its devices, as JAX's sharded Arrays are."""
    devices = sharding._device_assignment
    shards = None if shards is None else tuple(shards)
    if global_buf is None:
        assert shards is not None
        if indices is None:
            where = sharding.devices_indices_map(aval.shape)
            indices = [where[d] for d in devices]
        global_buf = Assembled(aval, shards, indices)
    return _sharded(global_buf, aval.weak_type, devices[0], sharding, shards)


def sharded_array_maker(aval: ShapedArray, sharding: Sharding
                        ) -> Callable[[tuple[Any, ...]], ArrayImpl]:
    """`sharded_array(shards, aval, sharding)` for a tuple of shards given later, call after
    call (a compiled pmap's outputs), with what the aval and sharding decide worked out once."""
    devices = sharding._device_assignment
    where = sharding.devices_indices_map(aval.shape)
    assembled = Assembled.maker(aval, [where[d] for d in devices])
    weak_type, device = aval.weak_type, devices[0]
    return lambda shards: _sharded(assembled(shards), weak_type, device, sharding, shards)


def _sharded(global_buf: Any, weak_type: bool, device: Any, sharding: Sharding,
             shards: tuple[Any, ...] | None) -> ArrayImpl:
    array = _new_object(ArrayImpl)
    array._buf = global_buf
    array.weak_type = weak_type
    array._aval = None  # committed: off the hot paths
    array._device = device
    array._committed = True
    array._sharding = sharding
    array._shards = shards
    return array


_default_device_used = False


def _note_default_device(value: Any) -> None:
    global _default_device_used
    if value is not None:
        _default_device_used = True


config.default_device._on_use = _note_default_device
_note_default_device(config.default_device.value)


def _reconstruct(value: np.ndarray, weak_type: bool) -> ArrayImpl:
    return ArrayImpl(np.array(value), weak_type)


def _array_aval(x: ArrayImpl) -> ShapedArray:
    return x.aval


aval_handlers[ArrayImpl] = _array_aval

"""Shardings: which devices hold which part of an Array, and the Shards users see.

Two kinds live here, as in JAX 0.4.30 on one host: `SingleDeviceSharding` (the whole array on
one device; every array made by an operation) and `PmapSharding` (axis 0 split across devices,
one slice per device; the outputs of `device_put_sharded`/`device_put_replicated` and pmap).
The tiled kinds (`NamedSharding`, `PositionalSharding`) are in `named_sharding.py`. The reprs
are JAX's, recorded from 0.4.30.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.runtime import devices as devices_mod
from numjax._src.runtime.stream import Deferred, resolve

Index = tuple[Any, ...]
# (tiles per array dimension, each device's tile coordinates in `_device_assignment` order)
TileGrid = tuple[tuple[int, ...], list[tuple[int, ...]]]


def is_addressable(device: Any) -> bool:
    """Whether `device` belongs to this process (in a multi-process run, others' do not)."""
    return device.process_index == device.client.process_index()  # type: ignore[no-any-return]


def check_memory_kind(device: Any, memory_kind: str | None) -> None:
    """JAX 0.4.30's CPU devices expose no memory kinds: any kind named is an error."""
    if memory_kind is not None:
        raise ValueError(
            f"Could not find memory addressable by device {device.platform}. Device "
            f"{device.platform} can address the following memory kinds: . Got memory "
            f"kind: {memory_kind}")


class Sharding:
    """Describes how an Array is laid out across devices (the base class, as `jax.sharding`).

    >>> import numjax, numjax.numpy as jnp
    >>> jnp.ones(2).sharding.is_fully_replicated
    True
    """

    __slots__ = ()

    @property
    def device_set(self) -> set[Any]:
        raise NotImplementedError

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        raise NotImplementedError

    @property
    def addressable_devices(self) -> set[Any]:
        return {d for d in self.device_set if is_addressable(d)}

    @property
    def is_fully_addressable(self) -> bool:
        return all(is_addressable(d) for d in self.device_set)

    @property
    def is_fully_replicated(self) -> bool:
        raise NotImplementedError

    @property
    def memory_kind(self) -> str | None:
        return None

    def with_memory_kind(self, kind: str) -> Sharding:
        raise NotImplementedError(f"{type(self).__name__} has no memory kinds on numjax")

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Any, Index]:
        raise NotImplementedError

    def addressable_devices_indices_map(self, global_shape: tuple[int, ...]
                                        ) -> dict[Any, Index]:
        """The index map of the devices of this process."""
        return {d: index for d, index in self.devices_indices_map(global_shape).items()
                if is_addressable(d)}

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        raise NotImplementedError

    def _tile_grid(self, ndim: int) -> TileGrid | None:
        """How the sharding tiles a rank-`ndim` value (None: it does not describe tiles)."""
        return None

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        """Whether both put the same tiles of a rank-`ndim` value on the same devices (a
        NamedSharding on one device is equivalent to that device's SingleDeviceSharding)."""
        if self == other:
            return True
        grid = self._tile_grid(ndim)
        return (grid is not None and self.memory_kind == other.memory_kind
                and self._device_assignment == other._device_assignment
                and grid == other._tile_grid(ndim))


class SingleDeviceSharding(Sharding):
    """The whole array on one device.

    >>> import numjax
    >>> numjax.sharding.SingleDeviceSharding(numjax.devices()[0])
    SingleDeviceSharding(device=CpuDevice(id=0))
    """

    __slots__ = ("_device", "_memory_kind")

    def __init__(self, device: Any, *, memory_kind: str | None = None) -> None:
        check_memory_kind(device, memory_kind)
        self._device = device
        self._memory_kind = memory_kind

    @property
    def device_set(self) -> set[Any]:
        return {self._device}

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return (self._device,)

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def memory_kind(self) -> str | None:
        return self._memory_kind

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Any, Index]:
        return {self._device: (slice(None),) * len(global_shape)}

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(global_shape)

    def _tile_grid(self, ndim: int) -> TileGrid | None:
        return (1,) * ndim, [(0,) * ndim]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SingleDeviceSharding) and other._device is self._device
                and other._memory_kind == self._memory_kind)

    def __hash__(self) -> int:
        return hash((SingleDeviceSharding, self._device, self._memory_kind))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r})"


# ---- PmapSharding and its ShardingSpec ----------------------------------------------------


class NoSharding:
    """A dimension that is not split."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoSharding)

    def __hash__(self) -> int:
        return hash(NoSharding)

    def __repr__(self) -> str:
        return "NoSharding()"


class Unstacked:
    """A dimension of `size` split into one slice per device, the dimension removed."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unstacked) and other.size == self.size

    def __hash__(self) -> int:
        return hash((Unstacked, self.size))

    def __repr__(self) -> str:
        return f"Unstacked({self.size})"


class ShardedAxis:
    """The mesh axis a sharded dimension maps to."""

    __slots__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShardedAxis) and other.axis == self.axis

    def __hash__(self) -> int:
        return hash((ShardedAxis, self.axis))

    def __repr__(self) -> str:
        return f"ShardedAxis(axis={self.axis})"


class ShardingSpec:
    """Per-dimension sharding plus the mesh mapping (pmap's layout description)."""

    __slots__ = ("sharding", "mesh_mapping")

    def __init__(self, sharding: Sequence[Any], mesh_mapping: Sequence[Any]) -> None:
        self.sharding = tuple(sharding)
        self.mesh_mapping = tuple(mesh_mapping)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShardingSpec) and other.sharding == self.sharding
                and other.mesh_mapping == self.mesh_mapping)

    def __hash__(self) -> int:
        return hash((self.sharding, self.mesh_mapping))

    def __repr__(self) -> str:
        return f"ShardingSpec({self.sharding}, {self.mesh_mapping})"


class PmapSharding(Sharding):
    """Axis 0 of the array split across `devices`, one slice each (pmap's layout).

    >>> import numpy as np, numjax
    >>> x = numjax.device_put_sharded([np.zeros(2)], numjax.devices()[:1])
    >>> x.sharding
    PmapSharding(sharding_spec=ShardingSpec((Unstacked(1), NoSharding()), (ShardedAxis(axis=0),)), devices=[CpuDevice(id=0)])
    """  # noqa: E501 (a doctest output line)

    __slots__ = ("devices", "sharding_spec", "_assignment")

    def __init__(self, devices: Sequence[Any] | np.ndarray, sharding_spec: ShardingSpec
                 ) -> None:
        array = np.empty(len(devices), dtype=object)
        array[:] = list(devices)
        self.devices = array
        self.sharding_spec = sharding_spec
        self._assignment = tuple(array)  # read on every pmap call's outputs

    @classmethod
    def stacked(cls, devices: Sequence[Any], shard_ndim: int, axis: int = 0) -> PmapSharding:
        """The sharding of `len(devices)` shards of rank `shard_ndim` stacked on `axis`."""
        dims: list[Any] = [NoSharding()] * shard_ndim
        dims.insert(axis, Unstacked(len(devices)))
        return cls(devices, ShardingSpec(dims, (ShardedAxis(0),)))

    @classmethod
    def default(cls, shape: Sequence[int], sharded_dim: int = 0,
                devices: Sequence[Any] | None = None) -> PmapSharding:
        """The sharding pmap gives an array of `shape` mapped along `sharded_dim`, over the
        first `shape[sharded_dim]` devices (or `devices`)."""
        n = shape[sharded_dim]
        chosen = list(devices) if devices is not None else devices_mod.local_devices()[:n]
        if len(chosen) != n:
            raise ValueError(f"{len(chosen)} devices given for an axis of size {n}.")
        return cls.stacked(chosen, len(shape) - 1, sharded_dim)

    @property
    def stacked_axis(self) -> int:
        """The dimension split across the devices."""
        for i, dim in enumerate(self.sharding_spec.sharding):
            if isinstance(dim, Unstacked):
                return i
        return 0

    @property
    def device_set(self) -> set[Any]:
        return set(self.devices.flat)

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return self._assignment

    @property
    def is_fully_replicated(self) -> bool:
        # Unstacked axes split the value; JAX 0.4.30 reports False for replicated copies too.
        return False

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Any, Index]:
        k = self.stacked_axis
        before = (slice(None),) * k
        after = (slice(None),) * (len(global_shape) - k - 1)
        return {d: (*before, i, *after) for i, d in enumerate(self.devices.flat)}

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        k = self.stacked_axis
        return tuple(global_shape[:k]) + tuple(global_shape[k + 1:])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PmapSharding) and other.sharding_spec == self.sharding_spec
                and len(other.devices) == len(self.devices)
                and all(a is b for a, b in zip(other.devices, self.devices, strict=True)))

    def __hash__(self) -> int:
        return hash((self.sharding_spec, tuple(id(d) for d in self.devices.flat)))

    # JAX 0.4.30 prints the two forms: repr lists the devices, str their ids.
    def __repr__(self) -> str:
        devices = " ".join(repr(d) for d in self.devices.flat)
        return f"PmapSharding(sharding_spec={self.sharding_spec!r}, devices=[{devices}])"

    def __str__(self) -> str:
        ids = [d.id for d in self.devices.flat]
        platform = self.devices.flat[0].platform.upper() if len(self.devices) else "CPU"
        return (f"PmapSharding(sharding_spec={self.sharding_spec!r}, device_ids={ids}, "
                f"device_platform={platform}, device_shape={self.devices.shape})")


class Shard:
    """One device's part of an Array: `device`, its `index` into the array, its `data`.

    >>> import numjax.numpy as jnp
    >>> jnp.arange(2).addressable_shards
    [Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), replica_id=0, data=[0 1])]
    """

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device: Any, index: Index, replica_id: int, data: Any) -> None:
        self.device = device
        self.index = index
        self.replica_id = replica_id
        self.data = data

    def __repr__(self) -> str:
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


# JAX's text when a value spans devices of other processes (shards this one does not hold).
NON_ADDRESSABLE_VALUE = (
    "Fetching value for `jax.Array` that spans non-addressable (non process local) devices is "
    "not possible. You can use `jax.experimental.multihost_utils.process_allgather` to print "
    "the global array or use `.addressable_shards` method of jax.Array to inspect the "
    "addressable (process local) shards.")


class Assembled(Deferred):
    """The global value of an Array held as per-device shards, put together on first use
    (each shard copied to its place in one new buffer; replicas are read once) and kept."""

    __slots__ = ("_shards", "_indices", "_value")

    def __init__(self, aval: Any, shards: Sequence[Any], indices: Sequence[Index]) -> None:
        super().__init__(aval)
        self._shards = shards
        self._indices = indices
        self._value: Any = None

    @classmethod
    def maker(cls, aval: Any, indices: Sequence[Index]) -> Callable[[Sequence[Any]], Assembled]:
        """`Assembled(aval, shards, indices)` for shards given later, call after call (a
        compiled pmap's outputs): what the aval decides is worked out here, once."""
        like = Deferred(aval)
        fields = (like.shape, like.dtype, like.ndim, like.size, like.nbytes)
        new = object.__new__

        def make(shards: Sequence[Any]) -> Assembled:
            value = new(cls)
            value.shape, value.dtype, value.ndim, value.size, value.nbytes = fields
            value._shards, value._indices, value._value = shards, indices, None
            return value

        return make

    def wait(self) -> Any:
        value = self._value
        if value is None:
            value = np.empty(self.shape, self.dtype)
            seen: set[Any] = set()
            missing: set[Any] = set()
            for shard, index in zip(self._shards, self._indices, strict=True):
                key = repr(index)
                if shard is None:  # on another process's device
                    missing.add(key)
                    continue
                if key in seen:
                    continue
                seen.add(key)
                value[index] = resolve(shard)
            if missing - seen:
                raise RuntimeError(NON_ADDRESSABLE_VALUE)
            self._value = value
        return value

    def finish(self) -> None:
        """Every shard computed; the global buffer is not made until something reads it."""
        for shard in self._shards:
            if shard is not None:
                resolve(shard)

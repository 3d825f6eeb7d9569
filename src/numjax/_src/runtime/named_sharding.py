"""Tiled shardings: `NamedSharding` (a mesh and a PartitionSpec) and `PositionalSharding` (an
n-d array of device sets), as in JAX 0.4.30.

Both describe the same thing: each array dimension cut into equal tiles, each device holding
one tile per dimension (devices holding the same tiles are replicas). A subclass gives that
grid (`_tile_grid`); the shared base derives shard shapes, index maps, replication and
equivalence from it, so the two kinds agree wherever they describe the same layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.runtime.mesh import Mesh, PartitionSpec, _spec_axes, _Unconstrained
from numjax._src.runtime.sharding import Index, Sharding, TileGrid, check_memory_kind


class TiledSharding(Sharding):
    """Shared by shardings that cut each dimension into equal tiles."""

    __slots__ = ()

    def _tile_grid(self, ndim: int) -> TileGrid:
        raise NotImplementedError

    def _check_rank(self, ndim: int) -> None:
        """Raise JAX's error when the sharding cannot apply to a value of rank `ndim`."""

    def _check_divisible(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The tiles per dimension, after checking that they divide `shape` (JAX's error)."""
        self._check_rank(len(shape))
        tiles, _ = self._tile_grid(len(shape))
        for axis, (size, n) in enumerate(zip(shape, tiles, strict=True)):
            if size % n:
                raise ValueError(
                    f"Sharding {self} implies that array axis {axis} is partitioned {n} times, "
                    f"but the dimension size is {size} (full shape: {tuple(shape)}, "
                    f"per-dimension tiling factors: {list(tiles)} should evenly divide the "
                    "shape)")
        return tiles

    def shard_shape(self, global_shape: tuple[int, ...]) -> tuple[int, ...]:
        tiles = self._check_divisible(tuple(global_shape))
        return tuple(size // n for size, n in zip(global_shape, tiles, strict=True))

    def devices_indices_map(self, global_shape: tuple[int, ...]) -> dict[Any, Index]:
        shape = tuple(global_shape)
        self._check_divisible(shape)
        tiles, coords = self._tile_grid(len(shape))
        out: dict[Any, Index] = {}
        for device, coord in zip(self._device_assignment, coords, strict=True):
            # An unsplit dimension is the full slice, a split one its tile's bounds, as JAX.
            out[device] = tuple(
                slice(None) if n == 1 else slice(c * (size // n), (c + 1) * (size // n))
                for size, n, c in zip(shape, tiles, coord, strict=True))
        return out


def check_shape(sharding: TiledSharding, shape: tuple[int, ...], what: str) -> None:
    """Raise JAX's error when a value of `shape` given to `what` cannot take `sharding`."""
    try:
        sharding._check_rank(len(shape))
    except ValueError as e:
        raise ValueError(f"One of {what} is incompatible with its sharding annotation "
                         f"{sharding}: {e}") from None
    tiles, _ = sharding._tile_grid(len(shape))
    for axis, (size, n) in enumerate(zip(shape, tiles, strict=True)):
        if size % n:
            raise ValueError(
                f"One of {what} was given the sharding of {sharding}, which implies that the "
                f"global size of its dimension {axis} should be divisible by {n}, but it is "
                f"equal to {size} (full shape: {tuple(shape)})")


class NamedSharding(TiledSharding):
    """An array laid out on a `Mesh`: dimension i split by the mesh axes `spec[i]` names.

    >>> import numpy as np, numjax
    >>> from numjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> s = NamedSharding(Mesh(np.array(numjax.devices()[:1]), ('x',)), P('x'))
    >>> s.shard_shape((4, 2))
    (4, 2)
    """

    __slots__ = ("mesh", "spec", "_memory_kind", "_partitions", "_grids")

    def __init__(self, mesh: Mesh, spec: PartitionSpec | None, *,
                 memory_kind: str | None = None) -> None:
        if spec is not None and not isinstance(spec, PartitionSpec):
            leaf = spec
            if isinstance(spec, tuple | list):  # JAX reports the first leaf of the pytree
                leaf = next((x for x in spec if x is not None), spec)
            raise TypeError("NamedSharding spec leaf specifications are expected to be "
                            f"PartitionSpec instances or None, but got {leaf}")
        check_memory_kind(mesh.devices.flat[0], memory_kind)
        self.mesh = mesh
        self.spec = spec
        self._memory_kind = memory_kind
        partitions = tuple(() if isinstance(entry, _Unconstrained) else _spec_axes(entry)
                           for entry in (spec or ()))
        seen: set[Any] = set()
        for axes in partitions:
            for name in axes:
                if name not in mesh.shape:
                    raise ValueError(f"Resource axis: {name} of {spec} is undefined.")
                if name in seen:
                    raise ValueError(
                        "A single NamedSharding spec specification can map every mesh axis to "
                        f"at most one positional dimension, but {spec} has duplicate entries "
                        f"for `{name}`")
                seen.add(name)
        self._partitions = partitions
        self._grids: dict[int, TileGrid] = {}

    @property
    def device_set(self) -> set[Any]:
        return set(self.mesh.devices.flat)

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return self.mesh._flat_devices_tuple

    @property
    def memory_kind(self) -> str | None:
        return self._memory_kind

    def with_memory_kind(self, kind: str) -> NamedSharding:
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    @property
    def is_fully_replicated(self) -> bool:
        sizes = self.mesh.shape
        return all(sizes[name] == 1 for axes in self._partitions for name in axes)

    def _check_rank(self, ndim: int) -> None:
        if ndim < len(self._partitions):
            extra = " For scalars the PartitionSpec should be P()" if ndim == 0 else ""
            raise ValueError(
                f"Sharding {self} is only valid for values of rank at least "
                f"{len(self._partitions)}, but was applied to a value of rank {ndim}.{extra}")

    def _tile_grid(self, ndim: int) -> TileGrid:
        grid = self._grids.get(ndim)
        if grid is None:
            self._check_rank(ndim)
            sizes = self.mesh.shape
            position = {name: i for i, name in enumerate(self.mesh.axis_names)}
            parts = self._partitions + ((),) * (ndim - len(self._partitions))
            tiles = tuple(math.prod(sizes[name] for name in axes) for axes in parts)
            coords = []
            for mesh_index in np.ndindex(*self.mesh.devices.shape):
                coord = []
                for axes in parts:
                    c = 0  # mixed radix over the dimension's mesh axes, the first major
                    for name in axes:
                        c = c * sizes[name] + mesh_index[position[name]]
                    coord.append(c)
                coords.append(tuple(coord))
            grid = self._grids[ndim] = (tiles, coords)
        return grid

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NamedSharding):
            return False
        return self is other or (self._partitions == other._partitions
                                 and self._memory_kind == other._memory_kind
                                 and self.mesh == other.mesh)

    def __hash__(self) -> int:
        return hash((self.mesh, self._memory_kind, self._partitions))

    def __repr__(self) -> str:
        memory = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}{memory})"


class DeviceIdSet:
    """A set of device positions, printed `{CPU 0, 1}`; adding two is their union (so NumPy's
    `sum` over an object array of them merges tiles, which is how `replicate` works)."""

    __slots__ = ("name", "ids")

    def __init__(self, name: str, *ids: int) -> None:
        self.name = name
        self.ids = frozenset(ids)

    def __iter__(self) -> Any:
        return iter(sorted(self.ids))

    def __len__(self) -> int:
        return len(self.ids)

    def __add__(self, other: DeviceIdSet) -> DeviceIdSet:
        return DeviceIdSet(self.name, *(self.ids | other.ids))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DeviceIdSet) and self.name == other.name
                and self.ids == other.ids)

    def __hash__(self) -> int:
        return hash((self.name, self.ids))

    def __repr__(self) -> str:
        return "{" + self.name + " " + ", ".join(str(i) for i in sorted(self.ids)) + "}"


class PositionalSharding(TiledSharding):
    """An n-d array of device sets, one per tile of a rank-n value: reshape it to the array's
    rank, and `replicate` an axis to give each of its tiles to all the devices along it.

    >>> import numjax
    >>> from numjax.sharding import PositionalSharding
    >>> PositionalSharding(numjax.devices()[:1]).reshape(1, 1)
    PositionalSharding([[{CPU 0}]], shape=(1, 1))
    """

    __slots__ = ("_devices", "_ids", "_memory_kind")

    def __init__(self, devices: Sequence[Any] | np.ndarray, *,
                 memory_kind: str | None = None) -> None:
        if not isinstance(devices, np.ndarray):
            array = np.empty(len(devices), dtype=object)
            array[:] = list(devices)
            devices = array
        if not devices.size:
            raise ValueError(f"PositionalSharding.__init__ requires at least one device, got "
                             f"{list(devices.flat)}")
        self._devices = tuple(devices.flat)
        check_memory_kind(self._devices[0], memory_kind)
        self._memory_kind = memory_kind
        name = self._devices[0].platform.upper()
        ids = np.empty(devices.size, dtype=object)
        ids[:] = [DeviceIdSet(name, i) for i in range(devices.size)]
        self._ids = ids.reshape(devices.shape)

    @classmethod
    def _remake(cls, devices: tuple[Any, ...], ids: np.ndarray,
                memory_kind: str | None = None) -> PositionalSharding:
        self = cls.__new__(cls)
        self._devices = devices
        self._ids = ids
        self._memory_kind = memory_kind
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        return self._ids.shape  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return self._ids.ndim  # type: ignore[no-any-return]

    def reshape(self, *shape: Any) -> PositionalSharding:
        return self._remake(self._devices, self._ids.reshape(*shape), self._memory_kind)

    def transpose(self, *axes: Any) -> PositionalSharding:
        return self._remake(self._devices, self._ids.transpose(*axes), self._memory_kind)

    @property
    def T(self) -> PositionalSharding:
        return self.transpose()

    def replicate(self, axis: int | None = None, keepdims: bool = True) -> PositionalSharding:
        """Merge the tiles along `axis` (all axes when None): their devices hold replicas."""
        ids = self._ids.sum(axis=axis, keepdims=keepdims)
        if not isinstance(ids, np.ndarray):  # a full sum without keepdims: one set
            array = np.empty((), dtype=object)
            array[()] = ids
            ids = array
        return self._remake(self._devices, ids, self._memory_kind)

    @property
    def device_set(self) -> set[Any]:
        return set(self._devices)

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return self._devices

    @property
    def memory_kind(self) -> str | None:
        return self._memory_kind

    def with_memory_kind(self, kind: str) -> PositionalSharding:
        return PositionalSharding(self._devices, memory_kind=kind)

    @property
    def is_fully_replicated(self) -> bool:
        return self.shape == (1,) * self.ndim

    def _check_rank(self, ndim: int) -> None:
        if ndim != self.ndim:
            raise ValueError(f"Sharding {self} is only valid for values of rank {self.ndim}, "
                             f"but was applied to a value of rank {ndim}")

    def _tile_grid(self, ndim: int) -> TileGrid:
        self._check_rank(ndim)
        coords: list[tuple[int, ...]] = [()] * len(self._devices)
        for index, id_set in np.ndenumerate(self._ids):
            for i in id_set:
                coords[i] = tuple(int(c) for c in index)
        return tuple(self.shape), coords

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PositionalSharding):
            return False
        return self is other or (self._memory_kind == other._memory_kind
                                 and np.array_equal(self._ids, other._ids)
                                 and self._devices == other._devices)

    def __hash__(self) -> int:
        return hash((self._devices, self._memory_kind))

    def __repr__(self) -> str:
        # Each tile's set printed with device ids, not positions, as a NumPy array of sets.
        name = self._devices[0].platform.upper()
        ids = np.empty(self._ids.shape, dtype=object)
        for index, id_set in np.ndenumerate(self._ids):
            ids[index] = DeviceIdSet(name, *(self._devices[i].id for i in id_set))
        body = np.array2string(ids, prefix="PositionalSharding(", suffix=")",
                               max_line_width=100)
        memory = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
        return f"PositionalSharding({body}{memory}, shape={self.shape})"

"""PositionalSharding arguments of a sharded jit, seen as NamedShardings of one mesh.

The per-shard rewrite (`sharded_jit.partition`) works on a mesh and axis names. Positional
shardings name no mesh, but shardings derived from one device order (`reshape`, `replicate`,
`.T`) cut the devices along independent coordinates: a `(4, 2)` layout splits rows by
`position // 2` and columns by `position % 2`, and its `replicate(1)` keeps only the first.
`common_layout` finds those coordinates across every argument, builds the mesh whose axes they
are (plus an axis of replicas), and each argument becomes a NamedSharding on it; the plan's
output shardings are turned back into PositionalShardings of the arguments' device order, the
type JAX 0.4.30 gives outputs computed from positional arguments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.runtime.mesh import Mesh, PartitionSpec
from numjax._src.runtime.named_sharding import DeviceIdSet, NamedSharding, PositionalSharding
from numjax._src.runtime.sharding import Sharding


class PositionalLayout:
    """A mesh whose axes are the coordinates positional shardings cut their devices by."""

    __slots__ = ("devices", "mesh", "_axes")

    def __init__(self, devices: tuple[Any, ...], mesh: Mesh,
                 axes: dict[tuple[int, ...], str]) -> None:
        self.devices = devices
        self.mesh = mesh
        self._axes = axes  # a coordinate (each device position's tile index) -> its axis

    def to_named(self, sharding: PositionalSharding) -> NamedSharding:
        spec = [self._axes[labels] if labels is not None else None
                for labels in _coordinates(sharding)]
        return NamedSharding(self.mesh, PartitionSpec(*spec))

    def to_positional(self, sharding: NamedSharding, ndim: int) -> PositionalSharding:
        """`sharding` (on this layout's mesh) as tiles of device sets in the arguments'
        device order."""
        tiles, coords = sharding._tile_grid(ndim)
        if not tiles:  # a scalar's layout is given one tile, as JAX 0.4.30 prints it
            tiles, coords = (1,), [(0,)] * len(coords)
        name = self.devices[0].platform.upper()
        ids = np.empty(tiles, dtype=object)
        for index in np.ndindex(*tiles):
            ids[index] = DeviceIdSet(name)
        position = {d: i for i, d in enumerate(self.devices)}
        for device, coord in zip(sharding._device_assignment, coords, strict=True):
            ids[coord] = ids[coord] + DeviceIdSet(name, position[device])
        return PositionalSharding._remake(self.devices, ids, sharding.memory_kind)


def _coordinates(sharding: PositionalSharding) -> list[tuple[int, ...] | None]:
    """Per dimension, each device position's tile index along it (None: not split)."""
    tiles, coords = sharding._tile_grid(sharding.ndim)
    return [tuple(c[dim] for c in coords) if n > 1 else None for dim, n in enumerate(tiles)]


def common_layout(shardings: Sequence[Sharding | None]) -> PositionalLayout | None:
    """The layout every multi-device PositionalSharding among `shardings` is a NamedSharding
    of, or None: none is positional, they list different devices, or their cuts are not
    independent coordinates of one grid."""
    positional = [s for s in shardings
                  if isinstance(s, PositionalSharding) and len(s._device_assignment) > 1]
    if not positional:
        return None
    devices = positional[0]._device_assignment
    if any(s._device_assignment != devices for s in positional):
        return None
    cuts: list[tuple[int, ...]] = []
    for s in positional:
        for labels in _coordinates(s):
            if labels is not None and labels not in cuts:
                cuts.append(labels)
    sizes = [max(c) + 1 for c in cuts]
    # Devices sharing every coordinate are replicas: the grid must hold the same number of
    # them in each cell, and every cell must be used.
    cells: dict[tuple[int, ...], list[int]] = {}
    for i in range(len(devices)):
        cells.setdefault(tuple(c[i] for c in cuts), []).append(i)
    replicas = len(devices) // math.prod(sizes)
    if len(cells) != math.prod(sizes) or any(len(v) != replicas for v in cells.values()):
        return None
    grid = np.empty((*sizes, replicas), dtype=object)
    for cell, members in cells.items():
        for k, i in enumerate(members):
            grid[(*cell, k)] = devices[i]
    names = tuple(f"_positional{j}" for j in range(len(cuts))) + ("_replica",)
    axes = {labels: names[j] for j, labels in enumerate(cuts)}
    return PositionalLayout(devices, Mesh(grid, names), axes)

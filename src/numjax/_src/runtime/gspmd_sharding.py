"""`GSPMDSharding`: a tiled layout given by its tile assignment, as JAX 0.4.30 reports the
layouts of jit outputs that no `NamedSharding` of the program's mesh describes (a `flip` along
a split dimension puts the blocks on the devices in reverse order; a reshape can cut a mesh
axis between two new dimensions).

The tile assignment is an integer array of positions in the device assignment: its shape is
the tiles per dimension, followed by the replicas of each tile when `last_tile_dim_replicate`.
It prints in XLA's sharding text, `GSPMDSharding({devices=[4,1]3,2,1,0})`, with an assignment
that is a transposed iota written the short way (`{devices=[4,2]<=[8]}`,
`{devices=[2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.runtime.named_sharding import TiledSharding
from numjax._src.runtime.sharding import TileGrid, check_memory_kind


class GSPMDSharding(TiledSharding):
    """Tiles of an array on devices, by tile assignment.

    >>> import numpy as np, numjax
    >>> from numjax.sharding import GSPMDSharding
    >>> s = GSPMDSharding(numjax.devices()[:1], np.zeros((1, 1), int))
    >>> s.shard_shape((4, 2)), s
    ((4, 2), GSPMDSharding({replicated}))
    """

    __slots__ = ("_devices", "_assignment", "_replicate_last", "_memory_kind", "layout",
                 "_listed")

    def __init__(self, devices: Sequence[Any], tile_assignment: Any, *,
                 last_tile_dim_replicate: bool = False,
                 memory_kind: str | None = None) -> None:
        devices = tuple(devices)
        check_memory_kind(devices[0], memory_kind)
        assignment = np.asarray(tile_assignment, dtype=np.int64)
        if assignment.size != len(devices) or sorted(assignment.flat) != list(
                range(len(devices))):
            raise ValueError(f"GSPMDSharding: the tile assignment {assignment.tolist()} must "
                             f"hold each position of the {len(devices)} devices once")
        if last_tile_dim_replicate:
            if assignment.ndim == 0:
                raise ValueError("GSPMDSharding: last_tile_dim_replicate needs a tile "
                                 "assignment of rank at least 1")
            # XLA lists each tile's replicas in increasing order, and drops a replica
            # dimension of size 1.
            assignment = np.sort(assignment, axis=-1)
            if assignment.shape[-1] == 1:
                assignment = assignment[..., 0]
                last_tile_dim_replicate = False
        self._devices = devices
        self._assignment = assignment
        self._replicate_last = last_tile_dim_replicate
        self._memory_kind = memory_kind
        # The (mesh, split) a propagated output was laid out by, so a program reading it
        # again carries the same split on (None: built from a tile assignment alone).
        self.layout: Any = None
        # Printed device by device even when an iota would say it (as XLA prints a tile
        # assignment it once held as a list, such as a flip's).
        self._listed = False

    @classmethod
    def get_replicated(cls, device_assignment: Sequence[Any], *,
                       memory_kind: str | None = None) -> GSPMDSharding:
        """Every device holding the whole value."""
        n = len(tuple(device_assignment))
        return cls(device_assignment, np.arange(n).reshape(1, n), last_tile_dim_replicate=True,
                   memory_kind=memory_kind)

    @property
    def _tiles(self) -> tuple[int, ...]:
        shape = self._assignment.shape
        return tuple(shape[:-1] if self._replicate_last else shape)

    @property
    def device_set(self) -> set[Any]:
        return set(self._devices)

    @property
    def _device_assignment(self) -> tuple[Any, ...]:
        return self._devices

    @property
    def memory_kind(self) -> str | None:
        return self._memory_kind

    def with_memory_kind(self, kind: str) -> GSPMDSharding:
        return GSPMDSharding(self._devices, self._assignment,
                             last_tile_dim_replicate=self._replicate_last, memory_kind=kind)

    @property
    def is_fully_replicated(self) -> bool:
        return math.prod(self._tiles) == 1

    def _check_rank(self, ndim: int) -> None:
        if not self.is_fully_replicated and ndim != len(self._tiles):
            raise ValueError(f"Sharding {self} is only valid for values of rank "
                             f"{len(self._tiles)}, but was applied to a value of rank {ndim}")

    def _tile_grid(self, ndim: int) -> TileGrid:
        self._check_rank(ndim)
        if self.is_fully_replicated:
            return (1,) * ndim, [(0,) * ndim] * len(self._devices)
        coords: list[tuple[int, ...]] = [()] * len(self._devices)
        for index, position in np.ndenumerate(self._assignment):
            coords[int(position)] = tuple(int(i) for i in index[:ndim])
        return self._tiles, coords

    def _key(self) -> tuple[Any, ...]:
        if self.is_fully_replicated:
            return ("replicated",)
        return (self._assignment.shape, self._replicate_last, self._assignment.tobytes())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GSPMDSharding):
            return False
        return self is other or (self._key() == other._key()
                                 and self._memory_kind == other._memory_kind
                                 and self._devices == other._devices)

    def __hash__(self) -> int:
        return hash((self._key(), self._devices, self._memory_kind))

    def __repr__(self) -> str:
        return f"GSPMDSharding({self._hlo_text()})"

    def _hlo_text(self) -> str:
        if self.is_fully_replicated:
            return "{replicated}"
        shape = ",".join(str(n) for n in self._assignment.shape)
        iota = None if self._listed else _iota_form(tuple(int(p) for p in self._assignment.flat))
        listed = iota if iota is not None else ",".join(str(p) for p in self._assignment.flat)
        last = " last_tile_dim_replicate" if self._replicate_last else ""
        return f"{{devices=[{shape}]{listed}{last}}}"


@functools.lru_cache(maxsize=256)
def _iota_form(order: tuple[int, ...]) -> str | None:
    """`<=[dims]T(perm)` when `order` is iota(n) reshaped to dims and transposed by perm
    (the fewest dims that do; no `T` for the identity), else None."""
    n = len(order)
    if order == tuple(range(n)):
        return f"<=[{n}]"
    target = np.asarray(order)
    for count in range(2, 7):
        for dims in _factorizations(n, count):
            base = np.arange(n).reshape(dims)
            for perm in itertools.permutations(range(count)):
                if any(b == a + 1 for a, b in itertools.pairwise(perm)):
                    continue  # adjacent dimensions kept in order: a shorter form exists
                if np.array_equal(base.transpose(perm).ravel(), target):
                    dims_text = ",".join(str(d) for d in dims)
                    return f"<=[{dims_text}]T({','.join(str(p) for p in perm)})"
    return None


def _factorizations(n: int, count: int) -> list[tuple[int, ...]]:
    """The ordered ways of writing n as a product of `count` factors greater than 1."""
    if count == 1:
        return [(n,)] if n > 1 else []
    out: list[tuple[int, ...]] = []
    for f in range(2, n):
        if n % f == 0:
            out.extend((f, *rest) for rest in _factorizations(n // f, count - 1))
    return out

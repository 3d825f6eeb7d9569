"""Meshes and partition specs: the names `NamedSharding` lays an array out by.

A `Mesh` is an n-d array of devices with a name per axis; a `PartitionSpec` says, per array
dimension, which mesh axes split it (None: not split; a tuple: split by several axes, the first
the major one). Reprs, equality and errors are JAX 0.4.30's.
"""

from __future__ import annotations

import collections
import math
import threading
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from numjax._src.runtime.devices import devices as all_devices
from numjax._src.runtime.sharding import is_addressable


class _Unconstrained:
    """The `PartitionSpec.UNCONSTRAINED` marker: the dimension's layout is left to the
    compiler."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCONSTRAINED"


class PartitionSpec(tuple):  # type: ignore[type-arg]
    """Per array dimension, the mesh axis (or tuple of axes, or None) that splits it.

    >>> from numjax.sharding import PartitionSpec as P
    >>> P('x', None)
    PartitionSpec('x', None)
    """

    __slots__ = ()
    UNCONSTRAINED = _Unconstrained()

    def __new__(cls, *partitions: Any) -> PartitionSpec:
        return tuple.__new__(cls, partitions)

    def __repr__(self) -> str:
        return f"PartitionSpec{tuple.__repr__(self)}"

    def __reduce__(self) -> Any:
        return (PartitionSpec, tuple(self))


def _spec_axes(entry: Any) -> tuple[Any, ...]:
    """One spec entry as the tuple of mesh axes splitting its dimension (JAX's canonical form:
    None and () split nothing, 'x' and ('x',) are the same)."""
    if entry is None:
        return ()
    if isinstance(entry, tuple | list):
        return tuple(entry)
    return (entry,)


class Mesh:
    """An n-d array of devices with a name for each axis; a context manager that makes it the
    mesh named shardings and collectives refer to.

    >>> import numpy as np, numjax
    >>> from numjax.sharding import Mesh
    >>> Mesh(np.array(numjax.devices()[:1]), ('x',))
    Mesh(device_ids=array([0]), axis_names=('x',))
    """

    devices: np.ndarray
    axis_names: tuple[Any, ...]

    def __init__(self, devices: np.ndarray | Sequence[Any],
                 axis_names: str | Sequence[Hashable]) -> None:
        if not isinstance(devices, np.ndarray):
            array = np.empty(len(devices), dtype=object)
            array[:] = list(devices)
            devices = array
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length "
                "of its second argument (`axis_names`), but got "
                f"devices.ndim == {devices.ndim} and len(axis_names) == {len(axis_names)}.")
        devices = devices.copy()
        devices.flags.writeable = False
        self.devices = devices
        self.axis_names = axis_names

    @property
    def shape(self) -> collections.OrderedDict[Any, int]:
        return collections.OrderedDict(zip(self.axis_names, self.devices.shape, strict=True))

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def empty(self) -> bool:
        return self.devices.ndim == 0

    @property
    def is_multi_process(self) -> bool:
        return len({d.process_index for d in self.devices.flat}) > 1

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)  # type: ignore

    @property
    def local_devices(self) -> list[Any]:
        """The devices of this process, in mesh order."""
        return [d for d in self.devices.flat if is_addressable(d)]

    @property
    def local_mesh(self) -> Mesh:
        """The part of the mesh on this process's devices: along each axis, the positions
        where it has a device (the whole mesh on one process)."""
        mine = np.vectorize(is_addressable, otypes=[bool])(self.devices)
        where = [np.unique(i) for i in np.nonzero(mine)]
        return Mesh(self.devices[np.ix_(*where)], self.axis_names)

    @property
    def _flat_devices_tuple(self) -> tuple[Any, ...]:
        return tuple(self.devices.flat)

    def _key(self) -> tuple[Any, ...]:
        return (self.axis_names, self.devices.shape, tuple(id(d) for d in self.devices.flat))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mesh):
            return False
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("devices", "axis_names") and hasattr(self, name):
            raise AttributeError(f"Mesh.{name} is immutable")  # a hashable key
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        if self.empty:
            return "Mesh(device_ids=[], axis_names=())"
        return f"Mesh(device_ids={self.device_ids!r}, axis_names={self.axis_names})"

    def __str__(self) -> str:
        sizes = ", ".join(f"'{name}': {size}" for name, size in self.shape.items())
        return f"Mesh({sizes})"

    def __enter__(self) -> Mesh:
        _mesh_stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _mesh_stack().pop()


_state = threading.local()


def _mesh_stack() -> list[Mesh]:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack  # type: ignore[no-any-return]


def current_mesh() -> Mesh | None:
    """The innermost mesh entered with `with mesh:` in this thread, or None."""
    stack = _mesh_stack()
    return stack[-1] if stack else None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
    """The devices (default: all of them) as an array of `mesh_shape` for a `Mesh`. CPU
    devices have no network topology to follow, so they are laid out in order, as JAX does.

    >>> import numjax
    >>> from numjax.experimental import mesh_utils
    >>> mesh_utils.create_device_mesh((1,), numjax.devices()[:1])
    array([CpuDevice(id=0)], dtype=object)
    """
    if devices is None:
        devices = all_devices()
    if math.prod(mesh_shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {mesh_shape}")
    array = np.empty(len(devices), dtype=object)
    array[:] = list(devices)
    return array.reshape(tuple(mesh_shape))

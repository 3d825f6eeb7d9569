"""Host-level collectives across the processes of a `numjax.distributed` job, on its MPI
communicator: what `numjax.experimental.multihost_utils` offers. Values are pytrees of arrays;
every process must call each function, in the same order."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray
from numjax._src.runtime import distributed, stream
from numjax._src.runtime.array import ArrayImpl, sharded_array
from numjax._src.runtime.mesh import Mesh
from numjax._src.runtime.named_sharding import NamedSharding
from numjax._src.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten


def _comm() -> Any:
    return distributed.state.comm if distributed.state.process_count > 1 else None


def _as_array(x: Any) -> Any:
    return ArrayImpl(np.array(x, copy=True), False)


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """Every process gets process 0's value (or the one whose `is_source` is True).

    >>> import numpy as np
    >>> broadcast_one_to_all(np.arange(3))
    Array([0, 1, 2], dtype=int32)
    """
    comm = _comm()
    if comm is None:
        return tree_map(_as_array, in_tree)
    source = distributed.state.process_index == 0 if is_source is None else is_source
    roots = comm.allgather(bool(source))
    if roots.count(True) != 1:
        raise ValueError(f"broadcast_one_to_all needs exactly one source process, got "
                         f"{roots.count(True)}.")
    leaves, tree = tree_flatten(in_tree)
    values = comm.bcast([np.asarray(x) for x in leaves] if source else None,
                        root=roots.index(True))
    return tree_unflatten(tree, [_as_array(v) for v in values])


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Every process's value, stacked on a new leading axis (concatenated along axis 0 with
    `tiled`), on every process, as NumPy arrays. An Array laid out across processes is
    gathered whole instead: its global value, on every process."""
    comm = _comm()

    def gather(x: Any) -> Any:
        if type(x) is ArrayImpl and not x.is_fully_addressable:
            return global_value(x)
        value = np.asarray(x)
        parts = [value] if comm is None else comm.allgather(value)
        return np.concatenate(parts) if tiled else np.stack(parts)

    return tree_map(gather, in_tree)


def global_value(x: ArrayImpl) -> np.ndarray:
    """The whole value of an Array laid out across processes: each process's shards (one per
    distinct index), gathered from every process and put in place (every process calls it)."""
    comm = _comm()
    mine = {repr(shard.index): (shard.index, np.asarray(stream.resolve(shard.data._buf)))
            for shard in x.addressable_shards}
    out = np.empty(x.shape, x.dtype)
    everyone = [list(mine.values())] if comm is None else comm.allgather(list(mine.values()))
    for parts in everyone:
        for index, block in parts:
            out[index] = block
    return out


def reshard(x: ArrayImpl, sharding: Any) -> ArrayImpl:
    """`x` (laid out across processes) laid out as `sharding` instead: every process gathers
    the whole value (`global_value`) and keeps the blocks of its own devices, each its own copy
    (a block may be donated later, so blocks never share memory). Every process calls it.
    It moves the whole value through every process: correct for any two layouts, not minimal
    traffic. An equivalent layout keeps `x`'s blocks, with no traffic."""
    if x.sharding.is_equivalent_to(sharding, x.ndim):
        blocks = _array_blocks(x)[0]
    else:
        value = global_value(x)
        blocks = {d: np.array(value[index], copy=True)
                  for d, index in sharding.addressable_devices_indices_map(x.shape).items()}
    return sharded_array([blocks.get(d) for d in sharding._device_assignment], x.aval, sharding)


def _specs(pspecs: Any, tree: Any) -> list[Any]:
    """The PartitionSpec of each leaf of `tree` (`pspecs`: a prefix of it, None a leaf)."""
    structure = tree_structure(pspecs, is_leaf=lambda x: x is None)
    subtrees = structure.flatten_up_to(tree)
    leaves = tree_flatten(pspecs, is_leaf=lambda x: x is None)[0]
    return [spec for spec, sub in zip(leaves, subtrees, strict=True)
            for _ in tree_flatten(sub)[0]]


def _check_spec(spec: Any) -> None:
    if spec is None:
        raise ValueError("`None` is not a valid input to the pspecs argument. Please use "
                         "jax.sharding.PartitionSpec() if you wanted to replicate your input.")


def _scale(shape: tuple[int, ...], sharding: NamedSharding, local: NamedSharding,
           up: bool) -> tuple[int, ...]:
    """A shape on the local mesh scaled to the global one (`up`), or back: each split
    dimension by the ratio of its block counts."""
    out = []
    for d, size in enumerate(shape):
        axes = sharding._partitions[d] if d < len(sharding._partitions) else ()
        whole = math.prod(sharding.mesh.shape[a] for a in axes)
        here = math.prod(local.mesh.shape[a] for a in axes)
        out.append(size * whole // here if up else size * here // whole)
    return tuple(out)


def _array_blocks(x: ArrayImpl) -> tuple[dict[Any, Any], tuple[int, ...], np.dtype[Any]]:
    """An Array's blocks on this process's devices, its shape and dtype."""
    blocks = {s.device: np.asarray(stream.resolve(s.data._buf)) for s in x.addressable_shards}
    return blocks, x.shape, x.dtype


def _host_blocks(x: Any, indices_map: Callable[[tuple[int, ...]], dict[Any, Any]]
                 ) -> tuple[dict[Any, Any], tuple[int, ...], np.dtype[Any]]:
    """A host value (of its canonical dtype) cut into the blocks `indices_map` gives each
    device, its shape and dtype."""
    value = np.asarray(x)
    value = value.astype(dtypes.canonicalize_dtype(value.dtype), copy=False)
    blocks = {d: value[index] for d, index in indices_map(value.shape).items()}
    return blocks, value.shape, value.dtype


def _on_devices(aval: ShapedArray, sharding: NamedSharding, blocks: dict[Any, Any]
                ) -> ArrayImpl:
    """The Array laid out as `sharding` whose blocks on this process's devices are
    `blocks[device]`."""
    return sharded_array([blocks.get(d) for d in sharding._device_assignment], aval, sharding)


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Mesh,
                                     pspecs: Any) -> Any:
    """Each process's local data (its part of every split dimension, laid out over its own
    devices as `pspecs` say) as one global Array over `global_mesh`.

    >>> import numpy as np, numjax
    >>> from numjax.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(numjax.devices()[:1]), ("x",))
    >>> host_local_array_to_global_array(np.arange(4.), mesh, P("x")).shape
    (4,)
    """
    leaves, tree = tree_flatten(local_inputs)
    out = []
    for x, spec in zip(leaves, _specs(pspecs, local_inputs), strict=True):
        _check_spec(spec)
        if type(x) is ArrayImpl and not x.is_fully_addressable:
            out.append(x)
            continue
        sharding = NamedSharding(global_mesh, spec)
        local = NamedSharding(global_mesh.local_mesh, spec)
        if type(x) is ArrayImpl and getattr(x, "_sharding", None) is not None \
                and x.sharding.is_equivalent_to(local, x.ndim):
            blocks, value_shape, dtype = _array_blocks(x)
        else:
            blocks, value_shape, dtype = _host_blocks(x, local.devices_indices_map)
        shape = _scale(value_shape, sharding, local, up=True)
        out.append(_on_devices(ShapedArray(shape, dtype), sharding, blocks))
    return tree_unflatten(tree, out)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Mesh,
                                     pspecs: Any) -> Any:
    """Each global Array's blocks on this process's devices as one Array laid out over the
    process's part of the mesh (the inverse of `host_local_array_to_global_array`)."""
    leaves, tree = tree_flatten(global_inputs)
    out = []
    for x, spec in zip(leaves, _specs(pspecs, global_inputs), strict=True):
        _check_spec(spec)
        if type(x) is ArrayImpl and x.is_fully_addressable:
            out.append(x)
            continue
        sharding = NamedSharding(global_mesh, spec)
        local = NamedSharding(global_mesh.local_mesh, spec)
        if type(x) is ArrayImpl:
            if not x.sharding.is_equivalent_to(sharding, x.ndim):
                x = reshard(x, sharding)
            blocks, shape, dtype = _array_blocks(x)
        else:  # a host value: every process holds all of it
            blocks, shape, dtype = _host_blocks(x, sharding.addressable_devices_indices_map)
        local_shape = _scale(shape, sharding, local, up=False)
        out.append(_on_devices(ShapedArray(local_shape, dtype), local, blocks))
    return tree_unflatten(tree, out)


def sync_global_devices(name: str) -> None:
    """Wait until every process reaches this point (with the same `name`)."""
    comm = _comm()
    if comm is None:
        return
    names = comm.allgather(name)
    if len(set(names)) != 1:
        raise AssertionError(f"sync_global_devices name mismatch: {names}")


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """Raise AssertionError unless every process passed the same value."""
    comm = _comm()
    if comm is None:
        return
    leaves = [np.asarray(x) for x in tree_flatten(in_tree)[0]]
    everyone = comm.allgather(leaves)
    for other in everyone[1:]:
        if len(other) != len(leaves) or any(
                a.shape != b.shape or not np.array_equal(a, b)
                for a, b in zip(everyone[0], other, strict=True)):
            raise AssertionError(f"{fail_message} Expected all processes to pass the same "
                                 "value.")


def reached_preemption_sync_point(step_id: int) -> bool:
    """No preemption service here: never a sync point."""
    return False

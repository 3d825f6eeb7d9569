"""Host-level collectives across the processes of a `numjax.distributed` job, on its MPI
communicator: what `numjax.experimental.multihost_utils` offers. Values are pytrees of arrays;
every process must call each function, in the same order."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.runtime import distributed
from numjax._src.tree_util import tree_flatten, tree_map, tree_unflatten


def _comm() -> Any:
    return distributed.state.comm if distributed.state.process_count > 1 else None


def _as_array(x: Any) -> Any:
    from numjax._src.runtime.array import ArrayImpl
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
    `tiled`), on every process, as NumPy arrays."""
    comm = _comm()

    def gather(x: Any) -> Any:
        value = np.asarray(x)
        parts = [value] if comm is None else comm.allgather(value)
        return np.concatenate(parts) if tiled else np.stack(parts)

    return tree_map(gather, in_tree)


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

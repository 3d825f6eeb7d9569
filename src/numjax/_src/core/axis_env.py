"""The named axes in scope while a mapped function is traced: pmap's (and shard_map's) axis
names and sizes. Collectives read it to check that their axis is bound and to learn its size
(`psum(1, "i")`, `all_gather`); vmap's named axes are found on the trace stack instead (see
`lax/parallel.py`). A thread-local stack, innermost last.

>>> with extend_axis_env("i", 4):
...     axis_size_or_none("i")
4
>>> axis_size_or_none("i") is None
True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Hashable, Iterator


class _AxisEnv(threading.local):
    def __init__(self) -> None:
        self.frames: tuple[tuple[Hashable, int], ...] = ()


_env = _AxisEnv()


@contextlib.contextmanager
def extend_axis_env(name: Hashable, size: int) -> Iterator[None]:
    """Bind `name` to an axis of `size` while the block runs (a mapped body is traced)."""
    previous = _env.frames
    _env.frames = (*previous, (name, size))
    try:
        yield
    finally:
        _env.frames = previous


def axis_size_or_none(name: Hashable) -> int | None:
    """The size of the innermost axis named `name` in scope, or None."""
    for bound, size in reversed(_env.frames):
        if bound == name:
            return size
    return None


def frames() -> tuple[tuple[Hashable, int], ...]:
    """Every bound (axis name, size), outermost first: part of a cached trace's key, since a
    traced program can depend on them (`psum(1, 'i')` is the size of axis i)."""
    return _env.frames


def names() -> list[Hashable]:
    """Every bound axis name, outermost first."""
    return [name for name, _ in _env.frames]

"""Caches that `jax.clear_caches()` empties, registered by the layers that own them.

`clear_caches` lives in the api layer, which cannot import its sibling layers (control flow
keeps its own cache of traced bodies); each registers its clearing function here instead.
"""

from __future__ import annotations

from collections.abc import Callable

_clearers: list[Callable[[], None]] = []


def register(clear: Callable[[], None]) -> Callable[[], None]:
    """Have `clear_all` call `clear` (usable as a decorator)."""
    _clearers.append(clear)
    return clear


def clear_all() -> None:
    """Empty every registered cache."""
    for clear in _clearers:
        clear()

"""Helpers shared by the ulp-level golden tests: JAX's float32 outputs are stored as the hex of
their little-endian bit patterns."""

from __future__ import annotations

import numpy as np


def from_hex(text: str) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(text), "<u4").view("<f4").astype(np.float32)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in float32 steps (the integer order of the bit patterns; +0 and -0 coincide)."""
    def ordered(x: np.ndarray) -> np.ndarray:
        bits = np.asarray(x, np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(a) - ordered(b))

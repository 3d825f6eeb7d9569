"""`jax_log_compiles`: one warning per step of each compile, in JAX's words where the step is
the same (tracing, the compile with its avals) and in numjax's where it differs (lowering to
NumPy source instead of MLIR, compiling that source instead of running XLA)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

logger = logging.getLogger("numjax._src.dispatch")


def log_trace(name: str, seconds: float) -> None:
    logger.warning("Finished tracing + transforming %s for pjit in %s sec", name, seconds)


def log_compile(name: str, in_avals: Sequence[Any]) -> None:
    logger.warning("Compiling %s with global shapes and types %s. Argument mapping: %s.", name,
                   "[" + ", ".join(repr(a) for a in in_avals) + "]",
                   "[" + ", ".join("UnspecifiedValue" for _ in in_avals) + "]")


def log_lowering(name: str, seconds: float) -> None:
    logger.warning("Finished jaxpr to NumPy source conversion jit(%s) in %s sec", name, seconds)


def log_backend_compile(name: str, seconds: float) -> None:
    logger.warning("Finished compilation of jit(%s) in %s sec", name, seconds)

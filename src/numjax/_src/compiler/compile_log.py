"""One log record per step of each compile, in JAX's words where the step is the same
(tracing, the compile with its avals) and in numjax's where it differs (lowering to NumPy source
instead of MLIR, compiling that source instead of running XLA). As in JAX they are warnings under
`jax_log_compiles` and debug records otherwise (seen with the logger at DEBUG level)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from numjax._src import config

logger = logging.getLogger("numjax._src.dispatch")


def active() -> bool:
    """Whether compile steps are logged: `jax_log_compiles`, or a logger taking DEBUG records
    (callers skip timing the steps otherwise)."""
    return bool(config.log_compiles.value) or logger.isEnabledFor(logging.DEBUG)


def _level() -> int:
    return logging.WARNING if config.log_compiles.value else logging.DEBUG


def log_trace(name: str, seconds: float) -> None:
    logger.log(_level(), "Finished tracing + transforming %s for pjit in %s sec", name, seconds)


def log_compile(name: str, in_avals: Sequence[Any]) -> None:
    logger.log(_level(), "Compiling %s with global shapes and types %s. Argument mapping: %s.",
               name, "[" + ", ".join(repr(a) for a in in_avals) + "]",
               "[" + ", ".join("UnspecifiedValue" for _ in in_avals) + "]")


def log_lowering(name: str, seconds: float) -> None:
    logger.log(_level(), "Finished jaxpr to NumPy source conversion jit(%s) in %s sec", name,
               seconds)


def log_backend_compile(name: str, seconds: float) -> None:
    logger.log(_level(), "Finished compilation of jit(%s) in %s sec", name, seconds)


def log_pmap_trace(name: str, seconds: float) -> None:
    logger.log(_level(), "Finished tracing + transforming %s for pmap in %s sec", name, seconds)

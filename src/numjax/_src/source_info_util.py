"""JAX's `jax._src.source_info_util.summarize`, over numjax's equation source positions.

An equation records the innermost user frame it was staged from (`staging.SourcePosition`),
so a summary has that one frame whatever `num_frames` asks for.
"""

from __future__ import annotations

from typing import Any


def summarize(source_info: Any, num_frames: int = 1) -> str:
    """`file:line:column (function)` of where an equation was staged, or "unknown"."""
    return "unknown" if source_info is None else str(source_info)

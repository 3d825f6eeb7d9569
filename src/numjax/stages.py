"""numjax.stages: the types of ahead-of-time compilation's stages (JAX's `jax.stages`):
`jit(f).trace(...)` is a `Traced`, `.lower()` a `Lowered`, `.compile()` a `Compiled`."""

from __future__ import annotations

from typing import Any, Protocol, Union

from numjax._src.api.stages import ArgInfo as ArgInfo
from numjax._src.api.stages import Compiled as Compiled
from numjax._src.api.stages import Lowered as Lowered
from numjax._src.api.stages import OutInfo as OutInfo
from numjax._src.api.stages import Traced as Traced

CompilerOptions = dict[str, Union[str, bool]]  # noqa: UP007 (prints as JAX's does)


class Wrapped(Protocol):
    """A function ready to be traced, lowered and compiled: what `jit` returns."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def trace(self, *args: Any, **kwargs: Any) -> Traced: ...

    def lower(self, *args: Any, **kwargs: Any) -> Lowered: ...

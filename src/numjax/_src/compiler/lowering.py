"""How primitives lower to generated NumPy code.

A primitive's lowering rule is one of:
- `Ufunc(ufunc)`: an elementwise NumPy ufunc; the code generator may fuse runs of these and give
  them `out=` buffers.
- None: the generated code calls the primitive's NumPy kernel with its params bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Ufunc:
    """`ufunc`: the kernel (a NumPy ufunc, or a function of arrays applied elementwise).
    `fusable_as`: for a kernel that is not a plain ufunc, (a ufunc, dtype kinds): it computes
    the same values when every operand's dtype kind is among the kinds (lax.div truncates
    integers but is `np.true_divide` on floats), so the compiler may fuse it there."""

    __slots__ = ("ufunc", "fusable_as")

    def __init__(self, ufunc: Any, fusable_as: tuple[Any, str] | None = None) -> None:
        self.ufunc = ufunc
        self.fusable_as = fusable_as

    def __repr__(self) -> str:
        return f"Ufunc({getattr(self.ufunc, '__name__', self.ufunc)})"


# Primitives whose kernels always return a new buffer that aliases none of their operands (a
# matrix product, for one): buffer planning may hand such a result to a later `out=` once it
# is dead, as it does with ufunc results.
fresh_results: set[Any] = set()

# Primitives whose kernels may return a broadcast view (zero strides: np.broadcast_to), mapped
# to a factory of kernels returning buffers of their own (called as `kernel_for` is), or to
# None. Later steps of a program read a view as they would a real array; but an Array owns its
# memory: eager execution runs the owning kernel (or copies a view, `host_memory.owned`), and
# a program's outputs that may be views are copied (`buffers.broadcast_outputs`).
broadcast_results: dict[Any, Callable[..., Any] | None] = {}

# Primitives that call a Python function on the host (params["callback"]): a module records the
# callbacks it calls, and `backend_compile` receives them as its `host_callbacks`. Never
# evaluated at compile time.
host_callback_primitives: set[Any] = set()


def ufunc_lowering(ufunc: Any) -> Ufunc:
    return Ufunc(ufunc)

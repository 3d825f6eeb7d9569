"""How primitives lower to generated NumPy code.

A primitive's lowering rule is one of:
- `Ufunc(ufunc)`: an elementwise NumPy ufunc; the code generator may fuse runs of these and give
  them `out=` buffers.
- None: the generated code calls the primitive's NumPy kernel with its params bound.
"""

from __future__ import annotations

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


def ufunc_lowering(ufunc: Any) -> Ufunc:
    return Ufunc(ufunc)

"""How primitives lower to generated NumPy code.

A primitive's lowering rule is one of:
- `Ufunc(ufunc)`: an elementwise NumPy ufunc; the code generator may fuse runs of these and give
  them `out=` buffers.
- `Expression(template)`: a Python expression over the operand names, e.g. `"{0}.T"`.
- None: the generated code calls the primitive's NumPy kernel with its params bound.
"""

from __future__ import annotations

from typing import Any


class Ufunc:
    __slots__ = ("ufunc",)

    def __init__(self, ufunc: Any) -> None:
        self.ufunc = ufunc

    def __repr__(self) -> str:
        return f"Ufunc({getattr(self.ufunc, '__name__', self.ufunc)})"


class Expression:
    __slots__ = ("template",)

    def __init__(self, template: str) -> None:
        self.template = template


def ufunc_lowering(ufunc: Any) -> Ufunc:
    return Ufunc(ufunc)

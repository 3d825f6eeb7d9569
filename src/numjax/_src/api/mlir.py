"""`jax.interpreters.mlir`'s registration entry points for primitives defined outside numjax.

numjax lowers programs to NumPy code, not MLIR, so the one lowering rule a library can give is
JAX's `mlir.lower_fun(fun)`: the primitive is computed by `fun`, a function of numjax
operations. `register_lowering` turns it into the primitive's kernel factory: per input avals
and params, `fun` is jitted once and the kernel runs that compiled program on the operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.api.jit import jit
from numjax._src.core.trace import Primitive


class LoweredFun:
    """What `lower_fun(fun, multiple_results)` returns: a lowering rule computed by `fun`."""

    __slots__ = ("fun", "multiple_results")

    def __init__(self, fun: Callable[..., Any], multiple_results: bool) -> None:
        self.fun = fun
        self.multiple_results = multiple_results

    def __repr__(self) -> str:
        return f"lower_fun({getattr(self.fun, '__name__', self.fun)})"

    def kernel_factory(self, in_avals: Sequence[Any], **params: Any) -> Callable[..., Any]:
        fun, multiple = self.fun, self.multiple_results
        compiled = jit(lambda *args: fun(*args, **params))

        def kernel(*operands: Any) -> Any:
            out = compiled(*operands)
            if multiple:
                return [np.asarray(o) for o in out]
            return np.asarray(out)

        return kernel


def lower_fun(fun: Callable[..., Any], multiple_results: bool = True) -> LoweredFun:
    """A lowering rule that computes a primitive with `fun(*operands, **params)`.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax.core import Primitive
    >>> from numjax.interpreters import mlir
    >>> double_p = Primitive("double")
    >>> _ = double_p.def_abstract_eval(lambda x: x)
    >>> mlir.register_lowering(double_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
    >>> numjax.jit(double_p.bind)(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    return LoweredFun(fun, multiple_results)


def register_lowering(primitive: Primitive, rule: Any, platform: str | None = None) -> None:
    """Install `rule` as how `primitive` runs on the CPU backend.

    A rule made by `lower_fun` runs; any other rule emits MLIR, so running the primitive
    raises NotImplementedError. A rule for another platform is kept out of the way: numjax's
    only platform is the CPU.
    """
    if platform is not None and platform != "cpu":
        return
    if isinstance(rule, LoweredFun):
        primitive.def_kernel_factory(rule.kernel_factory)
    else:
        primitive.def_kernel_factory(_mlir_rule_factory(primitive, rule))


def _mlir_rule_factory(primitive: Primitive, rule: Any) -> Callable[..., Any]:
    # A rule that emits MLIR itself cannot run here. Registering one succeeds (as in JAX, where
    # registration only records it); running the primitive raises.
    def factory(in_avals: Sequence[Any], **params: Any) -> Callable[..., Any]:
        raise NotImplementedError(
            f"primitive {primitive.name}: its lowering rule {getattr(rule, '__name__', rule)} "
            "emits MLIR, which numjax cannot run (numjax runs primitives as NumPy code; a rule "
            "made by jax.interpreters.mlir.lower_fun(fun) runs).")

    return factory

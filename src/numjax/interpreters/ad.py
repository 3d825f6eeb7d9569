"""`jax.interpreters.ad`: forward and reverse mode's types and per-primitive rule tables.

`primitive_jvps[p] = rule` installs `rule` as `p`'s jvp (`rule(primals, tangents, **params)`
returning `(out, tangent_out)`); `primitive_transposes[p] = rule` its transpose
(`rule(ct, *args, **params)`, linear arguments given as `UndefinedPrimal`), as in JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.core.trace import Primitive, RuleRegistry
from numjax._src.interpreters.ad import CustomJVPException as CustomJVPException
from numjax._src.interpreters.ad import CustomVJPException as CustomVJPException
from numjax._src.interpreters.ad import JVPTrace as JVPTrace
from numjax._src.interpreters.ad import JVPTracer as JVPTracer
from numjax._src.interpreters.ad import UndefinedPrimal as UndefinedPrimal
from numjax._src.interpreters.ad import Zero as Zero
from numjax._src.interpreters.ad import add_any_p as add_jaxvals_p
from numjax._src.interpreters.ad import add_tangents as add_tangents
from numjax._src.interpreters.ad import backward_pass as backward_pass
from numjax._src.interpreters.ad import defjvp as defjvp
from numjax._src.interpreters.ad import defjvp2 as defjvp2
from numjax._src.interpreters.ad import defjvp_zero as defjvp_zero
from numjax._src.interpreters.ad import instantiate_zeros as instantiate_zeros
from numjax._src.interpreters.ad import is_undefined_primal as is_undefined_primal
from numjax._src.interpreters.ad import linear_jvp

primitive_jvps = RuleRegistry("jvp")
primitive_transposes = RuleRegistry("transpose")

__all__ = ["add_jaxvals_p", "deflinear", "deflinear2", "primitive_jvps", "primitive_transposes"]


def deflinear(primitive: Primitive, transpose_rule: Callable[..., Sequence[Any]]) -> None:
    """A linear primitive: its jvp applies it to the tangents; `transpose_rule(ct, **params)`."""
    _deflinear(primitive, lambda ct, *args, **params: transpose_rule(ct, **params))


def deflinear2(primitive: Primitive, transpose_rule: Callable[..., Sequence[Any]]) -> None:
    """Like `deflinear`, for transposes that read the operands: `transpose_rule(ct, *args)`."""
    _deflinear(primitive, transpose_rule)


def _deflinear(primitive: Primitive, transpose_rule: Callable[..., Sequence[Any]]) -> None:

    linear_jvp(primitive)

    def transpose(ct: Any, *args: Any, **params: Any) -> Sequence[Any]:
        if type(ct) is Zero:
            return [None] * len(args)  # no cotangent reaches any operand
        return transpose_rule(ct, *args, **params)

    primitive.def_transpose(transpose)

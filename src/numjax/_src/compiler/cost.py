"""A static cost model of a jaxpr: flops, transcendentals and bytes accessed, as
`cost_analysis()` reports."""

from __future__ import annotations

import math
from typing import Any

from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr


# math.prod on Python ints: exact, and ~20x cheaper than np.prod on a tuple (every jit compile
# runs this model to decide between inline and asynchronous dispatch).
def _nbytes(aval: Any) -> float:
    return float(math.prod(aval.shape) * aval.dtype.itemsize)


def _size(aval: Any) -> float:
    return float(math.prod(aval.shape))


# Cost rules a primitive's module declares as its `Primitive.cost`: (flops, transcendentals).
def transcendental(in_avals: Any, out_avals: Any, params: Any) -> tuple[float, float]:
    """An elementwise operation XLA's cost analysis counts as transcendental (exp, log, ...)."""
    return 0.0, sum(_size(a) for a in out_avals)


def per_input_element(in_avals: Any, out_avals: Any, params: Any) -> tuple[float, float]:
    """A reduction: one flop per element of its operand."""
    return _size(in_avals[0]), 0.0


def _jaxpr_cost(jaxpr: Jaxpr) -> tuple[float, float, float]:
    flops = transcendentals = bytes_accessed = 0.0
    for eqn in jaxpr.eqns:
        inner = eqn.params.get("jaxpr")
        if isinstance(inner, ClosedJaxpr):
            f, t, b = _jaxpr_cost(inner.jaxpr)
            flops += f
            transcendentals += t
            bytes_accessed += b
            continue
        in_avals = [a.aval for a in eqn.invars]
        out_avals = [v.aval for v in eqn.outvars]
        bytes_accessed += sum(_nbytes(a) for a in in_avals) + sum(_nbytes(a) for a in out_avals)
        rule = eqn.primitive.cost
        if rule is not None:
            f, t = rule(in_avals, out_avals, eqn.params)
            flops += f
            transcendentals += t
        elif eqn.primitive.lowering is not None:
            flops += sum(_size(a) for a in out_avals)
    return flops, transcendentals, bytes_accessed


def cost_analysis(closed: ClosedJaxpr) -> dict[str, float]:
    """`{"flops": ..., "bytes accessed": ...}` estimated from the equations' shapes, with
    `"transcendentals"` when there are any (as XLA reports it)."""
    flops, transcendentals, bytes_accessed = _jaxpr_cost(closed.jaxpr)
    cost = {"flops": flops, "bytes accessed": bytes_accessed}
    if transcendentals:
        cost["transcendentals"] = transcendentals
    return cost

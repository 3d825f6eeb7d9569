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


# Elementwise primitives counted as transcendentals instead of flops (the operations XLA's cost
# analysis counts so; exp2 lowers to an exponential).
TRANSCENDENTAL = frozenset({"erf", "exp", "exp2", "log", "logistic", "pow", "sqrt", "cbrt",
                            "rsqrt", "tanh", "sin", "cos", "expm1", "log1p", "atan2", "tan"})


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
        name = eqn.primitive.name
        if name == "dot_general":
            (lc, _), _ = eqn.params["dimension_numbers"]
            contracted = float(math.prod(in_avals[0].shape[d] for d in lc))
            flops += 2.0 * _size(out_avals[0]) * contracted
        elif name.startswith("reduce_"):
            flops += _size(in_avals[0])
        elif name in TRANSCENDENTAL:
            transcendentals += sum(_size(a) for a in out_avals)
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

"""`jax.interpreters.partial_eval`: staging a function to a jaxpr, and the traces' names.

>>> import numjax.numpy as jnp
>>> from numjax.api_util import shaped_abstractify
>>> from numjax.extend import linear_util as lu
>>> from numjax.interpreters import partial_eval as pe
>>> jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(
...     lu.wrap_init(lambda x: [jnp.sin(x)]), [shaped_abstractify(1.0)])
>>> print(jaxpr), out_avals
{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }
(None, [ShapedArray(float32[], weak_type=True)])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import Jaxpr
from numjax._src.core.trace import current_trace, new_trace
from numjax._src.interpreters.ad import PartialEvalTrace as JaxprTrace
from numjax._src.interpreters.partial_eval import is_unknown
from numjax._src.interpreters.staging import StagingTrace as DynamicJaxprTrace
from numjax._src.interpreters.staging import StagingTracer as DynamicJaxprTracer
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.linear_util import WrappedFun

__all__ = ["DynamicJaxprTrace", "DynamicJaxprTracer", "JaxprTrace", "PartialVal",
           "trace_to_jaxpr_dynamic", "trace_to_jaxpr_nounits"]


class PartialVal(tuple):  # type: ignore[type-arg]
    """`(aval, None)` for an unknown value, `(None, value)` for a known one (JAX's layout)."""

    def __new__(cls, xs: tuple[Any, Any]) -> PartialVal:
        return tuple.__new__(cls, xs)

    @classmethod
    def known(cls, const: Any) -> PartialVal:
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval: Any) -> PartialVal:
        return PartialVal((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self) -> Any:
        """The known value (None if unknown)."""
        return self[1] if self[0] is None else None

    def get_aval(self) -> Any:
        """The aval, of the value if known."""
        known = self.get_known()
        return get_aval(known) if known is not None else self[0]


def trace_to_jaxpr_nounits(
    fun: WrappedFun, pvals: Sequence[PartialVal], instantiate: bool | Sequence[bool] = False
) -> tuple[Jaxpr, list[PartialVal], list[Any]]:
    """Run `fun` on known values now and stage what depends on unknown ones: the jaxpr from the
    unknown inputs to the unknown outputs (known intermediate values are its constants), each
    output's PartialVal, and the constants. An output with `instantiate` True is made unknown.
    """
    with new_trace(JaxprTrace(current_trace())) as trace:
        assert isinstance(trace, JaxprTrace)
        args = [pv.get_known() if pv.is_known() else trace.new_arg(pv.get_aval())
                for pv in pvals]
        outs = list(fun.call_wrapped(*args))
        if isinstance(instantiate, bool):
            instantiate = [instantiate] * len(outs)
        out_pvals, staged = [], []
        for out, inst in zip(outs, instantiate, strict=True):
            if is_unknown(trace, out) or inst:
                out_pvals.append(PartialVal.unknown(get_aval(out)))
                staged.append(out)
            else:
                out_pvals.append(PartialVal.known(out))
        closed = trace.to_jaxpr(staged)
    return closed.jaxpr, out_pvals, list(closed.consts)


def trace_to_jaxpr_dynamic(
    fun: WrappedFun, in_avals: Sequence[Any], debug_info: Any = None, *,
    keep_inputs: Sequence[bool] | None = None
) -> tuple[Jaxpr, list[Any], list[Any]]:
    """Stage `fun` (flat arguments in, a list of outputs out) at `in_avals`: the jaxpr (its
    constants as constvars), the output avals and the constants' values (three values, as this
    public name gives them in JAX; JAX's internal function also returns tracked attributes).

    `keep_inputs` names the inputs that become the jaxpr's invars; an input left out may not be
    used by `fun`."""
    closed = trace_to_jaxpr(fun.call_wrapped, in_avals)
    jaxpr = closed.jaxpr
    if keep_inputs is not None and not all(keep_inputs):
        kept = [v for v, keep in zip(jaxpr.invars, keep_inputs, strict=True) if keep]
        dropped = {v for v in jaxpr.invars if v not in kept}
        used = {v for eqn in jaxpr.eqns for v in eqn.invars} | set(jaxpr.outvars)
        if dropped & used:
            raise NotImplementedError(
                "trace_to_jaxpr_dynamic: an input with keep_inputs False is used")
        jaxpr = jaxpr.replace(invars=kept)
    return jaxpr, list(closed.out_avals), list(closed.consts)

"""`core.call_p` and `core.closed_call_p`: calls of a traced function, which libraries bind
and match on (numpyro's provenance tracking keys its rules by them).

Both are bound with the function first, as in JAX: `closed_call_p.bind(fun, *args)` traces
`fun` (a `linear_util` WrappedFun or a plain function returning a list) at the arguments'
avals and records an equation holding the callee, `call_jaxpr`: a ClosedJaxpr for
`closed_call`, an open Jaxpr for `call` (its constants become leading operands). Bound again
from such an equation (an interpreter re-binding `eqn.params`) they take the operands alone.

A call is a jit without a compile cache: the rules are pjit's applied to the callee, so a
transformed call binds pjit with the transformed jaxpr, and the compiler inlines it like a
nested jit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numjax._src.api import pjit
from numjax._src.compiler.executables import executable_for
from numjax._src.core.avals import shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, jaxpr_as_fun
from numjax._src.core.trace import Primitive
from numjax._src.interpreters.staging import trace_to_jaxpr


class CallPrimitive(Primitive):
    """A primitive bound with the function it calls: `p.bind(fun, *args)`."""

    multiple_results = True
    call_primitive = True

    def bind(self, *args: Any, **params: Any) -> Any:
        if "call_jaxpr" in params:  # re-bound from an equation
            return super().bind(*args, **params)
        fun, *operands = args
        call: Callable[..., Any] = getattr(fun, "call_wrapped", fun)
        closed = trace_to_jaxpr(lambda *xs: list(call(*xs)),
                                [shaped_abstractify(x) for x in operands])
        if self is closed_call_p:
            return super().bind(*operands, call_jaxpr=closed, **params)
        # `call` holds an open jaxpr: the callee's constants are passed as its first operands.
        jaxpr = closed.jaxpr.replace(constvars=[],
                                     invars=[*closed.jaxpr.constvars, *closed.jaxpr.invars])
        return super().bind(*closed.consts, *operands, call_jaxpr=jaxpr, **params)

    def get_bind_params(self, params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """The function and parameters that bind this primitive again from an equation."""
        new_params = dict(params)
        callee = _closed(new_params.pop("call_jaxpr"))
        return [jaxpr_as_fun(callee)], new_params


def _closed(call_jaxpr: Any) -> ClosedJaxpr:
    return call_jaxpr if isinstance(call_jaxpr, ClosedJaxpr) else ClosedJaxpr(call_jaxpr, [])


closed_call_p = CallPrimitive("closed_call")
call_p = CallPrimitive("call")

for _p in (closed_call_p, call_p):
    _p.inlinable_call = True
    _p.def_effectful_abstract_eval(
        lambda *avals, call_jaxpr: (_closed(call_jaxpr).out_avals, _closed(call_jaxpr).effects))
    _p.def_impl(lambda *bufs, call_jaxpr, _name=_p.name: executable_for(
        _closed(call_jaxpr), _name)(*bufs))
    _p.def_jvp(lambda primals, tangents, *, call_jaxpr, _name=_p.name: pjit._pjit_jvp(
        primals, tangents, jaxpr=_closed(call_jaxpr), name=_name))
    _p.def_batch(lambda args, dims, *, call_jaxpr, _name=_p.name: pjit._pjit_batch(
        args, dims, jaxpr=_closed(call_jaxpr), name=_name))
    _p.def_transpose(lambda cts, *args, call_jaxpr, _name=_p.name: pjit._pjit_transpose(
        cts, *args, jaxpr=_closed(call_jaxpr), name=_name))
    _p.def_partial_eval(lambda trace, args, params, _name=_p.name: pjit._pjit_partial_eval(
        trace, args, {"jaxpr": _closed(params["call_jaxpr"]), "name": _name}))


__all__ = ["CallPrimitive", "Jaxpr", "call_p", "closed_call_p"]

"""Jaxpr-to-jaxpr passes run before lowering: inline nested jit, dead-code elimination."""

from __future__ import annotations

from typing import Any

from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Var

# Primitives whose equations hold a call to a jaxpr (`params["jaxpr"]`) that can be inlined.
call_primitives: set[Any] = set()


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Replace every call equation (nested jit) by the equations of its jaxpr, recursively.
    The callee's constants become constants of the result."""
    if not any(e.primitive in call_primitives for e in closed.jaxpr.eqns):
        return closed
    constvars = list(closed.jaxpr.constvars)
    consts = list(closed.consts)
    eqns: list[JaxprEqn] = []
    renames: dict[Var, Any] = {}
    _inline_into(closed.jaxpr, renames, eqns, constvars, consts)
    outvars = [renames.get(a, a) if isinstance(a, Var) else a for a in closed.jaxpr.outvars]
    jaxpr = closed.jaxpr.replace(constvars=constvars, eqns=eqns, outvars=outvars)
    return ClosedJaxpr(jaxpr, consts)


def _inline_into(jaxpr: Jaxpr, renames: dict[Var, Any], out: list[JaxprEqn],
                 constvars: list[Var], consts: list[Any]) -> None:
    def sub(a: Any) -> Any:
        return renames.get(a, a) if isinstance(a, Var) else a

    for eqn in jaxpr.eqns:
        if eqn.primitive in call_primitives and not eqn.effects:
            inner: ClosedJaxpr = eqn.params["jaxpr"]
            inner_renames: dict[Var, Any] = {}
            for v, c in zip(inner.jaxpr.constvars, inner.consts, strict=True):
                fresh = Var(v.aval)
                constvars.append(fresh)
                consts.append(c)
                inner_renames[v] = fresh
            for v, a in zip(inner.jaxpr.invars, eqn.invars, strict=True):
                inner_renames[v] = sub(a)
            _inline_into(inner.jaxpr, inner_renames, out, constvars, consts)
            for v, a in zip(eqn.outvars, inner.jaxpr.outvars, strict=True):
                if not isinstance(v, DropVar):
                    renames[v] = inner_renames.get(a, a) if isinstance(a, Var) else a
        else:
            out.append(eqn.replace(invars=[sub(a) for a in eqn.invars]))


def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations whose outputs nobody reads, unless they have effects; drop unused
    constants."""
    jaxpr = closed.jaxpr
    live: set[Var] = {a for a in jaxpr.outvars if isinstance(a, Var)}
    kept: list[JaxprEqn] = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(a for a in eqn.invars if isinstance(a, Var))
    kept.reverse()
    constvars, consts = [], []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        if v in live:
            constvars.append(v)
            consts.append(c)
    return ClosedJaxpr(jaxpr.replace(constvars=constvars, eqns=kept), consts)


def run_passes(closed: ClosedJaxpr) -> ClosedJaxpr:
    return dce(inline_calls(closed))


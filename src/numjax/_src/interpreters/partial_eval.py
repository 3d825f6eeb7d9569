"""Partial evaluation of a whole jaxpr: split it into a known part and an unknown part.

Higher-order primitives (jit, cond, scan) use this under `linearize`: the known part (primal
work) runs now and also returns *residuals*; the unknown part (tangent work) is staged and
reads those residuals. The split reuses `PartialEvalTrace`: evaluating the jaxpr with the
unknown inputs as that trace's tracers stages exactly the unknown equations, and whatever
known values they read become the residuals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from numjax._src.core.trace import Tracer, current_trace, new_trace
from numjax._src.interpreters.ad import PartialEvalTrace
from numjax._src.interpreters.staging import StagingTracer, trace_to_jaxpr


class SplitJaxpr:
    """`known`: known inputs -> known outputs + residuals.
    `unknown`: residuals + unknown inputs -> unknown outputs."""

    def __init__(self, known: ClosedJaxpr, unknown: ClosedJaxpr, out_unknowns: list[bool],
                 res_avals: list[Any]) -> None:
        self.known = known
        self.unknown = unknown
        self.out_unknowns = out_unknowns
        self.res_avals = res_avals


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns: Sequence[bool],
                       instantiate: Sequence[bool] | bool = False) -> SplitJaxpr:
    """Split `closed` given which inputs are unknown. Outputs marked in `instantiate` are
    unknown even if computable from known inputs (they pass through as residuals)."""
    in_avals = closed.in_avals
    inst = [instantiate] * len(closed.out_avals) if isinstance(instantiate, bool) \
        else list(instantiate)
    store: dict[str, Any] = {}

    def known_fun(*known_args: Any) -> list[Any]:
        with new_trace(PartialEvalTrace(current_trace())) as pe:
            assert isinstance(pe, PartialEvalTrace)
            it = iter(known_args)
            args = [pe.new_arg(a) if u else next(it)
                    for a, u in zip(in_avals, unknowns, strict=True)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
            out_unknowns = [(type(o) is StagingTracer and o._trace is pe) or i
                            for o, i in zip(outs, inst, strict=True)]
            unknown_closed = pe.to_jaxpr([o for o, u in zip(outs, out_unknowns, strict=True)
                                          if u])
        residuals = list(unknown_closed.consts)
        jaxpr = unknown_closed.jaxpr
        store["unknown"] = ClosedJaxpr(
            jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars]), [])
        store["out_unknowns"] = out_unknowns
        store["res_avals"] = [get_aval(r) for r in residuals]
        known_outs = [o for o, u in zip(outs, out_unknowns, strict=True) if not u]
        return known_outs + residuals

    known_avals = [a for a, u in zip(in_avals, unknowns, strict=True) if not u]
    known = trace_to_jaxpr(known_fun, known_avals)
    return SplitJaxpr(known, store["unknown"], store["out_unknowns"], store["res_avals"])


def is_unknown(trace: Any, x: Any) -> bool:
    return type(x) is StagingTracer and x._trace is trace


def hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Turn constants that are tracers of enclosing traces into leading invars, so the jaxpr
    holds only concrete constants; returns the jaxpr and the tracers to pass for them."""
    jaxpr = closed.jaxpr
    keep_vars, keep_consts, moved_vars, moved = [], [], [], []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        if isinstance(c, Tracer):
            moved_vars.append(v)
            moved.append(c)
        else:
            keep_vars.append(v)
            keep_consts.append(c)
    if not moved:
        return closed, []
    new = jaxpr.replace(constvars=keep_vars, invars=[*moved_vars, *jaxpr.invars])
    return ClosedJaxpr(new, keep_consts), moved


class RematSplit(NamedTuple):
    """`known`: the equations as run now, those split by their `remat_rule` also returning
    their residuals; `recompute`: the equations run again for the unknown part, less those
    computing a saved value, the split ones reading their residuals; `saved`: the values the
    recomputation reads from the known run (in the order `known` defines them)."""

    known: list[JaxprEqn]
    recompute: list[JaxprEqn]
    saved: list[Var]


def remat_split(eqns: Sequence[JaxprEqn], needed: set[Var],
                policy: Callable[..., bool] | None) -> RematSplit:
    """Which of the known equations `eqns` a checkpointed function saves and which it
    recomputes, given the values its unknown part reads (`needed`). Walking back from those,
    an equation the policy saves is saved (what only it reads is not needed); an equation
    with a `remat_rule` saves what the policy saves inside its jaxprs; any other is
    recomputed, and its operands are needed in turn."""
    needed = set(needed)
    saved_set: set[Var] = set()
    known = list(eqns)
    replaced: dict[int, JaxprEqn] = {}
    for i in reversed(range(len(known))):
        e = known[i]
        outs = [v for v in e.outvars if v in needed]
        if not outs:
            continue
        if policy is not None and policy(e.primitive, *[a.aval for a in e.invars], **e.params):
            saved_set.update(outs)
            continue
        rule = e.primitive.remat_rule
        split = rule(e, policy) if rule is not None and policy is not None else None
        if split is None:
            needed.update(a for a in e.invars if isinstance(a, Var))
            continue
        known[i], replaced[i], residuals = split
        saved_set.update(residuals)
        needed.update(a for a in replaced[i].invars
                      if isinstance(a, Var) and a not in saved_set)
    saved = [v for e in known for v in e.outvars if v in saved_set]
    recompute = [replaced.get(i, e) for i, e in enumerate(eqns)
                 if not any(v in saved_set for v in e.outvars)]
    return RematSplit(known, recompute, saved)


def remat_split_jaxpr(closed: ClosedJaxpr, policy: Callable[..., bool] | None
                      ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[Any]] | None:
    """A jaxpr whose inputs are all known (a branch, a loop body, a callee), split by
    `remat_split` for all its outputs: (the jaxpr returning its outputs then the saved
    values, the jaxpr reading the saved values then its inputs, the saved values' avals), or
    None when the policy saves nothing inside."""
    jaxpr = closed.jaxpr
    split = remat_split(jaxpr.eqns, {v for v in jaxpr.outvars if isinstance(v, Var)}, policy)
    if not split.saved:
        return None
    known = ClosedJaxpr(jaxpr.replace(eqns=split.known,
                                      outvars=[*jaxpr.outvars, *split.saved]), closed.consts)
    recompute = ClosedJaxpr(jaxpr.replace(invars=[*split.saved, *jaxpr.invars],
                                          eqns=split.recompute), closed.consts)
    return known, recompute, [v.aval for v in split.saved]

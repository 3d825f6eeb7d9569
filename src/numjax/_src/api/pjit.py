"""The `pjit` primitive: a call to a traced jaxpr, what `jit` binds under a transformation.

Its rules transform the whole jaxpr (jvp, vmap, transpose) and bind `pjit` again with the
result, or split it into known and unknown parts under linearize. Evaluated eagerly it runs the
jaxpr's compiled executable; inside another compiled program the passes inline it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import config
from numjax._src.compiler import native_structural, passes
from numjax._src.compiler.executables import executable_for
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, JaxprEqn, Var
from numjax._src.core.trace import Primitive, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import StagingTrace

pjit_p = Primitive("pjit")
pjit_p.multiple_results = True
pjit_p.inlinable_call = True


@pjit_p.def_effectful_abstract_eval
def _pjit_abstract_eval(*avals: Any, jaxpr: ClosedJaxpr, name: str) -> Any:
    return jaxpr.out_avals, jaxpr.effects


def _pjit_impl(*bufs: Any, jaxpr: ClosedJaxpr, name: str) -> list[Any]:
    return executable_for(jaxpr, name)(*bufs)


pjit_p.def_impl(_pjit_impl)
pjit_p.dce_rule = passes.dce_call_rule


def _pjit_remat(eqn: JaxprEqn, policy: Any) -> tuple[JaxprEqn, JaxprEqn, list[Var]] | None:
    """A jit inside a checkpointed function saving what the policy saves inside it: the
    known call also returns those values, the recomputing call reads them."""
    split = partial_eval.remat_split_jaxpr(eqn.params["jaxpr"], policy)
    if split is None:
        return None
    known, recompute, res_avals = split
    residuals = [Var(a) for a in res_avals]
    return (eqn.replace(outvars=[*eqn.outvars, *residuals],
                        params={**eqn.params, "jaxpr": known}),
            eqn.replace(invars=[*residuals, *eqn.invars],
                        params={**eqn.params, "jaxpr": recompute}),
            residuals)


pjit_p.remat_rule = _pjit_remat


# The jaxprs the rules below derive from a call's jaxpr, per jaxpr (held weakly: a jitted
# function's traced program is one object per signature) and per (rule, pattern of symbolic
# zeros or unknowns, trace context). JAX caches them the same way, so a second gradient of
# the same jitted function neither linearizes nor transposes it again: the user rules inside
# (a custom_vjp's backward function) are traced once, which libraries count on (equinox counts
# its traces of a backward function).
_derived: weakref.WeakKeyDictionary[ClosedJaxpr, dict[tuple[Any, ...], Any]] = \
    weakref.WeakKeyDictionary()


def _derive(transform: Callable[..., Any], closed: ClosedJaxpr, *pattern: tuple[bool, ...]
            ) -> Any:
    """`transform(closed, *pattern)`, computed once per jaxpr, pattern and trace context."""
    per_jaxpr = _derived.setdefault(closed, {})
    key = (transform, *pattern, config.trace_context_id())
    found = per_jaxpr.get(key)
    if found is None:
        found = per_jaxpr[key] = transform(closed, *pattern)
    return found


def _pjit_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr,
              name: str) -> tuple[list[Any], list[Any]]:
    # Symbolic zero tangents stay symbolic through the call, both ways, as in JAX.
    has_tangent = tuple(type(t) is not ad.Zero for t in tangents)
    jvp_jaxpr, out_nonzero = _derive(jaxpr_transforms.jvp_jaxpr_keeping_zeros, jaxpr,
                                     has_tangent)
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    outs = pjit_p.bind(*primals, *nonzero, jaxpr=jvp_jaxpr, name=name)
    m = len(jaxpr.out_avals)
    out_tangents = iter(outs[m:])
    return outs[:m], [next(out_tangents) if nz else ad.Zero(ad.tangent_aval(a))
                      for a, nz in zip(jaxpr.out_avals, out_nonzero, strict=True)]


def _pjit_batch(args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr, name: str
                ) -> tuple[list[Any], list[Any]]:
    # No batched operand: a function of no arguments reading the axis (axis_index).
    trace = batching.rule_trace()
    size = next((get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None),
                None if trace is None else trace.axis_size)
    assert size is not None
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    # Outputs the rules leave unbatched stay unbatched (as in JAX).
    batched, out_batched = jaxpr_transforms.batch_jaxpr_keeping_unbatched(
        jaxpr, size, [d is not None for d in dims])
    outs = pjit_p.bind(*args, jaxpr=batched, name=name)
    return outs, [0 if b else None for b in out_batched]


def _pjit_transpose(cts: Sequence[Any], *args: Any, jaxpr: ClosedJaxpr, name: str
                    ) -> list[Any]:
    # Symbolic zero cotangents are neither operands nor results of the transposed call (JAX
    # prunes them the same way): a rule inside sees `Zero`, never an array of zeros, and an
    # integer input's cotangent stays symbolic rather than becoming a float0 array.
    linear = tuple(ad.is_undefined_primal(x) for x in args)
    known = [x for x, lin in zip(args, linear, strict=True) if not lin]
    zero_cts = tuple(type(c) is ad.Zero for c in cts)
    transposed, in_nonzero = _derive(_transpose_jaxpr, jaxpr, linear, zero_cts)
    outs = pjit_p.bind(*known, *[c for c in cts if type(c) is not ad.Zero],
                       jaxpr=transposed, name=name)
    it = iter(outs)
    nonzero = iter(in_nonzero)
    return [(next(it) if next(nonzero) else None) if lin else None for lin in linear]


def _transpose_jaxpr(closed: ClosedJaxpr, linear: tuple[bool, ...], zero_cts: tuple[bool, ...]
                     ) -> tuple[ClosedJaxpr, list[bool]]:
    return jaxpr_transforms.transpose_jaxpr_keeping_zeros(closed, linear, zero_cts=zero_cts)


def _pjit_partial_eval(trace: Any, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Under linearize: a known jit computes the primal outputs and the residuals now; an
    unknown jit, staged, computes the tangents from them."""
    closed: ClosedJaxpr = params["jaxpr"]
    name = params["name"]
    unknowns = tuple(partial_eval.is_unknown(trace, x) for x in args)
    split = _derive(partial_eval.partial_eval_jaxpr, closed, unknowns)
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    with set_current_trace(trace.parent):
        known_outs = pjit_p.bind(*known_args, jaxpr=split.known, name=name)
    n_res = len(split.res_avals)
    residuals = known_outs[len(known_outs) - n_res:]
    known_vals = iter(known_outs[:len(known_outs) - n_res])
    unknown_args = [x for x, u in zip(args, unknowns, strict=True) if u]
    unknown_vals = iter(StagingTrace.process_primitive(
        trace, pjit_p, [*residuals, *unknown_args], {"jaxpr": split.unknown, "name": name}))
    return [next(unknown_vals) if u else next(known_vals) for u in split.out_unknowns]


def _pjit_staging(trace: StagingTrace, args: Sequence[Any], params: dict[str, Any]
                  ) -> list[Any]:
    """Staged, an output that is one of the call's arguments is that argument itself, not an
    output of the call (as JAX forwards them): `int(jit(lambda x: x)(3))` under jit is 3, and
    the call keeps only the outputs it computes."""
    closed: ClosedJaxpr = params["jaxpr"]
    positions = {v: i for i, v in enumerate(closed.jaxpr.invars)}
    forwarded = [positions.get(v) if isinstance(v, Var) else None
                 for v in closed.jaxpr.outvars]
    if not trace.stages_constants or all(f is None for f in forwarded):
        # A partial-evaluation trace keeps the call whole: its outputs' known/unknown split
        # is the call's.
        return trace.stage(pjit_p, args, params)  # type: ignore[no-any-return]
    computed = [v for v, f in zip(closed.jaxpr.outvars, forwarded, strict=True) if f is None]
    pruned = ClosedJaxpr(closed.jaxpr.replace(outvars=computed), closed.consts)
    outs = iter(trace.stage(pjit_p, args, {**params, "jaxpr": pruned}))
    return [args[f] if f is not None else next(outs) for f in forwarded]


pjit_p.staging_rule = _pjit_staging
pjit_p.def_jvp(_pjit_jvp)
pjit_p.def_batch(_pjit_batch)
pjit_p.native = native_structural.call_rule
pjit_p.def_transpose(_pjit_transpose)
pjit_p.def_partial_eval(_pjit_partial_eval)


def _pjit_params(params: dict[str, Any]) -> dict[str, Any]:
    return {"name": _Name(params["name"]), "jaxpr": params["jaxpr"]}


class _Name(str):
    pass


pjit_p.def_param_printer(_pjit_params)

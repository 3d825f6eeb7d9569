"""Loops: `while_loop`, `scan`, and `fori_loop` / `map` built on them.

Both primitives run as Python loops around compiled bodies, so an iteration costs the NumPy
calls of its body. `scan` is fully differentiable: under linearize the body splits into a known
scan (carrying primal values and stacking per-iteration residuals) and an unknown one, which
transposes to a scan running the other way. `while_loop` supports jvp and batching (a batched
predicate keeps the loop running while any example needs it and freezes the finished ones);
reverse mode raises JAX's error.
"""

from __future__ import annotations

import collections
import inspect
import operator
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes, traceback_util
from numjax._src.api.transformations import vmap
from numjax._src.compiler import buffers, native_structural, passes
from numjax._src.compiler.executables import executable_for
from numjax._src.control_flow.common import (
    TracedFun,
    check_tree_and_avals,
    promote_weak_typed_inputs,
    trace_fun,
    typematch,
)
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.effects import io_effect, ordered_io_effect, outside_call_effect
from numjax._src.core.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from numjax._src.core.trace import Primitive, Tracer, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import StagingTrace, trace_to_jaxpr
from numjax._src.lax import lax
from numjax._src.lax.cumulative import prefix_scan
from numjax._src.tree_util import (
    equality_errors,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
    treedef_is_leaf,
)

# ---- while ---------------------------------------------------------------------------------

while_p = Primitive("while")
while_p.multiple_results = True


@while_p.def_effectful_abstract_eval
def _while_abstract_eval(*args: Any, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                         cond_nconsts: int, body_nconsts: int) -> Any:
    return body_jaxpr.out_avals, body_jaxpr.effects | cond_jaxpr.effects


def _while_impl(*args: Any, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr,
                cond_nconsts: int, body_nconsts: int) -> list[Any]:
    cond_consts = args[:cond_nconsts]
    body_consts = args[cond_nconsts:cond_nconsts + body_nconsts]
    carry = list(args[cond_nconsts + body_nconsts:])
    cond_fn = executable_for(cond_jaxpr, "while_cond")
    body_fn = executable_for(body_jaxpr, "while_body")
    while cond_fn(*cond_consts, *carry)[0]:
        carry = body_fn(*body_consts, *carry)
    return carry


def _while_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, cond_jaxpr: ClosedJaxpr,
               body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
               ) -> tuple[list[Any], list[Any]]:
    nc, nb = cond_nconsts, body_nconsts
    cond_consts, body_consts, init = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    bconst_t, init_t = tangents[nc:nc + nb], tangents[nc + nb:]
    # Carries with tangents: floating ones with a nonzero initial tangent, and those the body
    # gives one (the others keep symbolic zeros, as in JAX).
    const_t = [type(t) is not ad.Zero for t in bconst_t]
    carry_t = [_is_float(a) and type(t) is not ad.Zero
               for a, t in zip(body_jaxpr.out_avals, init_t, strict=True)]
    carry_t = _fixed_point_tangents(body_jaxpr, const_t, carry_t, ())
    jvp_body = jaxpr_transforms.jvp_jaxpr(body_jaxpr, [*const_t, *carry_t])
    # jvp_body: (bconsts, carry, bconst tangents, carry tangents) -> (carry', carry tangents')
    # reorder to the while layout: consts = (bconsts, bconst tangents), carry = (c, ct).
    n_ct = sum(const_t)
    body = _permute_inputs(jvp_body, nb, len(init), n_ct, sum(carry_t))
    body = _keep_outputs(body, len(init), carry_t)
    cond = _ignore_inputs(cond_jaxpr, [ad.tangent_aval(a) for a, keep in
                                       zip(body_jaxpr.out_avals, carry_t, strict=True) if keep])
    tangents_in = [ad.instantiate_zeros(t) for t, keep in zip(init_t, carry_t, strict=True)
                   if keep]
    nonzero_const_t = [t for t in bconst_t if type(t) is not ad.Zero]
    outs = while_p.bind(*cond_consts, *body_consts, *nonzero_const_t, *init, *tangents_in,
                        cond_jaxpr=cond, body_jaxpr=body, cond_nconsts=nc,
                        body_nconsts=nb + n_ct)
    carry_out = outs[:len(init)]
    it = iter(outs[len(init):])
    out_t = [next(it) if keep else ad.Zero(ad.tangent_aval(a))
             for keep, a in zip(carry_t, body_jaxpr.out_avals, strict=True)]
    return carry_out, out_t


def _is_float(aval: Any) -> bool:
    return aval.dtype.kind in "fc" or aval.dtype.name == "bfloat16"


def _permute_inputs(closed: ClosedJaxpr, n_consts: int, n_carry: int, n_const_t: int,
                    n_carry_t: int) -> ClosedJaxpr:
    """(consts, carry, const tangents, carry tangents) -> (consts, const tangents, carry,
    carry tangents)."""
    v = closed.jaxpr.invars
    a, b = n_consts, n_consts + n_carry
    c = b + n_const_t
    order = [*v[:a], *v[b:c], *v[a:b], *v[c:c + n_carry_t]]
    return ClosedJaxpr(closed.jaxpr.replace(invars=order), closed.consts)


def _keep_outputs(closed: ClosedJaxpr, n_primal: int, keep_tangent: Sequence[bool]
                  ) -> ClosedJaxpr:
    outs = closed.jaxpr.outvars
    kept = [*outs[:n_primal], *[o for o, k in zip(outs[n_primal:], keep_tangent, strict=True)
                                if k]]
    return ClosedJaxpr(closed.jaxpr.replace(outvars=kept), closed.consts)


def _ignore_inputs(closed: ClosedJaxpr, extra_avals: Sequence[Any]) -> ClosedJaxpr:
    """`closed` taking more trailing inputs (tangent carries) that it does not read."""
    extra = [Var(a) for a in extra_avals]
    return ClosedJaxpr(closed.jaxpr.replace(invars=[*closed.jaxpr.invars, *extra]),
                       closed.consts)


def _while_batch(values: Sequence[Any], dims: Sequence[Any], *, cond_jaxpr: ClosedJaxpr,
                 body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                 ) -> tuple[list[Any], list[Any]]:
    if ordered_io_effect in body_jaxpr.effects | cond_jaxpr.effects:
        raise Exception("Ordered IO effects not supported in vmap.")
    nc, nb = cond_nconsts, body_nconsts
    size = next(get_aval(x).shape[d] for x, d in zip(values, dims, strict=True)
                if d is not None)
    values = [batching.bdim_at_front(x, d, size) if d is not None else x
              for x, d in zip(values, dims, strict=True)]
    batched = [d is not None for d in dims]
    cconst_b, bconst_b, carry_b = batched[:nc], batched[nc:nc + nb], batched[nc + nb:]
    # Carries batched initially, or made batched by the body, stay batched.
    while True:
        probe = jaxpr_transforms.batched_outputs(body_jaxpr, size, [*bconst_b, *carry_b])
        new = [a or b for a, b in zip(carry_b, probe, strict=True)]
        if new == carry_b:
            break
        carry_b = new
    pred_batched = any(jaxpr_transforms.batched_outputs(cond_jaxpr, size,
                                                        [*cconst_b, *carry_b]))
    if pred_batched:
        carry_b = [True] * len(carry_b)
        # Finished examples would still run the body's IO (as in JAX, refused).
        if io_effect in body_jaxpr.effects | cond_jaxpr.effects:
            raise Exception("Unordered IO effects not supported in while_loop with batched "
                            "predicate")
    cconsts, bconsts, init = values[:nc], values[nc:nc + nb], values[nc + nb:]
    init = [batching.move_dim(x, None, 0, size) if want and not have else x
            for x, want, have in zip(init, carry_b, batched[nc + nb:], strict=True)]
    body = jaxpr_transforms.batch_jaxpr(body_jaxpr, size, [*bconst_b, *carry_b], carry_b)
    cond = jaxpr_transforms.batch_jaxpr(cond_jaxpr, size, [*cconst_b, *carry_b],
                                        pred_batched)
    if not pred_batched:
        outs = while_p.bind(*cconsts, *bconsts, *init, cond_jaxpr=cond, body_jaxpr=body,
                            cond_nconsts=nc, body_nconsts=nb)
        return outs, [0 if b else None for b in carry_b]
    if outside_call_effect in cond.effects:
        # host_callback taps in the condition: JAX 0.4.30 moves such a condition into the body
        # (it rewrites every while loop whose condition taps), so the predicate is carried:
        # the condition runs once before the loop and once per iteration, on the body's new
        # values, and each tap prints once per iteration.
        (pred,) = eval_jaxpr(cond.jaxpr, cond.consts, *cconsts, *init)
        outs = while_p.bind(*cconsts, *bconsts, pred, *init,
                            cond_jaxpr=_any_carried_predicate(cond, body),
                            body_jaxpr=_carried_predicate_body(cond, body, nc, nb),
                            cond_nconsts=0, body_nconsts=nc + nb)
        return outs[1:], [0] * (len(outs) - 1)
    # A batched predicate (as JAX batches it): loop while any example's predicate holds; the
    # body evaluates the predicate again and keeps the carry of the examples that are done, so
    # the condition runs twice per iteration on the carry as it stands, never on values a
    # finished example would not have.
    any_cond = _any_predicate(cond)
    select_body = _select_body(cond, body, nc, nb)
    outs = while_p.bind(*cconsts, *cconsts, *bconsts, *init, cond_jaxpr=any_cond,
                        body_jaxpr=select_body, cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, [0] * len(outs)


# The conditions of while loops whose predicate vmap batched (`_any_predicate`'s): JAX's
# jaxpr keeps such a predicate batched, and transformations that refuse a batched while loop
# (checkify) ask `has_batched_predicate`.
_batched_predicates: weakref.WeakSet[ClosedJaxpr] = weakref.WeakSet()


def _any_predicate(cond: ClosedJaxpr) -> ClosedJaxpr:
    """The loop's condition on (cond consts, carry...): whether any example continues."""
    def fun(*args: Any) -> list[Any]:
        (pred,) = eval_jaxpr(cond.jaxpr, cond.consts, *args)
        return [lax.reduce_or(pred, (0,))]

    any_cond = jaxpr_transforms.trace_closed(fun, cond.in_avals)
    _batched_predicates.add(any_cond)
    return any_cond


def has_batched_predicate(cond_jaxpr: ClosedJaxpr) -> bool:
    """Whether a while loop with this condition is one vmap batched over its predicate."""
    return cond_jaxpr in _batched_predicates


def _any_carried_predicate(cond: ClosedJaxpr, body: ClosedJaxpr) -> ClosedJaxpr:
    """The loop's condition on (predicate, carry...): whether any example continues."""
    def fun(pred: Any, *carry: Any) -> list[Any]:
        return [lax.reduce_or(pred, (0,))]

    any_cond = jaxpr_transforms.trace_closed(fun, [cond.out_avals[0], *body.out_avals])
    _batched_predicates.add(any_cond)
    return any_cond


def _carried_predicate_body(cond: ClosedJaxpr, body: ClosedJaxpr, nc: int, nb: int
                            ) -> ClosedJaxpr:
    """(cond consts, body consts, predicate, carry...) -> (predicate, carry...): the body on
    every example, kept where the predicate holds, and the predicate of the body's values
    (examples once done stay done)."""
    in_avals = [*cond.in_avals[:nc], *body.in_avals[:nb], cond.out_avals[0],
                *body.in_avals[nb:]]

    def fun(*args: Any) -> list[Any]:
        cconsts, bconsts = args[:nc], args[nc:nc + nb]
        pred, carry = args[nc + nb], args[nc + nb + 1:]
        new = eval_jaxpr(body.jaxpr, body.consts, *bconsts, *carry)
        (new_pred,) = eval_jaxpr(cond.jaxpr, cond.consts, *cconsts, *new)
        outs = [lax.bitwise_and(pred, new_pred)]
        for old, upd in zip(carry, new, strict=True):
            which = lax.broadcast_in_dim(pred, get_aval(upd).shape, (0,))
            outs.append(lax.select(which, upd, old))
        return outs

    return jaxpr_transforms.trace_closed(fun, in_avals)


def _select_body(cond: ClosedJaxpr, body: ClosedJaxpr, nc: int, nb: int) -> ClosedJaxpr:
    """(cond consts, body consts, carry...) -> carry: the body on every example, kept where
    the predicate of the carry holds."""
    in_avals = [*cond.in_avals[:nc], *body.in_avals]

    def fun(*args: Any) -> list[Any]:
        cconsts, bconsts, carry = args[:nc], args[nc:nc + nb], args[nc + nb:]
        (pred,) = eval_jaxpr(cond.jaxpr, cond.consts, *cconsts, *carry)
        new = eval_jaxpr(body.jaxpr, body.consts, *bconsts, *carry)
        outs = []
        for old, upd in zip(carry, new, strict=True):
            which = lax.broadcast_in_dim(pred, get_aval(upd).shape, (0,))
            outs.append(lax.select(which, upd, old))
        return outs

    return jaxpr_transforms.trace_closed(fun, in_avals)


def _while_partial_eval(trace: Any, values: Sequence[Any], params: dict[str, Any]
                        ) -> list[Any]:
    """Carries computable from known values alone (the primal carries of a differentiated
    loop) are computed now by a loop over them only; the whole loop is also staged for the
    unknown ones. So the forward pass of reverse mode runs, and reverse mode fails only when
    its transpose is needed, with JAX's message."""
    cond: ClosedJaxpr = params["cond_jaxpr"]
    body: ClosedJaxpr = params["body_jaxpr"]
    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    unknown = [partial_eval.is_unknown(trace, x) for x in values]
    cconst_u, bconst_u, carry_u = unknown[:nc], unknown[nc:nc + nb], unknown[nc + nb:]
    while True:  # a carry is unknown if it starts so or the body makes it so
        out_u = partial_eval.partial_eval_jaxpr(body, [*bconst_u, *carry_u]).out_unknowns
        new = [a or b for a, b in zip(carry_u, out_u, strict=True)]
        if new == carry_u:
            break
        carry_u = new
    staged = StagingTrace.process_primitive(trace, while_p, values, params)
    cond_split = partial_eval.partial_eval_jaxpr(cond, [*cconst_u, *carry_u])
    if all(carry_u) or cond_split.out_unknowns[0]:
        return staged  # type: ignore[no-any-return]
    # The known loop runs the known equations only, effects included (a debug print of a
    # primal value prints now, as in JAX; one reading an unknown value is staged with the
    # whole loop). The residuals the split returns are not needed: the staged loop
    # recomputes everything.
    known = [not u for u in carry_u]
    body_split = partial_eval.partial_eval_jaxpr(body, [*bconst_u, *carry_u],
                                                 instantiate=carry_u)
    cconsts, bconsts, init = values[:nc], values[nc:nc + nb], values[nc + nb:]
    kc = [x for x, u in zip(cconsts, cconst_u, strict=True) if not u]
    kb = [x for x, u in zip(bconsts, bconst_u, strict=True) if not u]
    ki = [x for x, k in zip(init, known, strict=True) if k]
    known_cond = _without_residuals(cond_split.known, 1)
    known_body = _without_residuals(body_split.known, sum(known))
    with set_current_trace(trace.parent):
        known_outs = iter(while_p.bind(*kc, *kb, *ki, cond_jaxpr=known_cond,
                                       body_jaxpr=known_body, cond_nconsts=len(kc),
                                       body_nconsts=len(kb)))
    return [next(known_outs) if k else s for s, k in zip(staged, known, strict=True)]


def _without_residuals(known: ClosedJaxpr, n_out: int) -> ClosedJaxpr:
    """The known part of a split jaxpr giving its first `n_out` outputs only."""
    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(known.jaxpr, known.consts, *args)[:n_out]

    return trace_to_jaxpr(fun, known.in_avals)


def _while_transpose(*args: Any, **params: Any) -> list[Any]:
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop.")


while_p.def_impl(_while_impl)
while_p.def_jvp(_while_jvp)
while_p.def_batch(_while_batch)
while_p.native = native_structural.while_rule
while_p.def_partial_eval(_while_partial_eval)
while_p.def_transpose(_while_transpose)


def _fixed_point_tangents(body: ClosedJaxpr, before: Sequence[bool], carry_t: list[bool],
                          after: Sequence[bool]) -> list[bool]:
    """Carries that need tangents: those with one initially, plus floating carries to which
    the body gives a tangent that is not a symbolic zero, until nothing changes."""
    while True:
        _, nonzero = jaxpr_transforms.jvp_jaxpr_keeping_zeros(
            body, [*before, *carry_t, *after], instantiate=False)
        n = len(carry_t)  # the body's first outputs are the carries
        new = [t or (nz and _is_float(a)) for t, nz, a in
               zip(carry_t, nonzero[:n], body.out_avals[:n], strict=True)]
        if new == carry_t:
            return carry_t
        carry_t = new


# ---- scan ----------------------------------------------------------------------------------

scan_p = Primitive("scan")
scan_p.multiple_results = True


@scan_p.def_effectful_abstract_eval
def _scan_abstract_eval(*args: Any, jaxpr: ClosedJaxpr, length: int, reverse: bool,
                        unroll: int, num_consts: int, num_carry: int,
                        linear: tuple[bool, ...], _split_transpose: bool) -> Any:
    outs = jaxpr.out_avals
    ys = [a.update(shape=(length, *a.shape)) for a in outs[num_carry:]]
    return [*outs[:num_carry], *ys], jaxpr.effects


def _scan_impl(*args: Any, jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: int,
               num_consts: int, num_carry: int, linear: tuple[bool, ...],
               _split_transpose: bool) -> list[Any]:
    operator.index(unroll)  # a float is refused when the loop is built, as in JAX
    consts = args[:num_consts]
    carry = list(args[num_consts:num_consts + num_carry])
    xs = args[num_consts + num_carry:]
    body = executable_for(jaxpr, "scan_body")
    ys = [np.empty((length, *a.shape), a.dtype) for a in jaxpr.out_avals[num_carry:]]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        outs = body(*consts, *carry, *[x[i] for x in xs])
        carry = outs[:num_carry]
        for y, o in zip(ys, outs[num_carry:], strict=True):
            y[i] = o
    return [*carry, *ys]


def _scan_params(jaxpr: ClosedJaxpr, length: int, reverse: bool, unroll: int,
                 num_consts: int, num_carry: int) -> dict[str, Any]:
    return {"jaxpr": jaxpr, "length": length, "reverse": reverse, "unroll": unroll,
            "num_consts": num_consts, "num_carry": num_carry,
            "linear": (False,) * len(jaxpr.in_avals), "_split_transpose": False}


def _scan_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr,
              length: int, reverse: bool, unroll: int, num_consts: int, num_carry: int,
              linear: tuple[bool, ...], _split_transpose: bool
              ) -> tuple[list[Any], list[Any]]:
    nc, ncar = num_consts, num_carry
    const_nz = [type(t) is not ad.Zero for t in tangents[:nc]]
    xs_nz = [type(t) is not ad.Zero for t in tangents[nc + ncar:]]
    carry_t = [type(t) is not ad.Zero and _is_float(a) for t, a in
               zip(tangents[nc:nc + ncar], jaxpr.out_avals[:ncar], strict=True)]
    carry_t = _fixed_point_tangents(jaxpr, const_nz, carry_t, xs_nz)
    n_out = len(jaxpr.out_avals)
    jvp, nonzero = jaxpr_transforms.jvp_jaxpr_keeping_zeros(
        jaxpr, [*const_nz, *carry_t, *xs_nz], instantiate=[*carry_t, *[False] * (n_out - ncar)])
    n_ct, n_cart, n_xt = sum(const_nz), sum(carry_t), sum(xs_nz)
    n_xs = len(primals) - nc - ncar
    # jvp inputs: consts, carry, xs, const_t, carry_t, xs_t -> scan layout
    # (consts, const_t), (carry, carry_t), (xs, xs_t)
    v = jvp.jaxpr.invars
    a = nc + ncar + n_xs
    invars = [*v[:nc], *v[a:a + n_ct], *v[nc:nc + ncar], *v[a + n_ct:a + n_ct + n_cart],
              *v[nc + ncar:a], *v[a + n_ct + n_cart:a + n_ct + n_cart + n_xt]]
    y_avals = jaxpr.out_avals[ncar:]
    # Per-iteration outputs whose tangents are symbolic zeros get none (as in JAX).
    ys_t = nonzero[ncar:]
    o = jvp.jaxpr.outvars
    out_t = iter(o[n_out:])
    tangent_vars = [next(out_t) if nz else None for nz in nonzero]
    outvars = [*o[:ncar], *[t for t, k in zip(tangent_vars[:ncar], carry_t, strict=True) if k],
               *o[ncar:n_out], *[t for t in tangent_vars[ncar:] if t is not None]]
    body = ClosedJaxpr(jvp.jaxpr.replace(invars=invars, outvars=outvars), jvp.consts)
    consts, init, xs = primals[:nc], primals[nc:nc + ncar], primals[nc + ncar:]
    const_tan = [t for t in tangents[:nc] if type(t) is not ad.Zero]
    init_tan = [ad.instantiate_zeros(t) for t, k in zip(tangents[nc:nc + ncar], carry_t,
                                                        strict=True) if k]
    xs_tan = [t for t in tangents[nc + ncar:] if type(t) is not ad.Zero]
    outs = scan_p.bind(*consts, *const_tan, *init, *init_tan, *xs, *xs_tan,
                       **_scan_params(body, length, reverse, unroll, nc + n_ct,
                                      ncar + n_cart))
    carry_out, rest = outs[:ncar], outs[ncar:]
    carry_tan_it = iter(rest[:n_cart])
    ys = rest[n_cart:n_cart + len(y_avals)]
    ys_tan_it = iter(rest[n_cart + len(y_avals):])
    out_tangents = [next(carry_tan_it) if k else ad.Zero(ad.tangent_aval(get_aval(c)))
                    for k, c in zip(carry_t, carry_out, strict=True)]
    out_tangents += [next(ys_tan_it) if k else ad.Zero(ad.tangent_aval(get_aval(y)))
                     for k, y in zip(ys_t, ys, strict=True)]
    return [*carry_out, *ys], out_tangents


def _scan_batch(values: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr,
                length: int, reverse: bool, unroll: int, num_consts: int, num_carry: int,
                linear: tuple[bool, ...], _split_transpose: bool
                ) -> tuple[list[Any], list[Any]]:
    nc, ncar = num_consts, num_carry
    size = next(get_aval(x).shape[d] for x, d in zip(values, dims, strict=True)
                if d is not None)
    const_b = [d is not None for d in dims[:nc]]
    carry_b = [d is not None for d in dims[nc:nc + ncar]]
    xs_b = [d is not None for d in dims[nc + ncar:]]
    while True:
        probe = jaxpr_transforms.batched_outputs(jaxpr, size,
                                                 [*const_b, *carry_b, *xs_b])[:ncar]
        new = [a or b for a, b in zip(carry_b, probe, strict=True)]
        if new == carry_b:
            break
        carry_b = new
    ys_b = jaxpr_transforms.batched_outputs(jaxpr, size, [*const_b, *carry_b, *xs_b])[ncar:]
    consts = [batching.bdim_at_front(x, d, size) if d is not None else x
              for x, d in zip(values[:nc], dims[:nc], strict=True)]
    init = [batching.move_dim(x, d, 0, size) if want else x for x, d, want in
            zip(values[nc:nc + ncar], dims[nc:nc + ncar], carry_b, strict=True)]
    xs = [batching.moveaxis(x, d, 1) if d is not None else x
          for x, d in zip(values[nc + ncar:], dims[nc + ncar:], strict=True)]
    body = jaxpr_transforms.batch_jaxpr(jaxpr, size, [*const_b, *carry_b, *xs_b],
                                        [*carry_b, *ys_b])
    outs = scan_p.bind(*consts, *init, *xs,
                       **_scan_params(body, length, reverse, unroll, nc, ncar))
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]


def _scan_partial_eval(trace: Any, values: Sequence[Any], params: dict[str, Any]
                       ) -> list[Any]:
    jaxpr: ClosedJaxpr = params["jaxpr"]
    nc, ncar = params["num_consts"], params["num_carry"]
    length, reverse, unroll = params["length"], params["reverse"], params["unroll"]
    unknowns = [partial_eval.is_unknown(trace, x) for x in values]
    const_u, carry_u, xs_u = unknowns[:nc], unknowns[nc:nc + ncar], unknowns[nc + ncar:]
    n_ys = len(jaxpr.out_avals) - ncar
    while True:
        split = partial_eval.partial_eval_jaxpr(jaxpr, [*const_u, *carry_u, *xs_u],
                                                [*carry_u, *([False] * n_ys)])
        out_carry_u = split.out_unknowns[:ncar]
        new = [a or b for a, b in zip(carry_u, out_carry_u, strict=True)]
        if new == carry_u:
            break
        carry_u = new
    values = list(values)
    # Known carries that must become unknown enter as constants of the unknown scan.
    known = [x for x, u in zip(values, [*const_u, *carry_u, *xs_u], strict=True) if not u]
    n_kc = sum(not u for u in const_u)
    n_kcar = sum(not u for u in carry_u)
    n_res = len(split.res_avals)
    # As JAX: a residual that is a known input of the body is not stacked by the known scan
    # but forwarded: a constant (or a constant of the body) as a constant of the unknown scan,
    # an xs slice as the whole xs operand (no copy of xs).
    kjaxpr = split.known.jaxpr
    n_main = len(kjaxpr.outvars) - n_res
    position = {v: i for i, v in enumerate(kjaxpr.invars)}
    closed_const = dict(zip(kjaxpr.constvars, split.known.consts, strict=True))
    forwarded: list[tuple[str, Any] | None] = []
    for r in kjaxpr.outvars[n_main:]:
        i = position.get(r, -1) if isinstance(r, Var) else -1
        if 0 <= i < n_kc:
            forwarded.append(("const", known[i]))
        elif i >= n_kc + n_kcar:
            forwarded.append(("xs", known[i]))
        elif isinstance(r, Var) and r in closed_const:
            forwarded.append(("const", closed_const[r]))
        else:
            forwarded.append(None)
    stacked = [r for r, f in zip(kjaxpr.outvars[n_main:], forwarded, strict=True) if f is None]
    # Dead code dropped too (a tangent coefficient a checkpoint policy does not save).
    known_body = passes.dce(ClosedJaxpr(
        kjaxpr.replace(outvars=[*kjaxpr.outvars[:n_main], *stacked]), split.known.consts))
    with set_current_trace(trace.parent):
        known_outs = scan_p.bind(*known, **_scan_params(known_body, length, reverse, unroll,
                                                         n_kc, n_kcar))
    stacked_it = iter(known_outs[n_main:])
    residuals = [next(stacked_it) if f is None else f[1] for f in forwarded]
    is_const = [f is not None and f[0] == "const" for f in forwarded]
    known_it = iter(known_outs[:n_main])
    unknown_in = [x for x, u in zip(values, [*const_u, *carry_u, *xs_u], strict=True) if u]
    n_uc, n_ucar = sum(const_u), sum(carry_u)
    # split.unknown takes (residuals, unknown consts, unknown carry, unknown xs). The unknown
    # scan takes, as JAX's: the constant residuals, its consts, carry and xs, then the
    # per-iteration residuals.
    v = split.unknown.jaxpr.invars
    res_vars = v[:n_res]
    invars = [*[r for r, c in zip(res_vars, is_const, strict=True) if c],
              *v[n_res:],
              *[r for r, c in zip(res_vars, is_const, strict=True) if not c]]
    body = ClosedJaxpr(split.unknown.jaxpr.replace(invars=invars), split.unknown.consts)
    const_res = [r for r, c in zip(residuals, is_const, strict=True) if c]
    xs_res = [r for r, c in zip(residuals, is_const, strict=True) if not c]
    args = [*const_res, *unknown_in, *xs_res]
    unknown_outs = StagingTrace.process_primitive(
        trace, scan_p, args, _scan_params(body, length, reverse, unroll, len(const_res) + n_uc,
                                          n_ucar))
    unknown_it = iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in split.out_unknowns]


def _scan_transpose(cts: Sequence[Any], *args: Any, jaxpr: ClosedJaxpr, length: int,
                    reverse: bool, unroll: int, num_consts: int, num_carry: int,
                    linear: tuple[bool, ...], _split_transpose: bool) -> list[Any]:
    nc, ncar = num_consts, num_carry
    consts, init, xs = args[:nc], args[nc:nc + ncar], args[nc + ncar:]
    const_lin = [ad.is_undefined_primal(c) for c in consts]
    xs_lin = [ad.is_undefined_primal(x) for x in xs]
    # Every carry of a linear scan is linear in the loop. One whose initial value is a
    # constant (a tangent carry starting from instantiated zeros) gets no cotangent.
    init_lin = [ad.is_undefined_primal(c) for c in init]
    ct_carry = [ad.instantiate_zeros(c) for c in cts[:ncar]]
    # As JAX, the ys' zero cotangents stay symbolic: they are no operands of the transposed
    # scan, and its body skips their products (0 * inf residuals would make NaN gradients).
    ct_ys_zero = [type(c) is ad.Zero for c in cts[ncar:]]
    ct_ys = [c for c in cts[ncar:] if type(c) is not ad.Zero]
    nl_consts = [c for c, lin in zip(consts, const_lin, strict=True) if not lin]
    nl_xs = [x for x, lin in zip(xs, xs_lin, strict=True) if not lin]
    lin_const_avals = [c.aval for c, lin in zip(consts, const_lin, strict=True) if lin]
    t_jaxpr = jaxpr_transforms.transpose_jaxpr(jaxpr, [*const_lin, *([True] * ncar), *xs_lin],
                                               zero_cts=[*([False] * ncar), *ct_ys_zero])
    n_nlc, n_lc, n_nlx = len(nl_consts), len(lin_const_avals), len(nl_xs)

    n_cty = len(ct_ys)

    def body_t(*a: Any) -> list[Any]:
        nlc = a[:n_nlc]
        acc = a[n_nlc:n_nlc + n_lc]
        ctc = a[n_nlc + n_lc:n_nlc + n_lc + ncar]
        rest = a[n_nlc + n_lc + ncar:]
        cty, nlx = rest[:n_cty], rest[n_cty:]
        outs = eval_jaxpr(t_jaxpr.jaxpr, t_jaxpr.consts, *nlc, *nlx, *ctc, *cty)
        lin_c, carry_c, x_c = outs[:n_lc], outs[n_lc:n_lc + ncar], outs[n_lc + ncar:]
        # add_any keeps the accumulator's type (a weakly typed constant's cotangent stays
        # weak), as JAX's transposed scan does.
        return [*[ad.add_any_p.bind(p, q) for p, q in zip(acc, lin_c, strict=True)], *carry_c,
                *x_c]

    # As JAX orders the transposed scan's operands: the non-linear constants, the cotangent
    # accumulators and carries, the ys' cotangents, then the non-linear xs; the cotangents are
    # its linear operands.
    in_avals = [*[get_aval(c) for c in nl_consts], *lin_const_avals,
                *[get_aval(c) for c in ct_carry],
                *[get_aval(y).update(shape=get_aval(y).shape[1:]) for y in ct_ys],
                *[get_aval(x).update(shape=get_aval(x).shape[1:]) for x in nl_xs]]
    body = jaxpr_transforms.trace_closed(body_t, in_avals)
    zeros = [lax.zeros_like_aval(a) for a in lin_const_avals]
    params = _scan_params(body, length, not reverse, unroll, n_nlc, n_lc + ncar)
    params["linear"] = (False,) * n_nlc + (True,) * (n_lc + ncar + n_cty) + (False,) * n_nlx
    outs = scan_p.bind(*nl_consts, *zeros, *ct_carry, *ct_ys, *nl_xs, **params)
    acc_it = iter(outs[:n_lc])
    ct_init = outs[n_lc:n_lc + ncar]
    ct_xs_it = iter(outs[n_lc + ncar:])
    return ([next(acc_it) if lin else None for lin in const_lin]
            + [c if lin else None for c, lin in zip(ct_init, init_lin, strict=True)]
            + [next(ct_xs_it) if lin else None for lin in xs_lin])


def _scan_dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """The loop computing only the used outputs: a carry stays while the body reads it to
    compute something used (to a fixed point); stacked outputs nobody reads, and consts and
    scanned inputs the pruned body does not read, go."""
    body: ClosedJaxpr = eqn.params["jaxpr"]
    nc, nk = eqn.params["num_consts"], eqn.params["num_carry"]
    used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
    while True:
        used_in = passes.dce_jaxpr(body, used_carry + used_ys)[1]
        grown = [a or b for a, b in zip(used_carry, used_in[nc:nc + nk], strict=True)]
        if grown == used_carry:
            break
        used_carry = grown
    keep = [*used_in[:nc], *used_carry, *used_in[nc + nk:]]
    pruned = passes.dce_jaxpr(body, used_carry + used_ys, keep_inputs=keep)[0]
    return eqn.replace(
        invars=[a for a, k in zip(eqn.invars, keep, strict=True) if k],
        outvars=[v for v, u in zip(eqn.outvars, used_carry + used_ys, strict=True) if u],
        params={**eqn.params, "jaxpr": pruned, "num_consts": sum(keep[:nc]),
                "num_carry": sum(used_carry),
                "linear": tuple(lin for lin, k in zip(eqn.params["linear"], keep, strict=True)
                                if k)})


def _scan_remat(eqn: JaxprEqn, policy: Callable[..., bool]
                ) -> tuple[JaxprEqn, JaxprEqn, list[Var]] | None:
    """A checkpointed scan saving what its policy saves inside the body: the known scan
    also stacks those values as extra outputs, the recomputing scan reads them as extra
    scanned inputs."""
    split = partial_eval.remat_split_jaxpr(eqn.params["jaxpr"], policy)
    if split is None:
        return None
    known, recompute, res_avals = split
    n_res = len(res_avals)
    body = recompute.jaxpr
    recompute = ClosedJaxpr(body.replace(invars=[*body.invars[n_res:], *body.invars[:n_res]]),
                            recompute.consts)
    length = eqn.params["length"]
    residuals = [Var(a.update(shape=(length, *a.shape))) for a in res_avals]
    return (eqn.replace(outvars=[*eqn.outvars, *residuals],
                        params={**eqn.params, "jaxpr": known}),
            eqn.replace(invars=[*eqn.invars, *residuals],
                        params={**eqn.params, "jaxpr": recompute,
                                "linear": (*eqn.params["linear"], *(False,) * n_res)}),
            residuals)


scan_p.def_impl(_scan_impl)
scan_p.dce_rule = _scan_dce
scan_p.remat_rule = _scan_remat
scan_p.def_jvp(_scan_jvp)
scan_p.def_batch(_scan_batch)
scan_p.native = native_structural.scan_rule
scan_p.def_partial_eval(_scan_partial_eval)
scan_p.def_transpose(_scan_transpose)


# ---- public functions ----------------------------------------------------------------------


def _check_scan_carry_type(f: Callable[..., Any], init: Any, out_carry_tree: Any,
                           out_avals: Sequence[Any]) -> None:
    """A TypeError naming each carry component (by `f`'s first parameter and its path in the
    carry) whose structure or type the scanned function changes."""
    paths_and_leaves, in_tree = tree_flatten_with_path(init)
    in_avals = [get_aval(x) for _, x in paths_and_leaves]
    if in_tree == out_carry_tree and all(
            typematch(a, b) for a, b in zip(in_avals, out_avals, strict=True)):
        return
    component = _carry_component_namer(f)
    if in_tree != out_carry_tree:
        out_carry = tree_unflatten(out_carry_tree, out_avals)
        differences: Any
        if out_carry is None:
            differences = [f"the input tree structure is:\n{in_tree}\n",
                           f"the output tree structure is:\n{out_carry_tree}\n"]
        else:
            differences = "\n".join(
                f"  * {component(path)} is a {thing1} but the corresponding component of the "
                f"carry output is a {thing2}, so {explanation}\n"
                for path, thing1, thing2, explanation in equality_errors(init, out_carry))
        raise TypeError(
            "Scanned function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n{differences}\nRevise the scanned function so that "
            "its output is a pair where the first element has the same pytree structure as the "
            "first argument.")
    differences = "\n".join(
        f"  * {component(path)} has type {a.str_short()} but the corresponding output carry "
        f"component has type {b.str_short()}{_aval_mismatch_extra(a, b)}\n"
        for (path, _), a, b in zip(paths_and_leaves, in_avals, out_avals, strict=True)
        if not typematch(a, b))
    raise TypeError(
        "Scanned function carry input and carry output must have equal types (e.g. shapes and "
        f"dtypes of arrays), but they differ:\n{differences}\nRevise the scanned function so "
        "that all output types (e.g. shapes and dtypes) match the corresponding input types.")


def _carry_component_namer(f: Callable[..., Any]) -> Callable[[Any], str]:
    """Names a carry component after `f`'s first parameter (`c['b'][1]`), or by its path when
    `f` has no inspectable signature."""
    try:
        name: str | None = next(iter(inspect.signature(f).parameters))
    except (ValueError, TypeError, StopIteration):
        name = None
    if name:
        return lambda p: (f"the input carry component {name}{keystr(p)}" if p
                          else f"the input carry {name}")
    return lambda p: f"the input carry at path {keystr(p)}" if p else "the input carry"


def _aval_mismatch_extra(a: Any, b: Any) -> str:
    dtype_mismatch, shape_mismatch = a.dtype != b.dtype, a.shape != b.shape
    return (", so " * (dtype_mismatch or shape_mismatch)
            + "the dtypes do not match" * dtype_mismatch
            + " and also " * (dtype_mismatch and shape_mismatch)
            + "the shapes do not match" * shape_mismatch)


def _scan_length(xs_flat: Sequence[Any], length: Any) -> int:
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except AttributeError as err:
        raise ValueError("scan got value with no leading axis to scan over: "
                         + ", ".join(str(x) for x in xs_flat if not hasattr(x, "shape"))
                         + ".") from err
    if length is not None:
        length = int(length)
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return int(length)
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return int(lengths[0])


@traceback_util.api_boundary
def scan(f: Callable[..., Any], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1, _split_transpose: bool = False
         ) -> tuple[Any, Any]:
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`, stacking the `y`s.

    >>> import numjax.numpy as jnp
    >>> scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))
    (Array(3., dtype=float32), Array([0., 0., 1.], dtype=float32, weak_type=True))
    """
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    xs_flat, xs_tree = tree_flatten(xs)
    length = _scan_length(xs_flat, length)
    if config.disable_jit.value and not any(isinstance(v, Tracer)
                                            for v in (*tree_flatten(init)[0], *xs_flat)):
        if length == 0:
            raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                             "the output type is unknown.")
        return _scan_python(f, init, xs_flat, xs_tree, length, reverse)
    x_avals = [get_aval(x).update(shape=get_aval(x).shape[1:]) for x in xs_flat]

    def trace(init: Any) -> tuple[list[Any], Any, TracedFun, Any]:
        init_flat, init_tree = tree_flatten(init)
        in_tree = tree_structure_of((init, tree_unflatten(xs_tree, x_avals)))
        traced = trace_fun(f, in_tree, [*[get_aval(x) for x in init_flat], *x_avals], "scan")
        if len(traced.out_tree.children()) != 2:
            out = tree_unflatten(traced.out_tree, traced.out_avals)
            shown = repr(out) if isinstance(out, ShapedArray) else str(out)
            raise TypeError(f"scan body output must be a pair, got {shown}.")
        return init_flat, init_tree, traced, traced.out_tree.children()[0]

    # A weakly typed initial carry (a Python scalar) that the body changes the type of takes
    # the promoted type and the body is traced again, as in JAX.
    init_flat, init_tree, traced, carry_tree = trace(init)
    n_carry_out = carry_tree.num_leaves
    promoted, changed = promote_weak_typed_inputs(
        init_flat, [get_aval(x) for x in init_flat], traced.out_avals[:n_carry_out])
    if changed:
        init = tree_unflatten(init_tree, promoted)
        init_flat, init_tree, traced, carry_tree = trace(init)
        n_carry_out = carry_tree.num_leaves
    _check_scan_carry_type(f, init, carry_tree, traced.out_avals[:n_carry_out])
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    if unroll < 1:
        raise ValueError("`unroll` must be a `bool` or a positive `int`.")
    outs = scan_p.bind(*traced.consts, *init_flat, *xs_flat,
                       **_scan_params(traced.closed, length, reverse, unroll,
                                      len(traced.consts), len(init_flat)))
    carry = tree_unflatten(carry_tree, outs[:n_carry_out])
    ys = tree_unflatten(traced.out_tree.children()[1], outs[n_carry_out:])
    return carry, ys


def tree_structure_of(tree: Any) -> Any:
    return tree_flatten(tree)[1]


def _scan_python(f: Callable[..., Any], init: Any, xs_flat: list[Any], xs_tree: Any,
                 length: int, reverse: bool) -> tuple[Any, Any]:
    carry = init
    ys = []
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        x = tree_unflatten(xs_tree, [x[i] for x in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    from numjax._src.numpy.shape import stack
    leaves = [tree_flatten(y) for y in ys]
    if not leaves:
        return carry, None
    tree = leaves[0][1]
    stacked = [stack([ls[j] for ls, _ in leaves]) for j in range(tree.num_leaves)]
    return carry, tree_unflatten(tree, stacked)


@traceback_util.api_boundary
def while_loop(cond_fun: Callable[..., Any], body_fun: Callable[..., Any], init_val: Any
               ) -> Any:
    """Repeat `val = body_fun(val)` while `cond_fun(val)`.

    >>> while_loop(lambda c: c < 10, lambda c: c * 2, 1)
    Array(16, dtype=int32, weak_type=True)
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.disable_jit.value and not any(isinstance(v, Tracer)
                                            for v in tree_flatten(init_val)[0]):
        val = init_val
        while cond_fun(val):
            val = body_fun(val)
        return val

    def trace(init_val: Any) -> tuple[list[Any], Any, TracedFun, TracedFun]:
        init_flat, in_tree = tree_flatten((init_val,))
        init_avals = [get_aval(x) for x in init_flat]
        cond = trace_fun(cond_fun, in_tree, init_avals, "while_loop")
        body = trace_fun(body_fun, in_tree, init_avals, "while_loop")
        if not treedef_is_leaf(cond.out_tree) or len(cond.out_avals) != 1:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree "
                            f"{cond.out_tree}.")
        pred = cond.out_avals[0]
        if pred.shape != () or pred.dtype != np.bool_:
            raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                            f"{cond.out_avals}.")
        return init_flat, in_tree, cond, body

    # A weakly typed carry (a Python scalar) that the body changes the type of takes the
    # promoted type and both functions are traced again, as in JAX.
    init_flat, in_tree, cond, body = trace(init_val)
    promoted, changed = promote_weak_typed_inputs(
        init_flat, [get_aval(x) for x in init_flat], body.out_avals)
    if changed:
        (init_val,) = tree_unflatten(in_tree, promoted)
        init_flat, in_tree, cond, body = trace(init_val)
    check_tree_and_avals("body_fun output and input", body.out_tree, body.out_avals,
                         in_tree.children()[0], [get_aval(x) for x in init_flat])
    outs = while_p.bind(*cond.consts, *body.consts, *init_flat, cond_jaxpr=cond.closed,
                        body_jaxpr=body.closed, cond_nconsts=len(cond.consts),
                        body_nconsts=len(body.consts))
    return tree_unflatten(body.out_tree, outs)


@traceback_util.api_boundary
def fori_loop(lower: Any, upper: Any, body_fun: Callable[..., Any], init_val: Any, *,  # noqa: C901
              unroll: int | bool | None = None) -> Any:
    """`val = body_fun(i, val)` for i in [lower, upper). With concrete bounds it is a scan,
    so it is reverse-differentiable; with traced bounds a while_loop.

    >>> fori_loop(0, 4, lambda i, x: x + i, 0)
    Array(6, dtype=int32, weak_type=True)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_dtype = dtypes.canonicalize_dtype(dtypes.dtype(lower))
    upper_dtype = dtypes.canonicalize_dtype(dtypes.dtype(upper))
    dtype = lower_dtype if lower_dtype == upper_dtype else None
    if dtype is None and all(np.issubdtype(d, np.signedinteger)
                             for d in (lower_dtype, upper_dtype)):
        # A weakly typed bound (a Python int) takes the other's type.
        lower_weak, upper_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
        if lower_weak != upper_weak:
            dtype = upper_dtype if lower_weak else lower_dtype
    if dtype is None:
        raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                        f"{lower_dtype.name} and {upper_dtype.name}")
    lower_c = _concrete_int(lower)
    upper_c = _concrete_int(upper)
    if not config.enable_x64.value:
        for bound in (lower_c, upper_c):
            if bound is not None and not -2**31 <= bound < 2**31:
                raise OverflowError(f"Python int {bound} too large to convert to int32")
    if lower_c is not None and upper_c is not None:
        length = max(upper_c - lower_c, 0)
        if config.disable_jit.value and length == 0:
            return init_val  # a Python scan of no steps could not tell its output type

        # The index counts from the Python int `lower`: weakly typed, as in JAX, and under
        # disable_jit a Python int throughout (so is a result computed from it alone). Carry
        # type errors name the carry `loop_carry[1]`, as JAX's do.
        def scanned_fun(loop_carry: Any, _: Any) -> Any:
            i, x = loop_carry
            return (i + 1, body_fun(i, x)), None

        (_, result), _ = scan(scanned_fun, (lower_c, init_val), None, length=length,
                              unroll=False if unroll is None else unroll)
        return result
    if unroll is not None:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if lower_dtype != dtype:
        lower = lax.convert_element_type(lower, dtype)
    if upper_dtype != dtype:
        upper = lax.convert_element_type(upper, dtype)

    def cond_fn(loop_carry: Any) -> Any:
        return lax.lt(loop_carry[0], loop_carry[1])

    def body_fn(loop_carry: Any) -> Any:
        i, hi, x = loop_carry
        # One of the index's own dtype and weak type: a Python 1 would be int64 under x64
        # next to an int32 bound.
        one = lax._convert_element_type(1, dtype, dtypes.is_weakly_typed(i))
        return (lax.add(i, one), hi, body_fun(i, x))

    return while_loop(cond_fn, body_fn, (lower, upper, init_val))[2]


def _concrete_int(x: Any) -> int | None:
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return None if value is None else int(value)
    return int(x)


@traceback_util.api_boundary
def map(f: Callable[..., Any], xs: Any, *, batch_size: int | None = None) -> Any:
    """`f` applied to each slice of `xs` along the leading axis, with a scan (or a scan over
    vmapped batches of `batch_size`).

    >>> import numjax.numpy as jnp
    >>> map(lambda x: x * 2, jnp.arange(3))
    Array([0, 2, 4], dtype=int32)
    """
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    from numjax._src.numpy.shape import concatenate
    flat, tree = tree_flatten(xs)
    n = get_aval(flat[0]).shape[0]
    n_batches, rem = divmod(n, batch_size)
    main = [lax.reshape(lax.slice_in_dim(x, 0, n_batches * batch_size),
                        (n_batches, batch_size, *get_aval(x).shape[1:])) for x in flat]
    _, ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, main))
    ys_flat, ys_tree = tree_flatten(ys)
    ys_flat = [lax.reshape(y, (n_batches * batch_size, *get_aval(y).shape[2:]))
               for y in ys_flat]
    if rem:
        tail = [lax.slice_in_dim(x, n_batches * batch_size, n) for x in flat]
        tail_ys = tree_flatten(vmap(f)(tree_unflatten(tree, tail)))[0]
        ys_flat = [concatenate([a, b]) for a, b in zip(ys_flat, tail_ys, strict=True)]
    return tree_unflatten(ys_tree, ys_flat)


# ---- inline lowering: loops as Python loops in the generated code --------------------------

_loop_ids = iter(range(1 << 62))


def _carries_updated_in_place(body: Any, first: int, n: int) -> list[int]:
    """The carries (body invars `first ..`, outputs `0 .. n-1`) a loop keeps in buffers of its
    own so that its body's `.at[]` updates write into them (`updates_in_place`) rather than
    copy them each iteration: those the body updates, whose next value is a buffer the body
    makes (not a constant, an input or another output). The loop copies their initial values
    once."""
    made = {v for eqn in body.eqns if buffers.makes_new_buffer(eqn) for v in eqn.outvars}
    returned = collections.Counter(o for o in body.outvars if isinstance(o, Var))
    candidates = [j for j in range(n) if isinstance(body.outvars[j], Var)
                  and body.outvars[j] in made and returned[body.outvars[j]] == 1]
    if not any(eqn.primitive.updates_in_place for eqn in body.eqns):
        return []
    # The body's buffer plan (as its emission makes it) with those carries its own: the ones
    # an update writes into.
    plan = buffers.plan_buffers(body, {}, [body.invars[first + j] for j in candidates],
                                lambda eqn: eqn.primitive.inline_lowering is not None)
    written = {v for eqn_index, v in plan.out.items()
               if body.eqns[eqn_index].primitive.updates_in_place}
    return [j for j in candidates if body.invars[first + j] in written]


def _lower_scan(em: Any, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    p = eqn.params
    operator.index(p["unroll"])  # a float is refused when the loop is built, as in JAX
    body: ClosedJaxpr = p["jaxpr"]
    nc, ncar, length = p["num_consts"], p["num_carry"], p["length"]
    k = next(_loop_ids)
    i = f"i{k}_"
    consts, init, xs = ins[:nc], ins[nc:nc + ncar], ins[nc + ncar:]
    carry = [f"carry{k}_{j}" for j in range(ncar)]
    ys = [f"ys{k}_{j}" for j in range(len(body.out_avals) - ncar)]
    owned = _carries_updated_in_place(body.jaxpr, nc, ncar)
    for j, (c, v) in enumerate(zip(carry, init, strict=True)):
        em.lines.append(f"{indent}{c} = {f'np.array({v})' if j in owned else v}")
    for y, aval in zip(ys, body.out_avals[ncar:], strict=True):
        dtype = em.namer.global_(aval.dtype, "dtype")
        em.lines.append(f"{indent}{y} = np.empty({(length, *aval.shape)!r}, {dtype})")
    order = f"range({length} - 1, -1, -1)" if p["reverse"] else f"range({length})"
    em.lines.append(f"{indent}for {i} in {order}:")
    inner = indent + "    "
    body_outs = em.emit_inline(body, [*consts, *carry, *[f"{x}[{i}]" for x in xs]], inner,
                               [nc + j for j in owned])
    # Stacked outputs first: an output may be a carry input, read by name.
    for y, o in zip(ys, body_outs[ncar:], strict=True):
        em.lines.append(f"{inner}{y}[{i}] = {o}")
    if carry:
        em.lines.append(f"{inner}{', '.join(carry)} = {', '.join(body_outs[:ncar])}")
    if not length:
        em.lines.append(f"{inner}pass")
    for name, value in zip(outs, [*carry, *ys], strict=True):
        if name != "_":
            em.lines.append(f"{indent}{name} = {value}")


def _lower_while(em: Any, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    k = next(_loop_ids)
    cconsts, bconsts, init = ins[:nc], ins[nc:nc + nb], ins[nc + nb:]
    carry = [f"carry{k}_{j}" for j in range(len(init))]
    owned = _carries_updated_in_place(p["body_jaxpr"].jaxpr, nb, len(init))
    for j, (c, v) in enumerate(zip(carry, init, strict=True)):
        em.lines.append(f"{indent}{c} = {f'np.array({v})' if j in owned else v}")
    em.lines.append(f"{indent}while True:")
    inner = indent + "    "
    (pred,) = em.emit_inline(p["cond_jaxpr"], [*cconsts, *carry], inner)
    em.lines.append(f"{inner}if not {pred}:")
    em.lines.append(f"{inner}    break")
    body_outs = em.emit_inline(p["body_jaxpr"], [*bconsts, *carry], inner,
                               [nb + j for j in owned])
    if carry:
        em.lines.append(f"{inner}{', '.join(carry)} = {', '.join(body_outs)}")
    for name, value in zip(outs, carry, strict=True):
        if name != "_":
            em.lines.append(f"{indent}{name} = {value}")


scan_p.def_inline_lowering(_lower_scan)
while_p.def_inline_lowering(_lower_while)


# ---- jit's layout of a loop's results (api/sharding_propagation.py) --------------------------


def _loop_state(body: Callable[[list[Any]], list[Any]], init: list[Any]) -> list[Any]:
    """A loop's state laid out as it enters, less what an iteration does not keep (JAX's
    partitioner gives the state one layout throughout)."""
    state = init
    for _ in range(len(init) + 1):
        out = body(state)
        kept = [{d: axes for d, axes in s.items() if o.get(d) == axes}
                for s, o in zip(state, out, strict=True)]
        if kept == state:
            break
        state = kept
    return state


def _while_sharding(eqn: Any, ins: list[Any], mesh: Any, propagate: Any) -> list[Any]:
    consts = ins[eqn.params["cond_nconsts"]:][:eqn.params["body_nconsts"]]
    carry = ins[eqn.params["cond_nconsts"] + eqn.params["body_nconsts"]:]
    body = eqn.params["body_jaxpr"]
    return _loop_state(lambda c: propagate(body, [*consts, *c]), carry)


def _scan_sharding(eqn: Any, ins: list[Any], mesh: Any, propagate: Any) -> list[Any]:
    """Carries as a loop's state; each iteration reads the xs without their leading
    (scanned) dimension and writes the ys with one in front, unsplit."""
    n_consts, n_carry = eqn.params["num_consts"], eqn.params["num_carry"]
    consts, carry = ins[:n_consts], ins[n_consts:n_consts + n_carry]
    # xs split along the scanned dimension are gathered whole first (as JAX's partitioner).
    xs = [{} if 0 in s else {d - 1: axes for d, axes in s.items()}
          for s in ins[n_consts + n_carry:]]
    body = eqn.params["jaxpr"]
    state = _loop_state(lambda c: propagate(body, [*consts, *c, *xs])[:n_carry], carry)
    ys = propagate(body, [*consts, *state, *xs])[n_carry:]
    return [*state, *({d + 1: axes for d, axes in y.items()} for y in ys)]


while_p.sharding_rule = _while_sharding
# Devices of one SPMD program may run different numbers of iterations.
while_p.value_dependent_control = True
scan_p.sharding_rule = _scan_sharding


# ---- associative_scan ----------------------------------------------------------------------


@traceback_util.api_boundary
def associative_scan(fn: Callable[..., Any], elems: Any, reverse: bool = False,
                     axis: int = 0) -> Any:
    """Inclusive prefix "sums" of `elems` along `axis` under an associative `fn`, in
    O(log n) rounds of vectorized `fn` calls (combine neighbours, recurse on the odd
    positions, fill in the even ones).

    >>> import numjax.numpy as jnp
    >>> associative_scan(lambda a, b: a + b, jnp.arange(5))
    Array([ 0,  1,  3,  6, 10], dtype=int32)
    """
    from numjax._src.numpy.util import canonicalize_axis

    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_flatten(elems)
    if reverse:  # before the axis is checked, as in JAX: lax.rev rejects a negative axis
        flat = [lax.rev(x, (axis,)) for x in flat]
    # Leaves are indexed as arrays, as JAX does: no leaves is an IndexError, a Python scalar
    # an AttributeError.
    axis = canonicalize_axis(operator.index(axis), flat[0].ndim)
    n = int(flat[0].shape[axis])
    if not all(int(x.shape[axis]) == n for x in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[x.shape for x in flat]})")

    def combine(a: list[Any], b: list[Any]) -> list[Any]:
        # The result is flattened without checking its structure (as in JAX): a wrong
        # structure fails when the next combine unflattens it, with the treedef's error.
        return tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))[0]

    out = prefix_scan(combine, flat, axis)
    if reverse:
        out = [lax.rev(x, (axis,)) for x in out]
    return tree_unflatten(tree, out)

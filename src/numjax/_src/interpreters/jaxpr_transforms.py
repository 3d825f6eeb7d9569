"""Transformations of closed jaxprs, for the rules of higher-order primitives (jit, cond,
scan, while): each traces the transformed evaluation of a jaxpr into a new jaxpr."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from numjax._src.interpreters import ad, batching, partial_eval
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import eval_jaxpr_keeping_sources, trace_to_jaxpr


def trace_closed(fun: Any, in_avals: Sequence[Any]) -> ClosedJaxpr:
    closed, extra = hoist_tracer_consts(trace_to_jaxpr(fun, in_avals))
    # Rules run on the parent trace: a transformed jaxpr closes over no tracers of it, since
    # every value it reads is one of its inputs.
    assert not extra, "transformed jaxpr closed over a tracer"
    return closed


def jvp_jaxpr(closed: ClosedJaxpr, has_tangent: Sequence[bool]) -> ClosedJaxpr:
    """(primals..., tangents of inputs with has_tangent...) -> (outs..., out tangents...);
    output tangents are instantiated (never symbolic zeros)."""
    return jvp_jaxpr_keeping_zeros(closed, has_tangent, instantiate=True)[0]


def jvp_jaxpr_keeping_zeros(closed: ClosedJaxpr, has_tangent: Sequence[bool],
                            instantiate: bool | Sequence[bool] = False
                            ) -> tuple[ClosedJaxpr, list[bool]]:
    """Like `jvp_jaxpr`, with only the output tangents that are not symbolic zeros (or are
    asked for by `instantiate`) among the outputs; also returns which those are. A caller
    gives the others back as `Zero`, as JAX does: a rule downstream (a library's, refusing a
    tangent where none may flow) must see no tangent at all, not an array of zeros."""
    n = len(closed.in_avals)
    tangent_avals = [ad.tangent_aval(a) for a, t in zip(closed.in_avals, has_tangent,
                                                         strict=True) if t]
    keep = [instantiate] * len(closed.out_avals) if isinstance(instantiate, bool) \
        else list(instantiate)
    nonzero: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        primals = args[:n]
        it = iter(args[n:])
        tangents = [next(it) if t else ad.Zero(ad.tangent_aval(a))
                    for a, t in zip(closed.in_avals, has_tangent, strict=True)]
        outs, out_tangents = ad.jvp_flat(
            lambda *xs: eval_jaxpr_keeping_sources(closed.jaxpr, closed.consts, *xs), primals,
            tangents)
        nonzero[:] = [k or type(t) is not ad.Zero
                      for t, k in zip(out_tangents, keep, strict=True)]
        return [*outs, *[ad.instantiate_zeros(t) for t, nz in zip(out_tangents, nonzero,
                                                                 strict=True) if nz]]

    return trace_closed(fun, [*closed.in_avals, *tangent_avals]), nonzero


def batch_jaxpr(closed: ClosedJaxpr, size: int, in_batched: Sequence[bool],
                out_batched: Sequence[bool] | bool = True) -> ClosedJaxpr:
    """The jaxpr mapped over a leading axis of size `size` of the inputs marked batched;
    outputs marked batched get that axis at 0 (unbatched outputs must not depend on it)."""
    in_dims = [0 if b else None for b in in_batched]
    outs = [out_batched] * len(closed.out_avals) if isinstance(out_batched, bool) \
        else list(out_batched)
    out_dims = [0 if b else None for b in outs]
    in_avals = [a.update(shape=(size, *a.shape)) if b else a
                for a, b in zip(closed.in_avals, in_batched, strict=True)]
    # Collectives in the jaxpr name the axis of the vmap batching it.
    axis_name, spmd_axis_name = batching.rule_axis_names()

    def fun(*xs: Any) -> list[Any]:
        return batching.vmap_flat(
            lambda *ys: eval_jaxpr_keeping_sources(closed.jaxpr, closed.consts, *ys),
            xs, in_dims, out_dims, size, axis_name, spmd_axis_name)

    return trace_closed(fun, in_avals)


def batch_jaxpr_keeping_unbatched(closed: ClosedJaxpr, size: int, in_batched: Sequence[bool]
                                  ) -> tuple[ClosedJaxpr, list[bool]]:
    """Like `batch_jaxpr`, with each output batched (at 0) only where its equations' batch rules
    batch it, in one trace; also returns which are. A call's rule gives the others back
    unbatched, as JAX's jit and checkpoint do: a counter a library keeps unbatched inside a
    jitted function (equinox's `nonbatchable` loop steps) must come out unbatched, or a later
    use of it (the backward pass of the loop) sees a batched value."""
    in_dims = [0 if b else None for b in in_batched]
    in_avals = [a.update(shape=(size, *a.shape)) if b else a
                for a, b in zip(closed.in_avals, in_batched, strict=True)]
    axis_name, spmd_axis_name = batching.rule_axis_names()
    out_batched: list[bool] = []

    def fun(*xs: Any) -> list[Any]:
        pairs = batching.vmap_flat_dims(
            lambda *ys: eval_jaxpr_keeping_sources(closed.jaxpr, closed.consts, *ys),
            xs, in_dims, size, axis_name, spmd_axis_name)
        out_batched[:] = [d is not None for _, d in pairs]
        return [batching.move_dim(v, d, None if d is None else 0, size) for v, d in pairs]

    return trace_closed(fun, in_avals), out_batched


def batched_outputs(closed: ClosedJaxpr, size: int, in_batched: Sequence[bool]) -> list[bool]:
    """Which outputs of `closed` are batched when the inputs marked in `in_batched` are, as its
    equations' batch rules decide: a rule may give an unbatched result from batched operands
    (a reduction over the batch axis that a library defines, a loop's unbatched counter), so
    reading the jaxpr's data flow alone would over-approximate. Loops reach their fixed point
    of batched carries with it."""
    return batch_jaxpr_keeping_unbatched(closed, size, in_batched)[1]


def transpose_jaxpr(closed: ClosedJaxpr, linear: Sequence[bool],
                    ct_avals: Sequence[Any] | None = None,
                    zero_cts: Sequence[bool] | None = None) -> ClosedJaxpr:
    """(non-linear inputs..., output cts...) -> cts of the linear inputs (instantiated).

    Outputs flagged in `zero_cts` have symbolic-zero cotangents: they are not inputs, and the
    backward pass skips the products they would enter (a zero cotangent times an infinite
    residual would otherwise give NaN)."""
    return transpose_jaxpr_keeping_zeros(closed, linear, ct_avals, zero_cts,
                                         instantiate=True)[0]


def transpose_jaxpr_keeping_zeros(closed: ClosedJaxpr, linear: Sequence[bool],
                                  ct_avals: Sequence[Any] | None = None,
                                  zero_cts: Sequence[bool] | None = None,
                                  instantiate: bool = False) -> tuple[ClosedJaxpr, list[bool]]:
    """Like `transpose_jaxpr`, with only the linear inputs' cotangents that are not symbolic
    zeros among the outputs (all of them with `instantiate`); also returns which those are."""
    known_avals = [a for a, lin in zip(closed.in_avals, linear, strict=True) if not lin]
    all_ct_avals = list(closed.out_avals) if ct_avals is None else list(ct_avals)
    zeros = [False] * len(all_ct_avals) if zero_cts is None else list(zero_cts)
    cts_avals = [a for a, z in zip(all_ct_avals, zeros, strict=True) if not z]
    n_known = len(known_avals)
    nonzero: list[bool] = []

    def with_zeros(given: Sequence[Any]) -> list[Any]:
        it = iter(given)
        return [ad.Zero(a) if z else next(it) for a, z in zip(all_ct_avals, zeros, strict=True)]

    def fun(*args: Any) -> list[Any]:
        it = iter(args[:n_known])
        jaxpr = closed.jaxpr
        constvars, consts, invars = list(jaxpr.constvars), list(closed.consts), []
        for v, lin in zip(jaxpr.invars, linear, strict=True):
            if lin:
                invars.append(v)
            else:
                constvars.append(v)
                consts.append(next(it))
        linear_jaxpr = jaxpr.replace(constvars=constvars, invars=invars)
        in_cts = ad.backward_pass(linear_jaxpr, consts, with_zeros(args[n_known:]))
        nonzero[:] = [instantiate or type(c) is not ad.Zero for c in in_cts]
        return [ad.instantiate_zeros(c) for c, nz in zip(in_cts, nonzero, strict=True) if nz]

    return trace_closed(fun, [*known_avals, *cts_avals]), nonzero


def backward_pass_closed(closed: ClosedJaxpr, args: Sequence[Any], cts: Sequence[Any]
                         ) -> list[Any]:
    """The transpose rule of a primitive that calls `closed`: `args` are its operands
    (`UndefinedPrimal` for the linear ones), `cts` its outputs' cotangents; returns the linear
    operands' cotangents (None for the others).

    An equation may read both kinds of operand (a scan carrying primal and tangent values, a
    cond whose branches compute both), so the jaxpr is first split by partial evaluation with
    the linear operands unknown: the known part (primal work) runs now and the unknown part,
    linear in its non-residual inputs, is transposed."""
    linear = [ad.is_undefined_primal(x) for x in args]
    known = [x for x, lin in zip(args, linear, strict=True) if not lin]
    split = partial_eval.partial_eval_jaxpr(closed, linear)
    known_outs = eval_jaxpr(split.known.jaxpr, split.known.consts, *known)
    residuals = known_outs[len(known_outs) - len(split.res_avals):]
    unknown = split.unknown.jaxpr
    n_res = len(residuals)
    linear_jaxpr = unknown.replace(constvars=unknown.invars[:n_res],
                                   invars=unknown.invars[n_res:])
    lin_cts = [c for c, u in zip(cts, split.out_unknowns, strict=True) if u]
    in_cts = ad.backward_pass(linear_jaxpr, residuals, lin_cts)
    it = iter(in_cts)
    return [next(it) if lin else None for lin in linear]

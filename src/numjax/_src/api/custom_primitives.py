"""The primitives behind `custom_jvp`, `custom_vjp` and `linear_call`, and their rules.

`custom_jvp_call` holds the function's jaxpr (`call_jaxpr`) and a rule
`jvp(primals, tangents) -> (outs, out_tangents)`; `custom_vjp_call` holds `call_jaxpr`,
`fwd(primals, perturbed) -> (outs, residuals)` and `bwd(residuals, cts) -> input cts`. The first
`num_consts` operands are values the function closes over (tracers of enclosing traces, made
explicit so every trace can transform them); the rules receive them too.

Differentiating a custom function with respect to a value it closes over is JAX's
`CustomJVPException` / `CustomVJPException`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import native_structural
from numjax._src.compiler.executables import executable_for
from numjax._src.core.avals import get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, Var, eval_jaxpr, jaxpr_as_fun
from numjax._src.core.trace import Primitive, Tracer
from numjax._src.interpreters import ad, batching, jaxpr_transforms
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import lax
from numjax._src.linear_util import wrap_init


def const_dependence(closed: ClosedJaxpr, num_consts: int) -> list[bool]:
    """For each of the first `num_consts` inputs: does any output depend on it?"""
    jaxpr = closed.jaxpr
    reach: dict[Var, set[int]] = {v: {i} for i, v in enumerate(jaxpr.invars[:num_consts])}
    for eqn in jaxpr.eqns:
        srcs: set[int] = set()
        for a in eqn.invars:
            if isinstance(a, Var):
                srcs |= reach.get(a, set())
        if srcs:
            for v in eqn.outvars:
                reach[v] = srcs
    used: set[int] = set()
    for out in jaxpr.outvars:
        if isinstance(out, Var):
            used |= reach.get(out, set())
    return [i in used for i in range(num_consts)]


def _forward_inputs(call_jaxpr: ClosedJaxpr, args: Sequence[Any], batched: Sequence[bool],
                    outs: Sequence[Any]) -> list[Any]:
    """A batched custom function's outputs, those that are a batched input being that input.
    In JAX the function itself runs on the batched values, so one that returns its argument
    returns the same object (`vmap` of a custom_jvp `asarray` is its argument, which lineax and
    optimistix check); the bound jaxpr would give a copy. Only for concrete operands: under an
    enclosing trace the output carries that trace's custom rule (a custom_vjp's gradient)."""
    if any(isinstance(a, Tracer) for a in args):
        return list(outs)
    position = {v: i for i, v in enumerate(call_jaxpr.jaxpr.invars)}
    return [args[position[v]] if isinstance(v, Var) and v in position and batched[position[v]]
            else out for v, out in zip(call_jaxpr.jaxpr.outvars, outs, strict=True)]


def _batch_size(args: Sequence[Any], dims: Sequence[Any]) -> int:
    return next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)


def _vmap_dims_keeping_zeros(fun: Any, values: Sequence[Any], dims: Sequence[Any],
                             size: int) -> list[tuple[Any, int | None]]:
    """vmap `fun(*values)` where some values are symbolic `Zero`s: those stay Zero (unbatched)
    inside, so a rule defined with `symbolic_zeros=True` still sees them as zeros. Each output
    comes with the dim its batch rules gave it (None: unbatched)."""
    keep = [type(v) is not Zero for v in values]
    live = [v for v, k in zip(values, keep, strict=True) if k]
    live_dims = [d for d, k in zip(dims, keep, strict=True) if k]

    def flat(*xs: Any) -> list[Any]:
        it = iter(xs)
        return fun(*[next(it) if k else v for v, k in zip(values, keep, strict=True)])

    return batching.vmap_flat_dims(flat, live, live_dims, size)


class _OutBatched:
    """Which outputs of a batched custom call are batched. Without differentiation, those its
    function batches (an output not depending on a batched input stays unbatched, as JAX
    keeps it). When the rule (jvp, or fwd) runs during the bind, JAX takes the rule's: an
    output is batched if its value or its tangent is. A rule run later, for an equation already
    staged, conforms to what the equation says."""

    def __init__(self, function_batched: list[bool]) -> None:
        self.batched = function_batched
        self.bound = False

    def settle(self, rule_batched: list[bool]) -> list[bool]:
        if not self.bound:
            self.batched = rule_batched
        return self.batched

    def dims(self) -> list[int | None]:
        self.bound = True
        return [0 if b else None for b in self.batched]


def _conform(x: Any, dim: int | None, batched: bool, size: int) -> Any:
    """`x` (batch axis at `dim`) batched at 0, or unbatched. An output kept unbatched stands for
    example 0's (its cotangent goes to example 0 alone, `_to_example_0`), so a batched value
    for it is example 0's."""
    if batched:
        return batching.move_dim(x, dim, 0, size)
    return x if dim is None else lax.index_in_dim(x, 0, dim, keepdims=False)


def _to_example_0(ct: Any, size: int) -> Any:
    """The per-example cotangents of an output kept unbatched: `ct` for example 0, zeros for
    the others (the transpose of `_conform` taking example 0). Giving `ct` to every example,
    as JAX 0.4.30's custom_vjp batching does, counts it `size` times. An integer output's
    cotangent (float0: no values) is float0 for every example."""
    aval = get_aval(ct)
    if aval.dtype == dtypes.float0:
        return np.zeros((size, *aval.shape), dtypes.float0)
    zero = np.zeros((), aval.dtype)[()]
    config = [(0, size - 1, 0)] + [(0, 0, 0)] * aval.ndim
    return lax.pad(lax.expand_dims(ct, (0,)), zero, config)


# ---- custom_jvp ----------------------------------------------------------------------------

class CustomJVPCallPrimitive(Primitive):
    """`custom_jvp_call`: its equations hold the function as `call_jaxpr` and the rule as
    `jvp`, a callable (primals, tangents) -> (outputs, output tangents) taking symbolic
    `Zero` tangents.

    Interpreters of jaxprs re-bind an equation the way JAX's primitive is bound, the function
    and its rule first (`get_bind_params`, then `p.bind(fun, jvp, *args, **params)`): both
    are `linear_util` WrappedFuns, the rule taking primals then (instantiated) tangents and
    returning outputs then output tangents, flat."""

    multiple_results = True

    def bind(self, *args: Any, **params: Any) -> Any:
        if "call_jaxpr" in params:
            return super().bind(*args, **params)
        fun, jvp, *operands = args
        call = getattr(fun, "call_wrapped", fun)
        closed = trace_to_jaxpr(lambda *xs: list(call(*xs)),
                                [shaped_abstractify(x) for x in operands])
        n_out = len(closed.out_avals)
        jvp_call = getattr(jvp, "call_wrapped", jvp)

        def rule(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
            outs = list(jvp_call(*primals, *[ad.instantiate_zeros(t) for t in tangents]))
            return outs[:n_out], outs[n_out:]

        return super().bind(*operands, call_jaxpr=closed, jvp=rule, num_consts=0,
                            symbolic_zeros=params.get("symbolic_zeros", False))

    def get_bind_params(self, params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        new_params = dict(params)
        closed: ClosedJaxpr = new_params.pop("call_jaxpr")
        rule = new_params.pop("jvp")
        del new_params["num_consts"]  # the consts are leading operands of `fun` and `jvp`

        def jvp(*xs: Any) -> list[Any]:
            n = len(xs) // 2
            outs, out_tangents = rule(list(xs[:n]), list(xs[n:]))
            return [*outs, *[ad.instantiate_zeros(t) for t in out_tangents]]

        return [wrap_init(jaxpr_as_fun(closed)), wrap_init(jvp)], new_params


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call")
custom_jvp_call_p.uncompiled_params = frozenset({"jvp"})  # compiled code runs call_jaxpr


@custom_jvp_call_p.def_effectful_abstract_eval
def _custom_jvp_abstract_eval(*args: Any, call_jaxpr: ClosedJaxpr, jvp: Any, num_consts: int,
                              symbolic_zeros: bool) -> Any:
    return call_jaxpr.out_avals, call_jaxpr.effects


def _custom_jvp_impl(*args: Any, call_jaxpr: ClosedJaxpr, jvp: Any, num_consts: int,
                     symbolic_zeros: bool) -> list[Any]:
    return executable_for(call_jaxpr, "custom_jvp")(*args)


def _custom_jvp_rule(primals: Sequence[Any], tangents: Sequence[Any], *,
                     call_jaxpr: ClosedJaxpr, jvp: Any, num_consts: int, symbolic_zeros: bool
                     ) -> tuple[list[Any], list[Any]]:
    return jvp(list(primals), list(tangents))


def _batch_call(args: Sequence[Any], dims: Sequence[Any], call_jaxpr: ClosedJaxpr
                ) -> tuple[int, list[Any], list[bool], ClosedJaxpr, _OutBatched]:
    """What a custom_jvp/custom_vjp call's batching rule starts from: the batch size, the
    arguments with their batch axes at the front, which are batched, the function batched
    keeping unbatched what reads no batched input, and its outputs' batching so far."""
    size = _batch_size(args, dims)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    batched = [d is not None for d in dims]
    new_jaxpr, function_batched = jaxpr_transforms.batch_jaxpr_keeping_unbatched(
        call_jaxpr, size, batched)
    return size, args, batched, new_jaxpr, _OutBatched(function_batched)


def _custom_jvp_batch(args: Sequence[Any], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr,
                      jvp: Any, num_consts: int, symbolic_zeros: bool
                      ) -> tuple[list[Any], list[Any]]:
    size, args, batched, new_jaxpr, out_batched = _batch_call(args, dims, call_jaxpr)
    n_out = len(call_jaxpr.out_avals)
    n_in = len(args)

    def batched_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        in_dims = [0 if b else None for b in batched]
        # A tangent is batched iff it has its primal's batched shape.
        tangent_dims = [0 if b and type(t) is not Zero and get_aval(t).shape ==
                        get_aval(p).shape else None
                        for t, p, b in zip(tangents, primals, batched, strict=True)]
        tangents = [Zero(_unbatched(t.aval, b, size)) if type(t) is Zero else t
                    for t, b in zip(tangents, batched, strict=True)]

        def flat(*xs: Any) -> list[Any]:
            outs, out_t = jvp(list(xs[:n_in]), list(xs[n_in:]))
            return [*outs, *[ad.instantiate_zeros(t) for t in out_t]]

        pairs = _vmap_dims_keeping_zeros(flat, [*primals, *tangents],
                                         [*in_dims, *tangent_dims], size)
        out_b = out_batched.settle([p[1] is not None or t[1] is not None
                                    for p, t in zip(pairs[:n_out], pairs[n_out:], strict=True)])
        res = [_conform(v, d, b, size) for (v, d), b in zip(pairs, out_b * 2, strict=True)]
        return res[:n_out], res[n_out:]

    outs = custom_jvp_call_p.bind(*args, call_jaxpr=new_jaxpr, jvp=batched_jvp,
                                  num_consts=num_consts, symbolic_zeros=symbolic_zeros)
    outs = _forward_inputs(call_jaxpr, args, batched, outs)
    return outs, out_batched.dims()


def _unbatched(aval: Any, batched: bool, size: int) -> Any:
    """The per-example aval of a Zero tangent of a batched primal."""
    if batched and aval.shape[:1] == (size,):
        return aval.update(shape=aval.shape[1:])
    return aval


def _inline_call_jaxpr(trace: Any, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Under partial evaluation without differentiation the custom rule is not needed: the
    function's own equations are evaluated (and staged where unknown)."""
    closed: ClosedJaxpr = params["call_jaxpr"]
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


custom_jvp_call_p.def_impl(_custom_jvp_impl)
custom_jvp_call_p.def_jvp(_custom_jvp_rule)
custom_jvp_call_p.def_batch(_custom_jvp_batch)
custom_jvp_call_p.native = native_structural.custom_call_rule
custom_jvp_call_p.def_partial_eval(_inline_call_jaxpr)
# Transposing a custom_jvp function (linear_transpose of it) transposes the function itself:
# the custom rule is about differentiation only.
custom_jvp_call_p.def_transpose(
    lambda cts, *args, call_jaxpr, **_: jaxpr_transforms.backward_pass_closed(
        call_jaxpr, args, cts))


# ---- custom_vjp ----------------------------------------------------------------------------

custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True
_JVP_OF_CUSTOM_VJP = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract_eval(*args: Any, num_res: int, bwd: Any, out_avals: tuple[Any, ...],
                              symbolic_zeros: bool) -> list[Any]:
    return [ad.tangent_aval(a) for a in out_avals]


def _custom_lin_impl(*args: Any, **params: Any) -> Any:
    raise TypeError(_JVP_OF_CUSTOM_VJP)


def _custom_lin_transpose(cts: Sequence[Any], *args: Any, num_res: int, bwd: Any,
                          out_avals: tuple[Any, ...], symbolic_zeros: bool) -> list[Any]:
    res = args[:num_res]
    if not symbolic_zeros:
        cts = [ad.instantiate_zeros(c) for c in cts]
    in_cts = bwd(list(res), list(cts))
    return [None] * num_res + list(in_cts)


def _custom_lin_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
    # Reverse mode transposes custom_lin (its batched cotangents go to `bwd`); batching one
    # means its tangents are being pushed forward (jacfwd, vmap of jvp), which is forward-mode
    # autodiff of the custom_vjp function: JAX's TypeError, as without vmap.
    raise TypeError(_JVP_OF_CUSTOM_VJP)


custom_lin_p.def_impl(_custom_lin_impl)
custom_lin_p.def_transpose(_custom_lin_transpose)
custom_lin_p.def_batch(_custom_lin_batch)
custom_lin_p.is_linear = True
custom_lin_p.declare_undefined("jvp", _JVP_OF_CUSTOM_VJP)

custom_vjp_call_p = Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True
custom_vjp_call_p.uncompiled_params = frozenset({"fwd", "bwd"})  # compiled code runs call_jaxpr


@custom_vjp_call_p.def_effectful_abstract_eval
def _custom_vjp_abstract_eval(*args: Any, call_jaxpr: ClosedJaxpr, fwd: Any, bwd: Any,
                              num_consts: int, symbolic_zeros: bool) -> Any:
    return call_jaxpr.out_avals, call_jaxpr.effects


def _custom_vjp_impl(*args: Any, call_jaxpr: ClosedJaxpr, fwd: Any, bwd: Any, num_consts: int,
                     symbolic_zeros: bool) -> list[Any]:
    return executable_for(call_jaxpr, "custom_vjp")(*args)


def custom_vjp_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, fwd: Any, bwd: Any,
                   num_consts: int, symbolic_zeros: bool, **_: Any
                   ) -> tuple[list[Any], list[Any]]:
    """Run `fwd` now; the output tangents are `custom_lin` of the input tangents, whose
    transpose is `bwd`."""
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise ad.CustomVJPException()
    perturbed = [type(t) is not Zero for t in tangents]
    outs, res = fwd(list(primals), perturbed)
    arg_tangents = [ad.instantiate_zeros(t) for t in tangents[num_consts:]]
    out_avals = tuple(get_aval(o) for o in outs)
    out_t = custom_lin_p.bind(*res, *arg_tangents, num_res=len(res), bwd=bwd,
                              out_avals=out_avals, symbolic_zeros=symbolic_zeros)
    return outs, out_t


def _custom_vjp_batch(args: Sequence[Any], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr,
                      fwd: Any, bwd: Any, num_consts: int, symbolic_zeros: bool
                      ) -> tuple[list[Any], list[Any]]:
    size, args, batched, new_jaxpr, out_batched = _batch_call(args, dims, call_jaxpr)
    n_out = len(call_jaxpr.out_avals)
    arg_batched = batched[num_consts:]
    example_avals = [_unbatched(get_aval(a), b, size)
                     for a, b in zip(args[num_consts:], arg_batched, strict=True)]
    # Which residuals `fwd_b` gave batched (at 0), for `bwd_b` (JAX reads the forward
    # function's output dims the same way). An unbatched residual stays as `fwd` made it: a
    # Python flag a library's backward function branches on (equinox's `perturbed`) must not
    # become a batched array.
    res_dims: list[int | None] = []

    def fwd_b(primals: list[Any], perturbed: list[bool]) -> tuple[list[Any], list[Any]]:
        def flat(*xs: Any) -> list[Any]:
            outs, res = fwd(list(xs), perturbed)
            return [*outs, *res]

        pairs = batching.vmap_flat_dims(flat, primals, [0 if b else None for b in batched],
                                        size)
        out_b = out_batched.settle([d is not None for _, d in pairs[:n_out]])
        outs = [_conform(v, d, b, size) for (v, d), b in zip(pairs[:n_out], out_b, strict=True)]
        res_dims[:] = [None if d is None else 0 for _, d in pairs[n_out:]]
        return outs, [v if d is None else batching.move_dim(v, d, 0, size)
                      for v, d in pairs[n_out:]]

    def bwd_b(res: list[Any], cts: list[Any]) -> list[Any]:
        cts = [Zero(_unbatched(c.aval, b, size)) if type(c) is Zero
               else c if b else _to_example_0(c, size)
               for c, b in zip(cts, out_batched.batched, strict=True)]

        def flat(*xs: Any) -> list[Any]:
            in_cts = bwd(list(xs[:len(res)]), list(xs[len(res):]))
            # A zero cotangent becomes explicit zeros so the batch can be stacked.
            return [ad.instantiate_zeros(Zero(ad.tangent_aval(a))) if c is None
                    or type(c) is Zero else c for c, a in zip(in_cts, example_avals, strict=True)]

        assert len(res_dims) == len(res), "custom_vjp residuals without their forward pass"
        pairs = _vmap_dims_keeping_zeros(flat, [*res, *cts], [*res_dims, *[0] * len(cts)], size)
        # An unbatched input's cotangent sums its examples' (the transpose of broadcasting it).
        return [batching.move_dim(v, d, 0, size) if b
                else v if d is None else lax.reduce_sum(v, (d,))
                for (v, d), b in zip(pairs, arg_batched, strict=True)]

    outs = custom_vjp_call_p.bind(*args, call_jaxpr=new_jaxpr, fwd=fwd_b, bwd=bwd_b,
                                  num_consts=num_consts, symbolic_zeros=symbolic_zeros)
    outs = _forward_inputs(call_jaxpr, args, batched, outs)
    return outs, out_batched.dims()


custom_vjp_call_p.def_impl(_custom_vjp_impl)
custom_vjp_call_p.def_jvp(custom_vjp_jvp)
custom_vjp_call_p.def_batch(_custom_vjp_batch)
custom_vjp_call_p.native = native_structural.custom_call_rule
custom_vjp_call_p.def_partial_eval(_inline_call_jaxpr)
# A custom_vjp function is not transposable (JAX's primitive is named custom_vjp_call_jaxpr).
custom_vjp_call_p.declare_undefined(
    "transpose", "Transpose rule (for reverse-mode differentiation) for "
    "'custom_vjp_call_jaxpr' not implemented", NotImplementedError)


# ---- linear_call ---------------------------------------------------------------------------
# `callee(residuals, linear)` is linear in `linear`, and `transpose(residuals, cts)` is its
# transpose, given by the user. The operands are the callee's hoisted constants, the
# transpose's, the residuals, then the linear operands (JAX's params and layout). As in JAX
# 0.4.30 it is only transposable: it has no jvp or batching rule.

linear_call_p = Primitive("linear_call")
linear_call_p.multiple_results = True


@linear_call_p.def_effectful_abstract_eval
def _linear_call_abstract_eval(*args: Any, callee: ClosedJaxpr, transpose: ClosedJaxpr,
                               num_callee_consts: int, num_transpose_consts: int,
                               num_res: int) -> Any:
    return callee.out_avals, callee.effects


def _linear_call_operands(args: Sequence[Any], num_callee_consts: int,
                          num_transpose_consts: int, num_res: int
                          ) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    a = num_callee_consts
    b = a + num_transpose_consts
    c = b + num_res
    return list(args[:a]), list(args[a:b]), list(args[b:c]), list(args[c:])


def _linear_call_impl(*args: Any, callee: ClosedJaxpr, transpose: ClosedJaxpr,
                      num_callee_consts: int, num_transpose_consts: int, num_res: int
                      ) -> list[Any]:
    f_consts, _, res, lin = _linear_call_operands(args, num_callee_consts,
                                                  num_transpose_consts, num_res)
    return executable_for(callee, "linear_call")(*f_consts, *res, *lin)


def _linear_call_transpose(cts: Sequence[Any], *args: Any, callee: ClosedJaxpr,
                           transpose: ClosedJaxpr, num_callee_consts: int,
                           num_transpose_consts: int, num_res: int) -> list[Any]:
    """The transpose of a linear_call is a linear_call of the user's transpose, whose own
    transpose is the callee again."""
    f_consts, t_consts, res, lin = _linear_call_operands(args, num_callee_consts,
                                                         num_transpose_consts, num_res)
    ct_avals = transpose.in_avals[num_transpose_consts + num_res:]
    cts = [ad.zeros_like_aval(a) if type(c) is Zero else c
           for c, a in zip(cts, ct_avals, strict=True)]
    outs = linear_call_p.bind(*t_consts, *f_consts, *res, *cts, callee=transpose,
                              transpose=callee, num_callee_consts=len(t_consts),
                              num_transpose_consts=len(f_consts), num_res=num_res)
    return [None] * (len(args) - len(lin)) + list(outs)


linear_call_p.def_impl(_linear_call_impl)
linear_call_p.def_transpose(_linear_call_transpose)
linear_call_p.declare_undefined(
    "jvp", "Differentiation rule for 'linear_call' not implemented", NotImplementedError)
linear_call_p.declare_undefined(
    "batch", "Batching rule for 'linear_call' not implemented", NotImplementedError)

# Compiled code runs a custom function's own equations (its rules are for transformations,
# which are done by then): the compiler inlines them like a nested jit, so they fuse with
# the equations around them instead of running as a separate program per use.
custom_jvp_call_p.inlinable_call = custom_vjp_call_p.inlinable_call = True

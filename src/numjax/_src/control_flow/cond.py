"""`cond` and `switch`: the `cond` primitive, one jaxpr per branch, chosen by an index.

Operands are `(index, *args)`; every branch takes `args` (the union of the branches' hoisted
constants followed by the user's operands) and returns outputs of the same types. Rules:
jvp and batching transform every branch; a batched index turns the cond into a `select_n`
over all branches; under linearize each branch is split into known and unknown parts whose
residuals share slots by type, as in JAX; the linear cond transposes branch by branch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes, traceback_util
from numjax._src.compiler import native_structural, passes
from numjax._src.compiler.executables import executable_for
from numjax._src.control_flow.common import TracedFun, check_tree_and_avals, trace_fun
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.effects import io_effect, ordered_io_effect
from numjax._src.core.jaxpr import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from numjax._src.core.trace import Primitive, Tracer, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import StagingTrace
from numjax._src.lax import lax
from numjax._src.runtime import devices
from numjax._src.tree_util import tree_flatten, tree_structure, tree_unflatten

cond_p = Primitive("cond")
cond_p.multiple_results = True


@cond_p.def_effectful_abstract_eval
def _cond_abstract_eval(index: Any, *args: Any, branches: tuple[ClosedJaxpr, ...],
                        linear: tuple[bool, ...]) -> Any:
    # The branches' outputs agree in shape and dtype but not necessarily in weak type: the
    # result types are the first branch's (the false branch of `cond`), as in JAX, whatever
    # the other branches' weak types.
    outs = list(branches[0].out_avals)
    effects = frozenset().union(*(b.effects for b in branches))
    return outs, effects


def _cond_impl(index: Any, *args: Any, branches: tuple[ClosedJaxpr, ...],
               linear: tuple[bool, ...]) -> list[Any]:
    i = min(max(int(index), 0), len(branches) - 1)
    return executable_for(branches[i], "cond_branch")(*args)


def _cond_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
              branches: tuple[ClosedJaxpr, ...], linear: tuple[bool, ...]
              ) -> tuple[list[Any], list[Any]]:
    index, *args = primals
    arg_tangents = tangents[1:]
    has_tangent = [type(t) is not ad.Zero for t in arg_tangents]
    # An output's tangent is a symbolic zero when it is one in every branch (as in JAX); the
    # branches are traced again where one of them has a zero the others do not.
    traced = [jaxpr_transforms.jvp_jaxpr_keeping_zeros(b, has_tangent) for b in branches]
    out_nz = [any(nz) for nz in zip(*(nz for _, nz in traced), strict=True)]
    new = tuple(jvp if nz == out_nz else
                jaxpr_transforms.jvp_jaxpr_keeping_zeros(b, has_tangent, instantiate=out_nz)[0]
                for b, (jvp, nz) in zip(branches, traced, strict=True))
    nonzero = [t for t in arg_tangents if type(t) is not ad.Zero]
    outs = cond_p.bind(index, *args, *nonzero, branches=new,
                       linear=(False,) * (len(args) + len(nonzero)))
    m = len(branches[0].out_avals)
    out_t = iter(outs[m:])
    return outs[:m], [next(out_t) if nz else ad.Zero(ad.tangent_aval(a))
                      for a, nz in zip(branches[0].out_avals, out_nz, strict=True)]


def _cond_batch(values: Sequence[Any], dims: Sequence[Any], *,
                branches: tuple[ClosedJaxpr, ...], linear: tuple[bool, ...]
                ) -> tuple[list[Any], list[Any]]:
    if any(io_effect in b.effects or ordered_io_effect in b.effects for b in branches):
        # A batched branch would run its IO for every example (JAX refuses it too).
        raise NotImplementedError("IO effect not supported in vmap-of-cond.")
    index, *args = values
    index_dim, *arg_dims = dims
    size = next(get_aval(x).shape[d] for x, d in zip(values, dims, strict=True)
                if d is not None)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, arg_dims, strict=True)]
    in_batched = [d is not None for d in arg_dims]
    if index_dim is None:
        # An output is batched where some branch's batch rules make it so; the others stay
        # unbatched (as in JAX), which a loop around the cond needs to keep its unbatched
        # carries so.
        out_batched = [any(bs) for bs in zip(*(jaxpr_transforms.batched_outputs(
            b, size, in_batched) for b in branches), strict=True)]
        new = tuple(jaxpr_transforms.batch_jaxpr(b, size, in_batched, out_batched)
                    for b in branches)
        outs = cond_p.bind(index, *args, branches=new, linear=linear)
        return outs, [0 if b else None for b in out_batched]
    # A batched index: every branch runs on the whole batch, then each example picks its own.
    # cond and switch bind an int32 index in range (switch clamps it, cond converts a bool).
    index = batching.bdim_at_front(index, index_dim, size)
    # Floating operands reach each branch through a select against their stop_gradient: an
    # example differentiates only through the branch it takes (as in JAX), so a branch that
    # is not its own (sqrt of a negative, 1/0) cannot put a NaN into its gradient.
    inexact = [np.issubdtype(get_aval(x).dtype, np.inexact) for x in args]
    args = [batching.bdim_at_front(x, None, size) if f and not b else x
            for x, f, b in zip(args, inexact, in_batched, strict=True)]
    in_batched = [b or f for b, f in zip(in_batched, inexact, strict=True)]
    branch_outs = []
    for i, b in enumerate(branches):
        batched = jaxpr_transforms.batch_jaxpr(b, size, in_batched)
        taken = lax.eq(index, np.int32(i))
        ops = [_select_lanes(taken, x) if f else x
               for x, f in zip(args, inexact, strict=True)]
        branch_outs.append(eval_jaxpr(batched.jaxpr, batched.consts, *ops))
    outs = []
    for cases in zip(*branch_outs, strict=True):
        shape = get_aval(cases[0]).shape
        which = index if len(shape) == 1 else lax.broadcast_in_dim(index, shape, (0,))
        outs.append(lax.select_n(which, *cases))
    return outs, [0] * len(outs)


def _select_lanes(taken: Any, x: Any) -> Any:
    """`x` where `taken` (one flag per example, on axis 0), its stop_gradient elsewhere."""
    which = lax.broadcast_in_dim(taken, get_aval(x).shape, (0,))
    return lax.select_n(which, lax.stop_gradient(x), x)


def _cond_partial_eval(trace: Any, values: Sequence[Any], params: dict[str, Any]
                       ) -> list[Any]:
    branches: tuple[ClosedJaxpr, ...] = params["branches"]
    index, *args = values
    if partial_eval.is_unknown(trace, index):
        return StagingTrace.process_primitive(trace, cond_p, values, params)  # type: ignore[no-any-return]
    unknowns = [partial_eval.is_unknown(trace, x) for x in args]
    # Outputs unknown in any branch are unknown in all (known ones pass through residuals).
    out_unknowns = [False] * len(branches[0].out_avals)
    while True:
        splits = [partial_eval.partial_eval_jaxpr(b, unknowns, out_unknowns) for b in branches]
        joined = [any(s.out_unknowns[i] for s in splits) for i in range(len(out_unknowns))]
        if joined == out_unknowns:
            break
        out_unknowns = joined
    res_avals, slots = _merge_residuals([s.res_avals for s in splits])
    known_branches = tuple(_pad_residuals(s.known, res_avals, slots[i])
                           for i, s in enumerate(splits))
    unknown_branches = tuple(_select_residuals(s.unknown, res_avals, slots[i])
                             for i, s in enumerate(splits))
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    n_known_out = sum(not u for u in out_unknowns)
    with set_current_trace(trace.parent):
        known_outs = cond_p.bind(index, *known_args, branches=known_branches,
                                 linear=(False,) * len(known_args))
    residuals = known_outs[n_known_out:]
    unknown_args = [x for x, u in zip(args, unknowns, strict=True) if u]
    n_args = len(residuals) + len(unknown_args)
    unknown_outs = StagingTrace.process_primitive(
        trace, cond_p, [index, *residuals, *unknown_args],
        {"branches": unknown_branches, "linear": (False,) * n_args})
    known_it, unknown_it = iter(known_outs[:n_known_out]), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


def _merge_residuals(branch_res_avals: list[list[Any]]) -> tuple[list[Any], list[list[int]]]:
    """Residual slots shared by the branches, as JAX lays them out: the k-th residual of a
    type in one branch shares the slot of the k-th residual of that type in the others (in
    order of first appearance); and each branch's slot for each of its residuals."""
    slot_of: dict[Any, int] = {}
    avals: list[Any] = []
    slots = []
    for res in branch_res_avals:
        seen: dict[Any, int] = {}
        own = []
        for a in res:
            kind = (a.shape, a.dtype, a.weak_type)
            key = (kind, seen.get(kind, 0))
            seen[kind] = key[1] + 1
            if key not in slot_of:
                slot_of[key] = len(avals)
                avals.append(a)
            own.append(slot_of[key])
        slots.append(own)
    return avals, slots


def _pad_residuals(known: ClosedJaxpr, res_avals: list[Any], slots: list[int]) -> ClosedJaxpr:
    """The known branch, returning every residual slot (its own filled, zeros elsewhere)."""
    n_main = len(known.out_avals) - len(slots)

    def fun(*args: Any) -> list[Any]:
        outs = eval_jaxpr(known.jaxpr, known.consts, *args)
        padded = [lax.zeros_like_aval(a) for a in res_avals]
        for slot, r in zip(slots, outs[n_main:], strict=True):
            padded[slot] = r
        return [*outs[:n_main], *padded]

    return jaxpr_transforms.trace_closed(fun, known.in_avals)


def _select_residuals(unknown: ClosedJaxpr, res_avals: list[Any], slots: list[int]
                      ) -> ClosedJaxpr:
    """The unknown branch, taking every residual slot and reading its own."""
    n_all = len(res_avals)

    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(unknown.jaxpr, unknown.consts, *[args[i] for i in slots],
                          *args[n_all:])

    return jaxpr_transforms.trace_closed(fun, [*res_avals, *unknown.in_avals[len(slots):]])


def _cond_transpose(cts: Sequence[Any], index: Any, *args: Any,
                    branches: tuple[ClosedJaxpr, ...], linear: tuple[bool, ...]) -> list[Any]:
    lin = [ad.is_undefined_primal(x) for x in args]
    known = [x for x, is_lin in zip(args, lin, strict=True) if not is_lin]
    cts = [ad.instantiate_zeros(c) for c in cts]
    new = tuple(jaxpr_transforms.transpose_jaxpr(b, lin) for b in branches)
    outs = cond_p.bind(index, *known, *cts, branches=new,
                       linear=(False,) * len(known) + (True,) * len(cts))
    it = iter(outs)
    return [None] + [next(it) if is_lin else None for is_lin in lin]


def _cond_dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """Every branch computing only the used outputs; an operand no branch then reads is
    dropped (the index stays)."""
    branches: tuple[ClosedJaxpr, ...] = eqn.params["branches"]
    used_in = [False] * (len(eqn.invars) - 1)
    for b in branches:
        used_in = [x or y for x, y in zip(used_in, passes.dce_jaxpr(b, used_outputs)[1],
                                          strict=True)]
    pruned = tuple(passes.dce_jaxpr(b, used_outputs, keep_inputs=used_in)[0] for b in branches)
    linear = tuple(lin for lin, u in zip(eqn.params["linear"], used_in, strict=True) if u)
    return eqn.replace(
        invars=[eqn.invars[0], *(a for a, u in zip(eqn.invars[1:], used_in, strict=True) if u)],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u],
        params={**eqn.params, "branches": pruned, "linear": linear})


def _cond_remat(eqn: JaxprEqn, policy: Callable[..., bool]
                ) -> tuple[JaxprEqn, JaxprEqn, list[Var]] | None:
    """A checkpointed cond saving what its policy saves inside the branches: the known cond
    also returns those values (in residual slots shared by the branches, zeros where another
    branch's), the recomputing cond reads them."""
    branches: tuple[ClosedJaxpr, ...] = eqn.params["branches"]
    splits = [partial_eval.remat_split_jaxpr(b, policy) for b in branches]
    if all(s is None for s in splits):
        return None
    parts = [s if s is not None else (b, b, [])
             for b, s in zip(branches, splits, strict=True)]
    res_avals, slots = _merge_residuals([p[2] for p in parts])
    known = tuple(_pad_residuals(p[0], res_avals, slots[i]) for i, p in enumerate(parts))
    recompute = tuple(_select_residuals(p[1], res_avals, slots[i])
                      for i, p in enumerate(parts))
    residuals = [Var(a) for a in res_avals]
    linear = eqn.params["linear"]
    return (eqn.replace(outvars=[*eqn.outvars, *residuals],
                        params={**eqn.params, "branches": known}),
            eqn.replace(invars=[eqn.invars[0], *residuals, *eqn.invars[1:]],
                        params={**eqn.params, "branches": recompute,
                                "linear": (False,) * len(residuals) + linear}),
            residuals)


cond_p.def_impl(_cond_impl)
cond_p.remat_rule = _cond_remat
cond_p.dce_rule = _cond_dce
cond_p.def_jvp(_cond_jvp)
cond_p.def_batch(_cond_batch)
cond_p.native = native_structural.cond_rule
cond_p.def_partial_eval(_cond_partial_eval)
cond_p.def_transpose(_cond_transpose)


# ---- public functions ----------------------------------------------------------------------


def _trace_branches(funs: Sequence[Callable[..., Any]], operands: tuple[Any, ...],
                    what: str) -> tuple[list[TracedFun], Any, list[Any]]:
    flat_ops, in_tree = tree_flatten(operands)
    in_avals = [get_aval(x) for x in flat_ops]
    traced = [trace_fun(f, in_tree, in_avals, what) for f in funs]
    first = traced[0]
    for i, t in enumerate(traced[1:], 1):
        names = "true_fun and false_fun output" if what == "cond" else f"branch 0 and {i} outputs"
        check_tree_and_avals(names, first.out_tree, first.out_avals, t.out_tree, t.out_avals)
    return traced, first.out_tree, flat_ops


def _join_consts(traced: Sequence[TracedFun]) -> tuple[tuple[ClosedJaxpr, ...], list[Any]]:
    """Every branch takes all branches' hoisted constants (ignoring the others') first."""
    all_consts = [c for t in traced for c in t.consts]
    counts = [len(t.consts) for t in traced]
    branches = []
    for i, t in enumerate(traced):
        before, own, after = sum(counts[:i]), counts[i], sum(counts[i + 1:])
        closed = t.closed
        if before or after:
            closed = _with_ignored_inputs(closed, all_consts, before, own)
        branches.append(closed)
    return tuple(branches), all_consts


def _with_ignored_inputs(closed: ClosedJaxpr, all_consts: list[Any], before: int, own: int
                         ) -> ClosedJaxpr:
    extra_before = [Var(get_aval(c), "_") for c in all_consts[:before]]
    extra_after = [Var(get_aval(c), "_") for c in all_consts[before + own:]]
    invars = list(closed.jaxpr.invars)
    new = closed.jaxpr.replace(invars=[*extra_before, *invars[:own], *extra_after,
                                       *invars[own:]])
    return ClosedJaxpr(new, closed.consts)


# `operand=` (one pytree operand by keyword) is JAX's former calling convention; None is a
# valid operand, so "not given" is this sentinel.
_NO_OPERAND = object()


def _operands(operands: tuple[Any, ...], operand: Any) -> tuple[Any, ...]:
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError("if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got {operand=} and positional operands {operands}")
    return (operand,)


@traceback_util.api_boundary
def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any,
           operand: Any = _NO_OPERAND) -> Any:
    """`branches[index](*operands)`, with `index` clamped to the valid range.

    >>> import numjax.numpy as jnp
    >>> switch(1, [jnp.sin, jnp.cos], 0.0)
    Array(1., dtype=float32, weak_type=True)
    """
    # An iterator of branches is consumed by this check, as in JAX (it then has no branches).
    if not all(callable(branch) for branch in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operands(operands, operand)
    if np.shape(index) != ():
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax.convert_element_type(index, np.int32)
    index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    if config.disable_jit.value and not isinstance(index, Tracer):
        return branches[int(index)](*operands)
    return _bind_cond(index, list(branches), operands, "switch")


@traceback_util.api_boundary
def cond(pred: Any, true_fun: Any, false_fun: Any, *operands: Any,
         operand: Any = _NO_OPERAND, linear: Any = None) -> Any:
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, both traced.

    `cond(pred, true_operand, true_fun, false_operand, false_fun)`, JAX's former form with
    an operand per branch, is accepted too. `linear`, a pytree of booleans shaped like the
    operands, marks operands the branches are linear in (recorded in the equation's params).

    >>> import numjax.numpy as jnp
    >>> cond(True, jnp.sin, jnp.cos, 0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    if (operand is _NO_OPERAND and len(operands) == 2
            and not (callable(true_fun) and callable(false_fun))
            and callable(false_fun) and callable(operands[1])):
        true_op, true_f, false_op, false_f = true_fun, false_fun, *operands
        return cond(pred, lambda op: true_f(op[0]), lambda op: false_f(op[1]),
                    (true_op, false_op))
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operands(operands, operand)
    linear_ops = None
    if linear is not None:
        linear_ops, linear_tree = tree_flatten(linear)
        if linear_tree != tree_structure(operands):
            raise TypeError("linear tree and operand tree mismatch")
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        raise TypeError(f"Pred must be a scalar, got {pred} of "
                        + (f"type {type(pred)}" if isinstance(pred, Sequence)
                           else f"shape {np.shape(pred)}."))
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")
        pred = lax.ne(pred, lax._convert_element_type(0, pred_dtype))
    if config.disable_jit.value and not isinstance(pred, Tracer):
        return true_fun(*operands) if pred else false_fun(*operands)
    index = lax.convert_element_type(pred, np.int32)
    return _bind_cond(index, [false_fun, true_fun], operands, "cond", linear_ops)


def _bind_cond(index: Any, funs: list[Callable[..., Any]], operands: tuple[Any, ...],
               what: str, linear_ops: list[bool] | None = None) -> Any:
    if what == "cond":
        # As JAX: the true branch is traced and checked first and its constants come first;
        # the branches are (false, true), indexed by the predicate.
        traced, out_tree, flat_ops = _trace_branches(funs[::-1], operands, what)
        branches, consts = _join_consts(traced)
        branches = branches[::-1]
    else:
        traced, out_tree, flat_ops = _trace_branches(funs, operands, what)
        branches, consts = _join_consts(traced)
    args = [*consts, *flat_ops]
    linear = (False,) * len(consts) + tuple(
        bool(b) for b in (linear_ops or (False,) * len(flat_ops)))
    outs = cond_p.bind(index, *args, branches=branches, linear=linear)
    return tree_unflatten(out_tree, outs)


# ---- inline lowering: an if/elif chain in the generated code -------------------------------


def _lower_cond(em: Any, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    branches: tuple[ClosedJaxpr, ...] = eqn.params["branches"]
    index, args = ins[0], ins[1:]
    n = len(branches)
    for b, branch in enumerate(branches):
        if b == 0:
            test = f"if {index} <= 0:" if n > 1 else "if True:"
        elif b == n - 1:
            test = "else:"
        else:
            test = f"elif {index} == {b}:"
        em.lines.append(indent + test)
        inner = indent + "    "
        start = len(em.lines)
        results = em.emit_inline(branch, args, inner)
        for name, value in zip(outs, results, strict=True):
            em.lines.append(f"{inner}{'_' if name == '_' else name} = {value}")
        if len(em.lines) == start:  # a branch with no work (the other one has effects)
            em.lines.append(f"{inner}pass")
    if em.check_invalid:
        # A branch may return a constant, a literal or an input that no equation inside
        # checked: under jax_debug_nans/infs the cond's results are checked as its own, as
        # JAX's de-optimized rerun of a jitted function names the cond ("jit(cond)").
        em.emit_invalid_check(eqn, outs, indent)


cond_p.def_inline_lowering(_lower_cond)


def _cond_sharding(eqn: Any, ins: list[Any], mesh: Any, propagate: Any) -> list[Any]:
    """A branch's results split as every branch splits them (whole where branches differ):
    jit's layout of a cond's results (api/sharding_propagation.py)."""
    outs = [propagate(b, ins[1:]) for b in eqn.params["branches"]]
    return [s if all(o[i] == s for o in outs) else {} for i, s in enumerate(outs[0])]


cond_p.sharding_rule = _cond_sharding
# Devices of one SPMD program may take different branches (api/pmap_executable.py).
cond_p.value_dependent_control = True


# ---- platform_dependent --------------------------------------------------------------------

# The index, into `platforms` (groups of platform names), of the group holding the platform the
# program is compiled for; len(platforms) for any other platform when there is a default.
platform_index_p = Primitive("platform_index")


@platform_index_p.def_abstract_eval
def _platform_index_abstract_eval(*, platforms: tuple[tuple[str, ...], ...],
                                  has_default: bool) -> ShapedArray:
    return ShapedArray((), np.dtype(np.int32))


def _platform_index_kernel_factory(in_avals: Sequence[Any], *,
                                   platforms: tuple[tuple[str, ...], ...],
                                   has_default: bool) -> Callable[[], Any]:
    platform = devices.get_backend().platform
    index = next((i for i, group in enumerate(platforms) if platform in group), None)
    if index is None:
        if not has_default:
            raise NotImplementedError(
                f"MLIR translation rule for primitive 'platform_index(platforms={platforms}, "
                f"has_default={has_default})' not found for platform {platform}")
        index = len(platforms)
    value = np.int32(index)
    return lambda: value


def _platform_index_impl(*, platforms: tuple[tuple[str, ...], ...], has_default: bool) -> Any:
    return _platform_index_kernel_factory((), platforms=platforms, has_default=has_default)()


platform_index_p.def_kernel_factory(_platform_index_kernel_factory)
platform_index_p.def_impl(_platform_index_impl)
# No operands: no transformation ever reaches it with a tracer.
platform_index_p.declare_undefined("jvp", "platform_index has no operands to differentiate")
platform_index_p.declare_undefined("batch", "platform_index has no operands to batch")


def platform_dependent(*args: Any, default: Callable[..., Any] | None = None,
                       **per_platform: Callable[..., Any]) -> Any:
    """`per_platform[p](*args)` for the platform `p` the program runs on (`default(*args)` for
    one not named). Every branch is traced, as in a `switch` on the platform's index, whose
    transformation rules it shares; the choice is made when the program is compiled.

    >>> import numjax.numpy as jnp
    >>> platform_dependent(2.0, cpu=lambda x: x * 2, tpu=jnp.cos)
    Array(4., dtype=float32, weak_type=True)
    """
    groups: list[list[str]] = []
    branches: list[Callable[..., Any]] = []
    for name, branch in per_platform.items():
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for group, known in zip(groups, branches, strict=True):
            if known == branch:  # one branch serving several platforms is traced once
                group.append(name)
                break
        else:
            groups.append([name])
            branches.append(branch)
    index = platform_index_p.bind(platforms=tuple(tuple(g) for g in groups),
                                  has_default=default is not None)
    if default is not None:
        branches.append(default)
    return switch(index, branches, *args)

"""`checkpoint` / `remat`: recompute a function's intermediates in the backward pass instead
of storing them.

The `checkpoint` primitive holds the function's jaxpr. Under linearize its partial-evaluation
rule computes the known (primal) outputs now but saves only the inputs as residuals: the staged
unknown part is a `checkpoint` equation over the whole jaxpr, whose transpose re-evaluates the
primal equations (the forward sweep of the backward pass) before transposing the linear ones.
A policy `policy(primitive, *avals, **params) -> bool` may save the results of chosen primal
equations (e.g. `dots_saveable`, or values tagged with `checkpoint_name`): those are computed in
the forward pass and passed to the unknown part instead of being recomputed.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import config, traceback_util
from numjax._src.api.flatten import debug_info
from numjax._src.compiler import native_structural, passes
from numjax._src.compiler.executables import executable_for
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core import effects, errors
from numjax._src.core.avals import get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var, eval_jaxpr, fresh_copy
from numjax._src.core.trace import Primitive, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import (
    StagingTrace,
    eval_jaxpr_keeping_sources,
    trace_to_jaxpr,
)
from numjax._src.lax import parallel
from numjax._src.tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

logger = logging.getLogger(__name__)

checkpoint_p = Primitive("checkpoint")
checkpoint_p.multiple_results = True
remat_p = checkpoint_p


@checkpoint_p.def_effectful_abstract_eval
def _checkpoint_abstract_eval(*args: Any, jaxpr: ClosedJaxpr, prevent_cse: bool,
                              differentiated: bool, policy: Any) -> Any:
    return jaxpr.out_avals, jaxpr.effects


def _checkpoint_impl(*args: Any, jaxpr: ClosedJaxpr, prevent_cse: bool,
                     differentiated: bool, policy: Any) -> list[Any]:
    return executable_for(jaxpr, "checkpoint")(*args)


def _checkpoint_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, jaxpr: ClosedJaxpr,
                    prevent_cse: bool, differentiated: bool, policy: Any
                    ) -> tuple[list[Any], list[Any]]:
    # Symbolic zero tangents stay symbolic through the call, both ways, as in JAX.
    has_tangent = [type(t) is not ad.Zero for t in tangents]
    jvp_jaxpr, out_nonzero = jaxpr_transforms.jvp_jaxpr_keeping_zeros(jaxpr, has_tangent)
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    outs = checkpoint_p.bind(*primals, *nonzero, jaxpr=jvp_jaxpr, prevent_cse=prevent_cse,
                             differentiated=True, policy=policy)
    m = len(jaxpr.out_avals)
    out_tangents = iter(outs[m:])
    return outs[:m], [next(out_tangents) if nz else ad.Zero(ad.tangent_aval(a))
                      for a, nz in zip(jaxpr.out_avals, out_nonzero, strict=True)]


def _checkpoint_batch(args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr,
                      prevent_cse: bool, differentiated: bool, policy: Any
                      ) -> tuple[list[Any], list[Any]]:
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    # Outputs the rules leave unbatched stay unbatched (as in JAX).
    batched, out_batched = jaxpr_transforms.batch_jaxpr_keeping_unbatched(
        jaxpr, size, [d is not None for d in dims])
    outs = checkpoint_p.bind(*args, jaxpr=batched, prevent_cse=prevent_cse,
                             differentiated=differentiated, policy=policy)
    return outs, [0 if b else None for b in out_batched]


def _checkpoint_partial_eval(trace: Any, args: Sequence[Any], params: dict[str, Any]
                             ) -> list[Any]:
    """Known outputs are computed now. The unknown part recomputes the primal values it needs
    from the inputs, except those the policy lets us save: those are computed now too and
    passed in (residuals)."""
    closed: ClosedJaxpr = params["jaxpr"]
    # Rematerializing would run an input/output callback twice (or never, if its result is
    # saved): JAX refuses, and so do we. Debug callbacks may run again.
    refused = [e for e in closed.effects
               if isinstance(e, effects.IOEffect | effects.OrderedIOEffect)]
    if refused:
        raise NotImplementedError(
            f"Effects not supported in partial-eval of `checkpoint`/`remat`: {refused}")
    policy = params["policy"]
    if policy is everything_saveable:
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)
    unknowns = [partial_eval.is_unknown(trace, x) for x in args]
    closed = _split_mixed_equations(closed, unknowns)
    jaxpr = closed.jaxpr
    unknown_vars = {v for v, u in zip(jaxpr.invars, unknowns, strict=True) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in unknown_vars for a in eqn.invars):
            unknown_vars.update(eqn.outvars)
            unknown_eqns.append(eqn)
        else:
            known_eqns.append(eqn)
    # Known values the unknown part needs, directly or through known equations it recomputes;
    # a value the policy saves is passed in, so what only it reads is not needed (JAX saves
    # cos(x) for sin(x), not x's other intermediates). A cond, scan or jit the policy does not
    # save whole still saves what the policy saves inside it.
    needed = {a for e in unknown_eqns for a in e.invars if isinstance(a, Var)}
    split = partial_eval.remat_split(known_eqns, needed, policy)
    known_eqns, saved = split.known, split.saved
    out_unknowns = [isinstance(v, Var) and v in unknown_vars for v in jaxpr.outvars]
    known_invars = [v for v, u in zip(jaxpr.invars, unknowns, strict=True) if not u]
    known_outs_vars = [v for v, u in zip(jaxpr.outvars, out_unknowns, strict=True) if not u]
    known_jaxpr = jaxpr.replace(invars=known_invars, eqns=known_eqns,
                                outvars=[*known_outs_vars, *saved])
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    with set_current_trace(trace.parent):
        known_vals = eval_jaxpr_keeping_sources(known_jaxpr, closed.consts, *known_args)
    known_outs, saved_vals = known_vals[:len(known_outs_vars)], known_vals[len(known_outs_vars):]
    unknown_jaxpr = passes.dce(ClosedJaxpr(jaxpr.replace(
        invars=[*jaxpr.invars, *saved],
        # Known equations never read unknown values: recomputing them first keeps the order.
        eqns=[*split.recompute, *unknown_eqns],
        outvars=[v for v, u in zip(jaxpr.outvars, out_unknowns, strict=True) if u]),
        closed.consts))
    level = logging.WARNING if config.log_checkpoint_residuals.value else logging.DEBUG
    if logger.isEnabledFor(level):
        _log_residuals(level, unknown_jaxpr.jaxpr, unknowns, saved, known_eqns)
    unknown_outs = StagingTrace.process_primitive(
        trace, checkpoint_p, [*args, *saved_vals], {**params, "jaxpr": unknown_jaxpr,
                                                    "differentiated": True})
    known_it, unknown_it = iter(known_outs), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


def _log_residuals(level: int, unknown: Jaxpr, unknowns: Sequence[bool], saved: Sequence[Var],
                   known_eqns: Sequence[Any]) -> None:
    """JAX's record of what a checkpointed function keeps for the backward pass: the known
    inputs its recomputation reads, and the intermediates its policy saved."""
    n = len(unknowns)
    read = {a for e in unknown.eqns for a in e.invars if isinstance(a, Var)}
    read.update(v for v in unknown.outvars if isinstance(v, Var))
    inputs = [v.aval.str_short() for v, u in zip(unknown.invars[:n], unknowns, strict=True)
              if not u and v in read]
    made_by = {v: e for e in known_eqns for v in e.outvars}
    # JAX's wording, "from" twice included.
    intermediates = [f"{v.aval.str_short()} from output of {made_by[v].primitive.name} from "
                     f"{_summarize(made_by[v].source_info)}" for v in saved if v in made_by]
    logger.log(level, "remat-decorated function "
               + "saving inputs with shapes:\n" * bool(inputs)
               + "".join(f"  {s}\n" for s in inputs)
               + "and " * (bool(inputs) and bool(intermediates))
               + "saving these intermediates:\n" * bool(intermediates)
               + "".join(f"  {s}\n" for s in intermediates))


def _split_mixed_equations(closed: ClosedJaxpr, unknowns: Sequence[bool]) -> ClosedJaxpr:
    """Each equation reading both known and unknown values whose primitive splits itself
    under partial evaluation (jit, pmap, control flow) replaced by its known part and its
    unknown part: its outputs computable from the known values stay known (a jvp'd jit or
    pmap computes the primal outputs and the tangents in one equation; with the whole
    equation unknown, linearize would return a staged primal)."""
    jaxpr = closed.jaxpr
    unknown = {v for v, u in zip(jaxpr.invars, unknowns, strict=True) if u}
    constvars, consts = list(jaxpr.constvars), list(closed.consts)
    eqns: list[Any] = []
    renames: dict[Var, Any] = {}
    split_any = False
    for eqn in jaxpr.eqns:
        eqn = passes._renamed(eqn, renames)
        reads = [isinstance(a, Var) and a in unknown for a in eqn.invars]
        if not any(reads):
            eqns.append(eqn)
            continue
        if all(reads) or eqn.primitive.partial_eval is None or eqn.effects:
            eqns.append(eqn)
            unknown.update(eqn.outvars)
            continue
        split_any = True
        in_vars = [Var(a.aval) for a in eqn.invars]
        # A dropped output (a loop's counter) is still an output of the one-equation jaxpr.
        out_vars: list[Any] = [Var(v.aval) if type(v) is DropVar else v for v in eqn.outvars]
        single = ClosedJaxpr(Jaxpr(constvars=[], invars=in_vars, outvars=out_vars,
                                   eqns=[eqn.replace(invars=in_vars, outvars=out_vars)]), [])
        split = partial_eval.partial_eval_jaxpr(single, reads)
        known_in = [a for a, r in zip(eqn.invars, reads, strict=True) if not r]
        known_outs = _inline(split.known, known_in, eqns, constvars, consts)
        n_res = len(split.res_avals)
        residuals = known_outs[len(known_outs) - n_res:]
        start = len(eqns)
        unknown_in = [a for a, r in zip(eqn.invars, reads, strict=True) if r]
        unknown_outs = _inline(split.unknown, [*residuals, *unknown_in], eqns, constvars,
                               consts)
        unknown.update(v for e in eqns[start:] for v in e.outvars)
        known_it, unknown_it = iter(known_outs[:len(known_outs) - n_res]), iter(unknown_outs)
        for v, u in zip(eqn.outvars, split.out_unknowns, strict=True):
            renames[v] = next(unknown_it) if u else next(known_it)
    if not split_any:
        return closed
    outvars = [passes._sub(a, renames) for a in jaxpr.outvars]
    return ClosedJaxpr(jaxpr.replace(constvars=constvars, eqns=eqns, outvars=outvars), consts)


def _inline(closed: ClosedJaxpr, args: Sequence[Any], eqns: list[Any], constvars: list[Var],
            consts: list[Any]) -> list[Any]:
    """Append a fresh copy of `closed`'s equations reading `args`; its outputs' atoms."""
    inner = fresh_copy(closed.jaxpr)
    renames: dict[Var, Any] = dict(zip(inner.invars, args, strict=True))
    for v, c in zip(inner.constvars, closed.consts, strict=True):
        constvars.append(v)
        consts.append(c)
    eqns.extend(passes._renamed(e, renames) for e in inner.eqns)
    return [passes._sub(a, renames) for a in inner.outvars]


def _checkpoint_transpose(cts: Sequence[Any], *args: Any, jaxpr: ClosedJaxpr,
                          prevent_cse: bool, differentiated: bool, policy: Any) -> list[Any]:
    # The backward pass recomputes the primal values from the non-linear operands (the
    # rematerialization), then transposes the linear rest.
    return jaxpr_transforms.backward_pass_closed(jaxpr, args, cts)


checkpoint_p.def_impl(_checkpoint_impl)
checkpoint_p.dce_rule = passes.dce_call_rule
checkpoint_p.def_jvp(_checkpoint_jvp)
checkpoint_p.def_batch(_checkpoint_batch)
checkpoint_p.native = native_structural.call_rule
checkpoint_p.def_partial_eval(_checkpoint_partial_eval)
checkpoint_p.def_transpose(_checkpoint_transpose)


def checkpoint(fun: Callable[..., Any], *, prevent_cse: bool = True, policy: Any = None,
               static_argnums: int | tuple[int, ...] = ()) -> Callable[..., Any]:
    """`fun` whose intermediates are recomputed, not stored, for reverse-mode differentiation.

    >>> import numjax, numjax.numpy as jnp
    >>> f = checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    >>> float(numjax.grad(f)(0.0))
    1.0
    """
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    traces = _trace_cache(fun)

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        dyn = [a for i, a in enumerate(args) if i not in statics]
        flat, in_tree = tree_flatten((tuple(dyn), kwargs))
        avals = [shaped_abstractify(x) for x in flat]
        static_values = tuple((i, a) for i, a in enumerate(args) if i in statics)
        key: Any = (in_tree, tuple(avals), static_values, config.trace_context(),
                    parallel.bound_axes())
        try:
            hit = traces.get(key)
        except Exception:
            # An unhashable static argument, or a tracer (its hash warns, and a warning made an
            # error raises here), is traced every call: JAX's WrapHashably catches anything.
            hit, key = None, None
        if hit is None:
            store: dict[str, Any] = {}

            def flat_fun(*xs: Any) -> list[Any]:
                d_args, d_kwargs = tree_unflatten(in_tree, xs)
                it = iter(d_args)
                full = [a if i in statics else next(it) for i, a in enumerate(args)]
                out = fun(*full, **d_kwargs)
                leaves, store["tree"] = tree_flatten(out)
                return leaves

            info = debug_info("checkpoint", fun, args, kwargs, statics)
            try:
                traced = trace_to_jaxpr(flat_fun, avals, info)
            except errors.ConcretizationTypeError as e:
                raise _suggest_static_argnums(e) from None
            closed, consts = hoist_tracer_consts(traced)
            hit = (closed, consts, store["tree"])
            # As JAX does, a function is traced once per signature; not when it closes over
            # tracers of an enclosing transformation (they belong to this call only).
            if key is not None and not consts:
                traces[key] = hit
        closed, consts, out_tree = hit
        outs = checkpoint_p.bind(*consts, *flat, jaxpr=closed, prevent_cse=prevent_cse,
                                 differentiated=False, policy=policy)
        return tree_unflatten(out_tree, outs)

    return wrapped


def _suggest_static_argnums(e: errors.ConcretizationTypeError) -> Exception:
    """JAX's hint, added when this checkpoint's own trace needed a concrete value (not an inner
    jit's): Python control flow on an argument wants it static."""
    message = str(e)
    if "for checkpoint" not in message:
        return e
    hinted = errors.ConcretizationTypeError.__new__(errors.ConcretizationTypeError)
    hinted.args = (message + "\n\nConsider using the `static_argnums` parameter for "
                   "`jax.remat` or `jax.checkpoint`. See the `jax.checkpoint` docstring and its "
                   "example involving `static_argnums`:\n"
                   "https://jax.readthedocs.io/en/latest/_autosummary/jax.checkpoint.html\n",)
    return hinted


# The traces of each checkpointed function, per signature, kept while the function lives.
_traces: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _trace_cache(fun: Callable[..., Any]) -> dict[Any, Any]:
    try:
        return _traces.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: a cache for this checkpoint(fun) only
        return {}


remat = checkpoint


def checkpoint_wrapper(fun: Callable[..., Any], *, concrete: bool = False,
                       prevent_cse: bool = True, static_argnums: int | tuple[int, ...] = (),
                       policy: Any = None) -> Callable[..., Any]:
    """`checkpoint` as `numjax.checkpoint` and `numjax.remat` take it: with the removed
    `concrete` option too, which libraries still pass as False (flax's `remat`); True raises
    JAX's NotImplementedError naming what replaces it.

    >>> import numjax, numjax.numpy as jnp
    >>> float(numjax.grad(checkpoint_wrapper(jnp.sin, concrete=False))(0.0))
    1.0
    """
    if concrete:
        raise NotImplementedError(_CONCRETE_REMOVED)
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy,
                      static_argnums=static_argnums)


_CONCRETE_REMOVED = (
    "The 'concrete' option to jax.checkpoint / jax.remat is deprecated; in its place, you can "
    "use its `static_argnums` option, and if necessary the `jax.ensure_compile_time_eval()` "
    "context manager.\n\nFor example, if using `concrete=True` for an `is_training` flag:\n\n"
    "  from functools import partial\n\n  @partial(jax.checkpoint, concrete=True)\n"
    "  def foo(x, is_training):\n    if is_training:\n      return f(x)\n    else:\n"
    "      return g(x)\n\nreplace it with a use of `static_argnums`:\n\n"
    "  @partial(jax.checkpoint, static_argnums=(1,))\n  def foo(x, is_training):\n    ...\n\n"
    "If jax.numpy operations need to be performed on static arguments, we can use the "
    "`jax.ensure_compile_time_eval()` context manager. For example, we can replace this use "
    "of `concrete=True`\n:\n  @partial(jax.checkpoint, concrete=True)\n  def foo(x, y):\n"
    "    if y > 0:\n      return f(x)\n    else:\n      return g(x)\n\nwith this "
    "combination of `static_argnums` and `jax.ensure_compile_time_eval()`:\n\n"
    "  @partial(jax.checkpoint, static_argnums=(1,))\n  def foo(x, y):\n"
    "    with jax.ensure_compile_time_eval():\n      y_pos = y > 0\n    if y_pos:\n"
    "      return f(x)\n    else:\n      return g(x)\n\n"
    "See https://jax.readthedocs.io/en/latest/jep/11830-new-remat-checkpoint.html\n")


# ---- names and policies --------------------------------------------------------------------

name_p = Primitive("name")
name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)
ad.linear_jvp(name_p)
name_p.def_transpose(lambda ct, x, *, name: [ct])
name_p.def_batch(batching.vectorized_batch(name_p))
name_p.def_lowering(ufunc_lowering(lambda x: x))


def checkpoint_name(x: Any, name: str) -> Any:
    """Tag `x` with a name that checkpoint policies can refer to."""
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [name_p.bind(leaf, name=name) for leaf in leaves])


def everything_saveable(*args: Any, **params: Any) -> bool:
    return True


def nothing_saveable(*args: Any, **params: Any) -> bool:
    return False


def dots_saveable(prim: Any, *args: Any, **params: Any) -> bool:
    return getattr(prim, "name", None) == "dot_general"


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim: Any, *args: Any, **params: Any) -> bool:
    if getattr(prim, "name", None) != "dot_general":
        return False
    (_, _), (lb, _) = params["dimension_numbers"]
    return not lb


checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def save_any_names_but_these(*names: str) -> Callable[..., bool]:
    def policy(prim: Any, *args: Any, **params: Any) -> bool:
        return getattr(prim, "name", None) == "name" and params.get("name") not in names
    return policy


def save_only_these_names(*names: str) -> Callable[..., bool]:
    def policy(prim: Any, *args: Any, **params: Any) -> bool:
        return getattr(prim, "name", None) == "name" and params.get("name") in names
    return policy


def save_from_both_policies(policy_1: Callable[..., bool], policy_2: Callable[..., bool]
                            ) -> Callable[..., bool]:
    def policy(prim: Any, *args: Any, **params: Any) -> bool:
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    return policy


class checkpoint_policies:
    everything_saveable = staticmethod(everything_saveable)
    nothing_saveable = staticmethod(nothing_saveable)
    dots_saveable = staticmethod(dots_saveable)
    checkpoint_dots = staticmethod(dots_saveable)
    dots_with_no_batch_dims_saveable = staticmethod(dots_with_no_batch_dims_saveable)
    checkpoint_dots_with_no_batch_dims = staticmethod(dots_with_no_batch_dims_saveable)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_only_these_names = staticmethod(save_only_these_names)
    save_from_both_policies = staticmethod(save_from_both_policies)


# ---- saved residuals -----------------------------------------------------------------------


def saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> list[tuple[Any, str]]:
    """The values reverse-mode differentiation of `f` at `args` keeps for the backward pass,
    as `(aval, where it comes from)` pairs in JAX's order (literals, constants, arguments,
    then results of operations in program order)."""
    import inspect

    leaves_with_paths, in_tree = tree_flatten_with_path((args, kwargs))
    leaves = [leaf for _, leaf in leaves_with_paths]
    # Scalars the linear jaxpr holds inline (numjax makes them literals rather than residuals;
    # JAX's linearize returns them as literal residuals).
    literals: list[Any] = []

    def flat_fun(*xs: Any) -> list[Any]:
        a, kw = tree_unflatten(in_tree, xs)
        return tree_flatten(f(*a, **kw))[0]

    def residuals(*xs: Any) -> list[Any]:
        _, linear, _ = ad.linearize_flat(flat_fun, xs)
        literals[:] = [a.aval for e in linear.jaxpr.eqns for a in e.invars
                       if isinstance(a, Literal)]
        return list(linear.consts)

    jaxpr = trace_to_jaxpr(residuals, [get_aval(x) for x in leaves]).jaxpr
    try:
        names = list(inspect.signature(f).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        names = None
    out_vars = {v for v in jaxpr.outvars if isinstance(v, Var)}
    results: list[tuple[Any, str]] = []
    results += [(a.aval, "from a literal") for a in jaxpr.outvars if isinstance(a, Literal)]
    results += [(aval, "from a literal") for aval in literals]
    results += [(v.aval, "from a constant") for v in jaxpr.constvars if v in out_vars]
    for i, (v, (path, _)) in enumerate(zip(jaxpr.invars, leaves_with_paths, strict=True)):
        if v in out_vars:
            if names is None:
                src = f"from the argument at flattened index {i}"
            elif path[0].idx == 0:  # type: ignore[attr-defined]
                src = f"from the argument {names[path[1].idx]}{keystr(path[2:])}"  # type: ignore[attr-defined]
            else:
                src = f"from the argument {path[1].key}{keystr(path[2:])}"  # type: ignore[attr-defined]
            results.append((v.aval, src))
    for eqn in jaxpr.eqns:
        where = _summarize(eqn.source_info)
        for v in eqn.outvars:
            if v in out_vars:
                if eqn.primitive is name_p:
                    results.append((v.aval, f"named '{eqn.params['name']}' from {where}"))
                else:
                    results.append((v.aval, f"output of {eqn.primitive.name} from {where}"))
    return results


def _summarize(position: Any) -> str:
    """An equation's user source line without its name stack, as JAX summarizes it."""
    if not position:
        return "unknown"
    source_info = str(position)
    return source_info.rsplit(" ", 2)[-2] + " " + source_info.rsplit(" ", 1)[-1] \
        if source_info.count(" ") > 1 else source_info


def print_saved_residuals(f: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Print what `saved_residuals` returns, one residual per line, as JAX does.

    >>> import numjax.numpy as jnp
    >>> print_saved_residuals(lambda x, y: x * y, 2.0, 3.0)
    f32[] from the argument x
    f32[] from the argument y
    """
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {src}")

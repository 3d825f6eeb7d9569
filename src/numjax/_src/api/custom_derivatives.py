"""`custom_jvp` and `custom_vjp`: user-defined derivative rules.

Both are *final style* where it matters: with no transformation active the function simply
runs (so Python control flow on concrete values works), and under forward mode the user's rule
is called with the trace's own primal and tangent values. Other traces (vmap, staging, partial
evaluation) see a primitive holding the function's jaxpr together with the rule, and transform
both.

A custom_vjp under differentiation runs `fwd` and emits `custom_lin`, a linear primitive whose
transpose calls `bwd`; evaluating `custom_lin` forward (plain jvp) raises JAX's error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.compiler.executables import executable_for
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from numjax._src.core.trace import (
    EvalTrace,
    Primitive,
    Tracer,
    current_trace,
    set_current_trace,
)
from numjax._src.interpreters import ad, batching, jaxpr_transforms
from numjax._src.interpreters.ad import JVPTrace, Zero
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten


class SymbolicZero:
    """A zero tangent passed to a `custom_jvp` rule defined with `symbolic_zeros=True`."""

    def __init__(self, aval: Any) -> None:
        self.aval = aval
        self.shape = aval.shape
        self.dtype = aval.dtype

    def __repr__(self) -> str:
        return f"SymbolicZero({self.aval.str_short()})"


def _split_nondiff(args: tuple[Any, ...], nondiff_argnums: tuple[int, ...]
                   ) -> tuple[list[Any], list[Any]]:
    nondiff = [args[i] for i in nondiff_argnums]
    diff = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return nondiff, diff


def _merge(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: tuple[int, ...]
           ) -> list[Any]:
    n = len(nondiff) + len(diff)
    nd, d = iter(nondiff), iter(diff)
    return [next(nd) if i in nondiff_argnums else next(d) for i in range(n)]


def _relevant_trace(flat: Sequence[Any]) -> Any:
    """The innermost trace owning one of the arguments (traces that see none of them pass the
    call down, so a custom rule's primal runs eagerly on concrete values where it can)."""
    trace: Any = current_trace()
    while not isinstance(trace, EvalTrace) and not any(
            isinstance(x, Tracer) and x._trace is trace for x in flat):
        trace = trace.parent
    return trace


def _resolve_kwargs(fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
                    ) -> tuple[Any, ...]:
    if not kwargs:
        return args
    import inspect
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


# ---- custom_jvp ----------------------------------------------------------------------------

custom_jvp_call_p = Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True


@custom_jvp_call_p.def_effectful_abstract_eval
def _custom_jvp_abstract_eval(*args: Any, call_jaxpr: ClosedJaxpr, jvp: Any,
                              symbolic_zeros: bool) -> Any:
    return call_jaxpr.out_avals, call_jaxpr.effects


def _custom_jvp_impl(*args: Any, call_jaxpr: ClosedJaxpr, jvp: Any, symbolic_zeros: bool
                     ) -> list[Any]:
    return executable_for(call_jaxpr, "custom_jvp")(*args)


def _custom_jvp_rule(primals: Sequence[Any], tangents: Sequence[Any], *,
                     call_jaxpr: ClosedJaxpr, jvp: Any, symbolic_zeros: bool
                     ) -> tuple[list[Any], list[Any]]:
    return jvp(list(primals), list(tangents))


def _custom_jvp_batch(args: Sequence[Any], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr,
                      jvp: Any, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    args = [batching.bdim_at_front(x, d, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    batched = [d is not None for d in dims]
    new_jaxpr = jaxpr_transforms.batch_jaxpr(call_jaxpr, size, batched)
    n_out = len(call_jaxpr.out_avals)

    def batched_jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        tangents = [ad.instantiate_zeros(t) for t in tangents]
        in_dims = [0 if b else None for b in batched]
        # A tangent is batched iff it has its primal's batched shape.
        tangent_dims = [0 if b and get_aval(t).shape == get_aval(p).shape else None
                        for t, p, b in zip(tangents, primals, batched, strict=True)]

        def flat(*xs: Any) -> list[Any]:
            outs, out_t = jvp(list(xs[:len(primals)]), list(xs[len(primals):]))
            return [*outs, *[ad.instantiate_zeros(t) for t in out_t]]

        res = batching.vmap_flat(flat, [*primals, *tangents], [*in_dims, *tangent_dims],
                                 [0] * (2 * n_out), size)
        return res[:n_out], res[n_out:]

    outs = custom_jvp_call_p.bind(*args, call_jaxpr=new_jaxpr, jvp=batched_jvp,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


def _inline_call_jaxpr(trace: Any, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Under partial evaluation without differentiation the custom rule is not needed: the
    function's own equations are evaluated (and staged where unknown)."""
    closed: ClosedJaxpr = params["call_jaxpr"]
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


custom_jvp_call_p.def_impl(_custom_jvp_impl)
custom_jvp_call_p.def_jvp(_custom_jvp_rule)
custom_jvp_call_p.def_batch(_custom_jvp_batch)
custom_jvp_call_p.def_partial_eval(_inline_call_jaxpr)


class custom_jvp:  # noqa: N801 (JAX's name)
    """A function with a custom forward-mode derivative rule (and thus reverse mode too).

    >>> import numjax, numjax.numpy as jnp
    >>> @custom_jvp
    ... def f(x):
    ...     return jnp.sin(x)
    >>> @f.defjvp
    ... def f_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return f(x), 2.0 * t
    >>> numjax.grad(f)(1.0)
    Array(2., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False
               ) -> Callable[..., Any]:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument: `rule(tangent, primal_out, *primals)`, contributions summed."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
            out = self(*primals)
            total: Any = None
            for rule, t in zip(jvps, tangents, strict=True):
                if rule is None:
                    continue
                term = rule(t, out, *primals)
                total = term if total is None else tree_map(lambda a, b: a + b, total, term)
            if total is None:
                total = tree_map(lambda o: o * 0, out)
            return out, total

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(
                f"No JVP defined for custom_jvp function {getattr(self.fun, '__name__', self.fun)} "
                "using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(diff)
        trace = _relevant_trace(flat)
        if trace is not current_trace():
            with set_current_trace(trace):
                return self(*args)
        if isinstance(trace, EvalTrace):
            return self.fun(*args)
        fun, jvp_flat, store = self._flat_functions(nondiff, in_tree)
        if type(trace) is JVPTrace:
            primals, tangents = zip(*[trace.to_primal_tangent(x) for x in flat], strict=True)
            if all(type(t) is Zero for t in tangents):
                with set_current_trace(trace.parent):  # type: ignore[arg-type]
                    out = self(*args)
                out_flat, tree = tree_flatten(out)
                return tree_unflatten(tree, [ad.JVPTracer(trace, o, Zero(
                    ad.tangent_aval(get_aval(o)))) for o in out_flat])
            with set_current_trace(trace.parent):  # type: ignore[arg-type]
                outs, out_tangents = jvp_flat(list(primals), list(tangents))
            return tree_unflatten(store["out_tree"], [
                ad.JVPTracer(trace, o, t) for o, t in zip(outs, out_tangents, strict=True)])
        closed, consts = hoist_tracer_consts(trace_to_jaxpr(fun, [get_aval(x) for x in flat]))
        if consts:
            raise NotImplementedError(
                "custom_jvp functions that close over tracers are not supported; pass the "
                "values as arguments (or use numjax.closure_convert).")
        outs = custom_jvp_call_p.bind(*flat, call_jaxpr=closed, jvp=jvp_flat,
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)

    def _flat_functions(self, nondiff: list[Any], in_tree: Any
                        ) -> tuple[Callable[..., Any], Callable[..., Any], dict[str, Any]]:
        store: dict[str, Any] = {}
        nondiff_argnums = self.nondiff_argnums
        user_fun, user_jvp, symbolic = self.fun, self.jvp, self.symbolic_zeros
        name = getattr(self.fun, '__name__', 'fun')

        def fun(*flat_args: Any) -> list[Any]:
            diff = tree_unflatten(in_tree, flat_args)
            out = user_fun(*_merge(nondiff, diff, nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            return leaves

        def jvp_flat(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
            if symbolic:
                tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
            else:
                tangents = [ad.instantiate_zeros(t) for t in tangents]
            p_tree = tree_unflatten(in_tree, primals)
            t_tree = tree_unflatten(in_tree, tangents)
            assert user_jvp is not None
            result = user_jvp(*nondiff, tuple(p_tree), tuple(t_tree))
            if not (isinstance(result, tuple | list) and len(result) == 2):
                raise TypeError(
                    f"Custom JVP rule {getattr(user_jvp, '__name__', user_jvp)} for function "
                    f"{name} must produce a pair (list or tuple of length two) representing "
                    f"primal and tangent outputs, but got {result}.")
            out, out_t = result
            out_flat, out_tree = tree_flatten(out)
            t_flat, t_tree_out = tree_flatten(out_t)
            store.setdefault("out_tree", out_tree)
            if out_tree != t_tree_out:
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with equal "
                    f"container (pytree) structures, but got {out_tree} and {t_tree_out} "
                    "respectively.")
            for o, t in zip(out_flat, t_flat, strict=True):
                o_aval, t_aval = get_aval(o), get_aval(t)
                if o_aval.shape != t_aval.shape:
                    raise ValueError(
                        "Custom JVP rule must produce primal and tangent outputs with "
                        f"corresponding shapes, but got {o_aval.shape} and {t_aval.shape}.")
                expected = ad.tangent_aval(o_aval).dtype
                if t_aval.dtype != expected:
                    raise TypeError(
                        "Custom JVP rule must produce primal and tangent outputs with "
                        "corresponding shapes and dtypes, but got "
                        f"{o_aval.str_short()} and {t_aval.str_short()} respectively.")
            t_flat = [ad.Zero(ad.tangent_aval(get_aval(o))) if isinstance(t, SymbolicZero)
                      else t for o, t in zip(out_flat, t_flat, strict=True)]
            return out_flat, t_flat

        return fun, jvp_flat, store


# ---- custom_vjp ----------------------------------------------------------------------------

custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract_eval(*args: Any, num_res: int, bwd: Any, out_avals: tuple[Any, ...]
                              ) -> list[Any]:
    return [ad.tangent_aval(a) for a in out_avals]


def _custom_lin_impl(*args: Any, **params: Any) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts: Sequence[Any], *args: Any, num_res: int, bwd: Any,
                          out_avals: tuple[Any, ...]) -> list[Any]:
    res = args[:num_res]
    cts = [ad.instantiate_zeros(c) for c in cts]
    in_cts = bwd(list(res), cts)
    return [None] * num_res + list(in_cts)


custom_lin_p.def_impl(_custom_lin_impl)
custom_lin_p.def_transpose(_custom_lin_transpose)
custom_lin_p.is_linear = True
custom_lin_p.declare_undefined(
    "jvp", "can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> Any:
    raise NotImplementedError("vmap of a linearized custom_vjp function")


custom_lin_p.def_batch(_custom_lin_batch)

custom_vjp_call_p = Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True


@custom_vjp_call_p.def_effectful_abstract_eval
def _custom_vjp_abstract_eval(*args: Any, call_jaxpr: ClosedJaxpr, fwd: Any, bwd: Any,
                              symbolic_zeros: bool) -> Any:
    return call_jaxpr.out_avals, call_jaxpr.effects


def _custom_vjp_impl(*args: Any, call_jaxpr: ClosedJaxpr, fwd: Any, bwd: Any,
                     symbolic_zeros: bool) -> list[Any]:
    return executable_for(call_jaxpr, "custom_vjp")(*args)


def _custom_vjp_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
                    call_jaxpr: ClosedJaxpr, fwd: Any, bwd: Any, symbolic_zeros: bool
                    ) -> tuple[list[Any], list[Any]]:
    outs, res = fwd(list(primals))
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    out_avals = tuple(get_aval(o) for o in outs)
    out_t = custom_lin_p.bind(*res, *tangents, num_res=len(res), bwd=bwd, out_avals=out_avals)
    return outs, out_t


def _custom_vjp_batch(args: Sequence[Any], dims: Sequence[Any], *, call_jaxpr: ClosedJaxpr,
                      fwd: Any, bwd: Any, symbolic_zeros: bool) -> tuple[list[Any], list[Any]]:
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    args = [batching.move_dim(x, d, 0, size) for x, d in zip(args, dims, strict=True)]
    new_jaxpr = jaxpr_transforms.batch_jaxpr(call_jaxpr, size, [True] * len(args))
    n_out = len(call_jaxpr.out_avals)
    n_res_box: list[int] = []

    def fwd_b(primals: list[Any]) -> tuple[list[Any], list[Any]]:
        def flat(*xs: Any) -> list[Any]:
            outs, res = fwd(list(xs))
            n_res_box[:] = [len(res)]
            return [*outs, *res]

        res = batching.vmap_flat(flat, primals, [0] * len(primals), _Lazy(n_out, n_res_box),
                                 size)
        return res[:n_out], res[n_out:]

    example_avals = [get_aval(a).update(shape=get_aval(a).shape[1:]) for a in args]

    def bwd_b(res: list[Any], cts: list[Any]) -> list[Any]:
        def flat(*xs: Any) -> list[Any]:
            in_cts = bwd(list(xs[:len(res)]), list(xs[len(res):]))
            # None (a zero cotangent) becomes explicit zeros so the batch can be stacked.
            return [ad.zeros_like_aval(ad.tangent_aval(a)) if c is None else
                    ad.instantiate_zeros(c) for c, a in zip(in_cts, example_avals, strict=True)]

        return batching.vmap_flat(flat, [*res, *cts], [0] * (len(res) + len(cts)),
                                  [0] * len(args), size)

    outs = custom_vjp_call_p.bind(*args, call_jaxpr=new_jaxpr, fwd=fwd_b, bwd=bwd_b,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


class _Lazy(Sequence[int]):
    """Output dims known only after the function has run (all batched at 0)."""

    def __init__(self, n_out: int, n_res: list[int]) -> None:
        self.n_out = n_out
        self.n_res = n_res

    def __len__(self) -> int:
        return self.n_out + (self.n_res[0] if self.n_res else 0)

    def __getitem__(self, i: Any) -> Any:
        return 0

    def __iter__(self) -> Any:
        return iter([0] * len(self))


custom_vjp_call_p.def_impl(_custom_vjp_impl)
custom_vjp_call_p.def_jvp(_custom_vjp_jvp)
custom_vjp_call_p.def_batch(_custom_vjp_batch)
custom_vjp_call_p.def_partial_eval(_inline_call_jaxpr)


class custom_vjp:  # noqa: N801 (JAX's name)
    """A function with a custom reverse-mode derivative: `fwd` returns (output, residuals),
    `bwd(residuals, output cotangent)` returns one cotangent per argument.

    >>> import numjax
    >>> @custom_vjp
    ... def f(x):
    ...     return x * 3.0
    >>> f.defvjp(lambda x: (f(x), None), lambda res, g: (g * 10.0,))
    >>> numjax.grad(f)(1.0)
    Array(10., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any],
               symbolic_zeros: bool = False) -> None:
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(
                f"No VJP defined for custom_vjp function {getattr(self.fun, '__name__', self.fun)} "
                "using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(diff)
        trace = _relevant_trace(flat)
        if trace is not current_trace():
            with set_current_trace(trace):
                return self(*args)
        if isinstance(trace, EvalTrace):
            return self.fun(*args)
        fun, fwd, bwd, store = self._flat_functions(nondiff, in_tree)
        if type(trace) is JVPTrace:
            primals, tangents = zip(*[trace.to_primal_tangent(x) for x in flat], strict=True)
            if all(type(t) is Zero for t in tangents):
                with set_current_trace(trace.parent):  # type: ignore[arg-type]
                    return self(*args)
            with set_current_trace(trace.parent):  # type: ignore[arg-type]
                outs, out_t = _custom_vjp_jvp(primals, tangents, call_jaxpr=None,  # type: ignore[arg-type]
                                              fwd=fwd, bwd=bwd, symbolic_zeros=False)
            return tree_unflatten(store["out_tree"], [
                ad.JVPTracer(trace, o, t) for o, t in zip(outs, out_t, strict=True)])
        closed, consts = hoist_tracer_consts(trace_to_jaxpr(fun, [get_aval(x) for x in flat]))
        if consts:
            raise NotImplementedError(
                "custom_vjp functions that close over tracers are not supported; pass the "
                "values as arguments (or use numjax.closure_convert).")
        outs = custom_vjp_call_p.bind(*flat, call_jaxpr=closed, fwd=fwd, bwd=bwd,
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)

    def _flat_functions(self, nondiff: list[Any], in_tree: Any) -> tuple[Any, Any, Any, Any]:
        store: dict[str, Any] = {}
        nondiff_argnums = self.nondiff_argnums
        user_fun, user_fwd, user_bwd = self.fun, self.fwd, self.bwd
        name = getattr(self.fun, '__name__', 'fun')

        def fun(*flat_args: Any) -> list[Any]:
            diff = tree_unflatten(in_tree, flat_args)
            out = user_fun(*_merge(nondiff, diff, nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            return leaves

        def fwd(primals: list[Any]) -> tuple[list[Any], list[Any]]:
            diff = tree_unflatten(in_tree, primals)
            assert user_fwd is not None
            result = user_fwd(*_merge(nondiff, diff, nondiff_argnums))
            if not (isinstance(result, tuple | list) and len(result) == 2):
                raise TypeError(
                    f"Custom VJP fwd rule {getattr(user_fwd, '__name__', user_fwd)} for "
                    f"function {name} must produce a pair (list or tuple of length two) where "
                    "the first element represents the primal output (equal to the output of "
                    "the custom_vjp-decorated function) and the second element represents "
                    f"residuals (i.e. values stored from the forward pass for use on the "
                    f"backward pass), but instead the fwd rule output was {result}.")
            out, res = result
            out_flat, out_tree = tree_flatten(out)
            store.setdefault("out_tree", out_tree)
            res_flat, store["res_tree"] = tree_flatten(res)
            store["out_avals"] = [get_aval(o) for o in out_flat]
            return out_flat, res_flat

        def bwd(res: list[Any], cts: list[Any]) -> list[Any]:
            res_tree = tree_unflatten(store["res_tree"], res)
            ct_tree = tree_unflatten(store["out_tree"], cts)
            assert user_bwd is not None
            result = user_bwd(*nondiff, res_tree, ct_tree)
            if not isinstance(result, tuple):
                raise TypeError(
                    f"Custom VJP bwd rule must produce a tuple, but got {type(result)}.")
            n_diff = in_tree.num_leaves
            if len(result) != len(tree_unflatten(in_tree, [0] * n_diff)):
                raise TypeError(
                    "Custom VJP bwd rule must produce an output with the same container "
                    "(pytree) structure as the args tuple of the primal function, and in "
                    "particular must produce a tuple of length equal to the number of "
                    "arguments to the primal function, but got bwd output structure "
                    f"{tree_structure(result)} for primal input structure {in_tree}.")
            flat: list[Any] = []
            for r, sub in zip(result, tree_unflatten(in_tree, list(range(n_diff))),
                              strict=True):
                sub_leaves, sub_tree = tree_flatten(sub)
                if r is None:
                    flat += [None] * len(sub_leaves)
                else:
                    r_leaves = sub_tree.flatten_up_to(r)
                    flat += r_leaves
            return [None if c is None else c for c in flat]

        return fun, fwd, bwd, store


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Any, list[Any]]:
    """`(converted, consts)`: `converted(*args, *consts)` computes `fun(*args)` with the values
    `fun` closes over (tracers included) passed explicitly."""
    flat, in_tree = tree_flatten(example_args)
    store: dict[str, Any] = {}

    def flat_fun(*xs: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, xs))
        leaves, store["tree"] = tree_flatten(out)
        return leaves

    closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat])
    jaxpr, consts = closed.jaxpr, list(closed.consts)

    def converted(*args: Any) -> Any:
        xs, _ = tree_flatten(args[:len(example_args)])
        outs = eval_jaxpr(jaxpr, args[len(example_args):], *xs)
        return tree_unflatten(store["tree"], outs)

    return converted, consts


def linear_call(fun: Callable[..., Any], fun_transpose: Callable[..., Any], residual_args: Any,
                linear_args: Any) -> Any:
    """`fun(residual_args, linear_args)` whose transpose is `fun_transpose`."""
    @custom_vjp
    def call(res: Any, lin: Any) -> Any:
        return fun(res, lin)

    def fwd(res: Any, lin: Any) -> Any:
        return fun(res, lin), res

    def bwd(res: Any, ct: Any) -> Any:
        return (tree_map(lambda x: x * 0, res), fun_transpose(res, ct))

    call.defvjp(fwd, bwd)
    return call(residual_args, linear_args)

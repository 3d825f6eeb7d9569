"""`custom_vmap`: a function with its own batching rule, and the `custom_vmap_call` primitive.

`custom_vmap_call` holds the function's jaxpr (`call`) and a rule
`rule(axis_size, in_batched, *args) -> (outs, out_batched)`, where `args` and `in_batched` have
the structure `in_tree` and the outputs `out_tree`. Its operands are the values the function
closes over from enclosing traces, then the arguments; `in_tree` is `(consts, args)`, so the
rule JAX users write (which sees the arguments only) is wrapped by `_ClosedRule`.

- eagerly, under jit or make_jaxpr: the jaxpr runs (or is staged as one equation);
- under vmap: the rule runs on the arguments with their batch axes at the front, and
  outputs it marks batched carry the axis at 0;
- under jvp: the primitive is bound again on primals and tangents, holding the jvp of the
  jaxpr and a rule that vmaps the jvp of the user's rule: the rule gives the primal outputs
  for the inputs batched in both primals and tangents, and values batched in only one of them
  are vmapped over, as in JAX.

Reverse mode has no rule (JAX 0.4.30 has none either).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import traceback_util
from numjax._src.api.custom_derivatives import custom_wrapper_types, forward_def_attr
from numjax._src.compiler.executables import executable_for
from numjax._src.control_flow.loops import map as lax_map
from numjax._src.core.avals import get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching, jaxpr_transforms
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.tree_util import (
    tree_flatten,
    tree_map,
    tree_structure,
    tree_unflatten,
    treedef_tuple,
)

__all__ = ["custom_vmap", "custom_vmap_p", "sequential_vmap"]


class custom_vmap:
    """A function whose batching under `vmap` is given by a rule.

    The rule is `rule(axis_size, in_batched, *args) -> (out, out_batched)`: `in_batched` is a
    list with one pytree of booleans per argument (is that leaf batched), batched leaves carry
    the batch axis at 0, and `out_batched` tells the same of `out`.

    >>> import numjax, numjax.numpy as jnp
    >>> @custom_vmap
    ... def f(x):
    ...     return jnp.sin(x)
    >>> @f.def_vmap
    ... def rule(axis_size, in_batched, xs):
    ...     return jnp.cos(xs), in_batched[0]
    >>> numjax.vmap(f)(jnp.zeros(2))
    Array([1., 1.], dtype=float32)
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable[..., Any] | None = None

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    __getattr__ = forward_def_attr

    def def_vmap(self, vmap_rule: Callable[..., Any]) -> Callable[..., Any]:
        """Set the batching rule; returns it, so this works as a decorator."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(f"custom_vmap function {_name(self.fun)} takes positional "
                            f"arguments only, got keyword arguments {sorted(kwargs)}")
        if self.vmap_rule is None:
            raise AttributeError(f"custom_vmap function {_name(self.fun)} has no vmap rule: "
                                 "define one with def_vmap")
        flat, args_tree = tree_flatten(args)
        store: dict[str, Any] = {}

        def flat_fun(*xs: Any) -> list[Any]:
            leaves, store["out_tree"] = tree_flatten(self.fun(*tree_unflatten(args_tree, xs)))
            return leaves

        closed, consts = hoist_tracer_consts(
            trace_to_jaxpr(flat_fun, [shaped_abstractify(x) for x in flat]))
        in_tree = treedef_tuple((tree_structure(consts), args_tree))
        outs = custom_vmap_p.bind(*consts, *flat, call=closed, rule=_ClosedRule(self.vmap_rule),
                                  in_tree=in_tree, out_tree=store["out_tree"])
        return tree_unflatten(store["out_tree"], outs)


custom_wrapper_types.add(custom_vmap)


def _name(fun: Any) -> str:
    return getattr(fun, "__name__", "<unnamed rule>")


class _ClosedRule:
    """The user's rule as the primitive calls it: on `(consts, args)`, where the consts (values
    the function closes over from enclosing traces) are never batched by the rule's vmap."""

    def __init__(self, rule: Callable[..., Any]) -> None:
        functools.update_wrapper(self, rule)
        self.rule = rule

    def __call__(self, axis_size: int, in_batched: list[Any], consts: Any, args: Any) -> Any:
        consts_batched, args_batched = in_batched
        if any(tree_flatten(consts_batched)[0]):
            raise NotImplementedError(
                f"custom_vmap function with rule {_name(self.rule)} closes over a value "
                "batched by the vmap applying the rule: pass it as an argument instead")
        return _call_rule(self.rule, axis_size, args_batched, args)

    def __str__(self) -> str:
        return str(self.rule)


def _call_rule(rule: Callable[..., Any], axis_size: int, in_batched: Any, args: Any) -> Any:
    return rule(axis_size, list(in_batched), *args)


def _check_rule_trees(rule: Any, out_tree: Any, rule_tree: Any, batched_tree: Any) -> None:
    if rule_tree != batched_tree:
        raise ValueError(
            "structure of output value and output batching specification returned by custom "
            f"vmap rule ({_name(rule)}) do not match.\nOutput values: {rule_tree}\n"
            f"Batching spec: {batched_tree}")
    if rule_tree != out_tree:
        raise ValueError(
            f"structure of output returned by custom vmap rule ({_name(rule)}) does not match "
            f"that of original custom-vmapped function.\nOriginal output: {out_tree}\n"
            f"Rule output: {rule_tree}")


def _front(x: Any, dim: int | None) -> Any:
    """The batch axis of `x` moved to 0; an unbatched value stays as it is."""
    return x if dim is None else batching.moveaxis(x, dim, 0)


# ---- the primitive -------------------------------------------------------------------------

custom_vmap_p = Primitive("custom_vmap_call")
custom_vmap_p.multiple_results = True
custom_vmap_p.uncompiled_params = frozenset({"rule"})  # compiled code runs `call`


@custom_vmap_p.def_effectful_abstract_eval
def _custom_vmap_abstract_eval(*args: Any, call: ClosedJaxpr, rule: Any, in_tree: Any,
                               out_tree: Any) -> Any:
    return call.out_avals, call.effects


@custom_vmap_p.def_impl
def _custom_vmap_impl(*args: Any, call: ClosedJaxpr, rule: Any, in_tree: Any,
                      out_tree: Any) -> list[Any]:
    return executable_for(call, "custom_vmap")(*args)


def _custom_vmap_batch(args: Sequence[Any], dims: Sequence[Any], *, call: ClosedJaxpr,
                       rule: Any, in_tree: Any, out_tree: Any) -> tuple[list[Any], list[Any]]:
    axis_size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                     if d is not None)
    values = tree_unflatten(in_tree, [_front(x, d) for x, d in zip(args, dims, strict=True)])
    in_batched = tree_unflatten(in_tree, [d is not None for d in dims])
    out, out_batched = _call_rule(rule, axis_size, in_batched, values)
    outs, rule_tree = tree_flatten(out)
    flags, batched_tree = tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, rule_tree, batched_tree)
    return outs, [0 if b else None for b in flags]


def _custom_vmap_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, call: ClosedJaxpr,
                     rule: Any, in_tree: Any, out_tree: Any) -> tuple[list[Any], list[Any]]:
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    jvp_call = jaxpr_transforms.jvp_jaxpr(call, [True] * len(primals))
    outs = custom_vmap_p.bind(*primals, *tangents, call=jvp_call, rule=_JVPRule(rule, out_tree),
                              in_tree=treedef_tuple((in_tree, in_tree)),
                              out_tree=treedef_tuple((out_tree, out_tree)))
    n = len(outs) // 2
    return list(outs[:n]), list(outs[n:])


class _JVPRule:
    """The rule of a jvp'd custom_vmap_call: the jvp of the original rule, called on the
    values batched in both primal and tangent, and vmapped over those batched in only one."""

    def __init__(self, rule: Any, out_tree: Any) -> None:
        self.rule, self.out_tree = rule, out_tree
        self.__name__ = f"jvp_of_rule_rule({_name(rule)})"

    def __call__(self, axis_size: int, in_batched: list[Any], primals: Any,
                 tangents: Any) -> tuple[Any, Any]:
        ps_batched, ts_batched = in_batched
        both = tree_map(operator.and_, ps_batched, ts_batched)
        only_p = tree_map(lambda p, t: 0 if p and not t else None, ps_batched, ts_batched)
        only_t = tree_map(lambda p, t: 0 if t and not p else None, ps_batched, ts_batched)
        store: dict[str, Any] = {}

        def primal_rule(*xs: Any) -> Any:
            out, out_batched = _call_rule(self.rule, axis_size, both, xs)
            _check_rule_trees(self.rule, self.out_tree, tree_structure(out),
                              tree_structure(out_batched))
            store["both"] = out_batched
            return out

        flat, tree = tree_flatten((primals, tangents))
        dims = tree_flatten((only_p, only_t), is_leaf=lambda x: x is None)[0]

        def jvp_flat(*xs: Any) -> list[Any]:
            ps, ts = tree_unflatten(tree, xs)
            out, out_t = ad_jvp(primal_rule, ps, ts)
            leaves, store["tree"] = tree_flatten((out, out_t))
            return leaves

        outs, out_dims = batching.vmap_unrestricted(jvp_flat, flat, dims, axis_size)
        outs = [_front(x, d) for x, d in zip(outs, out_dims, strict=True)]
        out_ps, out_ts = tree_unflatten(store["tree"], outs)
        extra_p, extra_t = tree_unflatten(store["tree"], [d is not None for d in out_dims])
        batched_p = tree_map(operator.or_, store["both"], extra_p)
        batched_t = tree_map(operator.or_, store["both"], extra_t)
        return (out_ps, out_ts), (batched_p, batched_t)


def ad_jvp(fun: Callable[..., Any], primals: Any, tangents: Any) -> tuple[Any, Any]:
    """`jvp(fun, primals, tangents)` on tuples of pytrees (no checks: the rule's own values)."""
    flat_p, tree = tree_flatten(tuple(primals))
    flat_t = tree_flatten(tuple(tangents))[0]
    store: dict[str, Any] = {}

    def flat_fun(*xs: Any) -> list[Any]:
        leaves, store["tree"] = tree_flatten(fun(*tree_unflatten(tree, xs)))
        return leaves

    outs, out_t = ad.jvp_flat(flat_fun, flat_p, flat_t)
    out_t = [ad.instantiate_zeros(t) for t in out_t]
    return tree_unflatten(store["tree"], outs), tree_unflatten(store["tree"], out_t)


custom_vmap_p.def_batch(_custom_vmap_batch)
custom_vmap_p.def_jvp(_custom_vmap_jvp)
custom_vmap_p.declare_undefined(
    "transpose", "Transpose rule (for reverse-mode differentiation) for 'custom_vmap_call' "
    "not implemented", NotImplementedError)


# ---- applications --------------------------------------------------------------------------


def sequential_vmap(f: Callable[..., Any]) -> custom_vmap:
    """`f` as a custom_vmap whose vmap runs `f` once per example (a `lax.map`), for functions
    that cannot be batched otherwise; outputs are always batched.

    >>> import numjax, numjax.numpy as jnp
    >>> g = sequential_vmap(lambda x, y: x * y)
    >>> numjax.vmap(g, in_axes=(0, None))(jnp.arange(3.0), 2.0)
    Array([0., 2., 4.], dtype=float32)
    """
    fun = custom_vmap(f)

    @fun.def_vmap
    def rule(axis_size: int, in_batched: list[Any], *args: Any) -> tuple[Any, Any]:
        mapped = tree_map(lambda b, x: x if b else None, in_batched, list(args))
        shared = tree_map(lambda b, x: None if b else x, in_batched, list(args))

        def one(xs: Any) -> Any:
            return fun(*tree_map(lambda b, m, s: m if b else s, in_batched, xs, shared))

        out = lax_map(one, mapped)
        return out, tree_map(lambda _: True, out)

    return fun

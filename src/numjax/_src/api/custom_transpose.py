"""`custom_transpose`: a linear function with its own transpose, and the
`custom_transpose_call` primitive.

`fun(res, lin)` is linear in `lin`; its transpose is the user's `transpose(res, ct)`, called
(in Python, so it may itself be a custom_transpose or call `fun` again) when the primitive is
transposed. The primitive holds `fun`'s jaxpr (`call`) for evaluation, the user's transpose
and the output types the caller declares. Its operands are the values `fun` closes over from
enclosing traces (`num_consts`, never transposed), the residuals, then the linear arguments.

Forward mode with respect to the linear arguments binds the primitive again on their tangents
(the function is linear in them); with respect to residuals it is not defined, as in JAX.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import traceback_util
from numjax._src.api.custom_derivatives import custom_wrapper_types, forward_def_attr
from numjax._src.compiler.executables import executable_for
from numjax._src.core.avals import shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.tree_util import (
    tree_flatten,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = ["custom_transpose", "custom_transpose_p"]


class custom_transpose:
    """A function linear in its second argument, with a user-given transpose.

    Called as `f(out_types, res, lin)`: `out_types` is a pytree of `ShapedArray`s describing the
    output. `def_transpose(t)` sets `t(res, ct) -> ct_lin`.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax.core import ShapedArray
    >>> @custom_transpose
    ... def double(_, x):
    ...     return 2.0 * x
    >>> @double.def_transpose
    ... def double_t(_, t):
    ...     return 3.0 * t   # not the true transpose: shows which one runs
    >>> f = lambda x: double(ShapedArray((), jnp.float32), (), x)
    >>> numjax.linear_transpose(f, 1.0)(jnp.float32(1.0))
    (Array(3., dtype=float32),)
    """

    def __init__(self, fun: Callable[..., Any]) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.transpose: Callable[..., Any] | None = None

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    __getattr__ = forward_def_attr

    def def_transpose(self, transpose: Callable[..., Any]) -> Callable[..., Any]:
        """Set the transpose `transpose(res, ct) -> ct_lin`; returns it (a decorator)."""
        self.transpose = transpose
        return transpose

    @traceback_util.api_boundary
    def __call__(self, out_types: Any, res_arg: Any, lin_arg: Any) -> Any:
        res_tree = tree_structure(res_arg)
        lin_tree = tree_structure(lin_arg)
        flat, in_tree = tree_flatten((res_arg, lin_arg))

        def flat_fun(*xs: Any) -> list[Any]:
            return tree_flatten(self.fun(*tree_unflatten(in_tree, xs)))[0]

        call, consts = hoist_tracer_consts(
            trace_to_jaxpr(flat_fun, [shaped_abstractify(x) for x in flat]))
        out_types_flat, out_tree = tree_flatten(out_types)
        outs = custom_transpose_p.bind(
            *consts, *flat, call=call, transpose=self.transpose,
            out_types=tuple(out_types_flat), res_tree=res_tree, lin_tree=lin_tree,
            out_tree=out_tree, num_consts=len(consts))
        return tree_unflatten(out_tree, outs)


custom_wrapper_types.add(custom_transpose)

custom_transpose_p = Primitive("custom_transpose_call")
custom_transpose_p.multiple_results = True
custom_transpose_p.uncompiled_params = frozenset({"transpose"})  # compiled code runs `call`


@custom_transpose_p.def_effectful_abstract_eval
def _custom_transpose_abstract_eval(*args: Any, call: ClosedJaxpr, **_: Any) -> Any:
    # The traced function's own output types, as JAX's staging gives them (the declared
    # `out_types` are not checked against them, in JAX either).
    return call.out_avals, call.effects


@custom_transpose_p.def_impl
def _custom_transpose_impl(*args: Any, call: ClosedJaxpr, **_: Any) -> list[Any]:
    return executable_for(call, "custom_transpose")(*args)


def _custom_transpose_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                          ) -> tuple[list[Any], list[Any]]:
    n_res = params["num_consts"] + params["res_tree"].num_leaves
    if any(type(t) is not Zero for t in tangents[:n_res]):
        raise NotImplementedError(
            "JVP of custom transpose with respect to non-symbolic-zero residuals")
    outs = custom_transpose_p.bind(*primals, **params)
    # Linear in the linear arguments: the tangent is the function applied to their tangents.
    lin_tangents = [ad.instantiate_zeros(t) for t in tangents[n_res:]]
    out_tangents = custom_transpose_p.bind(*primals[:n_res], *lin_tangents, **params)
    return list(outs), list(out_tangents)


def _is_prefix(prefix: Any, full: Any) -> bool:
    try:
        tree_map(lambda _, __: None, tree_unflatten(prefix, [0] * prefix.num_leaves),
                 tree_unflatten(full, [0] * full.num_leaves))
    except (ValueError, TypeError):
        return False
    return True


def _custom_transpose_transpose(cts: Sequence[Any], *args: Any, call: ClosedJaxpr,
                                transpose: Callable[..., Any] | None,
                                out_types: tuple[Any, ...], res_tree: Any, lin_tree: Any,
                                out_tree: Any, num_consts: int) -> list[Any]:
    if transpose is None:
        raise AttributeError("custom_transpose function has no transpose rule: define one "
                             "with def_transpose")
    res = args[num_consts:num_consts + res_tree.num_leaves]
    cts = [ad.zeros_like_aval(t) if type(c) is Zero else c
           for c, t in zip(cts, call.out_avals, strict=True)]
    ct_lin = transpose(tree_unflatten(res_tree, res), tree_unflatten(out_tree, cts))
    ct_tree = tree_structure(ct_lin)
    if not _is_prefix(ct_tree, lin_tree):
        raise TypeError(
            "structure of custom transpose rule's output does not prefix-match structure of "
            "primal function's linear inputs under custom transpose rule "
            f"({getattr(transpose, '__name__', '<unnamed transpose rule>')}).\n"
            f"Transpose rule output: {ct_tree}\nLinear primal inputs: {lin_tree}")
    # A leaf of the rule's output stands for the whole subtree of linear inputs under it.
    full = tree_map(lambda ct, sub: tree_map(lambda _: ct, sub),
                    ct_lin, tree_unflatten(lin_tree, [0] * lin_tree.num_leaves),
                    is_leaf=lambda x: x is None)
    ct_flat = tree_flatten(full, is_leaf=lambda x: x is None)[0]
    return [None] * (num_consts + res_tree.num_leaves) + ct_flat


custom_transpose_p.def_jvp(_custom_transpose_jvp)
custom_transpose_p.def_transpose(_custom_transpose_transpose)
custom_transpose_p.declare_undefined(
    "batch", "Batching rule for 'custom_transpose_call' not implemented", NotImplementedError)

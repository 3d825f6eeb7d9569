"""Tracing the Python callables of control-flow functions into jaxprs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import DebugInfo, fun_source_info
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_unflatten


class TracedFun:
    """A callable traced on given input avals: its jaxpr (tracer constants hoisted into
    leading inputs, listed in `consts`) and its output tree."""

    def __init__(self, closed: ClosedJaxpr, consts: list[Any], out_tree: PyTreeDef) -> None:
        self.closed = closed
        self.consts = consts
        self.out_tree = out_tree

    @property
    def out_avals(self) -> list[Any]:
        return list(self.closed.out_avals)


def trace_fun(fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[Any],
              what: str) -> TracedFun:
    """Trace `fun(*tree_unflatten(in_tree, args))` (a tuple of positional arguments)."""
    store: dict[str, PyTreeDef] = {}

    def flat_fun(*flat_args: Any) -> list[Any]:
        args = tree_unflatten(in_tree, flat_args)
        out = fun(*args)
        leaves, store["tree"] = tree_flatten(out)
        return leaves

    info = DebugInfo(what, fun_source_info(fun), ())
    closed = trace_to_jaxpr(flat_fun, in_avals, info)
    closed, consts = hoist_tracer_consts(closed)
    return TracedFun(closed, consts, store["tree"])


def abstractify(x: Any) -> ShapedArray:
    return get_aval(x)  # type: ignore[no-any-return]


def avals_str(avals: Sequence[Any]) -> str:
    return ", ".join(repr(a) for a in avals)


def join_weak_types(a: Any, b: Any) -> bool:
    return bool(a.weak_type and b.weak_type)

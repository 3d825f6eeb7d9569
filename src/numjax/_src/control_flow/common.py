"""Tracing the Python callables of control-flow functions into jaxprs."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import config, dtypes
from numjax._src.core import caches
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import DebugInfo, Tracer, fun_source_info
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import lax, parallel
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten


class TracedFun:
    """A callable traced on given input avals: its jaxpr (constants hoisted into leading
    inputs, listed in `consts`) and its output tree."""

    def __init__(self, closed: ClosedJaxpr, consts: list[Any], out_tree: PyTreeDef) -> None:
        self.closed = closed
        self.consts = consts
        self.out_tree = out_tree

    @property
    def out_avals(self) -> list[Any]:
        return list(self.closed.out_avals)


# Traced callables per function (held weakly: a cache entry must not keep a closure alive)
# and per signature: input tree and avals, what traces it, the options that change tracing and
# the bound axis names. A function passed to cond, switch, scan or while_loop again with the
# same signature is not traced again, nor is one passed as several branches, as in JAX (the
# Python body runs once). A trace that closes over an outer transformation's tracer belongs to
# that transformation and is not kept.
_traced: weakref.WeakKeyDictionary[Callable[..., Any], dict[tuple[Any, ...], TracedFun]] = (
    weakref.WeakKeyDictionary())


def trace_fun(fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[Any],
              what: str) -> TracedFun:
    """Trace `fun(*tree_unflatten(in_tree, args))` (a tuple of positional arguments)."""
    if type(fun).__hash__ is not object.__hash__:
        # Only callables hashed by identity (functions, partials) are cached: hashing a bound
        # method or a callable pytree (an equinox Module) would hash its fields, tracers too.
        return _trace_fun(fun, in_tree, in_avals, what)
    key = (in_tree, tuple(in_avals), what, config.trace_context(), parallel.bound_axes())
    try:
        per_fun = _traced.get(fun)
        cached = None if per_fun is None else per_fun.get(key)
    except TypeError:  # an unhashable or non-weak-referenceable callable: no cache
        return _trace_fun(fun, in_tree, in_avals, what)
    if cached is not None:
        return cached
    traced = _trace_fun(fun, in_tree, in_avals, what)
    if not any(isinstance(c, Tracer) for c in traced.consts):
        _traced.setdefault(fun, {})[key] = traced
    return traced


@caches.register
def clear_cache() -> None:
    """Forget every traced control-flow callable (`jax.clear_caches`)."""
    _traced.clear()


def _trace_fun(fun: Callable[..., Any], in_tree: PyTreeDef, in_avals: Sequence[Any],
               what: str) -> TracedFun:
    store: dict[str, PyTreeDef] = {}

    def flat_fun(*flat_args: Any) -> list[Any]:
        args = tree_unflatten(in_tree, flat_args)
        out = fun(*args)
        leaves, store["tree"] = tree_flatten(out)
        return leaves

    info = DebugInfo(what, fun_source_info(fun), ())
    closed = trace_to_jaxpr(flat_fun, in_avals, info)
    return TracedFun(*hoist_consts(closed), store["tree"])


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Every constant of `closed` (array constants and tracers of enclosing traces alike, in
    the order they were created) made a leading input, as JAX does for the bodies and branches
    of control flow: their values become operands, and under an enclosing trace constants of
    the enclosing jaxpr."""
    jaxpr = closed.jaxpr
    if not jaxpr.constvars:
        return closed, []
    new = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
    return ClosedJaxpr(new, []), list(closed.consts)


def typematch(a: Any, b: Any) -> bool:
    """Whether two avals are the same type: weak types are not part of it."""
    return bool(a.shape == b.shape and a.dtype == b.dtype)


def check_tree_and_avals(what: str, tree1: PyTreeDef, avals1: Sequence[Any], tree2: PyTreeDef,
                         avals2: Sequence[Any]) -> None:
    """A TypeError unless two (structure, leaf avals) pairs match, showing every leaf of the
    first tree and marking those that differ."""
    if tree1 != tree2:
        raise TypeError(f"{what} must have same type structure, got {tree1} and {tree2}.")
    if not all(map(typematch, avals1, avals2)):
        diff = tree_map(_show_diff, tree_unflatten(tree1, avals1), tree_unflatten(tree2, avals2))
        raise TypeError(f"{what} must have identical types, got\n{diff}.")


def _show_diff(a: Any, b: Any) -> str:
    return repr(a) if typematch(a, b) else f"DIFFERENT {a!r} vs. {b!r}"


def promote_weak_typed_inputs(values: list[Any], avals: Sequence[Any], out_avals: Sequence[Any]
                              ) -> tuple[list[Any], bool]:
    """Loop carries that start weakly typed (Python scalars) and whose type the body changes
    take the promotion of the two types, strongly typed, so that a retrace can match.

    Only the dtype is promoted: a carry whose shape changes, or whose promoted type is still not
    the body's (a float carry the body makes an int), fails the later type check.
    """
    if len(values) != len(avals) or len(avals) != len(out_avals):
        return values, False  # the caller reports the structure mismatch
    changed = False
    values = list(values)
    for i, (a, b) in enumerate(zip(avals, out_avals, strict=True)):
        if a.weak_type and not typematch(a, b):
            values[i] = lax.convert_element_type(values[i], dtypes.result_type(values[i], b))
            changed = True
    return values, changed

"""Turning user functions over pytrees into flat functions over arrays, and back."""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.core.trace import DebugInfo, current_trace, fun_source_info
from numjax._src.tree_util import (
    PyTreeDef,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)


class OutTree:
    """Filled with the output tree of a flattened function once it has run."""

    __slots__ = ("tree", "aux")

    def __init__(self) -> None:
        self.tree: PyTreeDef | None = None
        self.aux: Any = None


def flatten_fun(fun: Callable[..., Any], in_tree: PyTreeDef, has_aux: bool = False
                ) -> tuple[Callable[..., list[Any]], OutTree]:
    """`fun(*args, **kwargs)` with (args, kwargs) given flat; outputs returned flat."""
    store = OutTree()

    def flat_fun(*flat_args: Any) -> list[Any]:
        args, kwargs = tree_unflatten(in_tree, flat_args)
        out = fun(*args, **kwargs)
        if has_aux:
            if not (isinstance(out, tuple | list) and len(out) == 2):
                raise TypeError("expected function with aux output to return a two-element "
                                f"tuple, but got type {type(out)} with value {out!r}")
            out, aux = out
            store.aux = _aux_primals(aux)
        leaves, store.tree = tree_flatten(out)
        return leaves

    return flat_fun, store


def _aux_primals(aux: Any) -> Any:
    """Auxiliary outputs leave the transformation that called the flat function undifferentiated:
    a leaf traced by that transformation (the current trace while the function returns) is
    replaced by its primal, as in JAX. Other leaves, Python objects included, pass through."""
    trace = current_trace()
    leaves, tree = tree_flatten(aux)
    if not any(getattr(x, "_trace", None) is trace for x in leaves):
        return aux
    return tree_unflatten(tree, [x.primal if getattr(x, "_trace", None) is trace
                                 and hasattr(x, "primal") else x for x in leaves])


def debug_info(traced_for: str, fun: Callable[..., Any], args: Sequence[Any],
               kwargs: dict[str, Any], static_argnums: Sequence[int] = ()) -> DebugInfo:
    """Names of the flattened arguments of `fun(*args, **kwargs)`, for error messages."""
    names = _arg_names(fun, args, kwargs, static_argnums)
    return DebugInfo(traced_for, fun_source_info(fun), names)


# Signatures of the functions being traced, held while the function lives: a first jit call
# names its arguments two or three times (cache-miss record, trace, errors), and
# inspect.signature takes about 40 us.
_signatures: weakref.WeakKeyDictionary[Any, inspect.Signature] = weakref.WeakKeyDictionary()


def _signature(fun: Callable[..., Any]) -> inspect.Signature:
    if type(fun).__hash__ is not object.__hash__:
        # A callable object hashing by value (a module holding arrays or tracers, a bound
        # method hashing its instance) is not hashed just to name its arguments.
        return inspect.signature(fun)
    try:
        sig = _signatures.get(fun)
    except Exception:  # not hashable, or not weakly referenceable: not cached
        return inspect.signature(fun)
    if sig is None:
        sig = inspect.signature(fun)
        try:
            _signatures[fun] = sig
        except Exception:
            pass
    return sig


def _arg_names(fun: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
               static_argnums: Sequence[int]) -> tuple[str, ...]:
    try:
        bound = _signature(fun).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return ()
    names: list[str] = []
    positional = list(bound.arguments.items())
    for i, (name, value) in enumerate(positional):
        if i in static_argnums:
            continue
        leaves, _ = tree_flatten_with_path(value)
        for path, _leaf in leaves:
            names.append(f"{name}{keystr(path)}")
    return tuple(names)

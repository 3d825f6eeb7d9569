"""Explaining compile-cache misses (`jax_explain_cache_misses`) and logging compiles
(`jax_log_compiles`), in JAX's words where JAX has them."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import config
from numjax._src.core.trace import fun_source_info
from numjax._src.interpreters.staging import user_source_line

logger = logging.getLogger("numjax._src.pjit")


class Signature:
    """The parts of a jit cache key, kept to explain the next miss."""

    __slots__ = ("in_tree", "avals", "arg_names", "statics", "context", "donated")

    def __init__(self, in_tree: Any, avals: Sequence[Any], arg_names: Sequence[str],
                 statics: tuple[Any, ...], context: tuple[Any, ...],
                 donated: tuple[bool, ...]) -> None:
        self.in_tree = in_tree
        self.avals = list(avals)
        self.arg_names = list(arg_names)
        self.statics = statics
        self.context = context
        self.donated = donated


# Functions jitted so far (weakly) and the source lines they were defined on.
_seen_functions: weakref.WeakSet[Any] = weakref.WeakSet()
_seen_lines: set[str] = set()


def _aval_text(aval: Any, show_weak: bool = False) -> str:
    weak = f"{{weak_type={aval.weak_type}}}" if aval.weak_type or show_weak else ""
    return f"{aval.str_short(short_dtypes=True)}{weak}"


def _where(fun: Callable[..., Any]) -> str:
    return fun_source_info(fun)


def explain(fun: Callable[..., Any], new: Signature, seen: Sequence[Signature]) -> None:
    """Log why `new` missed the cache of a jitted `fun` that has compiled `seen` before."""
    reasons = _reasons(fun, new, seen)
    logger.warning("TRACING CACHE MISS at %s because:\n%s", user_source_line() or "?",
                   "\n".join(reasons))


def _reasons(fun: Callable[..., Any], new: Signature, seen: Sequence[Signature]) -> list[str]:
    if not seen:
        key = getattr(fun, "__wrapped__", fun)
        line = _where(key)
        out = ["  never seen function:", f"    {_name(fun)} id={id(key)} defined at "
               f"{line.split(' at ', 1)[-1]}"]
        try:
            known = key in _seen_functions
        except TypeError:
            known = False
        if not known and line in _seen_lines:
            out += ["  but seen another function defined on the same line; maybe the "
                    "function is", "  being re-defined repeatedly, preventing caching?"]
        try:
            _seen_functions.add(key)
        except TypeError:
            pass
        _seen_lines.add(line)
        return out
    header = f"  for {_name(fun)} defined at {_where(fun).split(' at ', 1)[-1]}"
    same_tree = [s for s in seen if s.in_tree == new.in_tree]
    if not same_tree:
        closest = seen[-1]
        return [header, "  never seen input pytree:", f"    {new.in_tree}",
                "  closest seen input pytree:", f"    {closest.in_tree}"]
    same_statics = [s for s in same_tree if s.statics == new.statics]
    if not same_statics:
        closest = same_tree[-1]
        return [header, "  never seen static arguments:",
                f"    {_statics_text(new.statics)}", "  closest seen static arguments:",
                f"    {_statics_text(closest.statics)}"]
    same_context = [s for s in same_statics if s.context == new.context]
    if not same_context:
        closest = same_statics[-1]
        names = config.trace_context_names()
        changes = [f"    * {n}: seen {a!r}, but now {b!r}" for n, a, b in
                   zip(names, closest.context, new.context, strict=True) if a != b]
        return [header, "  tracing context doesn't match, e.g. due to config or context "
                "manager:", *changes]
    same_donation = [s for s in same_context if s.avals == new.avals]
    if same_donation:
        return [header, "  never seen donated arguments:", f"    {new.donated}"]
    closest = min(same_context, key=lambda s: sum(
        a != b for a, b in zip(s.avals, new.avals, strict=True)))
    mismatches = [(name, a, b) for name, a, b in zip(new.arg_names, closest.avals, new.avals,
                                                     strict=True) if a != b]
    signature = ", ".join(f"{n}: {_aval_text(a)}" for n, a in zip(new.arg_names, new.avals,
                                                                     strict=True))
    lines = [header, "  never seen input type signature:", f"    {signature}",
             f"  closest seen input type signature has {len(mismatches)} mismatches, "
             "including:"]
    for n, a, b in mismatches[:4]:
        weak = a.weak_type != b.weak_type
        lines.append(f"    * at {n}, seen {_aval_text(a, weak)}, but now given "
                     f"{_aval_text(b, weak)}")
    if any(a.weak_type != b.weak_type for _, a, b in mismatches):
        lines += ["where weak_type=True often means a Python builtin numeric value, and ",
                  "weak_type=False means a jax.Array.",
                  "See https://jax.readthedocs.io/en/latest/type_promotion.html#weak-types"]
    return lines


def _statics_text(statics: tuple[Any, ...]) -> str:
    parts = []
    for kind, key, _, value in statics:
        parts.append(f"args[{key}]={value!r}" if kind == "pos" else f"{key}={value!r}")
    return ", ".join(parts) or "(none)"


def _name(fun: Callable[..., Any]) -> str:
    return str(getattr(fun, "__name__", type(fun).__name__))

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
    calling = _calling_convention(new.in_tree)
    if all(_calling_convention(s.in_tree) != calling for s in seen):
        # Another number of positional arguments or other keyword names than ever before.
        count, keys = calling
        close = min((set(_calling_convention(s.in_tree)[1]) for s in seen),
                    key=lambda k: len(k.symmetric_difference(keys)))
        nearest = (["  closest seen is passing no keyword args"] if not close else
                   [f"  closest seen passes {len(close)} keyword args with keys:",
                    f"    {', '.join(map(repr, sorted(close)))}"])
        return [header, f"  never seen passing {count} positional args and {len(keys)} "
                "keyword args with keys:", f"    {', '.join(map(repr, keys))}", *nearest]
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
    # As JAX 0.4.30 words it: the signature (of up to four arguments) without weak types; a
    # mismatch shows weak types only when they are all that differs.
    signature = ":\n    " + ",  ".join(f"{n}: {a.str_short(short_dtypes=True)}" for n, a in
                                      zip(new.arg_names, new.avals, strict=True)) \
        if len(new.avals) < 5 else ""
    lines = [header, f"  never seen input type signature{signature}",
             f"  closest seen input type signature has {len(mismatches)} mismatches, "
             "including:"]
    weak_only = False
    for n, a, b in mismatches:
        seen_text, now_text = a.str_short(short_dtypes=True), b.str_short(short_dtypes=True)
        if seen_text == now_text:
            seen_text += f"{{weak_type={a.weak_type}}}"
            now_text += f"{{weak_type={b.weak_type}}}"
            weak_only = True
        lines.append(f"    * at {n}, seen {seen_text}, but now given {now_text}")
    if weak_only:
        lines += ["where weak_type=True often means a Python builtin numeric value, and ",
                  "weak_type=False means a jax.Array.",
                  "See https://jax.readthedocs.io/en/latest/type_promotion.html#weak-types"]
    return lines


def _calling_convention(in_tree: Any) -> tuple[int, tuple[Any, ...]]:
    """(number of positional arguments, keyword names) of an `(args, kwargs)` input tree."""
    args, kwargs = in_tree.children()
    return len(args.children()), tuple(kwargs.node_data()[1])


def _statics_text(statics: tuple[Any, ...]) -> str:
    parts = []
    for kind, key, _, value in statics:
        parts.append(f"args[{key}]={value!r}" if kind == "pos" else f"{key}={value!r}")
    return ", ".join(parts) or "(none)"


def _name(fun: Callable[..., Any]) -> str:
    return str(getattr(fun, "__name__", type(fun).__name__))

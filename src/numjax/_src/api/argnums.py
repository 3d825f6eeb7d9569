"""Which arguments of a transformed function are static or donated: `static_argnums`,
`static_argnames`, `donate_argnums`, `donate_argnames` normalized, inferred from each other by
the function's signature, and checked against it with JAX's texts."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src.runtime.array import ArrayImpl


def normalize_argnums(argnums: int | Sequence[int] | None) -> tuple[int, ...]:
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        return (argnums,)
    return tuple(int(a) for a in argnums)


def normalize_argnames(argnames: str | Sequence[str] | None) -> tuple[str, ...]:
    if argnames is None:
        return ()
    if isinstance(argnames, str):
        return (argnames,)
    return tuple(argnames)


def signature_of(fun: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def infer_argnums_and_argnames(sig: inspect.Signature | None, argnums: Any, argnames: Any
                                ) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """JAX's rule: given only numbers, the names are those of the positional-or-keyword
    parameters at those positions; given only names, the numbers are theirs; given both (or
    no signature), each is used as given."""
    if argnums is None and argnames is None:
        return (), ()
    if argnums is not None and argnames is not None or sig is None:
        return normalize_argnums(argnums), normalize_argnames(argnames)
    params = list(sig.parameters.items())
    if argnums is None:
        names = normalize_argnames(argnames)
        return tuple(i for i, (k, p) in enumerate(params)
                     if p.kind is p.POSITIONAL_OR_KEYWORD and k in names), names
    nums = normalize_argnums(argnums)
    return nums, tuple(k for i, (k, p) in enumerate(params)
                       if p.kind is p.POSITIONAL_OR_KEYWORD and i in nums)


def validate_argnums(sig: inspect.Signature | None, argnums: tuple[int, ...], option: str
                      ) -> None:
    if sig is None or not argnums:
        return
    positional = 0
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional += 1
        elif p.kind is p.VAR_POSITIONAL:
            return  # any number of positional arguments
    if -min(argnums) > positional or max(argnums) >= positional:
        raise ValueError(f"Jitted function has {option}={argnums}, but only accepts "
                         f"{positional} positional arguments.")


def validate_argnames(sig: inspect.Signature | None, argnames: tuple[str, ...], option: str
                       ) -> None:
    if sig is None or not argnames:
        return
    valid, positional_only, var_kwargs = set(), set(), False
    for name, p in sig.parameters.items():
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            valid.add(name)
        elif p.kind is p.VAR_KEYWORD:
            var_kwargs = True
        else:  # positional-only, or *args: neither can be passed by name
            positional_only.add(name)
    invalid = positional_only & set(argnames)
    if invalid:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {option}. These "
                         "are positional-only")
    invalid = set(argnames) - valid
    if invalid and not var_kwargs:
        raise ValueError(f"Jitted function has invalid argnames {invalid} in {option}. "
                         "Function does not take these args.")


def hashable_static(value: Any) -> Any:
    try:
        hash(value)
    except TypeError as e:
        type_text, error = str(type(value)), str(e)
        if isinstance(value, ArrayImpl):
            # JAX's Array is the C++ type jaxlib.xla_extension.ArrayImpl, so named by Python.
            type_text = "<class 'jaxlib.xla_extension.ArrayImpl'>"
            error = "unhashable type: 'jaxlib.xla_extension.ArrayImpl'"
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying "
            f"to hash an object of type {type_text}, {value}. The error was:\n"
            f"TypeError: {error}\n") from None
    return value

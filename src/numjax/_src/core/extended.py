"""Arrays of extended dtype (typed PRNG keys) in jnp and lax functions, by registration.

The layers below `numjax.random` do not import the layer that defines extended dtypes:
`numjax.random` registers its key-array type and one rule per function at import (jnp functions
by their name, lax functions as "lax.<name>"). A function that accepts such arrays tests
`isinstance(x, extended.array_types)` after its fast paths (an empty tuple until a type is
registered) and hands the call to `rule(name)`, which applies the same operation to the
underlying data and rewraps it, as JAX does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

array_types: tuple[type, ...] = ()
_rules: dict[str, Callable[..., Any]] = {}


def register_extended_array(cls: type, rules: Mapping[str, Callable[..., Any]]) -> None:
    """Route the functions named in `rules` to them when an argument is a `cls`."""
    global array_types
    if cls not in array_types:
        array_types = (*array_types, cls)
    _rules.update(rules)


def any_extended(xs: Any) -> bool:
    """Whether any of the values `xs` is an array of extended dtype."""
    return bool(array_types) and any(isinstance(x, array_types) for x in xs)


def rule(name: str) -> Callable[..., Any]:
    """The registered rule for the function `name` (jnp's name, or "lax.<name>")."""
    return _rules[name]

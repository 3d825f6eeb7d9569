"""Constants of an operand's dtype, the three ways numjax's rules and functions need them.

A constant built from an operand (`x * 2`, `1 - x`) has a weak type that decides whether the
result stays weak. JAX chooses it three ways, so numjax has three helpers, all here:

- `const_like`: x's dtype *and* weak type. lax's derivative and rewrite rules use it, so a
  tangent or a rewritten program is typed exactly as the computation it stands for.
- `lax_const`: JAX's `lax._const` as jnp, scipy and nn functions see it: weak only when x is a
  weak scalar (the stand-in of a Python scalar); a weakly typed array gets a strong constant.
- `host_const_like`: JAX's `lax._const` to the letter, on a value that is not traced: a Python
  scalar of x's type, else a NumPy array of its dtype (a strong operand).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src.core.avals import get_aval
from numjax._src.lax.structural import _convert_element_type
from numjax._src.typing import Array


def const_like(x: Array, value: Any) -> Array:
    """`value` in x's dtype and weak type, so a rule's constant neither promotes nor
    strengthens its result.

    >>> const_like(2.0, 1).weak_type, const_like(np.ones(2, np.float32), 1).weak_type
    (True, False)
    """
    aval = get_aval(x)
    return _convert_element_type(value, aval.dtype, aval.weak_type)


def lax_const(x: Array, value: Any) -> Array:
    """`value` in x's dtype, typed as JAX's `lax._const` types it in jnp functions: weak only
    when x is a weak scalar; results computed from a weakly typed array and it are strong.

    >>> lax_const(2.0, 1).weak_type, lax_const(np.ones(2, np.float32), 1).weak_type
    (True, False)
    """
    aval = get_aval(x)
    return _convert_element_type(value, aval.dtype, aval.weak_type and aval.ndim == 0)


def host_const_like(x: Any, value: Any) -> Any:
    """`value` as JAX's `lax._const(x, value)` returns it: a Python scalar of x's type when x
    is one (weak), else a NumPy array of x's dtype (strong). For values computed now, outside
    any trace (a collective's result on a constant).

    >>> host_const_like(2.0, 3), host_const_like(np.ones(2, np.float32), 3).dtype
    (3.0, dtype('float32'))
    """
    if type(x) in (bool, int, float, complex):
        return type(x)(value)
    return np.array(value, get_aval(x).dtype)

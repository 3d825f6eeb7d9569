"""Argument handling shared by jnp functions: dtype promotion and NumPy-style rank promotion."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.runtime.array import ArrayImpl

Array = Any


def check_arraylike(name: str, *args: Any) -> None:
    for i, x in enumerate(args):
        if not _is_arraylike(x):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at "
                            f"position {i}.")


def _is_arraylike(x: Any) -> bool:
    return (isinstance(x, ArrayImpl | Tracer | np.ndarray | np.generic | bool | int | float
                       | complex) or hasattr(x, "__jax_array__"))


def promote_dtypes(*args: Array) -> list[Array]:
    """Convert all arguments to their common dtype (weak if every argument is weak)."""
    if len(args) < 2:
        return [lax._convert_element_type(x, None, dtypes.is_weakly_typed(x)) for x in args]
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    return [lax._convert_element_type(x, dtype, weak) for x in args]


def promote_dtypes_inexact(*args: Array) -> list[Array]:
    """Promote to a common dtype, then to the nearest floating/complex type."""
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.to_inexact_dtype(dtype)
    return [lax._convert_element_type(x, dtype, weak) for x in args]


def promote_dtypes_numeric(*args: Array) -> list[Array]:
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.to_numeric_dtype(dtype)
    return [lax._convert_element_type(x, dtype, weak) for x in args]


def promote_shapes(name: str, *args: Array) -> list[Array]:
    """NumPy rank promotion: give lower-rank non-scalar operands leading size-1 axes."""
    if len(args) < 2:
        return list(args)
    shapes = [get_aval(x).shape for x in args]
    ranks = [len(s) for s in shapes]
    rank = max(ranks)
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}") from None
    if all(r == rank or r == 0 for r in ranks):
        return list(args)
    _rank_promotion_check(name, shapes)
    return [x if r in (rank, 0) else lax.broadcast_to_rank(x, rank)
            for x, r in zip(args, ranks, strict=True)]


def _rank_promotion_check(name: str, shapes: Sequence[tuple[int, ...]]) -> None:
    mode = config.numpy_rank_promotion.value
    if mode == "allow":
        return
    listed = " ".join(str(s) for s in shapes)
    url = "https://jax.readthedocs.io/en/latest/rank_promotion_warning.html"
    if mode == "warn":
        warnings.warn(
            f"Following NumPy automatic rank promotion for {name} on shapes {listed}. Set the "
            "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for "
            f"more information, see {url}.", stacklevel=4)
        return
    raise ValueError(
        f"Operands could not be broadcast together for {name} on shapes {listed} and with the "
        f"config option jax_numpy_rank_promotion='raise'. For more information, see {url}.")


def promote_args(name: str, *args: Array) -> list[Array]:
    check_arraylike(name, *args)
    return promote_shapes(name, *promote_dtypes(*args))


def promote_args_inexact(name: str, *args: Array) -> list[Array]:
    check_arraylike(name, *args)
    return promote_shapes(name, *promote_dtypes_inexact(*args))


def promote_args_numeric(name: str, *args: Array) -> list[Array]:
    check_arraylike(name, *args)
    return promote_shapes(name, *promote_dtypes_numeric(*args))


def canonicalize_axis(axis: int, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


def ensure_array(x: Any) -> Array:
    """Python scalars and NumPy values become Arrays (weak for Python scalars)."""
    if type(x) is ArrayImpl or isinstance(x, Tracer):
        return x
    return lax._convert_element_type(x, None, dtypes.is_weakly_typed(x))

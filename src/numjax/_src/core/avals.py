"""Abstract values (avals): what a transformation knows of a value without its data."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes

_SHORT_NAMES: dict[np.dtype, str] = {}


def short_dtype_name(dtype: np.dtype) -> str:
    """`float32` -> `f32`, `bfloat16` -> `bf16`, `bool` -> `bool`, as jaxprs print them."""
    name = _SHORT_NAMES.get(dtype)
    if name is None:
        name = dtype.name
        if name != "bool":
            name = (name.replace("bfloat", "bf").replace("float", "f")
                    .replace("uint", "u").replace("int", "i").replace("complex", "c"))
        _SHORT_NAMES[dtype] = name
    return name


class ShapedArray:
    """The aval of an array: shape, dtype and whether the dtype is weak (from a Python scalar).

    >>> import numpy as np
    >>> ShapedArray((3,), np.dtype("float32"))
    ShapedArray(float32[3])
    """

    __slots__ = ("shape", "dtype", "weak_type", "__weakref__")
    shape: tuple[int, ...]
    dtype: np.dtype
    weak_type: bool
    array_abstraction_level = 1

    # Avals are interned: equal avals are the same object, so hashing and comparing them (in
    # every compile-cache key on the eager and jit hot paths) is identity-based and done in C.
    _interned: dict[tuple[Any, ...], ShapedArray] = {}

    def __new__(cls, shape: tuple[int, ...], dtype: Any, weak_type: bool = False
                ) -> ShapedArray:
        key = (shape, dtype, weak_type)
        try:
            aval = cls._interned.get(key)
        except TypeError:  # an unhashable shape (a list): normalize below
            aval = None
        if aval is not None:
            return aval
        shape = tuple(int(d) for d in shape)
        dtype = np.dtype(dtype)
        weak_type = bool(weak_type)
        canonical = (shape, dtype, weak_type)
        aval = cls._interned.get(canonical)
        if aval is None:
            aval = object.__new__(cls)
            aval.shape = shape
            aval.dtype = dtype
            aval.weak_type = weak_type
            cls._interned[canonical] = aval
        if type(key[0]) is tuple:
            cls._interned[key] = aval
        return aval

    def __reduce__(self) -> Any:
        return (ShapedArray, (self.shape, self.dtype, self.weak_type))

    def __copy__(self) -> ShapedArray:
        return self

    def __deepcopy__(self, memo: Any) -> ShapedArray:
        return self

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def update(self, shape: tuple[int, ...] | None = None, dtype: Any = None,
               weak_type: bool | None = None) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def str_short(self, short_dtypes: bool = False) -> str:
        name = short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    __str__ = str_short


class AbstractToken:
    """The aval of an ordering token threaded through effectful computations."""

    __slots__ = ()
    shape: tuple[int, ...] = ()
    dtype = np.dtype("bool")
    weak_type = False

    def str_short(self, short_dtypes: bool = False) -> str:
        return "Tok"

    def __repr__(self) -> str:
        return "AbstractToken()"

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractToken

    def __hash__(self) -> int:
        return hash(AbstractToken)


abstract_token = AbstractToken()

# Types whose values are arrays to numjax: type -> function giving the aval. Higher layers
# register their array types (Array, tracers, typed keys) here.
aval_handlers: dict[type, Callable[[Any], Any]] = {}


def _python_scalar_aval(x: Any) -> ShapedArray:
    dtype = dtypes.canonicalize_dtype(dtypes.dtype(x))
    return ShapedArray((), dtype, weak_type=type(x) is not bool)


def _numpy_aval(x: Any) -> ShapedArray:
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))


for _scalar_type in (bool, int, float, complex):
    aval_handlers[_scalar_type] = _python_scalar_aval
aval_handlers[np.ndarray] = _numpy_aval
for _numpy_type in set(np.sctypeDict.values()):
    if issubclass(_numpy_type, np.generic):
        aval_handlers[_numpy_type] = _numpy_aval


def get_aval(x: Any) -> Any:
    """The aval of any value numjax accepts as an array; TypeError for anything else."""
    handler = aval_handlers.get(type(x))
    if handler is not None:
        return handler(x)
    for base in type(x).__mro__[1:]:
        handler = aval_handlers.get(base)
        if handler is not None:
            aval_handlers[type(x)] = handler
            return handler(x)
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    raise TypeError(f"Value {x!r} with type {type(x)} is not a valid JAX type")


def is_array_like(x: Any) -> bool:
    """True for values numjax treats as arrays (Python scalars, NumPy values, Arrays, tracers)."""
    if type(x) in aval_handlers:
        return True
    try:
        get_aval(x)
    except TypeError:
        return False
    return True

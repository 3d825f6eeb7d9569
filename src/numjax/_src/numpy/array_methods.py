"""Operators and methods shared by `Array` and tracers, installed on both classes at import."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.device_put import device_put
from numjax._src.core import errors
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.lax.special import bitcast_convert_type
from numjax._src.numpy import (
    complex_fns,
    index_tricks,
    lax_numpy,
    manipulation,
    reductions,
    rounding,
    shape,
    ufuncs,
)
from numjax._src.numpy.creation import array
from numjax._src.numpy.indexing import IndexUpdateHelper, getitem
from numjax._src.numpy.selection import choose, compress
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array

_OPERAND_TYPES = (ArrayImpl, Tracer, bool, int, float, complex, np.generic, np.ndarray)


def _is_operand(x: Any) -> bool:
    return isinstance(x, _OPERAND_TYPES) or hasattr(x, "__jax_array__")


def _binop(fn: Callable[[Array, Array], Array], reflected: bool = False
           ) -> Callable[[Array, Any], Any]:
    if reflected:
        def method(self: Array, other: Any) -> Any:
            if not _is_operand(other):
                return NotImplemented
            return fn(other, self)
    else:
        def method(self: Array, other: Any) -> Any:
            if not _is_operand(other):
                return NotImplemented
            return fn(self, other)
    return method


def _astype(self: Array, dtype: Any, copy: bool = False, device: Any = None) -> Array:
    return index_tricks.astype(self, dtype, copy=copy, device=device)


def _reshape(self: Array, *args: Any, order: str = "C", **kwargs: Any) -> Array:
    if "shape" in kwargs:
        newshape = kwargs.pop("shape")
    elif len(args) == 1 and not isinstance(args[0], int | np.integer):
        newshape = args[0]
    else:
        newshape = args
    return shape.reshape(self, newshape, order)


def _transpose(self: Array, *axes: Any) -> Array:
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int | np.integer)):
        return shape.transpose(self, axes[0])
    return shape.transpose(self, axes or None)


def _tracer_item(self: Tracer, *args: Any) -> Any:
    value = self.to_concrete_value()
    if value is None:
        raise errors.ConcretizationTypeError(
            self, "This occurred in the item() method of jax.Array\n")
    return np.asarray(value).item(*args)


def _tracer_tolist(self: Tracer) -> Any:
    # Refused for every tracer, a JVP tracer of a concrete value too, as in JAX. Its text: the
    # tracer's description and origin, then its origin once more (on a line of its own when
    # there is one).
    origin = self._origin_msg()
    raise errors.ConcretizationTypeError(
        self, f"The tolist() method was called on traced array with shape "
              f"{self.aval.str_short()}..{origin}" + ("\n" if origin else ""))


def _tracer_tobytes(self: Tracer, order: Any = "C") -> bytes:
    value = self.to_concrete_value()
    if value is None:
        raise errors.ConcretizationTypeError(
            self, f"The tobytes() method was called on traced array with shape "
                  f"{self.aval.str_short()}..{self._origin_msg()}\n")
    return np.asarray(value).tobytes(order)


def _getitem(self: Array, index: Any) -> Array:
    if type(self) is ArrayImpl and getattr(self, "_sharding", None) is not None:
        shard = self._shard_at(index)
        if shard is not None:
            return shard
    return getitem(self, index)


def _at(self: Array) -> Any:
    return IndexUpdateHelper(self)


def _T(self: Array) -> Array:
    return shape.transpose(self)


def _mT(self: Array) -> Array:
    return manipulation.matrix_transpose(self)  # JAX's ValueError below two dimensions


def _real(self: Array) -> Array:
    return complex_fns.real(self)


def _imag(self: Array) -> Array:
    return complex_fns.imag(self)


def _conj(self: Array) -> Array:
    return complex_fns.conjugate(self)


def _flatten(self: Array, order: str = "C") -> Array:
    return shape.ravel(self, order)


def _dot(self: Array, b: Array, *, precision: Any = None,
         preferred_element_type: Any = None) -> Array:
    return lax_numpy.dot(self, b, precision=precision,
                         preferred_element_type=preferred_element_type)


def _round(self: Array, decimals: int = 0, out: None = None) -> Array:
    return rounding.round(self, decimals)


def _to_device(self: Array, device: Any, *, stream: Any = None) -> Array:
    return device_put(self, device)


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """A method that calls numjax._src.numpy.<module>.<name>, imported on first use (those
    modules import this one's dependencies)."""

    def method(self: Array, *args: Any, **kwargs: Any) -> Any:
        import importlib
        return getattr(importlib.import_module(f"numjax._src.numpy.{module}"), name)(
            self, *args, **kwargs)

    method.__name__ = name
    return method


def _choose(self: Array, choices: Any, out: None = None, mode: str = "raise") -> Array:
    return choose(self, choices, out, mode)


def _compress(self: Array, condition: Any, axis: int | None = None, *, size: int | None = None,
              fill_value: Any = 0, out: None = None) -> Array:
    return compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _copy(self: Array) -> Array:
    return array(self, copy=True)


def _view(self: Array, dtype: Any = None, type: None = None) -> Array:
    """The same bits read as `dtype` (the last axis rescales when the item sizes differ)."""
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    if dtype is None:
        return self
    src = get_aval(self).dtype
    dt = dtypes.canonicalize_dtype(dtype)
    shape = get_aval(self).shape
    if src == dt:
        return self
    if not shape and src.itemsize != dt.itemsize:
        raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
    if shape and (shape[-1] * src.itemsize) % dt.itemsize:
        raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                         "total size in bytes of the last axis of the array.")
    x = self
    if src == np.bool_:
        x, src = lax.convert_element_type(x, np.uint8), np.dtype(np.uint8)
    target = np.dtype(np.uint8) if dt == np.bool_ else dt
    if src.itemsize == target.itemsize:
        out = bitcast_convert_type(x, target)
    elif src.itemsize > target.itemsize:
        out = bitcast_convert_type(x, target)
        out = lax.reshape(out, (*shape[:-1], shape[-1] * (src.itemsize // target.itemsize)))
    else:
        k = target.itemsize // src.itemsize
        x = lax.reshape(x, (*shape[:-1], shape[-1] // k, k))
        out = bitcast_convert_type(x, target)
    return lax.ne(out, lax._convert_element_type(0, np.uint8)) if dt == np.bool_ else out


_OPERATORS: dict[str, Callable[..., Any]] = {
    "__add__": _binop(ufuncs.add), "__radd__": _binop(ufuncs.add, True),
    "__sub__": _binop(ufuncs.subtract), "__rsub__": _binop(ufuncs.subtract, True),
    "__mul__": _binop(ufuncs.multiply), "__rmul__": _binop(ufuncs.multiply, True),
    "__truediv__": _binop(ufuncs.true_divide),
    "__rtruediv__": _binop(ufuncs.true_divide, True),
    "__floordiv__": _binop(ufuncs.floor_divide),
    "__rfloordiv__": _binop(ufuncs.floor_divide, True),
    "__mod__": _binop(ufuncs.remainder), "__rmod__": _binop(ufuncs.remainder, True),
    "__pow__": _binop(ufuncs.power), "__rpow__": _binop(ufuncs.power, True),
    "__matmul__": _binop(lax_numpy.matmul), "__rmatmul__": _binop(lax_numpy.matmul, True),
    "__and__": _binop(ufuncs.bitwise_and), "__rand__": _binop(ufuncs.bitwise_and, True),
    "__or__": _binop(ufuncs.bitwise_or), "__ror__": _binop(ufuncs.bitwise_or, True),
    "__xor__": _binop(ufuncs.bitwise_xor), "__rxor__": _binop(ufuncs.bitwise_xor, True),
    "__lshift__": _binop(ufuncs.left_shift), "__rlshift__": _binop(ufuncs.left_shift, True),
    "__rshift__": _binop(ufuncs.right_shift),
    "__rrshift__": _binop(ufuncs.right_shift, True),
    "__eq__": _binop(ufuncs.equal), "__ne__": _binop(ufuncs.not_equal),
    "__lt__": _binop(ufuncs.less), "__le__": _binop(ufuncs.less_equal),
    "__gt__": _binop(ufuncs.greater), "__ge__": _binop(ufuncs.greater_equal),
    "__neg__": ufuncs.negative, "__pos__": ufuncs.positive, "__abs__": ufuncs.absolute,
    "__invert__": ufuncs.bitwise_not, "__getitem__": _getitem,
    "__divmod__": _binop(lambda a, b: (ufuncs.floor_divide(a, b), ufuncs.remainder(a, b))),
    "__rdivmod__": _binop(lambda a, b: (ufuncs.floor_divide(a, b), ufuncs.remainder(a, b)),
                          True),
    "__round__": _round,
    # A copy is a new array (under a trace, a `copy` equation), as in JAX.
    "__copy__": _copy, "__deepcopy__": lambda self, memo: _copy(self),
}

_METHODS: dict[str, Callable[..., Any]] = {
    "astype": _astype, "reshape": _reshape, "transpose": _transpose, "ravel": shape.ravel,
    "flatten": _flatten, "squeeze": shape.squeeze, "swapaxes": shape.swapaxes,
    "sum": reductions.sum, "prod": reductions.prod, "max": reductions.max,
    "min": reductions.min, "mean": reductions.mean, "var": reductions.var,
    "std": reductions.std, "any": reductions.any, "all": reductions.all,
    "argmax": reductions.argmax, "argmin": reductions.argmin, "dot": _dot,
    "clip": lax_numpy.clip, "conj": _conj, "conjugate": _conj, "round": _round,
    "to_device": _to_device,
    "argpartition": _lazy("sorting", "argpartition"), "argsort": _lazy("sorting", "argsort"),
    "sort": _lazy("sorting", "sort"), "searchsorted": _lazy("sorting", "searchsorted"),
    "cumsum": _lazy("statistics", "cumsum"), "cumprod": _lazy("statistics", "cumprod"),
    "ptp": _lazy("statistics", "ptp"), "diagonal": _lazy("matrices", "diagonal"),
    "trace": _lazy("matrices", "trace"), "nonzero": _lazy("advanced_indexing", "nonzero"),
    "repeat": _lazy("manipulation", "repeat"), "take": _lazy("selection", "take"),
    "choose": _choose, "compress": _compress, "copy": _copy, "clone": _copy, "view": _view,
}

_PROPERTIES: dict[str, Callable[..., Any]] = {
    "T": _T, "mT": _mT, "real": _real, "imag": _imag, "at": _at,
}


def install(cls: type) -> None:
    for name, fn in _OPERATORS.items():
        setattr(cls, name, fn)
    for name, fn in _METHODS.items():
        setattr(cls, name, fn)
    for name, fn in _PROPERTIES.items():
        setattr(cls, name, property(fn))


install(ArrayImpl)
install(Tracer)
Tracer.item = _tracer_item  # type: ignore[attr-defined]
Tracer.tolist = _tracer_tolist  # type: ignore[attr-defined]
Tracer.tobytes = _tracer_tobytes  # type: ignore[attr-defined]

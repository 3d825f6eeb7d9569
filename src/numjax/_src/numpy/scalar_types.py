"""jnp's scalar types (`jnp.float32`, ...): NumPy's types that build Arrays when called.

>>> import numjax.numpy as jnp
>>> jnp.float32(3)
Array(3., dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import aval_handlers
from numjax._src.numpy.creation import asarray


class _ScalarMeta(type):
    dtype: np.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: object) -> bool:
        # NumPy's comparison of the type decides the rest, as in JAX: a dtype object equals
        # its scalar type (`jnp.int32 == np.dtype('int32')`), a dtype name does not.
        return cls is other or bool(cls.dtype.type == other)

    def __ne__(cls, other: object) -> bool:
        return not cls == other

    def __call__(cls, x: Any) -> Any:
        # asarray, as in JAX: no copy is staged, and an Array of the type is returned as is.
        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance: object) -> bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type_error(x: Any) -> Any:
    # A scalar type is not a value: without this it would pass as a 0-d array of its dtype.
    raise TypeError(f"JAX scalar type {x} cannot be interpreted as a JAX array.")


aval_handlers[_ScalarMeta] = _scalar_type_error


def _make(name: str, np_type: Any) -> type:
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(np_type), "__module__":
                                          "numjax.numpy"})


bool_ = _make("bool_", np.bool_)
uint8 = _make("uint8", np.uint8)
uint16 = _make("uint16", np.uint16)
uint32 = _make("uint32", np.uint32)
uint64 = _make("uint64", np.uint64)
int8 = _make("int8", np.int8)
int16 = _make("int16", np.int16)
int32 = _make("int32", np.int32)
int64 = _make("int64", np.int64)
bfloat16 = _make("bfloat16", dtypes.bfloat16)
float16 = _make("float16", np.float16)
float32 = _make("float32", np.float32)
float64 = _make("float64", np.float64)
complex64 = _make("complex64", np.complex64)
complex128 = _make("complex128", np.complex128)
float8_e4m3fn = _make("float8_e4m3fn", dtypes.float8_e4m3fn)
float8_e5m2 = _make("float8_e5m2", dtypes.float8_e5m2)
float8_e4m3b11fnuz = _make("float8_e4m3b11fnuz", dtypes.float8_e4m3b11fnuz)
float8_e4m3fnuz = _make("float8_e4m3fnuz", dtypes.float8_e4m3fnuz)
float8_e5m2fnuz = _make("float8_e5m2fnuz", dtypes.float8_e5m2fnuz)
int4 = _make("int4", dtypes.int4)
uint4 = _make("uint4", dtypes.uint4)
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
single, double = float32, float64
csingle, cdouble = complex64, complex128
half = float16

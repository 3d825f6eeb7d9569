"""JAX's dtype system: the supported dtypes, x64 canonicalization and the type promotion lattice.

JAX differs from NumPy in three ways that every operation depends on:

* the set of dtypes: bfloat16, the float8 family and int4/uint4 (through `ml_dtypes`), `float0`
  for tangents of integer primals, and *extended* dtypes (typed PRNG keys) that are not NumPy
  dtypes at all;
* canonicalization: with `jax_enable_x64` off, 64-bit dtypes become their 32-bit counterparts;
* promotion: a lattice in which Python scalars are *weakly typed* (`1 + x` keeps `x`'s dtype)
  and mixed signed/unsigned or int/float promote along JAX's table, not NumPy's value-based
  rules. `jax_numpy_dtype_promotion="strict"` allows only weak-to-strong promotion.

The lattice is written down as each node's immediate successors; at import we close it
transitively and tabulate the least upper bound (join) of every pair, so promoting n values is n-1
dict lookups. Because the join of a set equals the fold of pairwise joins in any partial order
where the pairwise joins exist, this gives the same answers as computing the set's bound directly.
"""

from __future__ import annotations

import abc
import functools
import warnings
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias, overload

import ml_dtypes
import numpy as np

from numjax._src import config

DType: TypeAlias = np.dtype
DTypeLike: TypeAlias = Any  # a dtype, a scalar type, a dtype string, a Python type, or None


# ---- scalar types and dtypes ----------------------------------------------------------------


class extended(np.generic):
    """Abstract scalar type of every extended (non-NumPy) dtype; it exists for `issubdtype`.

    >>> import numpy as np
    >>> issubdtype(np.float32, extended)
    False
    """


class prng_key(extended):
    """Abstract scalar type of typed PRNG key dtypes; it exists for `issubdtype`.

    >>> issubdtype(prng_key, extended)
    True
    """


class ExtendedDType(abc.ABC):
    """Base class of dtypes that are not NumPy dtypes, such as the dtype of typed PRNG keys.

    A subclass names its abstract scalar type (a subclass of `extended`) as `type`, which is how
    `issubdtype(key.dtype, prng_key)` answers. Instances must be hashable: dtypes are cache keys.
    """

    @property
    @abc.abstractmethod
    def type(self) -> type:
        """The scalar type, a subclass of `extended`."""


class KeyTy(ExtendedDType):
    """The dtype of typed PRNG keys of one implementation, `key<tag>` as JAX names it.

    A key array's data is `uint32[..., *key_shape]`; the dtype's itemsize is that of one key.

    >>> threefry_key_dtype, threefry_key_dtype.itemsize
    (key<fry>, 8)
    """

    type = prng_key

    def __init__(self, impl_name: str, tag: str, key_shape: tuple[int, ...]) -> None:
        self.impl_name = impl_name
        self.tag = tag
        self.key_shape = key_shape

    @property
    def name(self) -> str:
        return f"key<{self.tag}>"

    @property
    def itemsize(self) -> int:
        return 4 * int(np.prod(self.key_shape))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return type(other) is KeyTy and other.impl_name == self.impl_name

    def __hash__(self) -> int:
        return hash((KeyTy, self.impl_name))


# The dtype of `random.key(...)`: numjax implements only the threefry PRNG.
threefry_key_dtype = KeyTy("threefry2x32", "fry", (2,))


class TypePromotionError(ValueError):
    """Raised when input dtypes have no implicit promotion path (JAX's class of that name)."""


bfloat16: type[np.generic] = ml_dtypes.bfloat16
float8_e4m3b11fnuz: type[np.generic] = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn: type[np.generic] = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz: type[np.generic] = ml_dtypes.float8_e4m3fnuz
float8_e5m2: type[np.generic] = ml_dtypes.float8_e5m2
float8_e5m2fnuz: type[np.generic] = ml_dtypes.float8_e5m2fnuz
int4: type[np.generic] = ml_dtypes.int4
uint4: type[np.generic] = ml_dtypes.uint4

# The tangent dtype of integer and boolean primals: a zero-size structured dtype, so a float0
# array holds no data and arithmetic on it is a type error.
float0: np.dtype = np.dtype([("float0", np.void, 0)])

finfo = ml_dtypes.finfo  # np.finfo extended to bfloat16 and the float8s
iinfo = ml_dtypes.iinfo  # np.iinfo extended to int4 and uint4

_BOOL = np.dtype(bool)
_FLOAT8_DTYPES = frozenset(
    np.dtype(t)
    for t in (float8_e4m3b11fnuz, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz)
)
# ml_dtypes floats are not subclasses of np.floating, so NumPy's hierarchy needs help with them.
_CUSTOM_FLOAT_DTYPES = _FLOAT8_DTYPES | {np.dtype(bfloat16)}
_CUSTOM_FLOAT_TYPES = frozenset(d.type for d in _CUSTOM_FLOAT_DTYPES)
_INT4_DTYPES = frozenset((np.dtype(int4), np.dtype(uint4)))
_UNSIGNED_DTYPES = tuple(np.dtype(t) for t in (uint4, "uint8", "uint16", "uint32", "uint64"))
_SIGNED_DTYPES = tuple(np.dtype(t) for t in (int4, "int8", "int16", "int32", "int64"))
_FLOAT_DTYPES = (
    *sorted(_FLOAT8_DTYPES, key=str),
    np.dtype(bfloat16),
    *map(np.dtype, ("f2", "f4", "f8")),
)
_COMPLEX_DTYPES = (np.dtype("complex64"), np.dtype("complex128"))
_NUMERIC_DTYPES = (*_UNSIGNED_DTYPES, *_SIGNED_DTYPES, *_FLOAT_DTYPES, *_COMPLEX_DTYPES)
# Every dtype a numjax array may have (extended dtypes aside).
_VALID_DTYPES = frozenset((_BOOL, float0, *_NUMERIC_DTYPES))
# Their classes (np.dtypes.Float32DType, ...): `type(x) in` this set costs ~40ns where
# `isinstance(x, np.dtype)` costs ~150ns (np.dtype's metaclass makes isinstance slow).
_DTYPE_CLASSES = frozenset(type(d) for d in _VALID_DTYPES)
_FLOAT64 = np.dtype("float64")

# Python scalar types and the dtype a value of each has before canonicalization. bool is not
# weak: JAX treats Python bools as strongly typed.
python_scalar_dtypes: dict[type, np.dtype] = {
    bool: _BOOL,
    int: np.dtype("int64"),
    float: np.dtype("float64"),
    complex: np.dtype("complex128"),
}
_WEAK_SCALAR_TYPES = frozenset((int, float, complex))


# ---- configuration --------------------------------------------------------------------------

# `config.enable_x64.value` costs ~1.2us when no thread-local override is set (the missing
# thread-local attribute raises internally); the cached trace context tuple holds the same
# values, kept current per thread, and costs ~0.2us. Traced options are appended in definition
# order, so these indices are fixed once config is imported. Both options are validated, so the
# values are exactly a bool and "standard"/"strict".
_trace_context = config.trace_context
_X64_INDEX = config.trace_context_names().index("jax_enable_x64")
_PROMOTION_INDEX = config.trace_context_names().index("jax_numpy_dtype_promotion")


def _x64_enabled() -> bool:
    return bool(_trace_context()[_X64_INDEX])


# ---- canonicalization -----------------------------------------------------------------------

_TO_32BIT = {
    np.dtype(a): np.dtype(b) for a, b in (("i8", "i4"), ("u8", "u4"), ("f8", "f4"), ("c16", "c8"))
}

# canonicalize_dtype runs on every operation, so its answers are memoized per x64 setting, keyed
# on the caller's object itself (a dtype, a type or a string): a hit is one dict lookup (~50ns)
# after the config read (~200ns).
# Equal keys of different kinds (np.dtype("f4") == "f4") always map to the same answer, so hash
# collisions between them are harmless. Extended dtypes are never stored, which keeps the
# allow_extended_dtype check off the hit path.
_canonical: tuple[dict[Any, np.dtype], dict[Any, np.dtype]] = ({}, {})
# The same answers keyed only by valid NumPy dtypes, for result_type's fast path.
_canonical_valid: tuple[dict[np.dtype, np.dtype], dict[np.dtype, np.dtype]] = (
    {d: _TO_32BIT.get(d, d) for d in _VALID_DTYPES},
    {d: d for d in _VALID_DTYPES},
)


@overload
def canonicalize_dtype(dtype: Any, allow_extended_dtype: Literal[False] = False) -> np.dtype: ...
@overload
def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool) -> np.dtype | ExtendedDType: ...
def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> Any:
    """The dtype numjax uses for `dtype`: 64-bit types become 32-bit unless x64 is enabled.

    >>> import numpy as np
    >>> canonicalize_dtype(np.float64)  # with jax_enable_x64 off (the default)
    dtype('float32')
    >>> canonicalize_dtype("int8")
    dtype('int8')
    """
    try:
        return _canonical[_trace_context()[_X64_INDEX]][dtype]
    except (KeyError, TypeError):  # TypeError: an unhashable spec such as a list of fields
        return _canonicalize_slow(dtype, _x64_enabled(), allow_extended_dtype)


def _canonicalize_slow(dtype: Any, x64: bool, allow_extended_dtype: bool) -> Any:
    if issubdtype(dtype, extended):
        if not allow_extended_dtype:
            raise ValueError(
                f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                "with allow_extended_dtype=False"
            )
        return dtype
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"dtype {dtype!r} not understood") from e
    result = np_dtype if x64 else _TO_32BIT.get(np_dtype, np_dtype)
    try:
        _canonical[x64][dtype] = result
    except TypeError:
        pass  # unhashable: not memoized
    return result


def default_int_dtype() -> np.dtype:
    """The dtype of a Python int: int64 with x64 enabled, else int32.

    >>> default_int_dtype()
    dtype('int32')
    """
    return np.dtype("int64") if _x64_enabled() else np.dtype("int32")


def default_uint_dtype() -> np.dtype:
    """The default unsigned dtype: uint64 with x64 enabled, else uint32.

    >>> default_uint_dtype()
    dtype('uint32')
    """
    return np.dtype("uint64") if _x64_enabled() else np.dtype("uint32")


def default_float_dtype() -> np.dtype:
    """The dtype of a Python float: float64 with x64 enabled, else float32.

    >>> default_float_dtype()
    dtype('float32')
    """
    return np.dtype("float64") if _x64_enabled() else np.dtype("float32")


def default_complex_dtype() -> np.dtype:
    """The dtype of a Python complex: complex128 with x64 enabled, else complex64.

    >>> default_complex_dtype()
    dtype('complex64')
    """
    return np.dtype("complex128") if _x64_enabled() else np.dtype("complex64")


# The 64-bit default of each kind; canonicalize_dtype narrows it when x64 is off.
_KIND_DEFAULTS = {
    k: np.dtype(v) for k, v in (("b", "bool"), ("i", "i8"), ("u", "u8"), ("f", "f8"), ("c", "c16"))
}


def _weak_result_dtype(dtype: np.dtype) -> np.dtype:
    """What a weakly typed result of `dtype` becomes: the canonical default dtype of its kind."""
    if dtype in _CUSTOM_FLOAT_DTYPES:
        kind = "f"
    elif dtype in _INT4_DTYPES:  # ml_dtypes' 4-bit ints have kind "V"
        kind = "i" if dtype == np.dtype(int4) else "u"
    else:
        kind = dtype.kind
    return canonicalize_dtype(_KIND_DEFAULTS[kind])


# ---- the dtype hierarchy --------------------------------------------------------------------


def _scalar_type(x: Any) -> Any:
    """x as a NumPy scalar type, or as an ExtendedDType, for hierarchy questions."""
    if isinstance(x, ExtendedDType):
        return x
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return np.dtype(x).type


# Which abstract NumPy types each ml_dtypes scalar type belongs to (NumPy does not know).
_CUSTOM_SUPERTYPES: dict[type, frozenset[type]] = {
    **{
        t: frozenset((t, np.floating, np.inexact, np.number, np.generic))
        for t in _CUSTOM_FLOAT_TYPES
    },
    int4: frozenset((int4, np.signedinteger, np.integer, np.number, np.generic)),
    uint4: frozenset((uint4, np.unsignedinteger, np.integer, np.number, np.generic)),
}


@functools.lru_cache(maxsize=1024)  # no x64 dependence; inputs are hashable types and dtypes
def _issubdtype_cached(a: Any, b: Any) -> bool:
    if isinstance(b, type) and issubclass(b, extended):
        a_type = a.type if isinstance(a, ExtendedDType) else _scalar_type(a)
        return issubclass(a_type, b)
    if isinstance(b, ExtendedDType):
        return isinstance(a, ExtendedDType) and a == b
    a_type = a.type if isinstance(a, ExtendedDType) else _scalar_type(a)
    b_type = _scalar_type(b)
    custom = _CUSTOM_SUPERTYPES.get(a_type)
    if custom is not None:
        return b_type in custom
    return bool(np.issubdtype(a_type, b_type))


def issubdtype(a: DTypeLike | None, b: DTypeLike | None) -> bool:
    """True if `a` is `b` or below it in the type hierarchy, like `np.issubdtype`.

    Unlike NumPy it places bfloat16 and the float8s under `np.floating`, int4/uint4 under the
    integers, and extended dtypes under `extended` (typed PRNG keys under `prng_key`).

    >>> import numpy as np
    >>> issubdtype(bfloat16, np.floating), issubdtype("int32", np.unsignedinteger)
    (True, False)
    """
    # Strings and other specs become dtypes first: they may be unhashable, and equal specs
    # should share one cache entry.
    if not isinstance(a, type | np.dtype | ExtendedDType):
        a = _spec_to_dtype(a)
    if not isinstance(b, type | np.dtype | ExtendedDType):
        b = _spec_to_dtype(b)
    return _issubdtype_cached(a, b)


def _spec_to_dtype(spec: Any) -> np.dtype:
    """`np.dtype(spec)`; an array of extended dtype (a key array) is not a dtype spec either:
    TypeError as for any other object, where NumPy would read its `.dtype` (as JAX)."""
    if isinstance(getattr(spec, "dtype", None), ExtendedDType):
        raise TypeError(f"Cannot interpret '{spec!r}' as a data type")
    return np.dtype(spec)


_ISDTYPE_KINDS: dict[str, frozenset[np.dtype]] = {
    "bool": frozenset((_BOOL,)),
    "signed integer": frozenset(_SIGNED_DTYPES),
    "unsigned integer": frozenset(_UNSIGNED_DTYPES),
    "integral": frozenset(_SIGNED_DTYPES + _UNSIGNED_DTYPES),
    "real floating": frozenset(_FLOAT_DTYPES),
    "complex floating": frozenset(_COMPLEX_DTYPES),
    "numeric": frozenset(_NUMERIC_DTYPES),
}


def isdtype(dtype: DTypeLike, kind: str | DTypeLike | tuple[str | DTypeLike, ...]) -> bool:
    """True if `dtype` is of `kind`: a kind name, a dtype, or a tuple of either (Array API).

    Kind names: "bool", "signed integer", "unsigned integer", "integral", "real floating"
    (bfloat16 and float8s included), "complex floating", "numeric".

    >>> isdtype("bfloat16", "real floating"), isdtype("int8", ("bool", "unsigned integer"))
    (True, False)
    """
    the_dtype = np.dtype(dtype)
    for one_kind in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(one_kind, str) and one_kind in _ISDTYPE_KINDS:
            if the_dtype in _ISDTYPE_KINDS[one_kind]:
                return True
            continue
        try:
            kind_dtype = np.dtype(one_kind)
        except TypeError as e:
            if isinstance(one_kind, str):
                raise ValueError(
                    f"Unrecognized kind={one_kind!r} expected one of {list(_ISDTYPE_KINDS)}, "
                    "or a compatible input for jnp.dtype()"
                ) from None
            raise TypeError(
                f"Expected kind to be a dtype, string, or tuple; got kind={one_kind!r}"
            ) from e
        if the_dtype == kind_dtype:
            return True
    return False


def supports_inf(dtype: DTypeLike) -> bool:
    """True if `dtype` can represent infinity (inexact, and not a finite-only float8).

    >>> supports_inf("float16"), supports_inf("float8_e4m3fn"), supports_inf("int32")
    (True, False, False)
    """
    if np.dtype(dtype) in _FINITE_FLOAT8_DTYPES:
        return False
    return issubdtype(dtype, np.inexact)


# All float8 formats but e5m2 spend the infinity encodings on range or NaN ("fn", "fnuz").
_FINITE_FLOAT8_DTYPES = _FLOAT8_DTYPES - {np.dtype(float8_e5m2)}


def to_numeric_dtype(dtype: DTypeLike) -> np.dtype:
    """`dtype`, with bool replaced by int32 (for ops like sum that need arithmetic).

    >>> to_numeric_dtype(bool), to_numeric_dtype("uint8")
    (dtype('int32'), dtype('uint8'))
    """
    np_dtype = np.dtype(dtype)
    return np.dtype("int32") if np_dtype == _BOOL else np_dtype


# Integers up to 32 bits and bool go to float32 regardless of width; JAX keeps this for
# backward compatibility rather than following the lattice.
_TO_INEXACT: dict[np.dtype, np.dtype] = {
    **{np.dtype(k): np.dtype("float32") for k in ("b1", "u1", "i1", "u2", "i2", "u4", "i4")},
    np.dtype("u8"): np.dtype("float64"),
    np.dtype("i8"): np.dtype("float64"),
}


def to_inexact_dtype(dtype: DTypeLike) -> np.dtype:
    """`dtype` if it is inexact, else the float dtype integer ops like mean promote it to.

    >>> to_inexact_dtype("int16"), to_inexact_dtype("bfloat16")
    (dtype('float32'), dtype(bfloat16))
    """
    np_dtype = np.dtype(dtype)
    return _TO_INEXACT.get(np_dtype, np_dtype)


def to_complex_dtype(dtype: DTypeLike) -> np.dtype:
    """The complex dtype holding values of `dtype`: complex128 from 64-bit types, else complex64.

    >>> to_complex_dtype("float64"), to_complex_dtype("int8")
    (dtype('complex128'), dtype('complex64'))
    """
    inexact = to_inexact_dtype(dtype)
    if inexact in (np.dtype("float64"), np.dtype("complex128")):
        return np.dtype("complex128")
    return np.dtype("complex64")


# ---- dtypes and weak types of values --------------------------------------------------------


def dtype(x: Any, *, canonicalize: bool = False) -> Any:
    """The dtype of a value, scalar type or dtype spec, optionally canonicalized for x64.

    Python scalars and their types give int64, float64, complex128 or bool before
    canonicalization; anything with a `.dtype` gives that dtype (extended dtypes included).
    Raises TypeError for values whose dtype numjax does not support, such as strings.

    >>> import numpy as np
    >>> dtype(1.0), dtype(1.0, canonicalize=True), dtype(np.arange(3, dtype=np.uint8))
    (dtype('float64'), dtype('float32'), dtype('uint8'))
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    cls = type(x)
    dt: Any
    if cls in python_scalar_dtypes:
        dt = python_scalar_dtypes[cls]
    elif cls in _DTYPE_CLASSES:
        dt = x
    elif isinstance(x, type) and x in python_scalar_dtypes:
        dt = python_scalar_dtypes[x]
    elif isinstance(x, type) and issubclass(x, np.generic):
        dt = np.dtype(x)
    elif type(attr := getattr(x, "dtype", None)) in _DTYPE_CLASSES or isinstance(
        attr, np.dtype | ExtendedDType
    ):
        dt = attr  # arrays, tracers, avals; also spares NumPy's deprecated `.dtype` sniffing
    else:
        try:
            dt = np.result_type(x)
        except TypeError as err:
            raise TypeError(f"Cannot determine dtype of {x}") from err
    if dt not in _VALID_DTYPES and isinstance(dt, np.dtype):
        dt = np.result_type(dt)  # as NumPy does: native byte order, so ">f4" is float32
    if dt not in _VALID_DTYPES and not isinstance(dt, ExtendedDType):
        raise TypeError(
            f"Value '{x}' with dtype {dt} is not a valid JAX array type. Only arrays "
            "of numeric types are supported by JAX."
        )
    return canonicalize_dtype(dt, allow_extended_dtype=True) if canonicalize else dt


def check_valid_dtype(dtype: np.dtype) -> None:
    """Raise TypeError unless `dtype` is one a numjax array may have.

    >>> import numpy as np
    >>> check_valid_dtype(np.dtype("bfloat16"))
    """
    if dtype not in _VALID_DTYPES:
        raise TypeError(
            f"Dtype {dtype} is not a valid JAX array type. Only arrays of numeric "
            "types are supported by JAX."
        )


def _weak_type_attribute(x: Any) -> bool:
    weak = getattr(x, "weak_type", None)
    if weak is None:  # arrays that keep it on their aval
        weak = getattr(getattr(x, "aval", None), "weak_type", False)
    return bool(weak)


def is_weakly_typed(x: Any) -> bool:
    """True for Python ints, floats and complexes (not bools) and values whose `weak_type` is set.

    A weakly typed value takes the dtype of the strongly typed values it meets.

    >>> import numpy as np
    >>> is_weakly_typed(1.0), is_weakly_typed(True), is_weakly_typed(np.float32(1))
    (True, False, False)
    """
    if type(x) in _WEAK_SCALAR_TYPES:
        return True
    if isinstance(x, type):  # a class may carry a `weak_type` slot descriptor
        return False
    return _weak_type_attribute(x)


def is_python_scalar(x: Any) -> bool:
    """True for Python bools, ints, floats and complexes, and weakly typed 0-d values.

    >>> import numpy as np
    >>> is_python_scalar(True), is_python_scalar(np.float32(1))
    (True, False)
    """
    if type(x) in python_scalar_dtypes:
        return True
    return is_weakly_typed(x) and getattr(x, "shape", None) == ()


_KIND_TO_SCALAR_TYPE: dict[str, type] = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def scalar_type_of(x: Any) -> type:
    """The Python scalar type (bool, int, float or complex) matching the dtype of `x`.

    >>> import numpy as np
    >>> scalar_type_of(np.zeros(2, bfloat16)), scalar_type_of(np.uint8(1))
    (<class 'float'>, <class 'int'>)
    """
    dt = dtype(x)
    if dt in _CUSTOM_FLOAT_DTYPES:
        return float
    if dt in _INT4_DTYPES:
        return int
    scalar_type = _KIND_TO_SCALAR_TYPE.get(getattr(dt, "kind", ""))
    if scalar_type is None:
        raise TypeError(f"Invalid scalar value {x}")
    return scalar_type


def coerce_to_array(x: Any, dtype: DTypeLike | None = None) -> np.ndarray:
    """`np.asarray(x, dtype)`, but Python scalars take numjax's canonical dtype, not NumPy's.

    >>> coerce_to_array(1.5).dtype
    dtype('float32')
    """
    if dtype is None and type(x) in python_scalar_dtypes:
        dtype = canonicalize_dtype(python_scalar_dtypes[type(x)])
        if type(x) is int and not np.iinfo(dtype).min <= x <= np.iinfo(dtype).max:
            raise OverflowError(f"Python int {x} too large to convert to {dtype}")
    return np.asarray(x, dtype)


# ---- the promotion lattice ------------------------------------------------------------------

# A lattice node is a dtype, or one of the Python types int, float, complex standing for weakly
# typed values of that kind. Note np.dtype("int64") == int is True in NumPy, so code here tests
# weak nodes by identity or by hashing (their hashes differ), never with ==.
_Node: TypeAlias = Any


def _standard_successors() -> dict[_Node, tuple[_Node, ...]]:
    """Each node's immediate successors in JAX's standard promotion lattice."""
    u4, u8, u16, u32, u64 = _UNSIGNED_DTYPES  # names are bit widths
    i4, i8, i16, i32, i64 = _SIGNED_DTYPES
    *f8s, bf16, f16, f32, f64 = _FLOAT_DTYPES
    c64, c128 = _COMPLEX_DTYPES
    return {
        _BOOL: (int,),
        int: (u4, u8, i4, i8),
        # An unsigned type meets a signed one at the next wider signed type; 64 bits have none,
        # so uint64 with any signed int gives a weak float.
        u8: (u16, i16),
        u16: (u32, i32),
        u32: (u64, i64),
        u64: (float,),
        i8: (i16,),
        i16: (i32,),
        i32: (i64,),
        i64: (float,),
        float: (*f8s, bf16, f16, complex),
        bf16: (f32,),
        f16: (f32,),
        f32: (f64, c64),
        f64: (c128,),
        complex: (c64,),
        c64: (c128,),
        c128: (),
        # 4-bit ints and 8-bit floats are maximal: they never promote implicitly, so mixing them
        # with another type is an error that asks for an explicit cast.
        u4: (),
        i4: (),
        **dict.fromkeys(f8s, ()),
    }


def _strict_successors() -> dict[_Node, tuple[_Node, ...]]:
    """jax_numpy_dtype_promotion="strict": only a weak value may promote, to a type of its kind."""
    return {
        int: (float, *_UNSIGNED_DTYPES, *_SIGNED_DTYPES),
        float: (complex, *_FLOAT_DTYPES),
        complex: _COMPLEX_DTYPES,
        **dict.fromkeys((_BOOL, *_NUMERIC_DTYPES), ()),
    }


def _join_table(successors: dict[_Node, tuple[_Node, ...]]) -> dict[_Node, dict[_Node, _Node]]:
    """joins[a][b]: the least upper bound of a and b, or None when they have no common bound."""
    bounds: dict[_Node, frozenset[_Node]] = {}

    def upper_bounds(node: _Node) -> frozenset[_Node]:
        if node not in bounds:
            bounds[node] = frozenset({node}).union(*map(upper_bounds, successors[node]))
        return bounds[node]

    joins: dict[_Node, dict[_Node, _Node]] = {}
    for a in successors:
        joins[a] = {}
        for b in successors:
            common = upper_bounds(a) & upper_bounds(b)
            least = [c for c in common if common <= upper_bounds(c)]
            assert len(least) <= 1, f"promotion lattice: {a} and {b} have several joins {least}"
            joins[a][b] = least[0] if least else None
    return joins


_JOINS = {
    "standard": _join_table(_standard_successors()),
    "strict": _join_table(_strict_successors()),
}
_WEAK_NODE: dict[np.dtype, type] = {
    **dict.fromkeys(_SIGNED_DTYPES + _UNSIGNED_DTYPES, int),
    **dict.fromkeys(_FLOAT_DTYPES, float),
    **dict.fromkeys(_COMPLEX_DTYPES, complex),
}


def _join_all(nodes: Sequence[_Node], mode: str) -> _Node:
    joins = _JOINS[mode]
    unique = list(dict.fromkeys(nodes))
    for node in unique:
        if node not in joins:
            raise ValueError(f"dtype={node!r} is not a valid dtype for JAX type promotion.")
    result = unique[0]
    for node in unique[1:]:
        result = joins[result][node]
        if result is None:
            raise TypePromotionError(_no_promotion_path_message(unique, mode))
    return result


def _no_promotion_path_message(nodes: Sequence[_Node], mode: str) -> str:
    names = tuple(str(node) for node in nodes)
    start = f"Input dtypes {names} have no available implicit dtype promotion path"
    if mode == "strict":
        return (
            f"{start} when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to "
            "the desired output type, or set jax_numpy_dtype_promotion=standard."
        )
    if any(node in _FLOAT8_DTYPES for node in nodes):
        narrow, example = "8-bit floats", "float32"
    elif any(node in _INT4_DTYPES for node in nodes):
        narrow, example = "4-bit integers", "int32"
    else:
        return f"{start}. Try explicitly casting inputs to the desired output type."
    return (
        f"{start}. To avoid unintended promotion, {narrow} do not support implicit "
        "promotion. If you'd like your inputs to be promoted to another type, you can do so "
        f"explicitly using e.g. x.astype('{example}')"
    )


def _node_dtype(node: _Node) -> Any:
    return python_scalar_dtypes[node] if isinstance(node, type) else node


def _dtype_and_weak(x: Any) -> tuple[Any, bool]:
    """dtype(x) and whether x is weak, with the common kinds of argument checked first."""
    cls = type(x)
    if cls is np.ndarray:
        if (dt := x.dtype) in _VALID_DTYPES:
            return dt, False
    elif cls in _WEAK_SCALAR_TYPES:
        return python_scalar_dtypes[cls], True
    elif (dt := _SCALAR_TYPE_DTYPES.get(cls)) is not None:
        return dt, False  # NumPy scalars and Python bools are strong
    elif x is None:  # JAX reads None as the (uncanonicalized) default float type
        return _FLOAT64, False
    elif x is int or x is float or x is complex:
        # The Python types count as weak here (result_type(int) is weak), though
        # is_weakly_typed(int) is False: the type stands for "some Python int".
        return python_scalar_dtypes[x], True
    elif type(dt := getattr(x, "dtype", None)) in _DTYPE_CLASSES and dt in _VALID_DTYPES:
        return dt, _weak_type_attribute(x)  # numjax arrays, tracers and avals
    return dtype(x), is_weakly_typed(x)


# The dtype of each scalar type's values (np.void is left out: its values have many dtypes).
_SCALAR_TYPE_DTYPES: dict[type, np.dtype] = {
    bool: _BOOL,
    **{d.type: d for d in _VALID_DTYPES if d != float0},
}


def _lattice_result_type(typed: Sequence[tuple[Any, bool]], mode: str) -> tuple[Any, bool]:
    """The promoted dtype (not yet canonicalized) and weak flag of (dtype, weak) pairs."""
    dtypes = [dt for dt, _ in typed]
    all_weak = all(weak for _, weak in typed)
    if len(typed) == 1:
        out, weak = typed[0]
    elif len(set(dtypes)) == 1 and not all_weak:
        out, weak = dtypes[0], False  # no lattice walk, so extended dtypes pass
    elif all_weak and mode != "strict":
        # Join the strong dtypes and mark the result weak: the weak nodes alone would lose the
        # width, e.g. a weak int16 and a weak float16 must give float16, not float32.
        out, weak = _node_dtype(_join_all(dtypes, mode)), True
    else:
        nodes = [_WEAK_NODE.get(dt, dt) if weak else dt for dt, weak in typed]
        node = _join_all(nodes, mode)
        out, weak = _node_dtype(node), isinstance(node, type)
    return out, weak and out != _BOOL


def _shared_strong_dtype(args: tuple[Any, ...]) -> np.dtype | None:
    """The dtype of every arg if all are strongly typed with one and the same dtype object.

    Only cheap attribute reads: anything unusual (Python scalars, strings, types, weak values,
    differing or extended dtypes) returns None and goes through the lattice.
    """
    shared = None
    for x in args:
        cls = type(x)
        if cls is np.ndarray:
            dt = x.dtype
        elif cls in _DTYPE_CLASSES:
            dt = x
        else:
            dt = getattr(x, "dtype", None)
            if type(dt) not in _DTYPE_CLASSES or _weak_type_attribute(x):
                return None
        if shared is None:
            shared = dt
        elif dt is not shared:
            return None
    return shared


# result_type's answers for argument (dtype, weak) tuples, per promotion mode and x64 setting.
# The keys are few in practice (argument counts and dtypes seen), but they are caller-driven,
# so the memo is emptied when it grows past a bound rather than kept forever.
_result_memo: dict[tuple[Any, ...], tuple[Any, bool]] = {}
_RESULT_MEMO_LIMIT = 4096


@overload
def result_type(*args: Any, return_weak_type_flag: Literal[False] = False) -> np.dtype: ...
@overload
def result_type(*args: Any, return_weak_type_flag: Literal[True]) -> tuple[np.dtype, bool]: ...
def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
    """The canonical dtype that JAX's promotion gives `args`, optionally with its weak flag.

    Args may be arrays, scalars, dtypes, scalar types, dtype strings or None (the default float
    type). Python ints, floats and complexes and values with `weak_type` set are weak: they
    adopt the dtype of strongly typed arguments of their kind or wider.

    >>> import numpy as np
    >>> result_type(np.zeros(2, np.int8), 2.5), result_type(np.uint8, np.int8)
    (dtype('float32'), dtype('int16'))
    >>> result_type(3, return_weak_type_flag=True)
    (dtype('int32'), True)
    """
    context = _trace_context()
    shared = _shared_strong_dtype(args)
    if shared is not None:
        fast = _canonical_valid[context[_X64_INDEX]].get(shared)
        if fast is not None:
            return (fast, False) if return_weak_type_flag else fast
    if not args:
        raise ValueError("at least one array or dtype is required")
    key = (tuple(map(_dtype_and_weak, args)), context[_X64_INDEX], context[_PROMOTION_INDEX])
    try:
        out, weak = _result_memo[key]
    except KeyError:
        if len(_result_memo) >= _RESULT_MEMO_LIMIT:
            _result_memo.clear()
        out, weak = _result_memo[key] = _promote(key[0], key[2])
    return (out, weak) if return_weak_type_flag else out


def _promote(typed: Sequence[tuple[Any, bool]], mode: str) -> tuple[Any, bool]:
    """result_type's answer for (dtype, weak) pairs: the canonical promoted dtype and weak flag."""
    promoted, weak = _lattice_result_type(typed, mode)
    if weak:
        return _weak_result_dtype(promoted), True
    return canonicalize_dtype(promoted, allow_extended_dtype=True), False


def promote_types(a: DTypeLike, b: DTypeLike) -> np.dtype:
    """The dtype JAX's lattice promotes `a` and `b` to, both taken as strong (`jnp.promote_types`).

    The Python types int, float and complex stand for weak values. The result is not
    canonicalized for x64.

    >>> import numpy as np
    >>> promote_types(np.int8, np.uint8), promote_types("bfloat16", np.float16)
    (dtype('int16'), dtype('float32'))
    """

    def node(x: DTypeLike) -> _Node:
        return x if x is int or x is float or x is complex else np.dtype(x)

    mode = _trace_context()[_PROMOTION_INDEX]
    promoted: np.dtype = _node_dtype(_join_all([node(a), node(b)], mode))
    return promoted


def safe_to_cast(input_dtype_or_value: Any, output_dtype_or_value: Any) -> bool:
    """True if promoting the input with the (strong) output dtype leaves the output dtype.

    >>> safe_to_cast("int32", "float64"), safe_to_cast("float64", "int32")
    (True, False)
    """
    input_dtype = dtype(input_dtype_or_value, canonicalize=True)
    output_dtype = dtype(output_dtype_or_value, canonicalize=True)
    if input_dtype == output_dtype:
        return True
    return bool(result_type(input_dtype_or_value, output_dtype) == output_dtype)


# ---- user-requested dtypes ------------------------------------------------------------------

_X64_TRUNCATION_WARNING = (
    "Explicitly requested dtype {} {} is not available, and will be truncated to dtype {}. To "
    "enable more dtypes, set the jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
    "environment variable. See https://github.com/google/jax#current-gotchas for more."
)


def check_user_dtype_supported(dtype: DTypeLike, fun_name: str | None = None) -> None:
    """Validate a `dtype=` argument of the API function `fun_name`.

    Raises TypeError for dtypes that are not numbers or bools, and warns (UserWarning) when a
    64-bit dtype is requested while x64 is off, since it will be truncated to 32 bits.

    >>> import numpy as np
    >>> check_user_dtype_supported(np.float32, "zeros")
    """
    if hasattr(dtype, "aval") and hasattr(dtype, "dtype"):  # a numjax array, not a dtype
        warnings.warn(
            "Passing an array as a dtype argument is deprecated; instead of dtype=arr "
            "use dtype=arr.dtype.",
            category=DeprecationWarning,
            stacklevel=3,
        )
        return
    if issubdtype(dtype, extended):
        return
    if dtype is int or dtype is float or dtype is complex or dtype is bool:
        return  # Python types ask for the default dtype, which is never truncated
    np_dtype = np.dtype(dtype)
    is_custom = np_dtype in _CUSTOM_FLOAT_DTYPES or np_dtype in _INT4_DTYPES
    if np_dtype.kind not in "biufc" and not is_custom:
        where = f" in {fun_name}" if fun_name else ""
        raise TypeError(f"JAX only supports number and bool dtypes, got dtype {dtype}{where}")
    if dtype is not None and np_dtype != canonicalize_dtype(np_dtype):
        where = f"requested in {fun_name}" if fun_name else ""
        warnings.warn(
            _X64_TRUNCATION_WARNING.format(dtype, where, canonicalize_dtype(np_dtype).name),
            stacklevel=3,
        )

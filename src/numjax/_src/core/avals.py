"""Abstract values (avals): what a transformation knows of a value without its data."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.errors import XlaRuntimeError
from numjax._src.tree_util import tree_leaves, tree_map

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


class AbstractValue:
    """The base of every aval (`jax.core.AbstractValue`: libraries test `isinstance` with it)."""

    __slots__ = ()


class ShapedArray(AbstractValue):
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
        # An extended dtype (`key<fry>`) is kept as it is: libraries build key avals.
        dtype = dtype if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype)
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

    def at_least_vspace(self) -> ShapedArray:
        """The aval of this value's tangents: float0 for integers and booleans (the weak type
        kept, as in JAX)."""
        inexact = dtypes.issubdtype(self.dtype, np.inexact)
        return ShapedArray(self.shape, self.dtype if inexact else dtypes.float0, self.weak_type)

    def str_short(self, short_dtypes: bool = False) -> str:
        name = short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    __str__ = str_short


class ConcreteArray(ShapedArray):
    """The aval of a known value, as `jax.core.get_aval` reports it for an Array, a NumPy value or
    a Python scalar (libraries test `type(get_aval(x)) is ConcreteArray` to specialize on
    constants). numjax's transformations work with ShapedArrays only; these are not interned.

    >>> ConcreteArray(np.dtype("float32"), np.float32(1.0), weak_type=True)
    ConcreteArray(1.0, dtype=float32, weak_type=True)
    """

    __slots__ = ("val",)
    val: Any

    def __new__(cls, dtype: Any, val: Any, weak_type: bool = False) -> ConcreteArray:
        aval = object.__new__(cls)
        aval.shape = tuple(int(d) for d in np.shape(val))
        aval.dtype = np.dtype(dtype)
        aval.weak_type = bool(weak_type)
        aval.val = val
        return aval

    def __reduce__(self) -> Any:
        return (ConcreteArray, (self.dtype, self.val, self.weak_type))

    def __eq__(self, other: object) -> bool:
        return (type(other) is ConcreteArray and self.dtype == other.dtype
                and self.weak_type == other.weak_type and self.val is other.val)

    def __hash__(self) -> int:
        return id(self.val)

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ConcreteArray({self.val}, dtype={self.dtype.name}{weak})"


def raise_to_shaped(aval: Any, weak_type: bool | None = None) -> Any:
    """The ShapedArray of an aval (a ConcreteArray forgets its value)."""
    if isinstance(aval, ShapedArray):
        return ShapedArray(aval.shape, aval.dtype,
                           aval.weak_type if weak_type is None else weak_type)
    return aval


def mapped_aval(size: int, axis: int | None, aval: Any) -> Any:
    """The aval of one slice of `aval` along `axis` (None: not mapped), as a map (vmap, pmap)
    sees each element."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped_aval: axis {axis} of {aval.str_short()} has size "
                         f"{aval.shape[axis]}, not the map's size {size}.")
    return ShapedArray(aval.shape[:axis] + aval.shape[axis + 1:], aval.dtype, aval.weak_type)


def unmapped_aval(size: int, axis_name: Any, axis: int | None, aval: Any) -> Any:
    """The aval of `size` values of `aval` stacked along `axis` (None: not mapped)."""
    if axis is None:
        return aval
    return ShapedArray(aval.shape[:axis] + (size,) + aval.shape[axis:], aval.dtype,
                       aval.weak_type)


class AbstractToken(AbstractValue):
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


class _TokenBuffer:
    """A token's buffer: it holds no data, so reading it as an array fails as XLA's does."""

    __slots__ = ()

    @property
    def _value(self) -> Any:
        raise XlaRuntimeError(
            "INVALID_ARGUMENT: Cannot convert a token-shape buffer to a numpy array.")


class Token:
    """An ordering token (`lax.create_token()`): a value with no data, of aval
    `AbstractToken`."""

    __slots__ = ("_buf",)

    def __init__(self, buf: Any = None) -> None:
        self._buf = _TokenBuffer() if buf is None else buf

    def block_until_ready(self) -> Token:
        return self


# Types whose values are arrays to numjax: type -> function giving the aval. Higher layers
# register their array types (Array, tracers, typed keys) here.
aval_handlers: dict[type, Callable[[Any], Any]] = {}


def _python_scalar_aval(x: Any) -> ShapedArray:
    dtype = dtypes.canonicalize_dtype(dtypes.dtype(x))
    return ShapedArray((), dtype, weak_type=type(x) is not bool)


def numpy_aval(x: Any) -> ShapedArray:
    """The abstract value JAX reads a NumPy array or scalar as (canonical dtype, not weak)."""
    dtype = x.dtype
    if dtype not in dtypes._VALID_DTYPES:
        dtype = np.result_type(dtype)  # native byte order, as JAX reads a NumPy value
        dtypes.check_valid_dtype(dtype)  # strings, objects, datetimes: JAX's TypeError
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(dtype))


for _scalar_type in (bool, int, float, complex):
    aval_handlers[_scalar_type] = _python_scalar_aval
aval_handlers[np.ndarray] = numpy_aval
aval_handlers[Token] = lambda t: abstract_token


def is_masked_array(x: Any) -> bool:
    """Whether `x` is a NumPy masked array. NumPy 2 loads numpy.ma only when it is first
    asked for, and it is a large part of numjax's import time (55 ms of CPU time): no masked
    array exists until it is loaded, so numjax never loads it itself."""
    # While another thread imports numpy.ma, the module is registered before its classes are
    # defined: no masked array exists yet either.
    masked = getattr(sys.modules.get("numpy.ma"), "MaskedArray", None)
    return masked is not None and isinstance(x, masked)


def _masked_array_error(x: Any) -> Any:
    # A masked array's mask would be dropped silently: JAX refuses it wherever a value is read.
    raise ValueError("numpy masked arrays are not supported as direct inputs to JAX functions. "
                     "Use arr.filled() to convert the value to a standard numpy array.")


# NumPy scalars of array dtypes only: np.str_, np.datetime64, np.void and np.object_ values
# are not arrays to JAX (`Value np.str_('a') with type ... is not a valid JAX type`).
for _numpy_type in set(np.sctypeDict.values()):
    if issubclass(_numpy_type, np.generic) and np.dtype(_numpy_type) in dtypes._VALID_DTYPES:
        aval_handlers[_numpy_type] = numpy_aval


def get_aval(x: Any) -> Any:
    """The aval of any value numjax accepts as an array; TypeError for anything else.

    >>> get_aval(1.0)
    ShapedArray(float32[], weak_type=True)
    >>> get_aval("a")
    Traceback (most recent call last):
    TypeError: Value 'a' with type <class 'str'> is not a valid JAX type
    """
    handler = aval_handlers.get(type(x))
    if handler is not None:
        return handler(x)
    if is_masked_array(x):
        return _masked_array_error(x)
    for base in type(x).__mro__[1:]:
        handler = aval_handlers.get(base)
        if handler is not None:
            aval_handlers[type(x)] = handler
            return handler(x)
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if hasattr(type(x), "__jax_array__"):  # an array-like object is read as its array
        return get_aval(x.__jax_array__())
    raise TypeError(f"Value {x!r} with type {type(x)} is not a valid JAX type")


# The argument checks of JAX's entry points, each with its own text for a value that is not an
# array. They run where an argument is first read, off the hot paths (an Array's type is in
# `aval_handlers` and returns at the first test).


def check_arg(x: Any) -> None:
    """Reject a value that is not an array, as grad, vjp and the Jacobians do.

    >>> check_arg("a")
    Traceback (most recent call last):
    TypeError: Argument 'a' of type <class 'str'> is not a valid JAX type.
    """
    try:
        get_aval(x)
    except TypeError:
        if isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType):
            return  # a typed key array: one leaf to the user, its key data to transformations
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def shaped_abstractify(x: Any) -> Any:
    """The aval of an argument of a staged function (jit, eval_shape, make_jaxpr, checkpoint,
    an eager primitive): a string, a NumPy array of a non-array dtype and an object with no
    dtype each get JAX's text; an object with a `dtype` (and `shape`) is read as one.

    >>> shaped_abstractify(object())
    Traceback (most recent call last):
    TypeError: Cannot interpret value of type <class 'object'> as an abstract array; it does \
not have a dtype attribute
    """
    handler = aval_handlers.get(type(x))
    if handler is not None and type(x) is not np.ndarray:
        return handler(x)
    if type(x) is str:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")
    if type(x) is np.ndarray:
        dtypes.check_valid_dtype(x.dtype)  # the dtype as stored: big-endian arrays too
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))
    try:
        return get_aval(x)
    except TypeError:
        pass
    if not hasattr(x, "dtype"):
        raise TypeError(f"Cannot interpret value of type {type(x)} as an abstract array; it "
                        "does not have a dtype attribute")
    return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(x.dtype, allow_extended_dtype=True),
                       weak_type=bool(getattr(x, "weak_type", False)))


def check_args_abstractify(args: Any) -> None:
    """Raise what `shaped_abstractify` raises for the first bad leaf of the pytrees `args`
    (what a jitted function raises before it runs)."""
    for leaf in tree_leaves(args):
        shaped_abstractify(leaf)


def eager_operand_error(args: Sequence[Any]) -> TypeError | None:
    """The error JAX gives for the operands of an eager primitive, or None if they are arrays.

    JAX runs an eager primitive as a jitted function of its operands: each operand's leaves
    are abstractified (`shaped_abstractify`'s texts), and one read as an array only through a
    dtype attribute fails when the call is dispatched. An operand that is a container of
    arrays passes that step; the primitive itself then rejects it."""
    try:
        check_args_abstractify(list(args))
    except TypeError as err:
        return err
    for x in args:
        if isinstance(x, list | tuple | dict):
            return TypeError(f"Value {_staged_repr(x)} with type {type(x)} is not a valid JAX "
                             "type")
        if x is not None:
            try:
                get_aval(x)
            except TypeError:
                return TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.")
    return None


def _staged_repr(x: Any) -> str:
    """How JAX prints a container of arrays inside the jitted function it was passed to: each
    leaf is a tracer (`[Traced<ShapedArray(float32[], weak_type=True)>with<...>]`)."""
    return repr(tree_map(lambda leaf: _StagedLeaf(shaped_abstractify(leaf)), x))


class _StagedLeaf:
    """How JAX prints the tracer of a leaf of an eager primitive's operand."""

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Traced<{self.aval!r}>with<DynamicJaxprTrace(level=1/0)>"


# The types a ShapeDtypeStruct's sharding may have: registered by the runtime layer, which
# defines them (`Sharding`).
sharding_types: tuple[type, ...] = ()

# Arrays of an extended dtype (typed keys) for a ShapeDtypeStruct of that dtype, whose leaves
# are ShapeDtypeStructs of their data: registered by the layer that defines the dtype
# (`numjax.random`), so abstract evaluation can take a key array's description.
extended_array_builders: dict[type, Callable[[ShapeDtypeStruct], Any]] = {}


def struct_as_extended_array(x: Any) -> Any:
    """`x`, or, for a ShapeDtypeStruct of a registered extended dtype, the array of that dtype
    standing for it."""
    if type(x) is ShapeDtypeStruct and isinstance(x.dtype, dtypes.ExtendedDType):
        build = extended_array_builders.get(type(x.dtype))
        if build is not None:
            return build(x)
    return x


class ShapeDtypeStruct:
    """A shape, a dtype and (optionally) a named shape and a sharding: an array's type without
    its data. As in JAX 0.4.30 it carries no weak type.

    >>> import numjax.numpy as jnp
    >>> ShapeDtypeStruct((2, 3), jnp.float32)
    ShapeDtypeStruct(shape=(2, 3), dtype=float32)
    """

    __slots__ = ("shape", "dtype", "named_shape", "sharding")

    def __init__(self, shape: Sequence[int], dtype: Any, named_shape: Any = None,
                 sharding: Any = None) -> None:
        self.shape = tuple(shape)
        if dtype is None:
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        self.dtype = (dtype if isinstance(dtype, dtypes.ExtendedDType)
                      else np.dtype(dtype))
        if sharding is not None and not isinstance(sharding, sharding_types):
            raise ValueError(
                "sharding should be an instance of `jax.sharding.Sharding` or "
                f"`jax.experimental.layout.Layout`. Got {sharding} of type {type(sharding)}.")
        self.sharding = sharding
        self.named_shape = {} if named_shape is None else dict(named_shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        dt = str(self.dtype) if isinstance(self.dtype, dtypes.ExtendedDType) else self.dtype.name
        named = f", named_shape={self.named_shape}" if self.named_shape else ""
        sharding = f", sharding={self.sharding}" if self.sharding is not None else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={dt}{named}{sharding})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapeDtypeStruct)
                and (self.shape, self.dtype, self.named_shape, self.sharding)
                == (other.shape, other.dtype, other.named_shape, other.sharding))

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, frozenset(self.named_shape.items()),
                     self.sharding))

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, dtypes.canonicalize_dtype(self.dtype))

"""PRNG keys: raw `uint32` key data and typed key arrays of dtype `key<fry>`, `key<rbg>` or
`key<urbg>`, with JAX's checks.

A typed key array (`random.key`) is a `numjax.Array` whose dtype is the extended dtype of its
PRNG implementation (`prng.PRNGImpl`) and whose buffer is the raw key data,
`uint32[*shape, *key_shape]`. Shape operations (indexing, reshape, transpose, ...) act on the
leading dimensions of the data, so the trailing key-data dimension never moves. Arithmetic
raises JAX's TypeErrors. Raw keys passed to `jax.random` functions are read as keys of the
default implementation (`jax_default_prng_impl`), as in JAX.

Transformations carry key arrays as a pytree node over the data: `jit`, `vmap`, `grad`, control
flow and `device_put` see one uint32 leaf and rebuild the key array around their results. A
float0 cotangent for that leaf becomes JAX's float0 cotangent of the key (the key's shape).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from numjax._src import config as _config
from numjax._src import dtypes
from numjax._src.api.custom_derivatives import SymbolicZero
from numjax._src.core.avals import (
    ShapedArray,
    ShapeDtypeStruct,
    extended_array_builders,
    get_aval,
)
from numjax._src.core.extended import register_extended_array
from numjax._src.core.trace import Tracer
from numjax._src.lax import dynamic_slicing as ds
from numjax._src.lax import lax
from numjax._src.lax import structural as st
from numjax._src.lax.structural import broadcast_shapes
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.lax_numpy import where
from numjax._src.numpy.manipulation import tile
from numjax._src.numpy.reductions import all as jnp_all
from numjax._src.numpy.reductions import any as jnp_any
from numjax._src.numpy.scalar_types import int32, int64
from numjax._src.numpy.selection import take
from numjax._src.numpy.shape import (
    broadcast_to,
    concatenate,
    expand_dims,
    reshape,
    squeeze,
    stack,
    transpose,
)
from numjax._src.numpy.util import canonicalize_axis
from numjax._src.random import prng
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import Array as ArrayType
from numjax._src.tree_util import register_pytree_node, register_user_leaf
from numjax._src.typing import Array

PRNGImpl = prng.PRNGImpl
KEY_DTYPE = dtypes.threefry_key_dtype
_KEY_DTYPES: dict[PRNGImpl, dtypes.KeyTy] = {prng.threefry_prng_impl: KEY_DTYPE}


def key_dtype(impl: PRNGImpl) -> dtypes.KeyTy:
    """The extended dtype of `impl`'s typed keys, `key<tag>`."""
    dt = _KEY_DTYPES.get(impl)
    if dt is None or dt.impl_name != impl.name:
        dt = _KEY_DTYPES[impl] = dtypes.KeyTy(impl.name, impl.tag, tuple(impl.key_shape))
    return dt


class PRNGSpec:
    """What `key_impl` returns: wraps a PRNG implementation; `str` gives its tag, as in JAX.

    >>> str(PRNGSpec(prng.rbg_prng_impl))
    'rbg'
    """

    __slots__ = ("_impl",)

    def __init__(self, impl: PRNGImpl) -> None:
        self._impl = impl

    def __str__(self) -> str:
        return str(self._impl)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PRNGSpec) and other._impl == self._impl

    def __hash__(self) -> int:
        return hash(self._impl)


# lax-level operations JAX reaches when both operands are keys: (name, accepted dtypes).
_KEY_KEY_OPS = {
    "add": ("add", "integer, complexfloating, floating"),
    "subtract": ("sub", "integer, complexfloating, floating"),
    "multiply": ("mul", "integer, complexfloating, floating"),
    "true_divide": ("div", "integer, complexfloating, floating"),
    "bitwise_and": ("and", "integer, bool_"),
    "bitwise_or": ("or", "integer, bool_"),
    "bitwise_xor": ("xor", "integer, bool_"),
    "less": ("lt", "integer, bool_, floating"),
    "less_equal": ("le", "integer, bool_, floating"),
    "greater": ("gt", "integer, bool_, floating"),
    "greater_equal": ("ge", "integer, bool_, floating"),
}


def _binary_error(name: str, x: Any, y: Any) -> TypeError:
    """JAX's error for a jnp binary operation on a key array (`x` or `y`)."""
    if (isinstance(x, PRNGKeyArray) and isinstance(y, PRNGKeyArray) and x.dtype == y.dtype
            and name in _KEY_KEY_OPS):
        lax_name, accepted = _KEY_KEY_OPS[name]
        return TypeError(f"{lax_name} does not accept dtype {x.dtype} at position 0. "
                         f"Accepted dtypes at position 0 are subtypes of {accepted}.")
    names = [str(a.dtype) if isinstance(a, PRNGKeyArray)
             else str(dtypes.dtype(a, canonicalize=True)) for a in (x, y)]
    return TypeError(f"{name} does not accept dtypes {names[0]}, {names[1]}.")


def _binary(name: str) -> tuple[Any, Any]:
    def op(self: PRNGKeyArray, other: Any) -> Any:
        raise _binary_error(name, self, other)

    def rop(self: PRNGKeyArray, other: Any) -> Any:
        raise _binary_error(name, other, self)

    return op, rop


def _unary(name: str, accepted: str) -> Any:
    def op(self: PRNGKeyArray) -> Any:
        raise TypeError(f"{name} does not accept dtype {self.dtype}. Accepted dtypes are "
                        f"subtypes of {accepted}.")

    return op


def _normalize_shape(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(d) for d in shape)


class PRNGKeyArray(ArrayType):
    """An array of typed keys of one PRNG implementation; its shape is the key data's shape
    without the trailing key shape.

    >>> import numjax
    >>> k = numjax.random.key(0)
    >>> k.shape, k.dtype
    ((), key<fry>)
    >>> numjax.random.split(k, 3).reshape(3, 1).shape
    (3, 1)
    """

    __slots__ = ("_base", "_impl")
    __array_priority__ = 100  # NumPy defers `np_value + key` to the key's reflected operator

    def __init__(self, base: Array, impl: PRNGImpl = prng.threefry_prng_impl) -> None:
        self._base = base
        self._impl = impl

    def _wrap(self, base: Array) -> PRNGKeyArray:
        """Keys of the same implementation over new key data."""
        return PRNGKeyArray(base, self._impl)

    # -- metadata ----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(get_aval(self._base).shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> dtypes.KeyTy:
        return key_dtype(self._impl)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def devices(self) -> Any:
        return self._base.devices()

    def block_until_ready(self) -> PRNGKeyArray:
        if hasattr(self._base, "block_until_ready"):
            self._base.block_until_ready()
        return self

    def copy(self) -> PRNGKeyArray:
        return self

    # -- the buffer's attributes are those of the key data, as in JAX -----------------------
    @property
    def _base_array(self) -> Array:
        return self._base

    @property
    def is_fully_addressable(self) -> bool:
        return bool(self._base.is_fully_addressable)

    @property
    def is_fully_replicated(self) -> bool:
        return bool(self._base.is_fully_replicated)

    @property
    def addressable_shards(self) -> Any:
        return self._base.addressable_shards

    @property
    def global_shards(self) -> Any:
        return self._base.global_shards

    def addressable_data(self, index: int) -> PRNGKeyArray:
        return self._wrap(self._base.addressable_data(index))

    def on_device_size_in_bytes(self) -> int:
        return int(self._base.on_device_size_in_bytes())

    def unsafe_buffer_pointer(self) -> int:
        return int(self._base.unsafe_buffer_pointer())

    def is_deleted(self) -> bool:
        return bool(self._base.is_deleted())

    def delete(self) -> None:
        self._base.delete()

    def copy_to_host_async(self) -> None:
        self._base.copy_to_host_async()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[PRNGKeyArray]:
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(len(self)))

    def __hash__(self) -> int:
        raise TypeError("unhashable type: 'PRNGKeyArray'")

    # -- shape operations: on the leading dimensions of the key data ----------------------
    def __getitem__(self, idx: Any) -> PRNGKeyArray:
        return self._wrap(self._base[_data_index(idx)])

    @property
    def at(self) -> _KeyIndexUpdateHelper:
        """Indexed reads and writes, `keys.at[idx].get()` / `.set(other_keys)`, as on arrays."""
        return _KeyIndexUpdateHelper(self)

    def reshape(self, *shape: Any, order: str = "C") -> PRNGKeyArray:
        arg = shape[0] if len(shape) == 1 else shape
        new = _normalize_shape(shape)
        if new.count(-1) == 1:
            known = math.prod(d for d in new if d != -1)
            if known and self.size % known == 0:
                new = tuple(self.size // known if d == -1 else d for d in new)
        if math.prod(new) != self.size or any(d < 0 for d in new):
            raise TypeError(f"cannot reshape array of shape {self.shape} (size {self.size}) "
                            f"into shape {arg} (size {math.prod(new)})")
        return self._wrap(reshape(self._base, (*new, *self._impl.key_shape), order=order))

    def ravel(self, order: str = "C") -> PRNGKeyArray:
        return self.reshape(-1, order=order)

    flatten = ravel

    def transpose(self, *axes: Any) -> PRNGKeyArray:
        perm = _normalize_shape(axes) if axes and axes != (None,) else None
        perm = tuple(range(self.ndim))[::-1] if perm is None else tuple(
            p % self.ndim for p in perm)
        return self._wrap(transpose(self._base, (*perm, self.ndim)))

    @property
    def T(self) -> PRNGKeyArray:
        return self.transpose()

    def swapaxes(self, axis1: int, axis2: int) -> PRNGKeyArray:
        perm = list(range(self.ndim))
        a, b = axis1 % self.ndim, axis2 % self.ndim
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def squeeze(self, axis: Any = None) -> PRNGKeyArray:
        if axis is None:
            axes = tuple(i for i, d in enumerate(self.shape) if d == 1)
        else:
            axes = tuple(a % self.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
        return self._wrap(squeeze(self._base, axes))

    # -- comparison and (rejected) arithmetic -----------------------------------------
    def _broadcast_data(self, name: str, other: Any) -> tuple[Array, Array]:
        """Both operands' data broadcast to their keys' common shape: a scalar key against an
        array of keys is scalar broadcasting to JAX, whatever `jax_numpy_rank_promotion`
        says, though their data differ in rank."""
        if not isinstance(other, PRNGKeyArray) or other.dtype != self.dtype:
            raise _binary_error(name, self, other)
        try:
            common = broadcast_shapes(self.shape, other.shape)
        except ValueError:
            raise TypeError(f"{'eq' if name == 'equal' else 'ne'} got incompatible shapes for "
                            f"broadcasting: {self.shape}, {other.shape}.") from None
        shape = (*common, *self._impl.key_shape)
        return broadcast_to(self._base, shape), broadcast_to(other._base, shape)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        x, y = self._broadcast_data("equal", other)
        return jnp_all(x == y, axis=-1)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        x, y = self._broadcast_data("not_equal", other)
        return jnp_any(x != y, axis=-1)

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("subtract")
    __mul__, __rmul__ = _binary("multiply")
    __truediv__, __rtruediv__ = _binary("true_divide")
    __floordiv__, __rfloordiv__ = _binary("floor_divide")
    __mod__, __rmod__ = _binary("remainder")
    __and__, __rand__ = _binary("bitwise_and")
    __or__, __ror__ = _binary("bitwise_or")
    __xor__, __rxor__ = _binary("bitwise_xor")
    __lt__, _ = _binary("less")
    __le__, _ = _binary("less_equal")
    __gt__, _ = _binary("greater")
    __ge__, _ = _binary("greater_equal")
    __neg__ = _unary("neg", "integer, complexfloating, floating")
    __invert__ = _unary("not", "integer, bool_")
    __abs__ = _unary("abs", "floating, complexfloating, signedinteger")

    def __pow__(self, other: Any) -> Any:
        raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {self.dtype} "
                         "with allow_extended_dtype=False")

    def __pos__(self) -> PRNGKeyArray:
        return self

    # -- printing ------------------------------------------------------------------------
    def __repr__(self) -> str:
        if isinstance(self._base, Tracer):
            dims = ",".join(str(d) for d in self.shape)
            return f"Traced<ShapedArray({self.dtype}[{dims}])>"
        return (f"Array({self.shape}, dtype={self.dtype}) overlaying:\n"
                f"{np.asarray(self._base)}")

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)


def _data_index(idx: Any) -> tuple[Any, ...]:
    """An index into keys as an index into their data: the trailing key dimension kept."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    if any(i is Ellipsis for i in idx):
        return (*idx, slice(None))
    return (*idx, Ellipsis, slice(None))


class _KeyIndexUpdateHelper:
    __slots__ = ("_keys",)

    def __init__(self, keys: PRNGKeyArray) -> None:
        self._keys = keys

    def __getitem__(self, idx: Any) -> _KeyIndexUpdateRef:
        return _KeyIndexUpdateRef(self._keys, idx)


class _KeyIndexUpdateRef:
    """`keys.at[idx]`: reads and writes of the key data at the index, keys in and out."""

    __slots__ = ("_idx", "_keys")

    def __init__(self, keys: PRNGKeyArray, idx: Any) -> None:
        self._keys, self._idx = keys, idx

    def get(self, **kwargs: Any) -> PRNGKeyArray:
        return self._keys._wrap(self._keys._base.at[_data_index(self._idx)].get(**kwargs))

    def set(self, values: Any, **kwargs: Any) -> PRNGKeyArray:
        if not isinstance(values, PRNGKeyArray):
            # JAX reads the update as an array of the keys' dtype, which NumPy cannot be.
            raise TypeError(f"Cannot interpret '{self._keys.dtype}' as a data type")
        (values,) = _check_keys((values,), self._keys.dtype)
        data = self._keys._base.at[_data_index(self._idx)].set(values._base, **kwargs)
        return self._keys._wrap(data)


def _unflatten_keys(impl: PRNGImpl, children: Any) -> Any:
    (base,) = children
    # The cotangent of a key (grad with allow_int, vjp) is float0 of the key's shape, as JAX's;
    # a symbolic zero one (custom_vjp with symbolic_zeros) stays symbolic.
    if getattr(base, "dtype", None) == dtypes.float0:
        if isinstance(base, SymbolicZero):
            return SymbolicZero(ShapedArray(tuple(base.shape)[:-1], dtypes.float0))
        return np.zeros(np.shape(base)[:-1], dtypes.float0)
    return PRNGKeyArray(base, impl)


def _keys_for_struct(struct: ShapeDtypeStruct) -> PRNGKeyArray:
    """Keys described by `ShapeDtypeStruct(shape, key<impl>)`: their data's description."""
    dtype = struct.dtype
    assert isinstance(dtype, dtypes.KeyTy)
    impl = prng.prngs[dtype.impl_name]
    data = ShapeDtypeStruct((*struct.shape, *impl.key_shape), np.uint32,
                            sharding=struct.sharding)
    return PRNGKeyArray(data, impl)  # type: ignore[arg-type]


extended_array_builders[dtypes.KeyTy] = _keys_for_struct
register_pytree_node(PRNGKeyArray, lambda k: ((k._base,), k._impl), _unflatten_keys)
# One leaf to user code (jax.tree_util), its uint32 data to the transformations.
register_user_leaf(PRNGKeyArray)


# -- jnp functions on key arrays: the same operation on the key data, trailing dimension kept ----
def _check_keys(xs: Sequence[Any], dtype: Any = None) -> list[PRNGKeyArray]:
    """`xs` when all are keys of one implementation; JAX's promotion errors otherwise."""
    keys = [x for x in xs if isinstance(x, PRNGKeyArray)]
    dts = [k.dtype for k in keys]
    if len(keys) != len(xs) or any(dt != dts[0] for dt in dts):
        # JAX names an extended dtype that does not promote (with two implementations, which
        # one depends on its set order; numjax names one that differs from threefry).
        named = next((dt for dt in dts if dt != KEY_DTYPE), dts[0])
        raise ValueError(f"dtype={named} is not a valid dtype for JAX type promotion.")
    if dtype is not None and dtype != dts[0]:
        raise ValueError(f"Cannot convert_element_type from {dts[0]} to "
                         f"{dtypes.canonicalize_dtype(dtype)}")
    return keys


def _concatenate_rule(arrays: Sequence[Any], axis: int | None, dtype: Any) -> PRNGKeyArray:
    keys = _check_keys(arrays, dtype)
    if axis is None:
        keys, axis = [k.ravel() for k in keys], 0
    if keys[0].ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, keys[0].ndim)
    return keys[0]._wrap(concatenate([k._base for k in keys], axis))


def _stack_rule(arrays: Sequence[Any], axis: int, dtype: Any) -> PRNGKeyArray:
    keys = _check_keys(arrays, dtype)
    if len({k.shape for k in keys}) != 1:
        raise ValueError("All input arrays must have the same shape.")
    axis = canonicalize_axis(axis, keys[0].ndim + 1)
    return keys[0]._wrap(stack([k._base for k in keys], axis))


def _reshape_rule(k: PRNGKeyArray, shape: Any, order: str) -> PRNGKeyArray:
    return k.reshape(shape, order=order)


def _transpose_rule(k: PRNGKeyArray, axes: Any) -> PRNGKeyArray:
    return k.transpose() if axes is None else k.transpose(tuple(axes))


def _squeeze_rule(k: PRNGKeyArray, axis: Any) -> PRNGKeyArray:
    if axis is None:
        axes = tuple(i for i, d in enumerate(k.shape) if d == 1)
    else:
        axes = tuple(canonicalize_axis(a, k.ndim) for a in np.atleast_1d(axis).tolist())
    if any(k.shape[a] != 1 for a in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={k.shape} and dimensions={axes}")
    return k._wrap(squeeze(k._base, axes))


def _expand_dims_rule(k: PRNGKeyArray, axis: Any) -> PRNGKeyArray:
    axes = np.atleast_1d(axis).tolist()
    n = k.ndim + len(axes)
    return k._wrap(expand_dims(k._base, tuple(canonicalize_axis(a, n) for a in axes)))


def _broadcast_to_rule(k: PRNGKeyArray, shape: Any) -> PRNGKeyArray:
    shape = (int(shape),) if isinstance(shape, int | np.integer) else tuple(shape)
    old = k.shape
    if len(shape) < len(old) or any(o not in (1, n) for o, n in zip(
            old, shape[len(shape) - len(old):], strict=True)):
        raise ValueError(f"Incompatible shapes for broadcasting: {old} and requested shape "
                         f"{shape}")
    return k._wrap(broadcast_to(k._base, (*shape, *k._impl.key_shape)))


def _where_rule(condition: Any, x: Any, y: Any) -> PRNGKeyArray:
    if isinstance(condition, PRNGKeyArray):
        raise TypeError(f"Cannot interpret '{condition.dtype}' as a data type")
    kx, ky = _check_keys((x, y))
    condition = asarray(condition)
    if condition.dtype != bool:
        condition = condition != 0
    shape = broadcast_shapes(condition.shape, kx.shape, ky.shape)
    condition = expand_dims(broadcast_to(condition, shape), -1)
    return kx._wrap(where(condition, kx._base, ky._base))


def _array_rule(k: PRNGKeyArray, dtype: Any, ndmin: int) -> PRNGKeyArray:
    (k,) = _check_keys((k,), dtype)
    out = k._wrap(k._base)  # a new array, as JAX's asarray/array of a key array
    return out.reshape((1,) * (ndmin - k.ndim) + k.shape) if ndmin > k.ndim else out


def _tile_rule(k: PRNGKeyArray, reps: Any) -> PRNGKeyArray:
    reps_t = tuple(int(r) for r in np.atleast_1d(reps).tolist())
    rank = max(len(k.shape), len(reps_t))
    base = reshape(k._base, (1,) * (rank - len(k.shape)) + tuple(k._base.shape))
    return k._wrap(tile(base, (1,) * (rank - len(reps_t)) + reps_t + (1,)))


def _take_rule(k: PRNGKeyArray, indices: Any, axis: int | None, mode: str | None
               ) -> PRNGKeyArray:
    if mode not in ("clip", "wrap"):
        # Out-of-bounds reads would need a fill value, which keys do not have.
        raise ValueError(f"Unsupported dtype for gather fill_value {k.dtype}")
    if axis is None:
        k, axis = k._wrap(reshape(k._base, (-1, k._base.shape[-1]))), 0
    axis = canonicalize_axis(axis, len(k.shape))
    return k._wrap(take(k._base, indices, axis=axis, mode=mode))


register_extended_array(PRNGKeyArray, {
    "tile": _tile_rule, "take": _take_rule,
    "concatenate": _concatenate_rule, "stack": _stack_rule, "reshape": _reshape_rule,
    "transpose": _transpose_rule, "squeeze": _squeeze_rule, "expand_dims": _expand_dims_rule,
    "broadcast_to": _broadcast_to_rule, "where": _where_rule, "array": _array_rule,
})


# -- lax functions on key arrays: the operation on the key data, whose trailing dimensions (the
# key's own) come along untouched, as JAX's key dtype rules do --------------------------------
def _trailing(k: PRNGKeyArray, rank: int) -> tuple[int, ...]:
    """The positions of the key data's own dimensions after `rank` key dimensions."""
    return tuple(range(rank, rank + len(k._impl.key_shape)))


def _lax_broadcast_in_dim(k: PRNGKeyArray, shape: Sequence[int], dims: Sequence[int]
                          ) -> PRNGKeyArray:
    shape = tuple(shape)
    return k._wrap(st.broadcast_in_dim(k._base, (*shape, *k._impl.key_shape),
                                       (*dims, *_trailing(k, len(shape)))))


def _lax_broadcast(k: PRNGKeyArray, sizes: Sequence[int]) -> PRNGKeyArray:
    return k._wrap(st.broadcast(k._base, sizes))


def _lax_reshape(k: PRNGKeyArray, new_sizes: Sequence[int], dimensions: Sequence[int] | None
                 ) -> PRNGKeyArray:
    return k._wrap(st.reshape(k._base, (*new_sizes, *k._impl.key_shape), None
                              if dimensions is None else (*dimensions, *_trailing(k, k.ndim))))


def _lax_squeeze(k: PRNGKeyArray, dimensions: Sequence[int]) -> PRNGKeyArray:
    return k._wrap(st.squeeze(k._base, [canonicalize_axis(d, k.ndim) for d in dimensions]))


def _lax_expand_dims(k: PRNGKeyArray, dimensions: Sequence[int]) -> PRNGKeyArray:
    rank = k.ndim + len(dimensions)
    return k._wrap(st.expand_dims(k._base, [canonicalize_axis(d, rank) for d in dimensions]))


def _lax_transpose(k: PRNGKeyArray, permutation: Sequence[int]) -> PRNGKeyArray:
    return k._wrap(st.transpose(k._base, (*permutation, *_trailing(k, k.ndim))))


def _lax_rev(k: PRNGKeyArray, dimensions: Sequence[int]) -> PRNGKeyArray:
    return k._wrap(st.rev(k._base, [canonicalize_axis(d, k.ndim) for d in dimensions]))


def _lax_concatenate(operands: Sequence[Any], dimension: int) -> PRNGKeyArray:
    keys = _check_keys(list(operands))
    return keys[0]._wrap(st.concatenate([k._base for k in keys], dimension))


def _lax_slice(k: PRNGKeyArray, start_indices: Sequence[int], limit_indices: Sequence[int],
               strides: Sequence[int] | None) -> PRNGKeyArray:
    key_shape = k._impl.key_shape
    return k._wrap(st.slice(k._base, (*start_indices, *(0 for _ in key_shape)),
                            (*limit_indices, *key_shape),
                            None if strides is None else (*strides, *(1 for _ in key_shape))))


def _lax_dynamic_slice(k: PRNGKeyArray, start_indices: Any, slice_sizes: Sequence[int]
                       ) -> PRNGKeyArray:
    key_shape = k._impl.key_shape
    starts = [*start_indices] if isinstance(start_indices, list | tuple) else [
        start_indices[i] for i in range(len(start_indices))]
    return k._wrap(ds.dynamic_slice(k._base, [*starts, *(0 for _ in key_shape)],
                                    (*slice_sizes, *key_shape)))


def _lax_dynamic_update_slice(k: PRNGKeyArray, update: Any, start_indices: Any
                              ) -> PRNGKeyArray:
    k, update = _check_keys((k, update))
    starts = [*start_indices] if isinstance(start_indices, list | tuple) else [
        start_indices[i] for i in range(len(start_indices))]
    return k._wrap(ds.dynamic_update_slice(k._base, update._base,
                                           [*starts, *(0 for _ in k._impl.key_shape)]))


register_extended_array(PRNGKeyArray, {
    "lax.broadcast_in_dim": _lax_broadcast_in_dim, "lax.broadcast": _lax_broadcast,
    "lax.reshape": _lax_reshape, "lax.squeeze": _lax_squeeze,
    "lax.expand_dims": _lax_expand_dims, "lax.transpose": _lax_transpose, "lax.rev": _lax_rev,
    "lax.concatenate": _lax_concatenate, "lax.slice": _lax_slice,
    "lax.dynamic_slice": _lax_dynamic_slice,
    "lax.dynamic_update_slice": _lax_dynamic_update_slice,
})


def check_key_data(key_data: Any, impl: PRNGImpl = prng.threefry_prng_impl) -> None:
    """JAX's validation of raw key data for `impl` (TypeError with JAX's texts)."""
    if not all(hasattr(key_data, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                        f"shape, and dtype attributes. Got {key_data}")
    if key_data.ndim < 1:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; "
                        f"got ndim={key_data.ndim}")
    key_shape = tuple(impl.key_shape)
    if tuple(key_data.shape[-len(key_shape):]) != key_shape:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with {key_shape}; got shape={tuple(key_data.shape)} for {impl=}")
    if key_data.dtype not in (np.uint32, dtypes.float0):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={key_data.dtype}")


def _arraylike(x: Any) -> bool:
    """What JAX reads as raw key data: arrays and scalars (a Python number is then refused for
    lacking an array's attributes), but not lists or tuples."""
    return (isinstance(x, (np.ndarray, ArrayType, Tracer)) or hasattr(x, "__jax_array__")
            or bool(np.isscalar(x)))


def default_prng_impl() -> PRNGImpl:
    """The implementation `jax_default_prng_impl` names (raw keys are read as its keys).

    >>> default_prng_impl().name
    'threefry2x32'
    """
    return prng.prngs[_config.default_prng_impl.value]


def resolve_prng_impl(impl: Any) -> PRNGImpl:
    """The implementation an `impl=` argument names: None (the default), a name, a `PRNGSpec`
    or a `PRNGImpl`; JAX's errors otherwise."""
    if impl is None:
        return default_prng_impl()
    if type(impl) is PRNGImpl:
        return impl
    if type(impl) is PRNGSpec:
        return impl._impl
    if type(impl) is str:
        if impl in prng.prngs:
            return prng.prngs[impl]
        names = ", ".join(f'"{name}"' for name in prng.prngs)
        raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: '
                         f"{names}?")
    raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")


def check_prng_key(name: str, key: Any, *, allow_batched: bool = False
                   ) -> tuple[PRNGKeyArray, bool]:
    """`key` as typed keys (raw key data read with the default implementation) and whether it
    was raw; JAX's errors for bad keys."""
    if isinstance(key, PRNGKeyArray):
        keys, wrapped = key, False
    else:
        if not _arraylike(key):
            raise TypeError(f"unexpected PRNG key type {type(key)}")
        impl = default_prng_impl()
        check_key_data(key, impl)
        keys, wrapped = PRNGKeyArray(key, impl), True
        legacy = _config.legacy_prng_key.value
        if legacy == "error":
            raise ValueError(_LEGACY_KEY_MESSAGE)
        if legacy == "warn":
            warnings.warn(_LEGACY_KEY_MESSAGE, stacklevel=3)
        elif _config.enable_custom_prng.value:
            warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                          "Assuming valid threefry2x32 key for now.", FutureWarning,
                          stacklevel=3)
    if not allow_batched and keys.ndim:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{np.shape(key) if wrapped else keys.shape} != (). Use jax.vmap for "
                         "batching.")
    return keys, wrapped


_LEGACY_KEY_MESSAGE = (
    "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
    'jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key="allow".')


def return_keys(wrapped: bool, keys: PRNGKeyArray) -> Any:
    """Keys as the caller gave them: raw key data for raw keys, else typed keys (always typed
    under `jax_enable_custom_prng`)."""
    return keys._base if wrapped and not _config.enable_custom_prng.value else keys


def random_bits(keys: PRNGKeyArray, bit_width: int, shape: tuple[int, ...]) -> Array:
    """Uniform random `uint<bit_width>[*shape]` from one typed key, by its implementation."""
    return keys._impl.random_bits(keys._base, bit_width, shape)


def random_split(keys: PRNGKeyArray, shape: tuple[int, ...]) -> PRNGKeyArray:
    """`prod(shape)` new typed keys of shape `shape` from one typed key."""
    return keys._wrap(keys._impl.split(keys._base, shape))


def random_fold_in(keys: PRNGKeyArray, data: Array) -> PRNGKeyArray:
    """A typed key mixing the uint32 scalar `data` into one typed key."""
    return keys._wrap(keys._impl.fold_in(keys._base, data))


def _seed_to_key(ctor_name: str, seed: Any, impl: PRNGImpl) -> Array:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if transfer_guard._in_use and not isinstance(seed, ArrayType):
        transfer_guard.host_operand(seed, int64 if dtypes._x64_enabled() else int32)
    if np.ndim(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{np.shape(seed)} != (). Use jax.vmap for batching")
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        # As JAX: Python ints go through int64 (OverflowError beyond it) so that large seeds,
        # e.g. hashes, do not overflow in 32-bit mode, where they keep their low 32 bits.
        seed64 = np.int64(seed)
        seed_arr = asarray(seed64 if dtypes._x64_enabled() else seed64.astype(np.int32))
    else:
        seed_arr = asarray(seed)
    if _config.random_seed_offset.value:
        seed_arr = seed_arr + _config.random_seed_offset.value
    return impl.seed(seed_arr)


def PRNGKey(seed: Any, *, impl: Any = None) -> Array:
    """Raw key data from an integer seed: `uint32[2]` for threefry, `uint32[4]` for rbg.

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    >>> PRNGKey(42, impl="rbg")
    Array([ 0, 42,  0, 42], dtype=uint32)
    """
    impl_obj = resolve_prng_impl(impl)
    return return_keys(True, PRNGKeyArray(_seed_to_key("PRNGKey", seed, impl_obj), impl_obj))


def key(seed: Any, *, impl: Any = None) -> PRNGKeyArray:
    """A typed scalar key from an integer seed (of the default implementation unless `impl`).

    >>> key_data(key(42))
    Array([ 0, 42], dtype=uint32)
    >>> key(42, impl="unsafe_rbg").dtype
    key<urbg>
    """
    impl_obj = resolve_prng_impl(impl)
    return PRNGKeyArray(_seed_to_key("key", seed, impl_obj), impl_obj)


def key_data(keys: Any) -> Array:
    """The raw `uint32` data of typed (or raw) keys.

    >>> key_data(key(1))
    Array([0, 1], dtype=uint32)
    """
    typed, _ = check_prng_key("key_data", keys, allow_batched=True)
    return typed._base


def wrap_key_data(key_bits_array: Any, *, impl: Any = None) -> PRNGKeyArray:
    """Typed keys wrapping raw key data (`uint32[..., 2]` for threefry, `[..., 4]` for rbg).

    >>> wrap_key_data(PRNGKey(1)).shape
    ()
    """
    impl_obj = resolve_prng_impl(impl)
    check_key_data(key_bits_array, impl_obj)
    return PRNGKeyArray(key_bits_array, impl_obj)


def key_impl(keys: Any) -> PRNGSpec:
    """The PRNG implementation of `keys` (raw keys: the default one).

    >>> str(key_impl(key(0)))
    'fry'
    """
    typed, _ = check_prng_key("key_impl", keys, allow_batched=True)
    return PRNGSpec(typed._impl)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """`num` new keys (an int or a shape) from one key.

    >>> split(PRNGKey(0)).shape
    (2, 2)
    """
    typed, wrapped = check_prng_key("split", key)
    shape = tuple(int(n) for n in num) if isinstance(num, Sequence) else (int(num),)
    return return_keys(wrapped, random_split(typed, shape))


def fold_in(key: Any, data: Any) -> Any:
    """A new key that is a deterministic function of `key` and the 32-bit integer `data`.

    >>> fold_in(PRNGKey(0), 7)
    Array([2716826189,  292468403], dtype=uint32)
    """
    typed, wrapped = check_prng_key("fold_in", key)
    if np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
        # jnp.uint32(python int) keeps the low 32 bits.
        data = np.uint32(int(data) & 0xFFFFFFFF)
    return return_keys(wrapped, random_fold_in(typed, lax.convert_element_type(data, np.uint32)))


def clone(key: Any) -> Any:
    """A copy of `key` for deliberate reuse (JAX's key-reuse checker hook; identity here).

    >>> clone(PRNGKey(3))
    Array([0, 3], dtype=uint32)
    """
    return key


transfer_guard.entry_points(globals(), defaults=True)

"""Index helpers: mgrid/ogrid (dense and open grids from slices), r_/c_ (concatenation by
slicing syntax), s_/index_exp, and small dtype and printing helpers of jnp."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.config import numpy_dtype_promotion
from numjax._src.core import errors
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.lax.constants import lax_const
from numjax._src.lax.structural import copy_p
from numjax._src.numpy.creation import arange, array, asarray, linspace, meshgrid
from numjax._src.numpy.shape import concatenate, moveaxis, stack
from numjax._src.numpy.util import ensure_array
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl, copied
from numjax._src.typing import Array

s_ = np.s_
index_exp = np.index_exp


def _slice_values(s: slice, op_name: str) -> Array:
    """A slice's values as JAX's grids read them: its bounds must be concrete, a missing start
    is 0 and a missing stop is passed on to arange (so mgrid[3:] counts to 3)."""
    start, stop, step = (_concrete(v, f"slice {what} of jnp.{op_name}") for v, what in
                         ((s.start, "start"), (s.stop, "stop"), (s.step, "step")))
    start = start or 0
    step = step or 1
    if np.iscomplex(step):
        return linspace(start, stop, int(abs(step)), endpoint=True)
    return arange(start, stop, step)


def _concrete(v: Any, context: str) -> Any:
    if isinstance(v, Tracer):
        value = v.to_concrete_value()
        if value is None:
            raise errors.ConcretizationTypeError(v, context + "\n")
        return value
    return v


class _Grid:
    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, key: Any) -> Any:
        name = "ogrid" if self.sparse else "mgrid"
        if isinstance(key, slice):
            return _slice_values(key, name)
        axes = [_slice_values(k, name) for k in key]
        if not axes:  # as in JAX: no grids (ogrid), or an empty int array (mgrid)
            return [] if self.sparse else arange(0)
        # The axes share a dtype by standard promotion whatever the option says, as in JAX.
        with numpy_dtype_promotion("standard"):
            dt = dtypes.result_type(*axes)
        axes = [lax.convert_element_type(a, dt) for a in axes]
        grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return grids
        return stack(grids, 0) if grids else ensure_array(np.zeros((0,), dt))


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


class _Concat:
    """r_/c_: concatenate slices, scalars and arrays along an axis, with NumPy's string
    directives ('0,2,1' style) in the first position."""

    def __init__(self, axis: int, ndmin: int, trans1d: int) -> None:
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key: Any) -> Array:
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        matrix = None  # 'r' / 'c': a 1-d result becomes a row / a column (NumPy's matrix)
        parts = []
        for i, item in enumerate(key):
            if isinstance(item, str):
                if i != 0:
                    raise ValueError("string directive must be placed at the beginning")
                if item in ("r", "c"):
                    matrix = 0 if item == "r" else 1
                    continue
                try:
                    vals = [int(v) for v in item.split(",")]
                except ValueError:
                    raise ValueError(f"could not understand directive {item!r}") from None
                axis = vals[0]
                if len(vals) > 1:
                    ndmin = vals[1]
                if len(vals) > 2:
                    trans1d = vals[2]
                continue
            if isinstance(item, slice):
                arr = _slice_values(item, "c_" if self.trans1d == 0 else "r_")
            else:
                arr = array(item, copy=False)
            nd = get_aval(arr).ndim
            if nd < ndmin:
                arr = lax.broadcast_to_rank(arr, ndmin)
                if trans1d != -1 and nd == 1:
                    arr = moveaxis(arr, -1, trans1d)
            parts.append(arr)
        if not parts:
            return array([])
        out = concatenate(parts, axis)
        if matrix is not None and get_aval(out).ndim == 1:
            out = lax.expand_dims(out, (matrix,))
        return out


r_ = _Concat(0, 1, -1)
c_ = _Concat(-1, 2, 0)


def astype(x: Array, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Array:
    """`x` converted to `dtype`. Complex values become True where either part is nonzero (lax's
    conversion reads the real part only), and casting them to a real type warns, as JAX's.
    A dtype of None is the default float type, as in JAX (NumPy's reading of None)."""
    if dtype is None:
        dtype = dtypes.default_float_dtype()
    dtypes.check_user_dtype_supported(dtype, "astype")
    x = ensure_array(x, "astype")
    if dtypes.issubdtype(get_aval(x).dtype, np.complexfloating):
        target = np.dtype(dtypes.canonicalize_dtype(dtype))
        if target == np.bool_:
            x = lax.ne(x, lax_const(x, 0))
        elif not dtypes.issubdtype(target, np.complexfloating):
            warnings.warn(
                "Casting from complex to real dtypes will soon raise a ValueError. Please "
                "first use jnp.real or jnp.imag to take the real/imaginary component of your "
                "input.", DeprecationWarning, stacklevel=2)
    out = lax.convert_element_type(x, dtype)
    if not copy:
        return out
    # JAX copies the converted value (a concrete one into buffers of its own).
    return copied(out) if isinstance(out, ArrayImpl) else copy_p.bind(out)


def array_repr(arr: Any, max_line_width: int | None = None, precision: int | None = None,
               suppress_small: bool | None = None) -> str:
    return repr(arr)


def array_str(a: Any, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    return np.array_str(np.asarray(a), max_line_width, precision, suppress_small)


printoptions = np.printoptions
get_printoptions = np.get_printoptions
set_printoptions = np.set_printoptions


def save(file: Any, arr: Any, allow_pickle: bool = True) -> None:
    """np.save of the array's value."""
    np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file: Any, *args: Any, **kwds: Any) -> None:
    arrays: dict[str, Any] = {k: np.asarray(v) for k, v in kwds.items()}
    np.savez(file, *[np.asarray(a) for a in args], **arrays)


def load(*args: Any, **kwargs: Any) -> Any:
    """np.load, with arrays turned into numjax Arrays; an array of a type numjax does not
    hold (strings) stays a NumPy array, as in JAX.

    NumPy does not know bfloat16 and writes it as two raw bytes (`V2`): those are read back
    as bfloat16, as JAX reads them.
    """
    out = np.load(*args, **kwargs)
    if not isinstance(out, np.ndarray):
        return out
    if out.dtype == np.dtype("V2"):
        out = out.view(dtypes.bfloat16)
    try:
        return asarray(out)
    except TypeError:
        return out


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    return array(np.from_dlpack(x))


transfer_guard.entry_points(globals())

"""`jnp.ufunc` and `jnp.frompyfunc`: NumPy's ufunc methods for any scalar function.

A ufunc wraps a function of `nin` scalars. Calling it maps the function over broadcast
arrays (`jnp.vectorize`); the methods of binary single-output ufuncs loop the function with
`lax.scan`, so every method works under jit, vmap and grad. As in JAX 0.4.30, a function
that traces to a single `add` or `mul` reduces and accumulates through `jnp.sum`/`jnp.prod`
and `jnp.cumsum`/`jnp.cumprod` instead of a loop. The built-in `jnp.add` etc. are plain
functions, not ufunc instances, in 0.4.30 (they became ufuncs in JAX 0.4.32).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.control_flow.common import trace_fun
from numjax._src.control_flow.loops import scan
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Primitive, Tracer
from numjax._src.lax import lax
from numjax._src.lax.elementwise import add_p, mul_p
from numjax._src.numpy import reductions, statistics
from numjax._src.numpy.lax_numpy import where as _where
from numjax._src.numpy.selection import take, vectorize
from numjax._src.numpy.shape import broadcast_to, concatenate, moveaxis, ravel, reshape
from numjax._src.numpy.util import canonicalize_axis, check_arraylike, ensure_array
from numjax._src.runtime.array import ArrayImpl
from numjax._src.tree_util import tree_flatten
from numjax._src.typing import Array

# JAX 0.4.30's message, kept verbatim so that code matching on it keeps working.
_AT_INPLACE_MESSAGE = """\
Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like
np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.
>>> arr = jnp.add.at(arr, ind, val, inplace=False)
"""

# Single primitives with a dedicated reduction / cumulative reduction (JAX has the same two).
_REDUCERS: dict[Primitive, Callable[..., Array]] = {add_p: reductions.sum,
                                                    mul_p: reductions.prod}
_ACCUMULATORS: dict[Primitive, Callable[..., Array]] = {add_p: statistics.cumsum,
                                                        mul_p: statistics.cumprod}


def _scalar_trace(func: Callable[..., Any], *args: Array) -> ClosedJaxpr:
    """`func` traced on scalars of the dtypes of `args` (the elementwise signature)."""
    avals = [ShapedArray((), get_aval(x).dtype, get_aval(x).weak_type) for x in args]
    _, in_tree = tree_flatten(tuple(range(len(args))))
    return trace_fun(func, in_tree, avals, "jnp.ufunc").closed


def _single_primitive(func: Callable[..., Any], *args: Array) -> Primitive | None:
    """The primitive `func` is on scalars of the dtypes of `args`, if it is exactly one."""
    try:
        closed = _scalar_trace(func, *args)
    except Exception:  # a function that cannot trace on scalars has no fast path
        return None
    jaxpr = closed.jaxpr
    if jaxpr.constvars or len(jaxpr.eqns) != 1:
        return None
    eqn = jaxpr.eqns[0]
    if list(eqn.invars) != list(jaxpr.invars) or list(eqn.outvars) != list(jaxpr.outvars):
        return None
    return eqn.primitive


def _cast(x: Array, dtype: Any) -> Array:
    return lax._convert_element_type(x, dtype, False)


def _index_shape(i: Any) -> tuple[int, ...]:
    if isinstance(i, ArrayImpl | Tracer):
        return tuple(get_aval(i).shape)
    return tuple(np.shape(i))


def _index_tuple(indices: Any) -> tuple[Any, ...]:
    if isinstance(indices, tuple):
        return indices
    if isinstance(indices, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/google/jax/issues/4564 for more information.")
    return (indices,)


class ufunc:
    """A function of `nin` scalars applied elementwise, with NumPy's ufunc methods.

    `reduce`, `accumulate`, `reduceat` and `outer` need `nin == 2` and `nout == 1`;
    `at` needs `inplace=False` because arrays are immutable.

    >>> import numjax.numpy as jnp
    >>> hypot = jnp.ufunc(lambda x, y: jnp.sqrt(x * x + y * y), 2, 1, name="hypot")
    >>> hypot
    <jnp.ufunc 'hypot'>
    >>> hypot(jnp.array([3.0, 6.0]), jnp.array([4.0, 8.0]))
    Array([ 5., 10.], dtype=float32)
    >>> hypot.reduce(jnp.array([3.0, 4.0, 12.0]))
    Array(13., dtype=float32)
    """

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *,
                 name: str | None = None, nargs: int | None = None, identity: Any = None,
                 update_doc: bool = False) -> None:
        if update_doc:
            self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # Read-only behind properties: a ufunc is hashed as a static jit argument, so the
        # fields its hash covers must not change after construction.
        self.__props = {
            "func": func,
            "call": vectorize(func),
            "nin": operator.index(nin),
            "nout": operator.index(nout),
            "nargs": operator.index(nargs or nin),
            "identity": identity,
        }

    _func = property(lambda self: self.__props["func"])
    _call = property(lambda self: self.__props["call"])
    nin = property(lambda self: self.__props["nin"], doc="Number of inputs.")
    nout = property(lambda self: self.__props["nout"], doc="Number of outputs.")
    nargs = property(lambda self: self.__props["nargs"], doc="Number of arguments.")
    identity = property(lambda self: self.__props["identity"],
                        doc="The identity of the operation, or None.")

    def _key(self) -> tuple[Any, ...]:
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None,
                 **kwargs: Any) -> Any:
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return self._call(*args, **kwargs)

    def _require_binary(self, method: str) -> None:
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def _result_dtype(self, *args: Array) -> Any:
        return _scalar_trace(self._func, *args).out_avals[0].dtype

    def reduce(self, a: Any, axis: Any = 0, dtype: Any = None, out: None = None,
               keepdims: bool = False, initial: Any = None, where: Any = None) -> Array:
        """Combine the elements of `a` along `axis` (all axes when None) with the function.

        >>> import operator, numjax.numpy as jnp
        >>> add = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)
        >>> add.reduce(jnp.arange(6).reshape(2, 3), axis=1)
        Array([ 3, 12], dtype=int32)
        """
        name = f"{self.__name__}.reduce"
        check_arraylike(name, a)
        self._require_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {name}()")
        if initial is not None:
            check_arraylike(name, initial)
        if where is not None:
            check_arraylike(name, where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify "
                                 "'initial'.")
            where_dtype = get_aval(ensure_array(where)).dtype
            if where_dtype != np.bool_:
                raise ValueError(f"where argument must have dtype=bool; got dtype={where_dtype}")
        a = ensure_array(a)
        reducer = _REDUCERS.get(_single_primitive(self._func, a, a))  # type: ignore[arg-type]
        if reducer is not None:
            return reducer(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial,
                           where=where)
        return self._reduce_via_scan(a, axis, dtype, keepdims, initial, where)

    def _reduce_via_scan(self, a: Array, axis: Any, dtype: Any, keepdims: bool,
                         initial: Any, where: Any) -> Array:
        shape = tuple(get_aval(a).shape)
        ndim = len(shape)
        if initial is None:
            initial = self.identity
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.canonicalize_dtype(dtype)
        if where is not None:
            where = broadcast_to(where, shape)
        if isinstance(axis, tuple):
            for ax in axis:
                canonicalize_axis(ax, ndim)
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * ndim if keepdims else ()
            a = ravel(a)
            where = None if where is None else ravel(where)
            axis = 0
        else:
            axis = canonicalize_axis(axis, ndim)
            final_shape = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
        a = _cast(moveaxis(a, axis, 0), dtype)
        if initial is None and get_aval(a).shape[0] == 0:
            raise ValueError(f"zero-size array to reduction operation {self.__name__} which "
                             "has no identity")

        if initial is None:
            # No identity: start from the first element (where is None here: a mask needs
            # an identity or an initial value, checked in reduce).
            start, xs = a[0], a[1:]
        else:
            start = broadcast_to(_cast(ensure_array(initial), dtype), get_aval(a).shape[1:])
            xs = a if where is None else (a, moveaxis(where, axis, 0))

        def step(carry: Array, x: Any) -> tuple[Array, None]:
            if where is None:
                return _cast(self._call(carry, x), dtype), None
            x, keep = x
            return _where(keep, _cast(self._call(carry, x), dtype), carry), None

        result, _ = scan(step, start, xs)
        return reshape(result, final_shape)

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Array:
        """The running reduction of `a` along `axis`.

        >>> import numjax.numpy as jnp
        >>> jnp.frompyfunc(jnp.maximum, 2, 1).accumulate(jnp.array([1, 3, 2, 5]))
        Array([1, 3, 3, 5], dtype=int32)
        """
        self._require_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        check_arraylike(f"{self.__name__}.accumulate", a)
        a = ensure_array(a)
        accumulator = _ACCUMULATORS.get(_single_primitive(self._func, a, a))  # type: ignore[arg-type]
        if accumulator is not None:
            return accumulator(a, axis=axis, dtype=dtype)
        return self._accumulate_via_scan(a, axis, dtype)

    def _accumulate_via_scan(self, a: Array, axis: Any, dtype: Any) -> Array:
        dtype = self._result_dtype(a, a) if dtype is None else dtypes.canonicalize_dtype(dtype)
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonicalize_axis(axis, get_aval(a).ndim)
        a = _cast(moveaxis(a, axis, 0), dtype)
        if get_aval(a).shape[0] == 0:
            return moveaxis(a, 0, axis)

        def step(carry: Array, x: Array) -> tuple[Array, Array]:
            y = _cast(self._call(carry, x), dtype)
            return y, y

        first = a[0]
        _, rest = scan(step, first, a[1:])
        result = concatenate([first[None], rest], 0)
        return moveaxis(result, 0, axis)

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Array:
        """A copy of `a` with the function applied at `indices` (with `b` for binary
        ufuncs); repeated indices apply it repeatedly, as `np.ufunc.at` does. Arrays are
        immutable, so `inplace=False` is required.

        >>> import numjax.numpy as jnp
        >>> add = jnp.frompyfunc(jnp.add, 2, 1, identity=0)
        >>> add.at(jnp.zeros(4), jnp.array([0, 2, 0]), 1.0, inplace=False)
        Array([2., 0., 1., 0.], dtype=float32)
        """
        if inplace:
            raise NotImplementedError(_AT_INPLACE_MESSAGE)
        args = () if b is None else (b,)
        check_arraylike(f"{self.__name__}.at", a, *args)
        a, *arrays = (ensure_array(x) for x in (a, *args))
        dtype = self._result_dtype(a, *arrays)
        a = _cast(a, dtype)
        values = [_cast(x, dtype) for x in arrays]
        # An empty index tuple selects the whole array, as in NumPy (JAX 0.4.30 returns `a`
        # unchanged there, dropping the update).
        index = _index_tuple(indices)
        shapes = [_index_shape(i) for i in index if not isinstance(i, slice)]
        shape = tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        if not shape:
            return a.at[index].set(self._call(a.at[index].get(), *values))

        # Array indices: one scan step per (broadcast) index, so repeated indices accumulate
        # (unbuffered, like np.ufunc.at) instead of the last write winning.
        n = math.prod(shape)
        if values:
            trailing = tuple(get_aval(values[0]).shape[len(shape):])
            values = [reshape(broadcast_to(values[0], shape + trailing), (n, *trailing))]
        positions = [k for k, i in enumerate(index) if not isinstance(i, slice)]
        flat = [ravel(broadcast_to(ensure_array(index[k]), shape)) for k in positions]

        def step(carry: Array, xs: tuple[list[Array], list[Array]]) -> tuple[Array, None]:
            idx_values, vals = xs
            idx = list(index)
            for k, i in zip(positions, idx_values, strict=True):
                idx[k] = i
            where_ = tuple(idx)
            return carry.at[where_].set(self._call(carry.at[where_].get(), *vals)), None

        result, _ = scan(step, a, (flat, values))
        return result

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None,
                 out: None = None) -> Array:
        """Reductions over the slices `a[indices[i]:indices[i + 1]]` along `axis` (the last
        slice runs to the end; where `indices[i] >= indices[i + 1]` the result is
        `a[indices[i]]`).

        >>> import numjax.numpy as jnp
        >>> add = jnp.frompyfunc(jnp.add, 2, 1, identity=0)
        >>> add.reduceat(jnp.arange(8), jnp.array([0, 4, 1, 5]))
        Array([ 6,  4, 10, 18], dtype=int32)
        """
        self._require_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a = ensure_array(a)
        (idx,) = _index_tuple(indices)
        idx = ensure_array(idx)
        if get_aval(a).ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got "
                             f"a.shape={tuple(get_aval(a).shape)}")
        if get_aval(idx).ndim != 1:
            raise ValueError(f"reduceat: indices must be one-dimensional, got "
                             f"indices.shape={tuple(get_aval(idx).shape)}")
        if dtype is not None:
            a = _cast(a, dtypes.canonicalize_dtype(dtype))
        if axis is None or isinstance(axis, tuple | list):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonicalize_axis(axis, get_aval(a).ndim)
        a = moveaxis(a, axis, 0)
        n = get_aval(a).shape[0]
        out_ = take(a, idx, axis=0)
        # Row i of `a` joins result j when starts[j] < i < ends[j]: the slice's first row is
        # the take above, and an empty or reversed slice never matches.
        ends = concatenate([idx[1:], ensure_array(np.array([n], get_aval(idx).dtype))], 0)
        bcast = (-1,) + (1,) * (get_aval(a).ndim - 1)
        starts, ends = reshape(idx, bcast), reshape(ends, bcast)

        def step(carry: Array, xs: tuple[Array, Array]) -> tuple[Array, None]:
            i, row = xs
            joined = self._call(carry, row[None])
            return _where((i > starts) & (i < ends), joined, carry), None

        result, _ = scan(step, out_, (lax.iota(get_aval(idx).dtype, n), a))
        return moveaxis(result, 0, axis)

    def outer(self, A: Any, B: Any, /, **kwargs: Any) -> Array:
        """The function on every pair of elements of `A` and `B`: the result has shape
        `A.shape + B.shape`.

        >>> import numjax.numpy as jnp
        >>> jnp.frompyfunc(jnp.multiply, 2, 1).outer(jnp.arange(1, 3), jnp.arange(1, 4))
        Array([[1, 2, 3],
               [2, 4, 6]], dtype=int32)
        """
        self._require_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        A, B = ensure_array(A), ensure_array(B)
        shape_a, shape_b = tuple(get_aval(A).shape), tuple(get_aval(B).shape)
        # Broadcasting A's trailing unit axes against B is the outer product of the map.
        return self._call(reshape(A, shape_a + (1,) * len(shape_b)), B, **kwargs)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *,
               identity: Any = None) -> ufunc:
    """A `jnp.ufunc` from a function of `nin` scalars returning `nout` values.

    >>> import operator, numjax.numpy as jnp
    >>> mul = jnp.frompyfunc(operator.mul, nin=2, nout=1, identity=1)
    >>> x = jnp.arange(1, 5)
    >>> mul(x, 2)
    Array([2, 4, 6, 8], dtype=int32)
    >>> mul.reduce(x), mul.accumulate(x)
    (Array(24, dtype=int32), Array([ 1,  2,  6, 24], dtype=int32))
    >>> mul.at(x, 0, 10, inplace=False)
    Array([10,  2,  3,  4], dtype=int32)
    """
    return ufunc(func, nin, nout, identity=identity, update_doc=True)

"""Rule helpers shared by lax primitives: the common shapes of abstract eval and kernels."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.core.avals import ShapedArray
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching

# Dtype classes accepted by elementwise primitives, as JAX names them in its errors.
_BOOL = (np.bool_,)
_INT = (np.integer,)
_FLOAT = (np.floating,)
_COMPLEX = (np.complexfloating,)
# Every array dtype, named as JAX's errors name it (max/min of keys: 'integer, bool_, ...').
ANY = _INT + _BOOL + _COMPLEX + _FLOAT
NUMBER = (np.number,)
FLOAT = _FLOAT
FLOAT_OR_COMPLEX = _FLOAT + _COMPLEX
INT = _INT
INT_OR_BOOL = _INT + _BOOL
SIGNED_OR_FLOAT_OR_COMPLEX = _FLOAT + _COMPLEX + (np.signedinteger,)
# The numeric types of arithmetic (np.number), spelled out as JAX's errors list them.
NUMERIC = _INT + _COMPLEX + _FLOAT
NUMBER_NOT_COMPLEX = _INT + _FLOAT
# In the order JAX names them in its errors ("subtypes of integer, bool, floating").
ANY_NOT_COMPLEX = _INT + _BOOL + _FLOAT

_TYPE_NAMES = {np.bool_: "bool_", np.number: "number", np.integer: "integer",
               np.floating: "floating", np.complexfloating: "complexfloating",
               np.signedinteger: "signedinteger", np.unsignedinteger: "unsignedinteger"}


# (dtype, accepted classes) pairs already found acceptable: abstract evaluation checks every
# operand of every traced equation, and issubdtype over a few classes costs microseconds.
_accepted: set[tuple[Any, Any]] = set()


_FLOAT0_MESSAGE = (
    "float0s do not support any operations by design, because they are not compatible with "
    "non-trivial vector spaces. No implicit dtype conversion is done. You can use "
    "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular zeros array. \n"
    "If you didn't expect to get a float0 you might have accidentally taken a gradient with "
    "respect to an integer argument.")


def check_dtype(name: str, dtype: np.dtype, accepted: Sequence[type],
                position: int | None = None) -> None:
    """TypeError unless `dtype` is a subtype of one of `accepted`; an n-ary operation's
    message names the operand's `position`, as JAX's does."""
    key = (dtype, accepted)
    if key in _accepted:
        return
    if any(dtypes.issubdtype(dtype, t) for t in accepted):
        _accepted.add(key)
    elif dtype == dtypes.float0:
        where = "float0 array" if position is None else f"float0 at position {position}"
        raise TypeError(f"Called {name} with a {where}. " + _FLOAT0_MESSAGE)
    else:
        names = ", ".join(_TYPE_NAMES.get(t, t.__name__) for t in accepted)
        if position is None:
            raise TypeError(f"{name} does not accept dtype {dtype.name}. Accepted dtypes are "
                            f"subtypes of {names}.")
        raise TypeError(f"{name} does not accept dtype {dtype.name} at position {position}. "
                        f"Accepted dtypes at position {position} are subtypes of {names}.")


def broadcast_shapes(name: str, shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """lax's broadcasting: equal ranks (0-d operands broadcast), dims equal or 1."""
    if shapes and all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])
    nonscalar = [s for s in shapes if s]
    if not nonscalar:
        return ()
    rank = len(nonscalar[0])
    if any(len(s) != rank for s in nonscalar):
        listed = ", ".join(str(s) for s in shapes)
        raise TypeError(f"{name}: arrays must have same number of dimensions, got {listed}.")
    out = []
    for dims in zip(*nonscalar, strict=True):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            listed = ", ".join(str(s) for s in shapes)
            raise TypeError(f"{name} got incompatible shapes for broadcasting: {listed}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


# The jnp function doing the same with promotion, where its name is not the lax one.
_JNP_NAMES = {"sub": "subtract", "mul": "multiply", "div": "divide", "rem": "remainder",
              "pow": "power", "max": "maximum", "min": "minimum", "eq": "equal",
              "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
              "ge": "greater_equal", "and": "bitwise_and", "or": "bitwise_or",
              "xor": "bitwise_xor", "shift_left": "left_shift",
              "shift_right_arithmetic": "right_shift"}


def elementwise_abstract_eval(name: str, accepted: Sequence[Sequence[type]],
                              result_dtype: Callable[[np.dtype], Any] | None = None
                              ) -> Callable[..., ShapedArray]:
    """Abstract eval for an n-ary elementwise primitive: operands of one dtype (each from its
    `accepted` classes), broadcastable shapes; weak iff all operands are weak."""

    def rule(*avals: ShapedArray, **params: Any) -> ShapedArray:
        dtype = avals[0].dtype
        for i, (aval, ok) in enumerate(zip(avals, accepted, strict=True)):
            check_dtype(name, aval.dtype, ok, i if len(avals) > 1 else None)
        if any(a.dtype != dtype for a in avals[1:]):
            # JAX 0.4.30 does not compare an elementwise operation's operand dtypes when it
            # traces one (lax.add(float32 array, 3) or of an int32 array is a jaxpr): the
            # mismatch is found when XLA verifies the program. numjax finds it here.
            got = ", ".join(a.dtype.name for a in avals)
            raise ValueError(
                "Cannot lower jaxpr with verifier errors:\n\t"
                f"'{name}' requires the same element type for all operands, got {got} (jnp."
                f"{_JNP_NAMES.get(name, name)} promotes its operands to one dtype; a Python "
                "scalar is typed as its default dtype)")
        shape = avals[0].shape if len(avals) == 1 else broadcast_shapes(
            name, [a.shape for a in avals])
        out_dtype = dtype if result_dtype is None else np.dtype(result_dtype(dtype))
        # Comparisons of weak operands give a weak bool, as in JAX (`lax.eq(2.0, 3.0)`).
        weak = all(a.weak_type for a in avals)
        return ShapedArray(shape, out_dtype, weak)

    return rule


def upcast_kernel(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A kernel computed in at least float32: for SciPy functions that lack float16/bfloat16."""

    def kernel(*args: Any) -> Any:
        dtype = np.result_type(*[np.asarray(a).dtype for a in args])
        if dtype.itemsize < 4 and dtype.kind == "f" or dtype in (
                np.dtype(dtypes.bfloat16),):
            out = fn(*[np.asarray(a, np.float32) for a in args])
            return np.asarray(out).astype(dtype)
        return fn(*args)

    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return kernel


HALF_FLOATS = frozenset((np.dtype(np.float16), np.dtype(dtypes.bfloat16)))


def def_accumulating_kernel(p: Primitive, kernel: Callable[..., Any]) -> None:
    """Register `kernel` (one operand, params as keywords) as p's NumPy kernel, float16 and
    bfloat16 operands accumulated in float32 with each result rounded once.

    XLA:CPU computes bfloat16 arithmetic in float32 and drops the roundings in between, so its
    bfloat16 sums, products and running sums are the float32 ones rounded once: JAX's values.
    float16 it accumulates in float16, in an order its vectorizer picks for the host CPU;
    float32 accumulation keeps those results within rounding of the exact ones (a float16
    running sum of ones does not stall at 2048) and gives the same bits on every CPU."""

    def upcast(x: Any, **params: Any) -> Any:
        x = np.asarray(x)
        if x.dtype in HALF_FLOATS:
            return np.asarray(kernel(x.astype(np.float32), **params)).astype(x.dtype)
        return kernel(x, **params)

    def factory(in_avals: Sequence[ShapedArray], **params: Any) -> Callable[..., Any]:
        chosen = upcast if in_avals[0].dtype in HALF_FLOATS else kernel
        return functools.partial(chosen, **params) if params else chosen

    p.def_impl(upcast)
    p.def_kernel_factory(factory)


def refuse_extended_operands(name: str, accepted: Sequence[Sequence[type]]
                              ) -> Callable[[Sequence[Any]], None]:
    """The dtype error for operands of an extended dtype (typed keys, which are no arrays to
    the primitive machinery), operand by operand as JAX's dtype rule checks them: lax.lt of
    two keys is 'lt does not accept dtype key<fry> at position 0. ...'."""
    def check(args: Sequence[Any]) -> None:
        if not any(isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType) for x in args):
            return
        for i, (x, acc) in enumerate(zip(args, accepted, strict=False)):
            dtype: Any = getattr(x, "dtype", None)
            if dtype is not None:
                if not isinstance(dtype, dtypes.ExtendedDType):
                    dtype = np.dtype(dtype)
                check_dtype(name, dtype, acc, None if len(accepted) == 1 else i)
    return check


def elementwise_primitive(name: str, kernel: Callable[..., Any],
                          accepted: Sequence[Sequence[type]],
                          result_dtype: Callable[[np.dtype], Any] | None = None) -> Primitive:
    """A standard elementwise primitive: NumPy kernel, abstract eval, vectorized batching and a
    ufunc lowering the compiler can fuse."""
    p = Primitive(name)
    p.def_impl(kernel)
    p.def_abstract_eval(elementwise_abstract_eval(name, accepted, result_dtype))
    p.operand_check = refuse_extended_operands(name, accepted)
    p.def_batch(batching.vectorized_batch(p))
    p.def_lowering(ufunc_lowering(kernel))
    return p


def unary(name: str, kernel: Callable[..., Any], accepted: Sequence[type],
          result_dtype: Callable[[np.dtype], Any] | None = None, *,
          jvp: Callable[..., Any] | None = None, uses_output: bool = False) -> Primitive:
    """A standard elementwise primitive of one operand; `jvp`, if given, is its derivative
    rule as `ad.defjvp` takes it (`rule(t, x)`, or `rule(t, ans, x)` with `uses_output`)."""
    p = elementwise_primitive(name, kernel, [accepted], result_dtype)
    if jvp is not None:
        ad.defjvp(p, jvp, uses_output=uses_output)
    return p


def binary(name: str, kernel: Callable[..., Any], accepted: Sequence[type],
           result_dtype: Callable[[np.dtype], Any] | None = None, *,
           jvp: tuple[Callable[..., Any] | None, Callable[..., Any] | None] | None = None,
           uses_output: bool = False) -> Primitive:
    """A standard elementwise primitive of two operands; `jvp`, if given, is its derivative
    rules, one per operand, as `ad.defjvp` takes them (`rule(t, x, y)`, or
    `rule(t, ans, x, y)` with `uses_output`)."""
    p = elementwise_primitive(name, kernel, [accepted, accepted], result_dtype)
    if jvp is not None:
        ad.defjvp(p, *jvp, uses_output=uses_output)
    return p


def to_bool(dtype: np.dtype) -> np.dtype:
    return np.dtype(bool)


def to_real(dtype: np.dtype) -> np.dtype:
    """complex64 -> float32, complex128 -> float64; real dtypes unchanged."""
    if dtype.kind == "c":
        return np.dtype(np.float32) if dtype.itemsize == 8 else np.dtype(np.float64)
    return dtype


def canonical_axes(name: str, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(out)

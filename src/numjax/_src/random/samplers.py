"""The samplers of `jax.random` 0.4.30, with JAX's algorithms so that results match bit for bit.

Every sampler turns random bits from its key's implementation (`keys.random_bits`: threefry,
rbg or unsafe_rbg) into values with lax and jnp operations, so each one traces, jits, vmaps
(over keys and parameters) and differentiates (reparameterized samplers) like ordinary numjax
code.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config as _config
from numjax._src import dtypes
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.api.transformations import vmap
from numjax._src.control_flow import loops
from numjax._src.control_flow.loops import while_loop
from numjax._src.core import errors
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Trace, Tracer, current_trace
from numjax._src.dtypes import result_type
from numjax._src.interpreters import batching
from numjax._src.lax import lax, rules, special
from numjax._src.lax.structural import invalid_shape_error, operator_index
from numjax._src.numpy.creation import arange, array, asarray, full_like, zeros, zeros_like
from numjax._src.numpy.creation import full as jnp_full
from numjax._src.numpy.einsum import einsum
from numjax._src.numpy.lax_numpy import clip
from numjax._src.numpy.linalg import cholesky, eigh, qr, svd
from numjax._src.numpy.matrices import diagonal
from numjax._src.numpy.reductions import any as jnp_any
from numjax._src.numpy.reductions import argmax
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.selection import take
from numjax._src.numpy.shape import broadcast_to
from numjax._src.numpy.sorting import argsort, searchsorted
from numjax._src.numpy.statistics import cumsum
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import ceil, floor, isinf, multiply, sqrt, true_divide
from numjax._src.random import prng, xla_math
from numjax._src.random.keys import PRNGKeyArray, check_prng_key, random_bits, random_split
from numjax._src.runtime import transfer_guard
from numjax._src.typing import Array

Shape = Sequence[int]


# ---- helpers --------------------------------------------------------------------------------


def _canon_shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple of ints; JAX's TypeError for traced or non-integer
    entries (a shape under jit must be static)."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(operator_index(d) for d in shape)
    except TypeError:
        raise invalid_shape_error(tuple(shape) if isinstance(shape, list) else shape) from None


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    if param_shapes:
        shape_ = _broadcast_shapes(shape, *param_shapes)
        if tuple(shape) != shape_:
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and "
                "the result of broadcasting the shapes must equal the shape argument, but got "
                f"result {shape_} for shape argument {tuple(shape)}.")


def _broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: shapes="
                         f"{[tuple(s) for s in shapes]}") from None


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape)


def _float_dtype(name: str, dtype: Any, kinds: Any = np.floating,
                 what: str = "a float dtype") -> np.dtype:
    dtypes.check_user_dtype_supported(dtype)
    if not dtypes.issubdtype(dtype, kinds):
        raise ValueError(f"dtype argument to `{name}` must be {what}, got {dtype}")
    return dtypes.canonicalize_dtype(dtype)


def _const(dtype: Any, value: Any) -> np.ndarray:
    return np.array(value, dtype)


def _folded(*xs: Any) -> bool:
    """Whether XLA would see the sampler parameters `xs` as compile-time constants.

    JAX's samplers are jitted functions taking their parameters as arguments: called eagerly
    (or under vmap alone) a parameter is a runtime value, but inside an outer jit a Python or
    concrete parameter becomes a constant of the compiled program. XLA then folds operations
    on it with its evaluator (libm's accurate functions, true division) and rewrites a division
    by it into a product with its rounded reciprocal, which changes the draws' last bits:
    truncated_normal(-1.5, 2.0) under jit differs from eager JAX in 25 of 35 draws.
    """
    if any(isinstance(x, Tracer) for x in xs):
        return False
    trace: Trace | None = current_trace()
    while trace is not None:
        if trace.stages:
            return True
        trace = trace.parent
    return False


def _constant_divisor(x: Any, dtype: np.dtype) -> bool:
    """Whether XLA rewrites a division by the sampler parameter `x` into a product with its
    rounded reciprocal: `x` is a constant (`_folded`) already of the sampler's `dtype`.

    A constant of another dtype reaches the division through a conversion, which XLA's
    simplifier sees before constant folding removes it, so the division stays (under x64 a
    Python float is a float64 constant: float32 f(3.0, 4.0) under jit is then
    (chi2_n * 4) / (3 * chi2_d), 16 of 35 draws an ulp off the reciprocal products).
    """
    return _folded(x) and dtypes.dtype(x, canonicalize=True) == dtype


def _reciprocal(dtype: np.dtype, x: Any) -> np.ndarray:
    """`1 / x` rounded to `dtype`, as XLA folds it."""
    return np.asarray(_const(dtype, 1) / np.asarray(x, dtype))


def _split(key: Array, num: int = 2) -> list[Array]:
    keys = random_split(key, (num,))
    return [keys._wrap(lax.index_in_dim(keys._base, i, keepdims=False)) for i in range(num)]


# ---- bits and uniform -----------------------------------------------------------------------


def bits(key: Any, shape: Shape = (), dtype: Any = None) -> Array:
    """Uniform random bits as unsigned integers (uint32 by default; uint64 with x64).

    >>> from numjax import random
    >>> random.bits(random.PRNGKey(0), (2,))
    Array([ 928981903, 3453687069], dtype=uint32)
    """
    raw, _ = check_prng_key("bits", key)
    if dtype is None:
        dt = dtypes.default_uint_dtype()
    else:
        dtypes.check_user_dtype_supported(dtype)
        if not dtypes.issubdtype(dtype, np.unsignedinteger):
            raise ValueError("dtype argument to `bits` must be an unsigned int dtype, "
                             f"got {dtype}")
        dt = dtypes.canonicalize_dtype(dtype)
    return random_bits(raw, dt.itemsize * 8, _canon_shape(shape))


def _uniform_bits_as_float(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    """Floats in [1, 2) whose mantissas are random bits."""
    finfo = dtypes.finfo(dtype)
    nbits, nmant = int(finfo.bits), int(finfo.nmant)
    if nbits not in (8, 16, 32, 64):
        # JAX's text, sic: no space in "dtypesgot".
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
    rng_bits = 8 if nmant < 8 else nbits
    uint_dtype = prng.UINT_DTYPES[nbits]
    bits_ = random_bits(raw, rng_bits, shape)
    if rng_bits != nbits:
        bits_ = lax.convert_element_type(bits_, uint_dtype)
    # Random mantissa bits under the exponent of 1.0 give a float uniform in [1, 2).
    one_bits = np.array(1.0, dtype).view(uint_dtype)
    float_bits = lax.bitwise_or(
        lax.shift_right_logical(bits_, np.array(rng_bits - nmant, uint_dtype)), one_bits)
    return lax.reshape(lax.bitcast_convert_type(float_bits, dtype), shape)


def _uniform(raw: Array, shape: tuple[int, ...], dtype: np.dtype, minval: Any,
             maxval: Any, constant_bounds: bool = False) -> Array:
    _check_shape("uniform", shape)
    if constant_bounds and np.array(maxval, dtype) - np.array(minval, dtype) == 1:
        # XLA folds the span to 1, drops `* 1` and reassociates (b - 1) + minval into
        # b + (minval - 1), folded in `dtype`: for float16 gumbel's minval (its tiny, 2^-14)
        # that rounds away, so its draws are max(tiny, b - 1) (b - 1 + tiny differed on 5%).
        lo = _const(dtype, minval)
        base = _uniform_bits_as_float(raw, shape, dtype)
        return lax.max(jnp_full(shape, lo), lax.add(base, jnp_full(shape, lo - _const(dtype, 1))))
    minval = lax.broadcast_to_rank(lax.convert_element_type(minval, dtype), len(shape))
    maxval = lax.broadcast_to_rank(lax.convert_element_type(maxval, dtype), len(shape))
    span = lax.sub(maxval, minval)
    if get_aval(span).ndim == len(shape):  # bounds that do not fit: JAX's error, its product's
        rules.broadcast_shapes("mul", [shape, get_aval(span).shape])
    floats = lax.sub(_uniform_bits_as_float(raw, shape, dtype), _const(dtype, 1.0))
    # XLA:CPU fuses this multiply-add (one rounding); so does xla_math.fma.
    scaled = xla_math.fma(floats, broadcast_to(span, shape), broadcast_to(minval, shape))
    return lax.max(minval, scaled)


def uniform(key: Any, shape: Shape = (), dtype: Any = float, minval: Any = 0.0,
            maxval: Any = 1.0) -> Array:
    """Uniform floats in `[minval, maxval)`.

    >>> from numjax import random
    >>> random.uniform(random.PRNGKey(0), (2,))
    Array([0.21629536, 0.8041241 ], dtype=float32)
    """
    raw, _ = check_prng_key("uniform", key)
    dt = _float_dtype("uniform", dtype)
    return _uniform(raw, _canon_shape(shape), dt, minval, maxval)


# ---- integers -------------------------------------------------------------------------------


def _convert_and_clip_integer(val: Array, dtype: np.dtype) -> Array:
    """Convert an integer array to `dtype`, clipping to its range instead of wrapping."""
    val = asarray(val)
    src = np.dtype(val.dtype)
    if src == dtype:
        return val
    if src.kind == "b":
        return lax.convert_element_type(val, dtype)
    lo = max(int(np.iinfo(dtype).min), int(np.iinfo(src).min))
    hi = min(int(np.iinfo(dtype).max), int(np.iinfo(src).max))
    clipped = lax.clamp(np.array(lo, src), val, np.array(hi, src))
    return lax.convert_element_type(clipped, dtype)


def randint(key: Any, shape: Shape, minval: Any, maxval: Any, dtype: Any = int) -> Array:
    """Uniform integers in `[minval, maxval)`.

    >>> from numjax import random
    >>> random.randint(random.PRNGKey(0), (3,), 0, 10)
    Array([8, 1, 7], dtype=int32)
    """
    raw, _ = check_prng_key("randint", key)
    dtypes.check_user_dtype_supported(dtype)
    dt = dtypes.canonicalize_dtype(dtype)
    shp = _canon_shape(shape)
    _check_shape("randint", shp, _shape_of(minval), _shape_of(maxval))
    if not dtypes.issubdtype(dt, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dt}")
    minval = asarray(minval)
    maxval = asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # maxval above dtype's range (e.g. 256 for uint8) means "up to and including dtype's max".
    maxval_out_of_range = lax.broadcast_to_rank(lax.gt(
        maxval, _convert_and_clip_integer(array(np.iinfo(dt).max, dt), maxval.dtype)),
        len(shp))
    minval = lax.broadcast_to_rank(_convert_and_clip_integer(minval, dt), len(shp))
    maxval = lax.broadcast_to_rank(_convert_and_clip_integer(maxval, dt), len(shp))
    nbits = np.iinfo(dt).bits
    k1, k2 = _split(raw)
    higher_bits = random_bits(k1, nbits, shp)
    lower_bits = random_bits(k2, nbits, shp)
    unsigned = prng.UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    span = lax.select(lax.le(maxval, minval), lax.full_like(span, 1), span)
    span = lax.select(lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)),
                      lax.add(span, np.array(1, unsigned)), span)
    # Two words of bits reduce the modulo bias: (hi * 2**nbits + lo) mod span, computed as
    # ((hi mod span) * (2**nbits mod span) + lo mod span) mod span without overflow.
    multiplier = lax.rem(lax.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier),
                     lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dt))


# ---- normal family --------------------------------------------------------------------------


def _normal_real(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    _check_shape("normal", shape)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    if dtype == dtypes.bfloat16:
        return _normal_bfloat16(raw, shape, lo)
    u = _uniform(raw, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(_const(dtype, np.sqrt(2)), xla_math.erf_inv(u))


def _normal_bfloat16(raw: Array, shape: tuple[int, ...], lo: np.ndarray) -> Array:
    """bfloat16 normal values, computed in float32 and rounded once (see `_uniform_wide`)."""
    return _narrow(_normal_wide(raw, shape, lo.dtype), lo.dtype)


def _normal_wide(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    """Real normal values for a sampler that goes on computing with them: for bfloat16 the
    float32 values before their rounding, as XLA:CPU keeps them in the sampler's one program
    (lognormal, rayleigh, maxwell: rounding them first differed from JAX 0.4.30 on 12-28% of
    the draws)."""
    if dtype != dtypes.bfloat16:
        return _normal_real(raw, shape, dtype)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform_wide(raw, shape, dtype, lo, 1.0)
    return lax.mul(_wide_const(dtype, np.sqrt(2)), xla_math.erf_inv(u))


def _wide_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype XLA:CPU computes `dtype`'s arithmetic in: float32 for bfloat16."""
    return np.dtype(np.float32) if dtype == dtypes.bfloat16 else dtype


def _wide_const(dtype: np.dtype, value: Any) -> np.ndarray:
    """A constant of `dtype` (rounded to it, as XLA folds it) in `_wide_dtype(dtype)`."""
    return np.array(np.array(value, dtype), _wide_dtype(dtype))


def _uniform_wide(raw: Array, shape: tuple[int, ...], dtype: np.dtype, minval: Any,
                  maxval: Any) -> Array:
    """`_uniform` with constant bounds, for a sampler that goes on computing with it.

    XLA:CPU folds a bfloat16 program's constants in bfloat16 (normal's span 1 - lo rounds to 2)
    and then runs its arithmetic in float32, dropping the bfloat16 rounding of every
    intermediate as excess precision; only the result is rounded (`_narrow`). So for bfloat16
    this returns float32 values; rounding after each operation differed from JAX 0.4.30 on
    30-80% of the draws of normal, logistic, cauchy and gumbel.
    """
    if dtype != dtypes.bfloat16:
        return _uniform(raw, shape, dtype, minval, maxval, constant_bounds=True)
    f32 = np.dtype(np.float32)
    # Mantissa bits under the exponent of 1.0, minus 1: exact in bfloat16 and in float32.
    floats = lax.convert_element_type(_uniform(raw, shape, dtype, 0.0, 1.0), f32)
    lo = _wide_const(dtype, minval)
    span = _wide_const(dtype, np.array(maxval, dtype) - np.array(minval, dtype))
    return lax.max(jnp_full(shape, lo), xla_math.fma(floats, jnp_full(shape, span),
                                                     jnp_full(shape, lo)))


def _wide_param(x: Any, dtype: np.dtype) -> Array:
    """A sampler parameter as XLA:CPU computes with it, in `_wide_dtype(dtype)`.

    For bfloat16 a compile-time constant (`_folded`) is folded to bfloat16 first; a runtime
    parameter (an argument of JAX's jitted sampler, called eagerly) is converted to bfloat16
    and back to float32 for the arithmetic, a pair XLA drops as excess precision, so it enters
    unrounded: eager rayleigh(scale=1.2) multiplies by float32 1.2, jitted by 1.203125.
    """
    if dtype != dtypes.bfloat16:
        return lax.convert_element_type(x, dtype)
    if _folded(x):
        return asarray(_wide_const(dtype, np.asarray(x)))
    return lax.convert_element_type(asarray(x), np.float32)


def _wide_param_expr(dtype: np.dtype, fn: Callable[..., Any], *params: Any) -> Array:
    """`fn` of sampler parameters, in `_wide_dtype(dtype)`: for bfloat16 constants XLA folds
    it in bfloat16, each operation rounded; runtime parameters it computes in float32."""
    if dtype == dtypes.bfloat16 and _folded(*params):
        return asarray(np.asarray(fn(*(np.asarray(p, dtype) for p in params)), np.float32))
    return fn(*(_wide_param(p, dtype) for p in params))


def _bits_transposed(raw: Array, shape: tuple[int, ...], single: bool = False) -> bool:
    """Whether XLA:CPU keeps one extra bfloat16 rounding inside a sampler drawing `shape`.

    JAX 0.4.30's original threefry layout makes 16-bit values by splitting each 32-bit word
    (a [2, words] array read transposed). When no slice interrupts that transpose (an element
    count divisible by 4, or 2 or 3 elements) XLA moves it into the sampler's float32
    arithmetic, and the physical transpose it finally needs separates a conversion to bfloat16
    from the conversion back, which then both stay: the value there is rounded. Where it lands
    depends on the sampler (measured on JAX's HLO); the partitionable layout has no transpose.
    A single draw is rounded there for some samplers (`single`: logistic and cauchy, where a
    reshape from the bits' [1, 1] takes the transpose's place).
    """
    if _config.threefry_partitionable.value or raw._impl is not prng.threefry_prng_impl:
        return False
    n = math.prod(shape)
    if isinstance(raw._base, batching.BatchTracer):
        return n % 4 == 0  # vmapped bits: the small counts' reshapes take other forms
    return n % 4 == 0 or n in (2, 3) or (n == 1 and single)


def _single_draw(shape: tuple[int, ...], raw: Array, *params: Any) -> bool:
    """Whether JAX's sampler runs as a one-element program: one draw, not under vmap (which
    batches the draws into a larger array). XLA:CPU folds and reassociates constants, and
    LLVM pairs independent scalar chains, in ways a larger array does not see."""
    if math.prod(shape) != 1 or isinstance(raw._base, batching.BatchTracer):
        return False
    return not any(isinstance(p, batching.BatchTracer) for p in params)


@dataclasses.dataclass(frozen=True, slots=True)
class _LibmCalls:
    """Which functions of a log-space gamma draw the C library computes, by XLA:CPU's choice.

    XLA:CPU replaces scalar and 4/8/16-lane float32 `llvm.log`/`llvm.exp` by its own
    polynomials (`xla_math.log`, `xla_math.exp`), but not the 2-lane calls LLVM's vectorizer
    makes when it pairs two independent scalar chains of a small program: those become calls
    of the host's `logf`/`expf` (`xla_math.libm_log`, ...). So do logs XLA folds with its
    evaluator. Read from JAX 0.4.30's optimized LLVM IR of a single float32 `f` draw, whose two
    chi-square draws run side by side: with runtime degrees of freedom the log of d, log1p's
    log and the final exp are paired, and in the partitionable threefry layout the log of v
    too (in the original layout it is the loop condition's, computed alone). With constant
    degrees of freedom (under jit) the log of d is folded, by the C library's function; the
    rest pairs only where both draws are boosted (both below 2 degrees of freedom), into
    log1p's log and the exp.
    """

    log_d: bool = False
    log_v: bool = False
    log1p: bool = False
    exp: bool = False

    @staticmethod
    def of_single_f(folded: bool, boosted: bool) -> _LibmCalls:
        if folded:
            return _LibmCalls(log_d=True, log1p=boosted, exp=boosted)
        return _LibmCalls(log_d=True, log_v=bool(_config.threefry_partitionable.value),
                           log1p=True, exp=True)


def _round_if(cond: bool, x: Array, dtype: np.dtype) -> Array:
    """`x` rounded to `dtype` and widened again when `cond` (see `_bits_transposed`)."""
    return _widen(_narrow(x, dtype), dtype) if cond and dtype == dtypes.bfloat16 else x


def _widen(x: Array, dtype: np.dtype) -> Array:
    """`dtype` values in `_wide_dtype(dtype)`."""
    return lax.convert_element_type(x, _wide_dtype(dtype))


def _narrow(x: Array, dtype: np.dtype) -> Array:
    """A sampler's float32 result rounded once to bfloat16, float32 denormals flushed to zero
    first as XLA:CPU does; other dtypes pass through."""
    if dtype != dtypes.bfloat16 or get_aval(x).dtype == dtype:
        return x
    tiny = np.float32(np.finfo(np.float32).tiny)
    x = lax.select(lax.lt(lax.abs(x), lax.full_like(x, tiny)), lax.mul(x, np.float32(0)), x)
    return lax.convert_element_type(x, dtype)


def _normal(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    if dtypes.issubdtype(dtype, np.complexfloating):
        k_re, k_im = _split(raw)
        real_dtype = np.array(0, dtype).real.dtype
        re = lax.convert_element_type(_normal_real(k_re, shape, real_dtype), dtype)
        im = lax.convert_element_type(_normal_real(k_im, shape, real_dtype), dtype)
        return lax.div(lax.add(re, lax.mul(_const(dtype, 1j), im)), _const(dtype, np.sqrt(2)))
    return _normal_real(raw, shape, dtype)


def normal(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard normal values (`sqrt(2) * erf_inv(u)` with `u` uniform in (-1, 1), as JAX).

    >>> from numjax import random
    >>> random.normal(random.PRNGKey(0), (2,))
    Array([-0.78476596,  0.85644484], dtype=float32)
    """
    raw, _ = check_prng_key("normal", key)
    dt = _float_dtype("normal", dtype, np.inexact, "a float or complex dtype")
    return _normal(raw, _canon_shape(shape), dt)


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Shape | None = None,
                     dtype: Any = float) -> Array:
    """Normal values truncated to `(lower, upper)`.

    >>> from numjax import random
    >>> random.truncated_normal(random.PRNGKey(0), -1.0, 1.0, (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shp = _broadcast_shapes(_shape_of(lower), _shape_of(upper))
    else:
        shp = _canon_shape(shape)
        _check_shape("truncated_normal", shp, _shape_of(lower), _shape_of(upper))
    if dt == dtypes.bfloat16:
        return _truncated_normal_bfloat16(raw, lower, upper, shp)
    sqrt2 = _const(dt, np.sqrt(2))
    a, b = (_truncation_cdf(bound, dt) for bound in (lower, upper))
    lower = lax.convert_element_type(lower, dt)
    upper = lax.convert_element_type(upper, dt)
    u = _uniform(raw, shp, dt, a, b)
    out = lax.mul(sqrt2, xla_math.erf_inv(u))
    # Rounding can land on the bounds; clip strictly inside them (with the gradient stopped
    # through the bounds), as JAX does.
    lo = lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dt))
    hi = lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dt))
    return clip(out, lo, hi)


def _truncated_normal_bfloat16(raw: Array, lower: Any, upper: Any,
                               shape: tuple[int, ...]) -> Array:
    """bfloat16 truncated normal values: one float32 program (see `_wide_param`), rounded once.

    Eagerly the bounds' cdf values are float32 erf of the unrounded bounds; under jit they are
    folded in bfloat16. The clip bounds are bfloat16 neighbours of the bfloat16 bounds.
    """
    dt = np.dtype(dtypes.bfloat16)
    f32 = np.dtype(np.float32)
    if _folded(lower, upper):
        a, b = (_truncation_cdf(bound, dt) for bound in (lower, upper))
        lo_w, span = _wide_const(dt, a), _wide_const(dt, np.asarray(b, dt) - np.asarray(a, dt))
    else:
        # XLA multiplies by the float32 reciprocal of bfloat16's sqrt(2), 0.70718235.
        inv_sqrt2 = _reciprocal(f32, _wide_const(dt, np.sqrt(2)))
        lo_w, hi_w = (xla_math.erf(lax.mul(_wide_param(bound, dt), inv_sqrt2))
                      for bound in (lower, upper))
        span = lax.sub(hi_w, lo_w)
    floats = _widen(_uniform(raw, shape, dt, 0.0, 1.0), dt)
    lo_w, span = broadcast_to(lo_w, shape), broadcast_to(span, shape)
    u = lax.max(lo_w, xla_math.fma(floats, span, lo_w))
    out = lax.mul(xla_math.erf_inv(u), _wide_const(dt, np.sqrt(2)))
    lo = lax.nextafter(lax.convert_element_type(lower, dt), np.array(np.inf, dt))
    hi = lax.nextafter(lax.convert_element_type(upper, dt), np.array(-np.inf, dt))
    out = lax.min(broadcast_to(_widen(hi, dt), shape),
                  lax.max(broadcast_to(_widen(lo, dt), shape), out))
    return _narrow(out, dt)


def _truncation_cdf(bound: Any, dt: np.dtype) -> Array:
    """erf(bound / sqrt(2)), as XLA:CPU computes it for a runtime bound or folds it for a
    constant one (see `_folded`)."""
    sqrt2 = _const(dt, np.sqrt(2))
    if _folded(bound):
        from scipy import special as scipy_special

        # Folded: an accurate erf, rounded once to `dt`, of a true division of two constants,
        # or, when the bound is converted to `dt` (a float64 constant under x64), of a product
        # with the reciprocal: the simplifier rewrites the division before the conversion folds.
        if _constant_divisor(bound, dt):
            ratio = np.asarray(np.asarray(bound, dt) / sqrt2)
        else:
            ratio = np.asarray(np.asarray(bound, dt) * _reciprocal(dt, sqrt2))
        return np.asarray(scipy_special.erf(ratio.astype(np.float64)).astype(dt))
    # At run time XLA turns the division by the constant sqrt(2) into a product with its
    # rounded reciprocal, and erf is its own polynomial.
    return xla_math.erf(lax.mul(lax.convert_element_type(bound, dt), _reciprocal(dt, sqrt2)))


def lognormal(key: Any, sigma: Any = 1.0, shape: Shape | None = None,
              dtype: Any = float) -> Array:
    """exp(sigma * normal).

    >>> from numjax import random
    >>> float(random.lognormal(random.PRNGKey(0))) > 0
    True
    """
    raw, _ = check_prng_key("lognormal", key)
    dt = _float_dtype("lognormal", dtype, np.inexact, "a float or complex dtype")
    if shape is None:
        shp = _shape_of(sigma)
    else:
        shp = _canon_shape(shape)
        _check_shape("lognormal", shp, _shape_of(sigma))
    sigma = broadcast_to(sigma, shp)
    if dt == dtypes.bfloat16 and result_type(dt, sigma) == dt:
        wide = lax.convert_element_type(lax.convert_element_type(sigma, dt), np.float32)
        return _narrow(xla_math.exp(lax.mul(_normal_wide(raw, shp, dt), wide)), dt)
    return xla_math.exp(_normal(raw, shp, dt) * sigma)


# ---- discrete -------------------------------------------------------------------------------


def bernoulli(key: Any, p: Any = np.float32(0.5), shape: Shape | None = None) -> Array:
    """Booleans that are True with probability `p`.

    >>> from numjax import random
    >>> random.bernoulli(random.PRNGKey(0), 0.5, (3,))
    Array([False,  True, False], dtype=bool)
    """
    raw, _ = check_prng_key("bernoulli", key)
    dt = dtypes.canonicalize_dtype(dtypes.dtype(p))
    if not dtypes.issubdtype(dt, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dt}.")
    p = lax.convert_element_type(p, dt)
    if shape is None:
        shp = _shape_of(p)
    else:
        shp = _canon_shape(shape)
        _check_shape("bernoulli", shp, _shape_of(p))
    # jnp's `<`, as JAX's: p broadcasts against the draws under numpy_rank_promotion.
    return _uniform(raw, shp, dt, 0.0, 1.0) < p


def rademacher(key: Any, shape: Shape = (), dtype: Any = int) -> Array:
    """-1 or +1 with equal probability.

    >>> from numjax import random
    >>> random.rademacher(random.PRNGKey(0), (3,))
    Array([-1,  1, -1], dtype=int32)
    """
    raw, _ = check_prng_key("rademacher", key)
    dtypes.check_user_dtype_supported(dtype)
    dt = dtypes.canonicalize_dtype(dtype)
    shp = _canon_shape(shape)
    # JAX draws bernoulli(key, 0.5): a uniform of the Python float's dtype, float64 under x64.
    fdt = dtypes.canonicalize_dtype(np.float64)
    b = lax.convert_element_type(lax.lt(_uniform(raw, shp, fdt, 0.0, 1.0),
                                        np.array(0.5, fdt)), dt)
    return lax.convert_element_type(2 * b - 1, dt)


def geometric(key: Any, p: Any, shape: Shape | None = None, dtype: Any = int) -> Array:
    """The number of Bernoulli(p) trials up to the first success.

    >>> from numjax import random
    >>> int(random.geometric(random.PRNGKey(0), 0.5)) >= 1
    True
    """
    raw, _ = check_prng_key("geometric", key)
    dtypes.check_user_dtype_supported(dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    dt = dtypes.canonicalize_dtype(dtype)
    if shape is None:
        shp = _shape_of(p)
    else:
        shp = _canon_shape(shape)
        _check_shape("geometric", shp, _shape_of(p))
    p = asarray(p)
    if not dtypes.issubdtype(p.dtype, np.inexact):
        p = p.astype(dtypes.default_float_dtype())
    u = _uniform(raw, shp, np.dtype(p.dtype), 0.0, 1.0)
    log_one_minus_p = broadcast_to(xla_math.log1p(lax.neg(p)), shp)
    g = lax.floor(lax.div(xla_math.log(u), log_one_minus_p)) + 1
    return g.astype(dt)


def _shuffle(raw: Array, x: Array, axis: int) -> Array:
    # Sort by fresh random 32-bit keys, repeated so that key collisions are unlikely to bias the
    # result (JAX's round count).
    exponent = 3
    size = max(1, int(np.prod(get_aval(x).shape)))
    num_rounds = int(np.ceil(exponent * np.log(size) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        raw, subkey = _split(raw)
        sort_keys = random_bits(subkey, 32, tuple(get_aval(x).shape))
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


def _canonicalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _concrete_int(x: Any, what: str) -> int:
    """`int(x)` for a static argument; JAX's ConcretizationTypeError (`what` naming it) for a
    traced one."""
    if isinstance(x, Tracer) and x.to_concrete_value() is None:
        raise errors.ConcretizationTypeError(x, f"{what}\n")
    try:
        return int(x)
    except Exception as e:
        raise TypeError(f"Abstract tracer value encountered where concrete value is expected: "
                        f"{what}") from e


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of `arange(x)` (int `x`) or of `x` along `axis`.

    >>> from numjax import random
    >>> random.permutation(random.PRNGKey(0), 5)
    Array([1, 0, 4, 3, 2], dtype=int32)
    """
    raw, _ = check_prng_key("permutation", key)
    ndim = np.ndim(x)
    axis = _canonicalize_axis(axis, ndim or 1)
    if not ndim:
        if not dtypes.issubdtype(dtypes.dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = _concrete_int(x, "argument x of jax.random.permutation()")
        return _shuffle(raw, arange(r), axis)
    x = asarray(x)
    if independent or ndim == 1:
        return _shuffle(raw, x, axis)
    ind = _shuffle(raw, arange(x.shape[axis]), 0)
    return take(x, ind, axis)


def shuffle(key: Any, x: Any, axis: int = 0) -> Array:
    """Deprecated in JAX: shuffle `x` independently along `axis` (warns FutureWarning).

    >>> import warnings
    >>> import numjax.numpy as jnp
    >>> from numjax import random
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     random.shuffle(random.PRNGKey(0), jnp.arange(3)).shape
    (3,)
    """
    import warnings

    warnings.warn("jax.random.shuffle is deprecated and will be removed in a future release. "
                  "Use jax.random.permutation with independent=True.", FutureWarning,
                  stacklevel=2)
    raw, _ = check_prng_key("shuffle", key)
    return _shuffle(raw, asarray(x), axis)


@transfer_guard.places_constants  # JAX runs it op by op: its slices place their starts
def choice(key: Any, a: Any, shape: Shape = (), replace: bool = True, p: Any = None,
           axis: int = 0) -> Array:
    """Random samples from `a` (or `arange(a)`), with or without replacement, weights `p`.

    >>> from numjax import random
    >>> random.choice(random.PRNGKey(0), 10, (3,)).shape
    (3,)
    """
    raw, _ = check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shp = tuple(int(d) for d in shape)
    arr = asarray(a)
    if arr.ndim == 0:
        n_inputs = _concrete_int(a, "The error occurred in jax.random.choice()")
    else:
        axis = _canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shp)
    if n_draws == 0:
        return zeros(shp, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError("Cannot take a larger sample than population when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(raw, shp, 0, n_inputs)
            result = ind if arr.ndim == 0 else take(arr, ind, axis)
        else:
            perm = permutation(raw, n_inputs if arr.ndim == 0 else arr, axis)
            # Indexed as JAX does: run eagerly, the slice places its start on the device.
            result = perm[(slice(None),) * axis + (slice(n_draws),)]
    else:
        p_arr = asarray(p)
        if not dtypes.issubdtype(p_arr.dtype, np.inexact):
            p_arr = p_arr.astype(dtypes.default_float_dtype())
        if tuple(p_arr.shape) != (n_inputs,):
            raise ValueError("p must be None or match the shape of a")
        if replace:
            p_cuml = cumsum(p_arr)
            u = _uniform(raw, shp, np.dtype(p_cuml.dtype), 0.0, 1.0)
            r = p_cuml[-1] * (1 - u)
            ind = searchsorted(p_cuml, r).astype(int)
        else:
            # Gumbel top-k: the n_draws smallest of -gumbel - log p.
            g = -_gumbel(raw, (n_inputs,), np.dtype(p_arr.dtype)) - xla_math.log(p_arr)
            ind = argsort(g)[:n_draws]
        result = ind if arr.ndim == 0 else take(arr, ind, axis)
    if arr.ndim == 0:
        return result.reshape(shp)
    out_shape = (*arr.shape[:axis], *shp, *arr.shape[axis + 1:])
    return result.reshape(out_shape)


def categorical(key: Any, logits: Any, axis: int = -1, shape: Shape | None = None) -> Array:
    """Samples of categories with unnormalized log-probabilities `logits` along `axis`.

    >>> from numjax import random
    >>> import numjax.numpy as jnp
    >>> random.categorical(random.PRNGKey(0), jnp.zeros(3), shape=(2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("categorical", key)
    logits_arr = asarray(logits)
    nd = logits_arr.ndim
    if axis >= 0:
        axis -= nd
    batch_shape = tuple(np.delete(np.array(logits_arr.shape, dtype=np.int64), axis).tolist())
    if shape is None:
        shp = batch_shape
    else:
        shp = _canon_shape(shape)
        _check_shape("categorical", shp, batch_shape)
    shape_prefix = shp[:len(shp) - len(batch_shape)]
    logits_shape = list(shp[len(shp) - len(batch_shape):])
    logits_shape.insert(axis % nd, logits_arr.shape[axis])
    g = _gumbel(raw, (*shape_prefix, *logits_shape), np.dtype(logits_arr.dtype))
    return argmax(g + lax.expand_dims(logits_arr, tuple(range(len(shape_prefix)))),
                      axis=axis)


# ---- simple transforms of uniform -----------------------------------------------------------


def _gumbel(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    u = _uniform_wide(raw, shape, dtype, dtypes.finfo(dtype).tiny, 1.0)
    return _narrow(lax.neg(xla_math.log(lax.neg(xla_math.log(u)))), dtype)


def gumbel(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard Gumbel values, -log(-log(u)).

    >>> from numjax import random
    >>> random.gumbel(random.PRNGKey(0), (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("gumbel", key)
    dt = _float_dtype("gumbel", dtype)
    shp = _canon_shape(shape)
    _check_shape("gumbel", shp)
    return _gumbel(raw, shp, dt)


def _exponential(raw: Array, shape: tuple[int, ...], dtype: np.dtype,
                 libm: bool = False) -> Array:
    """-log1p(-u); `libm`: log1p's large branch by the C library (see `_LibmCalls`)."""
    u = _uniform(raw, shape, dtype, 0.0, 1.0)
    return lax.neg((xla_math.libm_log1p if libm else xla_math.log1p)(lax.neg(u)))


def exponential(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard exponential values, -log1p(-u).

    >>> from numjax import random
    >>> float(random.exponential(random.PRNGKey(0))) > 0
    True
    """
    raw, _ = check_prng_key("exponential", key)
    dt = _float_dtype("exponential", dtype)
    shp = _canon_shape(shape)
    _check_shape("exponential", shp)
    return _exponential(raw, shp, dt)


def laplace(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard Laplace values.

    >>> from numjax import random
    >>> random.laplace(random.PRNGKey(0), (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("laplace", key)
    dt = _float_dtype("laplace", dtype)
    shp = _canon_shape(shape)
    _check_shape("laplace", shp)
    u = _uniform(raw, shp, dt, -1.0 + dtypes.finfo(dt).epsneg, 1.0)
    return lax.mul(lax.sign(u), xla_math.log1p(lax.neg(lax.abs(u))))


def logistic(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard logistic values, log(u / (1 - u)).

    >>> from numjax import random
    >>> random.logistic(random.PRNGKey(0), (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("logistic", key)
    dt = _float_dtype("logistic", dtype)
    shp = _canon_shape(shape)
    _check_shape("logistic", shp)
    x = _uniform_wide(raw, shp, dt, dtypes.finfo(dt).eps, 1.0)
    # bfloat16: one float32 program, rounded once (JAX 0.4.30's HLO, eager and jit).
    ratio = lax.div(x, lax.sub(_wide_const(dt, 1), x))
    return _narrow(xla_math.log(_round_if(_bits_transposed(raw, shp, True), ratio, dt)), dt)


def cauchy(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Standard Cauchy values, tan(pi (u - 1/2)).

    >>> from numjax import random
    >>> random.cauchy(random.PRNGKey(0), (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("cauchy", key)
    dt = _float_dtype("cauchy", dtype)
    shp = _canon_shape(shape)
    _check_shape("cauchy", shp)
    u = _uniform_wide(raw, shp, dt, dtypes.finfo(dt).eps, 1.0)
    arg = lax.mul(lax.add(u, _wide_const(dt, -0.5)), _wide_const(dt, np.pi))
    # bfloat16: one float32 program, rounded once (JAX 0.4.30's HLO, eager and jit).
    arg = _round_if(_bits_transposed(raw, shp, True), arg, dt)
    return _narrow(xla_math.tan(arg), dt)


def pareto(key: Any, b: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Pareto values with shape parameter `b`, exp(exponential / b).

    >>> from numjax import random
    >>> float(random.pareto(random.PRNGKey(0), 3.0)) >= 1
    True
    """
    raw, _ = check_prng_key("pareto", key)
    dt = _float_dtype("pareto", dtype)
    if shape is None:
        shp = _shape_of(b)
    else:
        shp = _canon_shape(shape)
        _check_shape("pareto", shp)
    if dt == dtypes.bfloat16:
        # One float32 program (see `_wide_param`), rounded once.
        u = _uniform_wide(raw, shp, dt, 0.0, 1.0)
        e = lax.neg(xla_math.log1p(lax.neg(u)))
        if _folded(b):  # XLA multiplies by the float32 reciprocal of bfloat16's b
            e = lax.mul(e, _reciprocal(np.dtype(np.float32), _wide_const(dt, b)))
        else:
            e = lax.div(e, broadcast_to(_wide_param(b, dt), shp))
        return _narrow(xla_math.exp(_round_if(_bits_transposed(raw, shp), e, dt)), dt)
    e = _exponential(raw, shp, dt)
    # jnp's operators: b broadcasts against the draws' shape, as JAX's `e / b`.
    if _constant_divisor(b, dt):
        return xla_math.exp(multiply(e, _reciprocal(dt, b)))
    return xla_math.exp(true_divide(e, lax.convert_element_type(b, dt)))


def weibull_min(key: Any, scale: Any, concentration: Any, shape: Shape = (),
                dtype: Any = float) -> Array:
    """Weibull values, scale * (-log1p(-u)) ** (1 / concentration).

    >>> from numjax import random
    >>> random.weibull_min(random.PRNGKey(0), 1.0, 2.0, (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("weibull_min", key)
    dt = _float_dtype("weibull_min", dtype)
    if dt == dtypes.bfloat16:
        return _weibull_min_bfloat16(raw, scale, concentration, _canon_shape(shape))
    u = _uniform(raw, _canon_shape(shape), dt, 0, 1)
    x = lax.neg(xla_math.log1p(lax.neg(u)))
    if _folded(concentration):
        return _xla_power(x, _reciprocal(dt, concentration)) * scale
    exponent = lax.div(_const(dt, 1), lax.convert_element_type(concentration, dt))
    return xla_math.pow(x, broadcast_to(exponent, x.shape)) * scale


def _weibull_min_bfloat16(raw: Array, scale: Any, concentration: Any,
                          shape: tuple[int, ...]) -> Array:
    """bfloat16 Weibull values: one float32 program (see `_wide_param`), rounded once."""
    dt = np.dtype(dtypes.bfloat16)
    u = _uniform_wide(raw, shape, dt, 0.0, 1.0)
    x = lax.neg(xla_math.log1p(lax.neg(u)))
    scale_w = broadcast_to(_wide_param(scale, dt), shape)
    if _folded(concentration):
        powered = _xla_power(x, _wide_const(dt, _reciprocal(dt, concentration)))
    else:
        exponent = lax.div(np.float32(1), _wide_param(concentration, dt))
        powered = xla_math.pow(x, broadcast_to(exponent, shape))
    return _narrow(lax.mul(_round_if(_bits_transposed(raw, shape), powered, dt), scale_w), dt)


def rayleigh(key: Any, scale: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Rayleigh values, scale * sqrt(-2 log u).

    >>> from numjax import random
    >>> float(random.rayleigh(random.PRNGKey(0), 1.0)) > 0
    True
    """
    raw, _ = check_prng_key("rayleigh", key)
    dt = _float_dtype("rayleigh", dtype)
    if shape is None:
        shp = _shape_of(scale)
    else:
        shp = _canon_shape(shape)
        _check_shape("rayleigh", shp, _shape_of(scale))
    u = _uniform_wide(raw, shp, dt, 0.0, 1.0)
    scale = broadcast_to(_wide_param(scale, dt), shp)
    return _narrow(lax.mul(scale, lax.sqrt(lax.mul(xla_math.log(u), _wide_const(dt, -2)))), dt)


def triangular(key: Any, left: Any, mode: Any, right: Any, shape: Shape | None = None,
               dtype: Any = float) -> Array:
    """Triangular values on `[left, right]` with peak `mode`.

    >>> from numjax import random
    >>> 0 <= float(random.triangular(random.PRNGKey(0), 0.0, 0.5, 1.0)) <= 1
    True
    """
    raw, _ = check_prng_key("triangular", key)
    dt = _float_dtype("triangular", dtype)
    if shape is None:
        shp = _broadcast_shapes(_shape_of(left), _shape_of(mode), _shape_of(right))
    else:
        shp = _canon_shape(shape)
        _check_shape("triangular", shp, _shape_of(left), _shape_of(mode), _shape_of(right))
    if dt == dtypes.bfloat16:
        return _triangular_bfloat16(raw, left, mode, right, shp)
    left = broadcast_to(left, shp)
    mode = broadcast_to(mode, shp)
    right = broadcast_to(right, shp)
    fc = (mode - left) / (right - left)
    u = _uniform(raw, shp, dt, 0.0, 1.0)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def _triangular_bfloat16(raw: Array, left: Any, mode: Any, right: Any,
                         shape: tuple[int, ...]) -> Array:
    """bfloat16 triangular values: one float32 program (see `_wide_param`) whose two
    branches are each rounded to bfloat16 before the select (JAX 0.4.30's HLO)."""
    dt = np.dtype(dtypes.bfloat16)

    def param(fn: Callable[..., Any]) -> Array:
        return broadcast_to(_wide_param_expr(dt, fn, left, mode, right), shape)

    width = param(lambda lo, mid, hi: hi - lo)
    fc = param(lambda lo, mid, hi: (mid - lo) / (hi - lo))
    u = _uniform_wide(raw, shape, dt, 0.0, 1.0)
    out1 = lax.add(param(lambda lo, mid, hi: lo), lax.sqrt(
        lax.mul(lax.mul(u, width), param(lambda lo, mid, hi: mid - lo))))
    root = lax.sqrt(lax.mul(lax.mul(lax.sub(_wide_const(dt, 1), u), width),
                            param(lambda lo, mid, hi: hi - mid)))
    out2 = lax.sub(param(lambda lo, mid, hi: hi), _round_if(_bits_transposed(raw, shape), root, dt))
    return lax.select(lax.lt(u, fc), _narrow(out1, dt), _narrow(out2, dt))


def wald(key: Any, mean: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Wald (inverse Gaussian) values with the given mean.

    >>> from numjax import random
    >>> float(random.wald(random.PRNGKey(0), 1.0)) > 0
    True
    """
    raw, _ = check_prng_key("wald", key)
    dt = _float_dtype("wald", dtype)
    if shape is None:
        shp = _shape_of(mean)
    else:
        shp = _canon_shape(shape)
        _check_shape("wald", shp, _shape_of(mean))
    k1, k2 = _split(raw, 2)
    if dt == dtypes.bfloat16:
        return _wald_bfloat16(k1, k2, mean, shp)
    mean_const = np.asarray(mean, dt) if _folded(mean) else None
    mean = broadcast_to(asarray(mean).astype(dt), shp)
    if _single_draw(shp, k1, mean):
        return _wald_single(k1, k2, mean, shp, dt, mean_const)
    v = _normal(k1, shp, dt)
    z = _uniform(k2, shp, dt, 0.0, 1.0)
    y = lax.integer_pow(v, 2)
    mean_sq = lax.integer_pow(mean, 2)
    # x = mean + mean^2 y / 2 - mean / 2 * sqrt(4 mean y + mean^2 y^2), with XLA:CPU's three
    # fused multiply-adds (dividing by 2 is a product with 1/2).
    half = _const(dt, 0.5)
    sqrt_term = lax.sqrt(xla_math.fma(lax.mul(_const(dt, 4), mean), y,
                                      lax.mul(mean_sq, lax.integer_pow(y, 2))))
    x = xla_math.fma(lax.neg(lax.mul(mean, half)), sqrt_term,
                     xla_math.fma(lax.mul(mean_sq, y), broadcast_to(half, shp), mean))
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def _wald_single(k1: Array, k2: Array, mean: Array, shape: tuple[int, ...],
                 dt: np.dtype, mean_const: np.ndarray | None) -> Array:
    """One Wald value, as XLA:CPU computes a one-element program.

    With one element XLA turns the broadcast constants into literals and reassociates the
    products of constants: the normal's sqrt(2) leaves the erf_inv value e, y = e^2 * (s * s),
    4 mean y = (mean e^2) * (4 s s) and y^2 = (e^2 e^2) * ((s s)(s s)), with s = sqrt(2)
    rounded to `dt` and each constant product folded in `dt` (1.99999988, 7.99999952 and
    3.99999952 for float32). Two of 20 float32 single draws differed by an ulp from JAX 0.4.30
    under the general formula. A constant mean (`mean_const`) joins the folded constants:
    x = fma(-mean / 2, sqrt(fma(e^2, 4 mean s s, (e^2 e^2) (mean^2 (s s)(s s)))),
    fma(e^2, mean^2 (s s) / 2, mean)).
    """
    lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt), dtype=dt)
    e = xla_math.erf_inv(_uniform(k1, shape, dt, lo, np.array(1.0, dt)))
    z = _uniform(k2, shape, dt, 0.0, 1.0)
    sqrt2 = _const(dt, np.sqrt(2))
    two = np.asarray(sqrt2 * sqrt2)
    e_sq = lax.mul(e, e)
    mean_sq = lax.mul(mean, mean)
    y = lax.mul(e_sq, two)

    def full(c: Any) -> Array:
        return jnp_full(shape, c, dt)

    if mean_const is not None:
        m = np.broadcast_to(mean_const, shape)
        m_sq = np.asarray(m * m)
        base = xla_math.fma(e_sq, full(m_sq * two * _const(dt, 0.5)), mean)
        radicand = xla_math.fma(e_sq, full(m * (two * _const(dt, 4))),
                                lax.mul(lax.mul(e_sq, e_sq), full(m_sq * (two * two))))
        x = xla_math.fma(full(-(m * _const(dt, 0.5))), lax.sqrt(radicand), base)
        return lax.select(lax.le(z, lax.div(mean, lax.add(x, mean))), x, lax.div(m_sq, x))
    base = xla_math.fma(lax.mul(mean_sq, y), full(0.5), mean)
    radicand = xla_math.fma(lax.mul(mean, e_sq), full(two * _const(dt, 4)),
                            lax.mul(mean_sq, lax.mul(lax.mul(e_sq, e_sq), two * two)))
    x = xla_math.fma(lax.neg(lax.mul(mean, _const(dt, 0.5))), lax.sqrt(radicand), base)
    return lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))


def _wald_bfloat16(k1: Array, k2: Array, mean: Any, shape: tuple[int, ...]) -> Array:
    """bfloat16 Wald values: one float32 program (see `_wide_param`); the two candidates are
    each rounded to bfloat16 before the select, x unrounded in mean^2 / x (JAX 0.4.30's HLO)."""
    dt = np.dtype(dtypes.bfloat16)

    def param(fn: Callable[..., Any]) -> Array:
        return broadcast_to(_wide_param_expr(dt, fn, mean), shape)

    mean_w = param(lambda m: m)
    mean_sq = param(lambda m: m * m)
    v = _normal_wide(k1, shape, dt)
    z = _uniform_wide(k2, shape, dt, 0.0, 1.0)
    y = lax.mul(v, v)
    half = jnp_full(shape, np.float32(0.5))
    sqrt_term = lax.sqrt(xla_math.fma(param(lambda m: m * 4), y,
                                      lax.mul(mean_sq, lax.mul(y, y))))
    x = xla_math.fma(lax.neg(param(lambda m: m * 0.5)), sqrt_term,
                     xla_math.fma(lax.mul(mean_sq, y), half, mean_w))
    accept = lax.le(z, lax.div(mean_w, lax.add(mean_w, x)))
    return lax.select(accept, _narrow(x, dt), _narrow(lax.div(mean_sq, x), dt))


def _row_sum(x: Array) -> Array:
    """Sum over the last axis in XLA:CPU's order for rows of up to 4: a 4-lane vector halved
    twice, (x0 + x2) + (x1 + x3); longer rows sum as NumPy does."""
    aval = get_aval(x)
    n = aval.shape[-1]
    if not 2 < n <= 4:
        return jnp_sum(x, -1)
    if aval.dtype == np.float16:
        # jnp.sum adds float16 in float32 and rounds once (maxwell's squares: adding them in
        # float16 differed from JAX 0.4.30 on ~9% of float16 maxwell draws).
        wide = _row_sum(lax.convert_element_type(x, np.float32))
        return lax.convert_element_type(wide, np.float16)
    first = lax.add(x[..., 0], x[..., 2])
    return lax.add(first, x[..., 1] if n == 3 else lax.add(x[..., 1], x[..., 3]))


def maxwell(key: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Maxwell values: the norm of a standard 3-d normal vector.

    >>> from numjax import random
    >>> float(random.maxwell(random.PRNGKey(0))) > 0
    True
    """
    raw, _ = check_prng_key("maxwell", key)
    dt = _float_dtype("maxwell", dtype)
    return _narrow(_maxwell_wide(raw, _canon_shape(shape), dt), dt)


def _maxwell_wide(raw: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    """Maxwell values before their rounding to bfloat16 (see `_normal_wide`)."""
    return lax.sqrt(_row_sum(lax.square(_normal_wide(raw, (*shape, 3), dtype))))


def double_sided_maxwell(key: Any, loc: Any, scale: Any, shape: Shape = (),
                         dtype: Any = float) -> Array:
    """Maxwell values with a random sign, scaled and shifted.

    >>> from numjax import random
    >>> random.double_sided_maxwell(random.PRNGKey(0), 0.0, 1.0, (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("double_sided_maxwell", key)
    dt = _float_dtype("double_sided_maxwell", dtype, what="a float dtype")
    params_shape = _broadcast_shapes(_shape_of(loc), _shape_of(scale))
    shp = _canon_shape(shape)
    if not shp:
        shp = params_shape
    shp = shp + params_shape
    maxwell_key, rademacher_key = _split(raw)
    random_sign = rademacher(rademacher_key, shape=shp, dtype=dt)
    if dt == dtypes.bfloat16 and result_type(dt, loc, scale) == dt:
        # One float32 program (see `_normal_wide`): the maxwell values and the products are
        # not rounded to bfloat16 before the result.
        def wide(v: Any) -> Array:
            v = lax.convert_element_type(broadcast_to(v, shp), dt)
            return lax.convert_element_type(v, np.float32)
        m = _maxwell_wide(check_prng_key("maxwell", maxwell_key)[0], shp, dt)
        out = lax.add(lax.mul(lax.mul(wide(random_sign), m), wide(scale)), wide(loc))
        return _narrow(out, dt)
    maxwell_rvs = maxwell(maxwell_key, shape=shp, dtype=dt)
    return random_sign * maxwell_rvs * scale + loc


# ---- multivariate ---------------------------------------------------------------------------


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Shape | None = None,
                        dtype: Any = None, method: str = "cholesky") -> Array:
    """Multivariate normal values `mean + factor @ z` (factor from cholesky, eigh or svd).

    >>> from numjax import random
    >>> import numjax.numpy as jnp
    >>> random.multivariate_normal(random.PRNGKey(0), jnp.zeros(2), jnp.eye(2), (3,)).shape
    (3, 2)
    """
    raw, _ = check_prng_key("multivariate_normal", key)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    if dtype is None:
        dtype = dtypes.result_type(mean, cov)
        if not dtypes.issubdtype(dtype, np.inexact):
            dtype = dtypes.default_float_dtype()
    dt = _float_dtype("multivariate_normal", dtype)
    mean = asarray(mean).astype(dt)
    cov = asarray(cov).astype(dt)
    if not mean.ndim >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{mean.ndim}")
    if not cov.ndim >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{cov.ndim}")
    n = mean.shape[-1]
    if tuple(cov.shape[-2:]) != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {tuple(cov.shape)}.")
    if shape is None:
        shp = _broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    else:
        shp = _canon_shape(shape)
        _check_shape("normal", shp, tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    if method == "svd":
        u, s, _ = svd(cov)
        factor = u * sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = eigh(cov)
        factor = v * sqrt(w[..., None, :])
    else:
        factor = cholesky(cov)
    z = _normal(raw, (*shp, n), dt)
    if (shp == () and factor.ndim == 2 and 1 <= n <= 12 and dt in (np.float32, np.float64)
            and _single_draw(shp, raw, factor, mean)):
        # One sample is a matrix-vector product, which XLA:CPU emits as a loop over the
        # columns, each step a fused multiply-add into the rows' sums (matched against JAX
        # 0.4.30 up to n = 12; at 16 it tiles the columns otherwise). BLAS's order was an ulp
        # off in 1 of 3 values for the cholesky factor of a 3 x 3 covariance.
        zs = [broadcast_to(z[j], (n,)) for j in range(n)]
        product = lax.mul(factor[:, 0], zs[0])
        for j in range(1, n):
            product = xla_math.fma(factor[:, j], zs[j], product)
        return lax.add(mean, product)
    # Rank promotion of mean over the sample shape is the sampler's own, allowed whatever the
    # user's setting, as in JAX.
    with _config.numpy_rank_promotion("allow"):
        return mean + einsum("...ij,...j->...i", factor, z)


def orthogonal(key: Any, n: int, shape: Shape = (), dtype: Any = float) -> Array:
    """Haar-random orthogonal (unitary) `n x n` matrices: Q of a normal matrix, sign-fixed.

    >>> from numjax import random
    >>> random.orthogonal(random.PRNGKey(0), 3).shape
    (3, 3)
    """
    raw, _ = check_prng_key("orthogonal", key)
    dtypes.check_user_dtype_supported(dtype)
    shp = _canon_shape(shape)
    _check_shape("orthogonal", shp)
    n = _concrete_int(n, "The error occurred in jax.random.orthogonal()")
    dt = dtypes.canonicalize_dtype(dtype)
    z = _normal(raw, (*shp, n, n), dt)
    q, r = qr(z)
    d = diagonal(r, 0, -2, -1)
    return lax.mul(q, lax.expand_dims(lax.div(d, jnp_abs(d).astype(d.dtype)), (d.ndim - 1,)))


# ---- gamma family -------------------------------------------------------------------------------


def _gamma_one(raw: Array, alpha: Array, log_space: bool, alpha_wide: Array | None = None,
               wide_result: bool = False, libm: _LibmCalls = _LibmCalls()) -> Array:
    """One Gamma(alpha) sample by Marsaglia and Tsang's rejection method, JAX's exact steps.

    alpha < 1 samples Gamma(alpha + 1) and boosts by u ** (1 / alpha). `alpha_wide` is alpha
    as bfloat16's arithmetic sees it, and `wide_result` leaves a bfloat16 result in float32
    (see `_gamma_sample`); other dtypes ignore both. `libm` says which of the log-space
    result's functions the C library computes (see `_LibmCalls`).
    """
    dtype = np.dtype(get_aval(alpha).dtype)
    if dtype == dtypes.bfloat16:
        wide = _widen(alpha, dtype) if alpha_wide is None else alpha_wide
        return _gamma_one_bfloat16(raw, wide, log_space, wide_result)
    zero, one = _const(dtype, 0), _const(dtype, 1)
    minus_one, half = _const(dtype, -1), _const(dtype, 0.5)
    third, squeeze = _const(dtype, 1.0 / 3.0), _const(dtype, 0.0331)
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, third)
    # XLA rewrites a / sqrt(b) as a * rsqrt(b), and rsqrt rounds 1 / sqrt(b) on its own.
    c = lax.mul(third, lax.rsqrt(d))

    def cond_fn(state: tuple[Array, Array, Array, Array]) -> Array:
        _, x_sq, v, u = state
        return lax.bitwise_and(
            lax.ge(u, lax.sub(one, lax.mul(squeeze, lax.mul(x_sq, x_sq)))),
            lax.ge(xla_math.log(u), lax.add(lax.mul(x_sq, half),
                                       lax.mul(d, lax.add(lax.sub(one, v), xla_math.log(v))))))

    def next_xv(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        key, subkey = _split(state[0])
        x = _normal(subkey, (), dtype)
        # XLA:CPU fuses 1 + x * c into one multiply-add.
        return key, x, xla_math.fma(x, c, one)

    def body_fn(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        key, x_key, u_key = _split(state[0], 3)
        _, x, v = while_loop(lambda s: lax.le(s[2], zero), next_xv, (x_key, zero, minus_one))
        u = _uniform(u_key, (), dtype, 0.0, 1.0)
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), u

    key, subkey = _split(raw)
    _, _, v, _ = while_loop(cond_fn, body_fn, (key, zero, one, _const(dtype, 2)))
    if log_space:
        log_samples = lax.neg(_exponential(subkey, (), dtype, libm.log1p))
        log_boost = lax.select(lax.bitwise_or(boost_mask, lax.eq(log_samples, zero)), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        log_d = (xla_math.libm_log if libm.log_d else xla_math.log)(d)
        log_v = (xla_math.libm_log if libm.log_v else xla_math.log)(v)
        return lax.add(lax.add(log_d, log_v), log_boost)
    samples = lax.sub(one, _uniform(subkey, (), dtype, 0.0, 1.0))
    boost = lax.select(boost_mask, one, xla_math.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, v), boost)


def _gamma_one_bfloat16(raw: Array, alpha: Array, log_space: bool,
                        wide_result: bool = False) -> Array:
    """`_gamma_one` for bfloat16, with the roundings XLA:CPU keeps (JAX 0.4.30's HLO).

    The arithmetic is float32 (see `_wide_param`), but the loops carry bfloat16 state (x, v;
    X, V, U), the boosted alpha and the conditions' d are bfloat16, a select's operands are
    rounded, and so is the result; c, and the d of the result, stay float32. `alpha` is
    float32: the bfloat16 alpha, or a single draw's runtime parameter unrounded; a single
    draw's result stays float32 when `wide_result` (see `_gamma_sample`).
    """
    result_dtype = np.dtype(np.float32) if wide_result else np.dtype(dtypes.bfloat16)
    bf = np.dtype(dtypes.bfloat16)
    f32 = np.float32
    zero, one = _const(bf, 0), _const(bf, 1)
    third, squeeze = _wide_const(bf, 1.0 / 3.0), _wide_const(bf, 0.0331)
    boost_mask = lax.ge(alpha, f32(1))
    alpha_b = lax.select(boost_mask, _narrow(alpha, bf), _narrow(lax.add(alpha, f32(1)), bf))
    d = lax.sub(_widen(alpha_b, bf), third)
    d_b = _widen(_narrow(d, bf), bf)
    c = lax.div(third, lax.sqrt(d))

    def cond_fn(state: tuple[Array, Array, Array, Array]) -> Array:
        x_sq, v, u = (_widen(x, bf) for x in state[1:])
        return lax.bitwise_and(
            lax.ge(u, lax.sub(f32(1), lax.mul(lax.mul(x_sq, x_sq), squeeze))),
            lax.ge(xla_math.log(u), lax.add(lax.mul(x_sq, f32(0.5)), lax.mul(
                d_b, lax.add(lax.sub(f32(1), v), xla_math.log(v))))))

    def next_xv(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        key, subkey = _split(state[0])
        x = _normal_wide(subkey, (), bf)
        return key, _narrow(x, bf), _narrow(xla_math.fma(x, c, f32(1)), bf)

    def body_fn(state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        key, x_key, u_key = _split(state[0], 3)
        _, x, v = while_loop(lambda s: lax.le(s[2], zero), next_xv, (x_key, zero, -one))
        x, v = _widen(x, bf), _widen(v, bf)
        return (key, _narrow(lax.mul(x, x), bf), _narrow(lax.mul(lax.mul(v, v), v), bf),
                _uniform(u_key, (), bf, 0.0, 1.0))

    key, subkey = _split(raw)
    _, _, v, _ = while_loop(cond_fn, body_fn, (key, zero, one, _const(bf, 2)))
    v = _widen(v, bf)
    inv_alpha = lax.div(f32(1), alpha)
    u = _uniform_wide(subkey, (), bf, 0.0, 1.0)
    if log_space:
        log_samples = xla_math.log1p(lax.neg(u))  # -exponential
        # In the original threefry layout a reshape of the exponential's bits ([1, 1] to [])
        # keeps its rounding to bfloat16 (see `_bits_transposed`); not in the partitionable.
        log_samples = _round_if(not _config.threefry_partitionable.value, log_samples, bf)
        log_boost = lax.select(
            lax.bitwise_or(boost_mask, lax.eq(log_samples, f32(0))), zero,
            _narrow(lax.mul(log_samples, inv_alpha), bf))
        return _narrow(lax.add(lax.add(xla_math.log(d), xla_math.log(v)),
                               _widen(log_boost, bf)), result_dtype)
    boost = lax.select(boost_mask, one,
                       _narrow(xla_math.pow(lax.sub(f32(1), u), inv_alpha), bf))
    return _narrow(lax.mul(lax.mul(d, v), _widen(boost, bf)), result_dtype)


def _runtime_alpha(raw: Array, dtype: np.dtype, fn: Callable[..., Any], *params: Any) -> Any:
    """`_gamma_sample`'s `a_wide` for the bfloat16 alpha `fn(*params)`: its float32 value when
    the parameters are runtime values and the draw is not batched (a vmapped draw maps over
    the batch), else None."""
    if (dtype != dtypes.bfloat16 or _folded(*params)
            or isinstance(raw._base, batching.BatchTracer)):
        return None
    return _wide_param_expr(dtype, fn, *params)


def _gamma_grad(sample: Array, a: Array, log_space: bool) -> Array:
    """d sample / d a by implicit differentiation of the CDF (lax.random_gamma_grad)."""
    if log_space:
        x = lax.exp(sample)
        x = lax.select(lax.eq(x, lax.full_like(x, 0)),
                       lax.full_like(x, float(dtypes.finfo(get_aval(x).dtype).tiny)), x)
        return lax.div(special.random_gamma_grad(a, x), x)
    return special.random_gamma_grad(a, sample)


def _gamma_sample(raw: Array, a: Array, log_space: bool, a_wide: Any = None,
                  libm: _LibmCalls = _LibmCalls()) -> Array:
    """Gamma samples for every entry of `a`, one split key each; differentiable in `a`.

    JAX's gamma maps over the draws with a loop that XLA removes for a single draw, and with it
    the bfloat16 rounding of the parameter going in and of the result coming out (see
    `_wide_param`). So for one bfloat16 draw (not batched) this returns the float32 result,
    computed from `a_wide`, the float32 parameter when it is a runtime value (by default `a`).
    `libm`: see `_LibmCalls` (threefry keys).
    """
    shape = tuple(get_aval(a).shape)
    n = math.prod(shape)
    dt = np.dtype(get_aval(a).dtype)
    single = (dt == dtypes.bfloat16 and n == 1
              and not isinstance(raw._base, batching.BatchTracer))

    def draw(keys: Array, alphas: Array, alphas_wide: Array) -> Array:
        one = lambda k, al, wide: _gamma_one(k, al, log_space, wide, single, libm)
        flat_alphas = lax.reshape(alphas, (n,))
        if keys._impl is prng.threefry_prng_impl:
            return lax.reshape(vmap(one)(keys, flat_alphas, lax.reshape(alphas_wide, (n,))),
                               shape)
        # JAX 0.4.30 on CPU draws for the other implementations one key after another
        # (lax.map), also under vmap, where it folds the batch into the keys it walks. Keys
        # that each draw their own bits give that walk's values from one vmapped loop over all
        # the keys (a vmapped bit generator would draw them all from the first key).
        draw_one = lambda k, al: _gamma_one(k, al, log_space)
        own = prng.own_bits_impl(keys._impl)
        if own is None:
            flat = loops.map(lambda args: draw_one(*args), (keys, flat_alphas))
        else:
            flat = vmap(draw_one)(PRNGKeyArray(keys._base, own), flat_alphas)
        return lax.reshape(flat, shape)

    # The keys are an ordinary (integer, so tangent-free) argument rather than closed over or
    # declared nondiff, so that jit and vmap can trace them.
    sample = custom_jvp(draw)

    def sample_jvp(primals: tuple[Array, Array, Array], tangents: tuple[Array, Array, Array]
                   ) -> tuple[Array, Array]:
        # `alphas_wide` is `alphas` in another precision: its tangent is `alphas`'.
        (keys, alphas, alphas_wide), (_, t, _) = primals, tangents
        out = sample(keys, alphas, alphas_wide)
        grad = _gamma_grad(_narrow(out, dt), alphas, log_space)
        return out, lax.convert_element_type(lax.mul(t, grad), get_aval(out).dtype)

    sample.defjvp(sample_jvp)
    if n == 0:
        return lax.full(shape, 0, get_aval(a).dtype)
    if a_wide is None or not single:
        a_wide = _widen(a, dt)
    return sample(random_split(raw, (n,)), a, broadcast_to(a_wide, shape))


def _gamma(key: Any, name: str, a: Any, shape: Shape | None, dtype: Any,
           log_space: bool) -> Array:
    raw, _ = check_prng_key(name, key)
    dt = _float_dtype(name if name != "loggamma" else "gamma", dtype)
    if shape is None:
        shp = _shape_of(a)
    else:
        shp = _canon_shape(shape)
        _check_shape("gamma", shp, _shape_of(a))
    a_wide = _runtime_alpha(raw, dt, lambda v: v, a)
    a = lax.convert_element_type(a, dt)
    if _shape_of(a) != shp:
        a = broadcast_to(a, shp)
    return _narrow(_gamma_sample(raw, a, log_space, a_wide), dt)


def gamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Gamma(a) samples (unit scale); differentiable in `a` through the implicit gradient.

    >>> from numjax import random
    >>> float(random.gamma(random.PRNGKey(0), 2.0)) > 0
    True
    """
    return _gamma(key, "gamma", a, shape, dtype, False)


def loggamma(key: Any, a: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """log of Gamma(a) samples, accurate for small `a` where the samples underflow.

    >>> from numjax import random
    >>> random.loggamma(random.PRNGKey(0), 0.01).dtype
    dtype('float32')
    """
    return _gamma(key, "loggamma", a, shape, dtype, True)


def beta(key: Any, a: Any, b: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Beta(a, b) samples from two log-gamma samples.

    >>> from numjax import random
    >>> 0 < float(random.beta(random.PRNGKey(0), 2.0, 3.0)) < 1
    True
    """
    raw, _ = check_prng_key("beta", key)
    dt = _float_dtype("beta", dtype)
    if shape is None:
        shp = _broadcast_shapes(_shape_of(a), _shape_of(b))
    else:
        shp = _canon_shape(shape)
        _check_shape("beta", shp, _shape_of(a), _shape_of(b))
    key_a, key_b = _split(raw)
    a = broadcast_to(lax.convert_element_type(a, dt), shp)
    b = broadcast_to(lax.convert_element_type(b, dt), shp)
    log_gamma_a = _gamma_sample(key_a, a, True)
    log_gamma_b = _gamma_sample(key_b, b, True)
    if dt == dtypes.bfloat16:
        # Under jit one float32 program (see `_wide_param`) rounds only the result; eagerly
        # JAX runs each operation on its own, rounding each.
        convert = _widen if _folded() else _narrow
        log_gamma_a, log_gamma_b = convert(log_gamma_a, dt), convert(log_gamma_b, dt)
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = xla_math.exp(log_gamma_a - log_max)
    gamma_b_scaled = xla_math.exp(log_gamma_b - log_max)
    return _narrow(gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled), dt)


def dirichlet(key: Any, alpha: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Dirichlet(alpha) samples: normalized gamma samples (softmax of log-gamma samples).

    >>> from numjax import random
    >>> import numjax.numpy as jnp
    >>> round(float(random.dirichlet(random.PRNGKey(0), jnp.ones(3)).sum()), 5)
    1.0
    """
    raw, _ = check_prng_key("dirichlet", key)
    dt = _float_dtype("dirichlet", dtype)
    alpha_shape = _shape_of(alpha)
    if not len(alpha_shape) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{len(alpha_shape)}")
    if shape is None:
        shp = alpha_shape[:-1]
    else:
        shp = _canon_shape(shape)
        _check_shape("dirichlet", shp, alpha_shape[:-1])
    alpha = lax.convert_element_type(alpha, dt)
    full = (*shp, alpha_shape[-1])
    log_gamma_samples = _narrow(_gamma_sample(raw, broadcast_to(alpha, full), True), dt)
    return xla_math.softmax(log_gamma_samples)


def chisquare(key: Any, df: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Chi-square(df) samples, 2 * Gamma(df / 2).

    >>> from numjax import random
    >>> float(random.chisquare(random.PRNGKey(0), 3.0)) > 0
    True
    """
    raw, _ = check_prng_key("chisquare", key)
    dt = _float_dtype("chisquare", dtype)
    if shape is None:
        shp = _shape_of(df)
    else:
        shp = _canon_shape(shape)
        _check_shape("chisquare", shp, _shape_of(df))
    return _chisquare(raw, df, shp, dt)


def _chisquare(raw: Array, df: Any, shp: tuple[int, ...], dt: np.dtype,
               libm: _LibmCalls = _LibmCalls()) -> Array:
    return _narrow(_chisquare_wide(raw, df, shp, dt, libm), dt)


def _chisquare_wide(raw: Array, df: Any, shp: tuple[int, ...], dt: np.dtype,
                    libm: _LibmCalls = _LibmCalls()) -> Array:
    return lax.mul(_half_chisquare(raw, df, shp, dt, libm), _wide_const(dt, 2))


def _half_chisquare(raw: Array, df: Any, shp: tuple[int, ...], dt: np.dtype,
                    libm: _LibmCalls = _LibmCalls()) -> Array:
    """Gamma(df / 2) samples, drawn as the exp of log-space gamma samples (for bfloat16 the
    float32 values of one program, not rounded; see `_wide_param`). `libm`: see `_LibmCalls`."""
    if dt == dtypes.bfloat16:
        half_df_w = _wide_param_expr(dt, lambda d: d * 0.5, df)
        log_g = _gamma_sample(raw, broadcast_to(_narrow(half_df_w, dt), shp), True,
                              _runtime_alpha(raw, dt, lambda d: d * 0.5, df))
        return xla_math.exp(_widen(log_g, dt))
    half_df = lax.div(lax.convert_element_type(df, dt), _const(dt, 2))
    log_g = _gamma_sample(raw, broadcast_to(half_df, shp), True, libm=libm)
    return (xla_math.libm_exp if libm.exp else xla_math.exp)(log_g)


def f(key: Any, dfnum: Any, dfden: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """F(dfnum, dfden) samples, a ratio of scaled chi-square samples.

    >>> from numjax import random
    >>> float(random.f(random.PRNGKey(0), 3.0, 5.0)) > 0
    True
    """
    raw, _ = check_prng_key("f", key)
    dt = _float_dtype("f", dtype)
    if shape is None:
        shp = _broadcast_shapes(_shape_of(dfden), _shape_of(dfnum))
    else:
        shp = _canon_shape(shape)
        _check_shape("f", shp, _shape_of(dfden), _shape_of(dfnum))
    key_dfd, key_dfn = _split(raw)
    if dt == dtypes.bfloat16:
        return _f_bfloat16(key_dfn, key_dfd, dfnum, dfden, shp)
    num_folded, den_folded = _constant_divisor(dfnum, dt), _constant_divisor(dfden, dt)
    libm = _LibmCalls()
    if dt == np.float32 and raw._impl is prng.threefry_prng_impl and _single_draw(
            shp, raw, dfnum, dfden):
        boosted = all(np.all(np.asarray(df) < 2) for df in (dfnum, dfden)
                      if not isinstance(df, Tracer))
        libm = _LibmCalls.of_single_f(_folded(dfnum, dfden), boosted)
    chi2_dfn = _chisquare(key_dfn, dfnum, shp, dt, libm)
    chi2_dfd = _chisquare(key_dfd, dfden, shp, dt, libm)
    if num_folded and den_folded:
        # Both divisions by constants became products with reciprocals (`_folded`).
        return lax.div(lax.mul(chi2_dfn, _reciprocal(dt, dfnum)),
                       lax.mul(chi2_dfd, _reciprocal(dt, dfden)))
    # With one constant, XLA's rewrites group the runtime parameter with the constant's
    # reciprocal (matched against JAX 0.4.30 under jit): a * (d * (1/b)) / c, or
    # a / (c * (b * (1/d))).
    if num_folded:
        dfden = broadcast_to(lax.convert_element_type(dfden, dt), shp)
        return lax.div(lax.mul(chi2_dfn, lax.mul(dfden, _reciprocal(dt, dfnum))), chi2_dfd)
    if den_folded:
        dfnum = broadcast_to(lax.convert_element_type(dfnum, dt), shp)
        return lax.div(chi2_dfn, lax.mul(chi2_dfd, lax.mul(dfnum, _reciprocal(dt, dfden))))
    dfden = broadcast_to(lax.convert_element_type(dfden, dt), shp)
    dfnum = broadcast_to(lax.convert_element_type(dfnum, dt), shp)
    # XLA rewrites (a / b) / (c / d) as (a * d) / (b * c), each product rounded once. So it
    # does with converted constants (float16 f(3.0, 4.0) under jit is (g_n * 8) / (3 *
    # (g_d * 2)) in float16, the same roundings).
    return lax.div(lax.mul(chi2_dfn, dfden), lax.mul(chi2_dfd, dfnum))


def _f_bfloat16(key_dfn: Array, key_dfd: Array, dfnum: Any, dfden: Any,
                shape: tuple[int, ...]) -> Array:
    """bfloat16 F values: one float32 program (see `_wide_param`), rounded once; a division by
    a constant is a product with its float32 reciprocal."""
    dt = np.dtype(dtypes.bfloat16)

    def scaled(key: Array, df: Any) -> Array:
        chi2 = _chisquare_wide(key, df, shape, dt)
        if _folded(df):
            return lax.mul(chi2, _reciprocal(np.dtype(np.float32), _wide_const(dt, df)))
        return lax.div(chi2, broadcast_to(_wide_param(df, dt), shape))

    return _narrow(lax.div(scaled(key_dfn, dfnum), scaled(key_dfd, dfden)), dt)


def t(key: Any, df: Any, shape: Shape = (), dtype: Any = float) -> Array:
    """Student's t(df) samples, normal * sqrt(df / 2 / Gamma(df / 2)).

    >>> from numjax import random
    >>> random.t(random.PRNGKey(0), 4.0, (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("t", key)
    dt = _float_dtype("t", dtype)
    shp = _canon_shape(shape)
    _check_shape("t", shp, _shape_of(df))
    key_n, key_g = _split(raw)
    if dt == dtypes.bfloat16:
        # One float32 program (see `_wide_param`): the gamma draws are bfloat16 (their alpha
        # rounded), the rest is not rounded before the result.
        half_df_w = broadcast_to(_wide_param_expr(dt, lambda d: d * 0.5, df), shp)
        g = _widen(_gamma_sample(key_g, _narrow(half_df_w, dt), False,
                                 _runtime_alpha(key_g, dt, lambda d: d * 0.5, df)), dt)
        n = _normal_wide(key_n, shp, dt)
        return _narrow(lax.mul(n, lax.sqrt(lax.div(half_df_w, g))), dt)
    df = lax.convert_element_type(df, dt)
    n = _normal(key_n, shp, dt)
    half_df = lax.div(df, _const(dt, 2))
    g = _gamma_sample(key_g, broadcast_to(half_df, shp), False)
    return n * sqrt(half_df / g)


def _xla_power(x: Array, exponent: Any) -> Array:
    """`x ** exponent` for a concrete exponent, rounded as XLA:CPU's pow.

    Under jit the exponent is a constant of the compiled program, and LLVM rewrites a power by
    1, 2, 1/2 or -1 as `x`, `x * x`, `sqrt(x)` or `1 / x` (measured: weibull_min(1.0, 2.0)
    under jit is sqrt's draws, 15 of 20_000 float32 and 19 float64 values off eager pow's).
    """
    x = asarray(x)
    if isinstance(exponent, Tracer):
        # A traced exponent (jit over p) is a runtime value: no rewrite applies.
        e_traced = lax.convert_element_type(exponent, get_aval(x).dtype)
        return xla_math.pow(x, broadcast_to(e_traced, x.shape))
    e = _const(x.dtype, exponent)
    if _folded(exponent):
        if e == 1:
            return x
        if e == 2:
            return lax.mul(x, x)
        if e == 0.5:
            return lax.sqrt(x)
        if e == -1:
            return lax.div(_const(x.dtype, 1), x)
    return xla_math.pow(x, jnp_full(x.shape, e, x.dtype))


def generalized_normal(key: Any, p: float, shape: Shape = (), dtype: Any = float) -> Array:
    """Generalized normal samples with density proportional to exp(-|x| ** p).

    >>> from numjax import random
    >>> random.generalized_normal(random.PRNGKey(0), 1.5, (2,)).shape
    (2,)
    """
    raw, _ = check_prng_key("generalized_normal", key)
    dtypes.check_user_dtype_supported(dtype)
    shp = _canon_shape(shape)
    _check_shape("generalized_normal", shp)
    dt = _float_dtype("gamma", dtype)
    k1, k2 = _split(raw)
    g = _gamma_sample(k1, broadcast_to(lax.convert_element_type(1 / p, dt), shp), False,
                      _runtime_alpha(k1, dt, lambda v: v, 1 / p))
    r = rademacher(k2, shp, dt)
    if dt == dtypes.bfloat16 and not _folded(p):
        # Eagerly JAX's power is its own program taking 1 / p as a float32 argument, whose
        # rounding to bfloat16 XLA drops (see `_wide_param`); the gamma draws are rounded.
        exponent = jnp_full(shp, np.float32(1 / p))
        return r * _narrow(xla_math.pow(_widen(_narrow(g, dt), dt), exponent), dt)
    if dt == dtypes.bfloat16:
        # Under jit one float32 program, with 1 / p folded to bfloat16.
        powered = _xla_power(_widen(g, dt), _wide_const(dt, 1 / p))
        return _narrow(lax.mul(_widen(r, dt), powered), dt)
    return r * _xla_power(g, 1 / p)


def ball(key: Any, d: int, p: float = 2, shape: Shape = (), dtype: Any = float) -> Array:
    """Points uniform in the unit p-norm ball of dimension `d`.

    >>> from numjax import random
    >>> random.ball(random.PRNGKey(0), 3).shape
    (3,)
    """
    raw, _ = check_prng_key("ball", key)
    dtypes.check_user_dtype_supported(dtype)
    shp = _canon_shape(shape)
    _check_shape("ball", shp)
    d = _concrete_int(d, "The error occurred in jax.random.ball()")
    k1, k2 = _split(raw)
    g = generalized_normal(k1, p, (*shp, d), dtype)
    e = exponential(k2, shp, dtype)
    magnitude = jnp_abs(g) ** p if isinstance(p, int) else _xla_power(jnp_abs(g), p)
    return g / _xla_power(_row_sum(magnitude) + e, 1 / p)[..., None]


# ---- poisson and binomial -------------------------------------------------------------------
# JAX caps these rejection loops at the dtype's maximum iteration count, which no loop reaches
# in practice; the loops here run until every entry is accepted.


def _poisson_knuth(raw: Array, lam: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    def body_fn(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k, key, log_prod = carry
        key, subkey = _split(key)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = _uniform(subkey, shape, np.dtype(np.float32), 0.0, 1.0)
        return k, key, log_prod + xla_math.log(u)

    def cond_fn(carry: tuple[Array, Array, Array]) -> Array:
        return jnp_any(carry[2] > -lam)

    k_init = zeros(shape, dtype)
    log_rate_init = zeros(shape, np.float32)
    k = while_loop(cond_fn, body_fn, (k_init, raw, log_rate_init))[0]
    return (k - 1).astype(dtype)


def _poisson_rejection(raw: Array, lam: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    # Hörmann's transformed rejection with squeeze (PTRS).
    log_lam = xla_math.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    fdt = np.dtype(get_aval(lam).dtype)

    def body_fn(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split(key, 3)
        u = _uniform(subkey_0, shape, fdt, 0.0, 1.0) - 0.5
        v = _uniform(subkey_1, shape, fdt, 0.0, 1.0)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = xla_math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t_ = -lam + k * log_lam - xla_math.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t_
        accept = accept1 | (~reject & accept2)
        return lax.select(accept, k, k_out), accepted | accept, key

    def cond_fn(carry: tuple[Array, Array, Array]) -> Array:
        return jnp_any(~carry[1])

    k_init = jnp_full(shape, -1, fdt)
    accepted = zeros(shape, bool)
    k = while_loop(cond_fn, body_fn, (k_init, accepted, raw))[0]
    return k.astype(dtype)


def poisson(key: Any, lam: Any, shape: Shape | None = None, dtype: Any = int) -> Array:
    """Poisson(lam) samples: Knuth's method for lam < 10, transformed rejection above.

    >>> from numjax import random
    >>> random.poisson(random.PRNGKey(0), 3.0, (2,)).dtype
    dtype('int32')
    """
    raw, _ = check_prng_key("poisson", key)
    dtypes.check_user_dtype_supported(dtype)
    if raw._impl is not prng.threefry_prng_impl:
        # JAX 0.4.30's rejection loops assume threefry keys.
        raise NotImplementedError("`poisson` is only implemented for the threefry2x32 RNG, "
                                  f"not {raw._impl}")
    dt = dtypes.canonicalize_dtype(dtype)
    shp = _shape_of(lam) if shape is None else _canon_shape(shape)
    lam = lax.convert_element_type(broadcast_to(lam, shp), np.float32)
    use_knuth = lax.ne(lam, lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    result = lax.select(use_knuth, _poisson_knuth(raw, lam_knuth, shp, dt),
                        _poisson_rejection(raw, lam_rejection, shp, dt))
    return lax.select(lam == 0, zeros_like(result), result)


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_approx_tail(k: Array) -> Array:
    dt = np.dtype(get_aval(k).dtype)
    tail_vals = array(_STIRLING_TAIL, dtype=dt)
    use_tail_values = k <= 9
    k = lax.clamp(_const(dt, 0.0), k, _const(dt, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return lax.select(use_tail_values, tail_vals[floor(k).astype(np.int32)], approx)


def _binomial_inversion(raw: Array, count: Array, prob: Array, shape: tuple[int, ...]
                        ) -> Array:
    log1minusprob = xla_math.log1p(-prob)
    fdt = np.dtype(get_aval(prob).dtype)

    def body_fn(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        num_geom, geom_sum, key = carry
        subkey, key = _split(key)  # (JAX takes the first half as the subkey here)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = _uniform(subkey, shape, fdt, 0.0, 1.0)
        geom = ceil(xla_math.log(u) / log1minusprob)
        return num_geom_out, geom_sum + geom, key

    def cond_fn(carry: tuple[Array, Array, Array]) -> Array:
        return jnp_any(carry[1] <= count)

    init = (zeros(shape, fdt), zeros(shape, fdt), raw)
    return while_loop(cond_fn, body_fn, init)[0] - 1


def _btrs(raw: Array, count: Array, prob: Array, shape: tuple[int, ...]) -> Array:
    # Hörmann's transformed rejection (BTRS) for binomials with count * prob > 10.
    fdt = np.dtype(get_aval(prob).dtype)
    stddev = sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = floor((count + 1) * prob)

    def body_fn(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split(key, 3)
        u = _uniform(subkey_0, shape, fdt, 0.0, 1.0)
        v = _uniform(subkey_1, shape, fdt, 0.0, 1.0)
        u = u - 0.5
        us = 0.5 - jnp_abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = xla_math.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * xla_math.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * xla_math.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * xla_math.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return lax.select(accept, k, k_out), accepted | accept, key

    def cond_fn(carry: tuple[Array, Array, Array]) -> Array:
        return jnp_any(~carry[1])

    init = (jnp_full(shape, -1, fdt), zeros(shape, bool), raw)
    return while_loop(cond_fn, body_fn, init)[0]


def binomial(key: Any, n: Any, p: Any, shape: Shape | None = None, dtype: Any = float) -> Array:
    """Binomial(n, p) samples (as floats): inversion for n p <= 10, BTRS rejection above.

    >>> from numjax import random
    >>> float(random.binomial(random.PRNGKey(0), 10.0, 0.5)) in range(11)
    True
    """
    raw, _ = check_prng_key("binomial", key)
    dtypes.check_user_dtype_supported(dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError("dtype argument to `binomial` must be a float dtype, got {dtype}")
    dt = dtypes.canonicalize_dtype(dtype)
    if shape is None:
        shp = _broadcast_shapes(_shape_of(n), _shape_of(p))
    else:
        shp = _canon_shape(shape)
        _check_shape("binomial", shp, _shape_of(n), _shape_of(p))
    prob = asarray(p)
    if not dtypes.issubdtype(prob.dtype, np.inexact):
        prob = prob.astype(dtypes.default_float_dtype())
    count = broadcast_to(lax.convert_element_type(n, prob.dtype), shp)
    prob = broadcast_to(prob, shp)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = lax.ne(count, count) | (count < 0.0)
    count_inf = isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    samples = lax.select(use_inversion,
                         _binomial_inversion(raw, count_inv, q, shp).astype(dt),
                         _btrs(raw, count_btrs, q_btrs, shp).astype(dt))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, full_like(samples, np.nan, dt), samples)
    samples = lax.select(count_inf & (~invalid), full_like(samples, np.inf, dt), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dt) - samples)


transfer_guard.entry_points(globals(), defaults=True)

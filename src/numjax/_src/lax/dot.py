"""`dot_general`: batched tensor contraction, computed by NumPy's matmul (BLAS)."""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from numjax._src import config, dtypes
from numjax._src.compiler import fusion, native_structural, passes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import JaxprEqn, Var
from numjax._src.core.trace import Primitive, operand_aval
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import moveaxis, not_mapped
from numjax._src.lax import elementwise as ew
from numjax._src.lax import structural as st
from numjax._src.runtime import blas
from numjax._src.typing import Array

DimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]],
                         tuple[tuple[int, ...], tuple[int, ...]]]

dot_general_p = Primitive("dot_general")


def _free_dims(ndim: int, contract: Sequence[int], batch: Sequence[int]) -> list[int]:
    return [i for i in range(ndim) if i not in contract and i not in batch]


def _precision_rank(dtype: np.dtype) -> tuple[bool, int, int, int, bool]:
    """How XLA orders element types to pick a product's result type (its HigherPrecisionType):
    complex over real, then exponent range, mantissa width, bit width, signed over unsigned;
    so int8 x float32 computes in float32 and uint8 x int8 in int8."""
    real = _real_dtype(dtype)
    floating = dtypes.issubdtype(real, np.floating)
    return (dtypes.issubdtype(dtype, np.complexfloating),
            int(dtypes.finfo(real).maxexp) if floating else -1,
            int(dtypes.finfo(real).nmant) if floating else -1,
            _bit_width(real), not dtypes.issubdtype(real, np.unsignedinteger))


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.finfo(dtype).dtype if dtype.kind == "c" else dtype


def _bit_width(dtype: np.dtype) -> int:
    if dtype == np.dtype(bool):
        return 1
    if dtypes.issubdtype(dtype, np.inexact):
        return int(dtypes.finfo(dtype).bits)
    return int(dtypes.iinfo(dtype).bits)


def _higher_precision(a: np.dtype, b: np.dtype) -> np.dtype:
    ra, rb = _precision_rank(a), _precision_rank(b)
    if ra == rb and a != b:
        raise TypeError(f"lax.dot_general argument type error: {a}, {b}")
    return a if ra >= rb else b


def dot_result_dtype(lhs: np.dtype, rhs: np.dtype, preferred: np.dtype | None) -> np.dtype:
    """The element type of `dot_general(lhs, rhs)`: the operands' higher-precision type, or
    `preferred`, which may widen an integer or boolean result but not narrow it (a float
    result may be asked for in any type).

    >>> dot_result_dtype(np.dtype("int8"), np.dtype("float32"), None)
    dtype('float32')
    """
    result = _higher_precision(lhs, rhs)
    if preferred is None or preferred == result:
        return result
    if not dtypes.issubdtype(result, np.floating) and _bit_width(preferred) < _bit_width(result):
        raise TypeError("`preferred_element_type` must not be narrower than the original type, "
                        f"got preferred_element_type of {preferred} for result type of "
                        f"{result}.")
    return preferred


def _compute_dtype(lhs: np.dtype, rhs: np.dtype, preferred: Any) -> tuple[np.dtype, np.dtype]:
    """(the type the product is computed in, the result type). Operands are converted to the
    wider of the two, as XLA converts them: int8 x int8 asked for int32 accumulates in int32
    (no wrap-around), float32 asked for int32 is computed in float32 and converted after
    (saturating)."""
    result = _higher_precision(lhs, rhs)
    out = result if preferred is None else np.dtype(preferred)
    if out == result:
        return result, out
    return (out if _precision_rank(out) > _precision_rank(result) else result), out


def _complex_nans_checked(out: Any, a: Any, b: Any) -> Any:
    """`out` (a @ b, complex, from BLAS), or, for a product with a vector result that holds a
    NaN, the products summed in order as XLA's dot computes those: BLAS's complex dot and
    gemv combine the parts of an infinite term otherwise, so [inf+2.38j, 1+1j] .
    [inf+2.38j, 1+1j] came out nan+inf j where each product (inf+inf j) and the sum are
    JAX's inf+inf j. Matrix products (both free sizes above 1) stay BLAS's: XLA's Eigen gemm
    makes a row with an infinite term all NaN, as OpenBLAS's does. Only a result with a NaN
    can differ; checking the result costs a pass over it, not over the operands."""
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    a = a[None, :] if vector_a else a
    b = b[:, None] if vector_b else b
    if (a.shape[-2] != 1 and b.shape[-1] != 1) or not np.isnan(out).any():
        return out
    shape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a.shape[-2], b.shape[-1])
    acc = np.zeros(shape, np.result_type(a, b))
    with np.errstate(over="ignore", invalid="ignore"):
        for p in range(a.shape[-1]):
            acc += a[..., :, p, None] * b[..., None, p, :]
    acc = acc[..., 0, :] if vector_a else acc
    return acc[..., 0] if vector_b else acc


def _select_mask(a: Any, b: Any, nl: int, nr: int, same_rank: bool) -> Any:
    """The boolean operand of a one-term-per-element product (a: (..., nl, 1), b: (..., 1,
    nr)) that XLA:CPU computes as `select(mask, other, 0)`, or None. XLA rewrites such a dot
    into a multiply and a multiply by a converted bool into a select when the bool needs no
    broadcasting, that is when the other operand has one free element: then `inf * False` is
    0 (JAX 0.4.30: `[-inf] @ [False]` is 0.0, `[[inf], [1]] @ [[False]]` is [nan, 0]). A
    single-element product of operands of different ranks (`[inf] @ [[False]]`) is first
    reduced to a product of scalars, where the conversion is no longer seen: NaN. With batch
    dimensions only products of one element per batch select (`(2, 1, 1) x (2, 1, 3)` with a
    boolean right operand is NaN where inf meets False)."""
    batched = a.ndim == 3
    if a.dtype.kind == "b" and b.dtype.kind != "b" and nr == 1 and (
            (nl > 1 and not batched) or (nl == 1 and same_rank)):
        return a
    if b.dtype.kind == "b" and a.dtype.kind != "b" and nl == 1 and (
            (nr > 1 and not batched) or (nr == 1 and same_rank)):
        return b
    return None


def _dot_general_kernel(lhs: Any, rhs: Any, *, dimension_numbers: DimensionNumbers,
                        precision: Any, preferred_element_type: Any) -> Any:
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    lf = _free_dims(lhs.ndim, lc, lb)
    rf = _free_dims(rhs.ndim, rc, rb)
    batch_shape = [lhs.shape[d] for d in lb]
    lf_shape = [lhs.shape[d] for d in lf]
    rf_shape = [rhs.shape[d] for d in rf]
    nb = int(np.prod(batch_shape, dtype=np.int64))
    nk = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    nl = int(np.prod(lf_shape, dtype=np.int64))
    nr = int(np.prod(rf_shape, dtype=np.int64))
    # (batch, free, contract) @ (batch, contract, free): one matmul call on 3-D views.
    # Without batch dimensions the operands stay 2-D: a transposed 2-D view then reaches BLAS
    # with a transpose flag instead of being copied into a stack of matrices.
    a_shape = (nl, nk) if not lb else (nb, nl, nk)
    b_shape = (nk, nr) if not lb else (nb, nk, nr)
    a = np.transpose(lhs, (*lb, *lf, *lc)).reshape(a_shape)
    b = np.transpose(rhs, (*rb, *rc, *rf)).reshape(b_shape)
    compute, out_dtype = _compute_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    mask = _select_mask(a, b, nl, nr, lhs.ndim == rhs.ndim) if nk == 1 else None
    other_side = 1 if mask is a else 0
    if a.dtype != compute:
        a = a.astype(compute)
    if b.dtype != compute:
        b = b.astype(compute)
    if nk == 1:
        # One term per element: XLA computes such a product as an elementwise multiply, so
        # inf * 0 is NaN and -1 * 0 is -0.0. BLAS would not do: NumPy's `ndarray.dot` treats a
        # one-element operand as a scalar and OpenBLAS's axpy skips a zero scalar altogether
        # (`[[inf], [0.44]] . [0.]` came out `[0, 0]`), and gemm adds the term to +0.0.
        with np.errstate(over="ignore", invalid="ignore"):
            # (nl, 1) x (1, nr), or with a leading batch axis: the broadcast is the product.
            if mask is not None:
                out = np.where(mask, (a, b)[other_side], np.zeros((), compute))
            else:
                out = (np.logical_and if compute.kind == "b" else np.multiply)(a, b)
    elif compute.kind == "b":
        out = np.matmul(a.astype(np.int32), b.astype(np.int32)) != 0
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # overflow gives inf, as XLA's
            out = np.matmul(a, b)
        if compute.kind == "c":
            out = _complex_nans_checked(out, a, b)
    out = out.reshape((*batch_shape, *lf_shape, *rf_shape))
    if out.dtype != out_dtype:
        out = st._convert_kernel(out, new_dtype=out_dtype, weak_type=False)
    return out


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *,
                               dimension_numbers: DimensionNumbers, precision: Any,
                               preferred_element_type: Any) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    for name, dims, aval in (("lhs contracting", lc, lhs), ("rhs contracting", rc, rhs),
                             ("lhs batch", lb, lhs), ("rhs batch", rb, rhs)):
        if any(not 0 <= d < aval.ndim for d in dims) or len(set(dims)) != len(dims):
            raise TypeError(
                f"dot_general requires {name} dimensions to be unique and in range, got "
                f"{dims} for shape {aval.shape}.")
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs and rhs batch dimensions, "
                        f"got lhs_batch {lb} and rhs_batch {rb}.")
    if len(lc) != len(rc):
        raise TypeError("dot_general requires equal numbers of lhs and rhs contracting "
                        f"dimensions, got lhs_contracting {lc} and rhs_contracting {rc}.")
    if [lhs.shape[d] for d in lb] != [rhs.shape[d] for d in rb]:
        raise TypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
            f"same shape, got {tuple(lhs.shape[d] for d in lb)} and "
            f"{tuple(rhs.shape[d] for d in rb)}.")
    if [lhs.shape[d] for d in lc] != [rhs.shape[d] for d in rc]:
        raise TypeError(
            "dot_general requires contracting dimensions to have the same shape, got "
            f"{tuple(lhs.shape[d] for d in lc)} and {tuple(rhs.shape[d] for d in rc)}.")
    dtype = dot_result_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    shape = (*(lhs.shape[d] for d in lb), *(lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb)),
             *(rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)))
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _dot_transpose_operand(ct: Any, other: Any, x_aval: Any, x_dims: tuple[Any, Any],
                           other_dims: tuple[Any, Any], other_first: bool, params: Any
                           ) -> Any:
    """Cotangent of one operand: contract ct with the other operand over the other's free
    dims, then permute the result into the operand's axis order."""
    (xc, oc), (xb, ob) = (x_dims[0], other_dims[0]), (x_dims[1], other_dims[1])
    other_ndim = get_aval(other).ndim
    nb = len(xb)
    x_free = _free_dims(x_aval.ndim, xc, xb)
    o_free = _free_dims(other_ndim, oc, ob)
    # ct's axes: batch, then lhs free, then rhs free.
    if other_first:
        ct_other_free = list(range(nb, nb + len(o_free)))
        ct_x_free = list(range(nb + len(o_free), nb + len(o_free) + len(x_free)))
    else:
        ct_x_free = list(range(nb, nb + len(x_free)))
        ct_other_free = list(range(nb + len(x_free), nb + len(x_free) + len(o_free)))
    dims = ((tuple(ct_other_free), tuple(o_free)), (tuple(range(nb)), tuple(ob)))
    result = dot_general_p.bind(ct, other, dimension_numbers=dims, **params)
    # result axes: batch (xb order), x free (ct order), then the other's remaining (contract)
    # dims in increasing order, each paired with an x contracting dim.
    paired = [xc[list(oc).index(d)] for d in sorted(oc)]
    layout = list(xb) + [x_free[i - ct_x_free[0]] for i in ct_x_free] + paired
    perm = tuple(int(i) for i in np.argsort(layout))
    result = st.transpose(result, perm)
    if get_aval(result).dtype != x_aval.dtype:
        result = st.convert_element_type(result, x_aval.dtype)
    return result


def _dot_general_transpose(ct: Any, lhs: Any, rhs: Any, *,
                           dimension_numbers: DimensionNumbers, precision: Any,
                           preferred_element_type: Any) -> list[Any]:
    (lc, rc), (lb, rb) = dimension_numbers
    params = {"precision": precision, "preferred_element_type": preferred_element_type}
    out: list[Any] = [None, None]
    if is_undefined_primal(lhs):
        out[0] = Zero(lhs.aval) if type(ct) is Zero else _dot_transpose_operand(
            ct, rhs, lhs.aval, (lc, lb), (rc, rb), False, params)
    if is_undefined_primal(rhs):
        out[1] = Zero(rhs.aval) if type(ct) is Zero else _dot_transpose_operand(
            ct, lhs, rhs.aval, (rc, rb), (lc, lb), True, params)
    return out


def _dot_general_batch(args: Sequence[Any], dims: Sequence[Any], *,
                       dimension_numbers: DimensionNumbers, precision: Any,
                       preferred_element_type: Any) -> tuple[Any, Any]:
    lhs, rhs = args
    ld, rd = dims
    (lc, rc), (lb, rb) = dimension_numbers

    def shift(ds: Sequence[int]) -> tuple[int, ...]:
        return tuple(d + 1 for d in ds)

    params = {"precision": precision, "preferred_element_type": preferred_element_type}
    if ld is not not_mapped and rd is not not_mapped:
        lhs, rhs = moveaxis(lhs, ld, 0), moveaxis(rhs, rd, 0)
        new = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=new, **params), 0

    # One operand batched: its batch axis stays where it is, one more free axis of that
    # operand, so no transpose is staged (as JAX batches it); the result has it among that
    # operand's free axes.
    def bump(ds: Sequence[int], d: int) -> tuple[int, ...]:
        return tuple(x + (x >= d) for x in ds)

    if ld is not not_mapped:
        lc, lb = bump(lc, ld), bump(lb, ld)
        before = sum(1 for f in _free_dims(get_aval(lhs).ndim, lc, lb) if f < ld)
        out = dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), **params)
        return out, len(lb) + before
    rc, rb = bump(rc, rd), bump(rb, rd)
    lhs_free = len(_free_dims(get_aval(lhs).ndim, lc, lb))
    before = sum(1 for f in _free_dims(get_aval(rhs).ndim, rc, rb) if f < rd)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), **params)
    return out, len(lb) + lhs_free + before


def _dot_general_params(params: dict[str, Any]) -> dict[str, Any]:
    """Printed as JAX prints them: dimension numbers with lists, no precision or preferred
    element type when None."""
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    out: dict[str, Any] = {"dimension_numbers": _ListsText(
        f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))")}
    for name in ("precision", "preferred_element_type"):
        if params[name] is not None:
            out[name] = params[name]
    return out


class _ListsText(str):
    pass


dot_general_p.def_param_printer(_dot_general_params)
_SMALL_PRODUCT = 4096  # result elements up to which ndarray.dot's lower call cost wins


def _complex_checked(kernel: Any, transpose_a: bool, transpose_b: bool) -> Any:
    """`kernel` (a planned BLAS product of complex operands) with `_complex_nans_checked`."""
    def checked(a: Any, b: Any) -> Any:
        out = kernel(a, b)
        return _complex_nans_checked(out, a.T if transpose_a else a, b.T if transpose_b else b)
    return checked


def _split_product(transpose_a: bool, transpose_b: bool, m: int, n: int,
                   dtype: np.dtype) -> Any:
    """The (m, n) product of two matrices as slices of its rows (or of its columns, when they
    are more) on the worker threads, each calling BLAS on its own thread. OpenBLAS's own
    threads spin between calls, competing with the caller and the other workers (a CNN
    step's conv blocks) for the cores, and on a loaded machine they burn most of the CPU
    time: the MLP 784-1024-1024-10 step under load, 57 ms of CPU with OpenBLAS's threads
    against 35 ms with one; this split keeps the one-thread cost."""
    by_rows = m >= n
    size = m if by_rows else n

    def product(a: Any, b: Any) -> Any:
        a = a.T if transpose_a else a
        b = b.T if transpose_b else b
        out = np.empty((m, n), dtype)
        step = -(-size // min(fusion.worker_threads(), size))

        def part(lo: int) -> None:
            hi = min(lo + step, size)
            if by_rows:
                np.matmul(a[lo:hi], b, out=out[lo:hi])
            else:
                np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])

        fusion.run_on_threads(blas.on_one_thread(part), range(0, size, step))
        return out

    return product


def _dot_general_kernel_factory(in_avals: Sequence[Any], *,
                                dimension_numbers: DimensionNumbers, precision: Any,
                                preferred_element_type: Any) -> Any:
    """A kernel planned once for these shapes: the common matrix products become a bare
    `np.matmul` or `ndarray.dot` call. Both reach the same BLAS routines with bit-identical
    results. `ndarray.dot` costs 0.3 us a call where the matmul ufunc costs 0.7-0.8 us, which is
    most of a small product's time (a 64-wide RNN step), but it clears its result first, which
    makes large products 1-2% slower; so small results take `dot`, large ones `matmul`.
    A contraction of length 1 is an elementwise product (`_dot_general_kernel`): the choice is
    made here, once per shape, so the BLAS paths pay nothing per call for IEEE results."""
    lhs, rhs = in_avals
    (lc, rc), (lb, rb) = dimension_numbers
    out_dtype = np.dtype(preferred_element_type) if preferred_element_type is not None \
        else lhs.dtype
    if (lhs.dtype == out_dtype == rhs.dtype and not lb
            and math.prod(lhs.shape[d] for d in lc) == 1):
        # Every element one term: an outer product of the operands with their contracting
        # dimensions (all of length 1) dropped, which keeps the free dimensions' order.
        lf_shape = tuple(d for i, d in enumerate(lhs.shape) if i not in lc)
        rf_shape = tuple(d for i, d in enumerate(rhs.shape) if i not in rc)
        a_shape = lf_shape + (1,) * len(rf_shape)
        ufunc = np.logical_and if out_dtype.kind == "b" else np.multiply
        return lambda a, b: ufunc(a.reshape(a_shape), b.reshape(rf_shape))
    if (lhs.dtype == out_dtype == rhs.dtype and lhs.dtype.kind in "fc" and not lb and lhs.ndim <= 2
            and rhs.ndim <= 2 and len(lc) == 1):
        transpose_a = lhs.ndim == 2 and lc == (0,)
        transpose_b = rhs.ndim == 2 and rc == (1,)
        out_size = math.prod(d for i, d in enumerate(lhs.shape) if i not in lc) \
            * math.prod(d for i, d in enumerate(rhs.shape) if i not in rc)
        dot = np.ndarray.dot if out_size <= _SMALL_PRODUCT else np.matmul
        if transpose_a and transpose_b:
            kernel = lambda a, b: dot(a.T, b.T)
        elif transpose_a:
            kernel = lambda a, b: dot(a.T, b)
        elif transpose_b:
            kernel = lambda a, b: dot(a, b.T)
        else:
            kernel = dot
        if lhs.dtype.kind == "c":
            kernel = _complex_checked(kernel, transpose_a, transpose_b)
        macs = out_size * lhs.shape[lc[0]]
        if (lhs.dtype.kind == "f" and lhs.ndim == rhs.ndim == 2 and macs > blas.ONE_THREAD_MACS
                and fusion.worker_threads() > 1 and blas.threads_settable()):
            m = lhs.shape[1 if transpose_a else 0]
            return _split_product(transpose_a, transpose_b, m, out_size // m, lhs.dtype)
        return blas.for_product(kernel, macs)
    return functools.partial(_dot_general_kernel, dimension_numbers=dimension_numbers,
                             precision=precision,
                             preferred_element_type=preferred_element_type)


dot_general_p.def_kernel_factory(_dot_general_kernel_factory)
dot_general_p.fresh_result = True  # every kernel path ends in a new matmul/dot result
dot_general_p.def_impl(_dot_general_kernel)
ad.defbilinear(dot_general_p, _dot_general_transpose)
dot_general_p.def_batch(_dot_general_batch)
dot_general_p.native = native_structural.dot_general_rule


def _dot_general_cost(in_avals: Sequence[Any], out_avals: Sequence[Any],
                      params: dict[str, Any]) -> tuple[float, float]:
    """Two flops (a multiply and an add) per output element per contracted element."""
    (lc, _), _ = params["dimension_numbers"]
    contracted = math.prod(in_avals[0].shape[d] for d in lc)
    return 2.0 * math.prod(out_avals[0].shape) * contracted, 0.0


dot_general_p.cost = _dot_general_cost


# ---- the compiler's rewrites of products ---------------------------------------------------

def _swapping_permutation(dot: JaxprEqn) -> tuple[int, ...]:
    """The permutation that turns `dot`'s output (batch, lhs free, rhs free) into
    (batch, rhs free, lhs free)."""
    (lc, _), (lb, _) = dot.params["dimension_numbers"]
    nb = len(lb)
    nl = len(dot.invars[0].aval.shape) - len(lc) - nb
    nr = len(dot.outvars[0].aval.shape) - nb - nl
    return (*range(nb), *range(nb + nl, nb + nl + nr), *range(nb, nb + nl))


def _transposed_product(eqn: JaxprEqn, producer: passes.Producer) -> Any:
    """`transpose(dot_general(a, b))` that swaps the two operands' free dimensions becomes
    `dot_general(b, a)`, when the transpose is the product's only reader. Reverse-mode
    products (a weight's gradient) come out in this form; computed directly, the result is
    contiguous rather than a transposed view that every later elementwise step walks with
    strides (the way a compiler assigns the product its consumer's layout)."""
    x = eqn.invars[0]
    dot = producer(x)
    if dot is None or dot.primitive is not dot_general_p or producer.uses(x) != 1:
        return None
    perm = tuple(eqn.params["permutation"])
    if perm != _swapping_permutation(dot) or perm == tuple(range(len(perm))):
        return None
    (lc, rc), (lb, rb) = dot.params["dimension_numbers"]
    params = {**dot.params, "dimension_numbers": ((rc, lc), (rb, lb))}
    return [dot.replace(invars=dot.invars[::-1], outvars=eqn.outvars, params=params)]


def _scaled_product(eqn: JaxprEqn, producer: passes.Producer) -> Any:
    """`s * dot_general(a, b)`, `s` a scalar, becomes `dot_general(s * a, b)` (or `s * b`,
    whichever operand is smaller) when the product has at least twice that operand's elements
    and the multiplication is its only reader. A gradient step `w - lr * (x.T @ g)` then scales
    the batch-sized operand instead of the weight-sized product: a quarter of the work for a
    1024x1024 weight at batch 256. Results differ from the unmoved product by rounding."""
    products = [k for k, a in enumerate(eqn.invars)
                if getattr(producer(a), "primitive", None) is dot_general_p]
    if len(eqn.invars) != 2 or not products:
        return None
    k = products[0]
    product, scale = eqn.invars[k], eqn.invars[1 - k]
    dot = producer(product)
    assert dot is not None
    out = dot.outvars[0].aval
    if (scale.aval.shape != () or producer.uses(product) != 1
            or out.dtype.kind not in "fc" or eqn.outvars[0].aval.dtype != out.dtype
            or any(o.aval.dtype != out.dtype or o.aval.weak_type for o in dot.invars)):
        return None
    sizes = [math.prod(o.aval.shape) for o in dot.invars]
    m = 0 if sizes[0] <= sizes[1] else 1
    if 2 * sizes[m] > math.prod(out.shape):
        return None
    scaled = Var(dot.invars[m].aval)
    factors = [scale, dot.invars[m]] if k == 1 else [dot.invars[m], scale]
    operands = list(dot.invars)
    operands[m] = scaled
    return [eqn.replace(invars=factors, outvars=[scaled]),
            dot.replace(invars=operands, outvars=eqn.outvars)]


st.transpose_p.def_rewrite(_transposed_product)
ew.mul_p.def_rewrite(_scaled_product)


class Precision(enum.Enum):
    """How precisely a product is computed on accelerators (`lax.Precision.HIGHEST`, or the
    strings 'highest'/'float32', 'high'/'tensorfloat32'/'bfloat16_3x', 'default'/'bfloat16'/
    'fastest'). On the CPU every level computes in the operands' type, as XLA:CPU does; the
    level is recorded in the program."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        return _PRECISION_NAMES.get(value) if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name


_PRECISION_NAMES = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST, "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
}

PrecisionLike = Union[str, Precision, tuple[str, str], tuple[Precision, Precision], None]  # noqa: UP007
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]


def canonicalize_precision(precision: Any) -> tuple[Precision, Precision] | None:
    """None, or one Precision per operand (JAX's error for anything else). None reads
    `jax_default_matmul_precision` at bind time, as JAX does, so the level the context asks for
    is the equation's param (printed, and part of the cache key)."""
    if precision is None:
        default = config.default_matmul_precision.value
        if default is None:
            return None
        try:
            return (Precision(default),) * 2  # "'bogus' is not a valid Precision" otherwise
        except TypeError:  # an unhashable value
            raise ValueError(
                "jax_default_matmul_precision flag must be set to None or a value in "
                f"{[*_PRECISION_NAMES, None]}, but got {default}") from None
    if isinstance(precision, str) and precision in _PRECISION_NAMES:
        return (Precision(precision),) * 2
    if isinstance(precision, Precision):
        return (precision, precision)
    if isinstance(precision, list | tuple) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return (precision[0], precision[1])
        if all(isinstance(p, str) and p in _PRECISION_NAMES for p in precision):
            return (Precision(precision[0]), Precision(precision[1]))
    names = [*_PRECISION_NAMES, None]
    raise ValueError(f"Precision argument must be None, a string in {names}, a lax.Precision "
                     "value or a tuple of two lax.Precision values or strings; got "
                     f"{precision}.")


def dot_general(lhs: Array, rhs: Array, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Array:
    """Contract `lhs` and `rhs` over the given contracting and batch dimensions.

    >>> import numjax.numpy as jnp
    >>> dot_general(jnp.ones((2, 3)), jnp.ones((3, 4)), (((1,), (0,)), ((), ()))).shape
    (2, 4)
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dims = ((tuple(int(d) for d in lc), tuple(int(d) for d in rc)),
            (tuple(int(d) for d in lb), tuple(int(d) for d in rb)))
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(
        preferred_element_type)
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dims,
                              precision=canonicalize_precision(precision),
                              preferred_element_type=pet)


def batch_matmul(lhs: Array, rhs: Array, precision: Any = None) -> Array:
    """Matrix products over the last two axes, batched over the leading ones (equal ranks,
    equal batch dimensions).

    >>> import numjax.numpy as jnp
    >>> batch_matmul(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))).shape
    (2, 3, 5)
    """
    l_ndim, r_ndim = get_aval(lhs).ndim, get_aval(rhs).ndim
    if min(l_ndim, r_ndim) < 2:
        raise ValueError("Arguments to batch_matmul must be at least 2D, got "
                         f"{l_ndim}, {r_ndim}")
    if l_ndim != r_ndim:
        raise ValueError("Arguments to batch_matmul must have same ndim, got "
                         f"{l_ndim}, {r_ndim}")
    batch = tuple(range(l_ndim - 2))
    return dot_general(lhs, rhs, (((l_ndim - 1,), (r_ndim - 2,)), (batch, batch)), precision)


def dot(lhs: Array, rhs: Array, precision: Any = None,
        preferred_element_type: Any = None) -> Array:
    """Vector/matrix dot product of 1-D or 2-D operands."""
    l_ndim, r_ndim = operand_aval(lhs, "ndim").ndim, operand_aval(rhs, "ndim").ndim
    if 1 <= l_ndim <= 2 and 1 <= r_ndim <= 2:
        return dot_general(lhs, rhs, (((l_ndim - 1,), (0,)), ((), ())), precision,
                           preferred_element_type)
    raise TypeError("Incompatible shapes for dot: got "
                    f"{get_aval(lhs).shape} and {get_aval(rhs).shape}.")

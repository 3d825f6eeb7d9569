"""General dilated convolution (XLA's ConvGeneralDilated) and its wrappers.

The kernel works in the canonical layout (batch, feature, *spatial) for lhs and output and
(out feature, in feature, *spatial) for rhs: it interior-pads (lhs dilation) and pads the lhs,
takes every window with `sliding_window_view` (strided for window strides and rhs dilation, so
no copy yet), and contracts windows with the kernel, group by group, with `tensordot`/`einsum`.

Both transposes are again convolutions, derived in the canonical layout:
- lhs: out[y] = sum_k lhs_padded[y*s + k*rd] rhs[k], so the lhs cotangent at padded position x
  gathers ct[y] rhs[k] over y*s + k*rd = x: a convolution of the s-dilated ct with the reversed
  kernel, read every `lhs_dilation`-th position, starting at the low padding.
- rhs: rhs_ct[k] = sum_{n,y} ct[n, y] lhs_padded[n, y*s + k*rd]: a convolution over the lhs in
  which the batch becomes the contracted feature and the ct is the (s-dilated) kernel, with
  window stride rd.
Feature groups turn into regrouped kernels and batch groups into feature groups.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Union

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import fusion
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.trace import Primitive, operand_aval
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.interpreters.batching import moveaxis, not_mapped
from numjax._src.lax import structural as st
from numjax._src.lax.dot import canonicalize_precision
from numjax._src.runtime import blas
from numjax._src.typing import Array

__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_p",
    "conv_transpose",
    "conv_with_general_padding",
    "padtype_to_pads",
]

Ints = tuple[int, ...]
Pads = tuple[tuple[int, int], ...]


class ConvDimensionNumbers(NamedTuple):
    """Where the batch/feature/spatial dimensions are: `lhs_spec` = (batch, feature, *spatial),
    `rhs_spec` = (out feature, in feature, *spatial), `out_spec` = (batch, feature, *spatial)."""

    lhs_spec: Ints
    rhs_spec: Ints
    out_spec: Ints


ConvGeneralDilatedDimensionNumbers = Union[  # noqa: UP007 (prints as JAX's does)
    tuple[str, str, str], ConvDimensionNumbers, None]


# ---- dimension numbers and padding ---------------------------------------------------------


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:
    """Canonical `ConvDimensionNumbers` from None (NC..., OI..., NC...), a
    `ConvDimensionNumbers`, or three layout strings such as ('NHWC', 'HWIO', 'NHWC').

    >>> conv_dimension_numbers((1, 5, 5, 3), (2, 2, 3, 8), ('NHWC', 'HWIO', 'NHWC'))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        # Taken as given, as in JAX: the ranks are checked with the shapes (abstract eval).
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim "
                            f"of lhs and rhs, got {len(s)} for lhs and rhs shapes {lhs_shape} "
                            f"and {rhs_shape}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


_SPEC_LETTERS = (("N", "C"), ("O", "I"), ("N", "C"))


def conv_general_permutations(dimension_numbers: Sequence[str]) -> tuple[Ints, Ints, Ints]:
    """The (batch or out-feature, feature or in-feature, *spatial) dimension order of each of
    three layout strings; spatial dimensions are matched by letter in the kernel's order.

    >>> conv_general_permutations(('NHWC', 'HWIO', 'NHWC'))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    for i, (layout, (a, b)) in enumerate(zip(dimension_numbers, _SPEC_LETTERS, strict=True)):
        if not layout.count(a) == layout.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {layout}.")
        if len(set(layout)) != len(layout):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {layout}.")
    spatial = [set(layout) - set(pair)
               for layout, pair in zip(dimension_numbers, _SPEC_LETTERS, strict=True)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError("convolution dimension_numbers elements must each have the same set of "
                        f"spatial characters, got {dimension_numbers}.")
    rhs_spatial = [c for c in dimension_numbers[1] if c not in "OI"]

    def spec(layout: str, pair: tuple[str, str]) -> Ints:
        return (layout.index(pair[0]), layout.index(pair[1]),
                *(layout.index(c) for c in rhs_spatial))

    lhs, rhs, out = (spec(layout, pair)
                     for layout, pair in zip(dimension_numbers, _SPEC_LETTERS, strict=True))
    return lhs, rhs, out


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                     strides: Sequence[int], pads: Any, batch_group_count: int = 1
                     ) -> tuple[int, ...]:
    """Output shape of a convolution of shapes in the canonical (N, C, *spatial) and
    (O, I, *spatial) layouts; `pads` is a padding name or explicit (low, high) pairs.

    >>> conv_shape_tuple((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), 'SAME')
    (2, 8, 5, 5)
    """
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [int(n) + int(lo) + int(hi) for n, (lo, hi) in zip(lhs_shape[2:], pads,
                                                                   strict=True)]
    if any(n < 0 for n in padded):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    space = [builtins.max((n - int(k)) // int(s) + 1, 0)
             for n, k, s in zip(padded, rhs_shape[2:], strides, strict=True)]
    batch = int(lhs_shape[0]) // batch_group_count
    return (batch, int(rhs_shape[0]), *space)


def _permuted(shape: Sequence[int], perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(shape[p]) for p in perm)


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                             window_strides: Sequence[int], padding: Any,
                             dimension_numbers: Sequence[str]) -> tuple[int, ...]:
    """Output shape of a convolution in the layouts named by `dimension_numbers`.

    >>> conv_general_shape_tuple((2, 9, 9, 3), (3, 3, 3, 8), (1, 1), 'VALID',
    ...                          ('NHWC', 'HWIO', 'NHWC'))
    (2, 7, 7, 8)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(_permuted(lhs_shape, lhs_perm), _permuted(rhs_shape, rhs_perm),
                           window_strides, padding)
    return _permuted(out, _perm_inverse(out_perm))


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                               window_strides: Sequence[int], padding: Any,
                               dimension_numbers: Sequence[str]) -> tuple[int, ...]:
    """Output shape of `conv_transpose` (no kernel dilation) in the named layouts.

    >>> conv_transpose_shape_tuple((1, 5, 5, 2), (2, 2, 2, 3), (2, 2), 'SAME',
    ...                            ('NHWC', 'HWIO', 'NHWC'))
    (1, 10, 10, 3)
    """
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs, rhs = _permuted(lhs_shape, lhs_perm), _permuted(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_pads(k, s, padding)
                   for k, s in zip(rhs[2:], window_strides, strict=True)]
    space = [(n - 1) * int(s) - k + 2 + int(sum(pad))
             for n, k, s, pad in zip(lhs[2:], rhs[2:], window_strides, padding, strict=True)]
    return _permuted((lhs[0], rhs[0], *space), _perm_inverse(out_perm))


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding: str) -> list[tuple[int, int]]:
    """Explicit (low, high) pads for 'SAME', 'SAME_LOWER' or 'VALID' padding.

    'SAME' pads so that the output has ceil(in / stride) positions, the odd element high.

    >>> padtype_to_pads((5, 6), (2, 3), (2, 1), 'SAME')
    [(0, 1), (1, 1)]
    """
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID' or 'SAME', got {padding}.")
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-int(n) // int(s))
        total = builtins.max((out - 1) * int(s) + int(w) - int(n), 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if kind == "SAME" else (big, small))
    return pads


def _dilate_dim(d: int, dilation: int) -> int:
    return 0 if d == 0 else 1 + dilation * (d - 1)


def _out_size(n: int, k: int, stride: int, lo: int, hi: int, ld: int, rd: int) -> int:
    padded = _dilate_dim(n, ld) + lo + hi
    window = _dilate_dim(k, rd)
    return builtins.max((padded - window) // stride + 1, 0) if padded >= window else 0


def _perm_inverse(spec: Sequence[int]) -> Ints:
    return tuple(int(i) for i in np.argsort(spec))


# ---- the primitive -------------------------------------------------------------------------

conv_general_dilated_p = Primitive("conv_general_dilated")


def _accumulation_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.kind == "b":
        return np.dtype(np.int32)
    if dtype.kind in "iu":
        return np.dtype(np.int64) if dtype.kind == "i" else np.dtype(np.uint64)
    if dtype.itemsize < 4 or dtype == dtypes.bfloat16:
        return np.dtype(np.float32)
    return dtype


def _placement(n: int, lo: int, hi: int, ld: int) -> tuple[slice, slice] | None:
    """Where the elements of one lhs dimension land in its dilated, padded copy: (source,
    destination) slices, or None when padding crops every element away. Negative padding
    crops, so the first and last kept elements are found from the bounds."""
    size = _dilate_dim(n, ld) + lo + hi
    first = (-lo + ld - 1) // ld if lo < 0 else 0
    last = builtins.min(n - 1, (size - 1 - lo) // ld) if size > lo else -1
    if last < first:
        return None
    start = lo + first * ld
    return slice(first, last + 1), slice(start, start + (last - first) * ld + 1, ld)


# The column matrix of a convolution is built and multiplied in blocks of whole images (of
# the lhs batch, or of the batch a kernel gradient sums over) of about COLUMN_BLOCK_BYTES, each
# copied into one reused buffer that is still in the core's cache when BLAS reads it, rather
# than one matrix of the whole batch written out to memory and read back. CPU time, one BLAS
# thread, 2 MB L2 (AMD EPYC): 32x14x14x64 NHWC input with a 3x3x64x32 kernel 6.2 -> 3.6 ms,
# 32x14x14x32 with 3x3x32x64 4.0 -> 3.1 ms; blocks of 4 MB lose part of it (3.6 -> 4.0).
COLUMN_BLOCK_BYTES = 1 << 20
# Products that OpenBLAS would thread share their blocks between the worker threads instead
# (OpenBLAS's threads spin between calls, taking the cores from the workers: see dot.py).
THREADED_MACS = blas.ONE_THREAD_MACS
# A product over the batch (a kernel gradient's) is summed block by block only when its result
# is at most this large: it is added up once per block.
SUMMED_RESULT_BYTES = 1 << 20


def _column_blocks(count: int, item_bytes: int, threaded: bool) -> list[slice]:
    """Slices of `count` items (images) of `item_bytes` each, one block buffer apiece; at
    least a block per worker thread when `threaded`."""
    step = builtins.max(1, COLUMN_BLOCK_BYTES // builtins.max(1, item_bytes))
    if threaded:
        step = builtins.min(step, -(-count // fusion.worker_threads()))
    return [slice(i, builtins.min(i + step, count)) for i in range(0, count, step)]


def _taps_first(nsp: int) -> Ints:
    """Windows (lead, *a, *b, trail), a and b of `nsp` axes each, as (*b, trail, lead, *a)."""
    return (*range(nsp + 1, 2 * nsp + 1), 2 * nsp + 1, 0, *range(1, nsp + 1))


def _blockwise(work: Callable[[list[slice]], Any], blocks: list[slice],
               threaded: bool) -> list[Any]:
    """`work` over the blocks: on the caller, or shared between the worker threads (each
    calling BLAS on its own thread)."""
    if not threaded or len(blocks) < 2:
        return [work(blocks)]
    parts = builtins.min(fusion.worker_threads(), len(blocks))
    step = -(-len(blocks) // parts)
    return fusion.run_on_threads(blas.on_one_thread(work),
                                 [blocks[i:i + step] for i in range(0, len(blocks), step)])


def _columns(win: Any, buf: Any, along_space: bool) -> Any:
    """The windows `win` (lead, *a, *b, trail) copied into `buf` in that order, or as
    (*b, trail, lead, *a) `along_space`: with `trail` of size 1 a copy in the first order would
    move one element per inner loop, in the second it runs along the last axis of a."""
    if along_space:
        win = win.transpose(_taps_first((win.ndim - 2) // 2))
    cols = buf[:win.size].reshape(win.shape)
    np.copyto(cols, win)
    return cols


def _batch_product(windows: Any, w: Any, threaded: bool) -> Any:
    """(N, *out, O): the windows (N, *out, *window, C) times the kernel `w` (taps * C, O), a
    block of images at a time."""
    n, c, o = windows.shape[0], windows.shape[-1], w.shape[1]
    out = np.empty((*windows.shape[:(windows.ndim - 2) // 2 + 1], o), w.dtype)
    item = windows[0].size
    along_space = c == 1

    def work(part: list[slice]) -> None:
        buf = np.empty((part[0].stop - part[0].start) * item, w.dtype)
        for sl in part:
            cols = _columns(windows[sl], buf, along_space)
            a = cols.reshape(w.shape[0], -1).T if along_space else cols.reshape(-1, w.shape[0])
            np.matmul(a, w, out=out[sl].reshape(-1, o))

    _blockwise(work, _column_blocks(n, item * w.dtype.itemsize, threaded), threaded)
    return out


def _batch_summed_product(windows: Any, w: Any, rows: int, threaded: bool,
                          summed: bool) -> Any:
    """(rows, O): the windows (C, *window, *out, N) of an lhs read features-first, as a
    matrix (C * taps, rows), transposed times the kernel `w` (C, taps, O); summed over blocks
    of C when `summed`, or one product."""
    c, n = windows.shape[0], windows.shape[-1]
    taps, o = w.shape[1:]
    item = windows[0].size
    along_space = n == 1
    blocks = _column_blocks(c, item * w.dtype.itemsize, threaded) if summed else [
        slice(0, c)]

    def work(part: list[slice]) -> Any:
        buf = np.empty((part[0].stop - part[0].start) * item, w.dtype)
        total = None
        for sl in part:
            cols = _columns(windows[sl], buf, along_space)
            k = (sl.stop - sl.start) * taps
            a = cols.reshape(rows, k) if along_space else cols.reshape(k, rows).T
            term = np.matmul(a, w[sl].reshape(k, o))
            total = term if total is None else np.add(total, term, out=total)
        return total

    parts = _blockwise(work, blocks, threaded)
    out = parts[0]
    for part in parts[1:]:
        out = np.add(out, part, out=out)
    return out


def _conv_kernel_factory(in_avals: Sequence[Any], *, window_strides: Ints, padding: Pads,
                         lhs_dilation: Ints, rhs_dilation: Ints,
                         dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                         batch_group_count: int, precision: Any,
                         preferred_element_type: Any) -> Callable[..., Any]:
    """A convolution kernel planned once for these shapes, as one matrix product (per group)
    of the lhs windows with the kernel: im2col.

    It works channels-last whatever the layout: the lhs as (N, *spatial, C), the kernel as
    (*window, I, O), the result as (N, *out, O), so that a window's (offset, feature) values are
    one row of the column matrix and the product is a single BLAS call. NHWC/HWIO operands are
    read in place; other layouts become strided views that the one copy (padding or the column
    matrix) reads. The lhs is dilated and padded into a zero buffer only when padding or
    dilation ask for it; the windows are then a strided view of it (window strides and kernel
    dilation in its strides) which the column matrix copies once, a block of images at a time
    into a buffer that stays in cache (`COLUMN_BLOCK_BYTES`), blocks of large products shared
    between the worker threads."""
    dn = dimension_numbers
    lhs_aval, rhs_aval = in_avals
    out_dtype = np.dtype(preferred_element_type or lhs_aval.dtype)
    acc = _accumulation_dtype(np.result_type(lhs_aval.dtype, out_dtype))
    n, c, *space = _permuted(lhs_aval.shape, dn.lhs_spec)
    o, cg, *ks = _permuted(rhs_aval.shape, dn.rhs_spec)
    outs = [_out_size(*a) for a in zip(space, ks, window_strides, *zip(*padding, strict=True),
                                       lhs_dilation, rhs_dilation, strict=True)]
    fgc, bgc = feature_group_count, batch_group_count
    groups = builtins.max(fgc, bgc)
    out_n = n // bgc
    # Channels-last (N, *out, O) -> the output layout: output axis j holds canonical
    # dimension out_spec.index(j), which channels-last keeps at 0 (N), last (O) or d - 1.
    where = [0, len(space) + 1, *range(1, len(space) + 1)]
    out_perm = tuple(where[d] for d in _perm_inverse(dn.out_spec))
    if 0 in (out_n, o, c, *outs, *ks):
        shape = tuple((out_n, *outs, o)[i] for i in out_perm)
        return lambda lhs, rhs: np.zeros(shape, out_dtype)
    lhs_perm = (dn.lhs_spec[0], *dn.lhs_spec[2:], dn.lhs_spec[1])
    rhs_perm = (*dn.rhs_spec[2:], dn.rhs_spec[1], dn.rhs_spec[0])
    places = [_placement(*a) for a in zip(space, *zip(*padding, strict=True), lhs_dilation,
                                         strict=True)]
    padded = tuple(_dilate_dim(m, d) + lo + hi
                   for m, (lo, hi), d in zip(space, padding, lhs_dilation, strict=True))
    needs_pad = any(p != (0, 0) for p in padding) or any(d != 1 for d in lhs_dilation)
    src = (slice(None), *(p[0] for p in places if p), slice(None))
    dst = (slice(None), *(p[1] for p in places if p), slice(None))
    empty = None in places
    rows, taps, og = out_n * math.prod(outs), math.prod(ks), o // groups
    # One tap of one input feature for one output feature per group: XLA computes such a
    # convolution as a multiply, so -1 * 0 is -0.0 where gemm adds the term to +0.0 (JAX
    # 0.4.30; with several output features, or batch groups, its result is +0.0 as here).
    single = taps * (c if groups == 1 else cg) == 1 and og == 1 and bgc == 1
    product = np.multiply if single else np.matmul

    # The lhs read features-first and batch-last ((C, *spatial, N) in memory: the transposed
    # operand of a kernel gradient, whose "batch" is the forward's features): windows taken
    # in that order make the column matrix (C * taps, outs * N) in one contiguous copy, and
    # the product its transpose with the kernel as (C * taps, O), where the channels-last
    # plan would copy both operands across their strides (32x14x14x32 NHWC input, 3x3x32x64
    # kernel gradient: 3.2 ms of CPU time against 4.3). With N = 1 (a one-feature input's
    # kernel gradient) the columns are copied along the window instead, so they are no worse
    # than the channels-last plan's when the result is small.
    swap_perm = (dn.lhs_spec[1], *dn.lhs_spec[2:], dn.lhs_spec[0])
    swap_rhs_perm = (dn.rhs_spec[1], *dn.rhs_spec[2:], dn.rhs_spec[0])
    small_result = rows * o * acc.itemsize <= SUMMED_RESULT_BYTES
    swappable = groups == 1 and not single and (n > 1 or small_result)
    threaded = (rows * taps * c * o > THREADED_MACS and fusion.worker_threads() > 1
                and blas.threads_settable())

    def pad_or_cast(x: Any, lead: int, trail: int) -> Any:
        """`x`, laid out (lead, *spatial, trail), padded and dilated into a buffer of the
        accumulation dtype, or cast to it."""
        if needs_pad:
            buf = np.zeros((lead, *padded, trail), acc)
            if not empty:
                buf[dst] = x[src]
            return buf
        return x if x.dtype == acc else x.astype(acc)

    def swapped(xm: Any, rhs: Any) -> Any:
        xm = pad_or_cast(xm, c, n)
        strides = xm.strides
        windows = np.lib.stride_tricks.as_strided(
            xm, (c, *ks, *outs, n),
            (strides[0], *(st * d for st, d in zip(strides[1:-1], rhs_dilation, strict=True)),
             *(st * s for st, s in zip(strides[1:-1], window_strides, strict=True)),
             strides[-1]), writeable=False)
        w = np.transpose(np.asarray(rhs), swap_rhs_perm).astype(acc, copy=False)
        out = _batch_summed_product(windows, w.reshape(c, taps, o), rows, threaded,
                                    summed=small_result)
        out = np.moveaxis(out.reshape(*outs, n, o), -2, 0).transpose(out_perm)
        return out.astype(out_dtype, copy=False)

    def kernel(lhs: Any, rhs: Any) -> Any:
        if swappable:
            xm = np.transpose(np.asarray(lhs), swap_perm)
            if xm.flags.c_contiguous:
                return swapped(xm, rhs)
        x = pad_or_cast(np.transpose(np.asarray(lhs), lhs_perm), n, c)
        strides = x.strides
        # (N, *out, *window, C): every window, strided by the window strides and dilations.
        windows = np.lib.stride_tricks.as_strided(
            x, (n, *outs, *ks, c),
            (strides[0], *(st * s for st, s in zip(strides[1:-1], window_strides, strict=True)),
             *(st * d for st, d in zip(strides[1:-1], rhs_dilation, strict=True)), strides[-1]),
            writeable=False)
        w = np.transpose(np.asarray(rhs), rhs_perm).astype(acc, copy=False)
        if groups == 1 and not single:
            out = _batch_product(windows, w.reshape(taps * c, o), threaded)
        elif groups == 1:
            out = product(windows.reshape(rows, taps * c), w.reshape(taps * c, o))
        else:
            if fgc > 1:
                # Features split as (group, C / group), the group leading the products.
                cols = np.moveaxis(windows.reshape(*windows.shape[:-1], groups, cg), -2, 0)
            else:
                # The batch split as (group, N / group): batch group g meets kernel group g.
                cols = windows.reshape(groups, out_n, *windows.shape[1:])
            cols = cols.reshape(groups, rows, taps * cg)
            kern = np.moveaxis(w.reshape(taps * cg, groups, og), 1, 0)
            # (group, rows, O / group) -> (rows, O) with the group leading each row's features.
            out = product(cols, kern).transpose(1, 0, 2).reshape(rows, o)
        out = out.reshape(out_n, *outs, o).transpose(out_perm)
        return out.astype(out_dtype, copy=False)

    # Each group's product on BLAS's threads as dot_general's.
    return blas.for_product(kernel, rows * taps * cg * og)


def _conv_kernel(lhs: Any, rhs: Any, **params: Any) -> Any:
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    avals = [ShapedArray(x.shape, x.dtype) for x in (lhs, rhs)]
    return _conv_kernel_factory(avals, **params)(lhs, rhs)


def _check_group_counts(lhs_n: int, lhs_c: int, rhs_o: int, rhs_i: int, fgc: int,
                        bgc: int) -> None:
    name = "conv_general_dilated"
    if fgc > 1 and bgc > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be > 1, "
                         f"got batch_group_count={bgc} and feature_group_count={fgc}")
    for what, count in (("feature_group_count", fgc), ("batch_group_count", bgc)):
        if count < 1:
            raise ValueError(f"{name} {what} must be a positive integer, got {count}")
    if lhs_c % fgc:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension size, "
                         f"but {fgc} does not divide {lhs_c}.")
    if lhs_c // fgc != rhs_i:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count must "
                         "equal the rhs input feature dimension size, but "
                         f"{lhs_c} // {fgc} != {rhs_i}.")
    if rhs_o % fgc:
        raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                         f"feature_group_count, but {rhs_o} is not a multiple of {fgc}.")
    if lhs_n % bgc:
        raise ValueError(f"{name} batch_group_count must divide lhs batch dimension size, but "
                         f"{bgc} does not divide {lhs_n}.")
    if rhs_o % bgc:
        raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                         f"batch_group_count, but {rhs_o} is not a multiple of {bgc}.")


def _check_window_arity(nsp: int, window_strides: Ints, lhs_dilation: Ints,
                        rhs_dilation: Ints) -> None:
    """One stride and one dilation per spatial dimension: checked before string padding is
    worked out (which pairs them up) and again on the primitive's params."""
    if len(window_strides) != nsp:
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {nsp} and {len(window_strides)}")
    for dil in (lhs_dilation, rhs_dilation):
        if len(dil) != nsp:
            raise ValueError(f"conv_general_dilated dilations must have {nsp} entries, got "
                             f"{dil}")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides: Ints,
                        padding: Pads, lhs_dilation: Ints, rhs_dilation: Ints,
                        dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                        batch_group_count: int, precision: Any,
                        preferred_element_type: Any) -> ShapedArray:
    name = "conv_general_dilated"
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"{name} lhs and rhs must have the same number of dimensions, but got "
                         f"{lhs.shape} and {rhs.shape}.")
    if lhs.ndim < 2:
        raise TypeError(f"{name} requires operands of rank at least 2, got {lhs.shape} and "
                        f"{rhs.shape}.")
    nsp = lhs.ndim - 2
    _check_window_arity(nsp, window_strides, lhs_dilation, rhs_dilation)
    if any(s <= 0 for s in window_strides):
        raise ValueError(f"{name} window_strides must be positive, got {window_strides}")
    if len(padding) != nsp:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{nsp}, got {len(padding)}.")
    for dil in (lhs_dilation, rhs_dilation):
        if any(d <= 0 for d in dil):
            raise TypeError(f"All dilations must be positive, got {dil}.")
    dn = dimension_numbers
    for spec in dn:
        if sorted(spec) != list(range(lhs.ndim)):
            raise TypeError(f"{name} dimension_numbers {tuple(dn)} are not permutations of "
                            f"range({lhs.ndim})")
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.conv_general_dilated requires arguments to have the same dtypes, "
                        f"got {lhs.dtype.name}, {rhs.dtype.name}.")
    lhs_s = tuple(lhs.shape[d] for d in dn.lhs_spec)
    rhs_s = tuple(rhs.shape[d] for d in dn.rhs_spec)
    _check_group_counts(lhs_s[0], lhs_s[1], rhs_s[0], rhs_s[1], feature_group_count,
                        batch_group_count)
    out_dtype = lhs.dtype
    if preferred_element_type is not None:
        pet = np.dtype(preferred_element_type)
        if pet.kind != lhs.dtype.kind and not (lhs.dtype.kind in "iub" and pet.kind == "f") or (
                pet.kind == lhs.dtype.kind and pet.itemsize < lhs.dtype.itemsize):
            raise TypeError("`preferred_element_type` must not be narrower than the original "
                            "type.")
        out_dtype = pet
    outs = tuple(_out_size(*a) for a in zip(lhs_s[2:], rhs_s[2:], window_strides,
                                            *zip(*padding, strict=True), lhs_dilation,
                                            rhs_dilation, strict=True))
    canonical = (lhs_s[0] // batch_group_count, rhs_s[0], *outs)
    shape = tuple(canonical[i] for i in _perm_inverse(dn.out_spec))
    return ShapedArray(shape, out_dtype, lhs.weak_type and rhs.weak_type)


# ---- differentiation -----------------------------------------------------------------------


def _canonical_dn(ndim: int) -> ConvDimensionNumbers:
    iota = tuple(range(ndim))
    return ConvDimensionNumbers(iota, iota, iota)


def _conv_transpose_lhs(ct: Any, rhs: Any, lhs_aval: Any, params: dict[str, Any]) -> Any:
    dn: ConvDimensionNumbers = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    strides, pads = params["window_strides"], params["padding"]
    ld, rd = params["lhs_dilation"], params["rhs_dilation"]
    ndim = lhs_aval.ndim
    lhs_s = tuple(lhs_aval.shape[d] for d in dn.lhs_spec)
    ct_c = st.transpose(ct, dn.out_spec)
    rhs_c = st.transpose(rhs, dn.rhs_spec)
    o, cg, *ks = get_aval(rhs_c).shape
    groups = builtins.max(fgc, bgc)
    # kernel'[g*Cg + c, o'] = rhs[g*Og + o', c]: the transposed kernel of each group.
    kern = st.reshape(rhs_c, (groups, o // groups, cg, *ks))
    kern = st.transpose(kern, (0, 2, 1, *range(3, ndim + 1)))
    kern = st.reshape(kern, (groups * cg, o // groups, *ks))
    kern = st.rev(kern, tuple(range(2, ndim)))
    ys = get_aval(ct_c).shape[2:]
    new_pads = []
    for n, k, y, s, (lo, _), l_d, r_d in zip(lhs_s[2:], ks, ys, strides, pads, ld, rd,
                                             strict=True):
        k_eff = _dilate_dim(k, r_d)
        new_pads.append((k_eff - 1 - lo, (n - 1) * l_d - (y - 1) * s + lo))
    out = conv_general_dilated_p.bind(
        ct_c, kern, window_strides=ld, padding=tuple(new_pads), lhs_dilation=strides,
        rhs_dilation=rd, dimension_numbers=_canonical_dn(ndim), feature_group_count=groups,
        batch_group_count=1, precision=params["precision"], preferred_element_type=None)
    if bgc > 1:
        # Features came out as (group, C); the lhs batch is (group, N / group).
        out = st.reshape(out, (lhs_s[0] // bgc, bgc, lhs_s[1], *lhs_s[2:]))
        out = st.transpose(out, (1, 0, *range(2, ndim + 1)))
        out = st.reshape(out, lhs_s)
    return st.transpose(out, _perm_inverse(dn.lhs_spec))


def _conv_transpose_rhs(ct: Any, lhs: Any, rhs_aval: Any, params: dict[str, Any]) -> Any:
    dn: ConvDimensionNumbers = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    strides, pads = params["window_strides"], params["padding"]
    ld, rd = params["lhs_dilation"], params["rhs_dilation"]
    ndim = rhs_aval.ndim
    sp = tuple(range(2, ndim))
    rhs_s = tuple(rhs_aval.shape[d] for d in dn.rhs_spec)
    lhs_c = st.transpose(lhs, dn.lhs_spec)
    ct_c = st.transpose(ct, dn.out_spec)
    n, c, *ns = get_aval(lhs_c).shape
    if fgc > 1:
        # Batch becomes the contracted feature, grouped as (group, N); Cg becomes the batch.
        x = st.reshape(lhs_c, (n, fgc, c // fgc, *ns))
        x = st.transpose(x, (2, 1, 0, *range(3, ndim + 1)))
        x = st.reshape(x, (c // fgc, fgc * n, *ns))
    else:
        x = st.transpose(lhs_c, (1, 0, *sp))
    kern = st.transpose(ct_c, (1, 0, *sp))
    ys = get_aval(ct_c).shape[2:]
    new_pads = []
    for m, k, y, s, (lo, _), l_d, r_d in zip(ns, rhs_s[2:], ys, strides, pads, ld, rd,
                                             strict=True):
        total = (k - 1) * r_d + (y - 1) * s + 1
        new_pads.append((lo, total - lo - _dilate_dim(m, l_d)))
    out = conv_general_dilated_p.bind(
        x, kern, window_strides=rd, padding=tuple(new_pads), lhs_dilation=ld,
        rhs_dilation=strides, dimension_numbers=_canonical_dn(ndim),
        feature_group_count=builtins.max(fgc, bgc), batch_group_count=1,
        precision=params["precision"], preferred_element_type=None)
    out = st.transpose(out, (1, 0, *sp))
    return st.transpose(out, _perm_inverse(dn.rhs_spec))


def _conv_transpose_rule(ct: Any, lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    result: list[Any] = [None, None]
    for i, (x, other) in enumerate(((lhs, rhs), (rhs, lhs))):
        if not is_undefined_primal(x):
            continue
        aval = x.aval
        if type(ct) is Zero or 0 in aval.shape or 0 in get_aval(ct).shape:
            result[i] = Zero(aval)
            continue
        rule = _conv_transpose_lhs if i == 0 else _conv_transpose_rhs
        out = rule(ct, other, aval, params)
        result[i] = st.convert_element_type(out, aval.dtype)
    return result


# ---- batching ------------------------------------------------------------------------------


def _merge_next(x: Array, axis: int) -> Array:
    shape = get_aval(x).shape
    return st.reshape(x, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


def _split(x: Array, axis: int, sizes: Ints) -> Array:
    shape = get_aval(x).shape
    return st.reshape(x, shape[:axis] + sizes + shape[axis + 1:])


def _conv_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple[Any, Any]:
    lhs, rhs = args
    l_dim, r_dim = dims
    dn: ConvDimensionNumbers = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    if 0 in (get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
             if d is not not_mapped):
        # No examples: merging the batch into the convolution's batch or feature axis would
        # leave group counts of 0 (and sizes to split by 0). Check one example's shapes.
        avals = [get_aval(x) for x in args]
        one = [ShapedArray(a.shape[:d] + a.shape[d + 1:], a.dtype) if d is not not_mapped
               else a for a, d in zip(avals, dims, strict=True)]
        aval = _conv_abstract_eval(*one, **params)
        return st.full((0, *aval.shape), 0, aval.dtype), 0
    if l_dim is not not_mapped and r_dim is not not_mapped:
        size = get_aval(lhs).shape[l_dim]
        rhs = _merge_next(moveaxis(rhs, r_dim, dn.rhs_spec[0]), dn.rhs_spec[0])
        if bgc > 1:
            # Each example becomes its own set of batch groups: lhs batch (B, groups, N').
            lhs = _merge_next(moveaxis(lhs, l_dim, dn.lhs_spec[0]), dn.lhs_spec[0])
            params = {**params, "batch_group_count": size * bgc}
        else:
            lhs = _merge_next(moveaxis(lhs, l_dim, dn.lhs_spec[1]), dn.lhs_spec[1])
            params = {**params, "feature_group_count": size * fgc}
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        o = get_aval(out).shape[dn.out_spec[1]]
        return _split(out, dn.out_spec[1], (size, o // size)), dn.out_spec[1]
    if l_dim is not not_mapped:
        size = get_aval(lhs).shape[l_dim]
        axis = dn.lhs_spec[0]
        lhs = moveaxis(lhs, l_dim, axis)
        if bgc > 1:
            # Keep the batch groups major: (B, groups, N') -> (groups, B, N').
            n = get_aval(lhs).shape[axis + 1]
            lhs = _split(lhs, axis + 1, (bgc, n // bgc))
            lhs = st.transpose(lhs, _swap(get_aval(lhs).ndim, axis, axis + 1))
            lhs = _merge_next(lhs, axis + 1)
        lhs = _merge_next(lhs, axis)
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        n_out = get_aval(out).shape[dn.out_spec[0]]
        return _split(out, dn.out_spec[0], (size, n_out // size)), dn.out_spec[0]
    size = get_aval(rhs).shape[r_dim]
    groups = builtins.max(fgc, bgc)
    axis = dn.rhs_spec[0]
    rhs = moveaxis(rhs, r_dim, axis)
    # Keep feature groups major: (B, groups, O') -> (groups, B, O').
    o = get_aval(rhs).shape[axis + 1]
    rhs = _split(rhs, axis + 1, (groups, o // groups))
    rhs = st.transpose(rhs, _swap(get_aval(rhs).ndim, axis, axis + 1))
    rhs = _merge_next(_merge_next(rhs, axis), axis)
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    f = dn.out_spec[1]
    out = _split(out, f, (groups, size, o // groups))
    out = st.transpose(out, _swap(get_aval(out).ndim, f, f + 1))
    return _merge_next(out, f + 1), f


def _swap(ndim: int, a: int, b: int) -> Ints:
    perm = list(range(ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return tuple(perm)


conv_general_dilated_p.def_impl(_conv_kernel)
conv_general_dilated_p.def_kernel_factory(_conv_kernel_factory)
conv_general_dilated_p.fresh_result = True  # a matmul result, or zeros: never an operand
ad.defbilinear(conv_general_dilated_p, _conv_transpose_rule)
conv_general_dilated_p.def_batch(_conv_batch)


# ---- wrappers ------------------------------------------------------------------------------


def _ints(name: str, x: Sequence[int] | None, n: int) -> Ints:
    return (1,) * n if x is None else tuple(int(d) for d in x)


def conv_general_dilated(lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None) -> Array:
    """General n-d convolution (cross-correlation, as in XLA) with strides, padding, lhs
    (input) and rhs (kernel) dilation, layouts and feature/batch groups.

    >>> import numjax.numpy as jnp
    >>> conv_general_dilated(jnp.ones((1, 1, 5)), jnp.ones((1, 1, 3)), (1,), 'SAME')
    Array([[[2., 3., 3., 3., 2.]]], dtype=float32)
    """
    lhs_shape = operand_aval(lhs, "shape").shape
    rhs_shape = operand_aval(rhs, "shape").shape
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    strides = tuple(int(s) for s in window_strides)
    ld, rd = _ints("lhs_dilation", lhs_dilation, nsp), _ints("rhs_dilation", rhs_dilation, nsp)
    if isinstance(padding, str):
        if len(rhs_shape) == len(lhs_shape):
            _check_window_arity(nsp, strides, ld, rd)
        if lhs_dilation is not None and any(d != 1 for d in ld):
            raise ValueError("String padding is not implemented for transposed convolution "
                             "using this op. Please either exactly specify the required padding "
                             "or use conv_transpose.")
        window = [_dilate_dim(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rd, strict=True)]
        lhs_sp = [lhs_shape[d] for d in dn.lhs_spec[2:]]
        pads = tuple(padtype_to_pads(lhs_sp, window, strides, padding))
    else:
        try:
            pads = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a string or a "
                             f"sequence of (low, high) pairs, got {padding}") from e
        if len(pads) == nsp and len(ld) == nsp:
            lhs_sp = [_dilate_dim(lhs_shape[d], x) for d, x in zip(dn.lhs_spec[2:], ld,
                                                                   strict=True)]
            if any(lo + hi < -n for (lo, hi), n in zip(pads, lhs_sp, strict=True)):
                raise ValueError("Negative padding is larger than the size of the corresponding "
                                 f"dimension: got padding={pads} for lhs_shape[2:]="
                                 f"{tuple(lhs_shape[d] for d in dn.lhs_spec[2:])}")
    pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(
        preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=ld, rhs_dilation=rd,
        dimension_numbers=dn, feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count), precision=canonicalize_precision(precision),
        preferred_element_type=pet)


def conv(lhs: Array, rhs: Array, window_strides: Sequence[int], padding: Any,
         precision: Any = None, preferred_element_type: Any = None) -> Array:
    """Convolution in the NC... / OI... layout without dilation.

    >>> import numjax.numpy as jnp
    >>> conv(jnp.ones((1, 2, 4, 4)), jnp.ones((3, 2, 2, 2)), (1, 1), 'VALID').shape
    (1, 3, 3, 3)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs: Array, rhs: Array, window_strides: Sequence[int],
                              padding: Any, lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Array:
    """Convolution in the NC... / OI... layout with explicit padding and dilations.

    >>> import numjax.numpy as jnp
    >>> conv_with_general_padding(jnp.ones((1, 1, 4)), jnp.ones((1, 1, 2)), (1,), ((1, 1),),
    ...                           (2,), (1,)).shape
    (1, 1, 8)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_DEFAULTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                       4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def _conv_transpose_pads(k: int, s: int, padding: str) -> tuple[int, int]:
    """Pads of the lhs-dilated input giving the output size of the gradient of a strided conv:
    s * n for 'SAME', s * (n - 1) + k... (at least) for 'VALID'."""
    if padding == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + builtins.max(k - s, 0)
        lo = k - 1
    else:
        raise ValueError("Padding mode must be `SAME` or `VALID`.")
    return lo, total - lo


def conv_transpose(lhs: Array, rhs: Array, strides: Sequence[int], padding: Any,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None,
                   preferred_element_type: Any = None) -> Array:
    """Transposed convolution ("deconvolution"): the lhs is dilated by `strides`; defaults to
    the NHWC / HWIO layouts. With `transpose_kernel` the kernel is flipped and its I/O swapped,
    giving exactly the gradient of `conv_general_dilated`.

    >>> import numjax.numpy as jnp
    >>> conv_transpose(jnp.ones((1, 5, 5, 2)), jnp.ones((2, 2, 2, 3)), (2, 2), 'SAME').shape
    (1, 10, 10, 3)
    """
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    ndim = len(lhs_shape)
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_DEFAULTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_DEFAULTS[ndim]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    strides = tuple(int(s) for s in strides)
    rd = _ints("rhs_dilation", rhs_dilation, ndim - 2)
    if isinstance(padding, str):
        ks = [_dilate_dim(rhs_shape[d], r) for d, r in zip(dn.rhs_spec[2:], rd, strict=True)]
        pads: Any = [_conv_transpose_pads(k, s, padding)
                     for k, s in zip(ks, strides, strict=True)]
    else:
        pads = padding
    if transpose_kernel:
        rhs = st.rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = st.transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rd, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)

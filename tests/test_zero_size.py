"""Zero-size arrays (empty operands, empty index arrays, vmap over 0 examples) against JAX.

Each row of CASES is a function (its source: a lambda over array arguments) and its arguments
(NumPy expressions, passed as Arrays). It runs eagerly and under `jit`; EXPECTED holds what JAX
0.4.30 gives in each mode, recorded by `tools/make_zero_size_golden.py`: for a result, the
shape, dtype, weak type and values of each output leaf; for an error, its type and the first
line of its message.

Where JAX itself fails on well-defined empty work (its gather's slice of size 1 does not fit an
empty axis even when nothing is read), numjax returns the empty result instead: those rows are
in DIFFERENCES, with numjax's result and JAX's error in a comment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

# BEGIN CASES: plain data, read by tools/make_zero_size_golden.py too
Row = tuple[str, str, tuple[str, ...]]

E0 = "np.zeros(0, np.float32)"
E03 = "np.zeros((0, 3), np.float32)"
E30 = "np.zeros((3, 0), np.float32)"
E033 = "np.zeros((0, 3, 3), np.float32)"
X3 = "np.arange(3, dtype=np.float32)"
I0 = "np.zeros(0, np.int32)"
C30 = "np.zeros((3, 0), np.complex64)"

CASES: list[Row] = [
    # ---- x[idx]: gathers reading nothing, integers on empty axes
    ("getitem_empty_by_empty", "lambda x, i: x[i]", (E0, I0)),
    ("getitem_by_empty", "lambda x, i: x[i]", (X3, I0)),
    ("getitem_rows_of_empty", "lambda x, i: x[i]", (E30, I0)),
    ("getitem_rows_of_empty_columns", "lambda x, i: x[i]", (E30, "np.array([0, 2], np.int32)")),
    ("getitem_int_on_empty_axis", "lambda x: x[0]", (E0,)),
    ("getitem_int_on_empty_second_axis", "lambda x: x[:, 0]", (E30,)),
    ("getitem_traced_int_on_empty_axis", "lambda x, i: x[i]", (E0, "np.int32(0)")),
    ("getitem_int_row_of_empty_columns", "lambda x, i: x[i]", (E30, "np.int32(1)")),
    ("getitem_array_on_empty_axis", "lambda x: x[jnp.array([0])]", (E0,)),
    ("getitem_mask_on_empty", "lambda x: x[x > 0]", (E03,)),
    ("getitem_fill_int_on_empty_axis", "lambda x: x.at[1].get(mode='fill', fill_value=3.0)",
     (E0,)),
    ("getitem_empty_by_empty_grad", "lambda x, i: numjax.grad(lambda y: y[i].sum())(x)",
     (E0, I0)),
    ("getitem_by_empty_grad", "lambda x, i: numjax.grad(lambda y: y[i].sum())(x)", (X3, I0)),
    # ---- x.at[idx]: updates writing nothing
    ("set_empty_by_empty", "lambda x, i: x.at[i].set(1.0)", (E0, I0)),
    ("add_by_empty", "lambda x, i: x.at[i].add(1.0)", (X3, I0)),
    ("set_int_row_of_empty_columns", "lambda x: x.at[1].set(1.0)", (E30,)),
    ("set_int_on_empty_axis", "lambda x: x.at[0].set(1.0)", (E0,)),
    ("add_int_on_empty_second_axis", "lambda x: x.at[:, 0].add(1.0)", (E30,)),
    ("mul_rows_of_empty_axis", "lambda x: x.at[jnp.array([0, 1])].multiply(2.0)", (E03,)),
    ("set_rows_of_empty_axis_clip", "lambda x: x.at[jnp.array([0, 1])].set(1.0, mode='clip')",
     (E03,)),
    ("min_rows_of_empty_axis", "lambda x: x.at[jnp.array([0, 1])].min(1.0)", (E03,)),
    ("divide_int_rows_of_empty_axis", "lambda x: x.at[jnp.array([0, 1])].divide(2)",
     ("np.zeros((0, 3), np.int32)",)),
    ("apply_rows_of_empty_axis", "lambda x: x.at[jnp.array([0, 1])].apply(jnp.sin)", (E03,)),
    ("set_bad_values_rows_of_empty_axis", "lambda x: x.at[jnp.array([0, 1])].set(jnp.ones(5))",
     (E03,)),
    ("set_bad_values_nothing_indexed", "lambda x, i: x.at[i].set(jnp.ones(5))", (E03, I0)),
    ("get_empty_by_empty", "lambda x, i: x.at[i].get()", (E0, I0)),
    ("add_rows_of_empty_axis_grad",
     "lambda x: numjax.grad(lambda y: y.at[jnp.array([0, 1])].add(1.0).sum())(x)", (E03,)),
    ("max_slice_of_empty", "lambda x: x.at[:].max(x[:] * 2)",
     ("np.zeros((1, 2, 0), np.int32)",)),
    ("add_slice_of_empty_clip", "lambda x: x.at[:].add(2.5, mode='clip')",
     ("np.zeros((0, 0), np.float32)",)),
    # ---- take, take_along_axis
    ("take_empty_by_empty", "lambda x, i: jnp.take(x, i)", (E0, I0)),
    ("take_nonempty_from_empty_axis", "lambda x: jnp.take(x, jnp.array([1]))", (E0,)),
    ("take_by_empty", "lambda x, i: jnp.take(x, i)", (X3, I0)),
    # A take from an empty axis by empty indices is the operand itself, whatever the
    # indices' shape (JAX's result; NumPy's shape would be (0, 5) and (0, 0, 0, 4, 4)).
    ("take_empty_by_empty_2d", "lambda x, i: jnp.take(x, i)", (E0, "np.zeros((0, 5), np.int32)")),
    ("take_empty_axis_by_itself_clip", "lambda x: jnp.take(x, x, axis=1, mode='clip')",
     ("np.zeros((0, 0, 4), np.int32)",)),
    ("take_empty_middle_axis_wrap", "lambda x, i: jnp.take(x, i, axis=1, mode='wrap')",
     ("np.zeros((2, 0, 3), np.float32)", "np.zeros((0, 1), np.int32)")),
    ("take_empty_rows_by_2d", "lambda i: jnp.take(jnp.zeros((0, 3)), i, axis=0)",
     ("np.zeros((2, 0), np.int32)",)),
    # An empty `where` is its `x` broadcast: nanmax of an empty value is the unmapped NaN
    # under vmap, so a mask made from it is concrete eagerly (under jit it is traced).
    ("vmap_mask_of_empty_nanmax",
     "lambda x: numjax.vmap(lambda v: (lambda w: w.at[w > 0].max(1.0, mode='clip'))("
     "jnp.nanmax(v, axis=())))(x)", ("np.zeros((2, 0, 4), np.float32)",)),
    ("vmap_where_of_empty", "lambda x: numjax.vmap(lambda v: jnp.where(v > 0, 1.0, v))(x)",
     ("np.zeros((2, 0, 3), np.float32)",)),
    # The tangent of a reduction of nothing: prod's and nanstd's are symbolic zeros (a
    # while_loop reading them needs no reverse mode), sum's is not (JAX raises there).
    ("prod_of_empty_grad_through_while", "lambda x: numjax.grad(lambda a: lax.while_loop("
     "lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, jnp.prod(a)))[1])(x)", (E0,)),
    ("nanstd_of_empty_grad_through_while", "lambda x: numjax.grad(lambda a: lax.while_loop("
     "lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, jnp.nanstd(a)))[1])(x)", (E0,)),
    ("sum_of_empty_grad_through_while", "lambda x: numjax.grad(lambda a: lax.while_loop("
     "lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, jnp.sum(a)))[1])(x)", (E0,)),
    ("take_columns_of_empty_rows", "lambda x: jnp.take(x, jnp.array([0, 1]), axis=1)", (E03,)),
    ("take_nonempty_from_empty_second_axis", "lambda x: jnp.take(x, jnp.array([0]), axis=1)",
     (E30,)),
    ("take_by_empty_grad", "lambda x, i: numjax.grad(lambda y: jnp.take(y, i).sum())(x)",
     (X3, I0)),
    ("take_along_empty_rows", "lambda x, i: jnp.take_along_axis(x, i, axis=0)",
     (E03, "np.zeros((0, 3), np.int32)")),
    ("take_along_empty_axis", "lambda x, i: jnp.take_along_axis(x, i, axis=1)",
     (E30, "np.zeros((3, 2), np.int32)")),
    ("take_along_empty_axis_empty_indices", "lambda x, i: jnp.take_along_axis(x, i, axis=1)",
     (E30, "np.zeros((3, 0), np.int32)")),
    ("take_along_by_empty", "lambda x, i: jnp.take_along_axis(x, i, axis=0)", (X3, I0)),
    ("take_along_by_empty_grad",
     "lambda x, i: numjax.grad(lambda y: jnp.take_along_axis(y, i, axis=1).sum())(x)",
     ("np.ones((3, 2), np.float32)", "np.zeros((3, 0), np.int32)")),
    # ---- sorting: the permutation gather of the gradient
    ("sort_grad_empty", "lambda x: numjax.grad(lambda y: jnp.sort(y).sum())(x)", (E0,)),
    ("sort_grad_empty_columns", "lambda x: numjax.grad(lambda y: jnp.sort(y, axis=0).sum())(x)",
     (E30,)),
    ("sort_key_val_grad_empty",
     "lambda x: numjax.grad(lambda y: lax.sort_key_val(y, y)[1].sum())(x)", (E0,)),
    ("argsort_gather_grad_empty", "lambda x: numjax.grad(lambda y: y[jnp.argsort(y)].sum())(x)",
     (E0,)),
    # ---- quantiles: empty results, and JAX's errors reading an empty axis
    ("median_empty_result", "lambda x: jnp.median(x, axis=0)", (E30,)),
    ("median_rows_of_empty_axis", "lambda x: jnp.median(x, axis=1)", (E03,)),
    ("median_empty", "lambda x: jnp.median(x)", (E0,)),
    ("median_empty_axis", "lambda x: jnp.median(x, axis=1)", (E30,)),
    ("median_empty_axis_keepdims", "lambda x: jnp.median(x, axis=1, keepdims=True)", (E30,)),
    ("median_empty_axes_tuple", "lambda x: jnp.median(x, axis=(2, 0))",
     ("np.zeros((2, 3, 0), np.float32)",)),
    ("quantile_empty_no_q", "lambda x: jnp.quantile(x, jnp.zeros(0))", (E0,)),
    ("percentile_empty_axis", "lambda x: jnp.percentile(x, 50.0, axis=0)", (E03,)),
    ("nanmedian_empty", "lambda x: jnp.nanmedian(x)", (E0,)),
    ("nanquantile_empty_axis", "lambda x: jnp.nanquantile(x, 0.5, axis=1)", (E30,)),
    ("nanpercentile_empty_result", "lambda x: jnp.nanpercentile(x, 50.0, axis=0)", (E30,)),
    ("median_rows_of_empty_axis_grad",
     "lambda x: numjax.grad(lambda y: jnp.median(y, axis=1).sum())(x)", (E03,)),
    # ---- delete
    ("delete_empty_by_empty", "lambda x, i: jnp.delete(x, i)", (E0, I0)),
    ("delete_by_empty", "lambda x, i: jnp.delete(x, i)", (X3, I0)),
    ("delete_int_from_empty", "lambda x: jnp.delete(x, 0)", (E0,)),
    ("delete_int_out_of_bounds", "lambda x: jnp.delete(x, 5)", (X3,)),
    ("delete_int_from_empty_second_axis", "lambda x: jnp.delete(x, 0, axis=1)", (E30,)),
    ("delete_slice_of_empty_axis", "lambda x: jnp.delete(x, slice(0, 1), axis=1)", (E30,)),
    ("delete_list", "lambda x: jnp.delete(x, [0, 1])", (X3,)),
    ("delete_float_indices", "lambda x: jnp.delete(x, np.array([1.0]))", (X3,)),
    ("delete_bad_mask", "lambda x: jnp.delete(x, np.array([True, False]))", (X3,)),
    ("delete_unique_out_of_bounds",
     "lambda x: jnp.delete(x, jnp.array([5]), assume_unique_indices=True)", (X3,)),
    ("delete_unique_duplicates",
     "lambda x: jnp.delete(x, jnp.array([1, 1]), assume_unique_indices=True)", (X3,)),
    ("delete_unique_empty", "lambda x, i: jnp.delete(x, i, assume_unique_indices=True)",
     (E0, I0)),
    ("delete_bool_scalar", "lambda x: jnp.delete(x, True)", (X3,)),
    ("delete_grad", "lambda x: numjax.grad(lambda y: jnp.delete(y, 1).sum())(x)", (X3,)),
    # ---- pad: modes that read every axis (edge slices, statistics) and those refusing
    ("pad_linear_ramp_empty", "lambda x: jnp.pad(x, 2, mode='linear_ramp')", (E0,)),
    ("pad_linear_ramp_unpadded_empty_axis",
     "lambda x: jnp.pad(x, ((1, 1), (0, 0)), mode='linear_ramp')", (E30,)),
    ("pad_maximum_empty", "lambda x: jnp.pad(x, 2, mode='maximum')", (E0,)),
    ("pad_minimum_unpadded_empty_axis", "lambda x: jnp.pad(x, ((0, 0), (1, 0)), mode='minimum')",
     (E03,)),
    ("pad_maximum_stat_length", "lambda x: jnp.pad(x, ((1, 1), (0, 0)), mode='maximum', "
     "stat_length=2)", (E30,)),
    ("pad_mean_empty", "lambda x: jnp.pad(x, 2, mode='mean')", (E0,)),
    ("pad_mean_empty_int", "lambda x: jnp.pad(x, 1, mode='mean')", ("np.zeros(0, np.int32)",)),
    ("pad_median_empty_rows", "lambda x: jnp.pad(x, ((0, 0), (1, 0)), mode='median')", (E03,)),
    ("pad_edge_empty", "lambda x: jnp.pad(x, 2, mode='edge')", (E0,)),
    ("pad_wrap_unpadded_empty_axis", "lambda x: jnp.pad(x, ((1, 1), (0, 0)), mode='wrap')",
     (E30,)),
    ("pad_constant_empty", "lambda x: jnp.pad(x, 2)", (E0,)),
    # ---- unique with a size
    ("unique_empty_size_no_fill", "lambda x: jnp.unique(x, size=2)", (E0,)),
    ("unique_empty_size_fill", "lambda x: jnp.unique(x, size=2, fill_value=5.0)", (E0,)),
    ("unique_empty_size_0", "lambda x: jnp.unique(x, size=0)", (E0,)),
    ("unique_empty_rows_size_no_fill", "lambda x: jnp.unique(x, axis=0, size=2)", (E03,)),
    ("unique_empty_columns_size_fill", "lambda x: jnp.unique(x, axis=1, size=2, fill_value=1.0)",
     (E03,)),
    # ---- split (JAX slices at the bounds as given: run eagerly its texts are dynamic_slice's)
    ("split_empty_sections", "lambda x: jnp.split(x, 3)", (E0,)),
    ("array_split_more_sections", "lambda x: jnp.array_split(x, 5)", (X3,)),
    ("split_empty_past_end", "lambda x: numjax.jit(lambda y: jnp.split(y, [1, 2]))(x)", (E0,)),
    ("split_past_end", "lambda x: numjax.jit(lambda y: jnp.split(y, [4, 6]))(x)", (X3,)),
    ("split_negative", "lambda x: numjax.jit(lambda y: jnp.split(y, [-1]))(x)", (X3,)),
    ("split_decreasing", "lambda x: numjax.jit(lambda y: jnp.split(y, [2, 1]))(x)", (X3,)),
    # ---- insert (indices clipped into range, as JAX), resize
    ("insert_into_empty_rows", "lambda x: jnp.insert(x, 1, 0.0, axis=0)", (E03,)),
    ("insert_into_empty_negative", "lambda x: jnp.insert(x, -1, 5.0)", (E0,)),
    ("insert_into_empty_columns", "lambda x: jnp.insert(x, 2, 1.0, axis=1)", (E30,)),
    ("insert_past_end", "lambda x: jnp.insert(x, jnp.array([1, 5]), 1.0)", (X3,)),
    ("insert_before_start", "lambda x: jnp.insert(x, -5, 1.0)", (X3,)),
    ("insert_slice_into_empty", "lambda x: jnp.insert(x, slice(0, 2), 1.0)", (E0,)),
    ("resize_empty", "lambda x: jnp.resize(x, (3,))", (E0,)),
    ("resize_to_empty", "lambda x: jnp.resize(x, (2, 0))", ("np.arange(3, dtype=np.int32)",)),
    ("vmap_trim_zeros_of_resize_to_empty", "lambda x: numjax.vmap(lambda a: jnp.trim_zeros("
     "jnp.ravel(jnp.resize(a, (0,)))))(x)", ("np.ones((2, 3), np.int32)",)),
    # ---- nonzero with a size: zeros for an empty input, whatever the fill value (as JAX)
    ("nonzero_empty_size_fill", "lambda x: jnp.nonzero(x, size=3, fill_value=-1)", (E0,)),
    ("nonzero_empty_columns_size", "lambda x: jnp.nonzero(x, size=2, fill_value=(1, 2, 3))",
     (E30,)),
    ("argwhere_empty_size_fill", "lambda x: jnp.argwhere(x, size=2, fill_value=7)", (E30,)),
    ("where_empty_size_fill", "lambda x: jnp.where(x, size=2, fill_value=7)", (E0,)),
    ("nonzero_size_0_fill", "lambda x: jnp.nonzero(x, size=0, fill_value=-1)", (X3,)),
    # ---- max/min over empty axes: the reduction's identity (complex: -inf + 0j)
    ("max_complex_empty_axes", "lambda x: jnp.max(x, axis=(0, -1))",
     ("np.zeros((2, 0, 3), np.complex64)",)),
    ("min_complex_empty_axis_initial", "lambda x: jnp.min(x, axis=-1, initial=0)",
     ("np.zeros((3, 0), np.complex64)",)),
    ("max_empty_axis_initial", "lambda x: jnp.max(x, axis=1, initial=-2.0)", (E30,)),
    # ---- differences and integrals over short axes
    ("diff_n_past_length", "lambda x: jnp.diff(x, n=5)", (X3,)),
    ("diff_empty", "lambda x: jnp.diff(x)", (E0,)),
    ("diff_empty_n3", "lambda x: jnp.diff(x, n=3)", (E0,)),
    ("diff_empty_columns_n2", "lambda x: jnp.diff(x, n=2)", (E30,)),
    ("diff_n_past_length_grad", "lambda x: numjax.grad(lambda y: jnp.diff(y, n=5).sum())(x)",
     (X3,)),
    ("ediff1d_empty", "lambda x: jnp.ediff1d(x)", (E0,)),
    ("ediff1d_one", "lambda x: jnp.ediff1d(x)", ("np.ones(1, np.float32)",)),
    ("ediff1d_empty_ends", "lambda x: jnp.ediff1d(x, to_end=jnp.array([1.0]), to_begin=2.0)",
     (E0,)),
    ("ediff1d_one_grad", "lambda x: numjax.grad(lambda y: jnp.ediff1d(y).sum())(x)",
     ("np.ones(1, np.float32)",)),
    ("trapezoid_empty", "lambda x: jnp.trapezoid(x)", (E0,)),
    ("trapezoid_one", "lambda x: jnp.trapezoid(x)", ("np.ones(1, np.float32)",)),
    ("trapezoid_empty_columns", "lambda x: jnp.trapezoid(x)", (E30,)),
    ("trapezoid_empty_rows_axis0", "lambda x: jnp.trapezoid(x, axis=0)", (E03,)),
    ("trapezoid_empty_with_x", "lambda x: jnp.trapezoid(x, x=x)", (E0,)),
    ("trapezoid_empty_grad", "lambda x: numjax.grad(jnp.trapezoid)(x)", (E0,)),
    # ---- FFTs of length 0
    ("fft_empty", "lambda x: jnp.fft.fft(x)", (E0,)),
    ("fft_empty_columns", "lambda x: jnp.fft.fft(x)", (E30,)),
    ("fft_empty_rows", "lambda x: jnp.fft.fft(x)", (E03,)),
    ("ifft_empty_columns", "lambda x: jnp.fft.ifft(x)", (E30,)),
    ("irfft_empty_columns", "lambda x: jnp.fft.irfft(x)", (C30,)),
    ("irfft_n0", "lambda x: jnp.fft.irfft(x, n=0)", ("np.ones((3, 1), np.complex64)",)),
    ("irfft_empty_rows", "lambda x: jnp.fft.irfft(x)", (E03,)),
    ("irfft2_empty_columns", "lambda x: jnp.fft.irfft2(x)", (C30,)),
    ("fft2_empty_columns", "lambda x: jnp.fft.fft2(x)", (E30,)),
    ("fftn_empty_rows", "lambda x: jnp.fft.fftn(x)", (E03,)),
    ("rfft2_empty_rows", "lambda x: jnp.fft.rfft2(x)", (E03,)),
    ("fft_n0", "lambda x: jnp.fft.fft(x, n=0)", ("np.ones((3, 2), np.float32)",)),
    ("fft_empty_padded", "lambda x: jnp.fft.fft(x, n=4)", (E0,)),
    ("hfft_empty", "lambda x: jnp.fft.hfft(x)", ("np.zeros(0, np.complex64)",)),
    ("rfft_empty", "lambda x: jnp.fft.rfft(x)", (E30,)),
    ("lax_irfft_n0", "lambda x: lax.fft(x, 'irfft', (0,))", ("np.ones((3, 1), np.complex64)",)),
    ("lax_irfft_empty_n0", "lambda x: lax.fft(x, 'irfft', (0,))", (C30,)),
    ("lax_fft_2d_empty", "lambda x: lax.fft(x, 'ifft', (3, 0))", (C30,)),
    ("fftfreq_0", "lambda: jnp.fft.fftfreq(0)", ()),
    ("rfftfreq_0", "lambda: jnp.fft.rfftfreq(0)", ()),
    ("fftshift_empty_columns", "lambda x: jnp.fft.fftshift(x)", (E30,)),
    ("fft_empty_columns_grad", "lambda x: numjax.grad(lambda y: jnp.fft.fft(y).real.sum())(x)",
     (E30,)),
    ("irfft_padded_grad",
     "lambda x: numjax.grad(lambda y: jnp.fft.irfft(y, n=4).sum())(x)", (E30,)),
    ("rfft_empty_rows_grad",
     "lambda x: numjax.grad(lambda y: jnp.fft.rfft(y).real.sum())(x)", (E03,)),
    ("fft_empty_vjp",
     "lambda x: numjax.vjp(jnp.fft.fft, x)[1](jnp.zeros((0,), jnp.complex64))", (E0,)),
    # ---- lax.slice's errors (traced: run eagerly, JAX makes a unit-stride slice a clamping
    # dynamic_slice, whose errors differ)
    ("slice_negative_start", "lambda x: numjax.jit(lambda y: lax.slice(y, (-1,), (2,)))(x)",
     (X3,)),
    ("slice_start_past_limit", "lambda x: numjax.jit(lambda y: lax.slice(y, (2,), (1,)))(x)",
     (X3,)),
    ("slice_limit_past_shape", "lambda x: numjax.jit(lambda y: lax.slice(y, (0,), (4,)))(x)",
     (X3,)),
    ("slice_rank_mismatch", "lambda x: numjax.jit(lambda y: lax.slice(y, (0, 0), (1, 1)))(x)",
     (X3,)),
    ("slice_limits_length", "lambda x: numjax.jit(lambda y: lax.slice(y, (0,), (1, 1)))(x)", (X3,)),
    ("slice_negative_stride", "lambda x: numjax.jit(lambda y: lax.slice(y, (0,), (3,), (-1,)))(x)",
     (X3,)),
    ("slice_strides_length", "lambda x: numjax.jit(lambda y: lax.slice(y, (0,), (3,), (1, 1)))(x)",
     (X3,)),
    ("slice_empty_rows", "lambda x: lax.slice(x, (0, 1), (0, 3))", (E03,)),
    ("dynamic_slice_empty_rows", "lambda x: lax.dynamic_slice(x, (0, 1), (0, 2))", (E03,)),
    ("dynamic_slice_empty_columns", "lambda x: lax.dynamic_slice(x, (1, 0), (2, 0))", (E30,)),
    ("dynamic_update_slice_empty_update",
     "lambda x: lax.dynamic_update_slice(x, jnp.zeros(0), (2,))", (X3,)),
    # ---- lax.gather / lax.scatter directly
    ("lax_scatter_inserted_empty_axis",
     "lambda x: lax.scatter_add(x, jnp.array([[1]]), jnp.ones((1, 3)), "
     "lax.ScatterDimensionNumbers((1,), (0,), (0,)))", (E03,)),
    ("lax_gather_empty_axis", "lambda x: lax.gather(x, jnp.zeros((0, 1), jnp.int32), "
     "lax.GatherDimensionNumbers((), (0,), (0,)), (1,))", (E0,)),
    ("lax_gather_empty_index_vector", "lambda x: lax.gather(x, jnp.zeros((0, 0), jnp.int32), "
     "lax.GatherDimensionNumbers((1,), (), ()), (3,))", (X3,)),
    # ---- vmap over 0 examples
    ("vmap_conv", "lambda l: numjax.vmap(lambda a: lax.conv_general_dilated("
     "a, jnp.ones((4, 4, 3, 3)), (1, 1), 'SAME'))(l)", ("np.ones((0, 1, 4, 5, 5), np.float32)",)),
    ("vmap_conv_rhs", "lambda r: numjax.vmap(lambda b: lax.conv_general_dilated("
     "jnp.ones((1, 4, 5, 5)), b, (1, 1), 'SAME'))(r)", ("np.ones((0, 4, 4, 3, 3), np.float32)",)),
    ("vmap_conv_both", "lambda l, r: numjax.vmap(lambda a, b: lax.conv_general_dilated("
     "a, b, (1, 1), 'SAME'))(l, r)",
     ("np.ones((0, 1, 4, 5, 5), np.float32)", "np.ones((0, 4, 4, 3, 3), np.float32)")),
    ("vmap_conv_groups", "lambda l: numjax.vmap(lambda a: lax.conv_general_dilated("
     "a, jnp.ones((4, 2, 3, 3)), (1, 1), 'SAME', feature_group_count=2))(l)",
     ("np.ones((0, 1, 4, 5, 5), np.float32)",)),
    ("vmap_conv_grad", "lambda l: numjax.grad(lambda x: numjax.vmap(lambda a: "
     "lax.conv_general_dilated(a, jnp.ones((4, 4, 3, 3)), (1, 1), 'SAME'))(x).sum())(l)",
     ("np.ones((0, 1, 4, 5, 5), np.float32)",)),
    ("vmap_gather", "lambda x, i: numjax.vmap(lambda a, b: a[b])(x, i)",
     ("np.ones((0, 5), np.float32)", I0)),
    ("vmap_gather_grad",
     "lambda x, i: numjax.grad(lambda y: numjax.vmap(lambda a, b: a[b])(y, i).sum())(x)",
     ("np.ones((0, 5), np.float32)", I0)),
    ("vmap_scatter", "lambda x, i: numjax.vmap(lambda a, b: a.at[b].set(1.0))(x, i)",
     ("np.ones((0, 5), np.float32)", I0)),
    ("vmap_dynamic_slice", "lambda x, i: numjax.vmap("
     "lambda a, b: lax.dynamic_slice(a, (b,), (2,)))(x, i)", ("np.ones((0, 5), np.float32)", I0)),
    ("vmap_dynamic_slice_unbatched_operand",
     "lambda i: numjax.vmap(lambda b: lax.dynamic_slice(jnp.ones(3), (b,), (2,)))(i)", (I0,)),
    ("vmap_dynamic_update_slice", "lambda x, i: numjax.vmap(lambda a, b: "
     "lax.dynamic_update_slice(a, jnp.ones(2), (b,)))(x, i)", ("np.ones((0, 5), np.float32)", I0)),
    ("vmap_dynamic_index", "lambda x, i: numjax.vmap(lambda a, b: "
     "lax.dynamic_index_in_dim(a, b, keepdims=False))(x, i)", (E03, I0)),
    ("vmap_take", "lambda x, i: numjax.vmap(jnp.take)(x, i)", (E03, I0)),
    ("vmap_add_at", "lambda x, i: numjax.vmap(lambda a, b: a.at[b].add(1.0))(x, i)", (E03, I0)),
    ("vmap_add_at_int_on_empty_axis",
     "lambda x, i: numjax.vmap(lambda a, b: a.at[b].add(1.0))(x, i)",
     ("np.zeros((2, 0, 3), np.float32)", "np.array([0, 1], np.int32)")),
    ("vmap_unique_size", "lambda x: numjax.vmap(lambda a: jnp.unique(a, size=2))(x)", (E03,)),
    ("vmap_searchsorted", "lambda x: numjax.vmap(lambda a: jnp.searchsorted(a, 0.5))(x)",
     (E03,)),
    ("vmap_interp", "lambda x: numjax.vmap(lambda a: jnp.interp(0.5, a, a))(x)", (E03,)),
    ("vmap_histogram", "lambda x: numjax.vmap(lambda a: jnp.histogram(a, bins=2)[0])(x)",
     (E03,)),
    ("vmap_sort_grad", "lambda x: numjax.vmap(numjax.grad(lambda a: jnp.sort(a).sum()))(x)",
     (E03,)),
    # ---- 0x0 matrices
    ("inv_0x0", "lambda x: jnp.linalg.inv(x)", ("np.zeros((0, 0), np.float32)",)),
    ("slogdet_0x0", "lambda x: jnp.linalg.slogdet(x)", ("np.zeros((0, 0), np.float32)",)),
    ("eigvals_0x0", "lambda x: jnp.linalg.eigvals(x)", ("np.zeros((0, 0), np.float32)",)),
    ("cholesky_0x0", "lambda x: jnp.linalg.cholesky(x)", ("np.zeros((0, 0), np.float32)",)),
    ("solve_0x0", "lambda x: jnp.linalg.solve(x, jnp.zeros(0))", ("np.zeros((0, 0), np.float32)",)),
    ("lu_0x0", "lambda x: numjax.scipy.linalg.lu(x)", ("np.zeros((0, 0), np.float32)",)),
    ("solve_triangular_0x0", "lambda x: numjax.scipy.linalg.solve_triangular(x, jnp.zeros(0))",
     ("np.zeros((0, 0), np.float32)",)),
    ("vmap_inv", "lambda x: numjax.vmap(jnp.linalg.inv)(x)", (E033,)),
    ("vmap_eigh", "lambda x: numjax.vmap(jnp.linalg.eigh)(x)", (E033,)),
]
# END CASES

nan = float("nan")

# BEGIN EXPECTED: written by tools/make_zero_size_golden.py, do not edit
EXPECTED: dict[str, Any] = {
    'getitem_empty_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'getitem_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'getitem_rows_of_empty':
        (('ok', [((0, 0), 'float32', False, [])]), ('ok', [((0, 0), 'float32', False, [])])),
    'getitem_rows_of_empty_columns':
        (('ok', [((2, 0), 'float32', False, [[], []])]),
         ('ok', [((2, 0), 'float32', False, [[], []])])),
    'getitem_int_on_empty_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'getitem_int_on_empty_second_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 1 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 1 with size 0')),
    'getitem_traced_int_on_empty_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'getitem_int_row_of_empty_columns':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'getitem_array_on_empty_axis':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'getitem_mask_on_empty':
        (('ok', [((0,), 'float32', False, [])]),
         ('raise', 'NonConcreteBooleanIndexError',
          'Array boolean indices must be concrete; got ShapedArray(bool[0,3])')),
    'getitem_fill_int_on_empty_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'getitem_empty_by_empty_grad':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'getitem_by_empty_grad':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'set_empty_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'add_by_empty':
        (('ok', [((3,), 'float32', False, [0.0, 1.0, 2.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 1.0, 2.0])])),
    'set_int_row_of_empty_columns':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'set_int_on_empty_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'add_int_on_empty_second_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 1 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 1 with size 0')),
    'mul_rows_of_empty_axis':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'set_rows_of_empty_axis_clip':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'min_rows_of_empty_axis':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'divide_int_rows_of_empty_axis':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'apply_rows_of_empty_axis':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'set_bad_values_rows_of_empty_axis':
        (('raise', 'ValueError',
          'Incompatible shapes for broadcasting: (5,) and requested shape (2, 3)'),
         ('raise', 'ValueError',
          'Incompatible shapes for broadcasting: (5,) and requested shape (2, 3)')),
    'set_bad_values_nothing_indexed':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'get_empty_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'add_rows_of_empty_axis_grad':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'max_slice_of_empty':
        (('ok', [((1, 2, 0), 'int32', False, [[[], []]])]),
         ('ok', [((1, 2, 0), 'int32', False, [[[], []]])])),
    'add_slice_of_empty_clip':
        (('ok', [((0, 0), 'float32', False, [])]), ('ok', [((0, 0), 'float32', False, [])])),
    'take_empty_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'take_nonempty_from_empty_axis':
        (('raise', 'IndexError', 'Cannot do a non-empty jnp.take() from an empty axis.'),
         ('raise', 'IndexError', 'Cannot do a non-empty jnp.take() from an empty axis.')),
    'take_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'take_empty_by_empty_2d':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'take_empty_axis_by_itself_clip':
        (('ok', [((0, 0, 4), 'int32', False, [])]), ('ok', [((0, 0, 4), 'int32', False, [])])),
    'take_empty_middle_axis_wrap':
        (('ok', [((2, 0, 3), 'float32', False, [[], []])]),
         ('ok', [((2, 0, 3), 'float32', False, [[], []])])),
    'take_empty_rows_by_2d':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'vmap_mask_of_empty_nanmax':
        (('ok', [((2, 0, 4), 'float32', False, [[], []])]),
         ('raise', 'NonConcreteBooleanIndexError',
          'Array boolean indices must be concrete; got ShapedArray(bool[0,4])')),
    'vmap_where_of_empty':
        (('ok', [((2, 0, 3), 'float32', False, [[], []])]),
         ('ok', [((2, 0, 3), 'float32', False, [[], []])])),
    'prod_of_empty_grad_through_while':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'nanstd_of_empty_grad_through_while':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'sum_of_empty_grad_through_while':
        (('raise', 'ValueError',
          'Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with '
          'dynamic start/stop values. Try using lax.scan, or using fori_loop with static '
          'start/stop.'),
         ('raise', 'ValueError',
          'Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with '
          'dynamic start/stop values. Try using lax.scan, or using fori_loop with static '
          'start/stop.')),
    'take_columns_of_empty_rows':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'take_nonempty_from_empty_second_axis':
        (('raise', 'IndexError', 'Cannot do a non-empty jnp.take() from an empty axis.'),
         ('raise', 'IndexError', 'Cannot do a non-empty jnp.take() from an empty axis.')),
    'take_by_empty_grad':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'take_along_empty_rows':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'take_along_empty_axis':
        (('ok', [((3, 2), 'float32', False, [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])]),
         ('ok', [((3, 2), 'float32', False, [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])])),
    'take_along_empty_axis_empty_indices':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'take_along_by_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'take_along_by_empty_grad':
        (('ok', [((3, 2), 'float32', False, [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])]),
         ('ok', [((3, 2), 'float32', False, [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])])),
    'sort_grad_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'sort_grad_empty_columns':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'sort_key_val_grad_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'argsort_gather_grad_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'median_empty_result':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'median_rows_of_empty_axis':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'median_empty':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'median_empty_axis':
        (('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'median_empty_axis_keepdims':
        (('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'median_empty_axes_tuple':
        (('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'quantile_empty_no_q':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'percentile_empty_axis':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'nanmedian_empty':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'nanquantile_empty_axis':
        (('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 1 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'nanpercentile_empty_result':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'median_rows_of_empty_axis_grad':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'delete_empty_by_empty':
        (('ok', [((0,), 'float32', False, [])]),
         ('raise', 'ConcretizationTypeError',
          'Abstract tracer value encountered where concrete value is expected: traced array with '
          'shape int32[0].')),
    'delete_by_empty':
        (('ok', [((3,), 'float32', False, [0.0, 1.0, 2.0])]),
         ('raise', 'ConcretizationTypeError',
          'Abstract tracer value encountered where concrete value is expected: traced array with '
          'shape int32[0].')),
    'delete_int_from_empty':
        (('raise', 'ValueError', 'axis 0 is out of bounds for array of dimension 0'),
         ('raise', 'ValueError', 'axis 0 is out of bounds for array of dimension 0')),
    'delete_int_out_of_bounds':
        (('raise', 'ValueError', 'axis 5 is out of bounds for array of dimension 3'),
         ('raise', 'ValueError', 'axis 5 is out of bounds for array of dimension 3')),
    'delete_int_from_empty_second_axis':
        (('raise', 'ValueError', 'axis 0 is out of bounds for array of dimension 0'),
         ('raise', 'ValueError', 'axis 0 is out of bounds for array of dimension 0')),
    'delete_slice_of_empty_axis':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'delete_list':
        (('raise', 'TypeError',
          "delete requires ndarray or scalar arguments, got <class 'list'> at position 1."),
         ('raise', 'TypeError',
          "delete requires ndarray or scalar arguments, got <class 'list'> at position 1.")),
    'delete_float_indices':
        (('raise', 'ValueError',
          'np.delete(arr, obj): got obj.dtype=float64; must be integer or bool.'),
         ('raise', 'ValueError',
          'np.delete(arr, obj): got obj.dtype=float64; must be integer or bool.')),
    'delete_bad_mask':
        (('raise', 'ValueError',
          'np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length '
          'matching specified axis.'),
         ('raise', 'ValueError',
          'np.delete(arr, obj): for boolean indices, obj must be one-dimensional with length '
          'matching specified axis.')),
    'delete_unique_out_of_bounds':
        (('ok', [((2,), 'float32', False, [0.0, 1.0])]),
         ('ok', [((2,), 'float32', False, [0.0, 1.0])])),
    'delete_unique_duplicates':
        (('ok', [((1,), 'float32', False, [1.0])]), ('ok', [((1,), 'float32', False, [1.0])])),
    'delete_unique_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'delete_bool_scalar':
        (('ok', [((2,), 'float32', False, [0.0, 2.0])]),
         ('ok', [((2,), 'float32', False, [0.0, 2.0])])),
    'delete_grad':
        (('ok', [((3,), 'float32', False, [1.0, 0.0, 1.0])]),
         ('ok', [((3,), 'float32', False, [1.0, 0.0, 1.0])])),
    'pad_linear_ramp_empty':
        (('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(1,) for operand shape (0,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(1,) for operand shape (0,).')),
    'pad_linear_ramp_unpadded_empty_axis':
        (('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(5, 1) for operand shape (5, 0).'),
         ('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(5, 1) for operand shape (5, 0).')),
    'pad_maximum_empty':
        (('raise', 'ValueError',
          'zero-size array to reduction operation max which has no identity'),
         ('raise', 'ValueError',
          'zero-size array to reduction operation max which has no identity')),
    'pad_minimum_unpadded_empty_axis':
        (('raise', 'ValueError',
          'zero-size array to reduction operation min which has no identity'),
         ('raise', 'ValueError',
          'zero-size array to reduction operation min which has no identity')),
    'pad_maximum_stat_length':
        (('raise', 'ValueError',
          'zero-size array to reduction operation max which has no identity'),
         ('raise', 'ValueError',
          'zero-size array to reduction operation max which has no identity')),
    'pad_mean_empty':
        (('ok', [((4,), 'float32', False, [nan, nan, nan, nan])]),
         ('ok', [((4,), 'float32', False, [nan, nan, nan, nan])])),
    'pad_mean_empty_int':
        (('ok', [((2,), 'int32', False, [0, 0])]), ('ok', [((2,), 'int32', False, [0, 0])])),
    'pad_median_empty_rows':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'pad_edge_empty':
        (('raise', 'ValueError', "Cannot apply 'edge' padding to empty axis"),
         ('raise', 'ValueError', "Cannot apply 'edge' padding to empty axis")),
    'pad_wrap_unpadded_empty_axis':
        (('ok', [((5, 0), 'float32', False, [[], [], [], [], []])]),
         ('ok', [((5, 0), 'float32', False, [[], [], [], [], []])])),
    'pad_constant_empty':
        (('ok', [((4,), 'float32', False, [0.0, 0.0, 0.0, 0.0])]),
         ('ok', [((4,), 'float32', False, [0.0, 0.0, 0.0, 0.0])])),
    'unique_empty_size_no_fill':
        (('raise', 'ValueError',
          'jnp.unique: for zero-sized input with nonzero size argument, fill_value must be '
          'specified'),
         ('raise', 'ValueError',
          'jnp.unique: for zero-sized input with nonzero size argument, fill_value must be '
          'specified')),
    'unique_empty_size_fill':
        (('ok', [((2,), 'float32', False, [5.0, 5.0])]),
         ('ok', [((2,), 'float32', False, [5.0, 5.0])])),
    'unique_empty_size_0':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'unique_empty_rows_size_no_fill':
        (('raise', 'ValueError',
          'jnp.unique: for zero-sized input with nonzero size argument, fill_value must be '
          'specified'),
         ('raise', 'ValueError',
          'jnp.unique: for zero-sized input with nonzero size argument, fill_value must be '
          'specified')),
    'unique_empty_columns_size_fill':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'split_empty_sections':
        (('ok',
          [((0,), 'float32', False, []), ((0,), 'float32', False, []),
           ((0,), 'float32', False, [])]),
         ('ok',
          [((0,), 'float32', False, []), ((0,), 'float32', False, []),
           ((0,), 'float32', False, [])])),
    'array_split_more_sections':
        (('ok',
          [((1,), 'float32', False, [0.0]), ((1,), 'float32', False, [1.0]),
           ((1,), 'float32', False, [2.0]), ((0,), 'float32', False, []),
           ((0,), 'float32', False, [])]),
         ('ok',
          [((1,), 'float32', False, [0.0]), ((1,), 'float32', False, [1.0]),
           ((1,), 'float32', False, [2.0]), ((0,), 'float32', False, []),
           ((0,), 'float32', False, [])])),
    'split_empty_past_end':
        (('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(1,) for operand shape (0,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(1,) for operand shape (0,).')),
    'split_past_end':
        (('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(4,) for operand shape (3,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(4,) for operand shape (3,).')),
    'split_negative':
        (('raise', 'TypeError',
          'slice limit_indices must have every element be nonnegative, got (-1,).'),
         ('raise', 'TypeError',
          'slice limit_indices must have every element be nonnegative, got (-1,).')),
    'split_decreasing':
        (('raise', 'TypeError',
          'slice limit_indices must be greater than or equal to start_indices, got start_indices '
          '(2,) and limit_indices (1,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be greater than or equal to start_indices, got start_indices '
          '(2,) and limit_indices (1,).')),
    'insert_into_empty_rows':
        (('ok', [((1, 3), 'float32', False, [[0.0, 0.0, 0.0]])]),
         ('ok', [((1, 3), 'float32', False, [[0.0, 0.0, 0.0]])])),
    'insert_into_empty_negative':
        (('ok', [((1,), 'float32', False, [5.0])]), ('ok', [((1,), 'float32', False, [5.0])])),
    'insert_into_empty_columns':
        (('ok', [((3, 1), 'float32', False, [[1.0], [1.0], [1.0]])]),
         ('ok', [((3, 1), 'float32', False, [[1.0], [1.0], [1.0]])])),
    'insert_past_end':
        (('ok', [((5,), 'float32', False, [0.0, 1.0, 1.0, 2.0, 1.0])]),
         ('ok', [((5,), 'float32', False, [0.0, 1.0, 1.0, 2.0, 1.0])])),
    'insert_before_start':
        (('ok', [((4,), 'float32', False, [1.0, 0.0, 1.0, 2.0])]),
         ('ok', [((4,), 'float32', False, [1.0, 0.0, 1.0, 2.0])])),
    'insert_slice_into_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'resize_empty':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'resize_to_empty':
        (('ok', [((2, 0), 'int32', False, [[], []])]),
         ('ok', [((2, 0), 'int32', False, [[], []])])),
    'vmap_trim_zeros_of_resize_to_empty':
        (('ok', [((2, 0), 'int32', False, [[], []])]),
         ('raise', 'ConcretizationTypeError',
          'Abstract tracer value encountered where concrete value is expected: traced array with '
          'shape int32[0].')),
    'nonzero_empty_size_fill':
        (('ok', [((3,), 'int32', False, [0, 0, 0])]), ('ok', [((3,), 'int32', False, [0, 0, 0])])),
    'nonzero_empty_columns_size':
        (('ok', [((2,), 'int32', False, [0, 0]), ((2,), 'int32', False, [0, 0])]),
         ('ok', [((2,), 'int32', False, [0, 0]), ((2,), 'int32', False, [0, 0])])),
    'argwhere_empty_size_fill':
        (('ok', [((2, 2), 'int32', False, [[0, 0], [0, 0]])]),
         ('ok', [((2, 2), 'int32', False, [[0, 0], [0, 0]])])),
    'where_empty_size_fill':
        (('ok', [((2,), 'int32', False, [0, 0])]), ('ok', [((2,), 'int32', False, [0, 0])])),
    'nonzero_size_0_fill':
        (('ok', [((0,), 'int32', False, [])]), ('ok', [((0,), 'int32', False, [])])),
    'max_complex_empty_axes':
        (('ok', [((0,), 'complex64', False, [])]), ('ok', [((0,), 'complex64', False, [])])),
    'min_complex_empty_axis_initial':
        (('ok', [((3,), 'complex64', False, [0j, 0j, 0j])]),
         ('ok', [((3,), 'complex64', False, [0j, 0j, 0j])])),
    'max_empty_axis_initial':
        (('ok', [((3,), 'float32', False, [-2.0, -2.0, -2.0])]),
         ('ok', [((3,), 'float32', False, [-2.0, -2.0, -2.0])])),
    'diff_n_past_length':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'diff_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'diff_empty_n3':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'diff_empty_columns_n2':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'diff_n_past_length_grad':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'ediff1d_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'ediff1d_one':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'ediff1d_empty_ends':
        (('ok', [((2,), 'float32', False, [2.0, 1.0])]),
         ('ok', [((2,), 'float32', False, [2.0, 1.0])])),
    'ediff1d_one_grad':
        (('ok', [((1,), 'float32', False, [0.0])]), ('ok', [((1,), 'float32', False, [0.0])])),
    'trapezoid_empty':
        (('ok', [((), 'float32', False, 0.0)]), ('ok', [((), 'float32', False, 0.0)])),
    'trapezoid_one':
        (('ok', [((), 'float32', False, 0.0)]), ('ok', [((), 'float32', False, 0.0)])),
    'trapezoid_empty_columns':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'trapezoid_empty_rows_axis0':
        (('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 0.0, 0.0])])),
    'trapezoid_empty_with_x':
        (('ok', [((), 'float32', False, 0.0)]), ('ok', [((), 'float32', False, 0.0)])),
    'trapezoid_empty_grad':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'fft_empty':
        (('ok', [((0,), 'complex64', False, [])]), ('ok', [((0,), 'complex64', False, [])])),
    'fft_empty_columns':
        (('ok', [((3, 0), 'complex64', False, [[], [], []])]),
         ('ok', [((3, 0), 'complex64', False, [[], [], []])])),
    'fft_empty_rows':
        (('ok', [((0, 3), 'complex64', False, [])]), ('ok', [((0, 3), 'complex64', False, [])])),
    'ifft_empty_columns':
        (('ok', [((3, 0), 'complex64', False, [[], [], []])]),
         ('ok', [((3, 0), 'complex64', False, [[], [], []])])),
    'irfft_empty_columns':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'irfft_n0':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'irfft_empty_rows':
        (('ok', [((0, 4), 'float32', False, [])]), ('ok', [((0, 4), 'float32', False, [])])),
    'irfft2_empty_columns':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'fft2_empty_columns':
        (('ok', [((3, 0), 'complex64', False, [[], [], []])]),
         ('ok', [((3, 0), 'complex64', False, [[], [], []])])),
    'fftn_empty_rows':
        (('ok', [((0, 3), 'complex64', False, [])]), ('ok', [((0, 3), 'complex64', False, [])])),
    'rfft2_empty_rows':
        (('ok', [((0, 2), 'complex64', False, [])]), ('ok', [((0, 2), 'complex64', False, [])])),
    'fft_n0':
        (('ok', [((3, 0), 'complex64', False, [[], [], []])]),
         ('ok', [((3, 0), 'complex64', False, [[], [], []])])),
    'fft_empty_padded':
        (('ok', [((4,), 'complex64', False, [0j, 0j, 0j, 0j])]),
         ('ok', [((4,), 'complex64', False, [0j, 0j, 0j, 0j])])),
    'hfft_empty':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'rfft_empty':
        (('raise', 'ValueError', 'Cannot lower jaxpr with verifier errors:'),
         ('raise', 'ValueError', 'Cannot lower jaxpr with verifier errors:')),
    'lax_irfft_n0':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'lax_irfft_empty_n0':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'lax_fft_2d_empty':
        (('ok', [((3, 0), 'complex64', False, [[], [], []])]),
         ('ok', [((3, 0), 'complex64', False, [[], [], []])])),
    'fftfreq_0':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'rfftfreq_0':
        (('ok', [((1,), 'float32', False, [nan])]), ('ok', [((1,), 'float32', False, [nan])])),
    'fftshift_empty_columns':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'fft_empty_columns_grad':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'irfft_padded_grad':
        (('ok', [((3, 0), 'float32', False, [[], [], []])]),
         ('ok', [((3, 0), 'float32', False, [[], [], []])])),
    'rfft_empty_rows_grad':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'fft_empty_vjp':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'slice_negative_start':
        (('raise', 'TypeError',
          'slice start_indices must have every element be nonnegative, got (-1,).'),
         ('raise', 'TypeError',
          'slice start_indices must have every element be nonnegative, got (-1,).')),
    'slice_start_past_limit':
        (('raise', 'TypeError',
          'slice limit_indices must be greater than or equal to start_indices, got start_indices '
          '(2,) and limit_indices (1,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be greater than or equal to start_indices, got start_indices '
          '(2,) and limit_indices (1,).')),
    'slice_limit_past_shape':
        (('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(4,) for operand shape (3,).'),
         ('raise', 'TypeError',
          'slice limit_indices must be less than or equal to operand shape, got limit_indices '
          '(4,) for operand shape (3,).')),
    'slice_rank_mismatch':
        (('raise', 'TypeError',
          'slice start_indices must have length equal to the number of dimensions of the '
          'operand, got indices (0, 0) for operand shape (3,).'),
         ('raise', 'TypeError',
          'slice start_indices must have length equal to the number of dimensions of the '
          'operand, got indices (0, 0) for operand shape (3,).')),
    'slice_limits_length':
        (('raise', 'TypeError',
          'slice limit_indices must have the same length as start_indices, got start_indices '
          '(0,) and limit_indices (1, 1).'),
         ('raise', 'TypeError',
          'slice limit_indices must have the same length as start_indices, got start_indices '
          '(0,) and limit_indices (1, 1).')),
    'slice_negative_stride':
        (('raise', 'TypeError',
          'slice strides must have every element be nonnegative, got (-1,).'),
         ('raise', 'TypeError',
          'slice strides must have every element be nonnegative, got (-1,).')),
    'slice_strides_length':
        (('raise', 'TypeError',
          'slice strides must have length equal to the number of dimensions of the operand, got '
          'strides (1, 1) for operand shape (3,).'),
         ('raise', 'TypeError',
          'slice strides must have length equal to the number of dimensions of the operand, got '
          'strides (1, 1) for operand shape (3,).')),
    'slice_empty_rows':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'dynamic_slice_empty_rows':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'dynamic_slice_empty_columns':
        (('ok', [((2, 0), 'float32', False, [[], []])]),
         ('ok', [((2, 0), 'float32', False, [[], []])])),
    'dynamic_update_slice_empty_update':
        (('ok', [((3,), 'float32', False, [0.0, 1.0, 2.0])]),
         ('ok', [((3,), 'float32', False, [0.0, 1.0, 2.0])])),
    'lax_scatter_inserted_empty_axis':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'lax_gather_empty_axis':
        (('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.'),
         ('raise', 'TypeError',
          'Slice size at index 0 in gather op is out of range, must be within [0, 0 + 1), got '
          '1.')),
    'lax_gather_empty_index_vector':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'vmap_conv':
        (('ok', [((0, 1, 4, 5, 5), 'float32', False, [])]),
         ('ok', [((0, 1, 4, 5, 5), 'float32', False, [])])),
    'vmap_conv_rhs':
        (('ok', [((0, 1, 4, 5, 5), 'float32', False, [])]),
         ('ok', [((0, 1, 4, 5, 5), 'float32', False, [])])),
    'vmap_conv_both':
        (('ok', [((0, 1, 4, 5, 5), 'float32', False, [])]),
         ('ok', [((0, 1, 4, 5, 5), 'float32', False, [])])),
    'vmap_conv_groups':
        (('ok', [((0, 1, 4, 5, 5), 'float32', False, [])]),
         ('ok', [((0, 1, 4, 5, 5), 'float32', False, [])])),
    'vmap_conv_grad':
        (('ok', [((0, 1, 4, 5, 5), 'float32', False, [])]),
         ('ok', [((0, 1, 4, 5, 5), 'float32', False, [])])),
    'vmap_gather':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'vmap_gather_grad':
        (('ok', [((0, 5), 'float32', False, [])]), ('ok', [((0, 5), 'float32', False, [])])),
    'vmap_scatter':
        (('ok', [((0, 5), 'float32', False, [])]), ('ok', [((0, 5), 'float32', False, [])])),
    'vmap_dynamic_slice':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'vmap_dynamic_slice_unbatched_operand':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'vmap_dynamic_update_slice':
        (('ok', [((0, 5), 'float32', False, [])]), ('ok', [((0, 5), 'float32', False, [])])),
    'vmap_dynamic_index':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'vmap_take':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'vmap_add_at':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'vmap_add_at_int_on_empty_axis':
        (('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0'),
         ('raise', 'IndexError', 'index is out of bounds for axis 0 with size 0')),
    'vmap_unique_size':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'vmap_searchsorted':
        (('ok', [((0,), 'int32', False, [])]), ('ok', [((0,), 'int32', False, [])])),
    'vmap_interp':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'vmap_histogram':
        (('ok', [((0, 2), 'float32', False, [])]), ('ok', [((0, 2), 'float32', False, [])])),
    'vmap_sort_grad':
        (('ok', [((0, 3), 'float32', False, [])]), ('ok', [((0, 3), 'float32', False, [])])),
    'inv_0x0':
        (('ok', [((0, 0), 'float32', False, [])]), ('ok', [((0, 0), 'float32', False, [])])),
    'slogdet_0x0':
        (('ok', [((), 'float32', False, 1.0), ((), 'float32', False, 0.0)]),
         ('ok', [((), 'float32', False, 1.0), ((), 'float32', False, 0.0)])),
    'eigvals_0x0':
        (('ok', [((0,), 'complex64', False, [])]), ('ok', [((0,), 'complex64', False, [])])),
    'cholesky_0x0':
        (('ok', [((0, 0), 'float32', False, [])]), ('ok', [((0, 0), 'float32', False, [])])),
    'solve_0x0':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'lu_0x0':
        (('ok',
          [((0, 0), 'float32', False, []), ((0, 0), 'float32', False, []),
           ((0, 0), 'float32', False, [])]),
         ('ok',
          [((0, 0), 'float32', False, []), ((0, 0), 'float32', False, []),
           ((0, 0), 'float32', False, [])])),
    'solve_triangular_0x0':
        (('ok', [((0,), 'float32', False, [])]), ('ok', [((0,), 'float32', False, [])])),
    'vmap_inv':
        (('ok', [((0, 3, 3), 'float32', False, [])]), ('ok', [((0, 3, 3), 'float32', False, [])])),
    'vmap_eigh':
        (('ok', [((0, 3), 'float32', False, []), ((0, 3, 3), 'float32', False, [])]),
         ('ok', [((0, 3), 'float32', False, []), ((0, 3, 3), 'float32', False, [])])),
}
# END EXPECTED

# numjax's answers where JAX 0.4.30 fails on empty work that has a well-defined result.
DIFFERENCES: list[tuple[str, str, tuple[str, ...], Any]] = [
    # JAX: TypeError: Slice size at index 0 in gather op is out of range (its iota index on
    # the empty leading axis), though the result is empty.
    ("take_along_columns_of_empty_rows", "lambda x, i: jnp.take_along_axis(x, i, axis=1)",
     (E03, "np.zeros((0, 2), np.int32)"), [((0, 2), "float32", False, [])]),
    # JAX: TypeError (its gathers of the cotangent from an empty operand); the updates'
    # cotangent is zero: nothing was written.
    ("set_rows_of_empty_axis_grad",
     "lambda v: numjax.grad(lambda u: jnp.zeros((0, 3)).at[jnp.array([0, 1])].set(u).sum())(v)",
     ("np.ones((2, 3), np.float32)",), [((2, 3), "float32", False, [[0.0] * 3] * 2)]),
    # JAX: TypeError (the gather of its scatter transpose along the empty batch axis).
    ("vmap_scatter_add_grad", "lambda x, i: numjax.grad(lambda y: numjax.vmap("
     "lambda a, b: a.at[b].add(a[0]))(y, i).sum())(x)", ("np.ones((0, 5), np.float32)", I0),
     [((0, 5), "float32", False, [])]),
    # JAX ignores `size` for the other outputs of an empty input (index and counts of length
    # 0) and for the rows of an empty-columned one (1 row); numjax pads every output to size.
    ("unique_empty_size_all_outputs", "lambda x: jnp.unique(x, size=2, fill_value=5.0, "
     "return_index=True, return_inverse=True, return_counts=True)", (E0,),
     [((2,), "float32", False, [5.0, 5.0]), ((2,), "int32", False, [0, 0]),
      ((0,), "int32", False, []), ((2,), "int32", False, [0, 0])]),
    ("unique_empty_columns_size", "lambda x: jnp.unique(x, axis=1, size=2)", (E03,),
     [((0, 2), "float32", False, [])]),
    # JAX: TypeError (its tangent gather along an empty axis); the tangent is empty.
    ("top_k_jvp_empty_rows",
     "lambda x: numjax.jvp(lambda y: lax.top_k(y, 2)[0], (x,), (x,))", (E03,),
     [((0, 2), "float32", False, []), ((0, 2), "float32", False, [])]),
    # JAX: TypeError: Slice size at index 0 in gather op is out of range (the gather of its
    # partition's jvp along the empty leading axis); the cotangent of an empty output is empty.
    ("partition_of_empty_rows_grad",
     "lambda x: numjax.vjp(lambda a: jnp.partition(a, 1), x)[1](jnp.zeros((0, 4)))",
     ("np.zeros((0, 4), np.float32)",), [((0, 4), "float32", False, [])]),
    # JAX: TypeError: broadcast_in_dim shape must have every element be nonnegative (its
    # IRFFT transpose for n = 0); the cotangent of an empty output is zero.
    ("irfft_empty_grad", "lambda x: numjax.grad(lambda y: jnp.fft.irfft(y).sum())(x)", (E30,),
     [((3, 0), "float32", False, [[], [], []])]),
]


def _args(specs: tuple[str, ...]) -> list[Any]:
    # Arrays, not NumPy values: eagerly x[i] or x.at of a NumPy array would be NumPy's.
    return [jnp.asarray(eval(s, {"np": np})) for s in specs]


def _fn(src: str) -> Any:
    return eval(src, {"numjax": numjax, "jnp": jnp, "lax": lax, "np": np})


def _observe(fn: Any, args: list[Any]) -> Any:
    """("ok", leaves) or ("raise", type name, first line of the message)."""
    try:
        out = fn(*args)
    except Exception as e:
        return ("raise", type(e).__name__, str(e).split("\n")[0])
    leaves = numjax.tree_util.tree_leaves(out)
    return ("ok", [(tuple(np.shape(x)), str(x.dtype), bool(getattr(x, "weak_type", False)),
                    np.asarray(x).tolist()) for x in leaves])


def _assert_same(got: Any, want: Any) -> None:
    assert got[0] == want[0], (got, want)
    if got[0] == "raise":
        assert got[1:] == tuple(want[1:]), (got, want)
        return
    assert len(got[1]) == len(want[1]), (got, want)
    for (shape, dtype, weak, values), (w_shape, w_dtype, w_weak, w_values) in zip(
            got[1], want[1], strict=True):
        assert (shape, dtype, weak) == (tuple(w_shape), w_dtype, w_weak), (got, want)
        np.testing.assert_allclose(np.asarray(values, dtype=dtype),
                                   np.asarray(w_values, dtype=dtype), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize(("name", "src", "specs"), CASES, ids=[c[0] for c in CASES])
def test_zero_size_matches_jax(name: str, src: str, specs: tuple[str, ...], mode: str) -> None:
    fn = _fn(src)
    if mode == "jit":
        fn = numjax.jit(fn)
    eager, jitted = EXPECTED[name]
    _assert_same(_observe(fn, _args(specs)), eager if mode == "eager" else jitted)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize(("name", "src", "specs", "want"), DIFFERENCES,
                         ids=[c[0] for c in DIFFERENCES])
def test_zero_size_where_jax_fails(name: str, src: str, specs: tuple[str, ...], want: Any,
                                   mode: str) -> None:
    fn = _fn(src)
    if mode == "jit":
        fn = numjax.jit(fn)
    _assert_same(_observe(fn, _args(specs)), ("ok", want))


def test_every_case_has_jax_expectations() -> None:
    assert sorted(EXPECTED) == sorted(c[0] for c in CASES)
    assert len({c[0] for c in CASES}) == len(CASES)


def test_eager_slice_checks_as_under_jit() -> None:
    # JAX 0.4.30 runs an eager unit-stride slice as a clamping dynamic_slice ("slice slice_sizes
    # must be greater than or equal to zero, got slice_sizes of (-1,)."); numjax raises the
    # traced slice's text in both modes (docs/differences.md).
    x = jnp.arange(3.0)
    for fn in (lax.slice, numjax.jit(lax.slice, static_argnums=(1, 2))):
        with pytest.raises(TypeError, match=r"^slice limit_indices must be greater than or "
                           r"equal to start_indices, got start_indices \(2,\) and "
                           r"limit_indices \(1,\)\."):
            fn(x, (2,), (1,))

"""Windowed reductions: `reduce_window` (sum, max, min and generic) and the select-and-gather /
select-and-scatter pair that differentiates max and min.

Every kernel pads the operand with the reduction's identity (`pad` with interior padding for the
base dilation), takes all windows at once with `sliding_window_view` (strided for the window
strides and dilation, so still a view) and reduces the window axes.

Derivatives:
- sum is linear. Its transpose is again a windowed sum: the cotangent at padded position p
  collects ct[y] over y*s + k*wd = p, i.e. a window sum over the s-dilated ct (padded by the
  window's extent minus the low padding), read every `base_dilation`-th position.
- max/min: the tangent is the tangent at the selected element of each window
  (`select_and_gather_add`); its transpose scatters cotangents back to the selected positions
  (`select_and_scatter_add`), and vice versa. Ties pick the first element, as XLA's CPU
  select does.
- generic computations: forward mode reduces (primal, tangent) pairs with the computation's
  jvp; reverse mode is not defined (no transpose, as in JAX 0.4.30).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import cost
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Primitive, operand_aval
from numjax._src.interpreters import ad, batching, jaxpr_transforms
from numjax._src.interpreters.ad import Zero, is_undefined_primal
from numjax._src.lax import elementwise as ew
from numjax._src.lax import reduce_generic as rg
from numjax._src.lax import structural as st
from numjax._src.lax.convolution import padtype_to_pads
from numjax._src.lax.padding import _pad_kernel
from numjax._src.lax.rules import def_accumulating_kernel
from numjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = [
    "reduce_window",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_p",
    "reduce_window_shape_tuple",
    "reduce_window_sum_p",
    "select_and_gather_add_p",
    "select_and_scatter_add_p",
]

Ints = tuple[int, ...]
Pads = tuple[tuple[int, int], ...]


def _dilate_dim(d: int, dilation: int) -> int:
    return 0 if d == 0 else 1 + dilation * (d - 1)


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> Ints:
    """The output shape of a windowed reduction.

    >>> reduce_window_shape_tuple((3, 4), (2, 2), (1, 1), ((0, 0), (0, 0)))
    (2, 3)
    """
    n = len(operand_shape)
    bd = (1,) * n if base_dilation is None else base_dilation
    wd = (1,) * n if window_dilation is None else window_dilation
    out = []
    for d, w, s, (lo, hi), b, v in zip(operand_shape, window_dimensions, window_strides,
                                       padding, bd, wd, strict=True):
        padded = _dilate_dim(d, b) + lo + hi
        window = _dilate_dim(w, v)
        out.append((padded - window) // s + 1 if padded >= window else 0)
    return tuple(out)


def _windows(x: np.ndarray, fill: Any, *, window_dimensions: Ints, window_strides: Ints,
             padding: Pads, base_dilation: Ints, window_dilation: Ints) -> np.ndarray:
    """All windows of x padded with `fill`: shape (*out, prod(window)), a view where it can."""
    config = tuple((lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation, strict=True))
    out_shape = reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation)
    size = int(np.prod(window_dimensions))
    if 0 in out_shape or size == 0:
        return np.full((*out_shape, size), fill, x.dtype)
    padded = _pad_kernel(x, np.asarray(fill, x.dtype), padding_config=config)
    extent = tuple(_dilate_dim(w, v) for w, v in zip(window_dimensions, window_dilation,
                                                     strict=True))
    view = np.lib.stride_tricks.sliding_window_view(padded, extent)
    select = (tuple(slice(None, None, s) for s in window_strides)
              + tuple(slice(None, None, v) for v in window_dilation))
    view = view[select][tuple(slice(0, m) for m in out_shape)]
    return view.reshape(*out_shape, size)


def _check_window_params(name: str, shape: Ints, window_dimensions: Ints,
                         window_strides: Ints, padding: Pads, base_dilation: Ints,
                         window_dilation: Ints) -> None:
    ndim = len(shape)
    if len(window_dimensions) != ndim:
        raise TypeError(f"{name} got the wrong number of window_dimensions for operand: got "
                        f"operand shape {shape} with window_dimensions {window_dimensions}.")
    checks = (("window_strides", window_strides), ("base_dilation", base_dilation),
              ("window_dilation", window_dilation))
    for what, value in checks:
        if len(value) != len(window_dimensions):
            raise TypeError(f"{name} got inconsistent {what} and window_dimensions: got {what} "
                            f"{value} and window_dimensions {window_dimensions}.")
    if len(padding) != ndim:
        raise TypeError(f"{name} got inconsistent padding and window_dimensions: got padding "
                        f"{padding} and window_dimensions {window_dimensions}.")
    for what, value in (("window_dimensions", window_dimensions), *checks):
        if any(v <= 0 for v in value):
            raise TypeError(f"{name} {what} must have every element be strictly positive, "
                            f"got {value}.")


def _window_abstract_eval(name: str, x: ShapedArray, params: dict[str, Any]) -> ShapedArray:
    _check_window_params(name, x.shape, **params)
    for (lo, hi), d, b in zip(params["padding"], x.shape, params["base_dilation"], strict=True):
        if lo + hi < -_dilate_dim(d, b):
            raise ValueError(f"{name}: negative padding {params['padding']} is larger than the "
                             f"(dilated) operand shape {x.shape}.")
    shape = reduce_window_shape_tuple(x.shape, **params)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _window_batch_params(params: dict[str, Any]) -> dict[str, Any]:
    """The params with a leading batch axis of window 1."""
    return {"window_dimensions": (1, *params["window_dimensions"]),
            "window_strides": (1, *params["window_strides"]),
            "padding": ((0, 0), *params["padding"]),
            "base_dilation": (1, *params["base_dilation"]),
            "window_dilation": (1, *params["window_dilation"])}


# ---- reduce_window_sum / max / min ---------------------------------------------------------


def _identity(which: str, dtype: np.dtype) -> Any:
    if which == "sum":
        return 0
    floating = dtype.kind in "fc" or dtype == dtypes.bfloat16
    if floating:
        return -np.inf if which == "max" else np.inf
    if dtype.kind == "b":
        return which == "min"
    info = np.iinfo(dtype)
    return info.min if which == "max" else info.max


_MONOID_UFUNCS = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def _monoid_kernel(which: str) -> Callable[..., Any]:
    ufunc = _MONOID_UFUNCS[which]

    def kernel(x: Any, *, window_dimensions: Ints, window_strides: Ints, padding: Pads,
               base_dilation: Ints, window_dilation: Ints) -> Any:
        x = np.asarray(x)
        fill = _identity(which, x.dtype)
        out_shape = reduce_window_shape_tuple(x.shape, window_dimensions, window_strides,
                                              padding, base_dilation, window_dilation)
        size, count = math.prod(window_dimensions), math.prod(out_shape)
        if count == 0 or size == 0:
            return np.full(out_shape, fill, x.dtype)
        if size > count:
            # Few outputs of large windows: one reduction over the window axis of the view
            # beats a ufunc call per window offset.
            w = _windows(x, fill, window_dimensions=window_dimensions,
                         window_strides=window_strides, padding=padding,
                         base_dilation=base_dilation, window_dilation=window_dilation)
            return np.sum(w, axis=-1, dtype=x.dtype) if which == "sum" else \
                (np.max(w, axis=-1) if which == "max" else np.min(w, axis=-1))
        if which == "sum" and _spreads(x.shape, out_shape, window_dimensions, window_strides,
                                       padding, base_dilation, window_dilation):
            # Each window holds exactly one element of x (the transpose of a pooling whose
            # windows tile its operand): every element repeated over its block, in one pass,
            # + 0 making -0.0 the +0.0 the sum with the identity gives.
            blocks = [(n, w) for n, w in zip(x.shape, window_dimensions, strict=True)]
            out = np.empty([d for nw in blocks for d in nw], x.dtype)
            view = x.reshape([d for n, _ in blocks for d in (n, 1)])
            np.add(view, x.dtype.type(0), out=out)
            return out.reshape(out_shape)
        # One ufunc call per window offset over every output at once, in window order as
        # XLA accumulates: a pooling window of 4 is 4 whole-array operations where the
        # reduction over a length-4 strided window axis runs an inner loop per output
        # (2x2 sums over 32x28x28x32: 0.3 ms against 9.5 ms; their transpose 0.9 against 58).
        config = tuple((lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation,
                                                                strict=True))
        padded = x if all(c == (0, 0, 0) for c in config) else \
            _pad_kernel(x, np.asarray(fill, x.dtype), padding_config=config)
        # The first offset combined with the identity makes the result (one pass, where
        # filling it with the identity first took two).
        total: Any = None
        init = np.asarray(fill, x.dtype)
        for offset in np.ndindex(*window_dimensions):
            view = padded[tuple(slice(k * v, k * v + (m - 1) * s + 1, s)
                                for k, v, m, s in zip(offset, window_dilation, out_shape,
                                                      window_strides, strict=True))]
            total = ufunc(init, view) if total is None else ufunc(total, view, out=total)
        return total

    return kernel


def _spreads(shape: Ints, out_shape: Ints, window_dimensions: Ints, window_strides: Ints,
             padding: Pads, base_dilation: Ints, window_dilation: Ints) -> bool:
    """Whether output y of a window sum reads exactly x[y // w] along every dimension: unit
    window strides and dilation, the operand dilated by the window size w and padded by w - 1
    low, and w outputs per element."""
    return all(s == 1 and v == 1 and b == w and lo == w - 1 and m == n * w
               for n, m, w, s, (lo, _), b, v in zip(shape, out_shape, window_dimensions,
                                                    window_strides, padding, base_dilation,
                                                    window_dilation, strict=True))


def _monoid_primitive(which: str) -> Primitive:
    p = Primitive(f"reduce_window_{which}")
    if which == "sum":
        def_accumulating_kernel(p, _monoid_kernel(which))
    else:
        p.def_impl(_monoid_kernel(which))
    p.def_abstract_eval(lambda x, **params: _window_abstract_eval("reduce_window", x,
                                                                  params))

    def batch(args: Sequence[Any], dims: Sequence[Any], **params: Any) -> tuple[Any, int]:
        (x,), (d,) = args, dims
        return p.bind(batching.moveaxis(x, d, 0), **_window_batch_params(params)), 0

    p.def_batch(batch)
    p.cost = cost.per_input_element
    return p


reduce_window_sum_p = _monoid_primitive("sum")
reduce_window_max_p = _monoid_primitive("max")
reduce_window_min_p = _monoid_primitive("min")


def _reduce_window_sum_transpose(ct: Any, x: Any, *, window_dimensions: Ints,
                                 window_strides: Ints, padding: Pads, base_dilation: Ints,
                                 window_dilation: Ints) -> list[Any]:
    aval = x.aval
    if type(ct) is Zero:
        return [Zero(aval)]
    ys = get_aval(ct).shape
    pads = []
    for n, w, y, s, (lo, _), b, v in zip(aval.shape, window_dimensions, ys, window_strides,
                                         padding, base_dilation, window_dilation, strict=True):
        extent = _dilate_dim(w, v)
        pads.append((extent - 1 - lo, (n - 1) * b - (y - 1) * s + lo))
    # The window is all ones, so no reversal is needed (unlike the conv transpose).
    out = reduce_window_sum_p.bind(ct, window_dimensions=window_dimensions,
                                   window_strides=base_dilation, padding=tuple(pads),
                                   base_dilation=window_strides, window_dilation=window_dilation)
    return [out]


ad.linear_jvp(reduce_window_sum_p)
reduce_window_sum_p.def_transpose(_reduce_window_sum_transpose)


def _chooser_jvp(p: Primitive, select_prim: Primitive) -> Callable[..., tuple[Any, Any]]:
    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        (x,), (t,) = primals, tangents
        out = p.bind(x, **params)
        t = ad.instantiate_zeros(t)
        return out, select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)

    return jvp


# ---- select_and_gather_add / select_and_scatter_add ----------------------------------------


def _offset_views(x: np.ndarray, fill: Any, out_shape: Ints, *, window_dimensions: Ints,
                  window_strides: Ints, padding: Pads, base_dilation: Ints,
                  window_dilation: Ints) -> list[np.ndarray]:
    """For each window offset in window order, the view of x (padded with `fill`) holding that
    offset's element of every window: shape `out_shape`."""
    config = tuple((lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation, strict=True))
    padded = x if all(c == (0, 0, 0) for c in config) else \
        _pad_kernel(x, np.asarray(fill, x.dtype), padding_config=config)
    return [padded[tuple(slice(k * v, k * v + (m - 1) * s + 1, s)
                         for k, v, m, s in zip(offset, window_dilation, out_shape,
                                               window_strides, strict=True))]
            for offset in np.ndindex(*window_dimensions)]


def _scan_choice(key: np.ndarray, which: str) -> np.ndarray:
    """XLA's selection over the last axis of `key`: a scan keeping the current element while
    `current >= candidate` (`<=` for min), so ties keep the first, a NaN candidate is taken and
    a NaN current gives way to the next element: the first best element after the last NaN,
    or the last element when that is NaN."""
    size = key.shape[-1]
    first = np.argmax if which == "max" else np.argmin
    if key.dtype.kind not in "fc":
        return first(key, axis=-1)
    nan = np.isnan(key)
    last_nan = np.where(nan.any(axis=-1), size - 1 - np.argmax(nan[..., ::-1], axis=-1), -1)
    after = np.arange(size) > last_nan[..., None]
    masked = np.where(after, key, -np.inf if which == "max" else np.inf)
    choice = first(masked, axis=-1)
    # Nothing after the last NaN beat the fill: the first element after it; none: the NaN.
    choice = np.where(choice <= last_nan, last_nan + 1, choice)
    return np.minimum(choice, size - 1)


def _selected(operand: np.ndarray, select_prim: Primitive, params: dict[str, Any]
              ) -> np.ndarray:
    """The index within each window of operand (padded with the select identity) of the
    element XLA's select_and_scatter picks with `ge` (max) or `le` (min): see _scan_choice."""
    which = "max" if select_prim is ew.ge_p else "min"
    fill = _identity(which, operand.dtype)
    out_shape = reduce_window_shape_tuple(operand.shape, **params)
    size = math.prod(params["window_dimensions"])
    if size == 0 or math.prod(out_shape) == 0:
        return np.zeros(out_shape, np.intp)
    if size > math.prod(out_shape):
        w = _windows(operand, fill, **params)
        return _scan_choice(w.astype(np.float32) if w.dtype == dtypes.bfloat16 else w, which)
    # One whole-array pass per window offset, as the windowed reductions do (argmax over a
    # copied window axis took 5.2 ms for 2x2 max pooling's choice over 32x28x28x32), and
    # branch-free (masked assignments mispredict on a random choice): the scan itself, the
    # current value moved by a bitwise select, the index by choice += take * (k - choice).
    views = _offset_views(operand, fill, out_shape, **params)
    if operand.dtype == dtypes.bfloat16:
        views = [v.astype(np.float32) for v in views]
    keeps = np.greater_equal if which == "max" else np.less_equal
    current = views[0].copy()
    choice = np.zeros(out_shape, np.intp)
    for k, candidate in enumerate(views[1:], 1):
        take = np.logical_not(keeps(current, candidate))
        current = st._select_n_kernel(take, current, candidate)
        step = np.subtract(k, choice)
        step *= take
        choice += step
    return choice


def _select_and_gather_add_kernel(tangent: Any, operand: Any, *, select_prim: Primitive,
                                  **params: Any) -> Any:
    tangent, operand = np.asarray(tangent), np.asarray(operand)
    choice = _selected(operand, select_prim, params)
    tw = _windows(tangent, 0, **params)
    if tw.shape[-1] == 0:
        return np.zeros(tw.shape[:-1], tangent.dtype)
    return np.take_along_axis(tw, choice[..., None], axis=-1)[..., 0]


def _select_and_scatter_add_kernel(source: Any, operand: Any, *, select_prim: Primitive,
                                   **params: Any) -> Any:
    source, operand = np.asarray(source), np.asarray(operand)
    choice = _selected(operand, select_prim, params)
    out = np.zeros(operand.shape, source.dtype)
    if not (source.size and choice.size and operand.size):
        return out
    extents = [_dilate_dim(w, v) for w, v in zip(params["window_dimensions"],
                                                 params["window_dilation"], strict=True)]
    if all(s >= e for s, e in zip(params["window_strides"], extents, strict=True)) and all(
            p == (0, 0) for p in params["padding"]) and all(b == 1 for b in
                                                              params["base_dilation"]):
        # Windows that do not overlap (pooling) select each element at most once: each
        # window offset's view of the result takes the source where that offset was chosen,
        # one branch-free select per offset (np.add.at took 12 ms for 2x2 max pooling's
        # gradient over 32x28x28x32).
        source = np.broadcast_to(source, choice.shape)
        zeros = np.zeros(choice.shape, source.dtype)
        views = _offset_views(out, 0, choice.shape, **params)
        for k, view in enumerate(views):
            view[...] = st._select_n_kernel(np.equal(choice, k), zeros, source)
        return out
    offsets = np.unravel_index(choice, params["window_dimensions"])
    out_idx = np.indices(choice.shape, sparse=True)
    # Each selected element's position in the operand: its padded, base-dilated position,
    # less the low padding, divided by the base dilation. Padding and dilation holes are never
    # selected over real elements unless a window holds none; those drop out as invalid.
    coords, valid = [], np.ones(choice.shape, bool)
    for o, k, s, v, (lo, _), b, d in zip(out_idx, offsets, params["window_strides"],
                                         params["window_dilation"], params["padding"],
                                         params["base_dilation"], operand.shape, strict=True):
        pos = o * s + k * v - lo
        valid &= (pos >= 0) & (pos % b == 0) & (pos // b < d)
        coords.append(np.broadcast_to(pos // b, choice.shape))
    np.add.at(out, tuple(c[valid] for c in coords), np.broadcast_to(source, choice.shape)[valid])
    return out


def _select_abstract_eval(name: str) -> Callable[..., ShapedArray]:
    def rule(source: ShapedArray, operand: ShapedArray, *, select_prim: Primitive,
             **params: Any) -> ShapedArray:
        out = _window_abstract_eval(name, operand, params)
        if name == "select_and_gather_add":
            if source.shape != operand.shape:
                raise TypeError(f"{name}: tangent shape {source.shape} must match operand shape "
                                f"{operand.shape}")
            return ShapedArray(out.shape, source.dtype, source.weak_type)
        if source.shape != out.shape:
            raise TypeError(f"{name}: source shape {source.shape} must match the windowed "
                            f"output shape {out.shape}")
        return ShapedArray(operand.shape, source.dtype, source.weak_type)

    return rule


select_and_gather_add_p = Primitive("select_and_gather_add")
select_and_scatter_add_p = Primitive("select_and_scatter_add")


def _select_transpose(other: Primitive) -> Callable[..., list[Any]]:
    def rule(ct: Any, source: Any, operand: Any, **params: Any) -> list[Any]:
        assert is_undefined_primal(source) and not is_undefined_primal(operand)
        if type(ct) is Zero:
            return [Zero(source.aval), None]
        return [other.bind(ct, operand, **params), None]

    return rule


def _select_batch(p: Primitive) -> Callable[..., tuple[Any, int]]:
    def rule(args: Sequence[Any], dims: Sequence[Any], *, select_prim: Primitive,
             **params: Any) -> tuple[Any, int]:
        size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                    if d is not batching.not_mapped)
        source, operand = (batching.bdim_at_front(a, d, size) for a, d in zip(args, dims,
                                                                               strict=True))
        return p.bind(source, operand, select_prim=select_prim,
                      **_window_batch_params(params)), 0

    return rule


for _p, _kernel, _other in (
        (select_and_gather_add_p, _select_and_gather_add_kernel, select_and_scatter_add_p),
        (select_and_scatter_add_p, _select_and_scatter_add_kernel, select_and_gather_add_p)):
    _p.def_impl(_kernel)
    _p.def_abstract_eval(_select_abstract_eval(_p.name))
    ad.defjvp(_p, lambda t, source, operand, __p=_p, **params: __p.bind(t, operand, **params),
              None)
    _p.is_linear = True
    _p.def_transpose(_select_transpose(_other))
    _p.def_batch(_select_batch(_p))
del _p, _kernel, _other

reduce_window_max_p.def_jvp(_chooser_jvp(reduce_window_max_p, ew.ge_p))
reduce_window_min_p.def_jvp(_chooser_jvp(reduce_window_min_p, ew.le_p))


# ---- generic reduce_window -----------------------------------------------------------------

reduce_window_p = Primitive("reduce_window")
reduce_window_p.multiple_results = True
reduce_window_p.cost = cost.per_input_element


def _reduce_window_kernel(*args: Any, jaxpr: ClosedJaxpr, **params: Any) -> list[Any]:
    n = len(args) // 2
    operands = [np.asarray(a) for a in args[:n]]
    inits = [np.asarray(a) for a in args[n:]]
    windows = [np.ascontiguousarray(_windows(x, i, **params))
               for x, i in zip(operands, inits, strict=True)]
    outs = rg.fold_last_axis(jaxpr, windows, inits)
    return [np.asarray(o) for o in outs]


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, **params: Any
                                 ) -> list[ShapedArray]:
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    if any(o.shape != operands[0].shape for o in operands):
        raise TypeError("reduce_window operands must have the same shape, got "
                        f"{[o.shape for o in operands]}")
    if any(o.dtype != i.dtype for o, i in zip(operands, inits, strict=True)):
        raise TypeError("reduce_window operand dtypes should match corresponding initial value "
                        f"dtypes, got operands={list(operands)} and init_values={list(inits)}")
    if any(i.shape for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    out = _window_abstract_eval("reduce_window", operands[0], params)
    return [ShapedArray(out.shape, o.dtype) for o in operands]


def _reduce_window_batch(args: Sequence[Any], dims: Sequence[Any], *, jaxpr: ClosedJaxpr,
                         **params: Any) -> tuple[list[Any], list[int]]:
    n = len(args) // 2
    if any(d is not batching.not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window: batching over init values is not supported")
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not batching.not_mapped)
    ops = [batching.bdim_at_front(a, d, size) for a, d in zip(args[:n], dims[:n], strict=True)]
    outs = reduce_window_p.bind(*ops, *args[n:], jaxpr=jaxpr, **_window_batch_params(params))
    return outs, [0] * n


def _reduce_window_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
                       jaxpr: ClosedJaxpr, **params: Any) -> tuple[list[Any], list[Any]]:
    """A windowed reduction of (primal, tangent) pairs by the computation's jvp: each window
    folds pairs as the computation folds values, padding with (init, 0)."""
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    operands, inits = primals[:n], primals[n:]
    operand_t = [ad.instantiate_zeros(t) for t in tangents[:n]]
    init_t = [ad.zeros_like_aval(ad.tangent_aval(get_aval(i))) for i in inits]
    # jvp_jaxpr takes (left primals, right primals, left tangents, right tangents); the
    # reduction of 2n operands takes (left primals, left tangents, right primals, right ...).
    jvp = jaxpr_transforms.jvp_jaxpr(jaxpr, [True] * 2 * n)
    v = jvp.jaxpr.invars
    order = [*v[:n], *v[2 * n:3 * n], *v[n:2 * n], *v[3 * n:]]
    computation = ClosedJaxpr(jvp.jaxpr.replace(invars=order), jvp.consts)
    outs = reduce_window_p.bind(*operands, *operand_t, *inits, *init_t, jaxpr=computation,
                                **params)
    return outs[:n], outs[n:]


reduce_window_p.def_impl(_reduce_window_kernel)
reduce_window_p.def_batch(_reduce_window_batch)
reduce_window_p.def_jvp(_reduce_window_jvp)


# ---- the wrapper ---------------------------------------------------------------------------

_MONOID_PRIMS = {"add": reduce_window_sum_p, "max": reduce_window_max_p,
                 "min": reduce_window_min_p}


def _tree_mismatch(in_tree: Any, out_tree: Any) -> ValueError:
    return ValueError("reduce_window output must have the same tree structure as the operands "
                      f"{in_tree} vs. {out_tree}")


def reduce_window(operand: Any, init_value: Any, computation: Callable[[Any, Any], Any],
                  window_dimensions: Sequence[int], window_strides: Sequence[int],
                  padding: str | Sequence[tuple[int, int]],
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduce each window of `operand` (an array or pytree of arrays) with `computation`.

    lax.add, lax.max and lax.min with their identity (0, -inf, +inf) as `init_value` use the
    differentiable reduce_window_sum/max/min primitives.

    >>> import numjax.numpy as jnp
    >>> from numjax import lax
    >>> reduce_window(jnp.arange(5.0), 0.0, lax.add, (2,), (1,), 'VALID')
    Array([1., 3., 5., 7.], dtype=float32)
    """
    flat_ops, treedef = tree_flatten(operand)
    flat_inits, init_tree = tree_flatten(init_value)
    if treedef != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{treedef} vs. {init_tree}")
    avals = [operand_aval(o, "shape") for o in flat_ops]
    ndim = avals[0].ndim
    dims = tuple(int(d) for d in window_dimensions)
    strides = tuple(int(s) for s in window_strides)
    if isinstance(padding, str):
        pads = tuple(padtype_to_pads(avals[0].shape, dims, strides, padding))
    else:
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    params = {"window_dimensions": dims, "window_strides": strides, "padding": pads,
              "base_dilation": (1,) * ndim if base_dilation is None else tuple(
                  int(b) for b in base_dilation),
              "window_dilation": (1,) * ndim if window_dilation is None else tuple(
                  int(w) for w in window_dilation)}
    kind = rg.monoid_kind(computation)
    if kind in _MONOID_PRIMS and len(flat_ops) == 1:
        init = rg.monoid_init(flat_inits[0], avals[0].dtype)
        identity = _identity("sum" if kind == "add" else kind, avals[0].dtype)
        if init is not None and init.shape == () and bool(
                init == np.asarray(identity).astype(init.dtype)):
            out = _MONOID_PRIMS[kind].bind(flat_ops[0], **params)
            return tree_unflatten(treedef, [out])
    flat_inits = [rg.as_init(i) for i in flat_inits]
    init_dtypes = [get_aval(i).dtype for i in flat_inits]
    if [a.dtype for a in avals] != init_dtypes:
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[a.dtype for a in avals]} and init_value dtypes "
                        f"{init_dtypes}.")
    jaxpr = rg.trace_scalar_computation("reduce_window", computation, treedef,
                                        [ShapedArray((), a.dtype) for a in avals],
                                        _tree_mismatch)
    outs = reduce_window_p.bind(*flat_ops, *flat_inits, jaxpr=jaxpr, **params)
    return tree_unflatten(treedef, outs)

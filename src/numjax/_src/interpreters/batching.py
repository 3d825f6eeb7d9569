"""Vectorization (vmap) as a trace.

A `BatchTracer` holds a value with one extra axis, at position `dim` (None: not batched, the
same for every example). Each primitive's batch rule takes the values and dims of its operands
and returns the batched result and its dim. Named axes (`axis_name`) let collectives find the
trace that owns them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.core import leaks
from numjax._src.core.avals import aval_handlers, get_aval
from numjax._src.core.jaxpr import Jaxpr, jaxprs_in_params
from numjax._src.core.trace import (
    Primitive,
    Trace,
    Tracer,
    current_trace,
    new_trace,
    set_current_trace,
)

not_mapped = None


class BatchTracer(Tracer):
    __slots__ = ("val", "dim")

    def __init__(self, trace: BatchTrace, val: Any, dim: int) -> None:
        self._trace = trace
        self.val = val
        self.dim = dim

    @property
    def aval(self) -> Any:
        aval = get_aval(self.val)
        shape = aval.shape[:self.dim] + aval.shape[self.dim + 1:]
        return aval.update(shape=shape)

    @property
    def batch_dim(self) -> int:
        """JAX's name for `dim`."""
        return self.dim

    def _contents(self) -> list[tuple[str, Any]]:
        return [("val", self.val), ("batch_dim", self.dim)]


class BatchTrace(Trace):
    __slots__ = ("axis_size", "axis_name", "spmd_axis_name")

    def __init__(self, parent: Trace | None, axis_size: int, axis_name: Any = None,
                 spmd_axis_name: Any = None) -> None:
        super().__init__(parent)
        self.axis_size = axis_size
        self.axis_name = axis_name
        self.spmd_axis_name = spmd_axis_name

    def to_val_dim(self, x: Any) -> tuple[Any, int | None]:
        if type(x) is BatchTracer and x._trace is self:
            return x.val, x.dim
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, not_mapped

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        # Rules get tuples, as JAX gives them (libraries build pytree prefixes from them).
        pairs = [self.to_val_dim(x) for x in args]
        vals = tuple(v for v, _ in pairs)
        dims = tuple(d for _, d in pairs)
        parent = self.parent
        assert parent is not None
        if all(d is not_mapped for d in dims):
            if not _uses_axis(primitive, params, self):
                with set_current_trace(parent):
                    return primitive.bind(*vals, **params)
            if not primitive.collective and vals:
                # A jaxpr reading the axis (JAX lifts its axis_index out as a batched operand):
                # rules learn the axis size from a batched operand, so the smallest operand is
                # broadcast along the axis.
                i = min(range(len(vals)), key=lambda k: _size(vals[k]))
                with set_current_trace(parent):
                    moved = move_dim(vals[i], not_mapped, 0, self.axis_size)
                vals, dims = (*vals[:i], moved, *vals[i + 1:]), (*dims[:i], 0, *dims[i + 1:])
        rule = primitive.batch
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive.name}' not implemented")
        with set_current_trace(parent):
            if primitive.collective:
                out, out_dim = rule(self, vals, dims, **params)
            else:
                previous = _rule_axis.trace
                _rule_axis.trace = self
                try:
                    out, out_dim = rule(vals, dims, **params)
                finally:
                    _rule_axis.trace = previous
        if primitive.multiple_results:
            return [self._wrap(o, d) for o, d in zip(out, out_dim, strict=True)]
        return self._wrap(out, out_dim)

    def _wrap(self, val: Any, dim: int | None) -> Any:
        return val if dim is not_mapped else BatchTracer(self, val, dim)


class _RuleAxis(threading.local):
    def __init__(self) -> None:
        self.trace: BatchTrace | None = None


# The trace whose batch rule is running: a rule that batches a whole jaxpr (jit, scan, cond)
# maps it over that trace's named axis, so collectives inside see the axis (JAX passes the axis
# to such rules).
_rule_axis = _RuleAxis()


def rule_trace() -> BatchTrace | None:
    """The vmap whose batch rule is running (its axis size and name), else None."""
    return _rule_axis.trace


def rule_axis_names() -> tuple[Any, Any]:
    """(axis_name, spmd_axis_name) of the vmap whose batch rule is running, else (None, None)."""
    trace = _rule_axis.trace
    return (None, None) if trace is None else (trace.axis_name, trace.spmd_axis_name)


def _uses_axis(primitive: Primitive, params: dict[str, Any], trace: BatchTrace) -> bool:
    """Whether the operation reads the trace's named axis: a collective over it, or one in a
    jaxpr the operation holds (a jitted function or a loop calling axis_index). Such an
    operation is batched even when no operand is, since its result varies along the axis."""
    if trace.axis_name is None:
        return False
    if primitive.collective:
        return trace.axis_name in _axis_names(params)
    return any(_jaxpr_uses_axis(j, trace.axis_name) for j in jaxprs_in_params(params))


def _size(x: Any) -> int:
    return math.prod(getattr(get_aval(x), "shape", ()))


def _axis_names(params: dict[str, Any]) -> tuple[Any, ...]:
    names = params.get("axis_name", params.get("axes"))
    return names if isinstance(names, tuple) else (names,)


def _jaxpr_uses_axis(jaxpr: Jaxpr, name: Any) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive.collective and name in _axis_names(eqn.params):
            return True
        if any(_jaxpr_uses_axis(j, name) for j in jaxprs_in_params(eqn.params)):
            return True
    return False


@leaks.checked
def vmap_flat(fun: Callable[..., Sequence[Any]], args: Sequence[Any],
              in_dims: Sequence[int | None],
              out_dims: Sequence[int | None] | Callable[[], Sequence[int | None]],
              axis_size: int, axis_name: Any = None, spmd_axis_name: Any = None) -> list[Any]:
    """Map flat `fun` over axis `in_dims` of `args`; outputs get the mapped axis at `out_dims`
    (or at what the thunk `out_dims()` returns once `fun` has run, for output dims that depend
    on its output tree, as JAX's `out_axes_thunk`)."""
    pairs = vmap_flat_dims(fun, args, in_dims, axis_size, axis_name, spmd_axis_name)
    if callable(out_dims):
        out_dims = out_dims()
    for (_, d), od in zip(pairs, out_dims, strict=True):
        if od is not_mapped and d is not not_mapped and axis_name is not None:
            # JAX names the axis when the vmap has one.
            raise ValueError(f"vmap has mapped output (axis_name={axis_name!r}) but out_axes "
                             "is None")
    return [move_dim(v, d, od, axis_size) for (v, d), od in zip(pairs, out_dims, strict=True)]


def vmap_flat_dims(fun: Callable[..., Sequence[Any]], args: Sequence[Any],
                   in_dims: Sequence[int | None], axis_size: int, axis_name: Any = None,
                   spmd_axis_name: Any = None) -> list[tuple[Any, int | None]]:
    """Map flat `fun` over axis `in_dims` of `args`: each output with the dim its batch rules
    gave it (None where the output is the same for every example)."""
    with new_trace(BatchTrace(current_trace(), axis_size, axis_name, spmd_axis_name)) as trace:
        assert isinstance(trace, BatchTrace)
        tracers = [x if d is not_mapped else BatchTracer(trace, x, d)
                   for x, d in zip(args, in_dims, strict=True)]
        outs = fun(*tracers)
        pairs = [trace.to_val_dim(o) for o in outs]
    for v, _ in pairs:
        if type(v) not in aval_handlers or type(v) is np.ndarray:
            _check_output(v)
    return pairs


@leaks.checked
def vmap_unrestricted(fun: Callable[..., Sequence[Any]], args: Sequence[Any],
                      in_dims: Sequence[int | None], axis_size: int
                      ) -> tuple[list[Any], list[int | None]]:
    """Map flat `fun` over axis `in_dims` of `args`, leaving each output's batch axis where
    `fun`'s operations put it: returns the outputs and their dims (None: unbatched)."""
    with new_trace(BatchTrace(current_trace(), axis_size)) as trace:
        assert isinstance(trace, BatchTrace)
        tracers = [x if d is not_mapped else BatchTracer(trace, x, d)
                   for x, d in zip(args, in_dims, strict=True)]
        pairs = [trace.to_val_dim(o) for o in fun(*tracers)]
    return [v for v, _ in pairs], [d for _, d in pairs]


def _check_output(x: Any) -> None:
    try:
        get_aval(x)
    except TypeError:
        raise TypeError(f"Output from batched function {x!r} with type {type(x)} is not a "
                        "valid JAX type") from None


# ---- helpers for batch rules ---------------------------------------------------------------


def _lax() -> Any:
    from numjax._src.lax import lax
    return lax


def move_dim(x: Any, src: int | None, dst: int | None, axis_size: int) -> Any:
    """Put the batch axis of `x` (at `src`, None: unbatched) at `dst` (None: must be unbatched)."""
    lax = _lax()
    if dst is not_mapped:
        if src is not_mapped:
            return x
        raise ValueError("vmap has mapped output but out_axes is None")
    out_ndim = len(get_aval(x).shape) + (1 if src is not_mapped else 0)
    if not -out_ndim <= dst < out_ndim:  # relative to the result, which has the mapped axis
        raise ValueError(f"axis {dst} is out of bounds for array of dimension {out_ndim}")
    if dst < 0:
        dst += out_ndim
    if src is not_mapped:
        aval = get_aval(x)
        shape = list(aval.shape)
        shape.insert(dst, axis_size)
        dims = tuple(i for i in range(len(shape)) if i != dst)
        return lax.broadcast_in_dim(x, tuple(shape), dims)
    return moveaxis(x, src, dst)


def moveaxis(x: Any, src: int, dst: int) -> Any:
    if src == dst:
        return x
    ndim = len(get_aval(x).shape)
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    if isinstance(x, np.ndarray):
        # A NumPy value (vmap's operand, unchanged) is moved by its own transpose, as JAX's
        # batching does it: vmap(lambda v: v, 1, 0) of a NumPy array returns a NumPy array.
        return x.transpose(perm)
    return _lax().transpose(x, tuple(perm))


def bdim_at_front(x: Any, dim: int | None, axis_size: int) -> Any:
    return move_dim(x, dim, 0, axis_size)


def align_dims(args: Sequence[Any], dims: Sequence[int | None]) -> list[Any]:
    """Move every batched operand's batch axis to the front and give unbatched operands of the
    same rank a leading axis of size 1, so elementwise kernels broadcast them (0-d operands
    broadcast as they are)."""
    ranks = [len(get_aval(x).shape) - (d is not not_mapped) for x, d in zip(args, dims,
                                                                          strict=True)]
    rank = max(ranks)
    out = []
    lax = _lax()
    for x, d, r in zip(args, dims, ranks, strict=True):
        if d is not_mapped:
            if r == 0:
                out.append(x)
            else:
                shape = get_aval(x).shape
                out.append(lax.broadcast_in_dim(x, (1,) * (rank - r + 1) + shape,
                                                tuple(range(rank - r + 1, rank + 1))))
        else:
            x = moveaxis(x, d, 0)
            if r < rank:
                shape = get_aval(x).shape
                x = lax.broadcast_in_dim(x, (shape[0],) + (1,) * (rank - r) + shape[1:],
                                         (0, *range(rank - r + 1, rank + 1)))
            out.append(x)
    return out


def vectorized_batch(primitive: Primitive) -> Callable[..., tuple[Any, Any]]:
    """The batch rule of an elementwise primitive: align batch axes, apply, batch axis 0."""
    primitive.vectorized = True

    def rule(args: Sequence[Any], dims: Sequence[int | None], **params: Any) -> tuple[Any, Any]:
        if len(args) == 1:
            return primitive.bind(args[0], **params), dims[0]
        try:
            return primitive.bind(*align_dims(args, dims), **params), 0
        except TypeError:
            _per_example_check(primitive, args, dims, params)
            raise

    return rule


def _per_example_check(primitive: Primitive, args: Sequence[Any], dims: Sequence[int | None],
                       params: dict[str, Any]) -> None:
    """Raise the error the primitive gives one example's operands (shapes without the batch
    axis), as JAX reports a failing operation under vmap; nothing if they pass."""
    if primitive.abstract_eval is None:
        return
    avals = []
    for x, d in zip(args, dims, strict=True):
        aval = get_aval(x)
        if d is not not_mapped:
            aval = aval.update(shape=aval.shape[:d] + aval.shape[d + 1:])
        avals.append(aval)
    primitive.abstract_eval(*avals, **params)

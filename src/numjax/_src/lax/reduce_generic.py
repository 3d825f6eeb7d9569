"""`reduce` with an arbitrary computation, over one or several operands.

A computation that is a known monoid with its identity as the initial value (lax.add with 0,
lax.max with -inf, ...) maps to the dedicated reduce_* primitive. Anything else is traced once to
a scalar jaxpr and becomes a `reduce` primitive whose kernel is a pairwise tree reduction: the
reduced axes are merged into one, and each round combines its first and second halves with the
jaxpr applied elementwise (through vmap, so any scalar program works), halving the axis. The
tree is written with lax ops, so the jvp is the jvp of that same program.

Helpers here (`trace_scalar_computation`, `apply_elementwise`, `fold_last_axis`) are shared
with the generic `reduce_window`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, jaxpr_as_fun
from numjax._src.core.trace import Primitive, Tracer, operand_aval
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import elementwise as ew
from numjax._src.lax import reductions as red
from numjax._src.lax import structural as st
from numjax._src.tree_util import tree_flatten, tree_unflatten
from numjax._src.typing import Array

__all__ = ["reduce", "reduce_p"]

Ints = tuple[int, ...]


# ---- tracing and applying the computation --------------------------------------------------

_jaxpr_cache: dict[Any, tuple[ClosedJaxpr, Any]] = {}


def trace_scalar_computation(name: str, computation: Callable[..., Any], treedef: Any,
                             avals: Sequence[ShapedArray],
                             tree_error: Callable[[Any, Any], Exception] | None = None
                             ) -> ClosedJaxpr:
    """The jaxpr of `computation(x, y)` on scalars of `avals` (x and y both have tree
    `treedef`), with flat inputs (*x, *y) and flat outputs. `tree_error(treedef, out_tree)`
    is the caller's error for an output of another tree structure."""
    key = (computation, treedef, tuple(avals))
    hit = _jaxpr_cache.get(key)
    if hit is not None:
        return hit[0]
    n = len(avals)

    def flat(*args: Any) -> list[Any]:
        x = tree_unflatten(treedef, args[:n])
        y = tree_unflatten(treedef, args[n:])
        outs, out_tree = tree_flatten(computation(x, y))
        if out_tree != treedef:
            if tree_error is not None:
                raise tree_error(treedef, out_tree)
            raise TypeError(f"{name}: the computation must return the same structure as its "
                            f"inputs ({treedef}), got {out_tree}.")
        return outs

    closed = trace_to_jaxpr(flat, [ShapedArray((), a.dtype) for a in avals] * 2)
    for aval, out in zip(avals, closed.out_avals, strict=True):
        if out.shape != () or out.dtype != aval.dtype:
            raise TypeError(f"{name}: the computation must return scalars of the input dtypes "
                            f"{[a.dtype.name for a in avals]}, got {closed.out_avals}.")
    if len(_jaxpr_cache) > 256:
        _jaxpr_cache.clear()
    _jaxpr_cache[key] = (closed, computation)
    return closed


def apply_elementwise(jaxpr: ClosedJaxpr, xs: Sequence[Array], ys: Sequence[Array]
                      ) -> list[Array]:
    """The scalar jaxpr applied to corresponding elements of equally shaped arrays."""
    shape = get_aval(xs[0]).shape
    size = int(np.prod(shape))
    if size == 0:
        return [st.full(shape, 0, get_aval(x).dtype) for x in xs]
    flat = [st.reshape(a, (size,)) for a in (*xs, *ys)]
    fun = jaxpr_as_fun(jaxpr)
    outs = batching.vmap_flat(fun, flat, [0] * len(flat), [0] * len(xs), size)
    return [st.reshape(o, shape) for o in outs]


def tree_reduce_last_axis(jaxpr: ClosedJaxpr, operands: Sequence[Array],
                          inits: Sequence[Array]) -> list[Array]:
    """Reduce the last axis of every operand with the computation, starting from `inits`."""
    xs = list(operands)
    shape = get_aval(xs[0]).shape
    width = shape[-1]
    lead = shape[:-1]
    base = [st.broadcast_in_dim(i, lead, ()) for i in inits]
    if width == 0:
        return base
    while width > 1:
        half = width // 2
        lo = [st.slice_in_dim(x, 0, half, axis=len(lead)) for x in xs]
        hi = [st.slice_in_dim(x, half, 2 * half, axis=len(lead)) for x in xs]
        combined = apply_elementwise(jaxpr, lo, hi)
        if width % 2:
            rest = [st.slice_in_dim(x, 2 * half, width, axis=len(lead)) for x in xs]
            combined = [st.concatenate([c, r], len(lead)) for c, r in zip(combined, rest,
                                                                           strict=True)]
        xs, width = combined, half + width % 2
    last = [st.reshape(x, lead) for x in xs]
    return apply_elementwise(jaxpr, base, last)


def fold_last_axis(jaxpr: ClosedJaxpr, operands: Sequence[Array], inits: Sequence[Array]
                   ) -> list[Array]:
    """Reduce the last axis of every operand with the computation in sequence, the
    accumulator (starting at `inits`) on the left: XLA's order for a window, which decides the
    result when the computation is not associative."""
    shape = get_aval(operands[0]).shape
    lead = shape[:-1]
    acc = [st.broadcast_in_dim(i, lead, ()) for i in inits]
    for k in range(shape[-1]):
        acc = apply_elementwise(
            jaxpr, acc, [st.reshape(st.slice_in_dim(x, k, k + 1, axis=len(lead)), lead)
                         for x in operands])
    return acc


# ---- the reduce primitive ------------------------------------------------------------------

reduce_p = Primitive("reduce")
reduce_p.multiple_results = True


def _merge_reduced(x: Array, dimensions: Ints) -> Array:
    shape = get_aval(x).shape
    kept = [d for d in range(len(shape)) if d not in dimensions]
    x = st.transpose(x, (*kept, *dimensions))
    width = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    return st.reshape(x, (*(shape[d] for d in kept), width))


def _reduce_program(*args: Array, jaxpr: ClosedJaxpr, dimensions: Ints) -> list[Array]:
    n = len(args) // 2
    if not dimensions:
        # XLA's reduce over no dimensions is its operands, the initial values unused (JAX's
        # lax.reduce(x, 0., lax.max, ()) is x, negative entries included).
        return list(args[:n])
    merged = [_merge_reduced(x, dimensions) for x in args[:n]]
    return tree_reduce_last_axis(jaxpr, merged, args[n:])


def _reduce_kernel(*args: Any, computation: Any, jaxpr: ClosedJaxpr, dimensions: Ints
                   ) -> list[Any]:
    outs = _reduce_program(*args, jaxpr=jaxpr, dimensions=dimensions)
    return [np.asarray(o) for o in outs]


@reduce_p.def_abstract_eval
def _reduce_abstract_eval(*avals: ShapedArray, computation: Any, jaxpr: ClosedJaxpr,
                          dimensions: Ints) -> list[ShapedArray]:
    n = len(avals) // 2
    operands, inits = avals[:n], avals[n:]
    _check_reduce(operands, inits, dimensions)
    shape = tuple(d for i, d in enumerate(operands[0].shape) if i not in dimensions)
    return [ShapedArray(shape, o.dtype) for o in operands]


def _check_reduce(operands: Sequence[ShapedArray], inits: Sequence[ShapedArray],
                  dimensions: Ints) -> None:
    if any(o.shape != operands[0].shape for o in operands[1:]):
        raise ValueError("reduce operands must all have the same shape, got "
                         f"{[o.shape for o in operands]}")
    nonscalar = [i.shape for i in inits if i.shape]
    if nonscalar:
        raise ValueError(f"reduce found non-scalar initial value: {nonscalar}")
    if any(o.dtype != i.dtype for o, i in zip(operands, inits, strict=True)):
        raise TypeError("reduce operand dtypes should match corresponding initial value dtypes, "
                        f"got operands={list(operands)} and initial_values={list(inits)}")
    ndim = operands[0].ndim
    if any(not 0 <= d < ndim for d in dimensions):
        raise ValueError(f"reduction axes {dimensions} contains out-of-bounds indices for "
                         f"{operands[0]!r}.")
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"duplicate value in 'axes' of reduction: {dimensions}")


def _reduce_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, computation: Any,
                jaxpr: ClosedJaxpr, dimensions: Ints) -> tuple[list[Any], list[Any]]:
    def program(*args: Any) -> list[Any]:
        return _reduce_program(*args, jaxpr=jaxpr, dimensions=dimensions)

    outs, out_tangents = ad.jvp_flat(program, primals, tangents)
    return outs, out_tangents


def _reduce_batch(args: Sequence[Any], dims: Sequence[Any], *, computation: Any,
                  jaxpr: ClosedJaxpr, dimensions: Ints) -> tuple[list[Any], list[int]]:
    n = len(args) // 2
    if any(d is not batching.not_mapped for d in dims[n:]):
        # A batched initial value: reduce each example's operands with its own init, by
        # folding the init into the operands as one extra element along a reduced axis.
        raise NotImplementedError("reduce: batching over the initial values is not supported")
    size = next(get_aval(a).shape[d] for a, d in zip(args, dims, strict=True)
                if d is not batching.not_mapped)
    operands = [batching.bdim_at_front(a, d, size) for a, d in zip(args[:n], dims[:n],
                                                                    strict=True)]
    outs = reduce_p.bind(*operands, *args[n:], computation=computation, jaxpr=jaxpr,
                         dimensions=tuple(d + 1 for d in dimensions))
    return outs, [0] * len(outs)


reduce_p.def_impl(_reduce_kernel)
reduce_p.def_jvp(_reduce_jvp)
reduce_p.def_batch(_reduce_batch)


# ---- the wrapper ---------------------------------------------------------------------------


def _identity(which: str, dtype: np.dtype) -> Any:
    """The identity of a monoid for `dtype` (None: the monoid does not apply to dtype)."""
    kind = dtype.kind
    floating = kind in "fc" or dtype == dtypes.bfloat16
    if which == "add" or which in ("or", "xor"):
        return None if which != "add" and floating else 0
    if which == "mul":
        return 1
    if which == "and":
        return None if floating else (True if kind == "b" else -1)
    if floating:
        return -np.inf if which == "max" else np.inf
    if kind == "b":
        return which == "min"
    info = np.iinfo(dtype)
    return info.min if which == "max" else info.max


def monoid_kind(computation: Any) -> str | None:
    return {ew.add: "add", ew.mul: "mul", ew.max: "max", ew.min: "min",
            ew.bitwise_and: "and", ew.bitwise_or: "or",
            ew.bitwise_xor: "xor"}.get(computation)


def concrete_scalar(x: Any) -> np.ndarray | None:
    if isinstance(x, Tracer):
        try:
            x = x.to_concrete_value()
        except Exception:
            return None
        if x is None or isinstance(x, Tracer):
            return None
    try:
        return np.asarray(x)
    except Exception:
        return None


_MONOID_REDUCERS = {"add": red.reduce_sum, "mul": red.reduce_prod, "max": red.reduce_max,
                    "min": red.reduce_min, "and": red.reduce_and, "or": red.reduce_or,
                    "xor": red.reduce_xor}


def monoid_init(init: Any, operand_dtype: np.dtype) -> np.ndarray | None:
    """A reduction's init value as a concrete host scalar of the operand's dtype (for
    recognising a monoid's identity without placing the value on the device), or None."""
    if type(init) in (bool, int, float, complex):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.asarray(init).astype(operand_dtype)
    return concrete_scalar(init)


def as_init(init: Any) -> Any:
    """A non-identity initial value as JAX binds it: a Python scalar becomes a weak array of
    its default dtype, which must then be the operand's (an int init of a float reduction is
    refused; only a monoid's identity is read by value)."""
    if type(init) in (bool, int, float, complex):
        return st._convert_element_type(init, dtypes.canonicalize_dtype(type(init)),
                                        type(init) is not bool)
    return init


def reduce(operands: Any, init_values: Any, computation: Callable[[Any, Any], Any],
           dimensions: Sequence[int]) -> Any:
    """Reduce `operands` (an array or pytree of arrays) over `dimensions` with `computation`.

    >>> import numjax.numpy as jnp
    >>> from numjax import lax
    >>> reduce(jnp.array([[1, 2], [3, 4]]), 0, lax.add, (1,))
    Array([3, 7], dtype=int32)
    >>> def argmax_step(a, b):
    ...     pick = a[0] >= b[0]
    ...     return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])
    >>> reduce((jnp.array([3.0, 7.0, 5.0]), jnp.arange(3)), (-jnp.inf, 0), argmax_step, (0,))[1]
    Array(1, dtype=int32)
    """
    flat_ops, treedef = tree_flatten(operands)
    flat_inits, init_tree = tree_flatten(init_values)
    if treedef != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{treedef} vs. {init_tree}")
    op_avals = [operand_aval(o) for o in flat_ops]
    dims = tuple(int(d) for d in dimensions)
    kind = monoid_kind(computation)
    if kind in ("and", "or", "xor") and len(flat_ops) == 1:
        dt = op_avals[0].dtype
        if dt.kind not in "biu":
            raise TypeError(f"logical reduction requires operand dtype bool or int, got "
                            f"{dt.name}.")
    if kind is not None and len(flat_ops) == 1:
        init = monoid_init(flat_inits[0], op_avals[0].dtype)
        identity = _identity(kind, op_avals[0].dtype)
        if (init is not None and identity is not None and init.shape == ()
                and bool(init == np.asarray(identity).astype(init.dtype))):
            ndim = op_avals[0].ndim
            if any(not 0 <= d < ndim for d in dims):
                raise ValueError(f"reduction axes {dims} contains out-of-bounds indices for "
                                 f"{op_avals[0]!r}.")
            if len(set(dims)) != len(dims):
                raise ValueError(f"duplicate value in 'axes' of reduction: {dims}")
            out = _MONOID_REDUCERS[kind](flat_ops[0], dims)
            # As JAX: weak only when the operand and the initial value both are.
            weak = op_avals[0].weak_type and dtypes.is_weakly_typed(flat_inits[0])
            if get_aval(out).weak_type != weak:
                out = st._convert_element_type(out, get_aval(out).dtype, weak)
            return tree_unflatten(treedef, [out])
    flat_inits = [as_init(i) for i in flat_inits]
    init_avals = [get_aval(i) for i in flat_inits]
    _check_reduce(op_avals, init_avals, dims)
    jaxpr = trace_scalar_computation("reduce", computation, treedef,
                                     [ShapedArray((), a.dtype) for a in op_avals])
    outs = reduce_p.bind(*flat_ops, *flat_inits, computation=computation, jaxpr=jaxpr,
                         dimensions=dims)
    return tree_unflatten(treedef, outs)

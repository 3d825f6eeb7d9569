"""einsum (contraction order from opt_einsum, each step lowered to dot_general, reduce_sum and
transpose), einsum_path, tensordot, kron, cross and vecdot."""

from __future__ import annotations

from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.core.avals import check_args_abstractify, get_aval
from numjax._src.core.trace import Tracer
from numjax._src.lax import lax
from numjax._src.numpy.complex_fns import conjugate
from numjax._src.numpy.creation import asarray
from numjax._src.numpy.matrices import diagonal
from numjax._src.numpy.shape import broadcast_arrays, broadcast_to, moveaxis, stack
from numjax._src.numpy.ufuncs import multiply, subtract
from numjax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    not_arrays,
    promote_dtypes,
)
from numjax._src.runtime import transfer_guard
from numjax._src.runtime.array import ArrayImpl
from numjax._src.typing import Array


def _contract_path(*args: Any, **kwargs: Any) -> Any:
    # opt_einsum is loaded on the first einsum: importing it costs `import numjax` about 25 ms
    # of CPU time.
    import opt_einsum

    return opt_einsum.contract_path(*args, **kwargs)


class _ShapeOnly:
    """What opt_einsum needs of an operand: its shape."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape


def einsum_path(subscripts: Any, *operands: Any, optimize: Any = "greedy") -> Any:
    """opt_einsum's contraction path and its description for these operands.

    >>> import numjax.numpy as jnp
    >>> jnp.einsum_path("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 4)))[0]
    [(0, 1)]
    """
    if optimize is True:
        optimize = "greedy"
    ops = [_ShapeOnly(tuple(np.shape(o)) if not hasattr(o, "shape") else tuple(o.shape))
           if not isinstance(o, str | list | tuple) or not _is_interleaved_sublist(o) else o
           for o in operands]
    return _contract_path(subscripts, *ops, optimize=optimize)


def _is_interleaved_sublist(o: Any) -> bool:
    return isinstance(o, list | tuple) and all(
        isinstance(i, int | type(Ellipsis)) for i in o)


def _einsum_operands(subscripts: str, operands: list[Any], optimize: Any) -> list[Array]:
    """Operands that are not all Arrays, read as JAX's einsum reads them: opt_einsum takes
    their shapes first (its errors, "Cannot determine the shape of None, ..."), then they pass
    jit (its errors) and `jnp.asarray` (lists too)."""
    _contract_path(subscripts, *operands, einsum_call=True, use_blas=True,
                             optimize=optimize)
    check_args_abstractify(tuple(operands))
    return [asarray(a) if isinstance(a, list | tuple) else ensure_array(a) for a in operands]


def einsum(subscripts: Any, *operands: Any, out: None = None, optimize: Any = "optimal",
           precision: Any = None, preferred_element_type: Any = None,
           _dot_general: Any = None) -> Array:
    """Einstein summation: contract operands as `subscripts` says.

    >>> import numjax.numpy as jnp
    >>> jnp.einsum("ij,j->i", jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if optimize is True:
        optimize = "optimal"
    elif optimize is False:
        optimize = "greedy"
    spec_operands = (subscripts, *operands)
    if not isinstance(subscripts, str):
        # Interleaved form: op, sublist, op, sublist, ..., [output sublist].
        arrays = list(spec_operands[0::2][:len(spec_operands) // 2])
        check_arraylike("einsum", *arrays)
        arrays = [ensure_array(a) for a in arrays]
        shaped = [x for pair in zip([_ShapeOnly(get_aval(a).shape) for a in arrays],
                                    spec_operands[1::2], strict=False) for x in pair]
        if len(spec_operands) % 2:
            shaped.append(spec_operands[-1])
        _, contractions = _contract_path(*shaped, einsum_call=True, use_blas=True,
                                                   optimize=optimize)
    else:
        arrays = list(operands)
        for a in arrays:
            if not (type(a) is ArrayImpl or isinstance(a, Tracer)):
                arrays = _einsum_operands(subscripts, arrays, optimize)
                break
        _, contractions = _contract_path(
            subscripts, *[_ShapeOnly(get_aval(a).shape) for a in arrays], einsum_call=True,
            use_blas=True, optimize=optimize)
    arrays = promote_dtypes(*arrays)
    dtypes.check_user_dtype_supported(preferred_element_type, "einsum")
    out_dt = None if preferred_element_type is None else dtypes.canonicalize_dtype(
        preferred_element_type)
    ops = list(arrays)
    for contraction in contractions:
        positions, _, step = contraction[0], contraction[1], contraction[2]
        # opt_einsum names the operands in `positions` order and removes them from the list.
        ordered = [ops[p] for p in positions]
        for p in sorted(positions, reverse=True):
            ops.pop(p)
        inputs_str, result = step.split("->")
        in_specs = inputs_str.split(",")
        ops.append(_contract(ordered, in_specs, result, precision, out_dt))
    (res,) = ops
    if out_dt is not None and get_aval(res).dtype != out_dt:
        res = lax.convert_element_type(res, out_dt)
    return res


def _take_diagonals(x: Array, spec: str) -> tuple[Array, str]:
    """Collapse repeated subscripts of one operand to their diagonal."""
    while len(set(spec)) != len(spec):
        for c in spec:
            if spec.count(c) > 1:
                break
        i = spec.index(c)
        j = spec.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        spec = "".join(s for k, s in enumerate(spec) if k not in (i, j)) + c
    return x, spec


def _sum_out(x: Array, spec: str, keep: set[str], out_dt: Any = None) -> tuple[Array, str]:
    axes = tuple(i for i, c in enumerate(spec) if c not in keep)
    if axes:
        if out_dt is not None:
            # As JAX's einsum: a sum over an operand's own axes is taken in the promotion of
            # its dtype with the preferred one (uint32 asked for float32 sums in float32).
            wide = dtypes.result_type(get_aval(x).dtype, out_dt)
            if wide != get_aval(x).dtype:
                x = lax.convert_element_type(x, wide)
        x = lax.reduce_sum(x, axes) if get_aval(x).dtype != np.bool_ else lax.reduce_or(x, axes)
        spec = "".join(c for c in spec if c in keep)
    return x, spec


def _transpose_to(x: Array, spec: str, result: str) -> Array:
    if spec == result:
        return x
    return lax.transpose(x, tuple(spec.index(c) for c in result))


def _contract(ops: list[Array], specs: list[str], result: str, precision: Any,
              out_dt: Any) -> Array:
    ops = list(ops)
    specs = list(specs)
    for k in range(len(ops)):
        ops[k], specs[k] = _take_diagonals(ops[k], specs[k])
    if len(ops) == 1:
        x, spec = _sum_out(ops[0], specs[0], set(result), out_dt)
        return _transpose_to(x, spec, result)
    while len(ops) > 2:
        # opt_einsum's steps are pairwise; reduce any larger step left to right.
        rest = set("".join(specs[2:])) | set(result)
        merged = "".join(dict.fromkeys(c for c in specs[0] + specs[1] if c in rest))
        ops[:2] = [_contract(ops[:2], specs[:2], merged, precision, out_dt)]
        specs[:2] = [merged]
    (a, b), (sa, sb) = ops, specs
    a, sa = _sum_out(a, sa, set(sb) | set(result), out_dt)
    b, sb = _sum_out(b, sb, set(sa) | set(result), out_dt)
    a, b = _broadcast_shared(a, sa, b, sb)
    batch = [c for c in result if c in sa and c in sb]
    contract = [c for c in sa if c in sb and c not in result]
    a_free = [c for c in sa if c not in sb]
    b_free = [c for c in sb if c not in sa]
    if "".join(batch + b_free + a_free) == result:
        # The operands swapped when that gives the result's order with no transpose: JAX's
        # einsum tries that order first (opt_einsum lists a step's operands right to left),
        # and which operand is the left one decides how the product is laid out on devices.
        a, b, sa, sb, a_free, b_free = b, a, sb, sa, b_free, a_free
    if get_aval(a).dtype == np.bool_:
        dims = ((tuple(sa.index(c) for c in contract), tuple(sb.index(c) for c in contract)),
                (tuple(sa.index(c) for c in batch), tuple(sb.index(c) for c in batch)))
        out = lax.dot_general(lax.convert_element_type(a, np.int32),
                              lax.convert_element_type(b, np.int32), dims, precision)
        out = lax.ne(out, lax._convert_element_type(0, np.int32))
    else:
        dims = ((tuple(sa.index(c) for c in contract), tuple(sb.index(c) for c in contract)),
                (tuple(sa.index(c) for c in batch), tuple(sb.index(c) for c in batch)))
        out = lax.dot_general(a, b, dims, precision,
                              out_dt if out_dt is not None else get_aval(a).dtype)
    spec = "".join(batch + a_free + b_free)
    return _transpose_to(out, spec, result)


def _broadcast_shared(a: Array, sa: str, b: Array, sb: str) -> tuple[Array, Array]:
    """NumPy's einsum broadcasts a size-1 dimension against the other operand's."""
    shape_a, shape_b = list(get_aval(a).shape), list(get_aval(b).shape)
    for c in set(sa) & set(sb):
        da, db = shape_a[sa.index(c)], shape_b[sb.index(c)]
        if da == db:
            continue
        if da == 1:
            shape_a[sa.index(c)] = db
        elif db == 1:
            shape_b[sb.index(c)] = da
        else:
            raise ValueError(f"Size of label '{c}' for operand does not match previous "
                             f"terms ({da} vs {db}).")
    return broadcast_to(a, tuple(shape_a)), broadcast_to(b, tuple(shape_b))


def tensordot(a: Array, b: Array, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Array:
    """Sum products over the last `axes` axes of a and the first of b (or the given pair).

    >>> import numjax.numpy as jnp
    >>> jnp.tensordot(jnp.ones((2, 3)), jnp.ones((3, 4)), 1).shape
    (2, 4)
    """
    check_arraylike("tensordot", a, b)
    dtypes.check_user_dtype_supported(preferred_element_type, "tensordot")
    try:
        a, b = promote_dtypes(a, b)
    except TypeError:
        not_arrays("tensordot", a, b)
        raise
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if type(axes) is int:
        if axes > min(na, nb):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({get_aval(a).shape} and {get_aval(b).shape})")
        ca, cb = tuple(range(na - axes, na)), tuple(range(axes))
    elif isinstance(axes, list | tuple) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            ca, cb = (canonicalize_axis(ax1, na),), (canonicalize_axis(ax2, nb),)
        elif isinstance(ax1, list | tuple) and isinstance(ax2, list | tuple):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            ca = tuple(canonicalize_axis(i, na) for i in ax1)
            cb = tuple(canonicalize_axis(i, nb) for i in ax2)
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                        f"lists/tuples of ints, got {axes}")
    pet = get_aval(a).dtype if preferred_element_type is None else \
        dtypes.canonicalize_dtype(preferred_element_type)
    return lax.dot_general(a, b, ((ca, cb), ((), ())), precision, pet)


def kron(a: Array, b: Array) -> Array:
    """Kronecker product."""
    check_arraylike("kron", a, b)
    a, b = promote_dtypes(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na < nb:
        a = lax.broadcast_to_rank(a, nb)
    elif nb < na:
        b = lax.broadcast_to_rank(b, na)
    n = get_aval(a).ndim
    sa, sb = get_aval(a).shape, get_aval(b).shape
    inter = tuple(d for pair in zip(sa, sb, strict=True) for d in pair)
    a_e = lax.broadcast_in_dim(a, inter, tuple(range(0, 2 * n, 2)))
    b_e = lax.broadcast_in_dim(b, inter, tuple(range(1, 2 * n, 2)))
    # lax.mul, as JAX: booleans are refused (JAX 0.4.30's TypeError), not and-ed.
    return lax.reshape(lax.mul(a_e, b_e), tuple(x * y for x, y in zip(sa, sb, strict=True)))


def cross(a: Array, b: Array, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Array:
    """Cross product of 2- or 3-vectors along the given axes."""
    check_arraylike("cross", a, b)
    a, b = promote_dtypes(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, axisa, -1)
    b = moveaxis(b, axisb, -1)
    if get_aval(a).shape[-1] not in (2, 3) or get_aval(b).shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")

    def comp(x: Array, i: int) -> Array:
        if get_aval(x).shape[-1] == 2 and i == 2:
            return lax.full_like(x[..., 0], 0)
        return x[..., i]

    if get_aval(a).shape[-1] == 2 and get_aval(b).shape[-1] == 2:
        return subtract(multiply(a[..., 0], b[..., 1]), multiply(a[..., 1], b[..., 0]))
    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    c = [subtract(multiply(a1, b2), multiply(a2, b1)),
         subtract(multiply(a2, b0), multiply(a0, b2)),
         subtract(multiply(a0, b1), multiply(a1, b0))]
    return moveaxis(stack(c, -1), -1, axisc)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Array:
    """Conjugated dot product of vectors along `axis`, broadcasting the rest."""
    check_arraylike("jnp.vecdot", x1, x2)
    try:
        x1, x2 = promote_dtypes(x1, x2)
    except TypeError:
        not_arrays("jnp.vecdot", x1, x2)
        raise
    n1, n2 = get_aval(x1).ndim, get_aval(x2).ndim
    a1, a2 = canonicalize_axis(axis, n1), canonicalize_axis(axis, n2)
    if get_aval(x1).shape[a1] != get_aval(x2).shape[a2]:
        raise ValueError("x1 and x2 must have the same size along the given axis; got "
                         f"{get_aval(x1).shape} and {get_aval(x2).shape}")
    x1, x2 = moveaxis(x1, a1, -1), moveaxis(x2, a2, -1)
    x1, x2 = broadcast_arrays(conjugate(x1), x2)
    nd = get_aval(x1).ndim
    batch = tuple(range(nd - 1))
    pet = get_aval(x1).dtype if preferred_element_type is None else \
        dtypes.canonicalize_dtype(preferred_element_type)
    return lax.dot_general(x1, x2, (((nd - 1,), (nd - 1,)), (batch, batch)), precision, pet)


transfer_guard.entry_points(globals())

"""Native lowering rules for shapes, reductions, products, control flow and threefry, set as
`Primitive.native` by the modules defining those primitives. On small arrays (held element by
element) shape operations are renamings of the elements, done by NumPy on an object array of
their names (`element_grid`). Every array a rule makes is C-contiguous (slices and transposes
are copied), so later reshapes are views and loop carries keep one numba type."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src.compiler.native import (
    ControlRule,
    ElementRule,
    Elementwise,
    Emitter,
    Reduction,
    Unsupported,
    Value,
    cast,
    dtype_name,
    element_grid,
    is_scalar,
    is_small,
    literal_text,
)

Rule = Callable[[Emitter, Any, str, list[str], list[str]], None]
Elements = Callable[[Emitter, Any, str, list[list[str]]], list[list[str]]]


class _Structural(ElementRule):
    """A rule on arrays (`fn`) that also computes small arrays element by element
    (`elements_fn`)."""

    def __init__(self, fn: Rule, elements_fn: Elements) -> None:
        self.fn = fn
        self.elements_fn = elements_fn

    def __call__(self, em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                 ) -> None:
        self.fn(em, eqn, indent, ins, outs)

    def elements(self, em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                 ) -> list[list[str]]:
        return self.elements_fn(em, eqn, indent, ins)


def structural(elements: Elements) -> Callable[[Rule], _Structural]:
    """The decorated rule on arrays, with `elements` for small arrays."""
    return lambda fn: _Structural(fn, elements)


def control(loops: bool = False) -> Callable[[Callable[..., list[Value]]], ControlRule]:
    """The decorated function as a `ControlRule`."""
    return lambda fn: ControlRule(fn, loops)


def _grid(ins: list[list[str]], eqn: Any, i: int = 0) -> np.ndarray:
    return element_grid(ins[i], _shape(eqn.invars[i]))


def _flat(grid: np.ndarray) -> list[str]:
    return [str(e) for e in np.asarray(grid).reshape(-1)]


def _shape(v: Any) -> tuple[int, ...]:
    return tuple(v.aval.shape)


def _reshaped(em: Emitter, a: Any, text: str, shape: tuple[int, ...]) -> str:
    """`a` (scalar or array) as an array or scalar of `shape` with the same elements."""
    if not shape:
        return text if is_scalar(a) else f"{text}.reshape(1)[0]"
    if is_scalar(a):
        return f"np.full({shape}, {text}, {dtype_name(a.aval.dtype)})"
    if _shape(a) == shape:
        return text
    return f"{text}.reshape({shape})"


def _squeeze_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                      ) -> list[list[str]]:
    return [_flat(_grid(ins, eqn))]  # C order is kept


@structural(_squeeze_elements)
def squeeze_rule(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    """A reshape keeping the elements' C order (squeeze; reshape without `dimensions`)."""
    shape = _shape(eqn.outvars[0])
    em.lines.append(f"{indent}{outs[0]} = {_reshaped(em, eqn.invars[0], ins[0], shape)}")


def _check_dimensions(eqn: Any) -> None:
    if eqn.params.get("dimensions") not in (None, tuple(range(len(_shape(eqn.invars[0]))))):
        raise Unsupported("reshape with dimensions")


def _reshape_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                      ) -> list[list[str]]:
    _check_dimensions(eqn)
    return _squeeze_elements(em, eqn, indent, ins)


@structural(_reshape_elements)
def reshape_rule(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    _check_dimensions(eqn)
    squeeze_rule(em, eqn, indent, ins, outs)


def _broadcast_in_dim(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                      ) -> None:
    if len(eqn.invars) != 1:
        raise Unsupported("broadcast_in_dim with dynamic shapes")
    x, out = eqn.invars[0], eqn.outvars[0]
    shape = _shape(out)
    if is_scalar(x) or not shape:
        em.lines.append(f"{indent}{outs[0]} = {_reshaped(em, x, ins[0], shape)}")
        return
    expanded = [1] * len(shape)
    for src, dst in enumerate(eqn.params["broadcast_dimensions"]):
        expanded[dst] = _shape(x)[src]
    if tuple(expanded) == shape:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}.reshape({shape})")
        return
    em.lines.append(f"{indent}{outs[0]} = np.broadcast_to({ins[0]}.reshape({tuple(expanded)}),"
                    f" {shape}).copy()")


class _Broadcast(Elementwise):
    """broadcast_in_dim: a scalar broadcast is an elementwise read of the scalar (inside a
    cluster it makes no array)."""

    def __init__(self) -> None:
        super().__init__(lambda ins, eqn: ins[0])

    def cluster_shape(self, eqn: Any) -> tuple[int, ...] | None:
        if len(eqn.invars) == 1 and is_scalar(eqn.invars[0]):
            return super().cluster_shape(eqn)
        return None

    def __call__(self, em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                 ) -> None:
        _broadcast_in_dim(em, eqn, indent, ins, outs)

    def elements(self, em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                 ) -> list[list[str]]:
        if len(eqn.invars) != 1:
            raise Unsupported("broadcast_in_dim with dynamic shapes")
        x, shape = eqn.invars[0], _shape(eqn.outvars[0])
        expanded = [1] * len(shape)
        for src, dst in enumerate(eqn.params["broadcast_dimensions"]):
            expanded[dst] = _shape(x)[src]
        return [_flat(np.broadcast_to(_grid(ins, eqn).reshape(expanded), shape))]


broadcast_in_dim_rule = _Broadcast()


def _transpose_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                        ) -> list[list[str]]:
    return [_flat(np.transpose(_grid(ins, eqn), tuple(eqn.params["permutation"])))]


@structural(_transpose_elements)
def transpose_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                   outs: list[str]) -> None:
    perm = tuple(eqn.params["permutation"])
    if perm == tuple(range(len(perm))):
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    em.lines.append(f"{indent}{outs[0]} = np.transpose({ins[0]}, {perm}).copy()")


def _as_matrix(em: Emitter, a: Any, text: str, rows: list[int], cols: list[int],
               indent: str, view: bool = False) -> tuple[str, int, int]:
    """`a` with axes `rows` then `cols` as a C-contiguous 2-D array; with `view`, as the
    transposed view of a C-contiguous one when `cols` are a's leading axes and `rows` the
    others (BLAS reads it as a transposed operand: no copy)."""
    shape = _shape(a)
    m = math.prod(shape[d] for d in rows)
    k = math.prod(shape[d] for d in cols)
    name = em.fresh("m")
    if is_scalar(a):
        em.lines.append(f"{indent}{name} = np.full((1, 1), {text}, "
                        f"{dtype_name(a.aval.dtype)})")
        return name, 1, 1
    perm = tuple(rows + cols)
    if perm == tuple(range(len(shape))):
        src = f"{text}.reshape(({m}, {k}))"
    elif view and perm == (*range(len(cols), len(shape)), *range(len(cols))):
        src = f"{text}.reshape(({k}, {m})).T"
    else:
        src = f"np.transpose({text}, {perm}).copy().reshape(({m}, {k}))"
    em.lines.append(f"{indent}{name} = {src}")
    return name, m, k


def _identity(dtype: np.dtype, init: Any) -> str:
    if init == "all_ones":
        init = True if dtype.kind == "b" else (-1 if dtype.kind == "i" else np.iinfo(dtype).max)
    elif init == "lowest":
        init = -np.inf if dtype.kind == "f" else (np.iinfo(dtype).min if dtype.kind in "iu"
                                                  else False)
    elif init == "highest":
        init = np.inf if dtype.kind == "f" else (np.iinfo(dtype).max if dtype.kind in "iu"
                                                 else True)
    return literal_text(init, dtype)


def _reduction(combine: str, init: Any, em: Emitter, eqn: Any, indent: str, ins: list[str],
               outs: list[str]) -> None:
    x, out = eqn.invars[0], eqn.outvars[0]
    axes = sorted(eqn.params["axes"])
    dtype = np.dtype(out.aval.dtype)
    if not axes or is_scalar(x):
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    kept = [d for d in range(len(_shape(x))) if d not in axes]
    acc, buf, i, j = em.fresh("acc"), em.fresh("red"), em.fresh("k"), em.fresh("j")
    if axes == list(range(len(axes))):
        # Leading axes: the operand's rows are added into one row of results, in memory order
        # and with no transposed copy; each result still combines its terms in order (the
        # same bits), and the pass over a row vectorizes (a bias gradient, 256x128 summed
        # over rows: 45-50 us -> 2 us).
        r = math.prod(_shape(x)[d] for d in axes)
        k = math.prod(_shape(x)[d] for d in kept)
        mat = em.fresh("m")
        step = cast(dtype, combine.format(acc=f"{buf}[{i}]", x=f"{mat}[{j}, {i}]"))
        em.lines += [f"{indent}{mat} = {ins[0]}.reshape(({r}, {k}))",
                     f"{indent}{buf} = np.full({k}, {_identity(dtype, init)}, "
                     f"{dtype_name(dtype)})",
                     f"{indent}for {j} in range({r}):",
                     f"{indent}    for {i} in range({k}):",
                     f"{indent}        {buf}[{i}] = {step}",
                     f"{indent}{outs[0]} = {_reshaped_buffer(buf, _shape(out))}"]
        return
    mat, k, r = _as_matrix(em, x, ins[0], kept, axes, indent)
    step = cast(dtype, combine.format(acc=acc, x=f"{mat}[{i}, {j}]"))
    em.lines += [f"{indent}{buf} = np.empty({k}, {dtype_name(dtype)})",
                 f"{indent}for {i} in range({k}):",
                 f"{indent}    {acc} = {_identity(dtype, init)}",
                 f"{indent}    for {j} in range({r}):",
                 f"{indent}        {acc} = {step}",
                 f"{indent}    {buf}[{i}] = {acc}",
                 f"{indent}{outs[0]} = {_reshaped_buffer(buf, _shape(out))}"]


def _reshaped_buffer(buf: str, shape: tuple[int, ...]) -> str:
    return f"{buf}[0]" if not shape else f"{buf}.reshape({shape})"


def _reducer(combine: str, init: Any) -> Reduction:
    """A reduction combining `acc` and `x` as `combine` says, from `init` (a value, or
    "lowest", "highest", "all_ones" of the dtype)."""
    return Reduction(combine, lambda dtype: _identity(dtype, init),
                     functools.partial(_reduction, combine, init))


reduce_sum_rule = _reducer("{acc} + {x}", 0)
reduce_prod_rule = _reducer("{acc} * {x}", 1)
reduce_max_rule = _reducer("({acc} if ({acc} >= {x} or {acc} != {acc}) else {x})", "lowest")
reduce_min_rule = _reducer("({acc} if ({acc} <= {x} or {acc} != {acc}) else {x})", "highest")
# Bitwise on integers, logical on booleans (& and | on numba booleans stay booleans).
reduce_and_rule = _reducer("({acc} & {x})", "all_ones")
reduce_or_rule = _reducer("({acc} | {x})", 0)


def _arg_extremum(better: str, em: Emitter, eqn: Any, indent: str, ins: list[str],
                  outs: list[str]) -> None:
    x, out = eqn.invars[0], eqn.outvars[0]
    axes = list(eqn.params["axes"])
    if is_scalar(x) or len(axes) != 1 or _shape(x)[axes[0]] == 0:
        raise Unsupported("this argmax")
    kept = [d for d in range(len(_shape(x))) if d != axes[0]]
    mat, k, r = _as_matrix(em, x, ins[0], kept, axes, indent)
    best, idx, buf = em.fresh("best"), em.fresh("idx"), em.fresh("arg")
    i, j = em.fresh("k"), em.fresh("j")
    # The first NaN wins, else the first extremum (NumPy's and XLA's choice).
    em.lines += [f"{indent}{buf} = np.empty({k}, {dtype_name(out.aval.dtype)})",
                 f"{indent}for {i} in range({k}):",
                 f"{indent}    {best} = {mat}[{i}, 0]",
                 f"{indent}    {idx} = 0",
                 f"{indent}    for {j} in range(1, {r}):",
                 f"{indent}        if {best} != {best}:",
                 f"{indent}            break",
                 f"{indent}        if {mat}[{i}, {j}] != {mat}[{i}, {j}] or "
                 f"{mat}[{i}, {j}] {better} {best}:",
                 f"{indent}            {best} = {mat}[{i}, {j}]",
                 f"{indent}            {idx} = {j}",
                 f"{indent}    {buf}[{i}] = {idx}",
                 f"{indent}{outs[0]} = {_reshaped_buffer(buf, _shape(out))}"]


argmax_rule = functools.partial(_arg_extremum, ">")
argmin_rule = functools.partial(_arg_extremum, "<")


# Multiply-adds from which a native product calls BLAS rather than its own loops. Measured
# on the loaded 2-core machine (CPU time of an Adam step on a 32-128-10 MLP, products of 80K
# to 1M multiply-adds): 1.58 ms with loops, 0.91 ms with BLAS on the calling thread (native
# programs run BLAS single-threaded: threaded, the same step took 24.8 ms).
BLAS_MIN_MACS = 4096


def _dot_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                  ) -> list[list[str]]:
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    dtype = np.dtype(eqn.outvars[0].aval.dtype)
    if lb or rb or dtype.kind not in "iuf":
        raise Unsupported("this dot_general")
    lhs, rhs = eqn.invars
    lf = [d for d in range(len(_shape(lhs))) if d not in lc]
    rf = [d for d in range(len(_shape(rhs))) if d not in rc]
    a = _grid(ins, eqn, 0).transpose([*lf, *lc]).reshape(
        math.prod(_shape(lhs)[d] for d in lf), -1)
    b = _grid(ins, eqn, 1).transpose([*rc, *rf]).reshape(
        -1, math.prod(_shape(rhs)[d] for d in rf))
    zero = literal_text(0, dtype)
    out = []
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            if a.shape[1] == 1:  # one term: the product itself (see _outer_product)
                out.append(cast(dtype, f"{cast(dtype, a[i, 0])} * {b[0, j]}"))
                continue
            acc = zero  # summed in order from zero, as the loops do
            for p in range(a.shape[1]):
                acc = cast(dtype, f"{acc} + " + cast(dtype, f"{cast(dtype, a[i, p])} * {b[p, j]}"))
            out.append(acc)
    return [out]


@structural(_dot_elements)
def dot_general_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                     outs: list[str]) -> None:
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    if lb or rb:
        raise Unsupported("dot_general with batch dimensions")
    lhs, rhs = eqn.invars
    out = eqn.outvars[0]
    dtype = np.dtype(out.aval.dtype)
    if dtype.kind not in "iuf":
        raise Unsupported(f"dot_general to {dtype}")
    lf = [d for d in range(len(_shape(lhs))) if d not in lc]
    rf = [d for d in range(len(_shape(rhs))) if d not in rc]
    m, k, n = (math.prod(_shape(v)[d] for d in dims) for v, dims in ((lhs, lf), (lhs, lc),
                                                                      (rhs, rf)))
    blas = (k > 1 and dtype.kind == "f" and dtype.itemsize >= 4 and m > 1
            and m * k * n >= BLAS_MIN_MACS)
    # BLAS takes a transposed operand as it lies (a reverse-mode weight gradient's): copying
    # it cost 26 us of a 32-128-10 MLP's Adam step (160 us).
    a, _, _ = _as_matrix(em, lhs, ins[0], lf, list(lc), indent, view=blas)
    b, _, _ = _as_matrix(em, rhs, ins[1], list(rc), rf, indent, view=blas)
    buf = em.fresh("dot")
    if k == 1:
        _outer_product(em, dtype, a, b, buf, m, n, indent)
    elif blas:
        # Floating-point products large enough to pay for the call go to BLAS (numba's
        # np.dot: the GEMM of SciPy's BLAS, so within float tolerance of the NumPy tier). A
        # vector times a matrix (m == 1) stays a loop: it streams the matrix once, as BLAS
        # would, without the call and its allocations (a 1000-step RNN scan, 1x64 @ 64x64
        # per step: 0.57 ms -> 0.27-0.33 ms of CPU).
        em.lines.append(f"{indent}{buf} = np.dot({a}, {b}).reshape({m * n})")
    else:
        _product_loops(em, dtype, a, b, buf, m, k, n, indent)
    shape = _shape(out)
    em.lines.append(f"{indent}{outs[0]} = {_reshaped_buffer(buf, shape)}")


def _outer_product(em: Emitter, dtype: np.dtype, a: str, b: str, buf: str, m: int, n: int,
                   indent: str) -> None:
    """`buf = a @ b` for a contraction of length 1: each element is its one product, as XLA's
    elementwise multiply and the NumPy tier's (lax/dot.py) compute it. A sum from +0.0 (the
    loops) or BLAS's gemm would turn -1 * 0 into +0.0."""
    i, j, row, s = em.fresh("i"), em.fresh("j"), em.fresh("o"), em.fresh("s")
    em.lines += [f"{indent}{buf} = np.empty({m * n}, {dtype_name(dtype)})",
                 f"{indent}for {i} in range({m}):",
                 f"{indent}    {row} = {i} * {n}",
                 f"{indent}    {s} = {cast(dtype, f'{a}[{i}, 0]')}",
                 f"{indent}    for {j} in range({n}):",
                 f"{indent}        {buf}[{row} + {j}] = {cast(dtype, f'{s} * {b}[0, {j}]')}"]


# Rows of the right operand added per pass over an output row: each output element still sums
# its k products in order (bit for bit the one-row-per-pass loop), but the row is loaded and
# stored once per UNROLL rows instead of once per row.
PRODUCT_UNROLL = 4


def _product_loops(em: Emitter, dtype: np.dtype, a: str, b: str, buf: str, m: int, k: int,
                   n: int, indent: str) -> None:
    """`buf = a @ b` (m x k times k x n) as loops: each output element sums its k products in
    order, each product and sum rounded to the result's dtype. The output is written flat (a
    2-D output row measured slower: its index arithmetic kept the inner loop scalar)."""
    i, p, j, row = em.fresh("i"), em.fresh("p"), em.fresh("j"), em.fresh("o")
    whole = k - k % PRODUCT_UNROLL
    em.lines += [f"{indent}{buf} = np.zeros({m * n}, {dtype_name(dtype)})",
                 f"{indent}for {i} in range({m}):",
                 f"{indent}    {row} = {i} * {n}"]
    inner = indent + "    "

    def pass_over(first: str, rows: int) -> None:
        scalars = [em.fresh("s") for _ in range(rows)]
        for r, s in enumerate(scalars):
            at = first if r == 0 else f"{first} + {r}"
            em.lines.append(f"{inner}    {s} = {cast(dtype, f'{a}[{i}, {at}]')}")
        total = f"{buf}[{row} + {j}]"
        for r, s in enumerate(scalars):
            at = first if r == 0 else f"{first} + {r}"
            total = cast(dtype, f"{total} + " + cast(dtype, f"{s} * {b}[{at}, {j}]"))
        em.lines += [f"{inner}    for {j} in range({n}):",
                     f"{inner}        {buf}[{row} + {j}] = {total}"]

    if whole:
        em.lines.append(f"{inner}for {p} in range(0, {whole}, {PRODUCT_UNROLL}):")
        pass_over(p, PRODUCT_UNROLL)
    if whole < k:
        em.lines.append(f"{inner}for {p} in range({whole}, {k}):")
        pass_over(p, 1)


def _iota_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                   ) -> list[list[str]]:
    shape, dim = tuple(eqn.params["shape"]), eqn.params["dimension"]
    return [[literal_text(idx[dim], eqn.params["dtype"]) for idx in np.ndindex(*shape)]]


@structural(_iota_elements)
def iota_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
              outs: list[str]) -> None:
    shape, dim = tuple(eqn.params["shape"]), eqn.params["dimension"]
    dtype = dtype_name(eqn.params["dtype"])
    line = f"np.arange({shape[dim]}).astype({dtype})"
    if len(shape) > 1:
        expanded = tuple(s if d == dim else 1 for d, s in enumerate(shape))
        line = f"np.broadcast_to({line}.reshape({expanded}), {shape}).copy()"
    em.lines.append(f"{indent}{outs[0]} = {line}")


def _slice_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                    ) -> list[list[str]]:
    starts, limits = eqn.params["start_indices"], eqn.params["limit_indices"]
    strides = eqn.params["strides"] or (1,) * len(starts)
    index = tuple(slice(s, e, st) for s, e, st in zip(starts, limits, strides, strict=True))
    return [_flat(_grid(ins, eqn)[index])]


@structural(_slice_elements)
def slice_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
               outs: list[str]) -> None:
    starts, limits = eqn.params["start_indices"], eqn.params["limit_indices"]
    strides = eqn.params["strides"] or (1,) * len(starts)
    shape = _shape(eqn.invars[0])
    if all(st == 1 for st in strides) and all(
            s == 0 and e == d for s, e, d in zip(starts[1:], limits[1:], shape[1:], strict=True)):
        # Rows of a C-contiguous array are C-contiguous: a view (nothing writes into it).
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}[{starts[0]}:{limits[0]}]")
        return
    index = ", ".join(f"{s}:{e}:{st}" for s, e, st in zip(starts, limits, strides, strict=True))
    em.lines.append(f"{indent}{outs[0]} = {ins[0]}[{index},].copy()")


def _clamped_starts(em: Emitter, idx: list[str], shape: tuple[int, ...],
                    sizes: tuple[int, ...], indent: str) -> list[str]:
    names = []
    for text, dim, size in zip(idx, shape, sizes, strict=True):
        name = em.fresh("start")
        em.lines.append(f"{indent}{name} = min(max(np.int64({text}), 0), {dim - size})")
        names.append(name)
    return names


def dynamic_slice_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                       outs: list[str]) -> None:
    x = eqn.invars[0]
    sizes = tuple(eqn.params["slice_sizes"])
    if len(eqn.invars) != 1 + len(sizes) or is_scalar(x):
        raise Unsupported("this dynamic_slice")
    starts = _clamped_starts(em, ins[1:], _shape(x), sizes, indent)
    if sizes[1:] == _shape(x)[1:]:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}[{starts[0]}:{starts[0]} + {sizes[0]}]")
        return
    index = ", ".join(f"{s}:{s} + {n}" for s, n in zip(starts, sizes, strict=True))
    em.lines.append(f"{indent}{outs[0]} = {ins[0]}[{index},].copy()")


def dynamic_update_slice_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                              outs: list[str]) -> None:
    x, update = eqn.invars[:2]
    if is_scalar(x):
        em.lines.append(f"{indent}{outs[0]} = {ins[1]}")
        return
    sizes = _shape(update)
    starts = _clamped_starts(em, ins[2:], _shape(x), sizes, indent)
    index = ", ".join(f"{s}:{s} + {n}" for s, n in zip(starts, sizes, strict=True))
    em.lines += [f"{indent}{outs[0]} = {ins[0]}.copy()",
                 f"{indent}{outs[0]}[{index},] = {ins[1]}"]


def _concatenate_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                          ) -> list[list[str]]:
    grids = [_grid(ins, eqn, i) for i in range(len(ins))]
    return [_flat(np.concatenate(grids, axis=eqn.params["dimension"]))]


@structural(_concatenate_elements)
def concatenate_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                     outs: list[str]) -> None:
    if len(ins) == 1:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    em.lines.append(f"{indent}{outs[0]} = np.concatenate(({', '.join(ins)},), "
                    f"axis={eqn.params['dimension']})")


def _bitcast_target(em: Emitter, eqn: Any) -> np.dtype[Any]:
    src: np.dtype[Any] = np.dtype(eqn.invars[0].aval.dtype)
    dst: np.dtype[Any] = np.dtype(eqn.outvars[0].aval.dtype)
    if src.itemsize != dst.itemsize or "b" in (src.kind, dst.kind):
        raise Unsupported("bitcast_convert_type between widths")
    em.helpers.add(f"bitcast_{dst.name}")
    return dst


def _bitcast_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                      ) -> list[list[str]]:
    dst = _bitcast_target(em, eqn)
    return [[f"bitcast_{dst.name}({x})" for x in ins[0]]]


@structural(_bitcast_elements)
def bitcast_convert_type_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                              outs: list[str]) -> None:
    x = eqn.invars[0]
    dst = _bitcast_target(em, eqn)
    if is_scalar(x):  # a register reinterpreted (native_helpers), no array
        em.lines.append(f"{indent}{outs[0]} = bitcast_{dst.name}({ins[0]})")
    else:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}.view({dtype_name(dst)})")


def _threefry_elements(em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                       ) -> list[list[str]]:
    em.helpers.add("threefry_pair")
    n = math.prod(_shape(eqn.outvars[0]))
    out1, out2 = [], []
    for i in range(n):
        o1, o2 = em.fresh("e"), em.fresh("e")
        args = ", ".join(x[i] if len(x) > 1 else x[0] for x in ins)
        em.lines.append(f"{indent}{o1}, {o2} = threefry_pair({args})")
        out1.append(o1)
        out2.append(o2)
    return [out1, out2]


@structural(_threefry_elements)
def threefry2x32_rule(em: Emitter, eqn: Any, indent: str, ins: list[str],
                      outs: list[str]) -> None:
    em.helpers.add("threefry_pair")
    shape = _shape(eqn.outvars[0])
    if not shape:
        em.lines.append(f"{indent}{outs[0]}, {outs[1]} = threefry_pair({', '.join(ins)})")
        return
    n = math.prod(shape)
    reads = []
    for a, text in zip(eqn.invars, ins, strict=True):
        if is_scalar(a):
            reads.append(text)
            continue
        flat = em.fresh("f")
        src = text if _shape(a) == shape else f"np.broadcast_to({text}, {shape}).copy()"
        em.lines.append(f"{indent}{flat} = {src}.reshape({n})")
        reads.append(f"{flat}[i_]")
    b1, b2 = em.fresh("r"), em.fresh("r")
    em.lines += [f"{indent}{b1} = np.empty({n}, np.uint32)",
                 f"{indent}{b2} = np.empty({n}, np.uint32)",
                 f"{indent}for i_ in range({n}):",
                 f"{indent}    {b1}[i_], {b2}[i_] = threefry_pair({', '.join(reads)})"]
    for name, buf in zip(outs, (b1, b2), strict=True):
        if name != "_":
            em.lines.append(f"{indent}{name} = {buf}.reshape({shape})")


# ---- calls and control flow -------------------------------------------------------------------


def _flatten(values: list[Value]) -> list[str]:
    return [e for v in values for e in (v if isinstance(v, list) else [v])]


def _assign_all(em: Emitter, targets: list[Value], values: list[Value], indent: str) -> None:
    """One simultaneous assignment of `values` to `targets` (small arrays element by
    element)."""
    names, exprs = _flatten(targets), _flatten(values)
    assert len(names) == len(exprs), "a small array's value given as an array"
    if names:
        em.lines.append(f"{indent}{', '.join(names)} = {', '.join(exprs)}")


@control()
def call_rule(em: Emitter, eqn: Any, indent: str, ins: list[Value]) -> list[Value]:
    closed = eqn.params.get("jaxpr")
    if closed is None:
        raise Unsupported(f"{eqn.primitive.name} without a jaxpr")
    return em.emit_closed(closed, ins, indent)


@control()
def custom_call_rule(em: Emitter, eqn: Any, indent: str, ins: list[Value]) -> list[Value]:
    return em.emit_closed(eqn.params["call_jaxpr"], ins, indent)


def _carries(em: Emitter, values: list[Value], indent: str) -> list[Value]:
    """Fresh names holding a loop's initial carries (a small array's elements one name
    each). Every array value is a mutable C-contiguous array (arguments are made so by the
    caller, rules copy anything else), so a carry keeps one numba type across iterations
    without a copy."""
    names: list[Value] = []
    for value in values:
        if isinstance(value, list):
            names.append([em.assigned(e, indent) for e in value])
        else:
            names.append(em.assigned(value, indent))
    return names


@control(loops=True)
def while_rule(em: Emitter, eqn: Any, indent: str, ins: list[Value]) -> list[Value]:
    cn, bn = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
    cconsts, bconsts, init = ins[:cn], ins[cn:cn + bn], ins[cn + bn:]
    carry = _carries(em, init, indent)
    inner = indent + "    "
    em.lines.append(f"{indent}while True:")
    em.loop_depth += 1
    (pred,) = em.emit_closed(eqn.params["cond_jaxpr"], [*cconsts, *carry], inner)
    em.lines += [f"{inner}if not {pred}:", f"{inner}    break"]
    new = em.emit_closed(eqn.params["body_jaxpr"], [*bconsts, *carry], inner)
    em.loop_depth -= 1
    _assign_all(em, carry, new, inner)
    return carry


@control(loops=True)
def scan_rule(em: Emitter, eqn: Any, indent: str, ins: list[Value]) -> list[Value]:
    p = eqn.params
    nc, ncarry, length = p["num_consts"], p["num_carry"], p["length"]
    consts, init = ins[:nc], ins[nc:nc + ncarry]
    # The stacked operands are read as arrays, one row per iteration.
    xs = [em.array(a, indent) for a in eqn.invars[nc + ncarry:]]
    x_avals = [v.aval for v in p["jaxpr"].jaxpr.invars[nc + ncarry:]]
    carry = _carries(em, init, indent)
    ys = []
    for v in eqn.outvars[ncarry:]:
        name = em.fresh("ys")
        em.lines.append(f"{indent}{name} = np.empty({_shape(v)}, {dtype_name(v.aval.dtype)})")
        ys.append(name)
    i, j = em.fresh("it"), em.fresh("at")
    inner = indent + "    "
    em.lines += [f"{indent}for {i} in range({length}):",
                 f"{inner}{j} = {length - 1} - {i}" if p["reverse"] else f"{inner}{j} = {i}"]
    rows: list[Value] = [
        [f"{x}[{j}, {', '.join(map(str, idx))}]" for idx in np.ndindex(*aval.shape)]
        if is_small(aval) else f"{x}[{j}]" for x, aval in zip(xs, x_avals, strict=True)]
    em.loop_depth += 1
    new = em.emit_closed(p["jaxpr"], [*consts, *carry, *rows], inner)
    em.loop_depth -= 1
    _assign_all(em, carry, new[:ncarry], inner)
    y_avals = [a.aval for a in p["jaxpr"].jaxpr.outvars[ncarry:]]
    for name, y, aval in zip(ys, new[ncarry:], y_avals, strict=True):
        if isinstance(y, list):
            em.lines += [f"{inner}{name}[{j}, {', '.join(map(str, idx))}] = {e}"
                         for idx, e in zip(np.ndindex(*aval.shape), y, strict=True)]
        else:
            em.lines.append(f"{inner}{name}[{j}] = {y}")
    return [*carry, *ys]


@control()
def cond_rule(em: Emitter, eqn: Any, indent: str, ins: list[Value]) -> list[Value]:
    branches = eqn.params["branches"]
    index, ops = ins[0], ins[1:]
    results: list[Value] = [
        [em.fresh("o") for _ in range(math.prod(_shape(v)))] if is_small(v.aval)
        else em.fresh("o") for v in eqn.outvars]
    inner = indent + "    "
    for k, branch in enumerate(branches):
        if k == 0:
            head = f"if {index} <= 0:" if len(branches) > 1 else "if True:"
        elif k == len(branches) - 1:
            head = "else:"
        else:
            head = f"elif {index} == {k}:"
        em.lines += [f"{indent}{head}", f"{inner}pass"]
        values = em.emit_closed(branch, ops, inner)
        _assign_all(em, results, values, inner)
    return results

"""Native lowering rules for shapes, reductions, products, control flow and threefry. Every
array a rule makes is C-contiguous (slices and transposes are copied), so later reshapes are
views and loop carries keep one numba type."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src.compiler.native import (
    Elementwise,
    Emitter,
    Reduction,
    Unsupported,
    cast,
    dtype_name,
    is_scalar,
    literal_text,
    rules,
)

Rule = Callable[[Emitter, Any, str, list[str], list[str]], None]


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the native rule of the primitives `names`."""
    def register(fn: Rule) -> Rule:
        for name in names:
            rules[name] = fn
        return fn
    return register


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


@rule("reshape", "squeeze", "expand_dims")
def _reshape(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    if eqn.primitive.name == "reshape" and eqn.params.get("dimensions") not in (
            None, tuple(range(len(_shape(eqn.invars[0]))))):
        raise Unsupported("reshape with dimensions")
    shape = _shape(eqn.outvars[0])
    em.lines.append(f"{indent}{outs[0]} = {_reshaped(em, eqn.invars[0], ins[0], shape)}")


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


rules["broadcast_in_dim"] = _Broadcast()


@rule("transpose")
def _transpose(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    perm = tuple(eqn.params["permutation"])
    if perm == tuple(range(len(perm))):
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    em.lines.append(f"{indent}{outs[0]} = np.transpose({ins[0]}, {perm}).copy()")


def _as_matrix(em: Emitter, a: Any, text: str, rows: list[int], cols: list[int],
               indent: str) -> tuple[str, int, int]:
    """`a` with axes `rows` then `cols` as a C-contiguous 2-D array."""
    shape = _shape(a)
    m = math.prod(shape[d] for d in rows)
    k = math.prod(shape[d] for d in cols)
    name = em.fresh("m")
    if is_scalar(a):
        em.lines.append(f"{indent}{name} = np.full((1, 1), {text}, "
                        f"{dtype_name(a.aval.dtype)})")
        return name, 1, 1
    perm = tuple(rows + cols)
    src = text if perm == tuple(range(len(shape))) else f"np.transpose({text}, {perm}).copy()"
    em.lines.append(f"{indent}{name} = {src}.reshape(({m}, {k}))")
    return name, m, k


_REDUCERS = {
    "reduce_sum": ("{acc} + {x}", 0),
    "reduce_prod": ("{acc} * {x}", 1),
    "reduce_max": ("({acc} if ({acc} >= {x} or {acc} != {acc}) else {x})", "lowest"),
    "reduce_min": ("({acc} if ({acc} <= {x} or {acc} != {acc}) else {x})", "highest"),
    # Bitwise on integers, logical on booleans (& and | on numba booleans stay booleans).
    "reduce_and": ("({acc} & {x})", "all_ones"),
    "reduce_or": ("({acc} | {x})", 0),
}


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


def _reduction(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    x, out = eqn.invars[0], eqn.outvars[0]
    axes = sorted(eqn.params["axes"])
    dtype = np.dtype(out.aval.dtype)
    if not axes or is_scalar(x):
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    kept = [d for d in range(len(_shape(x))) if d not in axes]
    mat, k, r = _as_matrix(em, x, ins[0], kept, axes, indent)
    combine, init = _REDUCERS[eqn.primitive.name]
    acc, buf, i, j = em.fresh("acc"), em.fresh("red"), em.fresh("k"), em.fresh("j")
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


def _identity_of(init: Any) -> Any:
    return lambda dtype: _identity(dtype, init)


for _name, (_combine, _init) in _REDUCERS.items():
    rules[_name] = Reduction(_combine, _identity_of(_init), _reduction)


@rule("argmax", "argmin")
def _argmax(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    x, out = eqn.invars[0], eqn.outvars[0]
    axes = list(eqn.params["axes"])
    if is_scalar(x) or len(axes) != 1 or _shape(x)[axes[0]] == 0:
        raise Unsupported("this argmax")
    kept = [d for d in range(len(_shape(x))) if d != axes[0]]
    mat, k, r = _as_matrix(em, x, ins[0], kept, axes, indent)
    better = ">" if eqn.primitive.name == "argmax" else "<"
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


# Multiply-adds from which a native product calls BLAS rather than its own loops. Measured
# on the loaded 2-core machine (CPU time of an Adam step on a 32-128-10 MLP, products of 80K
# to 1M multiply-adds): 1.58 ms with loops, 0.91 ms with BLAS on the calling thread (native
# programs run BLAS single-threaded: threaded, the same step took 24.8 ms).
BLAS_MIN_MACS = 4096


@rule("dot_general")
def _dot_general(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
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
    a, m, k = _as_matrix(em, lhs, ins[0], lf, list(lc), indent)
    b, _, n = _as_matrix(em, rhs, ins[1], list(rc), rf, indent)
    buf, i, p, j, s = em.fresh("dot"), em.fresh("i"), em.fresh("p"), em.fresh("j"), em.fresh("s")
    if dtype.kind == "f" and dtype.itemsize >= 4 and m * k * n >= BLAS_MIN_MACS:
        # Floating-point products large enough to pay for the call go to BLAS (numba's
        # np.dot: the GEMM of SciPy's BLAS, so within float tolerance of the NumPy tier).
        em.lines.append(f"{indent}{buf} = np.dot({a}, {b})")
        shape = _shape(out)
        em.lines.append(f"{indent}{outs[0]} = " + (f"{buf}[0, 0]" if not shape
                                                   else f"{buf}.reshape({shape})"))
        return
    # Each output element sums its k products in order, in the result's dtype.
    em.lines += [f"{indent}{buf} = np.zeros(({m}, {n}), {dtype_name(dtype)})",
                 f"{indent}for {i} in range({m}):",
                 f"{indent}    for {p} in range({k}):",
                 f"{indent}        {s} = {cast(dtype, f'{a}[{i}, {p}]')}",
                 f"{indent}        for {j} in range({n}):",
                 f"{indent}            {buf}[{i}, {j}] = "
                 f"{cast(dtype, f'{buf}[{i}, {j}] + ' + cast(dtype, f'{s} * {b}[{p}, {j}]'))}"]
    shape = _shape(out)
    em.lines.append(f"{indent}{outs[0]} = " + (f"{buf}[0, 0]" if not shape
                                               else f"{buf}.reshape({shape})"))


@rule("iota")
def _iota(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    shape, dim = tuple(eqn.params["shape"]), eqn.params["dimension"]
    dtype = dtype_name(eqn.params["dtype"])
    line = f"np.arange({shape[dim]}).astype({dtype})"
    if len(shape) > 1:
        expanded = tuple(s if d == dim else 1 for d, s in enumerate(shape))
        line = f"np.broadcast_to({line}.reshape({expanded}), {shape}).copy()"
    em.lines.append(f"{indent}{outs[0]} = {line}")


@rule("slice")
def _slice(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
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


@rule("dynamic_slice")
def _dynamic_slice(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                   ) -> None:
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


@rule("dynamic_update_slice")
def _dynamic_update_slice(em: Emitter, eqn: Any, indent: str, ins: list[str],
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


@rule("concatenate")
def _concatenate(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    if len(ins) == 1:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}")
        return
    em.lines.append(f"{indent}{outs[0]} = np.concatenate(({', '.join(ins)},), "
                    f"axis={eqn.params['dimension']})")


@rule("bitcast_convert_type")
def _bitcast(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    x, out = eqn.invars[0], eqn.outvars[0]
    src, dst = np.dtype(x.aval.dtype), np.dtype(out.aval.dtype)
    if src.itemsize != dst.itemsize or "b" in (src.kind, dst.kind):
        raise Unsupported("bitcast_convert_type between widths")
    if is_scalar(x):
        em.lines.append(f"{indent}{outs[0]} = np.array([{ins[0]}]).view({dtype_name(dst)})[0]")
    else:
        em.lines.append(f"{indent}{outs[0]} = {ins[0]}.view({dtype_name(dst)})")


@rule("threefry2x32")
def _threefry(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
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


def _assign(em: Emitter, names: list[str], values: list[str], indent: str) -> None:
    for name, value in zip(names, values, strict=True):
        if name != "_":
            em.lines.append(f"{indent}{name} = {value}")


@rule("pjit", "closed_call", "core_call", "remat", "checkpoint")
def _call(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    closed = eqn.params.get("jaxpr")
    if closed is None:
        raise Unsupported(f"{eqn.primitive.name} without a jaxpr")
    _assign(em, outs, em.emit_closed(closed, ins, indent), indent)


@rule("custom_jvp_call", "custom_vjp_call")
def _custom_call(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    _assign(em, outs, em.emit_closed(eqn.params["call_jaxpr"], ins, indent), indent)


def _carries(em: Emitter, avars: list[Any], values: list[str], indent: str) -> list[str]:
    """Fresh names holding a loop's initial carries. Every array value is a mutable
    C-contiguous array (arguments are made so by the caller, rules copy anything else), so a
    carry keeps one numba type across iterations without a copy."""
    names = []
    for value in values:
        name = em.fresh("c")
        em.lines.append(f"{indent}{name} = {value}")
        names.append(name)
    return names


@rule("while")
def _while(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    cn, bn = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
    cconsts, bconsts, init = ins[:cn], ins[cn:cn + bn], ins[cn + bn:]
    carry = _carries(em, eqn.invars[cn + bn:], init, indent)
    inner = indent + "    "
    em.lines.append(f"{indent}while True:")
    (pred,) = em.emit_closed(eqn.params["cond_jaxpr"], [*cconsts, *carry], inner)
    em.lines += [f"{inner}if not {pred}:", f"{inner}    break"]
    new = em.emit_closed(eqn.params["body_jaxpr"], [*bconsts, *carry], inner)
    if carry:
        em.lines.append(f"{inner}{', '.join(carry)} = {', '.join(new)}")
    _assign(em, outs, carry, indent)


@rule("scan")
def _scan(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    p = eqn.params
    nc, ncarry, length = p["num_consts"], p["num_carry"], p["length"]
    consts, init, xs = ins[:nc], ins[nc:nc + ncarry], ins[nc + ncarry:]
    carry = _carries(em, eqn.invars[nc:nc + ncarry], init, indent)
    ys_vars = eqn.outvars[ncarry:]
    ys = []
    for v in ys_vars:
        name = em.fresh("ys")
        em.lines.append(f"{indent}{name} = np.empty({_shape(v)}, {dtype_name(v.aval.dtype)})")
        ys.append(name)
    i, j = em.fresh("it"), em.fresh("at")
    inner = indent + "    "
    em.lines += [f"{indent}for {i} in range({length}):",
                 f"{inner}{j} = {length - 1} - {i}" if p["reverse"] else f"{inner}{j} = {i}"]
    new = em.emit_closed(p["jaxpr"], [*consts, *carry, *(f"{x}[{j}]" for x in xs)], inner)
    if carry:
        em.lines.append(f"{inner}{', '.join(carry)} = {', '.join(new[:ncarry])}")
    for name, y in zip(ys, new[ncarry:], strict=True):
        em.lines.append(f"{inner}{name}[{j}] = {y}")
    _assign(em, outs, [*carry, *ys], indent)


@rule("cond")
def _cond(em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]) -> None:
    branches = eqn.params["branches"]
    index, ops = ins[0], ins[1:]
    results = [em.fresh("o") for _ in eqn.outvars]
    inner = indent + "    "
    for k, branch in enumerate(branches):
        if k == 0:
            head = f"if {index} <= 0:" if len(branches) > 1 else "if True:"
        elif k == len(branches) - 1:
            head = "else:"
        else:
            head = f"elif {index} == {k}:"
        em.lines.append(f"{indent}{head}")
        values = em.emit_closed(branch, ops, inner)
        for name, value in zip(results, values, strict=True):
            em.lines.append(f"{inner}{name} = {value}")
    _assign(em, outs, results, indent)


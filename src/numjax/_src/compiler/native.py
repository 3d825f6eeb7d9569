"""Lowering a jaxpr to numba source: the native tier's code generator.

A program every primitive of which has a rule here becomes one `@njit` function (nopython
mode): values of shape () are machine scalars of their exact dtype, arrays are C-contiguous
NumPy arrays, loops and branches are Python control flow numba compiles. Each scalar result
is converted to its dtype right where it is made (numba widens small integers to 64 bits in
arithmetic; the conversion wraps them back, as NumPy's fixed-width arithmetic does), and
elementwise operations on arrays are explicit loops over the same scalar expressions, so a
result's dtype never depends on numba's promotion rules.

What is exact: integer and boolean work, shifts, bit casts, threefry, float conversions,
comparisons, selects, and float +, -, *, / (each one correctly rounded operation, as NumPy's),
XLA's fused multiply-add and float32 erf_inv as `random/xla_math.py` computes them.
Transcendental functions (numba calls libm; NumPy's SIMD loops may round differently), sums
(sequential here, pairwise in NumPy) and products (BLAS there) agree within float tolerance.

This module only writes source; `native_tier` compiles and installs it. It imports no numba.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.compiler import native_helpers
from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var

FUNCTION_NAME = "native_program"


class Unsupported(Exception):
    """A primitive (or a form of one) without a native lowering: the program stays on the
    NumPy tier."""


def dtype_name(dtype: Any) -> str:
    return f"np.{np.dtype(dtype).name}"


def literal_text(value: Any, dtype: Any) -> str:
    """Source of a scalar of `dtype` with exactly `value`'s value."""
    dtype = np.dtype(dtype)
    value = np.asarray(value, dtype)[()]
    if dtype.kind == "b":
        return "True" if value else "False"
    if dtype.kind in "iu":
        return f"{dtype_name(dtype)}({int(value)})"
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        v = float(value)
        if math.isnan(v):
            text = "np.nan"
        elif math.isinf(v):
            text = "np.inf" if v > 0 else "-np.inf"
        else:
            text = repr(v)  # exact: the float64 holding a float32 value prints it exactly
        return f"{dtype_name(dtype)}({text})"
    raise Unsupported(f"a literal of dtype {dtype}")


_SUPPORTED_DTYPES = frozenset(np.dtype(d) for d in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float32, np.float64))


def check_aval(aval: Any) -> None:
    if np.dtype(aval.dtype) not in _SUPPORTED_DTYPES:
        raise Unsupported(f"dtype {aval.dtype}")


class Emitter:
    """Writes the numba function: one statement (or loop) per equation; loop and branch bodies
    are emitted inline with fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[Var, str] = {}
        self.helpers: set[str] = set()
        self._count = 0

    def fresh(self, hint: str = "t") -> str:
        self._count += 1
        return f"{hint}{self._count}_"

    def var(self, v: Var) -> str:
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = self.fresh("v")
        return name

    def atom(self, a: Any) -> str:
        if isinstance(a, Literal):
            if np.shape(a.val):
                raise Unsupported("an array literal")
            return literal_text(a.val, a.aval.dtype)
        return self.var(a)

    def emit_jaxpr(self, jaxpr: Jaxpr, consts: Sequence[str], inputs: Sequence[str],
                   indent: str) -> list[str]:
        """Emit `jaxpr` reading `consts` and `inputs` (names or expressions); returns the
        atoms of its outputs. Elementwise equations with one array shape are gathered into
        clusters, each one loop over the elements (`_Cluster`), emitted before the first
        equation outside it that reads one of its results."""
        for v, expr in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *inputs], strict=True):
            name = self.fresh("v")
            self.names[v] = name
            self.lines.append(f"{indent}{name} = {expr}")
        readers: dict[Var, set[int]] = {}
        for index, eqn in enumerate(jaxpr.eqns):
            for a in eqn.invars:
                if isinstance(a, Var):
                    readers.setdefault(a, set()).add(index)
        live_out = {a for a in jaxpr.outvars if isinstance(a, Var)}
        open_clusters: dict[tuple[int, ...], _Cluster] = {}
        made_in: dict[Var, _Cluster] = {}

        def flush(cluster: _Cluster) -> None:
            if open_clusters.get(cluster.shape) is cluster:
                del open_clusters[cluster.shape]
                cluster.emit(self, indent, readers, live_out)

        for index, eqn in enumerate(jaxpr.eqns):
            for v in eqn.outvars:
                check_aval(v.aval)
            rule = rules.get(eqn.primitive.name)
            if rule is None:
                raise Unsupported(f"primitive {eqn.primitive.name}")
            shape = rule.cluster_shape(eqn) if isinstance(rule, Fusable) else None
            for a in eqn.invars:
                producer = made_in.get(a) if isinstance(a, Var) else None
                # A reduction's result exists only after its cluster's loop.
                if producer is not None and (shape is None or producer.shape != shape
                                             or a in producer.reduced):
                    flush(producer)
            if shape is not None:
                assert isinstance(rule, Fusable)
                cluster = open_clusters.get(shape)
                if cluster is None:
                    cluster = open_clusters[shape] = _Cluster(shape)
                cluster.add(index, eqn, rule)
                made_in[eqn.outvars[0]] = cluster
                continue
            ins = [self.atom(a) for a in eqn.invars]
            outs = [("_" if isinstance(v, DropVar) else self.var(v)) for v in eqn.outvars]
            rule(self, eqn, indent, ins, outs)
        for cluster in list(open_clusters.values()):
            flush(cluster)
        return [self.atom(a) for a in jaxpr.outvars]

    def emit_closed(self, closed: ClosedJaxpr, inputs: Sequence[str], indent: str
                    ) -> list[str]:
        """Emit a nested closed jaxpr; its consts must be scalars or were hoisted (JAX hoists
        the array constants of bodies and branches into operands)."""
        consts = []
        for c in closed.consts:
            if np.shape(c):
                raise Unsupported("an array constant inside a nested jaxpr")
            consts.append(literal_text(np.asarray(getattr(c, "_buf", c)), np.asarray(
                getattr(c, "_buf", c)).dtype))
        return self.emit_jaxpr(closed.jaxpr, consts, inputs, indent)


Rule = Callable[[Emitter, Any, str, list[str], list[str]], None]
rules: dict[str, Rule] = {}


def cast(dtype: Any, expr: str) -> str:
    """`expr` converted to `dtype` (integers wrap, as NumPy's fixed-width arithmetic)."""
    if np.dtype(dtype).kind == "b":
        return f"bool({expr})"
    return f"{dtype_name(dtype)}({expr})"


class Fusable:
    """A rule whose equations may join a cluster: `cluster_shape(eqn)` is the shape looped
    over (None: emit the equation on its own)."""

    def cluster_shape(self, eqn: Any) -> tuple[int, ...] | None:
        raise NotImplementedError


class Elementwise(Fusable):
    """The rule of an elementwise primitive: `expr(operands, eqn)` is its scalar expression
    (operands are scalar expressions too), `helper` a helper function it calls."""

    def __init__(self, expr: Callable[[list[str], Any], str], helper: str | None = None
                 ) -> None:
        self.expr = expr
        self.helper = helper

    def cluster_shape(self, eqn: Any) -> tuple[int, ...] | None:
        shape = tuple(eqn.outvars[0].aval.shape)
        return shape if shape and len(eqn.outvars) == 1 else None

    def __call__(self, em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                 ) -> None:
        # Only scalar results come here; array results go through a cluster.
        if self.helper:
            em.helpers.add(self.helper)
        em.lines.append(f"{indent}{outs[0]} = "
                        f"{cast(eqn.outvars[0].aval.dtype, self.expr(ins, eqn))}")


class Reduction(Fusable):
    """A reduction rule; a reduction of all axes joins the cluster of its operand's shape as
    an accumulator updated in the loop, in element order (`combine` formats `acc` and `x`)."""

    def __init__(self, combine: str, identity: Callable[[np.dtype], str],
                 standalone: Rule) -> None:
        self.combine = combine
        self.identity = identity
        self.standalone = standalone

    def cluster_shape(self, eqn: Any) -> tuple[int, ...] | None:
        shape = tuple(eqn.invars[0].aval.shape)
        if shape and len(eqn.params["axes"]) == len(shape):
            return shape
        return None

    def __call__(self, em: Emitter, eqn: Any, indent: str, ins: list[str], outs: list[str]
                 ) -> None:
        self.standalone(em, eqn, indent, ins, outs)


class _Cluster:
    """Elementwise equations with one result shape, computed in one loop over the elements:
    a result read only inside the cluster is a scalar in the loop, the others are written to
    arrays (no array per intermediate, no call per operation)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.members: list[tuple[int, Any, Fusable]] = []
        self.reduced: set[Var] = set()

    def add(self, index: int, eqn: Any, rule: Fusable) -> None:
        self.members.append((index, eqn, rule))
        if isinstance(rule, Reduction):
            self.reduced.add(eqn.outvars[0])

    def emit(self, em: Emitter, indent: str, readers: dict[Var, set[int]],
             live_out: set[Var]) -> None:
        n = math.prod(self.shape)
        inside = {index for index, _, _ in self.members}
        scalars: dict[Var, str] = {}
        flats: dict[Var, str] = {}
        head: list[str] = []
        body: list[str] = []
        tail: list[str] = []

        def read(a: Any) -> str:
            if isinstance(a, Var) and a in scalars:
                return scalars[a]
            text = em.atom(a)
            if not a.aval.shape:
                return text
            flat = flats.get(a)
            if flat is None:
                flat = flats[a] = em.fresh("f")
                if tuple(a.aval.shape) == self.shape:
                    head.append(f"{indent}{flat} = {text}.reshape({n})")
                else:
                    head.append(f"{indent}{flat} = np.broadcast_to({text}, {self.shape})"
                                f".copy().reshape({n})")
            return f"{flat}[i_]"

        for _, eqn, rule in self.members:
            out = eqn.outvars[0]
            if isinstance(rule, Reduction):
                acc = em.fresh("acc")
                dtype = np.dtype(out.aval.dtype)
                head.append(f"{indent}{acc} = {rule.identity(dtype)}")
                step = rule.combine.format(acc=acc, x=read(eqn.invars[0]))
                body.append(f"{indent}    {acc} = {cast(dtype, step)}")
                tail.append(f"{indent}{em.var(out)} = {acc}")
                continue
            assert isinstance(rule, Elementwise)
            if rule.helper:
                em.helpers.add(rule.helper)
            value = em.fresh("s")
            body.append(f"{indent}    {value} = "
                        f"{cast(out.aval.dtype, rule.expr([read(a) for a in eqn.invars], eqn))}")
            scalars[out] = value
            if out in live_out or not readers.get(out, set()) <= inside:
                buf = em.fresh("r")
                head.append(f"{indent}{buf} = np.empty({n}, {dtype_name(out.aval.dtype)})")
                body.append(f"{indent}    {buf}[i_] = {value}")
                tail.append(f"{indent}{em.var(out)} = {buf}.reshape({self.shape})")
        em.lines += [*head, f"{indent}for i_ in range({n}):", *body, *tail]


def lower(closed: ClosedJaxpr) -> str:
    """The source of a module defining `native_program(*consts, *args)` computing `closed`
    (scalar arguments are passed as scalars, arrays as C-contiguous arrays); raises
    `Unsupported` when some primitive has no native lowering."""
    jaxpr = closed.jaxpr
    for v in [*jaxpr.constvars, *jaxpr.invars]:
        check_aval(v.aval)
    emitter = Emitter()
    params = [f"c{i}_" for i in range(len(jaxpr.constvars))] + \
        [f"a{i}_" for i in range(len(jaxpr.invars))]
    indent = "    "
    outs = emitter.emit_jaxpr(jaxpr, params[:len(jaxpr.constvars)],
                              params[len(jaxpr.constvars):], indent)
    body = emitter.lines
    body.append(f"{indent}return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    header = ["import numpy as np", "import numba", "",
              *native_helpers.source(emitter.helpers), "",
              "@numba.njit(cache=True, error_model='numpy', nogil=True)",
              f"def {FUNCTION_NAME}({', '.join(params)}):"]
    return "\n".join([*header, *body]) + "\n"


def is_scalar(v: Any) -> bool:
    return not v.aval.shape


# Rules live in `native_rules`, registered into `rules` at import.
from numjax._src.compiler import native_rules as _native_rules  # noqa: E402, F401

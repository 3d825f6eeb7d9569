"""Lowering a jaxpr to numba source: the native tier's code generator.

A program every primitive of which has a native rule (`Primitive.native`, set where the
primitive is defined from the rules in `native_rules` and `native_structural`) becomes one
`@njit` function (nopython mode): values of shape () are machine scalars of their exact
dtype, arrays of at most `SMALL_ELEMENTS` elements are one machine scalar per element, larger
arrays are C-contiguous NumPy arrays, loops and branches are Python control flow numba
compiles. Each scalar result
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


# Arrays of at most this many elements (statically known) are held element by element, as
# machine scalars in locals: a sampler's position, momentum or key then costs no allocation,
# and shape operations on them (slices, reshapes, broadcasts, iota, concatenation) no code.
# HMC on a 3-d density (1000 draws x 5 leapfrogs, arrays of 2, 3 and 6 elements): 5.5 ms of
# CPU -> 0.24 ms.
SMALL_ELEMENTS = 8

# A value while emitting: the source of a scalar or an array, or the elements (C order) of a
# small array.
Value = str | list[str]


def is_small(aval: Any) -> bool:
    """Whether values of `aval` are held as elements (`SMALL_ELEMENTS`)."""
    shape = tuple(aval.shape)
    return bool(shape) and 0 < math.prod(shape) <= SMALL_ELEMENTS


class Emitter:
    """Writes the numba function: one statement (or loop) per equation; loop and branch bodies
    are emitted inline with fresh names. Every small array variable (`is_small`) has its
    elements in `elems` (names or literals); it may have an array too (`names`), when it was
    made as one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[Var, str] = {}
        self.elems: dict[Var, list[str]] = {}
        self.helpers: set[str] = set()
        self._count = 0
        # Lines run once at the start of the function: arrays made from literals alone (iota,
        # broadcasts of constants) inside loop bodies are made there, not per iteration (no
        # rule writes into an array it did not make, so one array serves every iteration).
        self.prologue: list[str] = []
        self.loop_depth = 0  # loop bodies being emitted

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

    def value(self, a: Any) -> Value:
        """`a`'s elements when it is small, else its source."""
        if isinstance(a, Var) and a in self.elems:
            return self.elems[a]
        return self.atom(a)

    def elements(self, a: Any) -> list[str]:
        """The elements of a scalar or small array operand (a scalar is one element)."""
        value = self.value(a)
        return value if isinstance(value, list) else [value]

    def array(self, a: Any, indent: str) -> str:
        """`a` as an array (or scalar): a small array made of its elements only when it has
        no array yet (not cached: the array is made where it is read, maybe in a branch)."""
        if isinstance(a, Var) and a in self.elems and a not in self.names:
            return self.materialize(self.elems[a], a.aval, indent)
        return self.atom(a)

    def materialize(self, elems: Sequence[str], aval: Any, indent: str) -> str:
        flat = self.fresh("m")
        self.lines.append(f"{indent}{flat} = np.empty({len(elems)}, {dtype_name(aval.dtype)})")
        self.lines += [f"{indent}{flat}[{i}] = {e}" for i, e in enumerate(elems)]
        shape = tuple(aval.shape)
        if len(shape) == 1:
            return flat
        name = self.fresh("m")
        self.lines.append(f"{indent}{name} = {flat}.reshape({shape})")
        return name

    def bind(self, v: Var, value: Value, indent: str) -> None:
        """Make `value` the value of `v`: each element or the whole value assigned to a fresh
        name (loop carries are reassigned; the names of `v` are not), a small array read
        element by element."""
        if isinstance(v, DropVar):
            return
        if isinstance(value, list):
            self.elems[v] = [self.assigned(e, indent) for e in value]
            return
        name = self.fresh("v")
        self.names[v] = name
        self.lines.append(f"{indent}{name} = {value}")
        self.read_elements(v, indent)

    def assigned(self, expr: str, indent: str) -> str:
        """A fresh local holding `expr`."""
        name = self.fresh("e")
        self.lines.append(f"{indent}{name} = {expr}")
        return name

    def read_elements(self, v: Var, indent: str) -> None:
        """Give a small array `v` made as an array (`names[v]`) its elements."""
        if isinstance(v, DropVar) or v in self.elems or not is_small(v.aval):
            return
        shape = tuple(v.aval.shape)
        name = self.names[v]
        self.elems[v] = [self.assigned(f"{name}[{', '.join(map(str, idx))}]", indent)
                         for idx in np.ndindex(*shape)]

    def emit_jaxpr(self, jaxpr: Jaxpr, consts: Sequence[Value], inputs: Sequence[Value],
                   indent: str) -> list[Value]:
        """Emit `jaxpr` reading `consts` and `inputs` (values); returns the values of its
        outputs. Elementwise equations with one (large) array shape are gathered into
        clusters, each one loop over the elements (`_Cluster`), emitted before the first
        equation outside it that reads one of its results; equations on small arrays are
        emitted element by element (`ElementRule`)."""
        for v, value in zip([*jaxpr.constvars, *jaxpr.invars], [*consts, *inputs],
                            strict=True):
            self.bind(v, value, indent)
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
            rule = eqn.primitive.native
            if rule is None:
                raise Unsupported(f"primitive {eqn.primitive.name}")
            shape = rule.cluster_shape(eqn) if isinstance(rule, Fusable) and not \
                _element_wise(eqn) else None
            for a in eqn.invars:
                producer = made_in.get(a) if isinstance(a, Var) else None
                # A reduction's result exists only after its cluster's loop.
                if producer is not None and (shape is None or producer.shape != shape
                                             or a in producer.reduced):
                    flush(producer)
            if shape is None:
                self.emit_equation(eqn, rule, indent)
                continue
            assert isinstance(rule, Fusable)
            cluster = open_clusters.get(shape)
            if cluster is None:
                cluster = open_clusters[shape] = _Cluster(shape)
            cluster.add(index, eqn, rule)
            made_in[eqn.outvars[0]] = cluster
        for cluster in list(open_clusters.values()):
            flush(cluster)
        return [self.value(a) for a in jaxpr.outvars]

    def emit_equation(self, eqn: Any, rule: Any, indent: str) -> None:
        """Emit an equation outside any cluster: made once before the loops (`_hoistable`),
        by a control rule, element by element (`_element_wise`), or by the rule on arrays."""
        if self.loop_depth and _hoistable(eqn, rule):
            lines, self.lines = self.lines, self.prologue
            try:
                rule(self, eqn, _TOP, [self.atom(a) for a in eqn.invars],
                     [self.var(v) for v in eqn.outvars])
            finally:
                self.lines = lines
            return
        if isinstance(rule, ControlRule):
            values = rule.fn(self, eqn, indent, [self.value(a) for a in eqn.invars])
            for v, value in zip(eqn.outvars, values, strict=True):
                self.bind(v, value, indent)
            return
        if isinstance(rule, ElementRule) and _element_wise(eqn):
            results = rule.elements(self, eqn, indent, [self.elements(a) for a in eqn.invars])
            for v, elems in zip(eqn.outvars, results, strict=True):
                if isinstance(v, DropVar):
                    continue
                names = [e if e.isidentifier() else self.assigned(e, indent) for e in elems]
                if v.aval.shape:
                    self.elems[v] = names
                else:
                    (self.names[v],) = names
            return
        ins = [self.array(a, indent) for a in eqn.invars]
        outs = [("_" if isinstance(v, DropVar) else self.var(v)) for v in eqn.outvars]
        rule(self, eqn, indent, ins, outs)
        for v in eqn.outvars:
            self.read_elements(v, indent)

    def emit_closed(self, closed: ClosedJaxpr, inputs: Sequence[Value], indent: str
                    ) -> list[Value]:
        """Emit a nested closed jaxpr; its consts must be scalars or were hoisted (JAX hoists
        the array constants of bodies and branches into operands)."""
        consts: list[Value] = []
        for c in closed.consts:
            if np.shape(c):
                raise Unsupported("an array constant inside a nested jaxpr")
            consts.append(literal_text(np.asarray(getattr(c, "_buf", c)), np.asarray(
                getattr(c, "_buf", c)).dtype))
        return self.emit_jaxpr(closed.jaxpr, consts, inputs, indent)


_TOP = "    "  # the indent of the function's own statements


def _hoistable(eqn: Any, rule: Any) -> bool:
    """Whether an equation inside a loop body is made once, before the loops: it reads only
    literals and makes arrays (a scalar or element of a small array made from literals is a
    constant the compiler folds; a broadcast scalar inside a cluster's loop is no array)."""
    if isinstance(rule, Fusable) and rule.cluster_shape(eqn) is not None:
        return False
    return (not isinstance(rule, ControlRule) and not eqn.effects
            and all(isinstance(a, Literal) for a in eqn.invars)
            and all(v.aval.shape and not is_small(v.aval) and not isinstance(v, DropVar)
                    for v in eqn.outvars))


def _element_wise(eqn: Any) -> bool:
    """Whether an equation is emitted element by element: it reads or makes a small array and
    every operand and result is a scalar or a small array."""
    avals = [a.aval for a in [*eqn.invars, *eqn.outvars]]
    return any(is_small(a) for a in avals) and all(
        not a.shape or is_small(a) for a in avals)


Rule = Callable[[Emitter, Any, str, list[str], list[str]], None]


def cast(dtype: Any, expr: str) -> str:
    """`expr` converted to `dtype` (integers wrap, as NumPy's fixed-width arithmetic)."""
    if np.dtype(dtype).kind == "b":
        return f"bool({expr})"
    return f"{dtype_name(dtype)}({expr})"


class ElementRule:
    """A rule that also computes small arrays element by element: `elements(em, eqn, indent,
    ins)` takes each operand's elements (a scalar is one) and returns each result's elements
    (C order) as expressions, writing any statements it needs at `indent`."""

    def elements(self, em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                 ) -> list[list[str]]:
        raise NotImplementedError


class ControlRule:
    """The rule of a primitive holding jaxprs (calls, loops, branches): `fn(em, eqn, indent,
    ins)` takes the operands' values (small arrays as elements) and returns the results'.
    `loops`: the primitive is a loop (a program with one is worth compiling natively however
    few its equations)."""

    def __init__(self, fn: Callable[[Emitter, Any, str, list[Value]], list[Value]],
                 loops: bool = False) -> None:
        self.fn = fn
        self.loops = loops


class Fusable(ElementRule):
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

    def elements(self, em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                 ) -> list[list[str]]:
        if self.helper:
            em.helpers.add(self.helper)
        dtype = eqn.outvars[0].aval.dtype
        n = math.prod(eqn.outvars[0].aval.shape)
        # Operands have the result's shape, or are scalars read by every element.
        return [[cast(dtype, self.expr([x[i] if len(x) > 1 else x[0] for x in ins], eqn))
                 for i in range(n)]]


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

    def elements(self, em: Emitter, eqn: Any, indent: str, ins: list[list[str]]
                 ) -> list[list[str]]:
        # Each result element combines its operand elements in C order, from the first
        # (NumPy's reductions start from the first element too).
        x, out = eqn.invars[0], eqn.outvars[0]
        dtype = np.dtype(out.aval.dtype)
        axes = sorted(eqn.params["axes"])
        shape = tuple(x.aval.shape)
        kept = [d for d in range(len(shape)) if d not in axes]
        grouped = element_grid(ins[0], shape).transpose([*kept, *axes]).reshape(
            math.prod(shape[d] for d in kept), -1)
        results = []
        for row in grouped:
            acc = row[0]
            for e in row[1:]:
                acc = cast(dtype, self.combine.format(acc=acc, x=e))
            results.append(acc)
        return [results]


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
            text = em.array(a, indent)
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
    indent = _TOP
    emitter.emit_jaxpr(jaxpr, params[:len(jaxpr.constvars)], params[len(jaxpr.constvars):],
                       indent)
    outs = [emitter.array(a, indent) for a in jaxpr.outvars]
    body = [*emitter.prologue, *emitter.lines]
    body.append(f"{indent}return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    header = ["import numpy as np", "import numba", "",
              *native_helpers.source(emitter.helpers), "",
              "@numba.njit(cache=True, error_model='numpy', nogil=True)",
              f"def {FUNCTION_NAME}({', '.join(params)}):"]
    return "\n".join([*header, *body]) + "\n"


def element_grid(elems: Sequence[str], shape: Sequence[int]) -> np.ndarray:
    """A small array's elements as an object array of `shape` (a scalar's one element fills
    it): shape operations on it are NumPy's, on the element names."""
    grid = np.empty(len(elems), object)
    grid[:] = list(elems)
    if len(elems) == 1 and math.prod(shape) != 1:
        return np.broadcast_to(grid.reshape(()), tuple(shape))
    return grid.reshape(tuple(shape))


def is_scalar(v: Any) -> bool:
    return not v.aval.shape

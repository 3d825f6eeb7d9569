"""The staging trace: runs a Python function on abstract values and records a jaxpr.

Every primitive bound under a `StagingTrace` becomes one equation. Values that are not this
trace's tracers become constants: scalars are inlined as literals, everything else (arrays,
NumPy values, tracers of enclosing live traces) becomes a constvar of the jaxpr.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from numjax._src.core import leaks
from numjax._src.core import trace as _trace_module
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.errors import user_source_line as user_source_line
from numjax._src.core.jaxpr import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    jaxpr_effects,
)
from numjax._src.core.trace import (
    DebugInfo,
    Primitive,
    Trace,
    Tracer,
    current_trace,
    new_trace,
)


class _NameStack(threading.local):
    def __init__(self) -> None:
        self.names: tuple[str, ...] = ()
        # Set while re-staging equations of an existing jaxpr: they keep their own source.
        self.source_override: str | None = None


name_stack = _NameStack()


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Equations staged inside carry `name` in their name stack (`a/b/...`), as JAX's
    `jax.named_scope` does.

    >>> import numjax, numjax.numpy as jnp
    >>> with named_scope("layer1"):
    ...     _ = numjax.make_jaxpr(jnp.sin)(1.0)
    """
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    previous = name_stack.names
    name_stack.names = (*previous, name)
    try:
        yield
    finally:
        name_stack.names = previous


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_columns: dict[Any, list[int | None]] = {}  # code object -> column of each instruction


class SourcePosition:
    """Where an equation was staged: `file:line:column (function)` of the innermost frame
    outside numjax, as JAX's source summaries (e.g. in `print_saved_residuals`) give it (the
    column is 0-based), after the `named_scope` names in effect. Captured as the code object
    and instruction offset, formatted only when read: tracing stages thousands of equations
    and reads few of their positions."""

    __slots__ = ("_code", "_lasti", "_scope", "_text")

    def __init__(self, code: Any, lasti: int, scope: tuple[str, ...]) -> None:
        self._code = code
        self._lasti = lasti
        self._scope = scope
        self._text: str | None = None

    @property
    def name_stack(self) -> str:
        """The `named_scope` names in effect, `/`-joined (what `str` of JAX's
        `source_info.name_stack` gives; haiku's `jaxpr_info` groups equations by it)."""
        return "/".join(self._scope)

    @property
    def location(self) -> str:
        """`file:line:column (function)`, without the `named_scope` names."""
        text = str(self)
        return text[len(self.name_stack) + 1:] if self._scope else text

    def __str__(self) -> str:
        if self._text is None:
            code = self._code
            columns = _columns.get(code)
            if columns is None:
                if len(_columns) > 4096:
                    _columns.clear()
                columns = _columns[code] = [p[2] for p in code.co_positions()]
            i = self._lasti // 2
            line = _line_of(code, self._lasti)
            col = columns[i] if i < len(columns) else None
            where = f"{line}" if col is None else f"{line}:{col}"
            text = f"{code.co_filename}:{where} ({code.co_qualname})"
            self._text = f"{'/'.join(self._scope)} {text}" if self._scope else text
        return self._text

    __repr__ = __str__


def _line_of(code: Any, lasti: int) -> int | None:
    line = None
    for start, end, number in code.co_lines():
        if start <= lasti < end:
            return int(number) if number is not None else None
        line = number if start <= lasti else line
    return line


def _user_source_position() -> SourcePosition | None:
    """The position of the innermost frame outside numjax (see `SourcePosition`)."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_PACKAGE_DIR):
            return SourcePosition(code, frame.f_lasti, name_stack.names)
        frame = frame.f_back  # type: ignore[assignment]
    return None


def eval_jaxpr_keeping_sources(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """`eval_jaxpr` for transformation rules: equations staged while evaluating one of
    `jaxpr`'s equations keep that equation's source line, as in JAX."""
    env: dict[Any, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    state = name_stack
    previous = state.source_override
    try:
        for eqn in jaxpr.eqns:
            ins = [a.val if type(a) is Literal else env[a] for a in eqn.invars]
            state.source_override = eqn.source_info or previous
            outs = eqn.primitive.bind(*ins, **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
            env.update(zip(eqn.outvars, outs, strict=True))
    finally:
        state.source_override = previous
    return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]


def _source_info() -> Any:
    if name_stack.source_override is not None:
        return name_stack.source_override
    position = _user_source_position()
    if position is None and name_stack.names:
        return f"{'/'.join(name_stack.names)} None"
    return position


class StagingTracer(Tracer):
    __slots__ = ("_aval", "_var")

    def __init__(self, trace: StagingTrace, aval: Any, var: Var) -> None:
        self._trace = trace
        self._aval = aval
        self._var = var

    @property
    def aval(self) -> Any:
        return self._aval

    def _dependent_args(self) -> list[str]:
        trace = self._trace
        assert isinstance(trace, StagingTrace)
        return trace.dependent_arg_names(self._var)

    def _progenitor_lines(self) -> list[str]:
        trace = self._trace
        assert isinstance(trace, StagingTrace)
        # Each equation printed on its own (names from a), as JAX prints them there.
        return [f"operation {eqn}\n    from line {eqn.source_info}"
                for eqn in trace.progenitor_eqns(self._var)]

    def _creation_site(self) -> str | None:
        trace = self._trace
        assert isinstance(trace, StagingTrace)
        eqn = trace._producers.get(self._var)
        return None if eqn is None or eqn.source_info is None else str(eqn.source_info)

    def __repr__(self) -> str:
        trace = self._trace
        assert isinstance(trace, StagingTrace)
        return trace.tracer_repr(self)

    __str__ = __repr__

    def _contents(self) -> list[tuple[str, Any]]:
        trace = self._trace
        assert isinstance(trace, StagingTrace)
        return trace.tracer_contents(self)


_LITERAL_DTYPE_KINDS = frozenset("biufc")
_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1


class StagingTrace(Trace):
    __slots__ = ("eqns", "invars", "const_vars", "const_values", "_const_by_id", "_producers",
                 "_scalar_consts")
    stages = True
    display_name = "DynamicJaxprTrace"
    stages_constants = True  # partial evaluation's subclass computes known values instead

    def __init__(self, parent: Trace | None, debug_info: DebugInfo | None = None) -> None:
        super().__init__(parent, debug_info)
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.const_vars: list[Var] = []
        self.const_values: list[Any] = []
        # Keyed by id(value); the value itself is held in const_values so the id stays valid.
        self._const_by_id: dict[int, StagingTracer] = {}
        self._producers: dict[Var, JaxprEqn] = {}
        # The values of shape-() constants, which constant folding reads.
        self._scalar_consts: dict[Var, Any] = {}

    def tracer_repr(self, tracer: StagingTracer) -> str:
        """How one of this trace's tracers prints on its own (JAX's text for its kind)."""
        return Tracer.__repr__(tracer)

    def tracer_contents(self, tracer: StagingTracer) -> list[tuple[str, Any]]:
        """What one of this trace's tracers shows after its head: nothing, as in JAX."""
        return []

    def new_arg(self, aval: Any) -> StagingTracer:
        var = Var(aval)
        self.invars.append(var)
        return StagingTracer(self, aval, var)

    def to_tracer(self, x: Any) -> StagingTracer:
        if type(x) is StagingTracer and x._trace is self:
            return x
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return self.new_const(x)

    def new_const(self, x: Any) -> StagingTracer:
        tracer = self._const_by_id.get(id(x))
        if tracer is None:
            aval = get_aval(x)
            if type(x) is int and not _INT32_MIN <= x <= _INT32_MAX and aval.dtype == np.int32:
                # As JAX does when a Python int becomes a constant of the program.
                raise OverflowError(f"Python int {x} too large to convert to int32")
            var = Var(aval)
            self.const_vars.append(var)
            self.const_values.append(x)
            if not aval.shape:
                self._scalar_consts[var] = x
            tracer = self._const_by_id[id(x)] = StagingTracer(self, aval, var)
        return tracer

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        if primitive.staging_rule is not None:
            return primitive.staging_rule(self, args, params)
        return self.stage(primitive, args, params)

    def stage(self, primitive: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        """One equation of `primitive` on `args` (or none, when it folds or forwards)."""
        if primitive.const_fold:
            # Folded at trace time (e.g. the dtype conversion of a Python scalar, or of a
            # scalar constant of this program), so the jaxpr holds the converted constant
            # rather than an equation; the result is still a value of the program being
            # traced, as in JAX (`jnp.array(0)` under jit is a tracer).
            values = [self._scalar_consts.get(x._var, x) if type(x) is StagingTracer
                      and x._trace is self else x for x in args]
            if all(_host_scalar(x) for x in values):
                return self.new_const(_trace_module.eager_apply(primitive, values, params))
        tracers = [self.to_tracer(x) for x in args]
        rule = primitive.abstract_eval
        if rule is None:
            raise NotImplementedError(f"{primitive.name} has no abstract evaluation rule")
        out_avals, effects = rule(*[t._aval for t in tracers], **params)
        if isinstance(out_avals, tuple | list) != primitive.multiple_results:
            raise ValueError(f"{primitive}.abstract_eval() method should return a tuple or a "
                             f"list if {primitive}.multiple_results is true. Otherwise it "
                             "shouldn't.")
        if (primitive.forwards and len(tracers) == 1 and out_avals == tracers[0]._aval
                and primitive.is_identity is not None
                and primitive.is_identity(params, out_avals)):
            return tracers[0]
        multiple = primitive.multiple_results
        out_tracers = [StagingTracer(self, a, Var(a)) for a in (out_avals if multiple
                                                                  else [out_avals])]
        eqn = JaxprEqn([t._var for t in tracers], [t._var for t in out_tracers], primitive,
                       params, effects, _source_info())
        self.eqns.append(eqn)
        for t in out_tracers:
            self._producers[t._var] = eqn
        return out_tracers if multiple else out_tracers[0]

    def dependent_arg_names(self, var: Var) -> list[str]:
        """Names of the traced function's arguments that `var`'s value depends on."""
        info = self.debug_info
        if info is None:
            return []
        positions = {v: i for i, v in enumerate(self.invars)}
        seen: set[Var] = set()
        stack = [var]
        found: set[int] = set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in positions:
                found.add(positions[v])
            eqn = self._producers.get(v)
            if eqn is not None:
                stack.extend(a for a in eqn.invars if isinstance(a, Var))
        names = info.arg_names
        return [names[i] for i in sorted(found) if i < len(names)]

    def progenitor_eqns(self, var: Var) -> list[JaxprEqn]:
        """The staged equations reading a constant that `var`'s value depends on: where a
        value that depends on no argument became a tracer (JAX lists them in its
        concretization errors)."""
        active = {var}
        for eqn in reversed(self.eqns):
            if active.intersection(eqn.outvars):
                active.difference_update(eqn.outvars)
                active.update(a for a in eqn.invars if isinstance(a, Var))
        consts = active.intersection(self.const_vars)
        return [eqn for eqn in self.eqns
                if any(isinstance(a, Var) and a in consts for a in eqn.invars)]

    def to_jaxpr(self, outs: Sequence[Any]) -> ClosedJaxpr:
        out_atoms: list[Any] = [self.to_tracer(x)._var for x in outs]
        literals = self._literal_consts()
        eqns = self.eqns
        if literals:
            eqns = [e.replace(invars=[literals.get(a, a) if isinstance(a, Var) else a
                                      for a in e.invars]) for e in eqns]
            out_atoms = [literals.get(a, a) for a in out_atoms]
        used: set[Var] = {a for e in eqns for a in e.invars if isinstance(a, Var)}
        used.update(a for a in out_atoms if isinstance(a, Var))
        if any(v not in used for e in eqns for v in e.outvars):
            # Outputs nobody reads print as `_`, as in JAX's jaxprs.
            eqns = [e.replace(outvars=[v if v in used else DropVar(v.aval) for v in e.outvars])
                    for e in eqns]
        constvars, consts = [], []
        for v, c in zip(self.const_vars, self.const_values, strict=True):
            if v in used and v not in literals:
                constvars.append(v)
                consts.append(c)
        jaxpr = Jaxpr(constvars, list(self.invars), out_atoms, eqns, jaxpr_effects(eqns))
        return ClosedJaxpr(jaxpr, consts)

    def _literal_consts(self) -> dict[Var, Literal]:
        out: dict[Var, Literal] = {}
        for v, c in zip(self.const_vars, self.const_values, strict=True):
            if isinstance(c, Tracer):
                continue
            aval = v.aval
            if aval.shape == () and aval.dtype.kind in _LITERAL_DTYPE_KINDS:
                value = _scalar_value(c, aval)
                if value is not None:
                    out[v] = Literal(value, aval)
        return out


def _scalar_value(c: Any, aval: ShapedArray) -> Any:
    """A literal's value: a Python scalar or weakly typed Array when weakly typed (so
    re-binding it keeps the weak type), else a NumPy scalar of the aval's dtype."""
    if type(c) in (bool, int, float, complex):
        return c
    if aval.weak_type and hasattr(c, "weak_type"):
        # A weakly typed Array stays itself (its weak type rebinds with it): rules that hand
        # their operands to user code (a custom_vjp's fwd) get an Array, as in JAX, not a
        # Python scalar.
        return c
    try:
        value = np.asarray(c).astype(aval.dtype)[()]
    except Exception:
        return None
    return value.item() if aval.weak_type else value


@leaks.checked
def trace_to_jaxpr(fun: Callable[..., Sequence[Any]], in_avals: Sequence[Any],
                   debug_info: DebugInfo | None = None) -> ClosedJaxpr:
    """Trace `fun` (flat positional arrays in, a sequence of arrays out) to a closed jaxpr."""
    with new_trace(StagingTrace(current_trace(), debug_info)) as trace:
        assert isinstance(trace, StagingTrace)
        try:
            args = [trace.new_arg(a) for a in in_avals]
            outs = fun(*args)
            return trace.to_jaxpr(outs)
        finally:
            # The trace and its constants' tracers refer to each other: without that cycle,
            # the constants (a jitted function's closed-over arrays) go with the program that
            # holds them rather than when the cycle collector runs.
            trace._const_by_id.clear()


def _host_scalar(x: Any) -> bool:
    """Whether staging folds an operation on `x`: a Python or NumPy scalar (a shape-() NumPy
    array too), as JAX folds the constants its rules make. An Array, even a concrete one
    closed over (equinox counts the `convert_element_type` of a closed-over integer Array in
    its jaxpr), and a NumPy array with elements are operands of a staged equation."""
    return type(x) in _PYTHON_SCALARS or (isinstance(x, np.ndarray | np.generic)
                                          and not x.shape)


_PYTHON_SCALARS = frozenset({bool, int, float, complex})


def stage_constant(x: Any) -> Any:
    """`x`, a concrete value a creation function made, as a constant of the innermost program
    being traced (jit, make_jaxpr), as JAX stages every operation under jit; unchanged when
    nothing is traced into a program."""
    trace: Any = _trace_module.current_trace()
    while trace is not None:
        if isinstance(trace, StagingTrace) and trace.stages_constants:
            return trace.new_const(x)
        if isinstance(trace, _trace_module.CompileTimeEvalTrace):
            return x  # ensure_compile_time_eval: concrete values stay concrete
        trace = trace.parent
    return x

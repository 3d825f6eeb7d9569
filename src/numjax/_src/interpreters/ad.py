"""Automatic differentiation: forward mode as a trace, linearize by partial evaluation, reverse
mode by transposing the linear jaxpr.

- `JVPTrace` carries (primal, tangent) pairs; each primitive's jvp rule runs one level down.
  A tangent may be a symbolic `Zero`, which rules skip.
- `linearize` runs the JVP trace on top of a `PartialEvalTrace`: primal work involves no tangent
  and runs on the parent right away (known); tangent work is staged into a linear jaxpr whose
  constants are the residuals.
- `backward_pass` walks a linear jaxpr backwards, calling each primitive's transpose rule with
  the output cotangent (ct) and `UndefinedPrimal` markers for its linear inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.compiler import native_rules
from numjax._src.compiler.lowering import ufunc_lowering
from numjax._src.compiler.passes import dce
from numjax._src.core import leaks
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, Literal, Var
from numjax._src.core.trace import (
    Primitive,
    Trace,
    Tracer,
    current_trace,
    escaped_tracer_error,
    new_trace,
    set_current_trace,
)
from numjax._src.interpreters import batching
from numjax._src.interpreters.staging import StagingTrace, StagingTracer, name_stack


class Zero:
    """A symbolic zero tangent or cotangent of the given aval."""

    __slots__ = ("aval",)

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval})"


class UndefinedPrimal:
    """Marks a linear input of an equation being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def tangent_aval(aval: Any) -> Any:
    """Tangents of integer and boolean values have dtype float0."""
    if dtypes.issubdtype(aval.dtype, np.inexact):
        return aval
    return ShapedArray(aval.shape, dtypes.float0)


# Filled by lax at import (lax sits above this layer).
zeros_like_aval: Callable[[Any], Any]


def set_zeros_like_aval(fn: Callable[[Any], Any]) -> None:
    global zeros_like_aval
    zeros_like_aval = fn


def instantiate_zeros(t: Any) -> Any:
    if type(t) is Zero:
        if t.aval.dtype == dtypes.float0:
            return np.zeros(t.aval.shape, dtypes.float0)
        return zeros_like_aval(t.aval)
    return t


class CustomJVPException(Exception):
    """A custom_jvp function was differentiated with respect to a value it closes over."""

    def __init__(self) -> None:
        super().__init__(
            "Detected differentiation of a custom_jvp function with respect to a closed-over "
            "value. That isn't supported because the custom JVP rule only specifies how to "
            "differentiate the custom_jvp function with respect to explicit input parameters. "
            "Try passing the closed-over value into the custom_jvp function as an argument, "
            "and adapting the custom_jvp rule.")


class CustomVJPException(Exception):
    """A custom_vjp function was differentiated with respect to a value it closes over."""

    def __init__(self) -> None:
        super().__init__(
            "Detected differentiation of a custom_vjp function with respect to a closed-over "
            "value. That isn't supported because the custom VJP rule only specifies how to "
            "differentiate the custom_vjp function with respect to explicit input parameters. "
            "Try passing the closed-over value into the custom_vjp function as an argument, "
            "and adapting the custom_vjp fwd and bwd rules.")


# ---- add_any: the sum of two tangents ------------------------------------------------------

add_any_p = Primitive("add_any")
add_any_p.is_linear = True
add_any_p.def_impl(np.add)
add_any_p.def_lowering(ufunc_lowering(np.add))  # fuses and plans buffers like add


@add_any_p.def_abstract_eval
def _add_any_abstract_eval(x: Any, y: Any) -> Any:
    return x


def _add_any_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    x, y = primals
    return add_any_p.bind(x, y), add_tangents(*tangents)


def _add_any_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [ct, ct]


def _add_any_batch(args: Sequence[Any], dims: Sequence[Any]) -> tuple[Any, Any]:
    # Both operands get the full batch axis: add_any's output aval is its first operand's, so
    # an unbatched operand must not rely on broadcasting.
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    x, y = (batching.move_dim(a, d, 0, size) for a, d in zip(args, dims, strict=True))
    return add_any_p.bind(x, y), 0


add_any_p.def_jvp(_add_any_jvp)
add_any_p.def_transpose(_add_any_transpose)
add_any_p.def_batch(_add_any_batch)
add_any_p.native = native_rules.operator("+")


def add_tangents(a: Any, b: Any) -> Any:
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    return add_any_p.bind(a, b)


# ---- forward mode --------------------------------------------------------------------------


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> Any:
        return get_aval(self.primal)

    def to_concrete_value(self) -> Any:
        primal = self.primal
        if isinstance(primal, Tracer):
            return primal.to_concrete_value()
        return primal

    def _aval_repr(self) -> str:
        # JAX differentiates concrete values as ConcreteArrays and prints them with the value.
        value = self.to_concrete_value()
        if value is None:
            return super()._aval_repr()
        aval = self.aval
        weak = ", weak_type=True" if aval.weak_type else ""
        return f"ConcreteArray({np.asarray(value)}, dtype={aval.dtype.name}{weak})"

    def _contents(self) -> list[tuple[str, Any]]:
        return [("primal", self.primal), ("tangent", self.tangent)]


class JVPTrace(Trace):
    __slots__ = ()

    def to_primal_tangent(self, x: Any) -> tuple[Any, Any]:
        if type(x) is JVPTracer and x._trace is self:
            return x.primal, x.tangent
        if isinstance(x, Tracer):
            self.check_foreign_tracer(x)
        return x, Zero(tangent_aval(get_aval(x)))

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        # Rules get tuples, as JAX gives them (libraries build pytree prefixes from them).
        pairs = [self.to_primal_tangent(x) for x in args]
        primals = tuple(p for p, _ in pairs)
        tangents = tuple(t for _, t in pairs)
        parent = self.parent
        assert parent is not None
        if all(type(t) is Zero for t in tangents):
            with set_current_trace(parent):
                return primitive.bind(*primals, **params)
        rule = primitive.jvp
        if rule is None:
            message = primitive.undefined_rules.get("jvp")
            if message is not None:
                raise primitive.undefined_errors.get("jvp", TypeError)(message)
            raise NotImplementedError(
                f"Differentiation rule for '{primitive.name}' not implemented")
        with set_current_trace(parent):
            out, out_tangent = rule(primals, tangents, **params)
        # A value with a symbolic zero tangent is the parent's value itself (JAX's
        # `full_lower`): e.g. a stop_gradient result closed over by a custom_jvp function.
        if primitive.multiple_results:
            return [o if type(t) is Zero else JVPTracer(self, o, t)
                    for o, t in zip(out, out_tangent, strict=True)]
        return out if type(out_tangent) is Zero else JVPTracer(self, out, out_tangent)


@leaks.checked
def jvp_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any],
             tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Forward mode on a flat function; tangents may be `Zero`. Output tangents may be Zero."""
    # A float0 tangent (of an integer or boolean primal) is zero whatever its value: making it
    # symbolic keeps rules from ever seeing one (it supports no arithmetic).
    tangents = [Zero(get_aval(t)) if type(t) is not Zero and get_aval(t).dtype == dtypes.float0
                else t for t in tangents]
    with new_trace(JVPTrace(current_trace())) as trace:
        assert isinstance(trace, JVPTrace)
        for x in (*primals, *tangents):
            if isinstance(x, Tracer) and not x._trace.is_live:
                # A leaked tracer passed in: its transformation has ended.
                raise escaped_tracer_error(x, f"Tracer from a higher level: {x} in trace {trace}")
        # A primal whose tangent is symbolically zero is passed as it is, not as a tracer (as
        # JAX does): an integer input of grad(allow_int=True) reaches the function unchanged.
        outs = fun(*[p if type(t) is Zero else JVPTracer(trace, p, t)
                     for p, t in zip(primals, tangents, strict=True)])
        pairs = [trace.to_primal_tangent(o) for o in outs]
    return [p for p, _ in pairs], [t for _, t in pairs]


def defjvp(primitive: Primitive, *rules: Callable[..., Any] | None,
           uses_output: bool = False) -> None:
    """Register a jvp built from one rule per input: `rule(tangent, *primals, **params)` gives
    that input's contribution to the output tangent (None: the input is not differentiable).
    With `uses_output`, rules read the primal output too, `rule(tangent, ans, *primals,
    **params)`: d exp x = t * ans reuses exp x rather than computing it again."""

    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = primitive.bind(*primals, **params)
        args = (out, *primals) if uses_output else primals
        total: Any = None
        for rule, t in zip(rules, tangents, strict=True):
            if rule is None or type(t) is Zero:
                continue
            term = rule(t, *args, **params)
            total = term if total is None else add_tangents(total, term)
        if total is None:
            total = Zero(tangent_aval(get_aval(out)))
        return out, total

    primitive.def_jvp(jvp)


def defjvp2(primitive: Primitive, *rules: Callable[..., Any] | None) -> None:
    """JAX's name for `defjvp(primitive, *rules, uses_output=True)`."""
    defjvp(primitive, *rules, uses_output=True)


def defbilinear(primitive: Primitive, transpose: Callable[..., Any]) -> None:
    """A primitive linear in each operand (a product): its tangent is
    f(tx, y) + f(x, ty), and `transpose(ct, x, y, **params)` gives the cotangent of the operand
    that is linear (an `UndefinedPrimal`)."""
    defjvp(primitive, lambda t, x, y, **params: primitive.bind(t, y, **params),
           lambda t, x, y, **params: primitive.bind(x, t, **params))
    primitive.def_transpose(transpose)


def defjvp_zero(primitive: Primitive) -> None:
    """The primitive's output does not change to first order (piecewise constant, or bool)."""

    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = primitive.bind(*primals, **params)
        if primitive.multiple_results:
            return out, [Zero(tangent_aval(get_aval(o))) for o in out]
        return out, Zero(tangent_aval(get_aval(out)))

    primitive.def_jvp(jvp)


def linear_jvp(primitive: Primitive) -> None:
    """A linear primitive's tangent is the primitive applied to the tangents (zeros stay zero)."""

    def jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any) -> tuple[Any, Any]:
        out = primitive.bind(*primals, **params)
        tangents = [instantiate_zeros(t) for t in tangents]
        return out, primitive.bind(*tangents, **params)

    primitive.is_linear = True
    primitive.def_jvp(jvp)


# ---- partial evaluation and linearize ------------------------------------------------------


class PartialEvalTrace(StagingTrace):
    """Stages only work that involves its own tracers (unknowns); known work runs on the parent
    right away and its results enter the staged jaxpr as constants (the residuals)."""

    __slots__ = ()
    display_name = "JaxprTrace"
    stages_constants = False  # known values are computed now, on the parent

    def tracer_repr(self, tracer: StagingTracer) -> str:
        # JAX prints a partial-evaluation tracer on its own in short (`Traced<aval:trace>`),
        # and in full inside another tracer's contents.
        return f"Traced<{tracer.aval!r}:{self!r}>"

    def tracer_contents(self, tracer: StagingTracer) -> list[tuple[str, Any]]:
        # Its unknown aval, and how it was made when it is an input of the staged function.
        contents: list[tuple[str, Any]] = [("pval", f"({tracer.aval!r}, None)")]
        if tracer._var in self.invars:
            contents.append(("recipe", "LambdaBinding()"))
        return contents

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        if any(type(x) is StagingTracer and x._trace is self for x in args):
            if primitive.partial_eval is not None:
                return primitive.partial_eval(self, args, params)
            return super().process_primitive(primitive, args, params)
        parent = self.parent
        assert parent is not None
        with set_current_trace(parent):
            return primitive.bind(*args, **params)


@leaks.checked
def linearize_flat(fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
                   ) -> tuple[list[Any], ClosedJaxpr, list[Any]]:
    """Returns (primal outputs, linear jaxpr from input tangents to output tangents, out
    tangent avals). The jaxpr's consts are the residuals computed during the primal pass."""
    in_tangent_avals = [tangent_aval(get_aval(p)) for p in primals]
    with new_trace(PartialEvalTrace(current_trace())) as pe:
        assert isinstance(pe, PartialEvalTrace)
        tangents_in = [pe.new_arg(a) for a in in_tangent_avals]
        out_primals, out_tangents = jvp_flat(fun, primals, tangents_in)
        out_tangents = [instantiate_zeros(t) for t in out_tangents]
        # Tangent work no output reads (a stop_gradient'd value's tangent, say) is dropped,
        # and with it the residuals only it read: they are not kept alive for the backward
        # pass, which does not evaluate it either.
        linear = dce(pe.to_jaxpr(out_tangents))
    return out_primals, linear, [tangent_aval(get_aval(p)) for p in out_primals]


# ---- transposition -------------------------------------------------------------------------


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], cts_out: Sequence[Any]) -> list[Any]:
    """Cotangents of `jaxpr`'s invars (all linear) given cotangents of its outputs. Equations
    staged meanwhile carry the source of the equation they come from, as in JAX."""
    previous = name_stack.source_override
    try:
        return _backward_pass(jaxpr, consts, cts_out, previous)
    finally:
        name_stack.source_override = previous


def _backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], cts_out: Sequence[Any],
                   source: Any) -> list[Any]:
    env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    state = name_stack
    linear: set[Var] = set(jaxpr.invars)
    # Forward: evaluate equations that do not touch the linear inputs (they compute values the
    # linear ones need); remember which variables are linear.
    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(isinstance(a, Var) and a in linear for a in eqn.invars):
            linear.update(eqn.outvars)
            linear_eqns.append(eqn)
        else:
            ins = [a.val if isinstance(a, Literal) else env[a] for a in eqn.invars]
            state.source_override = eqn.source_info or source
            outs = eqn.primitive.bind(*ins, **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
            env.update((v, o) for v, o in zip(eqn.outvars, outs, strict=True))

    cts: dict[Var, Any] = {}

    def add_ct(v: Any, ct: Any) -> None:
        if type(v) is Literal or type(v) is DropVar or ct is None or type(ct) is Zero:
            return
        if v in linear:
            cts[v] = add_tangents(cts[v], ct) if v in cts else ct

    for v, ct in zip(jaxpr.outvars, cts_out, strict=True):
        add_ct(v, ct)
    for eqn in reversed(linear_eqns):
        outs_ct = [cts.pop(v, None) for v in eqn.outvars]
        if all(c is None for c in outs_ct):
            continue
        outs_ct = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, outs_ct,
                                                                       strict=True)]
        ins = [UndefinedPrimal(a.aval) if isinstance(a, Var) and a in linear else
               (a.val if isinstance(a, Literal) else env[a]) for a in eqn.invars]
        rule = eqn.primitive.transpose
        if rule is None:
            message = eqn.primitive.undefined_rules.get("transpose")
            if message is not None:
                raise eqn.primitive.undefined_errors["transpose"](message)
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for "
                f"'{eqn.primitive.name}' not implemented")
        ct_arg = outs_ct if eqn.primitive.multiple_results else outs_ct[0]
        state.source_override = eqn.source_info or source
        in_cts = rule(ct_arg, *ins, **eqn.params)
        for a, ct in zip(eqn.invars, in_cts, strict=True):
            add_ct(a, ct)
    return [cts.get(v, Zero(v.aval)) for v in jaxpr.invars]

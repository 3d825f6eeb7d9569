"""Jaxpr-to-jaxpr passes run before lowering: inline nested jit, simplify, fold constants,
the compiler's algebraic rewrites, common-subexpression and dead-code elimination."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src.core.jaxpr import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    fresh_copy,
)


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Replace every call equation (nested jit) by the equations of its jaxpr, recursively.
    The callee's constants become constants of the result; each inlined copy defines fresh
    variables (the callee's jaxpr is cached and shared between calls)."""
    if not any(e.primitive.inlinable_call for e in closed.jaxpr.eqns):
        return closed
    constvars = list(closed.jaxpr.constvars)
    consts = list(closed.consts)
    eqns: list[JaxprEqn] = []
    renames: dict[Var, Any] = {}
    _inline_into(closed.jaxpr, renames, eqns, constvars, consts)
    outvars = [renames.get(a, a) if isinstance(a, Var) else a for a in closed.jaxpr.outvars]
    jaxpr = closed.jaxpr.replace(constvars=constvars, eqns=eqns, outvars=outvars)
    return ClosedJaxpr(jaxpr, consts)


def _inline_into(jaxpr: Jaxpr, renames: dict[Var, Any], out: list[JaxprEqn],
                 constvars: list[Var], consts: list[Any]) -> None:
    for eqn in jaxpr.eqns:
        if eqn.primitive.inlinable_call:
            closed_inner = eqn.params.get("jaxpr") or eqn.params["call_jaxpr"]
            if isinstance(closed_inner, Jaxpr):  # `call`'s callee: an open jaxpr
                closed_inner = ClosedJaxpr(closed_inner, [])
            inner = ClosedJaxpr(fresh_copy(closed_inner.jaxpr), closed_inner.consts)
            inner_renames: dict[Var, Any] = {}
            for v, c in zip(inner.jaxpr.constvars, inner.consts, strict=True):
                fresh = Var(v.aval)
                constvars.append(fresh)
                consts.append(c)
                inner_renames[v] = fresh
            for v, a in zip(inner.jaxpr.invars, eqn.invars, strict=True):
                inner_renames[v] = _sub(a, renames)
            _inline_into(inner.jaxpr, inner_renames, out, constvars, consts)
            for v, a in zip(eqn.outvars, inner.jaxpr.outvars, strict=True):
                if not isinstance(v, DropVar):
                    renames[v] = inner_renames.get(a, a) if isinstance(a, Var) else a
        else:
            out.append(_renamed(eqn, renames))


def _sub(a: Any, renames: dict[Var, Any]) -> Any:
    return renames.get(a, a) if isinstance(a, Var) else a


def _renamed(eqn: JaxprEqn, renames: dict[Var, Any]) -> JaxprEqn:
    """`eqn` reading `renames[v]` for each renamed input `v` (itself when none is)."""
    if not renames or not any(isinstance(a, Var) and a in renames for a in eqn.invars):
        return eqn
    return eqn.replace(invars=[_sub(a, renames) for a in eqn.invars])


def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Drop equations whose outputs nobody reads, unless they have effects; drop unused
    constants. An equation some of whose outputs nobody reads is pruned by its primitive's
    `dce_rule` when it has one (a cond, scan or call then drops that work inside its branches
    or body too, as JAX's dead-code elimination does)."""
    jaxpr = closed.jaxpr
    live: set[Var] = {a for a in jaxpr.outvars if isinstance(a, Var)}
    kept = _dce_eqns(jaxpr.eqns, live)
    constvars, consts = [], []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        if v in live:
            constvars.append(v)
            consts.append(c)
    return ClosedJaxpr(jaxpr.replace(constvars=constvars, eqns=kept), consts)


def _dce_eqns(eqns: list[JaxprEqn], live: set[Var]) -> list[JaxprEqn]:
    """The equations that compute `live` (or have effects), pruned; `live` gains every
    variable they read."""
    kept: list[JaxprEqn] = []
    for eqn in reversed(eqns):
        used = [v in live for v in eqn.outvars]
        rule = eqn.primitive.dce_rule
        if eqn.effects or all(used) or (any(used) and rule is None):
            kept.append(eqn)
            live.update(a for a in eqn.invars if isinstance(a, Var))
        elif any(used):
            assert rule is not None
            pruned = rule(eqn, used)
            if pruned is not None:
                kept.append(pruned)
                live.update(a for a in pruned.invars if isinstance(a, Var))
    kept.reverse()
    return kept


def dce_jaxpr(closed: ClosedJaxpr, used_outputs: Sequence[bool],
              keep_inputs: Sequence[bool] | bool = False) -> tuple[ClosedJaxpr, list[bool]]:
    """`closed` computing only its used outputs, and which of its inputs that reads. Inputs
    neither read nor marked in `keep_inputs` are dropped from the result's signature; the
    equations computing unused outputs go (those with effects stay)."""
    jaxpr = closed.jaxpr
    outvars = [a for a, u in zip(jaxpr.outvars, used_outputs, strict=True) if u]
    live: set[Var] = {a for a in outvars if isinstance(a, Var)}
    eqns = _dce_eqns(jaxpr.eqns, live)
    used_inputs = [v in live for v in jaxpr.invars]
    keep = [keep_inputs] * len(jaxpr.invars) if isinstance(keep_inputs, bool) \
        else list(keep_inputs)
    invars = [v for v, u, k in zip(jaxpr.invars, used_inputs, keep, strict=True) if u or k]
    constvars, consts = [], []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        if v in live:
            constvars.append(v)
            consts.append(c)
    pruned = jaxpr.replace(constvars=constvars, invars=invars, eqns=eqns, outvars=outvars)
    return ClosedJaxpr(pruned, consts), used_inputs


def dce_call_rule(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """`dce_rule` of a primitive calling the closed jaxpr in `params["jaxpr"]` on its operands
    (jit, checkpoint): the callee computing only the used outputs, reading fewer operands."""
    callee, used_in = dce_jaxpr(eqn.params["jaxpr"], used_outputs)
    return eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in, strict=True) if u],
                       outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u],
                       params={**eqn.params, "jaxpr": callee})


# Producer-aware rewrites (XLA's algebraic simplifier's rules that change results, such as
# log(exp(x)) -> x), by primitive, registered by the layer defining the primitive. A rule gets
# the equation and a `Producer`, and returns None to keep the equation, an atom its output
# becomes, or the equations replacing it (the last defining its output).


class Producer:
    """`producer(atom)`: the equation defining an atom (None for inputs, constants and
    literals); `producer.is_constant(atom)`: whether it is known at compile time (a literal or
    one of the program's constants); `producer.uses(var)`: how many times the program as
    written reads it (its equations and outputs; a rule that takes over a value's only reader
    leaves its producer dead, for dead-code elimination to drop)."""

    __slots__ = ("_producers", "_constvars", "_uses")

    def __init__(self, producers: dict[Var, JaxprEqn], constvars: dict[Var, Any],
                 uses: dict[Var, int]) -> None:
        self._producers = producers
        self._constvars = constvars
        self._uses = uses

    def uses(self, a: Any) -> int:
        return self._uses.get(a, 0) if isinstance(a, Var) else 0

    def __call__(self, a: Any) -> JaxprEqn | None:
        return self._producers.get(a) if isinstance(a, Var) else None

    def is_constant(self, a: Any) -> bool:
        return not isinstance(a, Var) or a in self._constvars

    def value(self, a: Any) -> Any:
        """The value of a literal or of one of the program's constants; None otherwise."""
        if not isinstance(a, Var):
            return a.val
        return self._constvars.get(a)


# How many times the equations a rule returns are rewritten again, at most.
_MAX_REWRITE_DEPTH = 4


def rewrite(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Apply each primitive's `rewrites` to every equation, in nested jaxprs (loop bodies,
    branches) too, as the compiler rewrites every computation. Runs after constant folding:
    XLA folds a constant expression before simplifying it (log(exp(100.)) of constants stays
    inf)."""
    jaxpr = _rewrite_jaxpr(closed.jaxpr, dict(zip(closed.jaxpr.constvars, closed.consts,
                                                  strict=True)))
    return closed if jaxpr is closed.jaxpr else ClosedJaxpr(jaxpr, closed.consts)


def _rewrite_jaxpr(jaxpr: Jaxpr, consts: dict[Var, Any]) -> Jaxpr:
    producers: dict[Var, JaxprEqn] = {}
    renames: dict[Var, Any] = {}
    eqns: list[JaxprEqn] = []
    changed = False
    producer = Producer(producers, consts, _use_counts(jaxpr))

    def emit(first: JaxprEqn) -> bool:
        """Append `first`, or what its rule replaces it by: the replacements go through the
        rules too (a division by a constant becomes a multiplication, which a product's rule
        may then take), depth first, to a bounded depth. Returns whether anything was
        rewritten. (A worklist, not recursion: a closure calling itself would make a reference
        cycle holding the program's constants until the cycle collector runs.)"""
        rewritten = False
        work = [(first, 0)]
        while work:
            eqn, depth = work.pop()
            eqn = _renamed(eqn, renames)
            result = None
            if not eqn.effects and depth <= _MAX_REWRITE_DEPTH:
                for rule in eqn.primitive.rewrites:
                    result = rule(eqn, producer)
                    if result is not None:
                        break
            if result is None:
                eqns.append(eqn)
                for v in eqn.outvars:
                    producers[v] = eqn
                continue
            rewritten = True
            if isinstance(result, list):
                work.extend((e, depth + 1) for e in reversed(result))
            else:
                renames[eqn.outvars[0]] = result
        return rewritten

    for eqn in jaxpr.eqns:
        params = _rewrite_params(eqn.params)
        if params is not None:
            eqn = eqn.replace(params=params)
            changed = True
        changed = emit(eqn) or changed
    if not changed:
        return jaxpr
    return jaxpr.replace(eqns=eqns, outvars=[_sub(a, renames) for a in jaxpr.outvars])


def _rewrite_params(params: dict[str, Any]) -> dict[str, Any] | None:
    """`params` with their jaxprs rewritten, or None when none changes."""
    new: dict[str, Any] = {}
    for name, value in params.items():
        out: Any
        if isinstance(value, ClosedJaxpr):
            out = rewrite(value)
        elif isinstance(value, tuple | list) and any(isinstance(v, ClosedJaxpr) for v in value) \
                and all(v is None or isinstance(v, ClosedJaxpr) for v in value):
            items: list[Any] = [None if v is None else rewrite(v) for v in value]
            # A named tuple of jaxprs (custom_linear_solve's) is rebuilt field by field.
            out = type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
            if all(a is b for a, b in zip(out, value, strict=True)):
                out = value
        else:
            continue
        if out is not value:
            new[name] = out
    return {**params, **new} if new else None


def new_eqn(primitive: Any, invars: list[Any], aval: Any,
            params: dict[str, Any] | None = None, outvar: Var | None = None
            ) -> JaxprEqn:
    """An equation applying `primitive` to `invars`, defining `outvar` (a fresh variable of
    `aval` when None): the building block of rewrite rules."""
    return JaxprEqn(invars, [Var(aval) if outvar is None else outvar], primitive,
                    params or {})


def _use_counts(jaxpr: Jaxpr) -> dict[Var, int]:
    uses: dict[Var, int] = {}
    for eqn in jaxpr.eqns:
        for a in eqn.invars:
            if isinstance(a, Var):
                uses[a] = uses.get(a, 0) + 1
    for a in jaxpr.outvars:
        if isinstance(a, Var):
            uses[a] = uses.get(a, 0) + 1
    return uses


def _params_key(params: dict[str, Any]) -> Any:
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def cse(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Common-subexpression elimination: an effect-free equation identical to an earlier one
    (same primitive, params and inputs) reuses its outputs."""
    renames: dict[Var, Any] = {}
    seen: dict[Any, JaxprEqn] = {}
    eqns: list[JaxprEqn] = []

    def atom_key(a: Any) -> Any:
        if isinstance(a, Literal):
            # By bytes: 0.0 and -0.0 compare equal but differ (and equal NaNs then merge).
            return ("lit", np.asarray(a.val, a.aval.dtype).tobytes(), a.aval)
        return a

    for eqn in closed.jaxpr.eqns:
        eqn = _renamed(eqn, renames)
        params = _params_key(eqn.params)
        if eqn.effects or params is None:
            eqns.append(eqn)
            continue
        key = (eqn.primitive, params, tuple(atom_key(a) for a in eqn.invars))
        try:
            previous = seen.get(key)
        except TypeError:
            eqns.append(eqn)
            continue
        if previous is not None:
            for v, w in zip(eqn.outvars, previous.outvars, strict=True):
                if not isinstance(v, DropVar):
                    renames[v] = w
            continue
        if all(not isinstance(v, DropVar) for v in eqn.outvars):
            seen[key] = eqn
        eqns.append(eqn)
    outvars = [_sub(a, renames) for a in closed.jaxpr.outvars]
    return ClosedJaxpr(closed.jaxpr.replace(eqns=eqns, outvars=outvars), closed.consts)


def _is_identity(eqn: JaxprEqn) -> bool:
    """Whether `eqn` computes its one input unchanged (its primitive's `is_identity` fact)."""
    rule = eqn.primitive.is_identity
    if rule is None or len(eqn.invars) != 1 or len(eqn.outvars) != 1:
        return False
    in_aval, out_aval = eqn.invars[0].aval, eqn.outvars[0].aval
    if in_aval.shape != out_aval.shape or in_aval.dtype != out_aval.dtype:
        return False
    return rule(eqn.params, in_aval)


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Algebraic simplification: drop identity reshapes/broadcasts/transposes/conversions
    (weak-type-only conversions included), so later passes and fusion see longer chains."""
    renames: dict[Var, Any] = {}
    eqns = []

    for eqn in closed.jaxpr.eqns:
        eqn = _renamed(eqn, renames)
        if _is_identity(eqn) and isinstance(eqn.invars[0], Var):
            renames[eqn.outvars[0]] = eqn.invars[0]
            continue
        eqns.append(eqn)
    if not renames:
        return closed
    outvars = [_sub(a, renames) for a in closed.jaxpr.outvars]
    return ClosedJaxpr(closed.jaxpr.replace(eqns=eqns, outvars=outvars), closed.consts)


# Folding materializes results as constants: keep them small (a broadcast or iota of a large
# shape is a cheap view at run time and stays an equation).
FOLD_MAX_ELEMENTS = 1024


def fold_constants(closed: ClosedJaxpr) -> ClosedJaxpr:
    """Evaluate effect-free first-order equations whose inputs are all constants or literals,
    at compile time, with the primitive's NumPy kernel; their results become constants."""
    known: dict[Var, Any] = {v: _host(c) for v, c in zip(closed.jaxpr.constvars, closed.consts,
                                                       strict=True)}
    eqns: list[JaxprEqn] = []
    folded: dict[Var, Any] = {}
    for eqn in closed.jaxpr.eqns:
        inputs = [a.val if isinstance(a, Literal) else known.get(a, _MISSING)
                  for a in eqn.invars]
        foldable = (eqn.invars and not eqn.effects and eqn.primitive.impl is not None
                    and not eqn.primitive.host_callback
                    and not any(x is _MISSING for x in inputs)
                    and not any(isinstance(p, ClosedJaxpr) for p in eqn.params.values())
                    and all(int(np.prod(v.aval.shape)) <= FOLD_MAX_ELEMENTS
                            for v in eqn.outvars))
        if not foldable:
            eqns.append(eqn)
            continue
        kernel = eqn.primitive.kernel_for([a.aval for a in eqn.invars], eqn.params)
        args = [np.asarray(x, a.aval.dtype) for x, a in zip(inputs, eqn.invars, strict=True)]
        # Once per compile, so NumPy's floating-point reports are turned off here outright: a
        # folded overflow is inf, as XLA's, whatever the user's warning filters say.
        with np.errstate(all="ignore"):
            outs = kernel(*args)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, o in zip(eqn.outvars, outs, strict=True):
            value = np.array(o, dtype=v.aval.dtype)
            known[v] = value
            folded[v] = value
    if not folded:
        return closed
    used = {a for e in eqns for a in e.invars if isinstance(a, Var)}
    used.update(a for a in closed.jaxpr.outvars if isinstance(a, Var))
    constvars = list(closed.jaxpr.constvars)
    consts = list(closed.consts)
    for v, value in folded.items():
        if v in used:
            constvars.append(v)
            consts.append(value)
    return ClosedJaxpr(closed.jaxpr.replace(constvars=constvars, eqns=eqns), consts)


_MISSING: Any = object()


def _host(value: Any) -> Any:
    buf = getattr(value, "_buf", None)
    return buf if buf is not None else value


# The compiler's passes, in order: inline nested calls, simplify identities, fold constants,
# apply the primitives' rewrite rules, share common subexpressions, drop dead code.
PASSES: tuple[Callable[[ClosedJaxpr], ClosedJaxpr], ...] = (
    inline_calls, simplify, fold_constants, rewrite, cse, dce)


def run_passes(closed: ClosedJaxpr) -> ClosedJaxpr:
    for compiler_pass in PASSES:
        closed = compiler_pass(closed)
    return closed

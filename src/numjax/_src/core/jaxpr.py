"""The jaxpr IR: typed, first-order A-normal form with closed-over constants.

A `Jaxpr` is a list of equations over variables; a `ClosedJaxpr` pairs one with the values of
its constvars. Higher-order primitives carry jaxprs in their params. `eval_jaxpr` binds each
equation's primitive, so evaluating a jaxpr under a transformation transforms it.

The grammar, as JAX prints it (`make_jaxpr(lambda x: sin(x) * 2.)(1.)`):

    jaxpr    ::= { lambda constvars ; invars . let eqn* in ( outvars ) }
    eqn      ::= outvars = primitive[params] atoms      (an outvar nobody reads prints as `_`)
    atom     ::= var | literal                          (a literal: a scalar constant inline)
    var      ::= name:type                              (type: an aval, `f32[3]`)

    { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0 in (c,) }

Every variable is bound once, by an invar, a constvar or one equation's outvars, before it is
read (`check_jaxpr` checks it). The records are frozen: passes make new ones (`replace`) rather
than edit them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from numjax._src.core import pretty as pp
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Primitive, no_effects
from numjax._src.core.trace import primitives as trace_primitives

_var_ids = itertools.count()


class Var:
    """A jaxpr variable: identity plus an aval. Names are given when printed, followed by the
    suffix (`_` marks a branch input standing for another branch's constant, as in JAX)."""

    __slots__ = ("id", "aval", "suffix")

    def __init__(self, aval: Any, suffix: str = "") -> None:
        self.id = next(_var_ids)
        self.aval = aval
        self.suffix = suffix

    def __repr__(self) -> str:
        return f"Var(id={self.id}):{self.aval.str_short(short_dtypes=True)}"


class DropVar(Var):
    """An output nobody reads; printed as `_`."""

    __slots__ = ()


class Literal:
    """A scalar constant inlined into an equation (printed as its value)."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: Any) -> None:
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        val = self.val
        if type(val) in (float, complex) and self.aval.dtype.kind in "fc":
            val = np.asarray(val, self.aval.dtype)[()]
        return str(val)


Atom = Var | Literal


@dataclass(frozen=True, slots=True, eq=False)
class JaxprEqn:
    """One primitive application: `outvars = primitive[params] invars`.

    `params` are the primitive's static arguments (a higher-order primitive's jaxprs among
    them); `effects` what it does besides computing (an equation with effects is never dropped
    or merged); `source_info` the user's line that staged it, for errors and printing.
    """

    invars: list[Atom]
    outvars: list[Var]
    primitive: Primitive
    params: dict[str, Any]
    effects: frozenset[Any] = no_effects
    # Where the equation was staged: a string, or an object formatting to one on str().
    source_info: Any = None

    def replace(self, **changes: Any) -> JaxprEqn:
        # By hand rather than dataclasses.replace: 1.3 us against 1.8 us a call, and passes
        # replace every equation of every program they rewrite.
        fields: dict[str, Any] = {
            "invars": self.invars, "outvars": self.outvars, "primitive": self.primitive,
            "params": self.params, "effects": self.effects, "source_info": self.source_info}
        fields.update(changes)
        return JaxprEqn(**fields)

    def __str__(self) -> str:
        return pp.render(pp_eqn(self, _NameContext()))


@dataclass(frozen=True, slots=True, eq=False)
class Jaxpr:
    """A function: its constvars (values it closes over, given by a `ClosedJaxpr` or by the
    caller before the invars), invars, equations in order, outvars (variables or literals), and
    the union of its equations' effects. Equality is identity."""

    constvars: list[Var]
    invars: list[Var]
    outvars: list[Atom]
    eqns: list[JaxprEqn]
    effects: frozenset[Any] = field(default=no_effects)

    @property
    def in_avals(self) -> list[Any]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[Any]:
        return [v.aval for v in self.outvars]

    def replace(self, **changes: Any) -> Jaxpr:
        # By hand, as JaxprEqn.replace (the cheaper of the two).
        fields: dict[str, Any] = {
            "constvars": self.constvars, "invars": self.invars, "outvars": self.outvars,
            "eqns": self.eqns, "effects": self.effects}
        fields.update(changes)
        return Jaxpr(**fields)

    def pretty_print(self, width: int = 80, *, source_info: bool = False,
                     print_shapes: bool = True, name_stack: bool = False,
                     custom_pp_eqn_rules: bool = True) -> str:
        """The jaxpr's text; `source_info` and `name_stack` annotate each equation with the
        line that staged it and its `named_scope` names, as JAX prints them."""
        settings = JaxprPpSettings(print_shapes=print_shapes, source_info=source_info,
                                   name_stack=name_stack,
                                   custom_pp_eqn_rules=custom_pp_eqn_rules)
        return pp.render(pp_jaxpr(self, _NameContext(settings)), width)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class ClosedJaxpr:
    """A jaxpr with the values of its constvars (`consts`, in order): a function with no free
    variables, what `make_jaxpr` returns and higher-order primitives hold. Weakly referenced by
    compile caches, which key on it by identity."""

    jaxpr: Jaxpr
    consts: list[Any]

    @property
    def in_avals(self) -> list[Any]:
        return self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[Any]:
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> list[JaxprEqn]:
        return self.jaxpr.eqns

    @property
    def literals(self) -> list[Any]:
        return self.consts

    @property
    def effects(self) -> frozenset[Any]:
        return self.jaxpr.effects

    def pretty_print(self, width: int = 80, *, source_info: bool = False,
                     print_shapes: bool = True, name_stack: bool = False,
                     custom_pp_eqn_rules: bool = True) -> str:
        return self.jaxpr.pretty_print(width, source_info=source_info,
                                       print_shapes=print_shapes, name_stack=name_stack,
                                       custom_pp_eqn_rules=custom_pp_eqn_rules)

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__


def fresh_copy(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` with a new variable for every one it binds (constvars, invars, equation
    outputs). A jaxpr is cached and shared between its uses; a pass that splices one into
    another jaxpr, or code generation that emits it twice, takes a fresh copy for each use so
    that every variable is still defined once (passes key on variable identity). Jaxprs in
    params are closed scopes and stay shared."""
    renames: dict[Var, Var] = {}

    def bound(v: Var) -> Var:
        if type(v) is DropVar:
            return v
        new = renames[v] = Var(v.aval, v.suffix)
        return new

    def read(a: Atom) -> Atom:
        return renames.get(a, a) if isinstance(a, Var) else a

    constvars = [bound(v) for v in jaxpr.constvars]
    invars = [bound(v) for v in jaxpr.invars]
    eqns = []
    for eqn in jaxpr.eqns:
        invars_ = [read(a) for a in eqn.invars]
        eqns.append(eqn.replace(invars=invars_, outvars=[bound(v) for v in eqn.outvars]))
    return jaxpr.replace(constvars=constvars, invars=invars, eqns=eqns,
                         outvars=[read(a) for a in jaxpr.outvars])


def jaxprs_in_params(params: dict[str, Any]) -> Iterator[Jaxpr]:
    """The jaxprs an equation's params hold (a cond's branches, a loop's body), open: a
    ClosedJaxpr gives its jaxpr. Values and tuples of them are searched, not deeper."""
    for value in params.values():
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
    """The jaxprs held by `jaxpr`'s equations' params, one level down (not recursively)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def jaxpr_effects(eqns: Sequence[JaxprEqn]) -> frozenset[Any]:
    out: set[Any] = set()
    for eqn in eqns:
        out.update(eqn.effects)
    return frozenset(out)


# ---- evaluation ----------------------------------------------------------------------------


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """Evaluate `jaxpr` by binding each equation under the current trace.

    >>> import numjax, numjax.numpy as jnp
    >>> closed = numjax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
    >>> float(eval_jaxpr(closed.jaxpr, closed.consts, 0.0)[0])
    0.0
    """
    env: dict[Var, Any] = {}

    def read(atom: Atom) -> Any:
        return atom.val if isinstance(atom, Literal) else env[atom]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*[read(a) for a in eqn.invars], **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = (outs,)
        for v, x in zip(eqn.outvars, outs, strict=True):
            if type(v) is not DropVar:
                env[v] = x
    return [read(a) for a in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)

    return fun


# ---- type checking -------------------------------------------------------------------------


class JaxprTypeError(TypeError):
    pass


def check_jaxpr(jaxpr: Jaxpr) -> None:  # noqa: C901
    """Check that every variable is defined before use and every equation's types agree with
    its primitive's abstract evaluation. Raises `JaxprTypeError` naming the equation."""
    defined: set[Var] = set()

    def read(atom: Atom, where: str) -> Any:
        if type(atom) is Literal:
            return atom.aval
        if atom not in defined:
            raise JaxprTypeError(f"Variable '{atom}' not defined in {where}")
        return atom.aval

    for v in (*jaxpr.constvars, *jaxpr.invars):
        if v in defined:
            raise JaxprTypeError(f"Variable '{v}' defined twice")
        defined.add(v)
    for eqn in jaxpr.eqns:
        where = f"equation {eqn}"
        in_avals = [read(a, where) for a in eqn.invars]
        rule = eqn.primitive.abstract_eval
        if rule is not None:
            out_avals, _ = rule(*in_avals, **eqn.params)
            if not eqn.primitive.multiple_results:
                out_avals = [out_avals]
            if len(out_avals) != len(eqn.outvars):
                raise JaxprTypeError(f"{where}: expected {len(out_avals)} outputs")
            for v, aval in zip(eqn.outvars, out_avals, strict=True):
                if not _avals_match(v.aval, aval):
                    raise JaxprTypeError(
                        f"{where}: output type {v.aval.str_short()} does not match the "
                        f"primitive's {aval.str_short()}"
                    )
        for v in eqn.outvars:
            if type(v) is not DropVar:
                if v in defined:
                    raise JaxprTypeError(f"Variable '{v}' defined twice in {where}")
                defined.add(v)
    for a in jaxpr.outvars:
        read(a, "the outputs")


def _avals_match(a: Any, b: Any) -> bool:
    return bool(a.shape == b.shape and a.dtype == b.dtype)


# ---- pretty printing -----------------------------------------------------------------------


class _NameContext:
    """Gives variables the names a, b, ..., z, ba, bb, ... in order of first appearance."""

    def __init__(self, settings: JaxprPpSettings | None = None) -> None:
        self.names: dict[Var, str] = {}
        self.settings = JaxprPpSettings() if settings is None else settings

    def name(self, v: Var) -> str:
        if type(v) is DropVar:
            return "_"
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = alphabetic_name(len(self.names))
        return name + v.suffix


def alphabetic_name(n: int) -> str:
    letters = []
    while True:
        n, digit = divmod(n, 26)
        letters.append(chr(ord("a") + digit))
        if n == 0:
            break
    return "".join(reversed(letters))


def _pp_atom(a: Atom, context: _NameContext) -> str:
    return repr(a) if isinstance(a, Literal) else context.name(a)


def _pp_vars(vs: Sequence[Atom], context: _NameContext, *, separator: str = "",
             print_shapes: bool = False) -> pp.Doc:
    docs = []
    for v in vs:
        s = _pp_atom(v, context)
        if print_shapes:
            s += ":" + v.aval.str_short(short_dtypes=True)
        docs.append(pp.text(s))
    sep = pp.concat([pp.text(separator), pp.group(pp.brk())])
    return pp.nest(2, pp.group(pp.join(sep, docs)))


def pp_param_value(value: Any, context: _NameContext) -> pp.Doc:
    if isinstance(value, ClosedJaxpr):
        return pp_jaxpr(value.jaxpr, context)
    if isinstance(value, Jaxpr):
        return pp_jaxpr(value, context)
    if type(value) is tuple and value and all(
            isinstance(j, (Jaxpr, ClosedJaxpr)) for j in value):
        items = [pp_param_value(j, context) for j in value]
        return pp.group(pp.concat([
            pp.nest(2, pp.concat([pp.text("("), pp.brk(""), pp.join(pp.brk(), items)])),
            pp.brk(""), pp.text(")"),
        ]))
    if isinstance(value, np.dtype):
        return pp.text(value.name)
    if callable(value) and hasattr(value, "__name__") and not isinstance(value, type):
        return pp.text(value.__name__)
    return pp.text(str(value))


def _pp_params(params: dict[str, Any], context: _NameContext) -> pp.Doc:
    items = [(k, v) for k, v in params.items()]
    if not items:
        return pp.text("")
    pairs = [pp.concat([pp.text(f"{k}="), pp_param_value(v, context)]) for k, v in items]
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([pp.text("["), pp.brk(""), pp.join(pp.brk(), pairs)])),
        pp.brk(""), pp.text("]"),
    ]))


@dataclass(frozen=True)
class JaxprPpSettings:
    """What a custom equation printer (`pp_eqn_rules`) may consult, with JAX's field names."""

    print_shapes: bool = True
    source_info: bool = False
    name_stack: bool = False
    custom_pp_eqn_rules: bool = True
    print_effects: bool = False


EqnPrinter = Callable[[JaxprEqn, _NameContext, JaxprPpSettings], pp.Doc]


class _EqnPrinters(MutableMapping[Primitive, EqnPrinter]):
    """JAX's `jax.core.pp_eqn_rules`, the primitives printed by a rule of their own,
    `rule(eqn, context, settings) -> Doc`, as the dict libraries fill: a view of each
    primitive's `eqn_printer`, so that the rule lives on the primitive like its others."""

    def __getitem__(self, primitive: Primitive) -> EqnPrinter:
        rule: EqnPrinter | None = getattr(primitive, "eqn_printer", None)
        if rule is None:
            raise KeyError(primitive)
        return rule

    def __setitem__(self, primitive: Primitive, rule: EqnPrinter) -> None:
        primitive.eqn_printer = rule

    def __delitem__(self, primitive: Primitive) -> None:
        if getattr(primitive, "eqn_printer", None) is None:
            raise KeyError(primitive)
        primitive.eqn_printer = None

    def __iter__(self) -> Iterator[Primitive]:
        return (p for p in list(trace_primitives) if p.eqn_printer is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


pp_eqn_rules: MutableMapping[Primitive, EqnPrinter] = _EqnPrinters()


def pp_vars(vs: Sequence[Atom], context: _NameContext, *, separator: str = "",
            print_shapes: bool = False) -> pp.Doc:
    """The names of `vs` (with `name:f32[3]` shapes if asked), for custom equation printers."""
    return _pp_vars(vs, context, separator=separator, print_shapes=print_shapes)


def pp_kv_pairs(kv_pairs: Sequence[tuple[str, Any]], context: _NameContext,
                settings: JaxprPpSettings | None = None) -> pp.Doc:
    """`[k=v ...]` as equation params print, for custom equation printers."""
    return _pp_params(dict(kv_pairs), context)


def pp_eqn(eqn: JaxprEqn, context: _NameContext) -> pp.Doc:
    settings = context.settings
    rule = eqn.primitive.eqn_printer
    if rule is not None and settings.custom_pp_eqn_rules:
        doc: pp.Doc = rule(eqn, context, settings)
        return doc
    lhs = _pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes)
    printer = eqn.primitive.param_printer
    params = printer(eqn.params) if printer is not None else dict(sorted(eqn.params.items()))
    # The annotations go on the line where the equation starts (JAX attaches them to its `=`).
    notes = _eqn_annotations(eqn, settings)
    # An equation without results (a debug callback) prints without the `=`, as in JAX.
    head = [lhs, pp.text(" = ", notes)] if eqn.outvars else []
    name = pp.text(eqn.primitive.name, () if eqn.outvars else notes)
    return pp.concat([
        *head, name, _pp_params(params, context), pp.text(" "), _pp_vars(eqn.invars, context),
    ])


def _eqn_annotations(eqn: JaxprEqn, settings: JaxprPpSettings) -> list[str]:
    notes = []
    where = eqn.source_info
    if settings.source_info:
        notes.append("unknown" if where is None else str(getattr(where, "location", where)))
    if settings.name_stack:
        notes.append(f"[{getattr(where, 'name_stack', '')}]")
    return notes


def pp_jaxpr(jaxpr: Jaxpr, context: _NameContext) -> pp.Doc:
    shapes = context.settings.print_shapes
    constvars = _pp_vars(jaxpr.constvars, context, print_shapes=shapes)
    invars = _pp_vars(jaxpr.invars, context, print_shapes=shapes)
    eqns = pp.join(pp.brk("; "), [pp_eqn(e, context) for e in jaxpr.eqns])
    closing = ")" if len(jaxpr.outvars) != 1 else ",)"
    outvars = pp.concat([pp.text("("), _pp_vars(jaxpr.outvars, context, separator=","),
                         pp.text(closing)])
    body = pp.nest(2, pp.concat([
        pp.text("{ "), pp.text("lambda "), constvars, pp.text("; "), invars, pp.text(". "),
        pp.text("let"), pp.nest(2, pp.concat([pp.brk(), eqns])), pp.brk(), pp.text("in "),
        outvars,
    ]))
    # The closing brace belongs to the group: a jaxpr is laid out on one line only when the
    # whole of it, brace included, fits (as JAX lays it out).
    return pp.group(pp.concat([body, pp.text(" }")]))


def literal(value: Any) -> Literal:
    return Literal(value, get_aval(value))

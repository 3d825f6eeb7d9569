"""`custom_jvp` and `custom_vjp`: user-defined derivative rules.

Both are *final style* where it matters: with no transformation active the function simply
runs (so Python control flow on concrete values works), and under forward mode the user's rule
is called with the trace's own primal and tangent values. Other traces (vmap, staging, partial
evaluation) see a primitive (`custom_primitives.py`) holding the function's jaxpr together with
the rule, and transform both.

A custom function may close over tracers of enclosing transformations. Traces that see none of
its arguments are skipped (so the primal runs on concrete values where it can) unless the
function closes over one of their tracers: then those values become explicit leading operands
of the primitive (and the rule is staged to a jaxpr too, except under jit, where JAX keeps the
Python rule). Differentiating with respect to such a value raises JAX's `CustomJVPException` /
`CustomVJPException`.

A custom_vjp under differentiation runs `fwd` and emits `custom_lin`, a linear primitive whose
transpose calls `bwd`; evaluating `custom_lin` forward (plain jvp) raises JAX's error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes, traceback_util
from numjax._src.api.custom_primitives import (
    const_dependence,
    custom_jvp_call_p,
    custom_lin_p,
    custom_vjp_call_p,
    custom_vjp_jvp,
    linear_call_p,
)
from numjax._src.control_flow.common import hoist_consts
from numjax._src.core import errors
from numjax._src.core.avals import get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, Var, eval_jaxpr
from numjax._src.core.trace import (
    EvalTrace,
    Trace,
    Tracer,
    current_trace,
    escaped_tracer_error,
    set_current_trace,
)
from numjax._src.interpreters import ad
from numjax._src.interpreters.ad import JVPTrace, JVPTracer, Zero
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import StagingTrace, StagingTracer, trace_to_jaxpr
from numjax._src.lax.structural import stop_gradient
from numjax._src.runtime.array import ArrayImpl
from numjax._src.tree_util import (
    keystr,
    register_pytree_node,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
    treedef_is_leaf,
)

__all__ = ["CustomVJPPrimal", "SymbolicZero", "closure_convert", "custom_jvp",
           "custom_jvp_call_p", "custom_lin_p", "custom_vjp", "custom_vjp_call_p",
           "custom_vjp_primal_tree_values", "linear_call"]


class SymbolicZero:
    """A zero tangent (or cotangent) handed to a rule defined with `symbolic_zeros=True`; its
    attributes (`shape`, `dtype`, ...) are its aval's.

    >>> from numjax._src.core.avals import ShapedArray
    >>> import numpy as np
    >>> SymbolicZero(ShapedArray((2,), np.dtype("float32"))).shape
    (2,)
    """

    def __init__(self, aval: Any) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return type(self).__name__

    def __getattr__(self, name: str) -> Any:
        if name == "aval":
            raise AttributeError(name)
        return getattr(self.aval, name)


@dataclasses.dataclass
class CustomVJPPrimal:
    """A primal handed to a custom_vjp `fwd` rule defined with `symbolic_zeros=True`."""

    value: Any
    perturbed: bool


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """The values of a tree of `CustomVJPPrimal` records.

    >>> custom_vjp_primal_tree_values((CustomVJPPrimal(1.0, True),))
    (1.0,)
    """
    def value(leaf: Any) -> Any:
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value
    return tree_map(value, tree)


def _split_nondiff(args: tuple[Any, ...], nondiff_argnums: tuple[int, ...]
                   ) -> tuple[list[Any], list[Any]]:
    nondiff = [args[i] for i in nondiff_argnums]
    diff = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return nondiff, diff


def _merge(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: tuple[int, ...]
           ) -> list[Any]:
    n = len(nondiff) + len(diff)
    nd, d = iter(nondiff), iter(diff)
    return [next(nd) if i in nondiff_argnums else next(d) for i in range(n)]


def _relevant_trace(flat: Sequence[Any]) -> Any:
    """The innermost trace owning one of the arguments (traces that see none of them pass the
    call down, so a custom rule's primal runs eagerly on concrete values where it can), or a
    trace recording a program (jit, make_jaxpr: JAX's dynamic trace, which stages the call
    even when no argument is its tracer: `nn.relu(1.0)` under jit is a tracer)."""
    trace: Any = current_trace()
    while not isinstance(trace, EvalTrace) and not trace.stages_constants and not any(
            isinstance(x, Tracer) and x._trace is trace for x in flat):
        trace = trace.parent
    return trace


def _resolve_kwargs(fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
                    ) -> tuple[Any, ...]:
    if not kwargs:
        return args
    import inspect
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


# ---- values a custom function closes over --------------------------------------------------

_CONCRETIZATION_ERRORS = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                          errors.TracerArrayConversionError)


def _stage(fun: Callable[..., Any], avals: Sequence[Any]
           ) -> tuple[ClosedJaxpr, list[Any]] | None:
    """`fun`'s jaxpr with the tracers it closes over as leading inputs (and those tracers);
    None when `fun` needs concrete values (Python control flow), as final style allows."""
    try:
        return hoist_tracer_consts(trace_to_jaxpr(fun, avals))
    except _CONCRETIZATION_ERRORS:
        return None


def _closure_owner(consts: Sequence[Any], top: Any, bottom: Any) -> Trace | None:
    """The innermost trace from `top` down to (not including) `bottom` owning a const."""
    owners = {id(c._trace) for c in consts}
    trace = top
    while trace is not bottom and trace is not None:
        if id(trace) in owners:
            return trace  # type: ignore[no-any-return]
        trace = trace.parent
    return None


@contextlib.contextmanager
def _suspended(trace: Trace, exc: type[Exception]) -> Iterator[None]:
    """Run a custom rule below `trace`: a tracer of `trace` reaching it means the function
    closes over a value `trace` differentiates (JAX's `exc`)."""
    trace.is_live = False
    try:
        yield
    except errors.UnexpectedTracerError:
        raise exc() from None
    finally:
        trace.is_live = True


def _with_extra_invars(closed: ClosedJaxpr, at: int, avals: Sequence[Any]) -> ClosedJaxpr:
    """`closed` taking unused inputs of `avals` at position `at` (the rule's closure)."""
    if not avals:
        return closed
    jaxpr = closed.jaxpr
    invars = [*jaxpr.invars[:at], *[Var(a) for a in avals], *jaxpr.invars[at:]]
    return ClosedJaxpr(jaxpr.replace(invars=invars), closed.consts)


def _check_values(leaves: Sequence[Any]) -> None:
    """JAX's TypeError for a leaf that is not an array (an eager call's operands or results)."""
    for x in leaves:
        if type(x) is not ArrayImpl:
            get_aval(x)


def _stop_gradient_tracers(x: Any) -> Any:
    return tree_map(lambda leaf: stop_gradient(leaf) if isinstance(leaf, Tracer) else leaf, x)


def _wrap_jvp_outputs(trace: JVPTrace, outs: Sequence[Any], tangents: Sequence[Any]
                      ) -> list[Any]:
    return [o if type(t) is Zero else JVPTracer(trace, o, t)
            for o, t in zip(outs, tangents, strict=True)]


# The custom-function wrappers (custom_jvp, custom_vjp, custom_vmap, custom_transpose). One
# wrapping another forwards the other's `def*` methods, so the rules of a stack of them can be
# defined on the outermost, as in JAX.
custom_wrapper_types: set[type] = set()


def forward_def_attr(wrapper: Any, name: str) -> Any:
    """`wrapper.fun.<name>` for a `def*` method of a wrapped custom function, else
    AttributeError."""
    fun = wrapper.__dict__.get("fun")
    if name.startswith("def") and type(fun) in custom_wrapper_types:
        return getattr(fun, name)
    raise AttributeError(f"{type(wrapper).__name__!r} object has no attribute {name!r}")


class _CustomFunction:
    """What custom_jvp and custom_vjp share: where a call is resolved. Eagerly, the Python
    function runs; a call whose operands belong to an outer trace (the function closes over a
    value of the current one) goes to that trace, or is bound with the closure as operands; a
    JVP trace runs the rule one level down; any other trace binds the primitive. Subclasses give
    their rules (`_rules`), their JVP (`_jvp`), the primitive binding (`_bind`) and the
    exception for a rule that differentiates a closed-over value (`_exception`)."""

    fun: Callable[..., Any]
    nondiff_argnums: tuple[int, ...]
    _exception: type[Exception]
    # Whether an eager call rejects operands that are not arrays before running the function
    # (custom_vjp does; custom_jvp, as JAX, only rejects such outputs).
    _checks_operands: bool

    def _rules(self, nondiff: list[Any], in_tree: Any, avals: list[Any]
               ) -> tuple[Callable[..., Any], tuple[Callable[..., Any], ...], dict[str, Any]]:
        raise NotImplementedError

    def _jvp(self, rules: tuple[Callable[..., Any], ...], primals: Sequence[Any],
             tangents: Sequence[Any]) -> tuple[Any, Any]:
        raise NotImplementedError

    # (flat operands, closed jaxpr, consts, *rules, store, python_rule=...) -> outputs
    _bind: Callable[..., Any]

    def _call(self, args: tuple[Any, ...]) -> Any:
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        flat, in_tree = tree_flatten(diff)
        trace = current_trace()
        if isinstance(trace, EvalTrace):
            if self._checks_operands:
                _check_values(flat)
            out = self.fun(*args)
            if type(out) is not ArrayImpl:
                _check_values(tree_leaves(out))
            return out
        avals = [get_aval(x) for x in flat]
        fun, rules, store = self._rules(nondiff, in_tree, avals)
        owner = _relevant_trace(flat)
        if owner is not trace:
            staged = _stage(fun, avals)
            closure_owner = None if staged is None else _closure_owner(staged[1], trace, owner)
            if staged is None or closure_owner is None:
                with set_current_trace(owner):
                    return self._call(args)
            return self._bind(flat, *staged, *rules, store,
                              python_rule=type(closure_owner) is StagingTrace)
        if type(trace) is JVPTrace:
            primals, tangents = zip(*[trace.to_primal_tangent(x) for x in flat], strict=True)
            with set_current_trace(trace.parent), _suspended(trace, self._exception):  # type: ignore[arg-type]
                if all(type(t) is Zero for t in tangents):
                    return self._call(tuple(_merge(nondiff, tree_unflatten(in_tree, primals),
                                                   self.nondiff_argnums)))
                outs, out_tangents = self._jvp(rules, primals, tangents)
            return tree_unflatten(store["out_tree"], _wrap_jvp_outputs(trace, outs, out_tangents))
        closed, consts = hoist_tracer_consts(trace_to_jaxpr(fun, avals))
        return self._bind(flat, closed, consts, *rules, store,
                          python_rule=type(trace) is StagingTrace)


# ---- custom_jvp ----------------------------------------------------------------------------


class custom_jvp(_CustomFunction):
    """A function with a custom forward-mode derivative rule (and thus reverse mode too).

    >>> import numjax, numjax.numpy as jnp
    >>> @custom_jvp
    ... def f(x):
    ...     return jnp.sin(x)
    >>> @f.defjvp
    ... def f_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return f(x), 2.0 * t
    >>> numjax.grad(f)(1.0)
    Array(2., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    __getattr__ = forward_def_attr

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False
               ) -> Callable[..., Any]:
        """Set the rule `jvp(primals, tangents) -> (primal_out, tangent_out)`. With
        `symbolic_zeros=True` a zero input tangent arrives as a `SymbolicZero` and the rule
        may return one."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument: `rule(tangent, primal_out, *primals)`, contributions summed."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
            out = self(*primals)
            total: Any = None
            for rule, t in zip(jvps, tangents, strict=True):
                if rule is None:
                    continue
                term = rule(t, out, *primals)
                total = term if total is None else tree_map(lambda a, b: a + b, total, term)
            if total is None:
                total = tree_map(lambda o: o * 0, out)
            return out, total

        self.defjvp(jvp)

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise AttributeError(
                f"No JVP defined for custom_jvp function {getattr(self.fun, '__name__', self.fun)} "
                "using defjvp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        if self.nondiff_argnums:
            args = tuple(_stop_gradient_tracers(a) if i in self.nondiff_argnums else a
                         for i, a in enumerate(args))
        return self._call(args)

    _exception = ad.CustomJVPException
    _checks_operands = False

    def _rules(self, nondiff: list[Any], in_tree: Any, avals: list[Any]
               ) -> tuple[Callable[..., Any], tuple[Callable[..., Any], ...], dict[str, Any]]:
        fun, jvp_flat, store = self._flat_functions(nondiff, in_tree)
        return fun, (jvp_flat,), store

    def _jvp(self, rules: tuple[Callable[..., Any], ...], primals: Sequence[Any],
             tangents: Sequence[Any]) -> tuple[Any, Any]:
        (jvp_flat,) = rules
        return jvp_flat(list(primals), list(tangents))  # type: ignore[no-any-return]

    def _bind(self, flat: list[Any], closed: ClosedJaxpr, consts: list[Any],
              jvp_flat: Callable[..., Any], store: dict[str, Any], python_rule: bool) -> Any:
        n = len(consts)
        jvp: Callable[..., Any] = jvp_flat
        rule_consts: list[Any] = []
        if consts and not python_rule:
            staged = self._stage_rule(jvp_flat, flat, store)
            if staged is None:
                python_rule = True
            else:
                rule, rule_consts = staged
                jvp = _staged_rule_jvp(rule, const_dependence(closed, n), n, len(rule_consts),
                                       len(store["out_avals"]))
                closed = _with_extra_invars(closed, n, [get_aval(c) for c in rule_consts])
        if consts and python_rule:
            jvp = _python_rule_jvp(jvp_flat, consts)
        outs = custom_jvp_call_p.bind(*consts, *rule_consts, *flat, call_jaxpr=closed, jvp=jvp,
                                      num_consts=n + len(rule_consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)

    @staticmethod
    def _stage_rule(jvp_flat: Callable[..., Any], flat: list[Any], store: dict[str, Any]
                    ) -> tuple[ClosedJaxpr, list[Any]] | None:
        k = len(flat)
        avals = [get_aval(x) for x in flat]

        def rule(*xs: Any) -> list[Any]:
            outs, out_t = jvp_flat(list(xs[:k]), list(xs[k:]))
            return [*outs, *[ad.instantiate_zeros(t) for t in out_t]]

        return _stage(rule, [*avals, *[ad.tangent_aval(a) for a in avals]])

    def _flat_functions(self, nondiff: list[Any], in_tree: Any
                        ) -> tuple[Callable[..., Any], Callable[..., Any], dict[str, Any]]:
        store: dict[str, Any] = {}
        nondiff_argnums = self.nondiff_argnums
        user_fun, user_jvp, symbolic = self.fun, self.jvp, self.symbolic_zeros
        name = getattr(self.fun, "__name__", "fun")
        jvp_name = getattr(user_jvp, "__name__", user_jvp)

        def fun(*flat_args: Any) -> list[Any]:
            diff = tree_unflatten(in_tree, flat_args)
            out = user_fun(*_merge(nondiff, diff, nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            store["out_avals"] = [get_aval(x) for x in leaves]
            return leaves

        def jvp_flat(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
            if symbolic:
                tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
            else:
                # As JAX: an integer input's (float0) tangent reaches the rule as zeros of the
                # input's own dtype, so arithmetic on it works (xlogy of an int x).
                zeros = [ad.instantiate_zeros(t) for t in tangents]
                tangents = [_replace_float0(p, t) for p, t in zip(primals, zeros, strict=True)]
            p_tree = tree_unflatten(in_tree, primals)
            t_tree = tree_unflatten(in_tree, tangents)
            if not symbolic and any(t is not z for t, z in zip(tangents, zeros, strict=True)):
                t_tree = _float0_key_tangents(t_tree, tree_unflatten(in_tree, zeros))
            assert user_jvp is not None
            result = user_jvp(*nondiff, tuple(p_tree), tuple(t_tree))
            if not (isinstance(result, tuple | list) and len(result) == 2):
                raise TypeError(
                    f"Custom JVP rule {jvp_name} for function {name} must produce a pair (list "
                    "or tuple of length two) representing primal and tangent outputs, but got "
                    f"{result}.")
            out, out_t = result
            out_flat, out_tree = tree_flatten(out)
            t_flat, t_tree_out = tree_flatten(out_t)
            if out_tree != t_tree_out:
                raise TypeError(
                    f"Custom JVP rule {jvp_name} for function {name} must produce primal and "
                    "tangent outputs with equal container (pytree) structures, but got "
                    f"{out_tree} and {t_tree_out} respectively.")
            _check_rule_primal_out(
                store, out_tree, out_flat,
                f"Custom JVP rule {jvp_name} for function {name} must produce a pair (list or "
                "tuple of length two) where the first element represents the primal output "
                "(equal in value to the output of the custom_jvp-decorated function "
                f"{name}, and in particular ", "the JVP rule", f"custom_jvp-decorated function "
                f"{name}")
            store.setdefault("out_tree", out_tree)
            store.setdefault("out_avals", [get_aval(x) for x in out_flat])
            _check_tangent_avals(out_flat, t_flat)
            # An integer or boolean output's tangent is a float0 zero whatever the rule gave
            # (JAX recasts it).
            t_flat = [Zero(ad.tangent_aval(get_aval(o)))
                      if type(t) is SymbolicZero or _integral(o) else t
                      for o, t in zip(out_flat, t_flat, strict=True)]
            return out_flat, t_flat

        return fun, jvp_flat, store


def _check_rule_primal_out(store: dict[str, Any], out_tree: Any, out_flat: Sequence[Any],
                           head: str, rule: str, function: str) -> None:
    """JAX's TypeError when a custom rule's primal output differs in structure, shapes or dtypes
    from what the decorated function returned (when that already ran). `head` opens the
    message; the JVP rule's says "and in particular " where the fwd rule's says "but "."""
    if "out_tree" not in store:
        return
    avals = [get_aval(x) for x in out_flat]
    expected_tree, expected_avals = store["out_tree"], store["out_avals"]

    def shown(tree: Any, leaves: Sequence[Any]) -> str:
        return str(tree_unflatten(tree, [a.str_short() for a in leaves])).replace("'", "")

    ours, theirs = shown(out_tree, avals), shown(expected_tree, expected_avals)
    jvp = head.endswith("in particular ")
    if out_tree != expected_tree:
        raise TypeError(
            head + ("of the same container/pytree structure), but " if jvp else "")
            + f"instead {rule} output's first element had container/pytree structure:\n"
            f"    {ours}\nwhile the {function} had output container/pytree structure:\n"
            f"    {theirs}.")
    if any((a.shape, a.dtype) != (b.shape, b.dtype)
           for a, b in zip(avals, expected_avals, strict=True)):
        raise TypeError(
            head + ("with leaves of the same shape/dtype), but " if jvp else "")
            + f"instead {rule} output's first element had shapes/dtypes of:\n    {ours}\n"
            f"while the {function} had output shapes/dtypes of:\n    {theirs}")


def _integral(x: Any) -> bool:
    dtype = get_aval(x).dtype
    return bool(dtypes.issubdtype(dtype, np.integer) or dtypes.issubdtype(dtype, np.bool_))


def _is_extended(x: Any) -> bool:
    return isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType)


def _float0_key_tangents(tangents: Any, float0_tangents: Any) -> Any:
    """`tangents` with the tangent of each typed key array float0 of the keys' shape, as in
    JAX (`float0_tangents` holds those: the key node rebuilt over float0 data); other integer
    inputs keep their tangent as zeros of their own dtype."""
    return tree_map(lambda t, f: f if _is_extended(t) else t, tangents, float0_tangents,
                    is_leaf=_is_extended)


def _replace_float0(primal: Any, tangent: Any) -> Any:
    if get_aval(tangent).dtype != dtypes.float0:
        return tangent
    return ad.zeros_like_aval(get_aval(primal))


def _check_tangent_avals(outs: Sequence[Any], tangents: Sequence[Any]) -> None:
    p_avals = [get_aval(o).update(weak_type=False) for o in outs]
    t_avals = [(t.aval if type(t) is SymbolicZero else get_aval(t)).update(weak_type=False)
               for t in tangents]
    if p_avals == t_avals:
        return
    if len(p_avals) == 1:
        raise TypeError(
            "Custom JVP rule must produce primal and tangent outputs with equal shapes and "
            f"dtypes, but got {p_avals[0].str_short()} and {t_avals[0].str_short()} "
            "respectively.")
    lines = "\n".join(f"  primal {a.str_short()} for tangent {b.str_short()}"
                      for a, b in zip(p_avals, t_avals, strict=True) if a != b)
    raise TypeError("Custom JVP rule must produce primal and tangent outputs with equal shapes "
                    f"and dtypes, but got:\n{lines}")


def _python_rule_jvp(jvp_flat: Callable[..., Any], consts: list[Any]) -> Callable[..., Any]:
    """The user's rule for a custom_jvp staged under jit that closes over tracers: as in JAX,
    differentiating with respect to those leaks them (the rule still refers to them)."""
    n = len(consts)

    def jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        for c, t in zip(consts, tangents[:n], strict=False):
            if type(t) is not Zero:
                raise escaped_tracer_error(c)
        return jvp_flat(primals[n:], tangents[n:])  # type: ignore[no-any-return]

    return jvp


def _staged_rule_jvp(rule: ClosedJaxpr, deps: list[bool], n_fun: int, n_rule: int, n_out: int
                     ) -> Callable[..., Any]:
    """The closure-converted rule: operands are (function consts, rule consts, arguments)."""
    m = n_fun + n_rule

    def jvp(primals: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
        if any(d and type(t) is not Zero for d, t in zip(deps, tangents[:n_fun], strict=True)):
            raise ad.CustomJVPException()
        ts = [ad.instantiate_zeros(t) for t in tangents[m:]]
        out = eval_jaxpr(rule.jaxpr, rule.consts, *primals[n_fun:m], *primals[m:], *ts)
        return out[:n_out], out[n_out:]

    return jvp


# ---- custom_vjp ----------------------------------------------------------------------------


def _check_for_tracers(x: Any) -> None:
    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, Tracer):
            raise errors.UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
                "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be "
                "passed as non-differentiable arguments to custom_vjp functions; instead, "
                "nondiff_argnums should only be used for arguments that can't be or contain "
                "JAX tracers, e.g. function-valued arguments. In particular, array-valued "
                "arguments should typically not be indicated as nondiff_argnums.")


class custom_vjp(_CustomFunction):
    """A function with a custom reverse-mode derivative: `fwd` returns (output, residuals),
    `bwd(residuals, output cotangent)` returns one cotangent per argument.

    >>> import numjax
    >>> @custom_vjp
    ... def f(x):
    ...     return x * 3.0
    >>> f.defvjp(lambda x: (f(x), None), lambda res, g: (g * 10.0,))
    >>> numjax.grad(f)(1.0)
    Array(10., dtype=float32, weak_type=True)
    """

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None
        self.symbolic_zeros = False

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    __getattr__ = forward_def_attr

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any],
               symbolic_zeros: bool = False) -> None:
        """Set the rules. With `symbolic_zeros=True`, `fwd` receives `CustomVJPPrimal`
        records (`value`, `perturbed`) and `bwd` receives `SymbolicZero` for zero cotangents
        and may return `SymbolicZero` or None for an input's cotangent."""
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None or self.bwd is None:
            raise AttributeError(
                f"No VJP defined for custom_vjp function {getattr(self.fun, '__name__', self.fun)} "
                "using defvjp.")
        args = _resolve_kwargs(self.fun, args, kwargs)
        for i in self.nondiff_argnums:
            _check_for_tracers(args[i])
        return self._call(args)

    _exception = ad.CustomVJPException
    _checks_operands = True

    def _rules(self, nondiff: list[Any], in_tree: Any, avals: list[Any]
               ) -> tuple[Callable[..., Any], tuple[Callable[..., Any], ...], dict[str, Any]]:
        fun, fwd, bwd, store = self._flat_functions(nondiff, in_tree, avals)
        return fun, (fwd, bwd), store

    def _jvp(self, rules: tuple[Callable[..., Any], ...], primals: Sequence[Any],
             tangents: Sequence[Any]) -> tuple[Any, Any]:
        fwd, bwd = rules
        return custom_vjp_jvp(primals, tangents, fwd=fwd, bwd=bwd,  # type: ignore[no-any-return]
                              num_consts=0, symbolic_zeros=self.symbolic_zeros)

    def _bind(self, flat: list[Any], closed: ClosedJaxpr, consts: list[Any],
              fwd: Callable[..., Any], bwd: Callable[..., Any], store: dict[str, Any],
              python_rule: bool) -> Any:
        n = len(consts)
        fwd_consts: list[Any] = []
        fwd_all = _fwd_skipping_consts(fwd, n)
        if consts and not python_rule:
            k = len(flat)

            def fwd_fn(*xs: Any) -> list[Any]:
                outs, res = fwd(list(xs), [True] * k)
                store["n_res"] = len(res)
                return [*outs, *res]

            staged = _stage(fwd_fn, [get_aval(x) for x in flat])
            if staged is not None:
                fwd_jaxpr, fwd_consts = staged
                fwd_all = _staged_fwd(fwd_jaxpr, n, len(fwd_consts), len(store["out_avals"]))
                closed = _with_extra_invars(closed, n, [get_aval(c) for c in fwd_consts])
        outs = custom_vjp_call_p.bind(*consts, *fwd_consts, *flat, call_jaxpr=closed,
                                      fwd=fwd_all, bwd=bwd, num_consts=n + len(fwd_consts),
                                      symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(store["out_tree"], outs)

    def _flat_functions(self, nondiff: list[Any], in_tree: Any, in_avals: list[Any]
                        ) -> tuple[Any, Any, Any, Any]:
        store: dict[str, Any] = {}
        nondiff_argnums = self.nondiff_argnums
        user_fun, user_fwd, user_bwd = self.fun, self.fwd, self.bwd
        symbolic = self.symbolic_zeros
        name = getattr(self.fun, "__name__", "fun")

        def fun(*flat_args: Any) -> list[Any]:
            diff = tree_unflatten(in_tree, flat_args)
            out = user_fun(*_merge(nondiff, diff, nondiff_argnums))
            leaves, store["out_tree"] = tree_flatten(out)
            store["out_avals"] = [get_aval(x) for x in leaves]
            return leaves

        def fwd(primals: list[Any], perturbed: list[bool]) -> tuple[list[Any], list[Any]]:
            plain = primals
            if symbolic:
                primals = [CustomVJPPrimal(p, z) for p, z in zip(primals, perturbed,
                                                                  strict=True)]
            diff = tree_unflatten(in_tree, primals)
            if symbolic and any(_is_extended(x) for x in tree_leaves(
                    diff, is_leaf=_is_extended)):
                # A typed key array is one primal (never perturbed: its tangent is float0).
                diff = tree_map(lambda w, p: CustomVJPPrimal(p, False) if _is_extended(w)
                                else w, diff, tree_unflatten(in_tree, plain),
                                is_leaf=_is_extended)
            assert user_fwd is not None
            result = user_fwd(*_merge(nondiff, diff, nondiff_argnums))
            if not (isinstance(result, tuple | list) and len(result) == 2):
                fwd_name = getattr(user_fwd, "__name__", user_fwd)
                raise TypeError(
                    f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair "
                    "(list or tuple of length two) where the first element represents the "
                    "primal output (equal to those of the custom_vjp-decorated function "
                    f"{name}) and the second element represents residuals (i.e. values stored "
                    "from the forward pass for use on the backward pass), but instead of a "
                    f"pair the fwd rule {fwd_name} produced {result}.")
            out, res = result
            out_flat, out_tree = tree_flatten(out)
            fwd_name = getattr(user_fwd, "__name__", user_fwd)
            _check_rule_primal_out(
                store, out_tree, out_flat,
                f"Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list "
                "or tuple of length two) where the first element represents the primal output "
                f"(equal to the output of the custom_vjp-decorated function {name}) and the "
                "second element represents residuals (i.e. values stored from the forward pass "
                "for use on the backward pass), but ", "the fwd rule",
                f"custom_vjp-decorated function {name}")
            store.setdefault("out_tree", out_tree)
            store.setdefault("out_avals", [get_aval(o) for o in out_flat])
            res_flat, store["res_tree"] = tree_flatten(res)
            return out_flat, res_flat

        def bwd(res: list[Any], cts: list[Any]) -> list[Any]:
            res_tree = tree_unflatten(store["res_tree"], res)
            cts = [SymbolicZero(c.aval) if type(c) is Zero else c for c in cts]
            ct_tree = tree_unflatten(store["out_tree"], cts)
            assert user_bwd is not None
            result = user_bwd(*nondiff, res_tree, ct_tree)
            return _flatten_bwd_output(result, in_tree, in_avals)

        return fun, fwd, bwd, store


custom_wrapper_types.update({custom_jvp, custom_vjp})


def _fwd_skipping_consts(fwd: Callable[..., Any], n: int) -> Callable[..., Any]:
    if not n:
        return fwd

    def fwd_all(primals: list[Any], perturbed: list[bool]) -> Any:
        return fwd(primals[n:], perturbed[n:])

    return fwd_all


def _staged_fwd(fwd_jaxpr: ClosedJaxpr, n_fun: int, n_fwd: int, n_out: int
                ) -> Callable[..., Any]:
    m = n_fun + n_fwd

    def fwd_all(primals: list[Any], perturbed: list[bool]) -> Any:
        out = eval_jaxpr(fwd_jaxpr.jaxpr, fwd_jaxpr.consts, *primals[n_fun:m], *primals[m:])
        return out[:n_out], out[n_out:]

    return fwd_all


def _flatten_bwd_output(result: Any, in_tree: Any, in_avals: list[Any]) -> list[Any]:
    """One cotangent per flat argument (None: zero), checked against the arguments' avals."""
    n = in_tree.num_leaves
    args_tree = tree_unflatten(in_tree, list(range(n)))
    if isinstance(result, list) and len(result) == len(args_tree):
        result = tuple(result)
    bad_structure = TypeError(
        "Custom VJP bwd rule must produce an output with the same container (pytree) "
        "structure as the args tuple of the primal function, and in particular must produce a "
        "tuple of length equal to the number of arguments to the primal function, but got bwd "
        f"output structure {tree_structure(result)} for primal input structure "
        f"{tree_structure(tuple(args_tree))}.")  # the arguments as a tuple, as JAX prints them
    if not isinstance(result, tuple) or len(result) != len(args_tree):
        raise bad_structure
    flat: list[Any] = []
    for r, sub in zip(result, args_tree, strict=True):
        sub_leaves, sub_tree = tree_flatten(sub)
        if r is None:
            flat += [None] * len(sub_leaves)
        elif treedef_is_leaf(tree_structure(r)):
            # As in JAX, a leaf stands for a whole argument (a custom node holding one array):
            # the leaf counts must still agree.
            flat.append(r)
        else:
            try:
                flat += sub_tree.flatten_up_to(r)
            except (TypeError, ValueError):
                # A typed key array's cotangent is one float0 leaf where the key is a node
                # over its data (one leaf too): match r against the keys taken as leaves.
                keys_as_leaves = tree_structure(sub, is_leaf=_is_extended)
                if keys_as_leaves.num_leaves != len(sub_leaves):
                    raise bad_structure from None
                try:
                    flat += keys_as_leaves.flatten_up_to(r)
                except (TypeError, ValueError):
                    raise bad_structure from None
    paths = [keystr(p) for p, _ in tree_flatten_with_path(tuple(args_tree))[0]]
    if len(flat) != len(paths):
        raise bad_structure
    out: list[Any] = []
    for path, aval, ct in zip(paths, in_avals, flat, strict=True):
        t_aval = ad.tangent_aval(aval)
        if ct is None or t_aval is not aval and t_aval.dtype != aval.dtype:
            out.append(None)  # no cotangent, or an integer input (float0)
        elif type(ct) is SymbolicZero:
            if (ct.aval.shape, ct.aval.dtype) != (aval.shape, aval.dtype):
                raise ValueError(
                    "Custom VJP bwd rule produced a SymbolicZero with a shape/dtype that does "
                    "not match the corresponding input tangent shape/dtype: at output"
                    f"{path} the SymbolicZero had shape/dtype {ct.aval.str_short()} while the "
                    f"corresponding input had shape/dtype {aval.str_short()}. Consider just "
                    "returning a None here instead of a SymbolicZero object.")
            out.append(None)
        else:
            ct_aval = get_aval(ct).update(weak_type=False)
            if ct_aval.shape != aval.shape and not config.custom_vjp_disable_shape_check.value:
                raise ValueError(
                    "Custom VJP bwd rule must produce an output with the same shape/dtypes as "
                    f"the args tuple of the primal function, but at output{path} the bwd rule "
                    f"produced an output of shape/dtype {ct_aval.str_short()} "
                    f"corresponding to an input of shape/dtype {aval.str_short()}.")
            out.append(ct)
    return out


def closure_convert(fun: Callable[..., Any], *example_args: Any) -> tuple[Any, list[Any]]:
    """`(converted, consts)`: `converted(*args, *consts)` computes `fun(*args)` with the values
    `fun` closes over that may carry a derivative (tracers of floating values) passed
    explicitly; the others stay closed over, as in JAX."""
    flat, in_tree = tree_flatten(example_args)
    store: dict[str, Any] = {}

    def flat_fun(*xs: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, xs))
        leaves, store["tree"] = tree_flatten(out)
        return leaves

    closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat])
    jaxpr, consts = closed.jaxpr, list(closed.consts)
    hoisted = [_maybe_perturbed(c) for c in consts]
    kept = [c for c, h in zip(consts, hoisted, strict=True) if not h]

    def converted(*args: Any) -> Any:
        xs, _ = tree_flatten(args[:len(example_args)])
        given, closure = iter(args[len(example_args):]), iter(kept)
        values = [next(given) if h else next(closure) for h in hoisted]
        outs = eval_jaxpr(jaxpr, values, *xs)
        return tree_unflatten(store["tree"], outs)

    return converted, [c for c, h in zip(consts, hoisted, strict=True) if h]


def _maybe_perturbed(x: Any) -> bool:
    """Whether `x` may carry a nonzero tangent (JAX's heuristic): a concrete value cannot, a
    value being staged can unless its tangents are float0 (integers, booleans), a JVP tracer may,
    and any other tracer may if what it wraps may."""
    if not isinstance(x, Tracer):
        return False
    if isinstance(x, StagingTracer):
        trace = x._trace
        if isinstance(trace, StagingTrace) and not trace.stages_constants:
            return False  # a partial-evaluation tracer: JAX's JaxprTracer
        return bool(ad.tangent_aval(x.aval).dtype != dtypes.float0)
    if isinstance(x, JVPTracer):
        return True
    return any(_maybe_perturbed(value) for _, value in x._contents())


def linear_call(fun: Callable[..., Any], fun_transpose: Callable[..., Any], residual_args: Any,
                linear_args: Any) -> Any:
    """`fun(residual_args, linear_args)`, linear in `linear_args`, whose transpose with
    respect to them is `fun_transpose(residual_args, cotangents)`.

    >>> import numjax
    >>> f = lambda x: x + linear_call(lambda r, x: x / r, lambda r, t: t / r, 3.0, x)
    >>> numjax.linear_transpose(f, 1.0)(18.0)
    (Array(24., dtype=float32, weak_type=True),)
    """
    res_flat, res_tree = tree_flatten(residual_args)
    lin_flat, lin_tree = tree_flatten(linear_args)
    res_avals = [shaped_abstractify(x) for x in res_flat]
    lin_avals = [shaped_abstractify(x) for x in lin_flat]
    store: dict[str, Any] = {}

    def flat_fun(*xs: Any) -> list[Any]:
        res = tree_unflatten(res_tree, xs[:len(res_flat)])
        out = fun(res, tree_unflatten(lin_tree, xs[len(res_flat):]))
        leaves, store["out_tree"] = tree_flatten(out)
        return leaves

    callee, f_consts = hoist_tracer_consts(trace_to_jaxpr(flat_fun, [*res_avals, *lin_avals]))

    def flat_transpose(*xs: Any) -> list[Any]:
        res = tree_unflatten(res_tree, xs[:len(res_flat)])
        out = fun_transpose(res, tree_unflatten(store["out_tree"], xs[len(res_flat):]))
        leaves, store["t_tree"] = tree_flatten(out)
        return leaves

    transpose, t_consts = hoist_tracer_consts(
        trace_to_jaxpr(flat_transpose, [*res_avals, *callee.out_avals]))
    if store["t_tree"] != lin_tree:
        raise TypeError(
            "transpose output pytree structure must match that of linear inputs, got output "
            f"structure {store['t_tree']} and input structure {lin_tree}.")
    outs = linear_call_p.bind(*f_consts, *t_consts, *res_flat, *lin_flat, callee=callee,
                              transpose=transpose, num_callee_consts=len(f_consts),
                              num_transpose_consts=len(t_consts), num_res=len(res_flat))
    return tree_unflatten(store["out_tree"], outs)


class _RuleResiduals:
    """What `custom_gradient`'s backward pass needs: the traced gradient rule (static, in the
    pytree's node data) and the values it closes over (the pytree's leaves)."""

    def __init__(self, rule: ClosedJaxpr, rule_tree: Any, ct_tree: Any,
                 consts: Iterable[Any]) -> None:
        self.rule, self.rule_tree, self.ct_tree = rule, rule_tree, ct_tree
        self.consts = list(consts)


register_pytree_node(
    _RuleResiduals, lambda r: (r.consts, (r.rule, r.rule_tree, r.ct_tree)),
    lambda static, consts: _RuleResiduals(static[0], static[1], static[2], consts))


def custom_gradient(fun: Callable[..., Any]) -> Callable[..., Any]:
    """A function with its own gradient rule: `fun(*args)` returns `(output, rule)`, where
    `rule(output_cotangent)` returns one cotangent per positional argument (a tuple).

    >>> import numjax, numjax.numpy as jnp
    >>> @custom_gradient
    ... def clip_gradient(x):
    ...     return x, lambda g: (jnp.clip(g, -0.5, 0.5),)
    >>> numjax.grad(lambda x: 3 * clip_gradient(x))(1.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    @custom_vjp
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)[0]

    def fwd(*args: Any, **kwargs: Any) -> Any:
        out, rule = fun(*args, **kwargs)
        out_flat, ct_tree = tree_flatten((out,))

        def flat_rule(*cts: Any) -> list[Any]:
            result = rule(*tree_unflatten(ct_tree, cts))
            leaves, store["tree"] = tree_flatten(result)
            return leaves

        store: dict[str, Any] = {}
        traced, consts = hoist_consts(
            trace_to_jaxpr(flat_rule, [ad.tangent_aval(get_aval(x)) for x in out_flat]))
        return out, _RuleResiduals(traced, store["tree"], ct_tree, consts)

    def bwd(res: _RuleResiduals, ct: Any) -> Any:
        cts_flat, ct_tree = tree_flatten((ct,))
        if ct_tree != res.ct_tree:
            raise TypeError(f"{res.ct_tree}\n!=\n{ct_tree}")
        outs = eval_jaxpr(res.rule.jaxpr, [], *res.consts, *cts_flat)
        result = tree_unflatten(res.rule_tree, outs)
        return (result,) if treedef_is_leaf(res.rule_tree) else result

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(wrapped)

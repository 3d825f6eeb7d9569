"""`checkify(f, errors)`: `f` with its checks' failures returned as an `Error` value.

`f` is traced to a jaxpr, which is then evaluated equation by equation on the current trace
(eagerly, or into an enclosing jit or transformation), threading the error state through it:
each error effect has a slot `(pred, code, payload)`; a check's failure enters its slot unless
an earlier failure holds it (`select` on the slot's pred), so each slot keeps its first
failure.

- `check_p` equations (user checks, `check_error`) merge the errors they carry;
- enabled automatic checks add their own: a NaN in the result of a primitive that can make
  one (`nan_primitives`, JAX's list), division by zero for `div`, indices out of bounds for
  gather, scatter and dynamic slices;
- jitted and closed calls are evaluated inline; custom_jvp and custom_vjp calls stay (their
  rules give the derivatives), their checks evaluated beside them; as in JAX, the bodies of
  checkpoint and custom_vmap calls are not checked;
- `cond`, `while` and `scan` are bound again with the error slots of everything their bodies
  can fail added to their operands and results (a slot a body cannot fail passes through);
  a while loop's `cond_fun` is checked before the loop and after each iteration; a pmap's
  per-device program returns its slots mapped over the devices.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import traceback_util, tree_util
from numjax._src.api.xla_pmap import xla_pmap_p
from numjax._src.checkify.errors import (
    DivisionByZeroError,
    Error,
    ErrorCategory,
    ErrorEffect,
    FailedCheckError,
    JaxException,
    NaNError,
    OOBError,
    check_p,
    new_code,
    reduce_batched,
    static_of,
    user_checks,
)
from numjax._src.control_flow import loops
from numjax._src.control_flow.cond import switch
from numjax._src.core import axis_env
from numjax._src.core.avals import get_aval, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, Var
from numjax._src.core.trace import Primitive, Tracer
from numjax._src.dtypes import issubdtype
from numjax._src.interpreters.jaxpr_transforms import trace_closed
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import lax
from numjax._src.lax.structural import stop_gradient
from numjax._src.numpy.creation import asarray, zeros
from numjax._src.numpy.lax_numpy import where as jnp_where
from numjax._src.numpy.manipulation import unravel_index
from numjax._src.numpy.reductions import any as jnp_any
from numjax._src.numpy.reductions import argmin
from numjax._src.numpy.scalar_types import bool_
from numjax._src.numpy.shape import ravel, stack
from numjax._src.numpy.ufuncs import equal, isnan, logical_not, logical_or
from numjax._src.runtime.array import Array

# error effect -> [pred, code, payload]; insertion order is the order slots are threaded.
State = dict[ErrorEffect, list[Any]]

_OOB_PAYLOAD = ErrorEffect(OOBError, (get_aval(np.zeros(3, np.int32)),))
_NAN = ErrorEffect(NaNError, ())
_DIV = ErrorEffect(DivisionByZeroError, ())

# Primitives that can make a NaN from operands without one, by name (JAX's list).
nan_primitives = frozenset({
    "acos", "acosh", "add", "asin", "asinh", "atan2", "atan", "atanh", "bessel_i0e",
    "bessel_i1e", "cbrt", "conv_general_dilated", "cos", "cosh", "cumlogsumexp", "cummax",
    "cummin", "cumprod", "cumsum", "digamma", "dot_general", "erf_inv", "erf", "erfc", "exp",
    "expm1", "fft", "igamma_grad_a", "igamma", "igammac", "integer_pow", "lgamma",
    "custom_linear_solve", "log1p", "log", "logistic", "mul", "pad", "pow", "psum",
    "random_gamma_grad", "reduce", "reduce_prod", "reduce_sum", "reduce_window",
    "reduce_window_sum", "regularized_incomplete_beta", "rem", "rng_uniform", "rsqrt", "sin",
    "sinh", "sqrt", "sub", "tan", "tanh", "div"})
_SCATTERS = frozenset({"scatter", "scatter-add", "scatter_add", "scatter-mul", "scatter_mul",
                       "scatter-min", "scatter_min", "scatter-max", "scatter_max"})
# The calls whose bodies are checked, as in JAX 0.4.30 (a checkpoint's or custom_vmap's body
# is not: it runs unchecked there too).
_CALLS = {"pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
          "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr"}
# Calls whose own rules matter beyond evaluation (custom derivatives): they stay in the
# program, their checks evaluated beside them.
_KEPT_CALLS = frozenset({"custom_jvp_call", "custom_vjp_call"})


# The static part of every check a checkify pass meets, by code (a stack: passes nest when a
# checkified function calls another).
_pass_metadata: list[dict[int, Any]] = []


# ---- error slots ---------------------------------------------------------------------------


def _assert(state: State, pred: Any, exc: JaxException) -> None:
    """Add a check that failed where `pred` is True (first failure per slot wins)."""
    code = new_code(exc)
    _pass_metadata[-1][code] = static_of(code)
    _merge(state, exc.effect(), pred, np.int32(code), exc._payload())


def _merge(state: State, effect: ErrorEffect, pred: Any, code: Any, payload: list[Any]) -> None:
    old = state.get(effect)
    if old is None:
        state[effect] = [pred, code, list(payload)]
        return
    held = old[0]
    state[effect] = [logical_or(held, pred), jnp_where(held, old[1], code),
                     [jnp_where(held, a, b) for a, b in zip(old[2], payload, strict=True)]]


def _placeholders(state: State, effects: Sequence[ErrorEffect]) -> None:
    for e in effects:
        if e not in state:
            state[e] = [bool_(False), np.int32(-1),
                        [zeros(a.shape, a.dtype) for a in e.shape_dtypes]]


def _leaves(state: State) -> list[Any]:
    return [x for p, c, pl in state.values() for x in (p, c, *pl)]


def _from_leaves(effects: Sequence[ErrorEffect], leaves: Sequence[Any]) -> State:
    state: State = {}
    it = iter(leaves)
    for e in effects:
        state[e] = [next(it), next(it), [next(it) for _ in e.shape_dtypes]]
    return state


# ---- which slots a jaxpr can fill ----------------------------------------------------------


def _sub_jaxprs(eqn: Any) -> list[Jaxpr]:
    out = []
    for v in eqn.params.values():
        for j in (v if isinstance(v, tuple) else (v,)):
            if isinstance(j, ClosedJaxpr):
                out.append(j.jaxpr)
            elif isinstance(j, Jaxpr):
                out.append(j)
    return out


def _effects_of(jaxpr: Jaxpr, enabled: frozenset[ErrorCategory]) -> list[ErrorEffect]:
    found: dict[ErrorEffect, None] = {}
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if eqn.primitive is check_p:
            keys = tree_util.tree_unflatten(eqn.params["err_tree"],
                                            [None] * len(eqn.invars))._pred
            found.update((k, None) for k in keys if k.error_type in enabled)
            continue
        if name == "div" and DivisionByZeroError in enabled:
            found[_DIV] = None
        if name in ("gather", "dynamic_slice", "dynamic_update_slice", *_SCATTERS) \
                and OOBError in enabled:
            found[_OOB_PAYLOAD] = None
        if (name in nan_primitives or name in _SCATTERS) and NaNError in enabled:
            found[_NAN] = None
        if name in _CALLS or name in ("cond", "while", "scan", "xla_pmap"):
            for sub in _sub_jaxprs(eqn):
                found.update((k, None) for k in _effects_of(sub, enabled))
    return list(found)


# ---- the interpreter -----------------------------------------------------------------------


def eval_checked(jaxpr: Jaxpr, consts: Sequence[Any], state: State,
                 enabled: frozenset[ErrorCategory], *args: Any) -> list[Any]:
    """Evaluate `jaxpr` on the current trace, adding its failures to `state`."""
    env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))

    def read(a: Any) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = _eval_eqn(eqn, ins, state, enabled)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        env.update(zip(eqn.outvars, outs, strict=True))
    return [read(a) for a in jaxpr.outvars]


def _eval_eqn(eqn: Any, ins: list[Any], state: State, enabled: frozenset[ErrorCategory]
              ) -> Any:
    prim: Primitive = eqn.primitive
    params = eqn.params
    name = prim.name
    if prim is check_p:
        return _check_rule(state, enabled, ins, **params)
    if name in _CALLS and _CALLS[name] in params:
        inner = params[_CALLS[name]]
        args = ins[len(ins) - len(inner.jaxpr.invars):]
        if name not in _KEPT_CALLS:
            return eval_checked(inner.jaxpr, inner.consts, state, enabled, *args)
        # The function's checks run on values cut from differentiation, beside the call that
        # keeps its rules (which give the results and their derivatives).
        eval_checked(inner.jaxpr, inner.consts, state, enabled,
                     *[stop_gradient(a) for a in args])
        return prim.bind(*ins, **params)
    if name == "cond":
        return _cond_rule(state, enabled, ins, **params)
    if name == "while":
        return _while_rule(state, enabled, ins, **params)
    if name == "scan":
        return _scan_rule(state, enabled, ins, **params)
    if prim is xla_pmap_p:
        return _pmap_rule(state, enabled, ins, params)
    if name == "div" and DivisionByZeroError in enabled:
        _assert(state, jnp_any(equal(ins[1], 0)), DivisionByZeroError(None))
    if OOBError in enabled:
        _oob_checks(state, name, ins, params)
    out = prim.bind(*ins, **params)
    if NaNError in enabled and (name in nan_primitives or name in _SCATTERS):
        _nan_check(state, name, ins, out if prim.multiple_results else [out])
    return out


def _check_rule(state: State, enabled: frozenset[ErrorCategory], ins: list[Any], *,
                err_tree: Any, debug: bool) -> list[Any]:
    error: Error = tree_util.tree_unflatten(err_tree, ins)
    _pass_metadata[-1].update(error._metadata)
    # Checks of kinds not enabled are dropped, as in JAX 0.4.30.
    for e, pred in error._pred.items():
        if e.error_type in enabled:
            _merge(state, e, pred, error._code[e], error._payload[e])
    return []


def _is_nan_free_dtype(x: Any) -> bool:
    dtype = get_aval(x).dtype
    return not (issubdtype(dtype, np.inexact))


def _any_nan(xs: Sequence[Any]) -> Any:
    found = [jnp_any(isnan(x)) for x in xs if not _is_nan_free_dtype(x)]
    if not found:
        return None
    return functools.reduce(logical_or, found)


def _nan_check(state: State, name: str, ins: list[Any], outs: Sequence[Any]) -> None:
    out_nan = _any_nan(outs)
    if out_nan is None:
        return
    _assert(state, out_nan, NaNError(None, name))


def _oob_payload(mask: Any, indices: Any, dims_map: Sequence[int], shape: Sequence[int]
                 ) -> Any:
    """(index, axis, axis size) of the first index out of bounds."""
    flat = argmin(logical_not(mask))
    where = unravel_index(flat, np.shape(indices))
    axis = asarray(np.asarray(dims_map, np.int32))[where[-1]]
    size = asarray(np.asarray(shape, np.int32))[axis]
    index = ravel(indices)[flat]
    return stack([index.astype(np.int32), axis, size])


def _along_last(bound: np.ndarray, idx: Any) -> Any:
    """Per-coordinate bounds broadcast along the index vectors' last axis."""
    aval = get_aval(idx)
    bound = np.minimum(bound, np.iinfo(aval.dtype).max).astype(aval.dtype)
    return lax.broadcast_in_dim(bound, aval.shape, (len(aval.shape) - 1,))


def _oob_checks(state: State, name: str, ins: list[Any], params: dict[str, Any]) -> None:
    if name in ("dynamic_slice", "dynamic_update_slice"):
        operand = ins[0]
        shape = get_aval(operand).shape
        if name == "dynamic_slice":
            sizes, starts = params["slice_sizes"], ins[1:]
        else:
            sizes, starts = get_aval(ins[1]).shape, ins[2:]
        if not starts:
            return
        idx = stack([asarray(s).astype(np.int32) for s in starts])
        mask = (idx < 0) | (idx + np.asarray(sizes, np.int32) > np.asarray(shape, np.int32))
        payload = _oob_payload(mask, idx, range(len(shape)), shape)
    elif name == "gather":
        operand, idx = ins
        shape = get_aval(operand).shape
        dnums = params["dimension_numbers"]
        smap = np.asarray(dnums.start_index_map, np.int64)
        if smap.size == 0:
            return
        upper = np.asarray(shape)[smap] - np.asarray(params["slice_sizes"])[smap]
        mask = (idx < 0) | (idx > _along_last(upper, idx))
        payload = _oob_payload(mask, idx, dnums.start_index_map, shape)
    elif name in _SCATTERS:
        operand, idx, updates = ins[:3]
        shape = get_aval(operand).shape
        dnums = params["dimension_numbers"]
        sizes, pos = [], 0
        for i in range(len(shape)):
            if i in dnums.inserted_window_dims:
                sizes.append(1)
            else:
                sizes.append(get_aval(updates).shape[dnums.update_window_dims[pos]])
                pos += 1
        dims = dnums.scatter_dims_to_operand_dims
        if not dims:
            return
        upper = np.asarray([shape[i] - sizes[i] for i in dims])
        mask = (idx < 0) | (idx > _along_last(upper, idx))
        payload = _oob_payload(mask, idx, dims, shape)
    else:
        return
    _assert(state, jnp_any(mask), OOBError(None, name, tuple(shape), payload))


# ---- control flow --------------------------------------------------------------------------


def _checked_fun(closed: ClosedJaxpr, effects: list[ErrorEffect],
                 enabled: frozenset[ErrorCategory]) -> Callable[..., Any]:
    """(slots, args) -> (slots, outs) for `closed`, with the slots of `effects`."""
    def fun(slots: list[Any], args: list[Any]) -> tuple[list[Any], list[Any]]:
        state = _from_leaves(effects, slots)
        outs = eval_checked(closed.jaxpr, closed.consts, state, enabled, *args)
        return _leaves(state), outs
    return fun


def _cond_rule(state: State, enabled: frozenset[ErrorCategory], ins: list[Any], *,
               branches: tuple[ClosedJaxpr, ...], linear: Any) -> list[Any]:
    for b in branches:
        _placeholders(state, _effects_of(b.jaxpr, enabled))
    effects = list(state)
    funs = [_checked_fun(b, effects, enabled) for b in branches]
    slots, outs = switch(ins[0], [lambda s, a, f=f: f(s, a) for f in funs], _leaves(state),
                         list(ins[1:]))
    state.update(_from_leaves(effects, slots))
    return list(outs)


def _while_rule(state: State, enabled: frozenset[ErrorCategory], ins: list[Any], *,
                cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, cond_nconsts: int,
                body_nconsts: int) -> list[Any]:
    if loops.has_batched_predicate(cond_jaxpr):
        # JAX's checkify refuses a while loop vmap batched over its predicate, checks or not.
        raise ValueError("Checkify does not support batched while-loops "
                         "(checkify-of-vmap-of-while). \nHint: if possible, move the vmap to "
                         "the outer level to get vmap-of-checkify-of-while.")
    cconsts, bconsts = ins[:cond_nconsts], ins[cond_nconsts:cond_nconsts + body_nconsts]
    init = ins[cond_nconsts + body_nconsts:]
    _placeholders(state, _effects_of(cond_jaxpr.jaxpr, enabled)
                  + _effects_of(body_jaxpr.jaxpr, enabled))
    effects = list(state)
    cond_f = _checked_fun(cond_jaxpr, effects, enabled)
    body_f = _checked_fun(body_jaxpr, effects, enabled)
    # The loop's test is checked before the loop and after every iteration, its result
    # carried, so the loop condition itself reads only the carry.
    slots, (go,) = cond_f(_leaves(state), [*cconsts, *init])

    def body(carry: Any) -> Any:
        slots, vals, _ = carry
        slots, vals = body_f(slots, [*bconsts, *vals])
        slots, (go,) = cond_f(slots, [*cconsts, *vals])
        return slots, vals, go

    slots, vals, _ = loops.while_loop(lambda c: c[2], body, (slots, list(init), go))
    state.update(_from_leaves(effects, slots))
    return list(vals)


def _scan_rule(state: State, enabled: frozenset[ErrorCategory], ins: list[Any], *,
               jaxpr: ClosedJaxpr, num_consts: int, num_carry: int, length: int,
               reverse: bool, unroll: Any, **_: Any) -> list[Any]:
    consts, carry, xs = ins[:num_consts], ins[num_consts:num_consts + num_carry], \
        ins[num_consts + num_carry:]
    _placeholders(state, _effects_of(jaxpr.jaxpr, enabled))
    effects = list(state)
    body_f = _checked_fun(jaxpr, effects, enabled)

    def body(c: Any, x: Any) -> Any:
        slots, vals = c
        slots, outs = body_f(slots, [*consts, *vals, *x])
        return (slots, outs[:num_carry]), outs[num_carry:]

    (slots, carry), ys = loops.scan(body, (_leaves(state), list(carry)), list(xs),
                                    length=length, reverse=reverse, unroll=unroll)
    state.update(_from_leaves(effects, slots))
    return [*carry, *ys]


def _pmap_rule(state: State, enabled: frozenset[ErrorCategory], ins: list[Any],
               params: dict[str, Any]) -> list[Any]:
    """The per-device program returns its error slots too, mapped over the devices; they are
    then reduced to one (failed on any device, the last failing device's code and payload)."""
    body: ClosedJaxpr = params["call_jaxpr"]
    effects = _effects_of(body.jaxpr, enabled)
    if not effects:
        return xla_pmap_p.bind(*ins, **params)  # type: ignore[no-any-return]

    def per_device(*args: Any) -> list[Any]:
        inner: State = {}
        _placeholders(inner, effects)
        outs = eval_checked(body.jaxpr, body.consts, inner, enabled, *args)
        return [*_leaves(inner), *outs]

    with axis_env.extend_axis_env(params["axis_name"], params["global_axis_size"]):
        checked = trace_closed(per_device, body.in_avals)
    n = len(checked.out_avals) - len(body.out_avals)
    outs = xla_pmap_p.bind(*ins, **{**params, "call_jaxpr": checked,
                                    "out_axes": (0,) * n + tuple(params["out_axes"])})
    mapped = _from_leaves(effects, outs[:n])
    per_error = reduce_batched(Error({e: v[0] for e, v in mapped.items()},
                                     {e: v[1] for e, v in mapped.items()}, {},
                                     {e: v[2] for e, v in mapped.items()}))
    for e in effects:
        _merge(state, e, per_error._pred[e], per_error._code[e], per_error._payload[e])
    return list(outs[n:])


# ---- the transformation --------------------------------------------------------------------


def checkify(
    f: Callable[..., Any], errors: frozenset[ErrorCategory] = user_checks
) -> Callable[..., tuple[Error, Any]]:
    """`f` returning `(Error, result)`: failed checks become a value instead of raising.

    `errors` selects the checks: `user_checks` (the default), `nan_checks`, `div_checks`,
    `index_checks`, `float_checks`, `automatic_checks` or `all_checks`.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax.experimental import checkify
    >>> def f(x):
    ...     checkify.check(x < 1, "too big")
    ...     return x
    >>> err, _ = numjax.jit(checkify.checkify(f))(jnp.float32(2.0))
    >>> err.get()
    'too big (`check` failed)'
    >>> err, _ = checkify.checkify(jnp.sin, errors=checkify.float_checks)(jnp.inf)
    >>> err.get()
    'nan generated by primitive: sin.'
    """
    enabled = frozenset(errors)

    @functools.wraps(f, updated=())
    @traceback_util.api_boundary
    def checked(*args: Any, **kwargs: Any) -> tuple[Error, Any]:
        store: dict[str, Any] = {}

        # `f` is traced to a program whose inputs are the array arguments; any other argument
        # (a Python scalar, a string, a static value) is closed over as it is, so Python
        # control flow on it works, as in JAX (which closes over every argument).
        flat, in_tree = tree_util.tree_flatten((args, kwargs))
        is_array = [isinstance(x, (Array, np.ndarray, Tracer)) for x in flat]

        def flat_f(*xs: Any) -> list[Any]:
            it = iter(xs)
            full = [next(it) if a else x for x, a in zip(flat, is_array, strict=True)]
            a, k = tree_util.tree_unflatten(in_tree, full)
            leaves, store["tree"] = tree_util.tree_flatten(f(*a, **k))
            return leaves

        arrays = [x for x, a in zip(flat, is_array, strict=True) if a]
        closed, hoisted = hoist_tracer_consts(
            trace_to_jaxpr(flat_f, [shaped_abstractify(x) for x in arrays]))
        inputs = [*hoisted, *arrays]
        state: State = {}
        _pass_metadata.append({})
        try:
            outs = eval_checked(closed.jaxpr, closed.consts, state, enabled, *inputs)
        finally:
            metadata = _pass_metadata.pop()
        error = Error({e: s[0] for e, s in state.items()},
                      {e: lax.convert_element_type(asarray(s[1]), np.int32)
                       for e, s in state.items()}, metadata,
                      {e: s[2] for e, s in state.items()})
        return error, tree_util.tree_unflatten(store["tree"], outs)

    return checked


__all__ = ["FailedCheckError", "checkify"]

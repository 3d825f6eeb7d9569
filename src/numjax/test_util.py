"""Gradient checking, as `jax.test_util`: automatic derivatives against finite differences.

>>> import numjax.numpy as jnp
>>> from numjax.test_util import check_grads
>>> check_grads(jnp.sin, (jnp.float32(0.5),), order=2)

`check_jvp` compares a jvp with central differences; `check_vjp` compares a vjp with them through
the cotangent projection `<vjp(ct), t> == <ct, jvp(t)>`; `check_grads` does both, to any order
(jvp-of-jvp and vjp-of-vjp), and when both modes are checked it also compares the vjp with the
automatic jvp at a tolerance near rounding, which catches a transpose rule that finite
differences at gradient tolerance would let through.

Finite differences are taken in float64 (complex128), with x64 enabled for their duration,
whatever the inputs' precision: a bfloat16 step of 1e-4 would round away, and float32 differences
carry rounding errors as large as the gradient tolerance. A function that cannot run widened
(it mixes its arguments with float32 constants in lax ops) is differenced at its inputs'
precision. Tolerances follow the dtype of the automatic result, with JAX's defaults.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api import transformations as api
from numjax._src.config import enable_x64
from numjax._src.runtime.devices import cpu_device_count
from numjax._src.tree_util import tree_flatten, tree_leaves, tree_map, tree_unflatten

__all__ = ["EPS", "check_close", "check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

EPS = 1e-4

Tolerance = float | dict[Any, float] | None

# Tolerances as JAX 0.4.30 has them (jax._src.public_test_util): values for comparing results
# of one computation, and looser ones for comparing derivatives with finite differences.
_default_tolerance: dict[np.dtype, float] = {
    dtypes.float0: 0,
    np.dtype(np.bool_): 0,
    **{np.dtype(t): 0 for t in (np.int8, np.int16, np.int32, np.int64,
                                np.uint8, np.uint16, np.uint32, np.uint64)},
    np.dtype(dtypes.bfloat16): 1e-2,
    np.dtype(np.float16): 1e-3,
    np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15,
    np.dtype(np.complex64): 1e-6,
    np.dtype(np.complex128): 1e-15,
}

default_gradient_tolerance: dict[np.dtype, float] = {
    np.dtype(dtypes.bfloat16): 1e-1,
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}


def default_tolerance() -> dict[np.dtype, float]:
    return _default_tolerance


def _dtype(x: Any) -> np.dtype:
    if isinstance(x, bool | int | float | complex) and not isinstance(x, np.generic):
        return dtypes.canonicalize_dtype(type(x))
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(x).dtype


def _is_python_scalar(x: Any) -> bool:
    return isinstance(x, bool | int | float | complex) and not isinstance(x, np.generic)


def _is_inexact(x: Any) -> bool:
    return bool(dtypes.issubdtype(_dtype(x), np.inexact))


def tolerance(dtype: Any, tol: Tolerance = None) -> float:
    """The tolerance for `dtype`: `tol` itself if a number, else its entry or the default."""
    if tol is None:
        tol = {}
    if not isinstance(tol, dict):
        return tol
    table = {np.dtype(k): v for k, v in tol.items()}
    dtype = np.dtype(dtype)
    return table.get(dtype, _default_tolerance.get(dtype, 0))


def _merge_tolerance(tol: Tolerance, default: dict[np.dtype, float]) -> Tolerance:
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    out = dict(default)
    out.update({np.dtype(k): v for k, v in tol.items()})
    return out


def _host(x: Any) -> np.ndarray:
    a = np.asarray(x)
    # assert_allclose does not know bfloat16 and the float8s.
    if a.dtype in dtypes._CUSTOM_FLOAT_DTYPES:
        a = a.astype(np.float32)
    return a


def _assert_close(a: Any, b: Any, atol: Tolerance, rtol: Tolerance, err_msg: str) -> None:
    a_dtype, b_dtype = _dtype(a), _dtype(b)
    a, b = _host(a), _host(b)
    if a.shape != b.shape:
        raise AssertionError(f"{err_msg}: shapes differ, {a.shape} != {b.shape}")
    if a_dtype == dtypes.float0 or b_dtype == dtypes.float0:
        return  # float0 values carry no data
    # As JAX does, tolerances grow with the number of elements.
    a_tol = max(tolerance(a_dtype, atol), tolerance(b_dtype, atol)) * a.size
    r_tol = max(tolerance(a_dtype, rtol), tolerance(b_dtype, rtol)) * b.size
    # A zero tolerance (integers) keeps NumPy's default rtol, as JAX's check does.
    np.testing.assert_allclose(a, b, atol=a_tol or 0.0, rtol=r_tol or 1e-7, err_msg=err_msg)


def check_close(xs: Any, ys: Any, atol: Tolerance = None, rtol: Tolerance = None,
                err_msg: str = "") -> None:
    """Assert two pytrees of arrays are close, with per-dtype default tolerances.

    >>> check_close([1.0, np.float32(2.0)], [1.0, np.float32(2.0)])
    """
    x_leaves, x_tree = tree_flatten(xs)
    y_leaves, y_tree = tree_flatten(ys)
    if x_tree != y_tree:
        raise AssertionError(f"{err_msg}: tree structures differ, {x_tree} != {y_tree}")
    for x, y in zip(x_leaves, y_leaves, strict=True):
        _assert_close(x, y, atol, rtol, err_msg)


def _check_dtypes_match(xs: Any, ys: Any, err_msg: str) -> None:
    for x, y in zip(tree_leaves(xs), tree_leaves(ys), strict=True):
        dx, dy = _dtype(x), _dtype(y)
        if dx == dtypes.float0 or dy == dtypes.float0:
            continue
        if dtypes.canonicalize_dtype(dx) != dtypes.canonicalize_dtype(dy):
            raise AssertionError(f"{err_msg}: dtypes differ, {dx.name} != {dy.name}")


def inner_prod(xs: Any, ys: Any) -> float:
    """`sum(real(conj(x) . y))` over the inexact leaves, in float64/complex128."""
    total = 0.0
    for x, y in zip(tree_leaves(xs), tree_leaves(ys), strict=True):
        if not (_is_inexact(x) and _is_inexact(y)):
            continue
        x, y = _host(x), _host(y)
        wide = np.complex128 if np.iscomplexobj(x) or np.iscomplexobj(y) else np.float64
        total += float(np.real(np.vdot(x.astype(wide).ravel(), y.astype(wide).ravel())))
    return total


def _abs_inner_prod(xs: Any, ys: Any) -> float:
    """`sum(|x| |y|)`: the scale against which rounding in an inner product is measured."""
    total = 0.0
    for x, y in zip(tree_leaves(xs), tree_leaves(ys), strict=True):
        if _is_inexact(x) and _is_inexact(y):
            total += float(np.sum(np.abs(_host(x).astype(np.complex128))
                                  * np.abs(_host(y).astype(np.complex128))))
    return total


def rand_like(rng: np.random.RandomState, x: Any) -> Any:
    """A standard normal sample shaped and typed like `x` (a Python scalar for one)."""
    shape, dtype = np.shape(x), _dtype(x)
    result = np.asarray(rng.randn(*shape), dtype=dtype)
    if dtypes.issubdtype(dtype, np.complexfloating):
        result = result + dtype.type(1j) * np.asarray(rng.randn(*shape), dtype=dtype)
    return result.item() if _is_python_scalar(x) else result


def _fd_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype finite differences are computed in."""
    complex_ = dtypes.issubdtype(dtype, np.complexfloating)
    return np.dtype(np.complex128 if complex_ else np.float64)


def _shift(primals: Any, tangents: Any, step: float, wide: bool) -> Any:
    """`primals + step * tangents` on the inexact leaves, widened to the FD dtype if `wide`."""

    def shift(x: Any, t: Any) -> Any:
        if not _is_inexact(x):
            return x
        if _is_python_scalar(x):
            return x + step * t
        dtype = _fd_dtype(_dtype(x)) if wide else _dtype(x)
        out = np.asarray(x).astype(dtype) + np.asarray(step, dtype) * np.asarray(t).astype(dtype)
        return out.astype(dtype)

    return tree_map(shift, primals, tangents)


def _difference(f_pos: Any, f_neg: Any, eps: float) -> Any:
    def diff(a: Any, b: Any) -> Any:
        if not _is_inexact(a):
            return np.zeros(np.shape(a), dtypes.float0)
        a, b = np.asarray(a), np.asarray(b)
        wide = np.result_type(a.dtype, np.float32)
        a, b = a.astype(wide), b.astype(wide)
        # inf - inf == 0: an output that is infinite on both sides does not move.
        d = np.where(a == b, np.zeros((), wide), a - b)
        return d * np.asarray(0.5 / eps, wide)

    return tree_map(diff, f_pos, f_neg)


def numerical_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
                  eps: float = EPS) -> Any:
    """Central differences `(f(x + eps t) - f(x - eps t)) / (2 eps)`, computed in float64.

    >>> import numjax.numpy as jnp
    >>> round(float(numerical_jvp(jnp.square, (np.float32(3.0),), (np.float32(1.0),))), 1)
    6.0
    """
    primals, tangents = tuple(primals), tuple(tangents)
    try:
        # In float32 the rounding error of a difference, ~1e-7 / eps, is as large as the
        # gradient tolerance; in float64 it is negligible. x64 is switched on for the duration
        # (thread-locally) so that numjax keeps the widened inputs.
        with enable_x64(True):
            f_pos = f(*_shift(primals, tangents, eps, wide=True))
            f_neg = f(*_shift(primals, tangents, -eps, wide=True))
    except (TypeError, ValueError):
        # A function mixing its arguments with constants of their own dtype (lax ops demand
        # equal dtypes) cannot run widened: difference it at the inputs' precision.
        f_pos = f(*_shift(primals, tangents, eps, wide=False))
        f_neg = f(*_shift(primals, tangents, -eps, wide=False))
    return _difference(f_pos, f_neg, eps)


def _rand_tangents(rng: np.random.RandomState, args: Any) -> Any:
    return tree_map(lambda x: rand_like(rng, x) if _is_inexact(x) else x, args)


def _message(err_msg: str, what: str) -> str:
    return f"{err_msg} {what}" if err_msg else what


def check_jvp(f: Callable[..., Any], f_jvp: Callable[..., Any], args: Sequence[Any],
              atol: Tolerance = None, rtol: Tolerance = None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Check `f_jvp(args, tangents)` (e.g. `partial(numjax.jvp, f)`) against finite
    differences of `f` at random tangents; raise AssertionError if they differ.

    Arguments that are not floating point are held fixed (their tangents are not random).

    >>> import functools, numjax, numjax.numpy as jnp
    >>> check_jvp(jnp.exp, functools.partial(numjax.jvp, jnp.exp), (np.float32(0.3),))
    """
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    args = tuple(args)
    rng = np.random.RandomState(0)
    tangents = _rand_tangents(rng, args)
    v_out, t_out = f_jvp(args, tangents)
    _check_dtypes_match(v_out, t_out, _message(err_msg, "tangent dtype"))
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected, _message(err_msg, "primal dtype"))
    t_out_expected = numerical_jvp(f, args, tangents, eps=eps)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
                err_msg=_message(err_msg, "primal"))
    check_close(t_out, t_out_expected, atol=atol, rtol=rtol,
                err_msg=_message(err_msg, "tangent"))


def _rand_cotangents(rng: np.random.RandomState, out: Any) -> Any:
    return tree_map(lambda x: rand_like(rng, x) if _is_inexact(x)
                    else np.zeros(np.shape(x), dtypes.float0), out)


def _conj(xs: Any) -> Any:
    return tree_map(lambda x: np.conj(x) if np.iscomplexobj(x) else x, xs)


def check_vjp(f: Callable[..., Any], f_vjp: Callable[..., Any], args: Sequence[Any],
              atol: Tolerance = None, rtol: Tolerance = None, eps: float = EPS,
              err_msg: str = "") -> None:
    """Check `f_vjp(*args)` (e.g. `partial(numjax.vjp, f)`) through the cotangent projection:
    `<t, vjp(ct)> == <ct, jvp(t)>` with the jvp from finite differences.

    >>> import functools, numjax, numjax.numpy as jnp
    >>> check_vjp(jnp.tanh, functools.partial(numjax.vjp, jnp.tanh), (np.float32(0.3),))
    """
    atol = _merge_tolerance(atol, default_gradient_tolerance)
    rtol = _merge_tolerance(rtol, default_gradient_tolerance)
    args = tuple(args)
    rng = np.random.RandomState(0)
    v_out, vjp_fun = f_vjp(*args)
    v_out_expected = f(*args)
    check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
                err_msg=_message(err_msg, "primal"))
    tangents = _rand_tangents(rng, args)
    tangent_out = numerical_jvp(f, args, tangents, eps=eps)
    cotangents = _rand_cotangents(rng, v_out)
    cotangent_out = _conj(vjp_fun(_conj(cotangents)))
    ip = inner_prod(tangents, cotangent_out)
    ip_expected = inner_prod(tangent_out, cotangents)
    check_close(np.float64(ip), np.float64(ip_expected), atol=_as_real(atol, v_out),
                rtol=_as_real(rtol, v_out), err_msg=_message(err_msg, "cotangent projection"))


def _as_real(tol: Tolerance, out: Any) -> float:
    """The tolerance of the least precise inexact output, for comparing two float64 sums."""
    if not isinstance(tol, dict):
        return 0.0 if tol is None else tol
    found = [tolerance(_dtype(o), tol) for o in tree_leaves(out) if _is_inexact(o)]
    return max(found, default=0.0)


def _check_vjp_matches_jvp(f: Callable[..., Any], args: tuple[Any, ...], err_msg: str) -> None:
    """`<t, vjp(ct)> == <ct, jvp(t)>` for the automatic jvp, to rounding: both are exact
    derivatives, so they differ only by the order of floating-point operations."""
    rng = np.random.RandomState(1)
    tangents = _rand_tangents(rng, args)
    v_out, t_out = api.jvp(f, args, tangents)
    _, vjp_fun = api.vjp(f, *args)
    cotangents = _rand_cotangents(rng, v_out)
    ct_in = _conj(vjp_fun(_conj(cotangents)))
    lhs, rhs = inner_prod(tangents, ct_in), inner_prod(t_out, cotangents)
    # |t| |ct| stands for the intermediates' size when the derivative itself cancels to ~0
    # (the derivative of a constant computed as 0.5 * x / x, say).
    scale = (_abs_inner_prod(tangents, ct_in) + _abs_inner_prod(t_out, cotangents)
             + np.sqrt(inner_prod(tangents, tangents) * inner_prod(cotangents, cotangents)))
    eps = max((float(dtypes.finfo(_dtype(o)).eps) for o in tree_leaves(v_out)
               if _is_inexact(o)), default=0.0)
    # Relative to the sum of |terms|, rounding stays within a few hundred ulps for the sums a
    # jvp and a vjp do; the cap keeps 8-bit mantissas (bfloat16) meaningful.
    tol = min(100 * eps, np.sqrt(eps)) * scale
    if not abs(lhs - rhs) <= tol:
        raise AssertionError(
            f"{_message(err_msg, 'VJP does not transpose JVP')}: <t, vjp(ct)> = {lhs!r} but "
            f"<ct, jvp(t)> = {rhs!r} (tolerance {tol:.3g})")


def _restrict_to_inexact(f: Callable[..., Any], args: Sequence[Any]
                         ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """`f` as a function of its floating-point leaves only, the others held fixed: what the
    derivatives are checked with respect to."""
    leaves, tree = tree_flatten(tuple(args))
    mask = [_is_inexact(x) for x in leaves]
    if all(mask):
        return f, tuple(args)
    fixed = list(leaves)

    def g(*inexact: Any) -> Any:
        it = iter(inexact)
        full = [next(it) if m else x for x, m in zip(fixed, mask, strict=True)]
        return f(*tree_unflatten(tree, full))

    return g, tuple(x for x, m in zip(leaves, mask, strict=True) if m)


def check_grads(f: Callable[..., Any], args: Sequence[Any], order: int,
                modes: Sequence[str] = ("fwd", "rev"), atol: Tolerance = None,
                rtol: Tolerance = None, eps: float | None = None) -> None:
    """Check the derivatives of `f` at `args` to `order` against finite differences.

    Args:
      f: the function; differentiated with respect to the floating-point leaves of `args`.
      args: a tuple of arguments (pytrees of arrays or scalars).
      order: 1 checks jvp and/or vjp; 2 also jvp-of-jvp and vjp-of-vjp; and so on.
      modes: any of "fwd" (jvp) and "rev" (vjp).
      atol, rtol: a number, or a dict from dtype to number merged into JAX's defaults.
      eps: the finite-difference step (1e-4 by default).

    Raises AssertionError naming what differs ("JVP tangent", "VJP of JVP cotangent
    projection", ...).

    >>> import numjax.numpy as jnp
    >>> check_grads(lambda x, y: jnp.sin(x) * y, (np.float32(0.3), np.float32(2.0)), order=2)
    """
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"check_grads: unknown mode {mode!r}; modes are 'fwd' and 'rev'")
    step = eps or EPS

    def check(f: Callable[..., Any], args: tuple[Any, ...], order: int, err_msg: str) -> None:
        f, args = _restrict_to_inexact(f, args)
        if not args:
            return
        if "fwd" in modes:
            fwd_msg = f"JVP of {err_msg}" if err_msg else "JVP"
            check_jvp(f, lambda p, t: api.jvp(f, p, t), args, atol=atol, rtol=rtol, eps=step,
                      err_msg=fwd_msg)
            if order > 1:
                check(lambda p, t: api.jvp(f, p, t), (args, args), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, lambda *a: api.vjp(f, *a), args, atol=atol, rtol=rtol, eps=step,
                      err_msg=rev_msg)
            if order > 1:
                def f_vjp(*primals: Any) -> Any:
                    out, vjp_fun = api.vjp(f, *primals)
                    return vjp_fun(out)

                check(f_vjp, args, order - 1, rev_msg)
        if "fwd" in modes and "rev" in modes:
            _check_vjp_matches_jvp(f, args, err_msg)

    check(f, tuple(args), order, "")


def cpu_devices(n: int) -> Any:
    """A context manager under which the CPU backend has `n` devices (a test of pmap or
    sharding on several device counts in one process).

    >>> import numjax
    >>> with cpu_devices(2):
    ...     numjax.device_count()
    2
    """
    return cpu_device_count(n)

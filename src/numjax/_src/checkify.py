"""`jax.experimental.checkify` for user checks: `check` inside `checkify(f)` becomes an `Error`.

`checkify(f)` stages `f` (as jit does) with a collector on the staging trace. Each
`check(pred, msg, ...)` made on that trace records `not pred` and its formatting arguments;
afterwards they are the leaves of the `Error` returned beside `f`'s result. Because the checks
are ordinary values of that trace, `jit(checkify(f))`, `vmap(checkify(f))` and `grad` around it
work with no rules of their own; the first failing check (in program order) is the one
reported, and a batched `Error` reports each mapped index, as JAX does.

Inside `checkify`, jitted functions called by `f` are inlined (`disable_jit`), so their checks
are recorded as well. A `check` staged anywhere else (in a loop or cond body on traced values,
a vmap inside `f`, or under jit without `checkify`) raises JAX's functionalization error, where
JAX threads the error through those bodies too. Outside any trace a failing `check` raises
`JaxRuntimeError` at once. Only user checks are supported: the automatic NaN, division and
index checks raise `NotImplementedError` when requested.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import tree_util
from numjax._src.api.jit import jit
from numjax._src.config import disable_jit
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Tracer, current_trace
from numjax._src.numpy.ufuncs import logical_not
from numjax._src.runtime.array import Array


class JaxRuntimeError(ValueError):
    """A failed check, raised by `check` outside checkify or by `Error.throw()`."""


class JaxException(Exception):
    """Base of the error kinds a checkified function can report."""


class FailedCheckError(JaxException):
    """A user `check` whose predicate was False."""

    def __init__(self, fmt_string: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(fmt_string)
        self.fmt_string = fmt_string
        self.fmt_args = args
        self.fmt_kwargs = kwargs

    def __str__(self) -> str:
        return self.fmt_string.format(*self.fmt_args, **self.fmt_kwargs) + " (`check` failed)"


class NaNError(JaxException):
    """An operation produced a NaN (automatic check; not supported by numjax's checkify)."""


class OOBError(JaxException):
    """Out-of-bounds indexing (automatic check; not supported by numjax's checkify)."""


class DivisionByZeroError(JaxException):
    """Integer division by zero (automatic check; not supported by numjax's checkify)."""


class BatchedError(JaxException):
    """The errors of a vmapped checkified function, one per failing mapped index."""

    def __init__(self, error_mapping: dict[tuple[int, ...], JaxException]) -> None:
        super().__init__(error_mapping)
        self.error_mapping = error_mapping

    def __str__(self) -> str:
        return "\n".join(
            f"at mapped index {', '.join(map(str, idx))}: {e}"
            for idx, e in self.error_mapping.items()
        )


ErrorCategory = type[JaxException]
user_checks: frozenset[ErrorCategory] = frozenset({FailedCheckError})
nan_checks: frozenset[ErrorCategory] = frozenset({NaNError})
index_checks: frozenset[ErrorCategory] = frozenset({OOBError})
div_checks: frozenset[ErrorCategory] = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


@tree_util.register_pytree_node_class
class Error:
    """The checks a checkified function made: per check, whether it failed and its arguments.

    `_failed[i]` is a boolean array (scalar, or batched by vmap), `_payload[i]` the check's
    formatting arguments `(args, kwargs)`, and `_messages[i]` its format string (static).
    """

    def __init__(self, failed: tuple[Any, ...], payload: tuple[Any, ...],
                 messages: tuple[str, ...]) -> None:
        self._failed = failed
        self._payload = payload
        self._messages = messages

    def tree_flatten(self) -> tuple[tuple[Any, ...], tuple[str, ...]]:
        return (self._failed, self._payload), self._messages

    @classmethod
    def tree_unflatten(cls, messages: tuple[str, ...], children: Any) -> Error:
        failed, payload = children
        return cls(tuple(failed), tuple(payload), messages)

    def get(self) -> str | None:
        """The message of the first failed check, or None if every check passed."""
        exc = self.get_exception()
        return None if exc is None else str(exc)

    def get_exception(self) -> JaxException | None:
        """The first failed check as an exception, or None."""
        if not self._failed:
            return None
        failed = [np.asarray(f) for f in self._failed]
        shape = np.broadcast_shapes(*(f.shape for f in failed))
        if not shape:
            return self._exception_at(failed, ())
        mapping: dict[tuple[int, ...], JaxException] = {}
        for idx in np.ndindex(*shape):
            exc = self._exception_at([np.broadcast_to(f, shape) for f in failed], idx)
            if exc is not None:
                mapping[idx] = exc
        return BatchedError(mapping) if mapping else None

    def _exception_at(self, failed: list[np.ndarray], idx: tuple[int, ...]) -> JaxException | None:
        for flag, payload, message in zip(failed, self._payload, self._messages, strict=True):
            if flag[idx]:
                args, kwargs = tree_util.tree_map(lambda x: _index(x, idx), payload)
                return FailedCheckError(message, *args, **kwargs)
        return None

    def throw(self) -> None:
        """Raise `JaxRuntimeError` if a check failed."""
        check_error(self)

    def __str__(self) -> str:
        return f"Error({self.get()})"

    __repr__ = __str__


def _index(x: Any, idx: tuple[int, ...]) -> Any:
    # Formatting arguments are batched like the predicates when the Error is. They stay
    # Arrays, so a message formats them as JAX's does (`Array([-1.,  2.], dtype=float32)`
    # inside a container's repr).
    return x[idx] if idx and np.ndim(x) >= len(idx) else x


functionalization_error_text = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`."
)


class _Collector:
    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.failed: list[Any] = []
        self.payload: list[Any] = []
        self.messages: list[str] = []


class _Collectors(threading.local):
    def __init__(self) -> None:
        self.stack: list[_Collector] = []


_collectors = _Collectors()


def _is_scalar_pred(pred: Any) -> bool:
    if isinstance(pred, bool):
        return True
    if isinstance(pred, (Array, Tracer)):
        aval = get_aval(pred)
        return aval.shape == () and aval.dtype == np.dtype(bool)
    return False


def check(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
    """Record a failed check if `pred` is False (inside `checkify`), else raise on failure.

    >>> import numjax.numpy as jnp
    >>> from numjax.experimental import checkify
    >>> def f(x):
    ...     checkify.check(x > 0, "{x} needs to be positive!", x=x)
    ...     return 1 / x
    >>> err, out = checkify.checkify(f)(jnp.float32(-3.0))
    >>> err.get()
    '-3.0 needs to be positive! (`check` failed)'
    """
    if not _is_scalar_pred(pred):
        raise TypeError(f"check takes a scalar pred as argument, got {pred}")
    for arg in tree_util.tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (Array, Tracer, np.ndarray)):
            raise TypeError(
                "Formatting arguments to checkify.check need to be PyTrees of arrays, but got "
                f"{arg!r} of type {type(arg)}."
            )
    _add_error(logical_not(pred), (fmt_args, fmt_kwargs), msg)


def _add_error(failed: Any, payload: Any, message: str) -> None:
    collector = _collectors.stack[-1] if _collectors.stack else None
    if collector is not None and collector.trace is current_trace():
        collector.failed.append(failed)
        collector.payload.append(payload)
        collector.messages.append(message)
        return
    if any(isinstance(x, Tracer) for x in tree_util.tree_leaves((failed, payload))):
        raise ValueError(functionalization_error_text)
    error = Error((failed,), (payload,), (message,))
    exc = error.get_exception()
    if exc is not None:
        raise JaxRuntimeError(str(exc)) from exc


def check_error(error: Error) -> None:
    """Raise `JaxRuntimeError` if `error` holds a failed check; recorded again inside checkify.

    >>> from numjax.experimental import checkify
    >>> checkify.check_error(checkify.checkify(lambda: None)()[0])
    """
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error as argument, got type {type(error)} instead.")
    for failed, payload, message in zip(
        error._failed, error._payload, error._messages, strict=True
    ):
        _add_error(failed, payload, message)


def checkify(
    f: Callable[..., Any], errors: frozenset[ErrorCategory] = user_checks
) -> Callable[..., tuple[Error, Any]]:
    """`f` returning `(Error, result)`: its failed `check`s become a value instead of raising.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax.experimental import checkify
    >>> def f(x):
    ...     checkify.check(x < 1, "too big")
    ...     return x
    >>> err, _ = numjax.jit(checkify.checkify(f))(jnp.float32(2.0))
    >>> err.get()
    'too big (`check` failed)'
    """
    unsupported = set(errors) - set(user_checks)
    if unsupported:
        names = sorted(c.__name__ for c in unsupported)
        raise NotImplementedError(
            f"checkify: automatic checks {names} are not supported by numjax; only user_checks."
        )

    # `updated=()`: `f` may itself be a jitted function, whose attributes must not be copied.
    @functools.wraps(f, updated=())
    def traced(*args: Any, **kwargs: Any) -> tuple[Error, Any]:
        collector = _Collector(current_trace())
        _collectors.stack.append(collector)
        try:
            # Jitted functions and loops called by `f` are inlined into this trace, so the
            # checks inside them are recorded too (JAX threads the error through their jaxprs).
            with disable_jit(True):
                out = f(*args, **kwargs)
        finally:
            _collectors.stack.pop()
        error = Error(tuple(collector.failed), tuple(collector.payload),
                      tuple(collector.messages))
        return error, out

    # As in JAX, `f` is always traced (its checks see tracers, never concrete values), here by
    # staging it as one program.
    return jit(traced)

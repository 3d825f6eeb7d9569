"""JAX's error classes, with messages that point at the user's function and line."""

from __future__ import annotations

import os
import sys

_URL = "https://jax.readthedocs.io/en/latest/errors.html#jax.errors."


class JAXTypeError(TypeError):
    """Base of numjax's TypeErrors; each message ends with a link to JAX's error page."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}\nSee {_URL}{type(self).__name__}")


class JAXIndexError(IndexError):
    def __init__(self, message: str) -> None:
        super().__init__(f"{message}\nSee {_URL}{type(self).__name__}")


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needed a concrete one.

    >>> import numjax, numjax.numpy as jnp
    >>> try:
    ...     numjax.jit(lambda x: int(x))(1)
    ... except numjax.errors.ConcretizationTypeError:
    ...     print("raised")
    raised
    """

    def __init__(self, tracer: object, context: str = "") -> None:
        aval = getattr(tracer, "aval", None)
        desc = f"traced array with shape {aval.str_short()}" if aval is not None else str(tracer)
        origin = _origin(tracer).lstrip("\n")
        # A context ends its line for the origin that follows; without one (a JVP tracer's)
        # one newline ends the message, as in JAX.
        body = context + origin if origin else context.rstrip("\n")
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: {desc}.\n"
            f"{body}\n"
        )


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer: object) -> None:
        JAXTypeError.__init__(
            self,
            f"Attempted boolean conversion of {_describe(tracer)}.{_origin(tracer)}",
        )


class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer: object) -> None:
        super().__init__(
            f"The __index__() method was called on {_describe(tracer)}{_origin(tracer)}"
        )


class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer: object) -> None:
        super().__init__(
            "The numpy.ndarray conversion method __array__() was called on "
            f"{_describe(tracer)}{_origin(tracer)}"
        )


class UnexpectedTracerError(JAXTypeError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    def __init__(self, tracer: object) -> None:
        super().__init__(
            "Array boolean indices must be concrete; got "
            f"{getattr(tracer, 'aval', tracer)}\n"
        )


class KeyReuseError(RuntimeError):
    pass


class XlaRuntimeError(RuntimeError):
    """An error raised by the runtime (a refused transfer, a failed computation); JAX raises
    jaxlib's `XlaRuntimeError` in the same places, a `RuntimeError` too. The message starts
    with a status name, e.g. ``INVALID_ARGUMENT: ...``."""


def _describe(tracer: object) -> str:
    aval = getattr(tracer, "aval", None)
    if aval is None:
        return repr(tracer)
    return f"traced array with shape {aval.str_short()}."


def _origin(tracer: object) -> str:
    describe = getattr(tracer, "_origin_msg", None)
    return describe() if describe is not None else ""


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def user_source_line() -> str | None:
    """`file:line (function)` of the innermost frame outside numjax, for equations and errors."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            return f"{filename}:{frame.f_lineno} ({frame.f_code.co_name})"
        frame = frame.f_back  # type: ignore[assignment]
    return None

"""Tracebacks without numjax's internal frames.

An exception raised below a public entry point (a jitted function's call, `grad`, `vmap`,
`lax.scan`, ...) unwinds through many frames of tracing, transformation and compilation
machinery that say nothing about the user's program. The outermost such entry point (an *API
boundary*) rewrites the exception's traceback to keep only frames outside numjax's machinery,
following the `jax_traceback_filtering` option:

- ``"auto"`` (default): ``"tracebackhide"`` under IPython, ``"quiet_remove_frames"`` otherwise;
- ``"quiet_remove_frames"``: drop the internal frames and add a note saying so;
- ``"remove_frames"``: drop them and chain the unfiltered traceback as the exception's cause
  (an `UnfilteredStackTrace`);
- ``"tracebackhide"``: keep every frame, marking the internal ones ``__tracebackhide__`` for
  IPython's printer;
- ``"off"``: leave the traceback alone.

What counts as internal: the tracing core, the transformations, the compiler and runtime, the
`lax` primitives, control flow, the API layer and the generated code of compiled programs. The
`numpy`, `nn`, `random` and `scipy` layers stay visible: the frame of the `jnp` function that
rejected an argument is part of the story.

>>> import numjax, numjax.numpy as jnp
>>> try:
...     numjax.jit(lambda x: jnp.dot(x, jnp.ones(3)))(jnp.ones(2))
... except TypeError as e:
...     print(e.__notes__[0].splitlines()[1].split(". ")[0])
numjax removed its internal frames from the traceback of this exception
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any, TypeVar

from numjax._src import config

F = TypeVar("F", bound=Callable[..., Any])

_SRC = os.path.dirname(os.path.abspath(__file__))
_INTERNAL_DIRS = ("api", "compiler", "control_flow", "core", "interpreters", "lax", "runtime")
_INTERNAL_FILES = ("config.py", "dtypes.py", "ops.py", "traceback_util.py", "tree_util.py",
                   "xla_bridge.py")
_exclusions: list[str] = ([os.path.join(_SRC, d) + os.sep for d in _INTERNAL_DIRS]
                          + [os.path.join(_SRC, f) for f in _INTERNAL_FILES])
# Generated code of compiled programs is named "<numjax jit NAME #N>" (see compiler/codegen.py).
_GENERATED_PREFIX = "<numjax "
_prefixes: tuple[str, ...] = (*_exclusions, _GENERATED_PREFIX)

# Code objects of the API boundaries: an exception is filtered by the outermost one only.
_boundary_codes: set[types.CodeType] = set()

NOTE = ("--------------------\n"
        "numjax removed its internal frames from the traceback of this exception. Set "
        "JAX_TRACEBACK_FILTERING=off (or numjax.config.update('jax_traceback_filtering', "
        "'off')) to see every frame.")


class SimplifiedTraceback(Exception):
    """Kept for compatibility with JAX's `jax.errors.SimplifiedTraceback` (the notice older
    Pythons chained as a cause); numjax adds a note to the exception instead."""

    def __str__(self) -> str:
        return NOTE.split("\n", 1)[1]


SimplifiedTraceback.__module__ = "numjax.errors"


class UnfilteredStackTrace(Exception):
    """The cause chained by ``jax_traceback_filtering="remove_frames"``: the original exception
    with every frame, from the top of the program down to the failure."""


def register_exclusion(path: str) -> None:
    """Treat frames from files under `path` as internal (for libraries built on numjax)."""
    global _prefixes
    _exclusions.append(os.path.abspath(path))
    _prefixes = (*_exclusions, _GENERATED_PREFIX)


def include_frame(frame: types.FrameType) -> bool:
    """Whether a frame belongs in a filtered traceback."""
    return not frame.f_code.co_filename.startswith(_prefixes)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The chain `tb` with the internal frames left out."""
    kept = [(f, lasti, lineno) for f, lasti, lineno in _walk(tb) if include_frame(f)]
    out = None
    for frame, lasti, lineno in reversed(kept):
        out = types.TracebackType(out, frame, lasti, lineno)
    return out


def _walk(tb: types.TracebackType | None) -> list[tuple[types.FrameType, int, int]]:
    entries = []
    while tb is not None:
        entries.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    return entries


def _with_callers(tb: types.TracebackType) -> types.TracebackType:
    """`tb` extended upwards with the frames that called its first one, up to the outermost
    run of module-level frames (so an interactive shell's own frames stay out)."""
    out = tb
    reached_module = False
    frame = tb.tb_frame.f_back
    while frame is not None:
        is_module = frame.f_code.co_name == "<module>"
        if reached_module and not is_module:
            break
        if "importlib._bootstrap" not in frame.f_code.co_filename:
            out = types.TracebackType(out, frame, frame.f_lasti, frame.f_lineno)
        reached_module = reached_module or is_module
        frame = frame.f_back
    return out


def _under_boundary(frame: types.FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code in _boundary_codes:
            return True
        frame = frame.f_back
    return False


def _under_ipython() -> bool:
    shell = getattr(sys.modules.get("IPython"), "get_ipython", None)
    if shell is None or shell() is None:
        return False
    version = getattr(sys.modules["IPython"], "version_info", (0, 0))
    return tuple(version[:2]) >= (7, 17)


def _mode() -> str:
    mode: str = config.traceback_filtering.value
    if mode == "auto":
        return "tracebackhide" if _under_ipython() else "quiet_remove_frames"
    return mode


def simplify(exc: BaseException, boundary_frame: types.FrameType | None) -> None:
    """Rewrite `exc`'s traceback as the option says, unless an outer API boundary (a caller of
    `boundary_frame`) will. The caller re-raises `exc`."""
    if _under_boundary(boundary_frame.f_back if boundary_frame is not None else None):
        return
    mode = _mode()
    if mode == "off":
        return
    tb = exc.__traceback__
    if mode == "tracebackhide":
        for frame, _, _ in _walk(tb):
            if not include_frame(frame):
                frame.f_locals["__tracebackhide__"] = True
        return
    exc.__traceback__ = filter_traceback(tb)
    if mode == "quiet_remove_frames":
        if NOTE not in getattr(exc, "__notes__", ()):
            exc.add_note(NOTE)
        return
    # remove_frames: the full story stays reachable as the cause.
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    unfiltered = UnfilteredStackTrace(
        f"{text}\n\nThis is the original exception with every frame; the traceback of the "
        "exception it caused leaves numjax's internal frames out.\n\n--------------------")
    if tb is not None:
        unfiltered.__traceback__ = _with_callers(tb)
    unfiltered.__cause__ = exc.__cause__
    unfiltered.__context__ = exc.__context__
    unfiltered.__suppress_context__ = exc.__suppress_context__
    exc.__cause__ = unfiltered
    exc.__context__ = None


def api_boundary(fun: F) -> F:
    """Mark `fun` as a public entry point: exceptions leaving it have their tracebacks
    simplified (see the module docstring)."""

    @functools.wraps(fun)
    def api_boundary_call(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            return fun(*args, **kwargs)
        except Exception as exc:
            simplify(exc, sys._getframe())
            raise

    return api_boundary_call  # type: ignore[return-value]


# Every wrapper `api_boundary` makes shares this code object.
WRAPPER_CODE = api_boundary(lambda: None).__code__
_boundary_codes.add(WRAPPER_CODE)


def boundary_method(fun: F) -> F:
    """Register a function that calls `simplify` itself (a hot path that can't afford a
    wrapper's extra call) as an API boundary."""
    _boundary_codes.add(fun.__code__)
    return fun

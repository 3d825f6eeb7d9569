"""`jax.checking_leaks()` / `jax_check_tracer_leaks`: when a transformation ends, none of its
tracers may still be reachable from outside it (a tracer stored in a global or a closed-over
list). A leak raises JAX's `Exception: Leaked trace MainTrace(level,TraceName). Leaked
tracer(s): ...`, each tracer followed by the chain of objects keeping it alive.

Traces report their end (`note_finished`, from `trace.new_trace`); the functions that run a
transformation (`trace_to_jaxpr`, `jvp_flat`, `vmap_flat`, ...) are wrapped in `checked`, which
inspects the traces that ended during the call once the call has returned, when no frame of the
transformation holds a tracer any more. Nothing runs while the option is off beyond one flag
test per finished trace.
"""

from __future__ import annotations

import functools
import gc
import inspect
import os
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from numjax._src import config

F = TypeVar("F", bound=Callable[..., Any])

# Set once the option has been on (globally or in some thread's context): until then finished
# traces are not even looked at.
_ever_enabled = bool(config.check_tracer_leaks.value)


def _note_use(value: Any) -> None:
    global _ever_enabled
    _ever_enabled = _ever_enabled or bool(value)


config.check_tracer_leaks._on_use = _note_use


class _State(threading.local):
    def __init__(self) -> None:
        self.finished: list[weakref.ref[Any]] = []


_state = _State()


def note_finished(trace: Any) -> None:
    """Record that `trace` has ended, to be checked when the enclosing `checked` call ends."""
    if _ever_enabled and config.check_tracer_leaks.value:
        _state.finished.append(weakref.ref(trace))


def checked(fun: F) -> F:
    """Wrap a function that runs a transformation: with leak checking on, the traces that end
    during a call are checked once it has returned."""

    @functools.wraps(fun)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _ever_enabled:
            return fun(*args, **kwargs)
        mark = len(_state.finished)
        site = _user_position(sys._getframe(1))
        try:
            out = fun(*args, **kwargs)
        finally:
            finished = _state.finished[mark:]
            del _state.finished[mark:]
        for ref in finished:
            _check(ref, site)
        return out

    return wrapper  # type: ignore[return-value]


def _check(ref: weakref.ref[Any], site: str | None) -> None:
    from numjax._src.core.trace import Tracer, tracer_type_name

    gc.collect()  # tracers kept alive only by reference cycles cannot reach user code
    trace = ref()
    if trace is None:
        return
    # Only tracers user code can still reach have leaked: numjax itself keeps some (a custom
    # derivative's rule closing over its operands, held by a staged equation or a compile
    # cache), as JAX's own structures never do.
    candidates = [r for r in gc.get_referrers(trace)
                  if isinstance(r, Tracer) and r._trace is trace]
    reachable = _reachable_from_user_code({id(t) for t in candidates})
    leaked = [t for t in candidates if id(t) in reachable]
    del candidates
    if not leaked:
        return
    ignore = {id(leaked), id(reachable)}
    messages = []
    for t in leaked:
        origin = _origin(t, tracer_type_name(t), site)
        messages.append(f"{t}{origin}{_why_alive(t, ignore, tracer_type_name)}")
    name = trace.display_name or type(trace).__name__
    text = "\n\n".join(messages)
    raise Exception(f"Leaked trace MainTrace({trace.level},{name}). Leaked tracer(s):\n\n"
                    f"{text}\n")


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _reachable_from_user_code(targets: set[int]) -> set[int]:
    """The ids in `targets` reachable from user code: the locals and globals of the user frames
    on the stack and the main module, through anything but modules, classes and numjax's own
    objects (caches, staged programs)."""
    roots: list[Any] = []
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
            roots += [frame.f_locals, frame.f_globals]
        frame = frame.f_back
    main = sys.modules.get("__main__")
    if main is not None:
        roots.append(vars(main))
    seen: set[int] = set()
    found: set[int] = set()
    stack = roots
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if id(obj) in targets:
            found.add(id(obj))
            continue
        if isinstance(obj, types.ModuleType | type | types.FrameType) or _numjax_object(obj):
            continue
        stack.extend(gc.get_referents(obj))
    return found


def _numjax_object(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) if isinstance(obj, types.FunctionType) \
        else getattr(type(obj), "__module__", None)
    return isinstance(module, str) and module.startswith("numjax.")


def _origin(tracer: Any, kind: str, site: str | None) -> str:
    """Where the leaked tracer was made, as JAX says it: a staged value at its equation's
    source line, an argument (or a batched value) at the user line that started the
    transformation; forward-mode tracers say nothing."""
    where = tracer._creation_site() or site
    if where is None:
        return ""
    if kind == "DynamicJaxprTracer":
        return f"\nThis DynamicJaxprTracer was created on line {where}"
    if kind == "BatchTracer":
        return f"\nThis BatchTracer with object id {id(tracer)} was created on line:\n  {where}"
    return ""


def _user_position(frame: types.FrameType | None) -> str | None:
    """`file:line:column (function)` of the innermost frame outside numjax (0-based column
    of the expression running there)."""
    while frame is not None:
        code = frame.f_code
        if not os.path.abspath(code.co_filename).startswith(_PACKAGE_DIR):
            positions = list(code.co_positions())
            i = frame.f_lasti // 2
            line, col = frame.f_lineno, positions[i][2] if i < len(positions) else None
            where = f"{line}" if col is None else f"{line}:{col}"
            return f"{code.co_filename}:{where} ({code.co_qualname})"
        frame = frame.f_back
    return None


def _why_alive(x: Any, ignore: set[int], tracer_name: Callable[[Any], str]) -> str:
    """One chain of referrers from `x` up to a module, a class instance or a closure, each
    step as JAX prints it ("<list 1407...> is referred to by <function 1407...> (f) closed-over
    variable lst")."""

    def parent_of(obj: Any) -> Any:
        # No list of referrers may outlive this call: it would itself refer to the parent.
        for r in gc.get_referrers(obj):
            if id(r) not in ignore and not isinstance(r, types.FrameType):
                return r
        return None

    from numjax._src.core.trace import Tracer
    lines: list[str] = []
    seen: set[int] = set()
    child = x
    while id(child) not in seen and type(child) is not types.ModuleType:
        parent = parent_of(child)
        if parent is None:
            break
        # An instance's __dict__ and a closure's cell are one step to their owner.
        if isinstance(parent, dict):
            owner = parent_of(parent)
            if owner is not None and getattr(owner, "__dict__", None) is parent:
                parent = owner
        elif type(parent) is types.CellType:
            cells = parent_of(parent)
            function = parent_of(cells) if cells is not None else None
            if function is not None:
                parent = function
        kind = tracer_name(child) if isinstance(child, Tracer) else type(child).__name__
        lines.append(f"<{kind} {id(child)}> is referred to by {_describe(parent, id(child))}")
        seen.add(id(child))
        child = parent
    return "\n" + "\n".join(lines) if lines else ""


def _describe(container: Any, child_id: int) -> str:
    name = f"<{type(container).__name__} {id(container)}>"
    if isinstance(container, types.ModuleType):
        return str(getattr(container, "__name__", name))
    if isinstance(container, types.FunctionType):
        closure = inspect.getclosurevars(container)
        found = [k for k, v in {**closure.nonlocals, **closure.globals}.items()
                 if id(v) == child_id]
        if len(found) == 1:
            return f"{name} ({container.__name__}) closed-over variable {found[0]}"
        if found:
            return f"{name} in closed-over variables " + ", ".join(map(repr, found))
    if hasattr(container, "__dict__") and not isinstance(container, type):
        found = [k for k, v in vars(container).items() if id(v) == child_id]
        if len(found) == 1:
            return f"{name}.{found[0]}"
        if found:
            return f"{name} in vars " + ", ".join(map(repr, found))
    if isinstance(container, list | tuple):
        positions = [i for i, v in enumerate(container) if id(v) == child_id]
        if len(positions) == 1:
            return f"{name}[{positions[0]}]"
        return f"{name} at indices " + ", ".join(map(str, positions))
    if isinstance(container, dict):
        keys = [k for k, v in container.items() if id(v) == child_id]
        if len(keys) == 1:
            return f"{name}[{keys[0]!r}]"
        return f"{name} at keys " + ", ".join(map(repr, keys))
    return name

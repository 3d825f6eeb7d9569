"""`core.new_main(trace_type)`: a library's own transformation, written to JAX's level-based
trace protocol (haiku's `to_dot` builds a graph of a function's operations this way).

The library subclasses `core.Trace` and `core.Tracer`, enters `new_main(MyTrace)`, builds
`MyTrace(main, core.cur_sublevel())` and wraps its inputs in its tracers; it defines
`process_primitive(primitive, tracers, params)` (and `pure`/`lift` for `full_raise`).
numjax finds the current trace by its thread's stack, not by levels: `new_main` makes a
`LibraryTrace` current, which hands an operation reading the library's tracers to the
library's trace (their `main` is the LibraryTrace) and any other to the enclosing trace, as
JAX's level comparison does. The library's `process_primitive` binds on the tracers' values,
which carry no tracer of its own and so go on to the enclosing trace.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from numjax._src.core.trace import Primitive, Trace, Tracer, current_trace, new_trace


class LibraryTrace(Trace):
    """The trace `new_main` makes current: the `main` of a library's traces."""

    __slots__ = ("trace_type",)
    hosts_library_traces = True

    def __init__(self, parent: Trace, trace_type: type) -> None:
        super().__init__(parent)
        self.trace_type = trace_type

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        trace = next((x._trace for x in args
                      if isinstance(x, Tracer) and x._trace.main is self), None)
        if trace is None:
            assert self.parent is not None
            return self.parent.process_primitive(primitive, args, params)
        return trace.process_primitive(primitive, [trace.full_raise(x) for x in args], params)

    def __repr__(self) -> str:
        return f"MainTrace({self.level},{self.trace_type.__name__})"


@contextlib.contextmanager
def new_main(trace_type: type, dynamic: bool = False, **payload: Any) -> Iterator[Trace]:
    """JAX's `core.new_main`: the main trace a library's `trace_type` traces are built on,
    current for the block.

    >>> import numjax
    >>> from numjax import core
    >>> class Printing(core.Trace):
    ...     def pure(self, x): return Boxed(self, x)
    ...     lift = pure
    ...     def process_primitive(self, p, tracers, params):
    ...         print(p)
    ...         return Boxed(self, p.bind(*[t.val for t in tracers], **params))
    >>> class Boxed(core.Tracer):
    ...     def __init__(self, trace, val):
    ...         super().__init__(trace)
    ...         self.val = val
    ...     aval = property(lambda self: core.get_aval(self.val))
    >>> with core.new_main(Printing) as main:
    ...     trace = Printing(main, core.cur_sublevel())
    ...     out = numjax.numpy.sin(Boxed(trace, 1.0)) * 2.0
    sin
    mul
    >>> round(float(out.val), 4)
    1.6829
    """
    del dynamic, payload  # numjax's stack has no separate dynamic trace for a library's
    with new_trace(LibraryTrace(current_trace(), trace_type)) as main:
        yield main

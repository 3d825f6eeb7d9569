"""Profiler traces: what the program did, and when, as a timeline.

While a trace runs (`trace(log_dir)`, or `start_trace` ... `stop_trace`), every Python
function call and every call into a C function (NumPy's kernels, BLAS products) on the traced
threads is recorded with its start and duration, and so are the user's `TraceAnnotation`,
`StepTraceAnnotation` and `annotate_function` spans. numjax's tracing, lowering and compiling
show up as its own functions; a compiled program's execution shows up as its generated
function (named after the jitted function, in file ``<numjax jit NAME #N>``) with the NumPy
calls it makes below it.

`stop_trace` writes the timeline in the Chrome trace-event format, gzip-compressed, where
TensorBoard's profile plugin looks for it:
``log_dir/plugins/profile/YYYY_MM_DD_HH_MM_SS/HOST.trace.json.gz`` (and, on request, a copy
without metadata for https://ui.perfetto.dev, ``perfetto_trace.json.gz``).

Threads: the thread that started the trace and threads started while it runs are traced;
threads already running (a device's dispatch stream) are not, so a program dispatched
asynchronously shows as its dispatch, not its execution (use `block_until_ready` inside an
annotation to see the wait).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

logger = logging.getLogger(__name__)

_PERFETTO_PORT = 9001


class _Session:
    """The events of one trace. Each traced thread keeps a stack of open calls; a call's
    event is recorded when it returns (calls still open at the end are dropped)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.origin = time.perf_counter_ns()
        self.pid = os.getpid()
        self.threads: dict[int, str] = {}
        self._stacks: dict[int, list[tuple[str, dict[str, Any] | None, int]]] = {}
        self._own_code = {_Session.profile.__code__, stop_trace.__code__, start_trace.__code__}

    def now_us(self) -> float:
        return (time.perf_counter_ns() - self.origin) / 1000.0

    def _stack(self) -> list[tuple[str, dict[str, Any] | None, int]]:
        tid = threading.get_ident()
        stack = self._stacks.get(tid)
        if stack is None:
            stack = self._stacks[tid] = []
            self.threads[tid] = threading.current_thread().name
        return stack

    def profile(self, frame: Any, event: str, arg: Any) -> None:
        """The `sys.setprofile` hook."""
        t = time.perf_counter_ns()
        if _state.session is not self:
            # The trace was stopped from another thread: this thread unhooks itself.
            sys.setprofile(None)
            return
        if event == "call":
            code = frame.f_code
            if code in self._own_code:
                return
            filename = code.co_filename
            # A compiled program's generated function is named after the jitted function.
            name = filename[1:-1] if filename.startswith("<numjax jit ") else code.co_qualname
            self._stack().append((name, {"file": filename, "line": code.co_firstlineno}, t))
        elif event == "c_call":
            self._stack().append((_c_name(arg), None, t))
        elif event in ("return", "c_return", "c_exception"):
            if event == "return" and frame.f_code in self._own_code:
                return
            stack = self._stacks.get(threading.get_ident())
            if stack:
                name, args, start = stack.pop()
                self._record(name, start, t, args, "python" if args else "c")

    def _record(self, name: str, start_ns: int, end_ns: int, args: dict[str, Any] | None,
                category: str) -> None:
        event = {"name": name, "cat": category, "ph": "X", "pid": self.pid,
                 "tid": threading.get_ident(), "ts": (start_ns - self.origin) / 1000.0,
                 "dur": (end_ns - start_ns) / 1000.0}
        if args:
            event["args"] = args
        self.events.append(event)

    def annotation(self, name: str, start_ns: int, end_ns: int, args: dict[str, Any]) -> None:
        self._stack()  # names the thread
        self._record(name, start_ns, end_ns, {k: str(v) for k, v in args.items()} or None,
                     "annotation")

    def trace_json(self) -> dict[str, Any]:
        import socket

        names = [{"name": "process_name", "ph": "M", "pid": self.pid, "tid": 0,
                  "args": {"name": f"/host:CPU (numjax, pid {self.pid})"}}]
        names += [{"name": "thread_name", "ph": "M", "pid": self.pid, "tid": tid,
                   "args": {"name": name}} for tid, name in self.threads.items()]
        return {"displayTimeUnit": "ns",
                "metadata": {"producer": "numjax.profiler", "host": socket.gethostname(),
                             "clock": "perf_counter", "start_unix_time": time.time()
                             - self.now_us() / 1e6},
                "traceEvents": names + sorted(self.events, key=lambda e: e["ts"])}


def _c_name(fn: Any) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if owner is not None and type(owner).__name__ == "ufunc":
        return f"ufunc.{name} ({owner.__name__})"
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


class _ProfileState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.session: _Session | None = None
        self.log_dir: str | None = None
        self.create_perfetto_link = False
        self.create_perfetto_trace = False


_state = _ProfileState()


def start_trace(log_dir: str | os.PathLike[str], create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False) -> None:
    """Start recording a trace, to be written to `log_dir` by `stop_trace`. Only one trace
    runs at a time.

    >>> import tempfile, numjax
    >>> numjax.profiler.start_trace(tempfile.mkdtemp())
    >>> numjax.profiler.start_trace(tempfile.mkdtemp())
    Traceback (most recent call last):
    RuntimeError: Profile has already been started. Only one profile may be run at a time.
    >>> numjax.profiler.stop_trace()
    """
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be run "
                               "at a time.")
        _state.session = session = _Session()
        _state.log_dir = os.fspath(log_dir)
        _state.create_perfetto_link = create_perfetto_link
        _state.create_perfetto_trace = create_perfetto_trace or create_perfetto_link
        threading.setprofile(session.profile)
        sys.setprofile(session.profile)


def stop_trace() -> None:
    """Stop the running trace and write it under the `log_dir` given to `start_trace`."""
    with _state.lock:
        session = _state.session
        if session is None:
            raise RuntimeError("No profile started")
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        assert _state.log_dir is not None
        folder = _export(session, _state.log_dir)
        perfetto = _state.create_perfetto_trace
        link = _state.create_perfetto_link
        _state.session, _state.log_dir = None, None
        _state.create_perfetto_link = _state.create_perfetto_trace = False
    if perfetto:
        path = _write_perfetto_trace(session, folder)
        if link:
            _serve_to_perfetto(path)


def _export(session: _Session, log_dir: str) -> str:
    import gzip
    import json
    import socket

    stamp = time.strftime("%Y_%m_%d_%H_%M_%S")
    folder = os.path.join(os.path.abspath(log_dir), "plugins", "profile", stamp)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{socket.gethostname()}.trace.json.gz")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(session.trace_json(), f)
    logger.info("Wrote a profiler trace of %d events to %s", len(session.events), path)
    return folder


def _write_perfetto_trace(session: _Session, folder: str) -> str:
    import gzip
    import json

    trace = session.trace_json()
    del trace["metadata"]
    path = os.path.join(folder, "perfetto_trace.json.gz")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(trace, f)
    return path


def _serve_to_perfetto(path: str) -> None:
    """Serve the trace file to the Perfetto UI and print the link that opens it; returns once
    the UI has fetched it."""
    import http.server
    import socketserver

    directory, filename = os.path.split(path)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=directory, **kwargs)

        def end_headers(self) -> None:
            self.send_header("Access-Control-Allow-Origin", "*")
            super().end_headers()

        def do_GET(self) -> None:
            self.server.last_request = self.path  # type: ignore[attr-defined]
            super().do_GET()

        def log_message(self, format: str, *args: Any) -> None:
            logger.info(format, *args)

    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", _PERFETTO_PORT), Handler) as server:
        print("Open URL in browser: https://ui.perfetto.dev/#!/?url="
              f"http://127.0.0.1:{_PERFETTO_PORT}/{filename}", flush=True)
        while getattr(server, "last_request", None) != "/" + filename:
            server.handle_request()


@contextmanager
def trace(log_dir: str | os.PathLike[str], create_perfetto_link: bool = False,
          create_perfetto_trace: bool = False) -> Iterator[None]:
    """Record a trace of the enclosed code and write it to `log_dir`.

    >>> import tempfile, numjax, numjax.numpy as jnp
    >>> with numjax.profiler.trace(tempfile.mkdtemp()):
    ...     _ = numjax.jit(lambda x: x * 2)(jnp.ones(3)).block_until_ready()
    """
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A named span on the trace timeline (with `kwargs` as its arguments) covering the
    enclosed code, when a trace is running; nothing otherwise.

    >>> import numjax
    >>> with numjax.profiler.TraceAnnotation("my_label", size=3):
    ...     pass
    """

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name = name
        self.kwargs = kwargs
        self._start: int | None = None

    def __enter__(self) -> TraceAnnotation:
        self._start = time.perf_counter_ns() if _state.session is not None else None
        return self

    def __exit__(self, *exc: Any) -> None:
        session = _state.session
        if self._start is not None and session is not None:
            session.annotation(self._display_name(), self._start, time.perf_counter_ns(),
                               self.kwargs)

    def _display_name(self) -> str:
        return self.name


class StepTraceAnnotation(TraceAnnotation):
    """A training-step span: `StepTraceAnnotation("train", step_num=i)` shows as "train i".

    >>> import numjax
    >>> with numjax.profiler.StepTraceAnnotation("train", step_num=0):
    ...     pass
    """

    def _display_name(self) -> str:
        step = self.kwargs.get("step_num")
        return self.name if step is None else f"{self.name} {step}"


def annotate_function(func: Callable[..., Any], name: str | None = None,
                      **decorator_kwargs: Any) -> Callable[..., Any]:
    """Decorate `func` so each call is a span (named `name`, default its qualified name).

    >>> import numjax
    >>> @numjax.profiler.annotate_function
    ... def step(x):
    ...     return x + 1
    >>> step(1)
    2
    """
    label = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def annotated(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return annotated


_UNSUPPORTED = ("numjax has no profiler server: TensorBoard's remote capture talks to XLA's "
                "profiler service. Record a trace from the program instead, with "
                "numjax.profiler.trace(log_dir) or start_trace/stop_trace; TensorBoard and "
                "https://ui.perfetto.dev open the file it writes.")


def start_server(port: int) -> None:
    """Not available: see `trace` for recording a trace from the program itself."""
    raise NotImplementedError(f"numjax.profiler.start_server({port}): {_UNSUPPORTED}")


def stop_server() -> None:
    """Not available (no server can be started)."""
    raise ValueError("No active profiler server.")


def device_memory_profile(backend: str | None = None) -> bytes:
    """Not available: numjax does not record where each buffer was allocated."""
    raise NotImplementedError(
        "numjax.profiler.device_memory_profile: numjax does not record the allocation sites a "
        "pprof memory profile is made of. The bytes a computation needs are in "
        "jit(f).lower(...).compile().memory_analysis().")


def save_device_memory_profile(filename: str | os.PathLike[str],
                               backend: str | None = None) -> None:
    """Not available: see `device_memory_profile`."""
    device_memory_profile(backend)

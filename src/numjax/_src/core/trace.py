"""Primitives, traces and tracers: the single interception point of every transformation.

Tracing is stackless. The current trace lives in a thread-local; `Primitive.bind` hands the
primitive to it. A trace holds its parent; its rules run with the parent as the current trace,
so the values it passes down are the parent's. A value belongs to a trace iff it is that trace's
tracer; anything else is a constant to that trace. A trace is *live* while its transformation
runs; a tracer of a dead trace reaching a primitive is a leak (`UnexpectedTracerError`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes
from numjax._src.core import errors, leaks
from numjax._src.core.avals import aval_handlers, eager_operand_error, get_aval


class DebugInfo:
    """What error messages say about a traced function: its name, source line and arguments."""

    __slots__ = ("traced_for", "func_src_info", "arg_names")

    def __init__(self, traced_for: str, func_src_info: str, arg_names: tuple[str, ...]) -> None:
        self.traced_for = traced_for
        self.func_src_info = func_src_info
        self.arg_names = arg_names


def fun_source_info(fun: Callable[..., Any]) -> str:
    """`f at /path/file.py:12` for a Python function, its repr's name otherwise."""
    while hasattr(fun, "func"):  # functools.partial
        fun = fun.func
    inner = getattr(fun, "__wrapped__", None)
    if inner is not None:
        fun = inner
    name = getattr(fun, "__name__", type(fun).__name__)
    code = getattr(fun, "__code__", None)
    if code is None:
        return str(name)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


def _check_operands(p: Primitive, args: tuple[Any, ...]) -> None:
    """After binding `args` failed: the primitive's own error for operands of a dtype it
    refuses (`p.operand_check`: a typed key's), else with `jax_enable_checks` JAX's assertion
    that every operand is a valid JAX type, an AssertionError carrying the operands."""
    if p.operand_check is not None:
        p.operand_check(args)
    if config.enable_checks.value:
        raise AssertionError(args) from None


class Primitive:
    """A primitive operation with all its rules in one place.

    >>> p = Primitive("my_neg")
    >>> p.name
    'my_neg'
    """

    multiple_results = False
    # JAX's flags for primitives that call a jaxpr held in their `call_jaxpr` param (`call`,
    # `closed_call`) or map one over an axis; libraries walking a jaxpr read them on every
    # equation's primitive (distrax's inversion of a function).
    call_primitive = False
    map_primitive = False
    # Params that only transformations read, never compiled code (a custom_jvp_call's jvp
    # rule): the persistent compilation cache leaves them out of its keys.
    uncompiled_params: frozenset[str] = frozenset()
    # Facts the compiler reads (it never asks for a primitive by its name), declared by the
    # module defining the primitive:
    # - `reduce_ufunc`: a reduction over `params["axes"]` that is this ufunc's `reduce`;
    reduce_ufunc: Any = None
    # - `broadcast_dimensions(params)`: a broadcast, the output dimension of each operand
    #   dimension (in order, it is a view of the operand with size-1 axes inserted);
    broadcast_dimensions: Callable[[dict[str, Any]], Sequence[int]] | None = None
    # - `is_identity(params, in_aval)`: whether an equation whose output has its operand's
    #   shape and dtype returns the operand unchanged;
    is_identity: Callable[[dict[str, Any], Any], bool] | None = None
    # - `cost(in_avals, out_avals, params) -> (flops, transcendentals)` for cost analysis
    #   (None: one flop per output element when the primitive has a lowering, else none).
    cost: Callable[[Sequence[Any], Sequence[Any], dict[str, Any]], tuple[float, float]] | None \
        = None
    # - `fresh_result`: the kernel always returns a new buffer aliasing none of its operands (a
    #   matrix product), which buffer planning may hand to a later `out=` once it is dead;
    fresh_result = False
    # - `updates_in_place`: the kernel returns its first operand updated (a scatter): a new
    #   buffer, or, called with `out=` that operand's own buffer, that buffer written in place
    #   (buffer planning passes it when the operand is a dead buffer the program owns);
    updates_in_place = False
    # - `broadcast_result`: the kernel may return a broadcast view (zero strides). Later steps
    #   read a view as an array, but an Array owns its memory: eager execution runs
    #   `owning_kernel_factory` (called as `kernel_for` is) or copies the view, and a program's
    #   outputs that may be views are copied (set both with `def_broadcast_result`);
    broadcast_result = False
    owning_kernel_factory: Callable[..., Callable[..., Any]] | None = None
    # - `host_callback`: calls `params["callback"]`, a Python function, on the host: a compiled
    #   module records it among its host callbacks, and it is never evaluated at compile time;
    host_callback = False
    # - `inlinable_call`: an equation calls the jaxpr in `params["jaxpr"]` (pjit) or
    #   `params["call_jaxpr"]`, which the compiler inlines;
    inlinable_call = False
    # - `rewrites`: algebraic rewrites of an equation the compiler runs, tried in the order
    #   declared until one applies; each `rule(eqn, producer)` returns None, an atom replacing
    #   its output, or equations replacing it (`def_rewrite` adds one);
    rewrites: tuple[Callable[..., Any], ...] = ()
    # - `inline_lowering(emitter, eqn, indent, args, outs)`: emits the equation as inline
    #   Python control flow around its inlined body jaxprs (`def_inline_lowering`).
    inline_lowering: Callable[..., None] | None = None
    # Facts transformations and printing read:
    # - `const_fold`: staging evaluates it at trace time when every operand is a Python or
    #   NumPy scalar (an Array, even a concrete one, is a constant of the jaxpr, as in JAX);
    const_fold = False
    # - `staging_rule(trace, args, params) -> outputs`: how staging records a bind when not as
    #   one equation of its own (jit's call forwards the arguments it returns unchanged);
    staging_rule: Callable[..., Any] | None = None
    # - `forwards`: staging stages no equation when it is an identity (`is_identity`, and the
    #   result's aval, weak type included, is the operand's) and returns the operand, as JAX's
    #   forwarding rules drop such equations from a traced jaxpr;
    forwards = False
    # - `vectorized`: elementwise, so any block of its operands gives that block of its result
    #   (set by `batching.vectorized_batch`): sharded jit runs it per shard, and sharding
    #   propagation lays its result out as its operands;
    vectorized = False
    # - `collective`: it names a mapped axis (psum, axis_index, ...): its batch rule receives
    #   the trace as its first argument, to tell whether the axis is that trace's;
    collective = False
    # - `param_printer(params) -> params`: the params as a printed jaxpr shows them (jit hides
    #   its default options; `def_param_printer`);
    param_printer: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # - `eqn_printer(eqn, context, settings) -> Doc`: prints the whole equation in place of
    #   the default `outs = name[params] ins` (JAX's `jax.core.pp_eqn_rules`, which is a view
    #   of these: libraries set it as `pp_eqn_rules[p] = rule`);
    eqn_printer: Callable[..., Any] | None = None
    # - `value_dependent_control`: control flow whose path depends on operand values (cond's
    #   branch, a while loop's trip count), so the devices of one SPMD program may take
    #   different paths and must still meet at the collectives inside (pmap runs such a
    #   program on the devices' threads);
    value_dependent_control = False
    # - `replication_rule(mesh axes, eqn, operand replications, replication) -> result
    #   replications`: the mesh axes along which every device holds the same result, for
    #   shard_map's check_rep (api/shard_map.py; None: replicated where all operands are).
    #   `replication(jaxpr, replications)` infers a body jaxpr's;
    replication_rule: Callable[..., Any] | None = None
    # - `sharding_rule(eqn, operand splits, mesh, propagate) -> result splits`: how jit lays
    #   out the results of an equation whose operands are split across a mesh (see
    #   api/sharding_propagation.py; None: laid out whole, or as an elementwise operation's
    #   when the primitive is vectorized).
    sharding_rule: Callable[..., Any] | None = None
    # - `dce_rule(eqn, used_outputs) -> eqn | None`: the equation computing only the outputs
    #   marked used (fewer outputs, and the inputs that still need reading), or None when it
    #   computes nothing needed; dead-code elimination calls it on an effect-free equation
    #   some of whose outputs are unread (None: the equation is kept whole);
    dce_rule: Callable[..., Any] | None = None
    # - `remat_rule(eqn, policy) -> (known eqn, recompute eqn, residuals) | None`: how a
    #   checkpointed function's equation holding jaxprs (cond, scan, jit), which its policy does
    #   not save whole and whose inputs are all known, saves what the policy saves inside them:
    #   the known equation also returns those values (the residual Vars), the recompute
    #   equation reads them in place of computing them (partial_eval.remat_split);
    remat_rule: Callable[..., Any] | None = None
    # - `native`: its rule in the native tier (`compiler/native.py`: a function writing numba
    #   source, or an `ElementRule` or `ControlRule`); None keeps programs using it on the
    #   NumPy tier.
    native: Any = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.impl: Callable[..., Any] | None = None  # NumPy kernel: ndarrays in, ndarray(s) out
        # Optional: (in_avals, **params) -> a kernel specialized to those shapes, built once
        # per compile so per-call work (index arithmetic, plans) leaves the hot path.
        self.kernel_factory: Callable[..., Callable[..., Any]] | None = None
        self.abstract_eval: Callable[..., Any] | None = None  # avals -> (avals, effects)
        self.jvp: Callable[..., Any] | None = None
        self.transpose: Callable[..., Any] | None = None
        self.batch: Callable[..., Any] | None = None
        self.lowering: Any = None  # see numjax._src.compiler.lowering
        self.partial_eval: Callable[..., Any] | None = None
        # Optional: runs the primitive eagerly in place of a compiled executable (a host
        # callback runs the user's function directly, as in JAX, with no compile).
        self.eager_impl: Callable[..., Any] | None = None
        # Declarations of rules that cannot apply: {"jvp": message, ...}.
        self.undefined_rules: dict[str, str] = {}
        # The exception type each declared rule raises (TypeError unless declared otherwise).
        self.undefined_errors: dict[str, type[Exception]] = {}
        self.is_linear = False
        # Optional: raises JAX's dtype error for operands that are no arrays here (typed keys).
        self.operand_check: Callable[[Sequence[Any]], None] | None = None
        # The module that made it: the persistent compilation cache keys programs on
        # primitive names, which name the same rules in another process only for numjax's own.
        self.defined_in = str(sys._getframe(1).f_globals.get("__name__", ""))
        primitives.append(self)

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: Any, **params: Any) -> Any:
        trace = _trace_state.trace
        if trace is eval_trace:  # the eager hot path skips one method dispatch
            try:
                return eager_apply(self, args, params)
            except TypeError:
                error = eager_operand_error(args)  # an operand that is not an array
                if error is None:
                    raise
                _check_operands(self, args)
                raise error from None
        try:
            return trace.process_primitive(self, args, params)
        except TypeError:
            if eager_operand_error(args) is not None:
                _check_operands(self, args)
            raise

    def get_bind_params(self, params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """The leading operands and parameters that bind this primitive again from an
        equation's params (interpreters of jaxprs call `p.bind(*subfuns, *args, **params)`).
        Equations hold everything their primitive binds with, so there are none; a primitive
        bound with a function first (`call_p`) overrides this."""
        return [], dict(params)

    # -- rule registration -------------------------------------------------------------
    def def_impl(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        self.impl = impl
        return impl

    def def_kernel_factory(self, factory: Callable[..., Any]) -> Callable[..., Any]:
        self.kernel_factory = factory
        return factory

    def kernel_for(self, in_avals: Any, params: dict[str, Any]) -> Callable[..., Any]:
        """The NumPy kernel for these input avals, with the params bound."""
        if self.kernel_factory is not None:
            return self.kernel_factory(in_avals, **params)
        if self.impl is None:
            raise NotImplementedError(f"primitive {self.name} has no NumPy kernel")
        return functools.partial(self.impl, **params) if params else self.impl

    def def_abstract_eval(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        """Register an abstract eval rule without effects: avals -> aval (or list of avals)."""
        def effectless(*avals: Any, **params: Any) -> tuple[Any, frozenset[Any]]:
            return rule(*avals, **params), no_effects

        self.abstract_eval = effectless
        return rule

    def def_effectful_abstract_eval(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        """Register an abstract eval rule returning `(aval or avals, effects)`."""
        self.abstract_eval = rule
        return rule

    def def_jvp(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.jvp = rule
        return rule

    def def_transpose(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.transpose = rule
        return rule

    def def_batch(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.batch = rule
        return rule

    def def_lowering(self, rule: Any) -> Any:
        self.lowering = rule
        return rule

    def def_partial_eval(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.partial_eval = rule
        return rule

    def def_rewrite(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        self.rewrites = (*self.rewrites, rule)
        return rule

    def def_inline_lowering(self, rule: Callable[..., None]) -> Callable[..., None]:
        self.inline_lowering = rule
        return rule

    def def_param_printer(self, rule: Callable[[dict[str, Any]], dict[str, Any]]
                          ) -> Callable[[dict[str, Any]], dict[str, Any]]:
        self.param_printer = rule
        return rule

    def def_broadcast_result(self, owning_kernel_factory: Callable[..., Any] | None = None
                             ) -> None:
        """Declare that the kernel may return a broadcast view; `owning_kernel_factory`, if
        given, builds kernels (as `kernel_for`) whose results own their memory."""
        self.broadcast_result = True
        self.owning_kernel_factory = owning_kernel_factory

    def declare_undefined(self, rule: str, message: str,
                          error: type[Exception] = TypeError) -> None:
        """Declare that `rule` ("jvp", "transpose", "batch") cannot apply to this primitive;
        using it raises `error(message)`."""
        self.undefined_rules[rule] = message
        self.undefined_errors[rule] = error


no_effects: frozenset[Any] = frozenset()

# Every primitive ever created, in creation order: the rule-coverage test walks this list.
primitives: list[Primitive] = []


class RuleRegistry(MutableMapping[Primitive, Any]):
    """JAX's per-transformation rule tables (`ad.primitive_jvps`, ...) as views of the rules
    that live on each primitive: `registry[p] = rule` installs `rule` as `p.<attribute>`.

    >>> p = Primitive("my_id")
    >>> jvps = RuleRegistry("jvp")
    >>> jvps[p] = lambda primals, tangents: (primals[0], tangents[0])
    >>> p.jvp is jvps[p] and p in jvps
    True
    """

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute

    def __getitem__(self, primitive: Primitive) -> Any:
        rule = None
        if isinstance(primitive, Primitive):
            rule = getattr(primitive, self.attribute, None)
        if rule is None:
            raise KeyError(primitive)
        return rule

    def __setitem__(self, primitive: Primitive, rule: Any) -> None:
        if not isinstance(primitive, Primitive):
            raise TypeError(f"rules are registered for primitives, not {type(primitive).__name__}")
        setattr(primitive, self.attribute, rule)

    def __delitem__(self, primitive: Primitive) -> None:
        self[primitive]  # KeyError when there is no rule
        setattr(primitive, self.attribute, None)

    def __iter__(self) -> Iterator[Primitive]:
        return (p for p in primitives if getattr(p, self.attribute, None) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"RuleRegistry({self.attribute!r}, {len(self)} primitives)"


class Trace:
    """A transformation in progress. Subclasses implement `process_primitive`."""

    __slots__ = ("parent", "is_live", "debug_info", "__weakref__")
    # True for traces that record a program (jit, make_jaxpr) rather than run one op by op.
    stages = False
    # True for JAX's "dynamic" traces (jit, make_jaxpr): values made from constants under them
    # become their tracers. Partial evaluation (linearize, grad) records a program but
    # computes known values now, as JAX's JaxprTrace, which is never the dynamic trace.
    stages_constants = False

    # True for the trace `core.new_main` makes current: the traces a library builds on it
    # (JAX's `Trace(main, sublevel)` protocol) have it as their `main`.
    hosts_library_traces = False

    def __init__(self, parent: Trace | None, debug_info: DebugInfo | None = None) -> None:
        self.parent = parent
        self.is_live = True
        # A library's trace is built as JAX's `Trace(main, sublevel)`: no debug info.
        self.debug_info = None if isinstance(debug_info, int) else debug_info

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def check_foreign_tracer(self, x: Tracer) -> None:
        """A tracer of another trace reached this one: fine if that trace is still live."""
        if not x._trace.is_live:
            # JAX's detail when the leaked tracer's transformation was nested inside this one.
            detail = f"Can't lift level {x} to {self}" if x._trace.level > self.level else None
            raise escaped_tracer_error(x, detail)

    # How a tracer of this trace names it when printed (JAX's name for its counterpart).
    display_name: str | None = None

    @property
    def level(self) -> int:
        """Depth in the trace stack: 1 for the first transformation above eager evaluation."""
        level, trace = 0, self.parent
        while trace is not None:
            level, trace = level + 1, trace.parent
        return level

    @property
    def main(self) -> Trace:
        """JAX's `trace.main` (the record identifying a transformation): a numjax trace is its
        own identity, so code comparing `x._trace.main is main` compares traces; a library's
        trace built on `core.new_main`'s has that one."""
        parent = self.parent
        return parent if parent is not None and parent.hosts_library_traces else self

    def full_raise(self, x: Any) -> Any:
        """JAX's `Trace.full_raise`, for a library's trace: `x` as one of its tracers, made
        with the library's `pure` (a constant), `sublift` (another trace of the same main) or
        `lift` (a tracer of an enclosing trace)."""
        if not isinstance(x, Tracer):
            return self.pure(x)  # type: ignore[attr-defined]
        if x._trace is self:
            return x
        if x._trace.main is self.main and hasattr(self, "sublift"):
            return self.sublift(x)
        return self.lift(x)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"{self.display_name or type(self).__name__}(level={self.level}/0)"


class EvalTrace(Trace):
    """The bottom of every trace stack: runs primitives on concrete values."""

    __slots__ = ()

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        # The eager executor rejects tracers (leaks) itself, off its Array fast path.
        return eager_apply(primitive, args, params)


class CompileTimeEvalTrace(Trace):
    """The trace inside `ensure_compile_time_eval()` under a transformation: an operation whose
    operands are all concrete runs now, op by op; one that reads a tracer goes to the
    innermost trace among its operands' (as JAX finds the top trace of the arguments), so a
    JVP tracer of a concrete value closed over by a function being staged stays concrete."""

    __slots__ = ()

    def process_primitive(self, primitive: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        top: Trace | None = None
        for x in args:
            if isinstance(x, Tracer) and (top is None or x._trace.level > top.level):
                top = x._trace
        if top is None:
            return eager_apply(primitive, args, params)
        return top.process_primitive(primitive, args, params)

    @property
    def level(self) -> int:  # invisible in tracer texts: the enclosing trace's level
        return self.parent.level if self.parent is not None else 0


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Operations on concrete values inside the block run now, even while a function is
    being traced (for jit, grad, vmap, ...): their results are concrete Arrays, usable in
    Python control flow. Operations that read a traced value are traced as usual. Outside
    any transformation this changes nothing.

    >>> import numjax, numjax.numpy as jnp
    >>> @numjax.jit
    ... def f(x):
    ...     with numjax.ensure_compile_time_eval():
    ...         positive = jnp.sin(3.0) > 0  # a concrete bool Array, not a tracer
    ...     return jnp.sin(x) if positive else jnp.cos(x)
    >>> float(f(0.0))
    0.0
    """
    previous = _trace_state.trace
    if previous is eval_trace:
        yield
        return
    _trace_state.trace = CompileTimeEvalTrace(previous)
    try:
        yield
    finally:
        _trace_state.trace = previous


def _no_eager_apply(primitive: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    raise RuntimeError("numjax's runtime is not initialized; import numjax first")


# Filled by the runtime layer at import: runs one primitive on concrete values.
eager_apply: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any] = _no_eager_apply


def set_eager_apply(fn: Callable[[Primitive, Sequence[Any], dict[str, Any]], Any]) -> None:
    global eager_apply
    eager_apply = fn


class _TraceState(threading.local):
    def __init__(self) -> None:
        self.trace: Trace = eval_trace


eval_trace = EvalTrace(None)
_trace_state = _TraceState()


def running_eagerly() -> bool:
    """Whether operations run op by op now: no trace on the stack records a program (eager
    vmap and jvp run op by op)."""
    trace: Trace | None = _trace_state.trace
    while trace is not None:
        if trace.stages:
            return False
        trace = trace.parent
    return True


def find_top_trace(xs: Iterable[Any]) -> Trace:
    """The trace a primitive applied to `xs` would run on (JAX's `core.find_top_trace`): the
    deepest trace among the tracers in `xs`, unless the innermost trace recording a program
    (jit, make_jaxpr; not grad's partial evaluation) is deeper; with neither, eager
    evaluation's trace."""
    dynamic: Trace = _trace_state.trace
    while dynamic.parent is not None and not dynamic.stages_constants:
        dynamic = dynamic.parent
    top, top_level = dynamic, dynamic.level
    for x in xs:
        if isinstance(x, Tracer):
            level = x._trace.level
            if level > top_level:
                top, top_level = x._trace, level
    return top


class MainTraceView:
    """One entry of JAX's trace stack (`MainTrace`): a trace's level and type."""

    __slots__ = ("level", "trace_type")

    def __init__(self, trace: Trace) -> None:
        self.level = trace.level
        self.trace_type = type(trace)

    def __repr__(self) -> str:
        name = getattr(self.trace_type, "display_name", None) or self.trace_type.__name__
        return f"MainTrace({self.level},{name})"


class TraceStackView:
    """JAX's `thread_local_state.trace_state.trace_stack`, read from this thread's traces:
    `stack` from eager evaluation up to the current trace, `dynamic` the innermost trace that
    records a program (or eager evaluation)."""

    @property
    def stack(self) -> list[MainTraceView]:
        chain: list[Trace] = []
        trace: Trace | None = _trace_state.trace
        while trace is not None:
            chain.append(trace)
            trace = trace.parent
        return [MainTraceView(t) for t in reversed(chain)]

    @property
    def dynamic(self) -> MainTraceView:
        return MainTraceView(find_top_trace(()))


class _TraceStateView:
    trace_stack = TraceStackView()


class ThreadLocalStateView:
    """JAX's `core.thread_local_state`: `.trace_state.trace_stack` (see TraceStackView)."""

    trace_state = _TraceStateView()


thread_local_state = ThreadLocalStateView()


def cur_sublevel() -> int:
    """JAX's sublevel of the current trace: numjax has none (a jit is a level of its own)."""
    return 0


def current_trace() -> Trace:
    return _trace_state.trace


class set_current_trace:
    """Make `trace` current inside a `with` block. A class rather than a generator context
    manager: transformations enter one for every primitive they hand to their parent, and this
    costs a third as much."""

    __slots__ = ("_trace", "_previous")

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    def __enter__(self) -> None:
        self._previous = _trace_state.trace
        _trace_state.trace = self._trace

    def __exit__(self, *exc_info: object) -> None:
        _trace_state.trace = self._previous


@contextlib.contextmanager
def new_trace(trace: Trace) -> Iterator[Trace]:
    """Make `trace` current for the duration; it dies (its tracers become leaks) on exit."""
    previous = _trace_state.trace
    _trace_state.trace = trace
    try:
        yield trace
    finally:
        _trace_state.trace = previous
        trace.is_live = False
        leaks.note_finished(trace)


# How a tracer's NumPy buffer prints (replaced by the runtime: as the Array it stands for).
host_value_repr: Callable[[Any], str] = repr


class Tracer:
    """A value inside a transformation: it knows its aval and its trace, not its data.

    Operators and array methods are installed by the numpy layer, shared with `Array`.
    """

    __slots__ = ("_trace", "_line_info", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, trace: Trace) -> None:
        self._trace = trace

    @property
    def aval(self) -> Any:
        raise NotImplementedError

    # -- attributes forwarded to the aval ----------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape  # type: ignore[no-any-return]

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.aval.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return self.aval.dtype.itemsize  # type: ignore[no-any-return]

    @property
    def nbytes(self) -> int:
        # Known from the aval alone, so a static Python int under every trace, as in JAX.
        return self.size * self.itemsize

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type  # type: ignore[no-any-return]

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Any]:
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))  # type: ignore[index]

    # -- concretization ----------------------------------------------------------------
    def to_concrete_value(self) -> Any:
        """The concrete value behind this tracer if there is one (jvp over concrete primals)."""
        return None

    def __bool__(self) -> bool:
        check_bool_conversion(self.aval)
        value = self.to_concrete_value()
        if value is None:
            raise errors.TracerBoolConversionError(self)
        return bool(value)

    def __index__(self) -> int:
        check_integer_conversion(self.aval)
        value = self.to_concrete_value()
        if value is None:
            raise errors.TracerIntegerConversionError(self)
        return value.__index__()  # type: ignore[no-any-return]

    def _concretize(self, kind: type) -> Any:
        check_scalar_conversion(self.aval)
        # float() and complex() refuse even a tracer with a concrete value (a jvp over concrete
        # primals), as JAX's do: a Python float drops the derivative without a trace of it
        # (grad(lambda x: float(x) * x)(1.) would be 1, not 2). int(), bool() and index
        # conversions of such tracers give their value.
        value = None if kind in (float, complex) else self.to_concrete_value()
        if value is None:
            name = kind.__name__
            raise errors.ConcretizationTypeError(
                self,
                f"The problem arose with the `{name}` function. If trying to convert the data "
                f"type of a value, try using `x.astype({name})` or `jnp.array(x, {name})` "
                "instead.\n",
            )
        return kind(value)

    def __int__(self) -> int:
        return self._concretize(int)  # type: ignore[no-any-return]

    def __float__(self) -> float:
        return self._concretize(float)  # type: ignore[no-any-return]

    def __complex__(self) -> complex:
        return self._concretize(complex)  # type: ignore[no-any-return]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # Always refused, as in JAX, even for a JVP tracer of a concrete value: NumPy would
        # compute on the primal alone and drop the tangent (grad(lambda x: np.sin(x)) would be
        # 0, not cos).
        raise errors.TracerArrayConversionError(self)

    def __hash__(self) -> int:
        # JAX 0.4.30 still hashes a tracer by identity, with a warning.
        warnings.warn(f"unhashable type: {type(self)}. Attempting to hash a tracer will lead "
                      "to an error in a future JAX release.", FutureWarning, stacklevel=2)
        return id(self)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            f"'{type(self)}' object does not support item assignment. JAX arrays "
            "are immutable. Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)`` or another "
            ".at[] method: https://jax.readthedocs.io/en/latest/_autosummary/jax.numpy.ndarray.at.html"
        )

    def _origin_msg(self) -> str:
        info = self._trace.debug_info
        if info is not None:
            msg = (f"\nThe error occurred while tracing the function {info.func_src_info} "
                   f"for {info.traced_for}.")
            args = self._dependent_args()
            if args:
                if len(args) == 1:
                    names = f"value of the argument {args[0]}"
                elif len(args) == 2:
                    names = f"values of the arguments {args[0]} and {args[1]}"
                else:
                    names = f"values of the arguments {', '.join(args[:-1])}, and {args[-1]}"
                msg += (" This concrete value was not available in Python because it depends "
                        f"on the {names}.")
            elif lines := self._progenitor_lines():
                # At most five, as JAX shows them.
                msg += (" This value became a tracer due to JAX operations on these lines:\n\n"
                        + "\n\n".join(f"  {line}" for line in lines[:5]))
                if len(lines) > 5:
                    msg += "\n\n(Additional originating lines are not shown.)"
            return msg
        line = getattr(self, "_line_info", None)
        if line:
            return (f"\nThis {tracer_type_name(self)} with object id {id(self)} was created on "
                    f"line:\n  {line}")
        return ""

    def _dependent_args(self) -> list[str]:
        return []

    def _progenitor_lines(self) -> list[str]:
        """The operations on constants that made this tracer, one text each, when it depends
        on no argument of the traced function."""
        return []

    def _creation_site(self) -> str | None:
        """Where user code made this tracer, when the trace knows (for leak reports)."""
        return None

    def __repr__(self) -> str:
        """As JAX prints a tracer: its aval and trace, then what it carries (a JVP tracer's
        primal and tangent, a batch tracer's value and batch dimension) one per line."""
        return "\n".join(self._pretty_lines())

    def _pretty_lines(self) -> list[str]:
        # Nested tracers are indented line by line; a multi-line value (an Array's repr) keeps
        # its own continuation lines as they are, as in JAX's pretty-printer.
        head = f"Traced<{self._aval_repr()}>with<{self._trace!r}>"
        contents = self._contents()
        if not contents:
            return [head]
        lines = [f"{head} with"]
        for name, value in contents:
            if isinstance(value, Tracer):
                first, *rest = value._pretty_lines()
                lines.append(f"  {name} = {first}")
                lines.extend(f"  {line}" for line in rest)
            elif isinstance(value, np.ndarray):
                lines.append(f"  {name} = {host_value_repr(value)}")
            else:
                lines.append(f"  {name} = {value if isinstance(value, str) else repr(value)}")
        return lines

    __str__ = __repr__

    def _aval_repr(self) -> str:
        return repr(self.aval)

    def _contents(self) -> list[tuple[str, Any]]:
        """(name, value) pairs printed after the tracer's head."""
        return []


def tracer_type_name(tracer: Tracer) -> str:
    """JAX's name for the kind of `tracer` (DynamicJaxprTracer for a StagingTracer)."""
    name = tracer._trace.display_name
    return f"{name}r" if name else type(tracer).__name__


# The checks JAX makes before converting an array or a tracer to a Python value (shape and
# dtype only, so a tracer fails them as an array of its type does).


def check_scalar_conversion(aval: Any) -> None:
    """`int`, `float` and `complex` take 0-d arrays only (NumPy also takes size 1)."""
    if aval.ndim > 0:
        raise TypeError("Only scalar arrays can be converted to Python scalars; "
                        f"got arr.ndim={aval.ndim}")


def check_integer_conversion(aval: Any) -> None:
    """`operator.index` (indexing, `hex`, `range`) takes 0-d integer arrays, not booleans."""
    if not (aval.shape == () and dtypes.issubdtype(aval.dtype, np.integer)):
        raise TypeError("Only integer scalar arrays can be converted to a scalar index.")


def check_bool_conversion(aval: Any) -> None:
    size = math.prod(aval.shape)
    if size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                         "to check that an array is not empty.")
    if size > 1:
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all()")


def escaped_tracer_error(tracer: Tracer, detail: str | None = None
                         ) -> errors.UnexpectedTracerError:
    trace = tracer._trace
    info = trace.debug_info
    where = ""
    if info is not None:
        where = (f"\nThe function being traced when the value leaked was "
                 f"{info.func_src_info} traced for {info.traced_for}.")
    site = tracer._creation_site()
    if site is not None:
        # JAX lists the frames when the value was made; numjax keeps the innermost user one.
        rule = "-" * 30
        where += (f"\n{rule}\nThe leaked intermediate value was created on line {site}. \n"
                  f"{rule}\nWhen the value was created, the final 5 stack frames (most recent "
                  f"last) excluding JAX-internal frames were:\n{rule}\n{site}\n{rule}\n")
    return errors.UnexpectedTracerError(
        "Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
        "allowing for a reference to an intermediate value with type "
        f"{tracer.aval.str_short()} wrapped in a {tracer_type_name(tracer)} to escape the scope "
        "of the transformation.\nJAX transformations require that functions explicitly return "
        f"their outputs, and disallow saving intermediate values to global state.{where}\n"
        "To catch the leak earlier, try setting the environment variable "
        "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager."
        + (f"Detail: {detail}" if detail else "")
    )


def _tracer_aval(x: Tracer) -> Any:
    return x.aval


aval_handlers[Tracer] = _tracer_aval


def operand_aval(x: Any, attribute: str | None = None) -> Any:
    """The aval of a lax function's operand, read before the primitive is bound.

    For a value that is not an array, the error JAX's function gives: an AttributeError when
    JAX's wrapper reads the operand's `attribute` (`"shape"`, `"ndim"`) and the value has no
    such attribute; otherwise what binding gives (eagerly, the texts of an eager primitive's
    operands; under a transformation, `get_aval`'s).

    >>> operand_aval(object(), "ndim")
    Traceback (most recent call last):
    AttributeError: 'object' object has no attribute 'ndim'
    """
    handler = aval_handlers.get(type(x))
    if handler is not None:
        return handler(x)
    try:
        return get_aval(x)
    except TypeError:
        if attribute is not None and not hasattr(x, attribute):
            raise AttributeError(f"'{type(x).__name__}' object has no attribute '{attribute}'"
                                 ) from None
        if _trace_state.trace is eval_trace:
            error = eager_operand_error([x])
            if error is not None:
                raise error from None
        raise

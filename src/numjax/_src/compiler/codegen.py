"""Lowering a jaxpr to generated Python/NumPy source, compiled once with `compile()`.

One statement per equation: a fusable ufunc call, or a call to the primitive's NumPy kernel with
its params bound, into the buffers `buffers.plan_buffers` chose. Constants, literals and kernels
are globals of the generated module, so the source reads like the jaxpr. Nested jit equations are
inlined by the passes first, so the generated function is straight-line code
(`jit(lambda w, x: jnp.tanh(x @ w) + 1.0)`):

    def jitted(a_, b_):
        c_ = dot_general(b_, a_)
        d_ = np.tanh(c_, out=c_)
        e_ = np.add(d_, lit, out=d_)
        return (e_,)
"""

from __future__ import annotations

import itertools
import keyword
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import config
from numjax._src.compiler import buffers, fusion
from numjax._src.compiler.lowering import Ufunc
from numjax._src.core.jaxpr import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Var,
    alphabetic_name,
    fresh_copy,
)
from numjax._src.runtime import host_memory

_module_ids = itertools.count()


class LoweredModule:
    """A jaxpr lowered to Python source: what `backend_compile` compiles."""

    def __init__(self, name: str, source: str, env: dict[str, Any], jaxpr: Jaxpr,
                 out_avals: Sequence[Any], host_callbacks: Sequence[Any] = ()) -> None:
        self.name = name
        self.source = source
        self.env = env
        self.jaxpr = jaxpr
        self.out_avals = list(out_avals)
        # The Python functions the generated code calls back (`backend_compile` sees them).
        self.host_callbacks = list(host_callbacks)
        # Positions of the inputs whose buffers an output may be, or be a view of.
        self.aliased_inputs = buffers.inputs_reaching_outputs(jaxpr)
        # The jaxpr after the passes, with its constants (set by `executables.lower_module`).
        self.closed: ClosedJaxpr | None = None
        # How to remake each kernel global (name -> (primitive, in_avals, params), or
        # (primitive, None, None) for its Ufunc lowering's function): kernels are closures, so
        # the persistent cache stores these instead.
        self.kernels: dict[str, tuple[Any, Any, Any]] = {}
        # The code object of `source` once compiled, and what the persistent cache needs to
        # write this module after its compile (`persistent_cache.Pending`), if anything.
        self.code: Any = None
        self.persist: Any = None
        # Remakes `closed` for a module read from the persistent cache (the native tier's input).
        self.optimize: Callable[[], ClosedJaxpr] | None = None

    @classmethod
    def restored(cls, name: str, source: str, env: dict[str, Any], out_avals: Sequence[Any],
                 aliased_inputs: tuple[int, ...], code: Any) -> LoweredModule:
        """A module read back from the persistent compilation cache: its source, globals and
        code object, without the jaxpr it was generated from."""
        module = cls.__new__(cls)
        module.name, module.source, module.env = name, source, env
        module.jaxpr = None  # type: ignore[assignment]
        module.out_avals = list(out_avals)
        module.host_callbacks = []
        module.aliased_inputs = aliased_inputs
        module.closed = None
        module.kernels = {}
        module.code = code
        module.persist = None
        module.optimize = None
        return module

    def compile(self, options: Any = None) -> Executable:
        if self.code is None:
            filename = f"<numjax jit {self.name} #{next(_module_ids)}>"
            self.code = compile(self.source, filename, "exec")
        namespace = dict(self.env)
        namespace["__name__"] = "numjax._src.compiler.generated"
        exec(self.code, namespace)
        fn = namespace[_FUNCTION_NAME]
        if not self.host_callbacks:
            fn = _quiet_on_retry(fn)
        return Executable(fn, self)

    def as_text(self) -> str:
        return self.source

    def as_hlo_text(self) -> str:
        """The program's text (numjax compiles to Python, not to HLO): what libraries reading
        `lowered.compiler_ir('hlo').as_hlo_text()` get."""
        return self.source


_ALL_IGNORED = {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}


def rerun_quietly(fn: Callable[..., Any], bufs: Sequence[Any], error: BaseException) -> Any:
    """`fn(*bufs)` again under `np.errstate(all="ignore")`, after a NumPy floating-point report
    escaped from it as `error`. XLA returns inf/nan silently; numjax's warning filter (set at
    import) is outranked by a filter the user added later (pytest's `-W error`, a library's
    `filterwarnings = error`) or by `np.seterr(all="raise")`. Retrying costs nothing until it
    happens, where np.errstate around every call would cost about an eager operation's time.
    Kernels are pure; a program that has started writing into donated buffers is not rerun,
    nor is anything when NumPy's reports are already off (the error is something else)."""
    if getattr(error, "donated_written", 0) or np.geterr() == _ALL_IGNORED:
        raise error
    with np.errstate(all="ignore"):
        return fn(*bufs)


# The warning filters `reports_shown` last read (the list, its length) and its answer.
_read_filters: Any = None
_read_length = -1
_shown = False


def reports_shown() -> bool:
    """Whether a NumPy floating-point report from a numjax kernel would be shown or recorded
    rather than ignored (numjax's filter) or raised (which `rerun_quietly` handles): a filter
    the user put first says "always"/"default"/"once"/"module" for it, as
    `warnings.catch_warnings(record=True)` and `pytest.warns` do, and a recorded report could
    not be taken back (`pytest.warns` emits the reports it did not expect again when it exits,
    where `filterwarnings = error` makes them errors). Kernels then run under np.errstate.
    The answer is kept until the filter list is replaced or changes length (every change
    `warnings` makes but reordering does one of these), so it costs a comparison per call."""
    global _read_filters, _read_length, _shown
    filters = warnings.filters
    if filters is _read_filters and len(filters) == _read_length:
        return _shown
    _read_filters, _read_length = filters, len(filters)
    action: str = getattr(warnings, "defaultaction", "default")  # untyped in typeshed
    for f_action, message, category, module, lineno in filters:
        if lineno or not issubclass(RuntimeWarning, category) or (
                module is not None and not module.match(__name__)):
            continue
        if message is not None and message.pattern and f_action == "ignore":
            continue  # ignores some reports only (by their text): look further
        action = f_action
        break
    _shown = action not in ("ignore", "error")
    return _shown


def _quiet_on_retry(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` rerun quietly after a floating-point report (`rerun_quietly`), or run quietly
    outright where a report would be shown (`reports_shown`). Not for programs with host
    callbacks: a callback must not run twice, and its own warnings must reach the user."""
    def run(*bufs: Any) -> Any:
        if reports_shown():
            with np.errstate(all="ignore"):
                return fn(*bufs)
        try:
            return fn(*bufs)
        except (RuntimeWarning, FloatingPointError) as error:
            return rerun_quietly(fn, bufs, error)

    return run


class Executable:
    """A compiled jaxpr: `executable(*buffers)` (or `executable.run(*buffers)`, the hot path)
    returns the output buffers as a tuple."""

    __slots__ = ("fn", "module", "out_dtypes", "run", "refuses")

    def __init__(self, fn: Callable[..., Any], module: LoweredModule) -> None:
        self.fn = fn
        self.module = module
        self.out_dtypes = [a.dtype for a in module.out_avals]
        self.run: Callable[..., Any] = self._checked_run
        # Outputs larger than the machine's memory: every call fails at once.
        self.refuses = host_memory.oversized(module.out_avals)
        if self.refuses:
            self.run = host_memory.refusing(self.refuses)

    def _checked_run(self, *bufs: Any) -> Any:
        # Kernels return their aval's dtype; this guards the few NumPy calls that widen. Output
        # dtypes depend only on input dtypes, so once they match, `run` becomes the bare
        # generated function (about 1.5 us saved per call).
        outs = self.fn(*bufs)
        # (A token output has no dtype to check.)
        if all(getattr(o, "dtype", d) == d for o, d in zip(outs, self.out_dtypes, strict=True)):
            self.run = self.fn
            return outs
        return tuple(o if o.dtype == d else o.astype(d)
                     for o, d in zip(outs, self.out_dtypes, strict=True))

    def __call__(self, *bufs: Any) -> Any:
        return self.run(*bufs)

    def as_text(self) -> str:
        return self.module.source

    def as_hlo_text(self) -> str:
        return self.module.source


_FUNCTION_NAME = "jitted"


class _Namer:
    """Python identifiers for variables (a, b, ..., like the jaxpr printer) and globals."""

    def __init__(self) -> None:
        self.names: dict[Var, str] = {}
        self.env: dict[str, Any] = {"np": np}
        self._globals: dict[int, str] = {}
        self._counts: dict[str, int] = {}
        self.kernels: dict[str, tuple[Any, Any, Any]] = {}

    def var(self, v: Var) -> str:
        name = self.names.get(v)
        if name is None:
            name = self.names[v] = f"{alphabetic_name(len(self.names))}_"
        return name

    def global_(self, value: Any, hint: str) -> str:
        key = id(value)
        name = self._globals.get(key)
        if name is None:
            hint = "".join(c if c.isalnum() else "_" for c in hint)
            if keyword.iskeyword(hint) or not hint or hint[0].isdigit():
                hint = f"{hint}_fn"
            count = self._counts.get(hint, 0)
            self._counts[hint] = count + 1
            name = hint if count == 0 and hint not in ("np",) else f"{hint}_{count}"
            self._globals[key] = name
            self.env[name] = value
        return name


class Emitter:
    """Writes the generated function: one statement per equation, fused clusters, and inline
    loops/branches whose bodies are emitted the same way."""

    def __init__(self, namer: _Namer, fusion_min_size: int, check_invalid: tuple[bool, bool]
                 = (False, False)) -> None:
        self.namer = namer
        # (nans, infs): under jax_debug_nans / jax_debug_infs every floating result is
        # checked right after the equation that made it (no fusion), naming the primitive and
        # the user's line. Off, the generated code has no checks at all.
        self.check_invalid = check_invalid if any(check_invalid) else None
        self.lines: list[str] = []
        self.prelude: list[str] = []
        self.fusion_min_size = fusion_min_size
        self.host_callbacks: list[Any] = []
        # Donated inputs by variable: the bit the generated code sets in `written_` before it
        # first writes a result into that input's buffer.
        self.donated_bits: dict[Var, int] = {}

    def emit_invalid_check(self, eqn: Any, outs: list[str], indent: str) -> None:
        """Under jax_debug_nans/infs, the check of `eqn`'s floating results (`outs`)."""
        assert self.check_invalid is not None
        nans, infs = self.check_invalid
        check = self.namer.global_(check_invalid, "check_invalid")
        where = str(eqn.source_info or "")
        for v, name in zip(eqn.outvars, outs, strict=True):
            if name != "_" and v.aval.dtype.kind in "fc":
                self.lines.append(f"{indent}{check}({name}, {eqn.primitive.name!r}, "
                                  f"{where!r}, {nans}, {infs})")

    def atom(self, a: Any) -> str:
        if isinstance(a, Literal):
            value = np.asarray(a.val, a.aval.dtype)[()]
            return self.namer.global_(value, "lit")
        return self.namer.var(a)

    def bind_consts(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
        for v, c in zip(jaxpr.constvars, consts, strict=True):
            self.namer.names[v] = self.namer.global_(_host_buffer(c), "const")

    def emit_eqns(self, jaxpr: Jaxpr, indent: str, fuse: bool = True,
                  donated: Sequence[Var] = ()) -> None:
        """Emit `jaxpr`'s equations (its invars and constvars must already have names), with
        the buffers `buffers.plan_buffers` gives them. `donated` invars may be overwritten
        once dead, like intermediates."""
        namer = self.namer
        live_out = {a for a in jaxpr.outvars if isinstance(a, Var)}
        clusters = {start: (stop, c) for start, stop, c in
                    fusion.find_clusters(jaxpr.eqns, live_out, self.fusion_min_size)} \
            if fuse else {}
        plan = buffers.plan_buffers(jaxpr, clusters, donated,
                                    lambda eqn: eqn.primitive.inline_lowering is not None)
        if clusters:
            namer.env.update(BLOCK=fusion.BLOCK, run_blocks=fusion.run_blocks)
        i = 0
        while i < len(jaxpr.eqns):
            if i in clusters:
                stop, cluster = clusters[i]
                targets = plan.cluster_targets.get(i, {})
                self._note_writes(targets.values(), indent)
                block_fn, call = fusion.emit_cluster(cluster, len(self.prelude), namer.var,
                                                     namer.global_, targets)
                self.prelude += [*block_fn, ""]
                names = " ".join(e.primitive.name for e in cluster.eqns)
                self.lines.append(f"{indent}# fused: {names}")
                self.lines += [indent + line[4:] for line in call]
                i = stop
                continue
            self._emit_eqn(jaxpr.eqns[i], i, plan, indent)
            i += 1

    def _emit_eqn(self, eqn: JaxprEqn, index: int, plan: buffers.Plan, indent: str) -> None:
        if index in plan.implicit_broadcasts:
            self._emit_implicit_broadcast(eqn, indent)
            return
        namer = self.namer
        outs = [("_" if isinstance(v, DropVar) else namer.var(v)) for v in eqn.outvars]
        rule = eqn.primitive.inline_lowering
        if rule is not None:
            rule(self, eqn, indent, [self.atom(a) for a in eqn.invars], outs)
            return
        args = ", ".join(self.atom(a) for a in eqn.invars)
        reuse = plan.out.get(index)
        if reuse is not None:
            args += f", out={namer.var(reuse)}"
            self._note_writes([reuse], indent)
        # A kernel that is a ufunc for these dtypes (float lax.div, real max) is called as that
        # ufunc, which takes the `out=` of buffer planning.
        ufunc = fusion.fusable_ufunc(eqn)
        callee = f"np.{ufunc.__name__}" if ufunc is not None else \
            _callee(eqn.primitive, eqn.params, namer, [a.aval for a in eqn.invars])
        if eqn.primitive.host_callback:
            self.host_callbacks.append(eqn.params["callback"])
        if eqn.primitive.multiple_results:
            target = ", ".join(outs) + ("," if len(outs) == 1 else "")
        else:
            target = outs[0]
        # An equation without results (a debug callback) is a bare call.
        assign = f"{target} = " if target else ""
        self.lines.append(f"{indent}{assign}{callee}({args})")
        if self.check_invalid:
            self.emit_invalid_check(eqn, outs, indent)

    def _note_writes(self, targets: Any, indent: str) -> None:
        bits = 0
        for v in targets:
            bits |= self.donated_bits.get(v, 0)
        if bits:
            self.lines.append(f"{indent}written_ |= {bits}")

    def _emit_implicit_broadcast(self, eqn: Any, indent: str) -> None:
        """A broadcast only ufuncs read, each with a full-shape operand beside it: NumPy's own
        broadcasting does it inside the ufunc. Its operand is read as it is (when it maps to
        the trailing axes) or as a reshaped view; no broadcast array is made."""
        x, out = eqn.invars[0], eqn.outvars[0]
        dims = tuple(eqn.params["broadcast_dimensions"])
        ndim = len(eqn.params["shape"])
        if dims == tuple(range(ndim - len(dims), ndim)):
            self.namer.names[out] = self.atom(x)
            return
        expanded = [1] * ndim
        for src, dst in enumerate(dims):
            expanded[dst] = x.aval.shape[src]
        self.lines.append(f"{indent}{self.namer.var(out)} = "
                          f"{self.atom(x)}.reshape({tuple(expanded)})")

    def emit_inline(self, closed: ClosedJaxpr, inputs: Sequence[str], indent: str,
                    owned: Sequence[int] = ()) -> list[str]:
        """Emit a body jaxpr inline: its invars take the given expressions; returns the atoms
        holding its outputs. Each emission names a fresh copy of the body: one body may be
        emitted several times in a program (a shared branch or loop body), and names given at
        one emission must not be assigned to at another. The invars at `owned` hold buffers
        of the loop's own, which the body may overwrite once they are dead there."""
        jaxpr = fresh_copy(closed.jaxpr)
        self.bind_consts(jaxpr, closed.consts)
        for v, expr in zip(jaxpr.invars, inputs, strict=True):
            if expr.isidentifier() and v not in self.namer.names:
                # A plain name (a loop carry, a constant) is read directly: the body never
                # overwrites its inputs, and carries are reassigned together after it.
                self.namer.names[v] = expr
                continue
            name = self.namer.var(v)
            if name != expr:
                self.lines.append(f"{indent}{name} = {expr}")
        self.emit_eqns(jaxpr, indent, fuse=False, donated=[jaxpr.invars[i] for i in owned])
        return [self.atom(a) for a in jaxpr.outvars]


def check_invalid(value: Any, primitive: str, where: str | Callable[[], str | None],
                  nans: bool, infs: bool) -> None:
    """Under jax_debug_nans / jax_debug_infs: raise FloatingPointError, naming the primitive and
    the user's line (`where`, or a function finding it), when `value` holds a NaN (an Inf).
    Compiled code calls it after each floating equation, eager execution after each primitive."""
    for kind, on, test in (("nan", nans, np.isnan), ("inf", infs, np.isinf)):
        if on and test(value).any():
            place = where() if callable(where) else where
            raise FloatingPointError(f"invalid value ({kind}) encountered in {primitive}"
                                     + (f" at {place}" if place else ""))


_DEOPTIMIZED = (
    "Because jax_config.debug_nans.value and/or config.jax_debug_infs is set, the "
    "de-optimized function (i.e., the function as if the `jit` decorator were removed) was "
    "called in an attempt to get a more precise error message. However, the de-optimized "
    "function did not produce invalid values during its execution. This behavior can result "
    "from `jit` optimizations causing the invalid value to be produced. It may also arise "
    "from having nan/inf constants as outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. "
    "\n\nIt may be possible to avoid the invalid value by removing the `jit` decorator, at "
    "the cost of losing optimizations. \n\nIf you see this error, consider opening a bug "
    "report at https://github.com/google/jax.")


def _check_outputs(values: Sequence[Any], function: str, nans: bool, infs: bool) -> None:
    """A jitted program's outputs are checked as a whole, as JAX checks a jitted
    computation's: those no checked equation made (inputs, constants, literals, a branch's
    result) fail here."""
    for value in values:
        if nans and np.isnan(value).any():
            raise FloatingPointError(f"invalid value (nan) encountered in jit({function}). "
                                     + _DEOPTIMIZED)
        if infs and np.isinf(value).any():
            raise FloatingPointError(f"invalid value (inf) encountered in jit({function}). "
                                     + _DEOPTIMIZED)


def lower_jaxpr(closed: ClosedJaxpr, name: str, fusion_min_size: int = -1,
                donated: Sequence[bool] = (), check_outputs: bool = False) -> LoweredModule:
    """Generate the source of a function computing `closed` on NumPy buffers. The buffers of
    `donated` inputs (flags per invar) are the callee's to overwrite once their last reader
    has run: results of the same shape and dtype are written into them. `check_outputs` (a
    jitted function's program) checks the outputs under jax_debug_nans/infs."""
    jaxpr = closed.jaxpr
    checks = (bool(config.debug_nans.value), bool(config.debug_infs.value))
    if any(checks):
        fusion_min_size = 1 << 62
    emitter = Emitter(_Namer(), fusion_min_size, checks)
    emitter.bind_consts(jaxpr, closed.consts)
    params = ", ".join(emitter.namer.var(v) for v in jaxpr.invars)
    emitter.lines.append(f"def {_FUNCTION_NAME}({params}):")
    overwritable = [v for v, d in zip(jaxpr.invars, donated, strict=False)
                    if d and v not in jaxpr.outvars]
    overwritable_set = {v for v, d in zip(jaxpr.invars, donated, strict=False) if d}
    indent = "    "
    if any(donated):
        # Which donated buffers the code has started writing into, told to the caller with a
        # failure (`donated_written`): an input whose buffer is still intact survives it.
        emitter.donated_bits = {v: 1 << i for i, v in enumerate(jaxpr.invars)
                                if v in overwritable}
        emitter.lines += ["    written_ = 0", "    try:"]
        indent = "        "
    emitter.emit_eqns(jaxpr, indent, donated=overwritable)
    # An output that may be a broadcast view gets memory of its own: an Array owns its buffer.
    views = buffers.broadcast_outputs(jaxpr)
    owned = emitter.namer.global_(host_memory.owned, "owned") if views else ""
    results = ", ".join(f"{owned}({emitter.atom(a)})" if i in views else emitter.atom(a)
                        for i, a in enumerate(jaxpr.outvars))
    if check_outputs:
        # A jitted function's results are buffers of their own, as XLA's are: an argument or
        # constant it returns, or a value it returns twice, is copied (a donated argument's
        # buffer is the output's to take).
        shared = {*(v for v in jaxpr.invars if v not in overwritable_set), *jaxpr.constvars}
        seen: set[Var] = set()
        parts = []
        for i, a in enumerate(jaxpr.outvars):
            atom = emitter.atom(a)
            if i not in views and isinstance(a, Var) and (a in shared or a in seen):
                atom = f"{emitter.namer.global_(np.copy, 'copy')}({atom})"
            if isinstance(a, Var):
                seen.add(a)
            parts.append(f"{owned}({atom})" if i in views else atom)
        results = ", ".join(parts)
    if any(checks) and check_outputs:
        unchecked = [emitter.atom(a) for a in jaxpr.outvars if a.aval.dtype.kind in "fc"]
        if unchecked:
            check = emitter.namer.global_(_check_outputs, "check_outputs")
            emitter.lines.append(f"{indent}{check}(({', '.join(unchecked)},), {name!r}, "
                                 f"{checks[0]}, {checks[1]})")
    emitter.lines.append(f"{indent}return ({results}{',' if len(jaxpr.outvars) == 1 else ''})")
    if any(donated):
        emitter.lines += ["    except BaseException as error_:",
                          "        error_.donated_written = written_",
                          "        raise"]
    source = "\n".join([*emitter.prelude, *emitter.lines]) + "\n"
    module = LoweredModule(name, source, emitter.namer.env, jaxpr,
                           [a.aval for a in jaxpr.outvars], emitter.host_callbacks)
    module.kernels = emitter.namer.kernels
    return module


def _callee(primitive: Any, params: dict[str, Any], namer: _Namer, in_avals: list[Any]
            ) -> str:
    lowering = primitive.lowering
    if isinstance(lowering, Ufunc) and not params:
        fn = lowering.ufunc
        module_name = getattr(fn, "__module__", None)
        if isinstance(fn, np.ufunc) or module_name == "numpy":
            return f"np.{fn.__name__}"
        name = namer.global_(fn, primitive.name)
        namer.kernels[name] = (primitive, None, None)  # the primitive's own lowering function
        return name
    name = namer.global_(primitive.kernel_for(in_avals, params), primitive.name)
    namer.kernels[name] = (primitive, in_avals, params)
    return name


def _host_buffer(value: Any) -> Any:
    """A constant's buffer. A NumPy array the traced function closed over is copied: the
    compiled program must not change, nor its outputs, when the caller later writes to it."""
    buf = getattr(value, "_buf", None)
    if buf is not None:
        return buf
    return value.copy() if isinstance(value, np.ndarray) else np.asarray(value)

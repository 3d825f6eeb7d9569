"""The stages of a compile, `Traced` -> `Lowered` -> `Compiled`: what `jit(f).trace(...)`,
`.lower()` and `.compile()` return, and the path every compile-cache miss of a jitted call
takes too. Each stage is cached by the jitted function per call signature, so a call after
`lower(...).compile()` runs that executable, and a call after `lower(...)` only compiles (as
in JAX, whose `jax_log_compiles` lines the stages write).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from numjax._src import traceback_util
from numjax._src.api import dispatch, sharded_jit
from numjax._src.api.xla_pmap import replicas
from numjax._src.compiler import compile_log, compile_options
from numjax._src.compiler.cost import cost_analysis
from numjax._src.compiler.executables import (
    compile_module,
    cycle_collection_paused,
    lower_module,
    lower_module_cached,
)
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import Tracer
from numjax._src.runtime import devices
from numjax._src.runtime.array import ArrayImpl
from numjax._src.runtime.mesh import PartitionSpec
from numjax._src.runtime.named_sharding import NamedSharding
from numjax._src.runtime.sharding import SingleDeviceSharding
from numjax._src.tree_util import PyTreeDef, equality_errors, keystr, tree_flatten, tree_unflatten

if TYPE_CHECKING:
    from numjax._src.api.jit import JitWrapped


class _Stage:
    """What every AOT stage reports about its trace: argument and output descriptions."""

    _traced: Traced

    @property
    def args_info(self) -> Any:
        traced = self._traced
        donated = traced.donated or (False,) * len(traced.in_avals)
        infos = [ArgInfo(a, d) for a, d in zip(traced.in_avals, donated, strict=True)]
        return tree_unflatten(traced.in_tree, infos)

    @property
    def out_info(self) -> Any:
        traced = self._traced
        return tree_unflatten(traced.out_tree, [OutInfo(a.shape, a.dtype)
                                                for a in traced.jaxpr.out_avals])


class _CompilerStage(_Stage):
    """Lowered and Compiled: their arguments' avals as a tree, and the donated indices."""

    @property
    def in_avals(self) -> Any:
        """The arguments' avals, in the tree of (positional arguments, keyword arguments)."""
        traced = self._traced
        return tree_unflatten(traced.in_tree, list(traced.in_avals))

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        """The donated arguments' indices among the flattened arguments."""
        return tuple(i for i, donated in enumerate(self._traced.donated) if donated)


class Traced(_Stage):
    """`jit(f).trace(*args)`: the jaxpr and trees for one argument signature."""

    def __init__(self, wrapped: JitWrapped, key: Any, closed: ClosedJaxpr, in_tree: PyTreeDef,
                 out_tree: PyTreeDef, in_avals: list[Any], donated: tuple[bool, ...],
                 arg_names: Sequence[str] = (), shardings: Any = None) -> None:
        self._wrapped = wrapped
        self._key = key  # the jitted function's cache key for this signature (None: uncached)
        self.jaxpr = closed
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.in_avals = in_avals
        self.donated = donated
        self.arg_names = tuple(arg_names)
        # `sharded_jit.Shardings` when the program's inputs or outputs have shardings.
        self.shardings = shardings

    @property
    def _traced(self) -> Traced:  # type: ignore[override]
        return self

    @property
    def fun_name(self) -> str:
        return self._wrapped._name

    @traceback_util.api_boundary
    @cycle_collection_paused
    def lower(self, *, lowering_platforms: tuple[str, ...] | None = None) -> Lowered:
        """The lowered program. `lowering_platforms` names the platforms a program is lowered
        for ahead of time; every platform runs the one host program, so it changes nothing."""
        del lowering_platforms
        wrapped = self._wrapped
        cached = wrapped._lowerings.get(self._key) if self._key is not None else None
        if cached is not None:
            return Lowered(self, *cached)
        backend = devices.get_backend(wrapped._backend)
        _check_pmaps_inside(self.jaxpr, wrapped._name, backend)
        if compile_log.active():
            compile_log.log_compile(wrapped._name, self.in_avals)
        paired = dispatch.pair_donations(self.donated, self.jaxpr, self.in_avals,
                                         wrapped._keep_unused)
        plan = None
        program = self.jaxpr
        writable = paired
        if self.shardings is not None:
            plan = sharded_jit.partition(self.jaxpr, self.shardings.ins, self.shardings.outs)
            program = plan.jaxpr
            if plan.spmd:
                # Each device reads its block of the inputs: none is overwritten (donated
                # ones are still deleted after the call).
                writable = ()
        if plan is None:
            module = lower_module_cached(program, wrapped._name, writable)
        else:
            module = lower_module(program, wrapped._name, writable, check_outputs=True)
        if self._key is not None:
            wrapped._lowerings[self._key] = (module, paired, backend, plan)
        return Lowered(self, module, paired, backend, plan)


def _check_pmaps_inside(closed: ClosedJaxpr, name: str, backend: Any) -> None:
    """A jitted program holding a pmap: JAX's warning (its inputs and outputs gather onto one
    device), and its error when the pmaps need more devices than there are."""
    nreps = replicas(closed.jaxpr)
    if nreps > 1:
        warnings.warn(f"The jitted function {name} includes a pmap. Using jit-of-pmap can lead "
                      "to inefficient data movement, as the outer jit does not preserve "
                      "sharded data representations and instead collects input and output "
                      "arrays onto a single device. Consider removing the outer jit unless "
                      "you know what you're doing. See https://github.com/google/jax/issues/"
                      "2926.", stacklevel=2)
    if nreps > backend.device_count():
        raise ValueError(f"compiling computation `{name}` that requires {nreps} replicas, but "
                         f"only {backend.device_count()} XLA devices are available.")


class Lowered(_CompilerStage):
    """`jit(f).lower(*args)`: the generated source, ready to compile."""

    def __init__(self, traced: Traced, module: Any, paired: tuple[bool, ...],
                 backend: Any, plan: Any = None) -> None:
        self._traced = traced
        self._module = module
        self._plan = plan  # `sharded_jit.Plan` of a program with shardings
        self._backend = backend  # the Backend it compiles for
        self._paired = paired  # donated inputs an output takes over
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    def as_text(self, dialect: str | None = None) -> str:
        text: str = self._module.as_text()
        return text if self._plan is None else f"{self._plan.describe()}\n{text}"

    def compiler_ir(self, dialect: str | None = None) -> Any:
        """The lowered module (its `as_text()` is the generated source)."""
        return self._module

    @traceback_util.api_boundary
    def compile(self, compiler_options: Any = None) -> Compiled:
        compile_options.check(compiler_options)
        traced = self._traced
        wrapped, key = traced._wrapped, traced._key
        call = wrapped._cache.get(key) if key is not None and compiler_options is None else None
        if call is None:
            executable = compile_module(self._module, wrapped._name, self._backend,
                                        compiler_options)
            call = dispatch.CompiledCall(executable, traced.out_tree, traced.jaxpr,
                                         self._paired, self._plan)
            if key is not None and compiler_options is None:
                wrapped._cache[key] = call
        return Compiled(traced, call)

    def cost_analysis(self) -> dict[str, float]:
        return cost_analysis(self._traced.jaxpr)


class ArgInfo:
    """One argument of a lowered computation: its aval and whether it is donated."""

    __slots__ = ("_aval", "donated")

    def __init__(self, aval: Any, donated: bool) -> None:
        self._aval = aval
        self.donated = donated

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape  # type: ignore[no-any-return]

    @property
    def dtype(self) -> Any:
        return self._aval.dtype

    def __repr__(self) -> str:
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"


class OutInfo(NamedTuple):
    """One output of a lowered computation: its shape and dtype (no sharding on one device)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    sharding: Any = None


class MemoryAnalysis:
    """Sizes in bytes of a compiled computation's arguments, outputs and temporaries."""

    def __init__(self, closed: ClosedJaxpr) -> None:
        def nbytes(aval: Any) -> int:
            return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize

        self.argument_size_in_bytes = sum(nbytes(a) for a in closed.in_avals)
        self.output_size_in_bytes = sum(nbytes(a) for a in closed.out_avals)
        self.alias_size_in_bytes = 0
        self.generated_code_size_in_bytes = 0
        out_vars = set(closed.jaxpr.outvars)
        self.temp_size_in_bytes = sum(nbytes(v.aval) for e in closed.jaxpr.eqns
                                      for v in e.outvars if v not in out_vars)

    def __repr__(self) -> str:
        return (f"MemoryAnalysis(argument_size_in_bytes={self.argument_size_in_bytes}, "
                f"output_size_in_bytes={self.output_size_in_bytes}, "
                f"temp_size_in_bytes={self.temp_size_in_bytes})")


class PytreeLeaf:
    """Stands for each leaf when two argument structures are compared."""

    def __repr__(self) -> str:
        return "pytree leaf"


def _pytree_mismatch(compiled: PyTreeDef, given: PyTreeDef) -> str:
    """JAX's explanation of a call whose arguments are not structured as the compiled ones."""
    leaf = PytreeLeaf()
    errors = list(equality_errors(tree_unflatten(given, [leaf] * given.num_leaves),
                                  tree_unflatten(compiled, [leaf] * compiled.num_leaves)))
    lines = ["Function compiled with input pytree does not match the input pytree it was "
             f"called with. There are {len(errors)} mismatches, including:"]
    for path, now, seen, why in errors:
        first, *rest = path
        base = ("args", "kwargs")[first.idx]
        lines.append(f"    * at {base}{keystr(tuple(rest))}, seen {seen} but now given {now}, "
                     f"so {why}")
    return "\n".join(lines)


class Compiled(_CompilerStage):
    """`jit(f).lower(*args).compile()`: callable on arguments of the lowered signature only."""

    def __init__(self, traced: Traced, call: dispatch.CompiledCall) -> None:
        self._traced = traced
        self._call = call
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    def as_text(self) -> str:
        text: str = self._call.executable.as_text()
        plan = self._call.plan
        return text if plan is None else f"{plan.describe()}\n{text}"

    def memory_analysis(self) -> MemoryAnalysis:
        return MemoryAnalysis(self._traced.jaxpr)

    def runtime_executable(self) -> Any:
        """The object that runs the program (for debugging: its form is not promised)."""
        return self._call.executable

    @property
    def input_shardings(self) -> Any:
        """The arguments' shardings (args, kwargs): as given or as the arguments were when
        split across devices (the others whole on every device of the mesh), else every one
        whole on the default device."""
        whole = SingleDeviceSharding(devices.default_device())
        plan = self._call.plan
        shardings = self._traced.shardings
        if plan is None or shardings is None:
            return tree_unflatten(self.in_tree, [whole] * self.in_tree.num_leaves)
        mesh_whole = whole if plan.mesh is None else NamedSharding(plan.mesh, PartitionSpec())
        return tree_unflatten(self.in_tree, [mesh_whole if s is None else s
                                             for s in shardings.ins])

    @property
    def output_shardings(self) -> Any:
        whole = SingleDeviceSharding(devices.default_device())
        plan = self._call.plan
        outs = [whole] * self.out_tree.num_leaves if plan is None else \
            [whole if s is None else s for s in plan.out_shardings]
        return tree_unflatten(self.out_tree, outs)

    def cost_analysis(self) -> list[dict[str, float]]:
        """One dict per program, as JAX's compiled executables report it."""
        return [cost_analysis(self._traced.jaxpr)]

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Only the arguments that were traced are passed: static ones are part of the program.
        wrapped = self._traced._wrapped
        flat_args, in_tree = tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(_pytree_mismatch(self.in_tree, in_tree))
        for x in flat_args:
            if isinstance(x, Tracer):
                raise TypeError(
                    "Cannot apply JAX transformations to a function lowered and compiled for a "
                    "particular signature. Detected argument of Tracer type "
                    f"{type(x).__name__}.")
        mismatches = []
        names = self._traced.arg_names
        for i, (x, aval) in enumerate(zip(flat_args, self._traced.in_avals, strict=True)):
            got = get_aval(x)
            if got.shape != aval.shape or got.dtype != aval.dtype:
                name = names[i] if i < len(names) else f"args[{i}]"
                mismatches.append(f"Argument '{name}' compiled with {aval.str_short()} and "
                                  f"called with {got.str_short()}")
        if mismatches:
            raise TypeError("Argument types differ from the types for which this computation "
                            "was compiled. The mismatches are:\n" + "\n".join(mismatches))
        dispatch.check_not_deleted(flat_args)
        device = wrapped._device
        if self._call.plan is not None:
            device = None  # outputs laid out by their shardings
        elif device is not None or any(type(x) is ArrayImpl and x._committed
                                       for x in flat_args):
            device = wrapped._placement(self._call, flat_args, args, kwargs)
        return dispatch.execute(self._call, flat_args, device)


def log_trace_time(name: str, start: float) -> None:
    if compile_log.active():
        compile_log.log_trace(name, time.perf_counter() - start)

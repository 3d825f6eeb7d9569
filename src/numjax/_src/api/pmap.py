"""`pmap`: map a function over devices, SPMD, with collectives over the mapped axis.

A call flattens its arguments, checks the mapped axes (JAX's texts), traces the per-device
function once per signature with the axis name bound (`core/axis_env.py`), and binds the
`xla_pmap` primitive (`api/xla_pmap.py`): evaluated, that runs the per-device program on the
devices (`api/pmap_executable.py`); under a transformation its rules apply.
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from numjax._src import config, traceback_util
from numjax._src.api import pmap_executable
from numjax._src.api.argnums import hashable_static, normalize_argnums
from numjax._src.api.flatten import debug_info, flatten_fun
from numjax._src.api.stages import MemoryAnalysis
from numjax._src.api.transformations import (
    _canonical_dim,
    _flatten_axes,
    _flatten_out_axes,
    _mapped_size,
)
from numjax._src.api.xla_pmap import mapped_aval, pmap_params, xla_pmap_p
from numjax._src.compiler import compile_log
from numjax._src.compiler.cost import cost_analysis
from numjax._src.compiler.executables import cycle_collection_paused
from numjax._src.core import axis_env
from numjax._src.core import trace as trace_mod
from numjax._src.core.avals import ShapeDtypeStruct, shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr
from numjax._src.core.trace import eval_trace
from numjax._src.interpreters.partial_eval import hoist_tracer_consts
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.runtime import devices as devices_mod
from numjax._src.runtime import distributed
from numjax._src.runtime.array import ArrayImpl
from numjax._src.tree_util import (
    PyTreeDef,
    prefix_errors,
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)


class PmapFunction:
    """A pmapped function: call it with arguments mapped along `in_axes` over the devices.

    >>> import numjax, numjax.numpy as jnp
    >>> f = numjax.pmap(lambda x: x * 2)
    >>> f(jnp.ones((1, 3)))
    Array([[2., 2., 2.]], dtype=float32)
    """

    def __init__(self, fun: Callable[..., Any], axis_name: Hashable | None, in_axes: Any,
                 out_axes: Any, static_broadcasted_argnums: Sequence[int],
                 devices: Sequence[Any] | None, backend: str | None, axis_size: int | None,
                 donate_argnums: Sequence[int]) -> None:
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        self._fun = fun
        # An unnamed pmap's axis still needs a name of its own (nested pmaps, the device
        # grid); collectives cannot name it.
        self._axis_name = _TempAxisName() if axis_name is None else axis_name
        self._in_axes = in_axes
        self._out_axes = out_axes
        self._static = tuple(static_broadcasted_argnums)
        self._devices = None if devices is None else tuple(devices)
        self._backend = backend
        self._axis_size = axis_size
        self._donate = tuple(donate_argnums)
        self._name = getattr(fun, "__name__", "<unnamed function>")
        # Traced per-device programs by signature: (program, closed-over tracers, out tree,
        # xla_pmap params).
        self._traces: dict[Any, tuple[ClosedJaxpr, list[Any], PyTreeDef, dict[str, Any]]] = {}
        # Compiled calls on positional Arrays, by their avals: (the executable's entry, out
        # tree, whether the tree is one leaf).
        self._calls: dict[Any, tuple[Callable[[Sequence[Any]], list[Any]], PyTreeDef,
                                     bool]] = {}
        _wrappers.add(self)

    def __repr__(self) -> str:
        return f"<PmapFunction object at {hex(id(self))}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    @traceback_util.boundary_method
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if trace_mod._trace_state.trace is not eval_trace:
            if self._devices is not None and axis_env.names():
                # Inside another pmap the devices are the outer pmap's to choose.
                raise ValueError("Nested pmap with explicit devices argument.")
            flat_args, params, out_tree = self._prepare(args, kwargs)
            return tree_unflatten(out_tree, xla_pmap_p.bind(*flat_args, **params))
        # Under disable_jit JAX runs a pmapped function's Python again on every call (its
        # op-by-op pmap keeps no trace), unless arguments are donated.
        eager = config.disable_jit.value and config.eager_pmap.value and not self._donate
        fast = not eager and not kwargs and not self._static
        if fast:
            # Positional Arrays or NumPy arrays: the signature is their avals (each is a leaf
            # of the input tree, which the avals' count gives), with no flattening or axis
            # checks. An argument's part is what its aval would hold (no aval made per call:
            # a sharded Array, a previous call's output, keeps none).
            parts: list[Any] = []
            for a in args:
                if type(a) is np.ndarray:
                    parts.append((a.shape, a.dtype))
                elif type(a) is ArrayImpl:
                    buf = a._buf
                    parts.append((buf.shape, buf.dtype, a.weak_type))
                else:
                    fast = False
                    break
            else:
                key = (*parts, config.trace_context_id())
                hit = self._calls.get(key)
                if hit is not None:
                    if hit[2]:  # one output, the tree's only leaf
                        return hit[0](args)[0]
                    return tree_unflatten(hit[1], hit[0](args))
        flat_args, params, out_tree = self._prepare(args, kwargs, cache=not eager)
        executable = pmap_executable.executable_for(params, flat_args)
        if fast and len(flat_args) == len(args):
            self._calls[key] = (executable.entry, out_tree,
                                out_tree.num_leaves == 1 and out_tree.num_nodes == 1)
        return tree_unflatten(out_tree, executable.call(flat_args))

    # -- one call ----------------------------------------------------------------------------
    def _prepare(self, args: tuple[Any, ...], kwargs: dict[str, Any], cache: bool = True
                 ) -> tuple[list[Any], dict[str, Any], PyTreeDef]:
        """The flat arguments (closed-over tracers first), the `xla_pmap` params and the
        output tree of this call."""
        if self._devices is not None and not self._devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        n = len(args)
        if self._static and max(self._static) >= n:
            raise ValueError(f"pmapped function has static_broadcasted_argnums={self._static}"
                             f" but was called with only {n} positional "
                             f"argument{'s' if n > 1 else ''}. All static broadcasted "
                             "arguments must be passed positionally.")
        static_positions = {i % n for i in self._static if -n <= i < n}
        statics = tuple((i, hashable_static(args[i])) for i in sorted(static_positions))
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_positions)
        flat_args, in_tree = tree_flatten((dyn_args, kwargs))
        if not flat_args:  # no leaves: empty containers count as no argument, as in JAX
            raise ValueError("pmap wrapped function must be passed at least one argument "
                             f"containing an array, got empty *args={dyn_args} and "
                             f"**kwargs={kwargs}")
        in_axes = self._in_axes
        if static_positions and isinstance(in_axes, tuple):
            # A tuple of in_axes has an entry per positional argument, static ones included.
            in_axes = tuple(in_axes[i] for i in range(min(n, len(in_axes)))
                            if i not in static_positions)
        try:
            dims = _flatten_axes("pmap in_axes", in_tree, (in_axes, 0), dyn_args, kwargs)
        except ValueError:
            raise _in_axes_error(in_axes, dyn_args, kwargs) from None
        dims = [_canonical_dim(d, x, "pmap") for d, x in zip(dims, flat_args, strict=True)]
        names = _LazyNames(lambda: debug_info("pmap", self._fun, args, kwargs,
                                              self._static).arg_names)
        size = _mapped_size(flat_args, dims, self._axis_size, names, "pmap")
        avals = tuple(_abstractify(x) for x in flat_args)
        key = (avals, tuple(dims), size, statics, in_tree, config.trace_context())
        cached = self._traces.get(key) if cache else None
        if cached is None:
            cached = self._trace(args, kwargs, statics, in_tree, avals, dims, size)
            if cache and not cached[1]:  # a program closing over a tracer is that trace's own
                self._traces[key] = cached
        body, extra, out_tree, params = cached
        return [*extra, *flat_args], params, out_tree

    @cycle_collection_paused
    def _trace(self, args: tuple[Any, ...], kwargs: dict[str, Any], statics: Any,
               in_tree: PyTreeDef, avals: Sequence[Any], dims: Sequence[int | None],
               size: int) -> tuple[ClosedJaxpr, list[Any], PyTreeDef, dict[str, Any]]:
        start = time.perf_counter()
        static_values = dict(statics)

        def with_statics(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            full = [static_values[i] if i in static_values else next(it)
                    for i in range(len(args))]
            out = self._fun(*full, **kw)
            # Checked on the traced outputs, so the error names their types as JAX's does.
            try:
                _flatten_out_axes(tree_structure(out), self._out_axes, "pmap")
            except ValueError:
                raise _out_axes_error(self._out_axes, out) from None
            return out

        flat_fun, out = flatten_fun(with_statics, in_tree)
        per_device = [mapped_aval(a, d) for a, d in zip(avals, dims, strict=True)]
        info = debug_info("pmap", self._fun, args, kwargs, self._static)
        # Across processes the axis spans every process's devices: each passes its part.
        global_size = size * _processes(self._devices)
        with axis_env.extend_axis_env(self._axis_name, global_size):
            closed = trace_to_jaxpr(flat_fun, per_device, info)
        closed, extra = hoist_tracer_consts(closed)
        assert out.tree is not None
        out_tree = out.tree
        out_dims = _flatten_out_axes(out_tree, self._out_axes, "pmap")
        out_axes = []
        for d, aval in zip(out_dims, closed.out_avals, strict=True):
            if d is not None and not -(aval.ndim + 1) <= d <= aval.ndim:
                raise ValueError(f"pmap out_axes {d} is out of bounds for an output of rank "
                                 f"{aval.ndim + 1}")
            out_axes.append(None if d is None else d % (aval.ndim + 1))
        if trace_mod._trace_state.trace is eval_trace and compile_log.active():
            compile_log.log_pmap_trace(self._name, time.perf_counter() - start)
        donated = _donation_flags(args, self._static, self._donate, in_tree, kwargs)
        params = pmap_params(
            closed, axis_name=self._axis_name, axis_size=size,
            in_axes=[*[None] * len(extra), *dims], out_axes=out_axes, name=self._name,
            donated_invars=[*[False] * len(extra), *donated], devices=self._devices,
            backend=self._backend, global_axis_size=global_size)
        return closed, extra, out_tree, params

    # -- ahead of time -------------------------------------------------------------------------
    @traceback_util.api_boundary
    def lower(self, *args: Any, **kwargs: Any) -> PmapLowered:
        """Trace and compile for these arguments (arrays or `ShapeDtypeStruct`s)."""
        flat_args, params, out_tree = self._prepare(args, kwargs)
        avals = [_abstractify(x) for x in flat_args]
        names = debug_info("pmap", self._fun, args, kwargs, self._static).arg_names
        return PmapLowered(params, avals, tree_flatten((args, kwargs))[1], out_tree, names)

    def _cache_size(self) -> int:
        return len(self._traces)

    def clear_cache(self) -> None:
        self._traces.clear()
        self._calls.clear()


class _LazyNames(Sequence[str]):
    """The arguments' names, worked out only when an error message reads them."""

    def __init__(self, make: Callable[[], Sequence[str]]) -> None:
        self._make = make
        self._names: Sequence[str] | None = None

    def _get(self) -> Sequence[str]:
        if self._names is None:
            self._names = self._make()
        return self._names

    def __getitem__(self, i: Any) -> Any:
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())


_wrappers: weakref.WeakSet[PmapFunction] = weakref.WeakSet()


class _TempAxisName:
    """The axis name of a pmap given none (printed as JAX prints it)."""

    def __repr__(self) -> str:
        return f"<axis {hex(id(self))}>"


def _in_axes_error(in_axes: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ValueError:
    """JAX's error for `in_axes` that is not a tree prefix of the positional arguments: the
    first structural difference, then what the full tree is."""
    first = prefix_errors((in_axes, 0), (args, kwargs))[0]
    msg = first("pmap in_axes").args[0]
    msg += ("\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the "
            "pmapped function, and the value of `in_axes` must be a tree prefix of that "
            "tuple. But it was not a prefix.")
    if kwargs:
        msg += ("\n\nWhen some arguments are passed by keyword to the pmapped function, they "
                "are not included in the comparison to `in_axes`. Instead, each argument "
                "passed by keyword is mapped over its leading axis. See the description of "
                "`in_axes` in the `pmap` docstring: "
                "https://jax.readthedocs.io/en/latest/_autosummary/jax.pmap.html#jax.pmap")
    msg += ("\n\nCheck that the value of the `in_axes` argument to `pmap` is a tree prefix of "
            "the tuple of arguments passed positionally to the pmapped function.")
    return ValueError(msg)


def _out_axes_error(out_axes: Any, out: Any) -> ValueError:
    """JAX's error for `out_axes` that is not a tree prefix of the function's output."""
    msg = prefix_errors(out_axes, out)[0]("pmap out_axes").args[0]
    return ValueError(msg + "\n\nThe full pytree is the output of the pmapped function. "
                      "Ensure that the `out_axes` argument to `pmap` is a pytree prefix of "
                      "the pmapped function's output.")


def _check_axes_leaves(what: str, axes: Any) -> None:
    if not all(type(leaf) is int for leaf in tree_leaves(axes)):
        raise TypeError(f"pmap {what} must be an int, None, or (nested) container with those "
                        f"types as leaves, but got {axes}.")


def _processes(devices: Any) -> int:
    """How many processes a pmap spans: all of them, unless it names its devices."""
    return distributed.state.process_count if devices is None else 1


def _abstractify(x: Any) -> Any:
    return x.aval if isinstance(x, ShapeDtypeStruct) else shaped_abstractify(x)


def _donation_flags(args: tuple[Any, ...], static: Sequence[int], donate: Sequence[int],
                    in_tree: PyTreeDef, kwargs: dict[str, Any]) -> list[bool]:
    """One flag per flat dynamic argument: whether its positional argument is donated."""
    if not donate:
        return [False] * in_tree.num_leaves
    n = len(args)
    statics = {i % n for i in static if -n <= i < n}
    donated = {i % n for i in donate if -n <= i < n}
    flags: list[bool] = []
    for i, a in enumerate(args):
        if i not in statics:
            flags.extend([i in donated] * len(tree_flatten(a)[0]))
    flags.extend([False] * (in_tree.num_leaves - len(flags)))
    return flags


class PmapLowered:
    """`pmap(f).lower(*args)`: the compiled per-device program for these arguments."""

    _no_kwargs = False  # JAX's stages take keyword arguments too

    def __init__(self, params: dict[str, Any], avals: Sequence[Any], in_tree: PyTreeDef,
                 out_tree: PyTreeDef, arg_names: Sequence[str] = ()) -> None:
        self._params = params
        self._avals = list(avals)
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.arg_names = tuple(arg_names)

    @property
    def in_avals(self) -> Any:
        """The arguments' avals, as (positional, keyword) like the arguments."""
        return tree_unflatten(self.in_tree, self._avals[len(self._avals)
                                                        - self.in_tree.num_leaves:])

    def _executable(self) -> pmap_executable.PmapExecutable:
        return pmap_executable._executable(self._params, self._avals)

    def as_text(self, dialect: str | None = None) -> str:
        return self._executable().executable.as_text()

    def compiler_ir(self, dialect: str | None = None) -> Any:
        """The per-device program, compiled (its `as_text()` is the generated source)."""
        return self._executable().executable

    def compile(self, compiler_options: Any = None) -> PmapCompiled:
        return PmapCompiled(self, self._executable())

    def cost_analysis(self) -> dict[str, float]:
        return cost_analysis(self._params["call_jaxpr"])


class PmapCompiled:
    """`pmap(f).lower(*args).compile()`: callable on arguments of the lowered signature."""

    def __init__(self, lowered: PmapLowered, executable: pmap_executable.PmapExecutable
                 ) -> None:
        self._lowered = lowered
        self._executable = executable
        self.in_tree = lowered.in_tree
        self.out_tree = lowered.out_tree

    _no_kwargs = False

    @property
    def in_avals(self) -> Any:
        return self._lowered.in_avals

    def as_text(self) -> str:
        return self._executable.executable.as_text()

    def runtime_executable(self) -> pmap_executable.PmapExecutable:
        return self._executable

    def memory_analysis(self) -> MemoryAnalysis:
        """Sizes of one device's program: its arguments, outputs and temporaries."""
        return MemoryAnalysis(self._lowered._params["call_jaxpr"])

    def cost_analysis(self) -> list[dict[str, float]]:
        return [self._lowered.cost_analysis()]

    @traceback_util.api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat_args, in_tree = tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError("Function compiled with input pytree does not match the input "
                            f"pytree it was called with: compiled for {self.in_tree}, called "
                            f"with {in_tree}.")
        extra = len(self._lowered._avals) - len(flat_args)
        names = self._lowered.arg_names
        mismatches = []
        for i, (x, aval) in enumerate(zip(flat_args, self._lowered._avals[extra:], strict=True)):
            got = shaped_abstractify(x)
            if got.shape != aval.shape or got.dtype != aval.dtype:
                name = names[i] if i < len(names) else f"args[{i}]"
                mismatches.append(f"Argument '{name}' compiled with {aval.str_short()} and "
                                  f"called with {got.str_short()}")
        if mismatches:
            raise TypeError("Argument types differ from the types for which this computation "
                            "was compiled. The mismatches are:\n" + "\n".join(mismatches))
        if extra:
            raise TypeError("A pmap closing over traced values cannot be called compiled.")
        outs = self._executable.call(flat_args)
        return tree_unflatten(self.out_tree, outs)


def pmap(fun: Callable[..., Any] | None = None, axis_name: Hashable | None = None, *,
         in_axes: Any = 0, out_axes: Any = 0, static_broadcasted_argnums: int | Sequence[int]
         = (), devices: Sequence[Any] | None = None, backend: str | None = None,
         axis_size: int | None = None, donate_argnums: int | Sequence[int] = (),
         global_arg_shapes: Any = None) -> Any:
    """Map `fun` over the devices: each runs it on its slice of the mapped arguments (along
    `in_axes`), side by side; collectives (`lax.psum`, ...) over `axis_name` combine the
    devices' values. Outputs are stacked along `out_axes`, one slice per device.

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax import lax
    >>> numjax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(jnp.ones(1))
    Array([1.], dtype=float32)
    """
    if fun is None:
        return functools.partial(
            pmap, axis_name=axis_name, in_axes=in_axes, out_axes=out_axes,
            static_broadcasted_argnums=static_broadcasted_argnums, devices=devices,
            backend=backend, axis_size=axis_size, donate_argnums=donate_argnums,
            global_arg_shapes=global_arg_shapes)
    if global_arg_shapes is not None:
        raise ValueError("global_arg_shapes only worked with sharded_jit which has long been "
                         "removed from JAX. Please migrate to pjit and remove "
                         "global_arg_shapes from pmap.")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    _check_axes_leaves("in_axes", in_axes)
    _check_axes_leaves("out_axes", out_axes)
    if backend is not None:
        devices_mod.get_backend(backend)  # JAX's error for an absent platform
    static = normalize_argnums(static_broadcasted_argnums)
    donate = normalize_argnums(donate_argnums)
    if set(static) & set(donate):
        raise ValueError(f"`static_broadcasted_argnums` {sorted(static)} and `donate_argnums` "
                         f"{sorted(donate)} cannot intersect.")
    if axis_size is not None and not isinstance(axis_size, int | np.integer):
        raise TypeError(f"axis_size must be an int, got {axis_size!r}")
    return PmapFunction(fun, axis_name, in_axes, out_axes, static, devices, backend,
                        axis_size, donate)


def clear_caches() -> None:
    for wrapped in list(_wrappers):
        wrapped.clear_cache()
    pmap_executable.clear_cache()

"""The host_callback API (deprecated in JAX, still used by older programs): `id_tap`,
`id_print`, `call` and `barrier_wait`, on one `outside_call` primitive.

`id_tap(tap, x)` returns `x` and calls `tap(x, transforms)` with NumPy arrays when it runs
(also when its result is unused: the primitive has an effect). Transformations
are reported rather than hidden: under jvp the tap sees the primals, under vmap it sees the
whole batch once, with `("batch", {"batch_dims": ...})` in `transforms`. `call(f, x,
result_shape=...)` returns `f(x)`, checked against `result_shape`, and cannot be
differentiated or batched. Callbacks run synchronously, so `barrier_wait` only waits for
computations already dispatched.
"""

from __future__ import annotations

import enum
import functools
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes
from numjax._src.api.callbacks import _runtime_error, _with_avals
from numjax._src.api.device_put import effects_barrier
from numjax._src.core import pretty as pp
from numjax._src.core.avals import ShapedArray, get_aval
from numjax._src.core.effects import outside_call_effect
from numjax._src.core.trace import Primitive
from numjax._src.interpreters.ad import instantiate_zeros
from numjax._src.runtime import spmd
from numjax._src.runtime.devices import local_devices
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_unflatten

logger = logging.getLogger("numjax")


class CallbackException(Exception):
    """Raised by `barrier_wait` for an exception in a callback (kept for compatibility: here
    callbacks run synchronously and their errors surface at the call)."""


TapFunctionException = CallbackException  # JAX's older name


class CallbackFlavor(enum.Enum):
    """Which callback JAX's non-legacy host_callback uses; accepted and ignored here (taps
    and calls always run synchronously, as JAX's default legacy mode does on CPU)."""

    IO_CALLBACK = 1
    PURE = 2
    DEBUG = 3


class _CallbackWrapper:
    """The user's function and how to call it; equal for equal functions, so executables are
    shared."""

    def __init__(self, callback_func: Callable[..., Any], identity: bool,
                 call_with_device: bool) -> None:
        self.callback_func = callback_func
        self.identity = identity
        self.call_with_device = call_with_device

    def __hash__(self) -> int:
        return hash((self.callback_func, self.identity, self.call_with_device))

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, _CallbackWrapper) and self.callback_func == other.callback_func
                and self.identity == other.identity
                and self.call_with_device == other.call_with_device)

    def __call__(self, arg: Any, device: Any, transforms: Any) -> Any:
        extra = {"device": device} if self.call_with_device else {}
        if self.identity:
            return self.callback_func(arg, transforms, **extra)
        return self.callback_func(arg, **extra)


outside_call_p = Primitive("outside_call")
outside_call_p.multiple_results = True
outside_call_p.host_callback = True


@outside_call_p.def_effectful_abstract_eval
def _outside_call_abstract_eval(*avals: Any, identity: bool, flat_results_aval: Any = (),
                                **params: Any) -> Any:
    outs = list(avals) if identity else list(flat_results_aval)
    return outs, frozenset([outside_call_effect])


def _unpack_transforms(transforms: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    return tuple((name, {"batch_dims": rest[0]}) if name == "batch" else (name, {})
                 for name, *rest in transforms)


def _outside_call_kernel(*bufs: Any, callback: _CallbackWrapper, identity: bool,
                         arg_treedef: PyTreeDef, device_index: int,
                         result_treedef: PyTreeDef | None = None,
                         flat_results_aval: Sequence[Any] = (),
                         transforms: Sequence[Any] = (), avals: Sequence[Any] | None = None
                         ) -> list[Any]:
    arrays = [np.asarray(b) if avals is None else np.asarray(b, a.dtype)
              for b, a in zip(bufs, avals or bufs, strict=True)]
    try:
        arg = tree_unflatten(arg_treedef, [a.copy() for a in arrays])
        # On a device of a pmap, the callback names that device (JAX's tap_with_device).
        device = spmd.current_device() or local_devices()[device_index]
        result = callback(arg, device, _unpack_transforms(transforms))
        if identity:
            return arrays
        leaves, tree = tree_flatten(result)
        if tree != result_treedef:
            raise TypeError(f"Callback func {callback} should have returned a result with "
                            f"pytree {result_treedef} but returned {tree}")
        values = [np.asarray(v) for v in leaves]
        values = [v.astype(dtypes.canonicalize_dtype(v.dtype)) for v in values]
        got = [ShapedArray(v.shape, v.dtype) for v in values]
        if any(g.shape != e.shape or g.dtype != e.dtype
               for g, e in zip(got, flat_results_aval, strict=True)):
            assert result_treedef is not None
            raise TypeError(
                f"Callback func {callback} should have returned a result with abstract "
                f"values {tree_unflatten(result_treedef, list(flat_results_aval))!r} but "
                f"returned {tree_unflatten(tree, got)!r}")
        return values
    except Exception as error:
        logger.error("Outside call %s threw exception %s.", callback, error)
        raise _runtime_error(error) from error


outside_call_p.def_impl(_outside_call_kernel)
outside_call_p.def_kernel_factory(_with_avals(_outside_call_kernel))


def _with_transform(params: dict[str, Any], *transform: Any) -> dict[str, Any]:
    return {**params, "transforms": (*params.get("transforms", ()), tuple(transform))}


@outside_call_p.def_jvp
def _outside_call_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                      ) -> tuple[Any, Any]:
    if not params["identity"]:
        raise NotImplementedError("JVP rule is implemented only for id_tap, not for call.")
    return outside_call_p.bind(*primals, **params), list(tangents)


@outside_call_p.def_transpose
def _outside_call_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> Any:
    if not params["identity"]:
        raise NotImplementedError(
            "differentiation rules are implemented only for id_tap, not for call.")
    return outside_call_p.bind(*[instantiate_zeros(c) for c in cts],
                               **_with_transform(params, "transpose"))


@outside_call_p.def_batch
def _outside_call_batch(args: Sequence[Any], dims: Sequence[Any], **params: Any
                        ) -> tuple[Any, Any]:
    if not params["identity"]:
        raise NotImplementedError(
            "batching rules are implemented only for id_tap, not for call.")
    outs = outside_call_p.bind(*args, **_with_transform(params, "batch", tuple(dims)))
    return outs, list(dims)


def _check_arg(x: Any) -> None:
    try:
        get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type") from None


def _call(callback_func: Callable[..., Any], arg: Any, *, result_shape: Any = None,
          call_with_device: bool = False, device_index: int = 0, identity: bool = False
          ) -> Any:
    if not callable(callback_func):
        raise TypeError(f"Expected a callable value, got {callback_func}")
    flat_args, arg_treedef = tree_flatten(arg)
    for a in flat_args:
        _check_arg(a)
    params: dict[str, Any] = {
        "callback": _CallbackWrapper(callback_func, identity, call_with_device),
        "identity": identity, "arg_treedef": arg_treedef, "device_index": device_index}
    if not identity:
        flat_shapes, result_treedef = tree_flatten(result_shape)
        try:
            avals = [ShapedArray(tuple(np.shape(r)), dtypes.canonicalize_dtype(
                dtypes.dtype(r))) for r in flat_shapes]
        except Exception:
            raise ValueError(
                "result_shape should be a pytree of values with structure matching the "
                "expected result of the callback function. The values must be either numeric "
                f"scalars, or must have 'shape' and 'dtype' attributes. Got {result_shape}"
            ) from None
        params["result_treedef"] = result_treedef
        params["flat_results_aval"] = tuple(avals)
    outs = outside_call_p.bind(*flat_args, **params)
    if identity:
        return tree_unflatten(arg_treedef, outs)
    return tree_unflatten(params["result_treedef"], outs)


def id_tap(tap_func: Callable[..., Any], arg: Any, *, result: Any = None,
           tap_with_device: bool = False, device_index: int = 0,
           callback_flavor: Any = None, **kwargs: Any) -> Any:
    """Call `tap_func(arg, transforms)` on the host and return `arg` (or `result`)."""
    if kwargs:
        raise TypeError(
            "Support for **kwargs in ``id_tap`` has been removed. Instead, pre-apply keyword "
            "arguments, either by using a closure or by passing "
            "``functools.partial(tap_func, **kwargs)``.")
    if result is not None:
        for r in tree_flatten(result)[0]:
            _check_arg(r)
    tapped = _call(tap_func, arg, call_with_device=tap_with_device,
                   device_index=device_index, identity=True)
    return tapped if result is None else result


_print_lock = threading.Lock()


def _pp_value(value: Any, threshold: int | None) -> pp.Doc:
    def seq(open_: str, close: str, items: list[pp.Doc]) -> pp.Doc:
        return pp.group(pp.concat([pp.text(open_), pp.nest(2, pp.join(pp.brk(), items)),
                                   pp.text(close)]))

    if isinstance(value, tuple):
        return seq("( ", " )", [_pp_value(v, threshold) for v in value])
    if isinstance(value, list):
        return seq("[ ", " ]", [_pp_value(v, threshold) for v in value])
    if isinstance(value, dict):
        return seq("{ ", " }", [pp.concat([pp.text(f"{k}="), _pp_value(v, threshold)])
                                for k, v in sorted(value.items())])
    if isinstance(value, np.ndarray):
        return pp.text(np.array2string(value, threshold=threshold))
    return pp.text(str(value))


def _print_tap(arg: Any, transforms: Any, *, device: Any = None, output_stream: Any = None,
               threshold: int | None = 1024, **kwargs: Any) -> None:
    def emit(s: str) -> None:
        (output_stream or sys.stdout).write(s + "\n")

    if transforms:
        kwargs["transforms"] = [(name, params) if params else name
                                for name, params in transforms]
    if device is not None:
        kwargs["device"] = device
    header = " ".join(f"{k}: {v}" for k, v in sorted(kwargs.items()))
    with _print_lock:
        if header:
            emit(header)
        emit(pp.render(_pp_value(arg, threshold)))


def id_print(arg: Any, *, result: Any = None, tap_with_device: bool = False,
             device_index: int = 0, output_stream: Any = None, threshold: int | None = None,
             callback_flavor: Any = None, **kwargs: Any) -> Any:
    """Print `arg` on the host (after `key: value` lines for `kwargs`) and return it (or
    `result`)."""
    printer = functools.partial(_print_tap, output_stream=output_stream, threshold=threshold,
                                **kwargs)
    return id_tap(printer, arg, result=result, tap_with_device=tap_with_device,
                  device_index=device_index)


def call(callback_func: Callable[..., Any], arg: Any, *, result_shape: Any = None,
         call_with_device: bool = False, device_index: int = 0,
         callback_flavor: Any = None) -> Any:
    """`callback_func(arg)` computed on the host; its result must match `result_shape` (a
    pytree of arrays, ShapeDtypeStructs or scalars). Not differentiable, not batchable."""
    return _call(callback_func, arg, result_shape=result_shape,
                 call_with_device=call_with_device, device_index=device_index)


def barrier_wait(logging_name: str | None = None) -> None:
    """Wait until the callbacks of computations already dispatched have run."""
    effects_barrier()


def stop_outfeed_receiver() -> None:
    """Nothing to stop: callbacks run in the computation's own thread."""
    barrier_wait()

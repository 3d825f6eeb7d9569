"""Running a compiled program on its arguments: buffers in, donation, outputs wrapped as Arrays.

`CompiledCall` is what a compile produces and every caller runs: a jitted function's cache
entry, and the `Compiled` stage of `jit(f).lower(...).compile()`. `execute` is the one general
call path both use (a jitted call's hot path is an inlined copy of its donation-free,
uncommitted case). Donated inputs paired with an output at compile time are handed over when
nothing else can see their buffers and are deleted after the call.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src import config, dtypes
from numjax._src.compiler import native_tier
from numjax._src.compiler.buffers import private_host_inputs, private_results
from numjax._src.compiler.codegen import Executable
from numjax._src.compiler.cost import cost_analysis
from numjax._src.compiler.eager import host_value
from numjax._src.core.avals import AbstractToken, Token, get_aval
from numjax._src.core.errors import XlaRuntimeError
from numjax._src.core.jaxpr import ClosedJaxpr, Var
from numjax._src.runtime import placement, stream, transfer_guard
from numjax._src.runtime.array import ArrayImpl, make_array, sharded_array
from numjax._src.runtime.sharding import SingleDeviceSharding, is_addressable
from numjax._src.tree_util import PyTreeDef, tree_unflatten


class CompiledCall:
    """A compiled program with what calling it needs: the executable, the output tree and
    avals, the donated inputs an output takes over, the inputs an output may alias, and
    whether it runs on the device's stream."""

    __slots__ = ("executable", "out_tree", "out_avals", "closed", "donated", "single", "float0",
                 "async_", "aliased", "plan", "out_shardings")

    def __init__(self, executable: Executable, out_tree: PyTreeDef, closed: ClosedJaxpr,
                 donated: tuple[bool, ...], plan: Any = None) -> None:
        self.executable = executable
        # A program with shardings (`sharded_jit.Plan`): its outputs' layouts.
        self.plan = plan
        self.out_shardings = None if plan is None else plan.out_shardings
        self.out_tree = out_tree
        self.out_avals = list(closed.out_avals)
        self.closed = closed
        self.donated = donated if any(donated) else ()
        self.aliased = _aliased_inputs(executable)
        # The aval of the only output when the output tree is a single leaf (hot-path shortcut).
        # float0 outputs (integer inputs' cotangents) are NumPy arrays, as in JAX: no device
        # holds them and no operation accepts them.
        # Tokens are no arrays either: a token output is a new Token.
        self.float0 = any(a.dtype == dtypes.float0 or type(a) is AbstractToken
                          for a in self.out_avals)
        self.single = self.out_avals[0] if out_tree.num_leaves == 1 and out_tree.num_nodes == 1 \
            and plan is None and not self.float0 else None
        # Large computations run on the device's stream (see runtime/stream.py); effectful ones
        # stay inline, in program order with the caller, and so do checked ones (debug_nans
        # raises at the call, as in JAX) and any calling back into Python (a pure callback may
        # itself dispatch to the stream it would be running on).
        calls_host = getattr(getattr(executable, "module", None), "host_callbacks", None)
        # A refused call (an output too large to allocate) raises at the call, as in JAX.
        self.async_ = (plan is None and not closed.jaxpr.effects and not calls_host
                       and not self.float0
                       and not getattr(executable, "refuses", 0)
                       and not config.debug_nans.value
                       and not config.debug_infs.value
                       and cost_analysis(closed)["bytes accessed"] >= stream.async_min_bytes.value)
        # A hot program whose primitives all have native rules swaps in native code.
        native_tier.attach(executable)


def execute(call: CompiledCall, flat_args: Sequence[Any], device: Any) -> Any:
    """Run `call` on the flat arguments (Arrays or host values, already placed on `device`);
    returns the output tree, committed to `device` unless it is None."""
    if call.plan is not None and call.plan.spans_processes(flat_args):
        per_shard = call.plan.run_per_shard(flat_args)
        if per_shard is not None:
            return tree_unflatten(call.out_tree, per_shard)
        flat_args = call.plan.gathered(flat_args)
    if not call.donated:
        bufs = [buffer(x) for x in flat_args]
        if call.async_:
            return dispatch_async(call, private_host_inputs(bufs, flat_args), device)
        outs = call.executable(*[stream.resolve(b) for b in bufs])
        if call.aliased:  # the program has returned: copy only an output that is a view
            outs = private_results(outs, flat_args, call.aliased)
        return placed_outputs(call, outs, device)
    bufs = _donated_buffers(flat_args, call.donated)
    if call.async_:
        _delete_donated(flat_args, call.donated)
        return dispatch_async(call, private_host_inputs(bufs, flat_args), device)
    if call.aliased:
        bufs = private_host_inputs(bufs, flat_args, call.aliased)
    try:
        outs = call.executable(*[stream.resolve(b) for b in bufs])
    except BaseException as exc:
        # JAX deletes the donated inputs of a failed call too; numjax keeps those whose
        # buffers were not written (a private copy was donated, or the failure came before
        # the first result written into it).
        written = _donated_written(exc)
        for i, (x, buf, paired) in enumerate(zip(flat_args, bufs, call.donated, strict=True)):
            if (paired and type(x) is ArrayImpl and buf is x._buf
                    and (written is None or written >> i & 1)):
                x._consume()
        raise
    _delete_donated(flat_args, call.donated)
    return placed_outputs(call, outs, device)


def _donated_written(exc: BaseException) -> int | None:
    """The bits of the donated inputs the failed code had written into (None: unknown)."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        written = getattr(error, "donated_written", None)
        if written is not None:
            return int(written)
        error = error.__cause__ or error.__context__
    return None


def check_not_deleted(args: Sequence[Any]) -> None:
    for x in args:
        if type(x) is ArrayImpl and x.is_deleted():
            if not x._buf.donated:
                raise x._buf._error()
            raise ValueError("INVALID_ARGUMENT: Invalid buffer passed: buffer has been deleted "
                             "or donated.")


def dispatch_aval(x: Any) -> Any:
    """The aval of an argument the call hands to the executable. One traced as the shape and
    dtype it claims (a NumPy string scalar, an object with a dtype attribute) has none: JAX's
    error when the call is dispatched."""
    try:
        return get_aval(x)
    except TypeError:
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type.") from None


def buffer(x: Any) -> Any:
    """An argument's buffer; a host value (NumPy array, Python scalar) is placed on the device,
    an implicit host-to-device transfer."""
    if type(x) is ArrayImpl:
        return x._buf
    buf, aval = host_value(x, guard=False)
    if transfer_guard._in_use:
        transfer_guard.host_to_device(buf, aval.dtype)
    return buf


def _aliased_inputs(executable: Any) -> tuple[int, ...]:
    """Inputs an output of `executable` may share a buffer with (see `LoweredModule`); an
    executable from elsewhere (a compile hook's own) is assumed to alias any of them."""
    module = getattr(executable, "module", None)
    aliased = getattr(module, "aliased_inputs", None)
    if aliased is None:
        return tuple(range(len(getattr(getattr(module, "jaxpr", None), "invars", ()))))
    return aliased  # type: ignore[no-any-return]


def _donated_buffers(flat_args: Sequence[Any], donated: Sequence[bool]) -> list[Any]:
    """The argument buffers of a call with donation. A donated Array's buffer goes to the
    executable to overwrite when nothing else can see it (no view of it, no other Array on
    it); otherwise a private copy does, so that in-place writes stay invisible."""
    _check_donated_uses(flat_args, donated)
    bufs = []
    for x, paired in zip(flat_args, donated, strict=True):
        if not paired:
            bufs.append(buffer(x))
        elif type(x) is not ArrayImpl:
            # A host value is placed on the device; the executable may overwrite that copy,
            # never the user's array.
            bufs.append(np.array(buffer(x), copy=True))
        else:
            bufs.append(_exclusive_buffer(x))
    return bufs


def _check_donated_uses(flat_args: Sequence[Any], donated: Sequence[bool]) -> None:
    """JAX's errors for an Array donated in a call that also passes it elsewhere (before the
    call runs, so nothing is deleted)."""
    donated_at: dict[int, int] = {}
    used_at: dict[int, int] = {}
    for i, (x, paired) in enumerate(zip(flat_args, donated, strict=True)):
        if type(x) is not ArrayImpl:
            continue
        key = id(x)
        if paired and key in donated_at:
            problem, example, first = ("donate the same buffer twice in",
                                       "f(donate(a), donate(a))", donated_at[key])
        elif paired and key in used_at:
            problem, example, first = ("donate a buffer which is also used by the same call to",
                                       "f(a, donate(a))", used_at[key])
        elif not paired and key in donated_at:
            problem, example, first = ("use a buffer that was previously donated in the same "
                                       "call to", "f(donate(a), a)", donated_at[key])
        else:
            (donated_at if paired else used_at).setdefault(key, i)
            continue
        raise XlaRuntimeError(
            f"INVALID_ARGUMENT: Attempt to {problem} Execute() (flattened argument {i}, replica "
            f"0, partition 0, first use: {first}). Toy example for this bug: `{example}`.")


def _delete_donated(flat_args: Sequence[Any], donated: Sequence[bool]) -> None:
    for x, paired in zip(flat_args, donated, strict=True):
        if paired and type(x) is ArrayImpl:
            x._consume()


def _exclusive_buffer(x: ArrayImpl) -> Any:
    # A pending buffer is waited for: ownership is decided on the value itself.
    stream.resolve(x._buf)
    buf = x._buf
    # References: the Array's slot, `buf` here and getrefcount's argument. A view of the
    # buffer (a reshape's result, np.asarray(x)) or a second Array on it adds one.
    if (type(buf) is np.ndarray and buf.flags.owndata and buf.flags.writeable
            and sys.getrefcount(buf) <= 3):
        return buf
    return np.array(buf, copy=True)


def dispatch_async(call: CompiledCall, bufs: Sequence[Any], device: Any) -> Any:
    """Hand the call to its device's stream; the outputs are pending until it has run."""
    target = device if device is not None else placement.default_device()
    arrays = [make_array(None, aval) for aval in call.out_avals]
    stream.stream_for(target).submit(call.executable, bufs, arrays, call.out_avals)
    if device is not None:
        placement.place(arrays, device)
    return tree_unflatten(call.out_tree, arrays)


def wrap_outputs(outs: Sequence[Any], avals: Sequence[Any], float0: bool = False
                 ) -> list[Any]:
    if float0:
        return [Token() if type(aval) is AbstractToken
                else np.zeros(aval.shape, dtypes.float0) if aval.dtype == dtypes.float0
                else make_array(buf, aval) for buf, aval in zip(outs, avals, strict=True)]
    return [make_array(buf, aval) for buf, aval in zip(outs, avals, strict=True)]


def placed_outputs(call: CompiledCall, outs: Sequence[Any], device: Any) -> Any:
    """The call's output tree; committed to `device` unless it is None."""
    if call.out_shardings is not None:
        arrays = [laid_out(buf, aval, s) for buf, aval, s in
                  zip(outs, call.out_avals, call.out_shardings, strict=True)]
        return tree_unflatten(call.out_tree, arrays)
    arrays = wrap_outputs(outs, call.out_avals, call.float0)
    if device is not None:
        placement.place([a for a in arrays if type(a) is ArrayImpl], device)
    return tree_unflatten(call.out_tree, arrays)


def laid_out(buf: Any, aval: Any, sharding: Any) -> ArrayImpl:
    """An output Array with `sharding` (None: on the default device, uncommitted): one
    device's is committed there; a split one's blocks are views of the value."""
    if sharding is None:
        return make_array(buf, aval)
    if isinstance(sharding, SingleDeviceSharding):
        array = make_array(buf, aval)
        placement.place([array], next(iter(sharding.device_set)))
        return array
    if not sharding.is_fully_addressable:
        # Laid out across processes: this process keeps its own devices' blocks only.
        where = sharding.devices_indices_map(aval.shape)
        value = np.asarray(stream.resolve(buf))
        return sharded_array([value[where[d]] if is_addressable(d) else None
                              for d in sharding._device_assignment], aval, sharding)
    return sharded_array(None, aval, sharding, global_buf=buf)


def pair_donations(donated: tuple[bool, ...], closed: ClosedJaxpr, in_avals: Sequence[Any],
                   keep_unused: bool) -> tuple[bool, ...]:
    """Which donated inputs an output takes over (warning about the rest, as JAX does)."""
    if donated and not keep_unused:
        # Arguments the computation never reads are dropped, not "unusable" (as in JAX).
        used = _used_invars(closed)
        donated = tuple(d and u for d, u in zip(donated, used, strict=True))
    donated = _warn_unusable_donations(donated, in_avals, closed.out_avals)
    if config.debug_nans.value or config.debug_infs.value:
        # Donation is off while NaNs are checked, as in JAX: inputs stay readable for the
        # op-by-op re-run that locates the bad value.
        donated = ()
    return donated


def _used_invars(closed: ClosedJaxpr) -> list[bool]:
    read = {a for e in closed.jaxpr.eqns for a in e.invars if isinstance(a, Var)}
    read.update(a for a in closed.jaxpr.outvars if isinstance(a, Var))
    return [v in read for v in closed.jaxpr.invars]


def _warn_unusable_donations(donated: tuple[bool, ...], in_avals: Sequence[Any],
                             out_avals: Sequence[Any]) -> tuple[bool, ...]:
    """Pair each donated input with an unpaired output of the same shape and dtype; warn about
    the donated inputs left over, as JAX does. Returns which inputs were paired (those are
    deleted after each call)."""
    if not any(donated):
        return ()
    paired = []
    available: dict[tuple[Any, Any], int] = {}
    for a in out_avals:
        k = (a.shape, a.dtype)
        available[k] = available.get(k, 0) + 1
    unusable = []
    for flag, a in zip(donated, in_avals, strict=True):
        k = (a.shape, a.dtype)
        if flag and available.get(k, 0):
            available[k] -= 1
            paired.append(True)
            continue
        paired.append(False)
        if flag:
            unusable.append(a.strip_weak_type())
    if unusable:
        warnings.warn(
            "Some donated buffers were not usable: "
            f"{', '.join(f'ShapedArray({a.str_short()})' for a in unusable)}"
            ".\nSee an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-"
            "donation.", stacklevel=_user_stacklevel())
    return tuple(paired)


def _user_stacklevel() -> int:
    """The stack level of the first frame outside numjax (the warning names the user's line
    whichever path, a call or an AOT stage, compiled the program)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("numjax."):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level

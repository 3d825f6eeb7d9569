"""Buffer planning: which memory each result of a generated program is written into, and which
buffers a program's outputs may share with its inputs.

A generated program allocates a new buffer for every ufunc result unless the plan hands it a
dying intermediate of the same shape and dtype (`out=`), so a chain of elementwise steps runs in
a few buffers. The plan is made once per jaxpr, before any code is written
(`plan_buffers(jaxpr, clusters, donated) -> Plan`); `codegen.Emitter` only reads it.

The same facts about which kernels make new memory answer two questions asked at a call:
whether an output may be a broadcast view (it is then copied: an Array owns its memory), and
whether an output may share memory with an input. JAX's outputs own their buffers, and a caller
may write to a NumPy array it passed once the call has returned; the result must not change.
A program's call copies such an array before the call when an output may share its memory, or
whatever the outputs are when the program runs on a device's stream after the call returns
(`private_host_inputs`). An eager kernel runs inline and returns what it returns: its result is
checked and copied after the call instead, only when it does share memory (`unshare_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from numjax._src.compiler import fusion
from numjax._src.core.jaxpr import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Var


@dataclass
class Plan:
    """Where the results of one jaxpr's equations go.

    `out`: equation index -> the dying operand whose buffer takes the equation's (ufunc) result.
    `cluster_targets`: first index of a fused cluster -> {cluster output: dying cluster input
    whose buffer takes it}. `implicit_broadcasts`: indices of broadcasts no array is made for
    (NumPy's broadcasting inside the ufuncs reading them does it)."""

    out: dict[int, Var] = field(default_factory=dict)
    cluster_targets: dict[int, dict[Var, Var]] = field(default_factory=dict)
    implicit_broadcasts: set[int] = field(default_factory=set)


def makes_new_buffer(eqn: JaxprEqn) -> bool:
    """Whether `eqn`'s results are always memory of their own, aliasing none of its operands:
    ufunc results with a shape (a 0-d ufunc result may be a NumPy scalar) and the results of
    `fresh_result` primitives (a matrix product)."""
    if eqn.primitive.fresh_result or eqn.primitive.updates_in_place:
        return True
    return fusion.fusable_ufunc(eqn) is not None and bool(eqn.outvars[0].aval.shape)


def plan_buffers(jaxpr: Jaxpr, clusters: dict[int, tuple[int, fusion.Cluster]],
                 donated: Sequence[Var] = (),
                 inline: Callable[[JaxprEqn], bool] = lambda eqn: False) -> Plan:
    """The buffer plan of `jaxpr`, whose equations are emitted in order, the fused `clusters`
    (first index -> (stop, cluster)) as one step each. `donated` invars may be overwritten once
    dead, like intermediates. `inline(eqn)` tells the equations emitted as inline Python (a
    loop or branch whose body reads its operands by name).

    Only buffers the program allocated itself (ufunc results, fresh kernel results) or was
    given (donated inputs) are ever overwritten; inputs and constants are not, nor a buffer
    while a value that may be a view of it (a kernel's result: a reshape, a slice) is still to
    be read or is an output, nor anything an inline loop or branch reads."""
    live_out = {a for a in jaxpr.outvars if isinstance(a, Var)}
    plan = Plan(implicit_broadcasts=_implicit_broadcasts(jaxpr, live_out, clusters))
    owned: set[Var] = set(donated)
    last_use: dict[Var, int] = {}
    for index, eqn in enumerate(jaxpr.eqns):
        for a in eqn.invars:
            if isinstance(a, Var):
                last_use[a] = index
    # A broadcast made by no array is its operand's buffer, read by name where the broadcast
    # value is read: the operand lives as long as the broadcast (CSE shares one broadcast
    # between ufuncs far apart, beyond the operand's last direct read).
    for index in plan.implicit_broadcasts:
        eqn = jaxpr.eqns[index]
        operand, result = eqn.invars[0], eqn.outvars[0]
        if isinstance(operand, Var) and result in last_use:
            last_use[operand] = max(last_use.get(operand, index), last_use[result])
    views = _Views(owned, last_use, live_out)
    free = views.free
    i = 0
    while i < len(jaxpr.eqns):
        if i in clusters:
            stop, cluster = clusters[i]
            targets = _cluster_targets(cluster, i, stop, owned, last_use, live_out, free)
            if targets:
                plan.cluster_targets[i] = targets
            owned.update(cluster.outputs)
            i = stop
            continue
        eqn = jaxpr.eqns[i]
        if i in plan.implicit_broadcasts:
            i += 1
            continue
        ufunc = fusion.fusable_ufunc(eqn)
        if inline(eqn):
            views.read_by_name(eqn)
        elif ufunc is None and not makes_new_buffer(eqn):
            views.note(eqn)
        if not inline(eqn):
            reuse = _reusable_input(eqn, ufunc, i, owned, last_use, live_out, free)
            if reuse is not None:
                plan.out[i] = reuse
            if makes_new_buffer(eqn):
                owned.update(v for v in eqn.outvars if not isinstance(v, DropVar))
        i += 1
    return plan


class _Views:
    """Which owned buffers each value may be a view of (a kernel's result: a reshape, a slice),
    so that a buffer is overwritten only once its views are dead."""

    def __init__(self, owned: set[Var], last_use: dict[Var, int], live_out: set[Var]) -> None:
        self.owned, self.last_use, self.live_out = owned, last_use, live_out
        self.roots: dict[Var, set[Var]] = {}  # value -> owned buffers it may view
        self.of: dict[Var, list[Var]] = {}  # owned buffer -> values that may view it

    def note(self, eqn: JaxprEqn) -> None:
        """A kernel that may return a view of what it reads: its results view those buffers."""
        seen = {r for a in eqn.invars if isinstance(a, Var)
                for r in ({a} if a in self.owned else self.roots.get(a, set()))}
        if seen:
            for o in eqn.outvars:
                self.roots[o] = seen
            for r in seen:
                self.of.setdefault(r, []).extend(eqn.outvars)

    def read_by_name(self, eqn: JaxprEqn) -> None:
        """An inline loop or branch aliases what it reads by name: that, and the buffers it may
        view, are never overwritten."""
        for a in eqn.invars:
            if isinstance(a, Var):
                self.owned.discard(a)
                self.owned.difference_update(self.roots.get(a, ()))

    def free(self, a: Var, at: int) -> bool:
        """Whether owned `a` may be overwritten by equation `at`: no view of it is read there
        or later, or is an output."""
        return all(v not in self.live_out and self.last_use.get(v, -1) < at
                   for v in self.of.get(a, ()))


def _reusable_input(eqn: JaxprEqn, ufunc: Any, index: int, owned: set[Var],
                    last_use: dict[Var, int], live_out: set[Var],
                    free: Callable[[Var, int], bool]) -> Var | None:
    """An operand of a ufunc equation read last here, of the result's shape and dtype, whose
    buffer the result can be written into (NumPy's `out=`); for an `updates_in_place`
    equation, its first operand when that is such a buffer and read nowhere else in it."""
    if not eqn.outvars:  # a debug callback
        return None
    out_aval = eqn.outvars[0].aval
    if eqn.primitive.updates_in_place:
        candidates = eqn.invars[:1] if eqn.invars.count(eqn.invars[0]) == 1 else []
    elif ufunc is None or not out_aval.shape:
        return None
    else:
        candidates = eqn.invars
    for a in candidates:
        if (isinstance(a, Var) and a in owned and last_use.get(a) == index
                and a not in live_out and a.aval.shape == out_aval.shape
                and a.aval.dtype == out_aval.dtype and free(a, index)):
            owned.discard(a)
            return a
    return None


def _cluster_targets(cluster: fusion.Cluster, start: int, stop: int, owned: set[Var],
                     last_use: dict[Var, int], live_out: set[Var],
                     free: Callable[[Var, int], bool]) -> dict[Var, Var]:
    """Cluster outputs written into a dying input's buffer instead of a new one. Safe when the
    input is read by no equation after the one producing the output (blocks are processed
    in order and each equation reads a block before it is overwritten)."""
    last_read: dict[Var, int] = {}
    for k, eqn in enumerate(cluster.eqns):
        for a in eqn.invars:
            if isinstance(a, Var):
                last_read[a] = k
    produced = {eqn.outvars[0]: k for k, eqn in enumerate(cluster.eqns)}
    targets: dict[Var, Var] = {}
    for out in cluster.outputs:
        for v in cluster.inputs:
            if (v in owned and v not in live_out and last_use.get(v, stop) < stop
                    and v.aval.shape == out.aval.shape and v.aval.dtype == out.aval.dtype
                    and last_read.get(v, -1) <= produced[out] and free(v, start)):
                owned.discard(v)
                targets[out] = v
                break
    return targets


def _implicit_broadcasts(jaxpr: Jaxpr, live_out: set[Var],
                         clusters: dict[int, tuple[int, Any]]) -> set[int]:
    """Positions of the broadcast_in_dim equations whose result only NumPy ufuncs read, each
    beside an operand of the full shape that is no such broadcast (so NumPy's broadcasting
    gives the same result), outside fused clusters and not returned."""
    candidates: dict[Var, int] = {}
    for i, eqn in enumerate(jaxpr.eqns):
        if eqn.outvars and eqn.outvars[0] not in live_out and fusion.sorted_broadcast(eqn):
            candidates[eqn.outvars[0]] = i
    if not candidates:
        return set()
    fused = {k for start, (stop, _) in clusters.items() for k in range(start, stop)}
    refused: set[Var] = set()
    for i, eqn in enumerate(jaxpr.eqns):
        read = [a for a in eqn.invars if isinstance(a, Var) and a in candidates]
        if not read:
            continue
        shape = eqn.outvars[0].aval.shape if eqn.outvars else None
        if (i in fused or eqn.params or eqn.primitive.multiple_results
                or fusion.fusable_ufunc(eqn) is None
                or not any(isinstance(a, Var) and a not in candidates and a.aval.shape == shape
                           for a in eqn.invars)):
            refused.update(read)
    return {i for v, i in candidates.items() if v not in refused}


# ---- what outputs may share --------------------------------------------------------------------


def broadcast_outputs(jaxpr: Jaxpr) -> set[int]:
    """Positions of `jaxpr`'s outputs that may be broadcast views (zero strides): results of
    `broadcast_result` primitives, of equations holding jaxprs (a branch or loop body may
    return one), and views of those. Conservative, as `inputs_reaching_outputs`."""
    views: set[Var] = set()
    for eqn in jaxpr.eqns:
        if makes_new_buffer(eqn):
            continue
        if (eqn.primitive.broadcast_result or _holds_jaxpr(eqn)
                or any(isinstance(a, Var) and a in views for a in eqn.invars)):
            views.update(v for v in eqn.outvars if v.aval.shape)
    return {i for i, a in enumerate(jaxpr.outvars) if isinstance(a, Var) and a in views}


def _holds_jaxpr(eqn: JaxprEqn) -> bool:
    return any(isinstance(p, Jaxpr | ClosedJaxpr) or (
        isinstance(p, tuple | list) and any(isinstance(q, Jaxpr | ClosedJaxpr) for q in p))
        for p in eqn.params.values())


def inputs_reaching_outputs(jaxpr: Jaxpr) -> tuple[int, ...]:
    """Positions of `jaxpr`'s inputs whose buffers the generated code may return, as an output
    or inside one (kernels such as reshape, slice and transpose return views; loops and
    branches pass values through). Conservative: only the results of `makes_new_buffer`
    equations are known to be new buffers."""
    sources: dict[Var, frozenset[int]] = {v: frozenset((i,)) for i, v in enumerate(jaxpr.invars)}
    for eqn in jaxpr.eqns:
        if makes_new_buffer(eqn):
            continue
        reached = frozenset().union(*(sources.get(a, ()) for a in eqn.invars
                                      if isinstance(a, Var)))
        if reached:
            sources.update((v, reached) for v in eqn.outvars)
    out: set[int] = set()
    for a in jaxpr.outvars:
        if isinstance(a, Var):
            out.update(sources.get(a, ()))
    return tuple(sorted(out))


def private_host_inputs(bufs: Sequence[Any], args: Sequence[Any],
                        positions: Sequence[int] | None = None) -> list[Any]:
    """`bufs` (the buffers of a program's `args`), where a caller's NumPy array at one of
    `positions` (None: any) is copied first. A program's call passes the positions its outputs
    may share memory with (`inputs_reaching_outputs`), so that writing to the array later cannot
    change a result; a call handed to a device's stream passes them all, because the program
    reads its inputs after the call has returned."""
    bufs = list(bufs)
    for i in range(len(bufs)) if positions is None else positions:
        x = args[i]
        if isinstance(x, np.ndarray) and np.may_share_memory(bufs[i], x):
            bufs[i] = bufs[i].copy()
    return bufs


def private_results(outs: Sequence[Any], args: Sequence[Any],
                    positions: Sequence[int]) -> list[Any]:
    """`outs` (the output buffers of a program that has returned), where one that shares
    memory with a caller's NumPy array at one of `positions` is copied. The program ran to its
    end before the call returned, so what it returned is known exactly: only an output that is
    a view of such an array pays for a copy, where `private_host_inputs` would copy every such
    array before the run in case."""
    # (Loops, not comprehensions: this runs on every jitted call with a NumPy argument.)
    hosts = []
    for i in positions:
        x = args[i]
        if isinstance(x, np.ndarray):
            hosts.append(x)
    results = list(outs)
    if hosts:
        for j, o in enumerate(results):
            if _views_any(o, hosts):
                results[j] = o.copy()
    return results


def _views_any(value: Any, hosts: Sequence[np.ndarray]) -> bool:
    """Whether `value` shares memory with one of `hosts`. An array with no base owns its
    memory, and NumPy points a view's base at the array owning its memory: such a value — a
    result the program allocated, the common case — shares memory only with itself and its
    views, known without comparing address ranges (a host whose base is no array, a strided
    view's, is compared)."""
    if type(value) is not np.ndarray or value.base is not None:
        return isinstance(value, np.ndarray) and any(
            np.may_share_memory(value, h) for h in hosts)
    for h in hosts:
        base = h.base
        if h is value or base is value:
            return True
        if base is not None and type(base) is not np.ndarray and np.may_share_memory(value, h):
            return True
    return False


def unshare_results(outs: Sequence[Any], hosts: Sequence[np.ndarray]) -> None:
    """An eager result (an Array) that is a view of a caller's NumPy operand (a slice, a
    reshape) gets a copy of its own. One kernel runs inline, before the call returns, and
    what it returned is known exactly, so only a result that does share memory is copied."""
    for o in outs:
        buf = getattr(o, "_buf", None)
        if isinstance(buf, np.ndarray) and any(np.may_share_memory(buf, h) for h in hosts):
            o._buf = buf.copy()

"""The `xla_pmap` primitive: a per-device program mapped over devices, what `pmap` binds.

`call_jaxpr` is the program one device runs on its slice of the mapped arguments (each mapped
argument's `in_axes` dimension removed); `out_axes` say where each output's device dimension
goes (None: the output is the same on every device and is returned once). Its params are
JAX 0.4.30's, so `make_jaxpr(pmap(f))` prints as JAX's does.

Rules transform the per-device program and bind `xla_pmap` again: jvp (tangents mapped like
their primals), vmap (the vmapped dimension leading, the device dimension after it), transpose
(cotangents of arguments every device shares are summed over the devices with `psum`; an
output returned once is device 0's, so only device 0's program gets its cotangent) and
partial evaluation (the known program returns its residuals per device, mapped on axis 0).
Evaluated, or inside a compiled program, it runs through `pmap_executable`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from numjax._src.api import pmap_executable
from numjax._src.core import axis_env
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr
from numjax._src.core.trace import Primitive, set_current_trace
from numjax._src.interpreters import ad, batching, jaxpr_transforms, partial_eval
from numjax._src.interpreters.staging import StagingTrace, eval_jaxpr_keeping_sources
from numjax._src.lax import elementwise as lax_ew
from numjax._src.lax import parallel
from numjax._src.lax import structural as st

xla_pmap_p = Primitive("xla_pmap")
xla_pmap_p.multiple_results = True


def mapped_aval(aval: Any, axis: int | None) -> Any:
    """The per-device aval of a value mapped along `axis` (None: not mapped)."""
    if axis is None:
        return aval
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(aval: Any, axis: int | None, size: int) -> Any:
    """The global aval of per-device values stacked along `axis`."""
    if axis is None:
        return aval
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


@xla_pmap_p.def_effectful_abstract_eval
def _xla_pmap_abstract_eval(*avals: Any, call_jaxpr: ClosedJaxpr, axis_size: int,
                            out_axes: tuple[int | None, ...], **params: Any) -> Any:
    ordered = [e for e in call_jaxpr.effects if e.ordered]
    if ordered:
        # Staged into a program (jit, make_jaxpr), as JAX's tracing of a map primitive refuses.
        raise ValueError(f"Ordered effects not supported for map primitives: {ordered}")
    outs = [unmapped_aval(a, ax, axis_size)
            for a, ax in zip(call_jaxpr.out_avals, out_axes, strict=True)]
    return outs, call_jaxpr.effects


def pmap_params(call_jaxpr: ClosedJaxpr, *, axis_name: Hashable, axis_size: int,
                in_axes: Sequence[int | None], out_axes: Sequence[int | None], name: str,
                donated_invars: Sequence[bool], devices: Any = None, backend: Any = None,
                global_axis_size: int | None = None) -> dict[str, Any]:
    """The params of an `xla_pmap` equation, in JAX's names. `axis_size` is this process's
    part of the axis (its local devices); `global_axis_size` the whole axis, across
    processes."""
    return {"axis_name": axis_name, "axis_size": axis_size, "backend": backend,
            "call_jaxpr": call_jaxpr, "devices": devices,
            "donated_invars": tuple(donated_invars),
            "global_axis_size": axis_size if global_axis_size is None else global_axis_size,
            "in_axes": tuple(in_axes), "is_explicit_global_axis_size": False, "name": name,
            "out_axes": tuple(out_axes)}


def _rebind(params: dict[str, Any], call_jaxpr: ClosedJaxpr, in_axes: Sequence[int | None],
            out_axes: Sequence[int | None], args: Sequence[Any]) -> list[Any]:
    new = {**params, "call_jaxpr": call_jaxpr, "in_axes": tuple(in_axes),
           "out_axes": tuple(out_axes), "donated_invars": (False,) * len(in_axes)}
    return xla_pmap_p.bind(*args, **new)  # type: ignore[no-any-return]


def in_axis_env(params: dict[str, Any], fun: Any) -> Any:
    """`fun` run with the pmap's axis name bound (rules re-trace the per-device program)."""
    def wrapped(*args: Any) -> Any:
        with axis_env.extend_axis_env(params["axis_name"], params["global_axis_size"]):
            return fun(*args)
    return wrapped


def replicas(jaxpr: Jaxpr) -> int:
    """How many devices a program's pmaps use at once (1: none): an `xla_pmap` uses its axis
    size times what its per-device program uses; the programs inside other equations (jit,
    control flow) count too."""
    most = 1
    for eqn in jaxpr.eqns:
        if eqn.primitive is xla_pmap_p:
            inner = eqn.params["call_jaxpr"].jaxpr
            most = max(most, eqn.params["global_axis_size"] * replicas(inner))
            continue
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if isinstance(sub, ClosedJaxpr):
                    most = max(most, replicas(sub.jaxpr))
                elif isinstance(sub, Jaxpr):
                    most = max(most, replicas(sub))
    return most


def _xla_pmap_impl(*args: Any, **params: Any) -> list[Any]:
    return pmap_executable.executable_for(params, args).call(args)


xla_pmap_p.def_impl(_xla_pmap_impl)
# Evaluated eagerly (an xla_pmap equation of an evaluated jaxpr), it runs on the devices and
# returns sharded Arrays, not through a per-primitive executable.
xla_pmap_p.eager_impl = _xla_pmap_impl


@xla_pmap_p.def_kernel_factory
def _xla_pmap_kernel(in_avals: Sequence[Any], **params: Any) -> Any:
    return pmap_executable.kernel(in_avals, params)


def _xla_pmap_jvp(primals: Sequence[Any], tangents: Sequence[Any], **params: Any
                  ) -> tuple[list[Any], list[Any]]:
    body: ClosedJaxpr = params["call_jaxpr"]
    has_tangent = [type(t) is not ad.Zero for t in tangents]
    with axis_env.extend_axis_env(params["axis_name"], params["global_axis_size"]):
        jvp_body = jaxpr_transforms.jvp_jaxpr(body, has_tangent)
    in_axes = params["in_axes"]
    tangent_axes = [ax for ax, t in zip(in_axes, has_tangent, strict=True) if t]
    nonzero = [t for t in tangents if type(t) is not ad.Zero]
    outs = _rebind(params, jvp_body, [*in_axes, *tangent_axes],
                   [*params["out_axes"], *params["out_axes"]], [*primals, *nonzero])
    m = len(body.out_avals)
    return outs[:m], outs[m:]


def _xla_pmap_batch(args: Sequence[Any], dims: Sequence[int | None], **params: Any
                    ) -> tuple[list[Any], list[Any]]:
    """vmap of pmap: each batched argument gets its vmapped dimension leading, so the device
    dimension moves one further and the per-device program sees the batch at 0."""
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True)
                if d is not None)
    moved = [batching.bdim_at_front(x, d, size) if d is not None else x
             for x, d in zip(args, dims, strict=True)]
    in_axes = [None if ax is None else ax + (d is not None)
               for ax, d in zip(params["in_axes"], dims, strict=True)]
    with axis_env.extend_axis_env(params["axis_name"], params["global_axis_size"]):
        body = jaxpr_transforms.batch_jaxpr(params["call_jaxpr"], size,
                                            [d is not None for d in dims])
    out_axes = [None if ax is None else ax + 1 for ax in params["out_axes"]]
    # A per-device output replicated across devices (out_axes None) keeps its batch at 0.
    outs = _rebind(params, body, in_axes, out_axes, moved)
    return outs, [0] * len(outs)


def _xla_pmap_transpose(cts: Sequence[Any], *args: Any, **params: Any) -> list[Any]:
    body: ClosedJaxpr = params["call_jaxpr"]
    linear = [ad.is_undefined_primal(x) for x in args]
    in_axes = params["in_axes"]
    name = params["axis_name"]
    cts = [ad.instantiate_zeros(c) for c in cts]
    transposed = jaxpr_transforms.transpose_jaxpr(body, linear)
    known_axes = [ax for ax, lin in zip(in_axes, linear, strict=True) if not lin]
    ct_axes = list(params["out_axes"])
    n_known = len(known_axes)
    # Arguments every device shares (in_axes None) get the sum of every device's cotangent,
    # returned once.
    shared = [ax is None for ax, lin in zip(in_axes, linear, strict=True) if lin]

    def per_device(*xs: Any) -> list[Any]:
        known, ct_vals = list(xs[:n_known]), list(xs[n_known:])
        if any(ax is None for ax in ct_axes):
            # An output returned once (out_axes None) is device 0's value, so only device 0's
            # program gets its cotangent (given to every device, a psum in the program, whose
            # transpose is a psum, would count it once per device).
            first = lax_ew.eq(parallel.axis_index(name), np.int32(0))
            ct_vals = [c if ax is not None else st.select_n(first, st.zeros_like_array(c), c)
                       for c, ax in zip(ct_vals, ct_axes, strict=True)]
        outs = eval_jaxpr_keeping_sources(transposed.jaxpr, transposed.consts, *known, *ct_vals)
        return [parallel.psum_p.bind(o, axes=(name,), axis_index_groups=None)[0] if s else o
                for o, s in zip(outs, shared, strict=True)]

    ct_avals = [parallel_mapped(c, ax) for c, ax in zip(cts, ct_axes, strict=True)]
    with axis_env.extend_axis_env(name, params["global_axis_size"]):
        body_t = jaxpr_transforms.trace_closed(
            per_device, [*transposed.in_avals[:n_known], *ct_avals])
    known = [x for x, lin in zip(args, linear, strict=True) if not lin]
    out_axes = [ax for ax, lin in zip(in_axes, linear, strict=True) if lin]
    outs = iter(_rebind(params, body_t, [*known_axes, *ct_axes], out_axes, [*known, *cts]))
    return [next(outs) if lin else None for lin in linear]


def parallel_mapped(x: Any, axis: int | None) -> Any:
    return mapped_aval(get_aval(x), axis)


def _xla_pmap_partial_eval(trace: Any, args: Sequence[Any], params: dict[str, Any]
                           ) -> list[Any]:
    """Under linearize: the known per-device program runs now and returns its residuals
    mapped on axis 0; the unknown one, staged, reads them."""
    body: ClosedJaxpr = params["call_jaxpr"]
    unknowns = [partial_eval.is_unknown(trace, x) for x in args]
    with axis_env.extend_axis_env(params["axis_name"], params["global_axis_size"]):
        split = partial_eval.partial_eval_jaxpr(body, unknowns)
    in_axes = params["in_axes"]
    out_axes = params["out_axes"]
    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    known_in = [ax for ax, u in zip(in_axes, unknowns, strict=True) if not u]
    n_res = len(split.res_avals)
    known_out = [ax for ax, u in zip(out_axes, split.out_unknowns, strict=True) if not u]
    with set_current_trace(trace.parent):
        known_outs = _rebind(params, split.known, known_in, [*known_out, *[0] * n_res],
                             known_args)
    residuals = known_outs[len(known_outs) - n_res:]
    known_vals = iter(known_outs[:len(known_outs) - n_res])
    unknown_args = [x for x, u in zip(args, unknowns, strict=True) if u]
    unknown_in = [ax for ax, u in zip(in_axes, unknowns, strict=True) if u]
    unknown_out = [ax for ax, u in zip(out_axes, split.out_unknowns, strict=True) if u]
    new = {**params, "call_jaxpr": split.unknown, "in_axes": (*[0] * n_res, *unknown_in),
           "out_axes": tuple(unknown_out),
           "donated_invars": (False,) * (n_res + len(unknown_args))}
    unknown_vals = iter(StagingTrace.process_primitive(
        trace, xla_pmap_p, [*residuals, *unknown_args], new))
    return [next(unknown_vals) if u else next(known_vals) for u in split.out_unknowns]


xla_pmap_p.def_jvp(_xla_pmap_jvp)
xla_pmap_p.def_batch(_xla_pmap_batch)
xla_pmap_p.def_transpose(_xla_pmap_transpose)
xla_pmap_p.def_partial_eval(_xla_pmap_partial_eval)


def _print_params(params: dict[str, Any]) -> dict[str, Any]:
    return dict(sorted(params.items()))


xla_pmap_p.def_param_printer(_print_params)

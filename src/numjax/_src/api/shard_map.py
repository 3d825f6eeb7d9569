"""`shard_map(f, mesh, in_specs, out_specs)`: `f` written for one device's block, run on every
device of the mesh at once (`api/shard_map_p.py` holds the primitive and its rules).

A call checks the specs against the arguments (JAX's errors for specs that are not
PartitionSpecs, too long for a value's rank, or splitting a dimension the mesh axes do not
divide), traces `f` once per signature on the blocks' shapes with every mesh axis name bound
(so collectives over them trace), checks `out_specs` against the outputs, and, with
`check_rep`, that every output is replicated over the mesh axes its spec leaves out
(`_replication`), then binds `shard_map`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from numjax._src import config, traceback_util
from numjax._src.api.custom_primitives import custom_jvp_call_p, custom_vjp_call_p
from numjax._src.api.flatten import debug_info, flatten_fun
from numjax._src.api.pjit import pjit_p
from numjax._src.api.shard_map_p import (
    AxisNames,
    mesh_axis_env,
    names_of_spec,
    shard_aval,
    shard_map_p,
)
from numjax._src.control_flow.cond import cond_p
from numjax._src.control_flow.loops import scan_p, while_p
from numjax._src.core.avals import shaped_abstractify
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Var
from numjax._src.core.trace import Tracer
from numjax._src.interpreters import partial_eval
from numjax._src.interpreters.staging import trace_to_jaxpr
from numjax._src.lax import parallel
from numjax._src.runtime.mesh import Mesh, PartitionSpec
from numjax._src.tree_util import (
    PyTreeDef,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_structure,
    tree_unflatten,
)


def shard_map(f: Callable[..., Any], mesh: Mesh, in_specs: Any, out_specs: Any,
              check_rep: bool = True, auto: frozenset[Hashable] = frozenset()
              ) -> Callable[..., Any]:
    """Map `f` over blocks of its arguments, one block per device of `mesh`, the devices
    running at once; collectives over mesh axis names combine across devices.

    >>> import numpy as np, numjax, numjax.numpy as jnp
    >>> from numjax.sharding import Mesh, PartitionSpec as P
    >>> mesh = Mesh(np.array(numjax.devices()[:1]), ('i',))
    >>> f = shard_map(lambda x: numjax.lax.psum(x, 'i'), mesh, in_specs=P('i'),
    ...               out_specs=P())
    >>> f(jnp.arange(3.))
    Array([0., 1., 2.], dtype=float32)
    """
    if not callable(f):
        raise TypeError("shard_map requires a callable for its first argument, "
                        f"but got {f} of type {type(f)}.")
    if not isinstance(mesh, Mesh):
        raise TypeError("shard_map requires a `jax.sharding.Mesh` instance for its "
                        f"second argument, but got {mesh} of type {type(mesh)}.")
    auto = frozenset(auto)
    if not auto.issubset(mesh.axis_names):
        raise ValueError(f"shard_map requires auto={auto} to be a subset of "
                         f"mesh.axis_names={mesh.axis_names}")
    if auto:
        raise NotImplementedError("shard_map(auto=...) is not supported: every mesh axis is "
                                  "mapped.")
    _check_specs("in", in_specs)
    _check_specs("out", out_specs)
    traces: dict[Any, tuple[ClosedJaxpr, PyTreeDef, tuple[AxisNames, ...]]] = {}

    @functools.wraps(f)
    @traceback_util.api_boundary
    def wrapped(*args: Any) -> Any:
        flat_args, in_tree = tree_flatten(args)
        in_specs_flat = _broadcast_prefix(in_specs, args, "shard_map in_specs")
        avals = [shaped_abstractify(x) for x in flat_args]
        _check_args(f, mesh, in_tree, in_specs, in_specs_flat, avals)
        in_names = tuple(names_of_spec(s) for s in in_specs_flat)
        key = (in_tree, tuple(avals), in_names, config.trace_context())
        cached = traces.get(key)
        if cached is None:
            cached = _trace(f, mesh, args, in_tree, in_names, avals, out_specs, check_rep)
            if not any(isinstance(c, Tracer) for c in cached[0].consts):
                traces[key] = cached
        closed, out_tree, out_names = cached
        closed, extra = partial_eval.hoist_tracer_consts(closed)
        outs = shard_map_p.bind(
            *extra, *flat_args, jaxpr=closed, mesh=mesh,
            in_names=(*[AxisNames()] * len(extra), *in_names), out_names=out_names,
            check_rep=check_rep, rewrite=check_rep, auto=auto)
        return tree_unflatten(out_tree, outs)

    return wrapped


def _trace(f: Callable[..., Any], mesh: Mesh, args: tuple[Any, ...], in_tree: PyTreeDef,
           in_names: tuple[AxisNames, ...], avals: list[Any], out_specs: Any,
           check_rep: bool) -> tuple[ClosedJaxpr, PyTreeDef, tuple[AxisNames, ...]]:
    flat_fun, out = flatten_fun(f, _with_kwargs(in_tree))
    block_avals = [shard_aval(mesh, n, a) for n, a in zip(in_names, avals, strict=True)]
    with mesh_axis_env(mesh):
        closed = trace_to_jaxpr(flat_fun, block_avals, debug_info("shard_map", f, args, {}))
    assert out.tree is not None
    out_tree = out.tree
    dummy = tree_unflatten(out_tree, [object()] * out_tree.num_leaves)
    out_specs_flat = _broadcast_prefix(out_specs, dummy, "shard_map out_specs")
    fails: list[Any] = [a if len(s) > a.ndim else None
                        for s, a in zip(out_specs_flat, closed.out_avals, strict=True)]
    if any(x is not None for x in fails):
        raise ValueError(_rank_error("out", f, out_tree, out_specs, fails, None))
    out_names = tuple(names_of_spec(s) for s in out_specs_flat)
    if check_rep:
        reps = _replication(mesh, closed.jaxpr, [_rep_of(mesh, n) for n in in_names])
        rep_fails: list[Any] = []
        for n, rep in zip(out_names, reps, strict=True):
            need = {a for a in mesh.axis_names if a not in n.axes()}
            rep_fails.append(None if rep is None or need <= rep else rep)
        if any(x is not None for x in rep_fails):
            raise ValueError(_rep_error(f, mesh, out_tree, out_specs, rep_fails))
    return closed, out_tree, out_names


def _with_kwargs(in_tree: PyTreeDef) -> PyTreeDef:
    """The tree of `(args, {})` given that of `args`, as `flatten_fun` takes."""
    leaves = [0] * in_tree.num_leaves
    return tree_structure((tree_unflatten(in_tree, leaves), {}))


# ---- specs ---------------------------------------------------------------------------------


def _check_specs(prefix: str, specs: Any) -> None:
    if prefix == "in" and specs is None:
        raise TypeError(
            "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` "
            "instances, but it was None.\nInstead of `in_specs=None`, did you mean "
            "`in_specs=P()`, where `P = jax.sharding.PartitionSpec`?")
    paths, _ = tree_flatten_with_path(specs)
    msgs = [f"  {prefix}_specs{keystr(path)} is {x} of type {type(x).__name__}, "
            for path, x in paths if not isinstance(x, PartitionSpec)]
    if msgs:
        raise TypeError(f"shard_map {prefix}_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but:\n\n"
                        + "\n\n".join(msgs) + "\n\n"
                        f"Check the {prefix}_specs values passed to shard_map.")
    for _, spec in paths:
        seen: set[Any] = set()
        for entry in spec:
            for name in (entry if isinstance(entry, tuple | list) else (entry,)):
                if name is None:
                    continue
                if name in seen:
                    canon = PartitionSpec(*[tuple(e) if isinstance(e, tuple | list) else
                                            (e,) if e is not None else None for e in spec])
                    raise ValueError(
                        "A single NamedSharding spec specification can map every mesh axis "
                        f"to at most one positional dimension, but {canon} has duplicate "
                        f"entries for `{name}`")
                seen.add(name)


def _broadcast_prefix(specs: Any, tree: Any, what: str) -> list[Any]:
    """The spec of each leaf of `tree` (`specs` a tree prefix of it), or JAX's error."""
    structure = tree_structure(specs)
    try:
        per_subtree = structure.flatten_up_to(tree)
    except (ValueError, TypeError):
        raise prefix_error(specs, tree, what) from None
    spec_leaves = tree_flatten(specs)[0]
    out = []
    for spec, sub in zip(spec_leaves, per_subtree, strict=True):
        out.extend([spec] * len(tree_flatten(sub)[0]))
    return out


def prefix_error(specs: Any, tree: Any, what: str) -> ValueError:
    if isinstance(specs, tuple | list) and type(specs) is type(tree) and \
            len(specs) != len(tree):
        kind = type(tree).__name__
        return ValueError(
            f"pytree structure error: different lengths of {kind} at key path\n    {what}\n"
            f"At that key path, the prefix pytree {what} has a subtree of type {kind} of "
            f"length {len(specs)}, but the full pytree has a subtree of the same type but of "
            f"length {len(tree)}.")
    return ValueError(f"pytree structure error: {what} is not a tree prefix of the values it "
                      f"applies to: {tree_structure(specs)} vs {tree_structure(tree)}")


def _check_args(f: Callable[..., Any], mesh: Mesh, in_tree: PyTreeDef, in_specs: Any,
                specs_flat: Sequence[PartitionSpec], avals: Sequence[Any]) -> None:
    for spec in specs_flat:
        for entry in spec:
            for name in (entry if isinstance(entry, tuple | list) else (entry,)):
                if name is not None and name not in mesh.shape:
                    raise KeyError(name)
    fails: list[Any] = [a if len(s) > a.ndim else None
                        for s, a in zip(specs_flat, avals, strict=True)]
    if any(x is not None for x in fails):
        raise ValueError(_rank_error("in", f, in_tree, in_specs, fails, _bound_args(f, in_tree)))
    sizes = mesh.shape
    fails = []
    for s, a in zip(specs_flat, avals, strict=True):
        names = names_of_spec(s)
        bad = any(a.shape[d] % _count(sizes, axes) for d, axes in names)
        fails.append(a if bad else None)
    if any(x is not None for x in fails):
        raise ValueError(_divisibility_error(f, mesh, in_tree, in_specs, fails))


def _count(sizes: Any, axes: Sequence[Hashable]) -> int:
    total = 1
    for a in axes:
        total *= sizes[a]
    return total


def _bound_args(f: Callable[..., Any], tree: PyTreeDef) -> Any:
    try:
        return inspect.signature(f).bind(*tree_unflatten(tree, [False] * tree.num_leaves))
    except (TypeError, ValueError):
        return None


def _fun_name(f: Callable[..., Any]) -> str:
    return getattr(f, "__name__", str(f))


def _paths(tree: PyTreeDef, specs: Any, fails: list[Any]) -> list[tuple[Any, Any, Any, Any]]:
    """(spec's key path, spec, failing leaf's key path, what failed) for each failure."""
    leaf_paths = tree_flatten_with_path(tree_unflatten(tree, list(range(tree.num_leaves))))[0]
    spec_paths = tree_flatten_with_path(specs)[0]
    structure = tree_structure(specs)
    which = structure.flatten_up_to(tree_unflatten(tree, list(range(tree.num_leaves))))
    owner: dict[int, int] = {}
    for k, sub in enumerate(which):
        for i in tree_flatten(sub)[0]:
            owner[i] = k
    out = []
    for (path, i), fail in zip(leaf_paths, fails, strict=True):
        if fail is not None:
            spec_path, spec = spec_paths[owner[i]]
            out.append((spec_path, spec, path, fail))
    return out


def _param_note(f: Callable[..., Any], bound: Any, base: str, path: Any) -> str:
    if bound is None:
        return ""
    index = path[0].idx
    name = _fun_name(f)
    if index < len(bound.arguments):
        param = list(bound.arguments.keys())[index]
        return f", where {base}{keystr(path[:1])} is bound to {name}'s parameter '{param}',"
    param = list(bound.signature.parameters.values())[-1]
    return (f", where {base}{keystr(path[:1])} is the index "
            f"{index - len(bound.signature.parameters) + 1} component of {name}'s varargs "
            f"parameter '{param.name}',")


def _rank_error(prefix: str, f: Callable[..., Any], tree: PyTreeDef, specs: Any,
                fails: list[Any], bound: Any) -> str:
    name = _fun_name(f)
    base = "args" if prefix == "in" else f"{name}(*args)"
    msgs = []
    any_scalar = False
    for spec_path, spec, path, aval in _paths(tree, specs, fails):
        extra = _param_note(f, bound, base, path) if prefix == "in" else ""
        any_scalar = any_scalar or aval.ndim == 0
        msgs.append(f"* {prefix}_specs{keystr(spec_path)} is {spec} which has length "
                    f"{len(spec)}, but {base}{keystr(path)}{extra} has shape "
                    f"{aval.str_short()}, which has rank {aval.ndim} (and {aval.ndim} < "
                    f"{len(spec)})")
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    msg = (f"shard_map applied to the function '{name}' was given an {prefix}_specs entry "
           "which is too long to be compatible with the corresponding "
           f"{prefix}put value from the function:\n\n" + "\n\n".join(msgs) + "\n\n"
           f"Entries in {prefix}_specs must be of length no greater than the number of axes "
           f"in the corresponding {prefix}put value.\n\nEither revise the spec to be shorter, "
           f"or modify '{name}' so that its {prefix}puts have sufficient rank.")
    if any_scalar:
        msg += (f"\n\nFor scalar values (rank 0), consider using an {prefix}_specs entry of "
                "`P()`, where `P = jax.sharding.PartitionSpec`.")
        if prefix == "out":
            msg += (" In particular, for rank 0 outputs which are not constant over the mesh, "
                    "add at least one (singleton) axis to them so that they can be "
                    "concatenated using out_specs.")
    return msg


def _mesh_text(mesh: Mesh) -> str:
    return (f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis "
            f"names {mesh.axis_names}.")


def _divisibility_error(f: Callable[..., Any], mesh: Mesh, tree: PyTreeDef, specs: Any,
                        fails: list[Any]) -> str:
    name = _fun_name(f)
    bound = _bound_args(f, tree)
    sizes = mesh.shape
    msgs = []
    for spec_path, spec, path, aval in _paths(tree, specs, fails):
        extra = _param_note(f, bound, "args", path)
        for d, axes in names_of_spec(spec):
            size = _count(sizes, axes)
            if aval.shape[d] % size:
                axis = f"axes {axes}" if len(axes) > 1 else f"axis '{axes[0]}'"
                total = "total " if len(axes) > 1 else ""
                msgs.append(
                    f"* args{keystr(path)} of shape {aval.str_short()}{extra} corresponds to "
                    f"in_specs{keystr(spec_path)} of value {spec}, which maps array axis {d} "
                    f"(of size {aval.shape[d]}) to mesh {axis} (of {total}size {size}), but "
                    f"{size} does not evenly divide {aval.shape[d]}")
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    return (f"shard_map applied to the function '{name}' was given argument arrays with axis "
            "sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
            f"{_mesh_text(mesh)}\n\n" + "\n\n".join(msgs) + "\n\n"
            "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes "
            "indicated by the corresponding elements of the argument's in_specs entry. "
            "Consider checking that in_specs are correct, and if so consider changing the mesh "
            f"axis sizes or else padding the input and adapting '{name}' appropriately.")


def _rep_error(f: Callable[..., Any], mesh: Mesh, tree: PyTreeDef, specs: Any,
               fails: list[Any]) -> str:
    msgs = []
    for spec_path, spec, _, rep in _paths(tree, specs, fails):
        need = [a for a in mesh.axis_names if a not in names_of_spec(spec).axes()]
        if len(need) > 1:
            got = ",".join(str(a) for a in mesh.axis_names if a in rep)
            missing = ",".join(str(a) for a in need if a not in rep)
            msgs.append(f"* out_specs{keystr(spec_path)} is {spec} which implies that the "
                        "corresponding output value is replicated across mesh axes "
                        f"{{{','.join(str(a) for a in need)}}}, but could only infer "
                        f"replication over {{{got}}}, which is missing the required axes "
                        f"{missing}")
        else:
            msgs.append(f"* out_specs{keystr(spec_path)} is {spec} which implies that the "
                        "corresponding output value is replicated across mesh axis "
                        f"'{need[0]}', but could not infer replication over any axes")
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    return (f"shard_map applied to the function '{_fun_name(f)}' was given out_specs which "
            "require replication which can't be statically inferred given the mesh:\n\n"
            f"{_mesh_text(mesh)}\n\n" + "\n\n".join(msgs) + "\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. "
            "If not, consider revising the corresponding out_specs entries. If so, consider "
            "disabling the check by passing the check_rep=False argument to shard_map.")


# ---- replication checking ------------------------------------------------------------------
# A value's replication: the mesh axes along which every device holds the same value (None:
# a constant, the same everywhere). An argument is replicated over the axes its spec leaves
# out; an operation's result over the axes all its operands are; a psum (pmax, pmin) adds
# the axes it reduces over; a collective that moves data (all_gather, ppermute, all_to_all,
# psum_scatter) and axis_index vary along theirs, as JAX 0.4.30 infers. Each primitive that
# does not follow its operands declares its `replication_rule` (registered below, as
# sharding_propagation.py registers lax's sharding rules).


def _rep_of(mesh: Mesh, names: AxisNames) -> set[Hashable]:
    return {a for a in mesh.axis_names if a not in names.axes()}


def _replication(mesh: Mesh, jaxpr: Jaxpr, in_rep: Sequence[set[Hashable] | None]
                 ) -> list[set[Hashable] | None]:
    every = set(mesh.axis_names)
    env: dict[Var, set[Hashable] | None] = {v: every for v in jaxpr.constvars}
    env.update(zip(jaxpr.invars, in_rep, strict=True))

    def read(a: Any) -> set[Hashable] | None:
        return env.get(a) if isinstance(a, Var) else None

    def replication(body: Jaxpr, reps: list[Rep]) -> list[Rep]:
        return _replication(mesh, body, reps)

    for eqn in jaxpr.eqns:
        reps = [read(a) for a in eqn.invars]
        rule = eqn.primitive.replication_rule
        out: Any
        if rule is not None:
            out = rule(every, eqn, reps, replication)
        else:
            known = [r for r in reps if r is not None]
            joint = set.intersection(*known) if known else None
            out = [joint] * len(eqn.outvars)
        for v, r in zip(eqn.outvars, out, strict=True):
            env[v] = r
    return [read(a) for a in jaxpr.outvars]


Rep = set[Hashable] | None


def _meet(a: Rep, b: Rep) -> Rep:
    """Replicated over the axes both are (None: a constant, replicated everywhere)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _scan_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                      replication: Callable[..., list[Rep]]) -> list[Rep]:
    """A loop carry is replicated over the axes it stays replicated over in every iteration
    (the fixed point of the body, from the initial carry)."""
    params = eqn.params
    body = params["jaxpr"].jaxpr
    n_consts, n_carry = params["num_consts"], params["num_carry"]
    consts, carry, xs = reps[:n_consts], reps[n_consts:n_consts + n_carry], \
        reps[n_consts + n_carry:]
    while True:
        out = replication(body, [*consts, *carry, *xs])
        new = [_meet(c, o) for c, o in zip(carry, out[:n_carry], strict=True)]
        if new == carry:
            return [*carry, *out[n_carry:]]
        carry = new


def _while_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                       replication: Callable[..., list[Rep]]) -> list[Rep]:
    params = eqn.params
    n_cond, n_body = params["cond_nconsts"], params["body_nconsts"]
    cond_consts, body_consts = reps[:n_cond], reps[n_cond:n_cond + n_body]
    carry = reps[n_cond + n_body:]
    while True:
        out = replication(params["body_jaxpr"].jaxpr, [*body_consts, *carry])
        # Devices whose predicates differ run different numbers of iterations.
        pred, = replication(params["cond_jaxpr"].jaxpr, [*cond_consts, *carry])
        new = [_meet(_meet(c, o), pred) for c, o in zip(carry, out, strict=True)]
        if new == carry:
            return carry
        carry = new


def _cond_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                      replication: Callable[..., list[Rep]]) -> list[Rep]:
    index, ops = reps[0], reps[1:]
    outs: list[Rep] | None = None
    for branch in eqn.params["branches"]:
        got = replication(branch.jaxpr, ops)
        outs = got if outs is None else [_meet(a, b) for a, b in zip(outs, got, strict=True)]
    assert outs is not None
    return [_meet(o, index) for o in outs]


def _axis_tuple(name: Any) -> tuple[Any, ...]:
    return tuple(name) if isinstance(name, tuple | list) else (name,)


def _reducing_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                          replication: Any) -> list[Rep]:
    """A psum (pmax, pmin) is the same on every device of the axes it reduces over."""
    axes = set(eqn.params["axes"])
    return [(every if r is None else r) | axes for r in reps]


def _moving_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                        replication: Any) -> list[Rep]:
    """A collective that moves data varies along the axes it moves it over."""
    axes = set(_axis_tuple(eqn.params["axis_name"]))
    return [(every if r is None else r) - axes for r in reps]


def _axis_index_replication(every: set[Hashable], eqn: Any, reps: list[Rep],
                            replication: Any) -> list[Rep]:
    return [every - set(_axis_tuple(eqn.params["axis_name"]))]


def _call_replication(param: str) -> Callable[..., list[Rep]]:
    """A call's results are replicated as its body's."""
    def rule(every: set[Hashable], eqn: Any, reps: list[Rep],
             replication: Callable[..., list[Rep]]) -> list[Rep]:
        return replication(eqn.params[param].jaxpr, reps)
    return rule


for _p in (parallel.psum_p, parallel.pmax_p, parallel.pmin_p):
    _p.replication_rule = _reducing_replication
for _p in (parallel.all_gather_p, parallel.ppermute_p, parallel.all_to_all_p,
           parallel.reduce_scatter_p, parallel.pbroadcast_p):
    _p.replication_rule = _moving_replication
parallel.axis_index_p.replication_rule = _axis_index_replication
pjit_p.replication_rule = _call_replication("jaxpr")
custom_jvp_call_p.replication_rule = _call_replication("call_jaxpr")
custom_vjp_call_p.replication_rule = _call_replication("call_jaxpr")
scan_p.replication_rule = _scan_replication
while_p.replication_rule = _while_replication
cond_p.replication_rule = _cond_replication

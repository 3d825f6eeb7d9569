"""`lax.with_sharding_constraint(x, shardings)`: ask for a value's layout across devices.

The `sharding_constraint` primitive is the identity on values. Evaluated eagerly it lays the
value out as asked (a `device_put`); inside jit it tells `sharded_jit` how an output it makes
is laid out (it keeps a split as it is while partitioning). A PartitionSpec is read against the
mesh of the enclosing `with mesh:`. Its params are JAX 0.4.30's, so jaxprs print as JAX's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numjax._src import traceback_util
from numjax._src.api.device_put import device_put
from numjax._src.core.avals import get_aval
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad
from numjax._src.runtime.mesh import Mesh, PartitionSpec, current_mesh
from numjax._src.runtime.named_sharding import NamedSharding, TiledSharding, check_shape
from numjax._src.runtime.sharding import Sharding
from numjax._src.tree_util import tree_flatten, tree_structure, tree_unflatten

sharding_constraint_p = Primitive("sharding_constraint")


class ResourceEnv:
    """The mesh in scope where the constraint was made (printed as JAX prints it)."""

    __slots__ = ("mesh",)

    def __init__(self, mesh: Mesh | None) -> None:
        self.mesh = mesh

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResourceEnv) and self.mesh == other.mesh

    def __hash__(self) -> int:
        return hash(self.mesh)

    def __repr__(self) -> str:
        return f"ResourceEnv(mesh={self.mesh if self.mesh is not None else 'Mesh()'}, ())"


@traceback_util.api_boundary
def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """`x` (a pytree), laid out across devices as `shardings` (a tree prefix of `x`) say.

    >>> import numpy as np, numjax, numjax.numpy as jnp
    >>> from numjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> s = NamedSharding(Mesh(np.array(numjax.devices()[:1]), ('x',)), P('x'))
    >>> numjax.lax.with_sharding_constraint(jnp.arange(2.), s).sharding == s
    True
    """
    leaves, tree = tree_flatten(x)
    is_leaf = lambda s: s is None or isinstance(s, Sharding | PartitionSpec)
    targets, target_tree = tree_flatten(shardings, is_leaf=is_leaf)
    try:
        subtrees = target_tree.flatten_up_to(x)
    except (ValueError, TypeError):
        raise ValueError("with_sharding_constraint shardings specification must be a tree "
                         "prefix of the corresponding value, got specification "
                         f"{shardings} for value tree {tree_structure(x)}.") from None
    per_leaf: list[Any] = []
    for target, sub in zip(targets, subtrees, strict=True):
        per_leaf.extend([target] * len(tree_flatten(sub)[0]))
    mesh = current_mesh()
    outs = []
    for leaf, target in zip(leaves, per_leaf, strict=True):
        if isinstance(target, PartitionSpec) or target is None:
            if mesh is None:
                raise RuntimeError(
                    "with_sharding_constraint requires a non-empty mesh if you are passing "
                    "`PartitionSpec`s or `None` to shardings! Is a mesh defined at the call "
                    "site? Alternatively, provide `Sharding`s to shardings and then the mesh "
                    "context manager is not required.")
            target = NamedSharding(mesh, target if target is not None else PartitionSpec())
        aval = get_aval(leaf)
        if isinstance(target, TiledSharding):
            try:
                target._check_rank(aval.ndim)
            except ValueError as e:
                raise ValueError("One of with_sharding_constraint arguments is incompatible "
                                 f"with its sharding annotation {target}: {e}") from None
        outs.append(sharding_constraint_p.bind(leaf, sharding=target,
                                               resource_env=ResourceEnv(mesh),
                                               unconstrained_dims=frozenset()))
    return tree_unflatten(tree, outs)


sharding_constraint_p.def_abstract_eval(lambda aval, **params: aval)


def _impl(x: Any, *, sharding: Sharding, **params: Any) -> Any:
    if isinstance(sharding, TiledSharding):
        check_shape(sharding, tuple(get_aval(x).shape), "pjit outputs")
    if len(sharding._device_assignment) == 1:
        # JAX 0.4.30 lays a value out on a one-device mesh as that device's.
        return device_put(x, sharding._device_assignment[0])
    return device_put(x, sharding)


sharding_constraint_p.def_impl(_impl)
# Evaluated eagerly it returns the Array laid out as asked, not through an executable.
sharding_constraint_p.eager_impl = _impl


@sharding_constraint_p.def_kernel_factory
def _kernel(in_avals: Sequence[Any], **params: Any) -> Any:
    # Inside a compiled program a layout is a property of the outputs (`sharded_jit`).
    return lambda x: x


sharding_constraint_p.is_linear = True
ad.linear_jvp(sharding_constraint_p)
sharding_constraint_p.def_transpose(
    lambda ct, x, **params: [ct if type(ct) is ad.Zero
                             else sharding_constraint_p.bind(ct, **params)])


def _batch(args: Sequence[Any], dims: Sequence[Any], *, sharding: Sharding,
           **params: Any) -> tuple[Any, Any]:
    """The vmapped dimension is left to the compiler (JAX: UNCONSTRAINED in the spec)."""
    x, d = args[0], dims[0]
    if not isinstance(sharding, NamedSharding):
        return x, d
    spec = list(sharding.spec or ())
    spec += [None] * (get_aval(x).ndim - 1 - len(spec))
    spec.insert(d, PartitionSpec.UNCONSTRAINED)
    new = NamedSharding(sharding.mesh, PartitionSpec(*spec))
    return sharding_constraint_p.bind(x, sharding=new, **params), d


sharding_constraint_p.def_batch(_batch)


def _print_params(params: dict[str, Any]) -> dict[str, Any]:
    return {"resource_env": params["resource_env"], "sharding": params["sharding"],
            "unconstrained_dims": _SetText(params["unconstrained_dims"])}


class _SetText:
    def __init__(self, dims: frozenset[int]) -> None:
        self.dims = dims

    def __repr__(self) -> str:
        return "set()" if not self.dims else repr(set(self.dims))


sharding_constraint_p.def_param_printer(_print_params)

"""First-order optimizers as (init_fn, update_fn, params_fn) triples (`jax.example_libraries`).

Each optimizer is written for a single array; the `optimizer` decorator lifts it to pytrees of
parameters. The lifted state is an `OptimizerState`, itself a pytree, so it passes through
`jit`, `vmap` and friends: its leaves are the arrays, its treedefs are static aux data.

>>> import numjax.numpy as jnp
>>> from numjax.example_libraries import optimizers
>>> init_fn, update_fn, get_params = optimizers.sgd(0.1)
>>> state = update_fn(0, {"w": jnp.ones(2)}, init_fn({"w": jnp.zeros(2)}))
>>> get_params(state)["w"]
Array([-0.1, -0.1], dtype=float32)
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from numjax._src.numpy.creation import array, asarray, zeros, zeros_like
from numjax._src.numpy.lax_numpy import vdot, where
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.shape import atleast_1d
from numjax._src.numpy.shape import ndim as jnp_ndim
from numjax._src.numpy.ufuncs import abs as jnp_abs
from numjax._src.numpy.ufuncs import floor, maximum, minimum, sqrt, square
from numjax._src.tree_util import register_pytree_node, tree_unflatten
from numjax._src.tree_util import user_tree_flatten as tree_flatten
from numjax._src.tree_util import user_tree_map as tree_map
from numjax._src.typing import Array

Params = Any  # any pytree of arrays
State = Any  # the per-array state of one optimizer
Updates = Params  # gradients have the parameters' structure
Step = int
Schedule = Callable[[Step], Any]

# The flattened state: one list of leaves per parameter, the parameters' treedef and one treedef
# per parameter's state. Only `packed_state` holds arrays; the treedefs are pytree aux data.
OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])


def _state_flatten(state: Any) -> tuple[tuple[Any], tuple[Any, Any]]:
    return (state.packed_state,), (state.tree_def, state.subtree_defs)


def _state_unflatten(aux: tuple[Any, Any], children: Any) -> Any:
    (packed_state,) = children
    return OptimizerState(packed_state, *aux)


register_pytree_node(OptimizerState, _state_flatten, _state_unflatten)

InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]


class Optimizer(NamedTuple):
    """The triple every optimizer constructor returns."""

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def _flatten_all(trees: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    pairs = [tree_flatten(t) for t in trees]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def optimizer(opt_maker: Callable[..., Any]) -> Callable[..., Optimizer]:
    """Decorator lifting an optimizer written for one array to pytrees of arrays.

    `opt_maker(*args)` returns `(init, update, get_params)` acting on a single array and its
    (pytree) state; the decorated constructor returns an `Optimizer` acting on parameter pytrees
    and storing an `OptimizerState`.

    >>> import numjax.numpy as jnp
    >>> @optimizer
    ... def halve():
    ...     return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> init_fn, update_fn, get_params = halve()
    >>> get_params(update_fn(0, [jnp.ones(1)], init_fn([jnp.ones(1)])))
    [Array([0.5], dtype=float32)]
    """

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args: Any, **kwargs: Any) -> Optimizer:
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree: Params) -> OptimizerState:
            x0_flat, tree = tree_flatten(x0_tree)
            states_flat, subtrees = _flatten_all([init(x0) for x0 in x0_flat])
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i: Step, grad_tree: Updates, opt_state: OptimizerState) -> OptimizerState:
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = tree_flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not match "
                    f"the parameter tree structure with which it was initialized: parameter "
                    f"tree {tree} and grad tree {grad_tree_def}.")
            states = [tree_unflatten(d, s) for d, s in zip(subtrees, states_flat, strict=True)]
            new_states = [update(i, g, s) for g, s in zip(grad_flat, states, strict=True)]
            new_flat, new_subtrees = _flatten_all(new_states)
            for before, after in zip(subtrees, new_subtrees, strict=True):
                if after != before:
                    raise TypeError(
                        "optimizer update function produced an output structure that did not "
                        f"match its input structure: input {before} and output {after}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state: OptimizerState) -> Params:
            states_flat, tree, subtrees = opt_state
            params = [get_params(tree_unflatten(d, s))
                      for d, s in zip(subtrees, states_flat, strict=True)]
            return tree_unflatten(tree, params)

        return Optimizer(tree_init, tree_update, tree_get_params)

    return tree_opt_maker


def _first(state: Any) -> Any:
    return state[0]


@optimizer
def sgd(step_size: float | Schedule) -> Any:
    """Stochastic gradient descent: `x - step_size(i) * g`.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = sgd(0.5)
    >>> get_params(update_fn(0, jnp.ones(1), init_fn(jnp.ones(1))))
    Array([0.5], dtype=float32)
    """
    schedule = make_schedule(step_size)

    def update(i: Step, g: Array, x: Array) -> Array:
        return x - schedule(i) * g

    return Optimizer(lambda x0: x0, update, lambda x: x)


def _with_zeros(count: int) -> Callable[[Array], Any]:
    """An init function: the parameters and `count` zero-filled accumulators like them."""

    def init(x0: Array) -> Any:
        return (x0, *(zeros_like(x0) for _ in range(count)))

    return init


@optimizer
def momentum(step_size: float | Schedule, mass: float) -> Any:
    """SGD with heavy-ball momentum: `v = mass * v + g; x -= step_size(i) * v`.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = momentum(0.5, 0.9)
    >>> get_params(update_fn(0, jnp.ones(1), init_fn(jnp.ones(1))))
    Array([0.5], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(1)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, velocity = state
        velocity = mass * velocity + g
        return x - schedule(i) * velocity, velocity

    return init, update, _first


@optimizer
def nesterov(step_size: float | Schedule, mass: float) -> Any:
    """SGD with Nesterov momentum: the step looks ahead along the updated velocity.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = nesterov(0.5, 0.5)
    >>> get_params(update_fn(0, jnp.ones(1), init_fn(jnp.ones(1))))
    Array([0.25], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(1)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, velocity = state
        velocity = mass * velocity + g
        return x - schedule(i) * (mass * velocity + g), velocity

    return init, update, _first


@optimizer
def adagrad(step_size: float | Schedule, momentum: float = 0.9) -> Any:
    """Adagrad (Duchi et al. 2011) with momentum on the normalized gradient.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = adagrad(1.0, momentum=0.0)
    >>> get_params(update_fn(0, jnp.full(1, 4.0), init_fn(jnp.ones(1))))
    Array([0.], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(2)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, g_sq, m = state
        g_sq = g_sq + square(g)
        # A coordinate that has never seen a gradient takes no step (instead of 0 * inf).
        g_sq_inv_sqrt = where(g_sq > 0, 1.0 / sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        return x - schedule(i) * m, g_sq, m

    return init, update, _first


@optimizer
def rmsprop(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8) -> Any:
    """RMSProp: the step is divided by a running root mean square of the gradients.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = rmsprop(0.1, gamma=0.0, eps=0.0)
    >>> get_params(update_fn(0, jnp.full(1, 3.0), init_fn(jnp.ones(1))))
    Array([0.9], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(1)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + square(g) * (1.0 - gamma)
        return x - schedule(i) * g / sqrt(avg_sq_grad + eps), avg_sq_grad

    return init, update, _first


@optimizer
def rmsprop_momentum(step_size: float | Schedule, gamma: float = 0.9, eps: float = 1e-8,
                     momentum: float = 0.9) -> Any:
    """RMSProp whose normalized steps accumulate in a momentum buffer.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = rmsprop_momentum(0.1, gamma=0.0, eps=0.0)
    >>> get_params(update_fn(0, jnp.full(1, 3.0), init_fn(jnp.ones(1))))
    Array([0.9], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(2)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + square(g) * (1.0 - gamma)
        mom = momentum * mom + schedule(i) * g / sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom

    return init, update, _first


@optimizer
def adam(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8) -> Any:
    """Adam (Kingma & Ba 2015): bias-corrected first and second moment estimates.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = adam(0.1, eps=0.0)
    >>> get_params(update_fn(0, jnp.full(1, 3.0), init_fn(jnp.ones(1)))).round(4)
    Array([0.9], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(2)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * square(g) + b2 * v
        # The decay rates are cast to the state's dtype so float32 state stays float32 under x64.
        mhat = m / (1 - asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - asarray(b2, m.dtype) ** (i + 1))
        return x - schedule(i) * mhat / (sqrt(vhat) + eps), m, v

    return init, update, _first


@optimizer
def adamax(step_size: float | Schedule, b1: float = 0.9, b2: float = 0.999,
           eps: float = 1e-8) -> Any:
    """AdaMax: Adam with the second moment replaced by a decaying infinity norm.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = adamax(0.1, eps=0.0)
    >>> get_params(update_fn(0, jnp.full(1, 3.0), init_fn(jnp.ones(1)))).round(4)
    Array([0.9], dtype=float32)
    """
    schedule = make_schedule(step_size)

    init = _with_zeros(2)

    def update(i: Step, g: Array, state: Any) -> Any:
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = maximum(b2 * u, jnp_abs(g))
        x = x - (schedule(i) / (1 - asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u

    return init, update, _first


def _expand_along(ndim: int, v: Array, axis: int) -> Array:
    """The 1-D `v` as an `ndim`-D array varying along `axis` only."""
    index: list[Any] = [None] * ndim
    index[axis] = slice(None)
    return v[tuple(index)]


@optimizer
def sm3(step_size: float | Schedule, momentum: float = 0.9) -> Any:
    """SM3 (Anil et al. 2019): Adagrad with one accumulator per row/column/... of each array.

    >>> import numjax.numpy as jnp
    >>> init_fn, update_fn, get_params = sm3(1.0, momentum=0.0)
    >>> get_params(update_fn(0, jnp.full((1, 2), 2.0), init_fn(jnp.ones((1, 2)))))
    Array([[0., 0.]], dtype=float32)
    """
    schedule = make_schedule(step_size)

    def init(x0: Array) -> Any:
        x_shape = x0.shape
        x0 = atleast_1d(x0)
        vs = [zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, zeros_like(x0), vs, x_shape

    def update(i: Step, g: Array, state: Any) -> Any:
        x, m, vs, x_shape = state
        # Each coordinate's accumulator is the smallest of its slices' accumulators.
        vs = [_expand_along(g.ndim, v, axis) for axis, v in enumerate(vs)]
        accum = functools.reduce(minimum, vs) + square(g)
        accum_inv_sqrt = where(accum > 0, 1.0 / sqrt(accum), 0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - schedule(i) * m
        axes = range(x.ndim)
        vs = [accum.max(tuple(a for a in axes if a != axis)) for axis in axes]
        return x, m, vs, x_shape

    def get_params(state: Any) -> Array:
        x, _, _, x_shape = state
        return x.reshape(x_shape)

    return init, update, get_params


# ---- step-size schedules ---------------------------------------------------------------------


def constant(step_size: Any) -> Schedule:
    """The schedule returning `step_size` at every step.

    >>> constant(0.1)(7)
    0.1
    """
    return lambda i: step_size


def exponential_decay(step_size: Any, decay_steps: Any, decay_rate: Any) -> Schedule:
    """`step_size * decay_rate ** (i / decay_steps)`.

    >>> exponential_decay(1.0, 2, 0.25)(2)
    0.25
    """
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False) -> Schedule:
    """`step_size / (1 + decay_rate * i / decay_steps)`, with `i / decay_steps` floored when
    `staircase`.

    >>> inverse_time_decay(1.0, 2, 1.0)(2)
    0.5
    """
    if staircase:
        return lambda i: step_size / (1 + decay_rate * floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size: Any, decay_steps: Any, final_step_size: Any,
                     power: float = 1.0) -> Schedule:
    """Decays from `step_size` to `final_step_size` over `decay_steps` steps as
    `(1 - i / decay_steps) ** power`, then stays at `final_step_size`.

    >>> float(polynomial_decay(1.0, 4, 0.0)(1))
    0.75
    """

    def schedule(step_num: Any) -> Any:
        step_num = minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size

    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """`values[k]` for steps after `k` of the (increasing) `boundaries`.

    >>> schedule = piecewise_constant([2, 4], [1.0, 0.5, 0.25])
    >>> [float(schedule(i)) for i in (2, 3, 5)]
    [1.0, 0.5, 0.25]
    """
    boundaries = array(boundaries)
    values = array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[jnp_sum(i > boundaries)]


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    """A schedule as is, a scalar as the constant schedule.

    >>> make_schedule(0.1)(3)
    0.1
    """
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp_ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ---- utilities -------------------------------------------------------------------------------


def l2_norm(tree: Any) -> Array:
    """The l2 norm of all the leaves of a pytree together.

    >>> import numjax.numpy as jnp
    >>> float(l2_norm({"a": jnp.array([3.0]), "b": jnp.array([4.0])}))
    5.0
    """
    leaves, _ = tree_flatten(tree)
    return sqrt(sum(vdot(x, x) for x in leaves))


def clip_grads(grad_tree: Any, max_norm: Any) -> Any:
    """Scales a pytree of gradients down so its `l2_norm` is at most `max_norm`.

    >>> import numjax.numpy as jnp
    >>> clip_grads([jnp.array([3.0, 4.0])], 1.0)
    [Array([0.6, 0.8], dtype=float32)]
    """
    norm = l2_norm(grad_tree)
    return tree_map(lambda g: where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """A leaf of the outer (parameter) pytree holding the inner (per-parameter state) pytree."""

    def __init__(self, subtree: Any) -> None:
        self.subtree = subtree

    def __iter__(self) -> Any:
        yield self.subtree


def unpack_optimizer_state(opt_state: OptimizerState) -> Any:
    """The state as the parameter pytree with a `JoinPoint` of each parameter's state at its
    leaves: plain containers, e.g. for serialization.

    >>> import numjax.numpy as jnp
    >>> init_fn, _, _ = momentum(0.1, 0.9)
    >>> marked = unpack_optimizer_state(init_fn({"w": jnp.ones(1)}))
    >>> marked["w"].subtree
    (Array([1.], dtype=float32), Array([0.], dtype=float32))
    """
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = [tree_unflatten(d, s) for d, s in zip(subtree_defs, states_flat, strict=True)]
    return tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree: Any) -> OptimizerState:
    """The inverse of `unpack_optimizer_state`.

    >>> import numjax.numpy as jnp
    >>> init_fn, _, get_params = momentum(0.1, 0.9)
    >>> state = init_fn({"w": jnp.ones(1)})
    >>> get_params(pack_optimizer_state(unpack_optimizer_state(state)))
    {'w': Array([1.], dtype=float32)}
    """
    sentinels, tree_def = tree_flatten(marked_pytree)
    if not all(isinstance(s, JoinPoint) for s in sentinels):
        raise TypeError("pack_optimizer_state expects a pytree whose leaves are all JoinPoints "
                        "(as returned by unpack_optimizer_state), got leaves of types "
                        f"{sorted({type(s).__name__ for s in sentinels})}.")
    states_flat, subtree_defs = _flatten_all([s.subtree for s in sentinels])
    return OptimizerState(states_flat, tree_def, subtree_defs)

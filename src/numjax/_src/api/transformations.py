"""The user-facing transformations over pytrees: jvp, linearize, vjp, grad, vmap, make_jaxpr,
eval_shape. Each flattens its arguments, runs the flat transformation from `interpreters`, and
rebuilds the output trees."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from numjax._src import dtypes, traceback_util
from numjax._src.api.flatten import debug_info, flatten_fun
from numjax._src.core import axis_env as axis_env_lib
from numjax._src.core.avals import (
    ShapedArray,
    ShapeDtypeStruct,
    check_arg,
    get_aval,
    shaped_abstractify,
    struct_as_extended_array,
)
from numjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr
from numjax._src.interpreters import ad, batching
from numjax._src.interpreters.ad import Zero
from numjax._src.interpreters.staging import named_scope, trace_to_jaxpr
from numjax._src.lax import lax
from numjax._src.runtime import transfer_guard
from numjax._src.tree_util import (
    Partial,
    PyTreeDef,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
    user_tree_leaves,
    user_tree_map,
)


def _check_callable(fun: Any) -> None:
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")


def _instantiate(t: Any) -> Any:
    return ad.instantiate_zeros(t)


# The docstrings JAX gives the functions its transformations return ({fun}: the function's
# name, {argnums}: the differentiated positions); `help()` on a transformed function shows them.
_GRAD_DOC = ("Gradient of {fun} with respect to positional argument(s) {argnums}. Takes the same "
             "arguments as {fun} but returns the gradient, which has the same shape as the "
             "arguments at positions {argnums}.")
_VALUE_AND_GRAD_DOC = (
    "Value and gradient of {fun} with respect to positional argument(s) {argnums}. Takes the "
    "same arguments as {fun} but returns a two-element tuple where the first element is the "
    "value of {fun} and the second element is the gradient, which has the same shape as the "
    "arguments at positions {argnums}.")
_JACOBIAN_DOC = ("Jacobian of {fun} with respect to positional argument(s) {argnums}. Takes the "
                 "same arguments as {fun} but returns the jacobian of the output with respect "
                 "to the arguments at positions {argnums}.")
_VMAP_DOC = ("Vectorized version of {fun}. Takes similar arguments as {fun} but with additional "
             "array axes over which {fun} is mapped.")


def _wraps(fun: Callable[..., Any], doc: str,
           argnums: Any = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`functools.wraps(fun)` with the transformation's docstring in place of `fun`'s."""
    def wrapper(transformed: Callable[..., Any]) -> Callable[..., Any]:
        transformed = functools.wraps(fun)(transformed)
        name = getattr(fun, "__name__", None) or type(fun).__name__
        transformed.__doc__ = doc.format(fun=name, argnums=argnums)
        return transformed
    return wrapper


def _vmap_doc(fun: Callable[..., Any]) -> str:
    doc = getattr(fun, "__doc__", None)
    if not doc:
        return _VMAP_DOC
    # `doc` goes in after formatting: its own braces are not fields.
    return _VMAP_DOC + "\n\nOriginal documentation:\n\n" + doc.replace("{", "{{").replace("}", "}}")


# ---- jvp and linearize ---------------------------------------------------------------------


@traceback_util.api_boundary
def jvp(fun: Callable[..., Any], primals: Any, tangents: Any, has_aux: bool = False) -> Any:
    """Forward-mode: `(fun(*primals), J(primals) @ tangents)`.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    _check_callable(fun)
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; "
                        f"found {type(primals).__name__} and {type(tangents).__name__}.")
    flat_primals, tree = tree_flatten((tuple(primals), {}))
    flat_tangents, tangent_tree = tree_flatten((tuple(tangents), {}))
    # The containers themselves must match too, as in JAX: a tuple of primals with a list of
    # tangents is refused.
    if tree != tangent_tree or tree_structure(primals) != tree_structure(tangents):
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {tree_structure(primals)} "
                        f"whereas tangents have tree structure {tree_structure(tangents)}.")
    for p, t in zip(flat_primals, flat_tangents, strict=True):
        _check_tangent(p, t)
    flat_fun, out = flatten_fun(fun, tree, has_aux)
    # float0 tangents (of integer inputs) are zeros.
    flat_tangents = [ad.Zero(get_aval(t)) if get_aval(t).dtype == dtypes.float0 else t
                     for t in flat_tangents]
    out_primals, out_tangents = ad.jvp_flat(flat_fun, flat_primals, flat_tangents)
    # Rules see a Python-number tangent as it was passed (as JAX's do), and one that comes out
    # untouched is returned as it was passed: jvp(lambda x: x, (1.,), (2.,)) is (1.0, 2.0).
    out_tangents = [_instantiate(t) for t in out_tangents]
    assert out.tree is not None
    result = (tree_unflatten(out.tree, out_primals), tree_unflatten(out.tree, out_tangents))
    return (*result, out.aux) if has_aux else result


def _check_tangent(primal: Any, tangent: Any) -> None:
    # As JAX: the dtypes first (`dtypes.dtype`, so a value that is not an array is "Cannot
    # determine dtype of ..."), then the shapes.
    p_dtype = dtypes.dtype(primal, canonicalize=True)
    expected = ad.tangent_aval(ShapedArray((), p_dtype)).dtype
    t_dtype = dtypes.dtype(tangent, canonicalize=True)
    if expected != t_dtype:
        # JAX's text, sic: no space in "float0.Got".
        raise TypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype "
            f"{p_dtype} and so expected tangent dtype {expected}, but got tangent dtype "
            f"{t_dtype} instead.")
    p_shape, t_shape = get_aval(primal).shape, get_aval(tangent).shape
    if p_shape != t_shape:
        # JAX's text, sic: no space in "shapes;Got".
        raise ValueError("jvp called with different primal and tangent shapes;Got primal "
                         f"shape {p_shape} and tangent shape as {t_shape}")


@traceback_util.api_boundary
def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """`(fun(*primals), f_jvp)` where `f_jvp(*tangents)` evaluates the linearized function.

    >>> import numjax, numjax.numpy as jnp
    >>> y, f_jvp = numjax.linearize(jnp.sin, 0.0)
    >>> f_jvp(2.0)
    Array(2., dtype=float32, weak_type=True)
    """
    _check_callable(fun)
    flat_primals, tree = tree_flatten((primals, {}))
    flat_fun, out = flatten_fun(fun, tree, has_aux)
    out_primals, linear, _ = ad.linearize_flat(flat_fun, flat_primals)
    assert out.tree is not None
    out_tree = out.tree
    primal_avals = [get_aval(p) for p in flat_primals]
    # A pytree, as in JAX: the linear program's constants are its leaves, so the function can
    # be returned from (or passed into) a jitted function.
    lifted = functools.partial(_linearized, linear.jaxpr, tree, out_tree, primal_avals)
    result = (tree_unflatten(out_tree, out_primals), Partial(lifted, list(linear.consts)))
    return (*result, out.aux) if has_aux else result


@traceback_util.api_boundary
def _linearized(linear: Jaxpr, tree: PyTreeDef, out_tree: PyTreeDef,
                primal_avals: Sequence[Any], consts: Sequence[Any], *tangents: Any) -> Any:
    """The function `linearize` returns: the linear map at the primal point."""
    flat_tangents, t_tree = tree_flatten((tangents, {}))
    if t_tree != tree:
        raise ValueError("linearized function called on tangent values inconsistent with "
                         f"the original primal values: got tangent tree {t_tree} for "
                         f"primal tree {tree}.")
    for aval, t in zip(primal_avals, flat_tangents, strict=True):
        # JAX compares shape and dtype with the primal's tangent type: an int32 tangent of a
        # float32 primal is refused, and so is one of an integer primal (its tangent is float0).
        expected = ad.tangent_aval(aval)
        t_aval = get_aval(t)
        if (t_aval.shape, t_aval.dtype) != (expected.shape, expected.dtype):
            raise ValueError(
                "linearized function called on tangent values inconsistent with the "
                f"original primal values: got {t_aval} for primal aval {aval}")
    outs = eval_jaxpr(linear, consts, *flat_tangents)
    return tree_unflatten(out_tree, outs)


# ---- vjp and grad --------------------------------------------------------------------------


@traceback_util.api_boundary
def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False,
        reduce_axes: Sequence[Any] = ()) -> Any:
    """`(fun(*primals), vjp_fun)` where `vjp_fun(ct)` pulls an output cotangent back to the
    inputs.

    >>> import numjax, numjax.numpy as jnp
    >>> y, f_vjp = numjax.vjp(jnp.sin, 0.0)
    >>> f_vjp(1.0)
    (Array(1., dtype=float32, weak_type=True),)
    """
    _check_callable(fun)
    flat_primals, tree = tree_flatten((primals, {}))
    for x in flat_primals:
        check_arg(x)
    flat_fun, out = flatten_fun(fun, tree, has_aux)
    out_primals, linear, _ = ad.linearize_flat(flat_fun, flat_primals)
    assert out.tree is not None
    out_tree = out.tree
    out_avals = [get_aval(o) for o in out_primals]
    in_avals = [get_aval(p) for p in flat_primals]
    # A pytree, as in JAX: the residuals are its leaves, so the function can be returned from
    # (or passed into) a jitted function.
    pullback = functools.partial(_vjp_pullback, linear.jaxpr, out_tree, tree, out_avals,
                                 in_avals, getattr(fun, "__name__", str(fun)))
    vjp_fun = Partial(pullback, list(linear.consts))
    result = (tree_unflatten(out_tree, out_primals), vjp_fun)
    return (*result, out.aux) if has_aux else result


@traceback_util.api_boundary
def _vjp_pullback(linear: Jaxpr, out_tree: PyTreeDef, tree: PyTreeDef,
                  out_avals: Sequence[Any], in_avals: Sequence[Any], name: str,
                  residuals: Sequence[Any], *cts: Any) -> tuple[Any, ...]:
    """The function `vjp` returns: pull the output cotangent back to the inputs."""
    if len(cts) != 1:
        raise TypeError(_VJP_ARITY.format(name=name, n=len(cts)))
    flat_ct, ct_tree = tree_flatten(cts[0])
    if ct_tree != out_tree:
        raise ValueError(
            "unexpected tree structure of argument to vjp function: got "
            f"{ct_tree}, but expected to match {out_tree}")
    for aval, c in zip(out_avals, flat_ct, strict=True):
        c_aval = get_aval(c)
        expected = ad.tangent_aval(aval)
        # Shape and dtype must be the tangent type's (weak types aside); for an integer or
        # boolean output (a float0 tangent type) any dtype of the right shape passes, as in JAX.
        if c_aval.shape != aval.shape or (c_aval.dtype != expected.dtype
                                          and expected.dtype != dtypes.float0):
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to vjp function: "
                f"got {c_aval.str_short()}, but expected {expected.str_short()} because "
                f"the corresponding output of the function {name} had JAX type "
                f"{aval.str_short()}")
    in_cts = ad.backward_pass(linear, residuals, flat_ct)
    in_cts = [_zeros_for(aval) if type(c) is Zero else _match_dtype(c, aval)
              for c, aval in zip(in_cts, in_avals, strict=True)]
    args, _ = tree_unflatten(tree, in_cts)
    return tuple(args)


# JAX's text for a vjp function called with its output's parts as separate arguments.
_VJP_ARITY = (
    "The function returned by `jax.vjp` applied to {name} was called with {n} arguments, but "
    "functions returned by `jax.vjp` must be called with a single argument corresponding to "
    "the single value returned by {name} (even if that returned value is a tuple or other "
    "container).\n\nFor example, if we have:\n\n  def f(x):\n    return (x, x)\n"
    "  _, f_vjp = jax.vjp(f, 1.0)\n\nthe function `f` returns a single tuple as output, and "
    "so we call `f_vjp` with a single tuple as its argument:\n\n  x_bar, = f_vjp((2.0, 2.0))"
    "\n\nIf we instead call `f_vjp(2.0, 2.0)`, with the values 'splatted out' as arguments "
    "rather than in a tuple, this error can arise.")


def _zeros_for(aval: ShapedArray) -> Any:
    t = ad.tangent_aval(aval)
    if t.dtype == dtypes.float0:
        return np.zeros(t.shape, dtypes.float0)
    return lax.zeros_like_aval(t)


def _match_dtype(ct: Any, aval: ShapedArray) -> Any:
    t = ad.tangent_aval(aval)
    c_aval = get_aval(ct)
    if c_aval.dtype != t.dtype and t.dtype != dtypes.float0:
        return lax._convert_element_type(ct, t.dtype, aval.weak_type)
    return ct


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False,
         reduce_axes: Sequence[Any] = ()) -> Callable[..., Any]:
    """The gradient of a scalar-valued `fun` with respect to argument(s) `argnums`.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.grad(lambda x: x ** 2)(3.0)
    Array(6., dtype=float32, weak_type=True)
    """
    value_and_grad_f = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @traceback_util.api_boundary
    @_wraps(fun, _GRAD_DOC, argnums)
    def grad_f(*args: Any, **kwargs: Any) -> Any:
        if has_aux:
            (_, aux), g = value_and_grad_f(*args, **kwargs)
            return g, aux
        _, g = value_and_grad_f(*args, **kwargs)
        return g

    return grad_f


def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes: Sequence[Any] = ()) -> Callable[..., Any]:
    """`(fun(*args), grad(fun)(*args))` in one pass."""
    _check_callable(fun)

    @traceback_util.api_boundary
    @_wraps(fun, _VALUE_AND_GRAD_DOC, argnums)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> Any:
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for n in nums:
            if not -len(args) <= n < len(args):
                raise TypeError(
                    f"differentiating with respect to argnums={argnums} requires at least "
                    f"{max(nums) + 1} positional arguments to be passed by the caller, but "
                    f"got only {len(args)} positional arguments.")
        nums = tuple(n % len(args) for n in nums)
        diff_args = tuple(args[n] for n in nums)
        for leaf in user_tree_leaves(diff_args):
            _check_input_dtype_grad(holomorphic, allow_int, leaf)

        partial_fun = _argnums_partial(fun, args, kwargs, nums)

        if has_aux:
            ans, vjp_fun, aux = vjp(partial_fun, *diff_args, has_aux=True)
        else:
            ans, vjp_fun = vjp(partial_fun, *diff_args)
        _check_scalar(ans)
        _check_output_dtype("grad", holomorphic, ans)
        ans_aval = get_aval(ans)
        # The unit cotangent is placed on the device: under a disallowing transfer guard an
        # eager grad is refused, as in JAX.
        transfer_guard.library_constant(1, ans_aval.dtype)
        ct = lax._convert_element_type(1, ans_aval.dtype, ans_aval.weak_type)
        grads = vjp_fun(ct)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        return ((ans, aux), g) if has_aux else (ans, g)

    return value_and_grad_f


def _argnums_partial(fun: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
                     nums: Sequence[int]) -> Callable[..., Any]:
    """`fun` as a function of the arguments at positions `nums` only (the rest fixed)."""
    def partial_fun(*dargs: Any) -> Any:
        full = list(args)
        for n, a in zip(nums, dargs, strict=True):
            full[n] = a
        return fun(*full, **kwargs)

    return partial_fun


def _check_scalar(x: Any) -> None:
    try:
        aval = get_aval(x)
    except TypeError:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {x}."
                        ) from None
    if aval.shape != ():
        raise TypeError("Gradient only defined for scalar-output functions. Output had shape: "
                        f"{aval.shape}.")


def _check_output_dtype(name: str, holomorphic: bool, x: Any) -> None:
    dt = _input_dtype(x)
    if isinstance(dt, dtypes.ExtendedDType):
        raise TypeError(f"{name} with output element type {dt}")  # key<fry>
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex "
                            f"dtype, but got {dt.name}.")
    elif dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {dt.name}. For holomorphic differentiation, "
                        "pass holomorphic=True. For differentiation of non-holomorphic functions "
                        "involving complex outputs, use jax.vjp directly.")
    elif not dtypes.issubdtype(dt, np.floating):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {dt.name}. For differentiation of functions "
                        "with integer outputs, use jax.vjp directly.")


def _input_dtype(x: Any) -> Any:
    # Typed key arrays are one leaf to the user, of dtype key<impl>.
    return x.dtype if isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType) else (
        get_aval(x).dtype)


def _check_input_dtype_grad(holomorphic: bool, allow_int: bool, x: Any) -> None:
    check_arg(x)
    dt = _input_dtype(x)
    if dtypes.issubdtype(dt, np.complexfloating) and not holomorphic:
        return
    if holomorphic and not dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError("grad with holomorphic=True requires inputs with complex dtype, but "
                        f"got {dt.name}.")
    if not dtypes.issubdtype(dt, np.inexact) and not allow_int:
        raise TypeError(
            "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
            f"np.inexact), but got {dt.name}. If you want to use Boolean- or integer-valued "
            "inputs, use vjp or set allow_int to True.")


# ---- vmap ----------------------------------------------------------------------------------


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0,
         axis_name: Any = None, axis_size: int | None = None,
         spmd_axis_name: Any = None) -> Callable[..., Any]:
    """Vectorize `fun` over the leading (or `in_axes`) axis of its arguments.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.vmap(lambda x: x @ x)(jnp.ones((3, 2)))
    Array([2., 2., 2.], dtype=float32)
    """
    _check_callable(fun)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or type(in_axes) in (int, tuple) or isinstance(in_axes, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries corresponding "
                        f"to the positional arguments passed to the function, but got {in_axes}.")
    # As JAX checks them when vmap is applied: every leaf a Python int (None is no leaf).
    for what, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) is int for leaf in tree_leaves(axes)):
            raise TypeError(f"vmap {what} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {axes}.")

    @traceback_util.api_boundary
    @_wraps(fun, _vmap_doc(fun))
    def vmap_f(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                "positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        flat_args, in_tree = tree_flatten((args, kwargs))
        dims = _flatten_axes("vmap in_axes", in_tree, (in_axes, 0), args, kwargs)
        if not flat_args and axis_size is None:
            raise ValueError("vmap wrapped function must be passed at least one argument "
                             f"containing an array, got empty *args={args} and "
                             f"**kwargs={kwargs}")
        dims = [_canonical_dim(d, x) for d, x in zip(dims, flat_args, strict=True)]
        names = debug_info("vmap", fun, args, kwargs).arg_names
        size = _mapped_size(flat_args, dims, axis_size, names)
        flat_fun, out = flatten_fun(fun, in_tree)

        def out_dims() -> list[Any]:
            assert out.tree is not None  # known once flat_fun has run
            return _flatten_out_axes(out.tree, out_axes)

        results = batching.vmap_flat(flat_fun, flat_args, dims, out_dims, size, axis_name,
                                     spmd_axis_name)
        assert out.tree is not None
        return tree_unflatten(out.tree, results)

    return vmap_f


def _shape(x: Any) -> tuple[int, ...]:
    """An argument's shape; NumPy's reading of a value that is not an array (a string or an
    object has shape ()), as JAX's vmap takes it: such a value is only rejected where it is
    used."""
    try:
        return tuple(get_aval(x).shape)
    except TypeError:
        return tuple(np.shape(x))


def _canonical_dim(d: Any, x: Any, what: str = "vmap") -> int | None:
    if d is None:
        return None
    shape = _shape(x)
    ndim = len(shape)
    if not -ndim <= d < ndim:
        raise ValueError(f"{what} was requested to map its argument along axis {d}, which "
                         f"implies that its rank should be at least {d + 1 if d >= 0 else -d}, "
                         f"but is only {ndim} (its shape is {shape})")
    return int(d) % ndim


def _type_str(x: Any) -> str:
    try:
        return str(shaped_abstractify(x).str_short())
    except TypeError:  # not an array: JAX's vmap reports its type as unknown
        return "unknown"


def _mapped_size(flat_args: Sequence[Any], dims: Sequence[int | None], axis_size: int | None,
                 names: Sequence[str], what: str = "vmap") -> int:
    sizes = {_shape(x)[d] for x, d in zip(flat_args, dims, strict=True) if d is not None}
    if not sizes:
        if axis_size is None:
            raise ValueError(f"{what} must have at least one non-None value in in_axes")
        return axis_size
    if len(sizes) > 1 or (axis_size is not None and axis_size not in sizes):
        by_size: dict[int, list[str]] = {}
        for i, (x, d) in enumerate(zip(flat_args, dims, strict=True)):
            if d is not None:
                name = f"argument {names[i]}" if i < len(names) else "an argument"
                by_size.setdefault(_shape(x)[d], []).append(
                    f"axis {d} of {name} of type {_type_str(x)}")
        lines = []
        # As JAX lists them: the commonest size first ("most axes"), ties in argument order.
        ranked = sorted(by_size.items(), key=lambda item: -len(item[1]))
        for rank, (size, where) in enumerate(ranked):
            if len(where) == 1:
                lines.append(f"one axis had size {size}: {where[0]}")
            else:
                lines.append(f"{'most' if rank == 0 else 'some'} axes ({len(where)} of them) "
                             f"had size {size}, e.g. axis {where[0].split('axis ', 1)[1]}")
        raise ValueError(f"{what} got inconsistent sizes for array axes to be mapped:\n  * "
                         + ";\n  * ".join(lines))
    return sizes.pop()


def _flatten_axes(what: str, tree: Any, axes: Any, args: Any, kwargs: Any) -> list[Any]:
    """Broadcast a pytree prefix of axes (None is a leaf here) to the leaves of `tree`."""
    try:
        return _axes_per_leaf(tree_structure((args, kwargs)), axes)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what} specification must be a tree prefix of the corresponding "
                         f"value, got specification {axes[0]} for value tree "
                         f"{tree_structure(args)}.") from e


def _axes_per_leaf(treedef: Any, axes: Any) -> list[Any]:
    """The axis of each leaf of `treedef`, from `axes`, a prefix of it. The prefix is matched
    against the tree rebuilt with plain `object()` leaves, as JAX does: a pytree class deciding
    from its leaves which of them are data (distrax's distributions) treats those as data, so
    its node data match the value's."""
    proxy = object()
    prefix = tree_map(lambda x: proxy if x is None else x, axes, is_leaf=lambda x: x is None)
    dummy = tree_unflatten(treedef, [object() for _ in range(treedef.num_leaves)])
    leaves_p, tree_p = tree_flatten(prefix)
    flat: list[Any] = []
    for axis, sub in zip(leaves_p, tree_p.flatten_up_to(dummy), strict=True):
        flat.extend([None if axis is proxy else axis] * len(tree_flatten(sub)[0]))
    if len(flat) != treedef.num_leaves:
        raise ValueError("the axes do not broadcast to the leaves")
    return flat


def _flatten_out_axes(out_tree: Any, out_axes: Any, what: str = "vmap") -> list[Any]:
    try:
        return _axes_per_leaf(out_tree, out_axes)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{what} out_axes specification must be a tree prefix of the "
                         f"corresponding value, got specification {out_axes} for value tree "
                         f"{out_tree}.") from e


# ---- make_jaxpr and eval_shape -------------------------------------------------------------


def _abstractify(x: Any) -> Any:
    if isinstance(x, ShapeDtypeStruct):
        return x.aval
    return shaped_abstractify(x)


def make_jaxpr(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
               axis_env: Any = None, return_shape: bool = False,
               abstracted_axes: Any = None) -> Callable[..., Any]:
    """A function that traces `fun` on its arguments and returns the closed jaxpr.

    >>> import numjax, numjax.numpy as jnp
    >>> print(numjax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0))
    { lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0 in (c,) }
    """
    _check_callable(fun)
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @traceback_util.api_boundary
    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> Any:
        dyn_args = tuple(a for i, a in enumerate(args) if i not in statics)

        def call(*dyn: Any, **kw: Any) -> Any:
            it = iter(dyn)
            full = [a if i in statics else next(it) for i, a in enumerate(args)]
            return fun(*full, **kw)

        flat_args, in_tree = tree_flatten((dyn_args, kwargs))
        flat_fun, out = flatten_fun(call, in_tree)
        info = debug_info("make_jaxpr", fun, args, kwargs, statics)
        with contextlib.ExitStack() as stack:
            # Named axes bound while tracing, so collectives over them stage (pmap's body is
            # traced the same way).
            for axis_name, size in axis_env or ():
                stack.enter_context(axis_env_lib.extend_axis_env(axis_name, size))
            closed = trace_to_jaxpr(flat_fun, [_abstractify(x) for x in flat_args], info)
        if return_shape:
            assert out.tree is not None
            shapes = [ShapeDtypeStruct(a.shape, a.dtype) for a in closed.out_avals]
            return closed, tree_unflatten(out.tree, shapes)
        return closed

    # As JAX names it (module "jax"): the wrapper is not the function it traces.
    make_jaxpr_f.__module__ = "jax"
    if hasattr(fun, "__qualname__"):
        make_jaxpr_f.__qualname__ = f"make_jaxpr({fun.__qualname__})"
    if hasattr(fun, "__name__"):
        make_jaxpr_f.__name__ = f"make_jaxpr({fun.__name__})"
    return make_jaxpr_f


@traceback_util.api_boundary
def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The output shapes and dtypes of `fun(*args, **kwargs)`, computed without FLOPs.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.eval_shape(jnp.sum, ShapeDtypeStruct((3,), jnp.float32))
    ShapeDtypeStruct(shape=(), dtype=float32)
    """
    _check_callable(fun)
    # A ShapeDtypeStruct of key dtype stands for a key array: the function gets one.
    args, kwargs = user_tree_map(struct_as_extended_array, (args, kwargs))
    flat_args, in_tree = tree_flatten((args, kwargs))
    flat_fun, out = flatten_fun(fun, in_tree)
    info = debug_info("jit", fun, args, kwargs)  # JAX traces it as a jitted function
    closed: ClosedJaxpr = trace_to_jaxpr(flat_fun, [_abstractify(x) for x in flat_args], info)
    assert out.tree is not None
    # Without weak types, as JAX 0.4.30 describes outputs.
    shapes = tree_unflatten(out.tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                       for a in closed.out_avals])
    # A typed key array comes back wrapping the shape of its uint32 data: describe the keys.
    return user_tree_map(
        lambda x: ShapeDtypeStruct(x.shape, x.dtype) if not isinstance(x, ShapeDtypeStruct)
        and isinstance(getattr(x, "dtype", None), dtypes.ExtendedDType) else x, shapes)


# ---- Jacobians -----------------------------------------------------------------------------


def _std_basis(flat: Sequence[Any]) -> tuple[list[Any], int]:
    """One-hot tangents for every element of every leaf, stacked along a new leading axis."""
    import numpy as _np
    if not flat:  # JAX takes the basis dtype as the leaves' result type
        raise ValueError("at least one array or dtype is required")
    sizes = [int(_np.prod(get_aval(x).shape)) for x in flat]
    total = sum(sizes)
    basis = []
    offset = 0
    for x, size in zip(flat, sizes, strict=True):
        aval = get_aval(x)
        dtype = ad.tangent_aval(aval).dtype
        eye = _np.zeros((total, size), dtype)
        eye[offset:offset + size] = _np.eye(size, dtype=dtype)
        basis.append(eye.reshape((total, *aval.shape)))
        offset += size
    return basis, total


def _check_input_dtype_jac(holomorphic: bool, x: Any, name: str) -> None:
    check_arg(x)
    dt = _input_dtype(x)
    if holomorphic:
        if not dtypes.issubdtype(dt, np.complexfloating):
            raise TypeError(f"{name} with holomorphic=True requires inputs with complex "
                            f"dtype, but got {dt.name}.")
    elif name == "jacfwd" and not dtypes.issubdtype(dt, np.floating):
        # Forward mode pushes real basis tangents: a complex input needs holomorphic=True.
        raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                        f"np.floating), but got {dt.name}. For holomorphic differentiation, "
                        "pass holomorphic=True. For differentiation of non-holomorphic "
                        "functions involving complex inputs or integer inputs, use jax.jvp "
                        "directly.")
    elif not dtypes.issubdtype(dt, np.inexact):
        raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                        "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian of `fun` by forward mode (vmapped jvps over the input basis).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.jacfwd(lambda x: x ** 2)(jnp.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    _check_callable(fun)

    @traceback_util.api_boundary
    @_wraps(fun, _JACOBIAN_DOC, argnums)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        dyn = tuple(args[n] for n in nums)
        for x in user_tree_leaves(dyn):
            _check_input_dtype_jac(holomorphic, x, "jacfwd")
        flat, tree = tree_flatten(dyn)

        partial_fun = _argnums_partial(fun, args, kwargs, nums)

        basis, total = _std_basis(flat)

        def push(*t_flat: Any) -> Any:
            tangents = tree_unflatten(tree, list(t_flat))
            res = jvp(partial_fun, dyn, tangents, has_aux=has_aux)
            return (res[0], res[1], res[2]) if has_aux else (res[0], res[1])

        # The primal outputs are mapped too (a rule may batch outputs that do not depend on
        # the tangents): only their dtypes and weak types are read.
        outs = vmap(push, out_axes=-1)(*basis)
        primal, out = outs[0], outs[1]
        if has_aux:
            aux = tree_map(lambda a: a[..., 0] if get_aval(a).ndim else a, outs[2])
        y = tree_flatten(dyn)[0]
        # Each block takes its output's dtype and weak type, as in JAX (the Jacobian of
        # `lambda x: x` at 1.0 is weakly typed).
        result = tree_map(
            lambda o, p: _split_last(o, y, tree, isinstance(argnums, int), p), out, primal)
        return (result, aux) if has_aux else result

    return jacfun


def _split_last(o: Any, inputs: Sequence[Any], tree: Any, single: bool, example: Any) -> Any:
    """Split the stacked last axis of a Jacobian into one block per input leaf, each cast to
    `example`'s dtype and weak type."""
    import numpy as _np
    out_shape = get_aval(o).shape[:-1]
    blocks = []
    offset = 0
    for x in inputs:
        shape = get_aval(x).shape
        size = int(_np.prod(shape))
        block = lax.slice_in_dim(o, offset, offset + size, axis=-1)
        blocks.append(_possible_downcast(lax.reshape(block, (*out_shape, *shape)), example))
        offset += size
    nested = tree_unflatten(tree, blocks)
    return nested[0] if single else nested


def _possible_downcast(x: Any, example: Any) -> Any:
    """`x` as `example`'s dtype and weak type (its real part for a real `example`)."""
    aval, target = get_aval(x), get_aval(example)
    if (dtypes.issubdtype(aval.dtype, np.complexfloating)
            and not dtypes.issubdtype(target.dtype, np.complexfloating)):
        x = lax.real(x)
    return lax._convert_element_type(x, target.dtype, target.weak_type)


def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """The Jacobian of `fun` by reverse mode (vmapped vjps over the output basis).

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.jacrev(lambda x: x ** 2)(jnp.array([1.0, 2.0]))
    Array([[2., 0.],
           [0., 4.]], dtype=float32)
    """
    _check_callable(fun)

    @traceback_util.api_boundary
    @_wraps(fun, _JACOBIAN_DOC, argnums)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        dyn = tuple(args[n] for n in nums)
        for x in user_tree_leaves(dyn):
            if allow_int:
                check_arg(x)
            else:
                _check_input_dtype_jac(holomorphic, x, "jacrev")

        partial_fun = _argnums_partial(fun, args, kwargs, nums)

        if has_aux:
            y, pullback, aux = vjp(partial_fun, *dyn, has_aux=True)
        else:
            y, pullback = vjp(partial_fun, *dyn)
        for leaf in user_tree_leaves(y):
            _check_output_dtype("jacrev", holomorphic, leaf)
        y_flat, y_tree = tree_flatten(y)
        basis, _ = _std_basis(y_flat)
        cts = vmap(lambda *c: pullback(tree_unflatten(y_tree, list(c))))(*basis)
        # cts: a tuple (one per argnum) of pytrees with a leading axis over output elements.
        in_flat, in_tree = tree_flatten(dyn)
        ct_flat = in_tree.flatten_up_to(cts)
        per_output: list[list[Any]] = []
        offset = 0
        import numpy as _np
        for yl in y_flat:
            y_shape = get_aval(yl).shape
            size = int(_np.prod(y_shape))
            row = []
            for c, x in zip(ct_flat, in_flat, strict=True):
                block = lax.slice_in_dim(c, offset, offset + size, axis=0)
                # As in JAX, each block takes its input's dtype and weak type.
                row.append(_possible_downcast(
                    lax.reshape(block, (*y_shape, *get_aval(x).shape)), x))
            per_output.append(row)
            offset += size
        results = []
        for row in per_output:
            nested = tree_unflatten(in_tree, row)
            results.append(nested[0] if isinstance(argnums, int) else nested)
        result = tree_unflatten(y_tree, results)
        return (result, aux) if has_aux else result

    return jacfun


jacobian = jacrev


def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar `fun`: jacfwd of jacrev.

    >>> import numjax, numjax.numpy as jnp
    >>> numjax.hessian(lambda x: jnp.sum(x ** 3))(jnp.array([1.0, 2.0]))
    Array([[ 6.,  0.],
           [ 0., 12.]], dtype=float32)
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


@traceback_util.api_boundary
def linear_transpose(fun: Callable[..., Any], *primals: Any, reduce_axes: Any = ()
                     ) -> Callable[..., Any]:
    """The transpose of a linear `fun`, for inputs of the types of `primals`.

    >>> import numjax, numjax.numpy as jnp
    >>> f_t = numjax.linear_transpose(lambda x: 2.0 * x, 1.0)
    >>> f_t(3.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    flat, in_tree = tree_flatten((primals, {}))
    in_avals = [_abstractify(x) for x in flat]
    flat_fun, out = flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat_fun, in_avals)
    assert out.tree is not None
    in_dtypes = [a.dtype for a in in_avals]
    out_dtypes = [a.dtype for a in closed.out_avals]
    if not (all(dtypes.issubdtype(d, np.inexact) for d in in_dtypes + out_dtypes)
            or all(dtypes.issubdtype(d, np.integer) for d in in_dtypes + out_dtypes)):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or "
                        "complex], and integer -> integer functions, but got "
                        f"{in_dtypes} -> {out_dtypes}.")
    # A pytree, as in JAX: the constants are its leaves.
    transposed = functools.partial(_transposed, closed.jaxpr, in_tree, out.tree, in_avals,
                                   list(closed.out_avals))
    return Partial(transposed, list(closed.consts))


@traceback_util.api_boundary
def _transposed(jaxpr: Jaxpr, in_tree: PyTreeDef, out_tree: PyTreeDef,
                in_avals: Sequence[Any], out_avals: Sequence[Any], consts: Sequence[Any],
                ct: Any) -> tuple[Any, ...]:
    """The function `linear_transpose` returns: the output cotangent's inputs' cotangents."""
    ct_flat, ct_tree = tree_flatten(ct)
    if ct_tree != out_tree:
        raise TypeError("cotangent tree does not match function output, expected "
                        f"{out_tree} but got {ct_tree}")
    for aval, c in zip(out_avals, ct_flat, strict=True):
        c_aval = get_aval(c)
        if (c_aval.shape, c_aval.dtype) != (aval.shape, aval.dtype):
            raise TypeError("cotangent type does not match function output, expected "
                            f"{tuple(out_avals)} but got {ct_flat}")
    in_cts = ad.backward_pass(jaxpr, consts, ct_flat)
    in_cts = [_zeros_for(a) if type(c) is Zero else c
              for c, a in zip(in_cts, in_avals, strict=True)]
    args, _ = tree_unflatten(in_tree, in_cts)
    return tuple(args)


def named_call(fun: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
    """`fun` whose staged equations carry `name` (default: the function's name) in their name
    stack."""
    scope = name if name is not None else getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with named_scope(scope):
            return fun(*args, **kwargs)

    return wrapped

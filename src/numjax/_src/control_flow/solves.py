"""Solves with implicitly defined derivatives: `lax.custom_linear_solve` and `lax.custom_root`.

`custom_linear_solve(matvec, b, solve, transpose_solve)` returns `solve(matvec, b)`; its
derivatives never go through `solve`: forward mode solves again for `db - dA x`, reverse mode
solves the transposed system with `transpose_solve` (on `vecmat`, the transpose of `matvec`,
derived by autodiff). The functions are traced to jaxprs (constants hoisted into leading
operands) held by one `custom_linear_solve` primitive. `custom_root(f, x0, solve,
tangent_solve)` differentiates a root of `f` through the implicit function theorem.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence
from typing import Any

from numjax._src import traceback_util
from numjax._src.api.custom_derivatives import custom_jvp
from numjax._src.api.transformations import jvp, linear_transpose, linearize
from numjax._src.compiler.executables import executable_for
from numjax._src.control_flow.common import trace_fun
from numjax._src.core.avals import get_aval
from numjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from numjax._src.core.trace import Primitive
from numjax._src.interpreters import ad, batching, jaxpr_transforms
from numjax._src.interpreters.ad import Zero
from numjax._src.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_unflatten


def _check_tree(func_name: str, expected_name: str, actual: PyTreeDef, expected: PyTreeDef,
                has_aux: bool = False) -> None:
    if has_aux:
        children = actual.children()
        if len(children) != 2:
            raise ValueError(
                f"{func_name}() produced a pytree with structure {actual}, but a pytree tuple "
                "with auxiliary output was expected because has_aux was set to True.")
        actual = children[0]
    if actual != expected:
        raise TypeError(f"{func_name}() output pytree structure must match {expected_name}, "
                        f"got {actual} and {expected}.")


def _as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ---- custom_linear_solve -------------------------------------------------------------------


class _LinearSolveTuple(collections.namedtuple(
        "_LinearSolveTuple", "matvec, vecmat, solve, transpose_solve")):

    def transpose(self) -> _LinearSolveTuple:
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)


def _split(args: Sequence[Any], lengths: _LinearSolveTuple
           ) -> tuple[_LinearSolveTuple, list[Any]]:
    parts, start = [], 0
    for n in lengths:
        parts.append(list(args[start:start + n]))
        start += n
    return _LinearSolveTuple(*parts), list(args[start:])


def _flatten(groups: Sequence[Sequence[Any]]) -> list[Any]:
    return [x for group in groups for x in group]


linear_solve_p = Primitive("custom_linear_solve")
linear_solve_p.multiple_results = True


@linear_solve_p.def_effectful_abstract_eval
def _linear_solve_abstract_eval(*avals: Any, const_lengths: _LinearSolveTuple,
                                jaxprs: _LinearSolveTuple) -> Any:
    b_avals = list(avals[sum(const_lengths):])
    num_aux = len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)
    aux = list(jaxprs.solve.out_avals[len(jaxprs.solve.out_avals) - num_aux:]) if num_aux \
        else []
    effects = frozenset().union(*(j.effects for j in jaxprs if j is not None))
    return b_avals + aux, effects


def _linear_solve_impl(*bufs: Any, const_lengths: _LinearSolveTuple,
                       jaxprs: _LinearSolveTuple) -> list[Any]:
    params, b = _split(bufs, const_lengths)
    return list(executable_for(jaxprs.solve, "custom_linear_solve")(*params.solve, *b))


linear_solve_p.def_impl(_linear_solve_impl)


@linear_solve_p.def_jvp
def _linear_solve_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
                      const_lengths: _LinearSolveTuple, jaxprs: _LinearSolveTuple
                      ) -> tuple[list[Any], list[Any]]:
    params_kw = {"const_lengths": const_lengths, "jaxprs": jaxprs}
    x = linear_solve_p.bind(*primals, **params_kw)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    x_leaves, aux = x[:len(b_dot)], x[len(b_dot):]
    if all(type(t) is Zero for t in params_dot.matvec):
        rhs = [ad.instantiate_zeros(t) for t in b_dot]
    else:
        # d(A x) for the perturbed operator at fixed x: the right-hand side becomes db - dA x.
        zeros = [Zero(ad.tangent_aval(get_aval(v))) for v in x_leaves]
        _, matvec_dot = ad.jvp_flat(_as_fun(jaxprs.matvec), [*params.matvec, *x_leaves],
                                    [*params_dot.matvec, *zeros])
        rhs = [ad.instantiate_zeros(ad.add_tangents(db, -ad.instantiate_zeros(dm)))
               if type(db) is not Zero else -ad.instantiate_zeros(dm)
               for db, dm in zip(b_dot, matvec_dot, strict=True)]
    x_dot = linear_solve_p.bind(*_flatten(params), *rhs, **params_kw)
    aux_dot = [Zero(ad.tangent_aval(get_aval(a))) for a in aux]
    return list(x), [*x_dot[:len(b_dot)], *aux_dot]


@linear_solve_p.def_transpose
def _linear_solve_transpose(cts: Sequence[Any], *primals: Any,
                            const_lengths: _LinearSolveTuple, jaxprs: _LinearSolveTuple
                            ) -> list[Any]:
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    params, b = _split(primals, const_lengths)
    x_cts = [ad.instantiate_zeros(c) for c in cts[:len(b)]]
    b_cts = linear_solve_p.bind(*_flatten(params.transpose()), *x_cts,
                                const_lengths=const_lengths.transpose(),
                                jaxprs=jaxprs.transpose())
    return [None] * sum(const_lengths) + list(b_cts[:len(b)])


@linear_solve_p.def_batch
def _linear_solve_batch(args: Sequence[Any], dims: Sequence[Any], *,
                        const_lengths: _LinearSolveTuple, jaxprs: _LinearSolveTuple
                        ) -> tuple[list[Any], list[Any]]:
    """Every right-hand side and solution batched (an unbatched b is broadcast); each jaxpr
    batched over its batched constants and those."""
    size = next(get_aval(x).shape[d] for x, d in zip(args, dims, strict=True) if d is not None)
    args = [batching.move_dim(x, d, 0, size) if d is not None else x
            for x, d in zip(args, dims, strict=True)]
    params, b = _split(args, const_lengths)
    params_bat, b_dims = _split([d is not None for d in dims], const_lengths)
    b = [x if d else batching.move_dim(x, None, 0, size) for x, d in zip(b, b_dims, strict=True)]
    every_b = [True] * len(b)
    batched = _LinearSolveTuple(*[
        None if j is None else jaxpr_transforms.batch_jaxpr(j, size, [*bat, *every_b], True)
        for j, bat in zip(jaxprs, params_bat, strict=True)])
    outs = linear_solve_p.bind(*_flatten(params), *b, const_lengths=const_lengths,
                               jaxprs=batched)
    return list(outs), [0] * len(outs)


def _lower_linear_solve(em: Any, eqn: Any, indent: str, ins: list[str], outs: list[str]
                        ) -> None:
    """Inside jit the solve's jaxpr is emitted inline."""
    lengths = eqn.params["const_lengths"]
    start = lengths.matvec + lengths.vecmat
    args = [*ins[start:start + lengths.solve], *ins[sum(lengths):]]
    results = em.emit_inline(eqn.params["jaxprs"].solve, args, indent)
    for name, value in zip(outs, results, strict=True):
        em.lines.append(f"{indent}{name} = {value}")


linear_solve_p.def_inline_lowering(_lower_linear_solve)


def _shape_checked(fun: Callable[..., Any], name: str, has_aux: bool, b_flat: Sequence[Any]
                   ) -> Callable[..., Any]:
    expected = [get_aval(x).shape for x in b_flat]

    def check(y: Any) -> None:
        shapes = [get_aval(v).shape for v in tree_leaves(y)]
        if shapes != expected:
            raise ValueError(f"{name}() output shapes must match b, got {shapes} and "
                             f"{expected}")

    def checked(x: Any) -> Any:
        y = fun(x)
        check(y[0] if has_aux else y)
        return y

    return checked


@traceback_util.api_boundary
def custom_linear_solve(matvec: Callable[..., Any], b: Any, solve: Callable[..., Any],
                        transpose_solve: Callable[..., Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:
    """`solve(matvec, b)`, differentiated as the solution of `matvec(x) == b` rather than
    through `solve`. Reverse mode needs `transpose_solve` (or `symmetric=True`).

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax import lax
    >>> a = jnp.array([[2.0, 1.0], [1.0, 3.0]])
    >>> solve = lambda matvec, b: jnp.linalg.solve(a, b)
    >>> f = lambda b: lax.custom_linear_solve(lambda x: a @ x, b, solve, symmetric=True)
    >>> numjax.grad(lambda b: f(b).sum())(jnp.ones(2))
    Array([0.39999998, 0.2       ], dtype=float32)
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_flat, in_args_tree = tree_flatten((b,))
    b_avals = [get_aval(x) for x in b_flat]
    (tree,) = in_args_tree.children()
    what = "custom_linear_solve"
    mv = trace_fun(_shape_checked(matvec, "matvec", False, b_flat), in_args_tree, b_avals,
                   what)
    _check_tree("matvec", "b", mv.out_tree, tree)
    sv = trace_fun(_shape_checked(functools.partial(solve, matvec), "solve", has_aux, b_flat),
                   in_args_tree, b_avals, what)
    _check_tree("solve", "b", sv.out_tree, tree, has_aux)
    if transpose_solve is None:
        vm = ts = None
    else:
        if symmetric:
            vecmat = matvec
            vm = mv
        else:
            transposed = linear_transpose(matvec, b)

            def vecmat(x: Any) -> Any:
                (y,) = transposed(x)
                return y

            vm = trace_fun(vecmat, in_args_tree, b_avals, what)
        ts = trace_fun(_shape_checked(functools.partial(transpose_solve, vecmat),
                                      "transpose_solve", has_aux, b_flat),
                       in_args_tree, b_avals, what)
        _check_tree("transpose_solve", "b", ts.out_tree, tree, has_aux)
    traced = [mv, vm, sv, ts]
    const_lengths = _LinearSolveTuple(*[0 if t is None else len(t.consts) for t in traced])
    jaxprs = _LinearSolveTuple(*[None if t is None else t.closed for t in traced])
    outs = linear_solve_p.bind(*_flatten([[] if t is None else t.consts for t in traced]),
                               *b_flat, const_lengths=const_lengths, jaxprs=jaxprs)
    return tree_unflatten(sv.out_tree, outs)


# ---- custom_root ---------------------------------------------------------------------------


@traceback_util.api_boundary
def custom_root(f: Callable[..., Any], initial_guess: Any, solve: Callable[..., Any],
                tangent_solve: Callable[..., Any], has_aux: bool = False) -> Any:
    """`solve(f, initial_guess)`, a root of `f`, differentiated with respect to what `f`
    closes over by the implicit function theorem; `tangent_solve(g, y)` solves the linear
    `g(x) = y` (`lambda g, y: y / g(1.0)` for scalars).

    >>> import numjax, numjax.numpy as jnp
    >>> from numjax import lax
    >>> def sqrt(a):
    ...     def newton(f, x):
    ...         for _ in range(20):
    ...             x = x - f(x) / (2 * x)
    ...         return x
    ...     return lax.custom_root(lambda x: x * x - a, 1.0, newton,
    ...                            lambda g, y: y / g(1.0))
    >>> numjax.grad(sqrt)(4.0)
    Array(0.25, dtype=float32, weak_type=True)
    """
    guess_flat, in_args_tree = tree_flatten((initial_guess,))
    guess_avals = [get_aval(x) for x in guess_flat]
    (in_tree,) = in_args_tree.children()
    what = "custom_root"
    f_traced = trace_fun(f, in_args_tree, guess_avals, what)
    _check_tree("f", "initial_guess", f_traced.out_tree, in_tree)
    s_traced = trace_fun(functools.partial(solve, f), in_args_tree, guess_avals, what)
    _check_tree("solve", "initial_guess", s_traced.out_tree, in_tree, has_aux)

    def linearize_and_solve(x: Any, b: Any) -> Any:
        _, f_jvp = linearize(f, x)
        return tangent_solve(f_jvp, b)

    pair_tree = tree_flatten((initial_guess, initial_guess))[1]
    l_traced = trace_fun(linearize_and_solve, pair_tree, guess_avals * 2, what)
    _check_tree("tangent_solve", "x", l_traced.out_tree, in_tree)

    nf, ns, nl = len(f_traced.consts), len(s_traced.consts), len(l_traced.consts)
    n_out = len(f_traced.out_avals)

    @custom_jvp
    def root(*args: Any) -> list[Any]:
        return _as_fun(s_traced.closed)(*args[nf:nf + ns], *args[nf + ns + nl:])

    @root.defjvp
    def root_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
        f_params, l_params = list(primals[:nf]), list(primals[nf + ns:nf + ns + nl])
        sol = root(*primals)
        solution, aux = list(sol[:n_out]), list(sol[n_out:])
        f_at_solution = lambda *p: _as_fun(f_traced.closed)(*p, *solution)
        aux_dot = [ad.instantiate_zeros(Zero(ad.tangent_aval(get_aval(a)))) for a in aux]
        if not nf:  # f closes over nothing: the root is a constant
            return sol, [*[ad.instantiate_zeros(Zero(ad.tangent_aval(get_aval(s))))
                           for s in solution], *aux_dot]
        _, rhs = jvp(f_at_solution, tuple(f_params), tuple(tangents[:nf]))
        sol_dot = _as_fun(l_traced.closed)(*l_params, *solution, *rhs)
        return sol, [*[-t for t in sol_dot], *aux_dot]

    consts = [*f_traced.consts, *s_traced.consts, *l_traced.consts]
    out = root(*consts, *guess_flat)
    return tree_unflatten(s_traced.out_tree, out)

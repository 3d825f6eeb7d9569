"""numjax.scipy.sparse.linalg (cg, bicgstab, gmres) against solutions, dtypes, weak types and
gradients recorded from JAX 0.4.30 (`jax.scipy.sparse.linalg`), and against NumPy's dense
solve; gradients (through custom_linear_solve) also against finite differences, jit against
eager, vmap against a Python loop, bad input against JAX's errors."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_scipy_linalg import _close, _weighted_sum

import numjax
import numjax.numpy as jnp
import numjax.scipy.sparse as sparse
from numjax._src.scipy.sparse import linalg as src_sparse_linalg
from numjax.experimental import enable_x64
from numjax.scipy.sparse import linalg as sp
from numjax.test_util import check_grads
from numjax.tree_util import tree_leaves

INF, NAN = np.inf, np.nan
F32 = np.float32

S = np.array([[4.0, 1.0, 0.5, 0.0], [1.0, 3.0, 0.2, 0.1], [0.5, 0.2, 2.0, 0.3],
              [0.0, 0.1, 0.3, 1.5]], F32)
N = np.array([[3.0, 1.0, 0.0, 0.5], [-1.0, 2.0, 0.4, 0.0], [0.2, 0.0, 1.5, -0.3],
              [0.0, 0.6, 0.1, 2.0]], F32)
b = np.array([1.0, -2.0, 0.5, 3.0], F32)
MINV = np.diag(1 / np.diag(S)).astype(F32)
SC = (S + 0.5j * np.eye(4)).astype(np.complex64)
NC = (N + 0.5j * np.eye(4)).astype(np.complex64)
BC = (b + 1j).astype(np.complex64)
SOLVERS = ["cg", "bicgstab", "gmres"]
OPERATOR = {"cg": S, "bicgstab": N, "gmres": N}


def tree_op(A: Any) -> Callable[[Any], Any]:
    """A acting on {"a": x[:2], "b": x[2:]}."""
    return lambda t: {"a": A[:2, :2] @ t["a"] + A[:2, 2:] @ t["b"],
                      "b": A[2:, :2] @ t["a"] + A[2:, 2:] @ t["b"]}


Expected = list[tuple[str, bool, tuple[int, ...], list[Any]]]
# (case, computation, JAX's solution leaves as (dtype, weak_type, shape, values), JAX's info)
GOLDEN: list[tuple[str, Callable[[], Any], Expected, Any]] = [
    ("cg_matrix", lambda: sp.cg(S, b), [
        ("float32", False, (4,), [0.48451537, -0.89119494, -0.0937333, 2.0781598]),
    ], None),
    ("cg_function", lambda: sp.cg(lambda v: jnp.dot(S, v), b), [
        ("float32", False, (4,), [0.48451537, -0.89119494, -0.0937333, 2.0781598]),
    ], None),
    ("cg_maxiter", lambda: sp.cg(S, b, maxiter=2), [
        ("float32", False, (4,), [0.45424128, -0.8769489, -0.04879881, 2.087998]),
    ], None),
    ("cg_x0", lambda: sp.cg(S, b, x0=np.ones(4, F32), maxiter=1), [
        ("float32", False, (4,), [-0.061978415, -0.4867697, 0.410012, 1.2595947]),
    ], None),
    ("cg_tol", lambda: sp.cg(S, b, tol=1e-2), [
        ("float32", False, (4,), [0.48451537, -0.89119494, -0.0937333, 2.0781598]),
    ], None),
    ("cg_atol", lambda: sp.cg(S, b, tol=0.0, atol=0.5), [
        ("float32", False, (4,), [0.45424128, -0.8769489, -0.04879881, 2.087998]),
    ], None),
    ("cg_preconditioner", lambda: sp.cg(S, b, M=MINV, maxiter=2), [
        ("float32", False, (4,), [0.43004468, -0.90467304, -0.10692692, 2.0845258]),
    ], None),
    ("cg_preconditioner_function", lambda: sp.cg(S, b, M=lambda v: MINV @ v, maxiter=2), [
        ("float32", False, (4,), [0.43004468, -0.90467304, -0.10692692, 2.0845258]),
    ], None),
    ("cg_pytree", lambda: sp.cg(tree_op(S), {"a": b[:2], "b": b[2:]}), [
        ("float32", False, (2,), [0.4845154, -0.891195]),
        ("float32", False, (2,), [-0.0937333, 2.0781596]),
    ], None),
    ("cg_complex", lambda: sp.cg(SC, BC), [
        ("complex64", False, (4,), [complex(0.62573445, 0.044992212), complex(-0.9999094,
            0.43988484), complex(-0.2613588, 0.94437134), complex(2.159574, -0.71712226)]),
    ], None),
    ("bicgstab_matrix", lambda: sp.bicgstab(N, b), [
        ("float32", False, (4,), [0.35739127, -0.9485507, 0.63623184, 1.7527536]),
    ], None),
    ("bicgstab_function", lambda: sp.bicgstab(lambda v: jnp.dot(N, v), b), [
        ("float32", False, (4,), [0.35739127, -0.9485507, 0.63623184, 1.7527536]),
    ], None),
    ("bicgstab_maxiter", lambda: sp.bicgstab(N, b, maxiter=2), [
        ("float32", False, (4,), [0.32303178, -0.88854945, 0.55707276, 1.7397811]),
    ], None),
    ("bicgstab_x0", lambda: sp.bicgstab(N, b, x0=np.ones(4, F32), maxiter=1), [
        ("float32", False, (4,), [0.35671502, -1.0919235, 0.6234352, 1.464901]),
    ], None),
    ("bicgstab_tol", lambda: sp.bicgstab(N, b, tol=1e-2), [
        ("float32", False, (4,), [0.35568666, -0.9464415, 0.6257111, 1.7549355]),
    ], None),
    ("bicgstab_atol", lambda: sp.bicgstab(N, b, tol=0.0, atol=0.5), [
        ("float32", False, (4,), [0.4039215, -0.8493309, 0.45088813, 1.7614791]),
    ], None),
    ("bicgstab_preconditioner", lambda: sp.bicgstab(N, b, M=MINV, maxiter=2), [
        ("float32", False, (4,), [0.36702448, -0.98402697, 0.6511778, 1.7721632]),
    ], None),
    ("bicgstab_preconditioner_function", lambda: sp.bicgstab(N, b, M=lambda v: MINV @ v, maxiter=2),
        [
        ("float32", False, (4,), [0.36702448, -0.98402697, 0.6511778, 1.7721632]),
    ], None),
    ("bicgstab_pytree", lambda: sp.bicgstab(tree_op(N), {"a": b[:2], "b": b[2:]}), [
        ("float32", False, (2,), [0.35739127, -0.9485507]),
        ("float32", False, (2,), [0.6362319, 1.7527535]),
    ], None),
    ("bicgstab_complex", lambda: sp.bicgstab(NC, BC), [
        ("complex64", False, (4,), [complex(0.33879346, 0.0775691), complex(-0.81381786, 0.6663913),
            complex(0.7490626, 0.37923846), complex(1.6724446, -0.13699044)]),
    ], None),
    ("bicgstab_python_scalar", lambda: sp.bicgstab(lambda v: 2.0 * v, 1.0), [
        ("float32", True, (), [0.5]),
    ], None),
    ("gmres_matrix", lambda: sp.gmres(N, b), [
        ("float32", False, (4,), [0.35739124, -0.94855046, 0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_function", lambda: sp.gmres(lambda v: jnp.dot(N, v), b), [
        ("float32", False, (4,), [0.35739124, -0.94855046, 0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_maxiter", lambda: sp.gmres(N, b, maxiter=2), [
        ("float32", False, (4,), [0.35739124, -0.94855046, 0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_x0", lambda: sp.gmres(N, b, x0=np.ones(4, F32), maxiter=1), [
        ("float32", False, (4,), [0.35739118, -0.9485506, 0.6362318, 1.7527536]),
    ], ("int32", True, (), [0])),
    ("gmres_tol", lambda: sp.gmres(N, b, tol=1e-2), [
        ("float32", False, (4,), [0.35739124, -0.94855046, 0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_atol", lambda: sp.gmres(N, b, tol=0.0, atol=0.5), [
        ("float32", False, (4,), [0.35739124, -0.94855046, 0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_preconditioner", lambda: sp.gmres(N, b, M=MINV, maxiter=2), [
        ("float32", False, (4,), [0.35739133, -0.9485507, 0.63623196, 1.7527536]),
    ], ("int32", True, (), [0])),
    ("gmres_preconditioner_function", lambda: sp.gmres(N, b, M=lambda v: MINV @ v, maxiter=2), [
        ("float32", False, (4,), [0.35739133, -0.9485507, 0.63623196, 1.7527536]),
    ], ("int32", True, (), [0])),
    ("gmres_pytree", lambda: sp.gmres(tree_op(N), {"a": b[:2], "b": b[2:]}), [
        ("float32", False, (2,), [0.35739124, -0.94855046]),
        ("float32", False, (2,), [0.63623154, 1.7527535]),
    ], ("int32", True, (), [0])),
    ("gmres_complex", lambda: sp.gmres(NC, BC), [
        ("complex64", False, (4,), [complex(0.33879346, 0.07756907), complex(-0.81381804,
            0.66639125), complex(0.74906254, 0.3792386), complex(1.6724446, -0.13699037)]),
    ], ("int32", True, (), [0])),
    ("gmres_python_scalar", lambda: sp.gmres(lambda v: 2.0 * v, 1.0), [
        ("float32", True, (), [0.5]),
    ], ("int32", True, (), [0])),
    ("gmres_incremental_restart", lambda: sp.gmres(N, b, restart=2, solve_method="incremental"), [
        ("float32", False, (4,), [0.35739377, -0.9485558, 0.63622165, 1.7527469]),
    ], ("int32", True, (), [0])),
    ("gmres_incremental_one_cycle", lambda: sp.gmres(N, b, restart=2, maxiter=1,
        solve_method="incremental"), [
        ("float32", False, (4,), [0.39602688, -0.83292013, 0.44321153, 1.7295599]),
    ], ("int32", True, (), [0])),
    ("gmres_incremental_preconditioner", lambda: sp.gmres(N, b, restart=2, maxiter=1, M=MINV,
        solve_method="incremental"), [
        ("float32", False, (4,), [0.2564997, -0.94710875, 0.6704159, 1.7632188]),
    ], ("int32", True, (), [0])),
    ("gmres_incremental_complex", lambda: sp.gmres(NC, BC, restart=3, maxiter=1,
        solve_method="incremental"), [
        ("complex64", False, (4,), [complex(0.33574814, 0.07646409), complex(-0.82641405,
            0.6741545), complex(0.7138983, 0.41138414), complex(1.6649623, -0.15777595)]),
    ], ("int32", True, (), [0])),
    ("gmres_batched_restart", lambda: sp.gmres(N, b, restart=2, solve_method="batched"), [
        ("float32", False, (4,), [0.35739377, -0.9485558, 0.63622165, 1.7527469]),
    ], ("int32", True, (), [0])),
    ("gmres_batched_one_cycle", lambda: sp.gmres(N, b, restart=2, maxiter=1,
        solve_method="batched"), [
        ("float32", False, (4,), [0.39602688, -0.83292013, 0.44321153, 1.7295598]),
    ], ("int32", True, (), [0])),
    ("gmres_batched_preconditioner", lambda: sp.gmres(N, b, restart=2, maxiter=1, M=MINV,
        solve_method="batched"), [
        ("float32", False, (4,), [0.2564997, -0.94710875, 0.6704159, 1.7632188]),
    ], ("int32", True, (), [0])),
    ("gmres_batched_complex", lambda: sp.gmres(NC, BC, restart=3, maxiter=1,
        solve_method="batched"), [
        ("complex64", False, (4,), [complex(0.3357482, 0.0764641), complex(-0.8264141, 0.6741545),
            complex(0.7138983, 0.41138414), complex(1.6649623, -0.15777594)]),
    ], ("int32", True, (), [0])),
    ("gmres_batched_singular", lambda: sp.gmres(np.zeros((4, 4), F32), b, solve_method="batched"), [
        ("float32", False, (4,), [NAN, NAN, NAN, NAN]),
    ], ("int32", True, (), [-1])),
]

# (case, function, arguments, JAX's gradient of sum(f(*args) * cos(arange)) per argument)
GRADS: list[tuple[str, Callable[..., Any], tuple[Any, ...], list[list[float]]]] = [
    ("cg_b", lambda x: sp.cg(S, x)[0], (b,), [
        [0.2399299, 0.13362184, -0.18668313, -0.6315665],
    ]),
    ("cg_operator", lambda a, x: sp.cg(lambda v: a @ v, x)[0], (S, b), [
        [-0.116249725, 0.21382432, 0.022489423, -0.49861267, -0.064741835, 0.11908311, 0.012524816,
            -0.27768755, 0.090450846, -0.16637106, -0.017498426, 0.3879574, 0.3060037, -0.56284887,
            -0.059198815, 1.3124962],
        [0.2399299, 0.13362184, -0.18668313, -0.6315665],
    ]),
    ("cg_preconditioned", lambda a, x: sp.cg(lambda v: a @ v, x, M=MINV)[0], (S, b), [
        [-0.11624972, 0.21382429, 0.022489425, -0.49861264, -0.064741865, 0.11908315, 0.012524825,
            -0.27768767, 0.09045084, -0.16637103, -0.017498428, 0.38795736, 0.30600366, -0.5628488,
            -0.05919882, 1.3124961],
        [0.23992988, 0.1336219, -0.18668312, -0.63156646],
    ]),
    ("bicgstab_b", lambda x: sp.bicgstab(N, x)[0], (b,), [
        [0.43566668, 0.24699323, -0.30003488, -0.6489183],
    ]),
    ("bicgstab_operator", lambda a, x: sp.bicgstab(lambda v: a @ v, x)[0], (N, b), [
        [-0.15570347, 0.41325194, -0.27718502, -0.7636163, -0.08827322, 0.2342856, -0.15714496,
            -0.43291828, 0.107229844, -0.2845983, 0.19089174, 0.52588725, 0.23191772, -0.61553186,
            0.41286248, 1.1373938],
        [0.43566668, 0.24699323, -0.30003488, -0.6489183],
    ]),
    ("gmres_b", lambda x: sp.gmres(N, x)[0], (b,), [
        [0.43566668, 0.24699321, -0.30003485, -0.64891815],
    ]),
    ("gmres_operator", lambda a, x: sp.gmres(lambda v: a @ v, x)[0], (N, b), [
        [-0.15570346, 0.41325182, -0.27718487, -0.7636163, -0.08827321, 0.23428553, -0.15714487,
            -0.43291822, 0.10722983, -0.2845982, 0.19089164, 0.52588713, 0.23191766, -0.6155316,
            0.41286218, 1.1373936],
        [0.43566668, 0.24699321, -0.30003485, -0.64891815],
    ]),
    ("gmres_incremental_operator", lambda a, x: sp.gmres(lambda v: a @ v, x,
        solve_method="incremental")[0], (N, b), [
        [-0.1557035, 0.4132521, -0.2771851, -0.7636165, -0.08827324, 0.2342857, -0.15714502,
            -0.43291837, 0.10722985, -0.28459835, 0.19089179, 0.52588725, 0.23191771, -0.615532,
            0.4128625, 1.1373937],
        [0.4356668, 0.2469933, -0.3000349, -0.6489183],
    ]),
    ("cg_pytree", lambda a, x: jnp.concatenate(tree_leaves(sp.cg(tree_op(a), {"a": x[:2], "b":
        x[2:]})[0])), (S, b), [
        [-0.116249755, 0.21382436, 0.022489427, -0.4986127, -0.06474186, 0.119083144, 0.012524819,
            -0.27768758, 0.09045086, -0.16637109, -0.017498428, 0.38795736, 0.3060037, -0.56284887,
            -0.05919881, 1.312496],
        [0.23992994, 0.13362187, -0.18668315, -0.63156646],
    ]),
]


@pytest.mark.parametrize("name,fn,expected,info", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_solutions_match_jax(name: str, fn: Callable[[], Any], expected: Expected,
                             info: Any) -> None:
    x, out_info = fn()
    leaves = tree_leaves(x)
    assert len(leaves) == len(expected)
    for leaf, (dtype, weak, shape, values) in zip(leaves, expected, strict=True):
        assert (str(leaf.dtype), leaf.weak_type, leaf.shape) == (dtype, weak, shape)
        _close(np.asarray(leaf).ravel(), np.array(values, dtype))
    if info is None:
        assert out_info is None
    else:
        dtype, weak, shape, values = info
        assert (str(out_info.dtype), out_info.weak_type, out_info.shape) == (dtype, weak, shape)
        assert int(out_info) == values[0]


@pytest.mark.parametrize("solver", SOLVERS)
def test_converged_solutions_match_dense_solve(solver: str) -> None:
    A = OPERATOR[solver]
    with enable_x64():
        A64, b64 = A.astype(np.float64), b.astype(np.float64)
        x, _ = getattr(sp, solver)(A64, b64, tol=1e-12)
        assert x.dtype == np.float64
        _close(x, np.linalg.solve(A64, b64), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_gmres_restarts_converge(method: str) -> None:
    x, info = sp.gmres(N, b, restart=2, tol=1e-6, solve_method=method)
    _close(x, np.linalg.solve(N.astype(np.float64), b), rtol=1e-4, atol=1e-5)
    assert int(info) == 0


@pytest.mark.parametrize("name,f,args,expected", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_jax(name: str, f: Callable[..., Any], args: tuple[Any, ...],
                             expected: list[list[float]]) -> None:
    grads = numjax.grad(_weighted_sum(f), argnums=tuple(range(len(args))))(*args)
    for g, e in zip(grads, expected, strict=True):
        _close(np.asarray(g).ravel(), e, rtol=1e-5, atol=1e-5)


FD_CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    # cg needs a symmetric operator, so its matrix is symmetrized before use.
    ("cg", lambda a, x: sp.cg(lambda v: ((a + a.T) / 2) @ v, x, tol=1e-12)[0], (S, b)),
    ("cg_preconditioned",
     lambda a, x: sp.cg(lambda v: ((a + a.T) / 2) @ v, x, tol=1e-12, M=MINV)[0], (S, b)),
    ("bicgstab", lambda a, x: sp.bicgstab(lambda v: a @ v, x, tol=1e-12)[0], (N, b)),
    ("gmres_batched", lambda a, x: sp.gmres(lambda v: a @ v, x, tol=1e-12)[0], (N, b)),
    ("gmres_incremental",
     lambda a, x: sp.gmres(lambda v: a @ v, x, tol=1e-12, solve_method="incremental")[0],
     (N, b)),
]


@pytest.mark.parametrize("name,f,args", FD_CASES, ids=[c[0] for c in FD_CASES])
def test_gradients_match_finite_differences(name: str, f: Callable[..., Any],
                                            args: tuple[Any, ...]) -> None:
    with enable_x64():
        check_grads(f, tuple(np.asarray(a, np.float64) for a in args), order=1,
                    modes=("fwd", "rev"), atol=1e-6, rtol=1e-6, eps=1e-6)


def test_gradient_of_part_of_a_pytree_solution() -> None:
    # Only x["b"] reaches the loss; x["a"]'s cotangent is a symbolic zero.
    def loss(x: Any) -> Any:
        return sp.cg(tree_op(S), {"a": x[:2], "b": x[2:]}, tol=1e-8)[0]["b"].sum()

    expected = np.linalg.solve(S.astype(np.float64), np.r_[0, 0, 1, 1])
    _close(numjax.grad(loss)(b), expected, rtol=1e-4, atol=1e-5)


JIT_CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("cg", lambda a, x: sp.cg(a, x, maxiter=3), (S, b)),
    ("cg_operator", lambda a, x: sp.cg(lambda v: a @ v, x, M=MINV), (S, b)),
    ("bicgstab", lambda a, x: sp.bicgstab(a, x, maxiter=2), (N, b)),
    ("gmres_batched", lambda a, x: sp.gmres(a, x, restart=2, maxiter=2), (N, b)),
    ("gmres_incremental",
     lambda a, x: sp.gmres(a, x, restart=3, solve_method="incremental"), (N, b)),
    ("cg_pytree", lambda a, x: sp.cg(tree_op(a), {"a": x[:2], "b": x[2:]}), (S, b)),
]


@pytest.mark.parametrize("name,f,args", JIT_CASES, ids=[c[0] for c in JIT_CASES])
def test_jit_matches_eager(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    eager = tree_leaves(f(*args))
    jitted = tree_leaves(numjax.jit(f)(*args))
    for e, j in zip(eager, jitted, strict=True):
        assert (e.dtype, e.shape) == (j.dtype, j.shape)
        _close(j, e, rtol=1e-6, atol=1e-6)


def _stack(*xs: Any) -> np.ndarray:
    return np.stack([np.asarray(x) for x in xs])


RHS = _stack(b, -2 * b, np.array([0.0, 1.0, 0.0, -1.0], F32))
OPS = {"cg": _stack(S, 2 * S + np.eye(4, dtype=F32), S @ S),
       "bicgstab": _stack(N, N.T, N + np.eye(4, dtype=F32)),
       "gmres": _stack(N, N.T, N + np.eye(4, dtype=F32))}
VMAP_CASES = [(s, over) for s in SOLVERS for over in ("rhs", "operator")]


@pytest.mark.parametrize("solver,over", VMAP_CASES, ids=[f"{s}-{o}" for s, o in VMAP_CASES])
def test_vmap_matches_loop(solver: str, over: str) -> None:
    solve = getattr(sp, solver)
    kwargs = dict(maxiter=3, restart=2) if solver == "gmres" else dict(maxiter=3)
    if over == "rhs":
        args, axes = (OPERATOR[solver], RHS), (None, 0)
    else:
        args, axes = (OPS[solver], RHS), (0, 0)

    def f(a: Any, x: Any) -> Any:
        return solve(lambda v: a @ v, x, **kwargs)[0]

    batched = numjax.vmap(f, in_axes=axes)(*args)
    looped = [f(args[0] if axes[0] is None else args[0][i], args[1][i]) for i in range(3)]
    _close(batched, np.stack([np.asarray(x) for x in looped]), rtol=1e-5, atol=1e-5)


ERRORS: list[tuple[str, Callable[[], Any], type[Exception], str]] = []
for _s in SOLVERS:
    _f = getattr(sp, _s)
    ERRORS += [
        (f"{_s}_x0_tree", lambda f=_f: f(N, b, x0=(b,)), ValueError,
         "x0 and b must have matching tree structure"),
        (f"{_s}_operator_shape", lambda f=_f: f(np.ones((2, 3), F32), b), ValueError,
         r"linear operator must be a square matrix, but has shape: \(2, 3\)"),
        (f"{_s}_operator_type", lambda f=_f: f("abc", b), TypeError,
         "linear operator must be either a function or ndarray: abc"),
        (f"{_s}_list_rhs", lambda f=_f: f(N, [1.0, 2.0, 3.0, 4.0]), TypeError,
         "dot requires ndarray or scalar arguments, got <class 'list'>"),
    ]
    if _s != "gmres":  # gmres does not compare x0's shapes with b's, as in JAX
        ERRORS.append((f"{_s}_x0_shape", lambda f=_f: f(N, b, x0=b[:2]), ValueError,
                       r"arrays in x0 and b must have matching shapes: \[\(2,\)\] vs \[\(4,\)\]"))
ERRORS.append(("gmres_solve_method", lambda: sp.gmres(N, b, solve_method="x"), ValueError,
               "invalid solve_method x, must be either 'incremental' or 'batched'"))


@pytest.mark.parametrize("name,fn,exc,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_jax_errors(name: str, fn: Callable[[], Any], exc: type[Exception],
                                     match: str) -> None:
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("module", [src_sparse_linalg, sp, sparse])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_every_public_function_has_an_example() -> None:
    for name in SOLVERS:
        doc = getattr(sp, name).__doc__
        assert doc and ">>>" in doc, name

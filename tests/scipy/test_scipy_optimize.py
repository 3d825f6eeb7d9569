"""numjax.scipy.optimize against results recorded from JAX 0.4.30's `jax.scipy.optimize`.

In float64 the runs are JAX's to 1e-9. In float32 they agree to rounding only as long as the
run is well conditioned: XLA fuses a * b + c into one FMA (one rounding) where NumPy rounds
twice, and a line search's interpolation amplifies such last-bit differences, so long float32
runs on Rosenbrock (and JAX's own jit and eager runs) drift apart after a few iterations. The
float32 tables therefore hold short runs and well-conditioned problems.
"""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.scipy.optimize import bfgs, lbfgs, line_search
from numjax._src.scipy.optimize import minimize as minimize_mod
from numjax.experimental import enable_x64
from numjax.scipy.optimize import OptimizeResults, minimize

LBFGS = "l-bfgs-experimental-do-not-rely-on-this"
A = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.5]], np.float32)
B = np.array([1.0, -2.0, 0.5], np.float32)


def rosen(x: Any) -> Any:
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def quad(x: Any, a: Any, b: Any) -> Any:
    return 0.5 * x @ a @ x - b @ x


def _check_result(res: OptimizeResults, expected: dict[str, Any], rtol: float,
                  atol: float) -> None:
    for name, value in expected.items():
        out = getattr(res, name)
        if name in ("success", "status", "nfev", "njev", "nit"):
            assert out.item() == value, name
        else:
            np.testing.assert_allclose(out, value, rtol=rtol, atol=atol, err_msg=name)


# ---- float32: full results on well-conditioned runs ---------------------------------------

BFGS_QUAD = dict(  # minimize(quad, zeros(3), (A, B), method="BFGS")
    x=[0.8888888, -1.6666656, 0.88888556], success=True, status=0, fun=-2.3333333,
    jac=[7.1525574e-07, 4.7683716e-07, -4.4256449e-06],
    hess_inv=[[0.40751055, -0.22209187, 0.07310657], [-0.22209188, 0.66681945, -0.22322509],
              [0.07310656, -0.22322512, 0.7484343]],
    nfev=9, njev=9, nit=7,
)
BFGS_ROSEN = dict(  # minimize(rosen, [-1.2, 1.0], method="BFGS"): JAX's BFGS stops on a failed zoom
    x=[-0.27780813, 0.04333903], success=False, status=3, fun=1.747297,
    jac=[-6.315841, -6.7676654],
    hess_inv=[[0.06769875, -0.050390255], [-0.05039024, 0.04021394]],
    nfev=17, njev=17, nit=8,
)
RESULT_TYPES = dict(  # (dtype, weak_type) of each field, float32 input
    x=("float32", False), success=("bool", False), status=("int32", True),
    fun=("float32", False), jac=("float32", False), hess_inv=("float32", False),
    nfev=("int32", True), njev=("int32", True), nit=("int32", True),
)
ROSEN4_STEPS = {  # method -> rows (maxiter, x, fun, nfev) from x0 = [-1.2, 1, 0.8, 1.5]
    "BFGS": [
        (1, [-1.0051912, 1.0072285, 1.0851653, 1.3445867], 7.3173394, 3),
        (2, [-1.0486797, 1.0590047, 1.1147256, 1.3253572], 5.0688162, 8),
        (3, [-1.0420313, 1.0860689, 1.1564001, 1.4065244], 4.7350779, 10),
    ],
    LBFGS: [
        (1, [-0.98915768, 1.0421572, 1.1229236, 1.3112867], 4.7686772, 11),
        (2, [-1.0159305, 1.0589904, 1.1301275, 1.3001738], 4.2169638, 12),
        (3, [-1.0275297, 1.0637395, 1.1365267, 1.2935704], 4.1426921, 13),
        (5, [-1.026378, 1.0637351, 1.1360139, 1.2927077], 4.141829, 15),
    ],
}


def test_bfgs_quadratic_matches_jax() -> None:
    res = minimize(quad, jnp.zeros(3), (A, B), method="BFGS")
    assert isinstance(res, OptimizeResults)
    _check_result(res, BFGS_QUAD, rtol=1e-4, atol=2e-5)
    for name, (dtype, weak) in RESULT_TYPES.items():
        out = getattr(res, name)
        assert (str(out.dtype), out.weak_type) == (dtype, weak), name


def test_bfgs_rosenbrock_matches_jax() -> None:
    _check_result(minimize(rosen, jnp.array([-1.2, 1.0]), method="BFGS"), BFGS_ROSEN,
                  rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("method", ["BFGS", LBFGS])
def test_first_iterates_match_jax(method: str) -> None:
    for maxiter, x, fun, nfev in ROSEN4_STEPS[method]:
        res = minimize(rosen, jnp.array([-1.2, 1.0, 0.8, 1.5]), method=method,
                       options=dict(maxiter=maxiter))
        np.testing.assert_allclose(res.x, x, rtol=1e-4)
        np.testing.assert_allclose(res.fun, fun, rtol=1e-4)
        assert (int(res.nfev), int(res.status)) == (nfev, 1)
        # L-BFGS tests maxiter against the count before its iteration: one more than asked.
        assert int(res.nit) == maxiter + (method == LBFGS)


def test_lbfgs_has_no_hessian_and_handles_complex_variables() -> None:
    c = jnp.array([1 + 2j, -0.5 + 0.25j], jnp.complex64)
    res = minimize(lambda z: jnp.sum(jnp.abs(z - c) ** 2 * jnp.array([1.0, 3.0])),
                   jnp.zeros(2, jnp.complex64), method=LBFGS)
    assert res.hess_inv is None and res.x.dtype == np.complex64
    np.testing.assert_allclose(res.x, c, atol=1e-6)
    assert (int(res.nit), int(res.nfev), int(res.status), bool(res.success)) == (3, 5, 0, True)


# ---- float64: JAX's whole runs ----------------------------------------------------------

X64_RUNS = [  # (method, x0, x, fun, nfev, nit, status) from JAX with jax_enable_x64
    ("BFGS", [-1.2, 1.0], [-0.27780696147512607, 0.04333877520015576], 1.747291199355514, 17, 8,
     3),
    ("BFGS", [-1.2, 1.0, 0.8, 1.5],
     [-0.8273547093158957, 0.6949178225306488, 0.48666923570825643, 0.23291151903158602],
     3.709590374868257, 33, 21, 3),
    ("BFGS", [0.5, 0.5, 0.5], [0.9684639200502668, 0.9332067207930902, 0.8658402610285346],
     0.010214237872024415, 23, 13, 3),
    (LBFGS, [-1.2, 1.0], [0.22336419730958282, 0.022606940744661057], 0.6776082401302577, 35,
     17, 5),
    (LBFGS, [-1.2, 1.0, 0.8, 1.5],
     [-0.7756598811249442, 0.6130944213632994, 0.38206410420687364, 0.14597310430169708],
     3.7014286104326355, 46, 33, 4),
    (LBFGS, [0.5, 0.5, 0.5], [0.9933056767833104, 0.9869440578633132, 0.9723640364020386],
     0.0005107052201881534, 26, 16, 5),
]
X64_OPTIONS = [  # (method, options, x, nit, nfev, status) from x0 = [-1.2, 1]
    ("BFGS", dict(maxiter=4, norm=2, gtol=1e-3), [-0.5153623732804784, 0.24451948642388283], 4,
     10, 1),
    (LBFGS, dict(maxcor=3, maxfun=20), [-0.5548642121146712, 0.38776685325318405], 8, 21, 2),
    (LBFGS, dict(maxgrad=10), [-1.0229400048157544, 1.068822555838626], 2, 12, 3),
]


@pytest.mark.parametrize("method,x0,x,fun,nfev,nit,status", X64_RUNS)
def test_float64_runs_match_jax(method: str, x0: list[float], x: list[float], fun: float,
                                nfev: int, nit: int, status: int) -> None:
    with enable_x64():
        res = minimize(rosen, jnp.array(x0), method=method)
        assert (str(res.x.dtype), str(res.nit.dtype), res.nit.weak_type) == (
            "float64", "int64", True)
    _check_result(res, dict(x=x, fun=fun, nfev=nfev, njev=nfev, nit=nit, status=status,
                            success=False), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("method,options,x,nit,nfev,status", X64_OPTIONS)
def test_float64_options_match_jax(method: str, options: dict[str, Any], x: list[float],
                                   nit: int, nfev: int, status: int) -> None:
    with enable_x64():
        res = minimize(rosen, jnp.array([-1.2, 1.0]), method=method, options=options)
    _check_result(res, dict(x=x, nit=nit, nfev=nfev, status=status), rtol=1e-9, atol=1e-12)


# ---- the line search --------------------------------------------------------------------

X0 = np.array([-1.2, 1.0], np.float32)
G0 = np.array([-215.6, -88.0], np.float32)  # the gradient of rosen at X0
LINE_SEARCHES = [  # (keyword arguments, JAX's (a_k, f_k, g_k, nit, nfev))
    (dict(pk=-G0), (0.0009383106, 4.7505918, [30.790684, 17.433134], 1, 11)),
    (dict(pk=-G0, given=True), (7.4501113e-05, 20.38409, [-191.50198, -79.030396], 2, 2)),
    (dict(pk=np.array([1.0, 0.0], np.float32)), (0.37824565, 13.86308, [103.09244, 64.94395], 1,
                                                  3)),
    (dict(pk=-G0 / 1000, maxiter=2), (1.0, 5.3529115, [42.871567, 23.791327], 1, 2)),
]


@pytest.mark.parametrize("kwargs,expected", LINE_SEARCHES)
def test_line_search_matches_jax(kwargs: dict[str, Any], expected: tuple[Any, ...]) -> None:
    kwargs = dict(kwargs)
    if kwargs.pop("given", False):  # f and its gradient at X0, f one higher before
        f_0 = rosen(X0)
        kwargs.update(old_fval=f_0, gfk=numjax.grad(rosen)(X0), old_old_fval=f_0 + 1.0)
    res = line_search.line_search(rosen, X0, **kwargs)
    a_k, f_k, g_k, nit, nfev = expected
    np.testing.assert_allclose([res.a_k, res.f_k], [a_k, f_k], rtol=2e-6)
    np.testing.assert_allclose(res.g_k, g_k, rtol=1e-5)
    assert (int(res.nit), int(res.nfev), int(res.ngev), int(res.status)) == (nit, nfev, nfev, 0)
    assert not bool(res.failed)
    assert [(str(v.dtype), v.weak_type) for v in (res.a_k, res.nfev, res.status)] == [
        ("float32", False), ("int32", True), ("int32", True)]


def test_line_search_zoom_uses_its_bracket() -> None:
    # From 0 along 10 * (1, 1) the first step overshoots (f = 162 > 2); the zoom's quadratic
    # step lands on the minimizer 0.1 at the fourth evaluation (JAX: a_k = 0.1, nfev = 4).
    f = lambda x: jnp.sum((x - 1.0) ** 2)
    res = line_search.line_search(f, jnp.zeros(2), 10 * jnp.ones(2), c2=0.1)
    np.testing.assert_allclose(res.a_k, 0.1, rtol=1e-7)
    assert (int(res.nfev), float(res.f_k), bool(res.failed)) == (4, 0.0, False)


# ---- transformations ----------------------------------------------------------------------


def shifted(x: Any, c: Any) -> Any:
    return jnp.sum((x - c) ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum(x) ** 2


X0S = np.array([[0.0, 0.0, 0.0], [1.0, -1.0, 2.0], [3.0, 0.5, -2.0]], np.float32)
SHIFTED_MIN = [-0.0882353, 0.7058824, 0.9705882]  # JAX, every start and method


@pytest.mark.parametrize("method", ["BFGS", LBFGS])
def test_jit_matches_eager(method: str) -> None:
    run = lambda x: minimize(rosen, x, method=method, options=dict(maxiter=6))
    x0 = jnp.array([-1.2, 1.0, 0.8, 1.5])
    eager, jitted = run(x0), numjax.jit(run)(x0)
    for name in ("x", "fun", "jac", "nfev", "nit", "status", "success"):
        np.testing.assert_allclose(getattr(jitted, name), getattr(eager, name), rtol=1e-5,
                                   err_msg=name)


@pytest.mark.parametrize("method", ["BFGS", LBFGS])
def test_vmap_matches_loop(method: str) -> None:
    run = lambda x: minimize(shifted, x, (1.5,), method=method)
    batched = numjax.vmap(run)(X0S)
    for i, x0 in enumerate(X0S):
        single = run(jnp.asarray(x0))
        np.testing.assert_allclose(batched.x[i], single.x, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(batched.x[i], SHIFTED_MIN, rtol=1e-5, atol=1e-5)
        assert int(batched.nit[i]) == int(single.nit)


def test_forward_mode_through_minimize() -> None:
    # jvp goes through the loops (JAX: x tangent [-0.05882348, 0.47058824, 0.6470587]).
    x, tangent = numjax.jvp(lambda c: minimize(shifted, X0S[0], (c,), method="BFGS").x,
                            (1.5,), (1.0,))
    np.testing.assert_allclose(x, SHIFTED_MIN, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tangent, [-0.05882348, 0.47058824, 0.6470587], rtol=1e-4)


# ---- errors -------------------------------------------------------------------------------


def test_errors_match_jax() -> None:
    x0 = jnp.zeros(3)
    with pytest.raises(ValueError, match="Method nelder-mead not recognized"):
        minimize(shifted, x0, (1.5,), method="nelder-mead")
    with pytest.raises(TypeError, match=r"must be a tuple, got \[1.5\]"):
        minimize(shifted, x0, [1.5], method="BFGS")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="minimize_bfgs.. got an unexpected keyword"):
        minimize(shifted, x0, (1.5,), method="BFGS", options=dict(foo=1))
    with pytest.raises(TypeError, match="_minimize_lbfgs.. got an unexpected keyword"):
        minimize(shifted, x0, (1.5,), method=LBFGS, options=dict(foo=1))
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for "
                                         "lax.while_loop"):
        numjax.grad(lambda c: minimize(shifted, x0, (c,), method="BFGS").fun)(1.5)


@pytest.mark.parametrize("module", [line_search, bfgs, lbfgs, minimize_mod])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0

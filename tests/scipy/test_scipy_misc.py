"""numjax.scipy.integrate, .interpolate, .cluster and .spatial.transform against values,
dtypes, gradients and errors recorded from JAX 0.4.30; also jit against eager and vmap against a
Python loop. Float32 values agree to rounding (numjax's float32 arctan2 is NumPy's, which can
differ from XLA's by an ulp, so angles are compared with atol 2e-6)."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.scipy import cluster, integrate, interpolate, spatial_transform
from numjax.scipy.cluster.vq import vq
from numjax.scipy.integrate import trapezoid
from numjax.scipy.interpolate import RegularGridInterpolator
from numjax.scipy.spatial.transform import Rotation, Slerp
from numjax.test_util import check_grads

NAN = np.nan
F32 = np.float32


def _check(out: Any, expected: Any, dtype: str = "float32", weak: bool = False,
           rtol: float = 2e-6, atol: float = 1e-6) -> None:
    assert (str(out.dtype), out.weak_type) == (dtype, weak)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=atol)


# Gradients recorded from JAX 0.4.30 (see the tests using them).
RGI_GRADS = ([[0.25, 0.25, 0.0], [0.25, 0.40999985, 0.6400001], [0.0, 0.039999973, 0.16000007]],
             [[30.0, 10.0], [29.999998, 10.0], [0.0, 0.0]])
RGI_NEAREST_GRADS = ([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
                     [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
VQ_GRADS = ([[0.57735074, 0.57735002, 0.57735002], [0.98910058, -0.10411575, 0.10411575]],
            [[-0.57735074, -0.57735002, -0.57735002], [-0.0, -0.0, -0.0], [-0.0, -0.0, -0.0],
             [-0.98910058, 0.10411575, -0.10411575]])

# ---- integrate.trapezoid ------------------------------------------------------------------

Y7 = np.array([1, 2, 3, 2, 3, 2, 1], np.int32)
GRID12 = np.arange(12.0, dtype=F32).reshape(3, 4)
TRAPEZOID = [  # (arguments, keyword arguments, JAX's result, dtype)
    ((Y7,), {}, 13.0, "float32"),
    ((Y7,), dict(dx=0.5), 6.5, "float32"),
    ((Y7, np.array([0, 2, 5, 7, 10, 15, 20], np.int32)), {}, 43.0, "float32"),
    ((GRID12,), dict(axis=0), [8.0, 10.0, 12.0, 14.0], "float32"),
    ((GRID12, F32([0.0, 1.0, 3.0])), dict(axis=0), [14.0, 17.0, 20.0, 23.0], "float32"),
    ((GRID12, F32([[0.0, 1.0, 3.0, 4.0]])), {}, [6.0, 22.0, 38.0], "float32"),
    ((np.float16([1, 2, 4]),), {}, 4.5, "float16"),
    ((np.complex64([1, 2j, 4]),), {}, 2.5 + 2j, "complex64"),
    ((np.bool_([True, False, True]),), {}, 1.0, "float32"),
    ((F32([1, 2, 4]),), dict(dx=2.0), 9.0, "float32"),
]


@pytest.mark.parametrize("args,kwargs,expected,dtype", TRAPEZOID)
def test_trapezoid_values(args: tuple[Any, ...], kwargs: dict[str, Any], expected: Any,
                          dtype: str) -> None:
    out = trapezoid(*args, **kwargs)
    _check(out, expected, dtype)
    np.testing.assert_allclose(numjax.jit(trapezoid, static_argnames="axis")(*args, **kwargs),
                               out)


def test_trapezoid_gradients_and_vmap() -> None:
    y, x = F32([1.0, 2, 4, 3]), F32([0.0, 0.5, 2, 3])
    gy, gx = numjax.grad(lambda y, x: trapezoid(y, x), (0, 1))(y, x)
    np.testing.assert_allclose(gy, [0.25, 1.0, 1.25, 0.5])
    np.testing.assert_allclose(gx, [-1.5, -1.5, -0.5, 3.5])
    check_grads(lambda y, x: trapezoid(y, x), (y, x), order=2)
    batched = numjax.vmap(trapezoid)(GRID12)
    np.testing.assert_allclose(batched, [trapezoid(row) for row in GRID12])
    np.testing.assert_allclose(batched, [4.5, 16.5, 28.5])


def test_trapezoid_errors() -> None:
    with pytest.raises(TypeError, match="trapezoid requires ndarray or scalar arguments, got "
                                        "<class 'list'> at position 0"):
        trapezoid([1.0, 2.0])
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 1"):
        trapezoid(np.ones(3), axis=2)
    with pytest.raises(TypeError, match="Argument 'ab' of type <class 'str'> is not a valid JAX "
                                        "type"):
        trapezoid(np.ones(3), "ab")


# ---- interpolate.RegularGridInterpolator --------------------------------------------------

POINTS = (jnp.array([1, 2, 3]), jnp.array([4, 5, 6]))
VALUES = jnp.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]])
G3 = jnp.array([0.0, 1.0, 3.0])
XI = jnp.array([[1.5, 4.5], [2.2, 5.8]])
INTERPOLATION = [  # (constructor arguments, call arguments, JAX's result, its dtype)
    ((POINTS, VALUES), (XI,), [30.0, 64.0], "float32"),
    ((POINTS, VALUES), (XI, "nearest"), [10.0, 60.0], "float32"),
    ((POINTS, VALUES), (jnp.array([[0.5, 4.5], [2.2, 6.8], [3.0, 6.0], [1.0, 4.0]]),),
     [NAN, NAN, 90.0, 10.0], "float32"),
    ((POINTS, VALUES, "linear", False, None), (jnp.array([[0.5, 4.5], [2.2, 6.8]]),),
     [0.0, 74.0], "float32"),
    ((POINTS, VALUES, "linear", False, -1), (XI.at[0, 0].set(0.5),), [-1.0, 64.0], "float32"),
    ((POINTS, VALUES, "nearest", False, -1.0),
     (jnp.array([[0.5, 4.5], [2.5, 5.5], [2.51, 5.49]]),), [-1.0, 50.0, 80.0], "float32"),
    ((POINTS, VALUES), ((jnp.array([1.5, 2.5]), jnp.array([4.5, 5.5])),), [30.0, 70.0],
     "float32"),
    ((POINTS, VALUES), ((jnp.array([1.5, 2.5]), 5.0),), [35.0, 65.0], "float32"),
    ((POINTS, VALUES), (jnp.array([1.5, 4.5]),), [30.0], "float32"),
    ((POINTS, VALUES), (jnp.array([[[1.5, 4.5], [2.5, 5.0]]]),), [[30.0, 65.0]], "float32"),
    ((POINTS, VALUES), (np.array([[2, 5]], np.int32),), [50.0], "float32"),
    (((G3,), jnp.arange(12.0).reshape(3, 2, 2)), (jnp.array([0.5, 2.0, 4.0]),),
     [[[2.0, 3.0], [4.0, 5.0]], [[6.0, 7.0], [8.0, 9.0]], [[NAN, NAN], [NAN, NAN]]], "float32"),
    (((G3,), jnp.array([1.0, 3.0, 2.0])), (jnp.array([[0.25], [2.5]]),), [1.5, 2.25],
     "float32"),
    (((G3,), jnp.array([1, 3, 2], jnp.int32)), (jnp.array([0.5]),), [2.0], "float32"),
    (((G3,), jnp.array([1, 3, 2], jnp.float16)), (jnp.array([0.5, 5.0]),), [2.0, NAN],
     "float32"),
    (((G3,), jnp.array([1, 3, 2], jnp.float16), "linear", False, None),
     (jnp.array([0.5, 5.0]),), [2.0, 1.0], "float32"),
    (((G3,), jnp.array([1, 3, 2], jnp.float16), "nearest"), (jnp.array([0.5, 5.0]),),
     [1.0, NAN], "float16"),
    (((G3.astype(jnp.float16),), jnp.array([1, 3, 2], jnp.float16), "linear", False, None),
     (jnp.array([0.5, 5.0], jnp.float16),), [2.0, 1.0], "float16"),
    (((G3,), jnp.array([1 + 1j, 3, 2], jnp.complex64), "linear", False, 2j),
     (jnp.array([0.5, 5.0]),), [2 + 0.5j, 2j], "complex64"),
]


@pytest.mark.parametrize("init,call,expected,dtype", INTERPOLATION)
def test_interpolator_values(init: tuple[Any, ...], call: tuple[Any, ...], expected: Any,
                             dtype: str) -> None:
    interp = RegularGridInterpolator(*init)
    _check(interp(*call), expected, dtype)


def test_interpolator_jit_vmap_and_pytree() -> None:
    interp = RegularGridInterpolator(POINTS, VALUES)
    np.testing.assert_allclose(numjax.jit(lambda f, x: f(x))(interp, XI), [30.0, 64.0])
    leaves = numjax.tree_util.tree_leaves(interp)
    assert len(leaves) == 4 and leaves[3].weak_type  # grid (2), values, fill_value
    doubled = numjax.tree_util.tree_map(lambda a: a * 2, interp)
    np.testing.assert_allclose(doubled(jnp.array([[3.0, 9.0], [1.5, 4.5]])), [60.0, NAN])
    stacked = jnp.stack([VALUES, 2 * VALUES]).astype(jnp.float32)
    batched = numjax.vmap(lambda v: RegularGridInterpolator(POINTS, v)(XI))(stacked)
    looped = [RegularGridInterpolator(POINTS, v)(XI) for v in stacked]
    np.testing.assert_allclose(batched, np.stack(looped))
    queries = jnp.array([[[1.5, 4.5]], [[2.2, 5.8]], [[2.9, 4.1]]])
    np.testing.assert_allclose(numjax.vmap(interp)(queries), [interp(q) for q in queries])


def test_interpolator_gradients() -> None:
    xi = jnp.array([[1.5, 4.5], [2.2, 5.8], [0.5, 5.0]])
    f = lambda v, x: RegularGridInterpolator(POINTS, v)(x).sum()
    g_values, g_points = numjax.grad(f, (0, 1))(VALUES.astype(jnp.float32), xi)
    np.testing.assert_allclose(g_values, RGI_GRADS[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_points, RGI_GRADS[1], rtol=1e-5, atol=1e-6)
    near = lambda v, x: RegularGridInterpolator(POINTS, v, "nearest", False, None)(x).sum()
    g_values, g_points = numjax.grad(near, (0, 1))(VALUES.astype(jnp.float32), xi)
    np.testing.assert_allclose(g_values, RGI_NEAREST_GRADS[0])
    np.testing.assert_allclose(g_points, RGI_NEAREST_GRADS[1])
    inside = jnp.array([[1.3, 4.6], [2.7, 5.2]])  # away from cell edges
    check_grads(f, (VALUES.astype(jnp.float32), inside), order=2, modes=["fwd", "rev"])


INTERPOLATOR_ERRORS = [  # (callable, JAX's exception type, its message)
    (lambda: RegularGridInterpolator(POINTS, VALUES, method="cubic"), ValueError,
     "method 'cubic' is not defined"),
    (lambda: RegularGridInterpolator(POINTS, VALUES, bounds_error=True), NotImplementedError,
     "`bounds_error` takes no effect under JIT"),
    (lambda: RegularGridInterpolator(POINTS, [[1, 2], [3, 4]]), TypeError,
     "RegularGridInterpolator requires ndarray or scalar arguments, got <class 'list'> at "
     "position 0."),
    (lambda: RegularGridInterpolator((G3, G3, G3), jnp.ones((3, 3))), ValueError,
     "there are 3 point arrays, but values has 2 dimensions"),
    (lambda: RegularGridInterpolator(POINTS, VALUES, fill_value=1j), ValueError,
     "fill_value must be either 'None' or of a type compatible with values"),
    (lambda: RegularGridInterpolator(POINTS, VALUES, fill_value=[1.0]), TypeError,
     "RegularGridInterpolator requires ndarray or scalar arguments"),
    (lambda: RegularGridInterpolator(([1, 2, 3], [4, 5, 6]), VALUES), TypeError,
     "RegularGridInterpolator requires ndarray or scalar arguments, got <class 'list'> at "
     "position 0."),
    (lambda: RegularGridInterpolator(POINTS, VALUES)(jnp.ones((2, 3))), ValueError,
     "the requested sample points xi have dimension 3, but this RegularGridInterpolator has "
     "dimension 2"),
    (lambda: RegularGridInterpolator(POINTS, VALUES)(jnp.ones(3)), TypeError,
     r"cannot reshape array of shape \(3,\) \(size 3\) into shape \(-1, 2\)"),
    (lambda: RegularGridInterpolator(POINTS, VALUES)(jnp.ones(2), method="cubic"), ValueError,
     "method 'cubic' is not defined"),
    (lambda: RegularGridInterpolator(POINTS, VALUES)((jnp.ones(2), jnp.ones(3))), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]"),
    (lambda: RegularGridInterpolator(POINTS, VALUES)([[1.5, 4.5]]), TypeError,
     "_ndim_coords_from_arrays requires ndarray or scalar arguments, got <class 'list'>"),
    (lambda: RegularGridInterpolator((G3,), jnp.ones(3))(0.5), IndexError,
     "tuple index out of range"),
]


@pytest.mark.parametrize("make,error,message", INTERPOLATOR_ERRORS)
def test_interpolator_errors(make: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        make()


# ---- cluster.vq.vq ------------------------------------------------------------------------

OBS = jnp.array([[1.1, 2.1, 3.1], [5.9, 4.8, 6.2]])
CODE_BOOK = jnp.array([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0], [3.0, 4.0, 5.0], [4.0, 5.0, 6.0]])
VQ = [  # (obs, code_book, JAX's codes, JAX's distances)
    (OBS, CODE_BOOK, [0, 3], [0.17320499, 1.9209373]),
    (np.array([1, 5, 9], np.int32), np.array([0, 4, 8, 10], np.int32), [0, 1, 2], [1, 1, 1]),
    (np.array([1.5, 2.5]), np.array([1.0, 2.0, 3.0]), [0, 1], [0.5, 0.5]),
    (np.float16([[1, 2]]), F32([[0, 0], [1, 2]]), [1], [0.0]),
    (np.complex64([[1, 2j]]), F32([[0, 0], [1, 2]]), [0], [2.236068]),
    (F32([[NAN, 1.0]]), F32([[0, 0], [1, 2]]), [0], [NAN]),
]


@pytest.mark.parametrize("obs,code_book,codes,dists", VQ)
def test_vq_values(obs: Any, code_book: Any, codes: list[int], dists: list[float]) -> None:
    out_codes, out_dists = vq(obs, code_book)
    _check(out_codes, codes, "int32")
    _check(out_dists, dists)
    jit_codes, jit_dists = numjax.jit(vq)(obs, code_book)
    np.testing.assert_array_equal(jit_codes, out_codes)
    np.testing.assert_allclose(jit_dists, out_dists)


def test_vq_gradients_and_vmap() -> None:
    g_obs, g_code_book = numjax.grad(lambda o, c: vq(o, c)[1].sum(), (0, 1))(OBS, CODE_BOOK)
    np.testing.assert_allclose(g_obs, VQ_GRADS[0], rtol=1e-5)
    np.testing.assert_allclose(g_code_book, VQ_GRADS[1], rtol=1e-5)
    check_grads(lambda o: vq(o, CODE_BOOK)[1], (OBS,), order=1, modes=["fwd", "rev"])
    batch = jnp.stack([OBS, OBS[::-1], OBS + 1.5])
    codes, dists = numjax.vmap(vq, (0, None))(batch, CODE_BOOK)
    for i, obs in enumerate(batch):
        loop_codes, loop_dists = vq(obs, CODE_BOOK)
        np.testing.assert_array_equal(codes[i], loop_codes)
        np.testing.assert_allclose(dists[i], loop_dists)


VQ_ERRORS = [
    ((([[1.0]], CODE_BOOK)), TypeError,
     "scipy.cluster.vq.vq requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ((OBS, CODE_BOOK[0]), ValueError, "Observation and code_book should have the same rank"),
    ((jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2))), ValueError,
     "ndim different than 1 or 2 are not supported"),
    ((3.0, 2.0), ValueError, "ndim different than 1 or 2 are not supported"),
    ((OBS, CODE_BOOK[:, :2]), TypeError,
     r"sub got incompatible shapes for broadcasting: \(1, 3\), \(4, 2\)."),
]


@pytest.mark.parametrize("args,error,message", VQ_ERRORS)
def test_vq_errors(args: tuple[Any, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        vq(*args)


# ---- spatial.transform.Rotation and Slerp --------------------------------------------------

Q = jnp.array([[0.1, -0.2, 0.3, 0.9], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0],
               [0.5, 0.5, -0.5, -0.5], [0.3, 0.1, -0.7, -0.2], [0.0, 0.0, 1e-4, 1.0]])
V = jnp.array([1.0, 2.0, 3.0])
RV = jnp.array([[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [3.0, 0.5, -1.0], [1e-4, 0.0, 2e-4]])

# Recorded from JAX 0.4.30 (rotations R = Rotation.from_quat(Q)).
ROT = {'from_quat': [[0.10259784, -0.20519568, 0.30779353, 0.92338049], [0.0, 0.0, 0.0, 1.0],
                     [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, -0.5, -0.5],
                     [0.3779645, 0.12598816, -0.88191712, -0.25197631],
                     [0.0, 0.0, 9.9999997e-05, 1.0]],
       'as_matrix': [[[0.72631574, -0.61052632, -0.31578946],
                      [0.52631581, 0.78947359, -0.31578949],
                      [0.44210529, 0.063157886, 0.89473677]],
                     [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                     [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]],
                     [[0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
                     [[-0.58730161, -0.34920636, -0.73015881],
                      [0.53968257, -0.84126985, -0.03174603],
                      [-0.60317469, -0.41269842, 0.6825397]],
                     [[1.0, -0.00019999999, 0.0], [0.00019999999, 1.0, 0.0], [0.0, 0.0, 1.0]]],
       'as_rotvec': [[0.21060242, -0.42120484, 0.63180727], [0.0, 0.0, 0.0], [3.1415927, 0.0, 0.0],
                     [-1.2091995, -1.2091995, 1.2091995], [-1.0280298, -0.34267658, 2.3987362],
                     [0.0, 0.0, 0.00019999999]],
       'as_rotvec_deg': [[12.066629, -24.133259, 36.19989], [0.0, 0.0, 0.0], [180.0, 0.0, 0.0],
                         [-69.282028, -69.282028, 69.282028], [-58.901772, -19.633923, 137.43747],
                         [0.0, 0.0, 0.011459156]],
       'as_mrp': [[0.053342458, -0.10668492, 0.16002737], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0],
                  [-0.33333334, -0.33333334, 0.33333334], [-0.30189431, -0.10063142, 0.70442003],
                  [0.0, 0.0, 4.9999999e-05]],
       'magnitude': [0.78800213, 0.0, 3.1415927, 2.0943952, 2.6321487, 0.00019999999],
       'inv': [[0.10259784, -0.20519568, 0.30779353, -0.92338049], [0.0, 0.0, 0.0, -1.0],
               [1.0, 0.0, 0.0, -0.0], [0.5, 0.5, -0.5, 0.5],
               [0.3779645, 0.12598816, -0.88191712, 0.25197631], [0.0, 0.0, 9.9999997e-05, -1.0]],
       'mul': [[0.10257732, -0.20520595, 0.30788586, 0.92334974],
               [0.3779645, 0.12598816, -0.88191712, -0.25197631], [-0.5, 0.5, 0.5, -0.5],
               [-0.5, -0.5, -0.5, -0.5], [0.3779645, 0.12598816, -0.88191712, -0.25197631],
               [0.10261836, -0.20518541, 0.30788586, 0.92334974]],
       'apply': [[-1.4421053, 1.1578945, 3.2526314], [1.0, 2.0, 3.0], [1.0, -2.0, -3.0],
                 [-3.0, 1.0, -2.0], [-3.4761908, -1.2380952, 0.61904764],
                 [0.99959999, 2.0002, 3.0]],
       'apply_inv': [[3.1052632, 1.1578945, 1.7368419], [1.0, 2.0, 3.0], [1.0, -2.0, -3.0],
                     [2.0, -3.0, -1.0], [-1.3174605, -3.2698414, 1.2539682],
                     [1.0003999, 1.9998, 3.0]],
       'apply_batch': [[-1.2421052, 0.15789461, 1.8526314], [3.0, 4.0, 5.0], [6.0, -7.0, -8.0],
                       [-11.0, 9.0, -10.0], [-21.809525, -4.9047623, -3.0476203],
                       [14.9968, 16.003, 17.0]],
       'from_matrix': [[0.10259785, -0.2051957, 0.30779353, 0.92338049], [0.0, 0.0, 0.0, 1.0],
                       [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, -0.5, -0.5],
                       [-0.3779645, -0.12598816, 0.88191712, 0.25197634],
                       [0.0, 0.0, 9.9999997e-05, 1.0]]}
EULER = {'xyz': [[0.070471287, -0.45794439, 0.62707067], [0.0, 0.0, 0.0], [-3.1415927, 0.0, 0.0],
                 [-1.5707963, 0.0, 1.5707963], [-0.54383254, 0.64747548, 2.398423],
                 [0.0, 0.0, 0.00020003319]],
         'ZYX': [[0.62707067, -0.45794439, 0.070471287], [0.0, 0.0, 0.0], [0.0, 0.0, -3.1415927],
                 [1.5707963, 0.0, -1.5707963], [2.398423, 0.64747548, -0.54383254],
                 [0.00020003319, 0.0, 0.0]],
         'zxz': [[1.428899, 0.46295476, -0.78539824], [0.0, 0.0, 0.0], [0.0, -3.1415927, 0.0],
                 [-3.1415927, 1.5707963, -1.5707963], [-2.1708465, 0.81956434, -1.5273454],
                 [0.00020003319, 0.0, 0.0]],
         'XYX': [[2.2694561, 0.75784969, -2.0481417], [0.0, 0.0, 0.0], [-3.1415927, 0.0, 0.0],
                 [1.5707963, 1.5707963, -3.1415927], [0.72989964, 2.1985171, -2.6954873],
                 [1.5707963, 0.00020003319, -1.5707964]],
         'yzy': [[-0.54041958, 0.66084528, 0.10308146], [0.0, 0.0, 0.0],
                 [-3.1415927, -3.1415927, 0.0], [0.0, 1.5707963, -1.5707963],
                 [-0.058755636, 2.5704243, -0.86853909], [0.0, 0.00020003319, 0.0]],
         'YXZ': [[-0.33929276, 0.32128835, 0.58800268], [0.0, 0.0, 0.0],
                 [-3.1415927, 0.0, -3.1415927], [-1.5707963, 0.0, 1.5707963],
                 [-0.81909347, 0.031751394, 2.5712092], [0.0, 0.0, 0.00020003319]]}
FROM = [('from_rotvec',
         [[0.049708843, 0.099417686, 0.14912653, 0.98255098], [0.0, 0.0, 0.0, 1.0],
          [0.93662131, 0.15610355, -0.3122071, -0.029980263],
          [4.9999999e-05, 0.0, 9.9999997e-05, 1.0]]),
        ('from_rotvec_deg',
         [[0.043439656, 0.086879313, 0.13031898, 0.98670256], [0.0, 0.0, 0.0, 1.0],
          [0.92291749, 0.15381958, -0.30763915, 0.1729769],
          [4.363323e-05, 0.0, 8.726646e-05, 1.0]]),
        ('from_mrp',
         [[0.1754386, 0.3508772, 0.52631581, 0.75438601], [0.0, 0.0, 0.0, 1.0],
          [0.84210527, -0.28070176, 0.14035088, -0.43859649]]),
        ('from_euler',
         [[0.034270793, 0.10602052, 0.14357218, 0.98334748],
          [0.75493377, 0.20614922, 0.50150907, -0.36887139]]),
        ('from_euler_ZXZ_deg', [0.33141357, 0.1913417, 0.80010313, 0.46193975]),
        ('from_euler_z', [0.0, 0.0, 0.68163878, 0.73168886]),
        ('from_euler_xy', [[0.24547364, 0.12079889, -0.030845022, 0.96135265]]),
        ('from_matrix_raw',
         [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.70710677, 0.70710677],
          [-0.025598982, 0.0, -0.051197965, 0.99836034]])]
MEAN = [[0.96314669, -0.22517054, -0.1471286], [0.21617354, 0.97349107, -0.074728273],
        [0.16005497, 0.040168971, 0.98629051]]
SLERP_ROTVECS = [[0.61394322, -0.61394322, -1.4821899], [-0.7670002, -0.49616209, 0.2055171]]
SLERP = [[-0.38268349, 0.0, 0.9238795, -5.9604645e-08], [0.0, 0.0, 0.70710683, 0.70710683],
         [0.21045116, 0.0, 0.388863, 0.89693701], [0.38268349, 0.0, -5.9604645e-08, 0.9238795],
         [0.19670631, -0.13303775, 3.7252903e-09, 0.97139466], [0.0, -0.25881907, 0.0, 0.96592587],
         [0.0, -0.25881907, 0.0, 0.96592587]]
SLERP_SCALAR = [0.1076988, 0.0, 0.56086469, 0.82087255]
APPLY_GRADS = ([-2.0986149, 9.6709156, -5.0326877, 4.0598335], [1.6947368, 0.24210516, 0.26315784])
EULER_GRAD = [1.0298904, 0.77735841, 0.93045968]
MATRIX_GRAD = [[0.5, 0.5, 0.5], [0.5, -0.5, -0.5], [0.5, 0.5, -0.5]]

ROT_METHODS = {
    "from_quat": lambda r: r.quat,
    "as_matrix": lambda r: r.as_matrix(),
    "as_rotvec": lambda r: r.as_rotvec(),
    "as_rotvec_deg": lambda r: r.as_rotvec(degrees=True),
    "as_mrp": lambda r: r.as_mrp(),
    "magnitude": lambda r: r.magnitude(),
    "inv": lambda r: r.inv().quat,
    "mul": lambda r: (r * r[::-1]).quat,
    "apply": lambda r: r.apply(V),
    "apply_inv": lambda r: r.apply(V, inverse=True),
    "apply_batch": lambda r: r.apply(jnp.arange(18.0).reshape(6, 3)),
    "from_matrix": lambda r: Rotation.from_matrix(r.as_matrix()).quat,
}
FROM_CALLS = {
    "from_rotvec": lambda: Rotation.from_rotvec(RV),
    "from_rotvec_deg": lambda: Rotation.from_rotvec(RV * 50, degrees=True),
    "from_mrp": lambda: Rotation.from_mrp(
        jnp.array([[0.1, 0.2, 0.3], [0.0, 0.0, 0.0], [1.5, -0.5, 0.25]])),
    "from_euler": lambda: Rotation.from_euler("xyz", jnp.array([[0.1, 0.2, 0.3],
                                                                 [1.0, -2.0, 3.0]])),
    "from_euler_ZXZ_deg": lambda: Rotation.from_euler("ZXZ", jnp.array([90, 45, 30]),
                                                      degrees=True),
    "from_euler_z": lambda: Rotation.from_euler("z", 1.5),
    "from_euler_xy": lambda: Rotation.from_euler("xy", jnp.array([[0.5, 0.25]])),
    "from_matrix_raw": lambda: Rotation.from_matrix(jnp.array(
        [[[1.0, 0, 0], [0, -1, 0], [0, 0, -1]], [[0.0, -1, 0], [1, 0, 0], [0, 0, 1]],
         [[0.9, 0.1, 0], [-0.1, 0.9, 0.2], [0, 0.1, 1.1]]])),
}


def _check_angles(out: Any, expected: Any, degrees: bool = False) -> None:
    # Compared on the circle: an angle of -pi and one of pi (an ulp apart) are the same.
    assert (str(out.dtype), out.weak_type) == ("float32", False)
    out = np.asarray(out, np.float64)
    if degrees:
        out = np.deg2rad(out)
    diff = np.remainder(out - expected + np.pi, 2 * np.pi) - np.pi
    np.testing.assert_allclose(diff, 0.0, atol=2e-6)


@pytest.mark.parametrize("name", list(ROT))
def test_rotation_methods(name: str) -> None:
    _check(ROT_METHODS[name](Rotation.from_quat(Q)), ROT[name], atol=2e-6)


@pytest.mark.parametrize("seq", list(EULER))
def test_as_euler(seq: str) -> None:
    r = Rotation.from_quat(Q)
    _check_angles(r.as_euler(seq), EULER[seq])
    _check_angles(r.as_euler(seq, degrees=True), EULER[seq], degrees=True)


@pytest.mark.parametrize("name,expected", FROM, ids=[row[0] for row in FROM])
def test_rotation_constructors(name: str, expected: Any) -> None:
    _check(FROM_CALLS[name]().quat, expected, atol=2e-6)


def test_rotation_batches_identity_concatenate_and_mean() -> None:
    r = Rotation.from_quat(Q)
    assert (len(r), r.single, r[0].single) == (6, False, True)
    _check(r[2].quat, [1.0, 0.0, 0.0, 0.0])
    _check(Rotation.identity().quat, [0.0, 0.0, 0.0, 1.0])
    _check(Rotation.identity(dtype=jnp.float16).quat, [0.0, 0.0, 0.0, 1.0], "float16")
    _check(Rotation.from_quat(jnp.array([0, 0, 0, 2])).quat, [0.0, 0.0, 0.0, 1.0])
    _check(Rotation.from_quat([0.0, 0.0, 0.0, 2.0]).quat, [0.0, 0.0, 0.0, 1.0])
    with pytest.warns(DeprecationWarning, match="atleast_1d requires ndarray or scalar"):
        Rotation.from_euler("xyz", [1, 2, 3])  # JAX warns about the list too
    _check(Rotation.concatenate([r[:2], r[3:4]]).quat, np.asarray(ROT["from_quat"])[[0, 1, 3]])
    # Single rotations concatenate into one flat array, as in JAX.
    assert Rotation.concatenate([r[0], r[1]]).quat.shape == (8,)
    _check(r[:2].apply(jnp.arange(6.0).reshape(2, 3)), [[-1.2421052, 0.15789461, 1.8526314],
                                                         [3.0, 4.0, 5.0]])
    _check(r[0].apply(jnp.arange(6.0).reshape(2, 3)), [[-1.2421052, 0.15789461, 1.8526314],
                                                       [-1.8421054, 3.1578941, 6.0526314]])
    # The mean's quaternion sign is arbitrary: compare matrices.
    mean = Rotation.from_quat(Q[:4]).mean(jnp.array([1.0, 2.0, 0.5, 0.1]))
    _check(mean.as_matrix(), MEAN, atol=2e-6)
    _check(Rotation.from_quat(Q[:4]).mean([1, 2, 3, 4]).as_matrix(),
           Rotation.from_quat([-0.6023171, -0.3403668, 0.3521591, 0.6303558]).as_matrix(),
           atol=2e-6)


def test_slerp() -> None:
    keys = Rotation.from_euler("zxy", jnp.array([[90, 0, 0], [0, 45, 0], [0, 0, -30]]),
                               degrees=True)
    slerp = Slerp.init([0, 1, 2], keys)
    _check(slerp.times, [0.0, 1.0, 2.0])
    _check(slerp.timedelta, [1.0, 1.0])
    _check(slerp.rotvecs, SLERP_ROTVECS)
    times = jnp.array([-1.0, 0, 0.5, 1, 1.5, 2, 3.0])
    _check(slerp(times).quat, SLERP, atol=2e-6)
    _check(slerp(0.25).quat, SLERP_SCALAR)
    assert slerp(0.25).single
    np.testing.assert_allclose(numjax.jit(lambda s, t: s(t).quat)(slerp, times), slerp(times).quat,
                               rtol=1e-6, atol=1e-7)


def test_rotation_gradients() -> None:
    g_quat, g_vec = numjax.grad(lambda q, v: Rotation.from_quat(q).apply(v).sum(), (0, 1))(Q[0], V)
    np.testing.assert_allclose(g_quat, APPLY_GRADS[0], rtol=1e-5)
    np.testing.assert_allclose(g_vec, APPLY_GRADS[1], rtol=1e-5)
    check_grads(lambda q, v: Rotation.from_quat(q).apply(v), (Q[0], V), order=2)
    g = numjax.grad(lambda a: Rotation.from_euler("xyz", a).as_rotvec().sum())(
        jnp.array([0.1, 0.2, 0.3]))
    np.testing.assert_allclose(g, EULER_GRAD, rtol=1e-5)
    g = numjax.grad(lambda m: Rotation.from_matrix(m).as_quat().sum())(
        Rotation.from_quat(Q[3]).as_matrix())
    np.testing.assert_allclose(g, MATRIX_GRAD, rtol=1e-5, atol=1e-6)
    check_grads(lambda v: Rotation.from_rotvec(v).as_euler("zyx"), (RV[0],), order=1)


def test_rotation_jit_and_vmap() -> None:
    r = Rotation.from_quat(Q)
    np.testing.assert_allclose(numjax.jit(lambda r: r.as_euler("zyx"))(r), r.as_euler("zyx"),
                               rtol=1e-6, atol=1e-7)
    (leaf,) = numjax.tree_util.tree_leaves(r[0])
    np.testing.assert_array_equal(leaf, r[0].quat)
    batched = numjax.vmap(lambda q: Rotation.from_quat(q).as_rotvec())(Q)
    np.testing.assert_allclose(batched, [Rotation.from_quat(q).as_rotvec() for q in Q],
                               rtol=1e-6, atol=1e-7)
    composed = numjax.vmap(lambda a, b: (a * b).as_matrix())(r, r[::-1])
    np.testing.assert_allclose(composed, [(r[i] * r[5 - i]).as_matrix() for i in range(6)],
                               rtol=1e-6, atol=1e-7)


R6 = Rotation.from_quat(Q)
ROTATION_ERRORS = [
    (lambda: Rotation.from_euler("xyzx", jnp.ones(4)), ValueError,
     "Expected axis specification to be a non-empty string of upto 3 characters, got xyzx"),
    (lambda: Rotation.from_euler("", jnp.ones(1)), ValueError,
     "Expected axis specification to be a non-empty string"),
    (lambda: Rotation.from_euler("xYz", jnp.ones(3)), ValueError,
     r"Expected axes from `seq` to be from \['x', 'y', 'z'\] or \['X', 'Y', 'Z'\], got xYz"),
    (lambda: Rotation.from_euler("xxz", jnp.ones(3)), ValueError,
     "Expected consecutive axes to be different, got xxz"),
    (lambda: Rotation.from_euler("z", jnp.ones(3)), ValueError,
     "inconsistent size for core dimension 'm': 1 vs 3"),
    (lambda: Rotation.from_euler("xyz", jnp.ones(2)), ValueError,
     "inconsistent size for core dimension 'm': 3 vs 2"),
    (lambda: R6.as_euler("xy"), ValueError, "Expected 3 axes, got xy."),
    (lambda: R6.as_euler("xqz"), ValueError, "Expected axes from `seq` to be from"),
    (lambda: R6.as_euler("xzz"), ValueError, "Expected consecutive axes to be different, got xzz"),
    (lambda: R6[0][0], TypeError, "Single rotation is not subscriptable."),
    (lambda: len(R6[0]), TypeError, r"Single rotation has no len\(\)."),
    (lambda: Rotation.identity(3), AssertionError, None),
    (lambda: Rotation.random(numjax.random.PRNGKey(0)), NotImplementedError, None),
    (lambda: R6.mean(jnp.ones((2, 6))), ValueError,
     r"Expected `weights` to be 1 dimensional, got shape \(2, 6\)."),
    (lambda: R6.mean(jnp.ones(5)), ValueError,
     "Expected `weights` to have number of values equal to number of rotations, got 5 values "
     "and 6 rotations."),
    (lambda: R6[0].mean(), TypeError, r"Single rotation has no len\(\)."),
    (lambda: R6.apply(jnp.ones((4, 3))), ValueError, "Incompatible shapes for broadcasting"),
    (lambda: R6.apply(jnp.ones(2)), ValueError, "inconsistent size for core dimension 'm': 2 vs 3"),
    (lambda: R6 * 2, AttributeError, "'int' object has no attribute 'quat'"),
    (lambda: Slerp.init([0, 1], Q[:2]), TypeError, "`rotations` must be a `Rotation` instance."),
    (lambda: Slerp.init([0], R6[0]), ValueError,
     "`rotations` must be a sequence of at least 2 rotations."),
    (lambda: Slerp.init([0], R6[:1]), ValueError,
     "`rotations` must be a sequence of at least 2 rotations."),
    (lambda: Slerp.init([[0, 1]], R6[:2]), ValueError,
     "Expected times to be specified in a 1 dimensional array, got 2 dimensions."),
    (lambda: Slerp.init([0, 1, 2], R6[:2]), ValueError,
     "Expected number of rotations to be equal to number of timestamps given, got 2 rotations "
     "and 3 timestamps."),
    (lambda: Slerp.init([0, 1], R6[:2])([[0.5]]), ValueError,
     "`times` must be at most 1-dimensional."),
]


@pytest.mark.parametrize("make,error,message", ROTATION_ERRORS)
def test_rotation_errors(make: Any, error: type[Exception], message: str | None) -> None:
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize("module", [integrate, interpolate, cluster, spatial_transform])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0

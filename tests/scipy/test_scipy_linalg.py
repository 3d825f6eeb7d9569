"""numjax.scipy.linalg against values, dtypes, weak types and gradients recorded from JAX 0.4.30
(`jax.scipy.linalg`), and against SciPy as a second reference; gradients also against finite
differences, jit against eager, vmap against a Python loop, bad input against JAX's errors."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.linalg

import numjax
import numjax.numpy as jnp
import numjax.scipy.linalg as sl
from numjax._src.lax import hessenberg as lax_hessenberg
from numjax._src.scipy import linalg as src_linalg
from numjax._src.scipy import matfuncs as src_matfuncs
from numjax._src.scipy import qdwh as scipy_qdwh
from numjax.experimental import enable_x64
from numjax.test_util import check_grads

INF, NAN = np.inf, np.nan
F32 = np.float32

SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], F32)
G = np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0], [2.0, 1.0, 1.0]], F32)
H4 = np.array([[1.0, 2.0, 0.0, 1.0], [-1.0, 0.5, 3.0, 2.0], [2.0, 1.0, 1.0, 0.0],
               [0.5, -1.0, 2.0, 3.0]], F32)
T = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5], [0.0, 0.0, 2.0]], F32)
L = np.array([[2.0, 0.0, 0.0], [1.0, -1.0, 0.0], [0.5, 2.0, 3.0]], F32)
W = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 4.0]], F32)
TALL = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]], F32)
HPD = (SPD + 1j * np.array([[0.0, 0.5, 0.0], [-0.5, 0.0, 0.1], [0.0, -0.1, 0.0]])).astype(
    np.complex64)
GC = (G + 1j * np.array([[0.5, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.5]])).astype(
    np.complex64)
b = np.array([1.0, 2.0, 3.0], F32)
B = np.array([[1.0, 0.0], [2.0, -1.0], [3.0, 0.5]], F32)
BC = (b + 1j * np.array([0.5, -1.0, 2.0])).astype(np.complex64)
C = np.array([1.0, 2.0, 3.0], F32)
R = np.array([1.0, 4.0, 5.0, 6.0], F32)
D = np.array([1.0, 2.0, 3.0, 4.0], F32)
E = np.array([1.0, 0.5, -1.0], F32)
CHOL_U = np.array([[2.0, 0.5, 0.25], [0.0, 1.6583124, 0.045226704], [0.0, 0.0, 1.3912061]], F32)

# (case, computation, JAX's outputs as (dtype, weak_type, shape, flattened values))
Expected = list[tuple[str, bool, tuple[int, ...], list[Any]]]
GOLDEN: list[tuple[str, Callable[[], Any], Expected]] = [
    ("cholesky", lambda: sl.cholesky(SPD), [
        ("float32", False, (3, 3), [2.0, 0.5, 0.25, 0.0, 1.6583124, 0.045226704, 0.0, 0.0,
            1.3912061]),
    ]),
    ("cholesky_lower", lambda: sl.cholesky(SPD, lower=True), [
        ("float32", False, (3, 3), [2.0, 0.0, 0.0, 0.5, 1.6583124, 0.0, 0.25, 0.045226704,
            1.3912061]),
    ]),
    ("cholesky_complex", lambda: sl.cholesky(HPD), [
        ("complex64", False, (3, 3), [complex(2.0, -0.0), complex(0.5, 0.25), complex(0.25, 0.0),
            complex(0.0, -0.0), complex(1.6393596, -0.0), complex(0.045749575, 0.09912407),
            complex(0.0, -0.0), complex(0.0, -0.0), complex(1.3876532, -0.0)]),
    ]),
    ("cholesky_int", lambda: sl.cholesky(np.array([[4, 2], [2, 5]], np.int32)), [
        ("float32", False, (2, 2), [2.0, 1.0, 0.0, 2.0]),
    ]),
    ("cho_factor", lambda: sl.cho_factor(SPD, lower=True)[0], [
        ("float32", False, (3, 3), [2.0, 0.0, 0.0, 0.5, 1.6583124, 0.0, 0.25, 0.045226704,
            1.3912061]),
    ]),
    ("cho_solve_vec", lambda: sl.cho_solve(sl.cho_factor(SPD), b), [
        ("float32", False, (3,), [-0.0817285, 0.5965242, 1.4607797]),
    ]),
    ("cho_solve_mat_lower", lambda: sl.cho_solve(sl.cho_factor(SPD, lower=True), B), [
        ("float32", False, (3, 2), [-0.0817285, 0.058713015, 0.5965242, -0.37106624, 1.4607797,
            0.27242836]),
    ]),
    ("cho_solve_complex", lambda: sl.cho_solve(sl.cho_factor(HPD), b), [
        ("complex64", False, (3,), [complex(-0.09178744, -0.07246377), complex(0.6135266,
            -0.043478258), complex(1.4637681, 0.053140093)]),
    ]),
    ("det", lambda: sl.det(G), [
        ("float32", False, (), [11.5]),
    ]),
    ("det_batch", lambda: sl.det(np.stack([G, SPD])), [
        ("float32", False, (2,), [11.5, 21.29]),
    ]),
    ("inv", lambda: sl.inv(G), [
        ("float32", False, (3, 3), [-0.21739131, -0.17391305, 0.5217391, 0.6086957, 0.08695652,
            -0.26086956, -0.17391305, 0.26086956, 0.21739131]),
    ]),
    ("eigh", lambda: sl.eigh(SPD), [
        ("float32", False, (3,), [1.8800868, 2.3983424, 4.721569]),
        ("float32", False, (3, 3), [-0.25304243, -0.48194948, -0.83886486, 0.05343893, 0.85879713,
            -0.5095208, 0.9659781, -0.1737586, -0.19155726]),
    ]),
    ("eigh_upper", lambda: sl.eigh(SPD + np.triu(G, 1), lower=False), [
        ("float32", False, (3,), [0.48001915, 2.4222548, 6.0977263]),
        ("float32", False, (3, 3), [0.29356742, -0.6625811, -0.68906075, -0.68370306, 0.35825333,
            -0.6357711, 0.6681081, 0.6577546, -0.34783715]),
    ]),
    ("eigh_vals", lambda: sl.eigh(SPD, eigvals_only=True), [
        ("float32", False, (3,), [1.8800868, 2.3983424, 4.721569]),
    ]),
    ("eigh_complex", lambda: sl.eigh(HPD), [
        ("float32", False, (3,), [1.8103888, 2.3747168, 4.8148947]),
        ("complex64", False, (3, 3), [complex(0.32178527, 0.0), complex(-0.45437494, 0.0),
            complex(-0.83066094, 0.0), complex(-0.1642465, 0.26540923), complex(0.758693,
            -0.21952596), complex(-0.47863472, 0.22289705), complex(-0.8152671, -0.36657196),
            complex(-0.25993553, -0.31964105), complex(-0.17363614, 0.03284062)]),
    ]),
    ("expm", lambda: sl.expm(G), [
        ("float32", False, (3, 3), [5.2650356, 7.548835, 9.031403, 5.2569847, 7.8935275, 11.323253,
            7.5488358, 9.795353, 12.791204]),
    ]),
    ("expm_pade3", lambda: sl.expm(0.01 * G), [
        ("float32", False, (3, 3), [1.0099512, 0.02015093, 0.00030251322, -0.009772952, 1.0050648,
            0.030226395, 0.020150932, 0.010277141, 1.0102035]),
    ]),
    ("expm_pade5", lambda: sl.expm(0.3 * G), [
        ("float32", False, (3, 3), [1.303477, 0.7738057, 0.35136783, -0.03553504, 1.2857096,
            1.1607088, 0.77380574, 0.6211481, 1.5962838]),
    ]),
    ("expm_squaring", lambda: sl.expm(5 * G), [
        ("float32", False, (3, 3), [2475437.8, 3418924.0, 4518822.5, 2809360.2, 3880117.5,
            5128386.0, 3418924.8, 4722011.0, 6241124.0]),
    ]),
    ("expm_upper", lambda: sl.expm(T, upper_triangular=True), [
        ("float32", False, (3, 3), [2.7182817, 2.3504026, 15.177515, 0.0, 0.36787945, 1.1701962,
            0.0, 0.0, 7.389056]),
    ]),
    ("expm_batch", lambda: sl.expm(np.stack([G, 0.1 * SPD])), [
        ("float32", False, (2, 3, 3), [5.2650337, 7.5488343, 9.031401, 5.256985, 7.893528,
            11.323254, 7.5488358, 9.795353, 12.791204, 1.5008436, 0.14294675, 0.069106564,
            0.14294674, 1.3571528, 0.029130336, 0.06910656, 0.029130336, 1.2233353]),
    ]),
    ("expm_complex", lambda: sl.expm(GC), [
        ("complex64", False, (3, 3), [complex(0.8980819, 5.5893736), complex(5.157656, 2.8356),
            complex(4.628579, 4.875475), complex(3.7051785, 4.9422426), complex(6.3607464,
            -0.07371781), complex(8.574112, 1.1464479), complex(1.659447, 8.186329),
            complex(7.047375, 4.6221766), complex(7.1119857, 7.2646303)]),
    ]),
    ("expm_too_large", lambda: sl.expm(1e6 * G), [
        ("float32", False, (3, 3), [NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN]),
    ]),
    ("expm_int", lambda: sl.expm(np.eye(2, dtype=np.int32)), [
        ("float32", False, (2, 2), [2.718282, 0.0, 0.0, 2.718282]),
    ]),
    ("expm_frechet", lambda: sl.expm_frechet(G, SPD), [
        ("float32", False, (3, 3), [5.2650356, 7.548835, 9.031403, 5.2569847, 7.8935275, 11.323253,
            7.5488358, 9.795353, 12.791204]),
        ("float32", False, (3, 3), [25.65783, 33.892307, 36.96225, 21.532658, 29.031519, 35.018784,
            29.822514, 36.66338, 40.9535]),
    ]),
    ("expm_frechet_only", lambda: sl.expm_frechet(0.1 * G, SPD, compute_expm=False), [
        ("float32", False, (3, 3), [4.514279, 1.875057, 0.8374605, 0.8986605, 3.2805388, 1.0137122,
            1.2560016, 0.7200408, 2.3705814]),
    ]),
    ("hessenberg", lambda: sl.hessenberg(H4, calc_q=True), [
        ("float32", False, (4, 4), [1.0, -0.6546538, -2.0738668, -0.5201001, 2.2912877, -0.23809552,
            -0.13959402, -0.40239218, 0.0, -4.028527, 2.9480996, -0.77786434, 0.0, 0.0, 0.5314431,
            1.7899956]),
        ("float32", False, (4, 4), [1.0, 0.0, 0.0, 0.0, 0.0, -0.43643582, -0.6783919, -0.59102315,
            0.0, 0.8728716, -0.15992507, -0.46099803, 0.0, 0.2182179, -0.7170833, 0.661946]),
    ]),
    ("hessenberg_h", lambda: sl.hessenberg(H4), [
        ("float32", False, (4, 4), [1.0, -0.6546538, -2.0738668, -0.5201001, 2.2912877, -0.23809552,
            -0.13959402, -0.40239218, 0.0, -4.028527, 2.9480996, -0.77786434, 0.0, 0.0, 0.5314431,
            1.7899956]),
    ]),
    ("hessenberg_complex", lambda: sl.hessenberg(GC, calc_q=True), [
        ("complex64", False, (3, 3), [complex(1.0, 0.5), complex(-1.2247448, 0.8164966),
            complex(-1.0787563, -1.2921369), complex(2.4494898, 0.0), complex(-0.41666675,
            -0.083333254), complex(-0.40652353, -0.26617613), complex(0.0, 0.0), complex(-2.8698628,
            0.0), complex(1.9166667, -0.41666698)]),
        ("complex64", False, (3, 3), [complex(1.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0),
            complex(0.0, 0.0), complex(-0.4082483, 0.0), complex(-0.72312236, -0.55715996),
            complex(0.0, 0.0), complex(0.8164966, 0.4082483), complex(-0.17781699, -0.3674885)]),
    ]),
    ("hilbert", lambda: sl.hilbert(4), [
        ("float32", False, (4, 4), [1.0, 0.5, 0.33333334, 0.25, 0.5, 0.33333334, 0.25, 0.2,
            0.33333334, 0.25, 0.2, 0.16666667, 0.25, 0.2, 0.16666667, 0.14285715]),
    ]),
    ("lu", lambda: sl.lu(G), [
        ("float32", False, (3, 3), [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
        ("float32", False, (3, 3), [1.0, 0.0, 0.0, 0.5, 1.0, 0.0, -0.5, 0.6666667, 1.0]),
        ("float32", False, (3, 3), [2.0, 1.0, 1.0, 0.0, 1.5, -0.5, 0.0, 0.0, 3.8333335]),
    ]),
    ("lu_permute_l", lambda: sl.lu(G, permute_l=True), [
        ("float32", False, (3, 3), [0.5, 1.0, 0.0, -0.5, 0.6666667, 1.0, 1.0, 0.0, 0.0]),
        ("float32", False, (3, 3), [2.0, 1.0, 1.0, 0.0, 1.5, -0.5, 0.0, 0.0, 3.8333335]),
    ]),
    ("lu_wide", lambda: sl.lu(W), [
        ("float32", False, (2, 2), [1.0, 0.0, 0.0, 1.0]),
        ("float32", False, (2, 2), [1.0, 0.0, 0.0, 1.0]),
        ("float32", False, (2, 3), [1.0, 2.0, 3.0, 0.0, 1.0, 4.0]),
    ]),
    ("lu_tall", lambda: sl.lu(TALL), [
        ("float32", False, (3, 3), [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
        ("float32", False, (3, 2), [1.0, 0.0, 0.2, 1.0, 0.6, 0.14285702]),
        ("float32", False, (2, 2), [5.0, 6.5, 0.0, 0.6999999]),
    ]),
    ("lu_factor", lambda: sl.lu_factor(G), [
        ("float32", False, (3, 3), [2.0, 1.0, 1.0, 0.5, 1.5, -0.5, -0.5, 0.6666667, 3.8333335]),
        ("int32", False, (3,), [2, 2, 2]),
    ]),
    ("lu_solve_vec", lambda: sl.lu_solve(sl.lu_factor(G), b), [
        ("float32", False, (3,), [1.0, 0.0, 1.0]),
    ]),
    ("lu_solve_trans1", lambda: sl.lu_solve(sl.lu_factor(G), B, trans=1), [
        ("float32", False, (3, 2), [0.47826087, -0.6956522, 0.7826087, 0.043478258, 0.65217394,
            0.36956522]),
    ]),
    ("lu_solve_trans2_complex", lambda: sl.lu_solve(sl.lu_factor(GC), BC, trans=2), [
        ("complex64", False, (3,), [complex(0.6389206, -2.143672), complex(1.2649186, 0.33067286),
            complex(0.42037258, 1.8570888)]),
    ]),
    ("lu_solve_batch", lambda: sl.lu_solve(sl.lu_factor(np.stack([G, SPD])), np.stack([b, 2 * b])),
        [
        ("float32", False, (2, 3), [0.99999994, -1.0635974e-08, 0.99999994, -0.163457, 1.1930484,
            2.921559]),
    ]),
    ("polar", lambda: sl.polar(G), [
        ("float32", False, (3, 3), [0.05822265, 0.98509055, -0.16188514, -0.39465892, 0.17166305,
            0.90264946, 0.91698116, 0.011334769, 0.3987694]),
        ("float32", False, (3, 3), [2.2868438, 0.836097, -0.26699573, 0.836097, 2.0673473,
            0.5263239, -0.26699573, 0.5263239, 3.1067178]),
    ]),
    ("polar_svd_left", lambda: sl.polar(G, side="left", method="svd"), [
        ("float32", False, (3, 3), [0.058222786, 0.98509026, -0.16188526, -0.39465895, 0.17166303,
            0.9026495, 0.91698116, 0.01133498, 0.39876947]),
        ("float32", False, (3, 3), [2.0284033, -0.05133391, 0.93965095, -0.051333837, 3.1884384,
            0.2849943, 0.93965095, 0.28499433, 2.2440667]),
    ]),
    ("polar_wide_left", lambda: sl.polar(W, side="left"), [
        ("float32", False, (2, 3), [0.54645085, 0.7670892, 0.33610368, -0.32581222, -0.17499031,
            0.9290989]),
        ("float32", False, (2, 2), [3.0889404, 2.1115038, 2.1115038, 3.5414052]),
    ]),
    ("polar_tall", lambda: sl.polar(TALL), [
        ("float32", False, (3, 2), [-0.6400397, 0.75841784, 0.31023654, 0.40165785, 0.70292425,
            0.51329654]),
        ("float32", False, (2, 2), [3.8052912, 4.5298743, 4.5298743, 6.4598947]),
    ]),
    ("polar_complex", lambda: sl.polar(GC), [
        ("complex64", False, (3, 3), [complex(0.085677385, 0.14271179), complex(0.9548094,
            -0.14765677), complex(-0.19544026, 0.025149355), complex(-0.41731906, 0.022284828),
            complex(0.2028791, -0.08207876), complex(0.88050413, -0.046518303), complex(0.8137342,
            0.3680729), complex(-0.028715543, 0.13347368), complex(0.40311202, 0.14567062)]),
        ("complex64", False, (3, 3), [complex(2.5698936, 0.0), complex(0.75414455, -0.24731982),
            complex(-0.111474946, 0.05761705), complex(0.75414455, 0.24731982), complex(2.0644217,
            0.0), complex(0.49900186, 1.0532143), complex(-0.111474946, -0.05761705),
            complex(0.49900186, -1.0532143), complex(3.1426091, 0.0)]),
    ]),
    ("qr", lambda: sl.qr(G), [
        ("float32", False, (3, 3), [-0.4082483, -0.7909117, -0.45584232, 0.4082483, -0.60481477,
            0.6837635, -0.8164966, 0.093048364, 0.5698029]),
        ("float32", False, (3, 3), [-2.4494898, -1.428869, 0.40824834, 0.0, -1.791182, -1.7213962,
            0.0, 0.0, 2.6210933]),
    ]),
    ("qr_economic", lambda: sl.qr(TALL, mode="economic"), [
        ("float32", False, (3, 2), [-0.1690309, 0.97789425, -0.5070926, 0.020806104, -0.84515435,
            -0.20806235]),
        ("float32", False, (2, 2), [-5.9160795, -7.8599358, 0.0, 0.6866081]),
    ]),
    ("qr_full_tall", lambda: sl.qr(TALL), [
        ("float32", False, (3, 3), [-0.1690309, 0.97789425, 0.12309116, -0.5070926, 0.020806104,
            -0.8616404, -0.84515435, -0.20806235, 0.492366]),
        ("float32", False, (3, 2), [-5.9160795, -7.8599358, 0.0, 0.6866081, 0.0, 0.0]),
    ]),
    ("qr_r", lambda: sl.qr(TALL, mode="r"), [
        ("float32", False, (3, 2), [-5.9160795, -7.8599358, 0.0, 0.6866081, 0.0, 0.0]),
    ]),
    ("schur", lambda: sl.schur(G), [
        ("float32", False, (3, 3), [-0.38489425, -2.9610567, -0.1969663, 1.1377376, -0.38489425,
            -0.40137264, 0.0, 0.0, 3.2697887]),
        ("float32", False, (3, 3), [0.5268776, -0.7497601, 0.40032485, -0.7913497, -0.26088786,
            0.55290425, 0.31010553, 0.60810965, 0.7307783]),
    ]),
    ("schur_complex", lambda: sl.schur(G, output="complex"), [
        ("complex64", False, (3, 3), [complex(-0.38489437, 1.8354576), complex(1.8156192,
            -0.16738445), complex(-0.106510594, 0.24779095), complex(0.0, 0.0), complex(-0.38489443,
            -1.8354573), complex(-0.038422696, -0.35450622), complex(0.0, 0.0), complex(0.0, 0.0),
            complex(3.269789, 0.0)]),
        ("complex64", False, (3, 3), [complex(-0.5603705, 0.20631786), complex(-0.50539494,
            0.4772147), complex(0.4003246, 0.0), complex(0.19868302, -0.6571322),
            complex(0.29647022, 0.36756545), complex(0.55290425, 0.0), complex(0.15665144,
            0.38416162), complex(0.052550048, -0.53951967), complex(0.73077846, 0.0)]),
    ]),
    ("rsf2csf", lambda: sl.rsf2csf(*sl.schur(G)), [
        ("complex64", False, (3, 3), [complex(-0.38489425, 1.8354579), complex(1.8233186,
            2.682209e-07), complex(-0.21146615, 0.16741224), complex(0.0, 0.0), complex(-0.38489413,
            -1.835458), complex(0.10377313, -0.34114814), complex(0.0, 0.0), complex(0.0, 0.0),
            complex(3.2697887, 0.0)]),
        ("complex64", False, (3, 3), [complex(-0.3950166, 0.44782153), complex(-0.27758938,
            0.63726133), complex(0.40032485, 0.0), complex(-0.13745074, -0.6726106),
            complex(0.41692844, 0.22174259), complex(0.55290425, 0.0), complex(0.3203871,
            0.26357532), complex(-0.16338135, -0.516865), complex(0.7307783, 0.0)]),
    ]),
    ("solve", lambda: sl.solve(G, b), [
        ("float32", False, (3,), [1.0, 0.0, 1.0]),
    ]),
    ("solve_mat", lambda: sl.solve(G, B), [
        ("float32", False, (3, 2), [1.0, 0.4347826, 0.0, -0.2173913, 1.0, -0.1521739]),
    ]),
    ("solve_pos", lambda: sl.solve(SPD, b, assume_a="pos"), [
        ("float32", False, (3,), [-0.0817285, 0.5965242, 1.4607797]),
    ]),
    ("solve_pos_lower_mat", lambda: sl.solve(SPD + np.triu(G, 1), B, assume_a="pos", lower=True), [
        ("float32", False, (3, 2), [-0.0817285, 0.058713015, 0.5965242, -0.37106624, 1.4607797,
            0.27242836]),
    ]),
    ("solve_sym", lambda: sl.solve(SPD, b, assume_a="sym"), [
        ("float32", False, (3,), [-0.0817285, 0.59652424, 1.4607795]),
    ]),
    ("solve_complex", lambda: sl.solve(GC, b), [
        ("complex64", False, (3,), [complex(0.75256556, -0.36259964), complex(0.022804946,
            -0.55644286), complex(1.099202, -0.020524442)]),
    ]),
    ("solve_triangular", lambda: sl.solve_triangular(T, b), [
        ("float32", False, (3,), [-1.0, -1.25, 1.5]),
    ]),
    ("solve_triangular_lower_mat", lambda: sl.solve_triangular(L, B, lower=True), [
        ("float32", False, (3, 2), [0.5, 0.0, -1.5, 1.0, 1.9166667, -0.5]),
    ]),
    ("solve_triangular_trans_T", lambda: sl.solve_triangular(T, b, trans="T"), [
        ("float32", False, (3,), [1.0, -0.0, 0.0]),
    ]),
    ("solve_triangular_trans_1_lower", lambda: sl.solve_triangular(L, b, trans=1, lower=True), [
        ("float32", False, (3,), [0.25, -0.0, 1.0]),
    ]),
    ("solve_triangular_trans_C", lambda: sl.solve_triangular(np.triu(GC), b, trans="C"), [
        ("complex64", False, (3,), [complex(0.8, 0.4), complex(-0.48000005, -0.64), complex(2.144,
            3.7920003)]),
    ]),
    ("solve_triangular_trans_2", lambda: sl.solve_triangular(np.triu(GC), b, trans=2), [
        ("complex64", False, (3,), [complex(0.8, 0.4), complex(-0.48000005, -0.64), complex(2.144,
            3.7920003)]),
    ]),
    ("solve_triangular_unit", lambda: sl.solve_triangular(T, b, unit_diagonal=True), [
        ("float32", False, (3,), [-9.0, 0.5, 3.0]),
    ]),
    ("solve_triangular_int", lambda: sl.solve_triangular(np.array([[2, 0], [1, 1]], np.int32),
        np.array([2, 3], np.int32), lower=True), [
        ("float32", False, (2,), [1.0, 2.0]),
    ]),
    ("sqrtm", lambda: sl.sqrtm(SPD), [
        ("complex64", False, (3, 3), [complex(1.9765804, 0.0), complex(0.26922044, 0.0),
            complex(0.14369845, 0.0), complex(0.26922056, 0.0), complex(1.7102164, 0.0),
            complex(0.05176682, 0.0), complex(0.14369845, 0.0), complex(0.051766858, 0.0),
            complex(1.4059414, 0.0)]),
    ]),
    ("sqrtm_general", lambda: sl.sqrtm(G), [
        ("complex64", False, (3, 3), [complex(1.4351196, -5.9604645e-08), complex(0.8403431,
            -2.9802322e-08), complex(-0.42035222, 1.4901161e-08), complex(-0.8405239, 0.0),
            complex(1.0148581, 0.0), complex(1.260515, 0.0), complex(0.8403432, 2.9802322e-08),
            complex(0.13993692, 1.1175871e-08), complex(1.0848266, 1.361181e-09)]),
    ]),
    ("sqrtm_complex", lambda: sl.sqrtm(GC), [
        ("complex64", False, (3, 3), [complex(1.4382222, 0.17037514), complex(0.8143437,
            0.019519478), complex(-0.34025753, 0.3656296), complex(-0.79889256, -0.25178677),
            complex(1.0309626, -0.33475944), complex(1.2173111, 0.19494808), complex(0.87505615,
            0.26270336), complex(0.14462298, -0.0963686), complex(1.1068835, 0.16196668)]),
    ]),
    ("svd", lambda: sl.svd(G), [
        ("float32", False, (3, 3), [0.31518334, 0.6009434, 0.7345245, 0.81651586, -0.5661855,
            0.11285257, 0.48369524, 0.5641819, -0.66913205]),
        ("float32", False, (3,), [3.3374512, 2.9589372, 1.1645204]),
        ("float32", False, (3, 3), [0.13964488, 0.45613253, 0.8788872, 0.77578276, 0.5011853,
            -0.38337237, -0.6153539, 0.73536134, -0.28387177]),
    ]),
    ("svd_tall_economic", lambda: sl.svd(TALL, full_matrices=False), [
        ("float32", False, (3, 2), [-0.22330932, 0.9669444, -0.5074637, -0.007509105, -0.8322342,
            -0.25487652]),
        ("float32", False, (2,), [9.8529215, 0.41226637]),
        ("float32", False, (2, 2), [-0.5995045, -0.8003714, -0.8003714, 0.5995045]),
    ]),
    ("svd_values", lambda: sl.svd(G, compute_uv=False), [
        ("float32", False, (3,), [3.3374515, 2.9589374, 1.1645203]),
    ]),
    ("toeplitz", lambda: sl.toeplitz(C), [
        ("float32", False, (3, 3), [1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]),
    ]),
    ("toeplitz_c_r", lambda: sl.toeplitz(C, R), [
        ("float32", False, (3, 4), [1.0, 4.0, 5.0, 6.0, 2.0, 1.0, 4.0, 5.0, 3.0, 2.0, 1.0, 4.0]),
    ]),
    ("toeplitz_int", lambda: sl.toeplitz(np.array([1, 2, 3], np.int32), np.array([7, 8], np.int32)),
        [
        ("int32", False, (3, 2), [1, 8, 2, 1, 3, 2]),
    ]),
    ("toeplitz_complex", lambda: sl.toeplitz(np.array([1 + 1j, 2, 3 - 1j], np.complex64)), [
        ("complex64", False, (3, 3), [complex(1.0, 1.0), complex(2.0, 0.0), complex(3.0, 1.0),
            complex(2.0, 0.0), complex(1.0, 1.0), complex(2.0, 0.0), complex(3.0, -1.0),
            complex(2.0, 0.0), complex(1.0, 1.0)]),
    ]),
    ("toeplitz_2d", lambda: sl.toeplitz(np.arange(4, dtype=np.float32).reshape(2, 2)), [
        ("float32", False, (4, 4), [0.0, 1.0, 2.0, 3.0, 1.0, 0.0, 1.0, 2.0, 2.0, 1.0, 0.0, 1.0, 3.0,
            2.0, 1.0, 0.0]),
    ]),
    ("funm_exp", lambda: sl.funm(SPD, jnp.exp), [
        ("complex64", False, (3, 3), [complex(82.03223, 0.0), complex(43.37477, 0.0),
            complex(17.372309, 0.0), complex(43.37477, 0.0), complex(37.301186, 0.0),
            complex(9.661258, 0.0), complex(17.372309, 0.0), complex(9.661255, 0.0),
            complex(10.570358, 0.0)]),
    ]),
    ("funm_sin", lambda: sl.funm(G, jnp.sin), [
        ("complex64", False, (3, 3), [complex(0.033578694, -1.4901161e-07), complex(1.8475155,
            4.172325e-07), complex(-1.6349968, -2.9802322e-07), complex(-2.558755, 2.3841858e-07),
            complex(-1.2457979, -3.5762787e-07), complex(2.771272, 2.058939e-07), complex(1.847515,
            -1.1920929e-07), complex(-0.16624105, 0.0), complex(-1.328918, 7.049409e-08)]),
    ]),
    ("funm_disp", lambda: sl.funm(T, jnp.exp, disp=False), [
        ("complex64", False, (3, 3), [complex(2.7182817, 0.0), complex(2.3504024, 0.0),
            complex(15.177515, 0.0), complex(0.0, 0.0), complex(0.36787945, 0.0), complex(1.1701962,
            0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(7.389056, 0.0)]),
        ("float32", False, (), [4.172325e-07]),
    ]),
    ("block_diag", lambda: sl.block_diag(SPD[:2, :2], b, 3.0), [
        ("float32", False, (4, 6), [4.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0]),
    ]),
    ("block_diag_empty", lambda: sl.block_diag(), [
        ("float32", False, (1, 0), []),
    ]),
    ("block_diag_scalar", lambda: sl.block_diag(1.0), [
        ("float32", True, (1, 1), [1.0]),
    ]),
    ("block_diag_int", lambda: sl.block_diag(np.ones((2, 2), np.int32), 1), [
        ("int32", False, (3, 3), [1, 1, 0, 1, 1, 0, 0, 0, 1]),
    ]),
    ("eigh_tridiagonal", lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True), [
        ("float32", False, (4,), [0.35184744, 2.131977, 2.8680227, 4.6481524]),
    ]),
    ("eigh_tridiagonal_select", lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True, select="i",
        select_range=(1, 2)), [
        ("float32", False, (2,), [2.131977, 2.8680227]),
    ]),
    ("eigh_tridiagonal_complex", lambda: sl.eigh_tridiagonal(D.astype(np.complex64), (E *
        1j).astype(np.complex64), eigvals_only=True), [
        ("float32", False, (4,), [0.35184744, 2.131977, 2.8680227, 4.6481524]),
    ]),
    ("eigh_tridiagonal_one", lambda: sl.eigh_tridiagonal(D[:1], E[:0], eigvals_only=True), [
        ("float32", False, (1,), [1.0]),
    ]),
]

# (case, function, arguments, JAX's gradient of sum(f(*args) * cos(arange)) per argument)
GRADS: list[tuple[str, Callable[..., Any], tuple[Any, ...], list[list[float]]]] = [
    ("expm", lambda a: sl.expm(a), (0.3 * G,), [
        [1.9809237, 0.6495745, 0.008101866, -0.75240797, -0.26225334, -0.19121245, 1.1171976,
            0.6194392, 0.35971868],
    ]),
    ("expm_squaring", lambda a: sl.expm(a), (2 * G,), [
        [98.75827, 83.05124, 100.570435, 71.46048, 40.743088, 47.927338, 126.076355, 91.407715,
            107.91739],
    ]),
    ("expm_upper", lambda a: sl.expm(a, upper_triangular=True), (0.5 * T,), [
        [1.338238, 0.4870173, -0.8901886, -0.12632874, -0.1436876, 0.09502649, 2.2562842, 1.1364654,
            -1.0862218],
    ]),
    ("expm_frechet", lambda a, e: sl.expm_frechet(a, e, compute_expm=False), (0.3 * G, SPD), [
        [7.894355, 3.1441572, 0.89334226, -2.0146174, -0.90763646, -1.1866889, 4.521775, 2.3725529,
            1.4151139],
        [1.9809237, 0.6495745, 0.008101866, -0.75240797, -0.26225334, -0.19121245, 1.1171976,
            0.6194392, 0.35971868],
    ]),
    ("solve", lambda a, x: sl.solve(a, x), (G, b), [
        [-0.1838617, -0.0, -0.1838617, 0.23549028, 0.0, 0.23549028, -0.29032403, -0.0, -0.29032403],
        [0.1838617, -0.23549028, 0.29032403],
    ]),
    ("solve_mat", lambda a, x: sl.solve(a, x), (G, B), [
        [0.69153994, -0.16725948, 0.23993933, 0.42672548, -0.023055017, 0.36447692, -0.7498642,
            0.13083073, -0.39662123],
        [-0.35702097, -0.7693937, -0.38061544, -0.106053084, 0.48820275, 0.6018214],
    ]),
    ("solve_pos", lambda a, x: sl.solve(a, x, assume_a="pos"), (SPD, b), [
        [0.021015305, -0.15338759, -0.3756184, 0.009259953, -0.06758702, -0.16550836, -0.02318535,
            0.16922642, 0.41440484],
        [0.25713557, 0.11330139, -0.28368744],
    ]),
    ("solve_pos_lower_mat", lambda a, x: sl.solve(a, x, assume_a="pos", lower=True), (SPD, B), [
        [0.016125673, -0.13047382, -0.582047, 0.0053028837, -0.014992661, 0.45060083, -0.039599694,
            0.28170356, 0.5392275],
        [0.35699463, 0.22228402, -0.23151928, -0.41259348, -0.39291853, 0.12751944],
    ]),
    ("cho_solve", lambda c, x: sl.cho_solve((c, False), x), (np.asarray(CHOL_U), b), [
        [-0.08770353, -0.3549128, -0.5885461, 0.0, -0.22399263, 0.04365003, 0.0, 0.0, 1.1530452],
        [0.25713557, 0.11330139, -0.28368744],
    ]),
    ("cho_solve_lower_mat", lambda c, x: sl.cho_solve((c, True), x), (np.asarray(CHOL_U).T.copy(),
        B), [
        [-0.15349445, 0.0, 0.0, -0.08225848, -0.016605305, 0.0, -0.6075274, 1.2631644, 1.5003532],
        [0.35699463, 0.22228402, -0.23151928, -0.41259348, -0.39291853, 0.12751944],
    ]),
    ("solve_triangular", lambda a, x: sl.solve_triangular(a, x), (T, b), [
        [1.0, 1.25, -1.5, 0.0, 1.8246222, -2.1895466, 0.0, 0.0, 3.1094966],
        [1.0, 1.4596977, -2.0729978],
    ]),
    ("solve_triangular_trans_lower", lambda a, x: sl.solve_triangular(a, x, trans=1, lower=True),
        (L, B), [
        [0.06635707, 0.0, 0.0, -0.36020154, -1.6801915, 0.0, -0.54502517, -1.1261709, 1.0437403],
        [0.5, 0.27015114, 0.9161469, 1.2601436, -0.91197914, -0.7905669],
    ]),
    ("solve_triangular_unit", lambda a, x: sl.solve_triangular(a, x, unit_diagonal=True), (T, b), [
        [0.0, -0.5, -3.0, 0.0, 0.0, 4.379093, 0.0, 0.0, 0.0],
        [1.0, -1.4596977, -2.686298],
    ]),
    ("lu_solve", lambda a, x: sl.lu_solve(sl.lu_factor(a), x), (G, b), [
        [-0.1838617, 0.0, -0.1838617, 0.23549029, 0.0, 0.23549028, -0.29032397, 0.0, -0.29032403],
        [0.1838617, -0.23549028, 0.29032403],
    ]),
    ("lu_solve_trans", lambda a, x: sl.lu_solve(sl.lu_factor(a), x, trans=1), (G, B), [
        [0.3734763, -0.23793733, 0.00092707574, 0.3715728, -0.58883643, 0.34490484, 0.24207292,
            -0.5469619, 0.38427365],
        [-0.48604938, 0.20271325, 0.7430247, 0.16879451, -0.42456955, -0.29055884],
    ]),
    ("det", lambda a: sl.det(a), (G,), [
        [-2.5, 7.0000005, -2.0, -2.0, 1.0, 3.0, 6.0, -3.0000002, 2.5],
    ]),
    ("inv", lambda a: sl.inv(a), (G,), [
        [-0.4774735, 0.73222756, -0.065715596, -0.02491888, 0.017219514, -0.026464866, 0.49051583,
            -0.73962325, 0.081341006],
    ]),
    ("cholesky", lambda a: sl.cholesky(a), (SPD,), [
        [0.22138743, 0.319836, -0.24465707, 0.028302994, -0.19945243, 0.17248091, 0.0061800545,
            0.0014261664, -0.052292764],
    ]),
    ("eigh_values", lambda a: sl.eigh(a, eigvals_only=True), (SPD,), [
        [-0.103310816, -0.41502082, -0.2660579, -0.41502082, 0.29330975, -0.06962184, -0.2660579,
            -0.06962184, 0.9341563],
    ]),
    ("svd_values", lambda a: sl.svd(a, compute_uv=False), (G,), [
        [0.48399878, 0.081717856, 0.23930411, -0.09439945, 0.18458626, 0.8482348, 0.13267677,
            0.5781715, 0.22920448],
    ]),
    ("polar_svd", lambda a: sl.polar(a, method="svd")[1], (G,), [
        [0.22432442, -0.7689941, 0.53515875, -0.26309258, 0.6298739, -0.21777941, 0.9630597,
            -0.3741234, 0.34534362],
    ]),
    ("qr", lambda a: sl.qr(a)[1], (G,), [
        [-1.0935181, 0.42187232, 0.011864588, 0.48465276, 0.42769766, -0.44094193, -0.43565968,
            -0.65881974, 0.28327045],
    ]),
    ("lu", lambda a: sl.lu(a)[2], (G,), [
        [0.120324045, -0.62131035, 0.38066223, 0.09700003, -0.048500016, -0.14550005, 0.98833805,
            0.8267074, -0.679228],
    ]),
    ("toeplitz", lambda c, r: sl.toeplitz(c, r), (C, R), [
        [0.4445907, -1.5647738, -0.14550003],
        [0.0, 1.5048982, 0.3377554, -0.9899925],
    ]),
    ("block_diag", lambda x, y: sl.block_diag(x, y), (SPD[:2, :2], b), [
        [1.0, 0.5403023, 0.2836622, 0.96017027],
        [0.84385395, 0.9074468, 0.13673721],
    ]),
]


def _outputs(out: Any) -> list[Any]:
    """The array leaves of a result (cho_factor's `lower` flag dropped)."""
    if isinstance(out, tuple | list):
        return [leaf for o in out for leaf in _outputs(o)]
    return [] if isinstance(out, bool) else [out]


def _close(out: Any, expected: Any, rtol: float = 2e-5, atol: float = 2e-5) -> None:
    np.testing.assert_allclose(np.asarray(out), np.asarray(expected), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,fn,expected", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_values_match_jax(name: str, fn: Callable[[], Any],
                          expected: list[tuple[str, bool, tuple[int, ...], list[Any]]]) -> None:
    outs = _outputs(fn())
    assert len(outs) == len(expected)
    for out, (dtype, weak, shape, values) in zip(outs, expected, strict=True):
        assert (str(out.dtype), out.weak_type, out.shape) == (dtype, weak, shape)
        _close(np.asarray(out).ravel(), np.array(values, dtype))


def _weighted_sum(f: Callable[..., Any]) -> Callable[..., Any]:
    def loss(*args: Any) -> Any:
        out = f(*args)
        w = np.cos(np.arange(out.size)).reshape(out.shape).astype(out.dtype)
        return jnp.sum(out * w)

    return loss


@pytest.mark.parametrize("name,f,args,expected", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_match_jax(name: str, f: Callable[..., Any], args: tuple[Any, ...],
                             expected: list[list[float]]) -> None:
    grads = numjax.grad(_weighted_sum(f), argnums=tuple(range(len(args))))(*args)
    for g, e in zip(grads, expected, strict=True):
        assert g.dtype == np.float32
        _close(np.asarray(g).ravel(), e, rtol=1e-5, atol=1e-5)


FD_GRADS = ["expm", "expm_squaring", "expm_upper", "expm_frechet", "solve", "solve_mat",
            "cho_solve", "cho_solve_lower_mat", "solve_triangular",
            "solve_triangular_trans_lower", "solve_triangular_unit", "lu_solve",
            "lu_solve_trans", "polar_svd"]
# These read one triangle of a symmetric matrix but, as in JAX, differentiate as if the whole
# matrix were the input: finite differences agree along symmetric directions only.
FD_GRADS_SYMMETRIC = ["solve_pos", "solve_pos_lower_mat", "cholesky", "eigh_values"]


def _symmetrized(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda a, *rest: f((a + a.T) / 2, *rest)


@pytest.mark.parametrize("name", FD_GRADS + FD_GRADS_SYMMETRIC)
def test_gradients_match_finite_differences(name: str) -> None:
    f, args = next((row[1], row[2]) for row in GRADS if row[0] == name)
    if name in FD_GRADS_SYMMETRIC:
        f = _symmetrized(f)
    with enable_x64():
        check_grads(f, tuple(np.asarray(a, np.float64) for a in args), order=1,
                    modes=("fwd", "rev"), atol=1e-5, rtol=1e-5, eps=1e-6)


EXTRA_JIT: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("sqrtm", sl.sqrtm, (SPD,)),
    ("funm", lambda a: sl.funm(a, jnp.exp, disp=False), (G,)),
    ("schur", sl.schur, (G,)),
    ("rsf2csf", lambda a: sl.rsf2csf(*sl.schur(a)), (G,)),
    ("hessenberg", lambda a: sl.hessenberg(a, calc_q=True), (H4,)),
    ("eigh_tridiagonal", lambda d, e: sl.eigh_tridiagonal(d, e, eigvals_only=True), (D, E)),
    ("polar_qdwh", sl.polar, (G,)),
    ("lu_factor", sl.lu_factor, (G,)),
    ("eigh", sl.eigh, (SPD,)),
    ("svd", sl.svd, (G,)),
]
JIT_CASES = [(row[0], row[1], row[2]) for row in GRADS] + EXTRA_JIT


@pytest.mark.parametrize("name,f,args", JIT_CASES, ids=[c[0] for c in JIT_CASES])
def test_jit_matches_eager(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    eager = _outputs(f(*args))
    jitted = _outputs(numjax.jit(f)(*args))
    for e, j in zip(eager, jitted, strict=True):
        assert (e.dtype, e.shape) == (j.dtype, j.shape)
        _close(j, e, rtol=1e-5, atol=1e-6)


def _stack(*xs: Any) -> np.ndarray:
    return np.stack([np.asarray(x) for x in xs])


MATS = _stack(G, SPD, G.T + 2 * np.eye(3, dtype=F32))
SPDS = _stack(SPD, 2 * SPD + np.eye(3, dtype=F32), SPD.T @ SPD)
TRIS = _stack(T, np.triu(G) + 2 * np.eye(3, dtype=F32), np.triu(SPD))
VECS = _stack(b, -b, np.array([0.5, 0.0, -1.0], F32))
VMAP_CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("cholesky", sl.cholesky, (SPDS,)),
    ("cho_solve", lambda c, x: sl.cho_solve((c, True), x), (np.linalg.cholesky(SPDS), VECS)),
    ("det", sl.det, (MATS,)),
    ("inv", sl.inv, (MATS,)),
    ("eigh", sl.eigh, (SPDS,)),
    ("expm", sl.expm, (MATS,)),
    ("expm_frechet", sl.expm_frechet, (MATS, SPDS)),
    ("hessenberg", lambda a: sl.hessenberg(a, calc_q=True), (MATS,)),
    ("lu", sl.lu, (MATS,)),
    ("lu_solve", lambda a, x: sl.lu_solve(sl.lu_factor(a), x, trans=1), (MATS, VECS)),
    ("polar_qdwh", sl.polar, (MATS,)),
    ("qr", sl.qr, (MATS,)),
    ("schur", sl.schur, (MATS,)),
    ("rsf2csf", lambda a: sl.rsf2csf(*sl.schur(a)), (MATS,)),
    ("solve", sl.solve, (MATS, VECS)),
    ("solve_pos", lambda a, x: sl.solve(a, x, assume_a="pos"), (SPDS, VECS)),
    ("solve_triangular", lambda a, x: sl.solve_triangular(a, x, trans="T"), (TRIS, VECS)),
    ("sqrtm", sl.sqrtm, (SPDS,)),
    ("funm", lambda a: sl.funm(a, jnp.sin), (MATS,)),
    ("svd", sl.svd, (MATS,)),
    ("toeplitz", sl.toeplitz, (VECS, MATS)),
    ("block_diag", lambda x: sl.block_diag(x, 1.0), (MATS,)),
    ("eigh_tridiagonal", lambda d, e: sl.eigh_tridiagonal(d, e, eigvals_only=True),
     (_stack(D, -D, D * D), _stack(E, E, -2 * E))),
]


@pytest.mark.parametrize("name,f,args", VMAP_CASES, ids=[c[0] for c in VMAP_CASES])
def test_vmap_matches_loop(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    batched = _outputs(numjax.vmap(f)(*args))
    looped = [_outputs(f(*(a[i] for a in args))) for i in range(args[0].shape[0])]
    for k, out in enumerate(batched):
        _close(out, np.stack([np.asarray(row[k]) for row in looped]), rtol=1e-5, atol=1e-5)


def _unitary_similar(a: Any, t: Any, z: Any) -> None:
    """a = z t z^H with z unitary."""
    t, z = np.asarray(t), np.asarray(z)
    _close(z @ z.conj().T, np.eye(len(z)), atol=1e-5)
    _close(z @ t @ z.conj().T, a, rtol=1e-4, atol=1e-4)


def test_schur_forms_reconstruct_the_matrix() -> None:
    t, z = sl.schur(G)
    _unitary_similar(G, t, z)
    t_c, z_c = sl.rsf2csf(t, z)
    assert np.allclose(np.tril(np.asarray(t_c), -1), 0)
    _unitary_similar(G, t_c, z_c)
    ref_t, ref_z = scipy.linalg.rsf2csf(*scipy.linalg.schur(G.astype(np.float64)))
    _close(np.sort_complex(np.diag(np.asarray(t_c))), np.sort_complex(np.diag(ref_t)),
           rtol=1e-5, atol=1e-5)
    h, q = sl.hessenberg(H4, calc_q=True)
    _unitary_similar(H4, h, q)


SCIPY_REFS: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
    ("cholesky", lambda: sl.cholesky(SPD), lambda: scipy.linalg.cholesky(SPD)),
    ("cholesky_lower", lambda: sl.cholesky(HPD, lower=True),
     lambda: scipy.linalg.cholesky(HPD, lower=True)),
    ("cho_solve", lambda: sl.cho_solve(sl.cho_factor(SPD, lower=True), B),
     lambda: scipy.linalg.cho_solve(scipy.linalg.cho_factor(SPD, lower=True), B)),
    ("det", lambda: sl.det(G), lambda: scipy.linalg.det(G)),
    ("inv", lambda: sl.inv(GC), lambda: scipy.linalg.inv(GC)),
    ("lu", lambda: sl.lu(TALL), lambda: scipy.linalg.lu(TALL)),
    ("lu_permute_l", lambda: sl.lu(W, permute_l=True),
     lambda: scipy.linalg.lu(W, permute_l=True)),
    ("lu_factor", lambda: sl.lu_factor(G), lambda: scipy.linalg.lu_factor(G)),
    ("lu_solve_trans2", lambda: sl.lu_solve(sl.lu_factor(GC), BC, trans=2),
     lambda: scipy.linalg.lu_solve(scipy.linalg.lu_factor(GC), BC, trans=2)),
    ("solve", lambda: sl.solve(G, B), lambda: scipy.linalg.solve(G, B)),
    ("solve_pos", lambda: sl.solve(SPD, B, assume_a="pos"),
     lambda: scipy.linalg.solve(SPD, B, assume_a="pos")),
    ("solve_triangular_C", lambda: sl.solve_triangular(np.tril(GC), BC, trans="C", lower=True),
     lambda: scipy.linalg.solve_triangular(np.tril(GC), BC, trans="C", lower=True)),
    ("solve_triangular_unit", lambda: sl.solve_triangular(T, B, unit_diagonal=True),
     lambda: scipy.linalg.solve_triangular(T, B, unit_diagonal=True)),
    ("expm", lambda: sl.expm(G), lambda: scipy.linalg.expm(G.astype(np.float64))),
    ("expm_squaring", lambda: sl.expm(5 * G), lambda: scipy.linalg.expm(5.0 * G)),
    ("expm_complex", lambda: sl.expm(GC), lambda: scipy.linalg.expm(GC.astype(np.complex128))),
    ("expm_frechet", lambda: sl.expm_frechet(G, SPD),
     lambda: scipy.linalg.expm_frechet(G.astype(np.float64), SPD.astype(np.float64))),
    ("sqrtm", lambda: sl.sqrtm(G), lambda: scipy.linalg.sqrtm(G.astype(np.float64))),
    ("funm", lambda: sl.funm(G, jnp.sin),
     lambda: scipy.linalg.funm(G.astype(np.float64), np.sin)),
    ("polar", lambda: sl.polar(G), lambda: scipy.linalg.polar(G)),
    ("polar_left", lambda: sl.polar(W, side="left"), lambda: scipy.linalg.polar(W, "left")),
    ("hessenberg", lambda: sl.hessenberg(H4, calc_q=True),
     lambda: scipy.linalg.hessenberg(H4, calc_q=True)),
    ("eigh_values", lambda: sl.eigh(HPD, eigvals_only=True),
     lambda: scipy.linalg.eigh(HPD, eigvals_only=True)),
    ("svd_values", lambda: sl.svd(TALL, compute_uv=False),
     lambda: scipy.linalg.svd(TALL, compute_uv=False)),
    ("eigh_tridiagonal", lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True),
     lambda: scipy.linalg.eigvalsh_tridiagonal(D, E)),
    ("toeplitz", lambda: sl.toeplitz(C, R), lambda: scipy.linalg.toeplitz(C, R)),
    ("hilbert", lambda: sl.hilbert(5), lambda: scipy.linalg.hilbert(5)),
    ("block_diag", lambda: sl.block_diag(SPD, W, 2.0),
     lambda: scipy.linalg.block_diag(SPD, W, 2.0)),
]


@pytest.mark.parametrize("name,ours,theirs", SCIPY_REFS, ids=[r[0] for r in SCIPY_REFS])
def test_matches_scipy(name: str, ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    mine, ref = _outputs(ours()), list(theirs()) if isinstance(theirs(), tuple) else [theirs()]
    for m, r in zip(mine, ref, strict=True):
        _close(m, r, rtol=1e-4, atol=1e-4)


def _polar_not_reverse_differentiable() -> Any:
    return numjax.grad(lambda a: sl.polar(a)[0].sum())(G)


EYE2, EYE3 = np.eye(2, dtype=F32), np.eye(3, dtype=F32)
ERRORS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("cholesky_1d", lambda: sl.cholesky(np.ones(3)), ValueError,
     r"Argument to Cholesky decomposition must have ndims >= 2, got shape \(3,\)"),
    ("cho_solve_shapes", lambda: sl.cho_solve((EYE3, False), np.ones(2)), ValueError,
     r"The arguments to solve must have shapes a=\[..., m, m\] and b=\[..., m, k\] or "
     r"b=\[..., m\]; got a=\(3, 3\) and b=\(2,\)"),
    ("det_1d", lambda: sl.det(np.ones(3)), ValueError, r"\(3,\)"),
    ("eigh_b", lambda: sl.eigh(EYE2, EYE2), NotImplementedError,
     "Only the b=None case of eigh is implemented"),
    ("eigh_type", lambda: sl.eigh(EYE2, type=2), NotImplementedError,
     r"Only the type=1 case of eigh is implemented\."),
    ("eigh_eigvals", lambda: sl.eigh(EYE2, eigvals=(0, 1)), NotImplementedError,
     r"Only the eigvals=None case of eigh is implemented\."),
    ("schur_output", lambda: sl.schur(EYE2, output="x"), ValueError,
     r"Expected 'output' to be either 'real' or 'complex', got output='x'\."),
    ("schur_int", lambda: sl.schur(np.eye(2, dtype=np.int32)), NotImplementedError,
     "Unsupported dtype int32"),
    ("inv_shape", lambda: sl.inv(np.ones((2, 3))), ValueError,
     r"Argument to inv must have shape \[..., n, n\], got \(2, 3\)\."),
    ("lu_solve_vector", lambda: sl.lu_solve(sl.lu_factor(EYE3), np.ones(2)), ValueError,
     r"When LU decomposition matrix and b have the same number of dimensions, last axis of LU "
     r"decomposition matrix \(shape \(3, 3\)\) and b array \(shape \(2,\)\) must match"),
    ("lu_solve_matrix", lambda: sl.lu_solve(sl.lu_factor(EYE3), np.ones((2, 2))), ValueError,
     r"second to last axis of b array \(shape \(2, 2\)\) must match"),
    ("lu_solve_trans", lambda: sl.lu_solve(sl.lu_factor(EYE3), np.ones(3), trans=3),
     ValueError, "'trans' value must be 0, 1, or 2, got 3"),
    ("lu_solve_dtypes", lambda: sl.lu_solve(sl.lu_factor(GC), b), TypeError,
     "triangular_solve"),
    ("lu_1d", lambda: sl.lu(np.ones(3)), ValueError,
     "Argument to LU decomposition must have ndims >= 2"),
    ("lu_batched", lambda: sl.lu(np.ones((2, 3, 3))), ValueError, r"\(2, 3, 3\)"),
    ("qr_pivoting", lambda: sl.qr(EYE2, pivoting=True), NotImplementedError,
     r"The pivoting=True case of qr is not implemented\."),
    ("qr_mode", lambda: sl.qr(EYE2, mode="raw"), ValueError,
     "Unsupported QR decomposition mode 'raw'"),
    ("solve_assume_a", lambda: sl.solve(EYE2, np.ones(2), assume_a="x"), ValueError,
     r"Expected assume_a to be one of \['gen', 'sym', 'her', 'pos'\]; got 'x'"),
    ("solve_shapes", lambda: sl.solve(EYE2, np.ones(3)), ValueError,
     "inconsistent size for core dimension 'm'"),
    ("solve_pos_shapes", lambda: sl.solve(EYE2, np.ones(3), assume_a="pos"), ValueError,
     "The arguments to solve must have shapes"),
    ("solve_triangular_trans", lambda: sl.solve_triangular(EYE2, np.ones(2), trans=3),
     ValueError, "Invalid 'trans' value 3"),
    ("solve_triangular_shapes", lambda: sl.solve_triangular(EYE2, np.ones(3)), TypeError,
     r"Incompatible shapes for arguments to triangular_solve: \(2, 2\) and \(3, 1\)\."),
    ("solve_triangular_batch", lambda: sl.solve_triangular(EYE2, np.ones((3, 2, 2), F32)),
     TypeError, "requires both arguments to have the same number of dimensions and equal "
     "batch dimensions"),
    ("expm_shape", lambda: sl.expm(np.ones(3)), ValueError,
     r"Expected A to be a \(batched\) square matrix, got A.shape=\(3,\)\."),
    ("expm_float16", lambda: sl.expm(np.eye(2, dtype=np.float16)), TypeError,
     r"A.dtype=float16 is not supported\."),
    ("expm_frechet_same_shape", lambda: sl.expm_frechet(EYE2, EYE3), ValueError,
     r"expected A and E to be the same shape, got A.shape=\(2, 2\) E.shape=\(3, 3\)"),
    ("expm_frechet_a", lambda: sl.expm_frechet(np.ones(2), EYE3), ValueError,
     r"expected A to be a \(batched\) square matrix, got A.shape=\(2,\)"),
    ("expm_frechet_e", lambda: sl.expm_frechet(EYE3, np.ones((3, 2))), ValueError,
     r"expected E to be a \(batched\) square matrix, got E.shape=\(3, 2\)"),
    ("eigh_tridiagonal_vectors", lambda: sl.eigh_tridiagonal(D, E), NotImplementedError,
     "Calculation of eigenvectors is not implemented"),
    ("eigh_tridiagonal_dtypes",
     lambda: sl.eigh_tridiagonal(D, E.astype(np.int32), eigvals_only=True), TypeError,
     "diagonal and off-diagonal values must have same dtype, got float32 and int32"),
    ("eigh_tridiagonal_int",
     lambda: sl.eigh_tridiagonal(D.astype(np.int32), E.astype(np.int32), eigvals_only=True),
     TypeError, "Only float32 and float64 inputs are supported as inputs to "
     "jax.scipy.linalg.eigh_tridiagonal, got int32 and int32"),
    ("eigh_tridiagonal_select_v",
     lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True, select="v"), NotImplementedError,
     r"eigh_tridiagonal\(..., select='v'\) is not implemented"),
    ("eigh_tridiagonal_select_x",
     lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True, select="x"), ValueError,
     "'select must have a value in"),
    ("eigh_tridiagonal_no_range",
     lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True, select="i"), ValueError,
     "for select='i', select_range must be specified."),
    ("eigh_tridiagonal_empty_range",
     lambda: sl.eigh_tridiagonal(D, E, eigvals_only=True, select="i", select_range=(2, 1)),
     ValueError, "Got empty index range in select_range."),
    ("polar_3d", lambda: sl.polar(np.ones((2, 2, 2))), ValueError,
     "The input `a` must be a 2-D array."),
    ("polar_side", lambda: sl.polar(EYE2, side="x"), ValueError,
     "The argument `side` must be either 'right' or 'left'."),
    ("polar_method", lambda: sl.polar(EYE2, method="x"), ValueError,
     "Unknown polar decomposition method x."),
    ("polar_wide_right", lambda: sl.polar(W), NotImplementedError,
     r"method='qdwh' only supports mxn matrices where m < n where side='right' and m >= n "
     r"side='left', got \(2, 3\) with side='right'"),
    ("polar_tall_left", lambda: sl.polar(TALL, side="left"), NotImplementedError,
     r"got \(3, 2\) with side='left'"),
    ("polar_not_reverse_differentiable", _polar_not_reverse_differentiable, ValueError,
     "Reverse-mode differentiation does not work for lax.while_loop"),
    ("sqrtm_blocksize", lambda: sl.sqrtm(EYE2, blocksize=2), NotImplementedError,
     "Blocked version is not implemented yet."),
    ("rsf2csf_t", lambda: sl.rsf2csf(np.ones((2, 3)), EYE2), ValueError,
     "Input 'T' must be square."),
    ("rsf2csf_z", lambda: sl.rsf2csf(EYE2, np.ones((2, 3))), ValueError,
     "Input 'Z' must be square."),
    ("rsf2csf_shapes", lambda: sl.rsf2csf(EYE2, EYE3), ValueError,
     r"Input array shapes must match: Z: \(3, 3\) vs. T: \(2, 2\)"),
    ("hessenberg_int", lambda: sl.hessenberg(np.eye(2, dtype=np.int32)), TypeError,
     "hessenberg requires a.dtype to be float32, float64, complex64, or complex128, got "
     "int32."),
    ("hessenberg_1d", lambda: sl.hessenberg(np.ones(2, F32)), TypeError,
     "hessenberg requires a.ndim to be at least 2, got 1."),
    ("hessenberg_not_differentiable", lambda: numjax.grad(lambda a: sl.hessenberg(a).sum())(G),
     NotImplementedError, "Differentiation rule for 'hessenberg' not implemented"),
    ("funm_shape", lambda: sl.funm(np.ones((2, 3)), jnp.exp), ValueError,
     "expected square array_like input"),
    ("block_diag_3d", lambda: sl.block_diag(np.ones((2, 2, 2))), ValueError,
     "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions"),
    ("toeplitz_list", lambda: sl.toeplitz([1.0, 2.0]), TypeError,
     "toeplitz requires ndarray or scalar arguments, got <class 'list'> at position 0."),
]


@pytest.mark.parametrize("name,fn,exc,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_jax_errors(name: str, fn: Callable[[], Any], exc: type[Exception],
                                     match: str) -> None:
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("module", [src_linalg, src_matfuncs, lax_hessenberg, scipy_qdwh, sl])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_every_public_function_has_an_example() -> None:
    for name in sl.__dict__:
        obj = getattr(sl, name)
        if name.startswith("_") or not callable(obj):
            continue
        assert obj.__doc__ and ">>>" in obj.__doc__, name

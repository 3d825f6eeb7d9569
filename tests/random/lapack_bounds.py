"""Tolerances for draws that pass through a LAPACK factorization.

LAPACK libraries pick their kernels by CPU (blocked or unblocked updates, vector widths, fused
multiply-adds), so a factorization's last bits differ between machines, and so do those of
JAX's own draws (JAX on an AVX-512 machine gives numjax's bits, not the ones recorded
elsewhere). Each routine is backward stable: what it returns is the exact factorization of a
matrix within `n * eps * ||A||` of its input (Higham, "Accuracy and Stability of Numerical
Algorithms", ch. 10, 19 and 8 for Cholesky, Householder QR and the symmetric eigenproblem). Two
such results differ by at most twice that backward error pushed through the factor's condition
number, to first order:

- Cholesky: ||dL||_F <= kappa_2(C) ||L||_2 ||dC||_F / (sqrt(2) ||C||_2)  (Sun 1991);
- Householder QR with a positive diagonal: ||dQ||_F <= sqrt(2) kappa_2(A) ||dA||_F / ||A||_2;
- eigenvectors of a symmetric matrix: ||dv_j|| <= ||dC||_2 / gap_j (Davis-Kahan), eigenvalues
  |dw_j| <= ||dC||_2 (Weyl), and for a positive definite matrix the SVD is that same
  decomposition.

The bounds below take `||dA|| = 2 n eps ||A||` (two backward-stable results) and add the
rounding of the final product `factor @ z` (n terms, each summed in some order): they scale
with the conditioning, so a well-conditioned draw is held to a few hundred ulp at most and an
ill-conditioned one gets the slack its factorization really has.
"""

from __future__ import annotations

import numpy as np


def orthogonal_tolerance(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Per-entry tolerance of `orthogonal`'s Q for the normal matrices `z` (`(..., n, n)`)."""
    z = np.asarray(z, np.float64)
    n = z.shape[-1]
    eps = float(np.finfo(dtype).eps)
    kappa = np.linalg.cond(z)
    # ||dQ||_F bounds every entry: sqrt(2) kappa * 2 n eps, then the sign fix (exact).
    bound = np.sqrt(2) * kappa * 2 * n * eps
    return np.broadcast_to(bound[..., None, None], z.shape)


def multivariate_normal_tolerance(cov: np.ndarray, z: np.ndarray, method: str,
                                  dtype: np.dtype) -> np.ndarray:
    """Per-entry tolerance of `mean + factor(cov) @ z` for standard normal `z` (`(..., n)`)."""
    cov = np.asarray(cov, np.float64)
    z = np.asarray(z, np.float64)
    n = cov.shape[-1]
    eps = float(np.finfo(dtype).eps)
    w, v = np.linalg.eigh(cov)
    norm = w[-1]
    d_cov = 2 * n * eps * norm  # ||dC||_2 between two backward-stable factorizations
    if method == "cholesky":
        factor = np.linalg.cholesky(cov)
        d_factor = w[-1] / w[0] * np.sqrt(norm) * d_cov / (np.sqrt(2) * norm)
        # Every entry of dL is at most ||dL||_F, so |dL z| <= ||dL||_F * sum |z_j|.
        factor_error = d_factor * np.abs(z).sum(-1, keepdims=True)
    else:
        factor = v * np.sqrt(w)
        others = np.abs(w[:, None] - w[None, :]) + np.diag(np.full(n, np.inf))
        gap = others.min(-1)
        # Column j of V sqrt(W) moves by sqrt(w_j) ||dv_j|| + |dw_j| / (2 sqrt(w_j)).
        d_column = np.sqrt(w) * d_cov / gap + d_cov / (2 * np.sqrt(w))
        factor_error = np.abs(z) @ d_column[:, None]
    product_rounding = n * eps * (np.abs(z) @ np.abs(factor).T)
    return factor_error + product_rounding


def assert_within(got: np.ndarray, expected: np.ndarray, tolerance: np.ndarray) -> None:
    got = np.asarray(got, np.float64)
    expected = np.asarray(expected, np.float64)
    tolerance = np.broadcast_to(tolerance, expected.shape)
    err = np.abs(got - expected)
    bad = err > tolerance
    assert not bad.any(), (
        f"{np.count_nonzero(bad)} of {bad.size} beyond the conditioning bound; worst error "
        f"{err.max():.3g} against tolerance {tolerance.reshape(-1)[err.argmax()]:.3g}")

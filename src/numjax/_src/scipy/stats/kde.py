"""Gaussian kernel density estimation: JAX's `jax.scipy.stats.gaussian_kde`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from numjax._src.api.jit import jit
from numjax._src.api.transformations import vmap
from numjax._src.dtypes import issubdtype, result_type
from numjax._src.lax import linalg as lax_linalg
from numjax._src.nn.functions import logsumexp
from numjax._src.numpy.correlation import cov as jnp_cov
from numjax._src.numpy.creation import full, zeros
from numjax._src.numpy.lax_numpy import dot
from numjax._src.numpy.linalg import inv
from numjax._src.numpy.matrices import diag
from numjax._src.numpy.reductions import prod
from numjax._src.numpy.reductions import sum as jnp_sum
from numjax._src.numpy.selection import isscalar
from numjax._src.numpy.shape import atleast_1d, atleast_2d, ndim, reshape, squeeze
from numjax._src.numpy.ufuncs import exp, log, power, sqrt, square
from numjax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from numjax._src.random.keys import split
from numjax._src.random.samplers import choice, multivariate_normal
from numjax._src.scipy.ndtr import ndtr
from numjax._src.tree_util import register_pytree_node_class
from numjax._src.typing import Array


def _cho_factor(a: Array) -> Array:
    """The lower Cholesky factor of symmetric positive definite `a`, read from a's upper
    triangle as `jax.scipy.linalg.cho_factor` (lower=False) reads it."""
    return lax_linalg.cholesky(a.T, symmetrize_input=False)


def _cho_solve(chol: Array, b: Array) -> Array:
    """Solve (chol chol^T) x = b for a matrix b."""
    y = lax_linalg.triangular_solve(chol, b, left_side=True, lower=True)
    return lax_linalg.triangular_solve(chol, y, left_side=True, lower=True, transpose_a=True)


@register_pytree_node_class
@dataclass(frozen=True, init=False)
class gaussian_kde:
    """A Gaussian kernel density estimate from `dataset` of shape (d, n) (or (n,) for d = 1),
    with optional `weights` and bandwidth `bw_method` ('scott' by default, 'silverman', a
    scalar factor, or a callable taking the estimator). A pytree, so it passes through jit.

    >>> import numjax.numpy as jnp
    >>> kde = gaussian_kde(jnp.array([0.0, 1.0, 3.0]))
    >>> kde.evaluate(jnp.array([1.0]))
    Array([0.21489537], dtype=float32)
    """

    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset: Array, bw_method: Any = None, weights: Array | None = None):
        check_arraylike("gaussian_kde", dataset)
        dataset = atleast_2d(dataset)
        if issubdtype(result_type(dataset), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            check_arraylike("gaussian_kde", weights)
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = atleast_1d(weights)
            weights /= jnp_sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = promote_dtypes_inexact(dataset)
            weights = full(n, 1.0 / n, dtype=dataset.dtype)
        self._setattr("dataset", dataset)
        self._setattr("weights", weights)
        neff = self._setattr("neff", 1 / jnp_sum(weights**2))

        bw_method = "scott" if bw_method is None else bw_method
        if bw_method == "scott":
            factor = power(neff, -1.0 / (d + 4))
        elif bw_method == "silverman":
            factor = power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError(
                "`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

        data_covariance = atleast_2d(jnp_cov(dataset, rowvar=True, bias=False,
                                                 aweights=weights))
        data_inv_cov = inv(data_covariance)
        self._setattr("covariance", data_covariance * factor**2)
        self._setattr("inv_cov", data_inv_cov / factor**2)

    def _setattr(self, name: str, value: Any) -> Any:
        # the dataclass is frozen; fields are set once, here and in tree_unflatten
        object.__setattr__(self, name, value)
        return value

    def tree_flatten(self) -> tuple[tuple[Any, ...], None]:
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: Any, children: Any) -> gaussian_kde:
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"),
                               children, strict=True):
            kde._setattr(name, value)
        return kde

    @property
    def d(self) -> int:
        """The number of dimensions."""
        return int(self.dataset.shape[0])

    @property
    def n(self) -> int:
        """The number of data points."""
        return int(self.dataset.shape[1])

    def evaluate(self, points: Array) -> Array:
        """The estimated density at `points` (shape (d, m), or (d,) for one point).

        >>> import numjax.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).evaluate(0.0)
        Array([0.19165564], dtype=float32)
        """
        check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        result = _gaussian_kernel_eval(False, self.dataset.T, self.weights[:, None],
                                       points.T, self.inv_cov)
        return result[:, 0]

    def __call__(self, points: Array) -> Array:
        return self.evaluate(points)

    def pdf(self, x: Array) -> Array:
        """The same as `evaluate`.

        >>> import numjax.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).pdf(0.0)
        Array([0.19165564], dtype=float32)
        """
        return self.evaluate(x)

    def logpdf(self, x: Array) -> Array:
        """The log of the estimated density, summed in log space (finite far in the tails).

        >>> import numjax.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).logpdf(0.0)
        Array([-1.652055], dtype=float32)
        """
        check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        result = _gaussian_kernel_eval(True, self.dataset.T, self.weights[:, None], x.T,
                                       self.inv_cov)
        return result[:, 0]

    def integrate_gaussian(self, mean: Array, cov: Array) -> Array:
        """The integral of the estimate times the Gaussian N(mean, cov).

        >>> import numjax.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).integrate_gaussian(0.0, 1.0)
        Array(0.16680169, dtype=float32)
        """
        mean = atleast_1d(squeeze(mean))
        cov = atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = _cho_factor(self.covariance + cov)
        norm = 1.0 / (sqrt(2 * np.pi) ** self.d * prod(diag(chol)))
        return _gaussian_kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low: Array, high: Array) -> Array:
        """The estimated probability of [low, high], for one-dimensional data.

        >>> import numjax.numpy as jnp
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).integrate_box_1d(0.0, 1.0)
        Array(0.2098186, dtype=float32)
        """
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if ndim(low) != 0 or ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = squeeze(sqrt(self.covariance))
        low = squeeze((low - self.dataset) / sigma)
        high = squeeze((high - self.dataset) / sigma)
        return jnp_sum(self.weights * (ndtr(high) - ndtr(low)))

    def integrate_kde(self, other: gaussian_kde) -> Array:
        """The integral of the product of this estimate and `other`.

        >>> import numjax.numpy as jnp
        >>> kde = gaussian_kde(jnp.array([0.0, 1.0, 3.0]))
        >>> kde.integrate_kde(kde)
        Array(0.15771428, dtype=float32)
        """
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = _cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (sqrt(2 * np.pi) ** self.d * prod(diag(chol)))
        small, large = (self, other) if self.n < other.n else (other, self)
        convolve = partial(_gaussian_kernel_convolve, chol, norm, large.dataset, large.weights)
        return jnp_sum(vmap(convolve, in_axes=1)(small.dataset) * small.weights)

    def resample(self, key: Array, shape: tuple[int, ...] = ()) -> Array:
        """Samples of shape (d, *shape): data points drawn by weight plus kernel noise.

        >>> import numjax.numpy as jnp
        >>> from numjax import random
        >>> gaussian_kde(jnp.array([0.0, 1.0, 3.0])).resample(random.PRNGKey(0), (2,)).shape
        (1, 2)
        """
        ind_key, eps_key = split(key)
        ind = choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = multivariate_normal(eps_key, zeros(self.d, self.covariance.dtype),
                                  self.covariance, shape=shape, dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
        """Not supported (as in JAX): only `integrate_box_1d` is."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: Any = None) -> Any:
        """Not supported (as in JAX): the estimator is immutable."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points: Array) -> Array:
        if issubdtype(result_type(points), np.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = reshape(points, (self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _gaussian_kernel_convolve(chol: Array, norm: Array, target: Array, weights: Array,
                              mean: Array) -> Array:
    diff = target - mean[:, None]
    alpha = _cho_solve(chol, diff)
    arg = 0.5 * jnp_sum(diff * alpha, axis=0)
    return norm * jnp_sum(exp(-arg) * weights)


@partial(jit, static_argnums=0)
def _gaussian_kernel_eval(in_log: bool, points: Array, values: Array, xi: Array,
                          precision: Array) -> Array:
    """sum_j values_j K(xi_i - points_j) (or its log) for the Gaussian kernel K of the given
    precision matrix, computed in whitened coordinates."""
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = lax_linalg.cholesky(precision, symmetrize_input=False)
    points = dot(points, whitening)
    xi = dot(xi, whitening)
    log_norm = jnp_sum(log(diag(whitening))) - 0.5 * d * log(2 * np.pi)

    def kernel(x_test: Array, x_train: Array, y_train: Array) -> Array:
        arg = log_norm - 0.5 * jnp_sum(square(x_train - x_test))
        if in_log:
            return log(y_train) + arg
        return y_train * exp(arg)

    reduce = logsumexp if in_log else jnp_sum

    def reduced_kernel(x: Array) -> Array:
        return reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0)

    return vmap(reduced_kernel)(xi)

"""The samplers' handling of their arguments, recorded from JAX 0.4.30: parameters that
broadcast against the shape, the sampler's own rank promotion under
`jax_numpy_rank_promotion='raise'`, traced parameters and traced shapes under jit, and random
bits arrays of 2**32 words or more (traced and lowered, not run)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import errors
from numjax import random as r


@pytest.fixture
def rank_raise() -> Any:
    with numjax.numpy_rank_promotion("raise"):
        yield


# multivariate_normal(key(0), zeros(2), ones((2, 2)), (10,), method)[:2]: singular covariance.
# Cholesky gives NaN; eigh and svd the draws along (1, 1) (LAPACK-dependent last digits).
MVN = [
    ("cholesky", [[np.nan, np.nan], [np.nan, np.nan]]),
    ("eigh", [[-0.9692886, -0.9692886], [-0.03188572, -0.03188572]]),
    ("svd", [[-1.0544366, -1.0545957], [0.59460473, 0.5945994]]),
]


@pytest.mark.parametrize("method,expected", MVN)
@pytest.mark.usefixtures("rank_raise")
def test_multivariate_normal_mean_broadcasts_under_rank_raise(method: str,
                                                              expected: Any) -> None:
    out = r.multivariate_normal(r.key(0), mean=jnp.zeros((2,)), cov=jnp.ones((2, 2)),
                                shape=(10,), method=method)
    assert out.shape == (10, 2)
    np.testing.assert_allclose(np.asarray(out[:2]), expected, rtol=2e-3, atol=2e-3)


def test_parameters_broadcast_against_shape() -> None:
    k = r.key(0)
    with numjax.numpy_rank_promotion("allow"):
        pareto = r.pareto(k, np.array([0.2, 0.3]), shape=(3, 2))
        uniform = r.uniform(k, (10, 2), minval=jnp.zeros(2), maxval=jnp.ones(2))
        randint = r.randint(k, (10, 2), jnp.array([0, 1]), jnp.array([1, 2]))
    np.testing.assert_allclose(np.asarray(pareto), [[71.697556, 1.4191229],
                                                    [874.20715, 1784.0909],
                                                    [93.570831, 7.4824219]], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(uniform[:2]), [[0.85417664, 0.16620052],
                                                         [0.27605474, 0.48728156]], rtol=1e-6)
    assert randint.shape == (10, 2) and randint.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(randint), np.tile([0, 1], (10, 1)))


def test_traced_power_parameter() -> None:
    # JAX 0.4.30: ball(key(0), 3, 1.5, (2,)) and generalized_normal(key(0), 1.5, (3,)), float32,
    # the same eagerly and with p a jit argument.
    k = r.key(0)
    ball = [[-0.20150809, 0.08803934, 0.7190994], [0.43648368, -0.5814467, -0.28922084]]
    gen = [-0.01485975, 0.118288, 1.613845]
    for out in (r.ball(k, 3, 1.5, (2,), np.float32),
                numjax.jit(lambda k, p: r.ball(k, 3, p, (2,), np.float32))(k, 1.5)):
        np.testing.assert_allclose(np.asarray(out), ball, rtol=1e-5)
    for out in (r.generalized_normal(k, 1.5, (3,), np.float32),
                numjax.jit(lambda k, p: r.generalized_normal(k, p, (3,), np.float32))(k, 1.5)):
        np.testing.assert_allclose(np.asarray(out), gen, rtol=1e-5)


@pytest.mark.parametrize("sampler", [
    lambda k, n: r.normal(k, (n,)),
    lambda k, n: r.uniform(k, (3, n)),
    lambda k, n: r.bernoulli(k, 0.5, (n,)),
])
def test_traced_shape_error(sampler: Any) -> None:
    msg = "Shapes must be 1D sequences of concrete values of integer type, got ("
    with pytest.raises(TypeError, match=re.escape(msg)) as info:
        numjax.jit(lambda n: sampler(r.key(0), n))(3)
    assert "Traced<ShapedArray(int32[], weak_type=True)>" in str(info.value)
    assert "If using `jit`, try using `static_argnums`" in str(info.value)


def test_permutation_errors() -> None:
    k = r.key(0)
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 1"):
        r.permutation(k, 10, axis=3)
    with pytest.raises(TypeError, match="x must be an integer or at least 1-dimensional"):
        r.permutation(k, 10.)
    with pytest.raises(errors.ConcretizationTypeError,
                       match=re.escape("Abstract tracer value encountered where concrete value "
                                       "is expected: traced array with shape int32[].\n"
                                       "argument x of jax.random.permutation()\n")):
        numjax.jit(r.permutation)(k, 10)


def test_bits_of_2_32_words_or_more_trace_and_lower() -> None:
    out = numjax.eval_shape(lambda x: r.normal(r.PRNGKey(x), (int(1e12),)), 0)
    assert out == numjax.ShapeDtypeStruct((int(1e12),), np.float32)
    with numjax.debug_key_reuse(False):
        lowered = numjax.jit(lambda: r.uniform(r.PRNGKey(3), (308000000, 128),
                                               dtype=jnp.bfloat16)).lower()
    assert lowered.out_info.shape == (308000000, 128)


# uniform's bounds that do not fit the shape: JAX 0.4.30's errors, its product's or its
# difference's (the bounds are brought to the shape's rank first).
UNIFORM_BOUNDS_ERRORS = [
    ((3,), {"minval": np.zeros(2, np.float32)},
     "mul got incompatible shapes for broadcasting: (3,), (2,)."),
    ((2, 3), {"maxval": np.ones(4, np.float32)},
     "mul got incompatible shapes for broadcasting: (2, 3), (1, 4)."),
    ((3,), {"minval": np.zeros(2, np.float32), "maxval": np.ones(3, np.float32)},
     "sub got incompatible shapes for broadcasting: (3,), (2,)."),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("shape, bounds, message", UNIFORM_BOUNDS_ERRORS)
def test_uniform_bounds_that_do_not_fit_the_shape(shape: tuple[int, ...], bounds: Any,
                                                  message: str, jit: bool) -> None:
    def draw(b: Any) -> Any:
        return r.uniform(r.key(0), shape, **b)

    with pytest.raises(TypeError, match=re.escape(message)):
        (numjax.jit(draw) if jit else draw)(bounds)
    # Bounds that broadcast are used as they are.
    out = r.uniform(r.key(0), (2, 3), maxval=np.array([[1.0], [2.0]], np.float32))
    assert out.shape == (2, 3) and bool((out[1] < 2.0).all())

"""numjax.random beyond the golden values: the threefry primitive, transformations (vmap, jit,
grad), typed keys, JAX's errors, and distribution checks with fixed seeds."""

from __future__ import annotations

import doctest
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import stats

import numjax
import numjax.numpy as jnp
from numjax import random as r
from numjax._src.random import keys as keys_mod
from numjax._src.random import prng, samplers, xla_math

# ---- the primitive ----------------------------------------------------------------------------


@pytest.mark.parametrize("key, ctr, expected", [
    # Known-answer tests of Threefry-2x32-20 (Random123 distribution, kat_vectors).
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
])
def test_threefry_known_answers(key: tuple[int, int], ctr: tuple[int, int],
                                expected: tuple[int, int]) -> None:
    args = [np.uint32(v) for v in (*key, *ctr)]
    out = prng.threefry2x32(*args)
    assert [int(o) for o in out] == list(expected)


def test_threefry_broadcasts_and_rejects_non_uint32() -> None:
    k1, k2 = np.uint32(1), np.uint32(2)
    x1 = np.arange(6, dtype=np.uint32).reshape(2, 3)
    o1, o2 = prng.threefry2x32(k1, k2, x1, np.uint32(7))
    assert o1.shape == o2.shape == (2, 3) and o1.dtype == np.uint32
    e1, _ = prng.threefry2x32(k1, k2, np.uint32(4), np.uint32(7))
    assert int(o1[1, 1]) == int(e1)
    with pytest.raises(TypeError, match="Arguments to threefry2x32 must have uint32 type"):
        prng.threefry2x32(k1, k2, np.arange(3), np.uint32(0))


def test_threefry_vmap_jit_and_jaxpr() -> None:
    k1 = jnp.arange(4, dtype=jnp.uint32)
    x = jnp.arange(3, dtype=jnp.uint32)
    f = lambda k: prng.threefry2x32(k, np.uint32(9), x, x)
    batched = numjax.vmap(f)(k1)
    for i in range(4):
        np.testing.assert_array_equal(batched[0][i], f(k1[i])[0])
        np.testing.assert_array_equal(batched[1][i], f(k1[i])[1])
    jitted = numjax.jit(f)(k1[2])
    np.testing.assert_array_equal(jitted[0], f(k1[2])[0])
    assert "threefry2x32" in str(numjax.make_jaxpr(f)(k1[0]))


def test_threefry_not_differentiable_but_zero_tangent() -> None:
    # Bits are integers: the derivative of a function of bits is zero (float0/zero tangents).
    def f(s: Any) -> Any:
        return s * r.uniform(r.PRNGKey(0))
    assert float(numjax.grad(f)(2.0)) == float(r.uniform(r.PRNGKey(0)))


def test_xla_math_helpers() -> None:
    a, b, c = np.float32(0.1), np.float32(3.0), np.float32(-0.3)
    assert float(xla_math.fma(a, b, c)) == float(np.float32(np.float64(a) * b + c))
    assert float(xla_math.erf_inv(np.float32(0.0))) == 0.0
    assert float(xla_math.erf_inv(np.float32(1.0))) == np.inf
    x = np.linspace(-0.99, 0.99, 101, dtype=np.float32)
    from scipy import special
    np.testing.assert_allclose(np.asarray(xla_math.erf_inv(x)), special.erfinv(x), rtol=1e-5)
    g = numjax.grad(lambda v: xla_math.erf_inv(v))(np.float32(0.3))
    np.testing.assert_allclose(float(g), np.sqrt(np.pi) / 2 * np.exp(special.erfinv(0.3) ** 2),
                               rtol=1e-5)


@pytest.mark.parametrize("name, reference, x, ulps", [
    ("libm_log", np.log, np.geomspace(1e-30, 1e30, 601, dtype=np.float32), 1),
    ("libm_exp", np.exp, np.linspace(-87, 88, 601, dtype=np.float32), 1),
    # log(1 + x) for |x| >= sqrt(2) - 1: the rounding of 1 + x adds up to an ulp.
    ("libm_log1p", np.log1p, np.linspace(-0.99, 3, 601, dtype=np.float32), 2),
])
def test_libm_functions_are_near_correct_rounding(name: str, reference: Any, x: Any,
                                                  ulps: int) -> None:
    # The C library's logf/expf (glibc's are within 0.82 ulp) differ from the correctly rounded
    # values by at most one ulp; the bits JAX gets are the host's, checked by the f goldens.
    got = np.asarray(getattr(xla_math, name)(x))
    want = reference(x.astype(np.float64)).astype(np.float32)
    assert got.dtype == np.float32
    assert np.all(np.abs(got.view(np.int32) - want.view(np.int32)) <= ulps)


def test_libm_functions_flush_denormals_as_xla() -> None:
    # XLA:CPU runs with denormal arguments and results flushed to zero.
    assert float(xla_math.libm_log(np.float32(1e-40))) == -np.inf
    assert float(xla_math.libm_exp(np.float32(-100.0))) == 0.0
    assert np.isnan(float(xla_math.libm_log(np.float32(-1.0))))


# ---- keys -------------------------------------------------------------------------------------


def test_prng_key_seeds_as_jax() -> None:
    # Facts from JAX 0.4.30 in 32-bit mode: Python ints keep their low 32 bits.
    assert r.PRNGKey(-1).tolist() == [0, 4294967295]
    assert r.PRNGKey(2**32 + 5).tolist() == [0, 5]
    assert r.PRNGKey(2**40 + 7).tolist() == [0, 7]
    assert r.PRNGKey(-(2**40)).tolist() == [0, 0]
    assert r.PRNGKey(3).dtype == np.uint32
    with numjax.experimental.enable_x64():
        assert r.PRNGKey(2**40 + 7).tolist() == [256, 7]
        assert r.PRNGKey(-1).tolist() == [4294967295, 4294967295]


def test_seeding_under_jit_and_vmap() -> None:
    np.testing.assert_array_equal(numjax.jit(r.PRNGKey)(3), r.PRNGKey(3))
    np.testing.assert_array_equal(numjax.vmap(r.PRNGKey)(jnp.arange(3)),
                                  np.stack([np.asarray(r.PRNGKey(i)) for i in range(3)]))
    np.testing.assert_array_equal(r.key_data(numjax.jit(r.key)(3)), r.PRNGKey(3))
    assert numjax.vmap(r.split)(r.split(r.PRNGKey(0), 2)).shape == (2, 2, 2)


def test_typed_keys() -> None:
    k = r.key(42)
    assert k.shape == () and str(k.dtype) == "key<fry>"
    np.testing.assert_array_equal(r.key_data(k), r.PRNGKey(42))
    ks = r.split(k, 3)
    assert isinstance(ks, numjax.Array) and ks.shape == (3,) and len(ks) == 3
    np.testing.assert_array_equal(r.key_data(ks), r.split(r.PRNGKey(42), 3))
    assert float(r.uniform(ks[1])) == float(r.uniform(r.split(r.PRNGKey(42), 3)[1]))
    w = r.wrap_key_data(r.PRNGKey(5))
    np.testing.assert_array_equal(r.key_data(r.fold_in(w, 3)), r.fold_in(r.PRNGKey(5), 3))
    assert str(r.key_impl(k)) == "fry"
    assert r.split(k, (2, 2)).shape == (2, 2)
    assert [kk.shape for kk in ks] == [(), (), ()]
    # Typed keys pass through jit and vmap as pytrees.
    np.testing.assert_array_equal(numjax.jit(lambda kk: r.bits(kk, (3,)))(k),
                                  r.bits(k, (3,)))
    np.testing.assert_array_equal(numjax.vmap(lambda kk: r.bits(kk))(ks),
                                  np.array([int(r.bits(kk)) for kk in ks], np.uint32))
    assert "key<fry>" in repr(k)


def test_split_shapes_and_distinct() -> None:
    key = r.PRNGKey(0)
    assert r.split(key).shape == (2, 2)
    assert r.split(key, 7).shape == (7, 2)
    assert r.split(key, (2, 3)).shape == (2, 3, 2)
    assert r.split(key, 0).shape == (0, 2)
    ks = np.asarray(r.split(key, 100))
    assert len({tuple(k) for k in ks.tolist()}) == 100


def test_layouts_differ() -> None:
    key = r.PRNGKey(0)
    a = np.asarray(r.bits(key, (4,)))
    numjax.config.update("jax_threefry_partitionable", True)
    try:
        b = np.asarray(r.bits(key, (4,)))
    finally:
        numjax.config.update("jax_threefry_partitionable", False)
    assert not np.array_equal(a, b)


# ---- errors (JAX 0.4.30's types and texts) ----------------------------------------------------


def test_key_errors() -> None:
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32; got dtype=float32"):
        r.uniform(jnp.array([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"expected key_data.shape to end with \(2,\); "
                                        r"got shape=\(3,\)"):
        r.uniform(jnp.array([1, 2, 3], jnp.uint32))
    with pytest.raises(TypeError, match="expected key_data.dtype = uint32; got dtype=int32"):
        r.normal(jnp.array([1, 2], jnp.int32))
    with pytest.raises(ValueError, match=r"uniform accepts a single key, but was given a key "
                                         r"array of shape \(3, 2\) != \(\)\. Use jax.vmap"):
        r.uniform(jnp.zeros((3, 2), jnp.uint32))
    with pytest.raises(ValueError, match=r"split accepts a single key"):
        r.split(jnp.zeros((3, 2), jnp.uint32))
    with pytest.raises(TypeError, match="PRNG key seed must be an integer"):
        r.PRNGKey(1.5)
    with pytest.raises(TypeError, match=r"PRNGKey accepts a scalar seed, but was given an array "
                                        r"of shape \(2,\) != \(\)"):
        r.PRNGKey(jnp.array([1, 2]))
    with pytest.raises(TypeError, match=r"fold_in accepts a scalar, but was given an array "
                                        r"ofshape \(2,\)"):
        r.fold_in(r.PRNGKey(0), jnp.array([1, 2]))
    with pytest.raises(ValueError, match="dtype argument to `normal` must be a float or complex "
                                         "dtype"):
        r.normal(r.PRNGKey(0), (3,), dtype=jnp.int32)
    with pytest.raises(ValueError, match="dtype argument to `bits` must be an unsigned int"):
        r.bits(r.PRNGKey(0), (3,), jnp.int32)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        r.randint(r.PRNGKey(0), (3,), jnp.zeros(4, int), 10)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                                         r"shapes=\[\(3,\), \(4,\)\]"):
        r.bernoulli(r.PRNGKey(0), jnp.full((4,), 0.5), (3,))
    with pytest.raises(ValueError, match=r"bernoulli parameter shapes must be broadcast-compatible"
                                         r" with shape argument, and the result of broadcasting "
                                         r"the shapes must equal the shape argument, but got "
                                         r"result \(2, 3\) for shape argument \(3,\)\."):
        r.bernoulli(r.PRNGKey(0), jnp.full((2, 3), 0.5), (3,))
    with pytest.raises(ValueError, match="Cannot take a larger sample than population"):
        r.choice(r.PRNGKey(0), 3, (5,), replace=False)
    with pytest.raises(TypeError, match="x must be an integer or at least 1-dimensional"):
        r.permutation(r.PRNGKey(0), 2.5)


# ---- transformations --------------------------------------------------------------------------

SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "bits": lambda k: r.bits(k, (3,)),
    "uniform": lambda k: r.uniform(k, (3,), minval=-1.0, maxval=2.0),
    "normal": lambda k: r.normal(k, (3,)),
    "randint": lambda k: r.randint(k, (3,), -4, 9),
    "bernoulli": lambda k: r.bernoulli(k, 0.4, (5,)),
    "permutation": lambda k: r.permutation(k, 6),
    "choice": lambda k: r.choice(k, 8, (3,), replace=False),
    "choice_p": lambda k: r.choice(k, 3, (4,), p=jnp.array([0.2, 0.3, 0.5])),
    "categorical": lambda k: r.categorical(k, jnp.array([0.1, 1.0, -2.0]), shape=(4,)),
    "truncated_normal": lambda k: r.truncated_normal(k, -0.5, 1.5, (3,)),
    "exponential": lambda k: r.exponential(k, (3,)),
    "gumbel": lambda k: r.gumbel(k, (3,)),
    "laplace": lambda k: r.laplace(k, (3,)),
    "logistic": lambda k: r.logistic(k, (3,)),
    "cauchy": lambda k: r.cauchy(k, (3,)),
    "rademacher": lambda k: r.rademacher(k, (3,)),
    "split": lambda k: r.split(k, 3),
    "fold_in": lambda k: r.fold_in(k, 11),
    "maxwell": lambda k: r.maxwell(k, (2,)),
    "lognormal": lambda k: r.lognormal(k, 0.3, (2,)),
    "geometric": lambda k: r.geometric(k, 0.4, (3,)),
    "wald": lambda k: r.wald(k, 1.0, (2,)),
    "gamma": lambda k: r.gamma(k, jnp.array([0.3, 1.0, 4.0])),
    "loggamma": lambda k: r.loggamma(k, jnp.array([0.01, 2.0])),
    "beta": lambda k: r.beta(k, 2.0, 0.5, (2,)),
    "dirichlet": lambda k: r.dirichlet(k, jnp.array([0.5, 1.0, 2.0])),
    "t": lambda k: r.t(k, 3.0, (2,)),
    "poisson": lambda k: r.poisson(k, jnp.array([0.5, 4.0, 30.0])),
    "binomial": lambda k: r.binomial(k, jnp.array([4.0, 50.0]), 0.4),
    "ball": lambda k: r.ball(k, 2),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_vmap_over_keys_equals_loop(name: str) -> None:
    fn = SAMPLERS[name]
    ks = r.split(r.PRNGKey(3), 4)
    batched = np.asarray(numjax.vmap(fn)(ks))
    looped = np.stack([np.asarray(fn(ks[i])) for i in range(4)])
    assert batched.dtype == looped.dtype
    np.testing.assert_array_equal(batched, looped)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_equals_eager(name: str) -> None:
    fn = SAMPLERS[name]
    key = r.PRNGKey(17)
    eager, jitted = fn(key), numjax.jit(fn)(key)
    assert eager.dtype == jitted.dtype
    assert getattr(eager, "weak_type", False) == getattr(jitted, "weak_type", False)
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))


def test_vmap_over_parameters() -> None:
    key = r.PRNGKey(0)
    ps = jnp.array([0.1, 0.5, 0.9])
    batched = numjax.vmap(lambda p: r.bernoulli(key, p, (4,)))(ps)
    for i in range(3):
        np.testing.assert_array_equal(batched[i], r.bernoulli(key, ps[i], (4,)))
    lo = jnp.array([0.0, 10.0])
    batched = numjax.vmap(lambda m: r.uniform(key, (3,), minval=m, maxval=m + 1))(lo)
    for i in range(2):
        np.testing.assert_array_equal(batched[i], r.uniform(key, (3,), minval=lo[i],
                                                            maxval=lo[i] + 1))


def test_vmap_over_keys_partitionable() -> None:
    numjax.config.update("jax_threefry_partitionable", True)
    try:
        ks = r.split(r.PRNGKey(3), 3)
        batched = numjax.vmap(lambda k: r.normal(k, (2,)))(ks)
        for i in range(3):
            np.testing.assert_array_equal(batched[i], r.normal(ks[i], (2,)))
    finally:
        numjax.config.update("jax_threefry_partitionable", False)


def test_grad_through_reparameterized_samplers() -> None:
    key = r.PRNGKey(1)
    g = numjax.grad(lambda m: r.uniform(key, minval=m, maxval=m + 2.0))(1.0)
    assert float(g) == pytest.approx(1.0)
    z = r.normal(key, (3,))
    g = numjax.grad(lambda s: (s * r.normal(key, (3,))).sum())(1.0)
    assert float(g) == pytest.approx(float(z.sum()), rel=1e-6)
    g = numjax.grad(lambda sig: r.lognormal(key, sig).sum())(0.5)
    zz = float(r.normal(key))
    assert float(g) == pytest.approx(zz * np.exp(0.5 * zz), rel=1e-5)


def test_gamma_implicit_gradient() -> None:
    # JAX 0.4.30: jax.grad(lambda a: random.gamma(random.PRNGKey(0), a))(2.0) == 1.1274434
    g = numjax.grad(lambda a: r.gamma(r.PRNGKey(0), a))(2.0)
    assert float(g) == pytest.approx(1.1274434, rel=1e-5)
    # d sample / d a through the CDF: F(x(a), a) = u fixed, checked by finite differences of
    # the inverse CDF at the same quantile.
    a, key = 3.0, r.PRNGKey(4)
    x = float(r.gamma(key, a))
    u = stats.gamma(a).cdf(x)
    fd = (stats.gamma(a + 1e-4).ppf(u) - stats.gamma(a - 1e-4).ppf(u)) / 2e-4
    assert float(numjax.grad(lambda al: r.gamma(key, al))(a)) == pytest.approx(fd, rel=1e-3)
    lg = numjax.grad(lambda al: r.loggamma(key, al))(a)
    assert float(lg) == pytest.approx(fd / x, rel=1e-3)
    jitted = numjax.jit(numjax.grad(lambda al: r.gamma(key, al)))(a)
    assert float(jitted) == pytest.approx(fd, rel=1e-3)


def test_shuffle_warns_and_matches_independent_permutation() -> None:
    x = jnp.arange(10)
    with pytest.warns(FutureWarning, match="jax.random.shuffle is deprecated"):
        s = r.shuffle(r.PRNGKey(2), x)
    np.testing.assert_array_equal(s, r.permutation(r.PRNGKey(2), x, independent=True))


# ---- distributions (fixed seeds) --------------------------------------------------------------

N = 20_000


def _ks(sample: Any, cdf: Any) -> None:
    p = stats.kstest(np.asarray(sample, np.float64).ravel(), cdf).pvalue
    assert p > 1e-3, p


@pytest.mark.parametrize("name, draw, cdf", [
    ("uniform", lambda k: r.uniform(k, (N,), minval=-1.0, maxval=3.0),
     stats.uniform(-1, 4).cdf),
    ("normal", lambda k: r.normal(k, (N,)), stats.norm.cdf),
    ("truncated_normal", lambda k: r.truncated_normal(k, -1.0, 0.5, (N,)),
     stats.truncnorm(-1.0, 0.5).cdf),
    ("exponential", lambda k: r.exponential(k, (N,)), stats.expon.cdf),
    ("gumbel", lambda k: r.gumbel(k, (N,)), stats.gumbel_r.cdf),
    ("laplace", lambda k: r.laplace(k, (N,)), stats.laplace.cdf),
    ("logistic", lambda k: r.logistic(k, (N,)), stats.logistic.cdf),
    ("cauchy", lambda k: r.cauchy(k, (N,)), stats.cauchy.cdf),
    ("maxwell", lambda k: r.maxwell(k, (N,)), stats.maxwell.cdf),
    ("pareto", lambda k: r.pareto(k, 3.0, (N,)), stats.pareto(3.0).cdf),
    ("weibull_min", lambda k: r.weibull_min(k, 2.0, 1.5, (N,)),
     stats.weibull_min(1.5, scale=2.0).cdf),
    ("rayleigh", lambda k: r.rayleigh(k, 2.0, (N,)), stats.rayleigh(scale=2.0).cdf),
    ("lognormal", lambda k: r.lognormal(k, 0.5, (N,)), stats.lognorm(0.5).cdf),
    ("triangular", lambda k: r.triangular(k, 0.0, 1.0, 3.0, (N,)),
     stats.triang(1 / 3, loc=0, scale=3).cdf),
    ("wald", lambda k: r.wald(k, 1.5, (N,)), stats.invgauss(1.5).cdf),
    ("double_sided_maxwell", lambda k: r.double_sided_maxwell(k, 0.0, 1.0, (N,)),
     lambda x: 0.5 + np.sign(x) * 0.5 * stats.maxwell.cdf(np.abs(x))),
    ("gamma_small", lambda k: r.gamma(k, 0.4, (N // 4,)), stats.gamma(0.4).cdf),
    ("gamma", lambda k: r.gamma(k, 3.0, (N // 4,)), stats.gamma(3.0).cdf),
    ("loggamma", lambda k: jnp.exp(r.loggamma(k, 0.7, (N // 4,))), stats.gamma(0.7).cdf),
    ("beta", lambda k: r.beta(k, 2.0, 0.5, (N // 4,)), stats.beta(2.0, 0.5).cdf),
    ("chisquare", lambda k: r.chisquare(k, 3.0, (N // 4,)), stats.chi2(3.0).cdf),
    ("t", lambda k: r.t(k, 4.0, (N // 4,)), stats.t(4.0).cdf),
    ("f", lambda k: r.f(k, 3.0, 5.0, (N // 4,)), stats.f(3.0, 5.0).cdf),
    ("generalized_normal", lambda k: r.generalized_normal(k, 1.5, (N // 4,)),
     stats.gennorm(1.5).cdf),
])
@pytest.mark.parametrize("partitionable", [False, True])
def test_distribution_ks(name: str, draw: Any, cdf: Any, partitionable: bool) -> None:
    numjax.config.update("jax_threefry_partitionable", partitionable)
    try:
        _ks(draw(r.PRNGKey(123)), cdf)
    finally:
        numjax.config.update("jax_threefry_partitionable", False)


def test_discrete_distributions() -> None:
    key = r.PRNGKey(7)
    ints = np.asarray(r.randint(key, (N,), 0, 5))
    counts = np.bincount(ints, minlength=5)
    assert stats.chisquare(counts).pvalue > 1e-3
    b = np.asarray(r.bernoulli(key, 0.3, (N,)))
    assert abs(b.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / N)
    rad = np.asarray(r.rademacher(key, (N,)))
    assert set(np.unique(rad).tolist()) == {-1, 1} and abs(rad.mean()) < 4 / np.sqrt(N)
    g = np.asarray(r.geometric(key, 0.25, (N,)))
    assert abs(g.mean() - 4.0) < 4 * np.sqrt(0.75 / 0.25**2 / N)
    logits = jnp.log(jnp.array([0.1, 0.2, 0.7]))
    c = np.asarray(r.categorical(key, logits, shape=(N,)))
    assert stats.chisquare(np.bincount(c, minlength=3), N * np.array([0.1, 0.2, 0.7])).pvalue \
        > 1e-3
    p = jnp.array([0.5, 0.25, 0.25])
    ch = np.asarray(r.choice(key, 3, (N,), p=p))
    assert stats.chisquare(np.bincount(ch, minlength=3), N * np.asarray(p)).pvalue > 1e-3
    # Permutations of 3 elements are uniform over the 6 orderings.
    ks = r.split(key, 3000)
    perms = np.asarray(numjax.vmap(lambda k: r.permutation(k, 3))(ks))
    codes = perms[:, 0] * 9 + perms[:, 1] * 3 + perms[:, 2]
    _, counts = np.unique(codes, return_counts=True)
    assert len(counts) == 6 and stats.chisquare(counts).pvalue > 1e-3
    sample = np.asarray(r.choice(key, 20, (20,), replace=False))
    assert sorted(sample.tolist()) == list(range(20))


@pytest.mark.parametrize("lam", [0.7, 4.0, 25.0])
def test_poisson_moments(lam: float) -> None:
    x = np.asarray(r.poisson(r.PRNGKey(11), lam, (N // 4,)), np.float64)
    n = x.size
    assert abs(x.mean() - lam) < 4 * np.sqrt(lam / n)
    assert abs(x.var() / lam - 1) < 0.1
    assert r.poisson(r.PRNGKey(0), 0.0, (3,)).tolist() == [0, 0, 0]


@pytest.mark.parametrize("n, p", [(5.0, 0.3), (200.0, 0.6)])
def test_binomial_moments(n: float, p: float) -> None:
    x = np.asarray(r.binomial(r.PRNGKey(12), n, p, (N // 4,)), np.float64)
    assert x.min() >= 0 and x.max() <= n and np.all(x == np.floor(x))
    mean, var = n * p, n * p * (1 - p)
    assert abs(x.mean() - mean) < 4 * np.sqrt(var / x.size)
    assert abs(x.var() / var - 1) < 0.1


def test_dirichlet_and_ball() -> None:
    alpha = np.array([0.5, 1.0, 2.5])
    d = np.asarray(r.dirichlet(r.PRNGKey(2), jnp.asarray(alpha), (N // 4,)), np.float64)
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0), alpha / alpha.sum(), atol=0.01)
    b = np.asarray(r.ball(r.PRNGKey(3), 2, 2, (N // 4,)), np.float64)
    radius = np.linalg.norm(b, axis=-1)
    assert radius.max() <= 1.0
    _ks(radius, lambda x: np.clip(x, 0, 1) ** 2)  # uniform in the disc: P(R <= x) = x^2


def test_bits_widths_uniform() -> None:
    key = r.PRNGKey(5)
    for dt, top in [(jnp.uint8, 2**8), (jnp.uint16, 2**16), (jnp.uint32, 2**32)]:
        b = np.asarray(r.bits(key, (N,), dt)).astype(np.float64) / top
        _ks(b, stats.uniform.cdf)


def test_multivariate_normal_and_orthogonal() -> None:
    key = r.PRNGKey(9)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    for method in ("cholesky", "eigh", "svd"):
        x = np.asarray(r.multivariate_normal(key, jnp.array([1.0, -1.0]), jnp.asarray(cov),
                                             (N,), method=method), np.float64)
        np.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.05)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)
    q = np.asarray(r.orthogonal(key, 4, (2,)), np.float64)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape),
                               atol=1e-5)


def test_complex_normal() -> None:
    z = np.asarray(r.normal(r.PRNGKey(0), (N,), jnp.complex64))
    assert z.dtype == np.complex64
    assert abs(np.mean(np.abs(z) ** 2) - 1.0) < 0.05


# ---- docstrings -------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [prng, keys_mod, samplers, xla_math, r],
                         ids=lambda m: m.__name__)
def test_docstring_examples(module: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


# randint's bounds broadcast against `shape` whatever their ranks (numpyro's DiscreteUniform
# with low [-4, 3, 4, 5] and high [6] samples shape (1, 4)). JAX 0.4.30's values, key 0.
@pytest.mark.parametrize("shape, minval, maxval, expected", [
    ((1, 4), [-4, 3, 4, 5], [7], [[4, 4, 4, 5]]),
    ((4,), [-4, 3, 4, 5], [7], [4, 4, 4, 5]),
    ((2, 3), 0, [5, 6, 300], [[3, 1, 195], [3, 0, 110]]),
])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_randint_bounds_broadcast_to_shape(shape: tuple[int, ...], minval: Any, maxval: Any,
                                           expected: Any, jit: bool) -> None:
    f = numjax.jit(r.randint, static_argnums=1) if jit else r.randint
    out = f(r.PRNGKey(0), shape, np.asarray(minval), np.asarray(maxval))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.asarray(expected))

"""numjax.random: JAX 0.4.30's threefry PRNG and samplers, bit-identical to JAX.

>>> from numjax import random
>>> key = random.PRNGKey(0)
>>> k1, k2 = random.split(key)
>>> random.uniform(k1, (2,)).shape
(2,)
"""

from numjax._src.random.keys import PRNGKey as PRNGKey
from numjax._src.random.keys import clone as clone
from numjax._src.random.keys import fold_in as fold_in
from numjax._src.random.keys import key as key
from numjax._src.random.keys import key_data as key_data
from numjax._src.random.keys import key_impl as key_impl
from numjax._src.random.keys import split as split
from numjax._src.random.keys import wrap_key_data as wrap_key_data
from numjax._src.random.samplers import ball as ball
from numjax._src.random.samplers import bernoulli as bernoulli
from numjax._src.random.samplers import beta as beta
from numjax._src.random.samplers import binomial as binomial
from numjax._src.random.samplers import bits as bits
from numjax._src.random.samplers import categorical as categorical
from numjax._src.random.samplers import cauchy as cauchy
from numjax._src.random.samplers import chisquare as chisquare
from numjax._src.random.samplers import choice as choice
from numjax._src.random.samplers import dirichlet as dirichlet
from numjax._src.random.samplers import double_sided_maxwell as double_sided_maxwell
from numjax._src.random.samplers import exponential as exponential
from numjax._src.random.samplers import f as f
from numjax._src.random.samplers import gamma as gamma
from numjax._src.random.samplers import generalized_normal as generalized_normal
from numjax._src.random.samplers import geometric as geometric
from numjax._src.random.samplers import gumbel as gumbel
from numjax._src.random.samplers import laplace as laplace
from numjax._src.random.samplers import loggamma as loggamma
from numjax._src.random.samplers import logistic as logistic
from numjax._src.random.samplers import lognormal as lognormal
from numjax._src.random.samplers import maxwell as maxwell
from numjax._src.random.samplers import multivariate_normal as multivariate_normal
from numjax._src.random.samplers import normal as normal
from numjax._src.random.samplers import orthogonal as orthogonal
from numjax._src.random.samplers import pareto as pareto
from numjax._src.random.samplers import permutation as permutation
from numjax._src.random.samplers import poisson as poisson
from numjax._src.random.samplers import rademacher as rademacher
from numjax._src.random.samplers import randint as randint
from numjax._src.random.samplers import rayleigh as rayleigh
from numjax._src.random.samplers import shuffle as shuffle
from numjax._src.random.samplers import t as t
from numjax._src.random.samplers import triangular as triangular
from numjax._src.random.samplers import truncated_normal as truncated_normal
from numjax._src.random.samplers import uniform as uniform
from numjax._src.random.samplers import wald as wald
from numjax._src.random.samplers import weibull_min as weibull_min

# Not in jax.random: an alias some callers use for `bits`.
random_bits = bits

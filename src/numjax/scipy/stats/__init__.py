"""numjax.scipy.stats: probability distributions and sample statistics (JAX's
`jax.scipy.stats`).

Each distribution is a module of functions (`norm.pdf`, `gamma.cdf`, `poisson.logpmf`, ...)
with exactly the functions JAX 0.4.30 provides for it; `gaussian_kde`, `mode`, `rankdata` and
`sem` are top level.

>>> from numjax.scipy import stats
>>> float(stats.norm.cdf(0.0)), float(stats.expon.pdf(0.0))
(0.5, 1.0)
"""

from numjax._src.scipy.stats.descriptive import mode as mode
from numjax._src.scipy.stats.descriptive import rankdata as rankdata
from numjax._src.scipy.stats.descriptive import sem as sem
from numjax._src.scipy.stats.kde import gaussian_kde as gaussian_kde
from numjax.scipy.stats import bernoulli as bernoulli
from numjax.scipy.stats import beta as beta
from numjax.scipy.stats import betabinom as betabinom
from numjax.scipy.stats import binom as binom
from numjax.scipy.stats import cauchy as cauchy
from numjax.scipy.stats import chi2 as chi2
from numjax.scipy.stats import dirichlet as dirichlet
from numjax.scipy.stats import expon as expon
from numjax.scipy.stats import gamma as gamma
from numjax.scipy.stats import gennorm as gennorm
from numjax.scipy.stats import geom as geom
from numjax.scipy.stats import laplace as laplace
from numjax.scipy.stats import logistic as logistic
from numjax.scipy.stats import multinomial as multinomial
from numjax.scipy.stats import multivariate_normal as multivariate_normal
from numjax.scipy.stats import nbinom as nbinom
from numjax.scipy.stats import norm as norm
from numjax.scipy.stats import pareto as pareto
from numjax.scipy.stats import poisson as poisson
from numjax.scipy.stats import t as t
from numjax.scipy.stats import truncnorm as truncnorm
from numjax.scipy.stats import uniform as uniform
from numjax.scipy.stats import vonmises as vonmises
from numjax.scipy.stats import wrapcauchy as wrapcauchy

"""numjax.scipy.special: SciPy's special functions on numjax arrays (JAX's
`jax.scipy.special`).

>>> from numjax.scipy.special import expit, logsumexp
>>> float(expit(0.0))
0.5
"""

from numjax._src.nn.functions import logsumexp as logsumexp
from numjax._src.scipy.ndtr import log_ndtr as log_ndtr
from numjax._src.scipy.ndtr import ndtr as ndtr
from numjax._src.scipy.ndtr import ndtri as ndtri
from numjax._src.scipy.special import beta as beta
from numjax._src.scipy.special import betainc as betainc
from numjax._src.scipy.special import betaln as betaln
from numjax._src.scipy.special import digamma as digamma
from numjax._src.scipy.special import entr as entr
from numjax._src.scipy.special import erf as erf
from numjax._src.scipy.special import erfc as erfc
from numjax._src.scipy.special import erfinv as erfinv
from numjax._src.scipy.special import exp1 as exp1
from numjax._src.scipy.special import expi as expi
from numjax._src.scipy.special import expit as expit
from numjax._src.scipy.special import factorial as factorial
from numjax._src.scipy.special import gamma as gamma
from numjax._src.scipy.special import gammainc as gammainc
from numjax._src.scipy.special import gammaincc as gammaincc
from numjax._src.scipy.special import gammaln as gammaln
from numjax._src.scipy.special import gammasgn as gammasgn
from numjax._src.scipy.special import i0 as i0
from numjax._src.scipy.special import i0e as i0e
from numjax._src.scipy.special import i1 as i1
from numjax._src.scipy.special import i1e as i1e
from numjax._src.scipy.special import kl_div as kl_div
from numjax._src.scipy.special import logit as logit
from numjax._src.scipy.special import multigammaln as multigammaln
from numjax._src.scipy.special import polygamma as polygamma
from numjax._src.scipy.special import rel_entr as rel_entr
from numjax._src.scipy.special import xlog1py as xlog1py
from numjax._src.scipy.special import xlogy as xlogy
from numjax._src.scipy.special import zeta as zeta

"""numjax.scipy: the parts of SciPy's API JAX provides as `jax.scipy`."""

from numjax.scipy import special as special
from numjax.scipy import stats as stats

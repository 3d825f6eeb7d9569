"""numjax.scipy.fft: the type-2 discrete cosine transform and its inverse (JAX's
`jax.scipy.fft`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy import fft
>>> fft.dct(jnp.array([1.0, 1.0]))
Array([4., 0.], dtype=float32)
"""

from numjax._src.scipy.fft import dct as dct
from numjax._src.scipy.fft import dctn as dctn
from numjax._src.scipy.fft import idct as idct
from numjax._src.scipy.fft import idctn as idctn

"""numjax.scipy.signal: convolution, correlation, detrending and spectral estimation (JAX's
`jax.scipy.signal`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy import signal
>>> signal.convolve(jnp.array([1.0, 2.0]), jnp.array([1.0, 1.0]))
Array([1., 3., 2.], dtype=float32)
"""

from numjax._src.scipy.signal import convolve as convolve
from numjax._src.scipy.signal import convolve2d as convolve2d
from numjax._src.scipy.signal import correlate as correlate
from numjax._src.scipy.signal import correlate2d as correlate2d
from numjax._src.scipy.signal import csd as csd
from numjax._src.scipy.signal import detrend as detrend
from numjax._src.scipy.signal import fftconvolve as fftconvolve
from numjax._src.scipy.signal import istft as istft
from numjax._src.scipy.signal import stft as stft
from numjax._src.scipy.signal import welch as welch

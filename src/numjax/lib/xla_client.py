"""`jax.lib.xla_client`: the name of jaxlib's XLA client that programs pass to the public API,
`FftType`, the kind of transform `lax.fft` computes.

>>> import numjax.numpy as jnp
>>> from numjax import lax
>>> from numjax.lib import xla_client
>>> lax.fft(jnp.array([1.0, 1.0]), xla_client.FftType.FFT, (2,))
Array([2.+0.j, 0.+0.j], dtype=complex64)
"""

from numjax._src.lax.fft import FftType as FftType

__all__ = ["FftType"]

"""numjax.image: image resizing (JAX's `jax.image`).

>>> import numjax.numpy as jnp
>>> import numjax.image
>>> numjax.image.resize(jnp.ones((2, 2)), (3, 3), "nearest").shape
(3, 3)
"""

from numjax._src.image.scale import ResizeMethod as ResizeMethod
from numjax._src.image.scale import resize as resize
from numjax._src.image.scale import scale_and_translate as scale_and_translate

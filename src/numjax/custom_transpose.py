"""numjax.custom_transpose: linear functions with their own transpose, as in JAX."""

from numjax._src.api.custom_transpose import custom_transpose as custom_transpose

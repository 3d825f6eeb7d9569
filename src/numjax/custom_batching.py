"""numjax.custom_batching: functions with their own vmap rule, as in JAX."""

from numjax._src.api.custom_batching import custom_vmap as custom_vmap
from numjax._src.api.custom_batching import sequential_vmap as sequential_vmap

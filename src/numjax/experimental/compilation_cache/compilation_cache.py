"""numjax.experimental.compilation_cache.compilation_cache: JAX's functions of the persistent
compilation cache (`jax_compilation_cache_dir`): `set_cache_dir`, `reset_cache`, and the
deprecated `initialize_cache` and `is_initialized`."""

from numjax._src.compiler.persistent_cache import initialize_cache as initialize_cache
from numjax._src.compiler.persistent_cache import is_initialized as is_initialized
from numjax._src.compiler.persistent_cache import reset_cache as reset_cache
from numjax._src.compiler.persistent_cache import set_cache_dir as set_cache_dir

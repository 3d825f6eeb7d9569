"""`jax.interpreters`: the transformation registries libraries use to define primitives.

As with `import jax`, the submodules are loaded with the package, so `jax.interpreters.ad` is
an attribute without its own import.
"""

from numjax.interpreters import ad as ad
from numjax.interpreters import batching as batching
from numjax.interpreters import mlir as mlir
from numjax.interpreters import partial_eval as partial_eval
from numjax.interpreters import pxla as pxla
from numjax.interpreters import xla as xla

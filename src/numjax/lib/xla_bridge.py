"""`jax.lib.xla_bridge`: the names JAX 0.4.30 keeps public there (a shim, as in JAX, over
`numjax._src.xla_bridge`).

>>> import numjax.lib.xla_bridge as xb
>>> xb.get_backend().platform
'cpu'
"""

from numjax._src.xla_bridge import _backends as _backends
from numjax._src.xla_bridge import default_backend as default_backend
from numjax._src.xla_bridge import get_backend as get_backend

"""JAX's `jax._src.xla_bridge` names, which ecosystem code reads (`_backends`, `backends()`,
`get_backend()`): re-exports of `numjax._src.runtime.devices`, sharing its registry dict.

>>> from numjax._src import xla_bridge
>>> xla_bridge.get_backend().platform, list(xla_bridge.backends())
('cpu', ['cpu'])
"""

from numjax._src.runtime.devices import Backend as Backend
from numjax._src.runtime.devices import _backends as _backends
from numjax._src.runtime.devices import backends as backends
from numjax._src.runtime.devices import canonicalize_platform as canonicalize_platform
from numjax._src.runtime.devices import default_backend as default_backend
from numjax._src.runtime.devices import device_count as device_count
from numjax._src.runtime.devices import devices as devices
from numjax._src.runtime.devices import get_backend as get_backend
from numjax._src.runtime.devices import local_device_count as local_device_count
from numjax._src.runtime.devices import local_devices as local_devices
from numjax._src.runtime.devices import process_count as process_count
from numjax._src.runtime.devices import process_index as process_index

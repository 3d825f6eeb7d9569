"""numjax.experimental.multihost_utils: helpers for programs running on several processes
(JAX's names), over `numjax.distributed`'s MPI communicator. On one process each is the
identity (or a no-op), as in JAX."""

from numjax._src.runtime.multihost import assert_equal as assert_equal
from numjax._src.runtime.multihost import broadcast_one_to_all as broadcast_one_to_all
from numjax._src.runtime.multihost import (
    global_array_to_host_local_array as global_array_to_host_local_array,
)
from numjax._src.runtime.multihost import (
    host_local_array_to_global_array as host_local_array_to_global_array,
)
from numjax._src.runtime.multihost import process_allgather as process_allgather
from numjax._src.runtime.multihost import (
    reached_preemption_sync_point as reached_preemption_sync_point,
)
from numjax._src.runtime.multihost import sync_global_devices as sync_global_devices

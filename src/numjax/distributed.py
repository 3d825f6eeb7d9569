"""numjax.distributed: several processes running one program, on MPI (JAX's
`jax.distributed`). See `numjax._src.runtime.distributed`.

    mpiexec -n 2 python prog.py      # prog.py calls numjax.distributed.initialize() first
"""

from numjax._src.runtime.distributed import initialize as initialize
from numjax._src.runtime.distributed import is_initialized as is_initialized
from numjax._src.runtime.distributed import shutdown as shutdown

"""numjax.scipy.sparse.linalg: Krylov solvers with matrix-free operators (JAX's
`jax.scipy.sparse.linalg`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy.sparse.linalg import cg
>>> x, info = cg(lambda v: 2.0 * v, jnp.array([2.0, 4.0]))
>>> x
Array([1., 2.], dtype=float32)
"""

from numjax._src.scipy.sparse.linalg import bicgstab as bicgstab
from numjax._src.scipy.sparse.linalg import cg as cg
from numjax._src.scipy.sparse.linalg import gmres as gmres

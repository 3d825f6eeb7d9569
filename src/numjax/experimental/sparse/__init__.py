"""`jax.experimental.sparse`: the BCOO sparse array (no batch or dense dimensions).

>>> import numjax.numpy as jnp
>>> from numjax.experimental import sparse
>>> sparse.BCOO.fromdense(jnp.eye(2)).todense()
Array([[1., 0.],
       [0., 1.]], dtype=float32)
"""

from numjax._src.sparse.bcoo import BCOO as BCOO
from numjax._src.sparse.bcoo import bcoo_dot_general as bcoo_dot_general
from numjax._src.sparse.bcoo import bcoo_fromdense as bcoo_fromdense
from numjax._src.sparse.bcoo import bcoo_todense as bcoo_todense
from numjax._src.sparse.bcoo import todense as todense

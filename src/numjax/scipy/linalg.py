"""numjax.scipy.linalg: dense linear algebra with SciPy's API (JAX's `jax.scipy.linalg`).

>>> import numjax.numpy as jnp
>>> from numjax.scipy import linalg
>>> linalg.solve_triangular(jnp.array([[2.0, 0.0], [1.0, 1.0]]), jnp.array([2.0, 3.0]),
...                         lower=True)
Array([1., 2.], dtype=float32)
"""

from numjax._src.scipy.linalg import block_diag as block_diag
from numjax._src.scipy.linalg import cho_factor as cho_factor
from numjax._src.scipy.linalg import cho_solve as cho_solve
from numjax._src.scipy.linalg import cholesky as cholesky
from numjax._src.scipy.linalg import det as det
from numjax._src.scipy.linalg import eigh as eigh
from numjax._src.scipy.linalg import eigh_tridiagonal as eigh_tridiagonal
from numjax._src.scipy.linalg import hessenberg as hessenberg
from numjax._src.scipy.linalg import hilbert as hilbert
from numjax._src.scipy.linalg import inv as inv
from numjax._src.scipy.linalg import lu as lu
from numjax._src.scipy.linalg import lu_factor as lu_factor
from numjax._src.scipy.linalg import lu_solve as lu_solve
from numjax._src.scipy.linalg import polar as polar
from numjax._src.scipy.linalg import qr as qr
from numjax._src.scipy.linalg import schur as schur
from numjax._src.scipy.linalg import solve as solve
from numjax._src.scipy.linalg import solve_triangular as solve_triangular
from numjax._src.scipy.linalg import svd as svd
from numjax._src.scipy.linalg import toeplitz as toeplitz
from numjax._src.scipy.matfuncs import expm as expm
from numjax._src.scipy.matfuncs import expm_frechet as expm_frechet
from numjax._src.scipy.matfuncs import funm as funm
from numjax._src.scipy.matfuncs import rsf2csf as rsf2csf
from numjax._src.scipy.matfuncs import sqrtm as sqrtm

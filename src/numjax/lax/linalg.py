"""numjax.lax.linalg: matrix decompositions (JAX's `jax.lax.linalg`)."""

from numjax._src.lax.hessenberg import hessenberg as hessenberg
from numjax._src.lax.hessenberg import hessenberg_p as hessenberg_p
from numjax._src.lax.linalg import cholesky as cholesky
from numjax._src.lax.linalg import cholesky_p as cholesky_p
from numjax._src.lax.linalg import eig as eig
from numjax._src.lax.linalg import eig_p as eig_p
from numjax._src.lax.linalg import eigh as eigh
from numjax._src.lax.linalg import eigh_p as eigh_p
from numjax._src.lax.linalg import householder_product as householder_product
from numjax._src.lax.linalg import householder_product_p as householder_product_p
from numjax._src.lax.linalg import lu as lu
from numjax._src.lax.linalg import lu_p as lu_p
from numjax._src.lax.linalg import lu_pivots_to_permutation as lu_pivots_to_permutation
from numjax._src.lax.linalg import lu_pivots_to_permutation_p as lu_pivots_to_permutation_p
from numjax._src.lax.linalg import qr as qr
from numjax._src.lax.linalg import qr_p as qr_p
from numjax._src.lax.linalg import schur as schur
from numjax._src.lax.linalg import schur_p as schur_p
from numjax._src.lax.linalg import svd as svd
from numjax._src.lax.linalg import svd_p as svd_p
from numjax._src.lax.linalg import triangular_solve as triangular_solve
from numjax._src.lax.linalg import triangular_solve_p as triangular_solve_p
from numjax._src.lax.linalg import tridiagonal_solve as tridiagonal_solve
from numjax._src.lax.linalg import tridiagonal_solve_p as tridiagonal_solve_p
from numjax._src.scipy.qdwh import qdwh as qdwh

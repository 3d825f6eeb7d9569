"""numjax.scipy.sparse: JAX's `jax.scipy.sparse`, whose only member is the `linalg` module of
iterative solvers.

>>> from numjax.scipy import sparse
>>> sorted(n for n in dir(sparse.linalg) if not n.startswith("_"))
['bicgstab', 'cg', 'gmres']
"""

from numjax.scipy.sparse import linalg as linalg

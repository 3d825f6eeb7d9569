"""BCOO, JAX's batched-coordinate sparse array, for unbatched arrays with no dense dimensions.

A BCOO of shape `(d0, ..., dk)` holds `nse` stored elements: `data` of shape `(nse,)` and
`indices` of shape `(nse, k + 1)`, row `i` giving the coordinates of `data[i]`. Entries past the
array's true number of nonzeros are padding: their index is the shape itself (out of bounds) and
their data zero, so every operation drops them (scatters with `mode="drop"`, gathers filling
zeros) instead of reading or writing a real element.

Every operation is written with jnp's gathers and scatter-adds, so jit, vmap and differentiation
with respect to `data` (and to the dense operand) come from those primitives' own rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from numjax._src.dtypes import result_type
from numjax._src.numpy.advanced_indexing import nonzero
from numjax._src.numpy.creation import asarray, zeros
from numjax._src.numpy.shape import moveaxis, stack, transpose
from numjax._src.tree_util import register_pytree_node_class

_Dims = tuple[Sequence[int], Sequence[int]]
DotDimensionNumbers = tuple[_Dims, _Dims]  # ((lhs contract, rhs contract), (lhs batch, rhs batch))


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"BCOO: {what} is not supported; numjax's BCOO has no batch or dense dimensions "
        "(n_batch=0, n_dense=0)."
    )


@register_pytree_node_class
class BCOO:
    """A sparse array in coordinate form: `BCOO((data, indices), shape=shape)`.

    >>> import numjax.numpy as jnp
    >>> from numjax.experimental import sparse
    >>> M = sparse.BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> M
    BCOO(float32[2, 2], nse=2)
    >>> M @ jnp.array([1., 1.])
    Array([1., 2.], dtype=float32)
    """

    __array_priority__ = 2000  # `ndarray @ BCOO` defers to BCOO.__rmatmul__

    def __init__(
        self,
        args: tuple[Any, Any],
        *,
        shape: Sequence[int],
        indices_sorted: bool = False,
        unique_indices: bool = False,
    ) -> None:
        data, indices = args
        self.data = asarray(data)
        self.indices = asarray(indices)
        self.shape = tuple(int(d) for d in shape)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        if self.data.ndim != 1 or self.indices.ndim != 2:
            raise _unsupported(f"data of shape {self.data.shape} with indices of shape "
                               f"{self.indices.shape}")
        if self.indices.shape != (self.data.shape[0], len(self.shape)):
            raise ValueError(
                f"BCOO: indices of shape {self.indices.shape} do not match data of shape "
                f"{self.data.shape} for an array of shape {self.shape}; expected "
                f"{(self.data.shape[0], len(self.shape))}."
            )

    # -- the pytree: data and indices are leaves, the shape and flags static ------------------

    def tree_flatten(self) -> tuple[tuple[Any, Any], dict[str, Any]]:
        aux = {"shape": self.shape, "indices_sorted": self.indices_sorted,
               "unique_indices": self.unique_indices}
        return (self.data, self.indices), aux

    @classmethod
    def tree_unflatten(cls, aux: dict[str, Any], children: Sequence[Any]) -> BCOO:
        # Transformations rebuild the node with tracers or sentinels as leaves: skip the checks.
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        obj.shape = aux["shape"]
        obj.indices_sorted = aux["indices_sorted"]
        obj.unique_indices = aux["unique_indices"]
        return obj

    # -- properties ----------------------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nse(self) -> int:
        return int(self.indices.shape[0])

    @property
    def n_batch(self) -> int:
        return 0

    @property
    def n_dense(self) -> int:
        return 0

    @property
    def n_sparse(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        return f"BCOO({np.dtype(self.dtype).name}[{dims}], nse={self.nse})"

    def __len__(self) -> int:
        return self.shape[0]

    # -- conversions ---------------------------------------------------------------------------

    @classmethod
    def fromdense(
        cls, mat: Any, *, nse: int | None = None, index_dtype: Any = np.int32,
        n_dense: int = 0, n_batch: int = 0,
    ) -> BCOO:
        """The nonzero elements of `mat` in row-major order; `nse` (needed under jit) pads with
        out-of-bounds indices and zero data or keeps the first `nse` nonzeros."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense,
                              n_batch=n_batch)

    @classmethod
    def from_scipy_sparse(
        cls, mat: Any, *, index_dtype: Any = None, n_dense: int = 0, n_batch: int = 0
    ) -> BCOO:
        """A BCOO of a SciPy sparse matrix's stored elements (explicit zeros included)."""
        if n_dense or n_batch:
            raise _unsupported(f"n_batch={n_batch}, n_dense={n_dense}")
        coo = mat.tocoo()
        index_dtype = np.int32 if index_dtype is None else index_dtype
        indices = np.stack([coo.row, coo.col], axis=1).astype(index_dtype)
        return cls((asarray(coo.data), asarray(indices)), shape=coo.shape)

    def todense(self) -> Any:
        """The dense array: stored elements added at their coordinates (duplicates sum)."""
        return bcoo_todense(self)

    # -- shape operations ----------------------------------------------------------------------

    def transpose(self, axes: Sequence[int] | None = None) -> BCOO:
        """The transpose: the coordinates' columns permuted."""
        if axes is None:
            axes = tuple(range(self.ndim))[::-1]
        axes = tuple(int(a) % self.ndim for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"BCOO.transpose: axes {axes} are not a permutation of "
                             f"{tuple(range(self.ndim))}.")
        return BCOO((self.data, self.indices[:, list(axes)]),
                     shape=tuple(self.shape[a] for a in axes),
                     indices_sorted=self.indices_sorted and axes == tuple(range(self.ndim)),
                     unique_indices=self.unique_indices)

    @property
    def T(self) -> BCOO:
        return self.transpose()

    # -- arithmetic ----------------------------------------------------------------------------

    def __matmul__(self, other: Any) -> Any:
        return _matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _matmul(other, self)

    def __neg__(self) -> BCOO:
        return self._with_data(-self.data)

    def __mul__(self, other: Any) -> Any:
        if np.ndim(other) != 0:
            return self.todense() * other
        return self._with_data(self.data * other)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Any:
        if np.ndim(other) != 0:
            return self.todense() / other
        return self._with_data(self.data / other)

    def _with_data(self, data: Any) -> BCOO:
        return BCOO((data, self.indices), shape=self.shape, indices_sorted=self.indices_sorted,
                    unique_indices=self.unique_indices)


def bcoo_fromdense(
    mat: Any, *, nse: int | None = None, index_dtype: Any = np.int32, n_dense: int = 0,
    n_batch: int = 0,
) -> BCOO:
    """`BCOO.fromdense` as a function."""
    if n_dense or n_batch:
        raise _unsupported(f"n_batch={n_batch}, n_dense={n_dense}")
    mat = asarray(mat)
    mask = mat != 0
    if nse is None:
        # The number of stored elements sets the result's shape: it needs a concrete value.
        nse = int(mask.sum())
    # Padding coordinates are the shape itself: out of bounds in every dimension.
    coords = nonzero(mask, size=nse, fill_value=mat.shape)
    indices = stack(coords, axis=1).astype(index_dtype) if coords else zeros(
        (nse, 0), index_dtype)
    data = mat.at[coords].get(mode="fill", fill_value=0) if coords else mat.reshape(1)[:nse]
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_todense(mat: BCOO) -> Any:
    """The dense array of `mat`."""
    out = zeros(mat.shape, mat.dtype)
    if mat.ndim == 0:
        return out + mat.data.sum()
    coords = tuple(mat.indices[:, i] for i in range(mat.ndim))
    return out.at[coords].add(mat.data, mode="drop")


def bcoo_dot_general(lhs: Any, rhs: Any, *, dimension_numbers: DotDimensionNumbers,
                     precision: Any = None, preferred_element_type: Any = None) -> Any:
    """`lax.dot_general` with one operand a BCOO and the other dense: a dense result with the
    batch, then lhs free, then rhs free dimensions, as `lax.dot_general` orders them."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    if lhs_batch or rhs_batch:
        raise _unsupported("bcoo_dot_general with batch dimensions")
    lhs_sparse, rhs_sparse = isinstance(lhs, BCOO), isinstance(rhs, BCOO)
    if lhs_sparse and rhs_sparse:
        raise _unsupported("a product of two BCOO arrays")
    if lhs_sparse:
        return _sparse_dense_dot(lhs, rhs, tuple(lhs_contract), tuple(rhs_contract),
                                 preferred_element_type)
    if rhs_sparse:
        # dense x sparse is sparse x dense with the result's two groups of free dimensions
        # swapped back: (rhs free, lhs free) -> (lhs free, rhs free).
        out = _sparse_dense_dot(rhs, lhs, tuple(rhs_contract), tuple(lhs_contract),
                                preferred_element_type)
        n_rhs_free = rhs.ndim - len(rhs_contract)
        return moveaxis(out, tuple(range(n_rhs_free)),
                               tuple(range(out.ndim - n_rhs_free, out.ndim)))
    raise TypeError("bcoo_dot_general: neither operand is a BCOO array.")


def _sparse_dense_dot(sp: BCOO, dense: Any, sp_contract: tuple[int, ...],
                      dense_contract: tuple[int, ...], preferred_element_type: Any) -> Any:
    dense = asarray(dense)
    sp_contract = tuple(d % sp.ndim for d in sp_contract)
    dense_contract = tuple(d % dense.ndim for d in dense_contract)
    for a, b in zip(sp_contract, dense_contract, strict=True):
        if sp.shape[a] != dense.shape[b]:
            raise TypeError(
                "dot_general requires contracting dimensions to have the same shape, got "
                f"{tuple(sp.shape[d] for d in sp_contract)} and "
                f"{tuple(dense.shape[d] for d in dense_contract)}."
            )
    sp_free = tuple(d for d in range(sp.ndim) if d not in sp_contract)
    dense_free = tuple(d for d in range(dense.ndim) if d not in dense_contract)
    dtype = preferred_element_type or result_type(sp.dtype, dense.dtype)
    # Each stored element (i_free, i_contract) -> data * dense[i_contract, ...], added at i_free.
    moved = transpose(dense, dense_contract + dense_free)
    gathered = moved.at[tuple(sp.indices[:, d] for d in sp_contract)].get(
        mode="fill", fill_value=0)
    data = sp.data.reshape(sp.data.shape + (1,) * len(dense_free))
    terms = (data * gathered).astype(dtype)
    out_shape = tuple(sp.shape[d] for d in sp_free) + tuple(dense.shape[d] for d in dense_free)
    out = zeros(out_shape, dtype)
    if not sp_free:
        return out + terms.sum(0)
    return out.at[tuple(sp.indices[:, d] for d in sp_free)].add(terms, mode="drop")


def _matmul(lhs: Any, rhs: Any) -> Any:
    """`lhs @ rhs` with one side a BCOO, as `jnp.matmul` reads 1-d and 2-d operands."""
    lhs_ndim, rhs_ndim = np.ndim(lhs) if not isinstance(lhs, BCOO) else lhs.ndim, (
        np.ndim(rhs) if not isinstance(rhs, BCOO) else rhs.ndim)
    if lhs_ndim == 0 or rhs_ndim == 0:
        raise ValueError("matmul: a scalar operand is not allowed; use * instead.")
    if (lhs_ndim > 2 and isinstance(lhs, BCOO)) or (rhs_ndim > 2 and isinstance(rhs, BCOO)):
        raise _unsupported("matmul of arrays with more than two dimensions")
    if rhs_ndim > 2:
        # A matrix times a stack of matrices (numpyro's CAR: `adj @ phi[..., None]`): the
        # stack's matrix rows are contracted, and the product's rows (first in
        # dot_general's order) go back before the stack's columns.
        out = bcoo_dot_general(lhs, rhs, dimension_numbers=(([lhs_ndim - 1], [rhs_ndim - 2]),
                                                            ([], [])))
        return moveaxis(out, 0, -2) if lhs_ndim == 2 else out
    return bcoo_dot_general(lhs, rhs, dimension_numbers=(([lhs_ndim - 1], [0]), ([], [])))


def todense(mat: Any) -> Any:
    """The dense array of a BCOO (anything else is returned as it is)."""
    return mat.todense() if isinstance(mat, BCOO) else mat

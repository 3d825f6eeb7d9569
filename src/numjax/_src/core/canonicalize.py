"""The host values numjax reads as arrays, converted to NumPy values of their canonical dtype
(`jax.interpreters.xla.canonicalize_dtype_handlers`): type -> function.

An operand that is not an Array goes through its type's entry when it becomes a buffer, so a
library can make its own array-like type an operand by registering it here and in
`jax.core.pytype_aval_mappings` (TFP registers its variables with NumPy arrays' entries).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from numjax._src import dtypes


def _canonicalize_host(x: Any) -> np.ndarray:
    buf = np.asarray(x)
    dtype = dtypes.canonicalize_dtype(buf.dtype) if buf.dtype in dtypes._VALID_DTYPES else None
    return buf if dtype is None or dtype == buf.dtype else buf.astype(dtype)


canonicalize_dtype_handlers: dict[Any, Callable[[Any], Any]] = {
    t: _canonicalize_host for t in (np.ndarray, bool, int, float, complex)}
canonicalize_dtype_handlers.update(
    (t, _canonicalize_host) for t in set(np.sctypeDict.values()) if issubclass(t, np.generic))

"""jnp functions against results recorded from JAX 0.4.30 (values, dtype, shape, weak_type).

tests/data/jnp_breadth_golden.json holds, per case, a jnp expression and what jax.numpy returned
for it (recorded once in a separate environment; JAX is never imported here).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import numjax.numpy as jnp

_GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "data" /
                      "jnp_breadth_golden.json").read_text())


def _compare(expected: Any, actual: Any, case: str) -> None:
    if isinstance(expected, list):
        assert isinstance(actual, tuple | list), case
        assert len(actual) == len(expected), case
        for e, a in zip(expected, actual, strict=True):
            _compare(e, a, case)
        return
    if isinstance(expected, str):
        assert repr(actual) == expected, case
        return
    value = np.asarray(actual)
    assert str(value.dtype) == expected["dtype"], case
    assert list(value.shape) == expected["shape"], case
    assert bool(getattr(actual, "weak_type", False)) == expected["weak"], case
    if isinstance(expected["v"], str):  # complex values are recorded as text
        assert str(value.tolist()) == expected["v"], case
        return
    want = np.asarray(expected["v"], dtype=float)
    np.testing.assert_allclose(value.astype(float), want, rtol=2e-3, atol=1e-5, err_msg=case)


@pytest.mark.parametrize("case", sorted(_GOLDEN))
def test_matches_jax(case: str) -> None:
    entry = _GOLDEN[case]
    actual = eval(entry["expr"], {"jnp": jnp, "np": np})
    _compare(entry["jax"], actual, case)

"""lax.eq / lax.ne on typed PRNG key arrays, against JAX 0.4.30: keys of one implementation
compare by their whole data (eagerly, under jit and vmap); a key against a value of another
dtype fails as JAX's does, when the program is verified."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
from numjax import lax

K = numjax.random.key
CASES: list[tuple[str, Any, list[bool] | bool]] = [
    # (name, function of nothing, JAX 0.4.30's result)
    ("eq_same", lambda: lax.eq(K(0), K(0)), True),
    ("ne_other", lambda: lax.ne(K(0), K(1)), True),
    ("eq_split_vs_one", lambda: lax.eq(numjax.random.split(K(0), 3),
                                       numjax.random.split(K(0), 3)[0]), [True, False, False]),
    ("ne_split", lambda: lax.ne(numjax.random.split(K(0), 3), numjax.random.split(K(0), 3)),
     [False, False, False]),
    ("jit_eq", lambda: numjax.jit(lax.eq)(numjax.random.split(K(0), 3),
                                          numjax.random.split(K(0), 3)), [True, True, True]),
    ("vmap_eq", lambda: numjax.vmap(lax.eq)(numjax.random.split(K(0), 3),
                                            numjax.random.split(K(1), 3)), [False, False, False]),
]


@pytest.mark.parametrize(("name", "fn", "want"), CASES, ids=[c[0] for c in CASES])
def test_key_comparison_matches_jax(name: str, fn: Any, want: Any) -> None:
    out = fn()
    assert out.dtype == np.bool_
    assert np.asarray(out).tolist() == want


@pytest.mark.parametrize("other", [lambda: 1, lambda: np.float32(1),
                                   lambda: K(0, impl="rbg")])
def test_key_against_another_dtype_fails_verification(other: Any) -> None:
    # JAX 0.4.30: ValueError: Cannot lower jaxpr with verifier errors: (XLA's text follows).
    with pytest.raises(ValueError, match="^Cannot lower jaxpr with verifier errors:"):
        lax.eq(K(0), other())

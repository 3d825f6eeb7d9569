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


_ORDERED = "integer, bool_, floating"
_ARITH = "integer, complexfloating, floating"
# (operation, operands, JAX 0.4.30's TypeError text): a lax operation whose dtype rule refuses
# keys names the first refused operand's position, eagerly and under jit.
REFUSED: list[tuple[str, Any, str]] = [
    ("lt", lambda: (K(0), K(0)),
     f"lt does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     f"subtypes of {_ORDERED}."),
    ("ge", lambda: (np.int32(1), K(0)),
     f"ge does not accept dtype key<fry> at position 1. Accepted dtypes at position 1 are "
     f"subtypes of {_ORDERED}."),
    ("gt", lambda: (numjax.random.split(K(0), 3), K(1)),
     f"gt does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     f"subtypes of {_ORDERED}."),
    ("max", lambda: (K(0), K(0)),
     "max does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool_, complexfloating, floating."),
    ("add", lambda: (np.int32(1), K(0)),
     f"add does not accept dtype key<fry> at position 1. Accepted dtypes at position 1 are "
     f"subtypes of {_ARITH}."),
    ("pow", lambda: (np.int32(1), K(0)),
     "pow does not accept dtype int32 at position 0. Accepted dtypes at position 0 are "
     "subtypes of floating, complexfloating."),
    ("bitwise_and", lambda: (K(0), K(0)),
     "and does not accept dtype key<fry> at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, bool_."),
    ("neg", lambda: (K(0),),
     f"neg does not accept dtype key<fry>. Accepted dtypes are subtypes of {_ARITH}."),
    ("is_finite", lambda: (K(0),),
     "is_finite does not accept dtype key<fry>. Accepted dtypes are subtypes of floating."),
    ("real", lambda: (K(0),),
     "real does not accept dtype key<fry>. Accepted dtypes are subtypes of complexfloating."),
    ("conj", lambda: (K(0),),
     "conj does not accept dtype key<fry>. Accepted dtypes are subtypes of float64, float32, "
     "complexfloating."),
    ("square", lambda: (K(0),),
     f"integer_pow does not accept dtype key<fry>. Accepted dtypes are subtypes of {_ARITH}."),
]


@pytest.mark.parametrize(("op", "operands", "message"), REFUSED, ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("jit", [False, True])
def test_lax_operations_refuse_keys_with_jax_text(op: str, operands: Any, message: str,
                                                  jit: bool) -> None:
    fn = getattr(lax, op)
    with pytest.raises(TypeError) as info:
        (numjax.jit(fn) if jit else fn)(*operands())
    assert str(info.value) == message

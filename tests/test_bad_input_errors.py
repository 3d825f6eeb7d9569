"""Bad input raises JAX's exception type with a message naming the operation and the shapes,
not a NumPy error from deep inside. Types and texts observed with JAX 0.4.30 (integer_pow's
text is numjax's own: JAX's is an accidental `&` TypeError)."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

x, v = jnp.ones((2, 3)), jnp.ones(3)

CASES = [
    ("tile", lambda: jnp.tile(v, (-1,)), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-1, 3)."),
    ("zeros", lambda: jnp.zeros((2, -1)), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (2, -1)."),
    ("ones", lambda: jnp.ones(-3), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-3,)."),
    ("full", lambda: jnp.full((-1,), 2.0), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-1,)."),
    ("empty", lambda: jnp.empty((-1, 2)), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-1, 2)."),
    ("broadcast", lambda: lax.broadcast(v, (-2,)), TypeError,
     "broadcast_in_dim shape must have every element be nonnegative, got (-2, 3)."),
    ("iota", lambda: lax.iota(np.float32, -1), TypeError,
     "iota shape must have every element be nonnegative, got (-1,)."),
    ("eye", lambda: jnp.eye(-1), ValueError,
     "negative dimensions are not allowed, got -1 and None"),
    ("arange step 0", lambda: jnp.arange(0, 1, 0), ZeroDivisionError, "division by zero"),
    ("integer_pow", lambda: lax.integer_pow(x, 1.5), TypeError,
     "integer_pow requires a static integer exponent y, got 1.5 of type float; use lax.pow "
     "for non-integer exponents."),
    ("reshape", lambda: jnp.reshape(x, (4,)), TypeError,
     "cannot reshape array of shape (2, 3) (size 6) into shape (4,) (size 4)"),
    ("reshape unknown axis", lambda: jnp.reshape(x, (-1, 4)), TypeError,
     "cannot reshape array of shape (2, 3) (size 6) into shape (-1, 4) because the product of "
     "specified axis sizes (4) does not evenly divide 6"),
    ("reshape two unknown axes", lambda: jnp.reshape(x, (-1, -1)), TypeError,
     "can only specify one unknown axis size with a `-1` value, got (-1, -1)"),
    ("reshape unknown axis beside 0", lambda: jnp.reshape(x, (-1, 0)), ZeroDivisionError,
     "integer modulo by zero"),
    ("add shapes", lambda: x + jnp.ones((3, 2)), TypeError,
     "add got incompatible shapes for broadcasting: (2, 3), (3, 2)."),
    ("matmul", lambda: jnp.matmul(x, x), TypeError,
     "dot_general requires contracting dimensions to have the same shape, got (3,) and (2,)."),
    ("sum axis", lambda: jnp.sum(x, axis=5), ValueError,
     "axis 5 is out of bounds for array of dimension 2"),
    # Raw keys: scalars are read as key data (and lack its attributes), lists and tuples are
    # not key data at all; wrap_key_data takes nothing but arrays.
    ("random scalar key", lambda: numjax.random.normal(0, (3,)), TypeError,
     "JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype "
     "attributes. Got 0"),
    ("random string key", lambda: numjax.random.split("abc"), TypeError,
     "JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype "
     "attributes. Got abc"),
    ("random list key", lambda: numjax.random.split([0, 1]), TypeError,
     "unexpected PRNG key type <class 'list'>"),
    ("wrap_key_data list", lambda: numjax.random.wrap_key_data([0, 1]), TypeError,
     "JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype "
     "attributes. Got [0, 1]"),
    ("float of a jvp tracer", lambda: numjax.grad(lambda t: float(t) * t)(1.0),
     numjax.errors.ConcretizationTypeError,
     "Abstract tracer value encountered where concrete value is expected: traced array with "
     "shape float32[].\nThe problem arose with the `float` function. If trying to convert the "
     "data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.\n\n"
     "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.ConcretizationTypeError"),
]


@pytest.mark.parametrize("name,call,error,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_jax_error(name, call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message

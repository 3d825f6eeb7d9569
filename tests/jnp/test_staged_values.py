"""Which jnp results are plain values under jit, as in JAX 0.4.30.

JAX compiles most jnp functions with `jit`. Under a trace recording a program, jit hands back
an argument its function returns unchanged as the value passed (a Python or NumPy value stays
one), and an inlined jit hands back a 0-d result made from constants alone as a plain value
(`jnp.imag` of a real 0-d value is a NumPy zero). Such results are concrete: a boolean mask made
from them can index under jit. Each row: an expression over `x` (a host value, not an
argument of the jitted function) or `t` (the traced argument), the argument, and what JAX
0.4.30 gives under jit, per output leaf: "tracer", or the Python type, value and dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import nn
from numjax.core import Tracer

CASES: list[tuple[str, str, list[str]]] = [
    ('jnp.real(x)', '1.5', ['float:1.5:float64']),
    ('jnp.real(x)', 'np.ones(2, np.float32)', ['ndarray:[1.0, 1.0]:float32']),
    ('jnp.real(x)', 'np.complex64(1j)', ['tracer']),
    ('jnp.conj(x)', '2', ['int:2:int64']),
    ('jnp.conjugate(x)', 'np.float32(2)', ['float32:2.0:float32']),
    ('jnp.imag(x)', '1.5', ['float:0.0:float64']),
    ('jnp.imag(x)', '2', ['int:0:int64']),
    ('jnp.imag(x)', 'True', ['ndarray:False:bool']),
    ('jnp.imag(x)', 'np.float32(2)', ['ndarray:0.0:float32']),
    ('jnp.imag(x)', 'np.array(2.0)', ['ndarray:0.0:float32']),
    ('jnp.imag(x)', 'np.ones(2, np.float32)', ['tracer']),
    ('jnp.imag(t)', 'np.float32(0.32)', ['ndarray:0.0:float32']),
    ('jnp.imag(t)', 'np.ones(2, np.int16)', ['tracer']),
    ('jnp.positive(x)', '1j', ['complex:1j:complex128']),
    ('jnp.positive(x)', 'np.ones(2, bool)', ['ndarray:[True, True]:bool']),
    ('jnp.abs(x)', 'True', ['bool:True:bool']),
    ('jnp.abs(x)', 'np.ones(2, bool)', ['ndarray:[True, True]:bool']),
    ('jnp.abs(x)', 'np.uint8(3)', ['uint8:3:uint8']),
    ('jnp.abs(x)', 'np.int8(-3)', ['tracer']),
    ('jnp.round(x)', '2', ['int:2:int64']),
    ('jnp.round(x, 2)', 'np.int32(2)', ['int32:2:int32']),
    ('jnp.around(x)', 'np.ones(2, np.uint8)', ['ndarray:[1, 1]:uint8']),
    ('jnp.round(x)', '1.5', ['tracer']),
    ('jnp.nan_to_num(x)', 'np.ones(2, np.uint16)', ['ndarray:[1, 1]:uint16']),
    ('jnp.nan_to_num(x)', '1.5', ['tracer']),
    ('jnp.ravel(x)', 'np.ones(2, np.float32)', ['ndarray:[1.0, 1.0]:float32']),
    ('jnp.ravel(x)', 'np.ones((1, 2), np.float32)', ['tracer']),
    ('jnp.atleast_1d(x)', 'np.ones(2)', ['ndarray:[1.0, 1.0]:float64']),
    ('jnp.atleast_2d(x)', 'np.ones(2)', ['tracer']),
    ('jnp.atleast_3d(x)', 'np.ones((1, 2, 3))',
     ['ndarray:[[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]:float64']),
    ('jnp.atleast_1d(x, 1.0)', 'np.ones(2)', ['ndarray:[1.0, 1.0]:float64', 'tracer']),
    ('jnp.broadcast_arrays(x, np.ones((3, 2)))', 'np.ones(2)',
     ['tracer', 'ndarray:[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]:float64']),
    ('jnp.broadcast_arrays(x)', '1.0', ['float:1.0:float64']),
    ('jnp.clip(x)', 'np.ones(2)', ['ndarray:[1.0, 1.0]:float64']),
    ('jnp.clip(x, 0)', 'np.ones(2)', ['tracer']),
    ('jnp.isfinite(x)', '3', ['ndarray:True:bool']),
    ('jnp.isfinite(t)', 'np.int16(3)', ['ndarray:True:bool']),
    ('jnp.isinf(x)', '3', ['tracer']),
    ('nn.relu(x)', '1.5', ['tracer']),
    ('(lambda v: v[v > 0])(jnp.imag(t))', 'np.float32(0.32)', ['ndarray:[]:float32']),
    # jnp.reshape calls a NumPy operand's own reshape method (also eagerly); block is jitted;
    # vmap moves a NumPy value's batch axis with its own transpose.
    ('jnp.reshape(x, (3, 2))', 'np.arange(6.0, dtype=np.float32).reshape(2, 3)',
     ['ndarray:[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]:float32']),
    ('jnp.reshape(x, (1,))', 'np.float32(1.5)', ['ndarray:[1.5]:float32']),
    ('jnp.reshape(x, (1,))', '1.5', ['tracer']),
    ('jnp.reshape(t, (1,))', 'np.float32(1.5)', ['tracer']),
    ('jnp.block(x)', 'np.ones(2, np.float32)', ['ndarray:[1.0, 1.0]:float32']),
    ('jnp.block(x)', '1.5', ['float:1.5:float64']),
    ('jnp.block([x, x])', 'np.ones(2, np.float32)', ['tracer']),
    ('jnp.apply_along_axis(lambda v: v, 1, x)', 'np.ones((2, 2), np.float32)',
     ['ndarray:[[1.0, 1.0], [1.0, 1.0]]:float32']),
    ('jnp.apply_along_axis(lambda v: v, 0, x)', 'np.ones((2, 2), np.float32)',
     ['ndarray:[[1.0, 1.0], [1.0, 1.0]]:float32']),
    ('jnp.apply_along_axis(jnp.sum, 0, x)', 'np.ones((2, 2), np.float32)', ['tracer']),
    ('numjax.vmap(lambda v: v, 1, 0)(x)', 'np.arange(4.0).reshape(2, 2)',
     ['ndarray:[[0.0, 2.0], [1.0, 3.0]]:float64']),
]

# Eagerly too these are NumPy values in JAX 0.4.30 (no jit is involved).
EAGER_NUMPY = [
    ('jnp.reshape(x, (3, 2))', 'np.arange(6.0, dtype=np.float32).reshape(2, 3)',
     [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]),
    ('jnp.reshape(x, (1,))', 'np.float32(1.5)', [1.5]),
    ('jnp.apply_along_axis(lambda v: v, 0, x)', 'np.ones((2, 2), np.float32)',
     [[1.0, 1.0], [1.0, 1.0]]),
    ('numjax.vmap(lambda v: v, 1, 0)(x)', 'np.arange(4.0).reshape(2, 2)', [[0.0, 2.0], [1.0, 3.0]]),
]


def _describe(out: Any) -> list[str]:
    return ["tracer" if isinstance(leaf, Tracer) else
            f"{type(leaf).__name__}:{np.asarray(leaf).tolist()!r}:{np.asarray(leaf).dtype}"
            for leaf in numjax.tree_util.tree_leaves(out)]


@pytest.mark.parametrize(("src", "arg", "want"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_result_under_jit(src: str, arg: str, want: list[str]) -> None:
    x = eval(arg)
    seen: list[list[str]] = []

    def f(t: Any) -> Any:
        seen.append(_describe(eval(src, {"jnp": jnp, "nn": nn, "np": np, "x": x, "t": t,
                                         "numjax": numjax})))
        return t

    numjax.jit(f)(x)
    assert seen == [want]


@pytest.mark.parametrize(("src", "arg"), [(c[0], c[1]) for c in CASES[:6]])
def test_eager_results_are_arrays(src: str, arg: str) -> None:
    # Eagerly (and under grad or vmap alone) JAX's jit returns Arrays.
    out = eval(src, {"jnp": jnp, "nn": nn, "np": np, "x": eval(arg), "t": eval(arg)})
    assert all(type(leaf).__name__ == "ArrayImpl" for leaf in numjax.tree_util.tree_leaves(out))
    seen: list[Any] = []
    numjax.vmap(lambda t: seen.append(jnp.real(1.5)) or t)(np.ones(2))
    assert type(seen[0]).__name__ == "ArrayImpl"


@pytest.mark.parametrize(("src", "arg", "want"), EAGER_NUMPY)
def test_eager_numpy_results(src: str, arg: str, want: list[Any]) -> None:
    out = eval(src, {"jnp": jnp, "np": np, "numjax": numjax, "x": eval(arg)})
    assert type(out) is np.ndarray and out.tolist() == want


def test_block_errors() -> None:
    # JAX 0.4.30's texts.
    with pytest.raises(ValueError, match="^jax.numpy.block does not allow empty list arguments$"):
        jnp.block([[]])
    with pytest.raises(ValueError, match="^Mismatched list depths in jax.numpy.block$"):
        jnp.block([[np.ones(2)], np.ones(2)])


def test_mask_from_imag_of_traced_scalar() -> None:
    # The differential fuzzer's case: v = imag(a) of a 0-d float32 is a concrete zero under jit,
    # so v[v > 0] is an empty NumPy selection (JAX: shape (0,), float32).
    def f(a: Any) -> Any:
        v = jnp.imag(a)
        return v, v[v > 0]

    v, w = numjax.jit(f)(np.float32(0.32))
    assert (v.shape, v.dtype, float(v)) == ((), np.float32, 0.0)
    assert (w.shape, w.dtype) == ((0,), np.float32)

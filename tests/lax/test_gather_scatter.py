"""lax.gather / lax.scatter*: kernels against NumPy references, jvp/grad, transpose, vmap."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import check_grads

ROWS = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
ROWS_S = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
POINTS = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1),
                                    start_index_map=(0, 1))
POINTS_S = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                       scatter_dims_to_operand_dims=(0, 1))

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def test_dimension_numbers_are_hashable_namedtuples():
    assert hash(ROWS) == hash(lax.GatherDimensionNumbers((1,), (0,), (0,)))
    assert ROWS.offset_dims == (1,)
    assert ROWS_S._fields == ("update_window_dims", "inserted_window_dims",
                              "scatter_dims_to_operand_dims")


@pytest.mark.parametrize("text,mode", [
    ("clip", lax.GatherScatterMode.CLIP), ("fill", lax.GatherScatterMode.FILL_OR_DROP),
    ("drop", lax.GatherScatterMode.FILL_OR_DROP), (None, lax.GatherScatterMode.FILL_OR_DROP),
    ("promise_in_bounds", lax.GatherScatterMode.PROMISE_IN_BOUNDS)])
def test_mode_parsing(text, mode):
    assert lax.GatherScatterMode.from_any(text) is mode


def test_gather_rows_modes():
    idx = np.array([[2], [0], [5]])
    out = lax.gather(X, idx, ROWS, (1, 4), mode="clip")
    np.testing.assert_array_equal(out, X[[2, 0, 2]])
    out = lax.gather(X, idx, ROWS, (1, 4))  # JAX's lax default: fill
    assert np.isnan(np.asarray(out)[2]).all()
    out = lax.gather(X, idx, ROWS, (1, 4), mode="fill", fill_value=-1)
    np.testing.assert_array_equal(out[2], [-1, -1, -1, -1])


def test_gather_windows_and_offset_position():
    # 2x2 windows starting at index vectors, window dims placed first in the output.
    dn = lax.GatherDimensionNumbers(offset_dims=(0, 1), collapsed_slice_dims=(),
                                    start_index_map=(0, 1))
    idx = np.array([[0, 0], [1, 2]])
    out = np.asarray(lax.gather(X, idx, dn, (2, 2), mode="clip"))
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out[..., 1], X[1:3, 2:4])
    np.testing.assert_array_equal(out[..., 0], X[0:2, 0:2])


def test_gather_fill_defaults_by_dtype():
    idx = np.array([[1], [7]])
    dn = lax.GatherDimensionNumbers((), (0,), (0,))
    assert lax.gather(np.arange(4, dtype=np.int32), idx, dn, (1,), mode="fill")[1] == -2**31
    assert lax.gather(np.arange(4, dtype=np.uint8), idx, dn, (1,), mode="fill")[1] == 255
    assert bool(lax.gather(np.zeros(4, bool), idx, dn, (1,), mode="fill")[1])


def test_gather_shape_errors():
    with pytest.raises(TypeError, match="slice size"):
        lax.gather(X, np.array([[0]]), ROWS, (1,))
    with pytest.raises(TypeError, match="collapse"):
        lax.gather(X, np.array([[0]]), ROWS, (2, 4))
    # JAX checks the dtype after the shapes, with a ValueError.
    with pytest.raises(ValueError, match="^indices must have an integer type$"):
        lax.gather(X, np.array([[0.0]]), ROWS, (1, 4))
    with pytest.raises(TypeError, match=r"^Gather index leaf dimension must be within \[0, "
                       r"rank\(indices\) \+ 1\)\. rank\(indices\) is 0 and gather index "
                       r"leaf dimension is -1\.$"):
        lax.gather(X, np.array(0), ROWS, (1, 4))


# JAX 0.4.30's scatter checks, in its order (shapes before dtypes) and words: (operand shape,
# indices shape, updates shape, update_window_dims, inserted_window_dims,
# scatter_dims_to_operand_dims, JAX's message). Float indices give the same messages: the
# shape checks come first.
SCATTER_SHAPE_ERRORS = [
    ((64, 48), (32, 1), (65, 32), (0,), (1,), (1,),
     'Bounds of the window dimensions of updates must not exceed the bounds of the '
     'corresponding dimensions of operand. For dimension 0, updates bound is 65, '
     'operand bound is 64.'),
    ((64, 48), (32, 1), (64, 31), (0,), (1,), (1,),
     'Bounds of the scatter dimensions of updates must be the same as the bounds of '
     'the corresponding dimensions of scatter indices. For scatter dimension 1, '
     'updates bound is 31, indices bound is 32.'),
    ((64, 48), (10, 9, 8, 7, 1), (10, 9, 8, 7, 65), (4,), (1,), (0,),
     'Bounds of the window dimensions of updates must not exceed the bounds of the '
     'corresponding dimensions of operand. For dimension 4, updates bound is 65, '
     'operand bound is 64.'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4, 1),
     (4, 5, 6), (1, 2), (0, 1, 2, 3, 4),
     'Updates tensor must be of rank 7; got 8.'),
    ((6, 5, 4, 3, 2), (5, 4, 3, 2, 1), (10, 9, 8, 7, 6, 5, 4, 3, 2),
     (4, 5, 6, 8, 7), (), (0, 1, 2, 3, 4),
     'update_window_dims in scatter op must be sorted; got (4, 5, 6, 8, 7)'),
    ((6, 5, 4, 3, 2), (5, 4, 3, 2, 1), (10, 9, 8, 7, 6, 5, 4, 3, 2),
     (4, 5, 6, 7, 7), (), (0, 1, 2, 3, 4),
     'update_window_dims in scatter op must not repeat; got: (4, 5, 6, 7, 7).'),
    ((6, 5, 4, 3, 2), (5, 4, 3, 2, 1), (10, 9, 8, 7, 6, 5, 4, 3, 2),
     (4, 5, 6, 7, 9), (), (0, 1, 2, 3, 4),
     'Invalid update_window_dims set in scatter op; valid range is [0, 9); got: 9.'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4),
     (4, 5, 6), (2, 1), (0, 1, 2, 3, 4),
     'inserted_window_dims in scatter op must be sorted; got (2, 1)'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4),
     (4, 5, 6), (1, 5), (0, 1, 2, 3, 4),
     'Invalid inserted_window_dims set in scatter op; valid range is [0, 5); got: 5.'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4),
     (4, 5, 6), (1, 2), (0, 1, 2, 3),
     'Scatter op has 4 elements in scatter_dims_to_operand_dims and the bound of '
     'dimension index_vector_dim=4 of indices is 5. These two numbers must be equal'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4),
     (4, 5, 6), (1, 2), (0, 1, 2, 3, 10),
     'Invalid scatter_dims_to_operand_dims mapping; domain is [0, 5), got: 4->10.'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4),
     (4, 5, 6), (1, 2), (0, 1, 2, 2, 3),
     'scatter_dims_to_operand_dims in scatter op must not repeat; got: (0, 1, 2, 2, '
     '3).'),
    ((50, 49, 48, 47, 46), (10, 9, 8, 7, 5), (10, 9, 8, 7, 3, 2, 4), (4, 5, 6), (1,), (0, 1, 2, 3),
     "Scatter op has window of size 4; doesn't match operand of rank 5."),
]


@pytest.mark.parametrize("index_dtype", [np.int32, np.float32])
@pytest.mark.parametrize("operand,indices,updates,uwd,iwd,sd,message", SCATTER_SHAPE_ERRORS)
def test_scatter_shape_errors_as_jax(operand, indices, updates, uwd, iwd, sd, message,
                                     index_dtype):
    dn = lax.ScatterDimensionNumbers(uwd, iwd, sd)

    def f(x, y):
        return lax.scatter(lax.broadcast(x, operand), np.zeros(indices, index_dtype),
                           lax.broadcast(y, updates), dn)

    with pytest.raises(TypeError) as info:
        numjax.eval_shape(f, np.float32(1), np.float32(1))
    assert str(info.value) == message


# Dtypes are checked after shapes, as JAX does: float indices are a ValueError, updates of
# another dtype than the operand a TypeError (not converted), for every scatter variant.
@pytest.mark.parametrize("op", [lax.scatter, lax.scatter_add, lax.scatter_mul, lax.scatter_min,
                                lax.scatter_max])
@pytest.mark.parametrize("indices,updates,error,message", [
    (np.zeros((2, 1), np.float32), np.ones(2, np.float32), ValueError,
     "indices must have an integer type"),
    (np.zeros((2, 1), np.int32), np.ones(2, np.int32), TypeError,
     "lax.scatter requires arguments to have the same dtypes, got float32, int32."),
    (np.zeros((2, 1), np.int32), jnp.ones(2, jnp.bfloat16), TypeError,
     "lax.scatter requires arguments to have the same dtypes, got float32, bfloat16."),
    (np.zeros((2, 1), np.int32), 1.0, TypeError, "Updates tensor must be of rank 1; got 0."),
    (np.zeros((), np.int32), np.ones((), np.float32), TypeError,
     "Scatter index leaf dimension must be within [0, rank(indices) + 1). rank(indices) is 0 "
     "and scatter index leaf dimension is -1."),
])
def test_scatter_dtype_errors_as_jax(op, indices, updates, error, message):
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    with pytest.raises(error) as info:
        op(jnp.zeros(3), indices, updates, dn)
    assert str(info.value) == message


def test_scatter_of_a_scalar_operand_names_the_window_as_jax():
    dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    # JAX: "Scatter op has window of size 1; doesn't match operand of rank 0."
    with pytest.raises(TypeError, match=r"window of size 1; doesn't match operand of rank 0\."):
        lax.scatter_add(3.0, np.zeros((2, 1), np.int32), jnp.ones(2), dn)


def _np_scatter(ufunc, x, rows, upd):
    out = x.copy()
    if ufunc is None:
        for r, u in zip(rows, upd, strict=True):
            out[r] = u
    else:
        ufunc.at(out, rows, upd)
    return out


@pytest.mark.parametrize("fn,ufunc", [(lax.scatter, None), (lax.scatter_add, np.add),
                                      (lax.scatter_mul, np.multiply),
                                      (lax.scatter_min, np.minimum),
                                      (lax.scatter_max, np.maximum)])
def test_scatter_rows_vs_numpy(fn, ufunc):
    rng = np.random.default_rng(0)
    rows = np.array([2, 0, 2])
    upd = rng.normal(size=(3, 4)).astype(np.float32) * 10
    out = fn(X, rows[:, None], upd, ROWS_S)
    np.testing.assert_allclose(out, _np_scatter(ufunc, X, rows, upd), rtol=1e-6)


def test_scatter_out_of_bounds_drop_and_clip():
    idx = np.array([[1], [9], [-1]])
    upd = np.ones((3, 4), np.float32)
    np.testing.assert_array_equal(lax.scatter_add(X, idx, upd, ROWS_S), X + [[0], [1], [0]])
    clipped = lax.scatter_add(X, idx, upd, ROWS_S, mode="clip")
    np.testing.assert_array_equal(clipped, X + [[1], [1], [1]])


def test_scatter_keeps_updates_dtype_and_checks_shapes():
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    # A float64 NumPy array is float32 once canonical, as in JAX: [0, 2, 0].
    out = lax.scatter_add(np.zeros(3, np.float32), np.array([[1]]), np.array([2.0]), dn)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0, 2, 0])
    # Integer updates are not converted: JAX 0.4.30 raises.
    with pytest.raises(TypeError, match="same dtypes, got float32, int32"):
        lax.scatter_add(np.zeros(3, np.float32), np.array([[1]]), np.array([2]), dn)
    with pytest.raises(TypeError, match="scatter dimensions"):
        lax.scatter_add(X, np.array([[1], [2]]), np.ones((3, 4), np.float32), ROWS_S)


def test_scatter_apply_counts_repeats():
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    out = lax.scatter_apply(jnp.arange(5.0), np.array([[1], [1], [7]]), lambda v: v * 2, dn,
                            update_shape=(3,))
    np.testing.assert_array_equal(out, [0, 4, 2, 3, 4])  # JAX 0.4.30's result


SIN_HALF, SIN_SIN_HALF = 0.47942555, 0.46126956  # sin(.5), sin(sin(.5)) in float32


def test_scatter_apply_repeats_under_jit_and_vmap():
    # JAX 0.4.30 applies func once per update everywhere: index 2 twice gives sin(sin(.5))
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    f = lambda x, i: lax.scatter_apply(x, i, jnp.sin, dn, update_shape=(2,))
    x, idx = jnp.full(3, 0.5), jnp.array([[2], [2]])
    expected = [0.5, 0.5, SIN_SIN_HALF]
    np.testing.assert_allclose(f(x, idx), expected, rtol=1e-6)
    np.testing.assert_allclose(numjax.jit(f)(x, idx), expected, rtol=1e-6)
    np.testing.assert_allclose(numjax.vmap(f)(x[None], idx[None])[0], expected, rtol=1e-6)
    # per-example hit counts under vmap: [[1], [1]] and [[0], [2]]
    out = numjax.vmap(f)(jnp.full((2, 3), 0.5), jnp.array([[[1], [1]], [[0], [2]]]))
    np.testing.assert_allclose(out, [[0.5, SIN_SIN_HALF, 0.5], [SIN_HALF, 0.5, SIN_HALF]],
                               rtol=1e-6)


@pytest.mark.parametrize("index,mode,expected", [
    # (traced .at[] index, mode, JAX 0.4.30's x.at[index].apply(jnp.sin) of [.5, .5, .5])
    ([2, 2, 2, 0], None, [SIN_HALF, 0.5, 0.445085347]),
    ([5, 7, 2, 0], "clip", [SIN_HALF, 0.5, 0.445085347]),
    ([5, 7, 2, 0], "drop", [SIN_HALF, 0.5, SIN_HALF]),
    ([5, -1, -1], None, [0.5, 0.5, SIN_SIN_HALF]),
    ([], None, [0.5, 0.5, 0.5]),
])
def test_at_apply_with_traced_repeated_indices(index, mode, expected):
    f = numjax.jit(lambda x, i: x.at[i].apply(jnp.sin, mode=mode))
    np.testing.assert_allclose(f(jnp.full(3, 0.5), jnp.array(index, jnp.int32)), expected,
                               rtol=1e-6)


def test_at_apply_repeats_windows_and_integers_under_jit():
    out = numjax.jit(lambda x, i: x.at[i, 1:].apply(lambda v: v * 2))(jnp.ones((3, 3)),
                                                                     jnp.array([0, 0]))
    np.testing.assert_array_equal(out, [[1, 4, 4], [1, 1, 1], [1, 1, 1]])
    out = numjax.jit(lambda x, i: x.at[i].apply(lambda v: v + 1))(jnp.zeros(3, jnp.int32),
                                                                 jnp.array([0, 0, 0, 1]))
    np.testing.assert_array_equal(out, [3, 1, 0])
    assert out.dtype == np.int32


def test_scatter_apply_derivatives():
    # JAX 0.4.30 has no derivative for scatter_apply; numjax differentiates the repeated
    # application: d/dx sin(sin(x)) = cos(sin x) cos x at the twice-hit element.
    x = jnp.full(3, 0.5)
    f = lambda x: x.at[jnp.array([1, 1])].apply(jnp.sin)
    expected = [1.0, 0.778643906, 1.0]
    np.testing.assert_allclose(numjax.grad(lambda x: f(x).sum())(x), expected, rtol=1e-6)
    np.testing.assert_allclose(numjax.jvp(numjax.jit(f), (x,), (jnp.ones(3),))[1], expected,
                               rtol=1e-6)
    # a static index selects each element once: one application, differentiable under jit
    g = numjax.jit(numjax.grad(lambda x: x.at[1].apply(jnp.sin).sum()))(x)
    np.testing.assert_allclose(g, [1.0, 0.877582550, 1.0], rtol=1e-6)


@pytest.mark.parametrize("index", [
    # one traced index vector: one round (fuzzer seed 21001, bfloat16 under jit(vjp), where
    # JAX 0.4.30 raises NotImplementedError: scatter_apply JVP not implemented)
    lambda: jnp.array([-2], dtype=jnp.int32),
    # a few traced index vectors, one of them repeated: their rounds written out
    lambda: jnp.array([1, 3, 1]),
])
def test_scatter_apply_reverse_mode_under_jit(index: Any) -> None:
    x = jnp.array([0.5, 0.25, -0.75, 1.0], jnp.bfloat16)
    f = lambda x: x.at[index()].apply(jnp.sin, mode="clip").astype(jnp.float32).sum()
    eager = numjax.grad(f)(x)
    jitted = numjax.jit(numjax.grad(f))(x)
    np.testing.assert_array_equal(np.asarray(jitted, np.float32), np.asarray(eager, np.float32))
    check_grads(lambda x: jnp.asarray(x).at[index()].apply(jnp.sin).sum(),
                (np.asarray(x, np.float32),), order=1, modes=["rev"], rtol=1e-2)


def test_scatter_apply_many_traced_indices_loop() -> None:
    # More index vectors than the rounds written out: a while loop, forward mode only.
    x = jnp.full(4, 0.5)
    idx = np.arange(20) % 3
    f = lambda x, i: x.at[i].apply(jnp.sin)
    expected = numjax.jvp(lambda x: f(x, idx), (x,), (jnp.ones(4),))[1]
    np.testing.assert_allclose(numjax.jvp(lambda x: numjax.jit(f)(x, idx), (x,),
                                          (jnp.ones(4),))[1], expected, rtol=1e-6)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        numjax.jit(numjax.grad(lambda x, i: f(x, i).sum()))(x, idx)


def test_gather_grad_is_scatter_add():
    idx = np.array([[2], [0], [2], [7]])
    f = lambda x: (lax.gather(x, idx, ROWS, (1, 4), mode="clip") ** 2).sum()
    check_grads(f, (X,), order=1, modes=["rev"], rtol=1e-2, atol=5e-2)
    g = numjax.grad(lambda x: lax.gather(x, idx, ROWS, (1, 4), mode="fill",
                                         fill_value=0).sum())(jnp.asarray(X))
    np.testing.assert_array_equal(g, [[1] * 4, [0] * 4, [2] * 4])


def test_scatter_add_grad_both_args():
    idx = np.array([[1, 1], [1, 1], [0, 3]])
    upd = np.array([1.0, 2.0, 3.0], np.float32)
    f = lambda x, u: (lax.scatter_add(x, idx, u, POINTS_S) ** 2).sum()
    check_grads(f, (X, upd), order=1, modes=["rev"], rtol=1e-2, atol=5e-2)


def test_scatter_set_grad_last_write_wins():
    idx = np.array([[1], [1]])
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    gu = numjax.grad(lambda u: lax.scatter(jnp.zeros(5), idx, u, dn).sum())(jnp.array([3., 4.]))
    np.testing.assert_array_equal(gu, [0, 1])  # JAX 0.4.30 gives [0., 1.]
    gx = numjax.grad(lambda x: lax.scatter(x, idx, jnp.ones(2), dn).sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(gx, [1, 0, 1, 1, 1])


def test_scatter_mul_and_max_grads():
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    idx = np.array([[1], [1]])
    g = numjax.grad(lambda x: lax.scatter_mul(x, idx, jnp.array([3.0, 3.0]), dn).sum())(
        jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1, 9, 1, 1, 1])  # JAX 0.4.30's answer
    g = numjax.grad(lambda x: lax.scatter_max(x, np.array([[1], [2]]), jnp.array([2.0, 2.0]),
                                              dn).sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1, 0, 0.5, 1, 1])  # ties share, as in JAX
    gu = numjax.grad(lambda u: lax.scatter_mul(jnp.arange(1.0, 6.0), np.array([[1], [3]]), u,
                                               dn, unique_indices=True).sum())(
        jnp.array([2.0, 5.0]))
    np.testing.assert_array_equal(gu, [2, 4])


def test_jvp_of_gather():
    idx = np.array([[1], [0]])
    t = np.ones_like(X)
    out, tout = numjax.jvp(lambda x: lax.gather(x, idx, ROWS, (1, 4)), (jnp.asarray(X),),
                           (jnp.asarray(t),))
    np.testing.assert_array_equal(out, X[[1, 0]])
    np.testing.assert_array_equal(tout, np.ones((2, 4)))


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 0)])
def test_vmap_gather_vs_loop(in_axes):
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(2, 3, 4)).astype(np.float32)
    idxs = rng.integers(0, 3, size=(2, 5, 1))
    x_arg = xs if in_axes[0] != 1 else np.moveaxis(xs, 0, 1)
    x_arg = x_arg if in_axes[0] is not None else xs[0]
    i_arg = idxs if in_axes[1] is not None else idxs[0]
    f = lambda x, i: lax.gather(x, i, ROWS, (1, 4))
    out = numjax.vmap(f, in_axes=in_axes)(x_arg, i_arg)
    for b in range(2):
        xb = xs[b] if in_axes[0] is not None else xs[0]
        ib = idxs[b] if in_axes[1] is not None else idxs[0]
        np.testing.assert_array_equal(out[b], f(xb, ib))


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, None), (None, None, 0),
                                     (0, 0, 0), (0, None, 0)])
@pytest.mark.parametrize("fn", [lax.scatter_add, lax.scatter, lax.scatter_max])
def test_vmap_scatter_vs_loop(in_axes, fn):
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(2, 3, 4)).astype(np.float32)
    idxs = rng.integers(0, 3, size=(2, 2, 1))
    upds = rng.normal(size=(2, 2, 4)).astype(np.float32)
    args = [a if d is not None else a[0] for a, d in zip((xs, idxs, upds), in_axes, strict=True)]
    f = lambda x, i, u: fn(x, i, u, ROWS_S)
    out = numjax.vmap(f, in_axes=in_axes)(*args)
    for b in range(2):
        bargs = [a[b] if d is not None else a for a, d in zip(args, in_axes, strict=True)]
        np.testing.assert_array_equal(out[b], f(*bargs))


def test_make_jaxpr_shows_gather():
    text = str(numjax.make_jaxpr(lambda x: lax.gather(x, np.array([[1]]), ROWS, (1, 4)))(X))
    assert "gather[" in text and "GatherDimensionNumbers(offset_dims=(1,)" in text


@pytest.mark.parametrize("combine,name", [("add", "add"), ("multiply", "mul")])
def test_adding_or_multiplying_into_booleans_is_refused(combine, name):
    # JAX 0.4.30: the combiner takes no booleans; set/max/min do.
    b = numjax.numpy.array([True, False, True])
    with pytest.raises(TypeError, match=f"^{name} does not accept dtype bool at position 0. "
                                        "Accepted dtypes at position 0 are subtypes of integer, "
                                        "complexfloating, floating.$"):
        getattr(b.at[0], combine)(True)
    np.testing.assert_array_equal(b.at[0].max(False), [True, False, True])
    np.testing.assert_array_equal(b.at[0].set(False), [False, False, True])


# ---- gather's shape checks: JAX 0.4.30's order and messages ---------------------------------
# (name, operand shape, indices shape, (offset_dims, collapsed_slice_dims, start_index_map),
#  slice_sizes, error, message)
GATHER_SHAPE_ERRORS = [
    ('unsorted collapsed', (10, 9), (5, 1), ((1,), (1, 0), (0,)), (1, 1),
     TypeError, 'collapsed_slice_dims in gather op must be sorted; got (1, 0)'),
    ('repeated collapsed', (10, 9), (5, 1), ((1,), (0, 0), (0,)), (1, 1),
     TypeError, 'collapsed_slice_dims in gather op must not repeat; got: (0, 0).'),
    ('collapsed out of range', (10, 9), (5, 1), ((1,), (2,), (0,)), (1, 1),
     TypeError, 'Invalid collapsed_slice_dims set in gather op; valid range is [0, 2); got: 2.'),
    ('unsorted offset', (10, 9, 8), (5, 1), ((2, 1), (0,), (0,)), (1, 9, 8),
     TypeError, 'offset_dims in gather op must be sorted; got (2, 1)'),
    ('repeated offset', (10, 9, 8), (5, 1), ((1, 1), (0,), (0,)), (1, 9, 8),
     TypeError, 'offset_dims in gather op must not repeat; got: (1, 1).'),
    ('offset out of bounds', (10, 9), (5, 1), ((2,), (0,), (0,)), (1, 9),
     TypeError, 'Offset dimension 0 in gather op is out of bounds; got 2, but should have been '
                'in [0, 2)'),
    ('start_index_map length', (10, 9), (5, 2), ((1,), (0,), (0,)), (1, 9),
     TypeError, 'Gather op has 1 elements in start_index_map and the bound of dimension '
                'index_vector_dim=1 of indices is 2. These two numbers must be equal.'),
    ('start_index_map range', (10, 9), (5, 1), ((1,), (0,), (2,)), (1, 9),
     TypeError, 'Invalid start_index_map; domain is [0, 2), got: 0->2.'),
    ('start_index_map repeat', (10, 9), (5, 2), ((1,), (0,), (0, 0)), (1, 9),
     TypeError, 'start_index_map in gather op must not repeat; got: (0, 0).'),
    ('slice_sizes length', (10, 9), (5, 1), ((1,), (0,), (0,)), (1,),
     TypeError, 'Gather op must have one slice size for every input dimension; got: '
                'len(slice_sizes)=1, input_shape.rank=2'),
    ('not all dims', (10, 9), (5, 1), ((1,), (), (0,)), (1, 9),
     TypeError, 'All components of the offset index in a gather op must either be a offset '
                'dimension or explicitly collapsed; got len(slice_sizes)=2, '
                'output_slice_sizes=(1,), collapsed_slice_dims=().'),
    ('slice size range', (10, 9), (5, 1), ((1,), (0,), (0,)), (1, 10),
     TypeError, 'Slice size at index 1 in gather op is out of range, must be within [0, 9 + '
                '1), got 10.'),
    ('collapse bound', (10, 9), (5, 1), ((1,), (0,), (0,)), (2, 9),
     TypeError, 'Gather op can only collapse slice dims with bound 1, but bound is 2 for index '
                '0 at position 0.'),
]


@pytest.mark.parametrize("name, oshape, ishape, dn, slice_sizes, error, message",
                         GATHER_SHAPE_ERRORS, ids=[c[0] for c in GATHER_SHAPE_ERRORS])
def test_gather_shape_error_messages(name, oshape, ishape, dn, slice_sizes, error, message):
    offset_dims, collapsed, start_index_map = dn
    dnums = lax.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=collapsed,
                                       start_index_map=start_index_map)
    with pytest.raises(error) as info:
        lax.gather(jnp.ones(oshape), jnp.zeros(ishape, jnp.int32), dnums,
                   slice_sizes=slice_sizes)
    assert str(info.value) == message


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("case", [
    # (operand shape, start_index_map, collapsed dims, slice sizes, offset dims, index shape)
    ((5, 4), (0,), (0,), (1, 4), (0,), (1,)),        # x[i]
    ((5, 4), (0, 1), (0, 1), (1, 1), (), (2,)),      # x[i, j]
    ((5, 4, 3), (1,), (), (5, 2, 3), (0, 1, 2), (1, 1)),  # a window, batch dims of size 1
    ((6,), (0,), (), (3,), (1,), (1, 1)),            # a slice of 3 at i, batch (1,)
])
def test_one_window_gathers_match_the_general_kernel(case, mode):
    """A gather of one index vector reads its window by slicing (its planned kernel): the same
    values as the general kernel for starts in range, clamped and out of range."""
    from numjax._src.lax import gather_scatter as gs

    shape, index_map, collapsed, sizes, offset, index_shape = case
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    dn = lax.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=collapsed,
                                    start_index_map=index_map)
    params = dict(dimension_numbers=dn, slice_sizes=sizes, indices_are_sorted=False,
                  unique_indices=False, mode=gs.GatherScatterMode.from_any(mode),
                  fill_value=None)
    avals = [numjax.core.ShapedArray(shape, np.float32),
             numjax.core.ShapedArray(index_shape, np.int32)]
    planned = gs.gather_p.kernel_for(avals, params)
    for start in [-7, -1, 0, 1, 2, 4, 9]:
        idx = np.full(index_shape, start, np.int32)
        if len(index_map) == 2:
            idx = np.array([start, 1], np.int32).reshape(index_shape)
        want = gs._gather_kernel(x, idx, **params)
        got = planned(x, idx)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert not np.shares_memory(got, x)
        jitted = numjax.jit(lambda x, i: lax.gather(x, i, dn, sizes, mode=mode))(x, idx)
        np.testing.assert_array_equal(np.asarray(jitted), want)


def test_scatter_min_gradient_with_clipped_indices_counts_every_update() -> None:
    # x.at[i].min(u, mode='clip'): each element's cotangent is shared among the operand and
    # the updates equal to the result, a clipped index counting where it lands. JAX 0.4.30
    # counts ties as if out-of-bounds updates were dropped, so its gradients there are wrong:
    # for x = [1, 2, 3], index [5] (clipped to 2) and u = [0]: ([1, 1, 1], [inf]); for the
    # fuzzer's (seed 22001) tie at a clipped index it gives the operand the whole cotangent.
    x = jnp.array([1.0, 2.0, 3.0])

    def grads(i: list[int], u: list[float]) -> Any:
        return numjax.grad(lambda x, u: x.at[jnp.array(i)].min(u, mode="clip").sum(),
                           argnums=(0, 1))(x, jnp.array(u))

    for (i, u), (gx, gu) in [
            (([5], [0.0]), ([1.0, 1.0, 0.0], [1.0])),
            (([5], [3.0]), ([1.0, 1.0, 0.5], [0.5])),
            (([2, 5], [3.0, 0.0]), ([1.0, 1.0, 0.0], [0.0, 1.0])),
            (([-5], [1.0]), ([0.5, 1.0, 1.0], [0.5]))]:
        got_x, got_u = grads(i, u)
        np.testing.assert_allclose(got_x, gx, rtol=1e-6)
        np.testing.assert_allclose(got_u, gu, rtol=1e-6)

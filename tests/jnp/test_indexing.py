"""Advanced indexing, x.at[] updates and nonzero, against NumPy (JAX's facts as literals)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numjax
import numjax.numpy as jnp

XN = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
X = jnp.asarray(XN)
BOOL_MASK = XN[:, :, 0] > 12

INDEX_CASES = [
    (np.array([2, 0]),),
    (np.array([-1, 1]),),
    (slice(None), np.array([3, 0, 1])),
    (np.array([2, 0]), slice(1, 3), np.array([4, -1])),  # separated: advanced dims first
    (np.array([[1], [0]]), np.array([0, 2])),  # broadcast advanced indices
    (Ellipsis, np.array([1, 2])),
    (None, np.array([1]), None, 1),
    (1, slice(None), np.array([0, 4])),  # an int is an advanced index here
    (0, slice(None, None, -1), np.array([1, 2])),
    (BOOL_MASK,),
    (XN > 40,),
    (np.array([True, False, True]), 1),
    (slice(None), np.array([True, False, True, True]), slice(0, 5, 2)),
    ((0, 2),),
    (np.array([], dtype=np.int32),),
    (np.array([[0, 1], [2, 2]]), np.array([[3], [0]]), np.array([1, 4])),
]


@pytest.mark.parametrize("index", INDEX_CASES, ids=[str(i) for i in range(len(INDEX_CASES))])
def test_getitem_matches_numpy(index):
    out = X[index]
    expected = XN[index]
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("index", [True, False, (Ellipsis, True), (True, np.array([0, 0]))])
def test_boolean_scalars(index):
    assert X[index].shape == XN[index].shape
    np.testing.assert_array_equal(X[index], XN[index])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_getitem_hypothesis(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    xn = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    index = []
    n = data.draw(st.integers(0, 3))  # one length, so the index arrays broadcast
    for size in shape:
        kind = data.draw(st.sampled_from(["int", "array", "slice", "none"]))
        if kind == "int":
            index.append(data.draw(st.integers(-size, size - 1)))
        elif kind == "array":
            index.append(np.array(data.draw(st.lists(st.integers(-size, size - 1), min_size=n,
                                                     max_size=n)), dtype=np.int32))
        elif kind == "slice":
            start = data.draw(st.none() | st.integers(-size, size))
            step = data.draw(st.none() | st.sampled_from([1, 2, -1, -2]))
            index.append(slice(start, None, step))
        else:
            index.append(None)
            index.append(slice(None))
    index = tuple(index)
    np.testing.assert_array_equal(jnp.asarray(xn)[index], xn[index])


def test_traced_scalar_index_under_vmap_and_grad():
    out = numjax.vmap(lambda i: X[i, 1])(jnp.array([2, 0, -1]))
    np.testing.assert_array_equal(out, XN[[2, 0, -1], 1])
    out = numjax.vmap(lambda x: x[jnp.array([1, 0])])(X)
    np.testing.assert_array_equal(out, XN[:, [1, 0]])
    g = numjax.grad(lambda x: x[jnp.array([1, 1, 0])].sum())(jnp.arange(3.0))
    np.testing.assert_array_equal(g, [1, 2, 0])
    g = numjax.grad(lambda x: (x[:, jnp.array([0, 0, 3])] ** 2).sum())(X)
    expected = np.zeros_like(XN)
    expected[:, 0] = 4 * XN[:, 0]
    expected[:, 3] = 2 * XN[:, 3]
    np.testing.assert_allclose(g, expected)


def test_vmap_matches_loop():
    idx = jnp.array([[0, 2], [3, 3], [1, 0]])
    out = numjax.vmap(lambda x, i: x[i, 1:3])(X, idx)
    for b in range(3):
        np.testing.assert_array_equal(out[b], XN[b][np.asarray(idx)[b], 1:3])


def test_out_of_bounds_get_clamps_or_fills():
    x = jnp.arange(10.0)
    np.testing.assert_array_equal(x[jnp.array([11, -11, -1])], [9, 0, 9])  # JAX 0.4.30
    out = x.at[jnp.array([11, -11, -1])].get(mode="fill")
    np.testing.assert_array_equal(out, [np.nan, np.nan, 9])
    out = jnp.arange(4).at[jnp.array([1, 7])].get(mode="fill", fill_value=-3)
    np.testing.assert_array_equal(out, [1, -3])


def test_index_errors():
    with pytest.raises(TypeError, match="Indexer must have integer or boolean type, got "
                       "indexer with type float32 at position 0, indexer value 1.0"):
        X[1.0]
    with pytest.raises(TypeError, match=r"at position 1, indexer value \[1. 2.\]"):
        X[:, jnp.array([1.0, 2.0])]
    with pytest.raises(TypeError, match="non-tuple sequence"):
        X[[1, 2]]
    with pytest.raises(TypeError, match="string indexing"):
        X["a"]
    with pytest.raises(IndexError):
        X[0, 0, 0, 0]
    with pytest.raises(IndexError, match="Too many indices"):
        X[jnp.array([0]), 0, 0, 0]
    with pytest.raises(IndexError, match="boolean index did not match"):
        X[np.array([[True, False]])]
    with pytest.raises(IndexError, match="shape mismatch"):
        X[np.array([0, 1]), np.array([0, 1, 2])]


def test_traced_boolean_mask_raises():
    with pytest.raises(numjax.errors.NonConcreteBooleanIndexError):
        numjax.vmap(lambda x: x[x > 2])(jnp.ones((2, 3)))


# ---- .at[] updates -------------------------------------------------------------------------

UPDATE_INDICES = [
    np.array([1, 1, 0]),
    (slice(None), np.array([3, 3, -1])),
    (0, slice(1, 4)),
    (np.array([2, 0]), slice(None), np.array([4, 4])),
    (BOOL_MASK,),
    1,
    (Ellipsis, 2),
]


def _np_update(ufunc, x, index, values):
    out = x.copy()
    if ufunc is None:
        out[index] = values
    else:
        ufunc.at(out, index, values)
    return out


@pytest.mark.parametrize("index", UPDATE_INDICES, ids=[str(i) for i in range(7)])
@pytest.mark.parametrize("method,ufunc", [("set", None), ("add", np.add),
                                          ("multiply", np.multiply), ("min", np.minimum),
                                          ("max", np.maximum)])
def test_at_updates_match_numpy(index, method, ufunc):
    values = np.random.default_rng(0).normal(size=XN[index].shape).astype(np.float32) * 30
    out = getattr(X.at[index], method)(values)
    np.testing.assert_allclose(out, _np_update(ufunc, XN, index, values), rtol=1e-6)


def test_at_scalar_values_broadcast_and_cast():
    out = jnp.zeros((2, 3)).at[:, 1].set(5)
    np.testing.assert_array_equal(out, [[0, 5, 0], [0, 5, 0]])
    assert out.dtype == np.float32
    out = jnp.arange(5).at[jnp.array([1, 1])].mul(3)
    np.testing.assert_array_equal(out, [0, 9, 2, 3, 4])
    assert out.dtype == np.int32
    out = jnp.zeros(3).at[1].add(np.ones((1, 1)))  # extra leading 1-axes are allowed
    np.testing.assert_array_equal(out, [0, 1, 0])


def test_at_divide_power_apply():
    np.testing.assert_array_equal(jnp.arange(5).at[1].divide(2), [0, 0.5, 2, 3, 4])
    np.testing.assert_array_equal(jnp.arange(5).at[2].power(3), [0, 1, 8, 3, 4])
    out = jnp.arange(5.0).at[jnp.array([1, 1, 7])].apply(lambda v: v * 2)
    np.testing.assert_array_equal(out, [0, 4, 2, 3, 4])  # JAX 0.4.30's answer


@pytest.mark.parametrize("method,x_grad,v_grad", [
    # JAX 0.4.30's gradients of x.at[1].<method>(3.).sum() at x = [1, 2, 3]; the static index
    # makes the scatter unique, so the value's gradient exists
    ("multiply", [1.0, 3.0, 1.0], 2.0),
    ("divide", [1.0, 0.333333343, 1.0], -0.222222224),
    ("power", [1.0, 12.0, 1.0], 5.545177460),
])
@pytest.mark.parametrize("index", [1, (1,), jnp.array(1)], ids=["int", "tuple", "0-d array"])
def test_at_updates_with_static_indices_differentiate_in_the_values(method, x_grad, v_grad,
                                                                    index):
    x = jnp.array([1.0, 2.0, 3.0])
    gx = numjax.grad(lambda x: getattr(x.at[index], method)(3.0).sum())(x)
    np.testing.assert_allclose(gx, x_grad, rtol=1e-6)
    for grad in (numjax.grad, lambda f: numjax.jit(numjax.grad(f))):
        gv = grad(lambda v: getattr(x.at[index], method)(v).sum())(3.0)
        np.testing.assert_allclose(gv, v_grad, rtol=1e-6)


def test_at_static_indices_mark_the_scatter_unique_and_sorted():
    text = str(numjax.make_jaxpr(lambda x: x.at[1, 1:].multiply(3.0))(jnp.ones((2, 3))))
    assert "indices_are_sorted=True" in text and "unique_indices=True" in text
    text = str(numjax.make_jaxpr(lambda x: x.at[jnp.array([1])].multiply(3.0))(jnp.ones(2)))
    assert "indices_are_sorted=False" in text and "unique_indices=False" in text


def test_at_out_of_bounds_dropped_or_clipped():
    np.testing.assert_array_equal(jnp.zeros(4).at[jnp.array([1, 1, 9])].add(1.0), [0, 2, 0, 0])
    np.testing.assert_array_equal(jnp.zeros(4).at[9].set(1.0), [0, 0, 0, 0])
    np.testing.assert_array_equal(jnp.zeros(4).at[9].set(1.0, mode="clip"), [0, 0, 0, 1])
    np.testing.assert_array_equal(jnp.zeros(4).at[-5].set(1.0), [0, 0, 0, 0])


def test_at_grad_and_vmap():
    g = numjax.grad(lambda x: x.at[jnp.array([1, 1])].mul(3.0).sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1, 9, 1, 1, 1])
    g = numjax.grad(lambda x: x.at[jnp.array([1, 2])].max(2.0).sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1, 0, 0.5, 1, 1])
    g = numjax.grad(lambda x: x.at[jnp.array([1, 1])].set(jnp.array([3.0, 4.0])).sum())(
        jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1, 0, 1, 1, 1])
    gu = numjax.grad(lambda u: jnp.zeros(5).at[jnp.array([1, 1])].set(u).sum())(
        jnp.array([3.0, 4.0]))
    np.testing.assert_array_equal(gu, [0, 1])
    gu = numjax.grad(lambda u: (jnp.zeros((3, 4)).at[1:, ::2].add(u) ** 2).sum())(
        jnp.ones((2, 2)))
    np.testing.assert_array_equal(gu, 2 * np.ones((2, 2)))
    out = numjax.vmap(lambda x, i, v: x.at[i].add(v))(jnp.zeros((3, 4)), jnp.array([0, 3, 3]),
                                                      jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [[1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 0, 3]])


# ---- nonzero -------------------------------------------------------------------------------


def test_nonzero_family_matches_numpy():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    for got, want in zip(jnp.nonzero(a), np.nonzero(a), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jnp.argwhere(a), np.argwhere(a))
    np.testing.assert_array_equal(jnp.flatnonzero(a), np.flatnonzero(a))
    np.testing.assert_array_equal(jnp.where(jnp.asarray(a))[1], np.nonzero(a)[1])
    r, c = jnp.nonzero(a, size=5, fill_value=-1)
    np.testing.assert_array_equal(r, [0, 1, 1, -1, -1])
    np.testing.assert_array_equal(c, [1, 0, 2, -1, -1])
    np.testing.assert_array_equal(jnp.nonzero(a, size=1)[1], [1])
    assert jnp.argwhere(np.array(3)).shape == np.argwhere(np.array(3)).shape


def test_nonzero_under_vmap_with_size():
    masks = np.array([[0, 1, 1, 0, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]])
    (out,) = numjax.vmap(lambda m: jnp.nonzero(m, size=3, fill_value=-1))(masks)
    np.testing.assert_array_equal(out, [[1, 2, 4], [0, 1, 2], [-1, -1, -1]])
    rows = numjax.vmap(lambda m: jnp.argwhere(m.reshape(5, 1), size=2))(masks)
    np.testing.assert_array_equal(rows[0], [[1, 0], [2, 0]])


def test_nonzero_errors():
    with pytest.raises(numjax.errors.ConcretizationTypeError,
                       match="The size argument of jnp.nonzero must be statically specified"):
        numjax.vmap(jnp.nonzero)(jnp.ones((2, 3)))
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        jnp.nonzero(jnp.array(1))


@pytest.mark.parametrize("mask,expected", [
    # JAX 0.4.30: a 0-d boolean mask on a 0-d array adds an axis of length 1 (True) or 0
    (True, [5.0]), (False, []), (np.array(True), [5.0]), (jnp.array(True), [5.0]),
    (jnp.array(False), []),
])
def test_boolean_mask_on_a_0d_array(mask, expected):
    s = jnp.array(5.0)
    out = s[mask]
    assert out.shape == (len(expected),) and out.weak_type
    np.testing.assert_array_equal(out, expected)
    assert numjax.jit(lambda s: s[True])(s).shape == (1,)


@pytest.mark.parametrize("fn,aval", [
    (lambda s, m: s[m], "ShapedArray(bool[])"),
    (lambda s, m: s[s > 0], "ShapedArray(bool[], weak_type=True)"),
    (lambda s, m: jnp.array([1 + 1j, -1j])[jnp.array([1 + 1j, -1j]).real > s],
     "ShapedArray(bool[2])"),
])
def test_traced_masks_on_0d_and_complex_arrays_are_not_concrete(fn, aval):
    with pytest.raises(numjax.errors.NonConcreteBooleanIndexError) as info:
        numjax.jit(fn)(jnp.array(5.0), jnp.array(True))
    assert str(info.value).startswith(f"Array boolean indices must be concrete; got {aval}\n")


@pytest.mark.parametrize("fn,expected,dtype", [
    # JAX 0.4.30: the update runs in the promoted dtype and is cast back, with a FutureWarning
    (lambda: jnp.array([10, 8, 12, 10], jnp.uint32).at[jnp.array([0, 1, 2, 3])].multiply(0.5),
     [5, 4, 6, 5], "uint32"),
    (lambda: jnp.array([10, 8, 12, 10]).at[jnp.array([0, 1])].multiply(2.7),
     [27, 21, 12, 10], "int32"),
    (lambda: jnp.array([10, 8, 12, 10]).at[jnp.array([0, 1])].add(2.7), [12, 10, 12, 10],
     "int32"),
    (lambda: jnp.array([False, False, False]).at[0].multiply(2), [False, False, False], "bool"),
    (lambda: jnp.array([True, False, False]).at[0].divide(1), [1.0, 0.0, 0.0], "float32"),
    (lambda: jnp.array([False, False, False]).at[0].power(2), [0, 0, 0], "int32"),
])
def test_updates_of_another_dtype_are_promoted_then_cast_back(fn, expected, dtype):
    with pytest.warns(FutureWarning, match="^scatter inputs have incompatible types: cannot "
                                           "safely cast value from dtype="):
        out = fn()
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_safe_updates_do_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = jnp.array([1, 2], jnp.int8).at[0].add(3)
        assert out.dtype == np.int8 and out.tolist() == [4, 2]
        assert jnp.zeros(2).at[1].set(1).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("fn,result", [("sin", "f32"), ("astype", "i32")])
def test_at_apply_must_keep_the_dtype(fn, result):
    x = jnp.array([6, 5, 4]) if fn == "sin" else jnp.array([6.0, 5.0, 4.0])
    func = jnp.sin if fn == "sin" else (lambda v: v.astype(jnp.int32))
    operand = "i32" if fn == "sin" else "f32"
    for f in (lambda x: x.at[0].apply(func), numjax.jit(lambda x: x.at[0].apply(func))):
        with pytest.raises(ValueError, match="^Cannot lower jaxpr with verifier errors:\n\tThe "
                           "type of reduction-region's parameter at index 0 is different than "
                           f"the corresponding result type: 'tensor<{operand}>' vs "
                           f"'tensor<{result}>'"):
            f(x)


@pytest.mark.parametrize("index, shape", [
    (((1, 0), (1, 2)), (2, 7)),          # JAX: jit(lambda x, i: x[i]) stacks traced sequences
    ((((1, 1), (1, 0)), 2), (2, 2, 7)),
])
def test_sequences_of_traced_integers_index_like_arrays(index, shape):
    x = jnp.arange(42.0).reshape(2, 3, 7)
    got = numjax.jit(lambda x, i: x[i])(x, index)
    assert got.shape == shape
    np.testing.assert_array_equal(got, np.asarray(x)[tuple(np.asarray(i) for i in index)])
    got = numjax.jit(lambda x, i: x.at[i].set(-1.0))(x, index)
    want = np.asarray(x).copy()
    want[tuple(np.asarray(i) for i in index)] = -1.0
    np.testing.assert_array_equal(got, want)


_X34 = np.arange(12.0, dtype=np.float32).reshape(3, 4)

# (update, JAX 0.4.30's result) for updates at integers on the leading axes
LEADING_INTEGER_UPDATES = [
    (lambda: jnp.zeros(5).at[10].set(1), [0.0] * 5),
    (lambda: jnp.zeros(5).at[-6].set(1), [0.0] * 5),
    (lambda: jnp.zeros(5).at[-1].set(1), [0.0, 0.0, 0.0, 0.0, 1.0]),
    (lambda: jnp.asarray(_X34).at[1].set(jnp.array([1.0, 2, 3, 4])),
     [[0, 1, 2, 3], [1, 2, 3, 4], [8, 9, 10, 11]]),
    (lambda: jnp.asarray(_X34).at[1, :].add(1), [[0, 1, 2, 3], [5, 6, 7, 8], [8, 9, 10, 11]]),
    (lambda: jnp.asarray(_X34).at[2, ...].mul(2),
     [[0, 1, 2, 3], [4, 5, 6, 7], [16, 18, 20, 22]]),
    (lambda: jnp.asarray(_X34).at[1, 2].max(100), [[0, 1, 2, 3], [4, 5, 100, 7], [8, 9, 10, 11]]),
    (lambda: jnp.asarray(_X34).at[-1, 7].set(0, mode="clip"),
     [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 0]]),
    (lambda: jnp.zeros(3, bool).at[0].set(True), [True, False, False]),
    (lambda: jnp.zeros(3).at[np.int64(1)].add(2), [0.0, 2.0, 0.0]),
    (lambda: jnp.zeros(3).at[np.uint32(2)].add(2), [0.0, 0.0, 2.0]),
    (lambda: jnp.ones(3).at[1].apply(lambda v: v * 5), [1.0, 5.0, 1.0]),
    (lambda: numjax.jit(lambda a, i: a.at[i].add(1.0))(jnp.zeros(4), 7), [0.0] * 4),
    (lambda: numjax.jit(lambda a, i: a.at[i].add(1.0))(jnp.zeros(4), -1), [0, 0, 0, 1.0]),
    (lambda: numjax.jit(lambda a, i, j: a.at[i, j].add(1.0))(_X34, 2, -1),
     [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 12]]),
]


@pytest.mark.parametrize("k", range(len(LEADING_INTEGER_UPDATES)))
def test_updates_at_leading_integers_match_jax(k):
    update, expected = LEADING_INTEGER_UPDATES[k]
    np.testing.assert_array_equal(np.asarray(update()), np.asarray(expected))


def test_an_update_at_leading_integers_is_one_scatter_of_the_trailing_block():
    # As JAX: the indices are the normalized integers, the updates the block at that place; no
    # positions of every element (an iota the operand's size) are computed.
    jaxpr = numjax.make_jaxpr(lambda a, i: a.at[i, 1].add(1.0))(jnp.asarray(_X34), 1)
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert "iota" not in names and "gather" not in names and names[-1] == "scatter-add"
    scatter = jaxpr.jaxpr.eqns[-1]
    assert [v.aval.shape for v in scatter.invars] == [(3, 4), (2,), ()]
    dn = scatter.params["dimension_numbers"]
    assert (dn.update_window_dims, dn.inserted_window_dims, dn.scatter_dims_to_operand_dims) \
        == ((), (0, 1), (0, 1))
    row = numjax.make_jaxpr(lambda a: a.at[1].set(2.0))(jnp.asarray(_X34)).jaxpr.eqns[-1]
    assert [v.aval.shape for v in row.invars] == [(3, 4), (1,), (4,)]
    assert row.params["dimension_numbers"].update_window_dims == (0,)


@pytest.mark.parametrize(("index", "shape"), [
    (([], -3, Ellipsis), (0, 1)),   # JAX 0.4.30's shapes: an empty sequence is an integer index
    ((slice(None), [[], []]), (1, 2, 0, 1)),
    ((0, []), (0, 1)),
])
def test_empty_sequences_index_as_integers(index, shape):
    a = jnp.asarray(np.array([[[-2], [5]]], dtype=np.int32))
    assert a[index].shape == shape
    assert numjax.jit(lambda a: a[index])(a).shape == shape
    np.testing.assert_array_equal(a.at[index].set(1), a)  # nothing indexed: unchanged

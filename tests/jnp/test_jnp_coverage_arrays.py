"""Creation, manipulation, selection, statistics, polynomial, set and linalg jnp functions against
NumPy, for the functions no other test compares with NumPy (found by auditing
`dir(numjax.numpy)`, `dir(numjax.numpy.linalg)` against tests/).

A case is a function of (module, x): it runs once with `numjax.numpy` and once with `numpy` on the
same operand `x` (drawn per dtype), unless the case names a separate NumPy reference. The result
dtype must follow JAX's rule with x64 off: NumPy's result dtype with 64-bit types narrowed to 32
bits, unless the case fixes it.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax.numpy as jnp

Shape = tuple[int, ...]
F32, I32, BOOL, U8 = (np.dtype(t) for t in ("float32", "int32", "bool", "uint8"))
C64 = np.dtype("complex64")
_NARROW = {np.dtype("float64"): F32, np.dtype("int64"): I32, np.dtype("complex128"): C64}


def make(shape: Shape, dtype: np.dtype, seed: int = 0) -> np.ndarray:
    """Operands with no zero leading entry: NumPy's polynomial functions strip those."""
    x = _draw(shape, dtype, seed)
    if x.ndim == 1 and x.size and dtype.kind in "iuf":
        x[0] = 3
    return x


def _draw(shape: Shape, dtype: np.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-4 if dtype.kind == "i" else 0, 5, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dtype)
    return rng.uniform(-3, 3, shape).astype(dtype)


def check(actual: Any, expected: Any, dtype: Any = None, rtol: float = 1e-5) -> None:
    """Values, shapes and (if given) the dtype of every leaf of `actual`."""
    if isinstance(expected, tuple | list):
        assert isinstance(actual, tuple | list), type(actual)
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            check(a, e, dtype, rtol)
        return
    if isinstance(expected, bool | int | str) and not hasattr(actual, "shape"):
        assert type(actual) is type(expected) and actual == expected, (actual, expected)
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    want = _NARROW.get(e.dtype, e.dtype) if dtype is None else np.dtype(dtype)
    assert a.dtype == want, (a.dtype, want)
    if e.dtype.kind in "biu" and a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, e)
    else:
        np.testing.assert_allclose(a.astype(np.complex128), e.astype(np.complex128), rtol=rtol,
                                   atol=rtol)


@dataclasses.dataclass(frozen=True)
class Case:
    fn: Callable[..., Any]  # (module, x) -> result
    dtypes: tuple[np.dtype, ...] = (F32, I32)
    shape: Shape = (3, 4)
    ref: Callable[..., Any] | None = None  # (x) -> NumPy's result, where it is not fn(np, x)
    dtype: np.dtype | None = None  # the JAX result dtype, where it is not NumPy's narrowed
    rtol: float = 1e-5


def _inplace(np_fn: Callable[..., Any], *args: Any) -> Callable[[np.ndarray], np.ndarray]:
    """A NumPy reference for an in-place NumPy function (jnp's takes `inplace=False`)."""

    def ref(x: np.ndarray) -> np.ndarray:
        out = x.copy()
        np_fn(out, *args)
        return out

    return ref


_SORTED = np.array([-2.0, -0.5, 0.0, 1.0, 2.5], np.float32)
_P = np.array([1.0, -3.0, 2.0], np.float32)  # (x - 1)(x - 2)
_Q = np.array([2.0, 0.5], np.float32)

CASES: dict[str, Case] = {
    # ---- shape manipulation
    "atleast_1d": Case(lambda m, x: m.atleast_1d(x[0, 0], x), shape=(2, 3)),
    "atleast_2d": Case(lambda m, x: m.atleast_2d(x[0, 0], x[0], x)),
    "atleast_3d": Case(lambda m, x: m.atleast_3d(x[0, 0], x[0], x)),
    "broadcast_arrays": Case(lambda m, x: m.broadcast_arrays(x, x[:1], x[0, 0])),
    "broadcast_to": Case(lambda m, x: m.broadcast_to(x[:1], (2, 3, 4))),
    "broadcast_shapes": Case(lambda m, x: m.broadcast_shapes((3, 1), (4,), ())),
    "concat": Case(lambda m, x: m.concat([x, x[:1]], axis=0)),
    "concatenate": Case(lambda m, x: m.concatenate([x, x], axis=None)),
    "stack": Case(lambda m, x: m.stack([x, x + 1], axis=-1)),
    "unstack": Case(lambda m, x: m.unstack(x, axis=1)),
    "hstack": Case(lambda m, x: m.hstack([x, x])),
    "vstack": Case(lambda m, x: m.vstack([x, x[0]])),
    "dstack": Case(lambda m, x: m.dstack([x, x])),
    "column_stack": Case(lambda m, x: m.column_stack([x[0], x[1]])),
    "block": Case(lambda m, x: m.block([[x, x[:, :1]], [x[:1], x[:1, :1]]])),
    "split": Case(lambda m, x: m.split(x, [1, 3], axis=1)),
    "hsplit": Case(lambda m, x: m.hsplit(x, 2)),
    "vsplit": Case(lambda m, x: m.vsplit(x, [1])),
    "dsplit": Case(lambda m, x: m.dsplit(x, 2), shape=(2, 3, 4)),
    "expand_dims": Case(lambda m, x: m.expand_dims(x, (0, 3))),
    "squeeze": Case(lambda m, x: m.squeeze(x, axis=(0, 2)), shape=(1, 4, 1)),
    "ravel": Case(lambda m, x: m.ravel(x, order="F")),
    "transpose": Case(lambda m, x: m.transpose(x, (2, 0, 1)), shape=(2, 3, 4)),
    "permute_dims": Case(lambda m, x: m.permute_dims(x, (1, 2, 0)), shape=(2, 3, 4)),
    "matrix_transpose": Case(lambda m, x: m.matrix_transpose(x), shape=(2, 3, 4)),
    "moveaxis": Case(lambda m, x: m.moveaxis(x, (0, 1), (-1, 0)), shape=(2, 3, 4)),
    "rollaxis": Case(lambda m, x: m.rollaxis(x, 2, 1), shape=(2, 3, 4)),
    "swapaxes": Case(lambda m, x: m.swapaxes(x, 0, -1), shape=(2, 3, 4)),
    "flip": Case(lambda m, x: m.flip(x, axis=(0, 2)), shape=(2, 3, 4)),
    "flip_all": Case(lambda m, x: m.flip(x)),
    "fliplr": Case(lambda m, x: m.fliplr(x)),
    "copy": Case(lambda m, x: m.copy(x)),
    "astype": Case(lambda m, x: m.astype(x, np.int8), dtypes=(F32, I32, BOOL)),
    "ndim": Case(lambda m, x: m.ndim(x), shape=(2, 3, 4)),
    "size": Case(lambda m, x: m.size(x)),
    "size_axis": Case(lambda m, x: m.size(x, 1)),
    # ---- creation
    "empty": Case(lambda m, x: m.empty((2, 3)).shape),
    "empty_like": Case(lambda m, x: m.empty_like(x).shape),
    "eye": Case(lambda m, x: m.eye(3, 4, k=1)),
    "eye_int": Case(lambda m, x: m.eye(3, dtype=np.int32)),
    "identity": Case(lambda m, x: m.identity(3)),
    "full": Case(lambda m, x: m.full((2, 3), 1.5)),
    "full_int": Case(lambda m, x: m.full((2,), 7)),
    "full_like": Case(lambda m, x: m.full_like(x, 2)),
    "ones_like": Case(lambda m, x: m.ones_like(x, dtype=np.float32)),
    "zeros_like": Case(lambda m, x: m.zeros_like(x), dtypes=(F32, I32, BOOL)),
    "linspace": Case(lambda m, x: m.linspace(-1.0, 2.0, 7)),
    "linspace_retstep": Case(lambda m, x: m.linspace(0, 1, 5, endpoint=False, retstep=True),
                             ref=lambda x: (np.linspace(0, 1, 5, endpoint=False),
                                            np.float32(0.2))),
    "linspace_axis": Case(lambda m, x: m.linspace(x[0], x[1], 3, axis=-1), shape=(2, 3)),
    "logspace": Case(lambda m, x: m.logspace(0.0, 2.0, 5), rtol=1e-5),
    "logspace_base": Case(lambda m, x: m.logspace(1.0, 3.0, 4, base=2.0, endpoint=False)),
    "geomspace": Case(lambda m, x: m.geomspace(1.0, 1000.0, 4)),
    "diagflat": Case(lambda m, x: m.diagflat(x, k=-1), shape=(2, 2)),
    "fromfunction": Case(lambda m, x: m.fromfunction(lambda i, j: i * 3 + j, (2, 3)),
                         dtypes=(F32,)),
    "frombuffer": Case(lambda m, x: m.frombuffer(np.arange(4, dtype=np.int32).tobytes(),
                                                 dtype=np.int32)),
    "fromstring": Case(lambda m, x: m.fromstring("1 2 3.5", dtype=np.float32, sep=" ")),
    "kaiser": Case(lambda m, x: m.kaiser(6, 4.0), rtol=1e-5),
    "kaiser_one": Case(lambda m, x: m.kaiser(1, 2.0)),
    # ---- index helpers
    "diag_indices": Case(lambda m, x: m.diag_indices(3, 3)),
    "diag_indices_from": Case(lambda m, x: m.diag_indices_from(x), shape=(3, 3)),
    "tril_indices": Case(lambda m, x: m.tril_indices(3, -1, 4)),
    "triu_indices": Case(lambda m, x: m.triu_indices(4, 1)),
    "tril_indices_from": Case(lambda m, x: m.tril_indices_from(x, 1)),
    "triu_indices_from": Case(lambda m, x: m.triu_indices_from(x)),
    "mask_indices": Case(lambda m, x: m.mask_indices(3, m.triu, 1)),
    "ix_": Case(lambda m, x: m.ix_(np.array([0, 2]), np.array([3, 1, 2]), np.array([1]))),
    # ---- selection and sorting
    "choose": Case(lambda m, x: m.choose(np.array([[0, 1, 2, 1]] * 3), [x, x + 1, -x])),
    "choose_wrap": Case(lambda m, x: m.choose(np.array([0, 4, -1, 2]), [x[0], x[1]],
                                              mode="wrap")),
    "compress": Case(lambda m, x: m.compress(np.array([True, False, True]), x, axis=0)),
    "extract": Case(lambda m, x: m.extract(x > 0, x)),
    "select": Case(lambda m, x: m.select([x < -1, x > 1], [x, 2 * x], default=-7)),
    "piecewise": Case(lambda m, x: m.piecewise(x, [x < 0, x > 1], [lambda v: -v, 5, 1]),
                      dtypes=(F32,)),
    "place": Case(lambda m, x: m.place(x, x > 0, np.array([9, 8], x.dtype), inplace=False),
                  ref=lambda x: _inplace(np.place, x > 0, np.array([9, 8], x.dtype))(x)),
    "put": Case(lambda m, x: m.put(x, np.array([0, 5, 11]), np.array([7, 8, 9], x.dtype),
                                   inplace=False),
                ref=lambda x: _inplace(np.put, np.array([0, 5, 11]),
                                       np.array([7, 8, 9], x.dtype))(x)),
    "put_wrap": Case(lambda m, x: m.put(x, np.array([-1, 13]), np.array([5, 6], x.dtype),
                                        mode="wrap", inplace=False),
                     ref=lambda x: _inplace(np.put, np.array([-1, 13]),
                                            np.array([5, 6], x.dtype), "wrap")(x)),
    "fill_diagonal": Case(lambda m, x: m.fill_diagonal(x, 3, inplace=False),
                          ref=lambda x: _inplace(np.fill_diagonal, 3)(x)),
    "fill_diagonal_tall": Case(lambda m, x: m.fill_diagonal(x, 3, inplace=False),
                               ref=lambda x: _inplace(np.fill_diagonal, 3)(x), shape=(7, 3)),
    "lexsort": Case(lambda m, x: m.lexsort((x[0], x[1] // 2))),
    "sort_complex": Case(lambda m, x: m.sort_complex(x), dtypes=(F32, I32, C64), shape=(6,),
                         dtype=C64),
    "nanargmax": Case(lambda m, x: m.nanargmax(m.where(x > 2, np.nan, x), axis=1)),
    # partition's order within each side is unspecified: compare sorted sides.
    "partition": Case(lambda m, x: np.concatenate(
        [np.sort(np.asarray(m.partition(x, 2, axis=-1))[..., :2], -1),
         np.asarray(m.partition(x, 2, axis=-1))[..., 2:3],
         np.sort(np.asarray(m.partition(x, 2, axis=-1))[..., 3:], -1)], -1)),
    "argpartition": Case(lambda m, x: np.sort(np.take_along_axis(
        x, np.asarray(m.argpartition(x, 1, axis=0)), 0)[:1], 0), shape=(5, 3)),
    # NumPy 2.3+ leaves unique_values unsorted; JAX 0.4.30 sorts like np.unique.
    "unique_values": Case(lambda m, x: m.unique_values(x), ref=np.unique),
    "unique_counts": Case(lambda m, x: tuple(m.unique_counts(x))),
    "unique_inverse": Case(lambda m, x: tuple(m.unique_inverse(x))),
    "unique_all": Case(lambda m, x: tuple(m.unique_all(x))),
    # ---- comparisons and predicates
    "allclose": Case(lambda m, x: m.allclose(x, x + 1e-3, atol=1e-2)),
    "allclose_false": Case(lambda m, x: m.allclose(x, x + 1)),
    "array_equal": Case(lambda m, x: m.array_equal(x, x.copy())),
    "array_equal_shape": Case(lambda m, x: m.array_equal(x, x[:1])),
    "array_equal_nan": Case(lambda m, x: m.array_equal(np.full(3, np.nan), np.full(3, np.nan),
                                                       equal_nan=True)),
    "array_equiv": Case(lambda m, x: m.array_equiv(x[:1], np.broadcast_to(x[:1], (3, 4)))),
    "iscomplexobj": Case(lambda m, x: m.iscomplexobj(x), dtypes=(F32, C64)),
    "isrealobj": Case(lambda m, x: m.isrealobj(x), dtypes=(F32, C64)),
    "isscalar": Case(lambda m, x: (m.isscalar(1.0), m.isscalar(x), m.isscalar("a"))),
    "iterable": Case(lambda m, x: (m.iterable(x), m.iterable(3))),
    "can_cast": Case(lambda m, x: (m.can_cast(np.int32, np.float32, "same_kind"),
                                   m.can_cast(np.float32, np.int32))),
    # ---- statistics, signal processing
    # JAX convolves in floating point: integer operands give float32.
    "convolve": Case(lambda m, x: m.convolve(x, x[:3] * 2), shape=(6,), dtype=F32, rtol=1e-4),
    "convolve_same": Case(lambda m, x: m.convolve(x, x[:4], mode="same"), shape=(6,),
                          dtype=F32, rtol=1e-4),
    "correlate": Case(lambda m, x: m.correlate(x, x[1:4]), shape=(6,), dtype=F32, rtol=1e-4),
    "correlate_full": Case(lambda m, x: m.correlate(x, x[1:3], mode="full"), shape=(6,),
                           dtype=F32, rtol=1e-4),
    "cov": Case(lambda m, x: m.cov(x), rtol=1e-4),
    "cov_kw": Case(lambda m, x: m.cov(x, rowvar=False, ddof=0), rtol=1e-4),
    "corrcoef": Case(lambda m, x: m.corrcoef(x), dtypes=(F32,), rtol=1e-4),
    "digitize": Case(lambda m, x: m.digitize(x, _SORTED)),
    "digitize_right": Case(lambda m, x: m.digitize(x, _SORTED[::-1].copy(), right=True)),
    "ediff1d": Case(lambda m, x: m.ediff1d(x, to_begin=np.array([9]), to_end=0)),
    "gradient": Case(lambda m, x: m.gradient(x), dtypes=(F32,), rtol=1e-4),
    "gradient_axis": Case(lambda m, x: m.gradient(x, 0.5, axis=1), dtypes=(F32,), rtol=1e-4),
    "interp": Case(lambda m, x: m.interp(x, _SORTED, _SORTED ** 2)),
    "interp_left": Case(lambda m, x: m.interp(x, _SORTED, _SORTED, left=-9, right=9)),
    "trapezoid": Case(lambda m, x: m.trapezoid(x, dx=0.5), rtol=1e-4),
    "trapezoid_x": Case(lambda m, x: m.trapezoid(x, _SORTED[:4], axis=-1), rtol=1e-4),
    "unwrap": Case(lambda m, x: m.unwrap(x * 4), dtypes=(F32,), rtol=1e-4),
    "vander": Case(lambda m, x: m.vander(x, 4, increasing=True), shape=(5,)),
    "histogram_bin_edges": Case(lambda m, x: m.histogram_bin_edges(x, 5), dtypes=(F32,)),
    # JAX counts unweighted samples with bincount: int32 where NumPy gives float.
    "histogram2d": Case(lambda m, x: m.histogram2d(x[0], x[1], bins=3)[0], shape=(2, 20),
                        dtype=I32),
    "histogram2d_edges": Case(lambda m, x: m.histogram2d(x[0], x[1], bins=3)[1:],
                              shape=(2, 20), dtype=F32),
    "histogram_max_sample": Case(lambda m, x: m.histogram(x, 3), shape=(20,), dtypes=(F32,),
                                 dtype=F32),
    "histogram2d_weights": Case(lambda m, x: m.histogram2d(x[0], x[1], bins=2, weights=x[0])[0],
                                dtypes=(F32,), shape=(2, 20)),
    "histogramdd": Case(lambda m, x: m.histogramdd(x, bins=(2, 3))[0], shape=(20, 2), dtype=I32),
    "histogramdd_edges": Case(lambda m, x: m.histogramdd(x, bins=(2, 3))[1], shape=(20, 2),
                              dtype=F32),
    # ---- polynomials
    "poly": Case(lambda m, x: m.poly(x), shape=(3,), rtol=1e-4),
    "polyadd": Case(lambda m, x: m.polyadd(x, _Q), shape=(4,)),
    "polysub": Case(lambda m, x: m.polysub(_Q, x), shape=(4,)),
    # NumPy strips leading zeros (through poly1d); JAX 0.4.30 only with trim_leading_zeros.
    "polymul": Case(lambda m, x: m.polymul(x, _Q), shape=(4,)),
    "polymul_trim": Case(lambda m, x: m.polymul(np.array([0.0, 0.0, 1.0, 2.0]), x[:2],
                                                trim_leading_zeros=True),
                         ref=lambda x: np.polymul(np.array([0.0, 0.0, 1.0, 2.0]), x[:2]),
                         shape=(4,), dtype=F32),
    "polydiv": Case(lambda m, x: m.polydiv(x, _Q, trim_leading_zeros=True), dtypes=(F32,),
                    shape=(4,), ref=lambda x: np.polydiv(x, _Q), rtol=1e-4),
    "polyder": Case(lambda m, x: m.polyder(x, 2), shape=(4,), dtype=F32),  # JAX: inexact
    "polyint": Case(lambda m, x: m.polyint(x, k=1.5), shape=(4,)),
    "polyval": Case(lambda m, x: m.polyval(_P, x)),
    "polyfit": Case(lambda m, x: m.polyfit(_SORTED, np.polyval(_P, _SORTED), 2),
                    dtypes=(F32,), rtol=1e-4),
    "roots": Case(lambda m, x: np.sort_complex(np.asarray(m.roots(_P))), dtype=C64,
                  rtol=1e-4),
    # ---- products and einsum
    "inner": Case(lambda m, x: m.inner(x, x[:2])),
    "vdot": Case(lambda m, x: m.vdot(x, x[::-1]), dtypes=(F32, I32, C64)),
    "dot": Case(lambda m, x: m.dot(x, x.T), dtypes=(F32, I32, BOOL)),
    "dot_scalar": Case(lambda m, x: m.dot(x, 2)),
    "dot_nd": Case(lambda m, x: m.dot(x, x[0].T), shape=(2, 3, 3)),
    "outer": Case(lambda m, x: m.outer(x, x[:, :2])),
    "cross": Case(lambda m, x: m.cross(x, x[::-1]), shape=(4, 3)),
    "cross_2d": Case(lambda m, x: m.cross(x[:, :3], x[:, 1:], axisa=1, axisb=1, axisc=0),
                     shape=(2, 4)),
    "vecdot": Case(lambda m, x: m.vecdot(x, x[::-1], axis=0), dtypes=(F32, I32, C64)),
    "matmul": Case(lambda m, x: m.matmul(x, x.T), dtypes=(F32, I32, BOOL)),
    "matmul_vec": Case(lambda m, x: m.matmul(x[0], x), shape=(4, 4)),
    # opt_einsum's path, as JAX returns it: NumPy's without the "einsum_path" head.
    "einsum_path": Case(lambda m, x: m.einsum_path("ij,jk,kl->il", x, x.T, x)[0],
                        ref=lambda x: np.einsum_path("ij,jk,kl->il", x, x.T, x)[0][1:]),
    # ---- bits and packing
    "packbits": Case(lambda m, x: m.packbits(x, axis=-1), dtypes=(BOOL, U8), shape=(2, 11)),
    "packbits_little": Case(lambda m, x: m.packbits(x, bitorder="little"), dtypes=(BOOL,)),
    "unpackbits": Case(lambda m, x: m.unpackbits(x, axis=0, count=-3), dtypes=(U8,)),
    "apply_along_axis": Case(lambda m, x: m.apply_along_axis(lambda v: v[::-1] * v[0], 1, x)),
    "apply_over_axes": Case(lambda m, x: m.apply_over_axes(m.sum, x, [0, 2]), shape=(2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_numpy(name: str) -> None:
    case = CASES[name]
    for i, dtype in enumerate(case.dtypes):
        x = make(case.shape, dtype, seed=i)
        expected = case.ref(x) if case.ref is not None else case.fn(np, x)
        check(case.fn(jnp, x), expected, case.dtype, case.rtol)


def test_trim_zeros_against_numpy() -> None:
    for trim in ("fb", "f", "b"):
        x = np.array([0, 0, 3, 0, 5, 0], np.int32)
        check(jnp.trim_zeros(x, trim), np.trim_zeros(x, trim))


@pytest.mark.parametrize("name", ["matmul", "matrix_transpose", "tensordot", "eig"])
def test_linalg_against_numpy(name: str) -> None:
    a = make((2, 3, 3), F32)
    if name == "matmul":
        check(jnp.linalg.matmul(a, a), np.linalg.matmul(a, a), F32, 1e-5)
    elif name == "matrix_transpose":
        check(jnp.linalg.matrix_transpose(a), np.linalg.matrix_transpose(a), F32)
    elif name == "tensordot":
        check(jnp.linalg.tensordot(a, a[0], axes=2), np.linalg.tensordot(a, a[0], axes=2), F32,
              1e-4)
    else:
        # Eigenvalues come in no fixed order: compare sorted, and check A v = v w.
        w, v = jnp.linalg.eig(a[0])
        assert np.asarray(w).dtype == C64 and np.asarray(v).dtype == C64
        check(np.sort_complex(np.asarray(w)), np.sort_complex(np.linalg.eigvals(a[0])), C64,
              1e-4)
        np.testing.assert_allclose(a[0] @ np.asarray(v), np.asarray(v) * np.asarray(w),
                                   atol=1e-4)


def test_printing_matches_numpy() -> None:
    x = make((2, 3), F32)
    assert jnp.array_str(x, precision=2) == np.array_str(x, precision=2)
    assert jnp.array_repr(jnp.asarray(x)).startswith("Array(")
    with jnp.printoptions(precision=1):
        assert jnp.get_printoptions()["precision"] == 1
    saved = jnp.get_printoptions()
    try:
        jnp.set_printoptions(precision=3)
        assert np.get_printoptions()["precision"] == 3
    finally:
        jnp.set_printoptions(**saved)


def test_save_load_round_trip() -> None:
    x = make((2, 3), F32)
    buf = io.BytesIO()
    jnp.save(buf, jnp.asarray(x))
    buf.seek(0)
    check(jnp.load(buf), x, F32)
    buf = io.BytesIO()
    jnp.savez(buf, a=x)
    buf.seek(0)
    check(np.load(buf)["a"], x, F32)


# What JAX 0.4.30's jnp.load gives for np.save'd arrays: bfloat16 (saved by NumPy as raw `V2`
# bytes) comes back as bfloat16, other raw bytes and strings stay NumPy arrays, the rest
# becomes Arrays of the canonical dtype.
LOAD_CASES: list[tuple[str, Any, str, str]] = [
    ("bfloat16", np.array([1.5, 2.0], dtype=jnp.bfloat16), "ArrayImpl", "bfloat16"),
    ("bfloat16_0d", np.array(3, dtype=jnp.bfloat16), "ArrayImpl", "bfloat16"),
    ("raw_V2", np.array([16320, 16384], dtype=np.uint16).view("V2"), "ArrayImpl", "bfloat16"),
    ("raw_V4", np.array([1, 2], dtype=np.uint32).view("V4"), "ndarray", "|V4"),
    ("strings", np.array(["ab", "c"]), "ndarray", "<U2"),
    ("int64", np.array([1, 2], dtype=np.int64), "ArrayImpl", "int32"),
]


@pytest.mark.parametrize("saved,kind,dtype", [c[1:] for c in LOAD_CASES],
                         ids=[c[0] for c in LOAD_CASES])
def test_load_reads_back_what_numpy_saved(saved: np.ndarray, kind: str, dtype: str) -> None:
    buf = io.BytesIO()
    np.save(buf, saved)
    buf.seek(0)
    out = jnp.load(buf)
    assert (type(out).__name__, str(out.dtype)) == (kind, dtype)
    if dtype == "bfloat16":  # the same bits
        np.testing.assert_array_equal(np.asarray(out).view(np.uint16), saved.view(np.uint16))
    else:
        np.testing.assert_array_equal(np.asarray(out), saved)


def test_fromiter_and_fromfile_are_not_implemented() -> None:
    # As in JAX: they read a non-pure source, which jit would not replay.
    with pytest.raises(NotImplementedError, match="fromiter"):
        jnp.fromiter(iter([1.0, 2.0]), dtype=np.float32)
    with pytest.raises(NotImplementedError, match="fromfile"):
        jnp.fromfile(io.BytesIO(b""))


def test_from_dlpack_and_vectorize() -> None:
    x = make((2, 3), F32)
    check(jnp.from_dlpack(x), x, F32)
    f = jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")
    check(f(x, x[0]), np.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(x, x[0]), F32)


def test_half_precision_sums_and_products_accumulate_in_float32() -> None:
    # JAX 0.4.30: jnp.sum/jnp.prod of float16/bfloat16 convert to float32, reduce, and round
    # once (a float16 or bfloat16 accumulator stalls: 2048 and 256 here).
    import numjax
    ramp = np.linspace(0, 1, 5000)
    total16 = jnp.sum(jnp.asarray(ramp, jnp.float16))
    assert total16.dtype == jnp.float16 and float(total16) == 2500.0
    total_bf16 = jnp.sum(jnp.asarray(ramp, jnp.bfloat16))
    assert total_bf16.dtype == jnp.bfloat16 and float(total_bf16) == 2496.0
    assert float(jnp.prod(jnp.full(3, 2.0, jnp.bfloat16))) == 8.0
    assert float(jnp.sum(jnp.ones(3, jnp.float16), initial=2.0)) == 5.0
    text = str(numjax.make_jaxpr(lambda v: jnp.sum(v, where=v > 0))(jnp.ones(3, jnp.float16)))
    assert "convert_element_type[new_dtype=float32 weak_type=False] a" in text
    assert text.rstrip().endswith("g:f16[] = convert_element_type[new_dtype=float16 "
                                  "weak_type=False] f\n  in (g,) }")

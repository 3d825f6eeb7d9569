"""jit vs eager, vmap vs a Python loop, and grad vs finite differences for the jnp functions
added for JAX 0.4.30 coverage (creation, manipulation, elementwise, statistics, sorting, sets,
einsum, selection)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax.experimental import enable_x64

F = Callable[..., Any]

_rng = np.random.default_rng(0)


def _x(*shape: int) -> np.ndarray:
    return _rng.uniform(-2, 2, size=shape).astype(np.float32)


_A = _x(4, 5)
_V = _x(6)
_I = np.array([[3, 1, 2, 3], [0, 2, 2, 1]], np.int32)

# name -> (function of array arguments, arguments, differentiable)
CASES: dict[str, tuple[F, tuple[Any, ...], bool]] = {
    "roll": (lambda a: jnp.roll(a, 2, axis=1), (_A,), True),
    "roll_flat": (lambda a: jnp.roll(a, -3), (_A,), True),
    "rot90": (lambda a: jnp.rot90(a, 1), (_A,), True),
    "tile": (lambda a: jnp.tile(a, (2, 1)), (_A,), True),
    "repeat": (lambda a: jnp.repeat(a, 2, axis=0), (_A,), True),
    "repeat_arr": (lambda a: jnp.repeat(a, np.array([1, 0, 2, 1, 3]), axis=1), (_A,), True),
    "split": (lambda a: jnp.split(a, [1, 3], axis=1), (_A,), True),
    "array_split": (lambda a: jnp.array_split(a, 3), (_A,), True),
    "resize": (lambda a: jnp.resize(a, (3, 9)), (_A,), True),
    "append": (lambda a: jnp.append(a, a[:1], axis=0), (_A,), True),
    "insert": (lambda a: jnp.insert(a, 2, 7.0, axis=1), (_A,), True),
    "delete": (lambda a: jnp.delete(a, np.array([0, 3]), axis=1), (_A,), True),
    "pad_constant": (lambda a: jnp.pad(a, ((1, 2), (0, 1)), constant_values=3.0), (_A,), True),
    "pad_edge": (lambda a: jnp.pad(a, 2, mode="edge"), (_A,), True),
    "pad_reflect": (lambda a: jnp.pad(a, ((7, 1), (0, 3)), mode="reflect"), (_A,), True),
    "pad_symmetric": (lambda a: jnp.pad(a, 6, mode="symmetric"), (_A,), True),
    "pad_wrap": (lambda a: jnp.pad(a, (9, 2), mode="wrap"), (_A,), True),
    "pad_ramp": (lambda a: jnp.pad(a, 2, mode="linear_ramp", end_values=1.0), (_A,), True),
    "pad_mean": (lambda a: jnp.pad(a, 2, mode="mean", stat_length=2), (_A,), True),
    "pad_maximum": (lambda a: jnp.pad(a, 1, mode="maximum"), (_A,), True),
    "pad_median": (lambda a: jnp.pad(a, 1, mode="median"), (_A,), True),
    "block": (lambda a: jnp.block([[a, a], [a, a]]), (_A,), True),
    "column_stack": (lambda v: jnp.column_stack([v, v]), (_V,), True),
    "fliplr": (jnp.fliplr, (_A,), True),
    "tril": (lambda a: jnp.tril(a, 1), (_A,), True),
    "triu": (jnp.triu, (_A,), True),
    "diag": (lambda v: jnp.diag(v, -1), (_V,), True),
    "diagonal": (lambda a: jnp.diagonal(a, 1), (_A,), True),
    "trace": (jnp.trace, (_A,), True),
    "fill_diagonal": (lambda a: jnp.fill_diagonal(a, 2.0, inplace=False), (_A,), False),
    "vander": (lambda v: jnp.vander(v, 3), (_V,), True),
    "meshgrid": (lambda v: jnp.meshgrid(v, v[:3]), (_V,), True),
    "sinc": (jnp.sinc, (_V,), True),
    "i0": (jnp.i0, (_V,), True),
    "heaviside": (lambda v: jnp.heaviside(v, 0.5), (_V,), False),
    "fmax": (lambda v: jnp.fmax(v, 0.1), (_V,), True),
    "nan_to_num": (jnp.nan_to_num, (_V,), True),
    "isclose": (lambda v: jnp.isclose(v, 0.5), (_V,), False),
    "ldexp": (lambda v: jnp.ldexp(v, 2), (_V,), True),
    "frexp": (jnp.frexp, (_V,), False),
    "modf": (jnp.modf, (_V,), True),
    "logaddexp2": (lambda v: jnp.logaddexp2(v, 0.3), (_V,), True),
    "angle": (jnp.angle, (_V,), False),
    "unwrap": (lambda v: jnp.unwrap(v * 3), (_V,), True),
    "interp": (lambda v: jnp.interp(v, np.array([-1.0, 0.0, 1.5], np.float32),
                                    np.array([2.0, -1.0, 4.0], np.float32)), (_V,), True),
    "cumsum": (lambda a: jnp.cumsum(a, axis=1), (_A,), True),
    "cumprod": (jnp.cumprod, (_V,), True),
    "nansum": (lambda a: jnp.nansum(a, axis=0), (_A,), True),
    "nanmean": (jnp.nanmean, (_A,), True),
    "nanvar": (lambda a: jnp.nanvar(a, axis=1), (_A,), True),
    "nanmax": (jnp.nanmax, (_A,), True),
    "nanargmin": (lambda a: jnp.nanargmin(a, axis=1), (_A,), False),
    "ptp": (lambda a: jnp.ptp(a, axis=0), (_A,), True),
    "median": (lambda a: jnp.median(a, axis=1), (_A,), True),
    # q's dtype is the interpolation's (JAX's rule), so q follows x to float64 under x64.
    "quantile": (lambda a: jnp.quantile(a, jnp.asarray([0.2, 0.7], a.dtype), axis=0),
                 (_A,), True),
    "percentile_nearest": (lambda v: jnp.percentile(v, 40.0, method="nearest"), (_V,), True),
    "average": (lambda a: jnp.average(a, axis=1, weights=np.arange(1.0, 6.0, dtype=np.float32)),
                (_A,), True),
    "diff": (lambda a: jnp.diff(a, n=2, axis=1), (_A,), True),
    "ediff1d": (jnp.ediff1d, (_V,), True),
    "gradient": (lambda a: jnp.gradient(a), (_A,), True),
    "convolve": (lambda v: jnp.convolve(v, v[:3]), (_V,), True),
    "correlate": (lambda v: jnp.correlate(v, v[:3], mode="same"), (_V,), True),
    "cov": (jnp.cov, (_A,), True),
    "corrcoef": (jnp.corrcoef, (_A,), True),
    "trapezoid": (jnp.trapezoid, (_A,), True),
    "sort": (lambda a: jnp.sort(a, axis=0), (_A,), True),
    "argsort_desc": (lambda a: jnp.argsort(a, descending=True), (_A,), False),
    "partition": (lambda v: jnp.partition(v, 2), (_V,), True),
    "searchsorted": (lambda v: jnp.searchsorted(jnp.sort(v), v[:3] + 0.1), (_V,), False),
    "digitize": (lambda v: jnp.digitize(v, np.array([-1.0, 0.0, 1.0], np.float32)), (_V,),
                 False),
    "unique_size": (lambda v: jnp.unique(jnp.round(v), size=6, return_counts=True,
                                         return_inverse=True), (_V,), False),
    "union1d_size": (lambda v: jnp.union1d(jnp.round(v), v[:2], size=9), (_V,), False),
    "setdiff1d_size": (lambda v: jnp.setdiff1d(v, v[:2], size=6), (_V,), False),
    "isin": (lambda v: jnp.isin(v, v[::2]), (_V,), False),
    "einsum": (lambda a: jnp.einsum("ij,kj->ik", a, a), (_A,), True),
    "einsum_trace": (lambda a: jnp.einsum("ii", a[:, :4]), (_A,), True),
    "tensordot": (lambda a: jnp.tensordot(a, a, axes=([1], [1])), (_A,), True),
    "kron": (lambda a: jnp.kron(a[:2, :2], a[1:3, 2:4]), (_A,), True),
    "cross": (lambda a: jnp.cross(a[:, :3], a[:, 1:4]), (_A,), True),
    "vecdot": (lambda a: jnp.vecdot(a, a), (_A,), True),
    "select": (lambda v: jnp.select([v > 1, v < 0], [v, v * v], 0.5), (_V,), True),
    "piecewise": (lambda v: jnp.piecewise(v, [v < 0, v > 1], [lambda x: x * x, 2.0,
                                                               lambda x: x + 1]), (_V,), True),
    "take": (lambda a: jnp.take(a, np.array([0, 2, 7]), axis=1, mode="clip"), (_A,), True),
    "take_along_axis": (lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1),
                        (_A,), True),
    "choose": (lambda v: jnp.choose(np.array([0, 1, 0, 1, 1, 0]), [v, v * 2]), (_V,), True),
    "compress": (lambda a: jnp.compress(np.array([True, False, True]), a, axis=1), (_A,),
                 True),
    "extract_size": (lambda v: jnp.extract(v > 0, v, size=4), (_V,), True),
    "apply_along_axis": (lambda a: jnp.apply_along_axis(lambda r: r @ r, 1, a), (_A,), True),
    "vectorize": (lambda a: jnp.vectorize(lambda x, y: x * y + 1)(a, a[0]), (_A,), True),
    "polyval": (lambda v: jnp.polyval(v[:3], v), (_V,), True),
    "polyint_polyder": (lambda v: jnp.polyder(jnp.polyint(v, 2), 1), (_V,), True),
    "polymul_polydiv": (lambda v: jnp.polydiv(jnp.polymul(v, v[:2]), v[:3] + 3.0), (_V,), True),
    "poly": (jnp.poly, (_V,), True),
    "packbits": (lambda v: jnp.unpackbits(jnp.packbits(v > 0)), (_V,), False),
    "linspace": (lambda v: jnp.linspace(v[:2], v[2:4] + 5.0, 4, axis=1), (_V,), True),
    "geomspace": (lambda v: jnp.geomspace(jnp.abs(v[0]) + 1.0, 9.0, 4), (_V,), True),
    "methods_sort_cumsum": (lambda a: (a.sort(axis=0), a.argsort(), a.cumsum(1), a.cumprod()),
                            (_A,), True),
    "methods_diag_trace_ptp": (lambda a: (a.diagonal(), a.trace(1), a.ptp(0)), (_A,), True),
    "methods_take_repeat": (lambda a: (a.take(np.array([1, 7])), a.repeat(2, axis=1),
                                       jnp.sort(a[0]).searchsorted(np.float32(0.5))),
                            (_A,), True),
    "methods_choose_compress": (lambda v: (v.compress(np.array([True, False, True])),
                                           jnp.array([0, 1, 1, 0, 1, 0]).choose([v, -v]),
                                           v.argpartition(2), v.view(np.int32)), (_V,), False),
    "vectorize_signature": (lambda a: jnp.vectorize(jnp.dot, signature="(n),(n)->()")(a, a),
                            (_A,), True),
}


def _leaves(x: Any) -> list[Any]:
    return numjax.tree_util.tree_leaves(x)


def _assert_same(a: Any, b: Any) -> None:
    la, lb = _leaves(a), _leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb, strict=True):
        assert x.dtype == y.dtype
        assert getattr(x, "weak_type", False) == getattr(y, "weak_type", False)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)


# Cases whose NumPy constant decides something at trace time: under jit JAX 0.4.30 stages the
# constant (`jnp.asarray` of it is a tracer), so they raise a ConcretizationTypeError (JAX's
# subclass TracerBoolConversionError, from the bounds check of choose's indices and compress's
# condition).
JIT_CONCRETIZES = {"choose", "compress", "methods_choose_compress"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_eager(name: str) -> None:
    fn, args, _ = CASES[name]
    args = tuple(jnp.asarray(a) for a in args)
    if name in JIT_CONCRETIZES:
        with pytest.raises(numjax.errors.ConcretizationTypeError):
            numjax.jit(fn)(*args)
        return
    _assert_same(numjax.jit(fn)(*args), fn(*args))


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop(name: str) -> None:
    fn, args, _ = CASES[name]
    batched = tuple(np.stack([a, a * 0.5 + 0.25, -a]) for a in args)
    out = numjax.vmap(fn)(*batched)
    rows = [fn(*(jnp.asarray(b[i]) for b in batched)) for i in range(3)]
    expected = numjax.tree_util.tree_map(lambda *r: jnp.stack(r), *rows)
    _assert_same(out, expected)


def _scalar_loss(fn: F, args: tuple[Any, ...]) -> Callable[[Any], Any]:
    weights: dict[int, Any] = {}

    def loss(x: Any) -> Any:
        total = 0.0
        for i, leaf in enumerate(_leaves(fn(x, *args[1:]))):
            if not jnp.issubdtype(leaf.dtype, jnp.floating):
                continue
            w = weights.setdefault(i, np.random.default_rng(i).uniform(0.5, 1.5, leaf.shape))
            total = total + jnp.sum(leaf * w)
        return total

    return loss


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[2]))
def test_grad_matches_finite_differences(name: str) -> None:
    fn, args, _ = CASES[name]
    with enable_x64():
        x = np.asarray(args[0], np.float64)
        loss = _scalar_loss(fn, (x, *args[1:]))
        g = np.asarray(numjax.grad(loss)(jnp.asarray(x)))
        eps = 1e-6
        flat = x.ravel()
        rng = np.random.default_rng(1)
        for k in rng.choice(flat.size, size=min(6, flat.size), replace=False):
            e = np.zeros_like(flat)
            e[k] = eps
            up = float(loss(jnp.asarray((flat + e).reshape(x.shape))))
            down = float(loss(jnp.asarray((flat - e).reshape(x.shape))))
            np.testing.assert_allclose(g.ravel()[k], (up - down) / (2 * eps), rtol=1e-4,
                                       atol=1e-5, err_msg=f"{name} element {k}")


# ---- arguments known only at run time (traced under jit): JAX 0.4.30's results ------------
_X4 = np.arange(4, dtype=np.int32)
_M23 = np.arange(6, dtype=np.float32).reshape(2, 3)
TRACED_ARGUMENTS = [
    ("insert scalar", lambda x, i: jnp.insert(x, i, 9), (_X4, 2), [0, 1, 9, 2, 3]),
    ("insert negative", lambda x, i: jnp.insert(x, i, 9), (_X4, -1), [0, 1, 2, 9, 3]),
    ("insert past the end", lambda x, i: jnp.insert(x, i, 9), (_X4, 7), [0, 1, 2, 3, 9]),
    ("insert before the start", lambda x, i: jnp.insert(x, i, 9), (_X4, -9), [9, 0, 1, 2, 3]),
    ("insert several", lambda x, i: jnp.insert(x, i, jnp.array([7, 8])),
     (_X4, np.array([3, 1], np.int32)), [0, 8, 1, 2, 7, 3]),
    ("insert one index, several values", lambda x, i: jnp.insert(x, i, jnp.array([7, 8])),
     (_X4, np.array([1], np.int32)), [0, 7, 8, 1, 2, 3]),
    ("insert axis 1", lambda m, i: jnp.insert(m, i, jnp.array([7., 8.]), axis=1), (_M23, 1),
     [[0., 7., 1., 2.], [3., 8., 4., 5.]]),
    ("insert axis 0", lambda m, i: jnp.insert(m, i, 5., axis=0), (_M23, 1),
     [[0., 1., 2.], [5., 5., 5.], [3., 4., 5.]]),
    ("insert flattened", lambda m, i: jnp.insert(m, i, 5.), (_M23, 4),
     [0., 1., 2., 3., 5., 4., 5.]),
    ("eye k=1", lambda k: jnp.eye(3, k=k), (1,), [[0., 1., 0.], [0., 0., 1.], [0., 0., 0.]]),
    ("eye k=-2", lambda k: jnp.eye(3, k=k), (-2,), [[0., 0., 0.], [0., 0., 0.], [1., 0., 0.]]),
    ("eye k=5", lambda k: jnp.eye(3, k=k), (5,), [[0.] * 3] * 3),
    ("eye 2x4 int", lambda k: jnp.eye(2, 4, k=k, dtype=jnp.int32), (1,),
     [[0, 1, 0, 0], [0, 0, 1, 0]]),
]


@pytest.mark.parametrize("name, f, args, expected", TRACED_ARGUMENTS,
                         ids=[c[0] for c in TRACED_ARGUMENTS])
def test_traced_arguments_match_eager(name: str, f: F, args: tuple[Any, ...],
                                      expected: Any) -> None:
    jitted = numjax.jit(f)(*args)
    eager = f(*args)
    np.testing.assert_array_equal(jitted, np.asarray(expected))
    np.testing.assert_array_equal(eager, np.asarray(expected))
    assert jitted.dtype == eager.dtype


def test_traced_argument_errors_and_gradient() -> None:
    with pytest.raises(ValueError, match="jnp.insert\\(\\): index array must be integer typed"):
        numjax.jit(lambda m, i: jnp.insert(m, i, 5.))(_M23, 1.)
    # The inserted value's cotangent flows back to where it came from.
    g = numjax.grad(lambda v: numjax.jit(lambda v, i: jnp.insert(v, i, v[0] * 3.))(v, 1).sum())(
        jnp.ones(3))
    np.testing.assert_array_equal(g, [4., 1., 1.])


def test_nbytes_and_itemsize_of_tracers_are_static() -> None:
    # JAX 0.4.30: Python ints from the aval, so a jitted function returns them as weak int32.
    out = numjax.jit(lambda x: (x.nbytes, x.itemsize))(jnp.ones(3))
    assert [(int(o), o.dtype, o.weak_type) for o in out] == [(12, np.int32, True),
                                                             (4, np.int32, True)]
    np.testing.assert_array_equal(numjax.vmap(lambda x: x.nbytes)(jnp.ones((2, 3))), [12, 12])

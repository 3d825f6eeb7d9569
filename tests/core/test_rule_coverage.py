"""Gradient and batching rules of the primitives the op table (tests/core/test_op_table.py) has no
row for: convolution, fft, generic reduce, sort/top_k, windowed reductions, linear algebra,
control flow, pjit/checkpoint/checkpoint_name, custom derivatives, collectives, PRNG internals.

One row per primitive (or per parameterization worth its own row). For each row:

- the row's function stages the primitive it names (its jaxpr, or its jvp's/vjp's, holds it);
- `check_grads` to order 2 in both modes for the differentiable operands (float64 under
  `enable_x64` where float32 differences are too noisy for the rule), in the modes JAX supports
  (forward only for `while`, reverse only for custom_vjp);
- vmap against a Python loop for every batched/unbatched operand combination, with the batch
  dim first and last.

`iota` has no operands (tests/core/test_op_table.py::test_iota); `test_every_primitive_is_covered`
keeps the two tables together covering the registry.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import pkgutil
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import core, lax
from numjax._src.core.trace import Primitive, primitives
from numjax._src.random import prng, xla_math
from numjax._src.tree_util import tree_leaves, tree_map
from numjax.ad_checkpoint import checkpoint_name
from numjax.experimental.shard_map import shard_map
from numjax.lax import linalg
from numjax.scipy.special import betainc, exp1, expi
from numjax.sharding import Mesh, NamedSharding
from numjax.sharding import PartitionSpec as P
from numjax.test_util import check_grads

Gen = Callable[[np.random.Generator], np.ndarray]


# ---- operand generators: rng -> ndarray ----------------------------------------------------


def normal(*shape: int, dtype: Any = np.float32) -> Gen:
    return lambda rng: rng.standard_normal(shape).astype(dtype)


def uniform(lo: float, hi: float, *shape: int) -> Gen:
    return lambda rng: rng.uniform(lo, hi, shape).astype(np.float32)


def cnormal(*shape: int) -> Gen:
    return lambda rng: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(
        np.complex64)


def distinct(*shape: int) -> Gen:
    """No two values within 0.1: sort/max rules never see a tie under finite differences."""
    n = int(np.prod(shape))
    return lambda rng: rng.permutation(np.linspace(-2, 2, 2 * n))[:n].reshape(shape).astype(
        np.float32)


def integers(lo: int, hi: int, *shape: int, dtype: Any = np.int32) -> Gen:
    return lambda rng: rng.integers(lo, hi + 1, shape).astype(dtype)


def spd(n: int) -> Gen:
    def gen(rng: np.random.Generator) -> np.ndarray:
        a = rng.standard_normal((n, n))
        return (a @ a.T + n * np.eye(n)).astype(np.float32)
    return gen


def triangular(n: int, lower: bool) -> Gen:
    def gen(rng: np.random.Generator) -> np.ndarray:
        a = rng.standard_normal((n, n)) * 0.5 + 3 * np.eye(n)
        return (np.tril(a) if lower else np.triu(a)).astype(np.float32)
    return gen


def spread_spectrum(n: int, symmetric: bool) -> Gen:
    """Eigenvalues 1, 2.5, 4, ... (well separated, real): eigen-derivatives stay small."""
    def gen(rng: np.random.Generator) -> np.ndarray:
        q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        d = np.diag(1 + 1.5 * np.arange(n))
        if symmetric:
            return (q @ d @ q.T).astype(np.float32)
        return (q @ (d + 0.3 * np.triu(rng.standard_normal((n, n)), 1)) @ q.T).astype(
            np.float32)
    return gen


def well_conditioned(*shape: int) -> Gen:
    def gen(rng: np.random.Generator) -> np.ndarray:
        a = rng.standard_normal(shape)
        k = min(shape)
        a[:k, :k] += 3 * np.eye(k)
        return a.astype(np.float32)
    return gen


def lu_pivots(n: int) -> Gen:
    return lambda rng: np.array([rng.integers(i, n) for i in range(n)], np.int32)


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    fn: Callable[..., Any]
    args: tuple[Gen, ...]
    grad: tuple[int, ...] = ()  # differentiable operand positions
    order: int = 2
    modes: tuple[str, ...] = ("fwd", "rev")
    x64: bool = False  # check gradients in float64
    tol: float | None = None  # gradient tolerance (else 5e-3 float32, 1e-5 float64)
    primitive: str | None = None  # the primitive it covers, if not `name`
    # Where the primitive shows: "fn", "jvp", "vjp", "linearize" or "" (batched or inlined away).
    staged_by: str = "fn"
    vmap: bool = True

    def __repr__(self) -> str:
        return self.name

    @property
    def covers(self) -> str:
        return self.primitive or self.name


# ---- rows ------------------------------------------------------------------------------------


def _conv(**kw: Any) -> Callable[..., Any]:
    return lambda lhs, rhs: lax.conv_general_dilated(lhs, rhs, **kw)


def _rw(init: float, op: Any, dims: Any, strides: Any, padding: Any, **kw: Any
        ) -> Callable[..., Any]:
    return lambda x: lax.reduce_window(x, init, op, dims, strides, padding, **kw)


_RW_MAX = _rw(-np.inf, lax.max, (2, 2), (1, 2), "SAME")


def _sin_times(x: Any, y: Any) -> Any:
    return jnp.sin(x) * y


@numjax.custom_jvp
def _cj(x: Any, y: Any) -> Any:
    return jnp.sin(x) * y


@_cj.defjvp
def _cj_jvp(primals: Any, tangents: Any) -> Any:
    x, y = primals
    tx, ty = tangents
    return _cj(x, y), jnp.cos(x) * y * tx + jnp.sin(x) * ty


@numjax.custom_vjp
def _cv(x: Any, y: Any) -> Any:
    return jnp.sin(x) * y


def _cv_fwd(x: Any, y: Any) -> Any:
    return _cv(x, y), (x, y)


def _cv_bwd(res: Any, ct: Any) -> Any:
    x, y = res
    return jnp.cos(x) * y * ct, jnp.sin(x) * ct


_cv.defvjp(_cv_fwd, _cv_bwd)


@numjax.custom_batching.custom_vmap
def _cvmap(x: Any, y: Any) -> Any:
    return jnp.sin(x) * y


@_cvmap.def_vmap
def _cvmap_rule(axis_size: int, in_batched: list[bool], x: Any, y: Any) -> Any:
    # The same function written for the batch (y broadcast along x's batch axis).
    if in_batched[1] and not in_batched[0]:
        x = jnp.broadcast_to(x, y.shape)
    elif in_batched[0] and not in_batched[1]:
        y = jnp.broadcast_to(y, x.shape)
    return jnp.sin(x) * y, True


@numjax.custom_transpose.custom_transpose
def _ctrans(r: Any, x: Any) -> Any:
    return x / r


@_ctrans.def_transpose
def _ctrans_t(r: Any, t: Any) -> Any:
    return t / r


def _named(collective: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The collective over axis "i" (axis 0), under an inner unnamed vmap over the last axis:
    the inner trace's rule passes the foreign axis on, the named trace's rule reduces it."""
    def fn(x: Any) -> Any:
        return numjax.vmap(numjax.vmap(collective, in_axes=-1), axis_name="i")(x)

    fn.collective = collective  # type: ignore[attr-defined]
    return fn


def _scan(c: Any, xs: Any, w: Any) -> Any:
    return lax.scan(lambda c, x: (jnp.tanh(c * w + x), c * x), c, xs)


def _while(x: Any, n: Any) -> Any:
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, jnp.sin(c[1]) * 1.5),
                          (0, x))[1]


ROWS: list[Row] = [
    # -- convolution --
    Row("conv_1d", _conv(window_strides=(1,), padding=[(1, 1)], rhs_dilation=(2,)),
        (normal(1, 2, 6), normal(3, 2, 3)), grad=(0, 1), primitive="conv_general_dilated"),
    Row("conv_2d_groups", _conv(window_strides=(1, 2), padding=((1, 0), (0, 1)),
                                lhs_dilation=(2, 1), feature_group_count=2,
                                dimension_numbers=("NHWC", "HWIO", "NHWC")),
        (normal(1, 3, 4, 4), normal(2, 2, 2, 4)), grad=(0, 1),
        primitive="conv_general_dilated"),
    Row("conv_batch_groups", _conv(window_strides=(1,), padding="VALID", batch_group_count=2),
        (normal(2, 2, 5), normal(4, 2, 2)), grad=(0, 1), primitive="conv_general_dilated"),
    # -- fft --
    Row("fft", lambda x: lax.fft(x, "FFT", (4,)), (cnormal(2, 4),), grad=(0,)),
    Row("ifft_2d", lambda x: lax.fft(x, "IFFT", (3, 4)), (cnormal(3, 4),), grad=(0,),
        primitive="fft"),
    Row("rfft", lambda x: lax.fft(x, "RFFT", (6,)), (normal(2, 6),), grad=(0,),
        primitive="fft"),
    Row("irfft", lambda x: lax.fft(x, "IRFFT", (6,)), (cnormal(2, 4),), grad=(0,),
        primitive="fft"),
    Row("irfft_2d", lambda x: lax.fft(x, "IRFFT", (3, 4)), (cnormal(3, 3),), grad=(0,),
        primitive="fft"),
    Row("rfft_2d", lambda x: lax.fft(x, "RFFT", (3, 4)), (normal(3, 4),), grad=(0,),
        primitive="fft"),
    # -- gather/scatter with richer dimension numbers than the op table's rows --
    Row("gather_2d_indices",
        lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(
            offset_dims=(1,), collapsed_slice_dims=(0, 2), start_index_map=(0, 2)),
            (1, 2, 1), mode="clip"),
        (normal(4, 3, 5), integers(0, 4, 2, 2)), grad=(0,), primitive="gather"),
    Row("gather_index_vector_dim_0",
        lambda x, i: lax.gather(x, i, lax.GatherDimensionNumbers(
            offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,)),
            (2, 1), mode="clip"),
        (normal(3, 4), integers(0, 3, 2, 1)), grad=(0,), primitive="gather"),
    Row("scatter_add_window",
        lambda x, i, u: lax.scatter_add(x, i, u, lax.ScatterDimensionNumbers(
            update_window_dims=(1,), inserted_window_dims=(0, 2),
            scatter_dims_to_operand_dims=(0, 2)), mode="clip"),
        (normal(4, 3, 5), integers(0, 4, 2, 2), normal(2, 3)), grad=(0, 2),
        primitive="scatter-add"),
    Row("scatter_window",
        lambda x, i, u: lax.scatter(x, i, u, lax.ScatterDimensionNumbers(
            update_window_dims=(0,), inserted_window_dims=(1,),
            scatter_dims_to_operand_dims=(1,)), indices_are_sorted=True, unique_indices=True),
        (normal(3, 4), lambda rng: np.array([[0], [2]], np.int32), normal(3, 2)), grad=(0, 2),
        primitive="scatter"),
    # -- generic reduce (a non-monoid init keeps it off reduce_sum) --
    Row("reduce", lambda x: lax.reduce(x, 2.0, lambda a, b: a + b, (0,)), (normal(3, 4),),
        grad=(0,)),
    Row("reduce_variadic",
        lambda x, y: lax.reduce((x, y), (-np.inf, 0.0),
                                lambda a, b: (lax.max(a[0], b[0]), a[1] + b[1] * a[1]), (1,)),
        (distinct(2, 4), uniform(0.5, 1, 2, 4)), grad=(0, 1), primitive="reduce"),
    # -- sorting --
    Row("sort", lambda x: lax.sort(x, dimension=0), (distinct(4, 3),), grad=(0,)),
    Row("sort_key_val", lambda k, v: lax.sort((k, v), dimension=1, num_keys=1),
        (distinct(2, 4), normal(2, 4)), grad=(0, 1), primitive="sort"),
    Row("sort_two_keys", lambda a, b, v: lax.sort((a, b, v), dimension=0, num_keys=2),
        (integers(0, 1, 4, 2), distinct(4, 2), normal(4, 2)), grad=(1, 2), primitive="sort"),
    Row("top_k", lambda x: lax.top_k(x, 2), (distinct(3, 5),), grad=(0,)),
    # -- windowed reductions --
    Row("reduce_window_sum", _rw(0.0, lax.add, (2, 2), (1, 2), "SAME",
                                 base_dilation=(1, 2), window_dilation=(2, 1)),
        (normal(4, 3),), grad=(0,)),
    Row("reduce_window_max", _RW_MAX, (distinct(4, 5),), grad=(0,)),
    Row("reduce_window_min", _rw(np.inf, lax.min, (1, 3), (1, 2), ((0, 0), (1, 1))),
        (distinct(2, 6),), grad=(0,)),
    # The jvp and vjp of reduce_window_max (selection is locally constant: second order is 0).
    Row("select_and_gather_add", lambda x, t: numjax.jvp(_RW_MAX, (x,), (t,))[1],
        (distinct(4, 5), normal(4, 5)), grad=(0, 1)),
    Row("select_and_scatter_add", lambda x, ct: numjax.vjp(_RW_MAX, x)[1](ct)[0],
        (distinct(4, 5), normal(4, 3)), grad=(0, 1)),
    # A generic reduce_window is differentiable in forward mode only, as in JAX.
    Row("reduce_window", _rw(1.0, lax.mul, (1, 2), (1, 1), "VALID"), (normal(2, 4),),
        grad=(0,), modes=("fwd",)),
    # -- linear algebra --
    Row("cholesky", linalg.cholesky, (spd(3),), grad=(0,), x64=True),
    Row("triangular_solve", lambda a, b: linalg.triangular_solve(a, b, left_side=True,
                                                                 lower=True),
        (triangular(3, True), normal(3, 2)), grad=(0, 1), x64=True),
    Row("triangular_solve_right_upper_t",
        lambda a, b: linalg.triangular_solve(a, b, left_side=False, lower=False,
                                             transpose_a=True, unit_diagonal=True),
        (triangular(3, False), normal(2, 3)), grad=(0, 1), x64=True,
        primitive="triangular_solve"),
    Row("lu", linalg.lu, (well_conditioned(3, 3),), grad=(0,), x64=True),
    Row("lu_wide", linalg.lu, (well_conditioned(3, 4),), grad=(0,), x64=True, primitive="lu"),
    Row("lu_tall", linalg.lu, (well_conditioned(4, 3),), grad=(0,), x64=True, primitive="lu"),
    Row("lu_pivots_to_permutation", lambda p: linalg.lu_pivots_to_permutation(p, 4),
        (lu_pivots(4),)),
    Row("qr", lambda x: linalg.qr(x, full_matrices=False), (well_conditioned(4, 3),),
        grad=(0,), x64=True),
    Row("qr_square_full", lambda x: linalg.qr(x, full_matrices=True),
        (well_conditioned(3, 3),), grad=(0,), x64=True, primitive="qr"),
    Row("geqrf", lambda x: jnp.linalg.qr(x, mode="raw"), (normal(4, 3),), primitive="geqrf"),
    Row("tridiagonal", lambda x: linalg.tridiagonal(x, lower=False), (normal(3, 3),)),
    Row("householder_product", linalg.householder_product,
        (normal(4, 3), uniform(0.5, 1.5, 3))),
    Row("svd_values", lambda x: linalg.svd(x, compute_uv=False), (well_conditioned(4, 3),),
        grad=(0,), x64=True, primitive="svd"),
    # u @ vh does not depend on the signs LAPACK picks for singular vectors.
    Row("svd", lambda x: (lambda u, s, vh: (s, u @ vh))(*linalg.svd(x, full_matrices=False)),
        (spread_spectrum(3, False),), grad=(0,), x64=True),
    # v * v does not depend on eigenvector signs.
    Row("eigh", lambda x: (lambda v, w: (w, v * v))(*linalg.eigh(x)),
        (spread_spectrum(3, True),), grad=(0,), x64=True),
    # As JAX 0.4.30's: eig's jvp computes eigenvectors, which it cannot differentiate; first
    # order only.
    Row("eigh_upper", lambda x: (lambda v, w: (w, v * v))(*linalg.eigh(x, lower=False)),
        (spread_spectrum(3, True),), grad=(0,), x64=True, primitive="eigh"),
    Row("svd_full", lambda x: linalg.svd(x, full_matrices=True), (well_conditioned(4, 3),),
        primitive="svd"),
    Row("eig_values", lambda x: linalg.eig(x, compute_left_eigenvectors=False,
                                           compute_right_eigenvectors=False)[0],
        (spread_spectrum(3, False),), grad=(0,), order=1, x64=True, primitive="eig"),
    Row("eig", lambda x: linalg.eig(x, compute_left_eigenvectors=False),
        (spread_spectrum(3, False),)),
    Row("schur", linalg.schur, (spread_spectrum(3, False),)),
    Row("hessenberg", linalg.hessenberg, (normal(4, 4),)),
    Row("tridiagonal_solve", linalg.tridiagonal_solve,
        (normal(4), uniform(3, 4, 4), normal(4), normal(4, 2)), grad=(0, 1, 2, 3), x64=True),
    # -- control flow --
    Row("cond", lambda p, x, y: lax.cond(p > 0, _sin_times, lambda x, y: x - y * y, x, y),
        (uniform(-1, 1), normal(3), normal(3)), grad=(1, 2)),
    Row("switch", lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * v], x),
        (integers(0, 2), normal(3)), grad=(1,), primitive="cond"),
    # JAX has no reverse mode for while_loop.
    Row("while", _while, (uniform(-1, 1, 3), integers(1, 3)), grad=(0,), modes=("fwd",)),
    Row("scan_reverse", lambda c, xs: lax.scan(lambda c, x: (c * x + 1, jnp.sin(c)), c, xs,
                                              reverse=True),
        (normal(2, 2), uniform(0.5, 1, 3, 2, 2)), grad=(0, 1), primitive="scan"),
    Row("scan", _scan, (normal(2), normal(3, 2), uniform(0.5, 1, 2)), grad=(0, 1, 2)),
    Row("custom_linear_solve", lambda m, b: lax.custom_linear_solve(
        lambda x: m @ x, b, lambda mv, r: jnp.linalg.solve(m, r),
        lambda vm, r: jnp.linalg.solve(m.T, r)), (well_conditioned(3, 3), normal(3)),
        grad=(0, 1), x64=True),
    # -- calls --
    Row("pjit", numjax.jit(_sin_times), (normal(3), normal(3)), grad=(0, 1)),
    Row("closed_call", lambda x, y: core.closed_call_p.bind(
        lambda x, y: [_sin_times(x, y)], x, y)[0], (normal(3), normal(3)), grad=(0, 1)),
    Row("call", lambda x, y: core.call_p.bind(
        lambda x, y: [_sin_times(x, y)], x, y)[0], (normal(3), normal(3)), grad=(0, 1)),
    Row("xla_pmap", numjax.pmap(_sin_times), (normal(1, 3), normal(1, 3)), grad=(0, 1)),
    Row("shard_map", lambda x, y: shard_map(_sin_times, Mesh(np.array(numjax.devices()[:1]),
                                                             ("i",)),
                                            in_specs=(P("i"), P()), out_specs=P("i"))(x, y),
        (normal(2, 3), normal(3)), grad=(0, 1)),
    Row("sharding_constraint", lambda x: lax.with_sharding_constraint(
        jnp.sin(x), NamedSharding(Mesh(np.array(numjax.devices()[:1]), ("i",)), P("i"))),
        (normal(2, 3),), grad=(0,)),
    Row("checkpoint", numjax.checkpoint(_sin_times), (normal(3), normal(3)), grad=(0, 1),
        staged_by="vjp"),
    Row("name", lambda x, y: checkpoint_name(_sin_times(x, y), "f"), (normal(3), normal(3)),
        grad=(0, 1)),
    Row("custom_jvp_call", _cj, (normal(3), normal(3)), grad=(0, 1)),
    # jvp of a custom_vjp function is JAX's error: reverse mode only. custom_lin is what
    # linearize leaves of it for the transpose to run `bwd`.
    Row("custom_vjp_call", _cv, (normal(3), normal(3)), grad=(0, 1), modes=("rev",)),
    Row("custom_lin_of_linearize", _cv, (normal(3), normal(3)), primitive="custom_lin",
        staged_by="linearize", vmap=False),
    Row("custom_lin", lambda x, y, ct: numjax.vjp(_cv, x, y)[1](ct), (normal(3),) * 3,
        grad=(0, 1, 2), modes=("rev",), staged_by=""),
    # As in JAX, linear_call is only transposable (tests/api/test_custom_derivatives.py): no jvp
    # or batching rule.
    Row("linear_call", lambda r, x: numjax.custom_derivatives.linear_call(
        lambda r, x: x / r, lambda r, t: t / r, r, x), (uniform(1, 2, 3), normal(3)),
        vmap=False),
    # As in JAX, custom_vmap has no transpose rule (forward mode only) and custom_transpose
    # no batching rule nor jvp with respect to its residuals.
    Row("custom_vmap_call", _cvmap, (normal(3), normal(3)), grad=(0, 1), modes=("fwd",)),
    Row("custom_transpose_call", lambda r, x: _ctrans(core.ShapedArray((3,), np.float32), r, x),
        (uniform(1, 2, 3), normal(3)), grad=(1,), vmap=False),
    # -- collectives over a vmapped axis "i" of size 3 --
    Row("psum", _named(lambda v: lax.psum(v, "i")), (normal(3, 2),), grad=(0,),
        staged_by=""),
    Row("pmax", _named(lambda v: lax.pmax(v, "i")), (distinct(3, 2),), grad=(0,),
        staged_by=""),
    Row("pmin", _named(lambda v: lax.pmin(v, "i")), (distinct(3, 2),), grad=(0,),
        staged_by=""),
    Row("axis_index", _named(lambda v: v * lax.axis_index("i")), (normal(3, 2),), grad=(0,),
        staged_by=""),
    Row("all_gather", _named(lambda v: lax.all_gather(v, "i")), (normal(3, 2),), grad=(0,),
        staged_by=""),
    Row("all_gather_tiled", _named(lambda v: lax.all_gather(v, "i", axis=0, tiled=True)),
        (normal(3, 2, 2),), grad=(0,), staged_by="", primitive="all_gather"),
    Row("all_to_all", _named(lambda v: lax.all_to_all(v, "i", 0, 0)), (normal(3, 3, 2),),
        grad=(0,), staged_by=""),
    Row("all_gather_axis1", _named(lambda v: lax.all_gather(v, "i", axis=1)),
        (normal(3, 2, 2),), grad=(0,), staged_by="", primitive="all_gather"),
    Row("all_to_all_tiled", _named(lambda v: lax.all_to_all(v, "i", 1, 0, tiled=True)),
        (normal(3, 2, 6, 2),), grad=(0,), staged_by="", primitive="all_to_all"),
    Row("ppermute", _named(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)])),
        (normal(3, 2),), grad=(0,), staged_by=""),
    Row("reduce_scatter", _named(lambda v: lax.psum_scatter(v, "i")), (normal(3, 3, 2),),
        grad=(0,), staged_by=""),
    Row("reduce_scatter_tiled", _named(lambda v: lax.psum_scatter(
        v, "i", scatter_dimension=1, tiled=True)), (normal(3, 2, 6, 2),), grad=(0,),
        staged_by="", primitive="reduce_scatter"),
    Row("pbroadcast", _named(lambda v: lax.pbroadcast(v, "i", 1)), (normal(3, 2),),
        grad=(0,), staged_by=""),
    # -- PRNG internals --
    Row("threefry2x32", prng.threefry2x32,
        tuple(integers(0, 2**32 - 1, 3, dtype=np.uint32) for _ in range(4))),
    # JAX's vmap of rng_bit_generator draws the whole batch from the first key, unlike a loop
    # (tests/lax/test_rng_bit_generator.py pins it).
    Row("rng_bit_generator", lambda k: lax.rng_bit_generator(k, (3, 2))[1],
        (integers(0, 2**32 - 1, 4, dtype=np.uint32),), vmap=False),
    # Each key's own bit-generator draw (walks over rbg keys): vmap is the loop over keys.
    Row("rbg_bits", lambda k: prng.rbg_bits_p.bind(k, shape=(3, 2), dtype=np.dtype(np.uint32)),
        (integers(0, 2**32 - 1, 4, dtype=np.uint32),)),
    Row("random_fma", xla_math.fma, (normal(3), normal(3), normal(3)), grad=(0, 1, 2)),
    Row("random_erf_inv", xla_math.erf_inv, (uniform(-0.9, 0.9, 3),), grad=(0,)),
    Row("random_log", xla_math.log, (uniform(0.5, 2.0, 3),), grad=(0,)),
    Row("random_log1p", xla_math.log1p, (uniform(-0.9, 0.9, 3),), grad=(0,)),
    Row("random_exp", xla_math.exp, (uniform(-2.0, 2.0, 3),), grad=(0,)),
    Row("random_libm_log", xla_math.libm_log, (uniform(0.5, 2.0, 3),), grad=(0,)),
    Row("random_libm_exp", xla_math.libm_exp, (uniform(-2.0, 2.0, 3),), grad=(0,)),
    Row("random_tan", xla_math.tan, (uniform(-1.2, 1.2, 3),), grad=(0,)),
    Row("random_erf", xla_math.erf, (uniform(-2.0, 2.0, 3),), grad=(0,)),
    Row("random_pow", xla_math.pow, (uniform(0.5, 2.0, 3), uniform(-1.5, 1.5, 3)),
        grad=(0, 1)),
    Row("random_softmax", xla_math.softmax, (normal(3, 4),), grad=(0,)),
    Row("random_lgamma", xla_math.lgamma, (uniform(0.6, 4.0, 3),), grad=(0,)),
    # Differentiable in x only (JAX's rule for a and b raises).
    Row("regularized_incomplete_beta", betainc,
        (uniform(0.5, 4.0, 3), uniform(0.5, 4.0, 3), uniform(0.05, 0.95, 3)), grad=(2,),
        x64=True),
    # Groups of 0 to 3 rows over 6 rows: some rows in no group (zero rows of the result).
    Row("ragged_dot", lax.ragged_dot, (normal(6, 2), normal(3, 2, 4), integers(0, 3, 3)),
        grad=(0, 1)),
    Row("expi", expi, (uniform(0.2, 4.0, 3),), grad=(0,), x64=True),
    Row("exp1", exp1, (uniform(0.2, 4.0, 3),), grad=(0,), x64=True),
]

assert len({r.name for r in ROWS}) == len(ROWS), "row names must be unique"


# ---- helpers -------------------------------------------------------------------------------


def _args(row: Row, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [gen(rng) for gen in row.args]


def _widen(a: np.ndarray) -> np.ndarray:
    return {np.dtype(np.float32): a.astype(np.float64),
            np.dtype(np.complex64): a.astype(np.complex128)}.get(a.dtype, a)


def _inexact_outputs(out: Any) -> list[Any]:
    return [x for x in tree_leaves(out) if jnp.issubdtype(x.dtype, jnp.inexact)]


def _staged_text(row: Row, args: list[Any]) -> str:
    if row.staged_by == "jvp":
        return str(numjax.make_jaxpr(lambda *a: numjax.jvp(row.fn, a, a))(*args))
    if row.staged_by == "vjp":
        return str(numjax.make_jaxpr(lambda *a: numjax.vjp(row.fn, *a)[1](row.fn(*a)))(*args))
    if row.staged_by == "linearize":
        lin = numjax.linearize(row.fn, *args)[1]
        return str(numjax.make_jaxpr(lin)(*args))
    return str(numjax.make_jaxpr(row.fn)(*args))


# ---- tests ---------------------------------------------------------------------------------


def _numjax_primitives() -> set[str]:
    """The names of the primitives numjax's modules define (the registry also holds those
    tests create)."""
    for info in pkgutil.walk_packages(numjax.__path__, "numjax."):
        importlib.import_module(info.name)
    return {v.name for m in list(sys.modules.values()) if m.__name__.startswith("numjax")
            for v in vars(m).values() if isinstance(v, Primitive)}


def test_every_primitive_is_covered() -> None:
    from test_op_table import NO_ROW
    from test_op_table import ROWS as TABLE

    covered = {r.covers for r in ROWS} | {r.primitive or r.name for r in TABLE} | NO_ROW
    defined = _numjax_primitives()
    assert defined <= {p.name for p in primitives}
    missing = sorted(defined - covered)
    assert not missing, f"primitives without a row here or in test_op_table.py: {missing}"


@pytest.mark.parametrize("row", [r for r in ROWS if r.staged_by], ids=repr)
def test_row_stages_its_primitive(row: Row) -> None:
    text = _staged_text(row, [jnp.asarray(a) for a in _args(row, 0)])
    assert f"{row.covers}[" in text or f" {row.covers} " in text or f"{row.covers}\n" in text, (
        f"{row.name} does not stage {row.covers}:\n{text}")


@pytest.mark.parametrize("row", [r for r in ROWS if r.grad], ids=repr)
def test_grads(row: Row) -> None:
    args = _args(row, 0)
    with numjax.experimental.enable_x64(row.x64):
        if row.x64:
            args = [_widen(a) for a in args]
        tol = row.tol or (1e-5 if row.x64 else 5e-3)

        def f(*diff: Any) -> Any:
            full: list[Any] = [jnp.asarray(a) for a in args]
            for i, d in zip(row.grad, diff, strict=True):
                full[i] = d
            return _inexact_outputs(row.fn(*full))

        check_grads(f, tuple(args[i] for i in row.grad), order=row.order, modes=row.modes,
                    atol=tol, rtol=tol)


BATCH = 3


@pytest.mark.parametrize("row", [r for r in ROWS if r.vmap], ids=repr)
def test_vmap_matches_loop(row: Row) -> None:
    examples = [_args(row, seed) for seed in range(BATCH)]
    fixed = examples[0]
    n = len(row.args)
    for batched in itertools.product((False, True), repeat=n):
        if not any(batched):
            continue
        loop = [row.fn(*[jnp.asarray(ex[i] if b else fixed[i]) for i, b in enumerate(batched)])
                for ex in examples]
        expected = tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *loop)
        for last in (False, True):
            in_axes = tuple((-1 if last else 0) if b else None for b in batched)
            operands = [jnp.asarray(np.stack([ex[i] for ex in examples], -1 if last else 0))
                        if b else jnp.asarray(fixed[i]) for i, b in enumerate(batched)]
            out = numjax.vmap(row.fn, in_axes=in_axes)(*operands)
            where = f"{row.name} with in_axes={in_axes}"
            got, want = tree_leaves(out), tree_leaves(expected)
            assert len(got) == len(want), where
            for g, w in zip(got, want, strict=True):
                assert g.shape == w.shape and g.dtype == w.dtype, where
                np.testing.assert_allclose(np.asarray(g), w, rtol=2e-5, atol=2e-5,
                                           err_msg=where)


COLLECTIVE_ROWS = [r for r in ROWS if hasattr(r.fn, "collective")]


@pytest.mark.parametrize("row", COLLECTIVE_ROWS, ids=repr)
def test_collective_under_inner_vmap_matches_loop(row: Row) -> None:
    # The foreign-axis rule (the inner unnamed vmap passes the collective on) against a loop
    # over that inner axis of the named vmap alone.
    (x,) = _args(row, 0)
    named = numjax.vmap(row.fn.collective, axis_name="i")  # type: ignore[attr-defined]
    expected = np.stack([np.asarray(named(jnp.asarray(x[..., k])))
                         for k in range(x.shape[-1])], 1)
    np.testing.assert_allclose(np.asarray(row.fn(jnp.asarray(x))), expected, rtol=1e-6,
                               atol=1e-6)

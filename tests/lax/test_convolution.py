"""conv_general_dilated and wrappers: impl vs a direct loop and SciPy, abstract eval, jvp vs
finite differences, vjp consistency, vmap vs a loop, jit vs eager, JAX's errors."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import scipy.signal

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.test_util import check_grads, numerical_jvp


def _dilate(x: np.ndarray, axis: int, d: int) -> np.ndarray:
    if d == 1 or x.shape[axis] == 0:
        return x
    shape = list(x.shape)
    shape[axis] = (shape[axis] - 1) * d + 1
    out = np.zeros(shape, x.dtype)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, d)
    out[tuple(idx)] = x
    return out


def _pad(x: np.ndarray, axis: int, lo: int, hi: int) -> np.ndarray:
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(lo, 0), max(hi, 0))
    x = np.pad(x, widths)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
    return x[tuple(idx)]


def reference_conv(lhs: np.ndarray, rhs: np.ndarray, strides: Any, pads: Any, ld: Any, rd: Any,
                   fgc: int = 1, bgc: int = 1) -> np.ndarray:
    """Canonical layout (NC..., OI...), float64, a direct loop over every output element."""
    lhs, rhs = lhs.astype(np.float64), rhs.astype(np.float64)
    nsp = lhs.ndim - 2
    for i in range(nsp):
        lhs = _pad(_dilate(lhs, 2 + i, ld[i]), 2 + i, *pads[i])
        rhs = _dilate(rhs, 2 + i, rd[i])
    n, c = lhs.shape[:2]
    o, cg = rhs.shape[:2]
    ks = rhs.shape[2:]
    outs = [max((lhs.shape[2 + i] - ks[i]) // strides[i] + 1, 0) for i in range(nsp)]
    nb = n // bgc
    out = np.zeros((nb, o, *outs))
    og = o // max(fgc, bgc)
    for b, f in itertools.product(range(nb), range(o)):
        group = f // og
        for pos in itertools.product(*[range(m) for m in outs]):
            window = tuple(slice(p * s, p * s + k)
                           for p, s, k in zip(pos, strides, ks, strict=True))
            index: tuple[Any, ...]
            if bgc > 1:
                index = (group * nb + b, slice(None), *window)
            else:
                index = (b, slice(group * cg, (group + 1) * cg), *window)
            patch = lhs[index]
            out[(b, f, *pos)] = np.sum(patch * rhs[f])
    return out


def _rand(shape: Any, dtype: Any = np.float32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-3, 4, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, fgc, bgc)
CASES = [
    ((2, 3, 7), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), 1, 1),
    ((2, 3, 7), (4, 3, 2), (2,), ((1, 2),), (1,), (2,), 1, 1),
    ((1, 2, 5), (3, 2, 2), (1,), ((2, -1),), (2,), (1,), 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (1, 2), ((1, 1), (0, 1)), (1, 1), (1, 2), 2, 1),
    ((4, 2, 5, 4), (6, 2, 2, 2), (2, 1), ((0, 0), (1, 0)), (1, 2), (1, 1), 1, 2),
    ((1, 3, 4, 4, 3), (2, 3, 2, 2, 2), (1, 1, 1), ((0, 0), (1, 1), (0, 0)), (1, 1, 1),
     (1, 1, 1), 1, 1),
    ((2, 4, 6), (4, 1, 3), (1,), ((1, 1),), (1,), (1,), 4, 1),
]


def _call(case: Any, lhs: Any, rhs: Any, **kw: Any) -> Any:
    _, _, strides, pads, ld, rd, fgc, bgc = case
    return lax.conv_general_dilated(lhs, rhs, strides, pads, ld, rd,
                                    feature_group_count=fgc, batch_group_count=bgc, **kw)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
def test_impl_vs_loop(case: Any, dtype: str) -> None:
    lhs, rhs = _rand(case[0], dtype), _rand(case[1], dtype, seed=1)
    out = _call(case, jnp.asarray(lhs), jnp.asarray(rhs))
    ref = reference_conv(lhs, rhs, *case[2:])
    tol = 2e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=tol, atol=tol)
    assert out.dtype == np.dtype(dtype)
    aval = numjax.eval_shape(lambda a, b: _call(case, a, b), jnp.asarray(lhs), jnp.asarray(rhs))
    assert aval.shape == out.shape and aval.dtype == out.dtype
    jitted = numjax.jit(lambda a, b: _call(case, a, b))(jnp.asarray(lhs), jnp.asarray(rhs))
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(out))
    assert jitted.dtype == out.dtype and jitted.weak_type == out.weak_type


def test_matches_scipy_correlate() -> None:
    x, k = _rand((9, 8)), _rand((3, 4), seed=1)
    out = lax.conv(jnp.asarray(x[None, None]), jnp.asarray(k[None, None]), (1, 1), "VALID")
    np.testing.assert_allclose(np.asarray(out)[0, 0], scipy.signal.correlate(x, k, "valid"),
                               rtol=1e-5, atol=1e-5)
    out = lax.conv(jnp.asarray(x[None, None]), jnp.asarray(k[None, None, ::-1, ::-1].copy()),
                   (1, 1), ((2, 2), (3, 3)))
    np.testing.assert_allclose(np.asarray(out)[0, 0], scipy.signal.convolve(x, k, "full"),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout", [("NHWC", "HWIO", "NHWC"), ("NCHW", "OIHW", "NHWC"),
                                    ("NHWC", "OHWI", "NCHW"), ("CHWN", "IHWO", "HWNC")])
def test_string_dimension_numbers(layout: tuple[str, str, str]) -> None:
    lhs, rhs = _rand((2, 3, 6, 5)), _rand((4, 3, 3, 2), seed=1)  # canonical NCHW, OIHW
    expected = reference_conv(lhs, rhs, (1, 2), ((1, 1), (0, 1)), (1, 1), (1, 1))
    lhs_l = np.transpose(lhs, ["NCHW".index(ch) for ch in layout[0]])
    rhs_l = np.transpose(rhs, ["OIHW".index(ch) for ch in layout[1]])
    out = lax.conv_general_dilated(jnp.asarray(lhs_l), jnp.asarray(rhs_l), (1, 2),
                                   ((1, 1), (0, 1)), dimension_numbers=layout)
    out_c = np.transpose(np.asarray(out), [layout[2].index(ch) for ch in "NCHW"])
    np.testing.assert_allclose(out_c, expected, rtol=1e-5, atol=1e-5)


def test_dimension_numbers_and_padtype() -> None:
    # Facts from JAX 0.4.30.
    dn = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ("NHWC", "HWIO", "NCHW"))
    assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 2, 3))
    assert lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None) == ((0, 1, 2),) * 3
    assert lax.padtype_to_pads((5, 6), (2, 3), (2, 1), "SAME") == [(0, 1), (1, 1)]
    assert lax.padtype_to_pads((5, 6), (2, 3), (2, 1), "SAME_LOWER") == [(1, 0), (1, 1)]
    assert lax.padtype_to_pads((5, 6), (2, 3), (2, 1), "valid") == [(0, 0), (0, 0)]
    z = jnp.zeros
    assert lax.conv_general_dilated(z((1, 3, 5)), z((2, 3, 2)), (1,), "SAME",
                                    rhs_dilation=(2,)).shape == (1, 2, 5)
    assert lax.conv_general_dilated(z((1, 3, 5)), z((2, 3, 2)), (2,), "SAME").shape == (1, 2, 3)
    assert lax.conv(z((1, 2, 5, 5)), z((3, 2, 2, 2)), (1, 1), "SAME").shape == (1, 3, 5, 5)
    assert lax.conv_general_dilated(z((1, 2, 5)), z((3, 2, 9)), (1,), "VALID").shape == (1, 3, 0)


def test_conv_transpose_is_gradient() -> None:
    # conv_transpose with transpose_kernel=True is the lhs-gradient of a strided conv.
    x, k = _rand((1, 6, 6, 2)), _rand((3, 3, 2, 4), seed=1)
    dn = ("NHWC", "HWIO", "NHWC")
    f = lambda v: lax.conv_general_dilated(v, jnp.asarray(k), (2, 2), "SAME",
                                           dimension_numbers=dn)
    out, vjp = numjax.vjp(f, jnp.asarray(x))
    ct = _rand(out.shape, seed=2)
    (grad,) = vjp(jnp.asarray(ct))
    t = lax.conv_transpose(jnp.asarray(ct), jnp.asarray(k), (2, 2), "SAME",
                           dimension_numbers=dn, transpose_kernel=True)
    np.testing.assert_allclose(np.asarray(t), np.asarray(grad), rtol=1e-5, atol=1e-5)
    # Shapes from JAX 0.4.30.
    z = jnp.zeros
    assert lax.conv_transpose(z((1, 5, 5, 2)), z((2, 2, 2, 3)), (2, 2), "SAME").shape == (
        1, 10, 10, 3)
    assert lax.conv_transpose(z((1, 5, 5, 2)), z((2, 2, 2, 3)), (2, 2), "VALID").shape == (
        1, 10, 10, 3)
    assert lax.conv_transpose(z((1, 5, 5, 2)), z((3, 3, 2, 3)), (2, 2), "VALID").shape == (
        1, 11, 11, 3)
    assert lax.conv_with_general_padding(z((1, 1, 4)), z((1, 1, 2)), (1,), ((1, 1),), (2,),
                                         (1,)).shape == (1, 1, 8)


@pytest.mark.parametrize("case", CASES)
def test_jvp_and_vjp(case: Any) -> None:
    lhs, rhs = _rand(case[0]), _rand(case[1], seed=1)
    tl, tr = _rand(case[0], seed=2), _rand(case[1], seed=3)
    f = lambda a, b: _call(case, a, b)
    out, t_out = numjax.jvp(f, (jnp.asarray(lhs), jnp.asarray(rhs)),
                            (jnp.asarray(tl), jnp.asarray(tr)))
    np.testing.assert_allclose(np.asarray(t_out), numerical_jvp(f, (lhs, rhs), (tl, tr)),
                               rtol=1e-2, atol=1e-2)
    ct = _rand(out.shape, seed=4)
    _, vjp = numjax.vjp(f, jnp.asarray(lhs), jnp.asarray(rhs))
    cl, cr = vjp(jnp.asarray(ct))
    assert cl.shape == lhs.shape and cr.shape == rhs.shape
    lhs_side = np.sum(np.asarray(cl, np.float64) * tl) + np.sum(np.asarray(cr, np.float64) * tr)
    np.testing.assert_allclose(lhs_side, np.sum(np.asarray(t_out, np.float64) * ct), rtol=1e-4)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (2, 0)])
def test_vmap(case: Any, in_axes: tuple[Any, Any]) -> None:
    lhs, rhs = _rand((3, *case[0])), _rand((3, *case[1]), seed=1)
    lhs = np.moveaxis(lhs, 0, in_axes[0]) if in_axes[0] is not None else lhs[0]
    rhs = np.moveaxis(rhs, 0, in_axes[1]) if in_axes[1] is not None else rhs[0]
    f = lambda a, b: _call(case, a, b)
    out = numjax.vmap(f, in_axes=in_axes)(jnp.asarray(lhs), jnp.asarray(rhs))

    def pick(x: np.ndarray, ax: Any, i: int) -> Any:
        return jnp.asarray(x if ax is None else np.take(x, i, ax))

    loop = np.stack([np.asarray(f(pick(lhs, in_axes[0], i), pick(rhs, in_axes[1], i)))
                     for i in range(3)])
    np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-5, atol=1e-5)


def test_second_order_grad() -> None:
    x, k = _rand((1, 2, 6)), _rand((2, 2, 3), seed=1)
    f = lambda a, b: jnp.sum(lax.conv(a, b, (2,), "SAME") ** 2)
    g = numjax.grad(lambda a: jnp.sum(numjax.grad(f, argnums=1)(a, jnp.asarray(k)) ** 2))
    assert g(jnp.asarray(x)).shape == x.shape


def test_preferred_element_type() -> None:
    a, b = jnp.ones((1, 2, 5), jnp.int8), jnp.ones((3, 2, 2), jnp.int8)
    out = lax.conv_general_dilated(a, b, (1,), "VALID", preferred_element_type=jnp.int32)
    assert out.dtype == np.int32
    a16, b16 = jnp.ones((1, 2, 5), jnp.float16), jnp.ones((3, 2, 2), jnp.float16)
    assert lax.conv_general_dilated(a16, b16, (1,), "VALID",
                                    preferred_element_type=jnp.float32).dtype == np.float32
    assert lax.conv_general_dilated(a16.astype(jnp.bfloat16), b16.astype(jnp.bfloat16), (1,),
                                    "VALID").dtype == jnp.bfloat16


ERRORS = [
    # (lhs, rhs, kwargs, exception, message) from JAX 0.4.30.
    ((1, 2, 5), (3, 3, 2), {}, ValueError,
     "lhs feature dimension size divided by feature_group_count must equal the rhs input "
     "feature dimension size, but 2 // 1 != 3."),
    ((1, 2, 5), (3, 2, 2, 2), {}, TypeError,
     "convolution requires lhs and rhs ndim to be equal, got 3 and 4."),
    ((1, 2, 5), (3, 2, 2), {"window_strides": (1, 1)}, ValueError,
     "window and window_strides must have the same number of dimensions, but got 1 and 2"),
    ((1, 2, 5), (3, 2, 2), {"padding": [(0, 0), (0, 0)]}, TypeError,
     "Wrong number of explicit pads for convolution: expected 1, got 2."),
    ((1, 2, 5), (3, 2, 2), {"padding": "FOO"}, RuntimeError,
     "Unrecognized padding type: expected 'VALID' or 'SAME', got FOO."),
    ((1, 4, 5), (3, 2, 2), {"feature_group_count": 2}, ValueError,
     "rhs output feature dimension size must be a multiple of feature_group_count, but 3 is "
     "not a multiple of 2."),
    ((1, 4, 5), (4, 2, 2), {"feature_group_count": 3}, ValueError,
     "feature_group_count must divide lhs feature dimension size, but 3 does not divide 4."),
    ((3, 2, 5), (4, 2, 2), {"batch_group_count": 2}, ValueError,
     "batch_group_count must divide lhs batch dimension size, but 2 does not divide 3."),
    ((4, 2, 5), (3, 2, 2), {"batch_group_count": 2}, ValueError,
     "rhs output feature dimension size must be a multiple of batch_group_count, but 3 is not "
     "a multiple of 2."),
    ((4, 4, 5), (4, 2, 2), {"batch_group_count": 2, "feature_group_count": 2}, ValueError,
     "At most one of batch_group_count and feature_group_count may be > 1, got "
     "batch_group_count=2 and feature_group_count=2"),
    ((1, 2, 5), (3, 2, 2), {"padding": "SAME", "lhs_dilation": (2,)}, ValueError,
     "String padding is not implemented for transposed convolution"),
    ((1, 2, 5), (3, 2, 2), {"dimension_numbers": ("NCX", "OIH", "NCH")}, TypeError,
     "convolution dimension_numbers elements must each have the same set of spatial "
     "characters, got ('NCX', 'OIH', 'NCH')."),
    ((1, 2, 5), (3, 2, 2), {"dimension_numbers": ("NC", "OIH", "NCH")}, TypeError,
     "convolution dimension_numbers[0] must have len equal to the ndim of lhs and rhs, got 2 "
     "for lhs and rhs shapes (1, 2, 5) and (3, 2, 2)."),
    ((1, 2, 5), (3, 2, 2), {"dimension_numbers": ("NCH", "OIH")}, TypeError,
     "convolution dimension_numbers list/tuple must be length 3, got 2."),
    ((1, 2, 5), (3, 2, 2), {"rhs_dilation": (0,)}, TypeError,
     "All dilations must be positive, got (0,)."),
    ((1, 2, 5), (3, 2, 2), {"padding": ((-3, -3),)}, ValueError,
     "Negative padding is larger than the size of the corresponding dimension: got "
     "padding=((-3, -3),) for lhs_shape[2:]=(5,)"),
]


@pytest.mark.parametrize("lhs,rhs,kw,exc,msg", ERRORS)
def test_errors(lhs: Any, rhs: Any, kw: dict[str, Any], exc: type, msg: str) -> None:
    kw = {"window_strides": (1,), "padding": "VALID", **kw}
    with pytest.raises(exc) as info:
        lax.conv_general_dilated(jnp.zeros(lhs), jnp.zeros(rhs), **kw)
    assert msg in str(info.value)


def test_dtype_errors() -> None:
    with pytest.raises(TypeError, match="requires arguments to have the same dtypes, got "
                                        "float32, float16"):
        lax.conv_general_dilated(jnp.zeros((1, 2, 5)), jnp.zeros((3, 2, 2), jnp.float16), (1,),
                                 "VALID")
    with pytest.raises(TypeError, match="must not be narrower"):
        lax.conv_general_dilated(jnp.zeros((1, 2, 5)), jnp.zeros((3, 2, 2)), (1,), "VALID",
                                 preferred_element_type=jnp.float16)


# Shape helpers: (function, arguments, JAX 0.4.30's result or (exception type, message)).
SHAPE_HELPER_CASES = [
    ("conv_shape_tuple", ((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "SAME"), (2, 8, 5, 5)),
    ("conv_shape_tuple", ((2, 3, 9, 9), (8, 3, 3, 3), (2, 2), "VALID"), (2, 8, 4, 4)),
    ("conv_shape_tuple", ((4, 3, 9, 7), (8, 3, 3, 2), (1, 3), [(1, 2), (0, 1)], 2),
     (2, 8, 10, 3)),
    ("conv_shape_tuple", ((2, 3, 9, 9), (8, 3, 3, 3), (1, 1), [(1, 2)]),
     (TypeError, "Wrong number of explicit pads for convolution: expected 2, got 1.")),
    ("conv_shape_tuple", ((2, 3, 4), (8, 3, 3), (1,), [(-5, 0)]),
     (ValueError, "Negative padding is larger than the size of the corresponding dimension: "
                  "got padding=[(-5, 0)] for lhs_shape[2:]=(4,)")),
    ("conv_general_shape_tuple",
     ((2, 9, 9, 3), (3, 3, 3, 8), (1, 1), "VALID", ("NHWC", "HWIO", "NHWC")), (2, 7, 7, 8)),
    ("conv_general_shape_tuple",
     ((2, 9, 11, 3), (3, 2, 3, 8), (2, 3), "SAME", ("NHWC", "HWIO", "NCHW")), (2, 8, 5, 4)),
    ("conv_general_shape_tuple",
     ((2, 3, 9, 11), (8, 3, 2, 3), (2, 1), [(0, 1), (2, 0)], ("NCWH", "OIHW", "NHWC")),
     (2, 6, 9, 8)),
    ("conv_transpose_shape_tuple",
     ((1, 5, 5, 2), (2, 2, 2, 3), (2, 2), "SAME", ("NHWC", "HWIO", "NHWC")), (1, 10, 10, 3)),
    ("conv_transpose_shape_tuple",
     ((1, 5, 6, 2), (3, 2, 2, 3), (2, 3), "VALID", ("NHWC", "HWIO", "NCHW")), (1, 3, 11, 18)),
    ("conv_transpose_shape_tuple",
     ((1, 5, 6, 2), (3, 2, 2, 3), (2, 3), [(1, 1), (0, 2)], ("NHWC", "HWIO", "NHWC")),
     (1, 9, 17, 3)),
    ("conv_general_permutations", (("NHWC", "HWIO", "NHWC"),),
     ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))),
    ("conv_general_permutations", (("NWHC", "HWIO", "CNHW"),),
     ((0, 3, 2, 1), (3, 2, 0, 1), (1, 0, 2, 3))),
    ("conv_general_permutations", (("NHWC", "HWIO", "NHW"),),
     (TypeError, "convolution dimension_numbers[2] must contain the characters 'N' and 'C' "
                 "exactly once, got NHW.")),
    ("conv_general_permutations", (("NHWC", "HWIO", "NHDC"),),
     (TypeError, "convolution dimension_numbers elements must each have the same set of "
                 "spatial characters, got ('NHWC', 'HWIO', 'NHDC').")),
    ("conv_general_permutations", (("NHHC", "HWIO", "NHWC"),),
     (TypeError, "convolution dimension_numbers[0] cannot have duplicate characters, got "
                 "NHHC.")),
]


@pytest.mark.parametrize("name,args,expected", SHAPE_HELPER_CASES)
def test_shape_helpers_as_jax(name, args, expected):
    fn = getattr(lax, name)
    if isinstance(expected[0], type):
        with pytest.raises(expected[0]) as info:
            fn(*args)
        assert str(info.value) == expected[1]
    else:
        assert fn(*args) == expected


# The planned (im2col) kernel over layouts and parameters: (layouts, canonical lhs and rhs
# shapes, strides, padding (a name or explicit pairs), lhs dilation, rhs dilation, fgc, bgc).
LAYOUT_CASES = [
    (("NHWC", "HWIO", "NHWC"), (2, 3, 7, 6), (4, 3, 3, 3), (1, 1), "SAME", (1, 1), (1, 1), 1, 1),
    (("NHWC", "HWIO", "NHWC"), (2, 3, 7, 6), (4, 3, 3, 2), (2, 3), "VALID", (1, 1), (1, 1), 1, 1),
    (("NCHW", "OIHW", "NCHW"), (2, 3, 7, 6), (4, 3, 3, 3), (2, 1), "SAME", (1, 1), (2, 1), 1, 1),
    (("NCHW", "OIHW", "NCHW"), (2, 4, 5, 6), (6, 2, 2, 3), (1, 2), ((2, -1), (0, 3)), (2, 1),
     (1, 2), 2, 1),
    (("NHWC", "HWIO", "NHWC"), (2, 6, 6, 5), (6, 2, 3, 3), (1, 1), "SAME_LOWER", (1, 1), (1, 1),
     3, 1),
    (("NHWC", "HWIO", "NCHW"), (6, 2, 5, 5), (6, 2, 2, 2), (2, 1), ((1, 0), (1, 1)), (1, 1),
     (1, 1), 1, 3),
    (("NHWC", "OIHW", "NHWC"), (2, 4, 6, 6), (4, 1, 3, 3), (1, 1), "SAME", (1, 1), (1, 1), 4, 1),
    (("NCH", "OIH", "NCH"), (3, 2, 9), (4, 2, 4), (3,), ((1, 2),), (1,), (2,), 1, 1),
    (("NHC", "HIO", "NHC"), (2, 3, 8), (3, 3, 3), (2,), "SAME", (1,), (1,), 1, 1),
    (("NHC", "HIO", "NHC"), (2, 4, 5), (2, 2, 2), (1,), ((-1, 2),), (3,), (1,), 2, 1),
    (("NCHWD", "OIHWD", "NCHWD"), (1, 2, 4, 5, 3), (3, 2, 2, 3, 2), (1, 2, 1), "SAME",
     (1, 1, 1), (1, 1, 2), 1, 1),
    (("NHWDC", "HWDIO", "NHWDC"), (2, 2, 4, 4, 4), (2, 1, 3, 2, 2), (2, 1, 1),
     ((1, 1), (0, 0), (1, 0)), (1, 2, 1), (1, 1, 1), 2, 1),
]


def _layout_args(case: Any, seed: int = 0) -> tuple[np.ndarray, np.ndarray, Any]:
    layouts, lhs_shape, rhs_shape, strides, padding, ld, rd, fgc, bgc = case
    lhs, rhs = _rand(lhs_shape, seed=seed), _rand(rhs_shape, seed=seed + 1)
    spatial = [ch for ch in layouts[1] if ch not in "OI"]
    lhs_l = np.transpose(lhs, [("NC" + "".join(spatial)).index(ch) for ch in layouts[0]])
    rhs_l = np.transpose(rhs, [("OI" + "".join(spatial)).index(ch) for ch in layouts[1]])

    def f(a: Any, b: Any) -> Any:
        return lax.conv_general_dilated(a, b, strides, padding, ld, rd, layouts,
                                        feature_group_count=fgc, batch_group_count=bgc)

    return lhs_l, rhs_l, f


def _explicit_pads(case: Any) -> Any:
    _, lhs_shape, rhs_shape, strides, padding, _, rd, _, _ = case
    if not isinstance(padding, str):
        return padding
    window = [(k - 1) * d + 1 for k, d in zip(rhs_shape[2:], rd, strict=False)]
    return lax.padtype_to_pads(lhs_shape[2:], window, strides, padding)


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_layouts_vs_loop_and_jit(case: Any) -> None:
    layouts = case[0]
    lhs_l, rhs_l, f = _layout_args(case)
    out = f(jnp.asarray(lhs_l), jnp.asarray(rhs_l))
    expected = reference_conv(_rand(case[1]), _rand(case[2], seed=1), case[3],
                              _explicit_pads(case), *case[5:])
    spatial = "".join(ch for ch in layouts[1] if ch not in "OI")
    out_c = np.transpose(np.asarray(out), [layouts[2].index(ch) for ch in "NC" + spatial])
    np.testing.assert_allclose(out_c, expected, rtol=1e-5, atol=1e-5)
    jitted = numjax.jit(f)(jnp.asarray(lhs_l), jnp.asarray(rhs_l))
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(out), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", LAYOUT_CASES)
def test_layouts_gradients(case: Any) -> None:
    lhs_l, rhs_l, f = _layout_args(case)
    check_grads(f, (lhs_l.astype(np.float64), rhs_l.astype(np.float64)), order=1,
                modes=("rev",), atol=2e-2, rtol=2e-2, eps=1e-2)
    # The gradient convolutions compiled (buffer planning around them) equal the eager ones.
    g = lambda a, b: numjax.grad(lambda a, b: jnp.sum(f(a, b) ** 2), (0, 1))(a, b)
    eager, jitted = g(lhs_l, rhs_l), numjax.jit(g)(lhs_l, rhs_l)
    for e, j in zip(eager, jitted, strict=False):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("strides, pads, ld, rd", [
    ((1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)),
    ((2, 1), ((0, 0), (2, 1)), (1, 1), (1, 2)),
    ((1, 3), ((1, 0), (0, 0)), (2, 1), (1, 1)),
    ((1, 1), ((-1, 1), (0, 2)), (1, 1), (2, 1)),
])
def test_features_first_operand_gives_the_channels_last_plans_values(
        strides: Any, pads: Any, ld: Any, rd: Any) -> None:
    """A kernel gradient convolves the transposed input, (C, N, H, W) over NHWC memory, with
    the transposed cotangent: read features-first, its product runs the other way round.
    The same convolution of contiguous copies (the channels-last plan) gives the same."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 7, 6, 4)).astype(np.float32)  # NHWC memory, read as (C, N, H, W)
    k = rng.normal(size=(3, 5, 2, 6)).astype(np.float32)  # (N, H', W', O) read as (O, N, ..)
    lhs, rhs = x.transpose(3, 0, 1, 2), k.transpose(3, 0, 1, 2)
    dn = lax.ConvDimensionNumbers((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))
    params = dict(window_strides=strides, padding=pads, lhs_dilation=ld, rhs_dilation=rd,
                  dimension_numbers=dn, feature_group_count=1, batch_group_count=1,
                  precision=None, preferred_element_type=None)
    avals = [numjax.ShapeDtypeStruct(a.shape, a.dtype) for a in (lhs, rhs)]
    kernel = lax.conv_general_dilated_p.kernel_for(avals, params)
    got = kernel(lhs, rhs)
    want = kernel(np.ascontiguousarray(lhs), np.ascontiguousarray(rhs))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    expected = reference_conv(lhs, rhs, strides, pads, ld, rd)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


# Convolutions whose column matrices are built one image per block and whose blocks are split
# between two worker threads: (layouts, lhs shape and kernel shape in those layouts, strides,
# padding, lhs dilation, rhs dilation). One input feature copies its columns taps first; the
# kernel gradient of a one-feature input sums blocks of the batch laid out windows first.
BLOCKED_CASES = [
    (("NHWC", "HWIO", "NHWC"), (5, 9, 8, 1), (3, 3, 1, 4), (1, 1), "SAME", (1, 1), (1, 1)),
    (("NHWC", "HWIO", "NHWC"), (5, 9, 8, 3), (3, 2, 3, 4), (2, 1), "SAME", (1, 1), (1, 2)),
    (("NHWC", "HWIO", "NHWC"), (4, 7, 7, 6), (3, 3, 6, 2), (1, 1), ((2, 0), (1, 1)), (1, 1),
     (1, 1)),
    (("NCHW", "OIHW", "NCHW"), (3, 2, 8, 7), (4, 2, 2, 3), (1, 2), ((1, 1), (0, 2)), (2, 1),
     (1, 1)),
    (("NCH", "OIH", "NCH"), (1, 3, 12), (2, 3, 3), (1,), ((1, 1),), (1,), (1,)),
]


@pytest.mark.parametrize("case", BLOCKED_CASES)
def test_blocked_columns_on_threads_give_the_whole_products_values(
        case: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from numjax._src.compiler import fusion
    from numjax._src.lax import convolution
    from numjax._src.runtime import blas

    layouts, lhs_shape, rhs_shape, strides, padding, ld, rd = case
    lhs, rhs = _rand(lhs_shape), _rand(rhs_shape, seed=1)

    def make() -> Any:
        # A new function each time: its compile plans its kernels afresh.
        def f(a: Any, b: Any) -> Any:
            return lax.conv_general_dilated(a, b, strides, padding, ld, rd, layouts)

        def loss(a: Any, b: Any) -> Any:
            return jnp.sum(f(a, b) ** 2)

        return numjax.jit(lambda a, b: (f(a, b), *numjax.grad(loss, (0, 1))(a, b)))

    whole = make()(lhs, rhs)
    calls = []
    run_on_threads = fusion.run_on_threads

    def counted(fn: Any, parts: Any) -> Any:
        calls.append(len(parts))
        return run_on_threads(fn, parts)

    monkeypatch.setattr(convolution, "COLUMN_BLOCK_BYTES", 1)
    monkeypatch.setattr(convolution, "THREADED_MACS", 0)
    monkeypatch.setattr(fusion, "worker_threads", lambda: 2)
    # (Split on any BLAS: with a process-wide thread count only, each slice may use threads.)
    monkeypatch.setattr(blas, "threads_settable", lambda: True)
    monkeypatch.setattr(fusion, "run_on_threads", counted)
    blocked = make()(lhs, rhs)
    assert calls and all(n == 2 for n in calls)
    for got, want in zip(blocked, whole, strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    spatial = "".join(ch for ch in layouts[1] if ch not in "OI")
    lhs_c = np.transpose(lhs, [layouts[0].index(ch) for ch in "NC" + spatial])
    rhs_c = np.transpose(rhs, [layouts[1].index(ch) for ch in "OI" + spatial])
    pads = padding if not isinstance(padding, str) else lax.padtype_to_pads(
        lhs_c.shape[2:], [(k - 1) * d + 1 for k, d in zip(rhs_c.shape[2:], rd, strict=True)],
        strides, padding)
    expected = reference_conv(lhs_c, rhs_c, strides, pads, ld, rd)
    out_c = np.transpose(np.asarray(blocked[0]), [layouts[2].index(ch) for ch in "NC" + spatial])
    np.testing.assert_allclose(out_c, expected, rtol=1e-4, atol=1e-4)


def test_values_and_gradients_as_jax() -> None:
    # Integer-valued operands, so every value is exact: JAX 0.4.30's output of a strided,
    # kernel-dilated, feature-grouped NHWC convolution and its gradients' absolute sums.
    lhs = (np.arange(2 * 5 * 6 * 4) % 7 - 3).astype(np.float32).reshape(2, 5, 6, 4)
    rhs = (np.arange(3 * 2 * 2 * 6) % 5 - 2).astype(np.float32).reshape(3, 2, 2, 6)

    def f(a: Any, b: Any) -> Any:
        return lax.conv_general_dilated(a, b, (2, 1), "SAME", rhs_dilation=(1, 2),
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                        feature_group_count=2)

    out = f(lhs, rhs)
    assert out.shape == (2, 3, 6, 6) and out.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out)[0, 0], [
        [7, 5, 3, 11, -5, -1], [-2, 4, 0, -7, 13, 3], [-6, -1, 14, -2, 3, 13],
        [-3, 1, 0, -11, -7, 2], [-7, -11, 0, 1, -3, -2], [6, 0, -6, 5, 3, -9]])
    np.testing.assert_array_equal(np.asarray(out)[1, 2], [
        [-2, -6, 0, 0, -6, -2], [16, 0, -11, 2, -7, -11], [4, 0, 1, 13, 3, -2],
        [-1, 14, -1, 3, 13, -7], [1, 0, 4, -7, 2, 16], [-9, 3, 5, -6, 0, 6]])
    for fn in (numjax.grad(lambda a, b: jnp.sum(f(a, b) ** 2), (0, 1)),
               numjax.jit(numjax.grad(lambda a, b: jnp.sum(f(a, b) ** 2), (0, 1)))):
        gl, gr = fn(lhs, rhs)
        assert float(jnp.abs(gl).sum()) == 16918.0 and float(jnp.abs(gr).sum()) == 15964.0


def test_mid_size_products_run_blas_on_the_calling_thread() -> None:
    # 8 images of 16x18x18, 4 3x3 filters: 2048 windows x 144 x 4 multiply-adds, in the range
    # dot_general runs on one thread.
    from numjax._src.core.avals import ShapedArray
    from numjax._src.lax.convolution import _conv_kernel_factory
    from numjax._src.runtime import blas
    from numjax._src.runtime.blas import ONE_THREAD_MACS

    lhs, rhs = _rand((8, 16, 18, 18)), _rand((4, 16, 3, 3), seed=1)
    assert 1 << 18 <= 8 * 16 * 16 * (16 * 9) * 4 <= ONE_THREAD_MACS
    params = dict(window_strides=(1, 1), padding=((0, 0), (0, 0)), lhs_dilation=(1, 1),
                  rhs_dilation=(1, 1),
                  dimension_numbers=lax.conv_dimension_numbers(lhs.shape, rhs.shape, None),
                  feature_group_count=1, batch_group_count=1, precision=None,
                  preferred_element_type=None)
    kernel = _conv_kernel_factory([ShapedArray(lhs.shape, lhs.dtype),
                                   ShapedArray(rhs.shape, rhs.dtype)], **params)
    setters = blas._find_setters()
    if setters:
        assert kernel.__name__ in ("one_thread", "one_thread_each")
        before = setters[0](2)
        out = kernel(lhs, rhs)
        assert setters[0](before) == 2  # the thread's own setting is put back
    else:
        out = kernel(lhs, rhs)
    expected = reference_conv(lhs, rhs, (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1))
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-4, atol=1e-4)


# (spatial dims, output features per group, padding, feature groups, batch groups, whether JAX
# 0.4.30's result of -ones (*) zeros with one 1-wide tap and one input feature per group is -0.0)
SINGLE_TERM = [
    (1, 1, "VALID", 1, 1, True), (1, 1, "SAME", 2, 1, True), (2, 1, "VALID", 1, 1, True),
    (2, 1, "SAME", 2, 1, True), (1, 3, "VALID", 1, 1, False), (2, 3, "SAME", 2, 1, False),
    (1, 1, "VALID", 1, 2, False), (2, 1, "SAME", 1, 2, False),
]


@pytest.mark.parametrize("nd,o,padding,fgc,bgc,negative", SINGLE_TERM)
def test_single_term_convolutions_keep_jaxs_zero_signs(nd, o, padding, fgc, bgc, negative):
    """XLA computes a convolution whose outputs are single products as a multiply (-0.0); one
    with several output features or batch groups accumulates from +0.0."""
    x = -np.ones((2 * bgc, fgc) + (2,) * nd, np.float32)
    w = np.zeros((o * fgc * bgc, 1) + (1,) * nd, np.float32)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1,) * nd, padding, feature_group_count=fgc,
                                        batch_group_count=bgc)

    for f in (conv, numjax.jit(conv)):
        out = np.asarray(f(x, w))
        assert not out.any() and np.signbit(out).all() == negative
        assert np.signbit(out).any() == negative


def test_single_term_convolution_with_inf_is_nan():
    # JAX 0.4.30: [[[-0., 0., nan]]] (inf * 0), and jnp.convolve with a 1-element kernel alike
    out = lax.conv_general_dilated(np.array([[[-1.0, 2.0, np.inf]]], np.float32),
                                   np.zeros((1, 1, 1), np.float32), (1,), "VALID")
    np.testing.assert_array_equal(out, [[[-0.0, 0.0, np.nan]]])
    assert np.signbit(np.asarray(out)[0, 0, 0])
    v = jnp.convolve(jnp.array([-1.0, 2.0, np.inf]), jnp.array([0.0]))
    np.testing.assert_array_equal(v, [-0.0, 0.0, np.nan])
    assert np.signbit(np.asarray(v)[0])

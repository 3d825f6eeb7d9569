"""lax.fft and jnp.fft: values against NumPy, dtypes, eval_shape, jvp/vjp (transposes checked
against values recorded from JAX 0.4.30), vmap, jit, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental import enable_x64


def _rand(shape: tuple[int, ...], complex_: bool, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    return x + 1j * rng.normal(size=shape) if complex_ else x


CASES: list[tuple[str, bool, dict[str, Any]]] = [
    ("fft", True, {}), ("fft", True, {"n": 4, "axis": 1}), ("fft", False, {"n": 9}),
    ("ifft", True, {}), ("rfft", False, {"n": 5}), ("irfft", True, {}),
    ("irfft", True, {"n": 7, "axis": 0}), ("hfft", True, {}), ("ihfft", False, {"axis": 1}),
    ("fftn", True, {}), ("fftn", True, {"s": (3, 5), "axes": (0, 2)}),
    ("ifftn", True, {"axes": (1,)}), ("rfftn", False, {}), ("irfftn", True, {}),
    ("irfftn", True, {"s": (2, 9), "axes": (1, 2)}), ("fft2", True, {}),
    ("ifft2", True, {"axes": (0, 2)}), ("rfft2", False, {}), ("irfft2", True, {"s": (4, 5)}),
]


@pytest.mark.parametrize("name,complex_,kw", CASES)
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_jnp_fft_matches_numpy(name: str, complex_: bool, kw: dict[str, Any],
                               norm: str | None) -> None:
    x = _rand((3, 4, 6), complex_)
    x32 = x.astype(np.complex64 if complex_ else np.float32)
    ours = getattr(jnp.fft, name)(x32, norm=norm, **kw)
    ref = getattr(np.fft, name)(x, norm=norm, **kw)
    assert ours.shape == ref.shape
    assert ours.dtype == (np.complex64 if ref.dtype.kind == "c" else np.float32)
    np.testing.assert_allclose(np.asarray(ours), ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    with enable_x64():
        ours64 = getattr(jnp.fft, name)(jnp.asarray(x), norm=norm, **kw)
        assert ours64.dtype == ref.dtype
        np.testing.assert_allclose(np.asarray(ours64), ref, rtol=1e-10, atol=1e-10)


def test_freqs_and_shifts() -> None:
    np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(5, 0.1)), np.fft.fftfreq(5, 0.1),
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.fft.rfftfreq(6)), np.fft.rfftfreq(6),
                               rtol=1e-6)
    assert jnp.fft.fftfreq(4).dtype == np.float32
    np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(4, jnp.asarray(2.0))),
                               np.fft.fftfreq(4, 2.0))
    x = np.arange(12).reshape(3, 4)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(np.asarray(jnp.fft.fftshift(x, axes)),
                                      np.fft.fftshift(x, axes))
        np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(x, axes)),
                                      np.fft.ifftshift(x, axes))


def test_lax_fft_dtypes_and_eval_shape() -> None:
    x = jnp.ones((2, 4))
    assert lax.fft(x, "FFT", (4,)).dtype == np.complex64  # real input promoted
    r = lax.fft(x, lax.FftType.RFFT, (2, 4))
    assert (r.shape, r.dtype) == ((2, 3), np.complex64)
    back = lax.fft(r, "IRFFT", (2, 4))
    assert (back.shape, back.dtype) == ((2, 4), np.float32)
    np.testing.assert_allclose(np.asarray(back), np.ones((2, 4)), atol=1e-6)
    for typ, arg, lengths in (("RFFT", x, (4,)), ("IRFFT", r, (2, 4)), ("FFT", r, (3,))):
        aval = numjax.eval_shape(lambda v, t=typ, n=lengths: lax.fft(v, t, n), arg)
        out = lax.fft(arg, typ, lengths)
        assert (aval.shape, aval.dtype) == (out.shape, out.dtype)
        jitted = numjax.jit(lambda v, t=typ, n=lengths: lax.fft(v, t, n))(arg)
        np.testing.assert_array_equal(np.asarray(jitted), np.asarray(out))


def test_vjps_match_jax() -> None:
    # Values recorded from JAX 0.4.30.
    x = jnp.array([1 + 2j, 3 - 1j, 0.5 + 0.25j, 2 + 0j], jnp.complex64)
    ct = jnp.array([1.0, 2.0, -1.0, 0.5, 3.0, 1.0])
    (g,) = numjax.vjp(lambda v: lax.fft(v, "IRFFT", (6,)), x)[1](ct)
    np.testing.assert_allclose(np.asarray(g), [1.0833334, 0.33333334 - 0.86602545j,
                                               -0.33333334 + 1.4433756j, -0.08333334],
                               rtol=1e-5, atol=1e-6)
    (g,) = numjax.vjp(lambda v: lax.fft(v, "IRFFT", (7,)), x)[1](jnp.arange(7.0))
    np.testing.assert_allclose(np.asarray(g), [3.0, -1 - 2.0765216j, -1 - 0.7974734j,
                                               -1 - 0.22824343j], rtol=1e-5, atol=1e-6)
    r = jnp.array([1.0, 2.0, -1.0, 0.5, 3.0])
    (g,) = numjax.vjp(lambda v: lax.fft(v, "RFFT", (5,)), r)[1](
        jnp.array([1 + 1j, 2 - 1j, 0.5j], jnp.complex64))
    np.testing.assert_allclose(np.asarray(g), [3.0, 0.9608701, -1.6813475, 0.44527948,
                                               2.275198], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("typ,complex_,lengths", [
    ("FFT", True, (4, 6)), ("IFFT", True, (6,)), ("RFFT", False, (4, 6)),
    ("RFFT", False, (5,)), ("IRFFT", True, (4, 6)), ("IRFFT", True, (5,))])
def test_jvp_linear_and_vjp_consistent(typ: str, complex_: bool,
                                       lengths: tuple[int, ...]) -> None:
    shape = (3, *lengths)
    if typ == "IRFFT":
        shape = (3, *lengths[:-1], lengths[-1] // 2 + 1)
    x, t = _rand(shape, complex_, 0), _rand(shape, complex_, 1)
    with enable_x64():
        f = lambda v: lax.fft(v, typ, lengths)
        out, tan = numjax.jvp(f, (jnp.asarray(x),), (jnp.asarray(t),))
        np.testing.assert_allclose(np.asarray(tan), np.asarray(f(jnp.asarray(t))), rtol=1e-12)
        ct = _rand(out.shape, out.dtype.kind == "c", 2)
        (g,) = numjax.vjp(f, jnp.asarray(x))[1](jnp.asarray(ct))
        assert g.dtype == np.asarray(x).dtype
        np.testing.assert_allclose(np.sum(ct * np.asarray(tan)).real,
                                   np.sum(np.asarray(g) * t).real, rtol=1e-10)
    # vmap over a non-leading axis against a loop.
    xs = jnp.asarray(np.moveaxis(_rand((2, *shape), complex_, 3), 0, 1).astype(
        np.complex64 if complex_ else np.float32))
    batched = numjax.vmap(lambda v: lax.fft(v, typ, lengths), in_axes=1)(xs)
    for i in range(2):
        np.testing.assert_allclose(np.asarray(batched[i]),
                                   np.asarray(lax.fft(xs[:, i], typ, lengths)), rtol=1e-6)


def test_grad_of_jnp_fft() -> None:
    x = jnp.asarray(_rand((8,), False).astype(np.float32))
    g = numjax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v)) ** 2))(x)
    # Parseval over the half spectrum: weights 1 (DC, Nyquist) and 2 elsewhere.
    xn = np.asarray(x, np.float64)
    eps = 1e-3
    f = lambda v: np.sum(np.abs(np.fft.rfft(v)) ** 2)
    fd = [(f(xn + eps * e) - f(xn - eps * e)) / (2 * eps) for e in np.eye(8)]
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-3, atol=1e-3)


def test_errors() -> None:
    with pytest.raises(ValueError, match="only real valued inputs supported for rfft"):
        lax.fft(jnp.ones(4, jnp.complex64), "RFFT", (4,))
    with pytest.raises(ValueError, match=r"RFFT input shape \(4,\) minor dimensions must be "
                                         r"equal to fft_lengths \(3,\)"):
        lax.fft(jnp.ones(4), "RFFT", (3,))
    with pytest.raises(ValueError, match="Unknown FFT type"):
        lax.fft(jnp.ones(4), "DCT", (4,))
    with pytest.raises(ValueError, match="IRFFT requires innermost dimension"):
        lax.fft(jnp.ones(3, jnp.complex64), "IRFFT", (6,))
    with pytest.raises(ValueError, match="only supports 1D, 2D, and 3D FFTs"):
        jnp.fft.fftn(jnp.ones((2, 2, 2, 2)))
    with pytest.raises(ValueError, match='Invalid norm value bad; should be "backward",'
                                         '"ortho" or "forward".'):
        jnp.fft.fft(jnp.ones((2, 2)), norm="bad")
    with pytest.raises(ValueError, match=r"does not support repeated axes. Got axes \(0, 0\)"):
        jnp.fft.fftn(jnp.ones((2, 2)), axes=(0, 0))
    with pytest.raises(ValueError, match="Shape and axes have different lengths."):
        jnp.fft.fftn(jnp.ones((2, 2)), s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match="jax.numpy.fft.fft does not support multiple axes"):
        jnp.fft.fft(jnp.ones((2, 2)), axis=(0, 1))  # type: ignore[arg-type]

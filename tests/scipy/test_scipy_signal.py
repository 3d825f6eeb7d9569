"""numjax.scipy.signal and numjax.scipy.fft against JAX 0.4.30.

tests/data/scipy_signal_golden.json holds, for each case, an expression over a few NumPy inputs
(its "setup") and what JAX 0.4.30 returned for it: dtype, weak type, shape and values (gradients
included). Its "generator" field is the script that wrote it in a JAX environment. Beyond the
golden values: gradients against finite differences, jit against eager, vmap against a Python
loop, and bad input against JAX's errors and warnings.
"""

from __future__ import annotations

import doctest
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax._src.scipy import fft as fft_src
from numjax._src.scipy import signal as signal_src
from numjax.errors import ConcretizationTypeError, TracerBoolConversionError
from numjax.scipy import fft, signal
from numjax.test_util import check_grads

GOLDEN = json.loads(
    (Path(__file__).parent.parent / "data" / "scipy_signal_golden.json").read_text())
SCOPE: dict[str, Any] = {"np": np, "jnp": jnp, "jax": numjax, "signal": signal, "fft": fft}
exec(GOLDEN["setup"], SCOPE)
A1, B1, A2, B2, S1, S2 = (jnp.asarray(SCOPE[k]) for k in ("A1", "B1", "A2", "B2", "S1", "S2"))

# float32 results may differ from XLA's in the last bits (FFTs, least squares, summation order);
# the absolute tolerance is relative to the largest golden value.
RTOL = {"float32": 2e-5, "complex64": 2e-5, "float16": 2e-3, "int32": 0}


def check_output(got: Any, want: dict[str, Any], atol: float = 2e-5) -> None:
    assert (str(got.dtype), got.weak_type, list(got.shape)) == (
        want["dtype"], want["weak"], want["shape"])
    expected = np.asarray(want["values"], dtype=np.float64)
    if want["dtype"].startswith("complex"):
        expected = expected[..., 0] + 1j * expected[..., 1] if expected.size else expected
    expected = expected.reshape(want["shape"])
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(np.asarray(got), expected, rtol=RTOL[want["dtype"]],
                               atol=atol * scale)


@pytest.mark.parametrize("name", sorted(GOLDEN["cases"]))
def test_matches_jax(name: str) -> None:
    case = GOLDEN["cases"][name]
    result = eval(case["expr"], SCOPE)
    results = result if isinstance(result, tuple) else (result,)
    assert len(results) == len(case["outputs"])
    for got, want in zip(results, case["outputs"], strict=True):
        # detrend's least squares leaves float32 noise (~2e-6 in JAX) where the exact answer is 0
        check_output(got, want, atol=1e-5 if "detrend" in name else 2e-5)


def test_golden_cases_cover_every_function() -> None:
    exprs = " ".join(case["expr"] for case in GOLDEN["cases"].values())
    for module, names in ((signal, ("convolve", "convolve2d", "correlate", "correlate2d",
                                    "fftconvolve", "detrend", "csd", "istft", "stft", "welch")),
                          (fft, ("dct", "dctn", "idct", "idctn"))):
        for name in names:
            assert callable(getattr(module, name))
            assert f"{module.__name__.rsplit('.', 1)[1]}.{name}(" in exprs, name


# ---- transformations -----------------------------------------------------------------------


@pytest.mark.parametrize("f, args", [
    (lambda a, b: signal.convolve(a, b, "same"), (A1, B1)),
    (lambda a, b: signal.correlate(a, b), (A1, B1)),
    (lambda a, b: signal.convolve2d(a, b, "valid"), (A2, B2)),
    (lambda a, b: signal.correlate2d(b, a, "full"), (A2, B2)),
    (lambda a, b: signal.fftconvolve(a, b, "same"), (A2, B2)),
])
def test_convolution_grads(f: Any, args: tuple[Any, ...]) -> None:
    check_grads(f, args, order=2, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("f", [
    lambda x: signal.detrend(x, bp=3),
    lambda x: signal.welch(x, nperseg=8, detrend="linear")[1],
    lambda x: signal.csd(x, x[::-1], nperseg=8, average="median")[1],
    lambda x: signal.stft(x, nperseg=6, boundary="odd")[2],
    lambda x: signal.istft(signal.stft(x, nperseg=8)[2])[1],
    lambda x: fft.dct(x, norm="ortho"),
    lambda x: fft.idct(x, n=30),
    lambda x: fft.dctn(x.reshape(4, 6)),
    lambda x: fft.idctn(x.reshape(2, 3, 4), norm="ortho"),
])
def test_spectral_and_dct_grads(f: Any) -> None:
    check_grads(f, (S1,), order=1, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


JIT_CASES = [
    lambda x: signal.convolve(x, x[:3], "same"),
    lambda x: signal.correlate2d(x.reshape(4, 6), x[:6].reshape(2, 3), "valid"),
    lambda x: signal.fftconvolve(x, x[:5], "valid"),
    lambda x: signal.detrend(x, bp=[4, 9]),
    lambda x: signal.welch(x, fs=3.0, nperseg=8),
    lambda x: signal.csd(x, x * 2, nperseg=6),
    lambda x: signal.stft(x, nperseg=8),
    lambda x: signal.istft(signal.stft(x, nperseg=8)[2]),
    lambda x: fft.dctn(x.reshape(4, 6), norm="ortho"),
    lambda x: fft.idct(x),
]


@pytest.mark.parametrize("f", JIT_CASES)
def test_jit_matches_eager(f: Any) -> None:
    eager, jitted = f(S1), numjax.jit(f)(S1)
    for e, j in zip(numjax.tree_util.tree_leaves(eager), numjax.tree_util.tree_leaves(jitted),
                    strict=True):
        assert (e.dtype, e.shape) == (j.dtype, j.shape)
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", JIT_CASES)
def test_vmap_matches_loop(f: Any) -> None:
    xs = jnp.stack([S1, S1[::-1] * 2, jnp.cos(S1)])
    batched = numjax.vmap(f)(xs)
    looped = [f(x) for x in xs]
    for i, b in enumerate(numjax.tree_util.tree_leaves(batched)):
        expected = np.stack([np.asarray(numjax.tree_util.tree_leaves(r)[i]) for r in looped])
        np.testing.assert_allclose(np.asarray(b), expected, rtol=1e-5, atol=1e-6)


def test_fftconvolve_axes_maps_the_other_axes() -> None:
    out = signal.fftconvolve(A2, A2[:, :2], mode="same", axes=[-1])
    loop = np.stack([np.asarray(signal.fftconvolve(a, b, "same")) for a, b in zip(A2, A2[:, :2],
                                                                                  strict=True)])
    np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-5, atol=1e-6)


def test_traced_segment_lengths_are_rejected() -> None:
    with pytest.raises(ConcretizationTypeError, match="nperseg of windowed-FFT"):
        numjax.jit(lambda n: signal.welch(S1, nperseg=n))(8)
    with pytest.raises(ConcretizationTypeError, match="noverlap of windowed-FFT"):
        numjax.jit(lambda n: signal.welch(S1, nperseg=8, noverlap=n))(2)
    with pytest.raises(ConcretizationTypeError, match="nfft of STFT"):
        numjax.jit(lambda n: signal.istft(jnp.ones((5, 4)), nfft=n))(8)
    # istft reads `noverlap or default` as JAX does: a traced noverlap fails the bool test
    with pytest.raises(TracerBoolConversionError):
        numjax.jit(lambda n: signal.istft(jnp.ones((5, 4)), noverlap=n))(2)


# ---- errors and warnings -------------------------------------------------------------------

ERRORS = [  # (call, JAX 0.4.30's exception type and message)
    (lambda: signal.convolve(A1, B1, mode="bad"), ValueError,
     "mode must be one of ['full', 'same', 'valid']"),
    (lambda: signal.convolve(A1, B1, method="bad"), ValueError,
     "Got method='bad'; expected 'auto', 'fft', or 'direct'."),
    (lambda: signal.convolve(A1, A2), ValueError,
     "in1 and in2 must have the same number of dimensions"),
    (lambda: signal.convolve(A1, jnp.zeros(0)), ValueError,
     "zero-size arrays not supported in convolutions, got shapes (7,) and (0,)."),
    (lambda: signal.convolve(A2, jnp.zeros((5, 4))), ValueError,
     "One input must be smaller than the other in every dimension."),
    (lambda: signal.convolve([1.0, 2.0], [1.0]), AttributeError,
     "'list' object has no attribute 'ndim'"),
    (lambda: signal.convolve2d(A2, B2, boundary="wrap"), NotImplementedError,
     "convolve2d() only supports boundary='fill', fillvalue=0"),
    (lambda: signal.convolve2d(A1, B1), ValueError,
     "convolve2d() only supports 2-dimensional inputs."),
    (lambda: signal.correlate2d(A2, B2, fillvalue=1), NotImplementedError,
     "correlate2d() only supports boundary='fill', fillvalue=0"),
    (lambda: signal.correlate2d(A1, B1), ValueError,
     "correlate2d() only supports 2-dimensional inputs."),
    (lambda: signal.fftconvolve(A1, A2), ValueError,
     "in1 and in2 should have the same dimensionality"),
    (lambda: signal.fftconvolve(A1, B1, mode="x"), ValueError,
     "mode must be one of ['same', 'full', 'valid']"),
    (lambda: signal.fftconvolve(A2, jnp.zeros((5, 4)), mode="valid"), ValueError,
     "For 'valid' mode, One input must be at least as large as the other in every dimension."),
    (lambda: signal.fftconvolve(A2, B2, axes=[0]), ValueError,
     "mapped axes must have same shape; got in1.shape=(4, 5) in2.shape=(2, 3) axes=(0,)"),
    (lambda: signal.fftconvolve([1.0, 2.0], [1.0]), TypeError,
     "fftconvolve requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    (lambda: signal.detrend(A1, type="quad"), ValueError,
     "Trend type must be 'linear' or 'constant'."),
    (lambda: signal.detrend(A1, overwrite_data=True), NotImplementedError,
     "overwrite_data argument not implemented."),
    (lambda: signal.detrend(A1, bp=[20]), ValueError,
     "Breakpoints must be non-negative and less than length of data along given axis."),
    (lambda: signal.welch(S1, nperseg=0), ValueError, "nperseg must be a positive integer"),
    (lambda: signal.welch(S1, nperseg=8, noverlap=8), ValueError,
     "noverlap must be less than nperseg."),
    (lambda: signal.welch(S1, nperseg=8, nfft=4), ValueError,
     "nfft must be greater than or equal to nperseg."),
    (lambda: signal.welch(S1, nperseg=8, scaling="x"), ValueError, "Unknown scaling: x"),
    (lambda: signal.welch(S1, nperseg=8, average="x"), ValueError,
     'average must be "median" or "mean", got x'),
    (lambda: signal.welch(S1, window=jnp.ones((2, 2))), ValueError, "window must be 1-D"),
    (lambda: signal.welch(S1[:4], window=jnp.ones(6)), ValueError,
     "window is longer than input signal"),
    (lambda: signal.welch(S1, window=jnp.ones(6), nperseg=5), ValueError,
     "value specified for nperseg is different from length of window"),
    (lambda: signal.welch([1.0, 2.0, 3.0]), AttributeError,
     "'list' object has no attribute 'ndim'"),
    (lambda: signal.csd(S2, S1, nperseg=8), ValueError,
     "two-arguments must have the same rank ({x.ndim} vs {y.ndim})."),
    (lambda: signal.csd(S2, jnp.ones((3, 20)), nperseg=8), ValueError,
     "x and y cannot be broadcast together."),
    (lambda: signal.stft(S1, nperseg=8, boundary="foo"), ValueError,
     "Unknown boundary option 'foo', must be one of: ['even', 'odd', 'constant', 'zeros', "
     "None]"),
    (lambda: signal.istft(jnp.ones(5)), ValueError, "Input stft must be at least 2d!"),
    (lambda: signal.istft(jnp.ones((5, 4)), time_axis=0, freq_axis=0), ValueError,
     "Must specify differing time and frequency axes!"),
    (lambda: signal.istft(jnp.ones((5, 4)), nfft=4), ValueError,
     "FFT length (4) must be longer than nperseg (8)."),
    (lambda: signal.istft(jnp.ones((5, 4)), nperseg=-1), ValueError,
     "nperseg must be a positive integer"),
    (lambda: signal.istft(jnp.ones((5, 4)), noverlap=9), ValueError,
     "noverlap must be less than nperseg."),
    (lambda: signal.istft(jnp.ones((5, 4)), window=jnp.ones(3)), ValueError,
     "window must have length of 8"),
    (lambda: signal.istft([[1.0, 2.0]]), TypeError,
     "istft requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    # JAX's default nfft for an odd one-sided nperseg is not the one it passes to irfft
    (lambda: signal.istft(signal.stft(S1, nperseg=7)[2], nperseg=7), TypeError,
     "mul got incompatible shapes for broadcasting: (6, 7), (7, 1)."),
    (lambda: fft.dct(A1, type=1), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda: fft.dctn(A2, type=3), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda: fft.idct(A1, type=4), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda: fft.idctn(A2, type=1), NotImplementedError, "Only DCT type 2 is implemented."),
    (lambda: fft.dct(A1, axis=3), ValueError, "axis 3 is out of bounds for array of dimension 1"),
    (lambda: fft.dct([1.0, 2.0]), AttributeError, "'list' object has no attribute 'ndim'"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_match_jax(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message  # (the traceback note on errors raised under jit aside)


def test_warnings_match_jax() -> None:
    with pytest.warns(UserWarning, match="^Input data is complex, switching to "
                                         "return_onesided=False$"):
        f, p = signal.welch(S1 + 1j * S1[::-1], nperseg=8)
    assert f.shape == p.shape == (8,) and p.dtype == np.float32
    with pytest.warns(UserWarning, match="^nperseg=256 is greater than input_length=24, using "
                                         "nperseg=24$"):
        f, t, z = signal.stft(S1)
    assert z.shape == (13, 3) and z.dtype == np.complex64


def test_compat_resolves_jax_scipy_signal() -> None:
    from numjax import compat

    assert "jax" not in sys.modules
    compat.install()
    try:
        import jax.scipy.fft
        import jax.scipy.signal

        assert jax.scipy.signal is signal and jax.scipy.fft is fft
    finally:
        compat.uninstall()
    assert "jax" not in sys.modules and "jax.scipy.signal" not in sys.modules


@pytest.mark.parametrize("module", [signal_src, fft_src, signal, fft])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0

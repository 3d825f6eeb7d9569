"""numjax.image (resize, scale_and_translate) and numjax.scipy.ndimage.map_coordinates against
JAX 0.4.30.

tests/data/image_golden.json holds, for each case, an expression over a few NumPy inputs (its
"setup") and what JAX 0.4.30 returned: dtype, weak type, shape and values, gradients included.
Its "generator" field is the script that wrote it in a JAX environment. JAX resamples with its
own kernels (not PIL's), and for float16/bfloat16 images its jitted `resize` contracts in float32:
the golden values pin both. Beyond them: gradients against finite differences, jit against eager,
vmap against a Python loop, and bad input against JAX's errors.
"""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.image as image
import numjax.numpy as jnp
from numjax._src.image import scale as scale_src
from numjax._src.scipy import ndimage as ndimage_src
from numjax.scipy import ndimage
from numjax.test_util import check_grads

GOLDEN = json.loads((Path(__file__).parent / "data" / "image_golden.json").read_text())
SCOPE: dict[str, Any] = {"np": np, "jnp": jnp, "jax": numjax, "image": image,
                         "ndimage": ndimage}
exec(GOLDEN["setup"], SCOPE)
IMG, VOL = jnp.asarray(SCOPE["IMG"]), jnp.asarray(SCOPE["VOL"])
COORDS = [jnp.asarray(c) for c in SCOPE["COORDS"]]

RTOL = {"float32": 2e-5, "complex64": 2e-5, "float16": 1e-3, "bfloat16": 8e-3, "int32": 0,
        "uint8": 0}


def check_output(got: Any, want: dict[str, Any]) -> None:
    assert (str(got.dtype), got.weak_type, list(got.shape)) == (
        want["dtype"], want["weak"], want["shape"])
    expected = np.asarray(want["values"], dtype=np.float64)
    if want["dtype"].startswith("complex"):
        expected = expected[..., 0] + 1j * expected[..., 1] if expected.size else expected
    expected = expected.reshape(want["shape"])
    actual = np.asarray(got).astype(expected.dtype)
    np.testing.assert_allclose(actual, expected, rtol=RTOL[want["dtype"]], atol=2e-6)


@pytest.mark.parametrize("name", sorted(GOLDEN["cases"]))
def test_matches_jax(name: str) -> None:
    case = GOLDEN["cases"][name]
    result = eval(case["expr"], SCOPE)
    results = result if isinstance(result, tuple) else (result,)
    assert len(results) == len(case["outputs"])
    for got, want in zip(results, case["outputs"], strict=True):
        check_output(got, want)


def test_resize_method_names() -> None:
    assert [m.name for m in image.ResizeMethod] == ["NEAREST", "LINEAR", "LANCZOS3", "LANCZOS5",
                                                     "CUBIC"]
    names = {"nearest": "NEAREST", "linear": "LINEAR", "bilinear": "LINEAR",
             "trilinear": "LINEAR", "triangle": "LINEAR", "lanczos3": "LANCZOS3",
             "lanczos5": "LANCZOS5", "cubic": "CUBIC", "bicubic": "CUBIC", "tricubic": "CUBIC"}
    for name, member in names.items():
        assert image.ResizeMethod.from_string(name) is image.ResizeMethod[member]


# ---- transformations -----------------------------------------------------------------------


@pytest.mark.parametrize("method, shape", [("linear", (9, 4)), ("linear", (3, 10)),
                                           ("cubic", (3, 10)), ("lanczos3", (9, 4))])
def test_resize_grads(method: str, shape: tuple[int, int]) -> None:
    check_grads(lambda x: image.resize(x, shape, method), (IMG,), order=1,
                modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


def test_scale_and_translate_grads_in_scale_and_translation() -> None:
    def f(x: Any, s: Any, t: Any) -> Any:
        return image.scale_and_translate(x, (7, 8), (0, 1), s, t, "linear")
    check_grads(f, (IMG, jnp.array([1.5, 0.7]), jnp.array([0.3, -1.1])), order=1,
                modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_map_coordinates_grads(mode: str) -> None:
    # Coordinates away from integers, where linear interpolation is differentiable.
    c0 = jnp.array([-1.3, 0.2, 1.6, 2.7, 3.4, 5.2])
    c1 = jnp.array([0.4, -0.7, 2.2, 4.6, 1.3, 6.1])

    def f(x: Any, a: Any, b: Any) -> Any:
        return ndimage.map_coordinates(x, [a, b], order=1, mode=mode, cval=0.5)
    check_grads(f, (IMG[:4, :5], c0, c1), order=1, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


JIT_CASES = [
    lambda x: image.resize(x, (9, 4), "nearest"),
    lambda x: image.resize(x, (9, 4), "linear"),
    lambda x: image.resize(x, (3, 11), "lanczos5", antialias=False),
    lambda x: image.scale_and_translate(x, (5, 9), (0, 1), jnp.array([0.8, 1.4]),
                                        jnp.array([0.5, -1.0]), "cubic"),
    lambda x: ndimage.map_coordinates(x, [c * 1.3 for c in COORDS], order=1, mode="reflect"),
    lambda x: ndimage.map_coordinates(x, COORDS, order=0, mode="wrap"),
]


@pytest.mark.parametrize("f", JIT_CASES)
def test_jit_matches_eager(f: Any) -> None:
    eager, jitted = f(IMG), numjax.jit(f)(IMG)
    assert (eager.dtype, eager.shape) == (jitted.dtype, jitted.shape)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", JIT_CASES)
def test_vmap_matches_loop(f: Any) -> None:
    images = jnp.stack([IMG, IMG[::-1] * 2, jnp.cos(IMG)])
    expected = np.stack([np.asarray(f(x)) for x in images])
    np.testing.assert_allclose(np.asarray(numjax.vmap(f)(images)), expected, rtol=1e-6,
                               atol=1e-7)


def test_vmap_over_coordinates_and_scales() -> None:
    coords = jnp.stack([jnp.stack(COORDS), jnp.stack(COORDS) * 0.5])
    out = numjax.vmap(lambda c: ndimage.map_coordinates(IMG, list(c), order=1))(coords)
    loop = np.stack([np.asarray(ndimage.map_coordinates(IMG, list(c), order=1)) for c in coords])
    np.testing.assert_allclose(np.asarray(out), loop, rtol=1e-6)
    scales = jnp.array([[1.5, 0.7], [0.5, 1.2]])

    def f(s: Any) -> Any:
        return image.scale_and_translate(IMG, (7, 8), (0, 1), s, jnp.zeros(2), "lanczos3")
    loop = np.stack([np.asarray(f(s)) for s in scales])
    np.testing.assert_allclose(np.asarray(numjax.vmap(f)(scales)), loop, rtol=1e-6, atol=1e-7)


# ---- errors --------------------------------------------------------------------------------

ERRORS = [  # (call, JAX 0.4.30's exception type and message)
    (lambda: image.resize(IMG, (7,), "linear"), ValueError,
     "shape must have length equal to the number of dimensions of x;  (7,) vs (6, 7)"),
    (lambda: image.resize(IMG, (7, 3), "area"), ValueError, 'Unknown resize method "area"'),
    (lambda: image.resize(IMG, (7.5, 3), "linear"), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got (7.5, 3)."),
    (lambda: image.resize(IMG, 7, "linear"), TypeError, "'int' object is not iterable"),
    (lambda: image.resize([[1.0, 2.0]], (2, 2), "linear"), AttributeError,
     "'list' object has no attribute 'ndim'"),
    (lambda: image.scale_and_translate(IMG, (7, 8), (0, 1), jnp.ones(2), jnp.zeros(2),
                                       "nearest"), ValueError,
     "Nearest neighbor resampling is not currently supported for scale_and_translate."),
    (lambda: image.scale_and_translate(IMG, (7,), (0,), jnp.ones(1), jnp.zeros(1), "linear"),
     ValueError,
     "shape must have length equal to the number of dimensions of x;  (7,) vs (6, 7)"),
    (lambda: image.scale_and_translate(IMG, (7, 8), (0, 1), jnp.ones(2), jnp.zeros(2), "box"),
     ValueError, 'Unknown resize method "box"'),
    (lambda: image.scale_and_translate(IMG, (7, 8), (0, 1), [1.5, 0.7], [0.5, -1.0], "linear"),
     TypeError, "Cannot determine dtype of [1.5, 0.7]"),
    (lambda: image.ResizeMethod.from_string("LINEAR"), ValueError,
     'Unknown resize method "LINEAR"'),
    (lambda: ndimage.map_coordinates(IMG, [jnp.array([0.5])], order=1), ValueError,
     "coordinates must be a sequence of length input.ndim, but 1 != 2"),
    (lambda: ndimage.map_coordinates(IMG, COORDS, order=3), NotImplementedError,
     "jax.scipy.ndimage.map_coordinates currently requires order<=1"),
    (lambda: ndimage.map_coordinates(jnp.asarray(2.0), [], order=1), TypeError,
     "reduce() of empty iterable with no initial value"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors_match_jax(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message  # (the traceback note on errors raised under jit aside)


def test_map_coordinates_mode_and_cval_errors() -> None:
    # JAX lists the supported modes as a set, whose order varies between interpreters.
    with pytest.raises(NotImplementedError, match=re.escape(
            "jax.scipy.ndimage.map_coordinates does not yet support mode grid-wrap. Currently "
            "supported modes are {")):
        ndimage.map_coordinates(IMG, COORDS, order=1, mode="grid-wrap")
    # order, mode and cval are static arguments of a jitted function, as in JAX
    with pytest.raises(ValueError, match="^Non-hashable static arguments are not supported"):
        ndimage.map_coordinates(IMG, COORDS, order=1, cval=jnp.array(1.0))


def test_traced_shape_is_rejected() -> None:
    with pytest.raises(TypeError, match=re.escape(
            "Shapes must be 1D sequences of concrete values of integer type, got (Traced<")):
        numjax.jit(lambda n: image.resize(IMG, (n, 2), "linear"))(3)


def test_import_and_compat() -> None:
    code = ("import numjax.image, numjax.compat; numjax.compat.install(); import jax.image; "
            "import jax.scipy.ndimage; import numjax; "
            "assert jax.image is numjax.image and jax.scipy.ndimage is numjax.scipy.ndimage; "
            "print(jax.image.resize(jax.numpy.ones((2, 2)), (3, 3), 'linear').shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout == "(3, 3)\n"


@pytest.mark.parametrize("module", [scale_src, ndimage_src, image, ndimage])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_image_is_an_attribute_after_import_numjax():
    # `import jax` alone makes `jax.image` usable; numjax loads it on first access.
    code = ("import sys, numjax; assert 'numjax.image' not in sys.modules; "
            "print(numjax.image.resize(numjax.numpy.ones((2, 2)), (3, 3), 'nearest').shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "(3, 3)"

"""Reductions, statistics and their neighbours against results recorded from JAX 0.4.30.

tests/data/reductions_golden.json holds, per case, a function (Python source over `jnp`, `lax`,
`jax` and `np`), the sources of its arguments (NumPy values, passed as Arrays, or Python
scalars) and what JAX returned with x64 off (`x32`) and on (`x64`): dtype, weak type, shape and
values, or the exception. Each case runs eagerly and under `jit`. Values are compared bit for
bit (NaN equal to NaN, zeros by sign) unless the case gives a tolerance `[rtol, atol]`.

The cases cover: result dtypes of sums, products, means and variances (integers widened to the
default integer as in JAX, x64 on and off); weak inputs giving strong results; float16 and
bfloat16 accumulation in float32; var/std with ddof >= n (NaN); abs's and copysign's
derivatives at 0, -0, NaN and infinities; and the dtypes and values of sign, hypot, top_k,
float_power, quantile, argpartition, searchsorted and others.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import numjax
import numjax.nn
import numjax.numpy as jnp
import numjax.scipy.stats
from numjax import lax
from numjax.experimental import enable_x64

_GOLDEN: dict[str, dict[str, Any]] = json.loads(
    (pathlib.Path(__file__).parent.parent / "data" / "reductions_golden.json").read_text())

_NS_ARGS = {"np": np, "jnp": jnp, "lax": lax, "bf16": ml_dtypes.bfloat16}
_NS_FN = {"np": np, "jnp": jnp, "lax": lax, "jax": numjax, "bf16": ml_dtypes.bfloat16}

# Cases whose error message is JAX's dtype-rule text, which lists the accepted types in the
# order of a Python set; numjax raises the same exception type with its own listing.
_TYPE_ONLY = {"argpartition[bool]", "ediff1d_bool", "negative[bool]", "ptp_bool", "sign_bool"}


def _params() -> list[Any]:
    return [pytest.param(case, config, mode, id=f"{case}-{config}-{mode}")
            for case, entry in sorted(_GOLDEN.items()) for config in ("x32", "x64")
            if config in entry for mode in ("eager", "jit")]


def _encode(value: Any) -> dict[str, Any]:
    if isinstance(value, tuple | list):
        return {"type": type(value).__name__, "items": [_encode(v) for v in value]}
    a = np.asarray(value)
    if a.dtype.kind == "c":
        vals = [repr(complex(v)) for v in a.ravel()]
    elif a.dtype.kind in "iub":
        vals = [repr(int(v)) for v in a.ravel()]
    else:
        vals = [repr(float(v)) for v in a.astype(np.float64).ravel()]
    return {"dtype": str(a.dtype), "weak": bool(getattr(value, "weak_type", False)),
            "shape": list(a.shape), "v": vals}


def _compare(expected: dict[str, Any], actual: dict[str, Any], tol: Any, case: str) -> None:
    if "items" in expected:
        assert actual.get("type") == expected["type"], case
        assert len(actual["items"]) == len(expected["items"]), case
        for e, a in zip(expected["items"], actual["items"], strict=True):
            _compare(e, a, tol, case)
        return
    assert (actual["dtype"], actual["weak"], actual["shape"]) == (
        expected["dtype"], expected["weak"], expected["shape"]), case
    if tol is None or expected["dtype"] in ("bool",) or expected["dtype"][0] in "iu":
        assert actual["v"] == expected["v"], case
        return
    want = np.array([complex(v) for v in expected["v"]])
    got = np.array([complex(v) for v in actual["v"]])
    np.testing.assert_allclose(got, want, rtol=tol[0], atol=tol[1], equal_nan=True,
                               err_msg=case)


def _run(entry: dict[str, Any], mode: str) -> Any:
    fn = eval(entry["fn"], _NS_FN)
    args = [eval(a, _NS_ARGS) for a in entry["args"]]
    args = [jnp.asarray(a) if isinstance(a, np.ndarray | np.generic) else a for a in args]
    return fn(*args) if mode == "eager" else numjax.jit(fn)(*args)


@pytest.mark.parametrize("case, config, mode", _params())
def test_matches_jax(case: str, config: str, mode: str) -> None:
    entry = _GOLDEN[case]
    expected = entry[config]
    with enable_x64(config == "x64"):
        if "error" in expected:
            with pytest.raises(Exception) as info:
                _run(entry, mode)
            assert type(info.value).__name__ == expected["error"], (case, info.value)
            if case not in _TYPE_ONLY:
                # Types in messages are named from their own package (jax.numpy.int32).
                message = str(info.value).split("\n")[0].replace("numjax.", "jax.")
                assert message == expected["message"], case
            return
        actual = _encode(_run(entry, mode))
    _compare(expected, actual, entry.get("tol"), case)


@pytest.mark.parametrize("dtype, values, smallest", [
    # JAX 0.4.30 partitions by top_k of -x, which wraps here: it gives [2, 0, 1, 3, 4] (5 and
    # 3 as the two smallest) and [4, 2, 0, 1, 3] (-128 as the largest).
    ("uint8", [5, 0, 3, 200, 0], {1, 4}),
    ("int8", [5, -128, 3, 127, 0], {1, 4}),
])
def test_argpartition_orders_integer_extremes(dtype: str, values: list[int],
                                              smallest: set[int]) -> None:
    for f in (jnp.argpartition, numjax.jit(jnp.argpartition, static_argnums=1)):
        out = np.asarray(f(jnp.asarray(np.array(values, dtype)), 1))
        assert out.dtype == np.int32
        assert set(out[:2].tolist()) == smallest
        assert sorted(out.tolist()) == list(range(len(values)))

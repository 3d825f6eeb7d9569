"""NumPy's floating-point reports (overflow, divide by zero, invalid) never escape numjax: XLA
returns inf/nan silently, and so does JAX, even when the user's warning filters turn
RuntimeWarnings into errors (pytest's `-W error`, a library's `filterwarnings = error`) or
NumPy's error state is `raise`. Values below are JAX 0.4.30's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp

BIG = np.float32(1e30)


def _scan(f):
    return lambda x: jax.lax.scan(lambda c, _: (f(c), None), x, None, length=2)[0]


# (name, function, argument, JAX's value)
CASES = [
    ("square", jnp.square, np.array([BIG, 2.0], np.float32), [np.inf, 4.0]),
    ("exp", lambda x: jnp.exp(100.0 * x), np.array([BIG, 2.0], np.float32), [np.inf, np.inf]),
    ("dot", lambda x: x @ x, np.array([BIG, 2.0], np.float32), np.inf),
    ("log0", jnp.log, np.float32(0.0), -np.inf),
    ("0/0", lambda x: x / x, np.float32(0.0), np.nan),
    ("scan square", _scan(jnp.square), np.array([BIG, 2.0], np.float32), [np.inf, 16.0]),
    ("folded constant", lambda x: x + jnp.float32(1e30) ** 2, np.float32(1.0), np.inf),
]


@pytest.fixture(params=["warnings error", "seterr raise", "warnings recorded"])
def strict_floats(request):
    """The strictest settings a user can add after importing numjax, and warnings recorded as
    `pytest.warns` records them (which emits the ones it did not expect again on exit, where a
    `filterwarnings = error` makes them errors): a report recorded can't be taken back, so
    none may be made."""
    with warnings.catch_warnings(record=request.param == "warnings recorded") as log:
        if request.param == "warnings error":
            warnings.simplefilter("error")
            yield
        elif request.param == "warnings recorded":
            warnings.simplefilter("always")
            yield
            assert [str(w.message) for w in log] == []
        else:
            with np.errstate(all="raise"):
                yield


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name, f, x, expected", CASES, ids=[c[0] for c in CASES])
def test_no_floating_point_report_escapes(strict_floats, jit, name, f, x, expected):
    x = jnp.asarray(x)
    (jax.jit(f) if jit else f)(x)  # the second eager call takes the verified fast path
    out = (jax.jit(f) if jit else f)(x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(expected, np.float32))


def test_other_runtime_warnings_still_raise():
    """Only NumPy's floating-point reports are silenced: a host callback's own warning reaches
    the user's filter (as JAX's XlaRuntimeError around it), once: the callback is not rerun."""
    calls = []

    def callback(x):
        calls.append(x)
        warnings.warn("from the callback", RuntimeWarning, stacklevel=1)
        return x

    f = jax.jit(lambda x: jax.pure_callback(callback, jax.ShapeDtypeStruct((), jnp.float32), x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(jax.lib.xla_extension.XlaRuntimeError, match="from the callback"):
            f(jnp.float32(1.0))
    assert len(calls) == 1


def test_no_report_under_pytest_warns():
    """numpyro checks a distribution's out-of-support warning with `pytest.warns(UserWarning)`
    around a `log` of a negative number, under `filterwarnings = error`: JAX makes no report."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(UserWarning, match="out of support"):
            jnp.log(jnp.float32(-1.0))
            jax.jit(jnp.log)(jnp.float32(-1.0))
            warnings.warn("out of support", UserWarning, stacklevel=1)

"""Which host-to-device transfers an entry point makes, by the kind of value it is given.

Each row is (entry point, value kind, JAX 0.4.30's transfer kind, the aval of the transfer's
message). A value crossing into a jitted function, a jnp function, an operator, a lax function
or `jnp.array` is an *implicit* transfer; `device_put` and `jnp.asarray` of a NumPy array are
*explicit* ones; an Array, or a static argument of jit, is no transfer at all. Python scalars
are transfers too: JAX 0.4.30 refuses `jit(f)(1.5)` under `transfer_guard("disallow")`.

The rows were recorded from JAX 0.4.30 on the CPU under `disallow` and `disallow_explicit` (the
error texts); the other levels follow the level matrix of `test_transfer_guard.py` (JAX writes
its "log" lines through its C++ logger, which Python's logging cannot see).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

X = jnp.arange(3.0)

VALUES: dict[str, Callable[[], Any]] = {
    "python float": lambda: 1.5,
    "python int": lambda: 2,
    "python bool": lambda: True,
    "numpy scalar": lambda: np.float32(1.5),
    "numpy array": lambda: np.ones(3, np.float32),
    "Array": lambda: jnp.ones(3),
}

ENTRIES: dict[str, Callable[[Any], Any]] = {
    "jit argument": lambda v: numjax.jit(lambda a: a + 1)(v),
    "jit static argument": lambda v: numjax.jit(lambda a, s: a, static_argnums=1)(X, v),
    "jnp ufunc": lambda v: jnp.add(X, v),
    "jnp ufunc, first operand": lambda v: jnp.subtract(v, X),
    "jnp function": lambda v: jnp.clip(X, v),
    # power assigns to its first parameter on one branch before converting it on another.
    "jnp function rebinding its parameter": lambda v: jnp.power(v, X),
    "operator": lambda v: X * v,
    "reflected operator": lambda v: v - X,
    "reflected operator rebinding": lambda v: v ** X,
    "lax function": lambda v: lax.max(X, v),
    # JAX's where places an index constant of its own before the operands.
    "jnp.where": lambda v: jnp.where(X > 1, X, v),
    "device_put": lambda v: numjax.device_put(v),
    "jnp.asarray": lambda v: jnp.asarray(v),
    "jnp.array": lambda v: jnp.array(v),
}

# (entry point, value kind, JAX 0.4.30's transfer: "implicit", "explicit" or None, its aval)
ROWS = [
    ("jit argument", "python float", "implicit", "float32[]"),
    ("jit argument", "python int", "implicit", "int32[]"),
    ("jit argument", "python bool", "implicit", "bool[]"),
    ("jit argument", "numpy scalar", "implicit", "float32[]"),
    ("jit argument", "numpy array", "implicit", "float32[3]"),
    ("jit argument", "Array", None, None),
    ("jit static argument", "python float", None, None),
    ("jit static argument", "python int", None, None),
    ("jit static argument", "python bool", None, None),
    ("jit static argument", "numpy scalar", None, None),
    ("jnp ufunc", "python float", "implicit", "float32[]"),
    ("jnp ufunc", "python int", "implicit", "int32[]"),
    ("jnp ufunc", "python bool", "implicit", "bool[]"),
    ("jnp ufunc", "numpy scalar", "implicit", "float32[]"),
    ("jnp ufunc", "numpy array", "implicit", "float32[3]"),
    ("jnp ufunc", "Array", None, None),
    ("jnp ufunc, first operand", "python float", "implicit", "float32[]"),
    ("jnp ufunc, first operand", "python int", "implicit", "int32[]"),
    ("jnp ufunc, first operand", "python bool", "implicit", "bool[]"),
    ("jnp ufunc, first operand", "numpy scalar", "implicit", "float32[]"),
    ("jnp ufunc, first operand", "numpy array", "implicit", "float32[3]"),
    ("jnp ufunc, first operand", "Array", None, None),
    ("jnp function", "python float", "implicit", "float32[]"),
    ("jnp function", "python int", "implicit", "int32[]"),
    ("jnp function", "python bool", "implicit", "bool[]"),
    ("jnp function", "numpy scalar", "implicit", "float32[]"),
    ("jnp function", "numpy array", "implicit", "float32[3]"),
    ("jnp function", "Array", None, None),
    ("jnp function rebinding its parameter", "python float", "implicit", "float32[]"),
    ("jnp function rebinding its parameter", "python int", "implicit", "int32[]"),
    ("jnp function rebinding its parameter", "python bool", "implicit", "bool[]"),
    ("jnp function rebinding its parameter", "numpy scalar", "implicit", "float32[]"),
    ("jnp function rebinding its parameter", "numpy array", "implicit", "float32[3]"),
    ("jnp function rebinding its parameter", "Array", None, None),
    ("operator", "python float", "implicit", "float32[]"),
    ("operator", "python int", "implicit", "int32[]"),
    ("operator", "python bool", "implicit", "bool[]"),
    ("operator", "numpy scalar", "implicit", "float32[]"),
    ("operator", "numpy array", "implicit", "float32[3]"),
    ("operator", "Array", None, None),
    ("reflected operator", "python float", "implicit", "float32[]"),
    ("reflected operator", "python int", "implicit", "int32[]"),
    ("reflected operator", "python bool", "implicit", "bool[]"),
    ("reflected operator", "numpy scalar", "implicit", "float32[]"),
    ("reflected operator", "numpy array", "implicit", "float32[3]"),
    ("reflected operator", "Array", None, None),
    ("reflected operator rebinding", "python float", "implicit", "float32[]"),
    ("reflected operator rebinding", "python int", "implicit", "int32[]"),
    ("reflected operator rebinding", "python bool", "implicit", "bool[]"),
    ("reflected operator rebinding", "numpy scalar", "implicit", "float32[]"),
    ("reflected operator rebinding", "numpy array", "implicit", "float32[3]"),
    ("reflected operator rebinding", "Array", None, None),
    ("lax function", "python float", "implicit", "float32[]"),
    ("lax function", "numpy scalar", "implicit", "float32[]"),
    ("lax function", "numpy array", "implicit", "float32[3]"),
    ("lax function", "Array", None, None),
    ("jnp.where", "python float", "implicit", "int32[]"),
    ("jnp.where", "python int", "implicit", "int32[]"),
    ("jnp.where", "python bool", "implicit", "int32[]"),
    ("jnp.where", "numpy scalar", "implicit", "int32[]"),
    ("jnp.where", "numpy array", "implicit", "int32[]"),
    ("jnp.where", "Array", "implicit", "int32[]"),
    ("device_put", "python float", "explicit", "float32[]"),
    ("device_put", "python int", "explicit", "int32[]"),
    ("device_put", "python bool", "explicit", "bool[]"),
    ("device_put", "numpy scalar", "explicit", "float32[]"),
    ("device_put", "numpy array", "explicit", "float32[3]"),
    ("device_put", "Array", None, None),
    ("jnp.asarray", "python float", "implicit", "float32[]"),
    ("jnp.asarray", "python int", "implicit", "int32[]"),
    ("jnp.asarray", "python bool", "implicit", "bool[]"),
    ("jnp.asarray", "numpy scalar", "implicit", "float32[]"),
    ("jnp.asarray", "numpy array", "explicit", "float32[3]"),
    ("jnp.asarray", "Array", None, None),
    ("jnp.array", "python float", "implicit", "float32[]"),
    ("jnp.array", "python int", "implicit", "int32[]"),
    ("jnp.array", "python bool", "implicit", "bool[]"),
    ("jnp.array", "numpy scalar", "implicit", "float32[]"),
    ("jnp.array", "numpy array", "implicit", "float32[3]"),
    ("jnp.array", "Array", None, None),
]

LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]
# level -> what an (implicit, explicit) transfer meets there: JAX's transfer-guard levels.
OUTCOMES = {
    "allow": ("ok", "ok"),
    "log": ("log", "ok"),
    "disallow": ("error", "ok"),
    "log_explicit": ("log", "log"),
    "disallow_explicit": ("error", "error"),
}
IMPLICIT_TARGET = "GSPMDSharding({replicated})"
EXPLICIT_TARGET = "SingleDeviceSharding(device=CpuDevice(id=0))"


def _expected(kind: str | None, aval: str | None, level: str) -> tuple[str, str | None]:
    if kind is None:
        return "ok", None
    outcome = OUTCOMES[level][kind == "explicit"]
    target = EXPLICIT_TARGET if kind == "explicit" else IMPLICIT_TARGET
    return outcome, f"aval=ShapedArray({aval}), dst_sharding={target}"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("entry,value,kind,aval", ROWS, ids=[f"{r[0]}-{r[1]}" for r in ROWS])
def test_entry_point_transfers(entry: str, value: str, kind: str | None, aval: str | None,
                               level: str, caplog: pytest.LogCaptureFixture) -> None:
    outcome, text = _expected(kind, aval, level)
    numjax.clear_caches()
    op, v = ENTRIES[entry], VALUES[value]()
    with caplog.at_level(logging.WARNING, logger="numjax"), numjax.transfer_guard(level):
        if outcome == "error":
            with pytest.raises(RuntimeError) as info:
                op(v)
        else:
            op(v)
    logged = [r.getMessage() for r in caplog.records if "transfer" in r.getMessage()]
    if outcome == "error":
        assert str(info.value) == f"INVALID_ARGUMENT: Disallowed host-to-device transfer: {text}"
    elif outcome == "log":
        assert logged[0] == f"host-to-device transfer: {text}"
    else:
        assert logged == []


def test_a_jitted_function_run_eagerly_transfers_once_per_argument(
        caplog: pytest.LogCaptureFixture) -> None:
    # The user's value is one transfer; the function's own constants are none.
    with caplog.at_level(logging.WARNING, logger="numjax"), numjax.transfer_guard("log"):
        jnp.power(np.float32(2.0), X)
    logged = [r.getMessage() for r in caplog.records if "transfer" in r.getMessage()]
    assert logged == [f"host-to-device transfer: aval=ShapedArray(float32[]), "
                      f"dst_sharding={IMPLICIT_TARGET}"]


K = numjax.random.PRNGKey(0)
M = jnp.array([[2.0, 0.5], [0.5, 1.0]])

# (case, operation, JAX 0.4.30's host-to-device aval under "disallow", or None when allowed):
# whose constants count. A function JAX compiles whole keeps its constants and defaults; one
# JAX runs op by op places its constants on the device; a callback runs as user code.
LIBRARY_CASES = [
    # JAX compiles these: their own constants are no transfers.
    ("jnp.degrees(x)", lambda: jnp.degrees(X), None),
    ("jnp.logical_and(x, x)", lambda: jnp.logical_and(X, X), None),
    ("jnp.nanmax(x)", lambda: jnp.nanmax(X), None),
    ("jnp.polyder(x, 1)", lambda: jnp.polyder(X, 1), None),
    ("jnp.logaddexp(x, x)", lambda: jnp.logaddexp(X, X), None),
    ("scipy.linalg.cholesky(m)", lambda: numjax.scipy.linalg.cholesky(M), None),
    ("scipy.linalg.expm(m)", lambda: numjax.scipy.linalg.expm(M), None),
    ("random.normal(k, (2,))", lambda: numjax.random.normal(K, (2,)), None),
    ("random.split(k)", lambda: numjax.random.split(K), None),
    ("random.rademacher(k, (2,))", lambda: numjax.random.rademacher(K, (2,)), None),
    # ... but random's functions hand their defaults to a compiled function as arguments.
    ("random.uniform(k, (2,))", lambda: numjax.random.uniform(K, (2,)), "float32[]"),
    # JAX runs these op by op: their constants are transfers.
    ("jnp.unique(x)", lambda: jnp.unique(X), "int32[]"),
    ("nn.softmax(x)", lambda: numjax.nn.softmax(X), "float32[]"),
    ("nn.gelu(x)", lambda: numjax.nn.gelu(X), "float32[]"),
    ("scipy.special.logsumexp(x)", lambda: numjax.scipy.special.logsumexp(X), "float32[]"),
    ("scipy.special.xlogy(x, x)", lambda: numjax.scipy.special.xlogy(X, X), "float32[]"),
    ("scipy.linalg.toeplitz(x)", lambda: numjax.scipy.linalg.toeplitz(X), "int32[]"),
    ("scipy.signal.convolve(x, x)", lambda: numjax.scipy.signal.convolve(X, X), "int32[]"),
    ("lax.zeros_like_array(x)", lambda: lax.zeros_like_array(X), "float32[]"),
    # An eager slice without strides is a dynamic_slice in JAX; with strides it stays a slice.
    ("lax.slice(x, (1,), (3,))", lambda: lax.slice(X, (1,), (3,)), "int32[]"),
    ("lax.slice_in_dim(x, 1, 3)", lambda: lax.slice_in_dim(X, 1, 3), None),
    ("lax.index_in_dim(x, 1)", lambda: lax.index_in_dim(X, 1), None),
    ("lax.dynamic_index_in_dim(x, 1)", lambda: lax.dynamic_index_in_dim(X, 1), "int32[]"),
    ("lax.dynamic_slice_in_dim(x, 1, 2)", lambda: lax.dynamic_slice_in_dim(X, 1, 2), "int32[]"),
    # The user's function, called back by a jnp function, places its own constants.
    ("jnp.apply_along_axis(lambda r: r * 2, 0, x)",
     lambda: jnp.apply_along_axis(lambda r: r * 2, 0, X), "int32[]"),
    ("jnp.fromfunction(lambda i: i * 2, (3,))",
     lambda: jnp.fromfunction(lambda i: i * 2, (3,)), "int32[]"),
    ("jnp.vectorize(lambda r: r * 2)(x)", lambda: jnp.vectorize(lambda r: r * 2)(X), "int32[]"),
    # A user's NumPy argument is a transfer however the function names it inside.
    ("jnp.power(np.float32(2), x)", lambda: jnp.power(np.float32(2), X), "float32[]"),
]


@pytest.mark.parametrize("case,op,aval", LIBRARY_CASES, ids=[c[0] for c in LIBRARY_CASES])
def test_whose_constants_count(case: str, op: Callable[[], Any], aval: str | None) -> None:
    with numjax.transfer_guard("disallow"):
        if aval is None:
            op()
            return
        with pytest.raises(RuntimeError) as info:
            op()
    assert str(info.value) == ("INVALID_ARGUMENT: Disallowed host-to-device transfer: "
                               f"aval=ShapedArray({aval}), dst_sharding={IMPLICIT_TARGET}")

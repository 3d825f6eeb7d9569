"""Transfer guards: levels, directions, explicit vs implicit transfers, nesting, threads, logs.

The expected outcomes under `transfer_guard("disallow")` and the error texts were observed once
with JAX 0.4.30 on the CPU and are recorded here as data.
"""

from __future__ import annotations

import logging
import pickle
import threading

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax
from numjax._src import config as _config

REPLICATED = "GSPMDSharding({replicated})"

SQ = jnp.array([[4.0, 1.0], [1.0, 3.0]])
Y = jnp.arange(6.0).reshape(2, 3)
IB = jnp.array([0, 2])
SF = jnp.float32(2.0)

# (case, operation, JAX 0.4.30's error text under "disallow" or None when it is allowed)
DISALLOW_CASES = [
    ("jnp.ones(1)", lambda x: jnp.ones(1), "aval=ShapedArray(float32[])"),
    ("jnp.zeros((2,))", lambda x: jnp.zeros((2,)), "aval=ShapedArray(float32[])"),
    ("jnp.full(2, 3.0)", lambda x: jnp.full(2, 3.0), "aval=ShapedArray(float32[])"),
    ("jnp.zeros_like(x)", lambda x: jnp.zeros_like(x), "aval=ShapedArray(float32[])"),
    ("jnp.arange(5)", lambda x: jnp.arange(5), None),
    ("jnp.arange(1, 5)", lambda x: jnp.arange(1, 5), "aval=ShapedArray(int32[4])"),
    ("jnp.linspace(0, 1, 5)", lambda x: jnp.linspace(0, 1, 5), "aval=ShapedArray(int32[])"),
    ("jnp.array(np.ones(2))", lambda x: jnp.array(np.ones(2)), "aval=ShapedArray(float32[2])"),
    ("jnp.asarray([1, 2])", lambda x: jnp.asarray([1, 2]), "aval=ShapedArray(int32[2])"),
    ("jnp.array(2.0)", lambda x: jnp.array(2.0), "aval=ShapedArray(float32[])"),
    ("x + 1", lambda x: x + 1, "aval=ShapedArray(int32[])"),
    ("x * 2.0", lambda x: x * 2.0, "aval=ShapedArray(float32[])"),
    ("x + np.ones(3)", lambda x: x + np.ones(3, np.float32), "aval=ShapedArray(float32[3])"),
    ("jnp.sin(x)", lambda x: jnp.sin(x), None),
    ("jnp.sin(np.ones(3))", lambda x: jnp.sin(np.ones(3)), "aval=ShapedArray(float32[3])"),
    ("jnp.sin(1.0)", lambda x: jnp.sin(1.0), "aval=ShapedArray(float32[])"),
    ("jnp.mean(x)", lambda x: jnp.mean(x), None),
    ("jnp.sum(x)", lambda x: jnp.sum(x), None),
    ("x.sum()", lambda x: x.sum(), None),
    ("x.at[0].set(5.0)", lambda x: x.at[0].set(5.0), "aval=ShapedArray(float32[])"),
    ("jnp.where(x > 1, x, 0.0)", lambda x: jnp.where(x > 1, x, 0.0),
     "aval=ShapedArray(int32[])"),
    ("lax.add(x, 1.0)", lambda x: lax.add(x, 1.0), "aval=ShapedArray(float32[])"),
    ("lax.sin(x)", lambda x: lax.sin(x), None),
    ("jit(f)(np.ones(3))", lambda x: numjax.jit(lambda a: a * 2)(np.ones(3)),
     "aval=ShapedArray(float32[3])"),
    ("jit(f)(1.0)", lambda x: numjax.jit(lambda a: a * 2)(1.0), "aval=ShapedArray(float32[])"),
    ("jit(f)(x)", lambda x: numjax.jit(lambda a: a * 2)(x), None),
    ("jit closing over a NumPy constant",
     lambda x: numjax.jit(lambda a: a * np.ones(3, np.float32))(x), None),
    ("grad(f)(x)", lambda x: numjax.grad(lambda a: jnp.sum(a * a))(x),
     "aval=ShapedArray(float32[])"),
    ("vmap(f)(x)", lambda x: numjax.vmap(lambda a: a * a)(x), None),
    ("device_put(np.ones(2))", lambda x: numjax.device_put(np.ones(2)), None),
    ("device_put(x)", lambda x: numjax.device_put(x), None),
    ("random.PRNGKey(0)", lambda x: numjax.random.PRNGKey(0), "aval=ShapedArray(int32[])"),
    ("jnp.dot(x, x)", lambda x: jnp.dot(x, x), None),
    ("jnp.concatenate([x, x])", lambda x: jnp.concatenate([x, x]), None),
    ("jnp.stack of NumPy arrays", lambda x: jnp.stack([np.ones(2), np.ones(2)]),
     "aval=ShapedArray(float32[2])"),
    ("x.reshape(3, 1)", lambda x: x.reshape(3, 1), None),
    ("x.astype(jnp.int32)", lambda x: x.astype(jnp.int32), None),
    ("jnp.clip(x, 0, 1)", lambda x: jnp.clip(x, 0, 1), "aval=ShapedArray(int32[])"),
    # Functions JAX compiles whole: their own constants and defaults are not transfers.
    ("jnp.triu(sq)", lambda x: jnp.triu(SQ), None),
    ("jnp.tril(sq, -1)", lambda x: jnp.tril(SQ, -1), None),
    ("jnp.diag(x)", lambda x: jnp.diag(x), None),
    ("jnp.median(x)", lambda x: jnp.median(x), None),
    ("jnp.isclose(x, x)", lambda x: jnp.isclose(x, x), None),
    ("jnp.allclose(x, x)", lambda x: jnp.allclose(x, x), None),
    ("jnp.nan_to_num(x)", lambda x: jnp.nan_to_num(x), None),
    ("jnp.cov(sq)", lambda x: jnp.cov(SQ), None),
    ("jnp.average(x)", lambda x: jnp.average(x), None),
    ("jnp.sinc(x)", lambda x: jnp.sinc(x), None),
    ("jnp.searchsorted(x, x)", lambda x: jnp.searchsorted(x, x), None),
    ("jnp.interp(x, x, x)", lambda x: jnp.interp(x, x, x), None),
    ("jnp.linalg.cholesky(sq)", lambda x: jnp.linalg.cholesky(SQ), None),
    ("jnp.linalg.slogdet(sq)", lambda x: jnp.linalg.slogdet(SQ), None),
    ("jnp.linalg.pinv(sq)", lambda x: jnp.linalg.pinv(SQ), None),
    ("jnp.linalg.lstsq(sq, x[:2])", lambda x, b=jnp.arange(2.0): jnp.linalg.lstsq(SQ, b), None),
    # Made on the device (iota), or placed there explicitly (asarray of a NumPy array).
    ("jnp.arange(5.0)", lambda x: jnp.arange(5.0), None),
    ("jnp.arange(0, 5)", lambda x: jnp.arange(0, 5), None),
    ("jnp.asarray(np.ones(3))", lambda x: jnp.asarray(np.ones(3)), None),
    ("jnp.array(np.ones(3))", lambda x: jnp.array(np.ones(3)), "aval=ShapedArray(float32[3])"),
    ("jnp.arange(1, 5)", lambda x: jnp.arange(1, 5), "aval=ShapedArray(int32[4])"),
    # Functions JAX runs op by op place their constants on the device.
    ("jnp.tri(3)", lambda x: jnp.tri(3), "aval=ShapedArray(int32[])"),
    ("jnp.bincount(i, length=5)", lambda x, i=jnp.arange(3): jnp.bincount(i, length=5),
     "aval=ShapedArray(int32[])"),
    # Indexing run eagerly: a slice is a dynamic_slice and an advanced index a gather, whose
    # start indices and index constants are placed on the device, as in JAX.
    ("x[:]", lambda x: x[:], None),
    ("x[::-1]", lambda x: x[::-1], None),
    ("x[None]", lambda x: x[None], None),
    ("x[1]", lambda x: x[1], "aval=ShapedArray(int32[])"),
    ("y[1, 2]", lambda x: Y[1, 2], "aval=ShapedArray(int32[])"),
    ("y[..., 0]", lambda x: Y[..., 0], "aval=ShapedArray(int32[])"),
    ("x.reshape(3, 1)[:, 0]", lambda x: x.reshape(3, 1)[:, 0], "aval=ShapedArray(int32[])"),
    ("x[::2]", lambda x: x[::2], "aval=ShapedArray(int32[])"),
    ("y[:, [0, 2]]", lambda x: Y[:, [0, 2]], "aval=ShapedArray(int32[2])"),
    ("x[ib]", lambda x: x[IB], "aval=ShapedArray(int32[])"),
    ("x.at[1].get()", lambda x: x.at[1].get(), "aval=ShapedArray(int32[])"),
    ("x.at[-1].set(sf)", lambda x: x.at[-1].set(SF), "aval=ShapedArray(int32[])"),
    ("x.at[ib].add(sf)", lambda x: x.at[IB].add(SF), "aval=ShapedArray(int32[])"),
    ("jnp.roll(x, 1)", lambda x: jnp.roll(x, 1), None),
    ("jnp.split(x, 3)", lambda x: jnp.split(x, 3), "aval=ShapedArray(int32[])"),
    ("lax.slice(x, (1,), (3,))", lambda x: lax.slice(x, (1,), (3,)),
     "aval=ShapedArray(int32[])"),
    ("lax.slice(x, (0,), (3,), (2,))", lambda x: lax.slice(x, (0,), (3,), (2,)), None),
    ("lax.dynamic_slice(x, (1,), (2,))", lambda x: lax.dynamic_slice(x, (1,), (2,)),
     "aval=ShapedArray(int32[])"),
    ("lax.dynamic_slice(x, (s1,), (2,))",
     lambda x: lax.dynamic_slice(x, (jnp.int32(1),), (2,)), "aval=ShapedArray(int32[])"),
    ("jnp.where(mask)", lambda x: jnp.where(x > 0), "aval=ShapedArray(int32[])"),
    ("jnp.nonzero(x)", lambda x: jnp.nonzero(x), "aval=ShapedArray(int32[])"),
    ("jnp.pad(x, 1)", lambda x: jnp.pad(x, 1), "aval=ShapedArray(int32[])"),
    ("jnp.median(y, axis=0)", lambda x: jnp.median(Y, axis=0), None),
    # Eager vmap runs op by op: the function's host constants are placed on the device.
    ("vmap(lambda a: a * 2)(x)", lambda x: numjax.vmap(lambda a: a * 2)(x),
     "aval=ShapedArray(int32[])"),
    ("random.choice(k, x, (2,), replace=False)",
     lambda x, k=numjax.random.PRNGKey(0): numjax.random.choice(k, x, (2,), replace=False),
     "aval=ShapedArray(int32[])"),
    ("jnp.eye(3)", lambda x: jnp.eye(3), "aval=ShapedArray(int32[])"),
    ("jnp.identity(2)", lambda x: jnp.identity(2), "aval=ShapedArray(int32[])"),
    ("jnp.var(x)", lambda x: jnp.var(x), "aval=ShapedArray(int32[])"),
    ("jnp.std(x, ddof=1)", lambda x: jnp.std(x, ddof=1), "aval=ShapedArray(int32[])"),
    # A monoid's identity as the init value is not placed on the device; another value is.
    ("lax.reduce(x, 0.0, lax.add, (0,))", lambda x: lax.reduce(x, 0.0, lax.add, (0,)), None),
    ("lax.reduce(x, 1.0, lax.add, (0,))", lambda x: lax.reduce(x, 1.0, lax.add, (0,)),
     "aval=ShapedArray(float32[])"),
    ("lax.reduce_window max", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,),
                                                           "VALID"), None),
]


@pytest.fixture
def x():
    return jnp.arange(3.0)


@pytest.mark.parametrize("case,op,error", DISALLOW_CASES, ids=[c[0] for c in DISALLOW_CASES])
def test_disallow_refuses_what_jax_refuses(case, op, error, x):
    numjax.clear_caches()
    with numjax.transfer_guard("disallow"):
        if error is None:
            op(x)
        else:
            with pytest.raises(RuntimeError) as info:
                op(x)
            assert str(info.value) == (
                f"INVALID_ARGUMENT: Disallowed host-to-device transfer: {error}, "
                f"dst_sharding={REPLICATED}")


@pytest.mark.parametrize("case,op,error", DISALLOW_CASES, ids=[c[0] for c in DISALLOW_CASES])
def test_allow_and_default_allow_everything(case, op, error, x):
    op(x)
    with numjax.transfer_guard("allow"):
        op(x)


def test_explicit_transfers_follow_the_explicit_levels():
    value = np.ones(2, np.float32)
    for level in ("allow", "log", "disallow", "log_explicit"):
        with numjax.transfer_guard(level):
            numjax.device_put(value)
    with numjax.transfer_guard("disallow_explicit"):
        with pytest.raises(RuntimeError) as info:
            numjax.device_put(value)
    assert str(info.value) == (
        "INVALID_ARGUMENT: Disallowed host-to-device transfer: aval=ShapedArray(float32[2]), "
        "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=0))")


def test_disallow_explicit_refuses_implicit_transfers_too():
    with numjax.transfer_guard("disallow_explicit"):
        with pytest.raises(RuntimeError, match="Disallowed host-to-device"):
            jnp.ones(1)


def test_error_type_is_a_runtime_error_subclass():
    from numjax._src.core.errors import XlaRuntimeError
    with numjax.transfer_guard_host_to_device("disallow"):
        with pytest.raises(XlaRuntimeError):
            jnp.array([1.0])
    assert issubclass(XlaRuntimeError, RuntimeError)


def test_log_levels_log_and_allow(caplog):
    with caplog.at_level(logging.WARNING, logger="numjax"):
        with numjax.transfer_guard("log"):
            y = jnp.sin(np.ones(2, np.float32))
            numjax.device_put(np.ones(2))          # explicit: silent at "log"
    assert y.shape == (2,)
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["host-to-device transfer: aval=ShapedArray(float32[2]), "
                        f"dst_sharding={REPLICATED}"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="numjax"):
        with numjax.transfer_guard("log_explicit"):
            numjax.device_put(np.ones(2, np.float32))
    assert [r.getMessage() for r in caplog.records] == [
        "host-to-device transfer: aval=ShapedArray(float32[2]), "
        "dst_sharding=SingleDeviceSharding(device=CpuDevice(id=0))"]


def test_nesting_restores_the_outer_level():
    with numjax.transfer_guard("disallow"):
        with numjax.transfer_guard("allow"):
            jnp.ones(1)
        with pytest.raises(RuntimeError):
            jnp.ones(1)
    jnp.ones(1)


def test_mixed_nesting_of_direction_and_all():
    with numjax.transfer_guard_host_to_device("disallow"):
        with numjax.transfer_guard("allow"):
            jnp.ones(1)
        with pytest.raises(RuntimeError):
            jnp.ones(1)
    with numjax.transfer_guard("disallow"):
        with numjax.transfer_guard_host_to_device("allow"):
            jnp.ones(1)
        with pytest.raises(RuntimeError):
            jnp.ones(1)


def test_other_directions_do_not_guard_host_to_device():
    with numjax.transfer_guard_device_to_host("disallow"):
        with numjax.transfer_guard_device_to_device("disallow"):
            jnp.ones(1)


def test_global_level_and_thread_local_override():
    numjax.config.update("jax_transfer_guard", "disallow")
    try:
        with pytest.raises(RuntimeError):
            jnp.ones(1)
        with numjax.transfer_guard("allow"):
            jnp.ones(1)
        numjax.config.update("jax_transfer_guard_host_to_device", "allow")
        jnp.ones(1)      # the direction's global level wins over the all-directions one
    finally:
        numjax.config.update("jax_transfer_guard_host_to_device", None)
        numjax.config.update("jax_transfer_guard", None)
    jnp.ones(1)


def test_a_new_thread_sees_the_global_level_only():
    outcome = {}

    def worker():
        try:
            jnp.ones(1)
            outcome["ok"] = True
        except RuntimeError as e:
            outcome["error"] = e

    with numjax.transfer_guard("disallow"):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert outcome == {"ok": True}


def test_invalid_level_is_refused():
    with pytest.raises(ValueError, match="jax_transfer_guard"):
        numjax.config.update("jax_transfer_guard", "forbid")
    with pytest.raises(ValueError):
        with numjax.transfer_guard("sometimes"):
            pass


def test_env_var_sets_the_global_level():
    import subprocess
    import sys
    code = ("import numjax.numpy as jnp\n"
            "try:\n    jnp.ones(1)\nexcept RuntimeError as e:\n    print(type(e).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "JAX_TRANSFER_GUARD": "disallow"},
                         check=True)
    assert out.stdout.strip() == "XlaRuntimeError"


# ---- device to host -------------------------------------------------------------------------

FETCHES = [
    ("np.asarray", lambda a: np.asarray(a)),
    ("np.add", lambda a: np.add(a, 1)),
    ("str", lambda a: str(a)),
    ("repr", lambda a: repr(a)),
    ("format", lambda a: f"{a}"),
    # Scalars come from reductions: basic indexing places its start index on the device.
    ("item", lambda a: a.sum().item()),
    ("tolist", lambda a: a.tolist()),
    ("tobytes", lambda a: a.tobytes()),
    ("float", lambda a: float(a.sum())),
    ("int", lambda a: int(a.astype(jnp.int32).sum())),
    ("bool", lambda a: bool(a.sum())),
    ("pickle.dumps", lambda a: pickle.dumps(a)),
    ("copy_to_host_async", lambda a: a.copy_to_host_async()),
]


@pytest.mark.parametrize("name,fetch", FETCHES, ids=[f[0] for f in FETCHES])
def test_fetching_from_cpu_is_always_allowed(name, fetch):
    a = jnp.arange(3.0)
    with numjax.transfer_guard("disallow_explicit"):
        fetch(a)
        numjax.device_get(a)


@pytest.mark.parametrize("name,fetch", FETCHES, ids=[f[0] for f in FETCHES])
def test_fetching_is_guarded_without_the_cpu_exemption(name, fetch):
    with _config.transfer_guard_cpu_exempt(False):
        a = jnp.arange(3.0)
        b = jnp.arange(3.0) + 0   # fresh arrays: never fetched
        with numjax.transfer_guard_device_to_host("disallow"):
            numjax.device_get(b)                        # explicit: allowed
            with pytest.raises(RuntimeError) as info:
                fetch(a)
        shown = info.value.args[0]
        assert shown.startswith("INVALID_ARGUMENT: Disallowed device-to-host transfer: shape=(")
        assert "dtype=F32" in shown or "dtype=S32" in shown or "dtype=PRED" in shown
        assert shown.endswith("device=TFRT_CPU_0")


def test_an_already_fetched_value_is_not_fetched_again():
    with _config.transfer_guard_cpu_exempt(False):
        x = jnp.arange(3.0)
        print_text = str(x)
        with numjax.transfer_guard("disallow"):
            assert str(x) == print_text          # the host copy is reused
            y = jnp.sin(x)
            with pytest.raises(RuntimeError, match="shape=\\(3\\), dtype=F32"):
                str(y)
        with numjax.transfer_guard("disallow_explicit"):
            with pytest.raises(RuntimeError, match="Disallowed device-to-host"):
                numjax.device_get(y)


def test_device_to_host_log(caplog):
    with _config.transfer_guard_cpu_exempt(False):
        x = jnp.arange(2, dtype=jnp.int32) + 0
        with caplog.at_level(logging.WARNING, logger="numjax"):
            with numjax.transfer_guard_device_to_host("log"):
                np.asarray(x)
    assert [r.getMessage() for r in caplog.records] == [
        "device-to-host transfer: shape=(2), dtype=S32, device=TFRT_CPU_0"]


def test_guard_checks_cost_nothing_when_unused(x):
    # Arrays in, Arrays out: no host value crosses, whatever the level.
    with numjax.transfer_guard("disallow_explicit"):
        f = numjax.jit(lambda a, b: a * b + jnp.sin(a))
        f(x, x)
        f(x, x)
        jnp.tanh(x) * x


# ---- the level x direction x explicit/implicit matrix ---------------------------------------

# level -> (implicit outcome, explicit outcome)
MATRIX = {
    "allow": ("ok", "ok"),
    "log": ("log", "ok"),
    "disallow": ("error", "ok"),
    "log_explicit": ("log", "log"),
    "disallow_explicit": ("error", "error"),
}


def _outcome(caplog, action):
    caplog.clear()
    try:
        with caplog.at_level(logging.WARNING, logger="numjax"):
            action()
    except RuntimeError as e:
        assert "Disallowed" in str(e)
        return "error"
    return "log" if caplog.records else "ok"


@pytest.mark.parametrize("level", list(MATRIX))
@pytest.mark.parametrize("use_all", [False, True], ids=["direction", "all"])
def test_host_to_device_matrix(level, use_all, caplog):
    guard = numjax.transfer_guard if use_all else numjax.transfer_guard_host_to_device
    value = np.ones(3, np.float32)
    with guard(level):
        # jnp.array copies the host value onto the device (implicit); jnp.asarray of a NumPy
        # array is a device_put (explicit), as in JAX.
        implicit = _outcome(caplog, lambda: jnp.array(value))
        explicit = _outcome(caplog, lambda: numjax.device_put(value))
    assert (implicit, explicit) == MATRIX[level]


@pytest.mark.parametrize("level", list(MATRIX))
@pytest.mark.parametrize("use_all", [False, True], ids=["direction", "all"])
def test_device_to_host_matrix(level, use_all, caplog):
    guard = numjax.transfer_guard if use_all else numjax.transfer_guard_device_to_host
    with _config.transfer_guard_cpu_exempt(False):
        a, b = jnp.arange(3.0) + 1, jnp.arange(3.0) + 2
        with guard(level):
            implicit = _outcome(caplog, lambda: np.asarray(a))
            explicit = _outcome(caplog, lambda: numjax.device_get(b))
    assert (implicit, explicit) == MATRIX[level]


def test_transfer_guard_documentation_example(capsys):
    # The example of JAX's transfer-guard guide. On a CPU the fetches are exempt, so it runs
    # with the exemption off, as it behaves on an accelerator.
    with _config.transfer_guard_cpu_exempt(False):
        numjax.config.update("jax_transfer_guard", "allow")
        try:
            x = jnp.array(1)
            y = jnp.array(2)
            z = jnp.array(3)
            print("x", x)
            with numjax.transfer_guard("disallow"):
                print("x", x)                          # fetched already
                print("y", numjax.device_get(y))       # explicit transfers are allowed
                try:
                    print("z", str(z))
                    raise AssertionError("This line is expected to be unreachable.")
                except RuntimeError:
                    print("z could not be fetched")
        finally:
            numjax.config.update("jax_transfer_guard", None)
    assert capsys.readouterr().out == "x 1\nx 1\ny 2\nz could not be fetched\n"


def test_a_numpy_argument_of_jit_is_one_transfer_per_call(caplog):
    # As in JAX: a cache miss (trace and compile) logs the argument once, like a hit.
    numjax.clear_caches()
    f = numjax.jit(lambda x, y: x + y)
    g = numjax.jit(lambda x: x * 2)  # NumPy arguments only: the fast path
    a = np.ones(3, np.float32)
    with caplog.at_level(logging.WARNING, logger="numjax"):
        with numjax.transfer_guard("log"):
            f(a, 1.0)
            f(a, 1.0)
            g(a)
            g(a)
    messages = [r.getMessage() for r in caplog.records if "transfer" in r.getMessage()]
    vector = "host-to-device transfer: aval=ShapedArray(float32[3]), dst_sharding=" + REPLICATED
    scalar = "host-to-device transfer: aval=ShapedArray(float32[]), dst_sharding=" + REPLICATED
    assert messages == [vector, scalar, vector, scalar, vector, vector]


@pytest.mark.parametrize("case,op,raises", [
    ("x[1]", lambda x: x[1], True), ("x[1:3]", lambda x: x[1:3], True),
    ("x[:, ::-1]", lambda x: x[:, ::-1], False), ("x[...]", lambda x: x[...], False),
])
def test_indexing_a_split_array_places_its_index_constants(case, op, raises):
    """JAX 0.4.30 reads an Array split across devices with a gather for an integer or part
    of a dimension, placing the gather's index constants: a disallowing guard refuses it, with
    this text; a reversal or a whole index places nothing."""
    from numjax.sharding import Mesh, NamedSharding, PartitionSpec
    from numjax.test_util import cpu_devices
    with cpu_devices(2):
        mesh = Mesh(np.array(numjax.devices()), ("x",))
        x = numjax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2),
                              NamedSharding(mesh, PartitionSpec("x")))
        with numjax.transfer_guard("disallow"):
            if not raises:
                out = op(x)
            else:
                with pytest.raises(RuntimeError) as info:
                    op(x)
        if not raises:
            np.testing.assert_array_equal(np.asarray(out), op(np.asarray(x)))
            return
        assert str(info.value) == ("INVALID_ARGUMENT: Disallowed host-to-device transfer: "
                                   "aval=ShapedArray(int32[]), "
                                   "dst_sharding=GSPMDSharding({replicated})")

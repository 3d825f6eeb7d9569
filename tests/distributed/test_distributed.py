"""pmap and the collectives across MPI processes (x 1 or 2 local devices, from
NUMJAX_NUM_CPU_DEVICES), against the same global computation done by NumPy on the whole
input, which every process can build. Runs on any number of processes (CI: 2 and 3)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import numjax as jax
from numjax import lax
from numjax.experimental import multihost_utils as mh
from numjax.lib.xla_extension import XlaRuntimeError

P, R = jax.process_count(), jax.process_index()
L = jax.local_device_count()
G = P * L  # devices in all


def _global(*shape: int, seed: int = 0) -> np.ndarray:
    """The whole input, the same on every process."""
    return np.random.default_rng(seed).normal(size=(G, *shape)).astype(np.float32)


def _mine(x: np.ndarray) -> np.ndarray:
    """This process's part: the rows of its local devices."""
    return x[R * L:(R + 1) * L]


def test_processes_and_global_devices() -> None:
    assert jax.process_count() == int(os.environ.get("PMI_SIZE", "1"))
    assert [d.id for d in jax.devices()] == list(range(G))
    assert [d.id for d in jax.local_devices()] == list(range(R * L, (R + 1) * L))
    assert [d.process_index for d in jax.devices()] == [p for p in range(P) for _ in range(L)]
    assert jax.device_count() == G and jax.local_device_count() == L
    assert {d.process_index for d in jax.local_devices()} == {R}


COLLECTIVES = [
    ("psum", lambda v: lax.psum(v, "i")),
    ("pmean", lambda v: lax.pmean(v, "i")),
    ("pmax", lambda v: lax.pmax(v, "i")),
    ("pmin", lambda v: lax.pmin(v, "i")),
    ("axis_index", lambda v: v * lax.axis_index("i")),
    ("all_gather", lambda v: lax.all_gather(v, "i")),
    ("all_gather_tiled", lambda v: lax.all_gather(v, "i", tiled=True)),
    ("ppermute_ring", lambda v: lax.ppermute(v, "i", [(k, (k + 1) % G) for k in range(G)])),
    ("psum_scatter", lambda v: lax.psum_scatter(v[:1].repeat(G, 0), "i")),
    ("all_to_all", lambda v: lax.all_to_all(v[:1].repeat(G, 0), "i", 0, 0)),
    ("psum_int", lambda v: lax.psum((v * 10).astype(np.int32), "i")),
    ("psum_scalar", lambda v: lax.psum(v.sum(), "i")),
    ("pmean_scalar", lambda v: lax.pmean(v[0], "i")),
    ("psum_bf16", lambda v: lax.psum(v.astype(jax.numpy.bfloat16), "i")),
    ("psum_groups", lambda v: lax.psum(v, "i", axis_index_groups=[list(range(0, G, 2)),
                                                                   list(range(1, G, 2))])
     if G % 2 == 0 else lax.psum(v, "i")),
]


@pytest.mark.parametrize("name,body", COLLECTIVES, ids=[c[0] for c in COLLECTIVES])
def test_collectives_across_processes(name: str, body: object) -> None:
    # Against the same global computation on this process alone: vmap over all G rows.
    x = _global(3)
    out = jax.pmap(body, "i")(_mine(x))  # type: ignore[arg-type]
    if name == "psum_bf16":
        # bfloat16 sums device after device in its own type, as XLA's all-reduce does.
        rows = x.astype(jax.numpy.bfloat16)
        total = rows[0]
        for row in rows[1:]:
            total = total + row
        whole = np.broadcast_to(total, x.shape)
    elif name == "psum_groups" and G % 2 == 0:
        groups = [list(range(0, G, 2)), list(range(1, G, 2))]
        whole = np.empty_like(x)
        for g in groups:
            whole[g] = x[g].sum(0)
    else:
        whole = np.asarray(jax.vmap(body, axis_name="i")(x))  # type: ignore[arg-type]
    assert [s.device for s in out.addressable_shards] == jax.local_devices()
    np.testing.assert_allclose(np.asarray(out, np.float32), _mine(whole).astype(np.float32),
                               rtol=0 if name == "psum_bf16" else 1e-5,
                               atol=0 if name == "psum_bf16" else 1e-5)


def test_large_psum_uses_one_allreduce() -> None:
    x = np.ones((L, 1 << 20), np.float32) * (R + 1)
    out = jax.pmap(lambda v: lax.psum(v, "i"), "i")(x)
    np.testing.assert_array_equal(np.asarray(out)[:, :4], L * P * (P + 1) / 2)


@pytest.mark.parametrize("n", [1 << 19, 3])
def test_psum_results_held_by_the_caller_are_never_reused(n: int) -> None:
    """A reduction's result buffer is reused by the next call only once nothing holds the
    previous result: results kept alive (or a view of one) keep their values."""
    f = jax.pmap(lambda v: lax.psum(v, "i"), "i")
    kept = [f(np.full((L, n), float(k + R), np.float32)) for k in range(3)]
    view = np.asarray(kept[0].addressable_shards[0].data)[:4]
    for k, out in enumerate(kept):
        want = sum(L * (k + r) for r in range(P))
        np.testing.assert_array_equal(np.asarray(out)[:, -4:], want)
    np.testing.assert_array_equal(view, L * sum(range(P)))
    del kept, view
    for _ in range(3):  # each result dropped before the next call: the buffer comes back
        np.testing.assert_array_equal(np.asarray(f(np.full((L, n), 2.0, np.float32)))[:, :4],
                                      2.0 * G)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_outputs_never_alias_the_callers_numpy_input(dtype: type) -> None:
    """A NumPy argument (of its canonical dtype or not, so both input paths) read by an
    identity output and a psum: writing to the argument afterwards changes neither."""
    x = _mine(_global(3)).astype(dtype)
    keep = x.copy()
    same, total = jax.pmap(lambda v: (v, lax.psum(v, "i")), "i")(x)
    x[...] = 7
    want = _global(3).astype(dtype)
    expected_dtype = jax.numpy.asarray(x).dtype  # float64 is float32 with x64 off
    np.testing.assert_array_equal(np.asarray(same), keep.astype(expected_dtype))
    np.testing.assert_allclose(np.asarray(total, np.float64),
                               np.broadcast_to(want.sum(0, dtype=np.float64), keep.shape),
                               rtol=1e-2 if dtype == np.float16 else 1e-5)
    assert total.dtype == expected_dtype and same.sharding == total.sharding


def test_repeated_calls_check_their_arguments_every_time() -> None:
    """The per-signature fast path of a compiled pmap (one device per process or several)
    still checks each call: a deleted Array is JAX's error, the transfer guard sees host
    arguments, weak and strong arguments are different signatures, and unmapped outputs
    and several outputs come back as on the first call."""
    f = jax.pmap(lambda v, s: (lax.psum(v * s, "i"), v * s), "i", in_axes=(0, None),
                 out_axes=(None, 0))
    x = np.full((L, 3), 1.0, np.float16)
    for _ in range(3):
        total, scaled = f(x, 2.0)  # a Python scalar: weak, so float16 stays float16
        assert total.dtype == scaled.dtype == np.float16
        assert total.shape == (3,) and scaled.shape == (L, 3)
        np.testing.assert_array_equal(np.asarray(total), np.full(3, 2.0 * G))
    total, _ = f(x, jax.numpy.float32(2.0))  # strong float32: promotes
    assert total.dtype == np.float32
    y = jax.pmap(lambda v: v + 1, "i")(x)
    g = jax.pmap(lambda v: v * 2, "i")
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(g(y)), np.full((L, 3), 4.0, np.float16))
    y.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        g(y)
    with jax.transfer_guard("disallow"):
        with pytest.raises(XlaRuntimeError, match="INVALID_ARGUMENT: Disallowed host-to-device"):
            g(x)


def test_data_parallel_gradients_match_one_process() -> None:
    x = _global(4, seed=1)
    w = np.linspace(-1, 1, 4).astype(np.float32)

    def loss(w: object, v: object) -> object:
        return ((v @ w) ** 2).mean()  # type: ignore[operator]

    grads = jax.pmap(lambda v, w: lax.pmean(jax.grad(loss)(w, v), "i"), "i",
                     in_axes=(0, None))(_mine(x), w)
    whole = jax.grad(lambda w: jax.vmap(lambda v: loss(w, v))(x).mean())(w)
    for g in np.asarray(grads):
        np.testing.assert_allclose(g, np.asarray(whole), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("always", [False, True])
def test_mismatched_shapes_across_processes_are_an_error_everywhere(always: bool) -> None:
    """Processes passing different shapes to one collective all get the same ValueError (on the
    first call of a compiled program, or on every call with numjax_check_collectives), and
    the job goes on."""
    f = jax.pmap(lambda v: lax.psum(v, "i"), "i")
    jax.config.update("numjax_check_collectives", always)
    try:
        for _ in range(2):  # the second call of each program: checked only when `always`
            out = f(np.ones((L, 3), np.float32))
            np.testing.assert_array_equal(np.asarray(out), np.full((L, 3), G, np.float32))
        if P > 1:
            with pytest.raises(ValueError, match=r"process 0: psum of float32\[1, 3\]; "
                                                 r"process 1: psum of float32\[1, 4\]"):
                f(np.ones((L, 1, 3 + R), np.float32))
    finally:
        jax.config.update("numjax_check_collectives", False)
    out = f(np.full((L, 2), 2.0, np.float32))  # a later program runs as before
    np.testing.assert_array_equal(np.asarray(out), np.full((L, 2), 2.0 * G, np.float32))


def test_nested_pmap_across_processes() -> None:
    """The outer axis over the processes, the inner over each one's local devices: axis
    indices and collectives over either axis or both, as vmap of vmap over the whole input."""
    def body(b: object) -> object:
        return (b + 10 * lax.axis_index("i") + 100 * lax.axis_index("j")
                + 1000 * lax.psum(b, ("i", "j")) + 10000 * lax.psum(b, "j")
                + lax.all_gather(b, "i").sum())

    x = np.arange(G, dtype=np.float32).reshape(P, L, 1)
    out = jax.pmap(lambda v: jax.pmap(body, "j")(v), "i")(x[R:R + 1])
    whole = jax.vmap(jax.vmap(body, axis_name="j"), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(whole)[R:R + 1])


class _CountingComm:
    """The job's communicator, counting the MPI calls made on it by name."""

    def __init__(self, comm: object) -> None:
        self.comm, self.calls = comm, {}
        self.received: list[int] = []  # addresses of the receive buffers, call after call

    def __getattr__(self, name: str) -> object:
        attribute = getattr(self.comm, name)
        if name[:1].isupper() or name in ("allgather", "bcast"):
            def counted(*args: object, **kwargs: object) -> object:
                self.calls[name] = self.calls.get(name, 0) + 1
                receive = {"Allgather": 1, "Alltoallv": 1, "Irecv": 0}.get(name)
                if receive is not None:
                    buf = args[receive]
                    buf = buf[0] if isinstance(buf, list) else buf  # [buffer, (counts, ...)]
                    assert isinstance(buf, np.ndarray)
                    self.received.append(buf.__array_interface__["data"][0])
                return attribute(*args, **kwargs)
            return counted
        return attribute


def _traffic(fn: object, *args: object) -> tuple[object, dict[str, int]]:
    """`fn(*args)`'s second call, and the MPI calls it made on the job's communicator."""
    from numjax._src.runtime import distributed
    real = distributed.state.comm
    distributed.state.comm = counting = _CountingComm(real)
    try:
        fn(*args)  # type: ignore[operator]  # compiled with the counting communicator
        counting.calls.clear()
        out = fn(*args)  # type: ignore[operator]
    finally:
        distributed.state.comm = real
    return out, counting.calls


def test_collectives_move_only_what_their_groups_need() -> None:
    """A collective over the local devices' axis makes no MPI call; one over the processes'
    axis reduces each group's partial sums in one Allreduce; a permutation sends point to
    point (no process receives values it does not keep)."""
    x = np.arange(G * 2, dtype=np.float32).reshape(P, L, 2)
    inner = jax.pmap(lambda v: jax.pmap(lambda b: lax.psum(b, "j"), "j")(v), "i")
    out, calls = _traffic(inner, x[R:R + 1])
    np.testing.assert_array_equal(np.asarray(out)[0], np.broadcast_to(x[R].sum(0), (L, 2)))
    assert calls == {}
    outer = jax.pmap(lambda v: jax.pmap(lambda b: lax.psum(b, "i"), "j")(v), "i")
    out, calls = _traffic(outer, x[R:R + 1])
    np.testing.assert_array_equal(np.asarray(out)[0], x.sum(0))
    assert calls == ({"Allreduce": 1} if P > 1 else {})
    ring = jax.pmap(lambda v: lax.ppermute(v, "i", [(k, (k + 1) % G) for k in range(G)]), "i")
    out, calls = _traffic(ring, _mine(_global(2)))
    np.testing.assert_array_equal(np.asarray(out), _mine(np.roll(_global(2), 1, axis=0)))
    assert set(calls) <= {"Isend", "Irecv"} and calls.get("Isend", 0) == (P > 1)


RECEIVING = [
    ("all_gather", lambda v: lax.all_gather(v, "i")),
    ("ppermute", lambda v: lax.ppermute(v, "i", [(k, (k + 1) % G) for k in range(G)])),
    ("all_to_all", lambda v: lax.all_to_all(v, "i", 0, 0)),
]


@pytest.mark.parametrize("name,body", RECEIVING, ids=[c[0] for c in RECEIVING])
def test_receive_buffers_are_reused_unless_a_result_holds_them(name: str, body: object) -> None:
    """A collective that receives into a buffer receives into the last call's again once
    nothing holds it; a result still held (a ppermute's result is a row of its receive
    buffer) keeps its values while later calls receive elsewhere."""
    from numjax._src.runtime import distributed
    x = _global(G, 2)
    f = jax.pmap(body, "i")  # type: ignore[arg-type]
    want = np.asarray(jax.vmap(body, axis_name="i")(x))  # type: ignore[arg-type]
    real = distributed.state.comm
    distributed.state.comm = counting = _CountingComm(real)
    try:
        kept = f(_mine(x))  # compiled with the recording communicator
        held = [f(_mine(x) + k) for k in (1, 2)]  # both held: each its own buffers
        del held
        counting.received.clear()
        for k in (3, 4, 5):  # each result dropped before the next call
            # (the collectives only move values: shifting the input shifts the result)
            np.testing.assert_array_equal(np.asarray(f(_mine(x) + k)), _mine(want) + k)
    finally:
        distributed.state.comm = real
    np.testing.assert_array_equal(np.asarray(kept), _mine(want))
    if P > 1:
        calls = len(counting.received) // 3
        assert calls >= 1 and counting.received[:calls] * 3 == counting.received


def test_all_to_all_in_group_order() -> None:
    """all_to_all within a group listed backwards: member k (device G-1-k) receives row k of
    every member, stacked along the new axis 1 in member order (JAX's all_to_all: the split
    axis goes, the concat axis comes); one Alltoallv, whatever the devices per process."""
    group = list(range(G))[::-1]
    x = _global(G, 2)  # each device's value: G rows of 2
    f = jax.pmap(lambda v: lax.all_to_all(v, "i", 0, 1, axis_index_groups=[group]), "i")
    out, calls = _traffic(f, _mine(x))
    want = np.empty((G, 2, G), np.float32)
    for k, rank in enumerate(group):
        want[rank] = np.stack([x[m][k] for m in group], axis=1)
    np.testing.assert_array_equal(np.asarray(out), _mine(want))
    assert calls == ({"Alltoallv": 1} if P > 1 else {})


def _groups_of_this_layout() -> list[list[int]]:
    """Groups of two devices: with two local devices, the first two processes' devices
    crossed ([0, 2], [1, 3]) and every other process's pair on its own; else neighbours; one
    device each when the count is odd (groups must be of one size)."""
    if G % 2:
        return [[k] for k in range(G)]
    if L == 2 and P >= 2:
        return [[0, 2], [1, 3]] + [[k, k + 1] for k in range(4, G, 2)]
    return [[k, k + 1] for k in range(0, G, 2)]


def test_grouped_collectives_split_the_processes() -> None:
    """axis_index_groups that pair some processes and leave others alone (3 processes of 2
    devices: processes 0 and 1 share their groups, process 2 keeps its own): values as on one
    process, for a reduction, a gather, a reduce-scatter and an all-to-all."""
    groups = _groups_of_this_layout()
    size = len(groups[0])
    x = _global(2)
    body = (lambda v: (lax.psum(v, "i", axis_index_groups=groups),
                       lax.all_gather(v, "i", axis_index_groups=groups),
                       lax.psum_scatter(v, "i", axis_index_groups=groups, tiled=True),
                       lax.all_to_all(v.reshape(size, -1), "i", 0, 0,
                                      axis_index_groups=groups).reshape(-1),
                       lax.psum(v[0], "i", axis_index_groups=groups)))
    total, gathered, scattered, exchanged, scalar = jax.pmap(body, "i")(_mine(x))
    want_total, want_gathered, want_scattered = (np.empty((G, 2), np.float32),
                                                 np.empty((G, size, 2), np.float32),
                                                 np.empty((G, 2 // size), np.float32))
    want_exchanged = np.empty((G, 2), np.float32)
    for g in groups:
        for position, rank in enumerate(g):
            want_total[rank] = x[g].sum(0)
            want_gathered[rank] = x[g]
            part = 2 // size
            want_scattered[rank] = x[g].sum(0)[position * part:(position + 1) * part]
            want_exchanged[rank] = np.concatenate([x[m][position * part:(position + 1) * part]
                                                   for m in g])
    np.testing.assert_allclose(np.asarray(total), _mine(want_total), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(gathered), _mine(want_gathered))
    np.testing.assert_allclose(np.asarray(scattered), _mine(want_scattered), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(exchanged), _mine(want_exchanged))
    np.testing.assert_allclose(np.asarray(scalar), _mine(want_total)[:, 0], rtol=1e-6)


def test_multihost_utils() -> None:
    np.testing.assert_array_equal(mh.process_allgather(np.array([R, R])),
                                  [[p, p] for p in range(P)])
    np.testing.assert_array_equal(mh.process_allgather(np.array([R]), tiled=True), range(P))
    np.testing.assert_array_equal(np.asarray(mh.broadcast_one_to_all(np.array([R + 7]))), [7])
    mh.sync_global_devices("here")
    mh.assert_equal(np.arange(3))
    if P > 1:
        with pytest.raises(AssertionError, match="same value"):
            mh.assert_equal(np.array([R]))


def test_initialize_twice_is_jax_error() -> None:
    with pytest.raises(RuntimeError, match="should only be called once"):
        jax.distributed.initialize()


def test_a_failing_rank_ends_the_job_quickly() -> None:
    if R != 0:
        return  # rank 0 starts the failing job; the others have nothing to run
    program = ("import numjax as jax, numpy as np\nfrom numjax import lax\n"
               "jax.distributed.initialize()\n"
               "if jax.process_index() == 1:\n    raise ValueError('rank one failed')\n"
               "jax.pmap(lambda v: lax.psum(v, 'i'), 'i')(np.ones((1, 2)))\n")
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec):
        mpiexec = "mpiexec"
    # A job of its own: nothing of this job's launcher (under Slurm, mpiexec would start the
    # inner job as steps of this one, and its abort would end this job too).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI", "MPI", "HYDRA", "SLURM"))}
    env["NUMJAX_NUM_CPU_DEVICES"] = "1"
    start = time.monotonic()
    result = subprocess.run([mpiexec, "-n", "2", sys.executable, "-c", program], env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "rank one failed" in result.stderr
    assert time.monotonic() - start < 30


def test_srun_without_pmi_is_an_error_not_a_job_of_one() -> None:
    """A process Slurm's srun started without a PMI plugin (here: a singleton with srun's
    variables) refuses to run as a job of one."""
    if R != 0:
        return
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI", "MPI", "HYDRA", "SLURM"))}
    env.update(SLURM_JOB_ID="17", SLURM_NTASKS="2", SLURM_PROCID="1")
    program = "import numjax\nnumjax.distributed.initialize()"
    result = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    assert "RuntimeError: Slurm started 2 tasks (this is task 1)" in result.stderr

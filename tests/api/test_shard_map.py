"""shard_map on 1, 2, 4 and 8 CPU devices: programs against a loop over the blocks in NumPy,
under jit, grad and vmap, every collective over mesh axis names, and JAX 0.4.30's errors
(texts recorded from JAX, inline)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax.experimental.shard_map import shard_map
from numjax.sharding import Mesh, NamedSharding
from numjax.sharding import PartitionSpec as P
from numjax.test_util import check_grads, cpu_devices

COUNTS = [1, 2, 4, 8]


@pytest.fixture(params=COUNTS, ids=[f"{n}dev" for n in COUNTS])
def ndev(request: pytest.FixtureRequest) -> Iterator[int]:
    with cpu_devices(request.param):
        yield request.param


def _mesh1(n: int, name: str = "i") -> Mesh:
    return Mesh(np.array(jax.devices()[:n]), (name,))


def _blocks(x: np.ndarray, n: int, axis: int = 0) -> list[np.ndarray]:
    return np.split(x, n, axis)


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---- programs against a loop over the blocks -------------------------------------------------


def test_sharded_matmul_with_psum(ndev: int) -> None:
    """x split over its columns, w over its rows: each device multiplies its blocks, psum
    adds the partial products."""
    mesh = _mesh1(ndev)
    x = _rng().standard_normal((4, 8 * ndev)).astype(np.float32)
    w = _rng(1).standard_normal((8 * ndev, 3)).astype(np.float32)
    f = shard_map(lambda a, b: lax.psum(a @ b, "i"), mesh, in_specs=(P(None, "i"), P("i")),
                  out_specs=P())
    want = sum(a @ b for a, b in zip(_blocks(x, ndev, 1), _blocks(w, ndev), strict=True))
    for fn in (f, jax.jit(f)):
        out = fn(x, w)
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5, atol=1e-5)
        assert out.shape == (4, 3) and out.dtype == np.float32


def test_ring_all_gather_with_ppermute(ndev: int) -> None:
    """Each device passes blocks around the ring; after n - 1 steps every device has all of
    them: the all_gather of the blocks."""
    mesh = _mesh1(ndev)
    perm = [(j, (j + 1) % ndev) for j in range(ndev)]

    def ring(block: Any) -> Any:
        me = lax.axis_index("i")
        out = jnp.zeros((ndev, *block.shape), block.dtype).at[me].set(block)
        cur = block
        for step in range(1, ndev):
            cur = lax.ppermute(cur, "i", perm)
            out = out.at[(me - step) % ndev].set(cur)
        return out.reshape(1, -1)

    x = np.arange(4 * ndev, dtype=np.float32)
    f = shard_map(ring, mesh, in_specs=P("i"), out_specs=P("i"))
    for fn in (f, jax.jit(f)):
        out = np.asarray(fn(x))
        assert out.shape == (ndev, 4 * ndev)
        for row in out:
            np.testing.assert_array_equal(row, x)
    gathered = shard_map(lambda b: lax.all_gather(b, "i", tiled=True)[None], mesh,
                         in_specs=P("i"), out_specs=P("i"))(x)
    np.testing.assert_array_equal(np.asarray(gathered), np.tile(x, (ndev, 1)))


def _mlp_loss(params: Any, x: Any, y: Any) -> Any:
    w1, b1, w2, b2 = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - y) ** 2)


def _mlp_params() -> list[np.ndarray]:
    r = _rng(3)
    return [r.standard_normal((5, 7)).astype(np.float32) * 0.3, np.zeros(7, np.float32),
            r.standard_normal((7, 2)).astype(np.float32) * 0.3, np.zeros(2, np.float32)]


def test_data_parallel_training_step(ndev: int) -> None:
    """Each device takes the gradient of its part of the batch; pmean over the devices gives
    the gradient of the whole batch, so the step matches one device's."""
    mesh = _mesh1(ndev, "batch")
    params = _mlp_params()
    x = _rng(4).standard_normal((4 * ndev, 5)).astype(np.float32)
    y = _rng(5).standard_normal((4 * ndev, 2)).astype(np.float32)

    def step(params: Any, x: Any, y: Any) -> Any:
        loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
        grads = lax.pmean(grads, "batch")
        new = [p - 0.1 * g for p, g in zip(params, grads, strict=True)]
        return new, lax.pmean(loss, "batch")

    sharded = jax.jit(shard_map(step, mesh, in_specs=(P(), P("batch"), P("batch")),
                                out_specs=(P(), P())))
    new, loss = sharded(params, x, y)
    want_loss, want_grads = jax.value_and_grad(_mlp_loss)(params, x, y)
    np.testing.assert_allclose(np.asarray(loss), np.asarray(want_loss), rtol=1e-5)
    for p, g, got in zip(params, want_grads, new, strict=True):
        np.testing.assert_allclose(np.asarray(got), p - 0.1 * np.asarray(g), rtol=1e-5,
                                   atol=1e-6)


def test_runs_on_every_device_thread_at_once() -> None:
    """Each device runs its block on its own thread, side by side: a barrier every device
    must reach before any leaves would hang if they ran one after another."""
    with cpu_devices(2):
        mesh = _mesh1(2)
        barrier = threading.Barrier(2, timeout=10)
        seen: list[str] = []

        def meet(x: np.ndarray) -> np.ndarray:
            seen.append(threading.current_thread().name)
            barrier.wait()
            return x

        def f(x: Any) -> Any:
            return jax.pure_callback(meet, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

        out = shard_map(f, mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False)(
            jnp.arange(4.0))
        np.testing.assert_array_equal(np.asarray(out), np.arange(4.0))
        assert len(set(seen)) == 2


def test_2d_mesh_collectives() -> None:
    with cpu_devices(4):
        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
        x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
        total = shard_map(lambda a: lax.psum(a, ("x", "y")), mesh, in_specs=P("x", "y"),
                          out_specs=P())(x)
        np.testing.assert_array_equal(np.asarray(total), [[20.0, 24.0], [36.0, 40.0]])
        rows = shard_map(lambda a: lax.psum(a, "y"), mesh, in_specs=P("x", "y"),
                         out_specs=P("x"))(x)
        np.testing.assert_array_equal(np.asarray(rows), x[:, :2] + x[:, 2:])
        both = shard_map(lambda a: a, mesh, in_specs=P(("x", "y")),
                         out_specs=P(("x", "y")))(np.arange(8.0))
        np.testing.assert_array_equal(np.asarray(both), np.arange(8.0))
        index = shard_map(lambda a: a + lax.axis_index("x"), mesh, in_specs=P("x"),
                          out_specs=P("x"))(jnp.zeros(4, jnp.int32))
        np.testing.assert_array_equal(np.asarray(index), [0, 0, 1, 1])  # JAX 0.4.30


@pytest.mark.parametrize("name, fn, want", [
    # each device's block [2i, 2i+1] of arange(4 * ndev); results checked against NumPy
    ("psum_scatter", lambda b: lax.psum_scatter(b, "i", tiled=True), "scatter"),
    ("all_to_all", lambda b: lax.all_to_all(b.reshape(-1, 1), "i", 0, 1, tiled=True)
     .reshape(-1), "a2a"),
    ("pmax", lambda b: lax.pmax(b, "i"), "max"),
    ("pmin", lambda b: lax.pmin(b, "i"), "min"),
])
def test_collectives(ndev: int, name: str, fn: Callable[[Any], Any], want: str) -> None:
    mesh = _mesh1(ndev)
    x = np.arange(ndev * ndev, dtype=np.float32)
    blocks = _blocks(x, ndev)
    out_spec = P() if want in ("max", "min") else P("i")
    got = np.asarray(shard_map(fn, mesh, in_specs=P("i"), out_specs=out_spec,
                               check_rep=want in ("max", "min"))(x))
    if want == "max":
        np.testing.assert_array_equal(got, np.max(blocks, 0))
    elif want == "min":
        np.testing.assert_array_equal(got, np.min(blocks, 0))
    elif want == "scatter":
        np.testing.assert_array_equal(got, np.sum(blocks, 0))
    else:
        # device k receives element k of every block, in device order
        np.testing.assert_array_equal(got, np.stack(blocks, 1).reshape(-1))


# ---- transformations ----------------------------------------------------------------------


def test_grad_through_shard_map_matches_one_device(ndev: int) -> None:
    mesh = _mesh1(ndev)
    w = _rng(6).standard_normal((3, 2)).astype(np.float32)
    x = _rng(7).standard_normal((2 * ndev, 3)).astype(np.float32)

    def loss(w: Any, x: Any) -> Any:
        return jnp.sum(jnp.tanh(x @ w))

    def sharded(w: Any, x: Any) -> Any:
        return shard_map(lambda w, x: lax.psum(loss(w, x), "i"), mesh,
                         in_specs=(P(), P("i")), out_specs=P())(w, x)

    for argnum in (0, 1):
        want = jax.grad(loss, argnum)(w, x)
        for g in (jax.grad(sharded, argnum), jax.jit(jax.grad(sharded, argnum))):
            np.testing.assert_allclose(np.asarray(g(w, x)), np.asarray(want), rtol=1e-5,
                                       atol=1e-6)
    check_grads(sharded, (w, x), order=1, modes=("rev", "fwd"), atol=2e-2, rtol=2e-2)


def test_grad_through_shard_map_on_a_2d_mesh() -> None:
    """A matmul split along its contraction over 'y' and its rows over 'x' (psum over 'y',
    rows gathered along 'x'): gradients in both modes against finite differences and one
    device's, eager and jitted."""
    with cpu_devices(4):
        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
        w = _rng(8).standard_normal((4, 3)).astype(np.float32) / 2
        x = _rng(9).standard_normal((4, 4)).astype(np.float32) / 2

        def loss(w: Any, x: Any) -> Any:
            return jnp.sum(jnp.sin(x @ w) ** 2)

        def block(w: Any, x: Any) -> Any:
            return lax.psum(jnp.sum(jnp.sin(lax.psum(x @ w, "y")) ** 2), "x")

        sharded = shard_map(block, mesh, in_specs=(P("y"), P("x", "y")), out_specs=P())
        for argnum in (0, 1):
            want = jax.grad(loss, argnum)(w, x)
            for g in (jax.grad(sharded, argnum), jax.jit(jax.grad(sharded, argnum))):
                np.testing.assert_allclose(np.asarray(g(w, x)), np.asarray(want), rtol=1e-5,
                                           atol=1e-6)
        check_grads(sharded, (w, x), order=1, modes=("rev", "fwd"), atol=2e-2, rtol=2e-2)


def test_grad_of_replicated_output_and_argument() -> None:
    """An output every device holds once and an argument every device reads: the
    cotangent is shared among the devices and summed back (JAX 0.4.30: d/dw of
    shard_map(psum((a * w).sum())) over arange(4) is 6.0)."""
    with cpu_devices(2):
        mesh = _mesh1(2)
        f = shard_map(lambda a, w: lax.psum((a * w).sum(), "i"), mesh,
                      in_specs=(P("i"), P()), out_specs=P())
        assert float(jax.grad(lambda w: f(jnp.arange(4.0), w))(2.0)) == 6.0
        twice = shard_map(lambda w: w * 2, mesh, in_specs=P(), out_specs=P())
        assert float(jax.grad(twice)(3.0)) == 2.0


def test_vmap_of_shard_map(ndev: int) -> None:
    mesh = _mesh1(ndev)
    f = shard_map(lambda a: lax.psum(a, "i"), mesh, in_specs=P("i"), out_specs=P())
    x = np.arange(3 * 2 * ndev, dtype=np.float32).reshape(3, 2 * ndev)
    got = jax.vmap(f)(x)
    want = np.stack([np.sum(_blocks(row, ndev), 0) for row in x])
    np.testing.assert_array_equal(np.asarray(got), want)
    got1 = jax.vmap(f, in_axes=1, out_axes=1)(x.T.copy())
    np.testing.assert_array_equal(np.asarray(got1), want.T)


def test_jvp_of_shard_map() -> None:
    with cpu_devices(2):
        mesh = _mesh1(2)
        ring = shard_map(lambda a: lax.ppermute(a * a, "i", [(0, 1), (1, 0)]), mesh,
                         in_specs=P("i"), out_specs=P("i"))
        primal, tangent = jax.jvp(ring, (jnp.arange(4.0),), (jnp.ones(4),))
        np.testing.assert_array_equal(np.asarray(primal), [4.0, 9.0, 0.0, 1.0])
        np.testing.assert_array_equal(np.asarray(tangent), [4.0, 6.0, 0.0, 2.0])


def test_outputs_are_sharded_arrays() -> None:
    with cpu_devices(2):
        mesh = _mesh1(2)
        out = shard_map(lambda a: a, mesh, in_specs=P("i"), out_specs=P("i"))(jnp.arange(8.0))
        # JAX 0.4.30
        assert repr(out.sharding) == ("NamedSharding(mesh=Mesh('i': 2), "
                                      "spec=PartitionSpec('i',))")
        assert [s.index for s in out.addressable_shards] == [(slice(0, 4),), (slice(4, 8),)]
        total = shard_map(lambda a: lax.psum(a, "i"), mesh, in_specs=P("i"),
                          out_specs=P())(jnp.arange(8.0))
        assert repr(total.sharding) == "NamedSharding(mesh=Mesh('i': 2), spec=PartitionSpec())"
        assert total.is_fully_replicated
        # blocks already laid out on the mesh are used where they are
        x = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(mesh, P("i")))
        y = shard_map(lambda a: a + 1, mesh, in_specs=P("i"), out_specs=P("i"))(x)
        np.testing.assert_array_equal(np.asarray(y), np.arange(8.0) + 1)
        col = shard_map(lambda a: a.sum(keepdims=True), mesh, in_specs=P("i"),
                        out_specs=P("i"))(jnp.arange(8.0))
        np.testing.assert_array_equal(np.asarray(col), [6.0, 22.0])


def test_make_jaxpr_prints_jax_params() -> None:
    with cpu_devices(4):
        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
        text = str(jax.make_jaxpr(shard_map(lambda a: a * 2, mesh, in_specs=P("x"),
                                            out_specs=P("x")))(jnp.arange(4.0)))
        assert "in_names=({0: ('x',)},)" in text
        assert "out_names=({0: ('x',)},)" in text
        assert "mesh=Mesh('x': 2, 'y': 2)" in text
        assert "auto=frozenset()" in text and "check_rep=True" in text


# ---- errors (JAX 0.4.30's texts) -----------------------------------------------------------

_MESH_2X2 = "The mesh given has shape (2, 2) with corresponding axis names ('x', 'y')."
_SUGGEST = ("Check if these output values are meant to be replicated over those mesh axes. "
            "If not, consider revising the corresponding out_specs entries. If so, consider "
            "disabling the check by passing the check_rep=False argument to shard_map.")

ERRORS_2X2: list[tuple[str, Callable[[Mesh], Any], type, str]] = [
    ("nondivisible", lambda m: shard_map(lambda a: a, m, in_specs=P("x", "y"),
                                         out_specs=P("x", "y"))(jnp.arange(6.0).reshape(3, 2)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given argument arrays with axis sizes "
     "that are not evenly divisible by the corresponding mesh axis sizes:\n\n" + _MESH_2X2 +
     "\n\nargs[0] of shape float32[3,2], where args[0] is bound to <lambda>'s parameter 'a', "
     "corresponds to in_specs of value PartitionSpec('x', 'y'), which maps array axis 0 (of "
     "size 3) to mesh axis 'x' (of size 2), but 2 does not evenly divide 3\n\nArray arguments' "
     "axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
     "corresponding elements of the argument's in_specs entry. Consider checking that "
     "in_specs are correct, and if so consider changing the mesh axis sizes or else padding "
     "the input and adapting '<lambda>' appropriately."),
    ("in_rank", lambda m: shard_map(lambda a: a, m, in_specs=P("x", "y"),
                                    out_specs=P("x", "y"))(jnp.arange(4.0)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given an in_specs entry which is too "
     "long to be compatible with the corresponding input value from the function:\n\n"
     "in_specs is PartitionSpec('x', 'y') which has length 2, but args[0], where args[0] is "
     "bound to <lambda>'s parameter 'a', has shape float32[4], which has rank 1 (and 1 < 2)"
     "\n\nEntries in in_specs must be of length no greater than the number of axes in the "
     "corresponding input value.\n\nEither revise the spec to be shorter, or modify "
     "'<lambda>' so that its inputs have sufficient rank."),
    ("unknown_axis", lambda m: shard_map(lambda a: a, m, in_specs=P("z"),
                                         out_specs=P("z"))(jnp.arange(4.0)),
     KeyError, "'z'"),
    ("rep_two_axes", lambda m: shard_map(lambda a: a, m, in_specs=P("x"),
                                         out_specs=P())(jnp.arange(4.0)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given out_specs which require "
     "replication which can't be statically inferred given the mesh:\n\n" + _MESH_2X2 +
     "\n\nout_specs is PartitionSpec() which implies that the corresponding output value is "
     "replicated across mesh axes {x,y}, but could only infer replication over {y}, which is "
     "missing the required axes x\n\n" + _SUGGEST),
    ("rep_one_axis", lambda m: shard_map(lambda a: a * 2, m, in_specs=P("x", "y"),
                                         out_specs=P("x"))(jnp.arange(16.0).reshape(4, 4)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given out_specs which require "
     "replication which can't be statically inferred given the mesh:\n\n" + _MESH_2X2 +
     "\n\nout_specs is PartitionSpec('x',) which implies that the corresponding output value "
     "is replicated across mesh axis 'y', but could not infer replication over any axes\n\n"
     + _SUGGEST),
    ("rep_after_all_gather", lambda m: shard_map(
        lambda a: lax.all_gather(a, "x", tiled=True), m, in_specs=P("x"),
        out_specs=P())(jnp.arange(8.0)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given out_specs which require "
     "replication which can't be statically inferred given the mesh:\n\n" + _MESH_2X2 +
     "\n\nout_specs is PartitionSpec() which implies that the corresponding output value is "
     "replicated across mesh axes {x,y}, but could only infer replication over {y}, which is "
     "missing the required axes x\n\n" + _SUGGEST),
    ("out_rank", lambda m: shard_map(lambda a: a.sum(), m, in_specs=P("x"),
                                     out_specs=P("x"))(jnp.arange(4.0)),
     ValueError,
     "shard_map applied to the function '<lambda>' was given an out_specs entry which is too "
     "long to be compatible with the corresponding output value from the function:\n\n"
     "out_specs is PartitionSpec('x',) which has length 1, but <lambda>(*args) has shape "
     "float32[], which has rank 0 (and 0 < 1)\n\nEntries in out_specs must be of length no "
     "greater than the number of axes in the corresponding output value.\n\nEither revise "
     "the spec to be shorter, or modify '<lambda>' so that its outputs have sufficient rank."
     "\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where "
     "`P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not "
     "constant over the mesh, add at least one (singleton) axis to them so that they can be "
     "concatenated using out_specs."),
    ("in_tree", lambda m: shard_map(lambda a, b: a, m, in_specs=(P("x"),),
                                    out_specs=P("x"))(jnp.arange(4.0), jnp.arange(4.0)),
     ValueError,
     "pytree structure error: different lengths of tuple at key path\n    shard_map in_specs\n"
     "At that key path, the prefix pytree shard_map in_specs has a subtree of type tuple of "
     "length 1, but the full pytree has a subtree of the same type but of length 2."),
    ("out_tree", lambda m: shard_map(lambda a: (a, a), m, in_specs=(P("x"),),
                                     out_specs=(P("x"), P("x"), P("x")))(jnp.arange(4.0)),
     ValueError,
     "pytree structure error: different lengths of tuple at key path\n    shard_map out_specs"
     "\nAt that key path, the prefix pytree shard_map out_specs has a subtree of type tuple "
     "of length 3, but the full pytree has a subtree of the same type but of length 2."),
    ("duplicate_axis", lambda m: shard_map(lambda a: a, m, in_specs=P("x", "x"),
                                           out_specs=P("x", "x")),
     ValueError,
     "A single NamedSharding spec specification can map every mesh axis to at most one "
     "positional dimension, but PartitionSpec(('x',), ('x',)) has duplicate entries for `x`"),
    ("not_a_spec", lambda m: shard_map(lambda a: a, m, in_specs=("x",), out_specs=P("x")),
     TypeError,
     "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` "
     "instances, but:\n\n  in_specs[0] is x of type str, \n\nCheck the in_specs values "
     "passed to shard_map."),
    ("in_specs_none", lambda m: shard_map(lambda a: a, m, in_specs=None, out_specs=P()),
     TypeError,
     "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` "
     "instances, but it was None.\nInstead of `in_specs=None`, did you mean `in_specs=P()`, "
     "where `P = jax.sharding.PartitionSpec`?"),
    ("not_callable", lambda m: shard_map(3, m, in_specs=P(), out_specs=P()),  # type: ignore
     TypeError, "shard_map requires a callable for its first argument, but got 3 of type "
     "<class 'int'>."),
    ("not_a_mesh", lambda m: shard_map(lambda a: a, 3, in_specs=P(),  # type: ignore
                                       out_specs=P()),
     TypeError, "shard_map requires a `jax.sharding.Mesh` instance for its second argument, "
     "but got 3 of type <class 'int'>."),
    ("unbound_name", lambda m: shard_map(lambda a: lax.psum(a, "j"), m, in_specs=P("x"),
                                         out_specs=P("x"))(jnp.arange(4.0)),
     NameError, "unbound axis name: j. The following axis names (e.g. defined by pmap) are "
     "available to collective operations: ['x', 'y']"),
]


@pytest.mark.parametrize("name, call, error, text", ERRORS_2X2,
                         ids=[e[0] for e in ERRORS_2X2])
def test_errors(name: str, call: Callable[[Mesh], Any], error: type, text: str) -> None:
    with cpu_devices(4):
        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("x", "y"))
        with pytest.raises(error) as info:
            call(mesh)
        message = info.value.args[0] if error is KeyError else str(info.value)
        assert str(message) == (text if error is not KeyError else "z")


def test_error_names_varargs_and_second_spec() -> None:
    with cpu_devices(2):
        mesh = _mesh1(2)
        tail = ("\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or "
                "axes indicated by the corresponding elements of the argument's in_specs "
                "entry. Consider checking that in_specs are correct, and if so consider "
                "changing the mesh axis sizes or else padding the input and adapting "
                "'<lambda>' appropriately.")
        head = ("shard_map applied to the function '<lambda>' was given argument arrays with "
                "axis sizes that are not evenly divisible by the corresponding mesh axis "
                "sizes:\n\nThe mesh given has shape (2,) with corresponding axis names "
                "('i',).\n\n")
        with pytest.raises(ValueError) as info:
            shard_map(lambda a, b: a, mesh, in_specs=(P("i"), P("i")), out_specs=P("i"))(
                jnp.arange(8.0), jnp.arange(3.0))
        assert str(info.value) == head + (
            "args[1] of shape float32[3], where args[1] is bound to <lambda>'s parameter 'b', "
            "corresponds to in_specs[1] of value PartitionSpec('i',), which maps array axis "
            "0 (of size 3) to mesh axis 'i' (of size 2), but 2 does not evenly divide 3"
        ) + tail
        with pytest.raises(ValueError) as info:
            shard_map(lambda *a: a[0], mesh, in_specs=P("i"), out_specs=P("i"))(
                jnp.arange(8.0), jnp.arange(3.0))
        assert str(info.value) == head + (
            "args[1] of shape float32[3], where args[1] is the index 1 component of "
            "<lambda>'s varargs parameter 'a', corresponds to in_specs of value "
            "PartitionSpec('i',), which maps array axis 0 (of size 3) to mesh axis 'i' (of "
            "size 2), but 2 does not evenly divide 3") + tail


def test_check_rep_false_takes_the_first_block() -> None:
    with cpu_devices(2):
        out = shard_map(lambda a: a, _mesh1(2), in_specs=P("i"), out_specs=P(),
                        check_rep=False)(jnp.arange(4.0))
        np.testing.assert_array_equal(np.asarray(out), [0.0, 1.0])  # JAX 0.4.30


def test_deliberate_differences() -> None:
    """docs/differences.md: the jaxpr holds psum (JAX 0.4.30: psum2 under check_rep), and
    auto= is not supported."""
    with cpu_devices(2):
        mesh = _mesh1(2)
        text = str(jax.make_jaxpr(shard_map(lambda a: lax.psum(a, "i"), mesh, in_specs=P("i"),
                                            out_specs=P()))(jnp.arange(4.0)))
        assert "psum[axes=('i',) axis_index_groups=None]" in text
        with pytest.raises(NotImplementedError):
            shard_map(lambda a: a, mesh, in_specs=P(), out_specs=P(), auto=frozenset({"i"}))


def test_replication_through_loops_and_branches() -> None:
    """A carry stays replicated when every iteration keeps it so (JAX 0.4.30 accepts these
    out_specs=P() programs); a value varying along the axis does not."""
    with cpu_devices(2):
        mesh = _mesh1(2)
        x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
        summed = shard_map(
            lambda v: lax.scan(lambda c, r: (c + lax.psum(r, "i"), None), jnp.zeros(4), v)[0],
            mesh, in_specs=P("i"), out_specs=P())(x)
        np.testing.assert_array_equal(np.asarray(summed), x.sum(0))
        looped = shard_map(lambda v: lax.fori_loop(0, 3, lambda _, c: c + lax.psum(v, "i"),
                                                   jnp.zeros(2)), mesh, in_specs=P("i"),
                           out_specs=P())(x[0])
        np.testing.assert_array_equal(np.asarray(looped), (x[0, :2] + x[0, 2:]) * 3)
        branch = shard_map(lambda v: lax.cond(True, lambda u: lax.psum(u, "i"),
                                              lambda u: lax.psum(-u, "i"), v),
                           mesh, in_specs=P("i"), out_specs=P())(x[0])
        np.testing.assert_array_equal(np.asarray(branch), x[0, :2] + x[0, 2:])
        with pytest.raises(ValueError, match="could not infer replication"):
            shard_map(lambda v: lax.scan(lambda c, r: (c + r, None), jnp.zeros(4), v)[0],
                      mesh, in_specs=P("i"), out_specs=P())(x)

"""jit: values equal eager ones, caching, static arguments, AOT stages, transformations."""

import re
import warnings
from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax
from numjax._src import compiler
from numjax._src.core.errors import XlaRuntimeError

f32 = np.float32


PROGRAMS = [
    lambda x: jnp.sin(x) * 2.0 + 1,
    lambda x: jnp.tanh(x @ x.T).sum(axis=0),
    lambda x: jnp.where(x > 0.5, x, -x) ** 2,
    lambda x: (x.reshape(-1)[::2], jnp.max(x, axis=1, keepdims=True)),
    lambda x: jnp.exp(x - jnp.max(x)) / jnp.sum(jnp.exp(x - jnp.max(x))),
    lambda x: x.astype(jnp.int32) * 3 + 1,
    lambda x: jnp.mean(x * 2, axis=-1),
    lambda x: jnp.log(jnp.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1)),
    lambda x: (jnp.tanh(x) * x).max(axis=1) + jnp.sin(x).sum(axis=1) * 2,
]


@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_jit_equals_eager_values_dtypes_weak_types(index):
    fun = PROGRAMS[index]
    x = jnp.asarray(np.random.default_rng(index).uniform(size=(3, 4)).astype(f32))
    eager = jax.tree_util.tree_leaves(fun(x))
    jitted = jax.tree_util.tree_leaves(jax.jit(fun)(x))
    for e, j in zip(eager, jitted, strict=True):
        assert e.dtype == j.dtype and e.shape == j.shape and e.weak_type == j.weak_type
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)


def test_weak_typed_scalar_output():
    out = jax.jit(lambda x: x * 2)(1.0)
    assert repr(out) == "Array(2., dtype=float32, weak_type=True)"


def test_cache_hits_and_misses_through_backend_compile(monkeypatch):
    compiles = []
    original = compiler.backend_compile

    def spy(backend, module, options, host_callbacks):
        compiles.append(backend.platform)
        return original(backend, module, options, host_callbacks)

    monkeypatch.setattr(compiler, "backend_compile", spy)
    f = jax.jit(lambda x: jnp.cos(x) + x)
    x = jnp.ones((7, 3))
    f(x)
    first = len(compiles)
    assert first >= 1
    f(x)
    f(jnp.zeros((7, 3)))
    assert len(compiles) == first
    assert f._cache_size() == 1
    f(jnp.ones((3, 7)))
    assert f._cache_size() == 2 and len(compiles) > first
    f.clear_cache()
    assert f._cache_size() == 0


def test_static_argnums_argnames_and_errors():
    def scale(x, n, *, mode="mul"):
        return x * n if mode == "mul" else x + n

    f = jax.jit(scale, static_argnums=1, static_argnames="mode")
    np.testing.assert_allclose(f(jnp.ones(2), 3), [3.0, 3.0])
    np.testing.assert_allclose(f(jnp.ones(2), 3, mode="add"), [4.0, 4.0])
    assert f._cache_size() == 2
    g = jax.jit(scale, static_argnames="n")
    np.testing.assert_allclose(g(jnp.ones(2), n=2), [2.0, 2.0])
    with pytest.raises(ValueError) as info:
        jax.jit(lambda x, n: x * n, static_argnums=1)(jnp.ones(2), [1])
    assert str(info.value) == (
        "Non-hashable static arguments are not supported. An error occurred while trying to "
        "hash an object of type <class 'list'>, [1]. The error was:\n"
        "TypeError: unhashable type: 'list'\n")
    with pytest.raises(TypeError, match="Argument 'abc' of type <class 'str'> is not a valid "
                                        "JAX type"):
        jax.jit(lambda x: x)("abc")


def test_pytrees_in_and_out():
    f = jax.jit(lambda d: {"sum": d["a"] + d["b"], "pair": (d["a"], 2 * d["b"])})
    out = f({"a": 1.0, "b": jnp.arange(3.0)})
    np.testing.assert_allclose(out["sum"], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(out["pair"][1], [0.0, 2.0, 4.0])


def test_transformations_of_jit_and_jit_of_transformations():
    f = jax.jit(lambda x: jnp.sin(x) * x)
    x = 0.7
    expected_grad = np.cos(x) * x + np.sin(x)
    assert float(jax.grad(f)(x)) == pytest.approx(expected_grad, rel=1e-6)
    assert float(jax.jit(jax.grad(lambda x: jnp.sin(x) * x))(x)) == pytest.approx(
        expected_grad, rel=1e-6)
    xs = jnp.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(jax.vmap(f)(xs), np.sin(xs) * xs, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(lambda x: jnp.sin(x) * x)))(xs),
                               np.cos(xs) * xs + np.sin(xs), rtol=1e-6)
    primal, tangent = jax.jvp(jax.jit(jnp.tanh), (1.0,), (1.0,))
    assert float(tangent) == pytest.approx(1 - np.tanh(1.0) ** 2, rel=1e-6)
    # a jitted function closing over a tracer of an enclosing grad
    assert float(jax.grad(lambda s: jax.jit(lambda y: y * s)(2.0))(3.0)) == 2.0


def test_make_jaxpr_of_jit_shows_pjit():
    assert str(jax.make_jaxpr(jax.jit(lambda x: x * 2))(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = pjit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; c:f32[]. let d:f32[] = mul c 2.0 in (d,) }\n"
        "    ] a\n"
        "  in (b,) }")


def test_inline_jit_is_inlined_when_traced():
    g = jax.jit(lambda x: jnp.sin(x) * 2, inline=True)
    h = jax.jit(jnp.cos)

    def f(x):
        return g(x) + h(x)

    jaxpr = jax.make_jaxpr(f)(1.0)
    # As in JAX: the inline function's equations join the caller's; the other stays a pjit.
    assert [str(e.primitive) for e in jaxpr.eqns] == ["sin", "mul", "pjit", "add"]
    assert np.allclose(jax.grad(f)(0.5), 2 * np.cos(0.5) - np.sin(0.5))
    assert np.allclose(jax.jit(f)(0.5), f(0.5))
    assert np.allclose(g(0.5), 2 * np.sin(0.5))


def test_lower_shows_generated_code_and_compiled_checks_arguments():
    f = jax.jit(lambda x: jnp.sin(x) + 1.0)
    lowered = f.lower(jnp.ones(3))
    text = lowered.as_text()
    assert "def jitted(" in text and "np.sin(" in text and "return (" in text
    compiled = lowered.compile()
    assert "np.sin(" in compiled.as_text()
    np.testing.assert_allclose(compiled(jnp.zeros(3)), [1.0, 1.0, 1.0])
    with pytest.raises(TypeError) as info:
        compiled(jnp.ones(4))
    assert str(info.value) == (
        "Argument types differ from the types for which this computation was compiled. The "
        "mismatches are:\nArgument 'x' compiled with float32[3] and called with float32[4]")
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled((jnp.ones(3),))
    (cost,) = compiled.cost_analysis()  # a list with one dict per program, as in JAX
    # sin(x) + 1 on 3 float32: one add per element, one transcendental per element (XLA
    # counts sin, exp, log, tanh, ... apart from flops, as here)
    assert cost == {"flops": 3.0, "transcendentals": 3.0, "bytes accessed": 52.0}
    assert lowered.cost_analysis()["flops"] == cost["flops"]  # Lowered's is the dict itself
    for stage in (f.trace(jnp.ones(3)), lowered, compiled):
        assert repr(stage.out_info) == "OutInfo(shape=(3,), dtype=dtype('float32'), sharding=None)"
        assert repr(stage.args_info) == (
            "((ArgInfo(_aval=ShapedArray(float32[3]), donated=False),), {})")
    assert f.trace(jnp.ones(3)).fun_name == "<lambda>"
    assert "np.sin(" in lowered.compiler_ir().as_text()
    # Libraries read the program's text as HLO's: it is numjax's program text.
    assert lowered.compiler_ir("hlo").as_hlo_text() == lowered.as_text()
    assert "np.sin(" in jax.pmap(jnp.sin).lower(jnp.ones((1, 3))).compiler_ir("hlo").as_hlo_text()


def test_compiled_takes_only_the_traced_arguments():
    f = jax.jit(lambda x, n: x * n, static_argnums=1)
    compiled = f.lower(jnp.ones(3), 4).compile()
    np.testing.assert_allclose(compiled(jnp.ones(3)), [4.0, 4.0, 4.0])
    with pytest.raises(TypeError, match="input pytree does not match"):
        compiled(jnp.ones(3), 5)  # the static argument is part of the program


def test_jit_option_validation_as_jax():
    def pos_only(n, /, x):
        return x * n

    cases = [
        (dict(static_argnums=3), "Jitted function has static_argnums=(3,), but only accepts 1 "
                                 "positional arguments."),
        (dict(static_argnums=-3), "Jitted function has static_argnums=(-3,), but only accepts "
                                  "1 positional arguments."),
        (dict(static_argnames="zz"), "Jitted function has invalid argnames {'zz'} in "
                                     "static_argnames. Function does not take these args."),
        (dict(donate_argnames="zz"), "Jitted function has invalid argnames {'zz'} in "
                                     "donate_argnames. Function does not take these args."),
        (dict(static_argnums=0, donate_argnums=0),
         "static_argnames and donate_argnames cannot intersect. Argument names {'x'} appear in "
         "both static_argnames and donate_argnames"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as info:
            jax.jit(lambda x: x, **options)
        assert str(info.value) == message
    with pytest.raises(ValueError, match=r"^Jitted function has invalid argnames \{'n'\} in "
                                         r"static_argnames\. These are positional-only$"):
        jax.jit(pos_only, static_argnames="n")
    with pytest.raises(ValueError, match=r"`static_argnums` \[0\] and `donate_argnums` \[0\] "
                                         "cannot intersect"):
        jax.jit(lambda *a: a[0], static_argnums=0, donate_argnums=0)
    with pytest.raises(TypeError, match="staticmethod arguments are not supported"):
        jax.jit(staticmethod(lambda x: x))
    with pytest.warns(DeprecationWarning, match="backend and device argument on jit is "
                                                "deprecated"):
        jax.jit(lambda x: x, backend="cpu")


# JAX 0.4.30's errors for a jit backend that is not present (CPU-only install).
ABSENT_BACKENDS = [
    ("gpu", "Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
            "present. Platforms present are: cpu"),
    ("foo", "Unknown backend foo. Available backends are ['cpu']"),
    ("CPU", "Unknown backend CPU. Available backends are ['cpu']"),
]


@pytest.mark.filterwarnings("ignore:backend and device argument on jit is deprecated")
@pytest.mark.parametrize("backend,message", ABSENT_BACKENDS)
def test_jit_for_an_absent_backend_fails_at_lowering(backend, message):
    f = jax.jit(lambda x: x + 1, backend=backend)
    f.trace(1.0)  # tracing needs no backend
    for lower in (lambda: f(1.0), lambda: f.lower(1.0)):
        with pytest.raises(RuntimeError) as info:
            lower()
        assert str(info.value) == message
    assert f._cache_size() == 0


@pytest.mark.filterwarnings("ignore:backend and device argument on jit is deprecated")
def test_jit_for_the_cpu_backend_compiles_there():
    seen = []
    original = compiler.backend_compile

    def spy(backend, module, options, host_callbacks):
        seen.append(backend.platform)
        return original(backend, module, options, host_callbacks)

    compiler.backend_compile = spy
    try:
        f = jax.jit(lambda x: x * 2, backend="cpu")
        assert float(f(2.0)) == 4.0
        assert float(f.lower(np.float32(3.0)).compile()(np.float32(3.0))) == 6.0
    finally:
        compiler.backend_compile = original
    assert seen == ["cpu", "cpu"]
    with pytest.raises(ValueError) as info:
        jax.jit(lambda x: x, backend="cpu", device=jax.devices()[0])
    assert str(info.value) == ("can't specify both a device and a backend for jit, got "
                               f"device={jax.devices()[0]!r} and backend='cpu'")


def test_static_arguments_keyed_by_type_and_given_options_used_as_given():
    traces = []

    def full(n):
        traces.append(n)
        return jnp.full((2,), n)

    g = jax.jit(full, static_argnums=0)
    assert [g(v).dtype for v in (1, 1.0, True)] == [jnp.int32, jnp.float32, jnp.bool_]
    assert len(traces) == 3  # 1 == 1.0 == True, but each traces its own program
    # Both options given: each is used as given (no inference through the signature), so
    # `m` passed positionally is traced.
    seen = {}

    def f(x, n, m):
        seen["n"], seen["m"] = type(n), isinstance(m, jax.core.Tracer)
        return x * n + m

    jax.jit(f, static_argnums=1, static_argnames="m")(jnp.ones(2), 3, jnp.ones(2))
    assert seen == {"n": int, "m": True}


def test_static_argument_whose_eq_fails():
    class Static:
        def __hash__(self):
            return 1

        def __eq__(self, other):
            raise RuntimeError("eq called")

    g = jax.jit(lambda x, s: x, static_argnums=1)
    g(jnp.ones(2), Static())
    with pytest.raises(ValueError, match="static arguments should be comparable using __eq__"):
        g(jnp.ones(2), Static())


def test_jit_method_binds_like_a_method():
    import functools
    import types

    class Model:
        @functools.partial(jax.jit, static_argnums=0)
        def apply(self, x):
            return x * 2.0

    model = Model()
    assert isinstance(model.apply, types.MethodType) and model.apply.__name__ == "apply"
    np.testing.assert_allclose(model.apply(jnp.ones(2)), [2.0, 2.0])
    assert model.apply._cache_size() == 1  # the jitted function's attributes, through the method


def test_unusable_donation_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jax.jit(lambda x, y: x.sum(), donate_argnums=(0, 1))(jnp.ones(3), jnp.ones((2, 2)))
    messages = [str(w.message) for w in caught]
    # y is never read, so it is dropped rather than reported (as in JAX).
    assert messages == [
        "Some donated buffers were not usable: ShapedArray(float32[3]).\n"
        "See an explanation at https://jax.readthedocs.io/en/latest/faq.html#buffer-donation."]


def test_disable_jit_runs_python():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1

    g = jax.jit(f)
    with jax.disable_jit():
        g(1.0)
        g(1.0)
    assert len(calls) == 2


def test_disable_jit_takes_disable_as_a_keyword():
    # JAX 0.4.30's signature, disable_jit(disable: bool = True) (chex's fake_pmap passes it).
    seen = []
    f = jax.jit(lambda x: seen.append(type(x).__name__) or x)
    with jax.disable_jit(disable=True):
        f(1.0)
        with jax.disable_jit(disable=False):
            f(2.0)
    assert seen == ["float", "StagingTracer"]
    assert not jax.config.jax_disable_jit


def test_methods_and_partial():
    class Model:
        def __init__(self, scale):
            self.scale = scale

        def apply(self, x):
            return x * self.scale

    m = Model(3.0)
    np.testing.assert_allclose(jax.jit(m.apply)(jnp.ones(2)), [3.0, 3.0])
    import functools
    np.testing.assert_allclose(jax.jit(functools.partial(jnp.add, 1.0))(jnp.ones(2)), [2.0, 2.0])


def test_grad_of_jit_splits_known_and_unknown_calls_as_jax():
    text = str(jax.make_jaxpr(jax.grad(jax.jit(lambda x: jnp.sin(x))))(1.0))
    assert text == (
        "{ lambda ; a:f32[]. let\n"
        "    _:f32[] b:f32[] = pjit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = cos c in (d, e) }\n"
        "    ] a\n"
        "    f:f32[] = pjit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; g:f32[] h:f32[]. let i:f32[] = mul h g in (i,) }\n"
        "    ] b 1.0\n"
        "  in (f,) }")


@pytest.mark.parametrize("threads", [False, True])
@pytest.mark.parametrize("index", range(len(PROGRAMS)))
def test_fused_clusters_equal_eager(monkeypatch, index, threads):
    from numjax._src.compiler import fusion
    monkeypatch.setattr(fusion, "MIN_SIZE", 2)
    monkeypatch.setattr(fusion, "SHORT_RUN_OPS", 2)
    monkeypatch.setattr(fusion, "BLOCK", 5)
    if threads:
        monkeypatch.setattr(fusion, "THREAD_MIN_SIZE", 4)
    fun = PROGRAMS[index]
    x = jnp.asarray(np.random.default_rng(index).uniform(size=(3, 4)).astype(f32))
    eager = jax.tree_util.tree_leaves(fun(x))
    jitted = jax.tree_util.tree_leaves(jax.jit(fun)(x))
    for e, j in zip(eager, jitted, strict=True):
        assert e.dtype == j.dtype and e.shape == j.shape
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-6)


def test_elementwise_chain_is_fused_in_generated_code():
    f = jax.jit(lambda x: jnp.sin(jnp.exp(jnp.tanh(x) * 0.5) + 1.0) * 2.0)
    text = f.lower(jnp.ones(1 << 20)).as_text()
    assert "# fused: tanh mul exp add sin mul" in text and "out=" in text
    assert "# fused" not in f.lower(jnp.ones(8)).as_text()


def test_args_info_and_memory_analysis():
    f = jax.jit(lambda x, y: x * 2 + y.sum(), donate_argnums=0)
    lowered = f.lower(jnp.ones(3), jnp.ones((2, 2)))
    (x_info, y_info), kwargs = lowered.args_info
    assert kwargs == {}
    assert x_info.donated and not y_info.donated
    assert x_info.shape == (3,) and y_info.dtype == np.float32
    memory = lowered.compile().memory_analysis()
    assert memory.argument_size_in_bytes == 4 * 3 + 4 * 4
    assert memory.output_size_in_bytes == 12


def test_constant_subcomputations_are_folded():
    c = np.arange(3.0, dtype=f32)
    f = jax.jit(lambda x: x * jnp.sin(c) + jnp.exp(2.0))
    text = f.lower(jnp.ones(3)).as_text()
    assert "sin" not in text and "exp" not in text
    np.testing.assert_allclose(f(jnp.ones(3)), np.sin(c) + np.exp(np.float32(2.0)), rtol=1e-6)


def test_donated_arrays_are_deleted_after_the_call():
    f = jax.jit(lambda x, y: (x * 2, y + 1), donate_argnums=0)
    x, y = jnp.ones(3), jnp.ones(2)
    out, _ = f(x, y)
    np.testing.assert_allclose(out, [2.0, 2.0, 2.0])
    assert x.is_deleted() and not y.is_deleted() and x.shape == (3,)
    with pytest.raises(RuntimeError,
                       match=r"(?m)^Array has been deleted with shape=float32\[3\]\.$"):
        print(x)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        x + 1
    with pytest.raises(ValueError, match="INVALID_ARGUMENT: Invalid buffer passed: buffer has "
                                         "been deleted or donated."):
        f(x, y)
    deleted = jnp.ones(3)
    deleted.delete()  # deleted by the user, not consumed by a call: JAX's RuntimeError
    with pytest.raises(RuntimeError,
                       match=r"(?m)^Array has been deleted with shape=float32\[3\]\.$"):
        jax.jit(lambda x: x + 1)(deleted)
    # x = f(x) in a loop, with the pytree of parameters donated
    step = jax.jit(lambda p: {"w": p["w"] * 0.5}, donate_argnums=0)
    params = {"w": jnp.ones(4)}
    for _ in range(3):
        params = step(params)
    np.testing.assert_allclose(params["w"], np.full(4, 0.125))
    # without a matching output nothing is deleted (and the warning says so)
    g = jax.jit(lambda x: x.sum(), donate_argnums=0)
    z = jnp.ones(3)
    with pytest.warns(UserWarning, match="Some donated buffers were not usable"):
        g(z)
    assert not z.is_deleted()


ALIASING_PROGRAMS = {
    # a kernel returning a view of an intermediate that is later overwritten in place
    "reshape_view": lambda x: ((x + 1.0).reshape(2, 2), (x + 1.0) * 3.0),
    "cond_passthrough": lambda x: (lax.cond(x[0] < 1, lambda a: a, lambda a: a * 2, x + 1.0),),
    "fori_zero_trips": lambda x: (lax.fori_loop(0, 0, lambda i, a: a * 2, x + 1.0),),
    "while_zero_trips": lambda x: (lax.while_loop(lambda a: a[0] > 100, lambda a: a * 2,
                                                  x + 1.0),),
    "scan_carry_passthrough": lambda x: lax.scan(lambda a, _: (a, a), x + 1.0, None,
                                                 length=2),
    # a stacked output that is the iteration's carry input, not the updated carry
    "scan_ys_is_old_carry": lambda x: lax.scan(lambda a, _: (a * 2.0, a), x + 1.0, None,
                                               length=3),
    "scan_swapped_carries": lambda x: lax.scan(lambda ab, _: ((ab[1], ab[0] + 1.0), ab[0]),
                                               (x, x * 3.0), None, length=3),
}


@pytest.mark.parametrize("name", sorted(ALIASING_PROGRAMS))
def test_buffer_reuse_never_overwrites_aliased_values(name):
    def fun(x):
        c = x + 1.0
        outs = ALIASING_PROGRAMS[name](x)
        return (*outs, c * 3.0)  # the last use of c may be written in place

    x = jnp.arange(4.0)
    for e, j in zip(jax.tree_util.tree_leaves(fun(x)),
                    jax.tree_util.tree_leaves(jax.jit(fun)(x)), strict=True):
        np.testing.assert_array_equal(np.asarray(j), np.asarray(e))


def test_cse_keeps_signed_zero_literals_apart():
    f = lambda x: (jnp.signbit(x * 0.0), jnp.signbit(x * -0.0), jnp.signbit(x + -0.0))
    x = -jnp.zeros(2)
    for e, j in zip(f(x), jax.jit(f)(x), strict=True):
        np.testing.assert_array_equal(np.asarray(j), np.asarray(e))


def test_reshape_with_dimensions_is_not_an_identity():
    f = jax.jit(lambda x: lax.reshape(x, (2, 2), dimensions=(1, 0)) + 0.0)
    np.testing.assert_array_equal(f(jnp.arange(4.0).reshape(2, 2)), [[0.0, 2.0], [1.0, 3.0]])


def test_debug_nans_and_infs_name_the_primitive_and_line():
    from numjax import lax as nlax
    f = jax.jit(lambda x: jnp.log(x) * 2)
    assert np.isnan(float(f(-1.0)))
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError,
                           match=r"invalid value \(nan\) encountered in log at .*test_jit.py"):
            f(-1.0)
        g = jax.jit(lambda x: nlax.fori_loop(0, 3, lambda i, c: jnp.sqrt(c - 2.0), x))
        with pytest.raises(FloatingPointError, match=r"encountered in sqrt"):
            g(3.0)
    with jax.debug_infs(True):
        with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in log"):
            f(0.0)
    assert np.isnan(float(f(-1.0)))  # checks are compiled only while the option is on


# JAX 0.4.30: a jitted computation's outputs are checked as a whole; an invalid value no
# operation made (a constant, an input passed through, a branch's constant) fails with this.
DEOPTIMIZED = (
    "Because jax_config.debug_nans.value and/or config.jax_debug_infs is set, the "
    "de-optimized function (i.e., the function as if the `jit` decorator were removed) was "
    "called in an attempt to get a more precise error message. However, the de-optimized "
    "function did not produce invalid values during its execution. This behavior can result "
    "from `jit` optimizations causing the invalid value to be produced. It may also arise from "
    "having nan/inf constants as outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. "
    "\n\nIt may be possible to avoid the invalid value by removing the `jit` decorator, at the "
    "cost of losing optimizations. \n\nIf you see this error, consider opening a bug report at "
    "https://github.com/google/jax.")


def _nan_constant(x: Any) -> Any:
    return jnp.nan


@pytest.mark.parametrize("f,arg,name", [
    (_nan_constant, 1.0, "_nan_constant"),
    (lambda x: x, np.nan, "<lambda>"),
    (lambda x: (2.0, x), np.nan, "<lambda>"),
    (lambda x: lax.scan(lambda c, _: (c, jnp.nan), x, None, length=2)[1], 1.0, "<lambda>"),
])
def test_debug_nans_checks_a_jitted_functions_outputs(f: Any, arg: float, name: str) -> None:
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError) as info:
            jax.jit(f)(np.float32(arg))
    assert str(info.value) == f"invalid value (nan) encountered in jit({name}). " + DEOPTIMIZED
    jax.jit(f)(np.float32(arg))  # off again outside the context


@pytest.mark.parametrize("kind, value", [("nan", np.nan), ("inf", np.inf)])
@pytest.mark.parametrize("f", [
    lambda x, v: lax.cond(x == 1, lambda _: v, lambda _: 2.0, None),
    lambda x, v: lax.cond(x == 1, lambda _: (v, 1.0), lambda _: (2.0, 1.0), None)[0] * 2,
], ids=["result", "read later"])
def test_debug_nans_names_the_cond_whose_result_is_invalid(f: Any, kind: str,
                                                           value: float) -> None:
    # JAX 0.4.30 reruns the jitted function de-optimized and names the cond ("invalid value
    # (nan) encountered in jit(cond)"); numjax names it with its line, as any primitive.
    g = jax.jit(lambda x: f(x, value))
    g(2)
    with jax.debug_nans(kind == "nan"), jax.debug_infs(kind == "inf"):
        g(2)
        with pytest.raises(FloatingPointError,
                           match=rf"^invalid value \({kind}\) encountered in cond at .*test_jit"):
            g(1)


def test_compiles_pause_the_cycle_collector_and_restore_it():
    import gc
    seen = []
    f = jax.jit(lambda x: (seen.append(gc.isenabled()), x * 2)[1])
    assert gc.isenabled()
    f(jnp.ones(3))
    assert seen == [False] and gc.isenabled()
    # a failing trace switches it back on too
    with pytest.raises(TypeError):
        jax.jit(lambda x: x + "a")(jnp.ones(3))
    assert gc.isenabled()
    # and a collector the user switched off stays off
    gc.disable()
    try:
        jax.jit(lambda x: x - 1)(jnp.ones(3))
        assert not gc.isenabled()
    finally:
        gc.enable()


ALIASING_CALLS = {
    "identity": lambda x: x,
    "reshape": lambda x: x.reshape(2, 3),
    "slice": lambda x: x[1:],
    "transpose": lambda x: x.reshape(2, 3).T,
    "pytree pass-through": lambda x: {"same": x, "new": x + 1.0},
    "loop carry": lambda x: lax.fori_loop(0, 0, lambda i, c: c * 2.0, x),
    "cond pass-through": lambda x: lax.cond(x[0] < 1.0, lambda y: y, lambda y: y * 2.0, x),
    "cond new buffer": lambda x: lax.cond(x[0] > 1.0, lambda y: y, lambda y: y * 2.0, x),
}


@pytest.mark.parametrize("name", ALIASING_CALLS)
def test_outputs_never_share_memory_with_a_callers_numpy_argument(name):
    # Writing to the NumPy array after the call must not change the result (JAX's outputs own
    # their buffers); jit, AOT-compiled and eager calls alike.
    fn = ALIASING_CALLS[name]
    n = np.arange(6.0, dtype=np.float32)
    expected = jax.tree_util.tree_map(np.array, fn(jnp.asarray(n)))
    keyword = jax.jit(lambda *, x, k: fn(x), static_argnames="k")  # the general call path
    one_device = jax.pmap(fn)  # pmap's path for a process's only device
    calls = (jax.jit(fn), jax.jit(fn).lower(n).compile(), lambda n: keyword(x=n, k=1),
             lambda n: jax.tree_util.tree_map(lambda o: o[0], one_device(n[None])))
    for call in calls:
        out = call(n)
        n[:] = -1.0
        jax.tree_util.tree_map(np.testing.assert_array_equal, out, expected)
        n[:] = np.arange(6.0)


def test_eager_views_of_numpy_operands_are_copied():
    n = np.arange(6.0, dtype=np.float32)
    sliced = lax.slice(n, (1,), (4,))
    expanded = jnp.expand_dims(n, 0)
    n[:] = -1.0
    np.testing.assert_array_equal(sliced, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(expanded, [np.arange(6.0)])


def test_closed_over_numpy_constant_is_captured_at_compile_time():
    c = np.arange(3.0, dtype=np.float32)
    f = jax.jit(lambda: c)
    out = f()
    c[:] = 7.0
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(f(), [0.0, 1.0, 2.0])  # the compiled program kept its copy


def test_aliased_inputs_analysis_marks_only_views_and_pass_throughs():
    from numjax._src.compiler.buffers import inputs_reaching_outputs
    jaxpr = jax.make_jaxpr(lambda a, b, c: (a + 1.0, b.reshape(-1), jnp.dot(c, c)))(
        jnp.ones(3), jnp.ones((2, 2)), jnp.ones((2, 2))).jaxpr
    assert inputs_reaching_outputs(jaxpr) == (1,)


def test_python_int_outside_int32_and_non_numeric_arrays_are_refused():
    ident = jax.jit(lambda x: x)
    for value in (2**31, -2**31 - 1, 2**40):
        with pytest.raises(OverflowError, match=r"(?m)^An overflow was encountered while parsing "
                                                r"an argument to a jitted computation, whose "
                                                r"argument path is x\.$"):
            ident(value)
    with pytest.raises(OverflowError, match=r"(?m)argument path is d\['k'\]\[1\]\.$"):
        jax.jit(lambda d: d)({"k": [1, 2**40]})
    assert int(ident(-2**31)) == -2**31 and int(ident(2**31 - 1)) == 2**31 - 1
    with pytest.raises(TypeError, match=r"(?m)^Dtype object is not a valid JAX array type\. Only "
                                        r"arrays of numeric types are supported by JAX\.$"):
        ident(np.array([1, "a"], dtype=object))


def test_one_trace_per_signature_across_wrappers_stages_and_transformations():
    traces = []

    def f(x):
        traces.append(x.shape)
        return jnp.sin(x) * 2.0

    x = jnp.ones(3)
    for _ in range(3):
        jax.jit(f)(x)  # a fresh wrapper of the same function shares its caches
    jf = jax.jit(f)
    jf.lower(x)
    jf.lower(x).compile()
    jax.eval_shape(jf, x)
    grad_f = jax.grad(lambda v: jf(v).sum())
    for _ in range(3):
        grad_f(x)
        jax.vmap(jf)(jnp.ones((2, 3)))
    assert traces == [(3,)]
    assert jax.jit(f)._cache_size() == 1
    jax.jit(f)(jnp.ones(4))
    assert traces == [(3,), (4,)]
    jf.clear_cache()
    jf(x)
    assert len(traces) == 3


def test_programs_closing_over_an_outer_tracer_are_not_shared():
    def outer(y):
        inner = jax.jit(lambda x: x * y)  # closes over the outer grad's tracer
        return inner(2.0)

    assert float(jax.grad(outer)(3.0)) == 2.0
    assert float(jax.grad(outer)(5.0)) == 2.0
    assert float(jax.jit(outer)(4.0)) == 8.0


def test_compiled_explains_a_pytree_mismatch_as_jax():
    compiled = jax.jit(lambda x: x * 2).lower(jnp.ones(3)).compile()
    head = ("Function compiled with input pytree does not match the input pytree it was called "
            "with. There are {} mismatches, including:\n")
    cases = [
        ((jnp.ones(3), jnp.ones(3)), {}, head.format(1) + "    * at args, seen tuple of length 1 "
         "but now given tuple of length 2, so the lengths do not match"),
        (((jnp.ones(3),),), {}, head.format(1) + "    * at args[0], seen <class "
         "'numjax._src.api.stages.PytreeLeaf'> but now given <class 'tuple'>, so their Python "
         "types differ"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(TypeError) as info:
            compiled(*args, **kwargs)
        assert str(info.value) == message


def test_unnamed_callables_and_shardings_of_compiled():
    import functools
    f = jax.jit(functools.partial(lambda x, y: x * y, y=2.0))
    assert "name=<unnamed wrapped function>" in str(jax.make_jaxpr(f)(1.0))
    compiled = jax.jit(lambda x: (x, x)).lower(jnp.ones(2)).compile()
    whole = "SingleDeviceSharding(device=CpuDevice(id=0))"
    assert repr(compiled.input_shardings) == f"(({whole},), {{}})"
    assert repr(compiled.output_shardings) == f"({whole}, {whole})"


def test_vjp_function_is_a_pytree_that_crosses_jit():
    # As in JAX: vjp's function is a Partial whose leaves are the residuals.
    y, f_vjp = jax.jit(lambda x: jax.vjp(jnp.sin, x))(1.0)
    assert type(f_vjp).__name__ == "Partial"
    assert np.allclose(f_vjp(1.0)[0], np.cos(1.0))
    assert np.allclose(jax.jit(lambda f, c: f(c))(f_vjp, 2.0)[0], 2 * np.cos(1.0))
    _, f_eager = jax.vjp(lambda x: jnp.sin(x) * x, jnp.arange(3.0))
    assert jax.tree_util.tree_leaves(f_eager)


def test_stages_name_the_aot_types():
    from numjax import stages
    f = jax.jit(lambda x: x * 2)
    traced = f.trace(jnp.ones(3))
    lowered = traced.lower()
    compiled = lowered.compile()
    assert isinstance(traced, stages.Traced) and isinstance(lowered, stages.Lowered)
    assert isinstance(compiled, stages.Compiled)
    assert all(isinstance(a, stages.ArgInfo) for a in jax.tree_util.tree_leaves(lowered.args_info))
    assert isinstance(lowered.out_info, stages.OutInfo) and lowered.out_info.shape == (3,)
    assert str(stages.CompilerOptions) == "dict[str, typing.Union[str, bool]]"
    assert jax.stages is stages


def test_cost_analysis_counts_flops_and_transcendentals_as_xla():
    # Values from JAX 0.4.30's cost_analysis() on CPU for the same programs.
    cost = jax.jit(lambda x, y: x @ y + 1).lower(jnp.ones((3, 4)), jnp.ones((4, 5))).cost_analysis()
    assert cost["flops"] == 135.0 and "transcendentals" not in cost  # 2*3*4*5 + 15
    cost = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(100)).cost_analysis()
    assert (cost["flops"], cost["transcendentals"]) == (100.0, 100.0)
    cost = jax.jit(lambda x: x.sum()).lower(jnp.ones((10, 10))).cost_analysis()
    assert cost["flops"] == 100.0 and "transcendentals" not in cost


def test_jitted_function_reports_its_signature():
    import inspect

    def foo(x, y=2):
        return x + y

    sig = inspect.signature(foo)
    assert jax.jit(foo).__signature__ == sig  # JAX 0.4.30: (x, y=2)
    assert inspect.signature(jax.jit(foo, static_argnums=1)) == sig
    # A wrapper that reads the signature without unwrapping (chex's fake_pmap, pmap over jit).
    assert inspect.signature(jax.jit(foo), follow_wrapped=False) == sig
    out = jax.pmap(jax.jit(foo))(x=jax.numpy.ones((1, 2)), y=jax.numpy.ones((1, 2)))
    np.testing.assert_array_equal(out, [[2.0, 2.0]])


# JAX 0.4.30 stages every operation under jit, so an Array made there from host values is a
# tracer of the jitted program (a library testing `isinstance(x, Tracer)` takes its traced
# path); under ensure_compile_time_eval, vmap or grad alone it is a concrete Array.
@pytest.mark.parametrize("make", [
    lambda: jnp.array(0), lambda: jnp.asarray(1.0), lambda: jnp.array([1, 2]),
    lambda: jnp.float32(3), lambda: jnp.asarray(np.ones(2, np.float32)),
    lambda: jnp.array(2, jnp.int8),
], ids=["array_int", "asarray_float", "array_list", "float32", "asarray_numpy", "array_dtype"])
def test_host_values_made_under_jit_are_traced(make: Any) -> None:
    from numjax.core import Tracer

    seen: dict[str, bool] = {}

    def f(x: Any) -> Any:
        seen["jit"] = isinstance(make(), Tracer)
        with jax.ensure_compile_time_eval():
            seen["compile_time_eval"] = isinstance(make(), Tracer)
        return x

    def g(name: str) -> Any:
        def record(x: Any) -> Any:
            seen[name] = isinstance(make(), Tracer)
            return x
        return record

    jax.jit(f)(1.0)
    jax.vmap(g("vmap"))(jnp.ones(2))
    jax.grad(g("grad"))(1.0)
    assert seen == {"jit": True, "compile_time_eval": False, "vmap": False, "grad": False}


def test_constants_made_under_jit_fold_into_the_jaxpr() -> None:
    # As JAX 0.4.30 prints them: a scalar is a literal, its dtype conversions folded.
    assert str(jax.make_jaxpr(lambda x: jnp.array(0))(1.0)) == \
        "{ lambda ; a:f32[]. let  in (0,) }"
    assert str(jax.make_jaxpr(lambda x: jnp.float32(3) * x)(1.0)) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
        "    c:f32[] = mul 3.0 b\n"
        "  in (c,) }")


# An output of a jitted or checkpointed function that does not depend on the mapped inputs
# stays unbatched under vmap, as in JAX 0.4.30: `vmap(f, in_axes=(0, None), out_axes=(0, None))`
# of `(x + 1.0, y * 2.0)` gives ([1., 2., 3.], 8.0 weak), and the call's staged outputs are
# f32[3] and f32[].
@pytest.mark.parametrize("wrap", [jax.jit, jax.checkpoint], ids=["jit", "checkpoint"])
def test_vmap_of_call_keeps_unbatched_outputs(wrap: Any) -> None:
    from numjax.interpreters import batching

    f = wrap(lambda x, y: (x + 1.0, y * 2.0))
    g = jax.vmap(f, in_axes=(0, None), out_axes=(0, None))
    a, b = g(jnp.arange(3.0), 4.0)
    np.testing.assert_array_equal(a, f32([1.0, 2.0, 3.0]))
    assert b.shape == () and float(b) == 8.0 and b.weak_type
    jaxpr = jax.make_jaxpr(g)(jnp.arange(3.0), 4.0)
    assert [v.aval.shape for v in jaxpr.eqns[0].outvars] == [(3,), ()]

    # A batch rule after the call is not run on the unbatched output (equinox's `nonbatchable`,
    # which keeps a checkpointed loop's step counters unbatched, raises on a batched one).
    unbatched_p = jax.core.Primitive("test_requires_unbatched")
    unbatched_p.def_impl(lambda x: x)
    unbatched_p.def_abstract_eval(lambda x: x)
    seen = []

    def rule(args: Any, dims: Any) -> Any:
        seen.append(dims[0])
        return args[0], dims[0]

    batching.primitive_batchers[unbatched_p] = rule
    jax.vmap(lambda x, y: unbatched_p.bind(f(x, y)[1]), in_axes=(0, None))(jnp.arange(3.0), 4.0)
    assert seen == []


# Lowered.compile(compiler_options=...): XLA's option names and value types, as JAX 0.4.30
# checks them (None: accepted; else the XlaRuntimeError's text).
COMPILER_OPTIONS = [
    ({"xla_embed_ir_in_executable": True, "xla_dump_max_hlo_modules": 200,
      "xla_gpu_auto_spmd_partitioning_memory_budget_ratio": 0.5}, None),
    ({"invalid_key": "invalid_value"}, "INVALID_ARGUMENT: No such compile option: 'invalid_key'"),
    ({"xla_embed_ir_in_executable": "invalid_value"}, "INVALID_ARGUMENT: While setting option "
     "xla_embed_ir_in_executable, 'invalid_value' is not a valid bool value."),
    ({"xla_embed_ir_in_executable": "True"}, None),
    ({"xla_embed_ir_in_executable": "true"}, "'true' is not a valid bool value."),
    ({"xla_embed_ir_in_executable": 1}, None),
    ({"xla_embed_ir_in_executable": 1.0}, None),
    ({"xla_dump_hlo_as_text": 2}, "'2' is not a valid bool value."),
    ({"xla_cpu_enable_fast_math": 1.5}, "'1.5' is not a valid bool value."),
    ({"xla_dump_max_hlo_modules": "2"}, None),
    ({"xla_dump_max_hlo_modules": 2.0}, None),
    ({"xla_dump_max_hlo_modules": 2.5}, "'2.5' is not a valid int32 value."),
    ({"xla_dump_max_hlo_modules": True}, "'1' is not a valid int32 value."),
    ({"xla_dump_max_hlo_modules": "x"}, "'x' is not a valid int32 value."),
    ({"xla_gpu_auto_spmd_partitioning_memory_budget_ratio": "0.5"}, None),
    ({"xla_gpu_auto_spmd_partitioning_memory_budget_ratio": 1}, "'1' is not a valid float value."),
    ({"xla_dump_to": "a"}, None),
    ({"xla_dump_to": 3}, "'3' is not a valid string value."),
    ({"xla_step_marker_location": 0}, "'0' is not a valid enum value."),
    ({"xla_backend_extra_options": "a"}, "'a' is not a valid message value."),
]


@pytest.mark.parametrize("options,error", COMPILER_OPTIONS)
def test_compiler_options_are_checked_as_xla_checks_them(options: Any, error: Any) -> None:
    lowered = jax.jit(lambda x: jnp.sqrt(x ** 2) + 1.0).lower(1.0)
    if error is None:
        assert float(lowered.compile(compiler_options=options)(2.0)) == 3.0
    else:
        with pytest.raises(XlaRuntimeError, match=re.escape(error)):
            lowered.compile(compiler_options=options)


def test_compiles_with_options_are_new_executables() -> None:
    lowered = jax.jit(lambda x: x + 1.0).lower(1.0)
    plain = lowered.compile()
    on = lowered.compile(compiler_options={"xla_embed_ir_in_executable": True})
    off = lowered.compile(compiler_options={"xla_embed_ir_in_executable": False})
    assert plain is not on and plain is not off and on is not off

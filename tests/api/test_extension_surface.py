"""JAX's extension surface on numjax: primitives defined through `jax.interpreters` registries,
custom equation printers, `find_top_trace`, jaxlib's names, `pjit`, the pretty printer.

Expected values and texts were recorded from JAX 0.4.30 running the same programs.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import compat, core
from numjax._src import pretty_printer as pp
from numjax._src import source_info_util
from numjax.experimental.pjit import pjit_p
from numjax.interpreters import ad, batching, mlir, pxla


def _cube_primitive():  # type: ignore[no-untyped-def]
    cube_p = core.Primitive("cube")
    cube_p.def_impl(lambda x: x * x * x)
    cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: x * x * x, multiple_results=False))

    def jvp(primals, tangents):  # type: ignore[no-untyped-def]
        (x,), (t,) = primals, tangents
        return cube_p.bind(x), 3 * x * x * t

    ad.primitive_jvps[cube_p] = jvp
    batching.primitive_batchers[cube_p] = lambda args, dims: (cube_p.bind(args[0]), dims[0])
    return cube_p, jvp


def test_primitive_defined_through_the_registries() -> None:
    cube_p, jvp = _cube_primitive()
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(cube_p.bind(x), [0.0, 1.0, 8.0])
    np.testing.assert_array_equal(numjax.jit(cube_p.bind)(x), [0.0, 1.0, 8.0])
    grad = numjax.grad(lambda v: cube_p.bind(v).sum())
    np.testing.assert_array_equal(grad(x), [0.0, 3.0, 12.0])
    np.testing.assert_array_equal(numjax.jit(grad)(x), [0.0, 3.0, 12.0])
    assert numjax.vmap(cube_p.bind)(x.reshape(3, 1)).shape == (3, 1)
    assert str(numjax.make_jaxpr(cube_p.bind)(x)) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = cube a in (b,) }")
    # The registries are views of the rules on the primitive.
    assert cube_p in ad.primitive_jvps and ad.primitive_jvps[cube_p] is jvp is cube_p.jvp
    assert cube_p in batching.primitive_batchers and cube_p not in ad.primitive_transposes
    del ad.primitive_jvps[cube_p]
    assert cube_p.jvp is None and cube_p not in ad.primitive_jvps
    with pytest.raises(KeyError):
        ad.primitive_jvps[cube_p]


def test_deflinear2_and_axis_batchers() -> None:
    scale_p = core.Primitive("scale")
    scale_p.def_impl(lambda x, *, k: x * k)
    scale_p.def_abstract_eval(lambda x, *, k: core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(scale_p, mlir.lower_fun(lambda x, *, k: x * k, multiple_results=False))
    ad.deflinear2(scale_p, lambda ct, x, *, k: [scale_p.bind(ct, k=k)])
    x = jnp.arange(3.0)
    np.testing.assert_array_equal(numjax.grad(lambda v: scale_p.bind(v, k=3.0).sum())(x),
                                  [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(numjax.jvp(lambda v: scale_p.bind(v, k=2.0), (x,),
                                             (jnp.ones(3),))[1], [2.0, 2.0, 2.0])

    seen = []

    def axis_rule(axis_size, axis_name, trace_type, args, dims, *, k):  # type: ignore[no-untyped-def]
        seen.append((axis_size, axis_name))
        return scale_p.bind(args[0], k=k), dims[0]

    batching.axis_primitive_batchers[scale_p] = axis_rule
    out = numjax.vmap(lambda v: scale_p.bind(v, k=2.0), axis_name="i")(x)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
    assert seen == [(3, "i")]
    assert batching.axis_primitive_batchers[scale_p] is axis_rule
    assert scale_p in batching.primitive_batchers  # the same rule, taking the axis first


def test_lowering_rule_emitting_mlir_raises_when_run() -> None:
    p = core.Primitive("needs_mlir")
    p.def_abstract_eval(lambda x: x)

    def mlir_rule(ctx, x):  # type: ignore[no-untyped-def]
        raise AssertionError("never called")

    mlir.register_lowering(p, mlir_rule)  # registering succeeds, as in JAX
    mlir.register_lowering(p, mlir_rule, platform="cuda")  # another platform: kept aside
    with pytest.raises(NotImplementedError, match="needs_mlir: its lowering rule mlir_rule "
                       "emits MLIR"):
        numjax.jit(p.bind)(jnp.ones(2))


def test_custom_equation_printer() -> None:
    p = core.Primitive("fancy")
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda x: x)
    with pytest.warns(DeprecationWarning, match=r"jax\.core\.pp_eqn_rules is deprecated\."):
        rules = core.pp_eqn_rules
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pp_vars = core.pp_vars

    def rule(eqn, context, settings):  # type: ignore[no-untyped-def]
        return pp.concat([pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes),
                          pp.text(" := fancy"), pp.text(" "), pp_vars(eqn.invars, context)])

    assert p not in rules
    rules[p] = rule
    try:
        # The dict is a view of the rule on the primitive itself.
        assert p.eqn_printer is rule and rules[p] is rule and p in list(rules)
        text = str(numjax.make_jaxpr(lambda x: p.bind(x) + 1)(1.0))
    finally:
        del rules[p]
    assert p.eqn_printer is None and p not in rules
    with pytest.raises(KeyError):
        del rules[p]
    assert text == "{ lambda ; a:f32[]. let b:f32[] := fancy a; c:f32[] = add b 1.0 in (c,) }"


def test_pretty_printer_docs() -> None:
    sep = pp.concat([pp.text(","), pp.brk()])
    doc = pp.group(pp.concat([
        pp.text("f("), pp.nest(2, pp.concat([pp.brk(""), pp.join(sep, [pp.text("a" * 30)] * 3)])),
        pp.brk(""), pp.text(")")]))
    assert doc.format(width=40) == "f(\n" + "  " + ",\n  ".join(["a" * 30] * 3) + "\n)"
    assert doc.format(width=200) == "f(" + ", ".join(["a" * 30] * 3) + ")"
    assert str(pp.text("x") + pp.text("y")) == "xy"
    assert source_info_util.summarize(None) == "unknown"


def test_find_top_trace_and_trace_identity() -> None:
    names = []

    def f(x):  # type: ignore[no-untyped-def]
        trace = core.find_top_trace([x, 1.0])
        assert trace.main is trace
        names.append(trace.display_name or type(trace).__name__)
        return x

    numjax.jit(f)(1.0)
    numjax.vmap(f)(jnp.ones(2))
    f(1.0)
    numjax.grad(f)(1.0)
    numjax.jit(lambda x: f(2.0))(1.0)  # no tracer: the jit's trace, which records the program
    assert names == ["DynamicJaxprTrace", "BatchTrace", "EvalTrace", "JVPTrace",
                     "DynamicJaxprTrace"]

    def g(x):  # type: ignore[no-untyped-def]
        assert isinstance(x, batching.BatchTracer) and x.batch_dim == 0
        assert not isinstance(x, pxla.MapTracer)
        return x

    numjax.vmap(g)(jnp.ones(2))


def test_jaxlib_names() -> None:
    from numjax.lib import xla_extension

    assert isinstance(numjax.jit(abs), xla_extension.PjitFunction)
    assert isinstance(numjax.devices()[0], xla_extension.Device)
    assert isinstance(jnp.ones(2), xla_extension.ArrayImpl)
    assert numjax.lib.__version__ == "0.4.30"
    assert "jaxlib" not in sys.modules
    compat.install()
    try:
        import jaxlib.xla_extension  # type: ignore[import-not-found]

        assert jaxlib.xla_extension is xla_extension
    finally:
        compat.uninstall()
    assert "jaxlib" not in sys.modules and "jaxlib.xla_extension" not in sys.modules


def test_pjit_is_jit() -> None:
    from numjax.experimental.pjit import pjit, pjit_p

    f = pjit(lambda x: x * 2)
    np.testing.assert_array_equal(f(jnp.arange(3)), [0, 2, 4])
    assert numjax.make_jaxpr(lambda x: f(x))(1.0).eqns[0].primitive is pjit_p


def test_callable_with_value_hash_is_not_hashed_to_name_arguments() -> None:
    class Model:
        hashed = 0

        def __hash__(self) -> int:
            Model.hashed += 1
            return 0

        def __call__(self, x):  # type: ignore[no-untyped-def]
            return x * 2

    np.testing.assert_array_equal(numjax.vmap(Model())(jnp.arange(2.0)), [0.0, 2.0])
    np.testing.assert_array_equal(numjax.grad(lambda x: Model()(x))(1.0), 2.0)
    assert Model.hashed == 0  # (jit keys its caches on the function, and hashes it, as JAX's)


def test_linear_util_transformations_and_flatten_fun() -> None:
    from numjax import api_util
    from numjax.extend import linear_util as lu

    @lu.transformation
    def scale_args(k, *args):  # type: ignore[no-untyped-def]
        out = yield tuple(k * a for a in args), {}
        yield out + 1

    @lu.transformation_with_aux
    def with_len(*args):  # type: ignore[no-untyped-def]
        out = yield args, {}
        yield out, len(args)

    f = lu.wrap_init(lambda x, y, *, z: x * y + z, {"z": 100})
    g, aux = with_len(scale_args(f, 2))
    assert g.call_wrapped(1, 2) == 2 * 4 + 100 + 1  # the last added runs outermost
    assert aux() == 2
    with pytest.raises(lu.StoreException, match="Store occupied"):
        g.call_wrapped(1, 2)  # a second call would overwrite the aux output
    _, empty = with_len(f)
    with pytest.raises(lu.StoreException, match="Store empty"):
        empty()
    assert g.__name__ == "<lambda>" and scale_args(f, 2) == scale_args(f, 2)

    args, in_tree = numjax.tree_util.tree_flatten((((1, 2),), {"k": 3}))
    flat, out_tree = api_util.flatten_fun(lu.wrap_init(lambda p, k: {"s": p[0] + p[1] + k}),
                                          in_tree)
    assert flat.call_wrapped(*args) == [6]
    assert out_tree() == numjax.tree_util.tree_structure({"s": 0})


def test_trace_to_jaxpr_dynamic() -> None:
    from numjax.api_util import shaped_abstractify
    from numjax.extend import linear_util as lu
    from numjax.interpreters import partial_eval as pe

    c = np.arange(3.0, dtype=np.float32)
    # Three values, as `jax.interpreters.partial_eval`'s name gives them in JAX 0.4.30 (numpyro's
    # provenance tracking unpacks three).
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(
        lu.wrap_init(lambda x: [x * c]), [shaped_abstractify(jnp.ones(3))])
    assert [repr(a) for a in out_avals] == ["ShapedArray(float32[3])"]
    assert len(jaxpr.constvars) == len(consts) == 1
    np.testing.assert_array_equal(consts[0], c)

    avals = [shaped_abstractify(jnp.ones(3)), shaped_abstractify(1.0)]
    jaxpr, _, _ = pe.trace_to_jaxpr_dynamic(lu.wrap_init(lambda x, y: [x * 2.0]), avals,
                                            keep_inputs=[True, False])
    assert len(jaxpr.invars) == 1


def test_interpreters_load_with_the_package() -> None:
    assert numjax.interpreters.xla.xe.PjitFunction is numjax.lib.xla_extension.PjitFunction
    assert numjax.interpreters.ad.primitive_jvps is ad.primitive_jvps
    assert numjax.api_util.flatten_fun is not None


def test_trace_to_jaxpr_nounits() -> None:
    from numjax.extend import linear_util as lu
    from numjax.interpreters import partial_eval as pe

    def f(x, y):  # type: ignore[no-untyped-def]
        return [x * 2.0, jnp.sin(y) + x, jnp.cos(x)]

    pvals = [pe.PartialVal.known(jnp.float32(3.0)),
             pe.PartialVal.unknown(core.ShapedArray((), np.dtype(np.float32)))]
    for instantiate, known in [(False, [True, False, True]), (True, [False, False, False])]:
        jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(lu.wrap_init(f), pvals, instantiate)
        assert [p.is_known() for p in out_pvals] == known
        assert [repr(p.get_aval()) for p in out_pvals] == ["ShapedArray(float32[])"] * 3
        staged = core.eval_jaxpr(jaxpr, consts, jnp.float32(0.5))
        expected = [6.0, np.sin(np.float32(0.5)) + 3.0, np.cos(np.float32(3.0))]
        values = iter(staged)
        for pval, want in zip(out_pvals, expected, strict=True):
            got = pval.get_known() if pval.is_known() else next(values)
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_find_top_trace_without_tracers_is_the_dynamic_trace() -> None:
    # JAX 0.4.30: with no tracers given, the innermost jit/make_jaxpr trace, or eager
    # evaluation's; grad's and linearize's partial evaluation never is (flax.nnx compares
    # `find_top_trace(()).main` to tell whether a module is mutated under a transformation).
    outside = core.find_top_trace(()).main
    seen = []

    def record(x):  # type: ignore[no-untyped-def]
        main = core.find_top_trace(()).main
        seen.append((main is outside, repr(core.thread_local_state.trace_state.trace_stack
                                           .dynamic)))
        return x

    numjax.grad(record)(1.0)
    numjax.vjp(record, 1.0)
    numjax.linearize(record, 1.0)
    numjax.jit(record)(1.0)
    numjax.jit(numjax.grad(record))(1.0)
    assert seen == [(True, "MainTrace(0,EvalTrace)")] * 3 + [
        (False, "MainTrace(1,DynamicJaxprTrace)")] * 2


def test_trace_stack_view() -> None:
    seen = []

    def record(x):  # type: ignore[no-untyped-def]
        stack = core.thread_local_state.trace_state.trace_stack.stack
        seen.append(([m.level for m in stack], stack[-1].trace_type.display_name,
                     core.cur_sublevel()))
        return x

    record(1.0)
    numjax.vmap(record)(jnp.ones(2))
    numjax.grad(record)(1.0)
    assert seen == [([0], None, 0), ([0, 1], None, 0), ([0, 1, 2], None, 0)]
    assert core.thread_local_state.trace_state.trace_stack.stack[0].trace_type is type(
        core.find_top_trace(()))


def test_private_core_names() -> None:
    from numjax._src import core as private_core

    assert private_core.ShapedArray is core.ShapedArray
    assert core.Atom == core.Var | core.Literal


def test_basearray_is_loaded_with_the_package() -> None:
    # optax's line search annotates with `jax._src.basearray.Array`, an attribute path that
    # JAX 0.4.30 resolves without an import (`jax._src.basearray.Array is jax.Array`).
    code = ("import numjax.compat; numjax.compat.install(); import jax; "
            "print(jax._src.basearray.Array is jax.Array, "
            "isinstance(jax.numpy.ones(2), jax._src.basearray.Array))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["True", "True"]


def test_lower_fun_primitive_runs_eagerly_without_an_impl() -> None:
    # A deliberate difference (docs/differences.md): JAX raises NotImplementedError
    # "Evaluation rule for 'double' not implemented" outside jit; numjax runs the lowering.
    double_p = core.Primitive("double")
    double_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(double_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
    np.testing.assert_array_equal(double_p.bind(jnp.arange(3.0)), [0.0, 2.0, 4.0])


def test_concrete_avals_and_the_aval_hierarchy() -> None:
    # JAX 0.4.30: get_aval of a known value is a ConcreteArray, of a traced one a ShapedArray.
    assert repr(core.get_aval(jnp.arange(3.))) == "ConcreteArray([0. 1. 2.], dtype=float32)"
    assert repr(core.get_aval(np.int64(2))) == "ConcreteArray(2, dtype=int32)"
    assert repr(core.get_aval(True)) == "ConcreteArray(True, dtype=bool)"
    aval = core.get_aval(1.0)
    assert repr(aval) == "ConcreteArray(1.0, dtype=float32, weak_type=True)"
    assert isinstance(aval, core.ShapedArray) and isinstance(aval, core.AbstractValue)
    assert isinstance(core.ShapedArray((), np.float32), core.AbstractValue)
    assert repr(core.raise_to_shaped(aval)) == "ShapedArray(float32[], weak_type=True)"
    seen = []
    numjax.jit(lambda x: seen.append(repr(core.get_aval(x))))(1.0)
    assert seen == ["ShapedArray(float32[], weak_type=True)"]
    # The tangent space: float0 for integers, the weak type kept.
    assert core.ShapedArray((2,), np.int32, True).at_least_vspace() == core.ShapedArray(
        (2,), numjax.dtypes.float0, True)
    assert core.ShapedArray((2,), np.float32, True).at_least_vspace() == core.ShapedArray(
        (2,), np.float32, True)
    assert aval.at_least_vspace() == core.ShapedArray((), np.float32, True)


def test_call_and_map_primitive_flags() -> None:
    # Libraries walking a jaxpr read these on every equation's primitive (distrax inverting a
    # function). JAX 0.4.30: False, False for a new primitive and pjit; call_primitive is True
    # for call and closed_call.
    from numjax.experimental import pjit

    for p in (core.Primitive("plain"), pjit.pjit_p):
        assert (p.call_primitive, p.map_primitive) == (False, False)
    for p in (core.call_p, core.closed_call_p):
        assert (p.call_primitive, p.map_primitive) == (True, False)


def test_closed_call_and_call_primitives() -> None:
    from numjax.extend import linear_util as lu

    def f(x):  # type: ignore[no-untyped-def]
        return core.closed_call_p.bind(lu.wrap_init(lambda x: [jnp.sin(x) * 2.0]), x)[0]

    # JAX 0.4.30's values (eager sin may differ from XLA's by an ulp).
    np.testing.assert_allclose(f(1.0), 1.6829419, rtol=1e-6)
    np.testing.assert_allclose(numjax.jit(f)(1.0), 1.6829419, rtol=1e-6)
    np.testing.assert_allclose(numjax.grad(f)(1.0), 1.0806046, rtol=1e-6)
    np.testing.assert_allclose(numjax.vmap(f)(jnp.arange(3.0)), [0., 1.6829419, 1.8185948],
                               rtol=1e-6)
    np.testing.assert_allclose(numjax.linearize(f, 1.0)[1](1.0), 1.0806046, rtol=1e-6)
    closed = numjax.make_jaxpr(f)(1.0)
    assert str(closed) == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = closed_call[\n      call_jaxpr={ lambda ; c:f32[]. "
        "let\n          d:f32[] = sin c\n          e:f32[] = mul d 2.0\n        in (e,) }\n"
        "    ] a\n  in (b,) }")
    assert closed.jaxpr.eqns[0].primitive is core.closed_call_p
    np.testing.assert_allclose(core.jaxpr_as_fun(closed)(0.5)[0], 0.9588511, rtol=1e-6)

    c = jnp.arange(3.0)

    def h(x):  # type: ignore[no-untyped-def]
        return core.call_p.bind(lu.wrap_init(lambda x: [x * c]), x)[0]

    assert str(numjax.make_jaxpr(lambda x: core.call_p.bind(
        lu.wrap_init(lambda x: [x * 2]), x))(3.0)) == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = call[\n      call_jaxpr={ lambda ; c:f32[]. "
        "let d:f32[] = mul c 2.0 in (d,) }\n    ] a\n  in (b,) }")
    np.testing.assert_array_equal(h(2.0), [0., 2., 4.])
    np.testing.assert_array_equal(numjax.jit(h)(2.0), [0., 2., 4.])
    assert float(numjax.grad(lambda x: h(x).sum())(2.0)) == 3.0
    np.testing.assert_array_equal(numjax.vmap(h)(jnp.ones(2)), [[0., 1., 2.]] * 2)


class _Proxy:
    """A library's own array-like type (as TFP's variables wrap a NumPy array)."""

    def __init__(self, value: np.ndarray) -> None:
        self.value = value

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.value if dtype is None else self.value.astype(dtype)


def test_registering_an_array_type_makes_it_an_operand() -> None:
    from numjax.interpreters import xla

    assert xla.pytype_aval_mappings is core.pytype_aval_mappings
    np.testing.assert_array_equal(xla.canonicalize_dtype_handlers[np.ndarray](np.arange(2.0)),
                                  np.arange(2.0, dtype=np.float32))
    core.pytype_aval_mappings[_Proxy] = core.pytype_aval_mappings[np.ndarray]
    xla.canonicalize_dtype_handlers[_Proxy] = xla.canonicalize_dtype_handlers[np.ndarray]
    try:
        x = _Proxy(np.arange(3.0))
        out = numjax.lax.sin(x)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, np.sin(np.arange(3.0)), rtol=1e-6)
        np.testing.assert_allclose(numjax.jit(lambda v: v * 2)(x), [0., 2., 4.])
        assert repr(core.get_aval(x)) == "ConcreteArray([0. 1. 2.], dtype=float32)"
    finally:
        del core.pytype_aval_mappings[_Proxy]
        del xla.canonicalize_dtype_handlers[_Proxy]


def test_custom_vjp_fwd_gets_an_array_for_a_constant_under_jit() -> None:
    # grad of a jit whose custom_vjp call reads a concrete weakly typed Array: the jvp of the
    # jaxpr binds the call again from the equation's literal, and fwd sees an Array (JAX's
    # ArrayImpl), not a Python int (equinox reads `.shape` off such values).
    seen = []

    @numjax.custom_vjp
    def f(x, n):  # type: ignore[no-untyped-def]
        return x * n

    def fwd(x, n):  # type: ignore[no-untyped-def]
        seen.append(type(n.value))
        return x.value * n.value, n.value

    f.defvjp(fwd, lambda n, g: (g * n, None), symbolic_zeros=True)
    assert float(numjax.grad(numjax.jit(lambda x: f(x, jnp.array(3))))(2.0)) == 3.0
    assert seen and all(t is not int for t in seen)
    assert all(hasattr(t, "shape") for t in seen)


def test_mapped_and_unmapped_avals() -> None:
    a = core.ShapedArray((3, 4), np.float32, weak_type=True)
    assert repr(core.mapped_aval(3, 0, a)) == "ShapedArray(float32[4], weak_type=True)"
    assert repr(core.mapped_aval(4, 1, a)) == "ShapedArray(float32[3], weak_type=True)"
    assert core.mapped_aval(3, None, a) is a
    assert repr(core.unmapped_aval(5, "i", 1, a)) == "ShapedArray(float32[3,5,4], weak_type=True)"
    assert core.unmapped_aval(5, None, None, a) is a
    assert repr(core.mapped_aval(3, 0, core.get_aval(jnp.ones(3)))) == "ShapedArray(float32[])"
    with pytest.raises(ValueError, match="not the map's size 2"):
        core.mapped_aval(2, 0, a)


@pytest.mark.parametrize("name", ["numjax.core", "numjax._src.core.avals"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_main_trace_is_the_trace() -> None:
    # flax.nnx annotates `find_top_trace(...).main` as a `jax.core.MainTrace`.
    seen = []
    numjax.jit(lambda x: seen.append(core.find_top_trace([x]).main))(1.0)
    assert isinstance(seen[0], core.MainTrace)


def _batch_sensitive_primitives():  # type: ignore[no-untyped-def]
    """`any_over_batch` reduces over the batch axis (its batch rule gives an unbatched result
    from a batched operand, as equinox's `unvmap_any`); `refuse_batched` refuses a batched
    operand (as equinox's `nonbatchable`)."""
    any_p = core.Primitive("any_over_batch")
    any_p.def_impl(lambda x: np.asarray(np.any(x)))
    any_p.def_abstract_eval(lambda x: core.ShapedArray((), np.bool_))
    batching.primitive_batchers[any_p] = lambda args, dims: (any_p.bind(args[0]), None)
    mlir.register_lowering(any_p, mlir.lower_fun(jnp.any, multiple_results=False))
    refuse_p = core.Primitive("refuse_batched")
    refuse_p.def_impl(lambda x: x)
    refuse_p.def_abstract_eval(lambda x: x)

    def refuse(args, dims):  # type: ignore[no-untyped-def]
        raise ValueError("batched operand")

    batching.primitive_batchers[refuse_p] = refuse
    mlir.register_lowering(refuse_p, mlir.lower_fun(lambda x: x, multiple_results=False))
    return any_p, refuse_p


@pytest.mark.parametrize("jit", [False, True])
def test_loop_carries_stay_unbatched_where_batch_rules_say_so(jit: bool) -> None:
    # A loop's batched carries are found by its body's batch rules, not by data flow: the
    # predicate `any_over_batch(x < 4)` is unbatched, so is the counter (also through a cond
    # whose branch reads the batched x through `any_over_batch`). JAX 0.4.30:
    # vmap(loop)([1., 5.]) = ([3, 3] int32 weak, [4., 8.]); vmap(sc)([[1, 5], [2, 3]]) =
    # ([2, 2] int32, [[2, 10], [4, 6]]).
    any_p, refuse_p = _batch_sensitive_primitives()

    def loop(x):  # type: ignore[no-untyped-def]
        def body(c):  # type: ignore[no-untyped-def]
            i, x = c
            i = numjax.lax.cond(i >= 0, lambda i, x: i + any_p.bind(x > 100).astype(jnp.int32),
                                lambda i, x: i, i, x)
            return refuse_p.bind(i) + 1, x + 1

        return numjax.lax.while_loop(lambda c: any_p.bind(c[1] < 4), body, (0, x))

    def sc(x):  # type: ignore[no-untyped-def]
        def body(i, x):  # type: ignore[no-untyped-def]
            return refuse_p.bind(i + any_p.bind(x > 100).astype(jnp.int32)) + 1, x * 2

        return numjax.lax.scan(body, 0, x)

    wrap = numjax.jit if jit else (lambda f: f)
    i, x = wrap(numjax.vmap(loop))(jnp.array([1.0, 5.0]))
    assert i.dtype == np.int32 and i.weak_type
    np.testing.assert_array_equal(i, [3, 3])
    np.testing.assert_array_equal(x, [4.0, 8.0])
    i, ys = wrap(numjax.vmap(sc))(jnp.array([[1.0, 5.0], [2.0, 3.0]]))
    assert i.dtype == np.int32 and not i.weak_type
    np.testing.assert_array_equal(i, [2, 2])
    np.testing.assert_array_equal(ys, [[2.0, 10.0], [4.0, 6.0]])


def test_get_bind_params_and_subjaxprs() -> None:
    # An interpreter re-binds each equation with `p.bind(*subfuns, *args, **params)` from
    # `get_bind_params`; `subjaxprs` lists the jaxprs one level down. JAX 0.4.30: subjaxprs
    # of this program are three open Jaxprs of one equation each; the interpreter gives
    # 3.5597527 (p=True) and 3.258584 (p=False).
    def f(p, x):  # type: ignore[no-untyped-def]
        return numjax.lax.cond(p, jnp.sin, jnp.cos, x) + numjax.jit(jnp.exp)(x)

    closed = numjax.make_jaxpr(f)(True, 1.0)
    subs = list(core.subjaxprs(closed.jaxpr))
    assert [type(j) for j in subs] == [core.Jaxpr] * 3
    assert [len(j.eqns) for j in subs] == [1, 1, 1]

    def interpret(*args):  # type: ignore[no-untyped-def]
        env = dict(zip(closed.jaxpr.invars, args, strict=True))
        read = lambda v: v.val if isinstance(v, core.Literal) else env[v]
        for eqn in closed.jaxpr.eqns:
            subfuns, params = eqn.primitive.get_bind_params(eqn.params)
            assert subfuns == [] and params == eqn.params
            ans = eqn.primitive.bind(*subfuns, *map(read, eqn.invars), **params)
            env.update(zip(eqn.outvars, ans if eqn.primitive.multiple_results else [ans],
                           strict=True))
        return [read(v) for v in closed.jaxpr.outvars]

    np.testing.assert_allclose(interpret(True, 1.0)[0], 3.5597527, rtol=1e-6)
    np.testing.assert_allclose(interpret(False, 1.0)[0], 3.258584, rtol=1e-6)


def test_custom_jvp_call_rebound_from_its_equation() -> None:
    # custom_jvp_call's get_bind_params gives the function and its rule as WrappedFuns and
    # the params left ({symbolic_zeros}); binding them again keeps the custom rule. JAX 0.4.30:
    # fun(1.) = [sin 1], rule(1., 2.) = [sin 1, 20.], jvp of the re-bound call = (sin 1, 10.).
    @numjax.custom_jvp
    def f(x):  # type: ignore[no-untyped-def]
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(p, t):  # type: ignore[no-untyped-def]
        return f(p[0]), 10.0 * t[0]

    (eqn,) = numjax.make_jaxpr(f)(1.0).jaxpr.eqns
    assert eqn.primitive.name == "custom_jvp_call"
    subfuns, params = eqn.primitive.get_bind_params(eqn.params)
    assert sorted(params) == ["symbolic_zeros"]
    fun, rule = subfuns
    np.testing.assert_allclose(fun.call_wrapped(1.0), [np.sin(1.0)], rtol=1e-6)
    np.testing.assert_allclose(rule.call_wrapped(1.0, 2.0), [np.sin(1.0), 20.0], rtol=1e-6)

    def g(x):  # type: ignore[no-untyped-def]
        return eqn.primitive.bind(fun, rule, x, **params)[0]

    primal, tangent = numjax.jvp(g, (1.0,), (1.0,))
    np.testing.assert_allclose([primal, tangent], [np.sin(1.0), 10.0], rtol=1e-6)
    np.testing.assert_allclose(numjax.jit(g)(1.0), np.sin(1.0), rtol=1e-6)
    assert numjax.make_jaxpr(g)(1.0).jaxpr.eqns[0].primitive.name == "custom_jvp_call"


def test_primitive_with_unhashable_params_and_axis_batch_rule_tuples() -> None:
    # A library's primitive may be bound with a dict param; JAX runs its impl eagerly without
    # hashing params. An axis batch rule receives its operands and dims as tuples (which it
    # may bind as params). JAX 0.4.30: [0., 2., 4.]; vmap gives [[3., 3.], [3., 3.]] and the
    # rule sees ('tuple', 'tuple', 2).
    p = core.Primitive("scaled")
    p.def_impl(lambda x, *, opts: x * opts["scale"])
    p.def_abstract_eval(lambda x, *, opts: core.ShapedArray(x.shape, x.dtype))
    seen = []

    def rule(axis_size, axis_name, trace_type, args, dims, *, opts):  # type: ignore[no-untyped-def]
        seen.append((type(args).__name__, type(dims).__name__, axis_size))
        return p.bind(args[0], opts=opts), dims[0]

    batching.axis_primitive_batchers[p] = rule
    np.testing.assert_array_equal(p.bind(jnp.arange(3.0), opts={"scale": 2.0}), [0, 2, 4])
    out = numjax.vmap(lambda x: p.bind(x, opts={"scale": 3.0}))(jnp.ones((2, 2)))
    np.testing.assert_array_equal(out, [[3.0, 3.0], [3.0, 3.0]])
    assert seen == [("tuple", "tuple", 2)]


def test_jvp_and_batch_rules_receive_tuples() -> None:
    # JAX 0.4.30 hands a registered jvp rule its primals and tangents, and a batch rule its
    # operands and dims, as tuples (equinox builds vmap in_axes prefixes from them). It gives
    # (5., 2.) for the jvp, [1., 3.] for the vmap, and the rules see
    # [('jvp', 'tuple', 'tuple', ['float', 'Zero']), ('batch', 'tuple', 'tuple', (0, None))].
    p = core.Primitive("twice_plus")
    p.def_impl(lambda x, y: 2 * x + y)
    p.def_abstract_eval(lambda x, y: core.ShapedArray(x.shape, x.dtype))
    seen = []

    def jvp(primals, tangents):  # type: ignore[no-untyped-def]
        seen.append(("jvp", type(primals).__name__, type(tangents).__name__,
                     type(tangents[1]).__name__))
        return p.bind(*primals), p.bind(*map(ad.instantiate_zeros, tangents))

    def batch(args, dims):  # type: ignore[no-untyped-def]
        seen.append(("batch", type(args).__name__, type(dims).__name__, dims))
        x, y = (batching.moveaxis(a, d, 0) if d is not batching.not_mapped
                else jnp.broadcast_to(a, (2, *jnp.shape(a)))
                for a, d in zip(args, dims, strict=True))
        return p.bind(x, y), 0

    ad.primitive_jvps[p] = jvp
    batching.primitive_batchers[p] = batch
    one = jnp.float32(1.0)
    primal, tangent = numjax.jvp(lambda x: p.bind(x, one), (2.0,), (1.0,))
    assert (float(primal), float(tangent)) == (5.0, 2.0)
    np.testing.assert_array_equal(numjax.vmap(lambda x: p.bind(x, one))(jnp.arange(2.0)),
                                  [1.0, 3.0])
    assert seen == [("jvp", "tuple", "tuple", "Zero"), ("batch", "tuple", "tuple", (0, None))]


def test_jit_keeps_symbolic_zero_tangents_and_cotangents() -> None:
    # Through a jitted call, an output that does not depend on the differentiated inputs (an
    # integer counter, a constant) keeps a symbolic zero tangent, and a zero cotangent stays
    # symbolic in the transposed call: a rule registered for a primitive applied to such an
    # output is never called (JAX 0.4.30: grad 8.0, jvp (11.0, 8.0), no rule called). Before,
    # the jvp rule was handed a float0 array of zeros.
    seen = []
    ident_p = core.Primitive("ident")
    ident_p.def_impl(lambda x: x)
    ident_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))

    def jvp(primals, tangents):  # type: ignore[no-untyped-def]
        (t,) = tangents
        seen.append(("jvp", core.get_aval(t).dtype))
        return ident_p.bind(*primals), t if type(t) is ad.Zero else ident_p.bind(t)

    def transpose(ct, x):  # type: ignore[no-untyped-def]
        seen.append(("transpose", type(ct).__name__))
        return [ct]

    ad.primitive_jvps[ident_p] = jvp
    ad.primitive_transposes[ident_p] = transpose
    mlir.register_lowering(ident_p, mlir.lower_fun(lambda x: x, multiple_results=False))
    step = numjax.jit(lambda x, i: (x * 2.0, i + 1, jnp.float32(3.0)))

    def loss(x):  # type: ignore[no-untyped-def]
        y, i, c = step(x, 3)
        return y * ident_p.bind(i).astype(jnp.float32) + ident_p.bind(c)

    assert float(numjax.grad(loss)(1.0)) == float(numjax.jit(numjax.grad(loss))(1.0)) == 8.0
    primal, tangent = numjax.jvp(loss, (1.0,), (1.0,))
    assert (float(primal), float(tangent)) == (11.0, 8.0)
    assert seen == []
    # The jitted call's zero tangents are no outputs of the jvp'd call (JAX 0.4.30's text).
    h = numjax.jit(lambda x, y: (x * 2.0, y * 3.0))
    assert str(numjax.make_jaxpr(lambda x, y, t: numjax.jvp(lambda x: h(x, y), (x,), (t,)))(
        1.0, 2.0, 1.0)) == (
        "{ lambda ; a:f32[] b:f32[] c:f32[]. let\n"
        "    d:f32[] e:f32[] f:f32[] = pjit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; g:f32[] h:f32[] i:f32[]. let\n"
        "          j:f32[] = mul g 2.0\n"
        "          k:f32[] = mul i 2.0\n"
        "          l:f32[] = mul h 3.0\n"
        "        in (j, l, k) }\n"
        "    ] a b c\n"
        "  in (d, e, f, 0.0) }")


@pytest.mark.parametrize("name, body", [
    ("cond", lambda x: numjax.lax.cond(x > 0, lambda x, t: (x * 2, t + 1),
                                       lambda x, t: (x * 3, t), x, 0.5)),
    ("scan", lambda x: numjax.lax.scan(lambda c, _: ((c[0] * 2, c[1] + 1.0), None), (x, 0.5),
                                       None, length=3)[0]),
    ("while_loop", lambda x: numjax.lax.while_loop(lambda c: c[1] < 3.0,
                                                   lambda c: (c[0] * 2, c[1] + 1.0), (x, 0.5))),
    ("checkpoint", lambda x: numjax.checkpoint(lambda x, t: (x * 2, t + 1))(x, 0.5)),
])
def test_control_flow_keeps_symbolic_zero_tangents(name: str, body: Any) -> None:
    # An output of cond, scan, while_loop or checkpoint that does not depend on the
    # differentiated input keeps a symbolic zero tangent: a rule applied to it is not called.
    # JAX 0.4.30, eagerly and under jit: cond and checkpoint (3.0, 3.0), the loops
    # (28.0, 28.0), no rule called.
    seen = []
    ident_p = core.Primitive("ident")
    ident_p.def_impl(lambda x: x)
    ident_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype))

    def jvp(primals, tangents):  # type: ignore[no-untyped-def]
        seen.append(tangents)
        (t,) = tangents
        return ident_p.bind(*primals), t if type(t) is ad.Zero else ident_p.bind(t)

    ad.primitive_jvps[ident_p] = jvp
    mlir.register_lowering(ident_p, mlir.lower_fun(lambda x: x, multiple_results=False))

    def f(x):  # type: ignore[no-untyped-def]
        y, t = body(x)
        return y * ident_p.bind(t)

    expected = (3.0, 3.0) if name in ("cond", "checkpoint") else (28.0, 28.0)
    for g in (f, numjax.jit(f)):
        primal, tangent = numjax.jvp(g, (1.0,), (1.0,))
        assert (float(primal), float(tangent)) == expected
    assert seen == []


def test_equation_name_stack_is_the_named_scopes() -> None:
    # JAX 0.4.30: str(eqn.source_info.name_stack) per equation is ['outer/inner', 'outer'],
    # and '' outside any scope (haiku's jaxpr_info groups equations by it).
    def f(x: numjax.Array) -> numjax.Array:
        with numjax.named_scope("outer"):
            with numjax.named_scope("inner"):
                y = jnp.sin(x)
            return y * 2

    eqns = numjax.make_jaxpr(f)(1.0).jaxpr.eqns
    assert [str(e.source_info.name_stack) for e in eqns] == ["outer/inner", "outer"]
    eqns = numjax.make_jaxpr(jnp.cos)(1.0).jaxpr.eqns
    assert [str(e.source_info.name_stack) for e in eqns] == [""]


def test_pxla_thread_resources_reads_the_mesh_context() -> None:
    # JAX 0.4.30: an empty mesh (devices of shape ()) outside `with mesh:`, the mesh inside;
    # flax tells from `devices.shape != ()` whether a mesh is set.
    from numjax.sharding import Mesh

    env = pxla.thread_resources.env
    assert (env.physical_mesh.devices.shape, env.physical_mesh.empty, env.loops) == (
        (), True, ())
    mesh = Mesh(np.array(numjax.devices()[:1]), ("x",))
    with mesh:
        env = pxla.thread_resources.env
        assert env.physical_mesh is mesh and dict(env.shape) == {"x": 1}
    assert pxla.thread_resources.env.physical_mesh.empty


class _Recording(core.Trace):
    """A library's own transformation on JAX's level-based protocol (as haiku's `to_dot`
    builds one): it records each operation reading its tracers, then runs it."""

    def pure(self, x: Any) -> Any:
        return _Boxed(self, x)

    lift = sublift = pure

    def process_primitive(self, primitive: Any, tracers: Any, params: Any) -> Any:
        self.log.append((str(primitive), len(tracers)))
        out = primitive.bind(*[t.val for t in tracers], **params)
        if primitive is pjit_p:
            self.log.append(("call", params["name"]))
        if primitive.multiple_results:
            return [_Boxed(self, o) for o in out]
        return _Boxed(self, out)


class _Boxed(core.Tracer):
    def __init__(self, trace: Any, val: Any) -> None:
        super().__init__(trace)
        self.val = val

    @property
    def aval(self) -> Any:
        return core.get_aval(self.val)


def test_new_main_runs_a_library_trace():
    # JAX 0.4.30: the operations reading the trace's values, a jitted call as one pjit named
    # after its function, nothing for an operation on constants alone (the cos); 4.460407.
    lax = numjax.lax
    with core.new_main(_Recording) as main:
        trace = _Recording(main, core.cur_sublevel())
        trace.log = []
        x, y = _Boxed(trace, jnp.float32(0.5)), _Boxed(trace, jnp.float32(3.0))
        z = lax.add(lax.mul(lax.sin(x), y), jnp.float32(1.0))
        w = lax.cos(jnp.float32(2.0))
        out = lax.add(numjax.jit(lambda a: lax.mul(a, jnp.float32(2.0)))(z), w)
    assert type(out) is _Boxed and type(w) is not _Boxed
    np.testing.assert_allclose(out.val, 4.460407, rtol=1e-6)
    assert trace.log == [("sin", 1), ("mul", 2), ("add", 2), ("pjit", 1),
                         ("call", "<lambda>"), ("add", 2)]

"""The public API's smaller behaviours that JAX 0.4.30's api_test checks: ShapeDtypeStruct,
argument validation texts, the names and docstrings of transformed functions, environment
information, configuration options. JAX's recorded results are the data."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax

SDS = numjax.ShapeDtypeStruct
CPU0 = numjax.sharding.SingleDeviceSharding(numjax.devices()[0])


# (constructor, JAX 0.4.30's repr)
SDS_REPRS: list[tuple[Callable[[], Any], str]] = [
    (lambda: SDS((2, 3), jnp.float32),
     "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"),
    (lambda: SDS((2, 3), jnp.float32, named_shape={"i": 10}),
     "ShapeDtypeStruct(shape=(2, 3), dtype=float32, named_shape={'i': 10})"),
    (lambda: SDS(shape=(2,), dtype="int8", sharding=CPU0),
     "ShapeDtypeStruct(shape=(2,), dtype=int8, "
     "sharding=SingleDeviceSharding(device=CpuDevice(id=0)))"),
]


@pytest.mark.parametrize("make, expected", SDS_REPRS)
def test_shape_dtype_struct_repr(make: Callable[[], Any], expected: str) -> None:
    assert repr(make()) == expected


def test_shape_dtype_struct_equality_reads_named_shape() -> None:
    # JAX: an empty named_shape is no named_shape; a different one is a different struct.
    assert SDS((2,), "int8") == SDS((2,), "int8", named_shape={})
    assert hash(SDS((2,), "int8")) == hash(SDS((2,), "int8", named_shape={}))
    assert SDS((2,), "int8") != SDS((2,), "int8", named_shape={"i": 1})
    assert SDS((2,), "int8").named_shape == {}


# (call, JAX's exception type, its message)
ERRORS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("sds sharding spec", lambda: SDS((8, 2), np.float32,
                                      sharding=numjax.sharding.PartitionSpec("x")),
     ValueError, "sharding should be an instance of `jax.sharding.Sharding` or "
                 "`jax.experimental.layout.Layout`. Got PartitionSpec('x',) of type "),
    # JAX 0.4.30's signature is (shape, dtype, named_shape=None, sharding=None).
    ("sds weak_type", lambda: SDS((8, 2), np.float32, weak_type=True),
     TypeError, "ShapeDtypeStruct.__init__() got an unexpected keyword argument 'weak_type'"),
    ("sds no dtype", lambda: SDS((8, 2), None),
     ValueError, "ShapeDtypeStruct: dtype must be specified."),
    ("sds len", lambda: len(SDS((), "float32")), TypeError, "len() of unsized object"),
    *[(f"masked array {name}", partial(f, np.ma.array([1, 2, 3], mask=[True, False, True])),
       ValueError, "numpy masked arrays are not supported as direct inputs to JAX functions. "
                   "Use arr.filled() to convert the value to a standard numpy array.")
      for name, f in [("jit", numjax.jit(lambda x: x)), ("asarray", jnp.asarray),
                      ("array", jnp.array), ("sin", jnp.sin), ("device_put", numjax.device_put),
                      ("lax.add", lambda x: lax.add(x, x))]],
    *[(f"scalar type {name}", partial(f, jnp.int32), TypeError,
       "JAX scalar type <class 'numjax.numpy.int32'> cannot be interpreted as a JAX array.")
      for name, f in [("jit", numjax.jit(lambda x: x)), ("sin", jnp.sin),
                      ("lax.add", lambda x: lax.add(x, x))]],
    ("scalar type grad", partial(numjax.grad(lambda x: x), jnp.int32), TypeError,
     "Argument '<class 'numjax.numpy.int32'>' of type "
     "<class 'numjax._src.numpy.scalar_types._ScalarMeta'> is not a valid JAX type."),
]


def test_import_loads_neither_numpy_ma_nor_opt_einsum() -> None:
    # Both are loaded when first needed (numpy.ma by NumPy 2 itself, when a user asks for it):
    # together they were a third of `import numjax`'s CPU time. A masked array made after
    # numjax is imported is still refused with JAX's error, and einsum still works.
    code = ("import sys, numpy as np; before = set(sys.modules); import numjax; "
            "import numjax.numpy as jnp; new = set(sys.modules) - before; "
            "assert 'numpy.ma' not in new and 'opt_einsum' not in new, new; "
            "import numpy.ma\n"
            "try:\n    jnp.asarray(np.ma.array([1, 2], mask=[True, False]))\n"
            "except ValueError as e:\n    print(e)\n"
            "print(jnp.einsum('i,i->', jnp.ones(3), jnp.ones(3)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == ("numpy masked arrays are not supported as direct inputs to JAX functions. "
                   "Use arr.filled() to convert the value to a standard numpy array.\n3.0\n")


def test_arrays_convert_while_numpy_ma_is_being_imported(monkeypatch: Any) -> None:
    # Another thread importing numpy.ma registers the module before defining its classes.
    monkeypatch.setitem(sys.modules, "numpy.ma", types.ModuleType("numpy.ma"))
    np.testing.assert_array_equal(jnp.asarray(np.arange(3)), [0, 1, 2])
    assert jnp.array(1.5).dtype == np.float32


@pytest.mark.parametrize("call, error, message", [row[1:] for row in ERRORS],
                         ids=[row[0] for row in ERRORS])
def test_errors(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_jit_of_a_callable_without_weak_references() -> None:
    class Slotted:
        __slots__: list[str] = []

        def __call__(self, x: Any) -> Any:
            return x + 1

    f = numjax.jit(Slotted())  # building it works, as in JAX; tracing needs a weak reference
    with pytest.raises(TypeError, match="cannot create weak reference to 'Slotted' object"):
        f(3)


def test_jit_repr() -> None:
    class BadRepr:
        def __call__(self) -> None:
            pass

        def __repr__(self) -> str:
            raise ValueError("invalid repr")

    def fun(x: Any) -> Any:
        return x

    assert repr(numjax.jit(fun)) == f"<PjitFunction of {fun!r}>"
    jitted = numjax.jit(BadRepr())
    assert repr(jitted) == "<PjitFunction>"
    jitted = numjax.jit(fun)
    del jitted.__wrapped__
    assert repr(jitted) == "<PjitFunction>"


def _documented(x: Any) -> Any:
    """Does things {with} stuff."""
    return x


# (transformation, JAX 0.4.30's docstring of the transformed `_documented`)
DOCS: list[tuple[Callable[..., Any], str]] = [
    (numjax.grad, "Gradient of _documented with respect to positional argument(s) 0. Takes the "
                  "same arguments as _documented but returns the gradient, which has the same "
                  "shape as the arguments at positions 0."),
    (partial(numjax.value_and_grad, argnums=(0,)),
     "Value and gradient of _documented with respect to positional argument(s) (0,). Takes the "
     "same arguments as _documented but returns a two-element tuple where the first element is "
     "the value of _documented and the second element is the gradient, which has the same "
     "shape as the arguments at positions (0,)."),
    (numjax.jacfwd, "Jacobian of _documented with respect to positional argument(s) 0. Takes "
                    "the same arguments as _documented but returns the jacobian of the output "
                    "with respect to the arguments at positions 0."),
    (numjax.jacrev, "Jacobian of _documented with respect to positional argument(s) 0. Takes "
                    "the same arguments as _documented but returns the jacobian of the output "
                    "with respect to the arguments at positions 0."),
    (numjax.vmap, "Vectorized version of _documented. Takes similar arguments as _documented "
                  "but with additional array axes over which _documented is mapped.\n\n"
                  "Original documentation:\n\nDoes things {with} stuff."),
]


@pytest.mark.parametrize("transform, doc", DOCS)
def test_transformed_docstrings(transform: Callable[..., Any], doc: str) -> None:
    f = transform(_documented)
    assert f.__doc__ == doc
    assert f.__name__ == "_documented"


def test_vmap_docstring_of_an_undocumented_function() -> None:
    assert numjax.vmap(lambda x: x).__doc__ == (
        "Vectorized version of <lambda>. Takes similar arguments as <lambda> but with "
        "additional array axes over which <lambda> is mapped.")


# (transformation, function, argument, JAX 0.4.30's weak type of the result): each block of
# a Jacobian takes the weak type of its output (jacfwd) or its input (jacrev).
JACOBIAN_WEAK_TYPES = [
    (numjax.jacfwd, lambda x: x, 1.0, True),
    (numjax.jacfwd, lambda x: x * 2.0, jnp.full(2, 1.0), True),
    (numjax.jacfwd, jnp.sin, jnp.ones(2), False),
    (numjax.jacrev, lambda x: x, 1.0, True),
    (numjax.jacrev, jnp.sin, jnp.full(2, 1.0), True),
    (numjax.jacrev, lambda x: x * 2.0, jnp.float32(1.0), False),
    (numjax.hessian, jnp.sin, 1.0, True),
    (numjax.hessian, jnp.sin, jnp.float32(1.0), False),
]


@pytest.mark.parametrize("transform, fun, x, weak", JACOBIAN_WEAK_TYPES)
def test_jacobian_weak_types(transform: Callable[..., Any], fun: Callable[..., Any], x: Any,
                             weak: bool) -> None:
    out = transform(fun)(x)
    assert out.weak_type is weak
    assert out.dtype == np.float32


def test_jacobian_values_with_aux_and_trees() -> None:
    f = lambda x, y: ({"a": x * y, "b": jnp.sin(x)}, x + 1.0)
    x, y = jnp.array([1.0, 2.0]), jnp.array(3.0)
    jac, aux = numjax.jacfwd(f, argnums=(0, 1), has_aux=True)(x, y)
    jac_rev, aux_rev = numjax.jacrev(f, argnums=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(jac["a"][0], np.diag([3.0, 3.0]))
    np.testing.assert_allclose(jac["a"][1], [1.0, 2.0])
    np.testing.assert_allclose(jac["b"][0], np.diag(np.cos([1.0, 2.0])), rtol=1e-6)
    for a, b in zip(numjax.tree_util.tree_leaves(jac), numjax.tree_util.tree_leaves(jac_rev),
                    strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(aux, [2.0, 3.0])
    np.testing.assert_allclose(aux_rev, [2.0, 3.0])


def test_eval_shape_of_jit_reports_out_shardings() -> None:
    # JAX: a jitted function's eval_shape gives each output the sharding out_shardings asks for.
    f = numjax.jit(lambda x: (x * 2, x), out_shardings=CPU0)
    out = f.eval_shape(np.arange(8))
    assert out == (SDS((8,), np.int32, sharding=CPU0), SDS((8,), np.int32, sharding=CPU0))
    assert numjax.jit(lambda x: x).eval_shape(1.0).sharding is None


def test_print_environment_info(capsys: pytest.CaptureFixture[str]) -> None:
    text = numjax.print_environment_info(return_string=True)
    assert capsys.readouterr().out == ""
    assert text is not None
    lines = text.splitlines()
    assert lines[:3] == [f"jax:    {numjax.__version__}", "jaxlib: 0.4.30",
                         f"numpy:  {np.__version__}"]
    assert [line.split(":")[0] for line in lines[3:]] == [
        "python", "jax.devices (1 total, 1 local)", "process_count", "platform"]
    assert numjax.print_environment_info() is None
    assert capsys.readouterr().out == text + "\n"


def test_named_sharding_at_the_top_level() -> None:
    assert numjax.NamedSharding is numjax.sharding.NamedSharding


def test_custom_vjp_disable_shape_check() -> None:
    @numjax.custom_vjp
    def foo(x: Any, y: Any) -> Any:
        return x

    foo.defvjp(lambda x, y: (x, None), lambda _, g: (jnp.zeros(3), jnp.zeros(3)))
    loss = numjax.grad(lambda x, y: foo(x, y).sum(), 1)
    with pytest.raises(ValueError, match="Custom VJP bwd rule must produce an output with the "
                                         "same shape/dtypes as the args tuple"):
        loss(jnp.ones(3), jnp.ones(4))
    numjax.config.update("jax_custom_vjp_disable_shape_check", True)
    try:
        # JAX passes the bwd rule's cotangent on as it is: shape (3,) for a (4,) input.
        np.testing.assert_array_equal(loss(jnp.ones(3), jnp.ones(4)), np.zeros(3))
    finally:
        numjax.config.update("jax_custom_vjp_disable_shape_check", False)


# ---- functions returned by linearize, vjp and linear_transpose ------------------------------


def _twice(x: Any) -> Any:
    return 2.0 * x


def test_linearized_and_transposed_functions_are_pytrees() -> None:
    # JAX returns Partials: they can be returned from and passed into jitted functions.
    linearize = numjax.jit(lambda f, x: numjax.linearize(f, x)[1], static_argnums=0)
    transpose = numjax.jit(numjax.linear_transpose, static_argnums=0)
    apply = numjax.jit(lambda f, x: f(x))
    assert isinstance(numjax.linearize(_twice, 1.0)[1], numjax.tree_util.Partial)
    assert isinstance(numjax.linear_transpose(_twice, 1.0), numjax.tree_util.Partial)
    assert apply(linearize(_twice, 1.0), 3.0) == 6.0
    assert apply(transpose(_twice, 1.0), 3.0) == (6.0,)


def test_linear_transpose_prunes_outputs_without_cotangents() -> None:
    # JAX 0.4.30: the comparison output of the jitted function needs no transpose rule.
    f = numjax.jit(lambda x: (2 * x, x > 0))
    (ct,) = numjax.linear_transpose(lambda x: f(x)[0], 1.0)(1.0)
    assert (float(ct), ct.dtype, ct.weak_type) == (2.0, np.float32, True)
    assert float(numjax.grad(lambda x: numjax.jit(lambda x: (2 * x, 3 * x))(x)[1])(1.0)) == 3.0


_LINEARIZE_INCONSISTENT = ("linearized function called on tangent values inconsistent with the "
                           "original primal values: got ")
TRANSFORMED_ERRORS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("transpose int -> float", lambda: numjax.linear_transpose(_twice, 1), TypeError,
     "linear_transpose only supports [float or complex] -> [float or complex], and integer -> "
     "integer functions, but got [dtype('int32')] -> [dtype('float32')]."),
    ("transpose tree", lambda: numjax.linear_transpose(lambda x: [x, x], 1.0)(1.0), TypeError,
     "cotangent tree does not match function output, expected PyTreeDef([*, *]) but got "
     "PyTreeDef(*)"),
    ("transpose shape", lambda: numjax.linear_transpose(lambda x: jnp.stack([x, x]), 1.0)(1.0),
     TypeError, "cotangent type does not match function output, expected "
                "(ShapedArray(float32[2], weak_type=True),) but got [1.0]"),
    ("transpose complex out", lambda: numjax.linear_transpose(lambda x: 1j * x, 1.0)(1.0),
     TypeError, "cotangent type does not match function output, expected "
                "(ShapedArray(complex64[], weak_type=True),) but got [1.0]"),
    ("transpose complex ct", lambda: numjax.linear_transpose(lambda x: x, 1.0)(1j),
     TypeError, "cotangent type does not match function output, expected "
                "(ShapedArray(float32[], weak_type=True),) but got [1j]"),
    ("linearize int tangent", lambda: numjax.linearize(lambda x: x, 1.0)[1](1), ValueError,
     _LINEARIZE_INCONSISTENT),
    # An integer primal's tangent is float0: an int32 tangent is refused.
    ("linearize int primal", lambda: numjax.linearize(lambda x: x, np.ones(2, np.int32))[1](
        np.ones(2, np.int32)), ValueError, _LINEARIZE_INCONSISTENT),
    ("vjp splatted", lambda: numjax.vjp(lambda x: (x, x), 1.0)[1](1.0, 1.0), TypeError,
     "The function returned by `jax.vjp` applied to <lambda> was called with 2 arguments, but "
     "functions returned by `jax.vjp` must be called with a single argument corresponding to "
     "the single value returned by <lambda> (even if that returned value is a tuple or other "
     "container).\n\nFor example, if we have:\n\n  def f(x):\n    return (x, x)\n"),
]


@pytest.mark.parametrize("call, error, message", [row[1:] for row in TRANSFORMED_ERRORS],
                         ids=[row[0] for row in TRANSFORMED_ERRORS])
def test_transformed_function_errors(call: Callable[[], Any], error: type[Exception],
                                     message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_linearized_function_accepts_matching_tangents() -> None:
    f_jvp = numjax.linearize(lambda x: x, np.ones(2, np.int32))[1]
    out = f_jvp(np.zeros(2, numjax.dtypes.float0))
    assert out.dtype == numjax.dtypes.float0 and out.shape == (2,)
    assert repr(numjax.linearize(lambda x: x, 1.0)[1](jnp.float32(1.0))) == (
        "Array(1., dtype=float32)")
    assert numjax.linear_transpose(lambda x, y: x + y, 1.0, 2.0)(jnp.float32(2.0)) == (2.0, 2.0)


# ---- objects with __jax_array__ -------------------------------------------------------------


class _ArrayLike:
    def __init__(self, value: Any) -> None:
        self.value = value

    def __jax_array__(self) -> Any:
        return self.value

    dtype = property(lambda self: self.value.dtype)
    shape = property(lambda self: self.value.shape)


@numjax.tree_util.register_pytree_node_class
class _ArrayLikeNode(_ArrayLike):
    def tree_flatten(self) -> tuple[tuple[Any], None]:
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, _: Any, children: Any) -> _ArrayLikeNode:
        return cls(*children)


def test_dunder_jax_array_operands() -> None:
    x = _ArrayLike(jnp.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(jnp.sin(x), np.sin([1.0, 2.0, 3.0]), rtol=1e-6)
    np.testing.assert_allclose(numjax.grad(numjax.jit(lambda x: jnp.sin(x).sum()))(x),
                               np.cos([1.0, 2.0, 3.0]), rtol=1e-6)
    np.testing.assert_array_equal(lax.add(_ArrayLike(jnp.ones(2)), 1.0), [2.0, 2.0])
    np.testing.assert_array_equal(numjax.jit(lambda x: x * 2)(_ArrayLike(jnp.ones(2))), [2, 2])
    one = _ArrayLike(jnp.array(1))
    # JAX: isscalar reads the array (a 0-d Array is a scalar there), size/shape/dtype too.
    assert [jnp.isscalar(one), jnp.size(one), jnp.shape(one), jnp.dtype(one)] == [
        True, 1, (), np.dtype("int32")]
    assert jnp.isscalar(_ArrayLike(jnp.ones(2))) is False
    np.testing.assert_array_equal(jnp.array(((one, one), [one, one])), [[1, 1], [1, 1]])
    node = _ArrayLikeNode(jnp.ones((3, 3)))
    np.testing.assert_array_equal(jnp.asarray(node), np.ones((3, 3)))
    np.testing.assert_array_equal(numjax.jit(jnp.matmul)(node, node), np.full((3, 3), 3.0))


class _ValueOnly:
    """An array-like object with nothing but `__jax_array__` (no dtype or shape), as
    flax.nnx's Variable."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __jax_array__(self) -> Any:
        return self.value


# JAX 0.4.30's values: its jnp functions read such an object as its array at their (jitted)
# entry, while jax.dtypes.result_type refuses it.
VALUE_ONLY_CASES: list[tuple[str, Callable[[], Any], Any, str]] = [
    ("matmul operator", lambda: jnp.ones((2, 3)) @ _ValueOnly(jnp.ones((3, 2))),
     [[3.0, 3.0], [3.0, 3.0]], "float32"),
    ("jnp.dot", lambda: jnp.dot(jnp.ones(3), _ValueOnly(jnp.ones((3, 2)))), [3.0, 3.0],
     "float32"),
    ("subtract", lambda: jnp.ones(2) - _ValueOnly(jnp.ones(2)), [0.0, 0.0], "float32"),
    ("scalar times", lambda: jnp.float32(2) * _ValueOnly(jnp.ones(2)), [2.0, 2.0], "float32"),
    ("add a weak int", lambda: jnp.add(_ValueOnly(jnp.arange(2)), 1), [1, 2], "int32"),
    ("exp", lambda: jnp.exp(_ValueOnly(jnp.zeros(2))), [1.0, 1.0], "float32"),
    ("square", lambda: jnp.square(_ValueOnly(jnp.arange(3))), [0, 1, 4], "int32"),
    ("where", lambda: jnp.where(True, _ValueOnly(jnp.ones(2)), 0.0), [1.0, 1.0], "float32"),
]


@pytest.mark.parametrize("program,expected,dtype", [c[1:] for c in VALUE_ONLY_CASES],
                         ids=[c[0] for c in VALUE_ONLY_CASES])
def test_jnp_reads_an_object_with_only_dunder_jax_array(program: Callable[[], Any],
                                                       expected: Any, dtype: str) -> None:
    out = program()
    assert type(out) is type(jnp.zeros(1)) and out.dtype == np.dtype(dtype)
    assert not out.weak_type
    np.testing.assert_array_equal(out, expected)


def test_result_type_refuses_an_object_with_only_dunder_jax_array() -> None:
    with pytest.raises(TypeError, match="Cannot determine dtype of <"):
        numjax.dtypes.result_type(_ValueOnly(jnp.ones(2)))


# ---- argument checks of the transformations -------------------------------------------------

_AXES_LEAVES = "must be an int, None, or (nested) container with those types as leaves, but got "
_VJP_TYPE = ("unexpected JAX type (e.g. shape/dtype) for argument to vjp function: got float16[], "
             "but expected float32[] because the corresponding output of the function <lambda> "
             "had JAX type float32[]")
CHECKS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("vmap in_axes array", lambda: numjax.vmap(lambda x: x, in_axes=(jnp.array([1.0, 2.0]),)),
     TypeError, "vmap in_axes " + _AXES_LEAVES + "(Array([1., 2.], dtype=float32),)."),
    ("vmap out_axes array", lambda: numjax.vmap(lambda x: x, out_axes=(jnp.array([1.0]),)),
     TypeError, "vmap out_axes " + _AXES_LEAVES + "(Array([1.], dtype=float32),)."),
    ("vmap in_axes float", lambda: numjax.vmap(lambda x: x, in_axes=(1.5,)),
     TypeError, "vmap in_axes " + _AXES_LEAVES + "(1.5,)."),
    ("vmap in_axes str", lambda: numjax.vmap(lambda x: x, in_axes=({"a": "b"},)),
     TypeError, "vmap in_axes " + _AXES_LEAVES + "({'a': 'b'},)."),
    ("vmap out_axes str", lambda: numjax.vmap(lambda x: x, out_axes="a"),
     TypeError, "vmap out_axes " + _AXES_LEAVES + "a."),
    ("vmap sizes", lambda: numjax.vmap(lambda x, y, z, w: x)(
        jnp.ones(2), jnp.ones(3), jnp.ones(3), jnp.ones(2)),
     ValueError, "vmap got inconsistent sizes for array axes to be mapped:\n"
                 "  * most axes (2 of them) had size 2, e.g. axis 0 of argument x of type "
                 "float32[2];\n  * some axes (2 of them) had size 3, e.g. axis 0 of argument y "
                 "of type float32[3]"),
    ("vmap sizes 705", lambda: numjax.vmap(lambda x, y, z: x, in_axes=(0, 1, 0))(
        jnp.ones((10, 4)), jnp.ones((10, 2)), jnp.ones((10, 3))),
     ValueError, "vmap got inconsistent sizes for array axes to be mapped:\n"
                 "  * most axes (2 of them) had size 10, e.g. axis 0 of argument x of type "
                 "float32[10,4];\n  * one axis had size 2: axis 1 of argument y of type "
                 "float32[10,2]"),
    ("jvp empty tangents", lambda: numjax.jvp(lambda x, y: x * y, (np.float32(2),), ()),
     TypeError, "primal and tangent arguments to jax.jvp must have the same tree structure; "
                "primals have tree structure PyTreeDef((*,)) whereas tangents have tree "
                "structure PyTreeDef(())."),
    ("jvp tuple and list", lambda: numjax.jvp(lambda x: x, (np.float32(2),), [np.float32(2)]),
     TypeError, "primal and tangent arguments to jax.jvp must have the same tree structure; "
                "primals have tree structure PyTreeDef((*,)) whereas tangents have tree "
                "structure PyTreeDef([*])."),
    ("vjp cotangent dtype", lambda: numjax.vjp(lambda x, y: x * y, np.float32(3),
                                               np.float32(4))[1](np.float16(7)),
     ValueError, _VJP_TYPE),
]


@pytest.mark.parametrize("call, error, message", [row[1:] for row in CHECKS],
                         ids=[row[0] for row in CHECKS])
def test_transformation_argument_checks(call: Callable[[], Any], error: type[Exception],
                                        message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_vjp_cotangents_of_integer_outputs() -> None:
    # JAX 0.4.30: an integer or boolean output's cotangent may have any dtype of its shape.
    _, pullback = numjax.vjp(lambda x: (x * 2, x > 0), 3.0)
    for ct_bool in (np.zeros((), numjax.dtypes.float0), jnp.int32(0), True):
        (ct,) = pullback((1.0, ct_bool))
        assert float(ct) == 2.0
    _, pullback = numjax.vjp(lambda x: (jnp.sin(x), jnp.argmax(x)), jnp.ones(3))
    (ct,) = pullback((jnp.ones(3), jnp.int32(0)))
    np.testing.assert_allclose(ct, np.cos(np.ones(3)), rtol=1e-6)


# ---- custom_jvp / custom_vjp rule outputs ---------------------------------------------------


def _scan_apply(f: Callable[..., Any], x: Any) -> Any:
    y, _ = lax.scan(lambda c, _: (f(c), None), x, None, length=1)
    return y


def _custom_jvp_with_rule(primal_out: Callable[[Any], Any]) -> Any:
    @numjax.custom_jvp
    def f(x: Any) -> Any:
        return x

    @f.defjvp
    def f_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        out = primal_out(x)
        return out, numjax.tree_util.tree_map(lambda _: t, out)

    return f


def _custom_vjp_with_fwd(primal_out: Callable[[Any], Any]) -> Any:
    @numjax.custom_vjp
    def g(x: Any) -> Any:
        return x

    def g_fwd(x: Any) -> Any:
        return primal_out(x), None

    g.defvjp(g_fwd, lambda _, y: (y,))
    return g


_JVP_HEAD = ("Custom JVP rule f_jvp for function f must produce a pair (list or tuple of length "
             "two) where the first element represents the primal output (equal in value to the "
             "output of the custom_jvp-decorated function f, and in particular ")
_FWD_HEAD = ("Custom VJP fwd rule g_fwd for function g must produce a pair (list or tuple of "
             "length two) where the first element represents the primal output (equal to the "
             "output of the custom_vjp-decorated function g) and the second element represents "
             "residuals (i.e. values stored from the forward pass for use on the backward "
             "pass), but ")
# (rule kind, the rule's primal output, JAX 0.4.30's TypeError text)
RULE_OUTPUTS: list[tuple[str, Callable[[Any], Any], str]] = [
    ("jvp", lambda x: (x, x), _JVP_HEAD + "of the same container/pytree structure), but instead "
     "the JVP rule output's first element had container/pytree structure:\n"
     "    (float32[], float32[])\nwhile the custom_jvp-decorated function f had output "
     "container/pytree structure:\n    float32[]."),
    ("jvp", lambda x: jnp.zeros((3,), x.dtype), _JVP_HEAD + "with leaves of the same "
     "shape/dtype), but instead the JVP rule output's first element had shapes/dtypes of:\n"
     "    float32[3]\nwhile the custom_jvp-decorated function f had output shapes/dtypes of:\n"
     "    float32[]"),
    ("vjp", lambda x: (x, x), _FWD_HEAD + "instead the fwd rule output's first element had "
     "container/pytree structure:\n    (float32[], float32[])\nwhile the "
     "custom_vjp-decorated function g had output container/pytree structure:\n    float32[]."),
    ("vjp", lambda x: jnp.zeros((3,), x.dtype), _FWD_HEAD + "instead the fwd rule output's "
     "first element had shapes/dtypes of:\n    float32[3]\nwhile the custom_vjp-decorated "
     "function g had output shapes/dtypes of:\n    float32[]"),
]


@pytest.mark.parametrize("kind, primal_out, message", RULE_OUTPUTS)
def test_custom_rule_primal_output_checked_against_the_function(
        kind: str, primal_out: Callable[[Any], Any], message: str) -> None:
    # Under scan the decorated function is traced first, so its output type is known.
    x = jnp.float32(1.0)
    if kind == "jvp":
        f = _custom_jvp_with_rule(primal_out)
        call = lambda: numjax.jvp(lambda x: _scan_apply(f, x), (x,), (x,))
    else:
        g = _custom_vjp_with_fwd(primal_out)
        call = lambda: numjax.grad(lambda x: _scan_apply(g, x))(x)
    with pytest.raises(TypeError, match=re.escape(message)):
        call()


@numjax.tree_util.register_pytree_node_class
class _Box:
    def __init__(self, x: Any) -> None:
        self.x = x

    def tree_flatten(self) -> tuple[list[Any], None]:
        return [self.x], None

    @classmethod
    def tree_unflatten(cls, _: Any, xs: Any) -> _Box:
        return cls(*xs)


def test_custom_vjp_bwd_leaf_for_a_one_leaf_node() -> None:
    # JAX 0.4.30 takes a bwd rule's leaf as the cotangent of a whole argument (a node holding
    # one array): grad wrt the box is a box of y * g.
    @numjax.custom_vjp
    def f(box: Any, y: Any) -> Any:
        return box.x * y

    f.defvjp(lambda box, y: (f(box, y), (box, y)), lambda res, g: (res[1] * g, res[0].x * g))
    box, y = _Box(jnp.array(72.0)), jnp.array(73.0)
    assert float(numjax.grad(f, 0)(box, y).x) == 73.0
    assert float(numjax.grad(f, 1)(box, y)) == 72.0


def test_custom_vjp_bwd_structure_error_names_the_args_tuple() -> None:
    @numjax.custom_vjp
    def g(x: Any) -> Any:
        return x

    g.defvjp(lambda x: (x, None), lambda _, ct: (ct, ct))
    with pytest.raises(TypeError, match=re.escape(
            "but got bwd output structure PyTreeDef((*, *)) for primal input structure "
            "PyTreeDef((*,)).")):
        numjax.grad(g)(1.0)


# ---- copies, jit options, default_device ----------------------------------------------------


def test_copy_and_deepcopy_of_arrays_and_tracers() -> None:
    import copy

    a = jnp.ones(2)
    for c in (copy.copy(a), copy.deepcopy(a), copy.deepcopy([a])[0]):
        assert c is not a
        np.testing.assert_array_equal(c, a)
    # JAX: deepcopy of a tracer under jit or grad works (a copy); before, pickling was tried.
    assert numjax.jit(lambda x: copy.deepcopy(x) * 2)(1) == 2
    assert numjax.grad(lambda x: copy.deepcopy(x) * 3.0)(1.0) == 3.0


class _NoSignature:
    @property
    def __signature__(self) -> Any:
        raise ValueError("no signature")

    def __call__(self, x: Any) -> Any:
        return x


def test_donate_argnames_needs_a_signature() -> None:
    fun = _NoSignature()
    with pytest.raises(ValueError, match=re.escape(
            f"Getting the signature of function {fun} failed. Pass donate_argnums instead of "
            "donate_argnames.")):
        numjax.jit(fun, donate_argnames="x")
    assert numjax.jit(fun, donate_argnums=0)(jnp.ones(2)).shape == (2,)


@pytest.mark.parametrize("value", ["cpu", 1])
def test_default_device_takes_a_device(value: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(
            "jax.default_device must be passed a Device object (e.g. `jax.devices('cpu')[0]`), "
            f"got: {value!r}")):
        with numjax.default_device(value):
            pass
    with numjax.default_device(numjax.devices()[0]):
        assert numjax.jit(lambda x: x + 1)(1) == 2


# ---- escaped tracers ------------------------------------------------------------------------


_LEAKED: dict[str, Any] = {}


def _save(x: Any) -> Any:
    _LEAKED["x"] = x
    return x


def test_escaped_tracer_from_eval_shape_names_jit() -> None:
    # JAX traces eval_shape as a jitted function: its errors say "for jit".
    numjax.eval_shape(_save, 1)
    with pytest.raises(numjax.errors.UnexpectedTracerError, match="traced for jit"):
        _LEAKED["x"] + 1


def test_leaked_tracer_passed_to_jit() -> None:
    # A tracer of a finished trace passed to a jitted function outside any transformation is
    # JAX's UnexpectedTracerError, not a conversion error.
    numjax.jit(_save)(0.0)
    with pytest.raises(numjax.errors.UnexpectedTracerError,
                       match="Encountered an unexpected tracer"):
        numjax.jit(lambda x: x)(_LEAKED["x"])


def test_escaped_tracer_names_the_line_that_made_it() -> None:
    count: Any = 1

    def body(carry: Any, _: Any) -> Any:
        nonlocal count
        count = jnp.add(count, 1)
        return carry, None

    lax.scan(body, None, None, length=2)
    with pytest.raises(numjax.errors.UnexpectedTracerError) as info:
        numjax.jit(jnp.add)(jnp.ones(()), count)
    text = str(info.value)
    rule = "-" * 30
    assert "traced for scan.\n" + rule + "\nThe leaked intermediate value was created on line " \
        in text
    # The function by its qualified name, as JAX names it.
    assert f"({body.__qualname__}). \n" + rule + "\nWhen the value was created, the final 5 " \
        "stack frames (most recent last) excluding JAX-internal frames were:\n" + rule + "\n" \
        in text


# ---- weak types of jvp tangents -------------------------------------------------------------

_W, _S = jnp.full(3, 0.5), jnp.ones(3) * 0.5  # a weakly typed and a strongly typed float32
# (function, JAX 0.4.30's (primal weak, tangent weak) for the (primal, tangent) pairs
# (weak, strong), (strong, weak), (weak, weak), (strong, strong), eager and under jit alike).
# JAX's jnp functions are jitted: inside, a tangent takes its primal's type, so after a jnp
# function's promotion the tangent is as weak as the result; lax functions keep the tangent's.
JVP_WEAK_TYPES: list[tuple[str, Callable[[Any], Any], list[tuple[bool, bool]]]] = [
    ("x + x / 3.", lambda x: x + x / 3.0, [(True, True), (False, False)] + [(True, True),
                                                                        (False, False)]),
    ("jnp.sin", jnp.sin, [(True, True), (False, False), (True, True), (False, False)]),
    ("jnp.sum", jnp.sum, [(False, False)] * 4),
    ("jnp.cumsum", jnp.cumsum, [(False, False)] * 4),
    ("jnp.where", lambda x: jnp.where(x > 0, x, 0.0),
     [(True, True), (False, False), (True, True), (False, False)]),
    ("jnp.dot", lambda x: jnp.dot(x, x), [(True, True), (False, False), (True, True),
                                          (False, False)]),
    ("x * 2", lambda x: x * 2, [(True, True), (False, False), (True, True), (False, False)]),
    ("jnp.clip", lambda x: jnp.clip(x, 0.0, 1.0),
     [(True, True), (False, False), (True, True), (False, False)]),
    ("x[1:]", lambda x: x[1:], [(True, False), (False, True), (True, True), (False, False)]),
    ("lax.add", lambda x: lax.add(x, x), [(True, False), (False, True), (True, True),
                                          (False, False)]),
    ("lax.sin", lax.sin, [(True, False), (False, False), (True, True), (False, False)]),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name, fun, expected", JVP_WEAK_TYPES,
                         ids=[row[0] for row in JVP_WEAK_TYPES])
def test_jvp_tangent_weak_types(name: str, fun: Callable[[Any], Any],
                                expected: list[tuple[bool, bool]], jit: bool) -> None:
    def jvp(p: Any, t: Any) -> Any:
        return numjax.jvp(fun, (p,), (t,))

    run = numjax.jit(jvp) if jit else jvp
    got = []
    for p, t in [(_W, _S), (_S, _W), (_W, _W), (_S, _S)]:
        primal, tangent = run(p, t)
        got.append((primal.weak_type, tangent.weak_type))
    assert got == expected


def test_jvp_tangent_values_unchanged_by_weak_types() -> None:
    p, t = numjax.jvp(lambda x: x + x / 3.0, (jnp.full(2, 6.0),), (jnp.ones(2),))
    assert repr(p) == "Array([8., 8.], dtype=float32, weak_type=True)"
    assert repr(t) == "Array([1.3333334, 1.3333334], dtype=float32, weak_type=True)"


def test_custom_jvp_integer_output_tangent_is_float0() -> None:
    # JAX 0.4.30: whatever the rule returns for an integer output, its tangent is float0.
    @numjax.custom_jvp
    def f(x: Any, y: Any) -> Any:
        return x, y

    f.defjvp(lambda primals, _: (primals, (2.0, 1)))
    float0 = numjax.dtypes.float0
    for run in (lambda: numjax.jvp(f, (2.0, 3), (np.ones(()), np.zeros((), float0))),
                lambda: numjax.jit(lambda a, b: numjax.jvp(
                    f, (a, 3), (b, np.zeros((), float0))))(2.0, 1.0)):
        _, (t_x, t_y) = run()
        assert float(t_x) == 2.0
        assert t_y.dtype == float0 and t_y.shape == ()


def test_jacrev_with_respect_to_an_integer_input() -> None:
    # JAX 0.4.30: the float0 cotangent becomes weakly typed int32 zeros of the input's type.
    jac_x, jac_i = numjax.jacrev(lambda x, i: x * 2, argnums=(0, 1), allow_int=True)(1.0, 1)
    assert repr(jac_x) == "Array(2., dtype=float32, weak_type=True)"
    assert repr(jac_i) == "Array(0, dtype=int32, weak_type=True)"
    jac_x, jac_i = numjax.jacrev(lambda x, i: x * 2, argnums=(0, 1), allow_int=True)(
        jnp.ones(2), jnp.ones(3, int))
    assert (jac_x.shape, jac_x.dtype, jac_i.shape, jac_i.dtype) == (
        (2, 2), np.float32, (2, 3), np.int32)
    np.testing.assert_array_equal(jac_i, np.zeros((2, 3)))


@pytest.mark.parametrize("axis_name, message", [
    ("foo", "vmap has mapped output (axis_name='foo') but out_axes is None"),
    (None, "vmap has mapped output but out_axes is None"),
])
def test_vmap_mapped_output_with_out_axes_none(axis_name: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        numjax.vmap(lambda x: x, out_axes=None, axis_name=axis_name)(jnp.array([1.0, 2.0]))
    assert numjax.vmap(lambda x: 3.0, out_axes=None, axis_name=axis_name)(jnp.ones(2)) == 3.0


# ---- conversions to Python values -----------------------------------------------------------

_INDEX = (TypeError, "Only integer scalar arrays can be converted to a scalar index.")
_SCALAR = (TypeError, "Only scalar arrays can be converted to Python scalars; got arr.ndim=1")
_EMPTY = (ValueError, "The truth value of an empty array is ambiguous. Use `array.size > 0` to "
                      "check that an array is not empty.")
_MANY = (ValueError, "The truth value of an array with more than one element is ambiguous. Use "
                     "a.any() or a.all()")
# (conversion, operand, JAX 0.4.30's error eagerly and under jit, None: no error). JAX checks
# shape and dtype before converting, so a tracer fails as an array of its type does.
CONVERSIONS: list[tuple[str, Callable[[Any], Any], Any, Any, Any]] = [
    ("index int vector", operator_index := __import__("operator").index, jnp.arange(10),
     _INDEX, _INDEX),
    ("index empty", operator_index, jnp.arange(0), _INDEX, _INDEX),
    ("index float", operator_index, jnp.float32(0), _INDEX, _INDEX),
    ("index bool", operator_index, jnp.bool_(True), _INDEX, _INDEX),
    ("hex int vector", hex, jnp.arange(10), _INDEX, _INDEX),
    ("index int", operator_index, jnp.int32(3), None,
     (numjax.errors.TracerIntegerConversionError, "The __index__() method was called on traced "
                                                  "array with shape int32[]")),
    ("int vector", int, jnp.arange(10), _SCALAR, _SCALAR),
    ("float size 1", float, jnp.arange(1, dtype="float32"), _SCALAR, _SCALAR),
    ("complex vector", complex, jnp.arange(10), _SCALAR, _SCALAR),
    ("int scalar", int, jnp.int32(3), None,
     (numjax.errors.ConcretizationTypeError, "Abstract tracer value encountered where concrete "
                                             "value is expected: traced array with shape "
                                             "int32[]")),
    ("bool empty", bool, jnp.arange(0), _EMPTY, _EMPTY),
    ("bool vector", bool, jnp.arange(10), _MANY, _MANY),
    ("bool size 1", bool, jnp.arange(1, dtype="float32"), None,
     (numjax.errors.TracerBoolConversionError, "Attempted boolean conversion of traced array "
                                               "with shape float32[1].")),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("convert, x, eager_error, jit_error", [row[1:] for row in CONVERSIONS],
                         ids=[row[0] for row in CONVERSIONS])
def test_conversions_to_python_values(convert: Callable[[Any], Any], x: Any, eager_error: Any,
                                      jit_error: Any, jit: bool) -> None:
    error = jit_error if jit else eager_error
    run = numjax.jit(convert) if jit else convert
    if error is None:
        run(x)
        return
    with pytest.raises(error[0], match=re.escape(error[1])):
        run(x)


def test_split_with_no_indices() -> None:
    # JAX 0.4.30: an empty list of split points gives the whole array (ravel_pytree's unravel
    # of a one-leaf tree splits at none); float split points stay refused.
    for spec in ([], np.array([], int)):
        (piece,) = jnp.split(jnp.arange(4), spec)
        np.testing.assert_array_equal(piece, np.arange(4))
    with pytest.raises(TypeError):
        jnp.split(jnp.arange(4), np.array([1.0]))


def test_package_is_its_own_jax_attribute() -> None:
    # JAX 0.4.30: `jax.jax is jax` (numpyro's tests call `jax.jax.tree.map`).
    package: Any = numjax.jax
    assert package is numjax
    assert package.tree.map(lambda x: x + 1, [1, 2]) == [2, 3]


def test_every_lax_function_has_a_docstring() -> None:
    # The wrappers users call say what they compute (a ratchet: a new one comes with its text).
    undocumented = sorted(
        name for name in dir(lax) if not name.startswith("_")
        and isinstance(getattr(lax, name), types.FunctionType)
        and getattr(lax, name).__module__.startswith("numjax._src")
        and not (getattr(lax, name).__doc__ or "").strip())
    assert undocumented == []

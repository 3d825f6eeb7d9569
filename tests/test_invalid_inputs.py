"""Values that are not arrays (objects, strings, bytes, None, containers of them, NumPy
arrays of strings or objects) raise JAX 0.4.30's exception types and texts at every entry point:
jit and the staged functions (`Cannot interpret value of type ...`), grad/vjp and the Jacobians
(`Argument '...' of type ... is not a valid JAX type.`), jvp (`Cannot determine dtype of ...`),
vmap (a rank error from NumPy's shape of the value), eager lax functions (as JAX's jitted
primitive), the jnp functions JAX compiles, and the outputs of traced functions. The texts were
recorded from JAX 0.4.30; `Obj` has a fixed repr and module so that they are reproducible."""

from __future__ import annotations

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import lax


class Obj:
    def __repr__(self) -> str:
        return "<Obj>"


Obj.__module__ = "user"


def ident(x):
    return x


def custom_jvp_of(f):
    g = numjax.custom_jvp(f)
    g.defjvp(lambda primals, tangents: (f(*primals), tangents[0]))
    return g


def custom_vjp_of(f):
    g = numjax.custom_vjp(f)
    g.defvjp(lambda x: (f(x), None), lambda res, ct: (ct,))
    return g


def scatter_add_into(x):
    dn = lax.ScatterDimensionNumbers((), (0,), (0,))
    return lax.scatter_add(x, jnp.zeros((1, 1), jnp.int32), jnp.ones(1), dn)


# (case, call, exception type, JAX's message)
CASES = [
    ('jit obj', lambda: numjax.jit(ident)(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jit str', lambda: numjax.jit(ident)('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jit bytes', lambda: numjax.jit(ident)(b'ab'), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jit str array', lambda: numjax.jit(ident)(np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('jit keyword obj', lambda: numjax.jit(lambda x, y: x)(1.0, y=Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jit dict leaf', lambda: numjax.jit(ident)({'a': [1.0, Obj()]}), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jit numpy str scalar', lambda: numjax.jit(ident)(np.str_('a')), TypeError,
     "Argument 'a' of type <class 'numpy.str_'> is not a valid JAX type."),
    ('jit output obj', lambda: numjax.jit(lambda x: Obj())(1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('jit output str', lambda: numjax.jit(lambda x: 'abc')(1.0), TypeError,
     "Value 'abc' with type <class 'str'> is not a valid JAX type"),
    ('jit output str array', lambda: numjax.jit(lambda x: np.array(['a', 'b']))(1.0), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('grad obj', lambda: numjax.grad(ident)(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('grad str', lambda: numjax.grad(ident)('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type."),
    ('grad bytes', lambda: numjax.grad(ident)(b'ab'), TypeError,
     "Argument 'b'ab'' of type <class 'bytes'> is not a valid JAX type."),
    ('grad str array', lambda: numjax.grad(ident)(np.array(['a', 'b'])), TypeError,
     "Argument '['a' 'b']' of type <class 'numpy.ndarray'> is not a valid JAX type."),
    ('grad list leaf', lambda: numjax.grad(ident)([Obj()]), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('grad dict leaf', lambda: numjax.grad(ident)({'a': 1.0, 'b': Obj()}), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('grad argnums 1', lambda: numjax.grad(lambda x, y: x, argnums=1)(1.0, Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('value_and_grad obj', lambda: numjax.value_and_grad(ident)(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('vjp obj', lambda: numjax.vjp(ident, Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('vjp str array', lambda: numjax.vjp(ident, np.array(['a', 'b'])), TypeError,
     "Argument '['a' 'b']' of type <class 'numpy.ndarray'> is not a valid JAX type."),
    ('jacfwd obj', lambda: numjax.jacfwd(ident)(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('jacrev str', lambda: numjax.jacrev(ident)('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type."),
    ('hessian obj', lambda: numjax.hessian(ident)(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('jacfwd none', lambda: numjax.jacfwd(ident)(None), ValueError,
     'at least one array or dtype is required'),
    ('jacrev output none', lambda: numjax.jacrev(lambda x: None)(1.0), ValueError,
     'at least one array or dtype is required'),
    ('checkpoint grad obj', lambda: numjax.grad(numjax.checkpoint(ident))(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('grad output obj', lambda: numjax.grad(lambda x: Obj())(1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('grad output none', lambda: numjax.grad(lambda x: None)(1.0), TypeError,
     'Gradient only defined for scalar-output functions. Output was None.'),
    ('grad output list', lambda: numjax.grad(lambda x: [1.0, 2.0])(1.0), TypeError,
     'Gradient only defined for scalar-output functions. Output was [1.0, 2.0].'),
    ('grad output vector', lambda: numjax.grad(lambda x: jnp.ones(3) * x)(1.0), TypeError,
     'Gradient only defined for scalar-output functions. Output had shape: (3,).'),
    ('grad output int', lambda: numjax.grad(lambda x: 1)(1.0), TypeError,
     'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but '
     'got int32. For differentiation of functions with integer outputs, use jax.vjp directly.'),
    ('grad output complex', lambda: numjax.grad(lambda x: x * 1j)(1.0), TypeError,
     'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but '
     'got complex64. For holomorphic differentiation, pass holomorphic=True. For differentiation '
     'of non-holomorphic functions involving complex outputs, use jax.vjp directly.'),
    ('jacrev output int',
     lambda: numjax.jacrev(lambda x: jnp.ones(2, int))(jnp.ones(2)),
     TypeError,
     'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but '
     'got int32. For differentiation of functions with integer outputs, use jax.vjp directly.'),
    ('grad has_aux float', lambda: numjax.grad(lambda x: 3.0, has_aux=True)(1.0), TypeError,
     "expected function with aux output to return a two-element tuple, but got type <class "
     "'float'> with value 3.0"),
    ('grad has_aux triple',
     lambda: numjax.grad(lambda x: (1.0, 2.0, 3.0), has_aux=True)(1.0),
     TypeError,
     "expected function with aux output to return a two-element tuple, but got type <class "
     "'tuple'> with value (1.0, 2.0, 3.0)"),
    ('jvp primal obj', lambda: numjax.jvp(ident, (Obj(),), (1.0,)), TypeError,
     'Cannot determine dtype of <Obj>'),
    ('jvp tangent obj', lambda: numjax.jvp(ident, (1.0,), (Obj(),)), TypeError,
     'Cannot determine dtype of <Obj>'),
    ('jvp primal str', lambda: numjax.jvp(ident, ('abc',), (1.0,)), TypeError,
     'Cannot determine dtype of abc'),
    ('jvp primal str array', lambda: numjax.jvp(ident, (np.array(['a', 'b']),), (1.0,)), TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     "types are supported by JAX."),
    ('jvp int tangent', lambda: numjax.jvp(ident, (1,), (1,)), TypeError,
     "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of "
     "int/bool primal dtype the tangent dtype must be float0.Got primal dtype int32 and so "
     "expected tangent dtype [('float0', 'V')], but got tangent dtype int32 instead."),
    ('jvp output obj', lambda: numjax.jvp(lambda x: Obj(), (1.0,), (1.0,)), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('linearize obj', lambda: numjax.linearize(ident, Obj()), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('linearize str array', lambda: numjax.linearize(ident, np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('vmap obj', lambda: numjax.vmap(ident)(Obj()), ValueError,
     'vmap was requested to map its argument along axis 0, which implies that its rank should be '
     'at least 1, but is only 0 (its shape is ())'),
    ('vmap str', lambda: numjax.vmap(ident)('abc'), ValueError,
     'vmap was requested to map its argument along axis 0, which implies that its rank should be '
     'at least 1, but is only 0 (its shape is ())'),
    ('vmap list leaf', lambda: numjax.vmap(ident)([Obj()]), ValueError,
     'vmap was requested to map its argument along axis 0, which implies that its rank should be '
     'at least 1, but is only 0 (its shape is ())'),
    ('vmap keyword str', lambda: numjax.vmap(ident)(x='a'), ValueError,
     'vmap was requested to map its argument along axis 0, which implies that its rank should be '
     'at least 1, but is only 0 (its shape is ())'),
    ('vmap none', lambda: numjax.vmap(ident)(None), ValueError,
     'vmap wrapped function must be passed at least one argument containing an array, got empty '
     '*args=(None,) and **kwargs={}'),
    ('vmap no arguments', lambda: numjax.vmap(lambda: 1.0)(), ValueError,
     'vmap wrapped function must be passed at least one argument containing an array, got empty '
     '*args=() and **kwargs={}'),
    ('vmap str array output', lambda: numjax.vmap(ident)(np.array(['a', 'b'])), TypeError,
     "Output from batched function array(['a', 'b'], dtype='<U1') with type <class "
     "'numpy.ndarray'> is not a valid JAX type"),
    ('vmap str array used', lambda: numjax.vmap(lambda x: x + 1)(np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('vmap output obj', lambda: numjax.vmap(lambda x: Obj())(jnp.ones(2)), TypeError,
     "Output from batched function <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('vmap inconsistent sizes',
     lambda: numjax.vmap(lambda a, b: a)(np.array(['a', 'b']), jnp.ones(3)),
     ValueError,
     'vmap got inconsistent sizes for array axes to be mapped:\n  * one axis had size 2: axis 0 '
     'of argument a of type unknown;\n  * one axis had size 3: axis 0 of argument b of type '
     'float32[3]'),
    ('eval_shape obj', lambda: numjax.eval_shape(ident, Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('eval_shape str', lambda: numjax.eval_shape(ident, 'abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('eval_shape str array', lambda: numjax.eval_shape(ident, np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('eval_shape output obj', lambda: numjax.eval_shape(lambda x: Obj(), 1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('make_jaxpr obj', lambda: numjax.make_jaxpr(ident)(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('make_jaxpr bytes', lambda: numjax.make_jaxpr(ident)(b'ab'), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('make_jaxpr object array',
     lambda: numjax.make_jaxpr(ident)(np.array([Obj(), Obj()], dtype=object)),
     TypeError,
     'Dtype object is not a valid JAX array type. Only arrays of numeric types are supported by '
     'JAX.'),
    ('checkpoint obj', lambda: numjax.checkpoint(ident)(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('checkpoint output obj', lambda: numjax.checkpoint(lambda x: Obj())(1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('device_put obj', lambda: numjax.device_put(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('device_put str', lambda: numjax.device_put('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('device_put dict leaf', lambda: numjax.device_put({'a': Obj()}), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('device_put str array', lambda: numjax.device_put(np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('device_put big-endian', lambda: numjax.device_put(np.ones(2, '>f4')), TypeError,
     'Dtype >f4 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('device_put numpy str scalar', lambda: numjax.device_put(np.str_('a')), TypeError,
     "Argument 'a' of type <class 'numpy.str_'> is not a valid JAX type"),
    ('custom_jvp output obj', lambda: custom_jvp_of(lambda x: Obj())(1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('custom_jvp output str array',
     lambda: custom_jvp_of(lambda x: np.array(['a']))(1.0),
     TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('custom_vjp operand obj', lambda: custom_vjp_of(lambda x: 1.0)(Obj()), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('custom_jvp grad obj', lambda: numjax.grad(custom_jvp_of(ident))(Obj()), TypeError,
     "Argument '<Obj>' of type <class 'user.Obj'> is not a valid JAX type."),
    ('custom_jvp jvp obj', lambda: numjax.jvp(custom_jvp_of(ident), (1.0,), (Obj(),)), TypeError,
     'Cannot determine dtype of <Obj>'),
    ('cond operand obj', lambda: lax.cond(True, ident, ident, Obj()), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('cond operand str array',
     lambda: lax.cond(True, ident, ident, np.array(['a', 'b'])),
     TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('cond output obj', lambda: lax.cond(True, lambda x: Obj(), lambda x: Obj(), 1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('while init str array',
     lambda: lax.while_loop(lambda c: False, ident, np.array(['a', 'b'])),
     TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('scan xs object array',
     lambda: lax.scan(lambda c, x: (c, x), 0.0, np.array([Obj(), Obj()], dtype=object)),
     TypeError,
     'Dtype object is not a valid JAX array type. Only arrays of numeric types are supported by '
     'JAX.'),
    ('lax.add obj', lambda: lax.add(Obj(), 1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.add str', lambda: lax.add(1.0, 'abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('lax.add bytes', lambda: lax.add(b'ab', 1.0), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.add str array', lambda: lax.add(np.array(['a', 'b']), 1.0), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('lax.add list', lambda: lax.add([1.0, 2.0], 1.0), TypeError,
     "Value [Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>, "
     "Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>] with "
     "type <class 'list'> is not a valid JAX type"),
    ('lax.add tuple of str', lambda: lax.add((1.0, 's'), 1.0), TypeError,
     "Argument 's' of type <class 'str'> is not a valid JAX type"),
    ('lax.sin dict leaf', lambda: lax.sin({'a': 1.0, 'b': Obj()}), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.add none', lambda: lax.add(None, 1.0), TypeError,
     "Value None with type <class 'NoneType'> is not a valid JAX type"),
    ('lax.reshape obj', lambda: lax.reshape(Obj(), (1,)), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.broadcast_in_dim str', lambda: lax.broadcast_in_dim('abc', (2,), ()), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('lax.squeeze list', lambda: lax.squeeze([1.0, 2.0], ()), TypeError,
     "Value [Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>, "
     "Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace(level=1/0)>] with "
     "type <class 'list'> is not a valid JAX type"),
    ('lax.argmax obj', lambda: lax.argmax(Obj(), 0, jnp.int32), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.clamp obj', lambda: lax.clamp(0.0, Obj(), 1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.convert_element_type obj',
     lambda: lax.convert_element_type(Obj(), jnp.float32),
     TypeError,
     'Cannot determine dtype of <Obj>'),
    ('lax.convert_element_type none',
     lambda: lax.convert_element_type(None, jnp.float32),
     ValueError,
     'Invalid argument to dtype: None.'),
    ('lax.convert_element_type list',
     lambda: lax.convert_element_type([1.0, 2.0], jnp.float32),
     TypeError,
     'Cannot determine dtype of [1.0, 2.0]'),
    ('lax.convert_element_type str array',
     lambda: lax.convert_element_type(np.array(['a', 'b']), jnp.float32),
     TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     "types are supported by JAX."),
    ('lax.full_like obj', lambda: lax.full_like(Obj(), 1.0), TypeError,
     'Cannot determine dtype of <Obj>'),
    ('lax.dot obj', lambda: lax.dot(Obj(), jnp.ones(2)), AttributeError,
     "'Obj' object has no attribute 'ndim'"),
    ('lax.slice_in_dim none', lambda: lax.slice_in_dim(None, 0, 1), AttributeError,
     "'NoneType' object has no attribute 'ndim'"),
    ('lax.index_in_dim obj', lambda: lax.index_in_dim(Obj(), 0), AttributeError,
     "'Obj' object has no attribute 'shape'"),
    ('lax.dynamic_slice list', lambda: lax.dynamic_slice([1.0, 2.0], (0,), (1,)), AttributeError,
     "'list' object has no attribute 'ndim'"),
    ('lax.sort obj', lambda: lax.sort(Obj()), AttributeError,
     "'Obj' object has no attribute 'shape'"),
    ('lax.sort str', lambda: lax.sort('abc'), AttributeError,
     "'str' object has no attribute 'shape'"),
    ('lax.reduce tree', lambda: lax.reduce([1.0, 2.0], 0.0, lax.add, (0,)), ValueError,
     'Operands must have the same tree structure as init_values: PyTreeDef([*, *]) vs. '
     'PyTreeDef(*)'),
    ('lax.reduce obj', lambda: lax.reduce(Obj(), 0.0, lax.add, (0,)), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.reduce_window tree',
     lambda: lax.reduce_window(None, 0.0, lax.add, (1,), (1,), 'VALID'),
     ValueError,
     'Operands must have the same tree structure as init_values: PyTreeDef(None) vs. PyTreeDef(*)'),
    ('lax.scatter_add obj', lambda: scatter_add_into(Obj()), TypeError,
     'Cannot determine dtype of <Obj>'),
    ('lax.fft obj', lambda: lax.fft(Obj(), 'FFT', (2,)), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('lax.psum obj',
     lambda: numjax.vmap(lambda y: lax.psum(Obj(), 'i'), axis_name='i')(jnp.ones(2)),
     TypeError,
     'Cannot determine dtype of <Obj>'),
    ('lax.add under jit', lambda: numjax.jit(lambda x: lax.add(x, Obj()))(1.0), TypeError,
     "Value <Obj> with type <class 'user.Obj'> is not a valid JAX type"),
    ('jnp.add obj', lambda: jnp.add(Obj(), 1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.add str', lambda: jnp.add(1.0, 'abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.add str array', lambda: jnp.add(np.array(['a', 'b']), 1.0), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by JAX.'),
    ('jnp.add list', lambda: jnp.add([1.0, 2.0], 1.0), TypeError,
     "add requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.add list of obj', lambda: jnp.add([Obj()], 1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.add under grad', lambda: numjax.grad(lambda x: jnp.add(x, Obj()))(1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.sin bytes', lambda: jnp.sin(b'ab'), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.sin tuple of str', lambda: jnp.sin((1.0, 's')), TypeError,
     "Argument 's' of type <class 'str'> is not a valid JAX type"),
    ('jnp.sum obj', lambda: jnp.sum(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.sum str', lambda: jnp.sum('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.dot obj', lambda: jnp.dot(Obj(), 1.0), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.matmul str', lambda: jnp.matmul('abc', jnp.ones(2)), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.where obj', lambda: jnp.where(True, Obj(), 1.0), TypeError,
     "where requires ndarray or scalar arguments, got <class 'user.Obj'> at position 1."),
    ('jnp.clip obj', lambda: jnp.clip(Obj(), 0, 1), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have a "
     "dtype attribute"),
    ('jnp.maximum none', lambda: jnp.maximum(None, 1.0), TypeError,
     "maximum requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.isclose list', lambda: jnp.isclose([1.0], 1.0), TypeError,
     "isclose requires ndarray or scalar arguments, got <class 'list'> at position 0."),
]


@pytest.mark.parametrize("case,call,error,message", CASES, ids=[c[0] for c in CASES])
def test_invalid_input_raises_jax_error(case, call, error, message):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    assert str(info.value) == message


def test_shape_ndim_size_read_any_value_as_numpy_does():
    # jnp.shape/ndim/size are NumPy's in JAX: they never reject a value.
    strings = np.array([["a", "b"]])
    assert (jnp.shape(strings), jnp.ndim(strings), jnp.size(strings), jnp.size(strings, 1)) \
        == ((1, 2), 2, 2, 2)
    assert (jnp.shape(object()), jnp.shape("abc"), jnp.ndim(None)) == ((), (), 0)
    assert jnp.shape([[1, 2]]) == (1, 2)

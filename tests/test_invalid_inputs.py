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
    # jnp functions whose own code decides: JAX's check names them (or the function they
    # call first), and a string fails as that function reads it.
    ('jnp.sum none', lambda: jnp.sum(None), TypeError,
     "sum requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.mean list', lambda: jnp.mean([1.0, 2.0]), TypeError,
     "mean requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.argmax dict', lambda: jnp.argmax({'a': 1.0}), TypeError,
     "argmax requires ndarray or scalar arguments, got <class 'dict'> at position 0."),
    ('jnp.std tuple', lambda: jnp.std((1.0, 2.0)), TypeError,
     "std requires ndarray or scalar arguments, got <class 'tuple'> at position 0."),
    ('jnp.reshape obj', lambda: jnp.reshape(Obj(), (-1,)), TypeError,
     "reshape requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.reshape str', lambda: jnp.reshape('abc', (-1,)), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.reshape none', lambda: jnp.reshape(None, (-1,)), TypeError,
     "reshape requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.ravel obj', lambda: jnp.ravel(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.ravel none', lambda: jnp.ravel(None), TypeError,
     "ravel requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.transpose str', lambda: jnp.transpose('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.transpose list', lambda: jnp.transpose([1.0, 2.0]), TypeError,
     "transpose requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.expand_dims bytes', lambda: jnp.expand_dims(b'ab', 0), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     'dtype attribute'),
    ('jnp.flip bytes', lambda: jnp.flip(b'ab'), TypeError,
     "Value 'b'ab'' with dtype |S2 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.fliplr none', lambda: jnp.fliplr(None), TypeError,
     "fliplr requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.squeeze list of obj', lambda: jnp.squeeze([Obj()]), TypeError,
     "squeeze requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.zeros_like obj', lambda: jnp.zeros_like(Obj()), TypeError,
     "zeros_like requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.ones_like str', lambda: jnp.ones_like('abc'), TypeError,
     'Cannot determine dtype of abc'),
    ('jnp.empty_like list', lambda: jnp.empty_like([1.0]), TypeError,
     "empty_like requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.zeros_like str array', lambda: jnp.zeros_like(np.array(['a', 'b'])), TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.full_like fill list', lambda: jnp.full_like(jnp.ones(2), [1.0, 2.0]), TypeError,
     "full_like requires ndarray or scalar arguments, got <class 'list'> at position 1."),
    ('jnp.full fill none', lambda: jnp.full((2,), None), TypeError,
     "full requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.concatenate obj', lambda: jnp.concatenate([jnp.ones(2), Obj()]), TypeError,
     "concatenate requires ndarray or scalar arguments, got <class 'user.Obj'> at position 1."),
    ('jnp.stack none', lambda: jnp.stack([None, None]), TypeError,
     "stack requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.array obj', lambda: jnp.array(Obj()), TypeError,
     "Value '<Obj>' with dtype object is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.array list of obj', lambda: jnp.array([1.0, Obj()]), TypeError,
     "Value '<Obj>' with dtype object is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.asarray str', lambda: jnp.asarray('abc'), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.asarray str array', lambda: jnp.asarray(np.array(['a', 'b'])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by '
     'JAX.'),
    ('jnp.array dict', lambda: jnp.array({'a': 1.0}), TypeError,
     "float() argument must be a string or a real number, not 'dict'"),
    ('jnp.copy list', lambda: jnp.copy([1.0]), TypeError,
     "copy requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.diag obj', lambda: jnp.diag(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.diag list', lambda: jnp.diag([1.0, 2.0]), TypeError,
     "diag requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.tril str', lambda: jnp.tril('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.trace none', lambda: jnp.trace(None), TypeError,
     "trace requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.outer list', lambda: jnp.outer(jnp.ones(2), [1.0]), TypeError,
     "outer requires ndarray or scalar arguments, got <class 'list'> at position 1."),
    ('jnp.linspace none', lambda: jnp.linspace(None, 1.0), TypeError,
     "linspace requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.vdot none second', lambda: jnp.vdot(jnp.ones(2), None), TypeError,
     "vdot requires ndarray or scalar arguments, got <class 'NoneType'> at position 1."),
    ('jnp.vecdot obj', lambda: jnp.vecdot(Obj(), jnp.ones(2)), TypeError,
     "jnp.vecdot requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.tensordot str', lambda: jnp.tensordot('abc', jnp.ones(2)), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.fmax none', lambda: jnp.fmax(None, jnp.ones(2)), TypeError,
     "greater requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.fmin none', lambda: jnp.fmin(jnp.ones(2), None), TypeError,
     "less requires ndarray or scalar arguments, got <class 'NoneType'> at position 1."),
    ('jnp.divmod list', lambda: jnp.divmod(jnp.ones(2), [1.0]), TypeError,
     "divmod requires ndarray or scalar arguments, got <class 'list'> at position 1."),
    ('jnp.allclose none', lambda: jnp.allclose(None, jnp.ones(2)), TypeError,
     "allclose requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.invert none', lambda: jnp.invert(None), TypeError,
     "invert requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.angle none', lambda: jnp.angle(None), TypeError,
     "real requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.iscomplex list', lambda: jnp.iscomplex([1.0]), TypeError,
     "imag requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.isreal none', lambda: jnp.isreal(None), TypeError,
     "imag requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.extract none', lambda: jnp.extract(jnp.ones(2) > 0, None), TypeError,
     "extreact requires ndarray or scalar arguments, got <class 'NoneType'> at position 1."),
    ('jnp.where one arg none', lambda: jnp.where(None), TypeError,
     "where requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.ix_ obj', lambda: jnp.ix_(Obj()), TypeError,
     "ix requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.unique_values obj', lambda: jnp.unique_values(Obj()), TypeError,
     "unique_values requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.unique str', lambda: jnp.unique('abc'), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.tile str', lambda: jnp.tile('abc', 2), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.repeat str', lambda: jnp.repeat('abc', 2), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.broadcast_to str', lambda: jnp.broadcast_to('abc', (2,)), TypeError,
     "asarray: expected ArrayLike, got abc of type <class 'str'>."),
    ('jnp.bincount str', lambda: jnp.bincount('abc'), TypeError,
     'Cannot determine dtype of abc'),
    ('jnp.histogram obj', lambda: jnp.histogram(Obj()), TypeError,
     "histogram requires ndarray or scalar arguments, got <class 'user.Obj'> at position 0."),
    ('jnp.histogram str', lambda: jnp.histogram('abc'), TypeError,
     'Cannot determine dtype of abc'),
    ('jnp.corrcoef none', lambda: jnp.corrcoef(None), TypeError,
     "corrcoef requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.correlate none', lambda: jnp.correlate(jnp.ones(2), None), TypeError,
     "correlate requires ndarray or scalar arguments, got <class 'NoneType'> at position 1."),
    ('jnp.nanstd list', lambda: jnp.nanstd([1.0]), TypeError,
     "nanstd requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.clip none', lambda: jnp.clip(None, 0, 1), ValueError,
     'No input was provided to the clip function.'),
    ('jnp.clip list', lambda: jnp.clip([1.0], 0, 1), TypeError,
     "clip requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.meshgrid list', lambda: jnp.meshgrid([1.0, 2.0]), TypeError,
     "meshgrid requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    ('jnp.arange none', lambda: jnp.arange(None), TypeError,
     "arange requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.linalg.det obj', lambda: jnp.linalg.det(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.linalg.inv str', lambda: jnp.linalg.inv('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.iscomplexobj obj', lambda: jnp.iscomplexobj(Obj()), TypeError,
     "Value '<Obj>' with dtype object is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.array_equal str', lambda: jnp.array_equal('abc', jnp.ones(2)), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
    ('jnp.matrix_transpose none', lambda: jnp.matrix_transpose(None), TypeError,
     "matrix_transpose requires ndarray or scalar arguments, got <class 'NoneType'> at position "
     '0.'),
    ('jnp.zeros obj', lambda: jnp.zeros(Obj()), TypeError,
     'Shapes must be 1D sequences of concrete values of integer type, got (<Obj>,).'),
    ('jnp.zeros bytes', lambda: jnp.zeros(b'ab'), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got (b'ab',)."),
    ('jnp.zeros float list', lambda: jnp.zeros([1.0, 2.0]), TypeError,
     'Shapes must be 1D sequences of concrete values of integer type, got [1.0, 2.0].'),
    ('jnp.ones str array', lambda: jnp.ones(np.array(['a', 'b'])), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got ['a' 'b']."),
    ('jnp.eye none', lambda: jnp.eye(None), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got (None,). 'N' argument "
     'of jnp.eye().'),
    ('jnp.eye list M', lambda: jnp.eye(2, [2]), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got ([2],). 'M' argument "
     'of jnp.eye().'),
    ('jnp.logical_and none', lambda: jnp.logical_and(None, jnp.ones(2)), ValueError,
     'Invalid argument to dtype: None.'),
    ('jnp.logical_or obj', lambda: jnp.logical_or(jnp.ones(2), Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.logical_not none', lambda: jnp.logical_not(None), ValueError,
     'Invalid argument to dtype: None.'),
    ('jnp.isposinf list', lambda: jnp.isposinf([1.0, 2.0]), TypeError,
     'Cannot determine dtype of [1.0, 2.0]'),
    ('jnp.isneginf none', lambda: jnp.isneginf(None), ValueError,
     'Invalid argument to dtype: None.'),
    ('jnp.trim_zeros obj', lambda: jnp.trim_zeros(Obj()), TypeError,
     "Value '<Obj>' with dtype object is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.broadcast_arrays obj', lambda: jnp.broadcast_arrays(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.broadcast_arrays none', lambda: jnp.broadcast_arrays(jnp.ones(2), None), TypeError,
     "broadcast_to requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.argwhere str', lambda: jnp.argwhere('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.where str', lambda: jnp.where(True, 'abc', jnp.ones(2)), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.where none', lambda: jnp.where(True, None, jnp.ones(2)), TypeError,
     "where requires ndarray or scalar arguments, got <class 'NoneType'> at position 1."),
    ('jnp.isin bytes', lambda: jnp.isin(b'ab', jnp.ones(2)), TypeError,
     "Cannot interpret value of type <class 'bytes'> as an abstract array; it does not have a "
     'dtype attribute'),
    ('jnp.fft.fftfreq none', lambda: jnp.fft.fftfreq(None), TypeError,
     'Shapes must be 1D sequences of concrete values of integer type, got (None,).'),
    ('jnp.fft.fftfreq str array', lambda: jnp.fft.fftfreq(np.array(['a', 'b'])), TypeError,
     "Shapes must be 1D sequences of concrete values of integer type, got ['a' 'b']."),
    ('jnp.einsum none', lambda: jnp.einsum('i->', None), ValueError,
     'Cannot determine the shape of None, can only determine the shape of array-like objects.'),
    ('jnp.einsum str', lambda: jnp.einsum('i->', 'abc'), ValueError,
     "Einstein sum subscript 'i' does not contain the correct number of indices for operand 0."),
    ('jnp.einsum list of obj', lambda: jnp.einsum('i->', [Obj()]), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.lexsort obj', lambda: jnp.lexsort(Obj()), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.lexsort str', lambda: jnp.lexsort('abc'), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.matrix_transpose str', lambda: jnp.matrix_transpose('abc'), ValueError,
     'x must be at least two-dimensional for matrix_transpose; got ndim=0'),
    ('jnp.concatenate none', lambda: jnp.concatenate(None), TypeError,
     'Value after * must be an iterable, not NoneType'),
    ('jnp.concatenate strs', lambda: jnp.concatenate(['abc', 'abc']), ValueError,
     'Zero-dimensional arrays cannot be concatenated.'),
    ('jnp.concatenate str array', lambda: jnp.concatenate(np.array([['a', 'b']])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by '
     'JAX.'),
    ('jnp.hstack obj', lambda: jnp.hstack(Obj()), TypeError,
     'Value after * must be an iterable, not Obj'),
    ('jnp.stack str array', lambda: jnp.stack(np.array([['a', 'b']])), TypeError,
     'Dtype <U1 is not a valid JAX array type. Only arrays of numeric types are supported by '
     'JAX.'),
    ('jnp.zeros dtype obj', lambda: jnp.zeros(jnp.ones(2), Obj()), TypeError,
     "Cannot interpret '<Obj>' as a data type"),
    ('jnp.ones dtype str', lambda: jnp.ones(jnp.ones(2), 'abc'), TypeError,
     'Shapes must be 1D sequences of concrete values of integer type, got [1. 1.].'),
    ('jnp.setxor1d str', lambda: jnp.setxor1d('abc', jnp.ones(2)), TypeError,
     "Argument 'abc' of type <class 'str'> is not a valid JAX type"),
    ('jnp.inner none', lambda: jnp.inner(None, jnp.ones(2)), TypeError,
     "inner requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.trapezoid none', lambda: jnp.trapezoid(None), TypeError,
     "trapezoid requires ndarray or scalar arguments, got <class 'NoneType'> at position 0."),
    ('jnp.bincount str array', lambda: jnp.bincount(np.array(['a', 'b'])), TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.broadcast_to str array',
     lambda: jnp.broadcast_to(np.array(['a', 'b']), (2, 2)), TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.concatenate str arrays', lambda: jnp.concatenate([np.array(['a', 'b'])] * 2), TypeError,
     "Value '['a' 'b']' with dtype <U1 is not a valid JAX array type. Only arrays of numeric "
     'types are supported by JAX.'),
    ('jnp.atleast_1d dict', lambda: jnp.atleast_1d({'a': 1.0}), TypeError,
     "Unexpected input type for array: <class 'dict'>"),
    ('jnp.hstack dict', lambda: jnp.hstack([{'a': 1.0}]), TypeError,
     "Unexpected input type for array: <class 'dict'>"),
    ('jnp.argwhere dict', lambda: jnp.argwhere({'a': 1.0}), TypeError,
     "Unexpected input type for array: <class 'dict'>"),
    ('jnp.select none', lambda: jnp.select([None], [jnp.ones(2)]), TypeError,
     "asarray: expected ArrayLike, got None of type <class 'NoneType'>."),
    ('jnp.block dict', lambda: jnp.block({'a': 1.0}), TypeError,
     "Unexpected input type for array: <class 'dict'>"),
    ('jnp.block obj', lambda: jnp.block([Obj()]), TypeError,
     "Cannot interpret value of type <class 'user.Obj'> as an abstract array; it does not have "
     'a dtype attribute'),
    ('jnp.arange array stop', lambda: jnp.arange(0, np.array([3, 4])), ValueError,
     'jax.numpy.arange: arguments must be scalars; got stop=[3 4]'),
    ('jnp.arange str array', lambda: jnp.arange(np.array(['a', 'b'])), ValueError,
     "jax.numpy.arange: arguments must be scalars; got stop=['a' 'b']"),
    ('jnp.ravel_multi_index none', lambda: jnp.ravel_multi_index((jnp.array([1]), None), (2, 2)),
     TypeError,
     "ravel_multi_index requires ndarray or scalar arguments, got <class 'NoneType'> at "
     'position 1.'),
    ('jnp.ravel_multi_index str', lambda: jnp.ravel_multi_index(['abc'], (2,)), TypeError,
     "Value 'abc' with dtype <U3 is not a valid JAX array type. Only arrays of numeric types "
     'are supported by JAX.'),
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


def test_values_jax_reads_with_a_warning():
    # JAX 0.4.30 reads these with a warning where other jnp functions raise.
    with pytest.warns(DeprecationWarning, match=r"^atleast_1d requires ndarray or scalar "
                      r"arguments, got <class 'list'> at position 0\. In a future JAX release "
                      r"this will be an error\.$"):
        out = jnp.atleast_1d([1.0, 2.0])
    np.testing.assert_array_equal(out, np.array([1.0, 2.0], np.float32))
    with pytest.warns(DeprecationWarning, match=r"^hstack requires .* at position 1\."):
        out = jnp.hstack([jnp.ones(1), (2.0,)])
    np.testing.assert_array_equal(out, np.array([1.0, 2.0], np.float32))
    with pytest.warns(FutureWarning, match=r"^None encountered in jnp\.array\(\); this is "
                      r"currently treated as NaN\. In the future this will result in an "
                      r"error\.$"):
        out = jnp.array(None)
    assert out.dtype == np.float32 and np.isnan(out)
    with pytest.warns(FutureWarning, match=r"^None encountered in jnp\.array\(\)"):
        out = jnp.block(None)
    assert out.dtype == np.float32 and np.isnan(out)
    assert jnp.iscomplexobj(None) is False


def test_values_read_on_error_paths_still_work_when_valid():
    # Functions that look at their arguments closely only when one is not an Array.
    shapes = [a.shape for a in jnp.broadcast_arrays(jnp.ones(2), 1.0, np.ones((3, 1)))]
    assert shapes == [(3, 2)] * 3
    assert jnp.zeros(np.array(3)).shape == (3,)
    assert jnp.zeros((np.int64(2), 3)).shape == (2, 3)
    assert jnp.eye(np.int32(2)).shape == (2, 2)
    np.testing.assert_array_equal(jnp.logical_and(True, jnp.array([True, False])), [True, False])
    np.testing.assert_array_equal(jnp.trim_zeros([0.0, 1.0, 0.0]), np.array([1.0], np.float32))
    np.testing.assert_array_equal(jnp.argwhere([0.0, 1.0]), np.array([[1]], np.int32))
    assert jnp.einsum("i->", [1.0, 2.0]) == 3.0  # JAX's einsum reads lists
    assert jnp.lexsort((1.0, 2.0)) == 0  # scalar keys: index 0, as in JAX

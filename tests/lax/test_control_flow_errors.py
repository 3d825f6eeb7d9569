"""Control-flow errors as JAX 0.4.30 raises them: the exception type and its exact text.

Every message below was recorded by running the same expression with JAX 0.4.30. They cover
while_loop, fori_loop, scan, map, cond, switch, the cumulative reductions, associative_scan
and the lax.rev errors associative_scan passes on. A weakly typed carry (a Python scalar)
whose type the body changes takes the promoted type, and is refused only when that still
differs (a float carry made an int); the acceptances are checked after the table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import numjax as jax
import numjax.numpy as jnp
from numjax import lax

XS = jnp.arange(3.0)
ONES_2 = jnp.ones(2)
ONES_2x3 = jnp.ones((2, 3))
I32_2 = jnp.ones(2, jnp.int32)
F32_0, F32_2 = jnp.float32(0), jnp.float32(2)
PAIR_ADD = lambda a, b: (a[0] + b[0], a[1] + b[1])

# (id, exception type, expression, message)
CASES = [
    ("while_shape", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c * jnp.ones(2), 0.0),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[2]) vs. ShapedArray(float32[])."),
    ("while_dtype", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c.astype(jnp.int32), jnp.float32(0)),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(int32[]) vs. ShapedArray(float32[])."),
    ("while_weak_float_to_int", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c.astype(jnp.int32), 0.0),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(int32[]) vs. ShapedArray(float32[])."),
    ("while_weak_int_to_bool", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c > 1, 0),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(bool[]) vs. ShapedArray(int32[])."),
    ("while_strong_f16_to_f32", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c + jnp.float32(1), jnp.float16(0)),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[]) vs. ShapedArray(float16[])."),
    ("while_bool_to_int", TypeError, lambda: lax.while_loop(lambda c: c, lambda c: c + 1, True),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(int32[], weak_type=True) vs. ShapedArray(bool[])."),
    ("while_tree_leaves", TypeError,
     lambda: lax.while_loop(lambda c: c['a'] < 3,
                            lambda c: {'a': c['a'] + 1, 'b': (c['b'][0], c['b'][1].astype(int))},
                            {'a': 0, 'b': (1.0, F32_2)}),
     "body_fun output and input must have identical types, got\n"
     "{'a': 'ShapedArray(int32[], weak_type=True)', 'b': ('ShapedArray(float32[], "
     "weak_type=True)', 'DIFFERENT ShapedArray(int32[]) vs. ShapedArray(float32[])')}."),
    ("while_structure", TypeError,
     lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1,), (0, 1)),
     "body_fun output and input must have same type structure, got PyTreeDef((*,)) and "
     "PyTreeDef((*, *))."),
    ("while_list_to_tuple", TypeError,
     lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), [0, 1]),
     "body_fun output and input must have same type structure, got PyTreeDef((*, *)) and "
     "PyTreeDef([*, *])."),
    ("while_body_none", TypeError, lambda: lax.while_loop(lambda c: c < 3, lambda c: None, 0),
     "body_fun output and input must have same type structure, got PyTreeDef(None) and "
     "PyTreeDef(*)."),
    ("while_cond_int", TypeError, lambda: lax.while_loop(lambda c: c, lambda c: c + 1, 0),
     "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(int32[], "
     "weak_type=True)]."),
    ("while_cond_shape", TypeError,
     lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(2)),
     "cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(bool[2])]."),
    ("while_cond_tuple", TypeError, lambda: lax.while_loop(lambda c: (c < 3,), lambda c: c + 1, 0),
     "cond_fun must return a boolean scalar, but got pytree PyTreeDef((*,))."),
    ("while_cond_none", TypeError, lambda: lax.while_loop(lambda c: None, lambda c: c + 1, 0),
     "cond_fun must return a boolean scalar, but got pytree PyTreeDef(None)."),
    ("while_not_callable", TypeError, lambda: lax.while_loop(1, lambda c: c + 1, 0),
     "lax.while_loop: body_fun and cond_fun arguments should be callable."),
    ("while_jit", TypeError,
     lambda: jax.jit(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c * ONES_2, x))(1.0),
     "body_fun output and input must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[2]) vs. ShapedArray(float32[])."),
    ("fori_static_shape", TypeError, lambda: lax.fori_loop(0, 3, lambda i, c: c * jnp.ones(2), 0.0),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry component loop_carry[1] has type float32[] but the corresponding "
     "output carry component has type float32[2], so the shapes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("fori_static_weak_float_to_int", TypeError, lambda: lax.fori_loop(0, 3, lambda i, c: i, 0.0),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry component loop_carry[1] has type float32[] but the corresponding "
     "output carry component has type int32[], so the dtypes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("fori_static_structure", TypeError, lambda: lax.fori_loop(0, 3, lambda i, c: (c, c), 0.0),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry component loop_carry[1] is a <class 'float'> but the corresponding "
     "component of the carry output is a <class 'tuple'>, so their Python types differ\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("fori_static_dict", TypeError,
     lambda: lax.fori_loop(0, 3, lambda i, c: {'a': c['a'].astype(int)}, {'a': 1.0}),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry component loop_carry[1]['a'] has type float32[] but the "
     "corresponding output carry component has type int32[], so the dtypes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("fori_traced_shape", TypeError,
     lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c * jnp.ones(2), 0.0))(3),
     "body_fun output and input must have identical types, got\n"
     "('ShapedArray(int32[], weak_type=True)', 'ShapedArray(int32[], weak_type=True)', "
     "'DIFFERENT ShapedArray(float32[2]) vs. ShapedArray(float32[])')."),
    ("fori_traced_weak_float_to_int", TypeError,
     lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: i, 0.0))(3),
     "body_fun output and input must have identical types, got\n"
     "('ShapedArray(int32[], weak_type=True)', 'ShapedArray(int32[], weak_type=True)', "
     "'DIFFERENT ShapedArray(int32[], weak_type=True) vs. ShapedArray(float32[])')."),
    ("fori_traced_structure", TypeError,
     lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: (c, c), 0.0))(3),
     "body_fun output and input must have same type structure, got PyTreeDef((*, *, (*, *))) "
     "and PyTreeDef((*, *, *))."),
    ("fori_traced_unroll_1", ValueError,
     lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + 1, 0, unroll=1))(3),
     "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."),
    ("fori_traced_unroll_false", ValueError,
     lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + 1, 0, unroll=False))(3),
     "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."),
    ("fori_static_unroll_0", ValueError,
     lambda: lax.fori_loop(0, 3, lambda i, c: c + 1, 0, unroll=0),
     "`unroll` must be a `bool` or a positive `int`."),
    ("scan_shape", TypeError, lambda: lax.scan(lambda c, x: (c * jnp.ones(2), x), 0.0, XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry c has type float32[] but the corresponding output carry component "
     "has type float32[2], so the shapes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_dtype_and_shape", TypeError,
     lambda: lax.scan(lambda c, x: (jnp.ones(2, jnp.int32), x), jnp.float32(0), XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry c has type float32[] but the corresponding output carry component "
     "has type int32[2], so the dtypes do not match and also the shapes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_weak_float_to_int", TypeError,
     lambda: lax.scan(lambda c, x: (c.astype(jnp.int32), x), 0.0, XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry c has type float32[] but the corresponding output carry component "
     "has type int32[], so the dtypes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_weak_int_to_bool", TypeError, lambda: lax.scan(lambda c, x: (c > 0, x), 0, XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry c has type int32[] but the corresponding output carry component has "
     "type bool[], so the dtypes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_paths", TypeError,
     lambda: lax.scan(
         lambda c, x: ({'a': c['a'].astype(int), 'b': (c['b'][0], c['b'][1] * I32_2)}, x),
         {'a': F32_0, 'b': (1.0, F32_2)}, XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry component c['a'] has type float32[] but the corresponding output "
     "carry component has type int32[], so the dtypes do not match\n"
     "\n"
     "  * the input carry component c['b'][1] has type float32[] but the corresponding output "
     "carry component has type float32[2], so the shapes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_varargs_name", TypeError,
     lambda: lax.scan(lambda *a: ((a[0][0] * jnp.ones(2),), a[1]), (0.0,), XS),
     "Scanned function carry input and carry output must have equal types (e.g. shapes and "
     "dtypes of arrays), but they differ:\n"
     "  * the input carry component a[0] has type float32[] but the corresponding output "
     "carry component has type float32[2], so the shapes do not match\n"
     "\n"
     "Revise the scanned function so that all output types (e.g. shapes and dtypes) match the "
     "corresponding input types."),
    ("scan_structure_type", TypeError, lambda: lax.scan(lambda c, x: ((c, c), x), 0.0, XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry c is a <class 'float'> but the corresponding component of the carry "
     "output is a <class 'tuple'>, so their Python types differ\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_structure_nested", TypeError,
     lambda: lax.scan(lambda c, x: ((c[0], [c[1][0], (c[1][1],)]), x), (0.0, [1.0, 2.0]), XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry component c[1][1] is a <class 'float'> but the corresponding "
     "component of the carry output is a <class 'tuple'>, so their Python types differ\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_structure_dict_keys", TypeError,
     lambda: lax.scan(lambda c, x: ({'a': c['a'], 'c': c['b']}, x), {'a': 0.0, 'b': 1.0}, XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry c is a <class 'dict'> with pytree metadata ('a', 'b') but the "
     "corresponding component of the carry output is a <class 'dict'> with pytree metadata "
     "('a', 'c'), so the pytree node metadata does not match\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_structure_dict_children", TypeError,
     lambda: lax.scan(lambda c, x: ({'a': c['a']}, x), {'a': 0.0, 'b': 1.0}, XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry c is a <class 'dict'> with 2 children but the corresponding "
     "component of the carry output is a <class 'dict'> with 1 child, so the numbers of "
     "children do not match, with the symmetric difference of key sets: {'b'}\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_structure_length", TypeError, lambda: lax.scan(lambda c, x: ([c[0]], x), [0.0, 1.0], XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "  * the input carry c is a list of length 2 but the corresponding component of the "
     "carry output is a list of length 1, so the lengths do not match\n"
     "\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_structure_none_out", TypeError, lambda: lax.scan(lambda c, x: (None, x), (0.0, 1.0), XS),
     "Scanned function carry input and carry output must have the same pytree structure, but "
     "they differ:\n"
     "['the input tree structure is:\\nPyTreeDef((*, *))\\n', 'the output tree structure "
     "is:\\nPyTreeDef(None)\\n']\n"
     "Revise the scanned function so that its output is a pair where the first element has "
     "the same pytree structure as the first argument."),
    ("scan_not_pair", TypeError, lambda: lax.scan(lambda c, x: c, 0.0, XS),
     "scan body output must be a pair, got ShapedArray(float32[], weak_type=True)."),
    ("scan_not_pair_triple", TypeError, lambda: lax.scan(lambda c, x: (c, x, x), 0.0, XS),
     "scan body output must be a pair, got (ShapedArray(float32[], weak_type=True), "
     "ShapedArray(float32[]), ShapedArray(float32[]))."),
    ("scan_not_pair_none", TypeError, lambda: lax.scan(lambda c, x: None, 0.0, XS),
     "scan body output must be a pair, got None."),
    ("scan_not_callable", TypeError, lambda: lax.scan(3, 0.0, XS),
     "lax.scan: f argument should be a callable."),
    ("scan_unroll_0", ValueError, lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, unroll=0),
     "`unroll` must be a `bool` or a positive `int`."),
    ("scan_unroll_negative", ValueError, lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, unroll=-2),
     "`unroll` must be a `bool` or a positive `int`."),
    ("scan_unroll_float", TypeError, lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, unroll=2.5),
     "'float' object cannot be interpreted as an integer"),
    ("scan_unroll_float_jit", TypeError,
     lambda: jax.jit(lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, unroll=2.5))(),
     "'float' object cannot be interpreted as an integer"),
    ("scan_unroll_str", TypeError, lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, unroll='2'),
     "'<' not supported between instances of 'str' and 'int'"),
    ("scan_python_scalar_xs", ValueError,
     lambda: lax.scan(lambda c, x: (c, x), 0.0, (1.0, jnp.ones(2), 2)),
     "scan got value with no leading axis to scan over: 1.0, 2."),
    ("scan_0d_array_xs", IndexError, lambda: lax.scan(lambda c, x: (c, x), 0.0, jnp.float32(1.0)),
     "tuple index out of range"),
    ("scan_no_xs", ValueError, lambda: lax.scan(lambda c, x: (c, x), 0.0, None),
     "scan got no values to scan over and `length` not provided."),
    ("scan_length_disagrees", ValueError, lambda: lax.scan(lambda c, x: (c, x), 0.0, XS, length=4),
     "scan got `length` argument of 4 which disagrees with leading axis sizes [3]."),
    ("scan_lengths_differ", ValueError,
     lambda: lax.scan(lambda c, x: (c, x), 0.0, (XS, jnp.ones(4))),
     "scan got values with different leading axis sizes: 3, 4."),
    ("scan_invalid_carry", TypeError, lambda: lax.scan(lambda c, x: (c, x), 'a', XS),
     "Value 'a' with type <class 'str'> is not a valid JAX type"),
    ("map_python_scalar", ValueError, lambda: lax.map(lambda x: x, {'a': jnp.ones(3), 'b': 2.0}),
     "scan got value with no leading axis to scan over: 2.0."),
    ("map_lengths_differ", ValueError, lambda: lax.map(lambda x: x, (XS, jnp.ones(2))),
     "scan got values with different leading axis sizes: 3, 2."),
    ("cond_shape", TypeError, lambda: lax.cond(True, lambda x: x, lambda x: x * jnp.ones(2), 1.0),
     "true_fun and false_fun output must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[], weak_type=True) vs. ShapedArray(float32[2])."),
    ("cond_weak_dtypes", TypeError, lambda: lax.cond(True, lambda x: 1, lambda x: 1.0, 1.0),
     "true_fun and false_fun output must have identical types, got\n"
     "DIFFERENT ShapedArray(int32[], weak_type=True) vs. ShapedArray(float32[], "
     "weak_type=True)."),
    ("cond_tree_leaves", TypeError,
     lambda: lax.cond(True, lambda x: {'a': x, 'b': (x, x)},
                      lambda x: {'a': x * ONES_2, 'b': (x, x.astype(int))}, 1.0),
     "true_fun and false_fun output must have identical types, got\n"
     "{'a': 'DIFFERENT ShapedArray(float32[], weak_type=True) vs. ShapedArray(float32[2])', "
     "'b': ('ShapedArray(float32[], weak_type=True)', 'DIFFERENT ShapedArray(float32[], "
     "weak_type=True) vs. ShapedArray(int32[])')}."),
    ("cond_structure", TypeError, lambda: lax.cond(True, lambda x: (x, x), lambda x: [x, x], 1.0),
     "true_fun and false_fun output must have same type structure, got PyTreeDef((*, *)) and "
     "PyTreeDef([*, *])."),
    ("cond_pred_array", TypeError, lambda: lax.cond(jnp.ones(3) > 0, lambda x: x, lambda x: x, 1.0),
     "Pred must be a scalar, got [ True  True  True] of shape (3,)."),
    ("cond_pred_list", TypeError, lambda: lax.cond([True], lambda x: x, lambda x: x, 1.0),
     "Pred must be a scalar, got [True] of type <class 'list'>"),
    ("cond_pred_str", TypeError, lambda: lax.cond('a', lambda x: x, lambda x: x, 1.0),
     "Pred must be a scalar, got a of type <class 'str'>"),
    ("cond_pred_none", TypeError, lambda: lax.cond(None, lambda x: x, lambda x: x, 1.0),
     "cond predicate is None"),
    ("cond_pred_complex", TypeError, lambda: lax.cond(1j, lambda x: x, lambda x: x, 1.0),
     "Pred type must be either boolean or number, got complex64."),
    ("cond_pred_bfloat16", TypeError,
     lambda: lax.cond(jnp.bfloat16(1), lambda x: x, lambda x: x, 1.0),
     "Pred type must be either boolean or number, got bfloat16."),
    ("cond_not_callable", TypeError, lambda: lax.cond(True, 1, lambda x: x, 1.0),
     "lax.cond: true_fun and false_fun arguments should be callable."),
    ("cond_operand_and_positional", TypeError,
     lambda: lax.cond(True, lambda x: x, lambda x: x, 2.0, operand=1.0),
     "if 'operand' keyword is passed then no positional operands can be passed, got "
     "operand=1.0 and positional operands (2.0,)"),
    ("cond_old_style_shape", TypeError,
     lambda: jax.jit(lambda p: lax.cond(p, 1.0, lambda x: x + 1, 2.0, lambda x: x * ONES_2))(True),
     "true_fun and false_fun output must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[], weak_type=True) vs. ShapedArray(float32[2])."),
    ("cond_invalid_operand", TypeError, lambda: lax.cond(True, lambda x: 1.0, lambda x: 1.0, 'a'),
     "Value 'a' with type <class 'str'> is not a valid JAX type"),
    ("switch_shape", TypeError,
     lambda: lax.switch(1, [lambda x: x, lambda x: x * 2, lambda x: x * jnp.ones(2)], 1.0),
     "branch 0 and 2 outputs must have identical types, got\n"
     "DIFFERENT ShapedArray(float32[], weak_type=True) vs. ShapedArray(float32[2])."),
    ("switch_structure", TypeError,
     lambda: lax.switch(1, [lambda x: x, lambda x: x, lambda x: (x, x)], 1.0),
     "branch 0 and 2 outputs must have same type structure, got PyTreeDef(*) and "
     "PyTreeDef((*, *))."),
    ("switch_float_index", TypeError, lambda: lax.switch(1.0, [lambda x: x, lambda x: x], 1.0),
     "Index type must be an integer, got 1.0 as float32"),
    ("switch_bool_index", TypeError, lambda: lax.switch(True, [lambda x: x, lambda x: x], 1.0),
     "Index type must be an integer, got True as bool"),
    ("switch_complex_index", TypeError, lambda: lax.switch(1j, [lambda x: x, lambda x: x], 1.0),
     "Index type must be an integer, got 1j as complex64"),
    ("switch_none_index", TypeError, lambda: lax.switch(None, [lambda x: x, lambda x: x], 1.0),
     "Index type must be an integer, got None as float32"),
    ("switch_str_index", TypeError, lambda: lax.switch('abc', [lambda x: x, lambda x: x], 1.0),
     "Index type must be an integer, got abc."),
    ("switch_array_index", TypeError,
     lambda: lax.switch(jnp.array([1, 0]), [lambda x: x, lambda x: x], 1.0),
     "Branch index must be scalar, got [1 0] of shape (2,)."),
    ("switch_list_index", TypeError, lambda: lax.switch([1], [lambda x: x, lambda x: x], 1.0),
     "Branch index must be scalar, got [1] of shape (1,)."),
    ("switch_single_branch_float_index", TypeError, lambda: lax.switch(0.5, [lambda x: x], 1.0),
     "Index type must be an integer, got 0.5 as float32"),
    ("switch_empty", ValueError, lambda: lax.switch(0, [], 1.0),
     "Empty branch sequence"),
    ("switch_generator", ValueError,
     lambda: lax.switch(1, (f for f in [lambda x: x, lambda x: x]), 1.0),
     "Empty branch sequence"),
    ("switch_not_callable", TypeError, lambda: lax.switch(0, [lambda x: x, 3], 1.0),
     "lax.switch: branches argument should be a sequence of callables."),
    ("switch_operand_and_positional", TypeError,
     lambda: lax.switch(0, [lambda x: x, lambda x: x], 1.0, operand=2.0),
     "if 'operand' keyword is passed then no positional operands can be passed, got "
     "operand=2.0 and positional operands (1.0,)"),
    ("cumsum_negative_axis", ValueError, lambda: lax.cumsum(jnp.ones((2, 3)), axis=-1),
     "XLA operations do not allow negative axes"),
    ("cumprod_negative_axis_jit", ValueError,
     lambda: jax.jit(lambda x: lax.cumprod(x, axis=-1))(jnp.ones((2, 3))),
     "XLA operations do not allow negative axes"),
    ("cummax_negative_axis_vmap", ValueError,
     lambda: jax.vmap(lambda x: lax.cummax(x, axis=-1))(jnp.ones((2, 3))),
     "XLA operations do not allow negative axes"),
    ("cummin_negative_axis_jaxpr", ValueError,
     lambda: jax.make_jaxpr(lambda x: lax.cummin(x, axis=-2))(jnp.ones((2, 3))),
     "XLA operations do not allow negative axes"),
    ("cumlogsumexp_negative_axis", ValueError, lambda: lax.cumlogsumexp(jnp.ones((2, 3)), axis=-3),
     "XLA operations do not allow negative axes"),
    ("cumsum_axis_out_of_bounds", ValueError, lambda: lax.cumsum(jnp.ones((2, 3)), axis=2),
     "axis 2 is out of bounds for array of shape (2, 3)"),
    ("cumsum_scalar", ValueError, lambda: lax.cumsum(1.0),
     "axis 0 is out of bounds for array of shape ()"),
    ("cumsum_bool", TypeError, lambda: lax.cumsum(jnp.array([True, False])),
     "cumsum does not accept dtype bool. Accepted dtypes are subtypes of number."),
    ("cumlogsumexp_bool", TypeError, lambda: lax.cumlogsumexp(jnp.array([True, False])),
     "cumlogsumexp does not accept dtype bool. Accepted dtypes are subtypes of number."),
    ("cumlogsumexp_int", OverflowError, lambda: lax.cumlogsumexp(jnp.array([1, 2])),
     "cannot convert float infinity to integer"),
    ("cumlogsumexp_uint8_jit", OverflowError,
     lambda: jax.jit(lax.cumlogsumexp)(jnp.ones(3, jnp.uint8)),
     "cannot convert float infinity to integer"),
    ("cumsum_negative_axis_bool", ValueError, lambda: lax.cumsum(jnp.array([True]), axis=-1),
     "XLA operations do not allow negative axes"),
    ("assoc_axis_out_of_bounds", ValueError,
     lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=2),
     "axis 2 is out of bounds for array of dimension 2"),
    ("assoc_negative_axis_out_of_bounds", ValueError,
     lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=-3),
     "axis -3 is out of bounds for array of dimension 2"),
    ("assoc_negative_axis_reverse", TypeError,
     lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=-1, reverse=True),
     "rev dimensions must have every element be nonnegative, got (-1,)."),
    ("assoc_axis_out_of_bounds_reverse", TypeError,
     lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=2, reverse=True),
     "rev dimensions must all be less than operand ndim, got dimensions (2,) for operand ndim "
     "2."),
    ("assoc_0d", ValueError, lambda: lax.associative_scan(jnp.add, jnp.float32(1)),
     "axis 0 is out of bounds for array of dimension 0"),
    ("assoc_0d_reverse", TypeError,
     lambda: lax.associative_scan(jnp.add, jnp.float32(1), reverse=True),
     "rev dimensions must all be less than operand ndim, got dimensions (0,) for operand ndim "
     "0."),
    # Under vmap the 0-d value is a row of a batch: lax.rev sees the batched operand.
    ("assoc_0d_reverse_vmap", TypeError,
     lambda: jax.vmap(lambda s: lax.associative_scan(jnp.add, s, reverse=True))(jnp.ones(3)),
     "rev dimensions must all be less than operand ndim, got dimensions (1,) for operand ndim "
     "1."),
    ("assoc_0d_reverse_jit_vmap", TypeError,
     lambda: jax.jit(jax.vmap(lambda s: lax.associative_scan(jnp.add, s, reverse=True)))(
         jnp.ones(3)),
     "rev dimensions must all be less than operand ndim, got dimensions (1,) for operand ndim "
     "1."),
    ("assoc_0d_vmap", ValueError,
     lambda: jax.vmap(lambda s: lax.associative_scan(jnp.add, s))(jnp.ones(3)),
     "axis 0 is out of bounds for array of dimension 0"),
    ("assoc_python_scalar", AttributeError, lambda: lax.associative_scan(jnp.add, 1.0),
     "'float' object has no attribute 'ndim'"),
    ("assoc_no_leaves", IndexError, lambda: lax.associative_scan(jnp.add, ()),
     "list index out of range"),
    ("assoc_not_callable", TypeError, lambda: lax.associative_scan(3, jnp.ones(3)),
     "lax.associative_scan: fn argument should be callable."),
    ("assoc_float_axis", TypeError,
     lambda: lax.associative_scan(jnp.add, jnp.ones((2, 3)), axis=1.0),
     "'float' object cannot be interpreted as an integer"),
    ("assoc_lengths_differ", ValueError,
     lambda: lax.associative_scan(PAIR_ADD, (ONES_2x3, jnp.ones((2, 4))), axis=1),
     "Array inputs to associative_scan must have the same first dimension. (saw: [(2, 3), (2, "
     "4)])"),
    ("assoc_too_few_leaves", ValueError,
     lambda: lax.associative_scan(lambda a, b: a[0] + b[0], (jnp.ones(3), jnp.ones(3))),
     "Too few leaves for PyTreeDef; expected 2, got 1"),
    ("assoc_too_many_leaves", ValueError,
     lambda: lax.associative_scan(lambda a, b: (*PAIR_ADD(a, b), a[0]),
                                  (jnp.ones(3), jnp.ones(3))),
     "Too many leaves for PyTreeDef; expected 2."),
    ("assoc_rank_below_axis", ValueError,
     lambda: lax.associative_scan(PAIR_ADD, (jnp.ones((3,)), jnp.ones((3, 2))), axis=1),
     "axis 1 is out of bounds for array of dimension 1"),
    ("rev_negative", TypeError, lambda: lax.rev(jnp.ones((2, 3)), (-1,)),
     "rev dimensions must have every element be nonnegative, got (-1,)."),
    ("rev_duplicate", TypeError, lambda: lax.rev(jnp.ones((2, 3)), (0, 0)),
     "rev dimensions must be unique, got (0, 0)."),
    ("rev_out_of_bounds", TypeError, lambda: lax.rev(jnp.ones((2, 3)), (2,)),
     "rev dimensions must all be less than operand ndim, got dimensions (2,) for operand ndim "
     "2."),
]


@pytest.mark.parametrize("exc,fn,message", [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_error_matches_jax(exc: Any, fn: Any, message: str) -> None:
    with pytest.raises(exc) as info:
        fn()
    assert type(info.value) is exc
    assert str(info.value) == message


def _dtype_and_weak(x: Any) -> Any:
    return str(x.dtype), x.weak_type


def test_weak_typed_carries_jax_accepts_take_the_promoted_type() -> None:
    # Each pair is (result dtype, weak) as JAX 0.4.30 gives it.
    assert _dtype_and_weak(lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0)) == (
        "float32", False)
    assert _dtype_and_weak(lax.while_loop(
        lambda c: c < 3, lambda c: c.astype(jnp.float16) + 1, 0.0)) == ("float16", False)
    assert _dtype_and_weak(lax.while_loop(lambda c: c < 3, lambda c: c + jnp.int32(1), 0)) == (
        "int32", False)
    int8 = lax.scan(lambda c, x: ((c + 1).astype(jnp.int8), x), 0, XS[:2])[0]
    assert _dtype_and_weak(int8) == ("int8", False) and int(int8) == 2
    assert _dtype_and_weak(lax.scan(lambda c, x: (c + 1j, x), 0.0, XS[:2])[0]) == (
        "complex64", False)
    assert _dtype_and_weak(lax.scan(lambda c, x: (c + 1, x), 0, XS[:2])[0]) == ("int32", True)


def test_cond_forms_jax_accepts() -> None:
    # JAX's former form cond(pred, true_operand, true_fun, false_operand, false_fun).
    assert float(lax.cond(True, 1.0, lambda x: x + 1, 2.0, lambda x: x * 3)) == 2.0
    assert float(lax.cond(False, 1.0, lambda x: x + 1, 2.0, lambda x: x * 3)) == 6.0
    # operand=None passes None (it is not "no operand").
    assert lax.cond(True, lambda x: x, lambda x: x, operand=None) is None
    assert float(lax.switch(0, [lambda x: x, lambda x: -x], operand=2.0)) == 2.0


def test_scan_unroll_and_disable_jit_as_jax() -> None:
    jaxpr = jax.make_jaxpr(lambda: lax.scan(lambda c, x: (c, x), 0.0, None, length=0,
                                            unroll=True))()
    assert "unroll=1" in str(jaxpr)  # unroll=True is the length, at least 1
    with jax.disable_jit():
        with pytest.raises(ValueError) as info:
            lax.scan(lambda c, x: (c, x), 0.0, jnp.zeros(0))
        assert str(info.value) == ("zero-length scan is not supported in disable_jit() mode "
                                   "because the output type is unknown.")
        init = object()
        assert lax.fori_loop(3, 0, lambda i, c: c, init) is init


def test_associative_scan_elements_of_different_ranks_and_reverse() -> None:
    a, b = lax.associative_scan(PAIR_ADD, (jnp.ones(3), jnp.ones((3, 2))))
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(b, [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    out = lax.associative_scan(jnp.add, jnp.arange(6.0).reshape(2, 3), axis=1, reverse=True)
    np.testing.assert_array_equal(out, [[3.0, 3.0, 2.0], [12.0, 9.0, 5.0]])


def test_cumlogsumexp_of_complex_values() -> None:
    # JAX 0.4.30's values; the imaginary part is wrapped into [-pi, pi].
    x = jnp.array([1j, 2, 3 + 1j, -1j], jnp.complex64)
    expected = [1.000000238418579j, 2.076171398162842 + 0.10572528839111328j,
                3.2518136501312256 + 0.7569658756256104j,
                3.2453572750091553 + 0.718674898147583j]
    np.testing.assert_allclose(lax.cumlogsumexp(x), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(lax.cumlogsumexp)(x), expected, rtol=1e-6)
    grad = jax.grad(lambda v: lax.cumlogsumexp(v).real.sum())(x[:2])
    np.testing.assert_allclose(grad, [1.078516960144043 + 0.09778866171836853j,
                                      0.9214832186698914 - 0.09778870642185211j], atol=1e-6)

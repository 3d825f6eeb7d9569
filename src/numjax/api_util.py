"""`jax.api_util`: flattening a `linear_util.WrappedFun` over pytrees, as libraries that trace
functions themselves do (`flatten_fun(lu.wrap_init(f), in_tree)`).

>>> import numjax
>>> from numjax.api_util import flatten_fun_nokwargs
>>> from numjax.extend import linear_util as lu
>>> args, in_tree = numjax.tree_util.tree_flatten(((1, 2),))
>>> flat, out_tree = flatten_fun_nokwargs(lu.wrap_init(lambda p: {"s": p[0] + p[1]}), in_tree)
>>> flat.call_wrapped(*args), out_tree()
([3], PyTreeDef({'s': *}))
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from numjax._src import tree_util
from numjax._src.core.avals import shaped_abstractify as shaped_abstractify
from numjax._src.linear_util import transformation_with_aux
from numjax.util import safe_map as safe_map


@transformation_with_aux
def flatten_fun(in_tree: Any, *args_flat: Any) -> Generator[Any, Any, Any]:
    """Takes the leaves of `(args, kwargs)` (structure `in_tree`); returns the output's leaves,
    its structure as the aux output."""
    py_args, py_kwargs = tree_util.tree_unflatten(in_tree, args_flat)
    ans = yield py_args, py_kwargs
    yield tree_util.tree_flatten(ans)


@transformation_with_aux
def flatten_fun_nokwargs(in_tree: Any, *args_flat: Any) -> Generator[Any, Any, Any]:
    """`flatten_fun` for positional arguments only: `in_tree` is the structure of `args`."""
    py_args = tree_util.tree_unflatten(in_tree, args_flat)
    ans = yield py_args, {}
    yield tree_util.tree_flatten(ans)


__all__ = ["flatten_fun", "flatten_fun_nokwargs", "safe_map", "shaped_abstractify"]

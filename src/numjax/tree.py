"""The `jax.tree` namespace: short names for the common pytree functions.

>>> import numjax.tree
>>> numjax.tree.map(lambda x: x * 2, {'a': 1, 'b': (2, 3)})
{'a': 2, 'b': (4, 6)}
"""

from numjax._src.tree_util import tree_transpose as transpose
from numjax._src.tree_util import tree_unflatten as unflatten
from numjax._src.tree_util import user_tree_all as all
from numjax._src.tree_util import user_tree_flatten as flatten
from numjax._src.tree_util import user_tree_flatten_with_path as flatten_with_path
from numjax._src.tree_util import user_tree_leaves as leaves
from numjax._src.tree_util import user_tree_leaves_with_path as leaves_with_path
from numjax._src.tree_util import user_tree_map as map
from numjax._src.tree_util import user_tree_map_with_path as map_with_path
from numjax._src.tree_util import user_tree_reduce as reduce
from numjax._src.tree_util import user_tree_structure as structure

__all__ = [
    "all",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "structure",
    "transpose",
    "unflatten",
]

"""Pytree utilities: the `jax.tree_util` API of JAX 0.4.30."""

from numjax._src.tree_util import DictKey as DictKey
from numjax._src.tree_util import FlattenedIndexKey as FlattenedIndexKey
from numjax._src.tree_util import GetAttrKey as GetAttrKey
from numjax._src.tree_util import Partial as Partial
from numjax._src.tree_util import PyTreeDef as PyTreeDef
from numjax._src.tree_util import SequenceKey as SequenceKey
from numjax._src.tree_util import build_tree as build_tree
from numjax._src.tree_util import default_registry as default_registry
from numjax._src.tree_util import keystr as keystr
from numjax._src.tree_util import register_dataclass as register_dataclass
from numjax._src.tree_util import register_pytree_node as register_pytree_node
from numjax._src.tree_util import register_pytree_node_class as register_pytree_node_class
from numjax._src.tree_util import register_pytree_with_keys as register_pytree_with_keys
from numjax._src.tree_util import (
    register_pytree_with_keys_class as register_pytree_with_keys_class,
)
from numjax._src.tree_util import register_static as register_static
from numjax._src.tree_util import tree_transpose as tree_transpose
from numjax._src.tree_util import tree_unflatten as tree_unflatten
from numjax._src.tree_util import treedef_children as treedef_children
from numjax._src.tree_util import treedef_is_leaf as treedef_is_leaf
from numjax._src.tree_util import treedef_tuple as treedef_tuple
from numjax._src.tree_util import user_all_leaves as all_leaves
from numjax._src.tree_util import user_tree_all as tree_all
from numjax._src.tree_util import user_tree_flatten as tree_flatten
from numjax._src.tree_util import user_tree_flatten_with_path as tree_flatten_with_path
from numjax._src.tree_util import user_tree_leaves as tree_leaves
from numjax._src.tree_util import user_tree_leaves_with_path as tree_leaves_with_path
from numjax._src.tree_util import user_tree_map as tree_map
from numjax._src.tree_util import user_tree_map_with_path as tree_map_with_path
from numjax._src.tree_util import user_tree_reduce as tree_reduce
from numjax._src.tree_util import user_tree_structure as tree_structure

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "Partial",
    "PyTreeDef",
    "SequenceKey",
    "all_leaves",
    "build_tree",
    "default_registry",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "tree_all",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

"""`jax.util` helpers, the deprecated top-level pytree functions and `__version_info__`.

Expected values and texts were recorded from JAX 0.4.30.
"""

from __future__ import annotations

import pytest

import numjax
from numjax import util


def test_list_helpers() -> None:
    assert util.safe_map(lambda a, b: a + b, (1, 2), [3, 4]) == [4, 6]
    assert util.safe_zip((1, 2), [3, 4]) == [(1, 3), (2, 4)]
    assert util.unzip2([("a", 1), ("b", 2)]) == (("a", "b"), (1, 2))
    assert util.unzip2([]) == ((), ())
    assert util.split_list([1, 2, 3, 4], [1, 2]) == [[1], [2, 3], [4]]
    assert util.split_list_checked([1, 2, 3], [1, 2]) == [[1], [2, 3]]
    assert util.split_dict({"a": 1, "b": 2}, ["b", "a"]) == [2, 1]
    assert util.subvals([1, 2, 3], [(0, "x"), (2, "z")]) == ("x", 2, "z")
    trues, falses, merge = util.split_merge(lambda v: v > 1, [1, 2, 3])
    assert (trues, falses) == ([2, 3], [1])
    assert merge(["b", "c"], ["a"]) == ["a", "b", "c"]
    assert util.wrap_name("f", "jvp") == "jvp(f)"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: util.safe_map(lambda a, b: a, [1, 2], [1]),
         "safe_map() argument 2 is shorter than argument 1"),
        (lambda: util.safe_zip([1, 2], [1]), "safe_zip() argument 2 is shorter than argument 1"),
        (lambda: util.safe_zip([1], [1, 2]), "safe_zip() argument 2 is longer than argument 1"),
    ],
)
def test_length_mismatch(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_wraps_and_hashable_function() -> None:
    def original(x):  # type: ignore[no-untyped-def]
        """Doc."""
        return x

    @util.wraps(original, namestr="vmap({fun})", docstr="Vectorized {fun}. {doc}")
    def wrapper(x):  # type: ignore[no-untyped-def]
        return x

    assert wrapper.__name__ == "vmap(original)" and wrapper.__doc__ == "Vectorized original. Doc."
    assert wrapper.__wrapped__ is original

    def make(k):  # type: ignore[no-untyped-def]
        return util.as_hashable_function(closure=k)(lambda x: x + k)

    assert make(1) == make(1) and hash(make(1)) == hash(make(1)) and make(1) != make(2)
    assert make(2)(1) == 3


@pytest.mark.parametrize("name", ["tree_map", "tree_flatten", "tree_leaves", "tree_structure",
                                  "tree_transpose", "tree_unflatten"])
def test_deprecated_top_level_tree_functions(name: str) -> None:
    short = name.removeprefix("tree_")
    message = (f"jax.{name} is deprecated: use jax.tree.{short} (jax v0.4.25 or newer) or "
               f"jax.tree_util.{name} (any JAX version).")
    with pytest.warns(DeprecationWarning) as record:
        fn = getattr(numjax, name)
    assert str(record[0].message) == message
    assert fn is getattr(numjax.tree_util, name)


def test_deprecated_treedef_is_leaf_and_missing_names() -> None:
    with pytest.warns(DeprecationWarning, match="jax.treedef_is_leaf is deprecated: use "
                      "jax.tree_util.treedef_is_leaf."):
        assert numjax.treedef_is_leaf is numjax.tree_util.treedef_is_leaf
    with pytest.raises(AttributeError, match="has no attribute 'tree_nothing'"):
        numjax.tree_nothing  # noqa: B018


def test_version_info_names_the_jax_api() -> None:
    assert numjax.__version_info__ == (0, 4, 30)


def test_version_module() -> None:
    # JAX 0.4.30: `jax.version` is loaded with `jax`; flax's scan reads
    # `jax.version.__version_info__` (0, 4, 30).
    assert numjax.version.__version_info__ == (0, 4, 30) == numjax.__version_info__
    assert numjax.version.__version__ == numjax.__version__
    assert numjax.version._minimum_jaxlib_version_info == (0, 4, 27)


def test_debug_key_reuse_option() -> None:
    # JAX 0.4.30: jax.debug_key_reuse is the jax_debug_key_reuse option's context manager,
    # False by default (flax's linen_transforms_test reads it at import).
    assert numjax.config.jax_debug_key_reuse is False
    with numjax.debug_key_reuse(True):
        assert numjax.config.jax_debug_key_reuse is True
    assert numjax.config.jax_debug_key_reuse is False

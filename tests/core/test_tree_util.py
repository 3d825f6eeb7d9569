"""Tests for numjax.tree_util and numjax.tree.

Expected reprs, orders and error messages were recorded from JAX 0.4.30 (`jax.tree_util`) and
are written here as literal data; JAX itself is never imported.
"""

from __future__ import annotations

import collections
import dataclasses
import doctest
import functools
import operator
import pickle
import re
import typing

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import numjax.tree
from numjax import tree_util as tu
from numjax._src import tree_util as tree_util_impl
from numjax._src.core.errors import XlaRuntimeError

# Test types, registered once at import: the registry is global and rejects duplicates.

NT = collections.namedtuple("NT", ["x", "y"])
NT2 = collections.namedtuple("NT2", ["x", "y"])
EmptyNT = collections.namedtuple("EmptyNT", [])


class TypedNT(typing.NamedTuple):
    a: int
    b: int


class SubNT(NT):
    pass


class Foo:
    """Two children; aux is the first child when it is a str, else 'aux'."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is Foo and (self.a, self.b) == (other.a, other.b)

    def __repr__(self):
        return f"Foo({self.a!r}, {self.b!r})"


tu.register_pytree_node(
    Foo,
    lambda f: ((f.a, f.b), f.a if isinstance(f.a, str) else "aux"),
    lambda aux, children: Foo(*children),
)


class Var:
    """Any number of children, aux None."""

    def __init__(self, *children):
        self.children = children

    def __repr__(self):
        return f"Var{self.children}"


tu.register_pytree_node(Var, lambda v: (v.children, None), lambda _, ch: Var(*ch))


class WithDictAux:
    pass


tu.register_pytree_node(WithDictAux, lambda _: ((1,), {"k": [1, 2]}), lambda *_: WithDictAux())


class ListAux:
    """Unhashable aux data: treedef hashing must not look at aux."""


tu.register_pytree_node(ListAux, lambda _: ((1,), [1, 2]), lambda *_: ListAux())


class ArrayAux:
    """Aux data whose `==` is elementwise, so comparing treedefs raises as in JAX."""


tu.register_pytree_node(ArrayAux, lambda _: ((1,), np.arange(3)), lambda *_: ArrayAux())


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x!r}, {self.y!r})"


tu.register_pytree_with_keys(
    Point,
    lambda p: (((tu.GetAttrKey("x"), p.x), (tu.GetAttrKey("y"), p.y)), "pt"),
    lambda _, children: Point(*children),
)


@tu.register_pytree_node_class
class Box:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten(self):
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tu.register_pytree_with_keys_class
class KeyedBox:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def tree_flatten_with_keys(self):
        return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@functools.partial(tu.register_dataclass, data_fields=["x", "y"], meta_fields=["op"])
@dataclasses.dataclass
class Scaled:
    x: typing.Any
    y: typing.Any
    op: str


@functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=[])
@dataclasses.dataclass
class PartlyRegistered:
    x: typing.Any
    y: int = 0
    z: int = dataclasses.field(init=False, default=5)


@tu.register_static
class Static:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, Static) and self.v == other.v

    def __hash__(self):
        return hash(self.v)

    def __repr__(self):
        return f"S({self.v})"


class MyDict(dict):
    pass


class MyTuple(tuple):
    pass


class MyList(list):
    pass


class FieldsTuple(tuple):
    """A tuple subclass with `_fields` counts as a namedtuple, as in JAX."""

    _fields = ("a",)

    def __new__(cls, *items):
        return tuple.__new__(cls, items)


def struct(tree, is_leaf=None):
    return repr(tu.tree_structure(tree, is_leaf=is_leaf))


# Structures and reprs.

REPRS = [
    ((1, 2), "PyTreeDef((*, *))"),
    ({"a": 1, "b": [2, None]}, "PyTreeDef({'a': *, 'b': [*, None]})"),
    (None, "PyTreeDef(None)"),
    (1, "PyTreeDef(*)"),
    (np.zeros(3), "PyTreeDef(*)"),
    ((), "PyTreeDef(())"),
    ([], "PyTreeDef([])"),
    ({}, "PyTreeDef({})"),
    ((1,), "PyTreeDef((*,))"),
    ([(), [], {}, None], "PyTreeDef([(), [], {}, None])"),
    (NT(1, (2, 3)), "PyTreeDef(CustomNode(namedtuple[NT], [*, (*, *)]))"),
    (TypedNT(1, 2), "PyTreeDef(CustomNode(namedtuple[TypedNT], [*, *]))"),
    (SubNT(1, 2), "PyTreeDef(CustomNode(namedtuple[SubNT], [*, *]))"),
    (FieldsTuple(1), "PyTreeDef(CustomNode(namedtuple[FieldsTuple], [*]))"),
    (EmptyNT(), "PyTreeDef(CustomNode(namedtuple[EmptyNT], []))"),
    (
        collections.OrderedDict([("b", 1), ("a", 2)]),
        "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))",
    ),
    (collections.OrderedDict(), "PyTreeDef(CustomNode(OrderedDict[()], []))"),
    (
        collections.OrderedDict(a=(1, None)),
        "PyTreeDef(CustomNode(OrderedDict[('a',)], [(*, None)]))",
    ),
    (
        collections.defaultdict(list, {"b": 1, "a": 2}),
        "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))",
    ),
    (
        collections.defaultdict(None, {"b": 1, "a": 2}),
        "PyTreeDef(CustomNode(defaultdict[(None, ('a', 'b'))], [*, *]))",
    ),
    (
        collections.defaultdict(list),
        "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ())], []))",
    ),
    ({2: 1, 1: 2, 3: None}, "PyTreeDef({1: *, 2: *, 3: None})"),
    ({(1, 2): 1, (0,): 2}, "PyTreeDef({(0,): *, (1, 2): *})"),
    ({1.5: 1, 0.5: 2}, "PyTreeDef({0.5: *, 1.5: *})"),
    ({None: 1}, "PyTreeDef({None: *})"),
    ({object: 1}, "PyTreeDef({<class 'object'>: *})"),
    ({'a"b': 1}, "PyTreeDef({'a\"b': *})"),
    (Foo(1, 2), "PyTreeDef(CustomNode(Foo[aux], [*, *]))"),
    (
        [Foo(1, (2, None)), {"z": Foo(3, 4)}],
        "PyTreeDef([CustomNode(Foo[aux], [*, (*, None)]), {'z': CustomNode(Foo[aux], [*, *])}])",
    ),
    (Foo("str aux", 2), "PyTreeDef(CustomNode(Foo[str aux], [*, *]))"),
    (WithDictAux(), "PyTreeDef(CustomNode(WithDictAux[{'k': [1, 2]}], [*]))"),
    (ArrayAux(), "PyTreeDef(CustomNode(ArrayAux[[0 1 2]], [*]))"),
    (Var(), "PyTreeDef(CustomNode(Var[None], []))"),
    (Point(1, [2]), "PyTreeDef(CustomNode(Point[pt], [*, [*]]))"),
    (Box(1, 2), "PyTreeDef(CustomNode(Box[None], [*, *]))"),
    (KeyedBox(1, 2), "PyTreeDef(CustomNode(KeyedBox[None], [*, *]))"),
    (Scaled(1, 2, "add"), "PyTreeDef(CustomNode(Scaled[('add',)], [*, *]))"),
    (PartlyRegistered(1, 7), "PyTreeDef(CustomNode(PartlyRegistered[()], [*]))"),
    ([Static(1), 2], "PyTreeDef([CustomNode(Static[S(1)], []), *])"),
    (
        tu.Partial(max, 1, k=2),
        "PyTreeDef(CustomNode(Partial[<built-in function max>], [(*,), {'k': *}]))",
    ),
    (tu.Partial(max), "PyTreeDef(CustomNode(Partial[<built-in function max>], [(), {}]))"),
    (
        tu.Partial(max, b=1, a=2),
        "PyTreeDef(CustomNode(Partial[<built-in function max>], [(), {'a': *, 'b': *}]))",
    ),
    (
        tu.Partial(tu.Partial(max, 1), 2),
        "PyTreeDef(CustomNode(Partial[_HashableCallableShim(Partial(<built-in function max>, 1))],"
        " [(*,), {}]))",
    ),
    (
        tu.Partial(functools.partial(max, 1), 2),
        "PyTreeDef(CustomNode(Partial[_HashableCallableShim(functools.partial("
        "<built-in function max>, 1))], [(*,), {}]))",
    ),
    # Subclasses of the builtin containers are leaves, except namedtuples.
    (MyDict(a=1), "PyTreeDef(*)"),
    (MyTuple((1, 2)), "PyTreeDef(*)"),
    (MyList([1, 2]), "PyTreeDef(*)"),
    (np.float32(1), "PyTreeDef(*)"),
]


@pytest.mark.parametrize(("tree", "expected"), REPRS, ids=[r for _, r in REPRS])
def test_structure_repr(tree, expected):
    assert struct(tree) == expected
    assert str(tu.tree_structure(tree)) == expected


def test_repr_of_nested_and_local_classes_uses_plain_name():
    class Outer:
        class Inner:
            pass

    tu.register_pytree_node(Outer.Inner, lambda _: ((1,), None), lambda *_: Outer.Inner())
    assert struct(Outer.Inner()) == "PyTreeDef(CustomNode(Inner[None], [*]))"


# Flattening order and round trips.

LEAVES = [
    ({"b": 1, "a": 2, "c": 3}, [2, 1, 3]),
    ({"b": [1, None], "a": 2}, [2, 1]),
    (collections.OrderedDict([("b", 1), ("a", 2)]), [1, 2]),
    (collections.defaultdict(list, {"b": 1, "a": 2}), [2, 1]),
    (tu.Partial(max, 1, k=2), [1, 2]),
    (tu.Partial(max, b=1, a=2), [2, 1]),
    (tu.Partial(tu.Partial(max, 1), 2), [2]),
    ([None, (None,), {"a": None}], []),
    (Foo(1, [2, 3]), [1, 2, 3]),
    (Scaled(1, 2, "add"), [1, 2]),
    ([Static(1), 2], [2]),
    (5, [5]),
]


@pytest.mark.parametrize(("tree", "expected"), LEAVES)
def test_leaves_order(tree, expected):
    assert tu.tree_leaves(tree) == expected
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == expected
    assert treedef.num_leaves == len(expected)


ROUND_TRIP = [
    (1, 2),
    {"b": [1, None], "a": (2, {"c": 3})},
    NT(1, NT2(2, 3)),
    TypedNT(1, 2),
    collections.OrderedDict([("b", 1), ("a", (2,))]),
    collections.defaultdict(list, {"b": 1, "a": 2}),
    Foo(1, [2, 3]),
    Foo("s", 2),
    Scaled([1], 2, "add"),
    [Static(1), 2],
    [(), [], {}, None, [[]]],
    5,
    None,
]


@pytest.mark.parametrize("tree", ROUND_TRIP)
def test_flatten_unflatten_round_trip(tree):
    leaves, treedef = tu.tree_flatten(tree)
    rebuilt = tu.tree_unflatten(treedef, leaves)
    assert rebuilt == tree
    assert type(rebuilt) is type(tree)
    assert tu.tree_structure(rebuilt) == treedef


def test_unflatten_builds_containers_in_order():
    rebuilt = tu.tree_unflatten(tu.tree_structure({"b": 1, "a": 2}), [1, 2])
    assert list(rebuilt) == ["a", "b"]
    od = tu.tree_map(lambda x: x, collections.OrderedDict([("b", 1), ("a", 2)]))
    assert type(od) is collections.OrderedDict and list(od.items()) == [("b", 1), ("a", 2)]
    dd = tu.tree_map(lambda x: x * 2, collections.defaultdict(list, {"b": 1}))
    assert type(dd) is collections.defaultdict and dd.default_factory is list
    assert dd == {"b": 2}


def test_unflatten_accepts_any_iterable_and_returns_fresh_lists():
    treedef = tu.tree_structure([1, 2])
    leaves = [3, 4]
    out = treedef.unflatten(leaves)
    assert out == [3, 4] and out is not leaves
    assert tu.tree_unflatten(tu.tree_structure((1, 2)), iter([1, 2])) == (1, 2)
    assert tu.tree_unflatten(tu.tree_structure((1, 2)), (x for x in "ab")) == ("a", "b")
    assert tu.tree_unflatten(tu.tree_structure(None), []) is None
    assert tu.tree_unflatten(tu.tree_structure(1), [5]) == 5


@pytest.mark.parametrize(
    ("tree", "leaves", "message"),
    [
        ((1, 2), [1], "Too few leaves for PyTreeDef; expected 2, got 1"),
        ((1, 2), [1, 2, 3], "Too many leaves for PyTreeDef; expected 2."),
        (None, [1], "Too many leaves for PyTreeDef; expected 0."),
        (1, [], "Too few leaves for PyTreeDef; expected 1, got 0"),
    ],
)
def test_unflatten_wrong_leaf_count(tree, leaves, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tu.tree_unflatten(tu.tree_structure(tree), leaves)


def test_unflatten_non_iterable():
    with pytest.raises(TypeError):
        tu.tree_structure((1,)).unflatten(5)


def test_custom_unflatten_gets_children_as_tuple():
    seen = []

    class Rec:
        def __init__(self, *c):
            self.c = c

    tu.register_pytree_node(
        Rec, lambda r: (list(r.c), None), lambda _, ch: (seen.append(ch), Rec(*ch))[1]
    )
    tu.tree_map(lambda x: x, Rec(1, 2))
    assert seen == [(1, 2)]


def test_custom_flatten_may_return_a_generator():
    class Gen:
        def __init__(self, *c):
            self.c = c

    tu.register_pytree_node(Gen, lambda g: ((x for x in g.c), None), lambda _, ch: Gen(*ch))
    leaves, treedef = tu.tree_flatten(Gen(1, (2, 3)))
    assert leaves == [1, 2, 3]
    assert repr(treedef) == "PyTreeDef(CustomNode(Gen[None], [*, (*, *)]))"


@pytest.mark.parametrize(
    ("flatten_output", "message"),
    [
        (
            5,
            "The to_iterable function for a custom PyTree node should return a "
            "(children, aux_data) tuple, got 5",
        ),
        (
            (5, None),
            "The to_iterable function for a custom PyTree node should return a "
            "(children, aux_data) tuple where 'children' is iterable, got (5, None)",
        ),
    ],
)
def test_custom_flatten_bad_output(flatten_output, message):
    class Bad:
        pass

    tu.register_pytree_node(Bad, lambda _: flatten_output, lambda *_: Bad())
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tu.tree_flatten(Bad())


def test_numpy_arrays_and_scalars_are_leaves():
    a, b = np.arange(2), np.float32(1)
    leaves = tu.tree_leaves([a, {"b": b}])
    assert leaves[0] is a and leaves[1] is b


def test_deep_tree_within_recursion_limit():
    tree = None
    for _ in range(300):
        tree = [tree, 1]
    leaves, treedef = tu.tree_flatten(tree)
    assert len(leaves) == 300
    assert treedef.num_nodes == 300 * 2 + 1
    assert tu.tree_unflatten(treedef, leaves) == tree


# Dictionary keys.


@pytest.mark.parametrize(
    ("tree", "cause"),
    [
        ({1: 1, "a": 2}, "'<' not supported between instances of 'str' and 'int'"),
        ({None: 1, 2: 2}, "'<' not supported between instances of 'int' and 'NoneType'"),
    ],
)
def test_unsortable_dict_keys(tree, cause):
    message = "Comparator raised exception while sorting pytree dictionary keys."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$") as info:
        tu.tree_flatten(tree)
    assert isinstance(info.value.__cause__, TypeError)
    assert str(info.value.__cause__) == cause
    with pytest.raises(ValueError, match=re.escape(message)):
        tu.tree_flatten_with_path(tree)
    with pytest.raises(ValueError, match=re.escape(message)):
        tu.tree_flatten(collections.defaultdict(list, tree))


def test_ordered_dict_with_unsortable_keys_is_fine():
    tree = collections.OrderedDict([(1, "x"), ("a", "y")])
    assert tu.tree_leaves(tree) == ["x", "y"]


# None and is_leaf.


def test_none_is_an_empty_node():
    assert tu.tree_leaves([None, 1, (None,)]) == [1]
    assert tu.tree_map(lambda x: 1, [None, 2]) == [None, 1]
    assert tu.tree_structure(None).num_leaves == 0
    assert tu.tree_structure({"a": None}).num_leaves == 0


def test_is_leaf():
    assert tu.tree_flatten([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple))[0] == [
        (1, 2),
        3,
    ]
    assert struct([(1, 2), [3]], is_leaf=lambda x: isinstance(x, tuple)) == "PyTreeDef([*, [*]])"
    assert tu.tree_flatten((1, 2), is_leaf=lambda x: True) == ([(1, 2)], tu.tree_structure(1))
    leaves, treedef = tu.tree_flatten([None], is_leaf=lambda x: x is None)
    assert leaves == [None] and repr(treedef) == "PyTreeDef([*])"
    assert tu.tree_map(lambda x: x is None, [None, 1], is_leaf=lambda x: x is None) == [
        True,
        False,
    ]
    # None from the predicate means False, as in JAX.
    assert tu.tree_leaves([1, (2,)], is_leaf=lambda x: None) == [1, 2]


def test_is_leaf_call_order_is_preorder_over_every_subtree():
    calls = []

    def pred(x):
        calls.append(x)
        return False

    tu.tree_flatten({"b": (1, None), "a": [2]}, is_leaf=pred)
    assert calls == [{"b": (1, None), "a": [2]}, [2], 2, (1, None), 1, None]


@pytest.mark.parametrize(
    "flatten",
    [
        tu.tree_flatten,
        tu.tree_flatten_with_path,
        lambda t, is_leaf: tu.tree_map(id, t, is_leaf=is_leaf),
    ],
)
@pytest.mark.parametrize(("result", "shown"), [(1, "1"), (0, "0"), (np.bool_(False), "False")])
def test_is_leaf_must_return_a_bool(flatten, result, shown):
    message = f"is_leaf predicate returned a non-boolean value {shown}; expected a boolean"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        flatten([1, (2,)], is_leaf=lambda x: result)


def test_is_leaf_exceptions_propagate():
    with pytest.raises(ZeroDivisionError):
        tu.tree_flatten([1], is_leaf=lambda x: 1 / 0)


# tree_map and flatten_up_to mismatches.

MISMATCHES = [
    ((1, 2), [1, 2], "Expected tuple, got [1, 2]."),
    ((1, 2), (1, 2, 3), "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."),
    (((1, 3), 2), (1, 2), "Expected tuple, got 1."),
    ((1, 2), NT(1, 2), "Expected tuple, got NT(x=1, y=2)."),
    ([1, 2], (1, 2), "Expected list, got (1, 2)."),
    ([1, 2], [1], "List arity mismatch: 1 != 2; list: [1]."),
    ({"a": 1}, {"b": 1}, "Dict key mismatch; expected keys: ['a']; dict: {'b': 1}."),
    ({"a": 1, "b": 2}, {"a": 1}, "Dict key mismatch; expected keys: ['a', 'b']; dict: {'a': 1}."),
    ({"a": 1}, [1], "Expected dict, got [1]."),
    (
        {"a": 1},
        collections.defaultdict(list, a=1),
        "Expected dict, got defaultdict(<class 'list'>, {'a': 1}).",
    ),
    (
        {"a": 1, "b": 2},
        collections.OrderedDict(b=1, a=2),
        "Expected dict, got OrderedDict([('b', 1), ('a', 2)]).",
    ),
    (NT(1, 2), (1, 2), "Expected named tuple, got (1, 2)."),
    (
        NT(1, 2),
        NT2(1, 2),
        "Named tuple type mismatch: expected type: <class 'test_tree_util.NT'>, "
        "tuple: NT2(x=1, y=2).",
    ),
    (FieldsTuple(1), FieldsTuple(1, 2), "Named tuple arity mismatch: 2 != 1; tuple: (1, 2)."),
    (
        collections.OrderedDict(a=1, b=2),
        collections.OrderedDict(b=1, a=2),
        "Mismatch custom node data: ('a', 'b') != ('b', 'a'); "
        "value: OrderedDict([('b', 1), ('a', 2)]).",
    ),
    (
        collections.OrderedDict(a=1, b=2),
        dict(b=1, a=2),
        "Custom node type mismatch: expected type: <class 'collections.OrderedDict'>, "
        "value: {'b': 1, 'a': 2}.",
    ),
    (
        collections.defaultdict(list, a=1),
        collections.defaultdict(int, a=2),
        "Mismatch custom node data: (<class 'list'>, ('a',)) != (<class 'int'>, ('a',)); "
        "value: defaultdict(<class 'int'>, {'a': 2}).",
    ),
    (Foo("x", 2), Foo("y", 2), "Mismatch custom node data: 'x' != 'y'; value: Foo('y', 2)."),
    (
        Foo(1, 2),
        (1, 2),
        "Custom node type mismatch: expected type: <class 'test_tree_util.Foo'>, value: (1, 2).",
    ),
    (Var(1, 2), Var(1, 2, 3), "Custom type arity mismatch: 3 != 2; value: Var(1, 2, 3)."),
]


@pytest.mark.parametrize(("tree", "other", "message"), MISMATCHES)
def test_flatten_up_to_and_tree_map_mismatch(tree, other, message):
    pattern = f"^{re.escape(message)}$"
    with pytest.raises(ValueError, match=pattern):
        tu.tree_structure(tree).flatten_up_to(other)
    with pytest.raises(ValueError, match=pattern):
        tu.tree_map(lambda a, b: a, tree, other)
    with pytest.raises(ValueError, match=pattern):
        tu.tree_map_with_path(lambda p, a, b: a, tree, other)


def test_tree_map_checks_every_extra_tree():
    message = "Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tu.tree_map(lambda a, b, c: a, (1, 2), (1, 2), (1, 2, 3))


def test_flatten_up_to():
    treedef = tu.tree_structure((1, 2))
    assert treedef.flatten_up_to(((1, 2), [3])) == [(1, 2), [3]]
    assert tu.tree_structure([1, 2]).flatten_up_to([[1], (2,)]) == [[1], (2,)]
    assert tu.tree_structure((None, 1)).flatten_up_to((None, 2)) == [2]
    assert tu.tree_structure(1).flatten_up_to({"a": 1}) == [{"a": 1}]


def test_tree_map_leaf_prefix_passes_whole_subtrees():
    assert tu.tree_map(lambda a, b: (a, b), (1, 2), ((1, 3), [4])) == ((1, (1, 3)), (2, [4]))
    assert tu.tree_map(lambda a, b: (a, b), [1, None], [2, None]) == [(1, 2), None]
    # A leaf against None: f sees the None.
    assert tu.tree_map(lambda a, b: (a, b), (1, 2), (None, 2)) == ((1, None), (2, 2))


NONE_PREFIX = (
    "In a future release of numjax, flatten-up-to will no longer consider None to be a "
    "tree-prefix of non-None values, got: {}.\n\n"
    "To preserve the current behavior, you can usually write:\n"
    "  numjax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
    "is_leaf=lambda x: x is None)"
)


@pytest.mark.parametrize(
    ("tree", "other", "expected", "got"),
    [
        ((None, 2), (1, 2), (None, (2, 2)), "1"),
        ([1, None], [2, 3], [(1, 2), None], "3"),
        (None, (1,), None, "(1,)"),
    ],
)
def test_none_as_prefix_of_a_value_warns(tree, other, expected, got):
    message = f"^{re.escape(NONE_PREFIX.format(got))}$"
    with pytest.warns(DeprecationWarning, match=message) as record:
        assert tu.tree_map(lambda a, b: (a, b), tree, other) == expected
    assert record[0].filename == __file__
    with pytest.warns(DeprecationWarning, match=message):
        tu.tree_structure(tree).flatten_up_to(other)


def test_tree_map():
    assert tu.tree_map(lambda x: x + 1, 1) == 2
    assert tu.tree_map(lambda x: x + 1, ()) == ()
    assert tu.tree_map(lambda x, y: x + y, {"a": 1, "b": (2,)}, {"b": (20,), "a": 10}) == {
        "a": 11,
        "b": (22,),
    }
    calls = []
    tu.tree_map(calls.append, {"b": 1, "a": 2})
    assert calls == [2, 1]


# PyTreeDef methods.


def test_treedef_equality_and_hash():
    a, b = tu.tree_structure((1, 2)), tu.tree_structure((3, 4))
    assert a == b and hash(a) == hash(b)
    assert a != tu.tree_structure([3, 4])
    assert a != tu.tree_structure((1,))
    assert tu.tree_structure(NT(1, 2)) != tu.tree_structure(NT2(1, 2))
    assert tu.tree_structure({"a": 1}) != tu.tree_structure({"b": 1})
    assert tu.tree_structure(Scaled(1, 2, "add")) == tu.tree_structure(Scaled(3, 4, "add"))
    assert tu.tree_structure(Scaled(1, 2, "add")) != tu.tree_structure(Scaled(3, 4, "sub"))
    assert tu.tree_structure([Static(1)]) != tu.tree_structure([Static(2)])
    assert len({a, b, tu.tree_structure([1, 2])}) == 2
    # Deviation: JAX raises TypeError when compared with a non-PyTreeDef.
    assert a != 5


def test_treedef_hash_ignores_aux_data():
    assert hash(tu.tree_structure(ListAux())) == hash(tu.tree_structure(ListAux()))
    assert tu.tree_structure(ListAux()) == tu.tree_structure(ListAux())
    assert hash(tu.tree_structure({"a": 1})) == hash(tu.tree_structure({"b": 1}))


def test_treedef_equality_with_array_aux_raises_like_jax():
    with pytest.raises(ValueError, match="truth value of an array"):
        tu.tree_structure(ArrayAux()) == tu.tree_structure(ArrayAux())  # noqa: B015


def test_treedef_is_not_ordered():
    with pytest.raises(TypeError):
        tu.tree_structure((1, 2)) < tu.tree_structure((1, 2))  # noqa: B015


@pytest.mark.parametrize(
    ("tree", "num_leaves", "num_nodes"),
    [
        ({"a": 1, "b": [2, None]}, 2, 5),
        (1, 1, 1),
        (None, 0, 1),
        ((), 0, 1),
        (Foo(1, (2, 3)), 3, 5),
    ],
)
def test_num_leaves_and_nodes(tree, num_leaves, num_nodes):
    treedef = tu.tree_structure(tree)
    assert (treedef.num_leaves, treedef.num_nodes) == (num_leaves, num_nodes)


@pytest.mark.parametrize(
    ("tree", "children"),
    [
        ({"a": 1, "b": [2, None]}, ["PyTreeDef(*)", "PyTreeDef([*, None])"]),
        (1, []),
        (None, []),
        (Var(1, (2, 3)), ["PyTreeDef(*)", "PyTreeDef((*, *))"]),
        (NT(1, (2,)), ["PyTreeDef(*)", "PyTreeDef((*,))"]),
    ],
)
def test_children(tree, children):
    treedef = tu.tree_structure(tree)
    assert [repr(c) for c in treedef.children()] == children
    assert [repr(c) for c in tu.treedef_children(treedef)] == children


@pytest.mark.parametrize(
    ("tree", "node_data"),
    [
        ({"b": 1, "a": [2, None]}, (dict, ["a", "b"])),
        ((1, 2), (tuple, None)),
        ([1, 2], (list, None)),
        (None, (type(None), None)),
        (1, None),
        (NT(1, 2), (NT, None)),
        (collections.OrderedDict(b=1, a=2), (collections.OrderedDict, ("b", "a"))),
        (
            collections.defaultdict(list, b=1, a=2),
            (collections.defaultdict, (list, ("a", "b"))),
        ),
        (Foo(1, 2), (Foo, "aux")),
        (Scaled(1, 2, "add"), (Scaled, ("add",))),
        (Static(1), (Static, Static(1))),
    ],
)
def test_node_data(tree, node_data):
    assert tu.tree_structure(tree).node_data() == node_data


def test_make_from_node_data_and_children_inverts_node_data():
    for tree in [{"b": 1, "a": [2, None]}, NT(1, (2,)), Foo(1, 2), (1, 2), None]:
        treedef = tu.tree_structure(tree)
        rebuilt = tu.PyTreeDef.make_from_node_data_and_children(
            tu.default_registry, treedef.node_data(), treedef.children()
        )
        assert rebuilt == treedef
    unsorted = tu.PyTreeDef.make_from_node_data_and_children(
        tu.default_registry, (dict, ["b", "a"]), [tu.tree_structure(1), tu.tree_structure([1])]
    )
    assert repr(unsorted) == "PyTreeDef({'b': *, 'a': [*]})"


def test_treedef_predicates_and_constructors():
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert tu.treedef_is_leaf(tu.tree_structure(None))
    assert tu.treedef_is_leaf(tu.tree_structure(()))
    assert not tu.treedef_is_leaf(tu.tree_structure((1,)))
    pair = tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, 2])])
    assert repr(pair) == "PyTreeDef((*, [*, *]))"
    assert pair == tu.tree_structure((1, [2, 3])) and pair.num_leaves == 3
    assert repr(tu.treedef_tuple([])) == "PyTreeDef(())"
    assert tu.treedef_tuple(iter([tu.tree_structure(None)])) == tu.tree_structure((None,))


def test_compose():
    outer, inner = tu.tree_structure((1, 2)), tu.tree_structure([1, None])
    composed = outer.compose(inner)
    assert repr(composed) == "PyTreeDef(([*, None], [*, None]))"
    assert composed == tu.tree_structure(([1, None], [1, None]))
    assert composed.num_leaves == 2
    assert repr(tu.tree_structure(1).compose(tu.tree_structure((1, 2)))) == "PyTreeDef((*, *))"
    assert (
        repr(tu.tree_structure([1, None]).compose(tu.tree_structure((1, 2))))
        == "PyTreeDef([(*, *), None])"
    )


@pytest.mark.parametrize(
    "tree",
    [(1, [2]), {"a": NT(1, None)}, collections.OrderedDict(b=1, a=2), Foo("s", 1), None, 1],
)
def test_treedef_pickles(tree):
    treedef = tu.tree_structure(tree)
    loaded = pickle.loads(pickle.dumps(treedef))
    assert loaded == treedef and repr(loaded) == repr(treedef)
    assert loaded.unflatten(tu.tree_leaves(tree)) == tree


def test_build_tree():
    treedef = tu.tree_structure({"a": 0, "b": [0, None]})
    assert tu.build_tree(treedef, [10, [20, []]]) == {"a": 10, "b": [20, None]}
    assert tu.build_tree(tu.tree_structure({"b": 1, "a": 2}), [10, 20]) == {"a": 10, "b": 20}
    assert tu.build_tree(tu.tree_structure((1, 2)), [10, 20]) == (10, 20)
    assert tu.build_tree(tu.tree_structure(1), 5) == 5
    assert tu.build_tree(tu.tree_structure(Foo(1, 2)), ["a", "b"]) == Foo("a", "b")
    with pytest.raises(ValueError, match="^Arity mismatch between trees$"):
        tu.build_tree(tu.tree_structure((1, 2)), [10, 20, 30])
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        tu.build_tree(treedef, [10, [20, 30]])


def test_all_leaves():
    assert tu.all_leaves([1, 2, np.zeros(2)])
    assert not tu.all_leaves([1, (2,)])
    assert not tu.all_leaves([None])
    assert not tu.all_leaves([NT(1, 2)])
    assert tu.all_leaves([(1,), (2,)], is_leaf=lambda x: isinstance(x, tuple))
    assert tu.all_leaves([])


# Transpose, all, reduce.


def test_tree_transpose():
    outer, inner = tu.tree_structure([0, 0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4), (5, 6)]) == ([1, 3, 5], [2, 4, 6])
    assert tu.tree_transpose(outer, None, [(1, 2), (3, 4), (5, 6)]) == ([1, 3, 5], [2, 4, 6])
    # Only the number of leaves is checked, as in JAX.
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4), [5, 6]]) == ([1, 3, 5], [2, 4, 6])
    transposed = tu.tree_transpose(
        tu.tree_structure({"a": 0, "b": 0}),
        tu.tree_structure([0, 0]),
        {"a": [1, 2], "b": [3, 4]},
    )
    assert transposed == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]


@pytest.mark.parametrize(
    ("outer", "tree", "message"),
    [
        (
            [0, 0],
            [(1, 2), (3, 4), (5, 6)],
            "Mismatch\nPyTreeDef([(*, *), (*, *), (*, *)])\n != \nPyTreeDef([(*, *), (*, *)])",
        ),
        (
            [0, 0, 0],
            [(1, 2), (3, 4), (5, (6, 7))],
            "Mismatch\nPyTreeDef([(*, *), (*, *), (*, (*, *))])\n != \n"
            "PyTreeDef([(*, *), (*, *), (*, *)])",
        ),
    ],
)
def test_tree_transpose_mismatch(outer, tree, message):
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        tu.tree_transpose(tu.tree_structure(outer), tu.tree_structure((0, 0)), tree)


def test_tree_all():
    assert not tu.tree_all([1, (True, 0)])
    assert tu.tree_all([])
    assert tu.tree_all([None])
    assert tu.tree_all([1, (2,)])
    assert tu.tree_all([(1, 0)], is_leaf=lambda x: isinstance(x, tuple))


def test_tree_reduce():
    assert tu.tree_reduce(operator.add, [1, (2, 3)]) == 6
    assert tu.tree_reduce(operator.add, [1, (2, 3)], 10) == 16
    assert tu.tree_reduce(operator.add, [], 0) == 0
    assert tu.tree_reduce(operator.add, [None, 1]) == 1
    assert tu.tree_reduce(operator.add, [(1,), (2,)], is_leaf=lambda x: type(x) is tuple) == (1, 2)
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
        tu.tree_reduce(operator.add, [])


# Registration.


def test_duplicate_registration():
    for nodetype in [Foo, tuple, list, dict, type(None), collections.OrderedDict, tu.Partial]:
        message = f"Duplicate custom PyTreeDef type registration for {nodetype!r}."
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            tu.register_pytree_node(nodetype, lambda x: ((), None), lambda a, c: None)


def test_registering_a_namedtuple_type_overrides_namedtuple_handling():
    Swapped = collections.namedtuple("Swapped", "a b")
    assert struct(Swapped(1, 2)) == "PyTreeDef(CustomNode(namedtuple[Swapped], [*, *]))"
    tu.register_pytree_node(
        Swapped, lambda n: ((n.b, n.a), "swapped"), lambda _, ch: Swapped(ch[1], ch[0])
    )
    leaves, treedef = tu.tree_flatten(Swapped(1, 2))
    assert leaves == [2, 1]
    assert repr(treedef) == "PyTreeDef(CustomNode(Swapped[swapped], [*, *]))"
    assert tu.tree_leaves_with_path(Swapped(1, 2)) == [
        ((tu.FlattenedIndexKey(0),), 2),
        ((tu.FlattenedIndexKey(1),), 1),
    ]


def test_class_decorators():
    assert tu.tree_leaves(Box(1, (2, 3))) == [1, 2, 3]
    assert tu.tree_map(lambda x: x * 2, Box(1, 2)).b == 4
    assert not hasattr(KeyedBox, "tree_flatten")
    assert tu.tree_flatten(KeyedBox(1, 2))[0] == [1, 2]
    assert tu.tree_map(lambda x: x * 2, KeyedBox(1, 2)).b == 4


def test_register_with_keys_uses_flatten_func_for_plain_flattening():
    class Both:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tu.register_pytree_with_keys(
        Both,
        lambda x: (((tu.GetAttrKey("a"), x.a), (tu.GetAttrKey("b"), x.b)), "keys"),
        lambda _, ch: Both(*ch),
        flatten_func=lambda x: ((x.b, x.a), "plain"),
    )
    leaves, treedef = tu.tree_flatten(Both(1, [2]))
    assert leaves == [2, 1]
    assert repr(treedef) == "PyTreeDef(CustomNode(Both[plain], [[*], *]))"
    assert tu.tree_leaves_with_path(Both(1, [2])) == [
        ((tu.GetAttrKey("a"),), 1),
        ((tu.GetAttrKey("b"), tu.SequenceKey(0)), 2),
    ]


def test_register_dataclass():
    leaves, treedef = tu.tree_flatten(Scaled(1, 2, "add"))
    assert leaves == [1, 2]
    assert tu.tree_unflatten(treedef, [5, 6]) == Scaled(5, 6, "add")
    assert treedef.node_data() == (Scaled, ("add",))
    # Unflattening calls the constructor with the registered fields only.
    assert tu.tree_map(lambda v: v, PartlyRegistered(1, 7)) == PartlyRegistered(1, 0)
    with pytest.raises(TypeError, match="missing 2 required positional arguments"):
        tu.register_dataclass(Scaled)  # type: ignore[call-arg]


def test_register_dataclass_calls_init_on_unflatten():
    log = []

    @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["m"])
    @dataclasses.dataclass
    class Logged:
        x: int
        m: int

        def __post_init__(self):
            log.append("post_init")

    assert tu.tree_map(lambda v: v + 1, Logged(1, 2)) == Logged(2, 2)
    assert log == ["post_init"] * 3


def test_register_static():
    assert tu.tree_flatten([Static(1), 2])[0] == [2]
    assert tu.tree_unflatten(tu.tree_structure([Static(1), 2]), [3]) == [Static(1), 3]
    assert tu.tree_leaves_with_path([Static(1), 2]) == [((tu.SequenceKey(1),), 2)]


def test_default_registry():
    leaves, treedef = tu.default_registry.flatten({"b": 1, "a": (2,)})
    assert leaves == [2, 1] and repr(treedef) == "PyTreeDef({'a': (*,), 'b': *})"
    assert tu.default_registry.flatten([(1,)], lambda x: type(x) is tuple)[0] == [(1,)]


# Key paths.

MIXED = {
    "a": (1, [2]),
    "b": NT(3, None),
    "c": collections.OrderedDict(z=4, y=5),
    "d": collections.defaultdict(list, {"q": 6}),
    "e": Foo(7, 8),
    "f": None,
}


def test_flatten_with_path_over_every_container():
    keyed, treedef = tu.tree_flatten_with_path(MIXED)
    assert repr(keyed) == (
        "[((DictKey(key='a'), SequenceKey(idx=0)), 1), "
        "((DictKey(key='a'), SequenceKey(idx=1), SequenceKey(idx=0)), 2), "
        "((DictKey(key='b'), GetAttrKey(name='x')), 3), "
        "((DictKey(key='c'), DictKey(key='z')), 4), "
        "((DictKey(key='c'), DictKey(key='y')), 5), "
        "((DictKey(key='d'), DictKey(key='q')), 6), "
        "((DictKey(key='e'), FlattenedIndexKey(key=0)), 7), "
        "((DictKey(key='e'), FlattenedIndexKey(key=1)), 8)]"
    )
    assert repr(treedef) == (
        "PyTreeDef({'a': (*, [*]), 'b': CustomNode(namedtuple[NT], [*, None]), "
        "'c': CustomNode(OrderedDict[('z', 'y')], [*, *]), "
        "'d': CustomNode(defaultdict[(<class 'list'>, ('q',))], [*]), "
        "'e': CustomNode(Foo[aux], [*, *]), 'f': None})"
    )
    assert treedef == tu.tree_structure(MIXED)
    assert tu.tree_leaves_with_path(MIXED) == keyed
    assert [tu.keystr(p) for p, _ in keyed] == [
        "['a'][0]",
        "['a'][1][0]",
        "['b'].x",
        "['c']['z']",
        "['c']['y']",
        "['d']['q']",
        "['e'][<flat index 0>]",
        "['e'][<flat index 1>]",
    ]


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        (5, [((), 5)]),
        (
            tu.Partial(max, 1, k=2),
            [
                ((tu.FlattenedIndexKey(0), tu.SequenceKey(0)), 1),
                ((tu.FlattenedIndexKey(1), tu.DictKey("k")), 2),
            ],
        ),
        (
            Point(1, [2]),
            [((tu.GetAttrKey("x"),), 1), ((tu.GetAttrKey("y"), tu.SequenceKey(0)), 2)],
        ),
        (
            Box(1, (2, 3)),
            [
                ((tu.FlattenedIndexKey(0),), 1),
                ((tu.FlattenedIndexKey(1), tu.SequenceKey(0)), 2),
                ((tu.FlattenedIndexKey(1), tu.SequenceKey(1)), 3),
            ],
        ),
        (
            KeyedBox(1, (2, 3)),
            [
                ((tu.GetAttrKey("a"),), 1),
                ((tu.GetAttrKey("b"), tu.SequenceKey(0)), 2),
                ((tu.GetAttrKey("b"), tu.SequenceKey(1)), 3),
            ],
        ),
        (Scaled(1, 2, "add"), [((tu.GetAttrKey("x"),), 1), ((tu.GetAttrKey("y"),), 2)]),
        ({"a": None, "b": 1}, [((tu.DictKey("b"),), 1)]),
        (
            Var(1, {"a": 2}),
            [((tu.FlattenedIndexKey(0),), 1), ((tu.FlattenedIndexKey(1), tu.DictKey("a")), 2)],
        ),
    ],
)
def test_leaves_with_path(tree, expected):
    assert tu.tree_leaves_with_path(tree) == expected
    keyed, treedef = tu.tree_flatten_with_path(tree)
    assert keyed == expected and treedef == tu.tree_structure(tree)


def test_flatten_with_path_is_leaf():
    keyed, treedef = tu.tree_flatten_with_path((1, (2, 3)), is_leaf=lambda x: x == (2, 3))
    assert keyed == [((tu.SequenceKey(0),), 1), ((tu.SequenceKey(1),), (2, 3))]
    assert repr(treedef) == "PyTreeDef((*, *))"


def test_tree_map_with_path():
    out = tu.tree_map_with_path(lambda p, x, y: (tu.keystr(p), x, y), (1, {"a": 2}), (3, {"a": 4}))
    assert out == (("[0]", 1, 3), {"a": ("[1]['a']", 2, 4)})
    out = tu.tree_map_with_path(
        lambda p, x: (tu.keystr(p), x), (1, (2, 3)), is_leaf=lambda x: x == (2, 3)
    )
    assert out == (("[0]", 1), ("[1]", (2, 3)))


def test_key_reprs_and_strs():
    keys = [
        tu.GetAttrKey("x"),
        tu.DictKey("x"),
        tu.DictKey(1),
        tu.SequenceKey(2),
        tu.FlattenedIndexKey(3),
        tu.DictKey((1, "a")),
        tu.DictKey("it's"),
    ]
    assert [repr(k) for k in keys] == [
        "GetAttrKey(name='x')",
        "DictKey(key='x')",
        "DictKey(key=1)",
        "SequenceKey(idx=2)",
        "FlattenedIndexKey(key=3)",
        "DictKey(key=(1, 'a'))",
        'DictKey(key="it\'s")',
    ]
    assert [str(k) for k in keys] == [
        ".x",
        "['x']",
        "[1]",
        "[2]",
        "[<flat index 3>]",
        "[(1, 'a')]",
        '["it\'s"]',
    ]


def test_key_semantics():
    assert tu.DictKey("a") == tu.DictKey("a")
    assert hash(tu.DictKey("a")) == hash(tu.DictKey("a"))
    assert tu.SequenceKey(1) != tu.FlattenedIndexKey(1)
    assert (tu.GetAttrKey("x").name, tu.DictKey("x").key) == ("x", "x")
    assert (tu.SequenceKey(2).idx, tu.FlattenedIndexKey(3).key) == (2, 3)
    assert all(dataclasses.is_dataclass(k) for k in [tu.GetAttrKey("x"), tu.DictKey("x")])
    assert repr(tu.DictKey([1])) == "DictKey(key=[1])"
    with pytest.raises(dataclasses.FrozenInstanceError):
        tu.DictKey("x").key = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        tu.DictKey("a") < tu.DictKey("b")  # type: ignore[operator]  # noqa: B015
    assert pickle.loads(pickle.dumps(tu.DictKey("a"))) == tu.DictKey("a")


def test_keystr():
    path = (tu.DictKey("a"), tu.GetAttrKey("b"), tu.SequenceKey(0), tu.FlattenedIndexKey(3))
    assert tu.keystr(path) == "['a'].b[0][<flat index 3>]"
    assert tu.keystr(()) == ""
    assert tu.keystr(("a", 1)) == "a1"


# Partial.


def test_partial_is_a_pytree():
    p = tu.Partial(max, 1, k=2)
    assert repr(p) == str(p) == "Partial(<built-in function max>, 1, k=2)"
    assert tu.tree_leaves(p) == [1, 2]
    mapped = tu.tree_map(lambda x: x * 10, p)
    assert type(mapped) is tu.Partial
    assert repr(mapped) == "Partial(<built-in function max>, 10, k=20)"
    assert tu.tree_map(lambda x: x * 10, tu.Partial(lambda a, b, k: (a, b, k), 1, k=2))(7) == (
        10,
        7,
        20,
    )
    assert tu.Partial(max, 1)(3) == 3
    assert tu.Partial(lambda a, k=0: (a, k), k=1)(1, k=5) == (1, 5)
    assert isinstance(p, functools.partial)
    assert tu.tree_map(lambda x: x, tu.Partial(max, b=1, a=2)).keywords == {"a": 2, "b": 1}


def test_partial_equality_is_identity_and_treedefs_compare_functions():
    assert tu.Partial(max, 1) != tu.Partial(max, 1)
    p = tu.Partial(max, 1)
    assert p == p and hash(p) == hash(p)
    assert tu.tree_structure(tu.Partial(max, 1)) == tu.tree_structure(tu.Partial(max, 2))
    assert hash(tu.tree_structure(tu.Partial(max, 1))) == hash(
        tu.tree_structure(tu.Partial(max, 2))
    )
    assert tu.tree_structure(tu.Partial(max, 1)) != tu.tree_structure(tu.Partial(min, 2))


def test_partial_of_partial_keeps_inner_arguments_out_of_the_tree():
    inner = tu.Partial(lambda *a: a, 1)
    outer = tu.Partial(inner, 2)
    assert outer(3) == (1, 2, 3)
    assert outer.args == (2,)
    assert tu.tree_leaves(outer) == [2]
    assert tu.tree_map(lambda x: x * 10, outer)(3) == (1, 20, 3)
    shim = outer.func
    assert repr(shim).startswith("_HashableCallableShim(Partial(<function ")
    assert (shim.func, shim.args, shim.keywords) == (inner.func, (1,), {})
    assert shim == inner and hash(shim) == hash(inner)
    assert tu.tree_structure(tu.Partial(inner, 2)) == tu.tree_structure(tu.Partial(inner, 3))
    # Distinct inner Partials compare by identity, so their treedefs differ.
    assert tu.tree_structure(tu.Partial(tu.Partial(max, 1), 2)) != tu.tree_structure(
        tu.Partial(tu.Partial(max, 1), 3)
    )
    assert repr(tu.Partial(tu.Partial(max, 1), 2)) == (
        "Partial(_HashableCallableShim(Partial(<built-in function max>, 1)), 2)"
    )


def test_partial_pickles():
    loaded = pickle.loads(pickle.dumps(tu.Partial(max, 1)))
    assert type(loaded) is tu.Partial and loaded(3) == 3
    assert repr(loaded) == "Partial(<built-in function max>, 1)"


# Namespaces and documentation.


def test_public_namespaces():
    assert sorted(n for n in dir(tu) if not n.startswith("_")) == [
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
    assert sorted(numjax.tree.__all__) == [
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
    assert numjax.tree.map is tu.tree_map and numjax.tree.all is tu.tree_all


def test_tree_namespace():
    tree = {"b": [1, 2], "a": (3, None)}
    leaves, treedef = numjax.tree.flatten(tree)
    assert leaves == numjax.tree.leaves(tree) == [3, 1, 2]
    assert numjax.tree.structure(tree) == treedef
    assert numjax.tree.unflatten(treedef, leaves) == tree
    assert numjax.tree.map(lambda x: -x, tree) == {"b": [-1, -2], "a": (-3, None)}
    assert numjax.tree.reduce(operator.add, tree) == 6
    assert numjax.tree.all(tree)
    assert [tu.keystr(p) for p, _ in numjax.tree.leaves_with_path(tree)] == [
        "['a'][0]",
        "['b'][0]",
        "['b'][1]",
    ]
    assert numjax.tree.flatten_with_path(tree)[1] == treedef
    assert numjax.tree.map_with_path(lambda p, x: len(p), tree) == {"b": [2, 2], "a": (2, None)}
    outer = numjax.tree.structure([0, 0])
    assert numjax.tree.transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])


@pytest.mark.parametrize("module", [tree_util_impl, numjax.tree])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0


def test_every_public_function_has_an_example():
    for name in dir(tu):
        obj = getattr(tu, name)
        if name.startswith("_") or not callable(obj):
            continue
        assert obj.__doc__ and ">>>" in obj.__doc__, name


# Property tests: arbitrary nestings of the builtin containers.

leaf_values = st.one_of(st.integers(), st.floats(allow_nan=False), st.text(max_size=3))
trees = st.recursive(
    leaf_values | st.none(),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), children, max_size=4),
        st.tuples(children, children).map(lambda xy: NT(*xy)),
        st.dictionaries(st.text(max_size=3), children, max_size=4).map(collections.OrderedDict),
    ),
    max_leaves=20,
)


@given(trees)
def test_round_trip_property(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert tu.tree_structure(tu.tree_map(lambda x: x, tree)) == treedef
    assert pickle.loads(pickle.dumps(treedef)) == treedef
    keyed, keyed_treedef = tu.tree_flatten_with_path(tree)
    assert keyed_treedef == treedef and [leaf for _, leaf in keyed] == leaves
    assert treedef.flatten_up_to(tree) == leaves
    assert tu.build_tree(treedef, _iterable_tree(tree)) == tree


def _iterable_tree(tree):
    """`tree` as the nested lists `build_tree` takes: node children in flattening order."""
    if type(tree) is dict:
        return [_iterable_tree(tree[k]) for k in sorted(tree)]
    if isinstance(tree, (list, tuple, collections.OrderedDict)):
        return [_iterable_tree(c) for c in (tree.values() if isinstance(tree, dict) else tree)]
    return [] if tree is None else tree


class _Fields:
    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


def test_flatten_with_path_keeps_plain_flattening_structure() -> None:
    # A type registered with both a keyed and a plain flatten that give different aux data
    # (chex's dataclasses): the structure is the plain one's, as JAX 0.4.30 builds it.
    tu.register_pytree_with_keys(
        _Fields,
        lambda p: ([(tu.GetAttrKey(k), v) for k, v in sorted(p.__dict__.items())],
                   [tu.GetAttrKey(k) for k in sorted(p.__dict__)]),
        lambda names, values: _Fields(**dict(zip(names, values, strict=True))),
        flatten_func=lambda p: ([v for _, v in sorted(p.__dict__.items())], sorted(p.__dict__)))
    pairs, treedef = tu.tree_flatten_with_path(_Fields(a=1, b=2))
    assert pairs == [((tu.GetAttrKey("a"),), 1), ((tu.GetAttrKey("b"),), 2)]
    assert str(treedef) == "PyTreeDef(CustomNode(_Fields[['a', 'b']], [*, *]))"
    assert treedef.unflatten([3, 4]).__dict__ == {"a": 3, "b": 4}
    assert treedef == tu.tree_structure(_Fields(a=5, b=6))


def test_broadcast_prefix() -> None:
    # jax._src.tree_util.broadcast_prefix (flax.nnx imports it), JAX 0.4.30's results.
    from numjax._src.tree_util import broadcast_prefix

    assert broadcast_prefix((0, 1), ([1, 2], {"a": 3})) == [0, 0, 1]
    assert broadcast_prefix((0, None), ([1, 2], {"a": 3}), is_leaf=lambda x: x is None) == [
        0, 0, None]
    with pytest.raises(ValueError):
        broadcast_prefix((0, 1, 2), ([1, 2], {"a": 3}))


def test_treedef_walk() -> None:
    """PyTreeDef.walk folds bottom-up: f_leaf on each leaf, f_node(children's results, node
    data) on each node (JAX 0.4.30's visiting order and results below)."""
    d = {"b": 2, "a": 1, "c": {"b": 2, "a": 1}, "t": (3, None), "l": [4]}
    leaves, treedef = tu.tree_flatten(d)
    log: list[typing.Any] = []

    def f_node(node: typing.Any, data: typing.Any) -> typing.Any:
        log.append(("node", node, data))
        return ("N", node)

    def f_leaf(leaf: typing.Any) -> typing.Any:
        log.append(("leaf", leaf))
        return leaf * 10

    out = treedef.walk(f_node, f_leaf, leaves)
    assert out == ("N", (10, 20, ("N", (10, 20)), ("N", (40,)), ("N", (30, ("N", ())))))
    assert log == [
        ("leaf", 1), ("leaf", 2), ("leaf", 1), ("leaf", 2), ("node", (10, 20), ["a", "b"]),
        ("leaf", 4), ("node", (40,), None), ("leaf", 3), ("node", (), None),
        ("node", (30, ("N", ())), None),
        ("node", (10, 20, ("N", (10, 20)), ("N", (40,)), ("N", (30, ("N", ())))),
         ["a", "b", "c", "l", "t"]),
    ]  # fmt: skip
    assert tu.tree_structure(5).walk(f_node, lambda x: x + 1, [5]) == 6
    with pytest.raises(ValueError, match="^Too few leaves for PyTreeDef$"):
        treedef.walk(f_node, f_leaf, [1, 2])
    with pytest.raises(ValueError, match="^Too many leaves for PyTreeDef$"):
        tu.tree_structure(5).walk(f_node, f_leaf, [1, 2])


# PyTreeDef.serialize_using_proto's bytes, as JAX 0.4.30 writes them (PyTreeDefProto: nodes in
# post-order, dict keys interned in order of first use).
PROTO_CASES = [
    ([1, [2], (3,), {"a": 4, "b": 5}],
     b"\n\x02\x10\x01\n\x02\x10\x01\n\x04\x08\x01\x10\x02\n\x02\x10\x01\n\x04\x08\x01\x10\x04"
     b"\n\x02\x10\x01\n\x02\x10\x01\n\n\x08\x02\x10\x05\x1a\x04\n\x02\x00\x01"
     b"\n\x04\x08\x04\x10\x02\x12\x01a\x12\x01b"),
    (None, b"\n\x02\x10\x03"),
    (1, b"\n\x02\x10\x01"),
    ((), b"\n\x02\x10\x04"),
    ({}, b"\n\x02\x10\x05"),
    ({"a": None}, b"\n\x02\x10\x03\n\t\x08\x01\x10\x05\x1a\x03\n\x01\x00\x12\x01a"),
    ({"b": {"z": 1, "a": 2}, "a": 3},
     b"\n\x02\x10\x01\n\x02\x10\x01\n\x02\x10\x01\n\n\x08\x02\x10\x05\x1a\x04\n\x02\x00\x01"
     b"\n\n\x08\x02\x10\x05\x1a\x04\n\x02\x00\x02\x12\x01a\x12\x01z\x12\x01b"),
    ([{"x": 1}, {"x": 2, "y": 3}],
     b"\n\x02\x10\x01\n\t\x08\x01\x10\x05\x1a\x03\n\x01\x00\n\x02\x10\x01\n\x02\x10\x01"
     b"\n\n\x08\x02\x10\x05\x1a\x04\n\x02\x00\x01\n\x04\x08\x02\x10\x02\x12\x01x\x12\x01y"),
    ([(1, (2, 3)), None, []],
     b"\n\x02\x10\x01\n\x02\x10\x01\n\x02\x10\x01\n\x04\x08\x02\x10\x04\n\x04\x08\x02\x10\x04"
     b"\n\x02\x10\x03\n\x02\x10\x02\n\x04\x08\x03\x10\x02"),
    ({"": 1}, b"\n\x02\x10\x01\n\t\x08\x01\x10\x05\x1a\x03\n\x01\x00\x12\x00"),
    ({"\u00e9": [None]},
     b"\n\x02\x10\x03\n\x04\x08\x01\x10\x02\n\t\x08\x01\x10\x05\x1a\x03\n\x01\x00\x12\x02\xc3\xa9"),
]


@pytest.mark.parametrize("tree,data", PROTO_CASES, ids=[repr(c[0]) for c in PROTO_CASES])
def test_serialize_using_proto(tree: typing.Any, data: bytes) -> None:
    treedef = tu.tree_structure(tree)
    assert treedef.serialize_using_proto() == data
    back = tu.PyTreeDef.deserialize_using_proto(tu.default_registry, data)
    assert back == treedef
    assert repr(back) == repr(treedef)


def test_serialize_using_proto_refusals() -> None:
    """JAX 0.4.30's errors: keys that are not strings, and user-defined nodes (namedtuples
    and OrderedDicts included)."""
    with pytest.raises(ValueError, match="^Only string keys are supported in proto pytree "
                                         r"serialization\.$"):
        tu.tree_structure({1: 2}).serialize_using_proto()
    for tree in (NT(1, 2), collections.OrderedDict(a=1)):
        with pytest.raises(ValueError, match="^User-defined nodes are not supported when "
                                             "serializing pytrees as protocol buffers"):
            tu.tree_structure(tree).serialize_using_proto()


# Malformed messages and JAX 0.4.30's errors for them (garbage: XlaRuntimeError).
BAD_PROTOS = [
    (b"", RuntimeError, r"^PyTreeDef traversal did not yield a singleton\.$"),
    (b"\n\x02\x10\x01\n\x02\x10\x01", RuntimeError,
     r"^PyTreeDef traversal did not yield a singleton\.$"),
    (b"\n\x02\x10\x09", ValueError, r"^Malformed pytree proto \(invalid node type\)$"),
    (b"\n\x02\x10\x00", ValueError, r"^Malformed pytree proto \(invalid node type\)$"),
    (b"\n\x02\x10\x01\n\x04\x08\x01\x10\x05", RuntimeError,
     r"^Number of keys and entries does not match\.$"),
    (b"\n\x02\x10\x01\n\t\x08\x01\x10\x05\x1a\x03\n\x01\x00", ValueError,
     r"^Malformed pytree proto \(dict_key out of range\)\.$"),
    (b"\x01\x02", XlaRuntimeError, r"^Could not deserialize PyTreeDefProto\.$"),
]


@pytest.mark.parametrize("data,error,message", BAD_PROTOS)
def test_deserialize_using_proto_errors(data: bytes, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        tu.PyTreeDef.deserialize_using_proto(tu.default_registry, data)


def test_deserialize_using_proto_keeps_the_keys_as_written() -> None:
    """JAX 0.4.30 takes a dict's keys in the message's order, unsorted."""
    data = (b"\n\x02\x10\x01\n\x02\x10\x01\n\n\x08\x02\x10\x05\x1a\x04\n\x02\x01\x00"
            b"\x12\x01a\x12\x01b")
    treedef = tu.PyTreeDef.deserialize_using_proto(tu.default_registry, data)
    assert repr(treedef) == "PyTreeDef({'b': *, 'a': *})"
    with pytest.raises(TypeError):
        tu.PyTreeDef.deserialize_using_proto(tu.default_registry, "text")  # type: ignore[arg-type]

"""Functions with stacked generator transformations (JAX's `linear_util`), as libraries build
flattened or otherwise wrapped callables with them.

A transformation is a generator function `gen(*static_args, *args, **kwargs)`: it yields the
`(args, kwargs)` to call the inner function with, receives the inner result, and yields its own
result (with `transformation_with_aux`: `(result, aux)`, the aux kept in a `Store`). The most
recently added transformation runs outermost.

>>> from numjax.extend import linear_util as lu
>>> @lu.transformation
... def double_args(*args):
...     out = yield tuple(2 * a for a in args), {}
...     yield out + 1
>>> double_args(lu.wrap_init(lambda x, y: x * y)).call_wrapped(1, 2)
9
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import Any

Transformation = Callable[..., Generator[Any, Any, Any]]


class StoreException(Exception):
    """Reading an empty `Store` or writing a full one."""


_EMPTY = object()


class Store:
    """One auxiliary output of a transformation, written once."""

    __slots__ = ("_val",)

    def __init__(self) -> None:
        self._val: Any = _EMPTY

    def store(self, val: Any) -> None:
        if self._val is not _EMPTY:
            raise StoreException("Store occupied")
        self._val = val

    def reset(self) -> None:
        self._val = _EMPTY

    @property
    def val(self) -> Any:
        if self._val is _EMPTY:
            raise StoreException("Store empty")
        return self._val

    def __bool__(self) -> bool:
        return self._val is not _EMPTY


class WrappedFun:
    """`f` with `transforms` (outermost first), their aux `stores` and keyword `params`."""

    __slots__ = ("f", "transforms", "stores", "params", "in_type", "debug_info")

    def __init__(self, f: Callable[..., Any], transforms: tuple[Any, ...],
                 stores: tuple[Store | None, ...], params: tuple[tuple[str, Any], ...],
                 in_type: Any = None, debug_info: Any = None) -> None:
        self.f = f
        self.transforms = transforms
        self.stores = stores
        self.params = params
        self.in_type = in_type
        self.debug_info = debug_info

    @property
    def __name__(self) -> str:
        return getattr(self.f, "__name__", "<unnamed wrapped function>")

    def wrap(self, gen: Transformation, gen_static_args: tuple[Any, ...],
             out_store: Store | None) -> WrappedFun:
        """This function with `gen` added as the new outermost transformation."""
        return WrappedFun(self.f, ((gen, gen_static_args), *self.transforms),
                          (out_store, *self.stores), self.params)

    def populate_stores(self, stores: tuple[Store | None, ...]) -> None:
        """Copy the values of `stores` (another run's) into this function's stores."""
        for mine, other in zip(self.stores, stores, strict=True):
            if mine is not None and other is not None:
                mine.store(other.val)

    def call_wrapped(self, *args: Any, **kwargs: Any) -> Any:
        """Run the transformations' first halves outside-in, `f`, then their second halves."""
        running = []
        try:
            for (gen, static_args), store in zip(self.transforms, self.stores, strict=True):
                g = gen(*static_args, *args, **kwargs)
                args, kwargs = next(g)
                running.append((g, store))
            ans = self.f(*args, **dict(self.params, **kwargs))
            while running:
                g, store = running.pop()
                ans = g.send(ans)
                if store is not None:
                    ans, aux = ans
                    store.store(aux)
        except BaseException:
            for g, _ in running:  # the generators still suspended
                g.close()
            raise
        return ans

    def __repr__(self) -> str:
        lines = [f"{i}   : {getattr(g, '__name__', g)}   {a}"
                 for i, (g, a) in enumerate(self.transforms)]
        return "Wrapped function:\n" + "\n".join(lines) + f"\nCore: {self.__name__}\n"

    def _key(self) -> tuple[Any, ...]:
        return (self.f, self.transforms, self.params, self.in_type, self.debug_info)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WrappedFun) and self._key() == other._key()


def wrap_init(f: Callable[..., Any], params: dict[str, Any] | None = None) -> WrappedFun:
    """`f` with no transformations; `params` are passed to it as keyword arguments."""
    return WrappedFun(f, (), (), tuple(sorted((params or {}).items())))


def transformation(gen: Transformation) -> Callable[..., WrappedFun]:
    """Decorator: `gen(fun, *static_args)` adds `gen` to the WrappedFun `fun`."""

    @functools.wraps(gen)
    def add(fun: WrappedFun, *gen_static_args: Any) -> WrappedFun:
        return fun.wrap(gen, gen_static_args, None)

    return add


def transformation_with_aux(gen: Transformation) -> Callable[..., tuple[WrappedFun, Any]]:
    """Decorator: `gen(fun, *static_args)` is `(wrapped, aux_thunk)`; `gen`'s last yield is
    `(result, aux)` and `aux_thunk()` reads the aux after a call."""

    @functools.wraps(gen)
    def add(fun: WrappedFun, *gen_static_args: Any) -> tuple[WrappedFun, Callable[[], Any]]:
        store = Store()
        return fun.wrap(gen, gen_static_args, store), lambda: store.val

    return add

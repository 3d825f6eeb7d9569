"""`jax.util`: the small list and function helpers JAX 0.4.30 still exports publicly.

Libraries use them in pytree flatteners and wrappers (e.g. `unzip2` in a dataclass flatten).

>>> from numjax.util import safe_zip, split_list, unzip2
>>> unzip2([("a", 1), ("b", 2)])
(('a', 'b'), (1, 2))
>>> split_list([1, 2, 3, 4], [1, 2])
[[1], [2, 3], [4]]
>>> safe_zip([1, 2], [3, 4])
[(1, 3), (2, 4)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def _check_lengths(name: str, args: list[list[Any]]) -> None:
    # The text of zip(strict=True), naming the helper, as JAX's C implementation does.
    n = len(args[0])
    for i, arg in enumerate(args[1:], start=2):
        if len(arg) != n:
            relation = "shorter" if len(arg) < n else "longer"
            raise ValueError(f"{name}() argument {i} is {relation} than argument 1")


def safe_map(f: Callable[..., T], *args: Iterable[Any]) -> list[T]:
    """`list(map(f, *args))` that raises ValueError unless the iterables have one length."""
    lists = [list(a) for a in args]
    _check_lengths("safe_map", lists)
    return list(map(f, *lists))


def safe_zip(*args: Iterable[Any]) -> list[tuple[Any, ...]]:
    """`list(zip(*args))` that raises ValueError unless the iterables have one length."""
    lists = [list(a) for a in args]
    _check_lengths("safe_zip", lists)
    return list(zip(*lists, strict=False))


def unzip2(xys: Iterable[tuple[Any, Any]]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Pairs -> (firsts, seconds), always two tuples (also for no pairs)."""
    xs: list[Any] = []
    ys: list[Any] = []
    for x, y in xys:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def subvals(lst: Iterable[Any], replace: Iterable[tuple[int, Any]]) -> tuple[Any, ...]:
    """`lst` as a tuple with the `(index, value)` pairs of `replace` substituted."""
    out = list(lst)
    for i, v in replace:
        out[i] = v
    return tuple(out)


def split_list(args: Sequence[T], ns: Sequence[int]) -> list[list[T]]:
    """Consecutive pieces of sizes `ns`, then the rest (`len(ns) + 1` lists)."""
    rest = list(args)
    pieces = []
    for n in ns:
        pieces.append(rest[:n])
        rest = rest[n:]
    pieces.append(rest)
    return pieces


def split_list_checked(args: Sequence[T], ns: Sequence[int]) -> list[list[T]]:
    """Consecutive pieces of sizes `ns`, which must add up to `len(args)`."""
    if sum(ns) != len(args):
        raise ValueError(f"split_list_checked: sizes {list(ns)} do not add up to {len(args)}")
    return split_list(args, ns)[:-1]


def split_dict(dct: dict[Any, Any], names: Sequence[Any]) -> list[Any]:
    """The values of `names`, in order; `dct` must have no other keys."""
    rest = dict(dct)
    values = [rest.pop(name) for name in names]
    if rest:
        raise ValueError(f"split_dict: unexpected keys {list(rest)}")
    return values


def split_merge(
    predicate: Callable[[Any], bool], xs: Sequence[Any]
) -> tuple[list[Any], list[Any], Callable[[Sequence[Any], Sequence[Any]], list[Any]]]:
    """Split `xs` by `predicate`; `merge(new_true, new_false)` puts replacements back in order."""
    sides = [bool(predicate(x)) for x in xs]
    trues = [x for x, s in zip(xs, sides, strict=True) if s]
    falses = [x for x, s in zip(xs, sides, strict=True) if not s]

    def merge(new_trues: Sequence[Any], new_falses: Sequence[Any]) -> list[Any]:
        if len(new_trues) != len(trues) or len(new_falses) != len(falses):
            raise ValueError("split_merge: merge() got lists of the wrong lengths")
        it_true, it_false = iter(new_trues), iter(new_falses)
        return [next(it_true) if s else next(it_false) for s in sides]

    return trues, falses, merge


def wrap_name(name: str, transform_name: str) -> str:
    """`transform_name(name)`, as transformations name the functions they wrap."""
    return f"{transform_name}({name})"


def wraps(
    wrapped: Callable[..., Any], namestr: str | None = None, docstr: str | None = None,
    **kwargs: Any,
) -> Callable[[T], T]:
    """`functools.wraps` with format strings for the name (`{fun}`) and doc (`{fun}`, `{doc}`)."""

    def wrapper(fun: T) -> T:
        name = getattr(wrapped, "__name__", "<unnamed function>")
        doc = getattr(wrapped, "__doc__", "") or ""
        target: Any = fun
        try:
            target.__dict__.update(getattr(wrapped, "__dict__", {}))
            target.__annotations__ = getattr(wrapped, "__annotations__", {})
            target.__name__ = name if namestr is None else namestr.format(fun=name)
            target.__module__ = getattr(wrapped, "__module__", "<unknown module>")
            target.__doc__ = doc if docstr is None else docstr.format(fun=name, doc=doc, **kwargs)
            target.__qualname__ = getattr(wrapped, "__qualname__", target.__name__)
            target.__wrapped__ = wrapped
        except AttributeError:
            pass  # objects without writable attributes (builtins) are returned as they are
        return fun

    return wrapper


class HashableFunction:
    """A function compared by its code and an explicit closure (so re-created lambdas match)."""

    def __init__(self, f: Callable[..., Any], closure: Any) -> None:
        self.f = f
        self.closure = closure

    def __eq__(self, other: object) -> bool:
        return (type(other) is HashableFunction and self.f.__code__ == other.f.__code__
                and self.closure == other.closure)

    def __hash__(self) -> int:
        return hash((self.f.__code__, self.closure))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.f(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<hashable {self.f.__name__} with closure={self.closure}>"


def as_hashable_function(closure: Any) -> Callable[[Callable[..., Any]], HashableFunction]:
    """Decorator: `HashableFunction(f, closure)`."""
    return lambda f: HashableFunction(f, closure)

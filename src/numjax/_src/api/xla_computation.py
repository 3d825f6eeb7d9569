"""`jax.xla_computation`, deprecated in JAX 0.4.30 but still served: a function's program for
given example arguments.

JAX returns XLA's `XlaComputation`; numjax has no XLA, so the object here holds numjax's own
lowered program (`as_hlo_text()` is its text, the same as `jit(f).lower(...).as_text()`) and
refuses, with a `NotImplementedError` that says so, the methods that hand out XLA's data
structures (HLO modules and protos, program shapes, dot graphs).

>>> import warnings
>>> import numjax
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", DeprecationWarning)
...     c = numjax.xla_computation(lambda x: x + 1)(2.0)
>>> print(c.as_hlo_text().splitlines()[0])
def jitted(a_):
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from numjax._src.api.argnums import normalize_argnums
from numjax._src.api.jit import jit
from numjax._src.core import axis_env as axis_env_mod
from numjax._src.core.avals import ShapeDtypeStruct
from numjax._src.tree_util import tree_unflatten

_AOT = "Please use the ahead of time APIs. You can read more here: " \
    "https://jax.readthedocs.io/en/latest/aot.html"


class XlaComputation:
    """A function's lowered program, as `xla_computation(f)(*args)` returns it."""

    def __init__(self, name: str, text: str) -> None:
        self._name = name
        self._text = text

    def name(self) -> str:
        return self._name

    def as_hlo_text(self) -> str:
        """numjax's lowered program for the example arguments (it has no HLO)."""
        return self._text

    def _no_hlo(self, what: str) -> Any:
        raise NotImplementedError(
            f"XlaComputation.{what}: numjax compiles to its own programs, not to XLA's HLO, so "
            "there is no HLO module, proto or program shape; as_hlo_text() returns the lowered "
            "program's text. Use jax.jit(f).lower(*args) for the ahead-of-time stages.")

    def as_hlo_module(self) -> Any:
        return self._no_hlo("as_hlo_module()")

    def get_hlo_module(self) -> Any:
        return self._no_hlo("get_hlo_module()")

    def as_serialized_hlo_module_proto(self) -> Any:
        return self._no_hlo("as_serialized_hlo_module_proto()")

    def as_hlo_dot_graph(self) -> Any:
        return self._no_hlo("as_hlo_dot_graph()")

    def program_shape(self) -> Any:
        return self._no_hlo("program_shape()")

    def hash(self) -> int:
        return hash(self._text)


def xla_computation(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
                    axis_env: Sequence[tuple[Hashable, int]] | None = None,
                    in_parts: Any = None, out_parts: Any = None, backend: str | None = None,
                    tuple_args: bool = False, instantiate_const_outputs: bool | None = None,
                    return_shape: bool = False, donate_argnums: int | Sequence[int] = ()
                    ) -> Callable[..., Any]:
    """A function of example arguments returning `fun`'s program for them (an
    `XlaComputation`), and with `return_shape=True` also the outputs' `ShapeDtypeStruct`s.

    `axis_env` binds axis names (and sizes) that collectives in `fun` use, as `pmap` would.
    `tuple_args` and `backend` only shape XLA's computation and change nothing here.
    """
    if instantiate_const_outputs is not None:
        raise ValueError(f"instantiate_const_outputs has been deprecated. {_AOT}")
    if in_parts is not None:
        raise ValueError(f"in_parts has been deprecated. {_AOT}")
    if out_parts is not None:
        raise ValueError(f"out_parts has been deprecated. {_AOT}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    statics = normalize_argnums(static_argnums)
    donated = normalize_argnums(donate_argnums)
    name = getattr(fun, "__name__", "unknown")

    @functools.wraps(fun)
    def computation_maker(*args: Any, **kwargs: Any) -> Any:
        if max(statics + donated, default=-1) >= len(args):
            raise ValueError(f"jitted function has static_argnums={statics}, "
                             f"donate_argnums={donated} but was called with only {len(args)} "
                             "positional arguments.")
        with contextlib.ExitStack() as stack:
            for axis_name, size in axis_env or ():
                stack.enter_context(axis_env_mod.extend_axis_env(axis_name, size))
            traced = jit(fun, static_argnums=statics, donate_argnums=donated).trace(
                *args, **kwargs)
            text = traced.lower().as_text()
        computation = XlaComputation(f"xla_computation_{name}", text)
        if not return_shape:
            return computation
        shapes = tree_unflatten(traced.out_tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                                  for a in traced.jaxpr.out_avals])
        return computation, shapes

    return computation_maker

"""`jax.interpreters.batching`: vmap's types and its per-primitive rule tables.

`primitive_batchers[p] = rule` installs `rule` as `p`'s batch rule
(`rule(args, dims, **params)` returning `(out, out_dim)`, `not_mapped` for unbatched), as in JAX.
`axis_primitive_batchers[p] = rule` installs a rule that also receives the vmap's axis:
`rule(axis_size, axis_name, trace_type, args, dims, **params)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from numjax._src.core.trace import Primitive, RuleRegistry
from numjax._src.interpreters.batching import BatchTrace as BatchTrace
from numjax._src.interpreters.batching import BatchTracer as BatchTracer
from numjax._src.interpreters.batching import bdim_at_front as bdim_at_front
from numjax._src.interpreters.batching import moveaxis as moveaxis
from numjax._src.interpreters.batching import not_mapped as not_mapped
from numjax._src.interpreters.batching import rule_trace
from numjax._src.interpreters.batching import vectorized_batch as _vectorized_batch

NotMapped = type(None)  # the type of `not_mapped`, for annotations
primitive_batchers = RuleRegistry("batch")


class _AxisRuleRegistry(RuleRegistry):
    """The batch rules that take the vmap's axis first; stored as the primitive's batch rule."""

    def __getitem__(self, primitive: Primitive) -> Any:
        rule = getattr(super().__getitem__(primitive), "axis_rule", None)
        if rule is None:
            raise KeyError(primitive)
        return rule

    def __setitem__(self, primitive: Primitive, rule: Callable[..., Any]) -> None:
        def batch(args: Any, dims: Any, **params: Any) -> Any:
            trace = rule_trace()
            assert trace is not None  # batch rules run inside BatchTrace.process_primitive
            # Tuples, as JAX passes them: a rule may bind them as params, which are hashed.
            return rule(trace.axis_size, trace.axis_name, BatchTrace, tuple(args), tuple(dims),
                        **params)

        batch.axis_rule = rule  # type: ignore[attr-defined]
        super().__setitem__(primitive, batch)

    def __iter__(self) -> Iterator[Primitive]:
        return (p for p in super().__iter__() if hasattr(p.batch, "axis_rule"))


axis_primitive_batchers = _AxisRuleRegistry("batch")


def defvectorized(primitive: Primitive) -> None:
    """An elementwise primitive: batched operands are aligned and the primitive applied."""
    primitive.def_batch(_vectorized_batch(primitive))

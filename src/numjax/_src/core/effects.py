"""Effects: what an equation does besides computing its results.

An equation with effects is never dropped by dead-code elimination nor merged by CSE, and is
never evaluated at compile time. Ordered effects keep their equations in program order across
calls. Printed by name, as JAX prints them (`effect=Debug` in jaxpr text).
"""

from __future__ import annotations


class Effect:
    """An effect a primitive has beyond its results; printed by its name, as in JAX."""

    name = "Effect"
    ordered = False

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


class DebugEffect(Effect):
    name = "Debug"


class OrderedDebugEffect(Effect):
    name = "OrderedDebug"
    ordered = True


class IOEffect(Effect):
    name = "IO"


class OrderedIOEffect(Effect):
    name = "OrderedIO"
    ordered = True


class OutsideCallEffect(Effect):
    """A tap or call runs even when its results are unused (JAX emits it as a side-effecting
    custom call)."""

    name = "OutsideCall"


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
io_effect = IOEffect()
ordered_io_effect = OrderedIOEffect()
outside_call_effect = OutsideCallEffect()

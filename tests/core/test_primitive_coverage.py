"""Every primitive has all its rules, or declares the ones that cannot apply.

A rule is present when `Primitive.def_*` registered it, and declared absent with
`p.declare_undefined(rule, message)` (the message is the error a user sees). Primitives that
cannot be completed yet are listed in `ALLOWED_GAPS` with the reason; the list only shrinks.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import pytest

import numjax
import numjax._src
import numjax._src.api.pmap_executable
import numjax._src.api.shard_map  # registers the replication rules of shard_map's check_rep
from numjax._src.core.trace import Primitive, primitives


def _import_all_modules() -> None:
    """Every module of the package, so every primitive is defined whatever other test files
    the run collected first (scipy.special's, checkify's ...)."""
    for info in pkgutil.walk_packages(numjax._src.__path__, "numjax._src."):
        importlib.import_module(info.name)


_import_all_modules()

# (primitive name, rule) -> why it is missing. Keep this list shrinking: fix a gap, delete its
# line (test_allow_list_entries_are_still_gaps fails once a listed rule exists).
ALLOWED_GAPS: dict[tuple[str, str], str] = {}

REQUIRED = ("impl", "abstract_eval", "batch", "jvp")


def _own_primitives() -> list[Primitive]:
    """numjax's primitives: those its modules define (libraries' tests in the same process,
    such as equinox's, register primitives of their own)."""
    own = {id(value) for name, module in list(sys.modules.items())
           if name == "numjax" or name.startswith("numjax.")
           for value in vars(module).values() if isinstance(value, Primitive)}
    return [p for p in primitives if id(p) in own]


ALL_PRIMITIVES = _own_primitives()


def _has(p: Primitive, rule: str) -> bool:
    if rule == "impl" and p.kernel_factory is not None:
        return True  # a kernel built per input avals (collectives, xla_pmap)
    return getattr(p, rule) is not None or rule in p.undefined_rules


def _missing(p: Primitive) -> list[str]:
    missing = [r for r in REQUIRED if not _has(p, r)]
    if p.is_linear and not _has(p, "transpose"):
        missing.append("transpose")
    return [r for r in missing if (p.name, r) not in ALLOWED_GAPS]


def test_registry_is_populated() -> None:
    names = {p.name for p in ALL_PRIMITIVES}
    assert {"add", "dot_general", "gather", "cumsum", "pad", "pjit", "igamma"} <= names


@pytest.mark.parametrize("p", ALL_PRIMITIVES, ids=[p.name for p in ALL_PRIMITIVES])
def test_primitive_has_all_rules(p: Primitive) -> None:
    assert not _missing(p), f"primitive '{p.name}' has no rule or declaration for {_missing(p)}"


@pytest.mark.parametrize("p", ALL_PRIMITIVES, ids=[p.name for p in ALL_PRIMITIVES])
def test_declarations_are_consistent(p: Primitive) -> None:
    for rule, message in p.undefined_rules.items():
        assert rule in ("jvp", "transpose", "batch"), f"{p.name}: unknown rule {rule!r}"
        assert getattr(p, rule) is None, f"{p.name}: {rule} both defined and declared undefined"
        assert message, f"{p.name}: the {rule} declaration needs a message for users"
    if p.is_linear:
        # A linear primitive's transpose is what reverse mode runs on it.
        assert p.transpose is not None, f"linear primitive {p.name} has no transpose"
    # The facts the compiler and the transformations read off the primitive agree.
    assert not (p.fresh_result and p.broadcast_result), f"{p.name}: fresh and a view"
    assert p.owning_kernel_factory is None or p.broadcast_result, \
        f"{p.name}: an owning kernel for a kernel that returns no views"
    assert not (p.host_callback and p.const_fold), f"{p.name}: a host callback folded"
    assert not p.inlinable_call or p.multiple_results, f"{p.name}: a call has result lists"
    assert not p.collective or _has(p, "batch"), f"{p.name}: a collective without batching"
    # shard_map's check_rep: a collective moves or combines values across devices, so it
    # cannot follow its operands' replication.
    assert not p.collective or p.replication_rule is not None, \
        f"{p.name}: a collective without a replication rule"
    assert not p.vectorized or p.batch is not None, f"{p.name}: vectorized, but no batch rule"


def test_primitive_names_are_unique() -> None:
    names = [p.name for p in ALL_PRIMITIVES]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"several primitives share the names {duplicates}"


def test_allow_list_entries_are_still_gaps() -> None:
    # An entry whose rule has since been added must be deleted, so the list only shrinks.
    by_name = {p.name: p for p in ALL_PRIMITIVES}
    for (name, rule), reason in ALLOWED_GAPS.items():
        assert name in by_name, f"allow-list names unknown primitive {name} ({reason})"
        assert not _has(by_name[name], rule), f"{name}.{rule} exists now: drop it from the list"


def test_undefined_jvp_declaration_is_the_error_users_see() -> None:
    import numjax.numpy as jnp
    from numjax import lax

    with pytest.raises(TypeError, match="igamma_grad_a is not differentiable"):
        numjax.grad(lambda a: lax.igamma_grad_a(a, jnp.float32(1.5)))(jnp.float32(2.0))

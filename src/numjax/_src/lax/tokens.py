"""Ordering tokens: `create_token` and `after_all` (JAX's `lax.create_token`/`lax.after_all`).
A token carries no data; numjax orders effects itself, so these only make and pass tokens."""

from __future__ import annotations

from typing import Any

from numjax._src.core.avals import AbstractToken, Token, abstract_token, get_aval
from numjax._src.core.trace import Primitive

create_token_p = Primitive("create_token")
create_token_p.def_abstract_eval(lambda *_: abstract_token)
create_token_p.def_impl(lambda *_: Token())
# Eagerly a token is made directly: it is no array for an executable to return.
create_token_p.eager_impl = lambda *_: Token()


def _after_all_abstract_eval(*operands: Any) -> Any:
    if any(type(x) is not AbstractToken for x in operands):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


after_all_p = Primitive("after_all")
after_all_p.def_abstract_eval(_after_all_abstract_eval)
after_all_p.def_impl(lambda *_: Token())


def _after_all_eager(*operands: Any) -> Token:
    _after_all_abstract_eval(*(get_aval(x) for x in operands))
    return Token()


after_all_p.eager_impl = _after_all_eager


def create_token(_: Any = None) -> Any:
    """A new token. The argument, which JAX accepts for backward compatibility, is ignored."""
    return create_token_p.bind()


def after_all(*operands: Any) -> Any:
    """A token ordered after the given tokens."""
    return after_all_p.bind(*operands)


# Tokens carry no data to differentiate or batch, and JAX defines no such rules for them.
for _p in (create_token_p, after_all_p):
    _p.declare_undefined("jvp", f"Differentiation rule for '{_p.name}' not implemented",
                         NotImplementedError)
    _p.declare_undefined("batch", f"Batching rule for '{_p.name}' not implemented",
                         NotImplementedError)

"""The core types programs name directly: `Tracer` (e.g. `isinstance(x, jax.core.Tracer)`),
avals, jaxprs and primitives; and the jaxpr printer's hooks JAX 0.4.30 still serves here with a
DeprecationWarning (`pp_eqn_rules`, `pp_vars`, `pp_kv_pairs`)."""

import warnings as _warnings
from typing import Any as _Any

import numpy as _np

from numjax._src.api.closed_call import call_p as call_p
from numjax._src.api.closed_call import closed_call_p as closed_call_p
from numjax._src.core import avals as _avals
from numjax._src.core import jaxpr as _jaxpr
from numjax._src.core.avals import AbstractToken as AbstractToken
from numjax._src.core.avals import AbstractValue as AbstractValue
from numjax._src.core.avals import ConcreteArray as ConcreteArray
from numjax._src.core.avals import ShapedArray as ShapedArray
from numjax._src.core.avals import Token as Token
from numjax._src.core.avals import mapped_aval as mapped_aval
from numjax._src.core.avals import raise_to_shaped as raise_to_shaped
from numjax._src.core.avals import unmapped_aval as unmapped_aval
from numjax._src.core.jaxpr import Atom as Atom
from numjax._src.core.jaxpr import ClosedJaxpr as ClosedJaxpr
from numjax._src.core.jaxpr import DropVar as DropVar
from numjax._src.core.jaxpr import Jaxpr as Jaxpr
from numjax._src.core.jaxpr import JaxprEqn as JaxprEqn
from numjax._src.core.jaxpr import JaxprPpSettings as JaxprPpSettings
from numjax._src.core.jaxpr import Literal as Literal
from numjax._src.core.jaxpr import Var as Var
from numjax._src.core.jaxpr import eval_jaxpr as eval_jaxpr
from numjax._src.core.jaxpr import jaxpr_as_fun as jaxpr_as_fun
from numjax._src.core.jaxpr import jaxprs_in_params as jaxprs_in_params
from numjax._src.core.jaxpr import subjaxprs as subjaxprs
from numjax._src.core.trace import Primitive as Primitive
from numjax._src.core.trace import Trace as Trace
from numjax._src.core.trace import Tracer as Tracer
from numjax._src.core.trace import cur_sublevel as cur_sublevel
from numjax._src.core.trace import ensure_compile_time_eval as ensure_compile_time_eval
from numjax._src.core.trace import find_top_trace as find_top_trace
from numjax._src.core.trace import thread_local_state as thread_local_state
from numjax._src.interpreters.library_trace import new_main as new_main

# JAX's record of a transformation, `trace.main`: a numjax trace is its own main.
MainTrace = Trace

# type -> the aval of its values: the table `get_aval` reads, so a type a library registers here
# (TFP's variables, say) is an array to every numjax operation.
pytype_aval_mappings = _avals.aval_handlers


def get_aval(x: _Any) -> _Any:
    """The aval of `x`: a ConcreteArray holding a known value (an Array, a NumPy value, a Python
    scalar), the tracer's ShapedArray for a traced one.

    >>> get_aval(1.0)
    ConcreteArray(1.0, dtype=float32, weak_type=True)
    """
    aval = _avals.get_aval(x)
    if type(aval) is not ShapedArray or isinstance(x, Tracer):
        return aval
    val = x if hasattr(x, "aval") else _np.asarray(x, aval.dtype)
    return ConcreteArray(aval.dtype, val, aval.weak_type)


_DEPRECATED = {"pp_eqn_rules": _jaxpr.pp_eqn_rules, "pp_kv_pairs": _jaxpr.pp_kv_pairs,
               "pp_vars": _jaxpr.pp_vars}


def __getattr__(name: str) -> object:
    if name in _DEPRECATED:
        _warnings.warn(f"jax.core.{name} is deprecated.", DeprecationWarning, stacklevel=2)
        return _DEPRECATED[name]
    raise AttributeError(f"module 'numjax.core' has no attribute {name!r}")

"""The core types programs name directly: `Tracer` (e.g. `isinstance(x, jax.core.Tracer)`),
avals, jaxprs and primitives; and the jaxpr printer's hooks JAX 0.4.30 still serves here with a
DeprecationWarning (`pp_eqn_rules`, `pp_vars`, `pp_kv_pairs`)."""

import warnings as _warnings

from numjax._src.core import jaxpr as _jaxpr
from numjax._src.core.avals import AbstractToken as AbstractToken
from numjax._src.core.avals import ShapedArray as ShapedArray
from numjax._src.core.avals import get_aval as get_aval
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
from numjax._src.core.trace import Primitive as Primitive
from numjax._src.core.trace import Trace as Trace
from numjax._src.core.trace import Tracer as Tracer
from numjax._src.core.trace import cur_sublevel as cur_sublevel
from numjax._src.core.trace import ensure_compile_time_eval as ensure_compile_time_eval
from numjax._src.core.trace import find_top_trace as find_top_trace
from numjax._src.core.trace import thread_local_state as thread_local_state

_DEPRECATED = {"pp_eqn_rules": _jaxpr.pp_eqn_rules, "pp_kv_pairs": _jaxpr.pp_kv_pairs,
               "pp_vars": _jaxpr.pp_vars}


def __getattr__(name: str) -> object:
    if name in _DEPRECATED:
        _warnings.warn(f"jax.core.{name} is deprecated.", DeprecationWarning, stacklevel=2)
        return _DEPRECATED[name]
    raise AttributeError(f"module 'numjax.core' has no attribute {name!r}")

"""The core types programs name directly: `Tracer` (e.g. `isinstance(x, jax.core.Tracer)`),
avals, jaxprs and primitives."""

from numjax._src.core.avals import AbstractToken as AbstractToken
from numjax._src.core.avals import ShapedArray as ShapedArray
from numjax._src.core.avals import get_aval as get_aval
from numjax._src.core.jaxpr import ClosedJaxpr as ClosedJaxpr
from numjax._src.core.jaxpr import DropVar as DropVar
from numjax._src.core.jaxpr import Jaxpr as Jaxpr
from numjax._src.core.jaxpr import JaxprEqn as JaxprEqn
from numjax._src.core.jaxpr import Literal as Literal
from numjax._src.core.jaxpr import Var as Var
from numjax._src.core.jaxpr import eval_jaxpr as eval_jaxpr
from numjax._src.core.jaxpr import jaxpr_as_fun as jaxpr_as_fun
from numjax._src.core.trace import Primitive as Primitive
from numjax._src.core.trace import Trace as Trace
from numjax._src.core.trace import Tracer as Tracer
from numjax._src.core.trace import ensure_compile_time_eval as ensure_compile_time_eval

"""numjax.custom_derivatives: custom_jvp, custom_vjp and their helpers, as in JAX."""

from numjax._src.api.custom_derivatives import CustomVJPPrimal as CustomVJPPrimal
from numjax._src.api.custom_derivatives import SymbolicZero as SymbolicZero
from numjax._src.api.custom_derivatives import closure_convert as closure_convert
from numjax._src.api.custom_derivatives import custom_gradient as custom_gradient
from numjax._src.api.custom_derivatives import custom_jvp as custom_jvp
from numjax._src.api.custom_derivatives import custom_jvp_call_p as custom_jvp_call_p
from numjax._src.api.custom_derivatives import custom_vjp as custom_vjp
from numjax._src.api.custom_derivatives import custom_vjp_call_p as custom_vjp_call_p
from numjax._src.api.custom_derivatives import (
    custom_vjp_primal_tree_values as custom_vjp_primal_tree_values,
)
from numjax._src.api.custom_derivatives import linear_call as linear_call

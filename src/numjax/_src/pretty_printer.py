"""JAX's pretty-printer module path (`jax._src.pretty_printer`), which libraries format with."""

from numjax._src.core.pretty import Doc as Doc
from numjax._src.core.pretty import brk as brk
from numjax._src.core.pretty import concat as concat
from numjax._src.core.pretty import group as group
from numjax._src.core.pretty import join as join
from numjax._src.core.pretty import nest as nest
from numjax._src.core.pretty import text as text

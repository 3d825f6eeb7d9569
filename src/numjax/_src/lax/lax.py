"""The internal `lax` namespace: every lax primitive wrapper in one import.

Layers above lax (numpy, random, control flow) and the batching helpers use `lax.<name>`; the
public `numjax.lax` re-exports the user-facing subset.
"""

from __future__ import annotations

from numjax._src.lax.complex_ops import *  # noqa: F403
from numjax._src.lax.convolution import *  # noqa: F403
from numjax._src.lax.cumulative import *  # noqa: F403
from numjax._src.lax.dot import dot, dot_general, dot_general_p  # noqa: F401
from numjax._src.lax.dynamic_slicing import *  # noqa: F403
from numjax._src.lax.elementwise import *  # noqa: F403
from numjax._src.lax.elementwise import abs, max, min, pow  # noqa: F401  (shadow builtins)
from numjax._src.lax.fft import *  # noqa: F403
from numjax._src.lax.gather_scatter import *  # noqa: F403
from numjax._src.lax.padding import *  # noqa: F403
from numjax._src.lax.reduce_generic import *  # noqa: F403
from numjax._src.lax.reductions import *  # noqa: F403
from numjax._src.lax.sorting import *  # noqa: F403
from numjax._src.lax.special import *  # noqa: F403
from numjax._src.lax.structural import *  # noqa: F403
from numjax._src.lax.structural import (  # noqa: F401
    _convert_element_type,
    broadcast_to_operands,
    full_like,
    unbroadcast_to,
    zeros_like_aval,
)
from numjax._src.lax.windowed import *  # noqa: F403

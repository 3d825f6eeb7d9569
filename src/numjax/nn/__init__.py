"""numjax.nn: activation functions, softmax, one_hot and initializers (JAX's `jax.nn`)."""

from typing import Any as _Any

from numjax._src.nn.functions import celu as celu
from numjax._src.nn.functions import elu as elu
from numjax._src.nn.functions import gelu as gelu
from numjax._src.nn.functions import glu as glu
from numjax._src.nn.functions import hard_sigmoid as hard_sigmoid
from numjax._src.nn.functions import hard_silu as hard_silu
from numjax._src.nn.functions import hard_swish as hard_swish
from numjax._src.nn.functions import hard_tanh as hard_tanh
from numjax._src.nn.functions import leaky_relu as leaky_relu
from numjax._src.nn.functions import log_sigmoid as log_sigmoid
from numjax._src.nn.functions import log_softmax as log_softmax
from numjax._src.nn.functions import logsumexp as logsumexp
from numjax._src.nn.functions import mish as mish
from numjax._src.nn.functions import one_hot as one_hot
from numjax._src.nn.functions import relu as relu
from numjax._src.nn.functions import relu6 as relu6
from numjax._src.nn.functions import selu as selu
from numjax._src.nn.functions import sigmoid as sigmoid
from numjax._src.nn.functions import silu as silu
from numjax._src.nn.functions import soft_sign as soft_sign
from numjax._src.nn.functions import softmax as softmax
from numjax._src.nn.functions import softplus as softplus
from numjax._src.nn.functions import sparse_plus as sparse_plus
from numjax._src.nn.functions import sparse_sigmoid as sparse_sigmoid
from numjax._src.nn.functions import squareplus as squareplus
from numjax._src.nn.functions import standardize as standardize
from numjax._src.nn.functions import swish as swish
from numjax.nn import initializers as initializers
from numjax.numpy import tanh as tanh

# Names JAX 0.4.30 has removed after a deprecation period: reading one raises its message.
_REMOVED = {
    "normalize": "jax.nn.normalize is deprecated. Use jax.nn.standardize instead.",
}


def __getattr__(name: str) -> _Any:
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

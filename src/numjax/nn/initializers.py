"""numjax.nn.initializers: parameter initializers (JAX's `jax.nn.initializers`)."""

from numjax._src.nn.initializers import Initializer as Initializer
from numjax._src.nn.initializers import constant as constant
from numjax._src.nn.initializers import delta_orthogonal as delta_orthogonal
from numjax._src.nn.initializers import glorot_normal as glorot_normal
from numjax._src.nn.initializers import glorot_uniform as glorot_uniform
from numjax._src.nn.initializers import he_normal as he_normal
from numjax._src.nn.initializers import he_uniform as he_uniform
from numjax._src.nn.initializers import kaiming_normal as kaiming_normal
from numjax._src.nn.initializers import kaiming_uniform as kaiming_uniform
from numjax._src.nn.initializers import lecun_normal as lecun_normal
from numjax._src.nn.initializers import lecun_uniform as lecun_uniform
from numjax._src.nn.initializers import normal as normal
from numjax._src.nn.initializers import ones as ones
from numjax._src.nn.initializers import orthogonal as orthogonal
from numjax._src.nn.initializers import truncated_normal as truncated_normal
from numjax._src.nn.initializers import uniform as uniform
from numjax._src.nn.initializers import variance_scaling as variance_scaling
from numjax._src.nn.initializers import xavier_normal as xavier_normal
from numjax._src.nn.initializers import xavier_uniform as xavier_uniform
from numjax._src.nn.initializers import zeros as zeros

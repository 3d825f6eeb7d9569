"""`jax.extend.linear_util`: functions with stacked generator transformations."""

from numjax._src.linear_util import Store as Store
from numjax._src.linear_util import StoreException as StoreException
from numjax._src.linear_util import WrappedFun as WrappedFun
from numjax._src.linear_util import transformation as transformation
from numjax._src.linear_util import transformation_with_aux as transformation_with_aux
from numjax._src.linear_util import wrap_init as wrap_init

"""Public dtype API, as `jax.dtypes` (JAX 0.4.30) exposes it."""

from numjax._src.dtypes import bfloat16 as bfloat16
from numjax._src.dtypes import canonicalize_dtype as canonicalize_dtype
from numjax._src.dtypes import extended as extended
from numjax._src.dtypes import finfo as finfo
from numjax._src.dtypes import float0 as float0
from numjax._src.dtypes import iinfo as iinfo
from numjax._src.dtypes import issubdtype as issubdtype
from numjax._src.dtypes import prng_key as prng_key
from numjax._src.dtypes import result_type as result_type
from numjax._src.dtypes import scalar_type_of as scalar_type_of

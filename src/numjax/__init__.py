"""numjax: JAX's programming model in pure Python on NumPy.

>>> import numjax, numjax.numpy as jnp
>>> numjax.grad(lambda x: jnp.sin(x) ** 2)(0.5)
Array(0.84147096, dtype=float32, weak_type=True)
"""

import warnings as _warnings

# NumPy reports floating-point exceptions (overflow, invalid, divide) as RuntimeWarnings from the
# calling module; numjax's kernels follow XLA and return inf/nan silently, as JAX does. A filter
# keyed on numjax's own modules costs nothing per operation (np.errstate would cost ~0.7 us).
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numjax\._src(\.|$)")

from numjax import ad_checkpoint as ad_checkpoint  # noqa: E402
from numjax import api_util as api_util  # noqa: E402
from numjax import core as core  # noqa: E402
from numjax import custom_batching as custom_batching  # noqa: E402
from numjax import custom_derivatives as custom_derivatives  # noqa: E402
from numjax import custom_transpose as custom_transpose  # noqa: E402
from numjax import debug as debug  # noqa: E402
from numjax import distributed as distributed  # noqa: E402
from numjax import dtypes as dtypes  # noqa: E402
from numjax import errors as errors  # noqa: E402
from numjax import experimental as experimental  # noqa: E402
from numjax import interpreters as interpreters  # noqa: E402
from numjax import lax as lax  # noqa: E402
from numjax import lib as lib  # noqa: E402
from numjax import nn as nn  # noqa: E402
from numjax import numpy as numpy  # noqa: E402
from numjax import ops as ops  # noqa: E402
from numjax import profiler as profiler  # noqa: E402
from numjax import random as random  # noqa: E402
from numjax import scipy as scipy  # noqa: E402
from numjax import sharding as sharding  # noqa: E402
from numjax import stages as stages  # noqa: E402
from numjax import tree as tree  # noqa: E402
from numjax import tree_util as tree_util  # noqa: E402
from numjax import typing as typing  # noqa: E402
from numjax import util as util  # noqa: E402
from numjax import version as version  # noqa: E402

# `jax._src.basearray.Array` is read as an attribute path, never imported (optax's annotations):
# the module loads with the package, as in JAX.
from numjax._src import basearray as _basearray  # noqa: E402
from numjax._src.api.callbacks import pure_callback as pure_callback  # noqa: E402

# numjax.checkpoint and numjax.remat take the removed `concrete` option; the ad_checkpoint
# module's checkpoint does not, as in JAX.
from numjax._src.api.checkpoint import checkpoint_policies as checkpoint_policies  # noqa: E402
from numjax._src.api.checkpoint import checkpoint_wrapper as checkpoint  # noqa: E402
from numjax._src.api.checkpoint import checkpoint_wrapper as remat  # noqa: E402
from numjax._src.api.custom_derivatives import closure_convert as closure_convert  # noqa: E402
from numjax._src.api.custom_derivatives import custom_gradient as custom_gradient  # noqa: E402
from numjax._src.api.custom_derivatives import custom_jvp as custom_jvp  # noqa: E402
from numjax._src.api.custom_derivatives import custom_vjp as custom_vjp  # noqa: E402
from numjax._src.api.custom_derivatives import linear_call as linear_call  # noqa: E402
from numjax._src.api.device_put import block_until_ready as block_until_ready  # noqa: E402
from numjax._src.api.device_put import device_get as device_get  # noqa: E402
from numjax._src.api.device_put import device_put as device_put  # noqa: E402
from numjax._src.api.device_put import device_put_replicated as device_put_replicated  # noqa: E402
from numjax._src.api.device_put import device_put_sharded as device_put_sharded  # noqa: E402
from numjax._src.api.device_put import effects_barrier as effects_barrier  # noqa: E402
from numjax._src.api.environment_info import (  # noqa: E402
    print_environment_info as print_environment_info,
)
from numjax._src.api.jit import clear_caches as clear_caches  # noqa: E402
from numjax._src.api.jit import disable_jit as disable_jit  # noqa: E402
from numjax._src.api.jit import jit as jit  # noqa: E402
from numjax._src.api.make_array import make_array_from_callback as make_array_from_callback  # noqa: E402
from numjax._src.api.make_array import (  # noqa: E402
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from numjax._src.api.make_array import (  # noqa: E402
    make_array_from_single_device_arrays as make_array_from_single_device_arrays,
)
from numjax._src.api.pmap import pmap as pmap  # noqa: E402
from numjax._src.api.transformations import eval_shape as eval_shape  # noqa: E402
from numjax._src.api.transformations import grad as grad  # noqa: E402
from numjax._src.api.transformations import hessian as hessian  # noqa: E402
from numjax._src.api.transformations import jacfwd as jacfwd  # noqa: E402
from numjax._src.api.transformations import jacobian as jacobian  # noqa: E402
from numjax._src.api.transformations import jacrev as jacrev  # noqa: E402
from numjax._src.api.transformations import jvp as jvp  # noqa: E402
from numjax._src.api.transformations import linear_transpose as linear_transpose  # noqa: E402
from numjax._src.api.transformations import linearize as linearize  # noqa: E402
from numjax._src.api.transformations import make_jaxpr as make_jaxpr  # noqa: E402
from numjax._src.api.transformations import named_call as named_call  # noqa: E402
from numjax._src.api.transformations import value_and_grad as value_and_grad  # noqa: E402
from numjax._src.api.transformations import vjp as vjp  # noqa: E402
from numjax._src.api.transformations import vmap as vmap  # noqa: E402
from numjax._src.api.xla_computation import (  # noqa: E402  (served deprecated: __getattr__)
    xla_computation as _xla_computation,
)
from numjax._src.compiler import eager as _eager  # noqa: E402  (installs eager execution)
from numjax._src.config import check_tracer_leaks as check_tracer_leaks  # noqa: E402
from numjax._src.config import check_tracer_leaks as checking_leaks  # noqa: E402
from numjax._src.config import config as config  # noqa: E402
from numjax._src.config import debug_infs as debug_infs  # noqa: E402
from numjax._src.config import debug_key_reuse as debug_key_reuse  # noqa: E402
from numjax._src.config import debug_nans as debug_nans  # noqa: E402
from numjax._src.config import default_device as default_device  # noqa: E402
from numjax._src.config import default_matmul_precision as default_matmul_precision  # noqa: E402
from numjax._src.config import default_prng_impl as default_prng_impl  # noqa: E402
from numjax._src.config import enable_checks as enable_checks  # noqa: E402
from numjax._src.config import enable_custom_prng as enable_custom_prng  # noqa: E402
from numjax._src.config import explain_cache_misses as explain_cache_misses  # noqa: E402
from numjax._src.config import legacy_prng_key as legacy_prng_key  # noqa: E402
from numjax._src.config import log_compiles as log_compiles  # noqa: E402
from numjax._src.config import numpy_dtype_promotion as numpy_dtype_promotion  # noqa: E402
from numjax._src.config import numpy_rank_promotion as numpy_rank_promotion  # noqa: E402
from numjax._src.config import softmax_custom_jvp as softmax_custom_jvp  # noqa: E402
from numjax._src.core.avals import ShapeDtypeStruct as ShapeDtypeStruct  # noqa: E402
from numjax._src.core.trace import ensure_compile_time_eval as ensure_compile_time_eval  # noqa: E402
from numjax._src.dtypes import float0 as float0  # noqa: E402
from numjax._src.interpreters.staging import named_scope as named_scope  # noqa: E402
from numjax._src.runtime import host_memory as _host_memory  # noqa: E402
from numjax._src.runtime.array import Array as Array  # noqa: E402
from numjax._src.runtime.devices import Device as Device  # noqa: E402
from numjax._src.runtime.devices import default_backend as default_backend  # noqa: E402
from numjax._src.runtime.devices import device_count as device_count  # noqa: E402
from numjax._src.runtime.devices import devices as devices  # noqa: E402
from numjax._src.runtime.devices import host_count as host_count  # noqa: E402
from numjax._src.runtime.devices import host_id as host_id  # noqa: E402
from numjax._src.runtime.devices import host_ids as host_ids  # noqa: E402
from numjax._src.runtime.devices import local_device_count as local_device_count  # noqa: E402
from numjax._src.runtime.devices import local_devices as local_devices  # noqa: E402
from numjax._src.runtime.devices import process_count as process_count  # noqa: E402
from numjax._src.runtime.devices import process_index as process_index  # noqa: E402
from numjax._src.runtime.named_sharding import NamedSharding as NamedSharding  # noqa: E402
from numjax._src.runtime.sharding import Shard as Shard  # noqa: E402
from numjax._src.runtime.transfer_guard import transfer_guard as transfer_guard  # noqa: E402
from numjax._src.runtime.transfer_guard import (  # noqa: E402
    transfer_guard_device_to_device as transfer_guard_device_to_device,
)
from numjax._src.runtime.transfer_guard import (  # noqa: E402
    transfer_guard_device_to_host as transfer_guard_device_to_host,
)
from numjax._src.runtime.transfer_guard import (  # noqa: E402
    transfer_guard_host_to_device as transfer_guard_host_to_device,
)
from numjax.version import __version__ as __version__  # noqa: E402

# The JAX release whose API numjax implements: libraries choose code paths by comparing it.
from numjax.version import __version_info__ as __version_info__  # noqa: E402

_LAZY_SUBMODULES = ("image",)  # public after `import numjax`, loaded on first use

# Top-level pytree functions JAX 0.4.30 still serves with a DeprecationWarning (its texts).
_DEPRECATED_TREE_FUNCTIONS = {
    "treedef_is_leaf": "jax.treedef_is_leaf is deprecated: use jax.tree_util.treedef_is_leaf.",
    **{
        name: f"jax.tree_{name} is deprecated: use jax.tree.{name} (jax v0.4.25 or newer) "
        f"or jax.tree_util.tree_{name} (any JAX version)."
        for name in ("flatten", "leaves", "structure", "transpose", "unflatten", "map")
    },
}


def __getattr__(name: str) -> object:
    if name == "jax":
        # JAX's package is its own attribute `jax` (its __init__ imports its submodules as
        # `import jax.X`, which binds the name there); programs reach `jax.jax.tree.map`.
        import sys

        return sys.modules[__name__]
    if name == "xla_computation":
        _warnings.warn("jax.xla_computation is deprecated. Please use the AOT APIs.",
                       DeprecationWarning, stacklevel=2)
        return _xla_computation
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"numjax.{name}")
    short = name.removeprefix("tree_")
    message = _DEPRECATED_TREE_FUNCTIONS.get(name if name == "treedef_is_leaf" else short)
    if message is not None and (name == "treedef_is_leaf" or name.startswith("tree_")):
        _warnings.warn(message, DeprecationWarning, stacklevel=2)
        return getattr(tree_util, name)
    raise AttributeError(f"module 'numjax' has no attribute {name!r}")

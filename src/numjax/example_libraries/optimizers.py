"""numjax.example_libraries.optimizers: first-order optimizers as (init, update, get_params)
triples over pytrees (JAX's `jax.example_libraries.optimizers`)."""

from numjax._src.example_libraries.optimizers import Array as Array
from numjax._src.example_libraries.optimizers import InitFn as InitFn
from numjax._src.example_libraries.optimizers import JoinPoint as JoinPoint
from numjax._src.example_libraries.optimizers import Optimizer as Optimizer
from numjax._src.example_libraries.optimizers import OptimizerState as OptimizerState
from numjax._src.example_libraries.optimizers import Params as Params
from numjax._src.example_libraries.optimizers import ParamsFn as ParamsFn
from numjax._src.example_libraries.optimizers import Schedule as Schedule
from numjax._src.example_libraries.optimizers import State as State
from numjax._src.example_libraries.optimizers import Step as Step
from numjax._src.example_libraries.optimizers import UpdateFn as UpdateFn
from numjax._src.example_libraries.optimizers import Updates as Updates
from numjax._src.example_libraries.optimizers import adagrad as adagrad
from numjax._src.example_libraries.optimizers import adam as adam
from numjax._src.example_libraries.optimizers import adamax as adamax
from numjax._src.example_libraries.optimizers import clip_grads as clip_grads
from numjax._src.example_libraries.optimizers import constant as constant
from numjax._src.example_libraries.optimizers import exponential_decay as exponential_decay
from numjax._src.example_libraries.optimizers import inverse_time_decay as inverse_time_decay
from numjax._src.example_libraries.optimizers import l2_norm as l2_norm
from numjax._src.example_libraries.optimizers import make_schedule as make_schedule
from numjax._src.example_libraries.optimizers import momentum as momentum
from numjax._src.example_libraries.optimizers import nesterov as nesterov
from numjax._src.example_libraries.optimizers import optimizer as optimizer
from numjax._src.example_libraries.optimizers import pack_optimizer_state as pack_optimizer_state
from numjax._src.example_libraries.optimizers import piecewise_constant as piecewise_constant
from numjax._src.example_libraries.optimizers import polynomial_decay as polynomial_decay
from numjax._src.example_libraries.optimizers import rmsprop as rmsprop
from numjax._src.example_libraries.optimizers import rmsprop_momentum as rmsprop_momentum
from numjax._src.example_libraries.optimizers import sgd as sgd
from numjax._src.example_libraries.optimizers import sm3 as sm3
from numjax._src.example_libraries.optimizers import (
    unpack_optimizer_state as unpack_optimizer_state,
)

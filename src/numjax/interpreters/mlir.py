"""`jax.interpreters.mlir`: `register_lowering` with rules made by `lower_fun`."""

from numjax._src.api.mlir import lower_fun as lower_fun
from numjax._src.api.mlir import register_lowering as register_lowering

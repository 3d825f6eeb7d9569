"""numjax.experimental.ode: `odeint`, adaptive Dormand-Prince integration of ODEs with
adjoint-method gradients (JAX's `jax.experimental.ode`)."""

from numjax._src.ode import odeint as odeint

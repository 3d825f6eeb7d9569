"""numjax's implementation of `jax.scipy.optimize`: `minimize` over BFGS and L-BFGS, and the
strong-Wolfe line search they share."""

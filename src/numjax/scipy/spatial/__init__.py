"""numjax.scipy.spatial: JAX's `jax.scipy.spatial` (its one submodule, `transform`, is
imported on its own: `from numjax.scipy.spatial.transform import Rotation`)."""

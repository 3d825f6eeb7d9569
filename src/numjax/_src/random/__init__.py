"""numjax.random internals: the threefry primitive (prng), keys and samplers."""

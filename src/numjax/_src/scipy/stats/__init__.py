"""Private implementation of `numjax.scipy.stats`."""

"""Private implementation of `numjax.nn`."""

"""Private implementation of numjax; the public API lives one level up."""

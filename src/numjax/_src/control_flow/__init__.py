"""Higher-order control-flow primitives: cond/switch, while_loop, scan, and loops on them."""

"""lax's primitives, each with its wrapper and all its rules in one module (elementwise,
structural, reductions, dot, gather/scatter, linalg, fft, collectives, ...), the helpers for the
common rule shapes (`rules.py`) and `lax.py`, the aggregator the layers above import.

A lax module imports the sibling defining a name, never the `lax.lax` aggregator.
"""

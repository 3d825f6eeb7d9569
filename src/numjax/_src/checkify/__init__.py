"""`jax.experimental.checkify`: checks as error values (errors.py), and the transformation that
threads them through a program (transform.py)."""

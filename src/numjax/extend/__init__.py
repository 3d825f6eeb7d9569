"""`jax.extend`: access to internal machinery for libraries (`linear_util`, `random`)."""

from numjax.extend import linear_util as linear_util
from numjax.extend import random as random

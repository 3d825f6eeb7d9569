"""`numjax.print_environment_info`: the versions and devices to quote in a bug report."""

from __future__ import annotations

import platform
import sys

import numpy as np

from numjax._src import version
from numjax._src.runtime import devices


def print_environment_info(return_string: bool = False) -> str | None:
    """Print (or, with `return_string=True`, return) the versions of numjax, of the jaxlib
    release it stands in for, of NumPy and Python, and the devices, in JAX's layout.

    >>> "numpy:  " in print_environment_info(return_string=True)
    True
    """
    python = sys.version.replace("\n", " ")
    with np.printoptions(threshold=4, edgeitems=2):
        listed = str(np.array(devices.devices())).replace("\n", "")
    info = (f"jax:    {version.__version__}\n"
            f"jaxlib: {version.jaxlib_version}\n"
            f"numpy:  {np.__version__}\n"
            f"python: {python}\n"
            f"jax.devices ({devices.device_count()} total, {devices.local_device_count()} "
            f"local): {listed}\n"
            f"process_count: {devices.process_count()}\n"
            f"platform: {platform.uname()}\n")
    if return_string:
        return info
    print(info)
    return None

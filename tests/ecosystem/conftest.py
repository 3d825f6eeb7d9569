"""Libraries JAX users bring, run with `import jax` resolved to numjax.

Each test module imports its library with `numjax.compat` installed and skips when the library
is not installed (CI installs the pinned versions of `requirements.txt`). The alias is removed
again after collection and after each test, so the rest of the suite sees no `jax` module.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from numjax import compat


@pytest.fixture(autouse=True)
def jax_is_numjax() -> Iterator[None]:
    """Libraries import `jax.*` submodules lazily inside their functions too."""
    compat.install()
    try:
        yield
    finally:
        compat.uninstall()

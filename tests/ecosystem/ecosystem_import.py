"""Importing a library as a JAX program would (see conftest.py)."""

from __future__ import annotations

import types

import pytest

from numjax import compat


def import_library(name: str) -> types.ModuleType:
    """Import `name` (e.g. "optax") as a JAX program would, or skip the module if it is absent."""
    compat.install()
    try:
        return pytest.importorskip(name)
    finally:
        compat.uninstall()

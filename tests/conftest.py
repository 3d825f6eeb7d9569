"""Test configuration: hypothesis without per-example deadlines (timing on shared 2-core CI
machines varies too much for them to mean anything)."""

from hypothesis import settings

settings.register_profile("numjax", deadline=None, print_blob=True)
settings.load_profile("numjax")

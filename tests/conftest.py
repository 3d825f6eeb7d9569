"""Test configuration: hypothesis without per-example deadlines (timing on shared 2-core CI
machines varies too much for them to mean anything); the native tier off unless the environment
asks for it (NUMJAX_NATIVE=auto or force), so that which tier runs a program never depends on
when a background compile ends (tests/compiler/test_native.py sets the mode it tests)."""

import os

from hypothesis import settings

os.environ.setdefault("NUMJAX_NATIVE", "off")

settings.register_profile("numjax", deadline=None, print_blob=True)
settings.load_profile("numjax")

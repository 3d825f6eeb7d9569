"""Whole JAX programs run unmodified with `numjax run` print what JAX 0.4.30 printed for them
(tests/data/<name>_program.py and <name>_golden.txt, recorded by tools/make_program_golden.py)."""

from __future__ import annotations

import pytest
from tests.runtime.test_devices import assert_matches_golden, run_jax_program


@pytest.mark.parametrize("name", ["nn", "callbacks"])
def test_program_prints_what_jax_printed(name: str) -> None:
    # nn: a classifier trained with jax.nn (initializers, gelu, relu, log_softmax, one_hot),
    # jax.flatten_util, jax.scipy.special.logsumexp, jax.ops.segment_sum, scan and vmap(grad);
    # callbacks: JAX's external-callbacks tutorial and the host_callback API
    assert_matches_golden(name, run_jax_program(name))

"""JAX 0.4.30's "Distributed arrays and automatic parallelization" and "shard_map" tutorials'
CPU programs (tests/data/distributed_arrays_program.py, shard_map_program.py), run unmodified
with `numjax run` on 8 CPU devices, print what JAX 0.4.30 printed for them
(tests/data/*_golden.txt, recorded by tools/make_program_golden.py): sharding tables, reprs,
error texts, booleans, and float values to float32 rounding (sums over devices and matrix
products run in another order than XLA's)."""

from __future__ import annotations

import math
import re
import subprocess

import pytest
from tests.runtime.test_devices import DATA, run_jax_program

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def _assert_lines_match(got: list[str], expected: list[str]) -> None:
    assert len(got) == len(expected), (len(got), len(expected))
    for line, want in zip(got, expected, strict=True):
        # Text must agree exactly; float literals to float32 rounding.
        assert _NUMBER.sub("#", line) == _NUMBER.sub("#", want), (line, want)
        for a, b in zip(_NUMBER.findall(line), _NUMBER.findall(want), strict=True):
            assert math.isclose(float(a), float(b), rel_tol=1e-5, abs_tol=1e-6), (line, want)


def _run(name: str) -> subprocess.CompletedProcess[str]:
    result = run_jax_program(name, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    assert result.returncode == 0, result.stderr
    return result


def _without_body_prints(lines: list[str]) -> list[str]:
    """The output less what shard_map bodies print between their BEFORE:/AFTER: labels."""
    out: list[str] = []
    skipping = False
    for line in lines:
        if line in ("BEFORE:", "AFTER:", "FINAL RESULT:"):
            skipping = line != "FINAL RESULT:"
            out.append(line)
        elif not skipping:
            out.append(line)
    return out


@pytest.mark.slow
def test_distributed_arrays_tutorial_prints_what_jax_printed() -> None:
    # PositionalSharding and NamedSharding layouts and their tables, eager operations on
    # sharded Arrays keeping the split (sin, dot, copy, SGD updates), JAX's errors for
    # operands on other devices and for shardings of the wrong rank, with_sharding_constraint,
    # a data- and model-parallel MLP, and random numbers under both threefry layouts.
    expected = (DATA / "distributed_arrays_golden.txt").read_text().splitlines()
    _assert_lines_match(_run("distributed_arrays").stdout.splitlines(), expected)


@pytest.mark.slow
def test_shard_map_tutorial_prints_what_jax_printed() -> None:
    # shard_map's matmuls with psum, out_specs replication, every collective (psum,
    # all_gather, psum_scatter, ppermute, all_to_all), collective matmuls under jit, and data-,
    # FSDP-, tensor- and pipeline-parallel losses and gradients. An eager shard_map traces its
    # body once (docs/differences.md): a print there shows a tracer, not each device's block,
    # so those lines are left out on both sides.
    expected = (DATA / "shard_map_golden.txt").read_text().splitlines()
    got = _run("shard_map").stdout.splitlines()
    _assert_lines_match(_without_body_prints(got), _without_body_prints(expected))

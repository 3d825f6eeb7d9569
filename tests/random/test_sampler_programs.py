"""Sampler draws whose bits depend on how XLA:CPU compiles the whole sampler, against JAX 0.4.30.

A one-element program (shape () or (1,)) gets constants as literals, which XLA reassociates
(wald's sqrt(2)^2 folds into 1.99999988); parameters that are constants of an outer jit fold,
and under x64 a float64 constant converted to float32 hides from the simplifier until the
conversion folds; a single float32 `f` draw takes logf/expf from the C library where LLVM pairs
its two chi-square draws into 2-lane calls (f(3, 4) of shape (): 7 of 16 draws were an ulp
off); float64 softmax (dirichlet) is libm's exp summed in XLA's order.
`golden_sampler_programs.json` (tools/make_sampler_programs_golden.py) holds JAX's bits for
each case: sampler, parameters, shape, dtype, mode, threefry layout, x64.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np
import pytest

import numjax
import numjax.numpy as jnp
from numjax import random
from numjax._src.config import enable_x64, threefry_partitionable

GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden_sampler_programs.json").read_text())
CASES = GOLDEN["cases"]


def _case_id(case: dict[str, Any]) -> str:
    layout = "part" if case["partitionable"] else "orig"
    x64 = "-x64" if case["x64"] else ""
    return (f"{case['sampler']}{case['params']}-{case['dtype']}-{tuple(case['shape'])}-"
            f"{case['mode']}-{layout}{x64}")


def _draw(case: dict[str, Any], seed: int) -> np.ndarray:
    fn = getattr(random, case["sampler"])
    args = [jnp.array(p) if isinstance(p, list) else p for p in case["params"]]
    shape, dtype = tuple(case["shape"]), getattr(jnp, case["dtype"])

    def draw(k: Any) -> Any:
        return fn(k, *args, shape, dtype)

    key = random.PRNGKey(seed)
    if case["mode"] == "jit":
        return np.asarray(numjax.jit(draw)(key))
    if case["mode"] == "vmap":
        return np.asarray(numjax.vmap(draw)(random.split(key, 3)))
    return np.asarray(draw(key))


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_sampler_program_matches_jax(case: dict[str, Any]) -> None:
    with enable_x64(case["x64"]), threefry_partitionable(case["partitionable"]):
        got = [_draw(case, seed) for seed in case["seeds"]]
    itemsize = got[0].dtype.itemsize
    got_bits = [[f"{int(v):0{2 * itemsize}x}" for v in g.reshape(-1).view(f"u{itemsize}")]
                for g in got]
    assert got[0].dtype == np.dtype(case["dtype"])
    assert got_bits == case["bits"]

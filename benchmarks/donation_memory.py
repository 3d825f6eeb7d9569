"""Peak memory and time of `x = f(x)` on a large float32 array, with and without donation.

Each configuration runs in a fresh process; after the first call its peak resident set size
is reset (Linux's clear_refs), and the number printed is the peak growth over the resident
size at that moment during 5 more calls, in units of x's size (1.0 = one extra copy). numjax
is compared with JAX when JAX is installed. Prints numbers; asserts nothing.

    python benchmarks/donation_memory.py [GiB]
"""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, sys, time
import numpy as np
lib, donate, n, steps = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
if lib == "jax":
    import jax, jax.numpy as jnp
else:
    import numjax as jax, numjax.numpy as jnp

def status_mb(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024

def reset_peak():
    # Linux: writing 5 to clear_refs resets the peak resident set size (VmHWM).
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

f = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0 if donate else ())
x = jnp.zeros(n, jnp.float32) + 1.0
x = f(x).block_until_ready()          # compile + first call
reset_peak()
base = status_mb("VmRSS")
start = time.perf_counter()
for _ in range(steps):
    x = f(x)
x.block_until_ready()
per_call = (time.perf_counter() - start) / steps
print(json.dumps({"growth_mb": status_mb("VmHWM") - base, "per_call_s": per_call,
                  "ok": bool(np.isfinite(float(x[0])))}))
"""


def _run(lib: str, donate: bool, n: int, steps: int) -> dict[str, float] | None:
    proc = subprocess.run([sys.executable, "-c", _CHILD, lib, "1" if donate else "0", str(n),
                           str(steps)], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    gib = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    n = int(gib * (1 << 30)) // 4
    size_mb = n * 4 / (1 << 20)
    try:
        import jax  # noqa: F401
        libs = ["numjax", "jax"]
    except ImportError:
        libs = ["numjax"]
    print(f"x = f(x), f = x * 0.5 + 1.0 on float32[{n}] ({size_mb:.0f} MB), 5 calls")
    print(f"{'library':8} {'donate':7} {'peak growth (x size)':>21} {'s/call':>8}")
    for lib in libs:
        for donate in (True, False):
            result = _run(lib, donate, n, 5)
            if result is None:
                print(f"{lib:8} {donate!s:7} {'failed':>21}")
                continue
            growth = result["growth_mb"] / size_mb
            print(f"{lib:8} {donate!s:7} {growth:21.2f} {result['per_call_s']:8.3f}")


if __name__ == "__main__":
    main()

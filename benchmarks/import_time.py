"""Import time: `import numjax` in fresh interpreters, against `import numpy` and (when installed)
`import jax`, measured in one run. Prints medians and ratios; asserts nothing.

    python benchmarks/import_time.py [runs]

Each module is imported once first so its bytecode cache exists, as it does after any normal
install; the children may write that cache even when this process was told not to
(PYTHONDONTWRITEBYTECODE), since compiling the sources on every import measures the compiler, not
the import.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys

CHILD = ("import time; t = time.perf_counter(); import {module}; "
         "print(time.perf_counter() - t)")


def import_ms(module: str, runs: int) -> list[float]:
    """Milliseconds `import module` takes in each of `runs` fresh interpreters."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-c", CHILD.format(module=module)]
    subprocess.run(command, env=env, check=True, capture_output=True)  # writes the bytecode cache
    times = []
    for _ in range(runs):
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        times.append(float(done.stdout) * 1e3)
    return times


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    modules = ["numpy", "numjax"]
    if importlib.util.find_spec("jax") is not None:
        modules.append("jax")
    medians = {}
    print(f"{'import':8} {'median ms':>10} {'min ms':>8}   ({runs} fresh interpreters each)")
    for module in modules:
        times = import_ms(module, runs)
        medians[module] = statistics.median(times)
        print(f"{module:8} {medians[module]:10.1f} {min(times):8.1f}")
    print(f"numjax - numpy: {medians['numjax'] - medians['numpy']:.1f} ms "
          f"(DESIGN target for numjax: <= 150 ms)")
    if "jax" in medians:
        print(f"numjax / jax: {medians['numjax'] / medians['jax']:.2f}x")


if __name__ == "__main__":
    main()

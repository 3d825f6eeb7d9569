"""Import time: `import numjax` in fresh interpreters, against `import numpy` and (when installed)
`import jax`, measured in one run. Prints medians and ratios; asserts nothing.

    python benchmarks/import_time.py [runs]

Each import is timed twice in its child: wall time (what a user waits) and CPU time (the
process's user+system time, which other programs on the machine do not inflate, so it is the
one to compare across runs on a shared or loaded machine).

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

CHILD = ("import time; t, c = time.perf_counter(), time.process_time(); import {module}; "
         "print(time.perf_counter() - t, time.process_time() - c)")


def import_ms(module: str, runs: int) -> tuple[list[float], list[float]]:
    """Milliseconds of wall time and of CPU time `import module` takes in each of `runs` fresh
    interpreters."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-c", CHILD.format(module=module)]
    subprocess.run(command, env=env, check=True, capture_output=True)  # writes the bytecode cache
    wall, cpu = [], []
    for _ in range(runs):
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
        wall_s, cpu_s = done.stdout.split()
        wall.append(float(wall_s) * 1e3)
        cpu.append(float(cpu_s) * 1e3)
    return wall, cpu


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    modules = ["numpy", "numjax"]
    if importlib.util.find_spec("jax") is not None:
        modules.append("jax")
    wall_medians, cpu_medians = {}, {}
    print(f"{'import':8} {'wall median ms':>15} {'min':>7} {'CPU median ms':>15} {'min':>7}"
          f"   ({runs} fresh interpreters each)")
    for module in modules:
        wall, cpu = import_ms(module, runs)
        wall_medians[module] = statistics.median(wall)
        cpu_medians[module] = statistics.median(cpu)
        print(f"{module:8} {wall_medians[module]:15.1f} {min(wall):7.1f} "
              f"{cpu_medians[module]:15.1f} {min(cpu):7.1f}")
    print(f"numjax - numpy: {wall_medians['numjax'] - wall_medians['numpy']:.1f} ms wall, "
          f"{cpu_medians['numjax'] - cpu_medians['numpy']:.1f} ms CPU "
          f"(DESIGN target for numjax: <= 150 ms)")
    if "jax" in wall_medians:
        print(f"numjax / jax: {wall_medians['numjax'] / wall_medians['jax']:.2f}x wall, "
              f"{cpu_medians['numjax'] / cpu_medians['jax']:.2f}x CPU")


if __name__ == "__main__":
    main()

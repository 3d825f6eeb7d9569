"""Regenerate tests/data/<name>_golden.txt: run the JAX programs tests/data/<name>_program.py
with real JAX 0.4.30 and record their output
(`cd /tmp/somedir && /tmp/jaxenv/bin/python /work/main/tools/make_program_golden.py`; run it
from a directory of its own, as JAX's imports can pick up stray modules from the cwd).

Not a test module: tests/runtime/test_devices.py and tests/test_programs.py run the same
programs with numjax and compare.
"""

import os
import pathlib
import subprocess
import sys

DATA = pathlib.Path(__file__).parent.parent / "tests" / "data"
PROGRAMS = {
    "backends": {},
    "placement": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"},
    "nn": {},
    "callbacks": {},
    "pmap": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"},
    # JAX's sharding tutorials; their tables need `rich` importable
    "distributed_arrays": {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"},
    "shard_map": {"XLA_FLAGS": "--xla_force_host_platform_device_count=8"},
}


def main() -> None:
    for name, env in PROGRAMS.items():
        out = subprocess.run([sys.executable, str(DATA / f"{name}_program.py")],
                             env={**os.environ, **env}, capture_output=True, text=True,
                             check=True).stdout
        (DATA / f"{name}_golden.txt").write_text(out)
        print(f"wrote {name}_golden.txt ({len(out.splitlines())} lines)")


if __name__ == "__main__":
    main()

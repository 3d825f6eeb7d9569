"""Record JAX 0.4.30's results for tests/test_zero_size.py (its EXPECTED table).

Run with a Python that has jax 0.4.30 (and NumPy 1.26) from a directory of its own:
`cd /tmp/somedir && /tmp/jaxenv/bin/python /work/main/tools/make_zero_size_golden.py`.
It reads the CASES block of the test file (plain data: a name, a lambda's source over
`numjax`, `jnp`, `lax` and `np`, and NumPy expressions for its arguments, passed as Arrays),
runs each case with `numjax` bound to `jax`, eagerly and under `jax.jit`, and rewrites the
EXPECTED block:
per case and mode, ("ok", [(shape, dtype, weak_type, values) per output leaf]) or
("raise", exception type name, first line of its message). Not a test module: the tests read
only the table this writes and never import jax.
"""

from __future__ import annotations

import pathlib
import pprint
import sys
from typing import Any

import jax  # type: ignore[import-not-found, unused-ignore]
import numpy as np

TEST = pathlib.Path(__file__).resolve().parent.parent / "tests" / "test_zero_size.py"
BEGIN, END = "# BEGIN EXPECTED", "# END EXPECTED"


def _block(text: str, begin: str, end: str) -> str:
    start = text.index(begin)
    return text[start:text.index(end, start)]


def _observe(fn: Any, args: list[Any]) -> Any:
    try:
        out = fn(*args)
    except Exception as e:
        return ("raise", type(e).__name__, str(e).split("\n")[0])
    leaves = jax.tree_util.tree_leaves(out)
    return ("ok", [(tuple(np.shape(x)), str(x.dtype), bool(getattr(x, "weak_type", False)),
                    np.asarray(x).tolist()) for x in leaves])


def main() -> None:
    text = TEST.read_text()
    namespace: dict[str, Any] = {}
    exec("from __future__ import annotations\n" + _block(text, "# BEGIN CASES", "# END CASES"),
         namespace)
    scope = {"numjax": jax, "jnp": jax.numpy, "lax": jax.lax, "np": np}
    lines = [BEGIN + ": written by tools/make_zero_size_golden.py, do not edit",
             "EXPECTED: dict[str, Any] = {"]
    for name, src, specs in namespace["CASES"]:
        fn = eval(src, scope)
        results = []
        for wrap in (lambda f: f, jax.jit):
            args = [jax.numpy.asarray(eval(s, {"np": np})) for s in specs]
            results.append(_observe(wrap(fn), args))
        body = pprint.pformat(tuple(results), width=90, compact=True)
        lines.append(f"    {name!r}:")
        lines.extend("        " + line for line in body.splitlines())
        lines[-1] += ","
        print(name, results, file=sys.stderr)
    lines.append("}")
    old = _block(text, BEGIN, END)
    TEST.write_text(text.replace(old, "\n".join(lines) + "\n"))


if __name__ == "__main__":
    main()

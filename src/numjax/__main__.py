"""The `numjax` command: `numjax run prog.py [args]` runs an unmodified JAX program on numjax.

Also `python -m numjax run prog.py [args]`, and `numjax run -m package.module [args]` as with
`python -m`. The program runs as `__main__` with `sys.argv` set to `[prog.py, *args]` and its
directory first on `sys.path`, after `numjax.compat.install()` has aliased `jax` to numjax.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import os
import runpy
import sys
import types
from collections.abc import Sequence

from numjax import __version__, compat

USAGE = """\
usage: numjax run PROGRAM.py [ARGS ...]
       numjax run -m MODULE [ARGS ...]
       numjax --version

Runs a JAX program with `import jax` (and every `jax.*` submodule) resolved to numjax."""


def run(target: str, args: Sequence[str], *, as_module: bool = False) -> None:
    """Run the program `target` (a path, or a module name when `as_module`) with argv `args`.

    >>> import pathlib, tempfile
    >>> prog = pathlib.Path(tempfile.mkdtemp()) / "prog.py"
    >>> _ = prog.write_text("import sys, jax; print(jax.numpy.add(1, 2), sys.argv[1:])")
    >>> run(str(prog), ["-v"])
    3 ['-v']
    >>> from numjax import compat; compat.uninstall()
    """
    compat.install()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [target, *args]
    # As `python prog.py` / `python -m module`: sys.path[0] is the program's directory (so it
    # can import its sibling modules), or the current directory for a module, instead of
    # wherever `numjax` itself was started from.
    first = os.getcwd() if as_module else os.path.dirname(os.path.abspath(target))
    sys.path[:1] = [first]
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            _run_script(target)
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path


def _run_script(target: str) -> None:
    """Run the file `target` as `python target` does: as the `__main__` module, its code and
    `__file__` named by the absolute path, `sys.argv[0]` left as typed."""
    path = os.path.abspath(target)
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __package__=None, __spec__=None,
                           __loader__=importlib.machinery.SourceFileLoader("__main__", path),
                           __builtins__=builtins)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module  # so that pickle finds the program's classes
    try:
        exec(code, module.__dict__)
    finally:
        if saved is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = saved


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `numjax` console script and of `python -m numjax`."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    if args[0] == "--version":
        print(f"numjax {__version__}")
        return 0
    if args[0] != "run":
        print(f"numjax: unknown command {args[0]!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    rest = args[1:]
    as_module = bool(rest) and rest[0] == "-m"
    if as_module:
        rest = rest[1:]
    if not rest:
        print(f"numjax run: missing program\n\n{USAGE}", file=sys.stderr)
        return 2
    if not as_module and not os.path.exists(rest[0]):
        print(f"numjax run: can't open file {rest[0]!r}: no such file", file=sys.stderr)
        return 2
    run(rest[0], rest[1:], as_module=as_module)
    return 0


if __name__ == "__main__":
    sys.exit(main())

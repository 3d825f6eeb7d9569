"""Imports inside functions: a list that only shrinks.

An import inside a function hides a dependency from the module's header (and from the layer
contract's reader) and costs a dictionary lookup per call. The known ones (most of them break
an import cycle between the numpy, api and lax layers, or keep a rarely used module from
loading at import) are listed, one `module -> imported module` pair per line, in
`tools/function_imports.txt`. This check fails on a pair not in the list, and names listed
pairs that are gone (delete them from the list).

    python tools/check_function_imports.py           # check
    python tools/check_function_imports.py --write   # rewrite the list from the code
"""

from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "numjax"
LISTED = ROOT / "tools" / "function_imports.txt"


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def function_imports() -> set[str]:
    """`module -> imported` for every numjax import inside a function of the package."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    targets = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    targets = [node.module]
                else:
                    continue
                for target in targets:
                    if target == "numjax" or target.startswith("numjax."):
                        found.add(f"{module_name(path)} -> {target}")
    return found


def listed() -> set[str]:
    lines = LISTED.read_text().splitlines() if LISTED.exists() else []
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def main(argv: list[str]) -> int:
    found = function_imports()
    if "--write" in argv:
        header = ("# Imports inside functions (tools/check_function_imports.py): this list "
                  "only shrinks.\n")
        LISTED.write_text(header + "".join(f"{pair}\n" for pair in sorted(found)))
        print(f"{len(found)} pairs written to {LISTED.relative_to(ROOT)}")
        return 0
    allowed = listed()
    new = sorted(found - allowed)
    gone = sorted(allowed - found)
    for pair in new:
        print(f"new import inside a function: {pair} (import it at the top of the module, "
              "or say in the module why it cannot be)")
    for pair in gone:
        print(f"no longer imported inside a function (delete it from "
              f"{LISTED.relative_to(ROOT)}): {pair}")
    print(f"{len(found)} imports inside functions; {len(new)} new, {len(gone)} gone")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

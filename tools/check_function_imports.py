"""Imports inside functions: a short allow-list, each entry with its reason.

An import inside a function hides a dependency from the module's header (and from the layer
contract's reader) and costs a dictionary lookup per call. The few that remain break an import
cycle between sibling modules or let a lower layer call a higher one (the layer contract's
listed exceptions); `tools/function_imports.txt` lists them, one `module -> imported: why` a
line. This check fails on a pair not in the list, on an entry without a reason, and names
listed pairs that are gone (delete them from the list).

    python tools/check_function_imports.py
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


def listed() -> dict[str, str]:
    """The allowed pairs, each with its reason (empty when the line gives none)."""
    lines = LISTED.read_text().splitlines() if LISTED.exists() else []
    entries = {}
    for line in lines:
        if line.strip() and not line.startswith("#"):
            pair, _, why = line.partition(":")
            entries[pair.strip()] = why.strip()
    return entries


def main(argv: list[str]) -> int:
    found = function_imports()
    allowed = listed()
    new = sorted(found - set(allowed))
    gone = sorted(set(allowed) - found)
    unexplained = sorted(pair for pair, why in allowed.items() if not why)
    for pair in new:
        print(f"new import inside a function: {pair} (import it at the top of the module; if "
              f"it cannot be, list it in {LISTED.relative_to(ROOT)} with the reason)")
    for pair in unexplained:
        print(f"no reason given in {LISTED.relative_to(ROOT)}: {pair}")
    for pair in gone:
        print(f"no longer imported inside a function (delete it from "
              f"{LISTED.relative_to(ROOT)}): {pair}")
    print(f"{len(found)} imports inside functions; {len(new)} new, {len(gone)} gone")
    return 1 if new or gone or unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

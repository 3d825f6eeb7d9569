"""Lines per package folder, against a budget.

Each folder of `src/numjax` (its own `.py` files, not its subfolders) has a budget of lines in
`tools/folder_lines.txt`. A folder over budget fails the check: split it, or shrink it, or
raise its budget in the same commit with the reason in the commit message. A new folder needs
a budget line. Budgets are the folder's size when set, rounded up to the next 500 lines, so
ordinary work fits and steady growth shows.

    python tools/check_folder_lines.py           # check
    python tools/check_folder_lines.py --write   # set every budget from the code
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "numjax"
BUDGETS = ROOT / "tools" / "folder_lines.txt"
STEP = 500


def folder_lines() -> dict[str, int]:
    """Lines of each package folder's own Python files, by path relative to src/."""
    out = {}
    for folder in sorted(p for p in [PACKAGE, *PACKAGE.rglob("*")] if p.is_dir()
                         and p.name != "__pycache__"):
        files = sorted(folder.glob("*.py"))
        if files:
            out[str(folder.relative_to(ROOT / "src"))] = sum(
                len(f.read_text().splitlines()) for f in files)
    return out


def read_budgets() -> dict[str, int]:
    budgets = {}
    for line in BUDGETS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            folder, limit = line.rsplit(maxsplit=1)
            budgets[folder] = int(limit)
    return budgets


def main() -> int:
    lines = folder_lines()
    if sys.argv[1:] == ["--write"]:
        header = "# Lines budget per package folder (tools/check_folder_lines.py)\n"
        BUDGETS.write_text(header + "".join(
            f"{folder} {-(-n // STEP) * STEP}\n" for folder, n in lines.items()))
        return 0
    budgets = read_budgets()
    failures = []
    for folder, n in lines.items():
        limit = budgets.get(folder)
        if limit is None:
            failures.append(f"{folder}: {n} lines and no budget (add one to {BUDGETS.name})")
        elif n > limit:
            failures.append(f"{folder}: {n} lines, over its budget of {limit}")
    for message in failures:
        print(message)
    print(f"{len(lines)} folders; {len(failures)} over budget or unbudgeted")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks that every C++ source of the suite carries an SPDX licence line.

The suite is GPL-2.0-only, as ns-3 is (LICENSE). Every .h and .cc under contrib/,
examples/, test/, bench/, fuzz/, cmake/ and doc/ must have, among its first three lines,
  // SPDX-License-Identifier: GPL-2.0-only
Usage: check-spdx.py [ROOT]          exit 1 naming every file without it
       check-spdx.py --add [ROOT]    add the line at the top of every file without it
"""
import pathlib
import sys

LINE = "// SPDX-License-Identifier: GPL-2.0-only"
FOLDERS = ["contrib", "examples", "test", "bench", "fuzz", "cmake", "doc"]


def sources(root):
    for folder in FOLDERS:
        base = root / folder
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.suffix in (".h", ".cc"))


def has_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return any(f.readline().strip() == LINE for _ in range(3))


def main(argv):
    add = "--add" in argv
    args = [a for a in argv[1:] if a != "--add"]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    missing = [p for p in sources(root) if not has_line(p)]
    if add:
        for p in missing:
            p.write_text(LINE + "\n" + p.read_text(encoding="utf-8"), encoding="utf-8")
        print(f"spdx: added to {len(missing)} files")
        return 0
    for p in missing:
        print(f"error: {p.relative_to(root)} has no '{LINE}' line; "
              "run utils/check-spdx.py --add", file=sys.stderr)
    if not missing:
        print(f"spdx: {sum(1 for _ in sources(root))} sources, all licensed")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Checks the suite's layering rules on a source tree; exits 1 naming every breach.

1. No file under a module's model/ includes a header of any module's helper/.
2. A seed module (topoopt, railonly, checkmate, compression) depends on mlnet only:
   its CMakeLists.txt names no other contrib module, and none of its files includes a
   header of another seed module or of scenarios. mlnet depends on no contrib module.
3. Only scenarios may depend on several seed modules.

Usage: check-layering.py [ROOT]        check the tree at ROOT (default: this checkout)
       check-layering.py --self-test   break a copy of the tree in each way and check
                                       that every breach is caught
"""
import pathlib
import re
import shutil
import sys
import tempfile

SEEDS = ["topoopt", "railonly", "checkmate", "compression"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:ns3/)?([A-Za-z0-9_.-]+\.h)"', re.M)


def modules(root):
    contrib = root / "contrib"
    return sorted(p.name for p in contrib.iterdir() if (p / "CMakeLists.txt").is_file())


def headers(root, module, layer):
    base = root / "contrib" / module / layer
    return {p.name for p in base.rglob("*.h")} if base.is_dir() else set()


def sources(root, module, layers=("model", "helper", "test")):
    for layer in layers:
        base = root / "contrib" / module / layer
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.suffix in (".h", ".cc"))


def check(root):
    root = pathlib.Path(root).resolve()
    mods = modules(root)
    helper_owner = {h: m for m in mods for h in headers(root, m, "helper")}
    owner = {h: m for m in mods for layer in ("model", "helper") for h in headers(root, m, layer)}
    errors = []
    for m in mods:
        for f in sources(root, m, ("model",)):
            for name in INCLUDE.findall(f.read_text(errors="replace")):
                if name in helper_owner:
                    errors.append(f"{f.relative_to(root)}: model/ includes helper header "
                                  f"{name} (contrib/{helper_owner[name]}/helper); move what it "
                                  "needs into model/")
    for m in mods:
        allowed = {m} | ({"mlnet"} if m != "mlnet" else set())
        if m == "scenarios":
            continue
        cmake = (root / "contrib" / m / "CMakeLists.txt").read_text()
        deps = re.search(r"DEPS([^)]*?)(?:LIBS|\))", cmake, re.S)
        named = set(deps.group(1).split()) if deps else set()
        for d in sorted(named & set(mods) - allowed):
            errors.append(f"contrib/{m}/CMakeLists.txt: depends on contrib/{d}; a seed module "
                          "depends on mlnet only (put cross-module code in contrib/scenarios)")
        for f in sources(root, m):
            for name in INCLUDE.findall(f.read_text(errors="replace")):
                o = owner.get(name)
                if o and o not in allowed:
                    errors.append(f"{f.relative_to(root)}: includes {name} of contrib/{o}; "
                                  f"contrib/{m} may use mlnet only")
    return errors


def self_test(root):
    root = pathlib.Path(root).resolve()
    breaches = {
        "model includes helper": ("contrib/mlnet/model/report/run-report.cc",
                                  '#include "ns3/distributed-session.h"\n'),
        "seed includes seed": ("contrib/checkmate/model/shadow-node.cc",
                               '#include "ns3/topology-plan.h"\n'),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "tree"
        shutil.copytree(root / "contrib", copy / "contrib")
        if check(copy):
            print("self-test: the unmodified copy already fails", file=sys.stderr)
            return 1
        for what, (path, line) in breaches.items():
            f = copy / path
            text = f.read_text()
            f.write_text(line + text)
            if not check(copy):
                print(f"self-test: breach '{what}' ({path}) was not caught", file=sys.stderr)
                failed += 1
            f.write_text(text)
        cm = copy / "contrib/railonly/CMakeLists.txt"
        text = cm.read_text()
        cm.write_text(text.replace("DEPS mlnet", "DEPS mlnet topoopt"))
        if not check(copy):
            print("self-test: breach 'seed CMake names seed' was not caught", file=sys.stderr)
            failed += 1
    if not failed:
        print("self-test: every breach caught")
    return 1 if failed else 0


def main(argv):
    here = pathlib.Path(__file__).resolve().parent.parent
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test(here if len(argv) < 3 else argv[2])
    root = argv[1] if len(argv) > 1 else here
    errors = check(root)
    for e in errors:
        print("error: " + e, file=sys.stderr)
    if not errors:
        print(f"layering: {len(modules(pathlib.Path(root)))} modules, no breach")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

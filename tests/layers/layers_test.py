#!/usr/bin/env python3
"""The layers of ARCHITECTURE.md, checked on the includes of every source file.

Each folder may include only the folders below it. Tests (*_test.cc) and test helpers (testing/
folders) sit beside the code they test and may reach above it (a lock client's test runs it
through a scenario); nothing else may. Run: layers_test.py <source root>.
"""
import pathlib
import re
import sys

# folder -> the folders (path prefixes) its non-test sources may include.
CORE = ("sim/core/",)
ALLOWED = {
    "sim/core/": CORE,
    "sim/redis/": CORE + ("sim/redis/",),
    "sim/resp/": CORE + ("sim/redis/", "sim/resp/"),
    "sim/history/": CORE + ("sim/redis/", "sim/history/"),
    "runtime/": CORE + ("sim/history/events.h", "sim/redis/reply.h", "runtime/"),
    "sim/kernel/": CORE + ("sim/redis/", "sim/history/", "runtime/", "sim/kernel/"),
    "algorithms/": CORE + ("runtime/", "algorithms/"),
    "checker/": CORE + ("checker/",),
    "harness/": CORE + ("sim/", "runtime/", "algorithms/", "checker/", "harness/"),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    best = None
    for folder in ALLOWED:
        if rel.startswith(folder) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    checked = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".cc", ".h"):
            continue
        rel = path.relative_to(root).as_posix()
        layer = layer_of(rel)
        if layer is None or rel.endswith("_test.cc") or "/testing/" in rel:
            continue
        checked += 1
        text = path.read_text(encoding="utf-8")
        for line_no, m in ((text.count("\n", 0, m.start()) + 1, m) for m in INCLUDE.finditer(text)):
            target = m.group(1)
            if "/" not in target:
                continue  # a generated or same-folder header
            if not any(target.startswith(p) for p in ALLOWED[layer]):
                problems.append(f"{rel}:{line_no}: {layer} may not include \"{target}\" "
                                f"(it may include: {', '.join(ALLOWED[layer])})")
    for p in problems:
        print(p)
    if checked < 100:
        print(f"only {checked} files checked: is {root} the source root?")
        return 1
    print(f"{checked} files checked, {len(problems)} layering problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (default 200 lines), longest first.

The house rule is "no function in engine/ longer than ~200 lines". A function here is a definition that starts
at column 0 (a line with a '(' that is not a comment, preprocessor line, declaration or namespace/struct) and
ends at the next '}' at column 0, which is how clang-format lays out every function in this repository.

Usage: scripts/function-lengths.py [--limit N] [PATH ...]   (default: engine; exit 1 when one is over)
"""
import os
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        line = re.sub(r"\s*//.*$", "", lines[i])
        if (line and not line[0].isspace() and "(" in line and not line.startswith(("//", "#", "}"))
                and not line.rstrip().endswith(";") and not re.match(r"(namespace|struct|class|enum)\b", line)):
            k = i
            while k < len(lines) and k < i + 6 and not lines[k].rstrip().endswith("{"):
                k += 1
            if k < len(lines) and lines[k].rstrip().endswith("{"):
                j = k + 1
                while j < len(lines) and not lines[j].startswith("}"):
                    j += 1
                yield i + 1, j - i + 1, line.strip()
                i = j
        i += 1


def main(argv):
    limit = 200
    if len(argv) >= 2 and argv[0] == "--limit":
        limit = int(argv[1])
        argv = argv[2:]
    roots = argv or ["engine"]
    found = []
    for root in roots:
        paths = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith((".cpp", ".h"))]
        for path in sorted(paths):
            for line, length, text in functions(path):
                if length > limit:
                    found.append((length, path, line, text))
    for length, path, line, text in sorted(found, reverse=True):
        print(f"{path}:{line}: {length} lines: {text[:100]}")
    if found:
        print(f"function-lengths: {len(found)} function(s) over {limit} lines")
        return 1
    print(f"function-lengths: no function over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

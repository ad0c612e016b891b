#!/usr/bin/env python3
"""Fails when a function in engine/ is longer than the limit (default 200 lines).

A function that long holds several concepts whose locals leak into each other; split it along one axis
(one handler per primitive, one step per helper). Functions are found by a brace-matching scan of each
.cpp file with comments and literals removed: a top-level or namespace-level `{` whose preceding text ends
in `)` (optionally `const`, `noexcept`, `override`, an initializer list or a trailing return type) opens a
function body; lambdas count toward the function that contains them.

Usage: scripts/check-function-length.py [--limit N] [PATH ...]   (default: engine)
"""
import argparse
import os
import re
import sys

TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# The text before a function body's `{`: ") const", ") override", ") -> T", ") : m_a(a), m_b(b)".
SIGNATURE_END = re.compile(r'\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:->\s*[\w:<>,\s*&]+)?'
                           r'(?::\s*[\w:]+\s*[({][^;{}]*[)}](?:\s*,\s*[\w:]+\s*[({][^;{}]*[)}])*\s*)?$')
NAME = re.compile(r'([\w:~]+(?:operator\s*\S+?)?)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)[^()]*$')
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"}


def strip(text):
    return TOKENS.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def functions(text):
    """(name, first line, last line) of every function body at namespace or class level."""
    code = strip(text)
    out = []
    depth_kinds = []  # one entry per open brace: True when it opened a function body
    start = None
    for i, c in enumerate(code):
        if c == "{":
            in_function = any(depth_kinds)
            opens_function = False
            if not in_function:
                head = code[max(0, i - 600):i]
                head = head[head.rfind(";") + 1:] if ";" in head else head
                head = head[head.rfind("}") + 1:] if "}" in head else head
                stripped = head.strip()
                if SIGNATURE_END.search(stripped):
                    m = NAME.search(stripped)
                    name = m.group(1) if m else "?"
                    if name.split("::")[-1] not in CONTROL:
                        opens_function = True
                        start = (name, code.count("\n", 0, i) + 1)
            depth_kinds.append(opens_function)
        elif c == "}":
            if not depth_kinds:
                continue
            if depth_kinds.pop() and start:
                out.append((start[0], start[1], code.count("\n", 0, i) + 1))
                start = None
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    paths = args.paths or [os.path.join(root, "engine")]
    findings = []
    for top in paths:
        files = [top] if os.path.isfile(top) else sorted(
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith((".cpp", ".cc")))
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for name, first, last in functions(text):
                length = last - first + 1
                if length > args.limit:
                    findings.append((length, f"{os.path.relpath(path, root)}:{first}: {name} is {length} lines"))
    for _, line in sorted(findings, reverse=True):
        print(line)
    if findings:
        print(f"check-function-length: {len(findings)} function(s) longer than {args.limit} lines")
        return 1
    print(f"check-function-length: no function longer than {args.limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fails when a file includes from a higher layer, when two folders include each other, or when a file outside
engine/jit includes LLVM.

The layer order (docs/architecture.md), lowest first. A folder may include from its own layer's lower
neighbours and from every lower layer, never from a higher one; folders of one layer do not include each
other unless the table below says so.

Usage: scripts/check-layers.py [REPO]   (exit 1 and one line per finding)
"""
import collections
import os
import re
import sys

# (layer, folders). Lower layers first.
LAYERS = [
    ("support", ["engine/support", "engine/target", "engine/catalog"]),
    ("ir", ["engine/ir"]),
    ("frontend", ["engine/frontend"]),
    ("elaborate", ["engine/elaborate"]),
    ("layout algebra", ["engine/layout/algebra", "engine/layout/bank"]),
    ("layout plan", ["engine/layout/plan"]),
    ("check, passes, exec", ["engine/check", "engine/passes", "engine/exec", "engine/jit", "engine/reference"]),
    ("codegen", ["engine/codegen"]),
    ("gpu", ["engine/gpu"]),
    ("pipeline", ["engine/pipeline"]),
    ("run, profile", ["engine/run", "engine/profile"]),
    ("tools", ["engine/tools"]),
    ("views", ["views"]),
    ("app", ["app"]),
]
# Folder pairs of one layer allowed to include in one direction: (from, to).
SAME_LAYER_ALLOWED = {
    ("engine/passes", "engine/check"),   # the budget pass reuses the checker's stage rule
    ("engine/reference", "engine/exec"),  # naive references build on the executor's tensors
    ("engine/jit", "engine/exec"),        # the JIT runs on the executor's tensors, numerics and limits
    ("engine/profile", "engine/run"),     # profiling sets a program up for launches through run
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"((?:engine|views|app)/[^"]+)"', re.M)
# LLVM's headers are on the whole engine's include path (the JIT's files share its unity batches), but only
# the JIT may include them: the rest of the engine builds without LLVM.
LLVM_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](llvm(?:-c)?/[^>"]+)[>"]', re.M)
LLVM_FOLDER = "engine/jit"
SUFFIXES = (".h", ".cpp", ".cu", ".cuh")


def folder_of(path):
    best = None
    for rank, (_, folders) in enumerate(LAYERS):
        for folder in folders:
            if path == folder or path.startswith(folder + "/"):
                if best is None or len(folder) > len(best[1]):
                    best = (rank, folder)
    return best


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    findings = []
    edges = collections.defaultdict(set)
    for top in ("engine", "views", "app"):
        for directory, _, files in os.walk(os.path.join(repo, top)):
            for name in files:
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(directory, name), repo)
                source = folder_of(path)
                if source is None:
                    findings.append(f"{path}: folder is in no layer (add it to scripts/check-layers.py)")
                    continue
                with open(os.path.join(repo, path), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                if source[1] != LLVM_FOLDER:
                    for m in LLVM_INCLUDE.finditer(text):
                        line = text.count("\n", 0, m.start()) + 1
                        findings.append(f"{path}:{line}: includes {m.group(1)}: only {LLVM_FOLDER} uses LLVM")
                for m in INCLUDE.finditer(text):
                    target = folder_of(m.group(1))
                    if target is None or target[1] == source[1]:
                        continue
                    edges[source[1]].add(target[1])
                    line = text.count("\n", 0, m.start()) + 1
                    if target[0] > source[0]:
                        findings.append(f"{path}:{line}: includes {m.group(1)}: layer '{LAYERS[target[0]][0]}' "
                                        f"is above '{LAYERS[source[0]][0]}'")
                    elif target[0] == source[0] and (source[1], target[1]) not in SAME_LAYER_ALLOWED:
                        findings.append(f"{path}:{line}: includes {m.group(1)}: folders of one layer "
                                        f"('{LAYERS[source[0]][0]}') must not include each other")
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if a < b and a in edges.get(b, set()):
                findings.append(f"{a} and {b} include each other")
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-layers: {len(findings)} include(s) against the layer order (docs/architecture.md)")
        return 1
    print("check-layers: every include goes down the layer order")
    return 0


if __name__ == "__main__":
    sys.exit(main())

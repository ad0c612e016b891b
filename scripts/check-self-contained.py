#!/usr/bin/env python3
"""Fails when a tracked file refers to a path outside the repository.

A user's clone holds only the repository: a build, test, script or document that reads a folder beside the
clone, a developer machine's work folder or a home folder works on one machine and breaks on every other.
Checked:
  - absolute paths into machine-specific folders (work, home, root, mnt, Users at the file-system root);
  - relative paths that climb out of the repository through `..` segments, resolved from the file's folder
    and, for build files and scripts (which run from the repository root), from the root as well.
Generated or third-party text can opt out line by line with the marker `self-contained: ok`.

Usage: scripts/check-self-contained.py [REPO]   (exit 1 and one line per finding when something is found)
"""
import os
import re
import subprocess
import sys

ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:work|home|root|mnt|Users)/[\w.-]+")
# One or more `..` segments and a name, not preceded by a path character (a `..` inside a path is left alone).
CLIMB = re.compile(r"(?<![\w./-])((?:\.\./)+)([\w.-]+)")
# The same after a variable or a command substitution: a variable such as SOURCE_DIR or ROOT, or a dirname substitution.
# Variables naming the repository root resolve from the root, anything else from the file's folder.
CLIMB_AFTER_VAR = re.compile(r"(\$\{?(\w+)\}?|\))/((?:\.\./)*\.\.)(?:/([\w.-]+))?")
ROOT_VARIABLES = re.compile(r"ROOT|TILEBENCH_SOURCE_DIR|CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR")
OPT_OUT = "self-contained: ok"
ROOT_RELATIVE = (".sh", ".py", ".cmake", "CMakeLists.txt", ".ci/run")
BINARY_SUFFIXES = (".png", ".svg", ".json", ".ico", ".qrc")


def tracked_files(repo):
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [f for f in out.decode().split("\0") if f]


def escapes(repo, base, climb, name):
    target = os.path.normpath(os.path.join(repo, base, climb, name or ""))
    return os.path.relpath(target, repo).startswith("..")


def check_file(repo, path):
    findings = []
    if path.endswith(BINARY_SUFFIXES) or path == "LICENSE":
        return findings
    try:
        with open(os.path.join(repo, path), encoding="utf-8") as f:
            lines = f.readlines()
    except (UnicodeDecodeError, OSError):
        return findings
    folder = os.path.dirname(path)
    from_root = path.endswith(ROOT_RELATIVE)
    for number, line in enumerate(lines, 1):
        if OPT_OUT in line:
            continue
        for m in ABSOLUTE.finditer(line):
            findings.append(f"{path}:{number}:{m.start() + 1}: absolute path '{m.group(0)}' is outside the repository")
        for m in CLIMB.finditer(line):
            climb, name = m.group(1), m.group(2)
            if escapes(repo, folder, climb, name) or (from_root and escapes(repo, "", climb, name)):
                findings.append(f"{path}:{number}:{m.start() + 1}: '{climb}{name}' climbs out of the repository")
        for m in CLIMB_AFTER_VAR.finditer(line):
            variable, climb, name = m.group(2) or "", m.group(3), m.group(4)
            base = "" if ROOT_VARIABLES.search(variable) else folder
            if escapes(repo, base, climb, name):
                findings.append(f"{path}:{number}:{m.start() + 1}: '{m.group(0)}' climbs out of the repository")
    return findings


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    findings = []
    for path in tracked_files(repo):
        findings += check_file(repo, path)
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-self-contained: {len(findings)} reference(s) to paths outside the repository "
              "(hint: copy what is needed into the repository, e.g. tests/data/ or docs/reference/)")
        return 1
    print(f"check-self-contained: every tracked file stays inside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())

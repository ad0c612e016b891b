#!/usr/bin/env python3
"""The corpus programs (tests/corpus/tilelang-examples) as CorpusCheckTest counts them: every .py file but the
helper modules programs import; `--compiling` leaves out those tests/engine/corpus/expected-failures.txt lists; `--run-args` adds, after a tab, the `tilec run`
arguments tests/engine/corpus/run-inputs.txt gives the program (its index inputs).

  python3 scripts/corpus_programs.py [--compiling] [--run-args] [--only REGEX]   # one path per line, relative to the corpus
"""
import argparse
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CORPUS = os.path.join(ROOT, "tests", "corpus", "tilelang-examples")
EXPECTED_FAILURES = os.path.join(ROOT, "tests", "engine", "corpus", "expected-failures.txt")
RUN_INPUTS = os.path.join(ROOT, "tests", "engine", "corpus", "run-inputs.txt")


def expected_failures():
    with open(EXPECTED_FAILURES) as f:
        return {line.split(":", 1)[0] for line in f if line.strip() and not line.startswith("#")}


def run_arguments():
    """PROGRAM -> its tilec run arguments, from run-inputs.txt."""
    out = {}
    with open(RUN_INPUTS) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                program, arguments = line.split(": ", 1)
                out[program] = arguments.strip()
    return out


def corpus_programs(compiling=False, only="."):
    listed = expected_failures() if compiling else set()
    for dirpath, _, files in sorted(os.walk(CORPUS)):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), CORPUS)
            helper = name in ("__init__.py", "utils.py", "reference.py") or "/quantize/" in rel
            if name.endswith(".py") and not helper and rel not in listed and re.search(only, rel):
                yield rel


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compiling", action="store_true")
    parser.add_argument("--run-args", action="store_true")
    parser.add_argument("--only", default=".")
    args = parser.parse_args()
    arguments = run_arguments() if args.run_args else {}
    for rel in corpus_programs(args.compiling, args.only):
        print(rel + ("\t" + arguments.get(rel, "") if args.run_args else ""))

#!/usr/bin/env python3
"""Static versus measured shared-memory wavefronts, per kernel and per tile-program line.

Usage: wavefront-agreement.py TILEC PROFILE_DIR [PROGRAM...]
PROGRAM is a sample name (02_gemm_relu) or a corpus program's path under tests/corpus/tilelang-examples; the default
is every sample. PROFILE_DIR holds `tilec profile PROGRAM --json > profile-NAME.json` from the GPU machine
(NAME: the sample's name, or the path with '/' as '_' and no .py); the static side is `tilec banks PROGRAM
--backend portable --json`, the backend `tilec profile` runs by default. Rows:
  per kernel: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st against the hardware-rule totals x blocks;
  per line:   the SASS-metric model (LSU accesses except cp.async.cg, docs/bank-analysis.md) x blocks against
              the measured smsp__sass wavefronts of the SASS instructions placed on that line. SASS records on
              no tile-program line (the cp.async helper, whose SASS metric bank-rules.md shows is not
              reproducible) are listed as 'unplaced' and not compared.
Blocks are the static grid, or, when the grid depends on dynamic dims, the grid the profile ran with.
A line or kernel whose accesses run under a condition the static side cannot decide (`if mask[k] != 0`) is
an upper bound: it agrees when the measurement does not exceed it, and the row says what share of the
bound ran. One whose trip count is not a constant (a loop over a dynamic dim) is per execution: the row
gives the executions the measurement implies. A per-kernel excess in a kernel that also runs cp.async, with
the hardware reporting bank conflicts the static side does not have, is labelled 'cp.async contention':
cp.async fills of other warps landing while ld/st.shared run, charged to those instructions by the counter
and different in every run (tests/engine/profile/kernels/ldgsts_contention.cu shows it vanish when the same
kernel copies without cp.async). Such rows print their numbers and do not fail the check; a program with no
profile (it did not run) is a row saying so. Exit status 1 when a compared row differs otherwise.
"""
import collections
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SAMPLES = ["01_elementwise_add", "02_gemm_relu", "03_gemm_transpose", "04_softmax", "05_rmsnorm_silu",
           "06_flash_attention", "07_mla_decode"]


CORPUS = os.path.join(ROOT, "tests", "corpus", "tilelang-examples")


def program_path(program):
    return os.path.join(ROOT, "samples", program + ".py") if "/" not in program else os.path.join(CORPUS, program)


def profile_name(program):
    return program if "/" not in program else os.path.splitext(program)[0].replace("/", "_")


def verdict_of(predicted, measured, exact, conditional):
    """(verdict text, whether it counts as a difference). A count per execution is no bound: it goes first."""
    if not exact:
        runs = f"{measured / predicted:.2f}" if predicted else "-"
        return f"per execution: the measurement is {runs} executions", False
    if conditional:
        if measured <= predicted:
            share = f"{measured / predicted:.1%}" if predicted else "-"
            return f"conditional: {share} of the bound ran", False
        return f"{measured - predicted:+d} above the conditional bound", True
    return ("equal", False) if predicted == measured else (f"{measured - predicted:+d}", True)


def compare_program(tilec, profiles, program):
    """Prints the program's rows; returns how many differ."""
    name = profile_name(program)
    path = os.path.join(profiles, f"profile-{name}.json")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        print(f"{name:<20} {'-':<26} {'-':>12} {'-':>12}  no profile (the program did not run on the GPU)")
        return 0
    done = subprocess.run([tilec, "banks", program_path(program), "--backend", "portable", "--json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        why = next((l for l in done.stderr.splitlines() if "error" in l), done.stderr.strip()[-120:])
        print(f"{name:<20} {'-':<26} {'-':>12} {'-':>12}  no static analysis: {why[:160]}")
        return 0
    static = json.loads(done.stdout)
    with open(path) as f:
        measured = json.load(f)
    differ = 0
    reports = measured.get("reports", [])
    if not reports:
        print(f"{name:<20} {'-':<26} {'-':>12} {'-':>12}  no profile: {measured.get('error', 'no kernel ran')}")
        return 0
    if len(reports) != len(static["kernels"]):
        print(f"{name:<20} {'-':<26} {len(static['kernels']):>12} {len(reports):>12}  kernel counts differ: "
              "not compared")
        return 1
    for k, report in enumerate(reports):
        kernel = static["kernels"][k]
        blocks = kernel["blocks"] or report.get("blocks", 0)
        totals = kernel["totals"]
        conditional_kernel = totals.get("conditionalAccesses", 0) > 0
        if not blocks:
            print(f"{name:<20} {'kernel ' + str(k):<26} {'-':>12} {'-':>12}  grid unknown: not compared")
            continue
        if not report["timing"].get("ok") or not report["sass"].get("ok"):
            error = report["timing"].get("error") or report["sass"].get("error") or "no SASS records"
            print(f"{name:<20} {'kernel ' + str(k):<26} {'-':>12} {'-':>12}  no measurement: {error[:120]}")
            continue
        metrics = {m["name"]: m.get("value") for m in report["counters"]["metrics"] if m.get("available")}
        runs_cp_async = any(r["tileLine"] < 0 and r["sharedWavefronts"] for r in report["sass"]["instructions"])
        # Per line first: the SASS metric of every instruction the program runs.
        by_line = collections.Counter()
        for r in report["sass"]["instructions"]:
            by_line[r["tileLine"]] += r["sharedWavefronts"]
        static_lines = {l["line"]: l for l in kernel["lines"]}
        line_rows, lines_equal = [], True
        for line in sorted(set(by_line) | set(static_lines)):
            entry = static_lines.get(line, {})
            p, m = entry.get("sassComparable", 0) * blocks, by_line.get(line, 0)
            if not p and not m:
                continue
            if line < 0:
                line_rows.append(f"{name:<20} {'unplaced (cp.async helper)':<26} {'-':>12} {m:>12}  not compared")
                continue
            verdict, differs = verdict_of(p, m, entry.get("exact", True), entry.get("conditional", False))
            lines_equal = lines_equal and not differs
            differ += differs
            line_rows.append(f"{name:<20} {'line ' + str(line) + ' (SASS metric)':<26} {p:>12} {m:>12}  {verdict}")
        # Per kernel: an excess is cp.async contention only where every instruction is exact, the kernel
        # runs cp.async, and the counter reports conflicts the instructions do not have.
        for op in ("ld", "st"):
            m = metrics.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
            p = totals["perBlock"]["opLd" if op == "ld" else "opSt"] * blocks
            conflicts = metrics.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum") or 0
            predicted_conflicts = totals["perBlock"]["opLdConflicts" if op == "ld" else "opStConflicts"] * blocks
            if m is None:
                verdict, differs = "n/a", False
            else:
                verdict, differs = verdict_of(p, m, totals["exact"], conditional_kernel)
            contention = (differs and m > p and lines_equal and runs_cp_async and conflicts > predicted_conflicts)
            if contention:
                verdict += f" cp.async contention ({conflicts} counted conflicts, {predicted_conflicts} real)"
            differ += differs and not contention
            print(f"{name:<20} {'kernel ' + str(k) + ' op_' + op:<26} {p:>12} {m if m is not None else '-':>12}  "
                  f"{verdict}")
        for row in line_rows:
            print(row)
    return differ


def main():
    tilec, profiles = sys.argv[1], sys.argv[2]
    programs = sys.argv[3:] or SAMPLES
    print(f"{'program':<20} {'row':<26} {'predicted':>12} {'measured':>12}  verdict")
    differ = sum(compare_program(tilec, profiles, program) for program in programs)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

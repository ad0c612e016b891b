#!/usr/bin/env python3
"""Static versus measured shared-memory wavefronts, per kernel and per tile-program line.

Usage: wavefront-agreement.py TILEC PROFILE_DIR [SAMPLE...]
PROFILE_DIR holds `tilec profile samples/NAME.py --json > profile-NAME.json` from the GPU machine; the static
side is `tilec banks NAME.py --no-wgmma --json` (the portable path the GPU ran). Rows:
  per kernel: l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/_op_st against the hardware-rule totals x blocks;
  per line:   the SASS-metric model (LSU accesses except cp.async.cg, docs/bank-analysis.md) x blocks against
              the measured smsp__sass wavefronts of the SASS instructions placed on that line. SASS records on
              no tile-program line (the cp.async helper, whose SASS metric bank-rules.md shows is not
              reproducible) are listed as 'unplaced' and not compared.
Exit status 1 when a compared row differs.
"""
import collections
import json
import os
import subprocess
import sys

SAMPLES = ["01_elementwise_add", "02_gemm_relu", "03_gemm_transpose", "04_softmax", "05_rmsnorm_silu",
           "06_flash_attention", "07_mla_decode"]


def main():
    tilec, profiles = sys.argv[1], sys.argv[2]
    samples = sys.argv[3:] or SAMPLES
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    differ = 0
    print(f"{'sample':<20} {'row':<26} {'predicted':>12} {'measured':>12}  verdict")
    for name in samples:
        static = json.loads(subprocess.run([tilec, "banks", os.path.join(root, "samples", name + ".py"),
                                            "--no-wgmma", "--json"], capture_output=True, text=True,
                                           check=True).stdout)
        with open(os.path.join(profiles, f"profile-{name}.json")) as f:
            measured = json.load(f)
        for k, report in enumerate(measured["reports"]):
            kernel = static["kernels"][k]
            blocks = kernel["blocks"]
            per_kernel = kernel["totals"]["perKernel"]
            metrics = {m["name"]: m.get("value") for m in report["counters"]["metrics"] if m.get("available")}
            for op in ("ld", "st"):
                m = metrics.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
                p = per_kernel["opLd" if op == "ld" else "opSt"]
                verdict = "equal" if m == p else ("n/a" if m is None else f"{(m - p):+d}")
                differ += m is not None and m != p
                print(f"{name:<20} {'kernel ' + str(k) + ' op_' + op:<26} {p:>12} {m if m is not None else '-':>12}  {verdict}")
            by_line = collections.Counter()
            for r in report["sass"]["instructions"]:
                by_line[r["tileLine"]] += r["sharedWavefronts"]
            predicted = {l["line"]: l["sassComparable"] * blocks for l in kernel["lines"]}
            for line in sorted(set(by_line) | set(predicted)):
                p, m = predicted.get(line, 0), by_line.get(line, 0)
                if not p and not m:
                    continue
                if line < 0:
                    print(f"{name:<20} {'unplaced (cp.async helper)':<26} {'-':>12} {m:>12}  not compared")
                    continue
                differ += p != m
                print(f"{name:<20} {'line ' + str(line) + ' (SASS metric)':<26} {p:>12} {m:>12}  "
                      f"{'equal' if p == m else f'{m - p:+d}'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The cp.async contention experiment: hardware shared-memory counters against the SASS metrics of the same
kernel with cp.async (ASYNC=1) and without (ASYNC=0).

Usage: ldgsts-contention.py PROFILE_ASYNC.json PROFILE_SYNC.json
Each file is `tilec profile tests/engine/profile/kernels/ldgsts_contention.cu -p ASYNC=N --json`. For every
run it prints the op_ld / op_st counters, the counted bank conflicts, and the total shared wavefronts of the
kernel's SASS metric (LDS, STS and, with ASYNC=1, the LDGSTS fills that no op_ld/op_st counter sees).
"""
import json
import sys


def summary(path):
    with open(path) as f:
        report = json.load(f)
    report = report["reports"][0] if "reports" in report else report
    metrics = {m["name"]: m.get("value") for m in report["counters"]["metrics"] if m.get("available")}
    return metrics, sum(r["sharedWavefronts"] for r in report["sass"]["instructions"])


def main():
    print(f"{'kernel':<10} {'op_ld':>8} {'op_st':>8} {'ld confl':>9} {'st confl':>9} {'SASS total':>11}")
    for label, path in zip(("ASYNC=1", "ASYNC=0"), sys.argv[1:3]):
        m, sass = summary(path)
        ld = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
        st = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
        cld = m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
        cst = m.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
        print(f"{label:<10} {ld:>8} {st:>8} {cld:>9} {cst:>9} {sass:>11}")
    print("Expected without contention: op_ld 49152, op_st 16384 (ASYNC=1; its 32768 cp.async fill wavefronts")
    print("appear only in the SASS total) and 49152 (ASYNC=0, the fills as st.shared); no conflicts.")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The same tile program through TileBench and through TileLang, timed alternately in one run.

For each case: `tilec bench FILE -p ... --flush-l2` (CUPTI kernel time, L2 flushed before every launch) and
TileLang's own compile of the same .py file with the same parameters, timed by its profiler's
`do_bench(backend="cupti")` (which also flushes L2). The card is power-capped, so the two alternate for
--rounds rounds and the ratio is of the medians. TileLang compiles with nvcc (10-35 s a kernel): every case
is compiled first, in parallel processes, so that no compile sits between timed rounds.

Runs on the GPU machine. TileLang is a peer, not a dependency: when it cannot be imported every case says so
and only TileBench is timed. docs/benchmarks.md says how TileLang 0.1.15 gets there.

A case may also edit literals of the source (a sample's `threads=128` or `num_stages=3`, which are not jit
parameters): both compilers then get the same edited copy, written to a temporary folder.

  python3 scripts/bench-vs-tilelang.py TILEC [--backend hopper] [--rounds 3] [--only REGEX] [--json OUT]
"""
import argparse
import ast
import concurrent.futures
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SAMPLES = os.path.join(ROOT, "samples")


def gemm(m, n, k):
    return 2.0 * m * n * k


def attention(b, h, s, d, causal):
    return 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)


def mla(b, h, length, dim=512, pe=64):
    return 2.0 * b * h * length * (dim + pe + dim)


# The GEMM sample's best configuration in `tilec sweep -p block_N=128,256 -p num_stages=3,4 -p threads=128,256`
# on the H200 (docs/benchmarks.md): 128x256 tiles, 4 stages, 256 threads (two consumer warpgroups).
GEMM_TUNED = {"num_stages=3": "num_stages=4", "threads=128": "threads=256"}

# label, sample file, jit function, parameters (the same for both), work, unit[, source edits]
CASES = [
    ("gemm-4096", "02_gemm_relu.py", "matmul", dict(M=4096, N=4096, K=4096, block_M=128, block_N=128, block_K=64),
     gemm(4096, 4096, 4096), "TFLOP/s"),
    ("gemm-8192", "02_gemm_relu.py", "matmul", dict(M=8192, N=8192, K=8192, block_M=128, block_N=128, block_K=64),
     gemm(8192, 8192, 8192), "TFLOP/s"),
    ("gemm-4096-128x256", "02_gemm_relu.py", "matmul",
     dict(M=4096, N=4096, K=4096, block_M=128, block_N=256, block_K=64), gemm(4096, 4096, 4096), "TFLOP/s"),
    ("gemm-8192-128x256", "02_gemm_relu.py", "matmul",
     dict(M=8192, N=8192, K=8192, block_M=128, block_N=256, block_K=64), gemm(8192, 8192, 8192), "TFLOP/s"),
    ("gemm-4096-tuned", "02_gemm_relu.py", "matmul",
     dict(M=4096, N=4096, K=4096, block_M=128, block_N=256, block_K=64), gemm(4096, 4096, 4096), "TFLOP/s",
     GEMM_TUNED),
    ("gemm-8192-tuned", "02_gemm_relu.py", "matmul",
     dict(M=8192, N=8192, K=8192, block_M=128, block_N=256, block_K=64), gemm(8192, 8192, 8192), "TFLOP/s",
     GEMM_TUNED),
    ("flash-b4h32s4096d128", "06_flash_attention.py", "flashattn",
     dict(batch=4, heads=32, seq_len=4096, dim=128, is_causal=False, block_M=128, block_N=128, num_stages=1,
          threads=128), attention(4, 32, 4096, 128, False), "TFLOP/s"),
    ("flash-b4h32s4096d128-causal", "06_flash_attention.py", "flashattn",
     dict(batch=4, heads=32, seq_len=4096, dim=128, is_causal=True, block_M=128, block_N=128, num_stages=1,
          threads=128), attention(4, 32, 4096, 128, True), "TFLOP/s"),
    ("flash-b4h32s4096d128-t256", "06_flash_attention.py", "flashattn",
     dict(batch=4, heads=32, seq_len=4096, dim=128, is_causal=False, block_M=128, block_N=128, num_stages=1,
          threads=256), attention(4, 32, 4096, 128, False), "TFLOP/s"),
    ("flash-b4h32s4096d128-causal-t256", "06_flash_attention.py", "flashattn",
     dict(batch=4, heads=32, seq_len=4096, dim=128, is_causal=True, block_M=128, block_N=128, num_stages=1,
          threads=256), attention(4, 32, 4096, 128, True), "TFLOP/s"),
    ("mla-b128h128L8192", "07_mla_decode.py", "flashattn",
     dict(batch=128, heads=128, kv_head_num=1, seqlen_kv=8192, dim=512, pe_dim=64, block_N=64, block_H=64,
          num_split=1), mla(128, 128, 8192), "TFLOP/s"),
    ("rmsnorm-C1024", "05_rmsnorm_silu.py", "rms_norm_silu", dict(M=262144, C=1024), 2.0 * 262144 * 1024 * 2,
     "GB/s"),
    ("rmsnorm-C96", "05_rmsnorm_silu.py", "rms_norm_silu", dict(M=262144, C=96), 2.0 * 262144 * 96 * 2, "GB/s"),
]


def tilelang_available():
    try:
        import tilelang  # noqa: F401
        return True, ""
    except Exception as e:  # any import failure: not importable here
        return False, f"TileLang is not importable ({type(e).__name__}: {str(e)[:120]})"


def load_jit(file, name):
    """The program's jit function, from its imports and definitions only: the samples also run a small check
    at module level, which would compile (and time) a kernel of other parameters first."""
    with open(file) as f:
        tree = ast.parse(f.read(), file)
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    constant = lambda n: isinstance(n, (ast.Assign, ast.AnnAssign)) and not any(
        isinstance(x, ast.Call) for x in ast.walk(n))
    tree.body = [n for n in tree.body if isinstance(n, keep) or constant(n)]
    namespace = {"__name__": "tb_" + os.path.basename(file)[:-3], "__file__": file}
    exec(compile(tree, file, "exec"), namespace)
    return namespace[name]


def tilelang_kernel(file, name, params):
    return load_jit(file, name)(**params)


EDITED = tempfile.mkdtemp(prefix="bench-vs-tilelang-")
_edited_paths = {}  # case label -> the edited copy this process wrote


def source_of(case):
    """The file both compilers get: the sample, or a copy with the case's literal edits (written once)."""
    path = os.path.join(SAMPLES, case[1])
    edits = case[6] if len(case) > 6 else None
    if not edits:
        return path
    if case[0] in _edited_paths:
        return _edited_paths[case[0]]
    with open(path) as f:
        text = f.read()
    for old, new in edits.items():
        if old not in text:
            raise ValueError(f"{case[1]} has no '{old}' to edit")
        text = text.replace(old, new)
    edited = os.path.join(EDITED, case[0] + "-" + case[1])
    with open(edited, "w") as f:
        f.write(text)
    _edited_paths[case[0]] = edited
    return edited


def tilelang_compile(case):
    label, file, name, params = case[0], source_of(case), case[2], case[3]
    t0 = time.time()
    try:
        tilelang_kernel(file, name, params)
        return label, time.time() - t0, None
    except Exception as e:
        return label, time.time() - t0, f"{type(e).__name__}: {str(e)[:300]}"


def tilelang_ms(kernel):
    return float(kernel.get_profiler().do_bench(backend="cupti"))


def tilebench_ms(tilec, file, params, backend, log):
    args = [tilec, "bench", file, "--flush-l2", "--no-ceilings", "--repeat", "50"]
    if backend:
        args += ["--backend", backend]
    for k, v in params.items():
        args += ["-p", f"{k}={v}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    out = r.stdout + r.stderr
    log.write(f"$ {' '.join(args)}\n(exit {r.returncode})\n{out}\n")
    total, found = 0.0, False
    for m in re.finditer(r"^time: median ([0-9.]+) (us|ms|s)\b", out, re.M):
        v, unit = float(m.group(1)), m.group(2)
        total += v / 1000.0 if unit == "us" else (v * 1000.0 if unit == "s" else v)
        found = True
    return (total if found else None), out.strip().splitlines()[-1:] if not found else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilec")
    ap.add_argument("--backend", default="")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--log", default="bench-vs-tilelang.log")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.only or re.search(a.only, c[0])]
    have_tilelang, why = tilelang_available()
    if not have_tilelang:
        print(f"bench-vs-tilelang: {why}: timing TileBench only", flush=True)
    compiled_errors = {}
    if have_tilelang:
        # Fill TileLang's kernel cache first, in parallel processes (nvcc), so no compile lands between rounds.
        with concurrent.futures.ProcessPoolExecutor(max_workers=min(8, len(cases)), mp_context=multiprocessing.get_context("spawn")) as pool:
            for label, seconds, error in pool.map(tilelang_compile, cases):
                print(f"tilelang compiled {label} in {seconds:.1f} s" + (f": {error}" if error else ""), flush=True)
                if error:
                    compiled_errors[label] = error
    rows = []
    with open(a.log, "w") as log:
        for case in cases:
            label, file, name, params, work, unit = case[:6]
            path = source_of(case)
            kernel, tl_error = None, compiled_errors.get(label) or (None if have_tilelang else why)
            if have_tilelang and not tl_error:
                try:
                    kernel = tilelang_kernel(path, name, params)
                except Exception as e:
                    tl_error = f"{type(e).__name__}: {str(e)[:200]}"
            tb, tl, tb_error = [], [], None
            for _ in range(a.rounds):
                ms, err = tilebench_ms(a.tilec, path, params, a.backend, log)
                if ms is None:
                    tb_error = " ".join(err)
                else:
                    tb.append(ms)
                if kernel is not None:
                    try:
                        tl.append(tilelang_ms(kernel))
                    except Exception as e:
                        tl_error = f"{type(e).__name__}: {str(e)[:200]}"
                        kernel = None
            tb_ms = statistics.median(tb) if tb else None
            tl_ms = statistics.median(tl) if tl else None
            scale = 1e12 if unit == "TFLOP/s" else 1e9
            row = dict(label=label, file=file, edits=case[6] if len(case) > 6 else {}, params=params, backend=a.backend or "default", tilebench_ms=tb,
                       tilelang_ms=tl, tilebench_rate=work / (tb_ms * 1e-3) / scale if tb_ms else None,
                       tilelang_rate=work / (tl_ms * 1e-3) / scale if tl_ms else None,
                       speedup=(tl_ms / tb_ms) if (tb_ms and tl_ms) else None, tilebench_error=tb_error,
                       tilelang_error=tl_error)
            rows.append(row)
            f = lambda x: "-" if x is None else f"{x:.3f}"
            print(f"{label:30s} tilebench {f(tb_ms)} ms ({f(row['tilebench_rate'])} {unit})  tilelang {f(tl_ms)} ms "
                  f"({f(row['tilelang_rate'])} {unit})  speedup {f(row['speedup'])}", flush=True)
            for what, err in (("tilebench", tb_error), ("tilelang", tl_error)):
                if err:
                    print(f"    {what}: {err}", flush=True)
    if a.json:
        with open(a.json, "w") as out:
            json.dump(rows, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

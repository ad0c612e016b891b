#!/usr/bin/env python3
"""The CPU JIT against eager PyTorch on the CPU: the same computations at the same shapes, measured in the
same run. `bench_cpu --jit-only` prints the JIT's compile and run times for each sample (its blocks on every
hardware thread); this script then times PyTorch's CPU ops computing what the sample's own PyTorch
reference computes (fp16 inputs widened to float, float math, fp16 outputs), on every hardware thread, the
median of 5 runs after a warm-up, and prints torch / JIT run and torch / (JIT compile + run).

  python3 scripts/bench-cpu-vs-torch.py [BUILD_DIR]     # default build-gpu, else build

A benchmark: it never fails on timing. Needs PyTorch (the GPU machine has it; the dev machine does not).
"""
import os
import re
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F


def median_seconds(fn, runs=5):
    fn()  # warm-up (allocations, oneDNN's kernel selection)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def randn(*shape, dtype=torch.float16):
    return torch.randn(*shape, dtype=torch.float32).to(dtype)


def rmsnorm_silu(m, c):
    x, g = randn(m, c), randn(c)

    def run():
        xf = x.float()
        return F.silu(xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * g.float()).half()

    return run


def flash(b, h, s, d):
    q, k, v = randn(b, s, h, d), randn(b, s, h, d), randn(b, s, h, d)

    def run():  # the sample's layout is (batch, seq, heads, dim)
        o = F.scaled_dot_product_attention(q.float().transpose(1, 2), k.float().transpose(1, 2),
                                           v.float().transpose(1, 2))
        return o.transpose(1, 2).half()

    return run


def gemm_relu(n):
    a, b = randn(n, n), randn(n, n)
    return lambda: torch.relu(a.float() @ b.float()).half()


def gemm_nt(n):
    a, b = randn(n, n), randn(n, n)
    return lambda: (a.float() @ b.float().T).half()


def softmax(m, n):
    x = randn(m, n)
    return lambda: x.float().softmax(dim=1).half()


def elementwise_add(m, n):
    a, b = randn(m, n, dtype=torch.float32), randn(m, n, dtype=torch.float32)
    return lambda: a + b


# bench_cpu's labels -> the eager computation of the same sample at the same shape.
CASES = {
    "gemm_relu 1024^3": lambda: gemm_relu(1024),
    "gemm_transpose 512^3 NT": lambda: gemm_nt(512),
    "rmsnorm_silu 8192x1024": lambda: rmsnorm_silu(8192, 1024),
    "rmsnorm_silu 262144x1024": lambda: rmsnorm_silu(262144, 1024),
    "flash_attn b1h8s1024d64": lambda: flash(1, 8, 1024, 64),
    "elementwise_add 512x1024": lambda: elementwise_add(512, 1024),
    "softmax 1024x2000": lambda: softmax(1024, 2000),
}


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else ("build-gpu" if os.path.isdir("build-gpu") else "build")
    bench = os.path.join(build, "engine", "tools", "bench", "bench_cpu")
    out = subprocess.run([bench, "--jit-only"], capture_output=True, text=True, check=True).stdout
    jit = {}
    for line in out.splitlines():
        for label in CASES:
            if line.startswith(label):
                fields = line[28:].split()  # interp(s) jit-cc(s) jit-run(s) ...
                jit[label] = (float(fields[1]), float(fields[2]), "correct" in line)
    torch.set_num_threads(os.cpu_count())
    print(f"CPU: the JIT (bench_cpu --jit-only) against eager PyTorch {torch.__version__}, "
          f"{os.cpu_count()} threads each, same shapes")
    print(f"{'sample':28} {'jit-cc(s)':>9} {'jit-run(s)':>10} {'torch(s)':>9} {'torch/run':>9} "
          f"{'torch/(cc+run)':>14} checked")
    for label, make in CASES.items():
        if label not in jit:
            print(f"{label:28} not in bench_cpu's output")
            continue
        compile_s, run_s, correct = jit[label]
        torch_s = median_seconds(make())
        per_run = f"{torch_s / run_s:8.2f}x" if run_s > 0 else f"{'-':>9}"  # bench_cpu prints ms
        print(f"{label:28} {compile_s:9.3f} {run_s:10.3f} {torch_s:9.4f} {per_run} "
              f"{torch_s / (compile_s + run_s):13.2f}x {'correct' if correct else 'WRONG'}")


if __name__ == "__main__":
    main()

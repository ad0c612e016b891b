#!/usr/bin/env bash
# Writes the generated CUDA (and the diagnostics) of every sample and test program into OUTDIR, one file per
# program, target and parameter setting, so that a restructuring of the compiler can show that code
# generation did not change: run it before and after, then `diff -r BEFORE AFTER`.
#
#   scripts/cuda-snapshot.sh [BUILD] OUTDIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -ge 2 ]]; then BUILD="$1"; OUTDIR="$2"; else BUILD="$ROOT/build"; OUTDIR="$1"; fi
TILEC="$BUILD/engine/tools/tilec/tilec"
mkdir -p "$OUTDIR"
count=0
snapshot() { # program, label, tilec arguments
    local program="$1" label="$2"; shift 2
    local out="$OUTDIR/$(echo "${program#"$ROOT"/}" | tr '/' '_')$label.cu"
    "$TILEC" emit cuda "$program" "$@" >"$out" 2>&1
    echo "exit $?" >>"$out"
    count=$((count + 1))
}
programs=("$ROOT"/samples/*.py)
while IFS= read -r f; do programs+=("$f"); done < <(find "$ROOT/tests" -name '*.py' | sort)
for p in "${programs[@]}"; do
    for arch in sm_90a sm_80; do
        snapshot "$p" ".$arch" --arch "$arch"
    done
done
# Parameter settings the defaults do not reach: pipeline depths, transposes, ragged shapes.
for s in 02_gemm_relu 03_gemm_transpose 06_flash_attention 07_mla_decode; do
    for stages in 1 2 3 4; do
        snapshot "$ROOT/samples/$s.py" ".stages$stages" -p num_stages=$stages
    done
done
snapshot "$ROOT/samples/02_gemm_relu.py" ".ragged" -p M=200 -p N=136 -p K=72
snapshot "$ROOT/samples/04_softmax.py" ".ragged" -p M=100 -p N=300
snapshot "$ROOT/samples/05_rmsnorm_silu.py" ".C96" -p C=96
for ta in False True; do
    for tb in False True; do
        snapshot "$ROOT/tests/engine/codegen/programs/gemm_k_slices.py" ".t$ta$tb" -p trans_A=$ta -p trans_B=$tb
    done
done
echo "cuda-snapshot: $count files in $OUTDIR"

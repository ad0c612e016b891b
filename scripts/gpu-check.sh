#!/usr/bin/env bash
# Everything worth checking on the GPU machine, in one run (machine time is expensive; see
# docs/benchmarks.md): a headless build, the GPU tests, compute-sanitizer memcheck + racecheck, and the
# benchmarks (GEMM fp16 vs cuBLAS, RMSNorm+SiLU vs the device copy and vs eager PyTorch), ending with a
# short table. Full logs go to build-gpu/gpu-check-logs, and, when $OUT is set (the device tool brings
# that folder back), into $OUT/gpu-check-logs.tar.gz with $OUT/summary.txt.
#
#   bash scripts/gpu-check.sh            # from the repository root, on the H200 test machine
#   SECTIONS="build tests samples" bash scripts/gpu-check.sh   # only these sections (default: all)
#   SKIP_BUILD=1 bash scripts/gpu-check.sh   # reuse build-gpu
#   TARGETS="tilec tilebench-runner tests_gpu" bash scripts/gpu-check.sh   # build only these targets
#   DEADLINE=480 bash scripts/gpu-check.sh   # sections that would start after 480 s are skipped, with a row
#                                            # saying so (a device command is limited to 600 s)
#   SKIP_BUILD=1 BUILD=build-carry QUICK=1 bash scripts/gpu-check.sh
#       # binaries built on Debian 12 and carried; QUICK skips racecheck and the long benchmarks
#
# The build is from source with the machine's own compiler. That machine has no GoogleTest and no package
# manager: run scripts/carry-googletest.sh here first, and name .gpucarry in the device run's carry, so that
# tests/CMakeLists.txt builds GoogleTest from .gpucarry/googletest.
#
# Sections: build tests hopper-tests samples hopper-samples warp-groups corpus hopper-perf tilelang
# tilelang-layouts sanitize wavefront bench hopper-tune hopper-bench hopper-sweep bigrun fuzz edit torch
# cpu-torch.
set -uo pipefail
SECTIONS=" ${SECTIONS:-all} "
want() {
    [[ "$SECTIONS" == *" all "* || "$SECTIONS" == *" $1 "* ]] || return 1
    if [[ -n "${DEADLINE:-}" ]] && ((SECONDS > DEADLINE)); then
        row "section $1" "skipped: ${SECONDS} s passed, past DEADLINE=${DEADLINE}"
        return 1
    fi
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build-gpu}"
LOGS="$BUILD/gpu-check-logs"
KERNELS="$ROOT/tests/engine/profile/kernels"
mkdir -p "$LOGS"
SUMMARY="$LOGS/summary.txt"
: >"$SUMMARY"
# The device tool brings back at most 8 files from $OUT: the summary and one archive of every log.
pack() {
    [[ -n "${OUT:-}" ]] || return 0
    cp "$SUMMARY" "$OUT/summary.txt"
    tar -C "$LOGS" --exclude=./cache -czf "$OUT/gpu-check-logs.tar.gz" .
}
trap pack EXIT

# TileLang 0.1.15, carried as .peers/ (docs/benchmarks.md), unpacked once per machine.
unpack_tilelang() {
    [[ -d /tmp/tl/site ]] || { mkdir -p /tmp/tl && tar -C /tmp/tl -xJf "$ROOT/.peers/tilelang-0.1.15-site.tar.xz"; }
}
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$SUMMARY"; }
step() { echo; echo "== $*"; }

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv 2>&1; nvcc --version 2>&1 | tail -1; } | tee "$LOGS/machine.log"

# Debian's LLVM 16, carried (scripts/carry-llvm.sh): the CPU JIT is built, and the GPU runs' CPU oracle is the
# JIT on the host's cores instead of the interpreter.
LLVM_ROOT=""
if [[ -f "$ROOT/.gpucarry/llvm16.tar.xz" ]]; then
    [[ -d /tmp/llvm16 ]] || tar -C /tmp -xJf "$ROOT/.gpucarry/llvm16.tar.xz"
    # The headers travel; the library is the machine's own where it has one.
    if [[ ! -e /tmp/llvm16/lib/libLLVM-16.so && -e /usr/lib/x86_64-linux-gnu/libLLVM-16.so.1 ]]; then
        mkdir -p /tmp/llvm16/lib && ln -s /usr/lib/x86_64-linux-gnu/libLLVM-16.so.1 /tmp/llvm16/lib/libLLVM-16.so
    fi
    if [[ -e /tmp/llvm16/lib/libLLVM-16.so ]]; then
        LLVM_ROOT=/tmp/llvm16
        export LD_LIBRARY_PATH="$LLVM_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
fi
if [[ "${SKIP_BUILD:-0}" != "1" ]] && want build; then
    step "build (headless, from source: $(c++ --version | head -1))"
    if cmake -S "$ROOT" -B "$BUILD" -G Ninja -DTILEBENCH_BUILD_APP=OFF -DCMAKE_BUILD_TYPE=Release \
        ${LLVM_ROOT:+-DTILEBENCH_LLVM_ROOT=$LLVM_ROOT} >"$LOGS/build.log" 2>&1 &&
        # shellcheck disable=SC2086
        ninja -C "$BUILD" ${TARGETS:-} >>"$LOGS/build.log" 2>&1; then
        row "build" "ok in ${SECONDS} s ($(grep -c 'warning:' "$LOGS/build.log") warnings; $(c++ -dumpfullversion 2>/dev/null || echo '?'); $(grep -o 'TileBench: [^(]*' "$LOGS/build.log" | head -1))"
    else
        row "build" "FAILED (see build.log)"
        tail -30 "$LOGS/build.log"
        exit 1
    fi
fi
RUNNER="$BUILD/engine/tools/runner/tilebench-runner"
TILEC="$BUILD/engine/tools/tilec/tilec"
PROFILE="$BUILD/tests/engine/profile/tilec-profile"
export TILEBENCH_RUNNER="$RUNNER"
export TILEBENCH_CACHE_DIR="$LOGS/cache"
# The GEMM sample's best configuration in the sweep (hopper-tune): 128x256 tiles, 4 stages, 256 threads. Stages
# and threads are literals of the sample, so runs and benches of it get an edited copy.
TUNED_GEMM="$LOGS/gemm_relu_tuned.py"
sed 's/num_stages=3/num_stages=4/; s/threads=128/threads=256/' "$ROOT/samples/02_gemm_relu.py" >"$TUNED_GEMM"

bench() { # name, then tilec-profile arguments
    local name="$1"; shift
    "$PROFILE" bench "$@" --flush-l2 --repeat 20 >"$LOGS/bench-$name.log" 2>&1
    cat "$LOGS/bench-$name.log"
    local median ratio rate
    median=$(grep -m1 '^time: median' "$LOGS/bench-$name.log" | awk '{print $3, $4}')
    rate=$(grep -m1 -E '^  (compute|memory):' "$LOGS/bench-$name.log" | sed 's/^ *//' | cut -c1-60)
    ratio=$(grep -m1 '^vs cuBLAS' "$LOGS/bench-$name.log" | grep -o 'ratio [0-9.]*')
    row "$name" "${median:-failed}  ${rate}  ${ratio:+cuBLAS $ratio}"
}

# The GPU suites run at the same time, tests_run (every sample on both backends) in RUN_SHARDS shards: on a
# 16-core host they are bound by their CPU side (NVRTC, the CPU oracle), not by the GPU.
suites=()
want tests && suites+=(gpu/tests_gpu run/tests_run profile/tests_profile)
want hopper-tests && suites+=(hopper/tests_hopper)
if ((${#suites[@]})); then
    step "GPU tests: ${suites[*]}"
    for suite in "${suites[@]}"; do
        t="$BUILD/tests/engine/$suite"
        [[ -x "$t" ]] || continue
        shards=1
        [[ $suite == run/tests_run ]] && shards=${RUN_SHARDS:-4}
        for ((i = 0; i < shards; ++i)); do
            (GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$t" >"$LOGS/$(basename "$t").$i.log" 2>&1
             echo $? >"$LOGS/$(basename "$t").$i.rc") &
        done
    done
    wait
    for suite in "${suites[@]}"; do
        name=$(basename "$suite")
        if [[ ! -x "$BUILD/tests/engine/$suite" ]]; then row "$name" "missing"; continue; fi
        passed=$(cat "$LOGS/$name".*.log | grep -c '^\[       OK')
        skipped=$(cat "$LOGS/$name".*.log | grep -c '^\[  SKIPPED')
        if ! grep -qv '^0$' "$LOGS/$name".*.rc; then
            row "$name" "ok ($passed passed, $skipped skipped)"
        else
            row "$name" "FAILED ($passed passed; see $name.*.log)"
            cat "$LOGS/$name".*.log | grep -E '^\[  FAILED|Failure' | head -20
        fi
    done
fi

if want hopper-tests; then
# ---- Hopper device side: sanitizers on the TMA and wgmma reference kernels ----
step "compute-sanitizer on the Hopper reference kernels"
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck synccheck; do
        bad=0
        for k in "copy_tma.cu -p ROWS=1024 -p COLS=1024" "gemm_tma_wgmma.cu -p M=512 -p N=512 -p K=512" \
            "gemm_tma_wgmma.cu -p DTYPE=bf16 -p M=512 -p N=512 -p K=512" \
            "gemm_tma_wgmma.cu -p CLUSTER=2 -p M=640 -p N=512 -p K=512"; do
            # shellcheck disable=SC2086
            out=$(compute-sanitizer --tool "$tool" --error-exitcode 99 "$PROFILE" bench "$KERNELS"/$k \
                --events --no-ceilings --warmup 0 --repeat 1 --history /dev/null/none 2>&1)
            [[ $? == 99 ]] && bad=$((bad + 1))
            echo "$out" >>"$LOGS/sanitizer-hopper-$tool.log"
        done
        row "compute-sanitizer $tool (hopper kernels)" "4 runs, $bad with errors"
    done
fi
# ---- end of the Hopper device side ----
fi

if want samples; then
step "samples on the GPU (tilec run --gpu, checked against the CPU executor)"
for sample in "$ROOT"/samples/*.py; do
    name=$(basename "$sample" .py)
    if "$TILEC" run --gpu "$sample" >"$LOGS/run-$name.log" 2>&1; then
        row "run --gpu $name" "$(grep -m1 -E 'correct|WRONG' "$LOGS/run-$name.log" | cut -c1-60)"
    else
        row "run --gpu $name" "FAILED (see run-$name.log): $(tail -1 "$LOGS/run-$name.log" | cut -c1-80)"
    fi
done
fi

if want warp-groups; then
step "TileLang's hand-warp-specialized GEMMs (T.ws, mbarriers, T.tma_copy): checked runs and compute-sanitizer"
for f in "$ROOT"/tests/corpus/tilelang-examples/warp_specialize/example_warp_specialize_gemm_*.py; do
    name=$(basename "$f" .py); name=${name#example_warp_specialize_gemm_}
    for be in portable hopper; do
        # At the program's own shape where the CPU check is quick (1024^3 and 128x128x64), else 1024^3.
        shape=""
        grep -q "M=16384" "$f" && shape="-p M=1024 -p N=1024 -p K=1024"
        if "$TILEC" run --gpu "$f" --backend $be $shape >"$LOGS/ws-$name-$be.log" 2>&1; then
            row "ws $name $be" "$(grep -m1 -E 'correct|WRONG' "$LOGS/ws-$name-$be.log" | cut -c1-60)"
        else
            row "ws $name $be" "FAILED: $(grep -m1 -E 'error|WRONG|mismatch' "$LOGS/ws-$name-$be.log" | cut -c1-70)"
        fi
        bad=""
        for tool in memcheck racecheck synccheck; do
            compute-sanitizer --tool $tool --target-processes all --error-exitcode 99 "$TILEC" run --gpu "$f" \
                --backend $be -p M=256 -p N=256 -p K=256 >"$LOGS/ws-$name-$be-$tool.log" 2>&1
            [[ $? == 99 ]] && bad="$bad $tool"
        done
        row "ws $name $be sanitizers" "${bad:-memcheck racecheck synccheck clean}"
    done
done
fi

if want corpus; then
step "the TileLang example corpus on the GPU, each program at its own shape (tilec run --gpu, checked)"
# The programs CorpusCheckTest runs; those expected-failures.txt lists do not compile and are counted apart.
# CORPUS_JOBS programs at a time (the CPU check of each uses the host's cores), CORPUS_TIMEOUT s each.
corpus="$ROOT/tests/corpus/tilelang-examples"
# Programs whose index inputs their host code computes run with the arguments tests/engine/corpus/run-inputs.txt
# gives them (after a tab in corpus-run-lines.txt).
python3 "$ROOT/scripts/corpus_programs.py" --compiling --run-args --only "${CORPUS_ONLY:-.}" >"$LOGS/corpus-run-lines.txt"
cut -f1 "$LOGS/corpus-run-lines.txt" >"$LOGS/corpus-programs.txt"
listed=$(($(python3 "$ROOT/scripts/corpus_programs.py" --only "${CORPUS_ONLY:-.}" | wc -l) - $(wc -l <"$LOGS/corpus-programs.txt")))
export TILEC LOGS corpus
run_corpus_program() {
    local rel="${1%%$'\t'*}" arguments="${1#*$'\t'}"
    local log="$LOGS/corpus-${rel//\//_}.log"
    # shellcheck disable=SC2086
    timeout "${CORPUS_TIMEOUT:-150}" "$TILEC" run --gpu "$corpus/$rel" $arguments >"$log" 2>&1
    echo "rc=$?" >>"$log"
}
export -f run_corpus_program
xargs -P "${CORPUS_JOBS:-4}" -d '\n' -I{} bash -c 'run_corpus_program "$@"' _ {} <"$LOGS/corpus-run-lines.txt"
correct=0; other=0
while IFS= read -r rel; do
    log="$LOGS/corpus-${rel//\//_}.log"
    if grep -q "^correct on the GPU" "$log"; then
        correct=$((correct + 1)); row "corpus $rel" "$(grep -m1 '^correct' "$log" | cut -c1-70)"
    else
        other=$((other + 1))
        row "corpus $rel" "NOT CORRECT: $(grep -m1 -E 'error|WRONG|mismatch|not checked|rc=' "$log" | cut -c1-80)"
    fi
done <"$LOGS/corpus-programs.txt"
row "corpus on the GPU" "$correct correct at their own shapes, $other not; $listed do not compile (listed)"
fi

if want hopper-samples; then
step "samples on the hopper backend (wgmma, TMA, warp specialization), checked against the CPU executor"
hopper_run() { # label, then tilec run arguments
    local label="$1"; shift
    if "$TILEC" run --gpu --backend hopper "$@" >"$LOGS/run-hopper-$label.log" 2>&1; then
        row "hopper run --gpu $label" "$(grep -m1 -E 'correct|WRONG' "$LOGS/run-hopper-$label.log" | cut -c1-60)"
    else
        row "hopper run --gpu $label" "FAILED: $(grep -m1 -E 'error|WRONG|mismatch' "$LOGS/run-hopper-$label.log" | cut -c1-90)"
    fi
}
for sample in "$ROOT"/samples/*.py; do
    hopper_run "$(basename "$sample" .py)" "$sample"
done
hopper_run gemm-ragged "$ROOT/samples/02_gemm_relu.py" -p M=200 -p N=136 -p K=72
hopper_run gemm-1024-128x256 "$ROOT/samples/02_gemm_relu.py" -p M=1024 -p N=1024 -p K=1024 -p block_N=256
hopper_run flash-causal "$ROOT/samples/06_flash_attention.py" -p batch=1 -p heads=2 -p seq_len=256 -p dim=128 \
    -p is_causal=True -p block_M=128 -p block_N=128
hopper_run mla-ragged "$ROOT/samples/07_mla_decode.py" -p seqlen_kv=200 -p batch=2
hopper_run gemm-tuned-1024 "$TUNED_GEMM" -p M=1024 -p N=1024 -p K=1024 -p block_N=256
hopper_run gemm-tuned-ragged "$TUNED_GEMM" -p M=520 -p N=776 -p K=264 -p block_N=256
hopper_run gemm-tuned-bf16 "$TUNED_GEMM" -p M=512 -p N=768 -p K=320 -p block_N=256 -p "dtype='bfloat16'"
for causal in False True; do
    hopper_run flash-t256-causal-$causal "$ROOT/samples/06_flash_attention.py" -p batch=1 -p heads=2 -p seq_len=384 \
        -p dim=128 -p is_causal=$causal -p block_M=128 -p block_N=128 -p threads=256
done
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck synccheck; do
        bad=0
        for sample in 02_gemm_relu 06_flash_attention 07_mla_decode; do
            out=$(timeout 90 compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 99 "$TILEC" \
                run --gpu --backend hopper "$ROOT/samples/$sample.py" 2>&1)
            [[ $? == 99 ]] && bad=$((bad + 1))
            echo "$out" >>"$LOGS/sanitizer-hopper-samples-$tool.log"
        done
        row "compute-sanitizer $tool (hopper samples)" "3 programs, $bad with errors"
    done
fi
fi

if want hopper-perf; then
step "the samples on the hopper backend at the acceptance shapes"
# GEMM against cuBLAS (alternating rounds) with the sample's own tiles; flash attention; MLA decode.
bench hopper-gemm-sample-4096 "$ROOT/samples/02_gemm_relu.py" --backend hopper -p M=4096 -p N=4096 -p K=4096 --vs cublas
bench hopper-gemm-sample-8192 "$ROOT/samples/02_gemm_relu.py" --backend hopper -p M=8192 -p N=8192 -p K=8192 --vs cublas
for shape in 4096 8192; do
    bench hopper-gemm-tuned-$shape "$TUNED_GEMM" --backend hopper -p M=$shape -p N=$shape -p K=$shape \
        -p block_N=256 --vs cublas
    bench hopper-gemm-tuned-bf16-$shape "$TUNED_GEMM" --backend hopper -p M=$shape -p N=$shape \
        -p K=$shape -p block_N=256 -p "dtype='bfloat16'" --vs cublas
done
for causal in False True; do
    bench hopper-flash-b4h32s4096d128-t256-causal-$causal "$ROOT/samples/06_flash_attention.py" --backend hopper \
        -p batch=4 -p heads=32 -p seq_len=4096 -p dim=128 -p is_causal=$causal -p block_M=128 -p block_N=128 \
        -p threads=256
done
bench hopper-flash-b4h32s4096d128 "$ROOT/samples/06_flash_attention.py" --backend hopper -p batch=4 -p heads=32 \
    -p seq_len=4096 -p dim=128 -p is_causal=False -p block_M=128 -p block_N=128
bench hopper-flash-b4h32s4096d128-causal "$ROOT/samples/06_flash_attention.py" --backend hopper -p batch=4 \
    -p heads=32 -p seq_len=4096 -p dim=128 -p is_causal=True -p block_M=128 -p block_N=128
bench hopper-mla-b128h128L8192 "$ROOT/samples/07_mla_decode.py" --backend hopper -p batch=128 -p heads=128 \
    -p seqlen_kv=8192
fi
if want hopper-tune; then
step "the GEMM sample's configurations on the hopper backend (tilec sweep)"
for shape in 4096 8192; do
    "$PROFILE" sweep "$ROOT/samples/02_gemm_relu.py" --backend hopper -p M=$shape -p N=$shape -p K=$shape \
        -p block_N=128,256 -p num_stages=3,4 -p threads=128,256 --flush-l2 --repeat 10 2>&1 | tee "$LOGS/sweep-hopper-sample-$shape.log"
done
fi

if want tilelang; then
step "TileLang 0.1.15 on the same files (scripts/bench-vs-tilelang.py)"
if [[ -f "$ROOT/.peers/tilelang-0.1.15-site.tar.xz" ]]; then
    unpack_tilelang
    PYTHONPATH=/tmp/tl/site CUDA_HOME=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 \
        python3 "$ROOT/scripts/bench-vs-tilelang.py" "$BUILD/engine/tools/tilec/tilec" --backend hopper \
        --rounds "${TL_ROUNDS:-2}" --only "${TL_ONLY:-.}" --json "$LOGS/bench-vs-tilelang.json" \
        --log "$LOGS/bench-vs-tilelang.log" 2>&1 | tee "$LOGS/bench-vs-tilelang.txt"
    while read -r line; do row "vs TileLang $(echo "$line" | awk '{print $1}')" "$(echo "$line" | cut -c32- | cut -c1-110)"; done \
        < <(grep -E 'speedup' "$LOGS/bench-vs-tilelang.txt")
else
    row "vs TileLang" "skipped: .peers/tilelang-0.1.15-site.tar.xz not carried (docs/benchmarks.md)"
fi
fi

if want tilelang-layouts; then
step "TileLang 0.1.15's inferred layouts of the corpus programs (scripts/layouts-vs-tilelang.py capture)"
if [[ -f "$ROOT/.peers/tilelang-0.1.15-site.tar.xz" ]]; then
    unpack_tilelang
    PYTHONPATH=/tmp/tl/site CUDA_HOME=/usr/local/cuda PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1 \
        python3 "$ROOT/scripts/layouts-vs-tilelang.py" capture "$TILEC" --out "$LOGS/tilelang-layouts.json" \
        --only "${TL_ONLY:-.}" >"$LOGS/tilelang-layouts.txt" 2>&1
    row "TileLang layouts" "$(grep -c ': captured' "$LOGS/tilelang-layouts.txt") programs captured of $(wc -l <"$LOGS/tilelang-layouts.txt")"
    [[ -n "${OUT:-}" ]] && cp "$LOGS/tilelang-layouts.json" "$OUT/"
else
    row "TileLang layouts" "skipped: .peers/tilelang-0.1.15-site.tar.xz not carried (docs/benchmarks.md)"
fi
fi

if want sanitize; then
step "compute-sanitizer"
if command -v compute-sanitizer >/dev/null; then
    tools="memcheck racecheck"
    [[ "${QUICK:-0}" == "1" ]] && tools="memcheck"
    for tool in $tools; do
        : >"$LOGS/sanitizer-$tool.log"
        bad=0; ran=0
        # Tile programs through tilec run --gpu (when this build has it), then the hand-written kernels.
        for sample in "$ROOT"/samples/*.py; do
            out=$(compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 99 "$TILEC" run --gpu "$sample" 2>&1)
            rc=$?
            echo "$out" >>"$LOGS/sanitizer-$tool.log"
            if grep -q "not available in this build" <<<"$out"; then break; fi
            ran=$((ran + 1)); [[ $rc == 99 ]] && bad=$((bad + 1))
        done
        for k in transpose.cu copy.cu rmsnorm_silu.cu gemm_smem.cu; do
            small="-p N=1024"
            [[ $k == copy.cu ]] && small="-p COUNT=1048576"
            [[ $k == rmsnorm_silu.cu ]] && small="-p ROWS=1024"
            [[ $k == gemm_smem.cu ]] && small="-p M=256 -p N=256 -p K=256"
            out=$(compute-sanitizer --tool "$tool" --error-exitcode 99 "$PROFILE" bench "$KERNELS/$k" $small \
                --events --no-ceilings --warmup 0 --repeat 1 --history /dev/null/none 2>&1)
            rc=$?
            echo "$out" >>"$LOGS/sanitizer-$tool.log"
            ran=$((ran + 1)); [[ $rc == 99 ]] && bad=$((bad + 1))
        done
        row "compute-sanitizer $tool" "$ran programs, $bad with errors"
    done
else
    row "compute-sanitizer" "not installed: skipped"
fi
fi

if want wavefront; then
step "static versus measured shared-memory wavefronts (tilec profile --json, scripts/wavefront-agreement.py)"
mkdir -p "$LOGS/profiles"
for sample in "$ROOT"/samples/*.py; do
    "$TILEC" profile "$sample" --json >"$LOGS/profiles/profile-$(basename "$sample" .py).json" 2>>"$LOGS/profiles/errors.log"
done
programs=()
for sample in "$ROOT"/samples/*.py; do programs+=("$(basename "$sample" .py)"); done
# The open corpus as well (WAVEFRONT_CORPUS=0 skips it; CORPUS_ONLY picks): each program at its own shape
# with the arguments run-inputs.txt gives it, one at a time (the counters replay the kernel).
if [[ "${WAVEFRONT_CORPUS:-1}" == "1" ]]; then
    while IFS=$'\t' read -r rel arguments; do
        name="${rel%.py}"
        programs+=("$rel")
        # Its dims and index-input fills (--fill: made on the host and uploaded, as tilec run does).
        # shellcheck disable=SC2046
        timeout "${PROFILE_TIMEOUT:-120}" "$TILEC" profile "$ROOT/tests/corpus/tilelang-examples/$rel" \
            $(grep -o -E -- '--(dim|fill) [A-Za-z_0-9]+=[^ ]+' <<<"$arguments") --json --no-ceilings \
            >"$LOGS/profiles/profile-${name//\//_}.json" 2>>"$LOGS/profiles/errors.log" ||
            echo "$rel: rc=$?" >>"$LOGS/profiles/errors.log"
    done < <(python3 "$ROOT/scripts/corpus_programs.py" --compiling --run-args --only "${CORPUS_ONLY:-.}")
fi
if python3 "$ROOT/scripts/wavefront-agreement.py" "$TILEC" "$LOGS/profiles" "${programs[@]}" \
    >"$LOGS/wavefront-agreement.txt" 2>&1; then
    row "wavefront agreement" "every compared row agrees ($(grep -c 'conditional:' "$LOGS/wavefront-agreement.txt") conditional, $(grep -c 'no profile' "$LOGS/wavefront-agreement.txt") programs without a profile)"
else
    row "wavefront agreement" "$(grep -c -E ' [+-][0-9]+$' "$LOGS/wavefront-agreement.txt") rows differ (see wavefront-agreement.txt)"
fi
cat "$LOGS/wavefront-agreement.txt"
# The per-kernel store excess of kernels with cp.async, isolated: the same kernel with and without cp.async.
for async in 1 0; do
    "$TILEC" profile "$KERNELS/ldgsts_contention.cu" -p ASYNC=$async --json \
        >"$LOGS/profiles/ldgsts-contention-$async.json" 2>>"$LOGS/profiles/errors.log"
done
python3 "$ROOT/scripts/ldgsts-contention.py" "$LOGS/profiles/ldgsts-contention-1.json" \
    "$LOGS/profiles/ldgsts-contention-0.json" | tee "$LOGS/ldgsts-contention.txt" || true
fi

if [[ "${QUICK:-0}" == "1" ]]; then
    step "summary"
    cat "$SUMMARY"
    exit 0
fi

if want bench; then
step "benchmarks"
# The acceptance subjects: the samples as written (GEMM+ReLU against cuBLAS, timed alternately in 3 rounds;
# RMSNorm+SiLU against the copy bandwidth and, below, eager PyTorch at the same shape).
bench gemm-relu-4096 "$ROOT/samples/02_gemm_relu.py" -p M=4096 -p N=4096 -p K=4096 --vs cublas
bench gemm-relu-8192 "$ROOT/samples/02_gemm_relu.py" -p M=8192 -p N=8192 -p K=8192 --vs cublas
bench copy-1GiB "$KERNELS/copy.cu"
for c in ${RMSNORM_CS:-512 1024}; do
    bench "rmsnorm-silu-sample-C$c" "$ROOT/samples/05_rmsnorm_silu.py" -p M=262144 -p C=$c
done
fi
if want hopper-bench; then
step "Hopper reference kernels"
# ---- Hopper device side (branch hopper-device): the hand-written Hopper GEMM vs cuBLAS (alternating
# rounds), the bf16 variant (cuBLAS is timed in fp16: same tensor-core rate), a stage/group sweep, the TMA copy
# against copy.cu's bandwidth, and a 268 MB result back through tilec run --gpu (issue 15 item 6) ----
bench hopper-gemm-f16-4096 "$KERNELS/gemm_tma_wgmma.cu" --vs cublas --rounds 5
bench hopper-gemm-f16-8192 "$KERNELS/gemm_tma_wgmma.cu" -p M=8192 -p N=8192 -p K=8192 --vs cublas --rounds 5
bench hopper-gemm-bf16-4096 "$KERNELS/gemm_tma_wgmma.cu" -p DTYPE=bf16 --vs cublas
bench hopper-gemm-bf16-8192 "$KERNELS/gemm_tma_wgmma.cu" -p DTYPE=bf16 -p M=8192 -p N=8192 -p K=8192 --vs cublas
bench hopper-gemm-f16-8192-cluster2 "$KERNELS/gemm_tma_wgmma.cu" -p CLUSTER=2 -p M=8192 -p N=8192 -p K=8192 \
    --vs cublas --rounds 5
bench hopper-copy-tma "$KERNELS/copy_tma.cu"
fi
if want hopper-sweep; then
step "Hopper reference GEMM: stage, grouping, cluster and grid sweep"
for shape in 4096 8192; do
    "$PROFILE" sweep "$KERNELS/gemm_tma_wgmma.cu" -p M=$shape -p N=$shape -p K=$shape -p STAGES=3,4 \
        -p GROUP_M=8,16,32 -p CLUSTER=1,2 -p SMS=128,132 --flush-l2 --repeat 10 2>&1 | tee "$LOGS/sweep-hopper-gemm-$shape.log"
done
fi
if want bigrun; then
step "a 268 MB result through tilec run --gpu"
if "$TILEC" run --gpu "$ROOT/samples/06_flash_attention.py" -p batch=8 -p heads=32 -p seq_len=4096 -p dim=128 \
    >"$LOGS/run-flash-b8h32s4096d128.log" 2>&1; then
    row "run --gpu flash b8 h32 s4096 d128" "$(grep -m1 -E 'correct|WRONG|bytes' "$LOGS/run-flash-b8h32s4096d128.log" | cut -c1-60)"
else
    row "run --gpu flash b8 h32 s4096 d128" "FAILED: $(tail -1 "$LOGS/run-flash-b8h32s4096d128.log" | cut -c1-80)"
fi
# ---- end of the Hopper device side ----
fi
FUZZ="$BUILD/engine/tools/fuzz/fuzz_diff"
if want fuzz && [[ -x "$FUZZ" ]]; then
step "differential fuzzing (docs/fuzzing.md): each GPU backend against the CPU oracle, then interpreter vs JIT"
# Several GPU fuzzers at once (FUZZ_GPU_JOBS, disjoint seed ranges): most of a program's time is the CPU
# side (generation, both compiles, the CPU oracle), and the GPU is shared.
gjobs=${FUZZ_GPU_JOBS:-8}
for ((i = 0; i < gjobs; ++i)); do
    # FUZZ_GPU_SEED_OFFSET continues an earlier run's ranges; FUZZ_GPU_SECONDS bounds each fuzzer's time.
    "$FUZZ" --gpu --seed $((1 + i * 1000000 + ${FUZZ_GPU_SEED_OFFSET:-0})) \
        --count $(( (${FUZZ_GPU_COUNT:-2000} + gjobs - 1) / gjobs )) --seconds "${FUZZ_GPU_SECONDS:-0}" \
        --progress 10 --out "$LOGS/fuzz-gpu" >"$LOGS/fuzz-gpu-$i.log" 2>&1 &
done
wait
for ((i = 0; i < gjobs; ++i)); do
    row "fuzz_diff --gpu seeds $((1 + i * 1000000 + ${FUZZ_GPU_SEED_OFFSET:-0}))..." "$(grep '^fuzz_diff: [0-9]* programs' "$LOGS/fuzz-gpu-$i.log" | tail -n 1 | cut -c1-130)"
done
# The CPU comparison needs the JIT (LLVM 16), which this machine may not have.
if grep -q "CPU JIT with LLVM" "$LOGS/build.log" 2>/dev/null; then
    # The host's cores: one CPU fuzzer per core, disjoint seed ranges.
    jobs=$(nproc)
    for ((i = 0; i < jobs; ++i)); do
        # FUZZ_CPU_SEED_OFFSET: fresh seeds after an earlier run.
        "$FUZZ" --seed $((1 + i * 100000000 + ${FUZZ_CPU_SEED_OFFSET:-0})) --count $(( ${FUZZ_CPU_COUNT:-100000} / jobs + 1 )) --progress 100000 \
            --out "$LOGS/fuzz-cpu" >"$LOGS/fuzz-cpu-$i.log" 2>&1 &
    done
    wait
    row "fuzz_diff interpreter vs JIT ($jobs processes)" "$(cat "$LOGS"/fuzz-cpu-*.log | grep -c MISMATCH) mismatches; $(tail -qn 1 "$LOGS"/fuzz-cpu-*.log | awk '{s += $2} END {print s}') programs"
else
    row "fuzz_diff interpreter vs JIT" "skipped: this build has no LLVM 16 JIT"
fi
fi
EDIT="$BUILD/engine/tools/bench/bench_edit"
if want edit && [[ -x "$EDIT" ]]; then
    "$EDIT" 10 | tee "$LOGS/bench-edit.log"
    while read -r line; do row "$(echo "$line" | cut -c1-44)" "$(echo "$line" | grep -o 'median [0-9.]* ms')"; done <"$LOGS/bench-edit.log"
fi

if want torch; then
step "eager PyTorch RMSNorm+SiLU (same shapes)"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    PYTHONUNBUFFERED=1 python3 - >"$LOGS/torch.log" 2>&1 <<'PY'
import torch, triton.testing as tt
for C in (512, 1024):
    x = torch.randn(262144, C, device="cuda", dtype=torch.float16)
    g = torch.randn(C, device="cuda", dtype=torch.float16)
    def eager():
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5) * g.float()
        return torch.nn.functional.silu(y).to(x.dtype)
    ms = tt.do_bench(eager, warmup=25, rep=200)
    cp = tt.do_bench(lambda: x.clone(), warmup=25, rep=200)
    print(f"C={C} eager {ms*1e3:.1f} us copy {cp*1e3:.1f} us")
PY
    cat "$LOGS/torch.log"
    while read -r line; do row "torch $(echo "$line" | cut -d' ' -f1)" "$(echo "$line" | cut -d' ' -f2-)"; done \
        < <(grep '^C=' "$LOGS/torch.log")
else
    row "torch" "not available: skipped"
fi
fi

if want cpu-torch; then
step "the CPU JIT against eager PyTorch on the CPU (scripts/bench-cpu-vs-torch.py)"
if python3 -c "import torch" 2>/dev/null && [[ -x "$BUILD/engine/tools/bench/bench_cpu" ]]; then
    python3 "$ROOT/scripts/bench-cpu-vs-torch.py" "$BUILD" >"$LOGS/cpu-vs-torch.log" 2>&1
    cat "$LOGS/cpu-vs-torch.log"
    while read -r line; do row "cpu-torch $(echo "$line" | cut -c1-28)" "$(echo "$line" | cut -c29-)"; done \
        < <(grep -E 'x .*(correct|WRONG)$' "$LOGS/cpu-vs-torch.log")
else
    row "cpu-torch" "skipped: no PyTorch or no bench_cpu"
fi
fi

step "summary"
cat "$SUMMARY"

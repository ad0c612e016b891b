#!/usr/bin/env bash
# Runs every test of a configured build: ctest (engine, and the GUI tests under xvfb-run when the app is
# built), then the engine tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
JOBS="${TILEBENCH_JOBS:-$(nproc)}"

run_ctest() {
    local dir="$1"
    if command -v xvfb-run >/dev/null && [[ -z "${DISPLAY:-}" ]]; then
        # -noreset: by default the X server resets when its last client disconnects, and a GUI test that
        # connects during the reset fails with "could not connect to display" (seen once in CI).
        xvfb-run -a -s "-screen 0 1600x1000x24 -noreset" ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
    else
        ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
    fi
}

echo "== tests (${BUILD})"
run_ctest "$BUILD"

if [[ "${TILEBENCH_SKIP_SANITIZERS:-0}" != "1" ]]; then
    # The engine's own suites (frontend to CPU executor, layouts, banks, diagnostics corpus, samples) under
    # AddressSanitizer + UndefinedBehaviorSanitizer. GPU, app and view suites stay in the main run.
    SAN="${BUILD}-asan"
    SAN_TESTS=(tests_frontend tests_elaborate tests_ir tests_check tests_exec tests_reference tests_samples
               tests_diagnostics tests_ir_golden tests_layout_algebra tests_layout_bank tests_passes
               tests_bank_analysis)
    echo "== engine tests under ASan+UBSan (${SAN})"
    cmake -S "$ROOT" -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEBENCH_SANITIZE=ON \
        -DTILEBENCH_BUILD_APP=OFF >/dev/null
    cmake --build "$SAN" -j "$JOBS" --target "${SAN_TESTS[@]}"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    passed=0
    failed=0
    for t in "${SAN_TESTS[@]}"; do
        binary=$(find "$SAN/tests" -type f -name "$t" -perm -u+x | head -1)
        if [[ -n "$binary" ]] && "$binary" --gtest_brief=1 >"$SAN/$t.log" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "sanitizer run of $t failed:"
            tail -40 "$SAN/$t.log"
        fi
    done
    echo "sanitizers: $passed passed, $failed failed"
    [[ $failed -eq 0 ]]
fi

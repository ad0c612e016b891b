#!/usr/bin/env bash
# Runs every test of a configured build: ctest (engine, and the GUI tests under xvfb-run when the app is
# built), then the engine suites of tests/sanitized-suites.txt under AddressSanitizer +
# UndefinedBehaviorSanitizer in a build of their own (`scripts/dev.sh test` leaves them out of the main one).
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

# A build that leaves the sanitized suites out (scripts/dev.sh test) relies on the sanitizer run for them.
if [[ "${TILEBENCH_SKIP_SANITIZERS:-0}" == "1" ]] &&
    grep -q '^TILEBENCH_OMIT_SANITIZED_SUITES:BOOL=ON$' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "run-tests: $BUILD leaves out the suites of tests/sanitized-suites.txt and TILEBENCH_SKIP_SANITIZERS=1" \
         "would run them nowhere; reconfigure it with -DTILEBENCH_OMIT_SANITIZED_SUITES=OFF" >&2
    exit 2
fi

echo "== tests (${BUILD})"
run_ctest "$BUILD"

if [[ "${TILEBENCH_SKIP_SANITIZERS:-0}" != "1" ]]; then
    # The engine's own suites (frontend to CPU executor, layouts, banks, diagnostics corpus, samples) under
    # AddressSanitizer + UndefinedBehaviorSanitizer. GPU, app and view suites stay in the main run.
    SAN="${BUILD}-asan"
    mapfile -t SAN_TESTS < <(grep -E '^[a-z_]+$' "$ROOT/tests/sanitized-suites.txt")
    echo "== engine tests under ASan+UBSan (${SAN})"
    # Line tables only (-g1): the sanitizers' stack traces keep file:line, and the build is faster. These
    # suites do not run the CPU JIT (tests_jit and the fuzzers test it), so it is not built here.
    cmake -S "$ROOT" -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 \
        -DTILEBENCH_SANITIZE=ON -DTILEBENCH_BUILD_APP=OFF -DTILEBENCH_CPU_JIT=OFF >/dev/null
    cmake --build "$SAN" -j "$JOBS" --target "${SAN_TESTS[@]}"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    # The suites run $JOBS at a time; each writes its log and, when it passes, a .passed mark.
    rm -f "$SAN"/*.passed
    run_sanitized() {
        local binary
        binary=$(find "$SAN/tests" -type f -name "$1" -perm -u+x | head -1)
        if [[ -n "$binary" ]] && "$binary" --gtest_brief=1 >"$SAN/$1.log" 2>&1; then
            touch "$SAN/$1.passed"
        fi
    }
    export -f run_sanitized
    export SAN
    printf '%s\n' "${SAN_TESTS[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_sanitized {}'
    passed=0
    failed=0
    for t in "${SAN_TESTS[@]}"; do
        if [[ -f "$SAN/$t.passed" ]]; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "sanitizer run of $t failed:"
            tail -40 "$SAN/$t.log" 2>/dev/null || echo "  (no binary $t in $SAN)"
        fi
    done
    echo "sanitizers: $passed passed, $failed failed"
    [[ $failed -eq 0 ]]
fi

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
        xvfb-run -a -s "-screen 0 1600x1000x24" ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
    else
        ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
    fi
}

echo "== tests (${BUILD})"
run_ctest "$BUILD"

if [[ "${TILEBENCH_SKIP_SANITIZERS:-0}" != "1" ]]; then
    SAN="${BUILD}-asan"
    echo "== engine tests under ASan+UBSan (${SAN})"
    cmake -S "$ROOT" -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEBENCH_SANITIZE=ON \
        -DTILEBENCH_BUILD_APP=OFF >/dev/null
    cmake --build "$SAN" -j "$JOBS"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir "$SAN" --output-on-failure -j "$JOBS" -L engine
fi

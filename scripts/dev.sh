#!/usr/bin/env bash
# TileBench developer entry point: installs what is missing (Debian 12 with the CUDA 13 toolkit), builds,
# and then either launches the workbench on a sample or runs every test.
#
#   scripts/dev.sh launch [SAMPLE]   install, build, open the app on SAMPLE (default gemm_relu)
#   scripts/dev.sh test              install, build, run every test (what CI runs)
#   scripts/dev.sh build             install and build only
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TILEBENCH_BUILD_DIR:-$ROOT/build}"
JOBS="${TILEBENCH_JOBS:-$(nproc)}"

"$ROOT/scripts/install-deps.sh"

configure_and_build() {
    # Optimized, with line tables (-g1) rather than full debug info: backtraces, perf and the sanitizers keep
    # file:line, and the build takes a third less time (configure your own Debug build to step through).
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@" >/dev/null
    cmake --build "$BUILD" -j "$JOBS"
}

case "${1:-launch}" in
build)
    configure_and_build
    ;;
launch)
    configure_and_build
    sample="${2:-gemm_relu}"
    if [[ -x "$BUILD/app/tilebench" ]]; then
        exec "$BUILD/app/tilebench" --sample "$sample"
    fi
    # Until the desktop app is built, show what the engine makes of the sample.
    "$BUILD/engine/tools/tilec/tilec" check "$sample"
    "$BUILD/engine/tools/tilec/tilec" ir "$sample"
    ;;
test)
    # The suites of tests/sanitized-suites.txt run once, in run-tests.sh's sanitizer build, unless that is
    # skipped (TILEBENCH_SKIP_SANITIZERS=1).
    omit=ON
    [[ "${TILEBENCH_SKIP_SANITIZERS:-0}" == "1" ]] && omit=OFF
    configure_and_build -DTILEBENCH_OMIT_SANITIZED_SUITES=$omit
    "$ROOT/scripts/run-tests.sh" "$BUILD"
    ;;
*)
    echo "usage: scripts/dev.sh launch [SAMPLE] | test | build" >&2
    exit 2
    ;;
esac

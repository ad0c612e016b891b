#!/usr/bin/env bash
# Copies Debian's GoogleTest sources (package googletest, /usr/src/googletest) into .gpucarry/googletest, an
# ignored folder that travels with the working tree to the GPU machine, which has no GoogleTest and no package
# manager. tests/CMakeLists.txt builds GoogleTest from there when no installed one is found, so the GPU tests
# are built from source with that machine's compiler (scripts/gpu-check.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="${GOOGLETEST_SRC:-/usr/src/googletest}"
if [[ ! -f "$SRC/CMakeLists.txt" ]]; then
    "$ROOT/scripts/install-deps.sh"
fi
[[ -f "$SRC/CMakeLists.txt" ]] || { echo "carry-googletest: no GoogleTest sources at $SRC" >&2; exit 1; }
rm -rf "$ROOT/.gpucarry/googletest"
mkdir -p "$ROOT/.gpucarry"
cp -r "$SRC" "$ROOT/.gpucarry/googletest"
# Only what the libraries' build needs: their own tests, samples and docs are 1.8 MB of the 64 MiB a device run
# may carry (TileLang's peer takes 53 MB of it).
rm -rf "$ROOT"/.gpucarry/googletest/google{test,mock}/{test,samples,docs}
echo "carry-googletest: $(du -sh "$ROOT/.gpucarry/googletest" | cut -f1) in .gpucarry/googletest (name .gpucarry in the run's carry)"

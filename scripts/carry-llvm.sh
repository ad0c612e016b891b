#!/usr/bin/env bash
# Packs Debian's LLVM 16 headers into .gpucarry/llvm16.tar.xz, an ignored file that travels with the working tree
# (name .gpucarry in the device run's carry). The GPU machine has libLLVM-16.so.1 (Ubuntu's, the same 16.0.6) but
# no headers; with these, scripts/gpu-check.sh builds the CPU JIT there from source (-DTILEBENCH_LLVM_ROOT), so
# the GPU runs' CPU oracle is the JIT on its 16 cores, as on a user's machine.
#   scripts/carry-llvm.sh                       # the headers, about 4 MB
#   CARRY_LLVM_LIBRARY=1 scripts/carry-llvm.sh  # also libLLVM-16.so.1 and what it links (about 40 MB), for a
#                                               # machine without it; then carry nothing else large
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIB=/usr/lib/x86_64-linux-gnu/libLLVM-16.so.1
[[ -f "$LIB" && -d /usr/include/llvm-16/llvm ]] || "$ROOT/scripts/install-deps.sh"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/llvm16/include"
cp -r /usr/include/llvm-16/llvm /usr/include/llvm-c-16/llvm-c "$STAGE/llvm16/include/"
if [[ "${CARRY_LLVM_LIBRARY:-0}" == "1" ]]; then
    mkdir -p "$STAGE/llvm16/lib"
    cp "$LIB" "$STAGE/llvm16/lib/"
    ln -s libLLVM-16.so.1 "$STAGE/llvm16/lib/libLLVM-16.so"
    # libLLVM's own dependencies, but for the C and C++ runtimes (the GPU machine's are newer). libLLVM has no
    # RUNPATH, so the loader finds them beside it through LD_LIBRARY_PATH, which gpu-check.sh sets.
    ldd "$LIB" | awk '/=> \//{print $3}' | grep -vE '/lib(c|m|stdc\+\+|gcc_s)\.so' | while read -r dep; do
        cp -L "$dep" "$STAGE/llvm16/lib/"
    done
fi
mkdir -p "$ROOT/.gpucarry"
tar -C "$STAGE" -cJf "$ROOT/.gpucarry/llvm16.tar.xz" llvm16
echo "carry-llvm: $(du -h "$ROOT/.gpucarry/llvm16.tar.xz" | cut -f1) in .gpucarry/llvm16.tar.xz (name .gpucarry in the run's carry)"

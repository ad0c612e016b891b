#!/usr/bin/env bash
# Installs the Debian 12 packages TileBench builds and tests with, only those that are missing, and makes
# the CUDA toolkit's libraries visible to the loader (libnvrtc and libcupti dlopen their helpers by name).
set -euo pipefail

PACKAGES=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6opengl6-dev
    xvfb xauth imagemagick libgl1-mesa-dri
    llvm-16-dev libzstd-dev zlib1g-dev
    libgtest-dev libgmock-dev googletest python3
    libimgui-dev libglfw3-dev libstb-dev
)

SUDO=""
if [[ $EUID -ne 0 ]]; then
    SUDO="sudo"
fi

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

CUDA_LIB=/usr/local/cuda/lib64
if [[ -d "$CUDA_LIB" && ! -f /etc/ld.so.conf.d/tilebench-cuda.conf ]] && ! ldconfig -p | grep -q libnvrtc-builtins; then
    echo "$CUDA_LIB" | $SUDO tee /etc/ld.so.conf.d/tilebench-cuda.conf >/dev/null
    $SUDO ldconfig
fi

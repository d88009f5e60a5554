#!/usr/bin/env bash
# Installs what libgpueig needs to build and test on Debian 12+ / Ubuntu 24.04+:
# a C/C++ and Fortran toolchain, CMake >= 3.25, OpenBLAS (with LAPACK), LAPACKE, GoogleTest,
# pkg-config, the distribution's NumPy and SciPy (the shim's test), and for the Python package's
# tests NumPy, SciPy, pytest, setuptools and wheel.
# The CUDA toolkit is not installed here: with nvcc present (on PATH or in /usr/local/cuda) the GPU
# backend is built, without it the library is CPU-only.
set -euo pipefail
# python3-numpy and python3-scipy: the distribution's NumPy/SciPy, on the system LAPACK, which the
# LD_PRELOAD shim's test runs under libgpueig_lapack.so.
# liblapack-dev and libblas-dev: Reference LAPACK and BLAS, which tools/reference-lapack.sh builds
# and tests against. clang and libclang-rt-14-dev: libFuzzer and the sanitizer runtimes of the fuzzing stage
# (tools/fuzz.sh, tests/fuzz/).
packages=(g++ gfortran make cmake pkg-config libopenblas-dev liblapacke-dev liblapack-dev libblas-dev libgtest-dev
          python3 python3-venv python3-pip python3-numpy python3-scipy clang libclang-rt-14-dev)

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup.sh: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python modules for the interpreter found first on PATH: through pip where that interpreter allows
# it, else (a distribution's externally managed Python) through the distribution's packages.
python_modules=(numpy scipy pytest setuptools wheel)
if ! python3 -c "import numpy, scipy, pytest, setuptools, wheel" 2>/dev/null; then
  echo "setup.sh: installing Python modules ${python_modules[*]}"
  if ! python3 -m pip install -q "${python_modules[@]}" 2>/dev/null; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      python3-numpy python3-scipy python3-pytest python3-setuptools python3-wheel
  fi
fi

cmake_version=$(cmake --version | head -n1 | awk '{print $3}')
if ! printf '3.25\n%s\n' "$cmake_version" | sort -V -C; then
  echo "setup.sh: CMake $cmake_version is older than 3.25 (this distribution is too old)" >&2
  exit 1
fi
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup.sh: CUDA toolkit found: the GPU backend will be built"
else
  echo "setup.sh: no CUDA toolkit (nvcc) found: the library will be CPU-only"
fi

#!/usr/bin/env bash
# Reference LAPACK stage: a CPU-only build against Debian's Reference LAPACK and BLAS
# (liblapack3, libblas3: no OpenBLAS anywhere in the process) in build-reflapack/, then
# `ctest -L cpu` there. Any LAPACK CMake finds must build and pass, not only OpenBLAS.
#
#   tools/reference-lapack.sh
#
# With OpenBLAS installed as well, Debian's alternatives point liblapack.so.3 and libblas.so.3 at
# OpenBLAS; the tests run with the reference libraries' own directories first on
# LD_LIBRARY_PATH, so every program and library of the run (libgpueig's dlopen of
# liblapack.so.3, the LAPACK client programs, NumPy) loads Reference LAPACK and BLAS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-reflapack"
arch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ref="/usr/lib/$arch/lapack:/usr/lib/$arch/blas"
for lib in "/usr/lib/$arch/lapack/liblapack.so.3" "/usr/lib/$arch/blas/libblas.so.3"; do
  [ -e "$lib" ] || { echo "reference-lapack.sh: no $lib (apt-get install liblapack-dev libblas-dev)" >&2; exit 1; }
done
t0=$(date +%s)
mkdir -p "$build"
cmake -S "$root" -B "$build" -DGPUEIG_LAPACK_VENDOR=generic -DGPUEIG_WITH_CUDA=OFF \
  -DGPUEIG_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
grep "gpueig: CUDA backend" "$build/configure.log"
cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1 || { grep -E 'error|Error' "$build/build.log" | head -40; exit 1; }
t1=$(date +%s)
export LD_LIBRARY_PATH="$ref${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Which LAPACK and BLAS the tests load (the point of the stage).
ldd "$build/tests/test_dispatch" | grep -E "liblapack|libblas|openblas" || true
if ldd "$build/libgpueig.so" "$build/tests/test_dispatch" | grep -q openblas; then
  echo "reference-lapack.sh: OpenBLAS is still loaded" >&2
  exit 1
fi
status=0
(cd "$build" && ctest -L cpu --output-on-failure -j"$(nproc)" --timeout 900) >"$build/ctest.log" 2>&1 || status=1
grep -hE '\*\*\*|tests passed|tests failed|Total Test time' "$build/ctest.log" || true
echo "reference-lapack.sh: built in $((t1 - t0)) s, tested in $(($(date +%s) - t1)) s"
exit $status

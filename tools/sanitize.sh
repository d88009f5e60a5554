#!/usr/bin/env bash
# Sanitizer stage: a CPU-only build (no CUDA) with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer in build-asan/, then `ctest -L cpu` there. Exits non-zero on a test
# failure or on any sanitizer report (also one printed by a test that still passed); prints how
# many tests ran.
#
#   tools/sanitize.sh              SANITIZE_CC=clang SANITIZE_CXX=clang++ tools/sanitize.sh
#
# Not run here (the rest of `ctest -L cpu` is), each for a reason of the sanitizer runtime:
#   preload_c, preload_c_faults, preload_fortran, preload_scaling_sweep_cpu, preload_numpy_scipy,
#   preload_wrapped
#       run uninstrumented programs (a C or Fortran LAPACK program, /usr/bin/python3) under
#       LD_PRELOAD=libgpueig_lapack.so set by the test itself; an instrumented shim needs the ASan
#       runtime loaded first ("ASan runtime does not come first"), and the test's LD_PRELOAD
#       replaces any we would set. The shim is covered under ASan/UBSan by tests/fuzz (fuzz_shim).
#   python_tests, python_pip_install
#       load the instrumented libgpueig.so into an uninstrumented interpreter through ctypes (same
#       runtime-order failure; preloading libasan into Python reports the interpreter's own
#       allocations as leaks). The Python package is a ctypes wrapper without native code.
#   install_consumer
#       builds a consumer program against the installed tree with plain flags: an uninstrumented
#       executable linking the instrumented library fails to link or to start for the same reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-asan"
cc=${SANITIZE_CC:-gcc}
cxx=${SANITIZE_CXX:-g++}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
exclude='^(preload_c|preload_c_faults|preload_fortran|preload_scaling_sweep_cpu|preload_numpy_scipy|preload_wrapped|python_tests|python_pip_install|install_consumer)$'

t0=$(date +%s)
mkdir -p "$build"
cmake -S "$root" -B "$build" -DGPUEIG_WITH_CUDA=OFF -DGPUEIG_BUILD_BENCH=OFF -DGPUEIG_BUILD_TESTS=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_Fortran_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$flags" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j2 >"$build/build.log" 2>&1 || { grep -E 'error|Error' "$build/build.log" | head -40; exit 1; }
t1=$(date +%s)
echo "sanitize.sh: built with $cxx + $flags in $((t1 - t0)) s"

# Stop at the first report with a stack; leaks are reports. verify_asan_link_order=0: the tests
# that dlopen LAPACK or the lying_lapack wrapper start fine either way, but a child such as the
# CLI run through `sh -c` must not trip over the check. One OpenBLAS thread (CI has 2 cores).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1:verify_asan_link_order=0:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
. "$root/tools/openblas-env.sh"

status=0
# Two passes. faults_cpu_* require resident memory to stay flat over 1000 forced repetitions
# (tests/test_faults.cpp): ASan's quarantine of freed blocks (256 MB by default) grows RSS by design,
# so those run with quarantine_size_mb=0 (every other check stays on); everything else with the
# quarantine (use-after-free detection at full strength).
(cd "$build" && ctest -L cpu -E "$exclude|^faults_cpu_" --output-on-failure -j2 --timeout 900) >"$build/ctest.log" 2>&1 || status=1
cp "$build/Testing/Temporary/LastTest.log" "$build/LastTest.main.log" 2>/dev/null || true
(cd "$build" && ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
   ctest -L cpu -R '^faults_cpu_' -E "$exclude" --output-on-failure -j2 --timeout 900) >"$build/ctest.faults.log" 2>&1 || status=1
t2=$(date +%s)
grep -hE '^ *[0-9]+/[0-9]+ Test|tests passed|tests failed|Total Test time' "$build/ctest.log" "$build/ctest.faults.log" || true
# A sanitizer report anywhere in the tests' output (LastTest logs have every test's full output).
logs=("$build/LastTest.main.log" "$build/Testing/Temporary/LastTest.log")
if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer' "${logs[@]}" 2>/dev/null; then
  echo "sanitize.sh: sanitizer report(s) in ${logs[*]}:"
  grep -nE -A12 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' "${logs[@]}" | head -80
  status=1
fi
ran=0
for f in "$build/ctest.log" "$build/ctest.faults.log"; do
  k=$(sed -n 's/.*tests passed, [0-9]* tests* failed out of \([0-9]*\).*/\1/p' "$f" | tail -1)
  ran=$((ran + ${k:-0}))
done
excluded=$(cd "$build" && ctest -L cpu -N | grep -cE "Test +#[0-9]+: ($(sed 's/^\^(//; s/)\$$//' <<<"$exclude"))$" || true)
[ "$status" = 0 ] || { echo "sanitize.sh: failures; full logs: $build/ctest.log $build/ctest.faults.log"; }
echo "TOTAL: ${ran} tests run under ASan+UBSan (label cpu; $excluded excluded, see the script), build $((t1 - t0)) s, tests $((t2 - t1)) s: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status

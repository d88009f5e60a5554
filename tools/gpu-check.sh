#!/usr/bin/env bash
# GPU check, run on a machine with an NVIDIA GPU from the repository root:
#   tools/gpu-check.sh OUTDIR [PARTS]
# Builds Release for sm_90 (override with CUDA_ARCH=..) with all cores, then runs PARTS, a comma
# list of: tests (the whole test suite, the `gpu` label included), sanitize (the GPU tests under
# compute-sanitizer memcheck and racecheck), bench (the demo and the benchmark); all three by
# default. Run them as three calls (tests; sanitize; bench): each fits a device lease's 10-minute
# commands, all three together do not. Writes
# build.log, tests.log, sanitizer.log, demo.log, bench.log, bench.json and summary.txt into
# OUTDIR. Exits non-zero if any step failed.
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUTDIR [tests,sanitize,bench]}
parts=,${2:-tests,sanitize,bench},
want() { [[ $parts == *,$1,* ]]; }
mkdir -p "$out"
build=${GPUEIG_GPU_BUILD:-build-gpu}
arch=${CUDA_ARCH:-90}
summary="$out/summary.txt"
: > "$summary"
failed=0

# step NAME LOG COMMAND...: runs COMMAND, appending its output to LOG, and records the outcome.
step() {
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  echo "== $name: $*" >> "$log"
  "$@" >> "$log" 2>&1
  local rc=$?
  local line
  line=$(printf '%-22s %s (%ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAILED rc=$rc")" $((SECONDS - t0)))
  echo "$line" | tee -a "$summary"
  [ $rc -eq 0 ] || failed=1
  return $rc
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >> "$summary" 2>&1
step configure "$out/build.log" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" || { tail -n 40 "$out/build.log"; exit 1; }
step build "$out/build.log" cmake --build "$build" -j "$(nproc)" || { tail -n 60 "$out/build.log"; exit 1; }

if want tests; then
  step tests-gpu "$out/tests.log" ctest --test-dir "$build" -L gpu --output-on-failure
  step tests-cpu "$out/tests.log" ctest --test-dir "$build" -LE gpu --output-on-failure -j 4
  # A skipped GPU test on a GPU machine means the device was not usable: that is a failure here.
  # preload_numpy_scipy(_gpu) skips for a reason of its own: a machine without the distribution's
  # python3-numpy (GPU machines often have only pip's wheels, whose LAPACK no shim can reach).
  if grep "(Skipped)" "$out/tests.log" | grep -vq "preload_numpy_scipy"; then
    echo "tests-gpu              FAILED: GPU tests were skipped on a GPU machine" | tee -a "$summary"
    failed=1
  fi
fi

if want sanitize; then
  san="compute-sanitizer --error-exitcode 1"
  # stebz under the sanitizers: every kind at a few sizes (the whole sweep takes too long there).
  stebz_subset="--gtest_filter=*_n3_*:*_n13_*:*_n64_*:*_n257_*:StebzTest.*"
  # gtsv: every kernel (all tile shapes, the multi-tile passes, the verdict, the device re-solve)
  # without the 100000-system and 2^20-row cases, which add nothing there but hours.
  gtsv_subset="--gtest_filter=-GtsvBatch.HundredThousandMixed:GtsvBatch.LargeSystems:GtsvLarge.*"
  # sytrd: every kernel of both methods (one panel level and several; chunked and whole bulge
  # chasing; Q formed and updated) without the whole zoo.
  sytrd_subset="--gtest_filter=*Zoo*random_n33_*:*Zoo*graded_n97_*:*Large*random_n517_uploL*:*NonFinite*"
  # toeplitz: the half-block kernel, both halves reduced at once (two host threads), the
  # invariant check, the bisection of each half; odd and even orders, every RANGE.
  toeplitz_subset="--gtest_filter=*Zoo*random_n97_*:*Zoo*kms_n128_*:*Zoo*circulant_n64_*:*Large*random_n257"
  for t in "test_gtsv_gpu $gtsv_subset" test_dispatch "test_stebz_gpu $stebz_subset" test_getrf_gpu \
           "test_sytrd_gpu $sytrd_subset" test_extremes_gpu "test_toeplitz_gpu $toeplitz_subset"; do
    step "memcheck ${t%% *}" "$out/sanitizer.log" $san --tool memcheck --leak-check full $build/tests/$t
  done
  step "memcheck sytrd tree" "$out/sanitizer.log" env GPUEIG_SYTRD_METHOD=tree \
    $san --tool memcheck --leak-check full $build/tests/test_sytrd_gpu $sytrd_subset
  step "memcheck sytrd chunks" "$out/sanitizer.log" env GPUEIG_SYTRD_CHUNK=7 \
    $san --tool memcheck --leak-check full $build/tests/test_sytrd_gpu $sytrd_subset
  step "memcheck sytrd rows64" "$out/sanitizer.log" env GPUEIG_SYTRD_ZROWS=64 \
    $san --tool memcheck --leak-check full $build/tests/test_sytrd_gpu $sytrd_subset
  # getrf: the streamed host path's chunks and groups, every panel kernel width, the swap plans.
  getrf_subset="--gtest_filter=*Large*random_m1031*:*Large*zero_column_m700_n1100*:*random_m64_*"
  for t in "test_gtsv_gpu $gtsv_subset" "test_stebz_gpu $stebz_subset" "test_getrf_gpu $getrf_subset" \
           "test_sytrd_gpu $sytrd_subset" "test_toeplitz_gpu $toeplitz_subset"; do
    step "racecheck ${t%% *}" "$out/sanitizer.log" $san --tool racecheck $build/tests/$t
  done
  step "racecheck sytrd tree" "$out/sanitizer.log" env GPUEIG_SYTRD_METHOD=tree \
    $san --tool racecheck $build/tests/test_sytrd_gpu $sytrd_subset
  # (one problem with Q: racecheck takes minutes over the 64-row blocks' shared memory)
  step "racecheck sytrd rows64" "$out/sanitizer.log" env GPUEIG_SYTRD_ZROWS=64 \
    $san --tool racecheck $build/tests/test_sytrd_gpu --gtest_filter=*Large*random_n200_uploL_vectV
fi

if want bench; then
  step demo "$out/demo.log" "$build/gpueig" demo
  step bench "$out/bench.log" "$build/bench/gpueig_bench" --json "$out/bench.json"
fi

echo "--- summary" ; cat "$summary"
if want bench; then echo "--- benchmark"; sed -n '/^routine/,$p' "$out/bench.log"; fi
if want sanitize; then grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out/sanitizer.log" | sort | uniq -c; fi
exit $failed

#!/usr/bin/env bash
# GPU check, run on a machine with an NVIDIA GPU from the repository root:
#   tools/gpu-check.sh OUTDIR [PARTS]
# Builds Release for sm_90 (override with CUDA_ARCH=..) with all cores, then runs PARTS, a comma
# list of: tests (the whole test suite, the `gpu` label included); memcheck, racecheck, initcheck,
# synccheck (the named subsets below under that compute-sanitizer tool; `sanitize` means all
# four); bench (the demo and the benchmark); shim (tools/shim-bench.sh: the LD_PRELOAD shim
# against the program's own LAPACK and hand-written cuSOLVER, into shim-bench.log). Default: tests,sanitize,bench. Run them as separate
# calls (tests; memcheck; racecheck; initcheck,synccheck; bench): each fits a device lease's
# 10-minute commands, all of them together do not. Writes build.log, tests.log,
# sanitizer-<tool>.log, demo.log, bench.log, bench.json and summary.txt into OUTDIR, and prints
# the sanitizers' totals. Exits non-zero if any step failed.
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUTDIR [tests,sanitize,bench]}
parts=,${2:-tests,sanitize,bench},
parts=${parts/,sanitize,/,memcheck,racecheck,initcheck,synccheck,}
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
  # preload_numpy_scipy(_gpu) and preload_pip_numpy_scipy(_gpu) skip for a reason of their own:
  # a machine without the distribution's python3-numpy, or whose NumPy is not a pip wheel.
  if grep "(Skipped)" "$out/tests.log" | grep -vq "numpy_scipy"; then
    echo "tests-gpu              FAILED: GPU tests were skipped on a GPU machine" | tee -a "$summary"
    failed=1
  fi
fi

# The sanitizers' named subsets: every kernel and launch configuration of the library, each
# program on a subset of its zoo chosen for coverage (the whole sweeps take hours under the tools).
# stebz: every kind at a few sizes, and the dedicated tests.
stebz_subset="--gtest_filter=*_n3_*:*_n13_*:*_n64_*:*_n257_*:StebzTest.*"
# gtsv: every kernel (all tile shapes, the multi-tile passes, the verdict, the device re-solve)
# without the 100000-system and 2^20-row cases, which add nothing there but hours.
gtsv_subset="--gtest_filter=-GtsvBatch.HundredThousandMixed:GtsvBatch.LargeSystems:GtsvLarge.*"
# sytrd: every kernel of both methods (one panel level and several, as a wavefront and level by
# level; chunked and whole bulge chasing; Q formed and updated) without the whole zoo.
sytrd_subset="--gtest_filter=*Zoo*random_n33_*:*Zoo*graded_n97_*:*Large*random_n517_uploL*:*NonFinite*"
sytrd_small="--gtest_filter=*Zoo*random_n33_*:*Zoo*graded_n97_*:*NonFinite*"
# toeplitz: the half-block kernel, both halves reduced at once (two host threads), the
# invariant check, the bisection of each half; odd and even orders, every RANGE.
toeplitz_subset="--gtest_filter=*Zoo*random_n97_*:*Zoo*kms_n128_*:*Zoo*circulant_n64_*:*Large*random_n257"
# toeplitz structured method: the cluster kernel (clusters of 2: the exchanges across blocks, both
# Bunch-Kaufman branches; of 1: the plain exchange) and the one-block kernel (off), with their
# recording variants and the replay kernel (the eigenvectors' bases); under racecheck clusters of
# 7 or 16 run past 100 s even at these orders.
structured_subset="--gtest_filter=*Counts*random_n64:*Counts*tridiagonal_n17:*Counts*circulant_n16:*LogDet*kms_n64:*Eigenvectors*kms_n64:*Eigenvectors*prolate_n127"
# getrf: the streamed host path's chunks and groups, every panel kernel width, the swap plans, the
# look-ahead's side-stream panels (and, below, the same squeezed onto 8 blocks).
getrf_subset="--gtest_filter=*Large*random_m1031*:*Large*zero_column_m700_n1100*:*random_m64_*"
# gesv: the streamed factorization with the device solve after it (P B's gather, the DTRSMs),
# one to a hundred right-hand sides, A under and over the threaded-transfer size (under
# racecheck each n = 1000 case takes about 27 s on the H100).
gesv_subset="--gtest_filter=*random_n600_nrhs3:*random_n1000_nrhs1:*random_n128_nrhs100"
# stedc (divide and conquer): one leaf, two levels, deflation by rotation (glued Wilkinson),
# heavy deflation (clustered, repeated), several merges per level.
stedc_subset="--gtest_filter=*random_31:*random_129:*glued_wilkinson_257:*clustered_128:*repeated_97"
# stein: singletons, Gram-Schmidt clusters, the divide-and-conquer branch (a random spectrum of
# n = 1100 in one chain), subsets.
stein_subset="--gtest_filter=*glued_wilkinson_n97_*:*clustered_n128_*:*random_n300_*:*LargeRandom*"
# syevd: both JOBZ and UPLO at one size, Q Z and the certification, the NaN fallback.
syevd_subset="--gtest_filter=*Zoo/*random_64_*:*Large*random_300*:SyevdTest.*"
# syevx: a subset by index and by value (the reduction with Q, bisection, stein on the device,
# the check, Q Z, the column gather), the whole spectrum (syevd's path), the NaN fallback, and a
# larger clustered subset (the divide-and-conquer branch of stein).
syevx_subset="--gtest_filter=*Zoo/*random_97_LV_*:*Large*clustered_300_LV_Imid:SyevxTest.*"
# The device-pointer API: the pivot-order kernel (shared-memory order), the gated copy, singular
# and out-of-range cases, rectangular factors; the tridiagonal solves in place (one tile a
# column judged and re-solved by its group, the saved B of larger ones, the device re-solve).
device_api_subset="--gtest_filter=WithDevice.Quick*:WithDevice.Singular*:WithDevice.Pivot*:WithDevice.Rect*:WithDevice.Pointer*:WithDevice.Gtsv*"
# Under synccheck without Singular*: gesv_dev queues the solve without waiting for INFO, so
# cuBLAS's DTRSM runs on a U with an exact zero on its diagonal (X is then discarded on the
# device), and synccheck reports a divergent barrier inside cuBLAS's own trsm_ln_up_kernel there
# (H100, CUDA 13.0, 2026-11-26; none on regular factors, none in the library's kernels).
device_api_sync_subset="--gtest_filter=WithDevice.Quick*:WithDevice.Pivot*:WithDevice.Rect*:WithDevice.Pointer*:WithDevice.Gtsv*"
# The fault paths (allocation and launch failures mid-call, a device lost in a download) and
# concurrent callers: what is freed, synchronized and left initialized when a call fails.
fault_env="GPUEIG_TEST_SANITIZER=1 GPUEIG_VERBOSE=1 GPUEIG_CROSSOVER_GTSV=0 GPUEIG_CROSSOVER_STEBZ=0 GPUEIG_CROSSOVER_GETRF=0 GPUEIG_CROSSOVER_SYTRD=0 GPUEIG_CROSSOVER_TOEPLITZ=0 GPUEIG_CROSSOVER_GESV=0 GPUEIG_CROSSOVER_GETRS=0 GPUEIG_CROSSOVER_SYEVD=0 GPUEIG_CROSSOVER_STEIN=0 GPUEIG_CROSSOVER_SYEVX=0"

# san_step NAME LOG COMMAND...: a sanitizer step, run unless SAN_ONLY (an extended regular
# expression) is set and NAME does not match it (to rerun or finish a part in a later call).
san_step() {
  if [ -n "${SAN_ONLY:-}" ] && ! [[ $1 =~ $SAN_ONLY ]]; then return 0; fi
  step "$@"
}

# sanitize TOOL [EXTRA...]: the named subsets under compute-sanitizer's TOOL.
sanitize() {
  local tool=$1
  shift
  local san="compute-sanitizer --error-exitcode 1 --tool $tool $*"
  local log="$out/sanitizer-$tool.log"
  local t
  for t in "test_gtsv_gpu $gtsv_subset" "test_stebz_gpu $stebz_subset" "test_getrf_gpu $getrf_subset" \
           "test_gesv_gpu $gesv_subset" "test_stedc_gpu $stedc_subset" "test_syevd_gpu $syevd_subset" \
           "test_stein_gpu $stein_subset" "test_syevx_gpu $syevx_subset" \
           "test_device_api_gpu $([ "$tool" = synccheck ] && echo "$device_api_sync_subset" || echo "$device_api_subset")" \
           "test_sytrd_gpu $sytrd_subset" "test_toeplitz_gpu $toeplitz_subset" test_extremes_gpu \
           test_dispatch; do
    san_step "$tool ${t%% *}" "$log" $san $build/tests/$t
  done
  # The tree method and the chunked chase at n <= 97 (every kernel configuration: several levels,
  # several chunks): under racecheck one n = 517 problem takes over a minute.
  san_step "$tool structured cluster" "$log" env GPUEIG_TOEPLITZ_CLUSTER=2 $san \
    $build/tests/test_toeplitz_structured_gpu $structured_subset
  san_step "$tool structured block" "$log" env GPUEIG_TOEPLITZ_CLUSTER=off $san \
    $build/tests/test_toeplitz_structured_gpu $structured_subset
  san_step "$tool structured single" "$log" env GPUEIG_TOEPLITZ_CLUSTER=1 $san \
    $build/tests/test_toeplitz_structured_gpu $structured_subset
  san_step "$tool getrf side8" "$log" env GPUEIG_GETRF_LOOKAHEAD=on GPUEIG_GETRF_SIDE_BLOCKS=8 $san $build/tests/test_getrf_gpu $getrf_subset
  san_step "$tool getrf lazy" "$log" env GPUEIG_GETRF_FEED=lazy $san $build/tests/test_getrf_gpu $getrf_subset
  san_step "$tool sytrd tree" "$log" env GPUEIG_SYTRD_METHOD=tree $san $build/tests/test_sytrd_gpu $sytrd_small
  san_step "$tool sytrd chunks" "$log" env GPUEIG_SYTRD_CHUNK=7 $san $build/tests/test_sytrd_gpu $sytrd_small
  san_step "$tool sytrd levels" "$log" env GPUEIG_SYTRD_PANEL=levels $san $build/tests/test_sytrd_gpu $sytrd_small
  san_step "$tool sytrd apply levels" "$log" env GPUEIG_SYTRD_APPLY=levels $san $build/tests/test_sytrd_gpu $sytrd_small
  san_step "$tool sytrd level loop" "$log" env GPUEIG_SYTRD_APPLY=levels GPUEIG_SYTRD_LEVEL_Y=1 $san \
    $build/tests/test_sytrd_gpu $sytrd_small
  # (one problem with Q for the 64-row blocks: racecheck takes minutes over their shared memory)
  san_step "$tool sytrd rows64" "$log" env GPUEIG_SYTRD_ZROWS=64 $san $build/tests/test_sytrd_gpu \
    --gtest_filter=*Large*random_n200_uploL_vectV
  local k
  for k in alloc@2 launch@3 download@2; do
    san_step "$tool faults $k" "$log" env $fault_env GPUEIG_FAULT_INJECT=$k $san $build/tests/test_faults
  done
  # 40 calls per thread, sytrd and toeplitz on the GPU from n = 256. Under racecheck, 16 calls
  # at those sizes ran past 250 s on the H100 (2026-11-25: one sytrd call of n ~ 300 takes tens of
  # seconds there), so racecheck runs every GPU routine from n = 32 (GPU calls of n = 40): the
  # races looked for are between concurrent calls; the large kernels are racechecked above.
  local conc="GPUEIG_TEST_CALLS=40 GPUEIG_CROSSOVER_SYTRD=256 GPUEIG_CROSSOVER_TOEPLITZ=256"
  [ "$tool" = racecheck ] && conc="GPUEIG_TEST_CALLS=16 GPUEIG_CROSSOVER_SYTRD=32 GPUEIG_CROSSOVER_TOEPLITZ=32 GPUEIG_CROSSOVER_GETRF=32 GPUEIG_CROSSOVER_GESV=32 GPUEIG_CROSSOVER_STEBZ=32 GPUEIG_CROSSOVER_GTSV=32"
  san_step "$tool concurrency" "$log" env $conc $san $build/tests/test_concurrency
  # The dense eigensolvers' twins over their zoo (memcheck about 20 s on the H200 for syevd's;
  # under racecheck their n = 520 reductions would take minutes, and sytrd's are racechecked above).
  [ "$tool" = memcheck ] && san_step "$tool device_api syev" "$log" $san $build/tests/test_device_api_gpu \
    --gtest_filter='WithDevice.Syev*'
}

want memcheck && sanitize memcheck --leak-check full
want racecheck && sanitize racecheck
want initcheck && sanitize initcheck
want synccheck && sanitize synccheck

if want shim; then
  step shim-bench "$out/shim-bench.log" tools/shim-bench.sh "$build"
fi

if want bench; then
  step demo "$out/demo.log" "$build/gpueig" demo
  step bench "$out/bench.log" "$build/bench/gpueig_bench" --json "$out/bench.json"
fi

echo "--- summary" ; cat "$summary"
if want bench; then echo "--- benchmark"; sed -n '/^routine/,$p' "$out/bench.log"; fi
if ls "$out"/sanitizer-*.log > /dev/null 2>&1; then
  echo "--- sanitizer totals (runs per summary line)"
  grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out"/sanitizer-*.log | sort | uniq -c
fi
exit $failed

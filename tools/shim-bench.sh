#!/usr/bin/env bash
# The LD_PRELOAD shim as a user meets it (bench/shim_bench.cu): every served routine through
# libgpueig_lapack.so against the program's own LAPACK in the same process (the "never slower"
# sweep: served / own must stay <= 1.1 at every n), and dsyevd_ / dgesv_ against hand-written
# cuSOLVER (upload, solve, download). Medians of REPS interleaved runs after a warm-up; the first
# call of each path apart.
#   tools/shim-bench.sh BUILD_DIR [REPS]                 (default: build-gpu, 5)
#   SHIM_ROUTINES="dsyevd dgesv" SHIM_SIZES=1024,8192 tools/shim-bench.sh build-gpu
#   SHIM_ROUTINES=dgetrs SHIM_BENCH_NRHS=64 tools/shim-bench.sh build-gpu   (dgetrs_ with 64
#   right-hand sides; the default is 1)
#   SHIM_ROUTINES=dsyevd_v GPUEIG_CROSSOVER_SYEVD=0 tools/shim-bench.sh build-gpu   (JOBZ = 'V'
#   against cuSOLVER with vectors; served only where gpu_syevd runs on the GPU, which auto does
#   at no size until its crossover is measured)
# Prints one table per routine and, at the end, every row whose served / own exceeds 1.1.
set -uo pipefail
build=${1:-build-gpu}
reps=${2:-5}
routines=(${SHIM_ROUTINES:-dsyevd dsyev dsterf dstebz dgetrf dgesv dgetrs dgtsv})
sizes=${SHIM_SIZES:-32,64,128,256,512,1024,2048,4096,8192}
shim=$(ls "$build"/libgpueig_lapack.so 2>/dev/null) || { echo "no $build/libgpueig_lapack.so" >&2; exit 2; }
bin="$build/bench/shim_bench"
[ -x "$bin" ] || { echo "no $bin (a CUDA build has it)" >&2; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
status=0
out=$(mktemp)
for r in "${routines[@]}"; do
  s=$sizes
  # dgesv_ and dgtsv_ also where the solves get large (the 16384 row; gtsv's crossover)
  [ "$r" = dgesv ] && [ -z "${SHIM_SIZES:-}" ] && s="$s,16384"
  [ "$r" = dgtsv ] && [ -z "${SHIM_SIZES:-}" ] && s="$s,16384,65536,1048576"
  LD_PRELOAD=$PWD/$shim "$bin" "$r" "$s" "$reps" | tee -a "$out" || status=1
done
echo "--- rows where the shim is slower than the program's own LAPACK by more than 1.1x"
awk '$1 ~ /^d/ && $5+0 > 1.1 { print; bad = 1 } END { if (!bad) print "(none)" }' "$out"
rm -f "$out"
exit $status

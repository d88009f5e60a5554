#!/usr/bin/env bash
# Fuzzing stage: builds the libFuzzer targets of tests/fuzz/ (clang; library and targets with
# AddressSanitizer and UndefinedBehaviorSanitizer, CPU-only) into build-fuzz/ and runs each target
# for SECONDS (default 60), two at a time (CI has 2 cores), each on a copy of its committed seed
# corpus (tests/fuzz/corpus/<target>/ is never written). Prints per target the executions, the
# coverage (libFuzzer's cov: edges and ft: features), the corpus size and the time, then a totals
# line. Exits non-zero if any target finds a crash, a sanitizer report, a leak, a timeout or an
# out-of-memory; the reproducer stays in build-fuzz/fuzz-runs/<target>/artifacts/ and its path
# is printed with the command that replays it.
#
#   tools/fuzz.sh [SECONDS]        FUZZ_TARGETS="stebz shim" tools/fuzz.sh 20   (a subset)
#   FUZZ_JOBS=1 tools/fuzz.sh      (one target at a time)
set -euo pipefail
secs=${1:-60}
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "usage: $0 [seconds-per-target]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
jobs=${FUZZ_JOBS:-2}
targets=(${FUZZ_TARGETS:-stebz stein gtsv gtsv_batch getrf solve sytrd symmetric toeplitz utilities shim})
cc=${FUZZ_CC:-clang}
cxx=${FUZZ_CXX:-clang++}
command -v "$cxx" >/dev/null || { echo "fuzz.sh: $cxx not found (tools/setup.sh installs clang)" >&2; exit 2; }

t0=$(date +%s)
echo "fuzz.sh: configuring and building into $build"
mkdir -p "$build"
cmake -S "$root/tests/fuzz" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j2 --target fuzz_all >"$build/build.log" 2>&1 || { tail -50 "$build/build.log"; exit 1; }
t1=$(date +%s)
echo "fuzz.sh: built in $((t1 - t0)) s; fuzzing ${#targets[@]} targets x ${secs} s, $jobs at a time"

# Sanitizers: stop at the first report, with a stack; leaks are reports too. OpenBLAS: one thread.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:print_stacktrace=1:symbolize=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export OPENBLAS_NUM_THREADS=1
. "$root/tools/openblas-env.sh"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && ! command -v llvm-symbolizer >/dev/null; then
  for s in /usr/bin/llvm-symbolizer-14 /usr/lib/llvm-14/bin/llvm-symbolizer; do
    if [ -x "$s" ]; then export ASAN_SYMBOLIZER_PATH="$s"; break; fi
  done
fi

run_one() {
  local t=$1 dir="$build/fuzz-runs/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp "$root/tests/fuzz/corpus/$t/"* "$dir/corpus/" 2>/dev/null || true
  local dict=()
  [ -f "$root/tests/fuzz/$t.dict" ] && dict=(-dict="$root/tests/fuzz/$t.dict")
  local start=$(date +%s.%N) rc=0
  (cd "$dir" && "$build/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
     -print_final_stats=1 -artifact_prefix="$dir/artifacts/" "${dict[@]}" "$dir/corpus") \
     >"$dir/log" 2>&1 || rc=$?
  local end=$(date +%s.%N)
  echo "$rc" >"$dir/rc"
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f\n", b - a }' >"$dir/seconds"
}

# Two at a time: start a target whenever one of the running ones finishes.
running=0
for t in "${targets[@]}"; do
  [ -x "$build/fuzz_$t" ] || { echo "fuzz.sh: no target fuzz_$t" >&2; exit 2; }
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true

status=0
total_exec=0
printf '%-12s %12s %10s %8s %8s %8s %7s  %s\n' target executions exec/s cov ft corpus time result
for t in "${targets[@]}"; do
  dir="$build/fuzz-runs/$t"
  rc=$(cat "$dir/rc" 2>/dev/null || echo 99)
  secs_used=$(cat "$dir/seconds" 2>/dev/null || echo 0)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  line=$(grep -E '^#[0-9]+.*cov: ' "$dir/log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$line")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$line")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$line")
  if [ -z "$execs" ]; then execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$line"); fi
  execs=${execs:-0}
  total_exec=$((total_exec + execs))
  artifacts=$(find "$dir/artifacts" -type f 2>/dev/null | sort)
  result=ok
  if [ "$rc" != 0 ] || [ -n "$artifacts" ]; then result="FAILED (exit $rc)"; status=1; fi
  printf '%-12s %12s %10s %8s %8s %8s %6ss  %s\n' "$t" "$execs" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "${corp:-?}" "$secs_used" "$result"
  if [ "$result" != ok ]; then
    grep -E 'FUZZ CHECK FAILED|ERROR: |SUMMARY: |runtime error' -A2 "$dir/log" | head -20 | sed 's/^/    /'
    for a in $artifacts; do
      echo "    reproducer: $a"
      echo "    replay:     $build/fuzz_$t $a"
    done
    echo "    log:        $dir/log"
  fi
done
t2=$(date +%s)
echo "TOTAL: ${#targets[@]} targets, $total_exec executions, fuzzing $((t2 - t1)) s, build $((t1 - t0)) s, wall $((t2 - t0)) s: $([ $status = 0 ] && echo PASS || echo FAIL)"
exit $status

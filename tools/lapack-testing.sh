#!/usr/bin/env bash
# Reference LAPACK's own test programs under the LD_PRELOAD shim.
#   tools/lapack-testing.sh LAPACK_SRC [BUILD_DIR] [MODES]
# LAPACK_SRC: a Reference LAPACK source tree (not part of this repository) of the version the
# system LAPACK implements (OpenBLAS 0.3.21: v3.11.0; newer trees test routines it lacks). Builds
# its TESTING/MATGEN, LIN/xlintstd and EIG/xeigtstd against the system LAPACK (gfortran, make;
# without gfortran, e.g. on a GPU machine, it runs those programs prebuilt in LAPACK_SRC),
# then runs, without the shim and under BUILD_DIR/libgpueig_lapack.so in each mode:
#   xlintstd on dtest.in's DGE and DGT paths (dgetrf_, dgetrs_, dgesv_, dgtsv_ and their error
#   exits), xeigtstd on sep.in (dsterf_, dstebz_, dstein_, dsyev_, dsyevd_, dsyevx_, dsyevr_ among
#   DSYTRD/DSTEIN/... and the drivers), se2.in (the two-stage drivers, which call dsterf_,
#   dstebz_ and dstein_ inside) and dsg.in (DSYGV, DSYGVD, DSYGVX: dsyev_, dsyevd_, dsyevx_ inside).
# MODES (default "cpu fake-gpu"): cpu = GPUEIG_SHIM=serve GPUEIG_BACKEND=cpu (every intercepted
# call served through libgpueig's CPU paths); fake-gpu = GPUEIG_SHIM=serve GPUEIG_FAKE_DEVICE=1
# GPUEIG_BACKEND=gpu (the GPU dispatch paths); gpu = GPUEIG_SHIM=serve GPUEIG_BACKEND=gpu (a GPU
# machine: every call of every size reaches the device). A run passes when the programs' own
# summary has no failure and as many "passed" lines as the run without the shim; prints how many
# calls of each name libgpueig served.
set -uo pipefail
src=$(cd "${1:?usage: tools/lapack-testing.sh LAPACK_SRC [BUILD_DIR] [MODES]}" && pwd) || exit 2
build=${2:-build}
modes=(${3:-cpu fake-gpu})
shim=$(cd "$build" && pwd)/libgpueig_lapack.so
[ -f "$shim" ] || { echo "no $shim" >&2; exit 2; }
work=$(mktemp -d)
if command -v gfortran > /dev/null; then
  [ -f "$src/make.inc" ] || sed -e 's|^BLASLIB .*|BLASLIB = -lblas|' -e 's|^LAPACKLIB .*|LAPACKLIB = -llapack|' \
    -e 's|^TMGLIB .*|TMGLIB = $(TOPSRCDIR)/libtmglib.a|' "$src/make.inc.example" > "$src/make.inc"
  make -C "$src/TESTING/MATGEN" -j"$(nproc)" > "$work/build.log" 2>&1 &&
    make -C "$src/TESTING/LIN" -j"$(nproc)" xlintstd >> "$work/build.log" 2>&1 &&
    make -C "$src/TESTING/EIG" -j"$(nproc)" xeigtstd >> "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; echo "build failed (log: $work/build.log)" >&2; exit 2; }
else
  # A GPU machine without gfortran: the programs built elsewhere (TESTING/LIN/xlintstd,
  # TESTING/EIG/xeigtstd, dynamically linked against liblapack.so.3 and libblas.so.3 so that the
  # shim can interpose) with dtest.in and sep.in beside them, their libraries on LD_LIBRARY_PATH.
  for f in LIN/xlintstd EIG/xeigtstd dtest.in sep.in se2.in dsg.in; do
    [ -e "$src/TESTING/$f" ] || { echo "no gfortran and no prebuilt $src/TESTING/$f" >&2; exit 2; }
  done
  echo "no gfortran here: running the programs already built in $src/TESTING"
fi
(head -16 "$src/TESTING/dtest.in"; grep -E "^(DGE|DGT) " "$src/TESTING/dtest.in") > "$work/dge.in"

mode_env() {
  case $1 in
    cpu) echo "GPUEIG_SHIM=serve GPUEIG_BACKEND=cpu" ;;
    fake-gpu) echo "GPUEIG_SHIM=serve GPUEIG_FAKE_DEVICE=1 GPUEIG_BACKEND=gpu" ;;
    gpu) echo "GPUEIG_SHIM=serve GPUEIG_BACKEND=gpu" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}

status=0
for t in "LIN/xlintstd dge.in" "EIG/xeigtstd sep.in" "EIG/xeigtstd se2.in" "EIG/xeigtstd dsg.in"; do
  prog=${t%% *} input=${t##* }
  in="$work/$input"; [ -f "$in" ] || in="$src/TESTING/$input"
  (cd "$src/TESTING/${prog%/*}" && ./${prog#*/} < "$in" > "$work/plain.out" 2>&1)
  want=$(grep -c "passed the" "$work/plain.out")
  echo "== ${prog#*/} < $input: without the shim, $want 'passed' lines, $(grep -ci fail "$work/plain.out") failures"
  for m in "${modes[@]}"; do
    (cd "$src/TESTING/${prog%/*}" && env $(mode_env "$m") GPUEIG_VERBOSE=1 LD_PRELOAD="$shim" \
       ./${prog#*/} < "$in" > "$work/shim.out" 2> "$work/shim.err")
    rc=$?
    got=$(grep -c "passed the" "$work/shim.out") fails=$(grep -ci fail "$work/shim.out")
    verdict=ok
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ] || [ "$fails" -ne 0 ]; then verdict=FAILED; status=1; fi
    echo "   under the shim ($m): rc $rc, $got 'passed' lines, $fails failures: $verdict"
    grep -o "gpueig-lapack: [a-z_0-9]* [^>]*-> libgpueig" "$work/shim.err" | awk '{print $2}' | sort |
      uniq -c | awk '{printf "      %s served %d times\n", $2, $1}'
  done
done
rm -rf "$work"
exit $status

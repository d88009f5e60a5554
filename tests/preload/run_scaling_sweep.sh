#!/bin/sh
# The scaling sweep (scaling_sweep.c) under LD_PRELOAD=SHIM, in the mode where the shim serves
# dsterf_ and dsyev(d)_: "cpu" (GPUEIG_SHIM=serve, bisection on the CPU) or "gpu"
# (GPUEIG_BACKEND=gpu; exit 77, skipped, without a usable GPU). The verbose log must show the
# calls served by libgpueig, not forwarded.
# Usage: run_scaling_sweep.sh PROGRAM SHIM LAPACK CLI cpu|gpu
program="$1" shim="$2" lapack="$3" cli="$4" mode="$5"
if [ "$mode" = gpu ]; then
  "$cli" info | grep -q "^GPU usable: yes" || { echo "SKIPPED: no usable GPU"; exit 77; }
  set -- GPUEIG_BACKEND=gpu
else
  set -- GPUEIG_SHIM=serve GPUEIG_BACKEND=cpu
fi
log=$(mktemp)
env "$@" GPUEIG_VERBOSE=1 LD_PRELOAD="$shim" "$program" "$lapack" 2>"$log"
rc=$?
for call in "dsterf_ n=40 -> libgpueig gpu_stebz ($mode)" "dsyevd_ n=64 JOBZ=N -> libgpueig ($mode)" \
            "dsyev_ n=5 JOBZ=N -> libgpueig ($mode)" "dsyevd_ n=1500 JOBZ=N -> libgpueig ($mode)"; do
  grep -qF "gpueig-lapack: $call" "$log" || { echo "not served: '$call'"; cat "$log"; rc=1; }
done
rm -f "$log"
exit $rc

#!/bin/sh
# On a machine with a usable GPU, `gpueig demo` must pass and its gtsv and stebz lines must report
# the gpu backend (the gtsv line is the seed's Laplace problem, cond ~ 3e10: the GPU result must
# pass the residual check, not be recomputed by DGTSV). Without a GPU: exit 77 (skipped).
cli="$1"
"$cli" info | grep -q "^GPU usable: yes" || { echo "SKIPPED: no usable GPU"; exit 77; }
out=$("$cli" demo) || { echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -q "^gpu_stebz .*backend=gpu .* OK" || { echo "stebz did not run on the GPU"; exit 1; }
echo "$out" | grep -q "^gpu_gtsv_pcr .*backend=gpu .* OK" || { echo "gtsv did not run on the GPU"; exit 1; }

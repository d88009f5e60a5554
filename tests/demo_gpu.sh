#!/bin/sh
# On a machine with a usable GPU, `gpueig demo` must pass and its stebz line must report the gpu
# backend. (The gtsv line is the seed's Laplace problem, cond ~ 3e10: its GPU result fails the
# residual check and is recomputed by DGTSV, which the line reports as backend=cpu; the GPU gtsv
# path is asserted by test_gtsv_gpu and python_tests_gpu.) Without a GPU: exit 77 (skipped).
cli="$1"
"$cli" info | grep -q "^GPU usable: yes" || { echo "SKIPPED: no usable GPU"; exit 77; }
out=$("$cli" demo) || { echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -q "^gpu_stebz .*backend=gpu .* OK" || { echo "stebz did not run on the GPU"; exit 1; }

#!/bin/sh
# On a machine with a usable GPU, `gpueig demo` must pass and its gtsv line must report the gpu
# backend. Without a GPU: exit 77 (skipped).
cli="$1"
"$cli" info | grep -q "^GPU usable: yes" || { echo "SKIPPED: no usable GPU"; exit 77; }
out=$("$cli" demo) || { echo "$out"; exit 1; }
echo "$out"
echo "$out" | grep -q "^gpu_gtsv_pcr .*backend=gpu .* OK" || { echo "gtsv did not run on the GPU"; exit 1; }

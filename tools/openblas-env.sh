# Sourced by tools/sanitize.sh and tools/fuzz.sh: keeps OpenBLAS's own bugs out of our sanitizer
# reports.
#
# Debian 12's OpenBLAS 0.3.21 does not know some newer Xeons ("Intel(R) Xeon(R) Processor" with
# AVX-512 FP16) and falls back to its Prescott kernels, whose dsymv_L reads past the end of
# exactly sized arrays: a SEGV inside OpenBLAS wherever an array ends at an unmapped page, which
# ASan's allocator makes likely (LAPACK's DSYTRD calls it; seen 2026-11-28 in test_sytrd_cpu,
# test_toeplitz_cpu, concurrency_fake_device and the sytrd and shim fuzz targets; a plain C call
# of dsymv_ on arrays placed against a guard page crashes the same way with the Prescott kernels
# and not with Haswell's). On a machine with AVX2, unless the caller chose, take the Haswell
# kernels.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=Haswell
fi

#include "fuzz_common.hpp"

#include <dlfcn.h>

#ifndef GPUEIG_LAPACK_SONAME
#error "GPUEIG_LAPACK_SONAME must be defined by tests/fuzz/CMakeLists.txt"
#endif

namespace fuzz {

XerblaRecord &xerbla_record() {
  static thread_local XerblaRecord r;
  return r;
}

void *real_lapack(const char *name) {
  static void *handle = [] {
    void *h = dlopen(GPUEIG_LAPACK_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "fuzz: cannot load %s: %s\n", GPUEIG_LAPACK_SONAME, dlerror());
      std::abort();
    }
    return h;
  }();
  void *p = dlsym(handle, name);
  if (!p) {
    std::fprintf(stderr, "fuzz: %s has no %s\n", GPUEIG_LAPACK_SONAME, name);
    std::abort();
  }
  return p;
}

void set_up_environment(bool serve_shim) {
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  setenv("GPUEIG_FAKE_DEVICE", "1", 0);
  for (const char *v : {"GPUEIG_CROSSOVER_SYTRD", "GPUEIG_CROSSOVER_STEBZ", "GPUEIG_CROSSOVER_GTSV",
                        "GPUEIG_CROSSOVER_GETRF", "GPUEIG_CROSSOVER_TOEPLITZ"})
    setenv(v, "0", 0);
  if (serve_shim) setenv("GPUEIG_SHIM", "serve", 0);
}

}  // namespace fuzz

// LAPACK's error handler, replacing OpenBLAS's (which prints a line per call). The executable is
// linked with --export-dynamic-symbol=xerbla_, so OpenBLAS's calls (through its PLT) land here.
extern "C" __attribute__((visibility("default"))) int xerbla_(const char *srname, const int *info,
                                                              size_t len) {
  fuzz::XerblaRecord &r = fuzz::xerbla_record();
  ++r.calls;
  r.info = info ? *info : 0;
  size_t k = 0;
  for (; srname && k < len && k < sizeof r.name - 1 && srname[k] != ' ' && srname[k] != '\0'; ++k)
    r.name[k] = srname[k];
  r.name[k] = '\0';
  return 0;
}

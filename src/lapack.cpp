#include "lapack.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "env.hpp"

#ifndef GPUEIG_LAPACK_SONAME
#define GPUEIG_LAPACK_SONAME "liblapack.so.3"
#endif

namespace gpueig::lapack {
namespace {

Table g_table;
bool g_ok = false;
std::string g_error;
std::string g_library;

template <class F>
bool bind(void *handle, const char *name, F &slot) {
  // dlsym on a specific handle searches that library and its own dependencies only, so an
  // LD_PRELOADed definition of the same name is never picked up here.
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (!slot) g_error = std::string("symbol ") + name + " not found in " + g_library;
  return slot != nullptr;
}

void bind_all() {
  // GPUEIG_LAPACK lets a user point the CPU backend at another LAPACK (MKL, reference, ...).
  const char *env = env::raw("GPUEIG_LAPACK");
  g_library = env ? env : GPUEIG_LAPACK_SONAME;
  void *h = dlopen(g_library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    g_error = "cannot load " + g_library + ": " + (why ? why : "unknown error");
    return;
  }
  g_ok = bind(h, "dgtsv_", g_table.dgtsv) && bind(h, "dstebz_", g_table.dstebz) &&
         bind(h, "dsterf_", g_table.dsterf) &&
         bind(h, "dgetrf_", g_table.dgetrf) && bind(h, "dgetrs_", g_table.dgetrs) &&
         bind(h, "dstein_", g_table.dstein) &&
         bind(h, "dsytrd_", g_table.dsytrd) &&
         bind(h, "dorgtr_", g_table.dorgtr) && bind(h, "dsyevr_", g_table.dsyevr) &&
         bind(h, "dsyevd_", g_table.dsyevd) && bind(h, "dsyevx_", g_table.dsyevx) &&
         bind(h, "dgemm_", g_table.dgemm);
}

void load() {
  try {
    bind_all();
  } catch (...) {  // no memory for the strings: no table either
    g_ok = false;
  }
  // Said once per process, so that a wrong GPUEIG_LAPACK is never only a silent -1002.
  if (!g_ok)
    std::fprintf(stderr,
                 "gpueig: the CPU backend has no LAPACK (%s); CPU paths return "
                 "GPUEIG_ERR_LAPACK (-1002)\n",
                 g_error.empty() ? "out of memory" : g_error.c_str());
}

std::once_flag g_once;

}  // namespace

const Table *table() {
  std::call_once(g_once, load);
  return g_ok ? &g_table : nullptr;
}

const char *load_error() {
  std::call_once(g_once, load);
  return g_error.c_str();
}

const char *library_name() {
  std::call_once(g_once, load);
  return g_library.c_str();
}

}  // namespace gpueig::lapack

#include "cublas_loader.hpp"

#include <dlfcn.h>

#include <mutex>
#include <type_traits>

#ifndef GPUEIG_CUBLAS_SONAME
#error "GPUEIG_CUBLAS_SONAME (the toolkit's libcublas.so.N) is set by CMakeLists.txt"
#endif

namespace gpueig::gpu {
namespace {

struct Loaded {
  CublasApi api{};
  bool ok = false;
  std::string why;
};

// The loader's usual places first (LD_LIBRARY_PATH, ld.so.cache, this library's run path), then
// the toolkit directory the library was built against (where a linked cuBLAS was found before).
Loaded load() {
  Loaded out;
  void *h = dlopen(GPUEIG_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *err = dlerror();
    const std::string first = err ? err : GPUEIG_CUBLAS_SONAME;
#ifdef GPUEIG_CUDA_LIBDIR
    h = dlopen(GPUEIG_CUDA_LIBDIR "/" GPUEIG_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) {
      out.why = "cuBLAS could not be loaded (" + first + ")";
      return out;
    }
  }
  bool all = true;
  auto bind = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn && all) {
      all = false;
      out.why = std::string(GPUEIG_CUBLAS_SONAME) + " has no " + name;
    }
  };
  bind(out.api.create, "cublasCreate_v2");
  bind(out.api.destroy, "cublasDestroy_v2");
  bind(out.api.set_stream, "cublasSetStream_v2");
  bind(out.api.get_stream, "cublasGetStream_v2");
  bind(out.api.dgemm, "cublasDgemm_v2");
  bind(out.api.dtrsm, "cublasDtrsm_v2");
  bind(out.api.dsymm, "cublasDsymm_v2");
  bind(out.api.dsyr2k, "cublasDsyr2k_v2");
  out.ok = all;  // the handle stays open for the process's life: the table points into it
  return out;
}

}  // namespace

const CublasApi *cublas_api(std::string *why) {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = load(); });
  if (!loaded.ok && why) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

Status check(cublasStatus_t status, const char *what) {
  return status == CUBLAS_STATUS_SUCCESS ? Status::success()
                                         : Status::fail(Status::device_error, std::string(what) + " failed");
}

}  // namespace gpueig::gpu

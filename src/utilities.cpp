// The utility entry points of the public API.
#include <cstring>
#include <string>

#include "dispatch.hpp"
#include "env.hpp"
#include "lapack.hpp"
#include "tuning.hpp"
#include "gpu_backend.hpp"
#include "gpueig.h"

#ifndef GPUEIG_VERSION
#error "GPUEIG_VERSION must be defined by the build"
#endif

extern "C" const char *gpueig_version(void) { return GPUEIG_VERSION; }

extern "C" int gpueig_gpu_available(void) {
  return gpueig::guarded([] { return gpueig::gpu::available() ? 1 : 0; }, 0);
}

extern "C" const char *gpueig_last_backend(void) {
  return gpueig::backend_name(gpueig::last_backend());
}

extern "C" int gpueig_set_backend(const char *name) {
  return gpueig::guarded([&] { return gpueig::set_policy_by_name(name) ? 0 : -1; }, -1);
}

namespace {

// The routine called `name` (gpueig_backend_for's names), or false.
bool routine_named(const char *name, gpueig::Routine *out) {
  if (!name) return false;
  for (int r = 0; r < static_cast<int>(gpueig::Routine::count); ++r) {
    auto which = static_cast<gpueig::Routine>(r);
    if (std::strcmp(name, gpueig::routine_info(which).name) == 0) {
      *out = which;
      return true;
    }
  }
  return false;
}

}  // namespace

extern "C" const char *gpueig_backend_for(const char *routine, long long size) {
  return gpueig::guarded(
      [&]() -> const char * {
        gpueig::Routine r;
        if (!routine_named(routine, &r)) return nullptr;
        return gpueig::backend_name(gpueig::choose(r, size, false).backend);
      },
      static_cast<const char *>(nullptr));
}

extern "C" const char *gpueig_backend_reason(const char *routine, long long size) {
  return gpueig::guarded(
      [&]() -> const char * {
        thread_local std::string why;
        gpueig::Routine r;
        if (!routine_named(routine, &r)) return nullptr;
        why = gpueig::choose(r, size).why;
        return why.c_str();
      },
      static_cast<const char *>(nullptr));
}

namespace {

const char *describe_library() {
  using namespace gpueig;
  thread_local std::string text;
  text = std::string("libgpueig ") + GPUEIG_VERSION + "\n";
#ifdef GPUEIG_CUDA_ARCHS
  text += std::string("CUDA build: yes (architectures ") + GPUEIG_CUDA_ARCHS + ")\n";
#else
  text += "CUDA build: no\n";
#endif
  text += std::string("LAPACK (CPU backend): ") + lapack::library_name() +
          (lapack::table() ? "" : std::string(" -- NOT LOADED: ") + lapack::load_error()) + "\n";
  std::string devices = gpu::device().describe_devices();
  text += "devices:" + std::string(devices.empty() ? " none\n" : "\n" + devices);
  text += std::string("GPU usable: ") +
          (gpu::available() ? "yes" : "no (" + gpu::unavailable_reason() + ")") + "\n";
  text += std::string("backend policy: ") + policy_name(policy()) + "\n";
  text += "routines (GPU method; auto uses the GPU from this size):\n";
  for (int r = 0; r < static_cast<int>(Routine::count); ++r) {
    const RoutineInfo &info = routine_info(static_cast<Routine>(r));
    text += std::string("  ") + info.name + ": " +
            (!info.has_gpu ? std::string("CPU only (no GPU method yet)")
             : crossover(static_cast<Routine>(r)) >= tuning::kNotTimed
                 ? std::string("no size (GPU method not timed yet)")
                 : info.size_meaning + std::string(" >= ") +
                       std::to_string(crossover(static_cast<Routine>(r)))) +
            "\n";
  }
  text += "environment:\n" + env::describe();
  return text.c_str();
}

}  // namespace

extern "C" const char *gpueig_info(void) {
  return gpueig::guarded(describe_library,
                         static_cast<const char *>("libgpueig: out of memory for the description\n"));
}

// Fault injection, a test-only hook: GPUEIG_FAULT_INJECT=<kind>[@<k>] makes the k-th event of that
// kind in every public call (k = 1 when omitted) fail the way the real fault would, so the tests
// can drive every fallback and error path of every routine, on the GPU machine and, through the
// fake device (src/fake_device.cpp), in CPU-only CI. Events are counted per host thread and call:
// a call's helper threads (getrf's transfers, toeplitz's halves) start their own count.
#pragma once

namespace gpueig::fault {

enum class Kind {
  none,
  alloc,      // a device (or pinned host) allocation fails, as cudaMalloc does when out of memory
  launch,     // a kernel launch fails (cudaErrorLaunchOutOfResources and the like)
  blas,       // the cuBLAS handle cannot be created
  no_device,  // no CUDA device is visible (checked whenever availability is asked)
  lost,       // the device is lost mid-call at a kernel launch: sticky for the rest of the process
  download,   // the device is lost during a download of results (outputs may be partly written)
  gpu_throw,  // the GPU attempt throws a C++ exception
  cpu_throw,  // the CPU path throws a C++ exception
};

// The fault GPUEIG_FAULT_INJECT arms (none when unset; a bad value is reported once and ignored).
Kind armed();
const char *name(Kind k);

// Counts one event of kind k for the calling thread's call; true when it is the one to fail.
bool fires(Kind k);

// Starts a new call on this thread: the event counts restart.
void begin_call();

}  // namespace gpueig::fault

// main() of the GPU-labelled test programs: without a usable GPU the program exits with 77, which
// CTest (SKIP_RETURN_CODE 77) reports as skipped, never as passed.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpueig.h"

int main(int argc, char **argv) {
  if (!gpueig_gpu_available()) {
    std::printf("SKIPPED: no usable GPU\n%s", gpueig_info());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

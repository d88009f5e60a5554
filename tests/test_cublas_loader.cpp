// cuBLAS is loaded at its first use (cuda/cublas_loader.cu), not at the library's load: with the
// toolkit's libcublas installed, as on CI and GPU machines, every entry point resolves (no GPU
// needed to check that); the loaded table is the same on every call, from every thread.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "cublas_loader.hpp"

TEST(CublasLoader, ResolvesEveryEntryPointOnce) {
  std::string why;
  const gpueig::gpu::CublasApi *api = gpueig::gpu::cublas_api(&why);
  ASSERT_NE(api, nullptr) << why;
  EXPECT_TRUE(why.empty());
  EXPECT_NE(api->create, nullptr);
  EXPECT_NE(api->destroy, nullptr);
  EXPECT_NE(api->set_stream, nullptr);
  EXPECT_NE(api->dgemm, nullptr);
  EXPECT_NE(api->dtrsm, nullptr);
  std::vector<const gpueig::gpu::CublasApi *> seen(8);
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&seen, t] { seen[t] = gpueig::gpu::cublas_api(nullptr); });
  for (auto &th : pool) th.join();
  for (const auto *p : seen) EXPECT_EQ(p, api);
}

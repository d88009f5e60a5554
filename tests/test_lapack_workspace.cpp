// LAPACK's minimum workspaces in 64 bits (src/lapack_workspace.hpp): the sizes LAPACK's own
// 32-bit arithmetic wraps, and the rule that a query's answer is never taken alone.
#include <gtest/gtest.h>

#include <climits>
#include <limits>

#include "lapack_workspace.hpp"

namespace {

using namespace gpueig::lapack;

TEST(LapackWorkspace, DsyevdMinimaAreLapacksFormulasIn64Bits) {
  EXPECT_EQ(dsyevd_lwork_min(true, 1), 1);
  EXPECT_EQ(dsyevd_lwork_min(true, 10), 1 + 60 + 200);
  EXPECT_EQ(dsyevd_lwork_min(false, 10), 21);
  EXPECT_EQ(dsyevd_liwork_min(true, 10), 53);
  EXPECT_EQ(dsyevd_liwork_min(false, 10), 1);
  // 1 + 6N + 2N^2 passes INT_MAX at N = 32767: LAPACK's INTEGER wraps there, ours does not.
  EXPECT_LE(dsyevd_lwork_min(true, 32766), INT_MAX);
  EXPECT_GT(dsyevd_lwork_min(true, 32767), INT_MAX);
  EXPECT_EQ(dsyevd_lwork_min(true, 65534), 1 + 6 * 65534LL + 2 * 65534LL * 65534LL);
}

TEST(LapackWorkspace, QueryNeverTrustedAlone) {
  EXPECT_EQ(workspace_length(1.0, 261), 261);     // a query below the minimum (wrapped)
  EXPECT_EQ(workspace_length(-5.0e8, 261), 261);  // a negative (wrapped) query
  EXPECT_EQ(workspace_length(1000.0, 261), 1000); // the optimal size, when larger
  EXPECT_EQ(workspace_length(std::numeric_limits<double>::quiet_NaN(), 7), 7);
  EXPECT_EQ(workspace_length(1.0, dsyevd_lwork_min(true, 32767)), -1);  // no LP64 call can do it
  EXPECT_EQ(workspace_length(3.0e9, 10), -1);
}

}  // namespace

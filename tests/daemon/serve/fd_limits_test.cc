#include "daemon/serve/fd_limits.h"

#include <sys/resource.h>

#include <doctest/doctest.h>

namespace tq {

TEST_CASE("the connection budget keeps descriptors for the daemon and its running tasks") {
  CHECK(ConnectionBudget(256, 2) == 256 - kFdsForDaemon - 2 * kFdsPerRunningTask);
  CHECK(ConnectionBudget(1024, 16) == 1024 - kFdsForDaemon - 16 * kFdsPerRunningTask);
  CHECK(ConnectionBudget(1u << 20, 64) == kMaxConnectionsCap);
  CHECK(ConnectionBudget(64, 16) == kMinConnections);  // below the reserve: a few still
}

TEST_CASE("the soft descriptor limit is raised to the hard one") {
  rlimit before{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &before) == 0);
  rlimit lowered = before;
  lowered.rlim_cur = before.rlim_max < 200 ? before.rlim_max : 200;
  REQUIRE(setrlimit(RLIMIT_NOFILE, &lowered) == 0);
  const size_t limit = RaiseFdLimit();
  rlimit after{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &after) == 0);
  CHECK(after.rlim_cur == before.rlim_max);
  CHECK(limit == after.rlim_cur);
  REQUIRE(setrlimit(RLIMIT_NOFILE, &before) == 0);
}

}  // namespace tq

#include "daemon/host/log_throttle.h"

#include <doctest/doctest.h>

#include "support/fake_clock.h"

namespace tq {

TEST_CASE("a log throttle lets one line through per interval and counts the rest") {
  FakeClock clock;
  LogThrottle throttle(clock, 10000);
  CHECK(throttle.Admit("accept failed: Too many open files") ==
        "accept failed: Too many open files");
  for (int i = 0; i < 1000; ++i) CHECK(!throttle.Admit("accept failed: Too many open files"));
  clock.Advance(9999);
  CHECK(!throttle.Admit("accept failed: Too many open files"));
  clock.Advance(1);
  CHECK(throttle.Admit("accept failed: Too many open files") ==
        "accept failed: Too many open files (1001 more suppressed)");
  clock.Advance(10000);
  CHECK(throttle.Admit("quiet again") == "quiet again");  // the count starts over
}

}  // namespace tq

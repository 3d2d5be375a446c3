// submit_rate and submit_burst as a token bucket, on a fake clock.
#include "core/policy/token_bucket.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("TokenBucket: a full burst, then the rate") {
  TokenBucket b;
  // rate 10 a second, burst 5: five at once, then one every 100 ms.
  for (int i = 0; i < 5; ++i) CHECK(b.Take(1, 1000, 10, 5) == 0);
  CHECK(b.Take(1, 1000, 10, 5) == 100);
  CHECK(b.Take(1, 1050, 10, 5) == 50);  // nothing taken by the refusals
  CHECK(b.Take(1, 1100, 10, 5) == 0);
  CHECK(b.Take(1, 1100, 10, 5) == 100);
  // A long pause refills to the burst, never beyond.
  CHECK(b.Take(5, 100000, 10, 5) == 0);
  CHECK(b.Take(1, 100000, 10, 5) == 100);
}

TEST_CASE("TokenBucket: a batch takes as many tokens as tasks, all or none") {
  TokenBucket b;
  CHECK(b.Take(3, 0, 1, 4) == 0);
  CHECK(b.Take(3, 0, 1, 4) == 2000);  // 1 left, 2 more at 1 a second
  CHECK(b.Take(1, 0, 1, 4) == 0);     // the refused batch took nothing
  CHECK(b.Take(5, 0, 1, 4) == -1);    // more than the burst never fits
}

TEST_CASE("TokenBucket: a clock that goes back refills nothing and breaks nothing") {
  TokenBucket b;
  CHECK(b.Take(2, 5000, 1, 2) == 0);
  CHECK(b.Take(1, 4000, 1, 2) == 1000);
  CHECK(b.Take(1, 6000, 1, 2) == 0);
}

TEST_CASE("TokenBucket: a slow rate waits whole milliseconds, at least 1") {
  TokenBucket b;
  CHECK(b.Take(1, 0, 0.5, 1) == 0);
  CHECK(b.Take(1, 0, 0.5, 1) == 2000);
  CHECK(b.Take(1, 1999, 0.5, 1) == 1);  // half a millisecond short: rounded up
  CHECK(b.Take(1, 2000, 0.5, 1) == 0);
}

}  // namespace
}  // namespace tq

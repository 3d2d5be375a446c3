#include "core/policy/retry.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

RetryPolicy Policy(int retries, BackoffKind kind, int64_t base, int64_t max, bool jitter = false) {
  RetryPolicy p;
  p.retries = retries;
  p.backoff = kind;
  p.base_ms = base;
  p.max_ms = max;
  p.jitter = jitter;
  return p;
}

TEST_CASE("NextDelay without jitter, per kind and retry number") {
  using K = BackoffKind;
  struct Case {
    K kind;
    int64_t base, max;
    int retry;
    int64_t want;
  };
  const Case cases[] = {
      {K::kFixed, 5000, 60000, 1, 5000},
      {K::kFixed, 5000, 60000, 9, 5000},
      {K::kExponential, 1000, 60000, 1, 1000},
      {K::kExponential, 1000, 60000, 2, 2000},
      {K::kExponential, 1000, 60000, 3, 4000},
      {K::kExponential, 1000, 60000, 6, 32000},
      {K::kExponential, 1000, 60000, 7, 60000},
      {K::kExponential, 1000, 60000, 500, 60000},
      {K::kExponential, 30000, 1800000, 4, 240000},
      {K::kProgressive, 0, 10000, 1, 1000},
      {K::kProgressive, 0, 10000, 2, 2000},
      {K::kProgressive, 0, 10000, 4, 8000},
      {K::kProgressive, 0, 10000, 5, 10000},
      {K::kProgressive, 0, 10000, 60, 10000},
      {K::kFixed, 0, 0, 1, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(BackoffName(c.kind));
    CAPTURE(c.retry);
    CHECK(NextDelay(c.retry, Policy(3, c.kind, c.base, c.max), [] { return 0.5; }) == c.want);
  }
}

TEST_CASE("jitter spreads a delay over +-20% and never below zero") {
  const RetryPolicy p = Policy(3, BackoffKind::kFixed, 10000, 60000, true);
  CHECK(NextDelay(1, p, [] { return 0.0; }) == 8000);
  CHECK(NextDelay(1, p, [] { return 0.5; }) == 10000);
  CHECK(NextDelay(1, p, [] { return 0.999999; }) == 12000);
  const RetryPolicy zero = Policy(3, BackoffKind::kFixed, 0, 0, true);
  CHECK(NextDelay(1, zero, [] { return 0.0; }) == 0);
}

TEST_CASE("ShouldRetry: budget, reasons and exit-code lists") {
  RetryPolicy p = Policy(2, BackoffKind::kFixed, 0, 0);
  struct Case {
    int failed;
    AttemptReason reason;
    int exit_code;
    bool want;
  };
  const Case budget[] = {
      {1, AttemptReason::kExit, 1, true},          {2, AttemptReason::kExit, 1, true},
      {3, AttemptReason::kExit, 1, false},         {1, AttemptReason::kSignal, -1, true},
      {1, AttemptReason::kTimeout, -1, true},      {1, AttemptReason::kLost, -1, true},
      {1, AttemptReason::kSpawnFailed, 127, true}, {1, AttemptReason::kCancelled, -1, false},
      {1, AttemptReason::kExit, 0, false},
  };
  for (const Case& c : budget) {
    CAPTURE(c.failed);
    CAPTURE(AttemptReasonName(c.reason));
    CHECK(ShouldRetry(p, c.failed, c.reason, c.exit_code) == c.want);
  }
  p.no_retry_on_exit = {2};
  CHECK_FALSE(ShouldRetry(p, 1, AttemptReason::kExit, 2));
  CHECK(ShouldRetry(p, 1, AttemptReason::kExit, 3));
  p.retry_on_exit = {75};
  CHECK(ShouldRetry(p, 1, AttemptReason::kExit, 75));
  CHECK_FALSE(ShouldRetry(p, 1, AttemptReason::kExit, 3));
  CHECK(ShouldRetry(p, 1, AttemptReason::kSignal, -1));  // the lists speak of exit codes only
  CHECK_FALSE(ShouldRetry(Policy(0, BackoffKind::kFixed, 0, 0), 1, AttemptReason::kExit, 1));
}

TEST_CASE("RetryPriority demotes within 1..5") {
  CHECK(RetryPriority(3, 0) == 3);
  CHECK(RetryPriority(3, 1) == 4);
  CHECK(RetryPriority(4, 3) == 5);
  CHECK(RetryPriority(1, -2) == 1);
}

}  // namespace
}  // namespace tq

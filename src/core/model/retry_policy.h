// How a failed attempt is tried again (SPEC 5): the backoff kinds and the retry policy a task,
// or one of its stages, follows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tq {

/// How delays between attempts grow (SPEC 5).
enum class BackoffKind {
  kFixed,        ///< always `base`
  kExponential,  ///< base * 2^n, capped at `max`
  kProgressive,  ///< 1 s, 2 s, 4 s ... capped at `max` (the seeds' max_retry_interval)
};

const char* BackoffName(BackoffKind k);
std::optional<BackoffKind> BackoffFromName(const std::string& name);

/// When and how often a failed attempt is tried again (SPEC 5).
struct RetryPolicy {
  int retries = 0;  ///< attempts allowed after the first failed one
  BackoffKind backoff = BackoffKind::kExponential;
  int64_t base_ms = 10000;            ///< fixed delay, or the first exponential one
  int64_t max_ms = 3600000;           ///< no delay is longer (before jitter)
  bool jitter = true;                 ///< spread each delay uniformly over +-20%
  std::vector<int> retry_on_exit;     ///< when not empty, only these exit codes are retried
  std::vector<int> no_retry_on_exit;  ///< these exit codes are never retried
  bool operator==(const RetryPolicy&) const = default;
};

}  // namespace tq

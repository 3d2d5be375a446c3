#include "core/policy/retry.h"

#include <algorithm>
#include <cmath>

namespace tq {

namespace {
bool Contains(const std::vector<int>& codes, int code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// base * 2^n without overflow, capped at `cap`.
int64_t Doubled(int64_t base, int n, int64_t cap) {
  int64_t v = std::max<int64_t>(base, 0);
  for (int i = 0; i < n && v < cap; ++i) v = v > cap / 2 ? cap : v * 2;
  return std::min(v, cap);
}

// How far jitter spreads a delay either way (SPEC 5: +-20%).
constexpr double kJitter = 0.2;
}  // namespace

bool ShouldRetry(const RetryPolicy& policy, int failed_attempts, AttemptReason reason,
                 int exit_code) {
  if (reason == AttemptReason::kCancelled || reason == AttemptReason::kNone) return false;
  if (reason == AttemptReason::kExit) {
    if (exit_code == 0 || Contains(policy.no_retry_on_exit, exit_code)) return false;
    if (!policy.retry_on_exit.empty() && !Contains(policy.retry_on_exit, exit_code)) return false;
  }
  return failed_attempts <= policy.retries;
}

int64_t NextDelay(int retry, const RetryPolicy& policy, const UniformSource& uniform) {
  const int n = std::max(retry, 1) - 1;
  int64_t delay = 0;
  switch (policy.backoff) {
    case BackoffKind::kFixed:
      delay = std::max<int64_t>(policy.base_ms, 0);
      break;
    case BackoffKind::kExponential:
      delay = Doubled(policy.base_ms, n, policy.max_ms);
      break;
    case BackoffKind::kProgressive:
      delay = Doubled(1000, n, policy.max_ms);
      break;
  }
  if (policy.jitter && delay > 0) {
    const double factor = 1.0 + kJitter * (2.0 * uniform() - 1.0);
    // Clamped before the conversion: past int64 it would be undefined.
    delay = std::llround(std::min(static_cast<double>(delay) * factor, 0x1p62));
  }
  return std::max<int64_t>(delay, 0);
}

int RetryPriority(int priority, int penalty) {
  return std::clamp(priority + std::max(penalty, 0), kMinPriority, kMaxPriority);
}

}  // namespace tq

// Retry settings a submitter or a job gives: those left unset come from the queue's defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/retry_policy.h"

namespace tq {

/// Retry settings given with a submit or a job; those left unset come from the queue's defaults.
struct RetryOverrides {
  std::optional<int> retries;
  std::optional<BackoffKind> backoff;
  std::optional<int64_t> base_ms;
  std::optional<int64_t> max_ms;
  std::optional<bool> jitter;
  std::optional<std::vector<int>> retry_on_exit;
  std::optional<std::vector<int>> no_retry_on_exit;
  bool operator==(const RetryOverrides&) const = default;
};

/// `defaults` with every set field of `overrides` applied.
RetryPolicy ApplyOverrides(RetryPolicy defaults, const RetryOverrides& overrides);

}  // namespace tq

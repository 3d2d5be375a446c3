// The retry decisions of SPEC 5 as pure functions: whether a failed attempt is tried again, and
// after how long.
#pragma once

#include <cstdint>

#include "core/model/task.h"
#include "core/policy/chooser.h"

namespace tq {

/// Whether a task whose attempt ended with `reason` and `exit_code` gets another attempt, given
/// `failed_attempts` failures (this one included) since it was submitted or last re-queued.
/// A cancelled attempt is never retried; exit codes follow retry_on_exit / no_retry_on_exit.
bool ShouldRetry(const RetryPolicy& policy, int failed_attempts, AttemptReason reason,
                 int exit_code);

/// The delay before retry number `retry` (1 for the first retry) under `policy`, with jitter
/// drawn from `uniform` when the policy asks for it. Never negative.
int64_t NextDelay(int retry, const RetryPolicy& policy, const UniformSource& uniform);

/// The priority of a retried attempt: `priority` demoted by `penalty`, at most the lowest.
int RetryPriority(int priority, int penalty);

}  // namespace tq

// The end of an attempt as one pure decision (SPEC 2 and 5): the task succeeds, fails, is
// cancelled, or waits for a retry, and when. The daemon asks it; the store applies the answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/attempt_outcome.h"
#include "core/model/clock.h"
#include "core/model/task.h"
#include "core/policy/chooser.h"

namespace tq {

/// What becomes of a task whose running attempt ended.
struct AttemptEndDecision {
  TaskEvent event = TaskEvent::kFail;     ///< kSucceed, kAdvance, kFail, kCancel or kRetry
  TaskState next = TaskState::kFailed;    ///< Transition(running, event): pending for a retry
  TaskReason reason = TaskReason::kNone;  ///< the terminal reason; for a retry, the one the
                                          ///< task fails with if the retry cannot be stored
  int64_t delay_ms = 0;                   ///< a retry's wait
  WallMs retry_at = 0;                    ///< a retry's earliest start: now + delay, saturating
  int retry_priority = 0;                 ///< a retry's (demoted) priority
};

/// Whether the end of an attempt with `outcome` may be retried, so that DecideAttemptEnd needs
/// the count of failed attempts: not when it succeeded, not when it was cancelled.
bool MayRetry(const AttemptOutcome& outcome);

/// Decides the end of `task`'s running attempt that ended with `outcome` at `now`. `stop` is the
/// stop the daemon asked of it (its task reason names a cancel or a supersede);
/// `failed_attempts` the failures since the task was queued, this one included (nullopt when
/// they could not be counted: no retry). The success of a stage before the last advances the
/// task to its next stage (SPEC 13). A retry follows the retry policy of the task's current stage
/// (StageRetry), its priority is demoted by `retry_priority_penalty`, and jitter is drawn from
/// `uniform`.
AttemptEndDecision DecideAttemptEnd(const Task& task, const AttemptOutcome& outcome,
                                    const std::optional<StopRequest>& stop,
                                    std::optional<int> failed_attempts, int retry_priority_penalty,
                                    WallMs now, const UniformSource& uniform);

/// `task`, read before its start, as Store::StartAttempt(`now`, `units`) leaves it on `host` (the
/// store's joined host) with its attempt `attempt`: what the daemon keeps of a task it runs, so
/// that its end reads nothing again (a test holds each store to it).
Task StartedTask(Task task, int attempt, WallMs now, const UnitGrant& units,
                 const std::string& host);

/// `task`, read while attempt `attempt` ran, as Store::FinishAttempt(`attempt`, `outcome`,
/// `state`, `reason`) leaves it: what the daemon tells of the end without reading it again (a
/// test holds each store to it).
Task FinishedTask(Task task, int attempt, const AttemptOutcome& outcome, TaskState state,
                  TaskReason reason);

}  // namespace tq

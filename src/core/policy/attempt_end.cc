#include "core/policy/attempt_end.h"

#include "core/model/saturating.h"
#include "core/model/stage_progress.h"
#include "core/policy/retry.h"

namespace tq {

namespace {
bool Succeeded(const AttemptOutcome& outcome) {
  return outcome.reason == AttemptReason::kExit && outcome.exit_code == 0;
}

// The decision for `event`, whose state the transition table gives.
AttemptEndDecision Decision(TaskEvent event, TaskReason reason) {
  AttemptEndDecision d;
  d.event = event;
  d.next = *Transition(TaskState::kRunning, event);  // every event used here leaves running
  d.reason = reason;
  return d;
}
}  // namespace

bool MayRetry(const AttemptOutcome& outcome) {
  return !Succeeded(outcome) && outcome.reason != AttemptReason::kCancelled;
}

AttemptEndDecision DecideAttemptEnd(const Task& task, const AttemptOutcome& outcome,
                                    const std::optional<StopRequest>& stop,
                                    std::optional<int> failed_attempts, int retry_priority_penalty,
                                    WallMs now, const UniformSource& uniform) {
  if (Succeeded(outcome))  // a stage before the last hands the task on to the next one
    return Decision(IsLastStage(task.spec, task.stage) ? TaskEvent::kSucceed : TaskEvent::kAdvance,
                    TaskReason::kExit);
  if (outcome.reason == AttemptReason::kCancelled)
    return Decision(TaskEvent::kCancel, stop ? stop->task_reason : TaskReason::kCancelled);
  const TaskReason failed = TaskReasonForAttempt(outcome.reason);
  const RetryPolicy policy = StageRetry(task.spec, task.stage);
  if (!failed_attempts || !ShouldRetry(policy, *failed_attempts, outcome.reason, outcome.exit_code))
    return Decision(TaskEvent::kFail, failed);
  AttemptEndDecision d = Decision(TaskEvent::kRetry, failed);
  d.delay_ms = NextDelay(*failed_attempts, policy, uniform);
  d.retry_at = SaturatingAdd(now, d.delay_ms);
  d.retry_priority = RetryPriority(task.spec.priority, retry_priority_penalty);
  return d;
}

Task StartedTask(Task task, int attempt, WallMs now, const UnitGrant& units,
                 const std::string& host) {
  task.state = TaskState::kRunning;
  task.attempt_count = attempt;
  Attempt started;
  started.number = attempt;
  started.started = now;
  started.units = units;
  started.stage = task.stage;
  started.host = host;
  task.attempts.push_back(std::move(started));
  return task;
}

Task FinishedTask(Task task, int attempt, const AttemptOutcome& outcome, TaskState state,
                  TaskReason reason) {
  task.state = state;
  task.reason = reason;
  task.exit_code = outcome.exit_code;
  task.signal = outcome.signal;
  task.finished = outcome.ended;
  task.on_hold = false;
  for (Attempt& a : task.attempts) {
    if (a.number != attempt) continue;
    a.ended = outcome.ended;
    a.exit_code = outcome.exit_code;
    a.signal = outcome.signal;
    a.reason = outcome.reason;
    a.user_cpu_us = outcome.user_cpu_us;
    a.system_cpu_us = outcome.system_cpu_us;
    a.max_rss_kb = outcome.max_rss_kb;
    a.memory_peak_bytes = outcome.memory_peak_bytes;
    if (outcome.pid > 0) a.pid = outcome.pid;
    if (outcome.shim_pid > 0) a.shim_pid = outcome.shim_pid;
    if (!outcome.detail.empty()) a.detail = outcome.detail;  // else the attempt's note stays
    a.output_cuts = outcome.output_cuts;
  }
  return task;
}

}  // namespace tq

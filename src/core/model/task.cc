#include "core/model/task.h"

#include <string>

#include "core/model/name_table.h"

namespace tq {

namespace {
const std::pair<TaskState, const char*> kStates[] = {
    {TaskState::kPending, "pending"},     {TaskState::kRunning, "running"},
    {TaskState::kSucceeded, "succeeded"}, {TaskState::kFailed, "failed"},
    {TaskState::kCancelled, "cancelled"}, {TaskState::kExpired, "expired"},
};
const std::pair<TaskReason, const char*> kTaskReasons[] = {
    {TaskReason::kNone, ""},
    {TaskReason::kExit, "exit"},
    {TaskReason::kSignal, "signal"},
    {TaskReason::kTimeout, "timeout"},
    {TaskReason::kSpawnFailed, "spawn-failed"},
    {TaskReason::kDependencyFailed, "dependency-failed"},
    {TaskReason::kExpiredPending, "expired-pending"},
    {TaskReason::kSuperseded, "superseded"},
    {TaskReason::kCancelled, "cancelled"},
    {TaskReason::kUserGone, "user-gone"},
    {TaskReason::kLost, "lost"},
    {TaskReason::kContextLost, "context-lost"},
};
const std::pair<AttemptReason, const char*> kAttemptReasons[] = {
    {AttemptReason::kNone, ""},
    {AttemptReason::kExit, "exit"},
    {AttemptReason::kSignal, "signal"},
    {AttemptReason::kTimeout, "timeout"},
    {AttemptReason::kCancelled, "cancelled"},
    {AttemptReason::kSpawnFailed, "spawn-failed"},
    {AttemptReason::kLost, "lost"},
};
const std::pair<TaskEvent, const char*> kEvents[] = {
    {TaskEvent::kStart, "start"},     {TaskEvent::kSucceed, "succeed"},
    {TaskEvent::kFail, "fail"},       {TaskEvent::kCancel, "cancel"},
    {TaskEvent::kRetry, "retry"},     {TaskEvent::kUnstart, "unstart"},
    {TaskEvent::kRequeue, "requeue"}, {TaskEvent::kReplace, "replace"},
    {TaskEvent::kExpire, "expire"},   {TaskEvent::kAdvance, "advance"},
};

// The legal transitions of SPEC 2; anything absent is refused.
struct Edge {
  TaskState from;
  TaskEvent event;
  TaskState to;
};
constexpr Edge kEdges[] = {
    {TaskState::kPending, TaskEvent::kStart, TaskState::kRunning},
    {TaskState::kPending, TaskEvent::kCancel, TaskState::kCancelled},
    {TaskState::kPending, TaskEvent::kFail, TaskState::kFailed},  // ttl, dependency failed
    {TaskState::kPending, TaskEvent::kReplace, TaskState::kPending},
    {TaskState::kRunning, TaskEvent::kSucceed, TaskState::kSucceeded},
    {TaskState::kRunning, TaskEvent::kFail, TaskState::kFailed},
    {TaskState::kRunning, TaskEvent::kCancel, TaskState::kCancelled},
    {TaskState::kRunning, TaskEvent::kRetry, TaskState::kPending},
    {TaskState::kRunning, TaskEvent::kUnstart, TaskState::kPending},
    {TaskState::kRunning, TaskEvent::kAdvance,
     TaskState::kPending},  // a stage done, the next one waits
    {TaskState::kSucceeded, TaskEvent::kExpire, TaskState::kExpired},
    {TaskState::kFailed, TaskEvent::kRequeue, TaskState::kPending},
    {TaskState::kFailed, TaskEvent::kReplace, TaskState::kPending},
    {TaskState::kCancelled, TaskEvent::kRequeue, TaskState::kPending},
    {TaskState::kCancelled, TaskEvent::kReplace, TaskState::kPending},
    {TaskState::kExpired, TaskEvent::kReplace, TaskState::kPending},
};
}  // namespace

const char* StateName(TaskState s) {
  return NameOf(kStates, s);
}
const char* TaskReasonName(TaskReason r) {
  return NameOf(kTaskReasons, r);
}
const char* AttemptReasonName(AttemptReason r) {
  return NameOf(kAttemptReasons, r);
}
std::optional<TaskState> StateFromName(const std::string& n) {
  return ValueOf(kStates, n);
}
std::optional<TaskReason> TaskReasonFromName(const std::string& n) {
  return ValueOf(kTaskReasons, n);
}
std::optional<AttemptReason> AttemptReasonFromName(const std::string& n) {
  return ValueOf(kAttemptReasons, n);
}

bool IsTerminal(TaskState s) {
  return s != TaskState::kPending && s != TaskState::kRunning;
}

Result<TaskState> Transition(TaskState from, TaskEvent event) {
  for (const auto& e : kEdges)
    if (e.from == from && e.event == event) return e.to;
  return Status::Invalid("state",
                         std::string("a ") + StateName(from) + " task cannot " + EventName(event));
}

const char* EventName(TaskEvent event) {
  return NameOf(kEvents, event);
}

TaskReason TaskReasonForAttempt(AttemptReason r) {
  switch (r) {
    case AttemptReason::kExit:
      return TaskReason::kExit;
    case AttemptReason::kSignal:
      return TaskReason::kSignal;
    case AttemptReason::kTimeout:
      return TaskReason::kTimeout;
    case AttemptReason::kCancelled:
      return TaskReason::kCancelled;
    case AttemptReason::kSpawnFailed:
      return TaskReason::kSpawnFailed;
    case AttemptReason::kLost:
      return TaskReason::kLost;
    case AttemptReason::kNone:
      break;
  }
  return TaskReason::kNone;
}

}  // namespace tq

#include "core/model/task.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("the transition table of SPEC 2: every allowed pair, every other one refused") {
  using S = TaskState;
  using E = TaskEvent;
  struct Edge {
    S from;
    E event;
    S to;
  };
  const Edge allowed[] = {
      {S::kPending, E::kStart, S::kRunning},     {S::kPending, E::kCancel, S::kCancelled},
      {S::kPending, E::kFail, S::kFailed},       {S::kPending, E::kReplace, S::kPending},
      {S::kRunning, E::kSucceed, S::kSucceeded}, {S::kRunning, E::kFail, S::kFailed},
      {S::kRunning, E::kCancel, S::kCancelled},  {S::kRunning, E::kRetry, S::kPending},
      {S::kRunning, E::kUnstart, S::kPending},   {S::kSucceeded, E::kExpire, S::kExpired},
      {S::kFailed, E::kRequeue, S::kPending},    {S::kFailed, E::kReplace, S::kPending},
      {S::kCancelled, E::kRequeue, S::kPending}, {S::kCancelled, E::kReplace, S::kPending},
      {S::kExpired, E::kReplace, S::kPending},   {S::kRunning, E::kAdvance, S::kPending},
  };
  for (S from : {S::kPending, S::kRunning, S::kSucceeded, S::kFailed, S::kCancelled, S::kExpired}) {
    for (E event : {E::kStart, E::kSucceed, E::kFail, E::kCancel, E::kRetry, E::kUnstart,
                    E::kRequeue, E::kReplace, E::kExpire, E::kAdvance}) {
      CAPTURE(StateName(from));
      CAPTURE(EventName(event));
      std::optional<S> to;
      for (const Edge& e : allowed)
        if (e.from == from && e.event == event) to = e.to;
      auto r = Transition(from, event);
      CHECK(r.ok() == to.has_value());
      if (to && r.ok()) CHECK(*r == *to);
      if (!r.ok()) {
        CHECK(r.status().message() ==
              std::string("a ") + StateName(from) + " task cannot " + EventName(event));
      }
    }
  }
}

TEST_CASE("state and reason names round-trip and terminal states are the four of SPEC 2") {
  for (TaskState s : {TaskState::kPending, TaskState::kRunning, TaskState::kSucceeded,
                      TaskState::kFailed, TaskState::kCancelled, TaskState::kExpired}) {
    CHECK(StateFromName(StateName(s)) == s);
    const bool terminal = s != TaskState::kPending && s != TaskState::kRunning;
    CHECK(IsTerminal(s) == terminal);
  }
  CHECK_FALSE(StateFromName("done"));
  for (const char* r : {"exit", "signal", "timeout", "spawn-failed", "dependency-failed",
                        "expired-pending", "superseded", "cancelled", "user-gone", "lost"})
    CHECK(TaskReasonName(*TaskReasonFromName(r)) == std::string(r));
  for (const char* r : {"exit", "signal", "timeout", "cancelled", "spawn-failed", "lost"})
    CHECK(AttemptReasonName(*AttemptReasonFromName(r)) == std::string(r));
}

}  // namespace
}  // namespace tq

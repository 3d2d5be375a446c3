#include "core/model/task.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("the transition table of SPEC 2") {
  using S = TaskState;
  using E = TaskEvent;
  struct Case {
    S from;
    E event;
    std::optional<S> to;  // nullopt: refused
  };
  const Case cases[] = {
      {S::kPending, E::kStart, S::kRunning},     {S::kPending, E::kCancel, S::kCancelled},
      {S::kPending, E::kFail, S::kFailed},       {S::kPending, E::kSucceed, std::nullopt},
      {S::kRunning, E::kSucceed, S::kSucceeded}, {S::kRunning, E::kFail, S::kFailed},
      {S::kRunning, E::kCancel, S::kCancelled},  {S::kRunning, E::kStart, std::nullopt},
      {S::kSucceeded, E::kExpire, S::kExpired},  {S::kSucceeded, E::kCancel, std::nullopt},
      {S::kFailed, E::kStart, std::nullopt},     {S::kCancelled, E::kStart, std::nullopt},
      {S::kExpired, E::kExpire, std::nullopt},   {S::kFailed, E::kExpire, std::nullopt},
  };
  for (const Case& c : cases) {
    CAPTURE(StateName(c.from));
    auto r = Transition(c.from, c.event);
    CHECK(r.ok() == c.to.has_value());
    if (c.to && r.ok()) CHECK(*r == *c.to);
    if (!r.ok()) CHECK(r.status().message().find(StateName(c.from)) != std::string::npos);
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

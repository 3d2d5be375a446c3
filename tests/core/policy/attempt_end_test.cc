#include "core/policy/attempt_end.h"

#include <doctest/doctest.h>

#include <limits>

namespace tq {
namespace {

// A task allowed 2 retries, fixed 5 s apart without jitter, at priority 2.
Task Retried() {
  Task task;
  task.id = 7;
  task.state = TaskState::kRunning;
  task.spec.priority = 2;
  task.spec.retry.retries = 2;
  task.spec.retry.backoff = BackoffKind::kFixed;
  task.spec.retry.base_ms = 5000;
  task.spec.retry.jitter = false;
  task.spec.retry.no_retry_on_exit = {3};
  return task;
}

AttemptOutcome EndedWith(AttemptReason reason, int exit_code = -1) {
  AttemptOutcome outcome;
  outcome.ended = 1000;
  outcome.reason = reason;
  outcome.exit_code = exit_code;
  return outcome;
}

TEST_CASE("DecideAttemptEnd: each kind of end, with and without retries left") {
  using A = AttemptReason;
  using E = TaskEvent;
  using S = TaskState;
  using R = TaskReason;
  const StopRequest superseded{A::kCancelled, R::kSuperseded, 900};
  struct Case {
    const char* name;
    AttemptOutcome outcome;
    std::optional<StopRequest> stop;
    std::optional<int> failed;
    E event;
    S next;
    R reason;
  };
  const Case cases[] = {
      {"exit 0 succeeds", EndedWith(A::kExit, 0), std::nullopt, std::nullopt, E::kSucceed,
       S::kSucceeded, R::kExit},
      {"exit 0 succeeds even after a stop", EndedWith(A::kExit, 0), superseded, 1, E::kSucceed,
       S::kSucceeded, R::kExit},
      {"exit 1 with retries left", EndedWith(A::kExit, 1), std::nullopt, 1, E::kRetry, S::kPending,
       R::kExit},
      {"exit 1 on the last retry", EndedWith(A::kExit, 1), std::nullopt, 3, E::kFail, S::kFailed,
       R::kExit},
      {"exit 3 is never retried", EndedWith(A::kExit, 3), std::nullopt, 1, E::kFail, S::kFailed,
       R::kExit},
      {"a signal is retried", EndedWith(A::kSignal), std::nullopt, 2, E::kRetry, S::kPending,
       R::kSignal},
      {"a timeout is retried", EndedWith(A::kTimeout), std::nullopt, 1, E::kRetry, S::kPending,
       R::kTimeout},
      {"a spawn failure is retried", EndedWith(A::kSpawnFailed, 127), std::nullopt, 1, E::kRetry,
       S::kPending, R::kSpawnFailed},
      {"a lost attempt without retries left", EndedWith(A::kLost), std::nullopt, 3, E::kFail,
       S::kFailed, R::kLost},
      {"failures that cannot be counted: no retry", EndedWith(A::kExit, 1), std::nullopt,
       std::nullopt, E::kFail, S::kFailed, R::kExit},
      {"a cancel", EndedWith(A::kCancelled), std::nullopt, 1, E::kCancel, S::kCancelled,
       R::kCancelled},
      {"a cancel asked as a supersede", EndedWith(A::kCancelled), superseded, 1, E::kCancel,
       S::kCancelled, R::kSuperseded},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(MayRetry(c.outcome) == (c.event != E::kSucceed && c.event != E::kCancel));
    const AttemptEndDecision d =
        DecideAttemptEnd(Retried(), c.outcome, c.stop, c.failed,
                         /*retry_priority_penalty=*/1, 10000, [] { return 0.5; });
    CHECK(d.event == c.event);
    CHECK(d.next == c.next);
    CHECK(d.reason == c.reason);
    if (c.event == E::kRetry) {
      CHECK(d.delay_ms == 5000);
      CHECK(d.retry_at == 15000);
      CHECK(d.retry_priority == 3);
    } else {
      CHECK(d.delay_ms == 0);
      CHECK(d.retry_at == 0);
    }
  }
}

TEST_CASE("DecideAttemptEnd: the retry time saturates and the priority stays in range") {
  Task task = Retried();
  task.spec.priority = kMaxPriority;
  task.spec.retry.base_ms = std::numeric_limits<int64_t>::max();
  const AttemptEndDecision d =
      DecideAttemptEnd(task, EndedWith(AttemptReason::kExit, 1), std::nullopt, 1, 4,
                       std::numeric_limits<int64_t>::max() - 10, [] { return 0.5; });
  REQUIRE(d.event == TaskEvent::kRetry);
  CHECK(d.retry_at == std::numeric_limits<int64_t>::max());
  CHECK(d.retry_priority == kMaxPriority);
}

TEST_CASE("DecideAttemptEnd draws jitter only for a retry") {
  int draws = 0;
  const UniformSource counted = [&] {
    ++draws;
    return 0.0;
  };
  Task task = Retried();
  task.spec.retry.jitter = true;
  DecideAttemptEnd(task, EndedWith(AttemptReason::kExit, 0), std::nullopt, 1, 0, 0, counted);
  DecideAttemptEnd(task, EndedWith(AttemptReason::kExit, 1), std::nullopt, 3, 0, 0, counted);
  CHECK(draws == 0);
  const AttemptEndDecision d =
      DecideAttemptEnd(task, EndedWith(AttemptReason::kExit, 1), std::nullopt, 1, 0, 0, counted);
  CHECK(draws == 1);
  CHECK(d.delay_ms == 4000);  // 5 s spread down by the full 20%
}

// The task of Retried() with three stages: "b" retries 4 times on its own, 1 s apart.
Task Staged(int stage) {
  Task task = Retried();
  task.spec.stages = {{"a", {"true"}, std::nullopt, std::nullopt, {}},
                      {"b", {"true"}, std::nullopt, std::nullopt, {}},
                      {"c", {"true"}, std::nullopt, std::nullopt, {}}};
  task.spec.stages[1].retry.retries = 4;
  task.spec.stages[1].retry.base_ms = 1000;
  task.stage = stage;
  return task;
}

TEST_CASE("DecideAttemptEnd with stages: advance, the stage's own retries, the last stage ends") {
  using A = AttemptReason;
  using E = TaskEvent;
  struct Case {
    const char* name;
    int stage;
    AttemptOutcome outcome;
    int failed;
    E event;
    TaskState next;
    int64_t delay_ms;
  };
  const Case cases[] = {
      {"the first stage's success advances", 0, EndedWith(A::kExit, 0), 0, E::kAdvance,
       TaskState::kPending, 0},
      {"a middle stage's success advances", 1, EndedWith(A::kExit, 0), 3, E::kAdvance,
       TaskState::kPending, 0},
      {"the last stage's success ends the task", 2, EndedWith(A::kExit, 0), 0, E::kSucceed,
       TaskState::kSucceeded, 0},
      {"the task's policy where the stage has none", 0, EndedWith(A::kExit, 1), 2, E::kRetry,
       TaskState::kPending, 5000},
      {"the task's policy spent", 0, EndedWith(A::kExit, 1), 3, E::kFail, TaskState::kFailed, 0},
      {"the stage's own retries and delay", 1, EndedWith(A::kExit, 1), 4, E::kRetry,
       TaskState::kPending, 1000},
      {"the stage's own retries spent", 1, EndedWith(A::kExit, 1), 5, E::kFail, TaskState::kFailed,
       0},
      {"the task's no_retry_on_exit holds in a stage", 1, EndedWith(A::kExit, 3), 1, E::kFail,
       TaskState::kFailed, 0},
      {"a cancel in a stage cancels the task", 1, EndedWith(A::kCancelled), 1, E::kCancel,
       TaskState::kCancelled, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const AttemptEndDecision d = DecideAttemptEnd(Staged(c.stage), c.outcome, std::nullopt,
                                                  c.failed, 1, 10000, [] { return 0.5; });
    CHECK(d.event == c.event);
    CHECK(d.next == c.next);
    CHECK(d.delay_ms == c.delay_ms);
  }
}

}  // namespace
}  // namespace tq

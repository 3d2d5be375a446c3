// StartedTask and FinishedTask (core/policy/attempt_end.h) are the tasks Store::StartAttempt and
// Store::FinishAttempt leave, so the daemon keeps the task it runs and tells of its end without
// reading it again: a table of starts and ends, each checked against the store's own reading.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/policy/attempt_end.h"
#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// The fields of `a` and `b` a reader of a task sees.
void CheckSame(const Task& a, const Task& b) {
  CHECK(a.id == b.id);
  CHECK(a.state == b.state);
  CHECK(a.reason == b.reason);
  CHECK(a.attempt_count == b.attempt_count);
  CHECK(a.exit_code == b.exit_code);
  CHECK(a.signal == b.signal);
  CHECK(a.created == b.created);
  CHECK(a.finished == b.finished);
  CHECK(a.on_hold == b.on_hold);
  CHECK(a.stage == b.stage);
  CHECK(a.spec.argv == b.spec.argv);
  CHECK(a.spec.labels == b.spec.labels);
  REQUIRE(a.attempts.size() == b.attempts.size());
  for (size_t i = 0; i < a.attempts.size(); ++i) {
    CAPTURE(i);
    const Attempt& x = a.attempts[i];
    const Attempt& y = b.attempts[i];
    CHECK(x.number == y.number);
    CHECK(x.started == y.started);
    CHECK(x.ended == y.ended);
    CHECK(x.pid == y.pid);
    CHECK(x.shim_pid == y.shim_pid);
    CHECK(x.exit_code == y.exit_code);
    CHECK(x.signal == y.signal);
    CHECK(x.reason == y.reason);
    CHECK(x.user_cpu_us == y.user_cpu_us);
    CHECK(x.system_cpu_us == y.system_cpu_us);
    CHECK(x.max_rss_kb == y.max_rss_kb);
    CHECK(x.memory_peak_bytes == y.memory_peak_bytes);
    CHECK(x.detail == y.detail);
    CHECK(x.output_cuts == y.output_cuts);
    CHECK(x.units == y.units);
    CHECK(x.stage == y.stage);
    CHECK(x.host == y.host);
  }
}

STORE_TEST_CASE("StartedTask and FinishedTask are the tasks StartAttempt and FinishAttempt leave") {
  auto store = OpenStore();
  AttemptOutcome ok = Exited(2000, 0);
  ok.pid = 41;
  ok.shim_pid = 40;
  ok.user_cpu_us = 1500;
  ok.system_cpu_us = 300;
  ok.max_rss_kb = 2048;
  ok.memory_peak_bytes = 1 << 20;
  AttemptOutcome failed = Exited(2100, 3);
  failed.detail = "a note of the end";
  AttemptOutcome killed = Exited(2200, -1);
  killed.signal = 9;
  killed.reason = AttemptReason::kSignal;
  AttemptOutcome cancelled = Exited(2300, -1);
  cancelled.signal = 15;
  cancelled.reason = AttemptReason::kCancelled;
  AttemptOutcome cut = Exited(2400, 0);
  cut.output_cuts = {OutputCut{true, 4096, "No space left on device"}};
  const struct {
    const char* what;
    AttemptOutcome outcome;
    TaskState state;
    TaskReason reason;
    bool noted;    // the attempt carries a note from before its end
    bool retried;  // a failed attempt came first
  } kCases[] = {
      {"succeeded", ok, TaskState::kSucceeded, TaskReason::kExit, false, false},
      {"failed, with a detail", failed, TaskState::kFailed, TaskReason::kExit, false, false},
      {"killed by a signal, after a retry", killed, TaskState::kFailed, TaskReason::kSignal, false,
       true},
      {"cancelled, its note kept", cancelled, TaskState::kCancelled, TaskReason::kCancelled, true,
       false},
      {"output cut", cut, TaskState::kSucceeded, TaskReason::kExit, false, false},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.what);
    TaskSpec spec = Spec({"x"});
    spec.labels = {"a", "b"};
    spec.retry.retries = 1;
    const TaskId id = MustInsert(*store, kAlice, spec, 500);
    // As the daemon keeps it: the task read at its claim, started, then noted.
    const UnitGrant units = {{"gpu", {"1", "3"}}};
    Task pending = MustGet(*store, id);
    int attempt = *store->StartAttempt(id, 1000, units).value();
    Task running = StartedTask(pending, attempt, 1000, units, "");
    CheckSame(running, MustGet(*store, id));
    CHECK(MustGet(*store, id).attempts.back().units == units);
    if (c.retried) {
      REQUIRE(store->RetryLater(id, attempt, Exited(1100, 1), 1100, 3).ok());
      pending = MustGet(*store, id);
      attempt = MustStart(*store, id, 1200);
      running = StartedTask(pending, attempt, 1200, {}, "");
      CheckSame(running, MustGet(*store, id));
    }
    if (c.noted) {
      REQUIRE(store->NoteAttempt(id, attempt, "a note from the start").ok());
      running.attempts.back().detail = "a note from the start";
    }
    REQUIRE(store->FinishAttempt(id, attempt, c.outcome, c.state, c.reason).ok());
    CheckSame(FinishedTask(running, attempt, c.outcome, c.state, c.reason), MustGet(*store, id));
  }
}

STORE_TEST_CASE("StartAndRead gives the task StartedTask makes of a read before the start") {
  auto store = OpenStore();
  TaskSpec plain = Spec({"x"});
  plain.labels = {"a", "b"};
  plain.retry.retries = 1;
  TaskSpec staged = Spec({"x"});
  staged.stages = {StageSpec{"one", {"true"}, std::nullopt, std::nullopt, {}},
                   StageSpec{"two", {}, "exit 0", 5000, {}}};
  const struct {
    const char* what;
    TaskSpec spec;
    UnitGrant units;
    bool retried;  // a failed attempt came first
  } kCases[] = {
      {"a first attempt, holding units", plain, {{"gpu", {"1", "3"}}}, false},
      {"a second attempt", plain, {}, true},
      {"a task with stages", staged, {}, false},
      {"a run of a job that may overlap", JobRun("overlaps", false), {}, false},
      {"a run of a job that may not", JobRun("alone", true), {}, false},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.what);
    const TaskId id = MustInsert(*store, kAlice, c.spec, 500);
    if (c.retried) {
      const int first = MustStart(*store, id, 600);
      REQUIRE(store->RetryLater(id, first, Exited(700, 1), 700, 3).ok());
    }
    const Task before = MustGet(*store, id);
    Result<std::optional<StartedAttempt>> started = store->StartAndRead(id, 1000, c.units);
    REQUIRE_MESSAGE(started.ok(), started.status().message());
    REQUIRE(started->has_value());
    const StartedAttempt& attempt = **started;
    CHECK(attempt.number == (c.retried ? 2 : 1));
    REQUIRE_MESSAGE(attempt.task.ok(), attempt.task.status().message());
    CheckSame(*attempt.task, StartedTask(before, attempt.number, 1000, c.units, ""));
    CheckSame(*attempt.task, MustGet(*store, id));
    CHECK(attempt.task->spec.stages.size() == c.spec.stages.size());
    CHECK(attempt.task->spec.job == c.spec.job);
    // Started once: a second start finds it running.
    started = store->StartAndRead(id, 1100, {});
    REQUIRE(started.ok());
    CHECK_FALSE(started->has_value());
  }
  // A run of a job started so holds the job's exclusive runs, as StartAttempt does.
  const TaskId exclusive = MustInsert(*store, kAlice, JobRun("mixed", true), 500);
  const TaskId overlapping = MustInsert(*store, kAlice, JobRun("mixed", false), 500);
  REQUIRE(Ready(*store, "cron") == exclusive);
  REQUIRE(store->StartAndRead(overlapping, 1200, {})->has_value());
  CHECK_FALSE(Ready(*store, "cron").has_value());
  CHECK_FALSE(store->StartAndRead(exclusive, 1200, {})->has_value());
  CHECK(StateOf(*store, exclusive) == TaskState::kPending);
}

}  // namespace
}  // namespace tq

// Stages in the store (SPEC 13): kept with their own settings, advanced one at a time with a
// fresh retry budget, resumed by Requeue where the task stopped or where `tq retry` says.
#include <doctest/doctest.h>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

// A task of three stages: dump (argv, its own timeout), gz (a shell command), upload (its own
// retries and backoff).
TaskSpec ThreeStoredStages() {
  TaskSpec spec = Spec({});
  StageSpec dump{"dump", {"pg_dump", "db"}, std::nullopt, 60000, {}};
  StageSpec gz{"gz", {}, "gzip \"$TQ_CONTEXT/db.sql\"", std::nullopt, {}};
  StageSpec upload{"upload", {"rclone", "copy"}, std::nullopt, std::nullopt, {}};
  upload.retry.retries = 5;
  upload.retry.backoff = BackoffKind::kFixed;
  upload.retry.retry_on_exit = std::vector<int>{75};
  spec.stages = {dump, gz, upload};
  spec.retry.retries = 1;
  return spec;
}

// Ends the running attempt of `id` with exit `code` as its stage's end: the next stage for 0.
void EndStage(Store& store, TaskId id, int code, WallMs at) {
  const int attempt = MustGet(store, id).attempt_count;
  if (code == 0) {
    Status s = store.AdvanceStage(id, attempt, Exited(at, 0));
    REQUIRE_MESSAGE(s.ok(), s.message());
  } else {
    Status s = store.RetryLater(id, attempt, Exited(at, code), at, 4);
    REQUIRE_MESSAGE(s.ok(), s.message());
  }
}

STORE_TEST_CASE("a task's stages are kept with their own settings, and a task without stays so") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, ThreeStoredStages());
  const Task t = MustGet(*store, id);
  REQUIRE(t.spec.stages.size() == 3);
  CHECK(t.spec.argv.empty());
  CHECK(t.stage == 0);
  CHECK(t.spec.stages[0].name == "dump");
  CHECK(t.spec.stages[0].argv == std::vector<std::string>{"pg_dump", "db"});
  CHECK(t.spec.stages[0].timeout_ms == 60000);
  CHECK_FALSE(t.spec.stages[0].shell);
  CHECK_FALSE(t.spec.stages[0].retry.retries);
  CHECK(t.spec.stages[1].shell == "gzip \"$TQ_CONTEXT/db.sql\"");
  CHECK(t.spec.stages[1].argv.empty());
  CHECK_FALSE(t.spec.stages[1].timeout_ms);
  CHECK(t.spec.stages[2].retry.retries == 5);
  CHECK(t.spec.stages[2].retry.backoff == BackoffKind::kFixed);
  CHECK(t.spec.stages[2].retry.retry_on_exit == std::vector<int>{75});
  CHECK_FALSE(t.spec.stages[2].retry.no_retry_on_exit);
  CHECK_FALSE(t.spec.stages[2].retry.jitter);
  Result<std::vector<Task>> listed = store->List(ListFilter{});
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().spec.stages.size() == 3);
  CHECK(listed->front().spec.stages[2].name == "upload");
  const TaskId plain = MustInsert(*store, kAlice, Spec({"true"}));
  CHECK(MustGet(*store, plain).spec.stages.empty());
}

STORE_TEST_CASE("a stage's success makes the task pending and ready at its next stage") {
  auto store = OpenStore();
  TaskSpec spec = ThreeStoredStages();
  spec.priority = 2;
  const TaskId id = MustInsert(*store, kAlice, spec);
  MustStart(*store, id, 2000);
  // A failure of the first stage demotes the retry's priority and counts against its budget.
  EndStage(*store, id, 1, 2100);
  CHECK(*store->FailedSinceQueued(id) == 1);
  MustStart(*store, id, 2200);
  EndStage(*store, id, 0, 2300);
  Task t = MustGet(*store, id);
  CHECK(t.state == TaskState::kPending);
  CHECK(t.stage == 1);
  CHECK(*store->FailedSinceQueued(id) == 0);  // a fresh budget at the new stage
  CHECK(Ready(*store, "default", ReadyOrder::kHighestPriority) == id);
  Result<std::optional<Candidate>> c = store->FirstReady("default", ReadyOrder::kHighestPriority);
  REQUIRE(c.ok());
  CHECK((*c)->priority == 2);  // the submitted priority again
  MustStart(*store, id, 2400);
  t = MustGet(*store, id);
  REQUIRE(t.attempts.size() == 3);
  CHECK(t.attempts[0].stage == 0);
  CHECK(t.attempts[1].stage == 0);
  CHECK(t.attempts[2].stage == 1);
  EndStage(*store, id, 0, 2500);
  MustStart(*store, id, 2600);
  // The last stage has no next one: its success ends the task instead.
  Status refused = store->AdvanceStage(id, 4, Exited(2700, 0));
  CHECK(refused.code() == ErrorCode::kInvalid);
  CHECK(refused.field() == "stage");
  CHECK(MustGet(*store, id).state == TaskState::kRunning);
  REQUIRE(
      store->FinishAttempt(id, 4, Exited(2700, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  t = MustGet(*store, id);
  CHECK(t.state == TaskState::kSucceeded);
  CHECK(t.stage == 2);
}

STORE_TEST_CASE("a running stage's own timeout is what a restart re-arms") {
  auto store = OpenStore();
  TaskSpec spec = ThreeStoredStages();
  spec.timeout_ms = 9000;
  const TaskId id = MustInsert(*store, kAlice, spec);
  MustStart(*store, id, 2000);
  Result<std::vector<RunningAttempt>> running = store->RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 1);
  CHECK(running->front().timeout_ms == 60000);  // dump's own
  EndStage(*store, id, 0, 2100);
  MustStart(*store, id, 2200);
  running = store->RunningAttempts();
  REQUIRE(running.ok());
  REQUIRE(running->size() == 1);
  CHECK(running->front().timeout_ms == 9000);  // gz has none: the task's
}

STORE_TEST_CASE("a failed task resumes at its failed stage, or where tq retry says") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, ThreeStoredStages());
  MustStart(*store, id, 2000);
  EndStage(*store, id, 0, 2100);
  MustStart(*store, id, 2200);
  REQUIRE(store->FinishAttempt(id, 2, Exited(2300, 3), TaskState::kFailed, TaskReason::kExit).ok());
  CHECK(MustGet(*store, id).stage == 1);
  REQUIRE(*store->Requeue(id, 3000));
  Task t = MustGet(*store, id);
  CHECK(t.state == TaskState::kPending);
  CHECK(t.stage == 1);
  MustStart(*store, id, 3100);
  REQUIRE(store->FinishAttempt(id, 3, Exited(3200, 3), TaskState::kFailed, TaskReason::kExit).ok());
  Result<std::vector<TaskId>> again = store->RequeueAll({id}, 4000, false, {{id, 0}});
  REQUIRE(again.ok());
  CHECK(*again == std::vector<TaskId>{id});
  t = MustGet(*store, id);
  CHECK(t.stage == 0);
  CHECK(t.attempts.size() == 3);  // the history stays
}

STORE_TEST_CASE("a keyed replace takes the new request's stages and starts at the first") {
  auto store = OpenStore();
  TaskSpec first = ThreeStoredStages();
  first.key = "nightly";
  first.version = 1;
  const TaskId id = MustSubmit(*store, kAlice, first).id;
  MustStart(*store, id, 2000);
  EndStage(*store, id, 0, 2100);
  REQUIRE(store->EndPending(id, TaskState::kCancelled, TaskReason::kCancelled, 2200).ok());
  TaskSpec second = first;
  second.stages.pop_back();
  second.stages[0].name = "dump2";
  const SubmitOutcome out = MustSubmit(*store, kAlice, second, 3000);
  CHECK(out.id == id);
  const Task t = MustGet(*store, id);
  CHECK(t.stage == 0);
  REQUIRE(t.spec.stages.size() == 2);
  CHECK(t.spec.stages[0].name == "dump2");
  TaskSpec plain = Keyed("nightly", 1);
  REQUIRE(store->EndPending(id, TaskState::kCancelled, TaskReason::kCancelled, 3100).ok());
  MustSubmit(*store, kAlice, plain, 3200);
  CHECK(MustGet(*store, id).spec.stages.empty());
}

STORE_TEST_CASE("a task with stages is removed with its stages") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, ThreeStoredStages());
  REQUIRE(store->EndPending(id, TaskState::kCancelled, TaskReason::kCancelled, 2000).ok());
  Result<RemovedTasks> removed = store->RemoveFinished({id});
  REQUIRE_MESSAGE(removed.ok(), removed.status().message());
  CHECK(removed->ids == std::vector<TaskId>{id});
  CHECK(store->Get(id).status().code() == ErrorCode::kNotFound);
  // A new task reusing nothing of it reads back whole.
  const TaskId next = MustInsert(*store, kAlice, ThreeStoredStages());
  CHECK(MustGet(*store, next).spec.stages.size() == 3);
}

STORE_TEST_CASE("a running task's next stage can be held, and the hold outlasts stage moves") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, ThreeStoredStages());
  MustStart(*store, id, 2000);
  Result<std::vector<TaskId>> held = store->SetHeld({id}, true, 2050);
  REQUIRE(held.ok());
  CHECK(*held == std::vector<TaskId>{id});
  CHECK(MustGet(*store, id).state == TaskState::kRunning);
  CHECK(MustGet(*store, id).on_hold);
  EndStage(*store, id, 0, 2100);  // the next stage waits
  CHECK(MustGet(*store, id).stage == 1);
  CHECK_FALSE(Ready(*store, "default"));
  REQUIRE(store->SetHeld({id}, false, 2200).ok());
  CHECK(Ready(*store, "default") == id);
  // A stage's retry waits too, and so does an attempt the store undoes.
  MustStart(*store, id, 2300);
  REQUIRE(store->SetHeld({id}, true, 2350).ok());
  EndStage(*store, id, 1, 2400);
  CHECK(MustGet(*store, id).on_hold);
  CHECK_FALSE(Ready(*store, "default"));
  REQUIRE(store->SetHeld({id}, false, 2450).ok());
  MustStart(*store, id, 2500);
  REQUIRE(store->SetHeld({id}, true, 2550).ok());
  REQUIRE(store->UnstartAttempt(id, 3).ok());
  CHECK(MustGet(*store, id).on_hold);
  CHECK_FALSE(Ready(*store, "default"));
  REQUIRE(store->SetHeld({id}, false, 2600).ok());
  MustStart(*store, id, 2700);
  EndStage(*store, id, 0, 2800);
  MustStart(*store, id, 2900);
  // At its last stage there is nothing left to hold.
  held = store->SetHeld({id}, true, 2750);
  REQUIRE(held.ok());
  CHECK(held->empty());
  // A final end clears a hold taken before it.
  const TaskId other = MustInsert(*store, kAlice, ThreeStoredStages());
  MustStart(*store, other, 3000);
  REQUIRE(store->SetHeld({other}, true, 3050).ok());
  REQUIRE(
      store->FinishAttempt(other, 1, Exited(3100, 9), TaskState::kFailed, TaskReason::kExit).ok());
  CHECK_FALSE(MustGet(*store, other).on_hold);
}

STORE_TEST_CASE("a job's run between its stages is in flight: an exclusive run waits for it") {
  auto store = OpenStore();
  TaskSpec first = JobRun("backup", true);
  first.argv.clear();
  first.stages = ThreeStoredStages().stages;
  const TaskId a = MustInsert(*store, kAlice, first);
  MustStart(*store, a, 2000);
  EndStage(*store, a, 0, 2100);
  Result<JobRuns> runs = store->RunsOf("backup");
  REQUIRE(runs.ok());
  CHECK(runs->between_stages == std::vector<TaskId>{a});
  CHECK(runs->pending.empty());
  CHECK(runs->running.empty());
  // The queued run is held while the first is part way through, also once it is pending again.
  TaskSpec queued = JobRun("backup", true);
  queued.queue = "later";
  const TaskId b = MustInsert(*store, kAlice, queued, 2150);
  CHECK_FALSE(Ready(*store, "later"));
  MustStart(*store, a, 2200);
  EndStage(*store, a, 0, 2300);
  CHECK_FALSE(Ready(*store, "later"));
  runs = store->RunsOf("backup");
  REQUIRE(runs.ok());
  CHECK(runs->pending == std::vector<TaskId>{b});
  // Cancelled between stages, the first run lets the queued one go.
  REQUIRE(store->EndPending(a, TaskState::kCancelled, TaskReason::kCancelled, 2400).ok());
  CHECK(Ready(*store, "later") == b);
}

}  // namespace
}  // namespace tq

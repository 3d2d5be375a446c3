// Time-driven sweeps of the store: pending_ttl expiry and success retention, each in batches
// bounded by a limit (purge is in sqlite/purge_test.cc: it checks the rows left behind), and
// `tq clean`'s removal of finished tasks at once.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("ExpirePendingTtl fails pending tasks past their ttl, and their dependents") {
  auto store = OpenStore();
  CHECK_FALSE(store->NextPendingTtl()->has_value());
  auto with_ttl = [](int64_t ttl) {
    TaskSpec s = Spec({"x"});
    s.pending_ttl_ms = ttl;
    return s;
  };
  const TaskId soon = MustInsert(*store, kAlice, with_ttl(1000), 1000);   // 2000
  const TaskId later = MustInsert(*store, kAlice, with_ttl(5000), 1000);  // 6000
  const TaskId never = MustInsert(*store, kAlice, with_ttl(0), 1000);
  const TaskId started = MustInsert(*store, kAlice, with_ttl(100), 1000);  // cleared at start
  TaskSpec dependent = with_ttl(0);
  dependent.after = {soon};
  const TaskId dep = MustInsert(*store, kAlice, dependent, 1000);
  TaskSpec delayed = with_ttl(1500);  // 2500, although it may not start before 9000
  delayed.not_before = 9000;
  const TaskId delayed_id = MustInsert(*store, kAlice, delayed, 1000);
  MustStart(*store, started, 1050);

  CHECK(*store->NextPendingTtl() == std::optional<WallMs>(2000));
  CHECK(store->ExpirePendingTtl(1999, 10)->empty());
  Result<std::vector<TaskId>> ended = store->ExpirePendingTtl(2000, 10);
  REQUIRE(ended.ok());
  CHECK(*ended == std::vector<TaskId>{soon, dep});
  Task t = MustGet(*store, soon);
  CHECK(t.state == TaskState::kFailed);
  CHECK(t.reason == TaskReason::kExpiredPending);
  CHECK(t.finished == 2000);
  CHECK(MustGet(*store, dep).reason == TaskReason::kDependencyFailed);

  CHECK(*store->NextPendingTtl() == std::optional<WallMs>(2500));
  CHECK(*store->ExpirePendingTtl(7000, 10) == std::vector<TaskId>{delayed_id, later});
  CHECK_FALSE(store->NextPendingTtl()->has_value());
  CHECK(StateOf(*store, never) == TaskState::kPending);
  CHECK(StateOf(*store, started) == TaskState::kRunning);
  CHECK_FALSE(store->NextDue()->has_value());  // the delayed one no longer waits
}

STORE_TEST_CASE("ExpirePendingTtl works in batches of at most limit, earliest first") {
  auto store = OpenStore();
  std::vector<TaskId> ids;
  for (int i = 0; i < 5; ++i) {
    TaskSpec s = Spec({"x"});
    s.pending_ttl_ms = 1000 - i * 100;  // later ids expire earlier
    ids.push_back(MustInsert(*store, kAlice, s, 1000));
  }
  CHECK(*store->ExpirePendingTtl(5000, 2) == std::vector<TaskId>{ids[4], ids[3]});
  CHECK(*store->ExpirePendingTtl(5000, 0) == std::vector<TaskId>{});
  CHECK(*store->ExpirePendingTtl(5000, 10) == std::vector<TaskId>{ids[2], ids[1], ids[0]});
}

STORE_TEST_CASE("ExpireSucceeded moves succeeded tasks at or before the cutoff, in batches") {
  auto store = OpenStore();
  CHECK_FALSE(store->OldestSucceeded()->has_value());
  std::vector<TaskId> done;
  for (int i = 0; i < 4; ++i) {
    done.push_back(MustInsert(*store, kAlice, Spec({"ok"})));
    StartAndFinish(*store, done.back(), TaskState::kSucceeded, 1000 + 100 * i);  // ends +10
  }
  const TaskId failed = MustInsert(*store, kAlice, Spec({"bad"}));
  StartAndFinish(*store, failed, TaskState::kFailed, 500);
  TaskSpec waiting = Spec({"w"});
  waiting.after = {done[0]};
  const TaskId w = MustInsert(*store, kAlice, waiting, 2000);
  REQUIRE(Ready(*store, "default") == w);

  CHECK(*store->OldestSucceeded() == std::optional<WallMs>(1010));
  CHECK(store->ExpireSucceeded(1009, 10)->empty());
  CHECK(*store->ExpireSucceeded(1210, 2) == std::vector<TaskId>{done[0], done[1]});
  CHECK(*store->ExpireSucceeded(1210, 10) == std::vector<TaskId>{done[2]});
  CHECK(*store->OldestSucceeded() == std::optional<WallMs>(1310));
  Task t = MustGet(*store, done[0]);
  CHECK(t.state == TaskState::kExpired);
  CHECK(t.reason == TaskReason::kExit);
  CHECK(t.finished == 1010);  // purge_after counts from the end of the run
  CHECK(t.attempts.size() == 1);
  CHECK(StateOf(*store, failed) == TaskState::kFailed);
  CHECK(Ready(*store, "default") == w);  // its dependent is undisturbed
}

STORE_TEST_CASE("RemoveFinished deletes the finished tasks asked for, with their output") {
  auto store = OpenStore();
  const TaskId ok = MustInsert(*store, kAlice, Spec({"ok"}));
  AttemptOutcome out = Exited(1010, 0);
  out.output_bytes = 300;
  REQUIRE(store
              ->FinishAttempt(ok, MustStart(*store, ok, 1000), out, TaskState::kSucceeded,
                              TaskReason::kExit)
              .ok());
  const TaskId bad = MustInsert(*store, kBob, Spec({"bad"}, "other"));
  StartAndFinish(*store, bad, TaskState::kFailed, 1000);
  const TaskId pending = MustInsert(*store, kAlice, Spec({"p"}));
  const TaskId running = MustInsert(*store, kAlice, Spec({"r"}));
  MustStart(*store, running, 1000);
  TaskSpec waiting = Spec({"w"});
  waiting.after = {ok};
  const TaskId w = MustInsert(*store, kAlice, waiting, 2000);
  REQUIRE(*store->OutputOf(kAlice.uid) == 300);

  // Pending, running and unknown ids are left out; the rest go in the order asked.
  Result<RemovedTasks> removed = store->RemoveFinished({pending, ok, running, bad, 999});
  REQUIRE_MESSAGE(removed.ok(), removed.status().message());
  CHECK(removed->ids == std::vector<TaskId>{ok, bad});
  CHECK(removed->output_bytes == 300);
  CHECK(store->Get(ok).status().code() == ErrorCode::kNotFound);
  CHECK(store->Get(bad).status().code() == ErrorCode::kNotFound);
  CHECK(StateOf(*store, pending) == TaskState::kPending);
  CHECK(StateOf(*store, running) == TaskState::kRunning);
  CHECK(*store->OutputOf(kAlice.uid) == 0);
  const std::vector<std::string> queues = QueueNames(*store);
  CHECK(std::find(queues.begin(), queues.end(), "other") == queues.end());  // idle: forgotten
  // The dependent of the removed success still counts it done.
  CHECK(StateOf(*store, w) == TaskState::kPending);
  CHECK(store->UnfinishedDeps(w)->empty());

  CHECK(store->RemoveFinished({})->ids.empty());
  CHECK(store->RemoveFinished({ok})->ids.empty());  // gone already
}

}  // namespace
}  // namespace tq

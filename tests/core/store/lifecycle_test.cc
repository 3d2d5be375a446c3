// A task's life in the store after submit: retries, `tq retry`, the retry budget, and the
// failure of dependents, transitively and at once.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

STORE_TEST_CASE("RetryLater, then PromoteDue, then StartAttempt opens attempt 2") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"flaky"});
  spec.retry.retries = 2;
  const TaskId id = MustInsert(*store, kAlice, spec);
  CHECK(MustStart(*store, id, 1000) == 1);
  CHECK(*store->FailedSinceQueued(id) == 1);  // the running attempt counts, as ShouldRetry wants

  AttemptOutcome failed = Exited(2000, 1);
  failed.pid = 77;
  failed.user_cpu_us = 5;
  REQUIRE(store->RetryLater(id, 1, failed, 5000, 4).ok());
  Task task = MustGet(*store, id);
  CHECK(task.state == TaskState::kPending);
  CHECK(task.reason == TaskReason::kNone);
  CHECK(task.exit_code == 1);
  CHECK(task.finished == 0);
  CHECK(task.spec.not_before == 5000);
  CHECK(task.spec.priority == kDefaultPriority);  // the request keeps its priority
  REQUIRE(task.attempts.size() == 1);
  CHECK(task.attempts[0].ended == 2000);
  CHECK(task.attempts[0].exit_code == 1);
  CHECK(task.attempts[0].pid == 77);
  CHECK(task.attempts[0].user_cpu_us == 5);
  CHECK(task.attempts[0].reason == AttemptReason::kExit);
  CHECK(*store->FailedSinceQueued(id) == 1);

  CHECK_FALSE(Ready(*store, "default").has_value());
  CHECK_FALSE(store->StartAttempt(id, 4000, {})->has_value());
  CHECK(*store->NextDue() == std::optional<WallMs>(5000));
  CHECK(*store->PromoteDue(4999, 1000) == 0);
  CHECK(*store->PromoteDue(5000, 1000) == 1);
  Result<std::optional<Candidate>> c = store->FirstReady("default", ReadyOrder::kHighestPriority);
  REQUIRE(c->has_value());
  CHECK((*c)->id == id);
  CHECK((*c)->priority == 4);  // demoted for the chooser
  CHECK(MustStart(*store, id, 5000) == 2);
  CHECK(*store->FailedSinceQueued(id) == 2);
  CHECK(MustGet(*store, id).attempts.size() == 2);
}

STORE_TEST_CASE("an attempt keeps where and why its output was cut, through a retry and an end") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"noisy"});
  spec.retry.retries = 1;
  const TaskId id = MustInsert(*store, kAlice, spec);
  REQUIRE(MustStart(*store, id, 1000) == 1);
  AttemptOutcome failed = Exited(2000, 1);
  failed.output_cuts = {{false, 11534336, "No space left on device"},
                        {true, 0, "Disk quota exceeded"}};
  REQUIRE(store->RetryLater(id, 1, failed, 2000, 4).ok());
  REQUIRE(MustStart(*store, id, 3000) == 2);
  AttemptOutcome succeeded = Exited(4000, 0);
  succeeded.output_cuts = {{true, 42, "Input/output error"}};
  REQUIRE(store->FinishAttempt(id, 2, succeeded, TaskState::kSucceeded, TaskReason::kExit).ok());
  const Task task = MustGet(*store, id);
  REQUIRE(task.attempts.size() == 2);
  CHECK(task.attempts[0].output_cuts == failed.output_cuts);
  CHECK(task.attempts[1].output_cuts == succeeded.output_cuts);
  CHECK(task.state == TaskState::kSucceeded);
}

STORE_TEST_CASE("RetryLater with no delay left is ready at once, wrong attempts are refused") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
  const TaskId idle = MustInsert(*store, kAlice, Spec({"idle"}));
  MustStart(*store, id, 1000);
  CHECK(store->RetryLater(id, 2, Exited(1500, 1), 1500, 3).code() == ErrorCode::kInvalid);
  CHECK(store->RetryLater(idle, 1, Exited(1500, 1), 1500, 3).code() == ErrorCode::kInvalid);
  CHECK(store->RetryLater(9999, 1, Exited(1500, 1), 1500, 3).code() == ErrorCode::kNotFound);
  REQUIRE(store->RetryLater(id, 1, Exited(1500, 1), 1500, 3).ok());
  CHECK(Ready(*store, "default") == id);
  CHECK_FALSE(store->NextDue()->has_value());
}

STORE_TEST_CASE("FailedSinceQueued starts again after Requeue, which restores the request") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"flaky"}, "default", 2);
  spec.retry.retries = 1;
  const TaskId id = MustInsert(*store, kAlice, spec);
  MustStart(*store, id, 1000);
  REQUIRE(store->RetryLater(id, 1, Exited(1100, 1), 1100, 5).ok());
  MustStart(*store, id, 1200);
  REQUIRE(store->FinishAttempt(id, 2, Exited(1300, 1), TaskState::kFailed, TaskReason::kExit).ok());
  CHECK(*store->FailedSinceQueued(id) == 2);

  CHECK(*store->Requeue(id, 10000));
  Task task = MustGet(*store, id);
  CHECK(task.state == TaskState::kPending);
  CHECK(task.reason == TaskReason::kNone);
  CHECK(task.finished == 0);
  CHECK(task.spec.not_before == 10000);
  CHECK(task.attempts.size() == 2);  // history stays
  CHECK(*store->FailedSinceQueued(id) == 0);
  Result<std::optional<Candidate>> c = store->FirstReady("default", ReadyOrder::kHighestPriority);
  REQUIRE(c->has_value());
  CHECK((*c)->priority == 2);  // the demotion is undone
  CHECK(MustStart(*store, id, 10000) == 3);
  CHECK(*store->FailedSinceQueued(id) == 1);
  CHECK(store->FailedSinceQueued(9999).status().code() == ErrorCode::kNotFound);
}

STORE_TEST_CASE("Requeue takes only failed or cancelled tasks") {
  const struct {
    TaskState state;
    bool requeued;
  } kCases[] = {
      {TaskState::kPending, false}, {TaskState::kRunning, false}, {TaskState::kSucceeded, false},
      {TaskState::kExpired, false}, {TaskState::kFailed, true},   {TaskState::kCancelled, true},
  };
  for (const auto& c : kCases) {
    CAPTURE(StateName(c.state));
    auto store = OpenStore();
    const TaskId id = MustInsert(*store, kAlice, Spec({"x"}));
    switch (c.state) {
      case TaskState::kPending:
        break;
      case TaskState::kRunning:
        MustStart(*store, id, 1000);
        break;
      case TaskState::kExpired:
        StartAndFinish(*store, id, TaskState::kSucceeded, 1000);
        REQUIRE(store->ExpireSucceeded(2000, 1)->size() == 1);
        break;
      default:
        StartAndFinish(*store, id, c.state, 1000);
        break;
    }
    Result<bool> r = store->Requeue(id, 5000);
    REQUIRE(r.ok());
    CHECK(*r == c.requeued);
    CHECK(StateOf(*store, id) == (c.requeued ? TaskState::kPending : c.state));
  }
  auto store = OpenStore();
  CHECK(store->Requeue(42, 5000).status().code() == ErrorCode::kNotFound);
}

STORE_TEST_CASE("Requeue of a task whose dependency failed waits for that one to be re-queued") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  TaskSpec b = Spec({"b"});
  b.after = {a};
  const TaskId b_id = MustInsert(*store, kAlice, b);
  CHECK(StartAndFinish(*store, a, TaskState::kFailed, 1000) == std::vector<TaskId>{b_id});

  Result<bool> refused = store->Requeue(b_id, 2000);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == ErrorCode::kInvalid);
  CHECK(refused.status().field() == "after");
  CHECK(refused.status().message() == "task " + std::to_string(b_id) + " waits for task " +
                                          std::to_string(a) +
                                          ", which failed: retry that one first");
  CHECK(StateOf(*store, b_id) == TaskState::kFailed);

  CHECK(*store->Requeue(a, 2000));
  CHECK(*store->Requeue(b_id, 2000));
  CHECK(Ready(*store, "default") == a);
  MustStart(*store, a, 2000);
  CHECK_FALSE(Ready(*store, "default").has_value());  // b waits for a's new run
  REQUIRE(
      store->FinishAttempt(a, 2, Exited(2500, 0), TaskState::kSucceeded, TaskReason::kExit).ok());
  CHECK(Ready(*store, "default") == b_id);
}

STORE_TEST_CASE("Requeue restarts the pending ttl from now") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"x"});
  spec.pending_ttl_ms = 1000;
  const TaskId id = MustInsert(*store, kAlice, spec, 1000);
  CHECK(*store->NextPendingTtl() == std::optional<WallMs>(2000));
  REQUIRE(store->EndPending(id, TaskState::kCancelled, TaskReason::kCancelled, 1500).ok());
  CHECK_FALSE(store->NextPendingTtl()->has_value());
  CHECK(*store->Requeue(id, 5000));
  CHECK(*store->NextPendingTtl() == std::optional<WallMs>(6000));
}

// How the head of a chain ends, and what each way returns.
enum class HeadEnd { kAttemptFailed, kAttemptCancelled, kPendingCancelled, kPendingFailed };

STORE_TEST_CASE("a dependency chain fails at once when its head fails or is cancelled") {
  const struct {
    const char* name;
    HeadEnd how;
    TaskState head_state;
  } kCases[] = {
      {"attempt failed", HeadEnd::kAttemptFailed, TaskState::kFailed},
      {"attempt cancelled", HeadEnd::kAttemptCancelled, TaskState::kCancelled},
      {"cancelled while pending", HeadEnd::kPendingCancelled, TaskState::kCancelled},
      {"failed while pending", HeadEnd::kPendingFailed, TaskState::kFailed},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    auto store = OpenStore();
    const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
    TaskSpec b = Spec({"b"});
    b.after = {a};
    const TaskId b_id = MustInsert(*store, kAlice, b);
    TaskSpec cc = Spec({"c"});
    cc.after = {b_id};
    cc.not_before = 999999;
    const TaskId c_id = MustInsert(*store, kAlice, cc);
    TaskSpec unrelated = Spec({"u"});
    const TaskId u = MustInsert(*store, kAlice, unrelated);

    std::vector<TaskId> ended;
    switch (c.how) {
      case HeadEnd::kAttemptFailed:
      case HeadEnd::kAttemptCancelled:
        ended = StartAndFinish(*store, a, c.head_state, 3000);
        CHECK(ended == std::vector<TaskId>{b_id, c_id});
        break;
      case HeadEnd::kPendingCancelled:
      case HeadEnd::kPendingFailed: {
        TaskReason reason =
            c.how == HeadEnd::kPendingCancelled ? TaskReason::kCancelled : TaskReason::kUserGone;
        Result<std::vector<TaskId>> r = store->EndPending(a, c.head_state, reason, 3010);
        REQUIRE(r.ok());
        CHECK(*r == std::vector<TaskId>{a, b_id, c_id});
        break;
      }
    }
    CHECK(StateOf(*store, a) == c.head_state);
    for (TaskId id : {b_id, c_id}) {
      Task t = MustGet(*store, id);
      CHECK(t.state == TaskState::kFailed);
      CHECK(t.reason == TaskReason::kDependencyFailed);
      CHECK(t.finished == 3010);
      CHECK(t.attempts.empty());
    }
    CHECK(StateOf(*store, u) == TaskState::kPending);
    CHECK_FALSE(store->NextDue()->has_value());  // c no longer waits for its time
  }
}

STORE_TEST_CASE("dependency failure reaches a diamond once and skips tasks already ended") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  const TaskId other = MustInsert(*store, kAlice, Spec({"other"}));
  auto after = [&](std::vector<TaskId> deps) {
    TaskSpec s = Spec({"x"});
    s.after = std::move(deps);
    return MustInsert(*store, kAlice, s);
  };
  const TaskId b = after({a});
  const TaskId c = after({a, other});
  const TaskId d = after({b, c});
  const TaskId gone = after({a});
  REQUIRE(store->EndPending(gone, TaskState::kCancelled, TaskReason::kCancelled, 2000).ok());

  std::vector<TaskId> ended = StartAndFinish(*store, a, TaskState::kFailed, 3000);
  CHECK(ended == std::vector<TaskId>{b, c, d});
  CHECK(MustGet(*store, gone).reason == TaskReason::kCancelled);
  CHECK(StateOf(*store, other) == TaskState::kPending);
  // other succeeding later changes nothing for c, which already failed.
  CHECK(StartAndFinish(*store, other, TaskState::kSucceeded, 4000).empty());
  CHECK(StateOf(*store, c) == TaskState::kFailed);
}

STORE_TEST_CASE("expired satisfies a dependency like succeeded") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  TaskSpec b = Spec({"b"});
  b.after = {a};
  b.not_before = 10000;
  const TaskId b_id = MustInsert(*store, kAlice, b);
  StartAndFinish(*store, a, TaskState::kSucceeded, 1000);
  CHECK(*store->ExpireSucceeded(5000, 10) == std::vector<TaskId>{a});
  CHECK(*store->NextDue() == std::optional<WallMs>(10000));  // b waits only for its time
  CHECK(*store->PromoteDue(10000, 1000) == 1);
  CHECK(Ready(*store, "default") == b_id);

  TaskSpec late = Spec({"late"});
  late.after = {a};
  const TaskId late_id = MustInsert(*store, kAlice, late, 11000);
  MustStart(*store, b_id, 11000);
  CHECK(Ready(*store, "default") == late_id);
}

STORE_TEST_CASE("a started task no longer has a pending ttl") {
  auto store = OpenStore();
  TaskSpec spec = Spec({"x"});
  spec.pending_ttl_ms = 500;
  const TaskId id = MustInsert(*store, kAlice, spec, 1000);
  MustStart(*store, id, 1200);
  CHECK_FALSE(store->NextPendingTtl()->has_value());
  REQUIRE(store->RetryLater(id, 1, Exited(1300, 1), 99999, 3).ok());
  CHECK_FALSE(store->NextPendingTtl()->has_value());  // waiting for a retry is not "not started"
  CHECK(store->ExpirePendingTtl(50000, 10)->empty());
  CHECK(MustGet(*store, id).spec.pending_ttl_ms == 500);
}

STORE_TEST_CASE("EndPendingAll ends many pending tasks in one go, skipping those not pending") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  TaskSpec after_a = Spec({"b"});
  after_a.after = {a};
  const TaskId b = MustInsert(*store, kAlice, after_a);
  const TaskId running = MustInsert(*store, kAlice, Spec({"r"}));
  MustStart(*store, running, 1100);
  const TaskId c = MustInsert(*store, kAlice, Spec({"c"}));

  // b fails as a's dependent before its own turn comes, and is then left as it is.
  Result<std::vector<TaskId>> ended = store->EndPendingAll(
      {a, b, running, 999, c}, TaskState::kCancelled, TaskReason::kCancelled, 2000);
  REQUIRE_MESSAGE(ended.ok(), ended.status().message());
  CHECK(*ended == std::vector<TaskId>{a, b, c});
  CHECK(MustGet(*store, a).state == TaskState::kCancelled);
  CHECK(MustGet(*store, b).reason == TaskReason::kDependencyFailed);
  CHECK(MustGet(*store, c).finished == 2000);
  CHECK(StateOf(*store, running) == TaskState::kRunning);
  CHECK(store->EndPendingAll({}, TaskState::kCancelled, TaskReason::kCancelled, 2000)->empty());
  CHECK(
      store->EndPendingAll({c}, TaskState::kSucceeded, TaskReason::kExit, 2000).status().field() ==
      "state");
}

}  // namespace
}  // namespace tq
